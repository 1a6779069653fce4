"""What the PDF reader passes between its steps before it makes ``Block``s: page layout, OCR rows.

Coordinates are PDF points with the origin at the page's top-left corner, y growing downwards (as
PyMuPDF gives them); OCR boxes are in image pixels until ``OcrPage.scaled`` maps them to points.
These are working types, never written to disk: ``pdf._to_blocks`` turns them into ``Block``s
(``text_lines`` their lines into ``TextLine``s).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple, Optional

from pipeline.models import Block, ErrorItem, PageInfo, Table, TextLine


class BBox(NamedTuple):
    """An axis-aligned box: left, top, right, bottom."""

    x0: float
    y0: float
    x1: float
    y1: float

    def scaled(self, factor: float) -> "BBox":
        return BBox(*(v * factor for v in self))


@dataclass(frozen=True)
class LineBox:
    """One line of text and its box: a text-layer line, or a visual row of OCR text (the union of its boxes)."""

    text: str
    bbox: BBox


def text_lines(lines: list[LineBox], page: int) -> list[TextLine]:
    """Line boxes as a Block stores them, rounded to 0.1 (point or pixel): finer says nothing on a page."""
    return [TextLine(text=ln.text, page=page, x0=round(ln.bbox.x0, 1), y0=round(ln.bbox.y0, 1),
                     x1=round(ln.bbox.x1, 1), y1=round(ln.bbox.y1, 1)) for ln in lines]


@dataclass
class LayoutBlock:
    """One text or table block on a page, with what heading detection needs to know about it.

    ``heading`` is None for body text, a level (1 = outermost), or ``headings.RANKED`` until
    ``assign_levels`` turns the font size in ``rank_size`` into a level. ``exam`` marks an exam
    section title (一、单项选择题), ``outline`` a heading the PDF outline names."""

    text: str
    bbox: BBox
    size: float = 0.0  # the font size most of its characters are set in; 0 for OCR rows and tables
    bold: bool = False  # most characters bold
    table: Optional[Table] = None
    heading: Optional[int] = None
    exam: bool = False
    rank_size: float = 0.0  # font size that ranks a RANKED heading; 0 for one at body size
    outline: bool = False
    lines: list[LineBox] = field(default_factory=list)  # one per line of ``text``, in order; none for tables


@dataclass
class PageLayout:
    """One page's blocks in reading order, and what is known about the page."""

    number: int  # 1-based
    blocks: list[LayoutBlock]
    from_ocr: bool  # text from OCR (ours, or a scan's OCR'd text layer): font sizes say nothing
    height: float  # points
    pending: list[tuple[int, str]] = field(default_factory=list)  # outline (level, title) not found in the text


@dataclass
class OcrPage:
    """What OCR read on one page image: rows in reading order and the mean box confidence."""

    rows: list[LineBox]
    confidence: float = 0.0

    def scaled(self, factor: float) -> "OcrPage":
        """The same rows with boxes multiplied by ``factor`` (e.g. 72/dpi: pixels → points)."""
        return OcrPage([LineBox(r.text, r.bbox.scaled(factor)) for r in self.rows], self.confidence)


@dataclass
class PdfResult:
    """What ``parse_pdf`` gives ``parse_file``."""

    pages: list[PageInfo]
    blocks: list[Block]
    errors: list[ErrorItem]
    title: str  # the metadata title when it is the document's title, else ""
