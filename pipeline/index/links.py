"""Past-paper question → the textbook / notes sections it tests.

For each question chunk, BM25 over the non-question, non-paper chunks with the question's own text
(stem, options, answer, analysis) and its keywords; the best ``LINKS`` distinct chapter paths whose
score is at least ``MIN_SHARE`` of the best one are kept. BM25 only: it is cheap (about a
millisecond per question) and lexical overlap is what links an exam question to its section.
"""

from __future__ import annotations

from pipeline.models import Chunk

LINKS = 3
MIN_SHARE = 0.5
CANDIDATES = 30
SECTION_KINDS = ("textbook", "note")


def link_questions(chunks: list[Chunk], tokens: list[list[str]], bm25) -> dict[str, list[list[str]]]:
    """Map question chunk id → up to ``LINKS`` chapter paths, best first."""
    import numpy as np

    allowed = np.array([c.kind in SECTION_KINDS for c in chunks], dtype=bool)
    if not allowed.any():
        return {}
    by_id = {c.chunk_id: c for c in chunks}
    links: dict[str, list[list[str]]] = {}
    for c, toks in zip(chunks, tokens):
        if c.kind != "question" or not toks:
            continue
        found: list[list[str]] = []
        best = None
        for cid, score in bm25.search(toks, top_n=CANDIDATES, allowed=allowed):
            best = best or score
            if score < best * MIN_SHARE:
                break
            path = by_id[cid].chapter_path
            if path not in found:
                found.append(path)
            if len(found) == LINKS:
                break
        links[c.chunk_id] = found
    return links
