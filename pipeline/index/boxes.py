"""Where a chunk sits on its pages: the boxes a page view highlights, precise or none.

Cleaning rewrites text (headers and footers dropped, lines joined, tables → ``字段：值``, formulas →
text, question records rebuilt from several lines) and windowing cuts it again, so no character
offset leads back to the page. Instead a chunk's text is matched against the parsed lines
(``Block.lines``) of its documents, on its pages only, both normalised (NFKC, lower case, nothing
but letters, digits and CJK):

* a line matches where its text occurs in the chunk, after dropping at most ``MAX_LEAD_STRIP``
  leading characters (a question number ``41.(10分)`` that the record moved into its head);
* matched lines chain into runs in reading order, each found further on in the chunk: a short
  line (under ``MIN_ANCHOR_CHARS``) only right after the previous one (at most ``MAX_SKIP_CHARS``
  between), a longer one anywhere after it; more than ``MAX_GAP_LINES`` body lines in a row that
  are not in the chunk end a run (header/footer lines do not count: cleaning removed them);
* the line cut by a window's start (end) counts when the chunk starts (ends) with at least
  ``MIN_PARTIAL_CHARS`` of its end (start);
* runs are taken largest first where they do not overlap in the chunk; a run under
  ``MIN_RUN_CHARS`` is too likely found by chance, and a run whose text is found as fully at a
  second place on the pages is dropped (either could be meant);
* the kept lines must cover ``MIN_COVER`` of the chunk's normalised text, else there are no boxes;
* a chunk too short for a run (a one-line heading such as ``（一）单选题答案``) is placed only when it is
  exactly one line of its pages, and that line is found once.

A past-paper record (``record_parts``) is placed part by part: the stem (text and options) and the
solution (answer and analysis) each on the pages of the document that gave it, each precise or
none. So a stem printed both in the paper and in the booklet is placed in the paper, not dropped as
found twice, and a stem is still placed when its explanation is a table rewritten beyond recognition.

Boxes are line boxes in the units of ``TextLine``; a chunk of a note (no pages) has none.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Optional

from pipeline.models import PATH_SEP, Box, ParsedDoc, Part, Question, TextLine, page_label

MAX_LEAD_STRIP = 6  # leading characters a line may lose to a record's head: "41.(10分)" is "4110分", 5
MIN_LINE_CHARS = 2  # a line with fewer normalised characters ("A", "1") is never matched
MIN_ANCHOR_CHARS = 8  # a line this long may be found anywhere after the previous one (or start a run)
MAX_SKIP_CHARS = 8  # chunk characters allowed between two lines of a run when the second is short ("答案" labels)
MAX_GAP_LINES = 3  # body lines in a row missing from the chunk that end a run
MIN_PARTIAL_CHARS = 4  # characters of a line cut by the window's start or end that make it count
MIN_RUN_CHARS = 12  # a run must cover this many characters to be kept
MIN_COVER = 0.6  # share of the chunk's normalised characters the kept lines must cover

_NOT_WORD = re.compile(r"[\W_]+")


def normalise(text: str) -> str:
    """Letters, digits and CJK only, NFKC, lower case: what survives cleaning of a line."""
    return _NOT_WORD.sub("", unicodedata.normalize("NFKC", text)).lower()


@dataclass(frozen=True)
class PlacedLine:
    """A parsed line with its document and normalised text."""

    doc_id: str
    key: str
    line: TextLine
    body: bool  # not in a header/footer band: missing from a chunk, it counts as a gap


class LineIndex:
    """A document's lines in reading order, by page."""

    def __init__(self, lines: Iterable[PlacedLine]):
        self.by_page: dict[int, list[PlacedLine]] = {}
        seen: set[tuple] = set()
        for pl in lines:
            ln = pl.line
            ident = (ln.page, ln.x0, ln.y0, ln.x1, ln.y1, ln.text)
            if pl.key and ident not in seen:  # an exam section title is a heading and its block's first line
                seen.add(ident)
                self.by_page.setdefault(ln.page, []).append(pl)

    @classmethod
    def from_parsed(cls, doc: ParsedDoc) -> "LineIndex":
        return cls(PlacedLine(doc.doc_id, normalise(ln.text), ln, b.band == "body")
                   for b in doc.blocks for ln in b.lines)

    def on_pages(self, pages: Iterable[int]) -> list[PlacedLine]:
        return [pl for p in sorted(set(pages)) for pl in self.by_page.get(p, ())]


@dataclass
class _Run:
    start: int  # where its first line starts in the chunk's normalised text
    end: int  # where its last line ends
    members: list[tuple[int, int]] = field(default_factory=list)  # (candidate index, characters matched)
    gap: int = 0

    @property
    def chars(self) -> int:
        return sum(n for _, n in self.members)


def _find(chunk: str, key: str, start: int) -> Optional[tuple[int, int]]:
    """(position, length) of ``key`` in ``chunk`` from ``start``, the key maybe without up to
    MAX_LEAD_STRIP leading characters; None when not there."""
    p = chunk.find(key, start)
    if p >= 0:
        return p, len(key)
    if len(key) - MAX_LEAD_STRIP < MIN_LINE_CHARS or chunk.find(key[MAX_LEAD_STRIP:], start) < 0:
        return None  # every shorter form contains this tail
    for j in range(1, MAX_LEAD_STRIP + 1):
        p = chunk.find(key[j:], start)
        if p >= 0:
            return p, len(key) - j
    return None


