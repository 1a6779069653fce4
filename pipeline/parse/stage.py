"""Parse stage entry points: ``discover`` (raw dir → manifest entries) and ``run`` (→ ParsedDoc).

Document ids are the first 16 hex digits of the sha256 of the raw bytes: the same file under two
names is one document with two sources; a changed file is a new document.
"""

from __future__ import annotations

import errno
import os
import re
import stat
from pathlib import Path
from typing import Optional

from pipeline.hashing import sha256_file
from pipeline.models import Block, DocReport, ErrorItem, PageInfo, ParsedDoc, StageReport, Status
from pipeline.parse.errors import ParseError
from pipeline.parse.garble import GarbleThresholds
from pipeline.parse.headings import HeadingPath, title_from_filename
from pipeline.parse.ocr import check_engine, make_engine, ocr_image_lines
from pipeline.parse.office import OFFICE_SUFFIXES, parse_office
from pipeline.parse.layout import OcrPage, text_lines
from pipeline.parse.pdf import parse_pdf
from pipeline.parse.text import decode_text, parse_markdown, parse_plain
from pipeline.runner import run_docs
from pipeline.settings import Settings
from pipeline.store import DocEntry, Manifest, Store

CODE_VERSION = "parse-3"  # 3: blocks carry their line boxes
IMAGE_SUFFIXES = {".png", ".jpg", ".jpeg", ".tif", ".tiff", ".bmp", ".webp"}
TEXT_SUFFIXES = {".md", ".markdown", ".txt"}
SUPPORTED = {".pdf"} | IMAGE_SUFFIXES | TEXT_SUFFIXES | OFFICE_SUFFIXES
PAPER_HINT = re.compile(r"真题|试卷|试题|模拟卷|考试|答案|单项选择题")


def discover(raw_dir: Path, store: Store, manifest: Manifest) -> tuple[list[str], list[DocReport]]:
    """Scan ``raw_dir``; add new documents, attach extra names, drop sources that disappeared.

    Symlinked folders are followed, each real folder once (a link back up the tree is not walked
    again). Hidden files are ignored. Unsupported files and Office lock files (``~$x.docx``) are
    reported as skipped; files that cannot be read (empty, not a regular file, a symlink loop or a
    broken link, no permission) as failed, one line each, and both are recorded in the manifest.
    Returns (doc ids found under raw_dir, reports for the skipped and failed files)."""
    root = os.path.normpath(str(raw_dir))
    prefix = root.rstrip("/") + "/"
    found: dict[str, list[str]] = {}
    problems: list[DocReport] = []
    manifest.failures = {s: m for s, m in manifest.failures.items() if not s.startswith(prefix)}
    manifest.skipped = {s: m for s, m in manifest.skipped.items() if not s.startswith(prefix)}
    for path in _discover_walk(Path(root)):
        source = str(path)
        reason = _discover_skip_reason(path)
        if reason:
            manifest.skipped[source] = reason
            problems.append(DocReport(doc_id="", source=source, status=Status.SKIPPED, detail=reason))
            continue
        try:
            digest = _discover_digest(path)
        except ParseError as exc:
            manifest.failures[source] = str(exc)
            problems.append(DocReport(doc_id="", source=source, status=Status.FAILED,
                                      errors=[ErrorItem(file=source, stage="parse", message=str(exc))]))
            continue
        doc_id = digest[:16]
        found.setdefault(doc_id, []).append(source)
        entry = manifest.documents.get(doc_id)
        if entry is None:
            manifest.documents[doc_id] = DocEntry(doc_id=doc_id, sources=[source], raw_hash=digest)
        elif source not in entry.sources:
            entry.sources.append(source)
    for doc_id, entry in list(manifest.documents.items()):
        entry.sources = [s for s in entry.sources if not s.startswith(prefix) or doc_id in found and s in found[doc_id]]
        if not entry.sources:
            del manifest.documents[doc_id]
            store.remove_doc(doc_id)
    return sorted(found), problems


def _discover_walk(root: Path):
    seen: set[str] = set()
    for dirpath, dirnames, filenames in os.walk(root, followlinks=True):
        real = os.path.realpath(dirpath)
        if real in seen:  # a symlink loop (or a second link to a folder already walked)
            dirnames[:] = []
            continue
        seen.add(real)
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for name in sorted(filenames):
            if not name.startswith("."):
                yield Path(dirpath) / name


def _discover_skip_reason(path: Path) -> str:
    if path.name.startswith("~$"):
        return "Office lock file (the document is open in Word/PowerPoint), not a document"
    if path.suffix.lower() not in SUPPORTED:
        return f"unsupported file type ({path.suffix.lower() or 'no extension'})"
    return ""


