"""GET /api/search: ranked cited passages, exactly ``ask --json --no-llm``."""

from __future__ import annotations

from typing import Annotated, Optional

from fastapi import APIRouter, Query

from pipeline.ask.service import answer_json
from pipeline.serve.context import Ctx
from pipeline.serve.errors import errors
from pipeline.serve.limits import MAX_CHAPTER, MAX_QUESTION
from pipeline.serve.views.answers import Mode

router = APIRouter()


@router.get("/api/search", summary="Ranked cited passages (= `ask --json --no-llm`)", responses=errors(404, 422, 503))
async def search(ctx: Ctx,
                 q: Annotated[str, Query(min_length=1, max_length=MAX_QUESTION, description="The question.")],
                 chapter: Annotated[Optional[str], Query(max_length=MAX_CHAPTER, description="Only under a heading containing this.")] = None,
                 k: Annotated[int, Query(ge=1, le=50, description="How many passages.")] = 5,
                 mode: Optional[Mode] = None):
    result = await ctx.in_thread(lambda: ctx.service.search(q, chapter=chapter or None, top_k=k, mode=mode))
    return ctx.json(answer_json(result))