def _runs(chunk: str, cands: list[PlacedLine]) -> list[_Run]:
    runs: list[_Run] = []
    cur: Optional[_Run] = None
    for i, pl in enumerate(cands):
        first = _find(chunk, pl.key, 0) if len(pl.key) >= MIN_LINE_CHARS else None
        if first is not None and cur is not None:
            hit = first if first[0] >= cur.end else _find(chunk, pl.key, cur.end)
            if hit and (hit[0] - cur.end <= MAX_SKIP_CHARS or hit[1] >= MIN_ANCHOR_CHARS):
                cur.members.append((i, hit[1]))
                cur.end, cur.gap = hit[0] + hit[1], 0
                continue
        if first is not None and first[1] >= MIN_ANCHOR_CHARS:  # a new run: none open, or this line is earlier
            cur = _Run(start=first[0], end=first[0] + first[1], members=[(i, first[1])])
            runs.append(cur)
        elif cur is not None and pl.body and len(pl.key) >= MIN_LINE_CHARS:
            cur.gap += 1
            if cur.gap > MAX_GAP_LINES:
                cur = None
    return runs


def _keep(runs: list[_Run]) -> list[_Run]:
    """Largest first, not overlapping; a run found twice as fully at the same place is dropped."""
    kept: list[_Run] = []
    doubtful: set[int] = set()
    for r in sorted((r for r in runs if r.chars >= MIN_RUN_CHARS), key=lambda r: -r.chars):
        clash = [k for k in kept if r.start < k.end and k.start < r.end]
        doubtful.update(id(k) for k in clash if k.chars == r.chars)
        if not clash:
            kept.append(r)
    return sorted((k for k in kept if id(k) not in doubtful), key=lambda r: r.start)


def _edges(chunk: str, cands: list[PlacedLine], kept: list[_Run]) -> None:
    """Add the line a window's start (end) cut, when the chunk starts (ends) with its end (start)."""
    first, last = kept[0], kept[-1]
    i = first.members[0][0] - 1
    head = chunk[:first.start]
    if i >= 0 and len(head) >= MIN_PARTIAL_CHARS and cands[i].key.endswith(head):
        first.members.insert(0, (i, len(head)))
        first.start = 0
    j = last.members[-1][0] + 1
    tail = chunk[last.end:]
    if j < len(cands) and len(tail) >= MIN_PARTIAL_CHARS and cands[j].key.startswith(tail):
        last.members.append((j, len(tail)))
        last.end = len(chunk)


def locate(text: str, cands: list[PlacedLine]) -> list[Box]:
    """The boxes of the lines ``text`` was read from, in the chunk's order, or [] when they cannot
    be placed with confidence (see the module docstring). ``cands``: the lines of the chunk's
    pages in reading order (several documents' lines one after the other for a merged record)."""
    chunk = normalise(text)
    if not chunk or not cands:
        return []
    kept = _keep(_runs(chunk, cands))
    if not kept:
        same = [pl for pl in cands if pl.key == chunk]
        return [_box(same[0])] if len(chunk) < MIN_RUN_CHARS and len(same) == 1 else []
    _edges(chunk, cands, kept)
    if sum(r.chars for r in kept) < MIN_COVER * len(chunk):
        return []
    return _unique(_box(cands[i]) for r in kept for i, _ in r.members)


def _unique(boxes: Iterable[Box]) -> list[Box]:
    seen: set[tuple] = set()
    out = []
    for b in boxes:
        key = (b.doc_id, b.page, b.x0, b.y0, b.x1, b.y1)
        if key not in seen:
            seen.add(key)
            out.append(b)
    return out


def _box(pl: PlacedLine) -> Box:
    ln = pl.line
    return Box(doc_id=pl.doc_id, page=ln.page, x0=ln.x0, y0=ln.y0, x1=ln.x1, y1=ln.y1)


RECORD_PARTS = (("text", "options"), ("answer", "analysis"))  # stem, solution: placed (or not) one by one


def record_parts(q: Question, lines_of: Callable[[str], LineIndex]) -> tuple[list[Part], list[Box]]:
    """A question record's parts and boxes: the stem and the solution (``RECORD_PARTS``), each placed
    with ``locate`` on the pages of the document that gave it (``QuestionSource.parts``), in the
    chunk's order. A part's pages are those its boxes lie on; when it cannot be placed, the pages its
    document recorded for the question. ``lines_of(doc_id)`` gives a document's lines."""
    texts = {"text": q.text, "options": "\n".join(f"{k}. {v}" for k, v in sorted(q.options.items())),
             "answer": q.answer or "", "analysis": q.analysis or ""}
    boxes: list[Box] = []
    parts: list[Part] = []
    for role, group in zip(("stem", "solution"), RECORD_PARTS):
        for src in q.sources:
            text = "\n".join(texts[p] for p in group if p in src.parts and texts[p])
            if not (src.doc_id and text):
                continue
            found = locate(text, lines_of(src.doc_id).on_pages(src.pages)) if src.pages else []
            boxes += found
            pages = sorted({b.page for b in found}) or list(src.pages)
            where = f"第{page_label(pages)}页" if pages else "无页码"
            # the stem's document named the record's chapter path; the booklet is named by its file
            head = q.chapter_path if role == "stem" and q.chapter_path else [Path(src.source).stem or src.source]
            label = PATH_SEP.join([*head, f"第{q.number}题"])
            parts.append(Part(role=role, doc_id=src.doc_id, source=src.source, pages=pages,
                              citation=f"[来源: {label}|{where}·{'题目' if role == 'stem' else '答案与解析'}]"))
    return parts, _unique(boxes)
