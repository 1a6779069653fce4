"""Where a cited passage sits: a section's passages, the page to open, the page image with the
passage highlighted, a note's section with the passage marked (pipeline/serve/sources.py does the work)."""

from __future__ import annotations

from typing import Annotated, Optional

from fastapi import APIRouter, Path, Query
from fastapi.responses import Response

from pipeline.serve.context import Ctx
from pipeline.serve.errors import errors
from pipeline.serve.limits import MAX_NAME, MAX_SECTION

router = APIRouter()
SECTION_KEYS = ("chunk_id", "doc_id", "source", "chapter_path", "chunk_position", "pages", "text", "kind")
DocId = Annotated[str, Path(max_length=MAX_NAME, description="A document id (a hit's `doc_id`).")]
Chunk = Query(max_length=MAX_NAME, description="Chunk id of a hit.")


@router.get("/api/section", summary="The passages of one section (a question's `chapter_paths` entry)",
            responses=errors(404, 422, 503))
async def section_chunks(ctx: Ctx, path: Annotated[str, Query(min_length=1, max_length=MAX_SECTION,
                                                                description="The chapter path joined with ' › '.")]):
    rows = await ctx.in_thread(ctx.sources.chapter_chunks, path)
    return ctx.json({"chapter": path, "chunks": [{k: c.get(k) for k in SECTION_KEYS} for c in rows]})


@router.get("/api/source/{doc_id}", summary="Where a passage sits: page to open and its highlight boxes",
            responses=errors(404, 422, 503))
async def source_info(ctx: Ctx, doc_id: DocId, chunk: Annotated[Optional[str], Chunk] = None):
    return ctx.json(await ctx.in_thread(ctx.sources.page_info, doc_id, chunk))


@router.get("/api/source/{doc_id}/page/{n}.png", summary="A page image with the passage highlighted",
            response_class=Response, responses={200: {"content": {"image/png": {}}, "description": "The page."},
                                                **errors(404, 422, 503)})
async def page_png(ctx: Ctx, doc_id: DocId, n: int,
                   chunk: Annotated[Optional[str], Query(max_length=MAX_NAME, description="Chunk id of a hit: its passage is highlighted.")] = None,
                   zoom: Annotated[float, Query(ge=0.5, le=4.0, description="Scale (1 = 72 dpi).")] = 1.5):
    png, placement = await ctx.in_thread(ctx.sources.render, doc_id, n, chunk, zoom)
    marked = len(placement.rects.get(n, []))
    return Response(png, media_type="image/png",
                    headers={"X-Highlight": placement.method if marked else "none", "X-Highlight-Boxes": str(marked),
                             "Cache-Control": "private, max-age=300"})


@router.get("/api/source/{doc_id}/section", summary="A note's section with the passage marked",
            responses=errors(404, 422, 503))
async def source_section(ctx: Ctx, doc_id: DocId, chunk: Annotated[str, Query(min_length=1, max_length=MAX_NAME,
                                                                                description="Chunk id of a hit.")]):
    return ctx.json(await ctx.in_thread(ctx.sources.section, doc_id, chunk))
