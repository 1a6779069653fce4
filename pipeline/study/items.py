"""Past-paper question records as practice items, and grading a choice against the booklet.

The record's text is read with the answer path's own reader (``records.parse_record``: stem,
答案, 解析); here only what practice adds:

* ``OPTION``: the option lines the record carries (``chunking.question_text`` writes ``A. …``);
* ``SCORING``: a 评分说明 (评分标准/评分细则/评分要点) line in the answer or the analysis starts the
  scoring notes, shown after the answer of a comprehensive question; it runs to the end of that part;
* ``FIGURE_REF``: a stem that points at a figure (如图, 下图, 图3, 见图) has one; its page crop runs
  from the question's first line to the next question's first line on the same page (the page's
  bottom when it is the last), the full width of the page: the figure sits among or below its lines,
  which are text, so the boxes alone never cover it;
* a choice answer is the set of option letters, compared with the booklet's ignoring case, spaces
  and punctuation (``B``, ``b。``, `` B `` are all B; ``AB`` is not B).
"""

from __future__ import annotations

import re
from typing import Optional

from pipeline.ask.records import parse_record
from pipeline.index.catalog import Catalog
from pipeline.models import PATH_SEP, Chunk
from pipeline.study.models import Figure, Link, QuestionItem, Verdict
from pipeline.study.nodes import nodes_of

OPTION = re.compile(r"^\s*([A-H])[.．、]\s*(.+?)\s*$", re.M)
SCORING = re.compile(r"(?m)^[ \t]*[【\[]?评分(?:说明|标准|细则|要点)[】\]]?[ \t]*[:：]?[ \t]*")
FIGURE_REF = re.compile(r"如图|下图|上图|见图|图\s*[0-9一二三四五六七八九十]+")
ITEM_ID = re.compile(r"^(\d{4}|x)-(\d{1,3})$")
FIGURE_PAD = 4.0  # points above the first line


def item_id(chunk: Chunk) -> str:
    """``2024-41``: a record is one (year, number) across documents (clean.merge), so its attempts
    survive a re-ingest that changes its text; ``x-41`` for a record without a year."""
    return f"{chunk.year if chunk.year else 'x'}-{chunk.number}"


def parse_item_id(text: str) -> Optional[tuple[Optional[int], int]]:
    """(year, number) of ``2024-41``, ``2024年第41题`` or ``x-41``; None when it names no question."""
    t = text.strip()
    m = ITEM_ID.match(t) or re.match(r"^(\d{4})\s*年\s*第?\s*(\d{1,3})\s*题?$", t)
    if not m:
        return None
    return (None if m.group(1) == "x" else int(m.group(1))), int(m.group(2))


def split_scoring(text: Optional[str]) -> tuple[Optional[str], Optional[str]]:
    """(text before the 评分说明, the 评分说明), each None when empty."""
    if not text:
        return None, None
    m = SCORING.search(text)
    if not m:
        return text, None
    return text[: m.start()].strip() or None, text[m.end():].strip() or None


def question_item(chunk: Chunk, catalog: Optional[Catalog] = None, neighbours: list[Chunk] = (),
                  depth: int = 2) -> QuestionItem:
    """The practice item of a record chunk; ``catalog`` gives the first chunk of each linked section
    (to open and cite), ``neighbours`` the other records (to bound a figure's crop)."""
    stem, answer, analysis = parse_record(chunk.text)
    answer, scoring_a = split_scoring(answer)
    analysis, scoring_b = split_scoring(analysis)
    cut = re.search(r"(?m)^(?:答案|解析)[:：]", chunk.text)
    options = {m.group(1): m.group(2) for m in OPTION.finditer(chunk.text[: cut.start() if cut else None])}
    solution = next((p for p in chunk.parts if p.role == "solution"), None)
    return QuestionItem(item_id=item_id(chunk), year=chunk.year, number=chunk.number or 0, qtype=chunk.qtype,
                        stem=stem, options=options, answer=answer, analysis=analysis,
                        scoring=scoring_b or scoring_a, citation=chunk.citation(),
                        solution_citation=solution.citation if solution else None, chunk_id=chunk.chunk_id,
                        source=chunk.source, pages=chunk.pages, nodes=[list(n) for n in nodes_of(chunk, depth)],
                        sections=[section_link(p, catalog) for p in chunk.chapter_paths],
                        figure=figure_of(chunk, stem, neighbours))


def section_link(path: list[str], catalog: Optional[Catalog]) -> Link:
    joined = PATH_SEP.join(path)
    first = catalog.first_in(joined) if catalog is not None else None
    return Link(path=list(path), chapter=joined, chunk_id=first.chunk_id if first else None,
                citation=first.citation() if first else None)


def _stem_boxes(chunk: Chunk):
    """The record's lines in the document its stem was read from, on the stem's first page."""
    stem = next((p for p in chunk.parts if p.role == "stem"), None)
    doc = stem.doc_id if stem else chunk.doc_id
    boxes = [b for b in chunk.boxes if b.doc_id == doc]
    if not boxes:
        return doc, None, []
    page = min(b.page for b in boxes)
    return doc, page, [b for b in boxes if b.page == page]


def figure_of(chunk: Chunk, stem: str, neighbours: list[Chunk] = ()) -> Optional[Figure]:
    """The page region of the question's figure, when its stem points at one and its lines are placed."""
    if not FIGURE_REF.search(stem):
        return None
    doc, page, boxes = _stem_boxes(chunk)
    if not boxes:
        return None
    top = min(b.y0 for b in boxes)
    below = [min(b.y0 for b in nb) for other in neighbours if other.chunk_id != chunk.chunk_id
             for d, p, nb in [_stem_boxes(other)] if d == doc and p == page and nb and min(b.y0 for b in nb) > top]
    return Figure(doc_id=doc, page=page, x0=0.0, y0=max(0.0, top - FIGURE_PAD), x1=-1.0,
                  y1=min(below) - 1.0 if below else -1.0)


def letters(answer: str) -> str:
    """The option letters of an answer: "b。" → "B", " A、C " → "AC"."""
    return "".join(sorted(set(re.sub(r"[^A-Ha-h]", "", answer).upper())))


def grade_choice(item: QuestionItem, answer: str) -> Optional[Verdict]:
    """right / wrong against the booklet's answer; None when the booklet gives no letter answer."""
    key = letters(item.answer or "")
    if not key or re.search(r"[^A-Ha-h\s。.、,，]", item.answer or ""):
        return None
    return "right" if letters(answer) == key else "wrong"
