"""PDF → ParsedDoc with PyMuPDF: per-page text-layer verdict, OCR fallback, headings, tables."""

from __future__ import annotations

import os
import re
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Callable, Iterable, Optional, Union

from pipeline.models import Block, ErrorItem, PageInfo, Table
from pipeline.parse.errors import ParseError
from pipeline.parse.garble import GarbleThresholds, expects_cjk, judge_page, repeated_lines, strip_lines
from pipeline.parse.headings import (HEADING_SIZE_RATIO, RANKED, assign_levels, drop_repeated_headings, exam_section,
                                     heading_level, merge_title_lines, plausible_heading, usable_outline)
from pipeline.parse.layout import BBox, LayoutBlock, LineBox, OcrPage, PageLayout, PdfResult, text_lines

BAND = 0.08  # top/bottom share of the page height treated as header/footer band
TABLE_MIN_RULES = 3  # horizontal and vertical ruling lines a page needs before we pay for find_tables()
VECTOR_GLYPH_MIN_ITEMS = 200  # filled path items on a text-less page: glyphs drawn as outlines
SCAN_COVER = 0.5  # an image covering this share of the page is a scan …
SCAN_TEXT_FACTOR = 5  # … whose text layer needs this many times garble_min_chars to be trusted
MIN_OUTLINE_ENTRIES = 3  # an outline with fewer entries (often just the title) does not replace the heuristics
SCAN_LAYER_COVER = 0.9  # text over an image covering this much of the page is an OCR'd layer
PAGE_BODY_MIN_CHARS = 200  # a page with this much text judges headings against its own body size

os.environ.setdefault("PYMUPDF_SUGGEST_LAYOUT_ANALYZER", "0")


def open_pdf(path: Path, password: Optional[str]):
    """Open ``path`` as a PDF, or raise ParseError with a one-line reason (not a PDF, damaged beyond
    repair, encrypted without the right EXAMRAG_PDF_PASSWORD, no pages).

    Damaged files MuPDF can repair (broken xref, truncated) are opened (``doc.is_repaired``); MuPDF's
    own messages are kept off stderr and its first complaint is quoted when the file cannot be used.
    MuPDF sniffs content, so e.g. an HTML page saved as x.pdf would open: it is refused here."""
    import pymupdf as fitz

    fitz.TOOLS.mupdf_display_errors(False)
    fitz.TOOLS.mupdf_warnings(reset=True)

    def why(default: str) -> str:
        first = next((ln for ln in fitz.TOOLS.mupdf_warnings().splitlines() if ln.strip()), "")
        return re.sub(r"^(format|syntax) error: ", "", first.strip()) or default

    try:
        doc = fitz.open(path, filetype="pdf")
    except Exception as exc:  # fitz raises FileDataError / RuntimeError variants
        with open(path, "rb") as fh:
            head = fh.read(5)
        kind = "damaged PDF, cannot be repaired" if head == b"%PDF-" else "not a PDF"
        raise ParseError(f"{kind} ({why(exc.__class__.__name__)})") from None
    problem = ""
    if not doc.is_pdf:
        fmt = (doc.metadata or {}).get("format") or "another format"
        problem = f"not a PDF: the file is {fmt} named .pdf; give it its real extension"
    elif doc.needs_pass and not (password and doc.authenticate(password)):
        problem = ("PDF is encrypted; set EXAMRAG_PDF_PASSWORD to its password" if not password
                   else "PDF is encrypted and EXAMRAG_PDF_PASSWORD does not open it")
    elif doc.page_count == 0:
        problem = f"damaged PDF, no page could be recovered ({why('empty page tree')})" if doc.is_repaired \
            else "PDF has no pages"
    if problem:
        doc.close()
        raise ParseError(problem)
    return doc


def _band(y0: float, y1: float, height: float) -> str:
    if y1 <= height * BAND:
        return "top"
    if y0 >= height * (1 - BAND):
        return "bottom"
    return "body"


