"""Parse stage entry points: ``discover`` (raw dir → manifest entries) and ``run`` (→ ParsedDoc).

Document ids are the first 16 hex digits of the sha256 of the raw bytes: the same file under two
names is one document with two sources; a changed file is a new document.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Optional

from pipeline.models import Block, DocReport, ErrorItem, PageInfo, ParsedDoc, StageReport, Status
from pipeline.parse.garble import GarbleThresholds
from pipeline.parse.headings import HeadingPath
from pipeline.parse.office import OFFICE_SUFFIXES, parse_office
from pipeline.parse.pdf import ParseError, parse_pdf
from pipeline.parse.text import decode_text, parse_markdown, parse_plain
from pipeline.runner import run_docs
from pipeline.settings import Settings
from pipeline.store import DocEntry, Manifest, Store, sha256_file

CODE_VERSION = "parse-1"
IMAGE_SUFFIXES = {".png", ".jpg", ".jpeg", ".tif", ".tiff", ".bmp", ".webp"}
TEXT_SUFFIXES = {".md", ".markdown", ".txt"}
SUPPORTED = {".pdf"} | IMAGE_SUFFIXES | TEXT_SUFFIXES | OFFICE_SUFFIXES
PAPER_HINT = re.compile(r"真题|试卷|试题|模拟卷|考试|答案|单项选择题")


def config_hash(s: Settings) -> str:
    return s.stage_hash("ocr_engine", "ocr_dpi", "garble_min_chars", "garble_min_cjk_ratio",
                        "garble_max_bad_ratio", "paddle_det_dir", "paddle_rec_dir")


def discover(raw_dir: Path, store: Store, manifest: Manifest) -> tuple[list[str], list[DocReport]]:
    """Scan ``raw_dir``; add new documents, attach extra names, drop sources that disappeared.

    Returns (doc ids found under raw_dir, reports for files that could not be read)."""
    root = str(raw_dir)
    found: dict[str, list[str]] = {}
    problems: list[DocReport] = []
    for dirpath, dirnames, filenames in os.walk(raw_dir, followlinks=False):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for name in sorted(filenames):
            path = Path(dirpath) / name
            if name.startswith(".") or path.suffix.lower() not in SUPPORTED:
                continue
            source = str(path)
            try:
                if path.stat().st_size == 0:
                    raise ParseError("empty file (0 bytes)")
                digest = sha256_file(path)
            except (OSError, ParseError) as exc:
                msg = str(exc) if isinstance(exc, ParseError) else f"cannot read ({exc.strerror or exc})"
                manifest.failures[source] = msg
                problems.append(DocReport(doc_id="", source=source, status=Status.FAILED,
                                          errors=[ErrorItem(file=source, stage="parse", message=msg)]))
                continue
            manifest.failures.pop(source, None)
            doc_id = digest[:16]
            found.setdefault(doc_id, []).append(source)
            entry = manifest.documents.get(doc_id)
            if entry is None:
                manifest.documents[doc_id] = DocEntry(doc_id=doc_id, sources=[source], raw_hash=digest)
            elif source not in entry.sources:
                entry.sources.append(source)
    prefix = root.rstrip("/") + "/"
    for doc_id, entry in list(manifest.documents.items()):
        entry.sources = [s for s in entry.sources if not s.startswith(prefix) or doc_id in found and s in found[doc_id]]
        if not entry.sources:
            del manifest.documents[doc_id]
            store.remove_doc(doc_id)
    for source in [s for s in manifest.failures if s.startswith(prefix) and not os.path.exists(s)]:
        del manifest.failures[source]
    return sorted(found), problems


def doc_kind(suffix: str, source: str, first_text: str) -> str:
    if suffix in TEXT_SUFFIXES or suffix in OFFICE_SUFFIXES:
        return "note"
    if PAPER_HINT.search(Path(source).name) or PAPER_HINT.search(first_text[:2000]):
        return "paper"
    return "textbook" if suffix == ".pdf" else "note"


class OcrRunner:
    """Loads the OCR engine on first use, so text-only ingests never pay for it."""

    def __init__(self, settings: Settings):
        self.settings = settings
        self._engine = None

    @property
    def engine(self):
        if self._engine is None:
            from pipeline.parse.ocr import make_engine

            kw = {}
            if self.settings.ocr_engine == "paddleocr":
                kw = {"det_dir": self.settings.paddle_det_dir, "rec_dir": self.settings.paddle_rec_dir}
            self._engine = make_engine(self.settings.ocr_engine, **kw)
        return self._engine

    def image_lines(self, image, scale: float = 1.0) -> tuple[list[tuple[str, tuple]], float]:
        """OCR an RGB array; rows in reading order with bboxes scaled by ``scale``."""
        from pipeline.parse.ocr.order import lines_to_text, order_lines

        lines = self.engine.recognize(image)
        if not lines:
            return [], 0.0
        rows = order_lines(lines, page_width=float(image.shape[1]))
        texts = lines_to_text(rows)
        out = []
        for text, row in zip(texts, rows):
            x0 = min(l.box[0] for l in row) * scale
            y0 = min(l.box[1] for l in row) * scale
            x1 = max(l.box[2] for l in row) * scale
            y1 = max(l.box[3] for l in row) * scale
            out.append((text, (x0, y0, x1, y1)))
        conf = sum(l.confidence for l in lines) / len(lines)
        return out, conf

    def pdf_page(self, page, page_no: int) -> tuple[list[tuple[str, tuple]], float]:
        import numpy as np

        dpi = self.settings.ocr_dpi
        pix = page.get_pixmap(dpi=dpi, alpha=False)
        image = np.frombuffer(pix.samples, dtype=np.uint8).reshape(pix.height, pix.width, pix.n)[:, :, :3]
        return self.image_lines(np.ascontiguousarray(image), scale=72.0 / dpi)


def parse_file(path: Path, source: str, doc_id: str, settings: Settings, ocr: OcrRunner) -> ParsedDoc:
    suffix = path.suffix.lower()
    pages: list[PageInfo] = []
    errors: list[ErrorItem] = []
    title = ""
    if suffix == ".pdf":
        th = GarbleThresholds(settings.garble_min_chars, settings.garble_max_bad_ratio, settings.garble_min_cjk_ratio)
        pages, blocks, errors, title = parse_pdf(path, source, password=settings.pdf_password, th=th,
                                                 ocr_page=ocr.pdf_page)
        fmt = "pdf"
    elif suffix in IMAGE_SUFFIXES:
        blocks, pages = _parse_image(path, ocr)
        fmt = "image"
    elif suffix in TEXT_SUFFIXES:
        text, _enc = decode_text(path.read_bytes())
        blocks = parse_markdown(text) if suffix != ".txt" else parse_plain(text)
        fmt = "md" if suffix != ".txt" else "txt"
    else:
        blocks = parse_office(path)
        fmt = "office"
    title = title.strip() or (_first_title(blocks) if fmt in ("md", "office") else "") or path.stem
    first_text = "\n".join(b.text for b in blocks[:40])
    kind = doc_kind(suffix, source, first_text)
    heads = [b.level or 1 for b in blocks if b.kind == "heading"]
    root = [title] if fmt in ("txt", "md", "office") and heads and min(heads) > 1 or fmt == "txt" else []
    _assign_paths(blocks, fallback=[title], root=root)
    if not any(b.text.strip() or b.table for b in blocks):
        raise ParseError("no text found in the file" + (" (all pages unreadable)" if pages else ""))
    status = Status.PARTIAL if errors else Status.SUCCESS
    return ParsedDoc(doc_id=doc_id, source=source, format=fmt, kind=kind, title=title, pages=pages,
                     blocks=blocks, status=status, errors=errors)


def _first_title(blocks: list[Block]) -> str:
    for b in blocks[:5]:
        if b.kind == "heading" and b.level == 1:
            return b.text
    return ""


def _parse_image(path: Path, ocr: OcrRunner) -> tuple[list[Block], list[PageInfo]]:
    import numpy as np
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(path) as im:
            image = np.asarray(im.convert("RGB"))
    except (UnidentifiedImageError, OSError) as exc:
        raise ParseError(f"not a readable image ({exc.__class__.__name__})")
    lines, conf = ocr.image_lines(image)
    height = image.shape[0]
    blocks = [Block(kind="text", text=t, page=1,
                    band="top" if bb[3] <= height * 0.08 else "bottom" if bb[1] >= height * 0.92 else "body")
              for t, bb in lines]
    info = PageInfo(number=1, verdict="image", method="ocr" if lines else "none", ocr_confidence=round(conf, 3),
                    chars=sum(len(t) for t, _ in lines))
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


def run(store: Store, manifest: Manifest, doc_ids: list[str], settings: Settings, *, force: bool = False,
        quiet: bool = False, abort_on_error: bool = False) -> StageReport:
    ocr = OcrRunner(settings)

    def work(entry: DocEntry) -> ParsedDoc:
        existing = [s for s in entry.sources if os.path.exists(s)]
        if not existing:
            raise ParseError(f"source file missing: {entry.sources[0]}")
        return parse_file(Path(existing[0]), existing[0], entry.doc_id, settings, ocr)

    return run_docs(store, manifest, "parse", doc_ids, work, config_hash=config_hash(settings),
                    code_version=CODE_VERSION, force=force, quiet=quiet, abort_on_error=abort_on_error)