def _discover_digest(path: Path) -> str:
    """sha256 of a readable, non-empty regular file, else ParseError with a one-line reason."""
    try:
        st = path.stat()
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise ParseError("symlink loop (following the link leads back to it), nothing to read") from None
        if path.is_symlink():
            raise ParseError(f"broken symlink (its target {os.readlink(path)} does not exist)") from None
        if exc.errno == errno.ENOENT:
            raise ParseError("file disappeared while ingest was scanning the folder") from None
        raise ParseError(f"cannot read ({exc.strerror or exc})") from None
    if not stat.S_ISREG(st.st_mode):
        kind = "a FIFO" if stat.S_ISFIFO(st.st_mode) else "a socket" if stat.S_ISSOCK(st.st_mode) else "a device"
        raise ParseError(f"not a regular file ({kind}), cannot be read")
    if st.st_size == 0:
        raise ParseError("empty file (0 bytes)")
    try:
        return sha256_file(path)
    except OSError as exc:
        raise ParseError(f"cannot read ({exc.strerror or exc})") from None


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
            # measured: 1 thread per engine beats 2 on 2 cores (and workers each run one)
            self._engine = make_engine(self.settings.parse.ocr_engine, **engine_kwargs(self.settings, threads=1))
        return self._engine

    def image_lines(self, image) -> OcrPage:
        """OCR an RGB array: rows in reading order with boxes in the image's pixels."""
        return ocr_image_lines(self.engine, image)

    def pdf_pages(self, path: Path, numbers: list[int]) -> dict[int, OcrPage | BaseException]:
        """OCR the given pages; with ``ocr_workers`` > 1 they are spread over worker processes
        (one single-threaded engine each: measured faster than one engine with 2 threads)."""
        args = [(str(path), self.settings.parse.pdf_password, n, self.settings.parse.ocr_dpi) for n in numbers]
        if self.settings.executor.ocr_workers > 1:
            pool = self._get_pool()
            futures = {a[2]: pool.submit(_ocr_pdf_page, *a) for a in args}
            out: dict[int, OcrPage | BaseException] = {}
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

            # a setup error (paddleocr not installed, empty model dir) as one clear line here,
            # not as "a child process terminated abruptly" for every page
            check_engine(self.settings.parse.ocr_engine, **engine_kwargs(self.settings, 1))

            self._pool = ProcessPoolExecutor(max_workers=self.settings.executor.ocr_workers,
                                             mp_context=multiprocessing.get_context("spawn"),
                                             initializer=_init_worker,
                                             initargs=(self.settings.parse.ocr_engine, engine_kwargs(self.settings, 1),
                                                       os.getpid()))
        return self._pool

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(cancel_futures=True)
            self._pool = None


_WORKER: dict = {}
MAX_OCR_PIXELS = 12_000_000  # ~A3 at 200 dpi; larger pages are rendered at a lower resolution


def engine_kwargs(settings: Settings, threads: Optional[int]) -> dict:
    """Constructor arguments of the configured OCR engine."""
    kw: dict = {"threads": threads}
    if settings.parse.ocr_engine == "paddleocr":
        kw.update(det_dir=settings.parse.paddle_det_dir, rec_dir=settings.parse.paddle_rec_dir)
    return kw