def _page_blocks(page) -> list[LayoutBlock]:
    """Text blocks of a page: text (lines joined by \\n) and each line's box, bbox, the most used
    font size, bold."""
    out = []
    for b in page.get_text("dict")["blocks"]:
        if b.get("type") != 0:
            continue
        lines: list[LineBox] = []
        sizes: Counter = Counter()
        bold = 0
        for line in b["lines"]:
            spans = [s for s in line["spans"] if s["text"].strip()]
            if not spans:
                continue
            lines.append(LineBox("".join(s["text"] for s in line["spans"]).strip(), BBox(*line["bbox"])))
            for s in spans:
                sizes[round(s["size"], 1)] += len(s["text"].strip())
                bold += len(s["text"].strip()) if s["flags"] & 16 else 0
        if lines:
            n = sum(sizes.values())
            out.append(LayoutBlock(text="\n".join(ln.text for ln in lines), bbox=BBox(*b["bbox"]),
                                   size=sizes.most_common(1)[0][0], bold=bold > n / 2, lines=lines))
    return out


def _ruling(page) -> tuple[int, int]:
    """(horizontal, vertical) ruling segments at least 10 pt long: lines, hairline rectangles, and
    the sides of boxes."""
    h = v = 0
    for d in page.get_cdrawings():
        for it in d.get("items", ()):
            if it[0] == "l":
                (x0, y0), (x1, y1) = it[1], it[2]
                if abs(y0 - y1) < 1 and abs(x0 - x1) >= 10:
                    h += 1
                elif abs(x0 - x1) < 1 and abs(y0 - y1) >= 10:
                    v += 1
            elif it[0] == "re":
                x0, y0, x1, y1 = it[1]
                w, ht = abs(x1 - x0), abs(y1 - y0)
                if ht < 2 and w >= 10:
                    h += 1
                elif w < 2 and ht >= 10:
                    v += 1
                elif w >= 10 and ht >= 10:
                    h, v = h + 2, v + 2
    return h, v


def _tables(page) -> list[tuple[BBox, Table]]:
    h, v = _ruling(page)
    if h < TABLE_MIN_RULES or v < TABLE_MIN_RULES:  # a frame or an underline is not a grid
        return []
    found = []
    for t in page.find_tables().tables:
        rows = [[(c or "").replace("\n", "") for c in r] for r in t.extract()]
        if len(rows) >= 2 and len(rows[0]) >= 2:
            found.append((BBox(*t.bbox), Table(header=rows[0], rows=rows[1:])))
    return found


def _inside(inner: BBox, outer: BBox, slack: float = 2.0) -> bool:
    return (inner.x0 >= outer.x0 - slack and inner.y0 >= outer.y0 - slack
            and inner.x1 <= outer.x1 + slack and inner.y1 <= outer.y1 + slack)


def _image_cover(page) -> float:
    """Share of the page covered by images (a scan may come as several strips)."""
    area = page.rect.width * page.rect.height or 1.0
    total = 0.0
    for img in page.get_images(full=True):
        try:
            rects = page.get_image_rects(img[0])
        except Exception:  # noqa: BLE001 - damaged image references: no coverage
            continue
        total += sum(abs(r & page.rect) for r in rects)
    return min(1.0, total / area)


def _vector_glyphs(page) -> bool:
    """Text drawn as filled outlines (e.g. "Microsoft: Print To PDF" without fonts): many filled paths."""
    items = 0
    for d in page.get_cdrawings():
        if d.get("fill") is not None:
            items += len(d.get("items", ()))
            if items >= VECTOR_GLYPH_MIN_ITEMS:
                return True
    return False


def page_verdicts(doc, source: str, th: GarbleThresholds) -> list[tuple[PageInfo, str]]:
    """Per page: PageInfo with the text-layer verdict, and the reason, without OCR.

    Lines repeated on most pages (a seller's footer, "第 N 页，共 M 页") are ignored when judging,
    so a page whose only text is such a footer counts as having no text."""
    raw = [doc[i].get_text("text") for i in range(doc.page_count)]
    boiler = repeated_lines(raw) if doc.page_count >= 3 else set()
    expect_cjk = expects_cjk(doc, raw, source)
    out = []
    for i in range(doc.page_count):
        page = doc[i]
        text = strip_lines(raw[i], boiler)
        n = len(re.sub(r"\s+", "", text))
        has_image = bool(page.get_images(full=False))
        visible = has_image or (n < th.min_chars and _vector_glyphs(page))
        verdict, why = judge_page(text, has_image=visible, expect_cjk=expect_cjk, th=th)
        if verdict == "good" and has_image and n < th.min_chars * SCAN_TEXT_FACTOR:
            cover = _image_cover(page)
            if cover >= SCAN_COVER:
                verdict, why = "missing", f"only {n} chars of text over a scan covering {cover:.0%} of the page"
        out.append((PageInfo(number=i + 1, verdict=verdict), why))
    return out


