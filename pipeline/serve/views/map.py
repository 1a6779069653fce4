"""The syllabus map (考纲地图): GET /api/map (= ``cli.py map --json``) and /api/map/material (the
chunks placed on a node, for the /map page to open).

Both answer 404 ``syllabus_missing`` when the material has no syllabus (the page then falls back to
the heading tree) and 404 ``node_not_found`` for a node that matches nothing. The node ids are the
syllabus's content-addressed ids (``node_id``): what a progress API can key mastery on.
"""

from __future__ import annotations

from typing import Annotated, Optional

from fastapi import APIRouter, Query
from pydantic import BaseModel, Field

from pipeline.ask.service import SyllabusMissing
from pipeline.serve.context import Ctx
from pipeline.serve.errors import ApiError, errors
from pipeline.serve.limits import MAX_CHAPTER
from pipeline.syllabus.models import MapNode

router = APIRouter()
NODE = ("A syllabus node: its `node_id`, or a chapter text resolved as `--chapter` is "
        "(the highest node containing it; `A › B` narrows).")
MATERIAL_LIMIT = 500


class MapGaps(BaseModel):
    tested_not_covered: list[list[str]] = Field(description="Paths of nodes the exam tests that no material covers.")
    never_tested: list[list[str]] = Field(description="Paths of nodes no past-paper question is placed on.")


class MapBody(BaseModel):
    """``cli.py map --json``: the syllabus's nodes in its order, each with its questions by year and the
    material covering it; with ``node``, that node's subtree and what the text resolved to."""

    source: str = Field(description="The syllabus file.")
    counts: dict[str, int]
    years: list[int] = Field(description="Every year a question is placed in, ascending: the heat map's columns.")
    nodes: list[MapNode]
    gaps: MapGaps
    chapter: Optional[dict] = Field(None, description="With `node`: what it resolved to (as `--chapter`).")


class MaterialChunk(BaseModel):
    chunk_id: str
    doc_id: str
    source: str
    chapter_path: list[str]
    chunk_position: int
    pages: list[int]
    text: str
    kind: str
    citation: str
    syllabus_confidence: float = Field(description="Its placement's confidence on this node (0..1).")


class MaterialBody(BaseModel):
    node_id: str
    path: list[str]
    total: int = Field(description="Chunks placed on the node or below (`chunks` holds at most `limit`).")
    chunks: list[MaterialChunk]


def _missing(exc: Exception) -> ApiError:
    return ApiError(404, "syllabus_missing", str(exc))


def _unknown(node: str) -> ApiError:
    return ApiError(404, "node_not_found", f"no syllabus node matches {node!r} (`cli.py map` lists them)")


NodeQuery = Annotated[Optional[str], Query(max_length=MAX_CHAPTER, description=NODE)]


@router.get("/api/map", summary="The syllabus map: questions per node by year, coverage, gaps (= `map --json`)",
            responses={200: {"model": MapBody, "description": "The map."}, **errors(404, 422, 503)})
async def syllabus_map(ctx: Ctx, node: NodeQuery = None):
    try:
        return ctx.json(await ctx.in_thread(ctx.service.syllabus_map, (node or "").strip() or None))
    except SyllabusMissing as exc:
        raise _missing(exc) from None
    except KeyError:
        raise _unknown(node) from None


@router.get("/api/map/material", summary="The material placed on a syllabus node or below, in reading order",
            responses={200: {"model": MaterialBody, "description": "The node's chunks."}, **errors(404, 422, 503)})
async def node_material(ctx: Ctx, node: Annotated[str, Query(min_length=1, max_length=MAX_CHAPTER, description=NODE)],
                        limit: Annotated[int, Query(ge=1, le=MATERIAL_LIMIT, description="At most this many chunks.")] = 200):
    if not node.strip():  # blank would match every node
        raise _unknown(node)
    try:
        return ctx.json(await ctx.in_thread(ctx.service.syllabus_material, node.strip(), limit))
    except SyllabusMissing as exc:
        raise _missing(exc) from None
    except KeyError:
        raise _unknown(node) from None
