"""Input formats: which file suffix is which :class:`InputFormat`, the reader each format goes to, and
what every reader's blocks then get alike (title, document kind, chapter paths).

``parse_file`` is the dispatch: PDF (text layer, OCR for the pages that need it), a standalone image
(OCR), markdown and plain-text notes, Office/HTML/epub through MarkItDown.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Optional

from pipeline.models import Block, ErrorItem, InputFormat, PageInfo, ParsedDoc, Status
from pipeline.parse.errors import ParseError
from pipeline.parse.garble import GarbleThresholds
from pipeline.parse.headings import HeadingPath, title_from_filename
from pipeline.parse.layout import text_lines
from pipeline.parse.office import OFFICE_SUFFIXES, parse_office
from pipeline.parse.pdf import parse_pdf
from pipeline.parse.text import decode_text, parse_markdown, parse_plain
from pipeline.settings import Settings

if TYPE_CHECKING:
    from pipeline.parse.ocr_runner import OcrRunner

IMAGE_SUFFIXES = {".png", ".jpg", ".jpeg", ".tif", ".tiff", ".bmp", ".webp"}
TEXT_SUFFIXES = {".md", ".markdown", ".txt"}
FORMAT_OF_SUFFIX: dict[str, InputFormat] = {
    ".pdf": InputFormat.PDF,
    **dict.fromkeys(IMAGE_SUFFIXES, InputFormat.IMAGE),
    ".md": InputFormat.MARKDOWN, ".markdown": InputFormat.MARKDOWN, ".txt": InputFormat.TEXT,
    **dict.fromkeys(OFFICE_SUFFIXES, InputFormat.OFFICE),
}
SUPPORTED = set(FORMAT_OF_SUFFIX)
NOTE_FORMATS = {InputFormat.MARKDOWN, InputFormat.TEXT, InputFormat.OFFICE}  # always a student's note
HEADED_FORMATS = {InputFormat.MARKDOWN, InputFormat.OFFICE}  # their headings are marked up, not guessed
PAPER_HINT = re.compile(r"真题|试卷|试题|模拟卷|考试|答案|单项选择题")


def input_format(path: Path) -> Optional[InputFormat]:
    """The format of a file by its suffix (any case); None for a type ingest does not read."""
    return FORMAT_OF_SUFFIX.get(path.suffix.lower())


def doc_kind(fmt: InputFormat, source: str, first_text: str) -> str:
    """note | paper (a past paper or answer booklet, by its name or first page) | textbook (other PDFs)."""
    if fmt in NOTE_FORMATS:
        return "note"
    if PAPER_HINT.search(Path(source).name) or PAPER_HINT.search(first_text[:2000]):
        return "paper"
    return "textbook" if fmt == InputFormat.PDF else "note"


def parse_file(path: Path, source: str, doc_id: str, settings: Settings, ocr: "OcrRunner") -> ParsedDoc:
    """Read one file with its format's reader. Raises ParseError (one line) when nothing can be read."""
    fmt = input_format(path)
    if fmt is None:
        raise ParseError(f"unsupported file type ({path.suffix.lower() or 'no extension'})")
    pages: list[PageInfo] = []
    errors: list[ErrorItem] = []
    title = ""
    if fmt == InputFormat.PDF:
        g = settings.parse
        th = GarbleThresholds(g.garble_min_chars, g.garble_max_bad_ratio, g.garble_min_cjk_ratio)
        result = parse_pdf(path, source, password=g.pdf_password, th=th, ocr_pages=ocr.pdf_pages)
        pages, blocks, errors, title = result.pages, result.blocks, result.errors, result.title
    elif fmt == InputFormat.IMAGE:
        blocks, pages = _parse_image(path, ocr)
    elif fmt == InputFormat.MARKDOWN:
        blocks = parse_markdown(decode_text(path.read_bytes())[0])
    elif fmt == InputFormat.TEXT:
        blocks = parse_plain(decode_text(path.read_bytes())[0])
    else:
        blocks, title = parse_office(path)
    tops = [b for b in blocks if b.kind == "heading" and (b.level or 1) == 1]
    # a note's only level-1 heading is its title; with several, they are its parts and the file name
    # is the title ("7.查找.md": 一、查找 / 二、线性结构 / 三、树形结构 all sit under 查找)
    lone_top = tops[0].text if fmt in HEADED_FORMATS and len(tops) == 1 else ""
    title = title.strip() or lone_top or title_from_filename(path.stem)
    first_text = "\n".join(b.text for b in blocks[:40])
    kind = doc_kind(fmt, source, first_text)
    heads = [b.level or 1 for b in blocks if b.kind == "heading"]
    root = [title] if fmt == InputFormat.TEXT or (fmt in HEADED_FORMATS and heads and not lone_top) else []
    _assign_paths(blocks, fallback=[title], root=root)
    if not any(b.text.strip() or b.table for b in blocks):
        raise ParseError("no text found in the file" + (" (all pages unreadable)" if pages else ""))
    status = Status.PARTIAL if errors else Status.SUCCESS
    return ParsedDoc(doc_id=doc_id, source=source, format=fmt, kind=kind, title=title, pages=pages,
                     blocks=blocks, status=status, errors=errors)


def _parse_image(path: Path, ocr: "OcrRunner") -> tuple[list[Block], list[PageInfo]]:
    from PIL import UnidentifiedImageError

    try:
        found, height = ocr.image_file(path)
    except (UnidentifiedImageError, OSError) as exc:
        raise ParseError(f"not a readable image ({exc.__class__.__name__})")
    blocks = [Block(kind="text", text=r.text, page=1,
                    band="top" if r.bbox.y1 <= height * 0.08 else "bottom" if r.bbox.y0 >= height * 0.92 else "body",
                    lines=text_lines([r], 1))  # an image's one page, in pixels
              for r in found.rows]
    info = PageInfo(number=1, verdict="image", method="ocr" if found.rows else "none",
                    ocr_confidence=round(found.confidence, 3), chars=sum(len(r.text) for r in found.rows))
    return blocks, [info]


def _assign_paths(blocks: list[Block], fallback: list[str], root: list[str]) -> None:
    """Give every block the heading path it sits under (a heading's path ends with itself);
    text before the first heading sits under the document title."""
    path = HeadingPath(root)
    for b in blocks:
        if b.kind == "heading":
            b.chapter_path = path.push(b.level or 1, b.text)
        else:
            b.chapter_path = path.path or list(fallback)
