"""Helpers for answer tests: hits over made-up study text (imported as answer_helpers)."""

from __future__ import annotations

from pipeline.models import Hit


def make_hit(rank: int, text: str, path=("第七章 查找", "7.2 折半查找"), kind: str = "text", year=None, number=None,
             chunk_id=None) -> Hit:
    cid = chunk_id or f"c{rank}"
    return Hit(rank=rank, chunk_id=cid, doc_id="d", source="x.pdf", chapter_path=list(path), chunk_position=rank,
               pages=[3], score=1.0 / rank, text=text, kind=kind, year=year, number=number,
               citation=f"[来源: {' › '.join(path)}|第3页·片段{rank}]")
