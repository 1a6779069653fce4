"""The lists the CLI prints with ``--json`` (chapters, questions, status) and the server's health."""

from __future__ import annotations

from typing import Annotated, Optional

from fastapi import APIRouter, Query
from pydantic import BaseModel, Field

from pipeline import __version__
from pipeline.ask.service import IndexMissing
from pipeline.serve.context import Ctx
from pipeline.serve.errors import errors
from pipeline.serve.limits import MAX_CHAPTER

router = APIRouter()


class QuestionRow(BaseModel):
    """One past-paper record as ``questions --json`` has it."""

    year: Optional[int]
    number: Optional[int]
    qtype: Optional[str]
    text: str
    chapter_paths: list[list[str]] = Field(description="The material's sections the question is linked to, best first.")
    source: str
    pages: list[int]
    syllabus_path: Optional[list[str]] = Field(description="Its best place on the syllabus (subject › chapter › section); "
                                                           "null without a syllabus or when unplaced.")
    syllabus_confidence: Optional[float] = Field(description="That place's confidence (0..1).")
    syllabus_paths: list[list[str]] = Field(description="Every place (a comprehensive question may have two).")


@router.get("/api/chapters", summary="The chapter tree (= `chapters --json`)", responses=errors(503))
async def chapters(ctx: Ctx):
    return ctx.json(await ctx.in_thread(ctx.service.chapters))


@router.get("/api/questions", summary="Past-paper questions (= `questions --json`)",
            responses={200: {"model": list[QuestionRow], "description": "The records, by year and number."}, **errors(422, 503)})
async def questions(ctx: Ctx, chapter: Annotated[Optional[str], Query(
        max_length=MAX_CHAPTER, description="Questions placed under the syllabus node this resolves to (as `--chapter`), "
        "or without a syllabus those testing a chapter containing it.")] = None):
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