OcrPages = Callable[[Path, list[int]], dict[int, Union[OcrPage, BaseException]]]


def parse_pdf(path: Path, source: str, *, password: Optional[str], th: GarbleThresholds,
              ocr_pages: OcrPages) -> PdfResult:
    """Pages with their verdicts, blocks with headings, per-page errors and the title of one PDF.

    ``ocr_pages(path, page_numbers)`` maps each 1-based page number to an ``OcrPage`` (rows with
    boxes in PDF points), or to the exception that page raised; it is only given pages whose text
    layer is not good, all at once, so it can spread them over processes."""
    doc = open_pdf(path, password)
    pages = [info for info, _ in page_verdicts(doc, source, th)]
    toc = usable_outline(doc.get_toc(simple=True))
    authoritative = len(toc) >= MIN_OUTLINE_ENTRIES
    toc_by_page: dict[int, list[tuple[int, str]]] = {}
    for level, title, pno in toc:
        toc_by_page.setdefault(pno, []).append((level, title))
    need = [p.number for p in pages if p.verdict != "good"]
    ocr_results = ocr_pages(path, need) if need else {}
    errors: list[ErrorItem] = []
    layouts: list[PageLayout] = []
    for info in pages:
        if info.number % 100 == 0:
            _free_cache()  # keeps memory flat on long documents
        page = doc[info.number - 1]
        if info.verdict == "good":
            pb = _page_blocks(page)
            for bbox, table in _tables(page):
                pb = [b for b in pb if not _inside(b.bbox, bbox)]
                pb.append(LayoutBlock(text="", bbox=bbox, table=table))
            pb.sort(key=lambda b: (round(b.bbox.y0), b.bbox.x0))
            info.chars = sum(len(b.text) for b in pb)
            # a text layer over a full-page scan was made by OCR: its font sizes say nothing
            layouts.append(PageLayout(info.number, pb, _image_cover(page) >= SCAN_LAYER_COVER, page.rect.height))
            continue
        result = ocr_results.get(info.number, OcrPage([]))
        if isinstance(result, BaseException):
            errors.append(ErrorItem(file=source, stage="parse", page=info.number, message=f"OCR failed: {result}"))
            result = OcrPage([])
        info.method = "ocr" if result.rows else "none"
        info.ocr_confidence = round(result.confidence, 3)
        info.chars = sum(len(r.text) for r in result.rows)
        if not result.rows:
            errors.append(ErrorItem(file=source, stage="parse", page=info.number,
                                    message=f"no readable text on this page (text layer {info.verdict}, OCR found nothing)"))
        layouts.append(PageLayout(info.number, [LayoutBlock(text=r.text, bbox=r.bbox, lines=[r]) for r in result.rows],
                                  True, page.rect.height))
    body_size = _body_size(layouts)
    for layout in layouts:
        layout.blocks, layout.pending = _mark_headings(layout, body_size, toc_by_page.get(layout.number, []),
                                                       authoritative)
    drop_repeated_headings(layouts)
    assign_levels(layouts)
    blocks: list[Block] = []
    for layout in layouts:
        blocks.extend(_to_blocks(layout))
    merge_title_lines(blocks)
    title = pdf_title(doc)
    doc.close()
    _free_cache()
    return PdfResult(pages=pages, blocks=blocks, errors=errors, title=title)


def _free_cache() -> None:
    """Empty MuPDF's resource cache (fonts, images; up to 256 MB) after each document: without
    it a long ingest grows to ~400 MB on the 408 corpus, with it stays ~100-160 MB."""
    import pymupdf

    pymupdf.TOOLS.store_shrink(100)


def _body_size(layouts: Iterable[PageLayout], min_chars: int = 1) -> float:
    """The font size most text is set in (0.0 when there are fewer than ``min_chars`` characters)."""
    sizes: Counter = Counter()
    for layout in layouts:
        if not layout.from_ocr:
            for b in layout.blocks:
                if b.size:
                    sizes[b.size] += len(b.text)
    return sizes.most_common(1)[0][0] if sizes and sum(sizes.values()) >= min_chars else 0.0


def _norm(s: str) -> str:
    return re.sub(r"\s+", "", s)


