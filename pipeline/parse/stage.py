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
        self._pool = None

    @property
    def engine(self):
        if self._engine is None:
            from pipeline.parse.ocr import make_engine

            kw = {}
            if self.settings.ocr_engine == "paddleocr":
                kw = {"det_dir": self.settings.paddle_det_dir, "rec_dir": self.settings.paddle_rec_dir}
            else:
                kw = {"threads": 1}  # measured: 1 thread per engine beats 2 on 2 cores
            self._engine = make_engine(self.settings.ocr_engine, **kw)
        return self._engine

    def image_lines(self, image, scale: float = 1.0) -> tuple[list[tuple[str, tuple]], float]:
        """OCR an RGB array; rows in reading order with bboxes scaled by ``scale``."""
        from pipeline.parse.ocr import ocr_image_lines

        lines, conf = ocr_image_lines(self.engine, image)
        return [(t, tuple(v * scale for v in box)) for t, box in lines], conf

    def pdf_pages(self, path: Path, numbers: list[int]) -> dict[int, object]:
        """OCR the given pages; with ``ocr_workers`` > 1 they are spread over worker processes
        (one single-threaded engine each: measured faster than one engine with 2 threads)."""
        args = [(str(path), self.settings.pdf_password, n, self.settings.ocr_dpi) for n in numbers]
        if self.settings.ocr_workers > 1 and self.settings.ocr_engine == "rapidocr":
            pool = self._get_pool()
            futures = {a[2]: pool.submit(_ocr_pdf_page, *a) for a in args}
            out: dict[int, object] = {}
            for n, fut in futures.items():
                try:
                    out[n] = fut.result()
                except Exception as exc:  # a crashed worker fails that page, not the document
                    out[n] = exc
            return out
        _WORKER["engine"] = self.engine
        out = {}
        for a in args:
            try:
                out[a[2]] = _ocr_pdf_page(*a)
            except Exception as exc:
                out[a[2]] = exc
        return out

    def _get_pool(self):
        if self._pool is None:
            import multiprocessing
            from concurrent.futures import ProcessPoolExecutor

            self._pool = ProcessPoolExecutor(max_workers=self.settings.ocr_workers,
                                             mp_context=multiprocessing.get_context("spawn"),
                                             initializer=_init_worker, initargs=(self.settings.ocr_engine,))
        return self._pool

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(cancel_futures=True)
            self._pool = None


_WORKER: dict = {}


def _init_worker(engine_name: str) -> None:
    from pipeline.parse.ocr import make_engine

    _WORKER["engine"] = make_engine(engine_name, threads=1)


def _ocr_pdf_page(path: str, password, number: int, dpi: int):
    import numpy as np
    import pymupdf

    from pipeline.parse.ocr import ocr_image_lines

    doc = pymupdf.open(path)
    try:
        if doc.needs_pass:
            doc.authenticate(password or "")
        pix = doc[number - 1].get_pixmap(dpi=dpi, alpha=False)
        image = np.frombuffer(pix.samples, dtype=np.uint8).reshape(pix.height, pix.width, pix.n)[:, :, :3]
    finally:
        doc.close()
    lines, conf = ocr_image_lines(_WORKER["engine"], np.ascontiguousarray(image))
    scale = 72.0 / dpi
    return [(t, tuple(v * scale for v in box)) for t, box in lines], conf


def parse_file(path: Path, source: str, doc_id: str, settings: Settings, ocr: OcrRunner) -> ParsedDoc:
    suffix = path.suffix.lower()
    pages: list[PageInfo] = []
    errors: list[ErrorItem] = []
    title = ""
    if suffix == ".pdf":
        th = GarbleThresholds(settings.garble_min_chars, settings.garble_max_bad_ratio, settings.garble_min_cjk_ratio)
        pages, blocks, errors, title = parse_pdf(path, source, password=settings.pdf_password, th=th,
                                                 ocr_pages=ocr.pdf_pages)
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

    try:
        return run_docs(store, manifest, "parse", doc_ids, work, config_hash=config_hash(settings),
                        code_version=CODE_VERSION, force=force, quiet=quiet, abort_on_error=abort_on_error)
    finally:
        ocr.close()
