"""PDF → ParsedDoc with PyMuPDF: per-page text-layer verdict, OCR fallback, headings, tables."""

from __future__ import annotations

import os
import re
from collections import Counter
from pathlib import Path
from typing import Callable, Optional

from pipeline.models import Block, ErrorItem, PageInfo, Status, Table
from pipeline.parse.garble import GarbleThresholds, classify_page, repeated_lines, strip_lines
from pipeline.parse.headings import numbering

BAND = 0.08  # top/bottom share of the page height treated as header/footer band
HEADING_SIZE_RATIO = 1.15  # a line this much larger than body text is a heading candidate
TABLE_MIN_RULES = 4  # a page needs this many ruling lines before we pay for find_tables()

os.environ.setdefault("PYMUPDF_SUGGEST_LAYOUT_ANALYZER", "0")


class ParseError(Exception):
    """One-line, user-facing reason a file could not be parsed."""


def open_pdf(path: Path, password: Optional[str]):
    import pymupdf as fitz

    try:
        doc = fitz.open(path)
    except Exception as exc:  # fitz raises FileDataError / RuntimeError variants
        raise ParseError(f"not a readable PDF ({exc.__class__.__name__}: {str(exc).strip() or 'damaged file'})")
    if doc.needs_pass:
        if not password or not doc.authenticate(password):
            raise ParseError("PDF is encrypted; set EXAMRAG_PDF_PASSWORD to the password" if not password
                             else "PDF is encrypted and EXAMRAG_PDF_PASSWORD does not open it")
    if doc.page_count == 0:
        raise ParseError("PDF has no pages")
    return doc


def _band(y0: float, y1: float, height: float) -> str:
    if y1 <= height * BAND:
        return "top"
    if y0 >= height * (1 - BAND):
        return "bottom"
    return "body"


def _page_blocks(page) -> list[dict]:
    """Text blocks of a page as dicts: text (lines joined by \\n), bbox, size, bold."""
    out = []
    for b in page.get_text("dict")["blocks"]:
        if b.get("type") != 0:
            continue
        lines, sizes, bold = [], Counter(), 0
        for line in b["lines"]:
            spans = [s for s in line["spans"] if s["text"].strip()]
            if not spans:
                continue
            lines.append("".join(s["text"] for s in line["spans"]).strip())
            for s in spans:
                sizes[round(s["size"], 1)] += len(s["text"].strip())
                bold += len(s["text"].strip()) if s["flags"] & 16 else 0
        if lines:
            n = sum(sizes.values())
            out.append({"text": "\n".join(lines), "bbox": b["bbox"], "size": sizes.most_common(1)[0][0],
                        "bold": bold > n / 2})
    return out


def _tables(page) -> list[tuple[tuple, Table]]:
    rules = [d for d in page.get_drawings() if any(it[0] in ("l", "re") for it in d["items"])]
    if sum(len(d["items"]) for d in rules) < TABLE_MIN_RULES:
        return []
    found = []
    for t in page.find_tables().tables:
        rows = [[(c or "").replace("\n", "") for c in r] for r in t.extract()]
        if len(rows) >= 2 and len(rows[0]) >= 2:
            found.append((tuple(t.bbox), Table(header=rows[0], rows=rows[1:])))
    return found


def _inside(inner, outer, slack: float = 2.0) -> bool:
    return (inner[0] >= outer[0] - slack and inner[1] >= outer[1] - slack
            and inner[2] <= outer[2] + slack and inner[3] <= outer[3] + slack)


OcrPages = Callable[[Path, list[int]], dict[int, object]]


def parse_pdf(path: Path, source: str, *, password: Optional[str], th: GarbleThresholds, ocr_pages: OcrPages):
    """Return (pages, blocks, errors, title).

    ``ocr_pages(path, page_numbers)`` maps each 1-based page number to (lines with bbox in PDF points,
    mean confidence), or to the exception that page raised; it is only given pages whose text layer
    is not good, all at once, so it can spread them over processes."""
    doc = open_pdf(path, password)
    raw = [doc[i].get_text("text") for i in range(doc.page_count)]
    boiler = repeated_lines(raw) if doc.page_count >= 3 else set()
    expect_cjk = bool(re.search(r"[\u4e00-\u9fff]", source)) or any(
        len(re.findall(r"[\u4e00-\u9fff]", t)) > 30 for t in raw)
    toc = doc.get_toc(simple=True)
    toc_by_page: dict[int, list[tuple[int, str]]] = {}
    for level, title, pno in toc:
        if pno >= 1:
            toc_by_page.setdefault(pno, []).append((level, title.strip()))
    pages: list[PageInfo] = []
    for i in range(doc.page_count):
        has_image = bool(doc[i].get_images(full=False))
        verdict = classify_page(strip_lines(raw[i], boiler), has_image=has_image or not raw[i].strip(),
                                expect_cjk=expect_cjk, th=th)
        pages.append(PageInfo(number=i + 1, verdict=verdict))
    need = [p.number for p in pages if p.verdict != "good"]
    ocr_results = ocr_pages(path, need) if need else {}
    errors: list[ErrorItem] = []
    page_blocks: list[tuple[int, list[dict], bool]] = []  # (page no, blocks, from_ocr)
    for info in pages:
        if info.verdict == "good":
            page = doc[info.number - 1]
            pb = _page_blocks(page)
            for bbox, table in _tables(page):
                pb = [b for b in pb if not _inside(b["bbox"], bbox)]
                pb.append({"table": table, "bbox": bbox, "text": "", "size": 0, "bold": False})
            pb.sort(key=lambda b: (round(b["bbox"][1]), b["bbox"][0]))
            info.chars = sum(len(b["text"]) for b in pb)
            page_blocks.append((info.number, pb, False))
            continue
        result = ocr_results.get(info.number, ([], 0.0))
        if isinstance(result, BaseException):
            errors.append(ErrorItem(file=source, stage="parse", page=info.number, message=f"OCR failed: {result}"))
            result = ([], 0.0)
        lines, conf = result
        info.method = "ocr" if lines else "none"
        info.ocr_confidence = round(conf, 3)
        info.chars = sum(len(t) for t, _ in lines)
        if not lines:
            errors.append(ErrorItem(file=source, stage="parse", page=info.number,
                                    message=f"no readable text on this page (text layer {info.verdict}, OCR found nothing)"))
        page_blocks.append((info.number, [{"text": t, "bbox": bb, "size": 0, "bold": False} for t, bb in lines], True))
    heights = {i + 1: doc[i].rect.height for i in range(doc.page_count)}
    body_size = _body_size(page_blocks)
    blocks: list[Block] = []
    for pno, pb, from_ocr in page_blocks:
        blocks.extend(_to_blocks(pb, pno, heights[pno], body_size, toc_by_page.get(pno, []), bool(toc), from_ocr))
    title = (doc.metadata or {}).get("title") or ""
    doc.close()
    return pages, blocks, errors, title


