"""The lists the CLI prints with ``--json`` (chapters, questions, status) and the server's health."""

from __future__ import annotations

from typing import Annotated, Optional

from fastapi import APIRouter, Query

from pipeline import __version__
from pipeline.ask.service import IndexMissing
from pipeline.serve.context import Ctx
from pipeline.serve.errors import errors
from pipeline.serve.limits import MAX_CHAPTER

router = APIRouter()


@router.get("/api/chapters", summary="The chapter tree (= `chapters --json`)", responses=errors(503))
async def chapters(ctx: Ctx):
    return ctx.json(await ctx.in_thread(ctx.service.chapters))


@router.get("/api/questions", summary="Past-paper questions (= `questions --json`)", responses=errors(422, 503))
async def questions(ctx: Ctx, chapter: Annotated[Optional[str], Query(
        max_length=MAX_CHAPTER, description="Questions testing a chapter containing this.")] = None):
    return ctx.json(await ctx.in_thread(ctx.service.questions, chapter))


@router.get("/api/status", summary="Documents, per-stage state, errors, index counts (= `status --json`)",
            responses=errors(503))
async def status(ctx: Ctx):
    return ctx.json(await ctx.in_thread(ctx.service.status))


@router.get("/api/health", summary="Liveness, the live index generation, the generation queue", responses=errors(503))
async def health(ctx: Ctx):
    def info():
        try:
            generation = ctx.service.retriever().meta.get("generation")
        except IndexMissing:
            generation = None
        return {"ok": True, "version": __version__, "generation": generation, "queue": ctx.queue.stats(),
                "llm": ctx.service.llm_model_id, "llm_error": ctx.service.llm_error}

    return ctx.json(await ctx.in_thread(info))
