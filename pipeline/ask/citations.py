"""Where every citation an answer shows opens, so a page can open each one on its page with the
passage boxed: the hits' citations, a merged past-paper record's stem and solution citations (the
solution is cited in the answer booklet, a document no hit's ``doc_id`` names), the key sentences', the
contrast table's cells', the checked sentences', 参考来源 and the 延伸问题' (whose passages are, by
design, not among the hits; a contrast cell's may not be either).

A citation is resolved through the chunk it was made from: the hits, else the catalog by chunk id.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from pipeline.ask.answer import render
from pipeline.ask.sentences import CITATION
from pipeline.models import Answer, Chunk, CitationTarget, Hit

Passage = Hit | Chunk
Lookup = Callable[[Iterable[str]], dict[str, Chunk]]  # chunk ids → chunks (Catalog.by_ids)


def _citation(p: Passage) -> str:
    return p.citation if isinstance(p, Hit) else p.citation()


def passage_targets(p: Passage) -> dict[str, CitationTarget]:
    """Each citation one passage is shown with → its target: the passage's own citation, and for a
    record merged from several documents each part's (stem in the paper, solution in the booklet)."""
    out: dict[str, CitationTarget] = {}
    for part in p.parts:
        if part.citation:
            boxes = [b for b in p.boxes if b.doc_id == part.doc_id and (not part.pages or b.page in part.pages)]
            out[part.citation] = CitationTarget(chunk_id=p.chunk_id, doc_id=part.doc_id, source=part.source,
                                                pages=part.pages, boxes=boxes, role=part.role)
    own = _citation(p)
    if own and own not in out:
        out[own] = CitationTarget(chunk_id=p.chunk_id, doc_id=p.doc_id, source=p.source, pages=p.pages,
                                  boxes=[b for b in p.boxes if b.doc_id == p.doc_id])
    return out


def cited_chunk_ids(a: Answer) -> list[str]:
    """Chunk ids of every passage the answer cites by id, the hits first."""
    ids = [h.chunk_id for h in a.hits]
    if a.record is not None:
        ids.append(a.record.chunk_id)
    ids += [k.chunk_id for k in a.key_sentences]
    if a.contrast is not None:  # a cell may quote a side's own passage, not among the hits
        ids += [c.chunk_id for r in a.contrast.rows for c in r.cells if c is not None]
    if a.extras is not None:
        ids += [q.chunk_id for q in a.extras.questions]
    return list(dict.fromkeys(ids))


def targets(a: Answer, lookup: Lookup | None = None) -> dict[str, CitationTarget]:
    """Citation text → target for every passage the answer cites; passages not among the hits are
    read through ``lookup`` (without one they stay unresolved). A citation two passages share (two
    windows of one section on one page) opens the first, the better ranked."""
    by_id: dict[str, Passage] = {h.chunk_id: h for h in a.hits}
    missing = [cid for cid in cited_chunk_ids(a) if cid not in by_id]
    if missing and lookup is not None:
        by_id.update(lookup(missing))
    out: dict[str, CitationTarget] = {}
    for cid in cited_chunk_ids(a):
        if cid in by_id:
            for text, target in passage_targets(by_id[cid]).items():
                out.setdefault(text, target)
    return out


def shown_citations(a: Answer) -> list[str]:
    """Every full citation the answer shows: in its text (record, 原文要点, the generated sentences,
    参考来源), the record's, the key sentences', the checked sentences' and the 延伸问题'."""
    texts = [render(a), a.answer or ""]
    texts += [a.record.citation] if a.record is not None else []
    texts += [k.citation for k in a.key_sentences] + [c.citation or "" for c in a.claims]
    if a.extras is not None:
        texts += [a.extras.review] + [q.citation for q in a.extras.questions]
    found = (m.group(0) for t in texts for m in CITATION.finditer(t))
    return list(dict.fromkeys(c for c in found if c.startswith("[来源")))