def _body_size(page_blocks) -> float:
    sizes: Counter = Counter()
    for _, pb, from_ocr in page_blocks:
        if not from_ocr:
            for b in pb:
                if b.get("size"):
                    sizes[b["size"]] += len(b["text"])
    return sizes.most_common(1)[0][0] if sizes else 0.0


def _norm(s: str) -> str:
    return re.sub(r"\s+", "", s)


def _merge_lines(pb: list[dict]) -> list[dict]:
    """Join vertically adjacent text blocks (PDF writers often emit one block per line) into one
    block with \n between lines; the clean stage decides where paragraphs end."""
    out: list[dict] = []
    for b in pb:
        prev = out[-1] if out else None
        if (prev and "table" not in prev and "table" not in b and b["text"] and prev["text"]
                and abs(b.get("size", 0) - prev.get("size", 0)) < 0.6 and not prev.get("heading")
                and not b.get("heading")):
            line_h = (prev["bbox"][3] - prev["bbox"][1]) / (prev["text"].count("\n") + 1)
            gap = b["bbox"][1] - prev["bbox"][3]
            if -line_h * 0.5 < gap < line_h * 0.8:
                prev["text"] += "\n" + b["text"]
                prev["bbox"] = (min(prev["bbox"][0], b["bbox"][0]), prev["bbox"][1],
                                max(prev["bbox"][2], b["bbox"][2]), b["bbox"][3])
                continue
        out.append(dict(b))
    return out


def _to_blocks(pb, pno, height, body_size, toc_entries, has_toc, from_ocr) -> list[Block]:
    out: list[Block] = []
    pending = list(toc_entries)
    marked = []
    for b in pb:  # decide headings line by line before merging, so a heading never swallows body text
        band = _band(b["bbox"][1], b["bbox"][3], height)
        if "table" not in b and band == "body":
            level = _heading_level(b["text"].strip(), b, body_size, pending, has_toc, from_ocr)
            if level is not None:
                b = {**b, "heading": level}
        marked.append(b)
    where = [_band(b["bbox"][1], b["bbox"][3], height) for b in marked]
    merged = ([b for b, w in zip(marked, where) if w == "top"]
              + _merge_lines([b for b, w in zip(marked, where) if w == "body"])
              + [b for b, w in zip(marked, where) if w == "bottom"])
    for b in merged:
        band = _band(b["bbox"][1], b["bbox"][3], height)
        if "table" in b:
            out.append(Block(kind="table", text="", page=pno, table=b["table"], band=band))
            continue
        text = b["text"].strip()
        level = b.get("heading")
        if level is not None:
            out.append(Block(kind="heading", text=re.sub(r"\s+", " ", text), page=pno, level=level, band=band))
        else:
            out.append(Block(kind="text", text=text, page=pno, band=band))
    # outline entries whose title is not in the text (e.g. OCR'd pages) start their page
    missing = [Block(kind="heading", text=t, page=pno, level=lv) for lv, t in pending]
    return missing + out


def _heading_level(text, b, body_size, pending, has_toc, from_ocr) -> Optional[int]:
    if "\n" in text and len(text) > 40:
        return None
    key = _norm(text)
    for entry in pending:
        if _norm(entry[1]) == key:
            pending.remove(entry)
            return entry[0]
    if has_toc:
        return None  # the outline is the authority when present
    num = numbering(text)
    if from_ocr or not body_size:
        return num[1] if num and num[0] in ("chapter", "part", "decimal", "section") else None
    bigger = b["size"] >= body_size * HEADING_SIZE_RATIO
    if num and (bigger or b["bold"] or num[0] in ("chapter", "part")):
        return num[1]
    if bigger and len(key) <= 30 and key[-1:] not in "。；，：？！":
        return 1 if b["size"] >= body_size * 1.5 else 2
    return None