def _merge_lines(pb: list[LayoutBlock]) -> list[LayoutBlock]:
    """Join vertically adjacent text blocks (PDF writers often emit one block per line) into one
    block with \n between lines; the clean stage decides where paragraphs end."""
    out: list[LayoutBlock] = []
    for b in pb:
        prev = out[-1] if out else None
        if (prev and prev.table is None and b.table is None and b.text and prev.text
                and abs(b.size - prev.size) < 0.6 and not prev.heading and not b.heading):
            line_h = (prev.bbox.y1 - prev.bbox.y0) / (prev.text.count("\n") + 1)
            gap = b.bbox.y0 - prev.bbox.y1
            if -line_h * 0.5 < gap < line_h * 0.8:
                prev.text += "\n" + b.text
                prev.bbox = BBox(min(prev.bbox.x0, b.bbox.x0), prev.bbox.y0, max(prev.bbox.x1, b.bbox.x1), b.bbox.y1)
                prev.lines = prev.lines + b.lines
                continue
        out.append(replace(b))
    return out


def _mark_headings(layout: PageLayout, body_size: float, toc_entries: list[tuple[int, str]],
                   authoritative: bool) -> tuple[list[LayoutBlock], list[tuple[int, str]]]:
    """Decide headings block by block before lines are merged, so a heading never swallows body
    text. Returns (blocks with a heading level where one was found, outline entries not found)."""
    pending = list(toc_entries)
    marked: list[LayoutBlock] = []
    from_ocr = layout.from_ocr
    body_size = _body_size([layout], PAGE_BODY_MIN_CHARS) or body_size
    for b in layout.blocks:
        band = _band(b.bbox.y0, b.bbox.y1, layout.height)
        if b.table is not None or band != "body":
            marked.append(b)
            continue
        text = b.text.strip()
        sec = None if authoritative else exam_section(text.split("\n", 1)[0])
        if sec:  # "一、单项选择题：第1～40小题…": the title becomes a heading; the line stays text as written
            head, rest = sec
            if from_ocr or not body_size:
                marked.append(replace(b, text=head, heading=2, exam=True, lines=b.lines[:1]))
            else:
                bigger = b.size >= body_size * HEADING_SIZE_RATIO
                marked.append(replace(b, text=head, heading=RANKED, exam=True, rank_size=b.size if bigger else 0.0,
                                      lines=b.lines[:1]))
            if rest:
                marked.append(b)
            elif "\n" in text:
                marked.append(replace(b, text=text.split("\n", 1)[1], lines=b.lines[1:]))
            continue
        level = heading_level(text, b, body_size, pending, authoritative, from_ocr)
        marked.append(replace(b, heading=level) if level is not None else b)
    return marked, pending


def _to_blocks(layout: PageLayout) -> list[Block]:
    pno, height, pb = layout.number, layout.height, layout.blocks
    out: list[Block] = []
    where = [_band(b.bbox.y0, b.bbox.y1, height) for b in pb]
    merged = ([b for b, w in zip(pb, where) if w == "top"]
              + _merge_lines([b for b, w in zip(pb, where) if w == "body"])
              + [b for b, w in zip(pb, where) if w == "bottom"])
    for b in merged:
        band = _band(b.bbox.y0, b.bbox.y1, height)
        if b.table is not None:
            out.append(Block(kind="table", text="", page=pno, table=b.table, band=band))
            continue
        text = b.text.strip()
        lines = text_lines(b.lines, pno)
        if b.heading is not None:
            out.append(Block(kind="heading", text=re.sub(r"\s+", " ", text), page=pno, level=b.heading, band=band,
                             lines=lines))
        else:
            out.append(Block(kind="text", text=text, page=pno, band=band, lines=lines))
    # outline entries whose title is not in the text (e.g. OCR'd pages) start their page
    missing = [Block(kind="heading", text=t, page=pno, level=lv) for lv, t in layout.pending]
    return missing + out


def pdf_title(doc) -> str:
    """The metadata title when it is the document's title: readable, and found on the first pages
    (Word leaves titles such as "第一章" from a template; some are mojibake). Else ""."""
    title = re.sub(r"\s+", " ", (doc.metadata or {}).get("title") or "").strip()
    if len(_norm(title)) < 4 or not plausible_heading(title):
        return ""
    if judge_page(title * 3, has_image=False, expect_cjk=False, th=GarbleThresholds(min_chars=1))[0] != "good":
        return ""
    head = _norm("".join(doc[i].get_text("text") for i in range(min(2, doc.page_count))))
    return title if _norm(title) in head else ""