def _init_worker(engine_name: str, kwargs: dict, parent_pid: int) -> None:
    """Worker set-up: die with the parent (a SIGKILLed ingest must not leave OCR workers holding its
    output open), leave Ctrl-C to the parent (no tracebacks from workers), load one engine."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # not Linux: the pool's own shutdown still ends workers
        pass
    if os.getppid() != parent_pid:  # the parent died before the line above took effect
        os._exit(1)
    _WORKER["engine"] = make_engine(engine_name, **kwargs)


def _ocr_pdf_page(path: str, password: Optional[str], number: int, dpi: int) -> OcrPage:
    """OCR one page rendered at ``dpi`` (capped by MAX_OCR_PIXELS); boxes mapped to PDF points."""
    import numpy as np
    import pymupdf

    doc = pymupdf.open(path)
    try:
        if doc.needs_pass:
            doc.authenticate(password or "")
        page = doc[number - 1]
        # cap the render at MAX_OCR_PIXELS: a poster-sized page at 150 dpi would need gigabytes
        scale = min(dpi / 72.0, (MAX_OCR_PIXELS / max(page.rect.width * page.rect.height, 1.0)) ** 0.5)
        dpi = max(36, int(scale * 72))
        pix = page.get_pixmap(dpi=dpi, alpha=False)
        image = np.frombuffer(pix.samples, dtype=np.uint8).reshape(pix.height, pix.width, pix.n)[:, :, :3]
    finally:
        doc.close()
    return ocr_image_lines(_WORKER["engine"], np.ascontiguousarray(image)).scaled(72.0 / dpi)


def parse_file(path: Path, source: str, doc_id: str, settings: Settings, ocr: OcrRunner) -> ParsedDoc:
    suffix = path.suffix.lower()
    pages: list[PageInfo] = []
    errors: list[ErrorItem] = []
    title = ""
    if suffix == ".pdf":
        th = GarbleThresholds(settings.parse.garble_min_chars, settings.parse.garble_max_bad_ratio, settings.parse.garble_min_cjk_ratio)
        result = parse_pdf(path, source, password=settings.parse.pdf_password, th=th, ocr_pages=ocr.pdf_pages)
        pages, blocks, errors, title = result.pages, result.blocks, result.errors, result.title
        fmt = "pdf"
    elif suffix in IMAGE_SUFFIXES:
        blocks, pages = _parse_image(path, ocr)
        fmt = "image"
    elif suffix in TEXT_SUFFIXES:
        text, _enc = decode_text(path.read_bytes())
        blocks = parse_markdown(text) if suffix != ".txt" else parse_plain(text)
        fmt = "md" if suffix != ".txt" else "txt"
    else:
        blocks, title = parse_office(path)
        fmt = "office"
    tops = [b for b in blocks if b.kind == "heading" and (b.level or 1) == 1]
    # a note's only level-1 heading is its title; with several, they are its parts and the file name
    # is the title ("7.查找.md": 一、查找 / 二、线性结构 / 三、树形结构 all sit under 查找)
    lone_top = tops[0].text if fmt in ("md", "office") and len(tops) == 1 else ""
    title = title.strip() or lone_top or title_from_filename(path.stem)
    first_text = "\n".join(b.text for b in blocks[:40])
    kind = doc_kind(suffix, source, first_text)
    heads = [b.level or 1 for b in blocks if b.kind == "heading"]
    root = [title] if fmt == "txt" or (fmt in ("md", "office") and heads and not lone_top) else []
    _assign_paths(blocks, fallback=[title], root=root)
    if not any(b.text.strip() or b.table for b in blocks):
        raise ParseError("no text found in the file" + (" (all pages unreadable)" if pages else ""))
    status = Status.PARTIAL if errors else Status.SUCCESS
    return ParsedDoc(doc_id=doc_id, source=source, format=fmt, kind=kind, title=title, pages=pages,
                     blocks=blocks, status=status, errors=errors)


def _parse_image(path: Path, ocr: OcrRunner) -> tuple[list[Block], list[PageInfo]]:
    import numpy as np
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(path) as im:
            image = np.asarray(im.convert("RGB"))
    except (UnidentifiedImageError, OSError) as exc:
        raise ParseError(f"not a readable image ({exc.__class__.__name__})")
    found = ocr.image_lines(image)
    height = image.shape[0]
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


def run(store: Store, manifest: Manifest, doc_ids: list[str], settings: Settings, *, force: bool = False,
        quiet: bool = False, abort_on_error: bool = False) -> StageReport:
    ocr = OcrRunner(settings)

    def work(entry: DocEntry) -> ParsedDoc:
        source = next((s for s in entry.sources if os.path.isfile(s)), None)
        if source is None:
            raise ParseError(f"file disappeared while ingest was running ({entry.sources[0]}); re-run ingest")
        try:
            doc = parse_file(Path(source), source, entry.doc_id, settings, ocr)
        except Exception as exc:
            _unchanged(source, entry)  # a file replaced mid-parse explains the failure better
            if isinstance(exc, OSError):
                raise ParseError(f"cannot read ({exc.strerror or exc})") from exc
            raise
        _unchanged(source, entry)
        if doc.format == "pdf" and _truncated(source):
            doc.errors.append(ErrorItem(file=source, stage="parse", message=(
                "PDF is truncated (no %%EOF at its end: an incomplete download or copy?); "
                "kept what could be read, the rest of the file is missing")))
            doc.status = Status.PARTIAL
        return doc

    try:
        return run_docs(store, manifest, "parse", doc_ids, work, config_hash=settings.group_hash("parse"),
                        code_version=CODE_VERSION, force=force, quiet=quiet, abort_on_error=abort_on_error)
    finally:
        ocr.close()


def _unchanged(source: str, entry: DocEntry) -> None:
    """Raise if the file's bytes are no longer those its doc id was made from."""
    try:
        digest = sha256_file(Path(source))
    except FileNotFoundError:
        raise ParseError("file disappeared while ingest was running; re-run ingest") from None
    except OSError as exc:
        raise ParseError(f"cannot read ({exc.strerror or exc})") from None
    if digest != entry.raw_hash:
        raise ParseError("file changed while ingest was running; re-run ingest to pick up the new version")


def _truncated(source: str) -> bool:
    with open(source, "rb") as fh:
        fh.seek(0, os.SEEK_END)
        fh.seek(max(0, fh.tell() - 2048))
        return b"%%EOF" not in fh.read()
