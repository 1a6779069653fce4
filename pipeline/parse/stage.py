"""Parse stage entry points: ``discover`` (raw dir → manifest entries) and ``run`` (→ ParsedDoc).

Document ids are the first 16 hex digits of the sha256 of the raw bytes: the same file under two
names is one document with two sources; a changed file is a new document.
"""

from __future__ import annotations

import concurrent.futures as cf
import errno
import hashlib
import os
import re
import stat
import threading
import time
from collections import deque
from pathlib import Path
from typing import Optional

from pipeline.errors import one_line
from pipeline.events import track
from pipeline.hashing import sha256_file
from pipeline.executors import ClusterError, Executor, make_executor
from pipeline.models import Block, DocReport, ErrorItem, PageInfo, ParsedDoc, StageReport, Status
from pipeline.parse.garble import GarbleThresholds
from pipeline.parse.headings import HeadingPath, title_from_filename
from pipeline.parse.ocr import OcrError, check_engine
from pipeline.parse.office import OFFICE_SUFFIXES, parse_office
from pipeline.parse.errors import ParseError
from pipeline.parse.layout import OcrPage, text_lines
from pipeline.parse.pdf import parse_pdf
from pipeline.parse.tasks import (engine_spec, fingerprint, init_local_worker, mismatch, ocr_image_file,
                                  ocr_pdf_page, pdf_ocr_pages)
from pipeline.parse.text import decode_text, parse_markdown, parse_plain
from pipeline.runner import input_hash, is_current, run_docs
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


LOOKAHEAD = 8  # documents whose bytes and verdict task are sent ahead of the pages being OCR'd


class OcrTimeout(OcrError):
    """A page task did not finish within task_timeout."""


class OcrUnavailable(OcrError):
    """A page's task was lost to the executor (timed out, cancelled, its workers died): the document fails
    (and is redone by the next ingest) instead of being kept with the page missing."""


def _lost(result: object) -> bool:
    """Whether a page task's outcome is the executor failing rather than the page (an OCR error on the
    page is deterministic and stays a page error, as in a local run)."""
    import asyncio

    return isinstance(result, (OcrTimeout, cf.CancelledError, asyncio.CancelledError)) or \
        type(result).__name__ in ("KilledWorker", "CommClosedError", "FutureCancelledError")


class OcrRunner:
    """Sends OCR work to the executor (``EXAMRAG_EXECUTOR``): a local process pool by default, or a
    Dask cluster. Nothing is started before the first OCR page, so text-only ingests never pay for it.

    Per page, one task renders and OCRs it (``pipeline.parse.tasks.ocr_pdf_page``); at most
    ``2 × slots`` tasks are in flight, and a page whose task has not answered ``task_timeout`` seconds
    after it was sent fails its document (OcrUnavailable: redone by the next ingest), so no page holds an
    ingest forever. An OCR error on the page itself stays a page error, as in a local run.
    On a cluster, :meth:`prefetch` also runs each PDF's page verdicts as a task and sends its OCR pages
    ahead of the driver, so the cluster is kept busy across documents; what the driver's own verdicts
    ask for decides what is used, so the result is the local run's."""

    def __init__(self, settings: Settings, executor: Optional[Executor] = None):
        self.settings = settings
        self._executor = executor
        self._spec = engine_spec(settings.parse.ocr_engine, engine_kwargs(settings, threads=1))
        self._expected: Optional[dict] = None  # the driver's fingerprint, sent with cluster tasks
        self._lock = threading.Lock()
        self._prefetched: dict[tuple[str, int], tuple[object, float]] = {}  # (path, page) -> (future, sent at)
        self._shared: dict[str, object] = {}  # path -> what tasks read the document from
        self._ready: dict[str, threading.Event] = {}  # path -> set when its prefetched pages are all sent
        self._inflight: list = []
        self._stop = threading.Event()
        self._feeder: Optional[threading.Thread] = None

    def image_file(self, path: Path) -> tuple[OcrPage, int]:
        """OCR a standalone image file: (its rows with boxes in pixels, the image height). In this
        process with the local executor (as ever); as a task (prefetched when possible) on a cluster."""
        if self.settings.executor.kind == "local":
            return ocr_image_file(str(path), self._spec)
        ex = self.executor()
        fut, sent = self._take_prefetched(path, [0]).get(0, (None, 0.0))
        if fut is None:
            fut, sent = ex.submit(ocr_image_file, self._share(ex, path), self._spec, self._expected), time.monotonic()
        timeout = self._timeout()
        try:
            return fut.result(timeout=max(0.0, sent + timeout - time.monotonic()))
        except TimeoutError:
            fut.cancel()
            raise OcrUnavailable(f"no answer from the OCR task within {timeout:g}s (task_timeout) ({ex.address}); "
                                 "the document is left for the next ingest to retry") from None
        except Exception as exc:
            if _lost(exc):
                raise OcrUnavailable(f"OCR did not complete ({ex.address}: {one_line(exc, 160)}); "
                                     "the document is left for the next ingest to retry") from None
            raise

    def executor(self) -> Executor:
        """The executor, started on first use. Raises ClusterError (one line naming the address)."""
        if self._executor is None:
            g = self.settings.executor
            if g.kind == "local" and g.ocr_workers > 1:
                # a setup error (paddleocr not installed, empty model dir) as one clear line here,
                # not as "a child process terminated abruptly" for every page
                check_engine(self.settings.parse.ocr_engine, **engine_kwargs(self.settings, 1))
            self._executor = make_executor(self.settings, initializer=init_local_worker,
                                           initargs=(self._spec, os.getpid()))
        if self._executor.remote and self._expected is None:
            self._expected = self._check_workers(self._executor)
        return self._executor

    def _check_workers(self, ex) -> dict:
        """The driver's fingerprint, after checking it against every worker now in the cluster."""
        mine = fingerprint()
        if "verified" not in mine.get("rapidocr models", "") and self.settings.parse.ocr_engine == "rapidocr":
            raise ClusterError(mine["rapidocr models"])
        run = getattr(ex, "run_on_workers", None)
        for worker, theirs in (run(fingerprint) if run else {}).items():
            diff = mismatch(mine, theirs)
            if diff:
                raise ClusterError(f"worker {worker} of the cluster at {ex.address} differs from this ingest ({diff}); "
                                   "install the same examrag checkout on every worker (scripts/setup.sh --cluster)")
        return mine

    def _window(self, ex) -> int:
        return 2 * ex.slots()

    def _timeout(self) -> float:
        return self.settings.executor.task_timeout

    def pdf_pages(self, path: Path, numbers: list[int]) -> dict[int, OcrPage | BaseException]:
        """OCR the given pages: each page number → its OcrPage, or the exception its task raised
        (a crashed worker or a timeout fails that page, not the document)."""
        ex = self.executor()
        pending = self._take_prefetched(path, numbers)
        queue = [n for n in numbers if n not in pending]
        out: dict[int, OcrPage | BaseException] = {}
        cfg = self.settings.parse
        timeout = self._timeout()
        bar = track("ocr", len(numbers), "pages")
        bar.update(0, path.name)
        while queue or pending:
            while queue and len(pending) < self._window(ex):
                src = self._share(ex, path)
                n = queue.pop(0)
                pending[n] = (ex.submit(ocr_pdf_page, src, cfg.pdf_password, n, cfg.ocr_dpi, self._spec, self._expected),
                              time.monotonic())
            done = [n for n, (fut, _) in pending.items() if fut.done()]
            if not done:
                first_deadline = min(sent for _, sent in pending.values()) + timeout
                ex.wait_first([fut for fut, _ in pending.values()], max(0.0, first_deadline - time.monotonic()))
                now = time.monotonic()
                for n, (fut, sent) in list(pending.items()):
                    if not fut.done() and now >= sent + timeout:
                        fut.cancel()
                        del pending[n]
                        out[n] = OcrTimeout(f"no answer from the OCR task within {timeout:g}s (task_timeout)")
                bar.update(len(out), path.name)
                continue
            for n in done:
                fut, _ = pending.pop(n)
                try:
                    out[n] = fut.result()
                except Exception as exc:  # a crashed worker fails that page, not the document
                    out[n] = exc
            bar.update(len(out), path.name)
        bar.close()
        for n in numbers:  # the cluster, not the page, failed: the whole document is retried next time
            if _lost(out[n]):
                raise OcrUnavailable(f"OCR of page {n} did not complete ({ex.address}: {one_line(out[n], 160)}); "
                                     "the document is left for the next ingest to retry")
        return {n: out[n] for n in numbers}

    def _take_prefetched(self, path: Path, numbers: list[int]) -> dict[int, tuple[object, float]]:
        """The prefetched tasks (future, sent at) of these pages of ``path``, once the prefetcher has
        sent all it will for it; pages it did not send are absent."""
        key = str(path)
        ready = self._ready.get(key)
        if ready is not None:
            ready.wait()
        with self._lock:
            return {n: self._prefetched.pop((key, n)) for n in numbers if (key, n) in self._prefetched}

    def _share(self, ex, path: Path):
        key = str(path)
        with self._lock:
            if key not in self._shared:
                self._shared[key] = ex.share(path)
            return self._shared[key]

    def done_with(self, path: Path) -> None:
        """Forget a document: its bytes and any prefetched page its driver-side verdicts did not use."""
        key = str(path)
        with self._lock:
            self._shared.pop(key, None)
            for k in [k for k in self._prefetched if k[0] == key]:
                self._prefetched.pop(k)[0].cancel()

    def prefetch(self, docs: list[tuple[Path, str]]) -> None:
        """On a cluster, start sending the OCR pages of these PDFs ((path, sha256 of its bytes), in the
        order the driver will parse them) in a background thread. No-op for the local executor."""
        ex = self.executor()
        if not ex.remote or not docs:
            return
        for path, _ in docs:
            self._ready[str(path)] = threading.Event()
        self._feeder = threading.Thread(target=self._feed, args=(ex, docs), name="ocr-prefetch", daemon=True)
        self._feeder.start()

    def _feed(self, ex, docs: list[tuple[Path, str]]) -> None:
        cfg = self.settings.parse
        th = (cfg.garble_min_chars, cfg.garble_max_bad_ratio, cfg.garble_min_cjk_ratio)
        timeout = self._timeout()
        todo = iter(docs)
        ahead: deque = deque()  # (path, verdict future, sent at): verdicts run a few documents ahead
        try:
            while not self._stop.is_set():
                while len(ahead) < min(max(2, ex.slots()), LOOKAHEAD):
                    nxt = next(todo, None)
                    if nxt is None:
                        break
                    path, raw_hash = nxt
                    try:
                        data = path.read_bytes()
                    except OSError:
                        data = b""
                    if hashlib.sha256(data).hexdigest() != raw_hash:  # changed since discovery: the driver says so
                        self._ready[str(path)].set()
                        continue
                    src = ex.share(path, data)
                    with self._lock:
                        self._shared[str(path)] = src
                    verdicts = None  # an image file is one page: straight to OCR
                    if path.suffix.lower() == ".pdf":
                        verdicts = ex.submit(pdf_ocr_pages, src, cfg.pdf_password, str(path), th, self._expected)
                    ahead.append((path, verdicts, time.monotonic()))
                if not ahead:
                    return
                path, verdicts, sent = ahead.popleft()
                try:
                    need = verdicts.result(timeout=max(0.0, sent + timeout - time.monotonic())) if verdicts else [0]
                except Exception:  # the driver's parse reports the problem; its pages are sent then
                    need = []
                src = self._shared.get(str(path))
                for n in need:  # page numbers from 1; 0 is an image file
                    self._wait_room(ex)
                    if self._stop.is_set() or src is None:
                        return
                    fut = (ex.submit(ocr_pdf_page, src, cfg.pdf_password, n, cfg.ocr_dpi, self._spec, self._expected)
                           if n else ex.submit(ocr_image_file, src, self._spec, self._expected))
                    with self._lock:
                        self._prefetched[(str(path), n)] = (fut, time.monotonic())
                        self._inflight.append(fut)
                if not need:
                    with self._lock:
                        self._shared.pop(str(path), None)
                self._ready[str(path)].set()
        finally:
            for ev in self._ready.values():  # never leave the driver waiting
                ev.set()

    def _wait_room(self, ex) -> None:
        while not self._stop.is_set():
            with self._lock:
                self._inflight = [f for f in self._inflight if not f.done()]
                busy = list(self._inflight)
            if len(busy) < self._window(ex):
                return
            ex.wait_first(busy, 1.0)

    def close(self) -> None:
        self._stop.set()
        if self._feeder is not None:
            self._feeder.join(timeout=10)
        with self._lock:
            for fut, _ in self._prefetched.values():
                fut.cancel()
            self._prefetched.clear()
            self._shared.clear()
        if self._executor is not None:
            self._executor.close()
            self._executor = None


def engine_kwargs(settings: Settings, threads: Optional[int]) -> dict:
    """Constructor arguments of the configured OCR engine."""
    kw: dict = {"threads": threads}
    if settings.parse.ocr_engine == "paddleocr":
        kw.update(det_dir=settings.parse.paddle_det_dir, rec_dir=settings.parse.paddle_rec_dir)
    return kw


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


def run(store: Store, manifest: Manifest, doc_ids: list[str], settings: Settings, *, force: bool = False,
        quiet: bool = False, abort_on_error: bool = False) -> StageReport:
    """Parse each changed document. With ``executor=dask`` the cluster is reached first (ClusterError,
    one line naming the address, when it cannot be) and the PDFs' OCR pages are sent ahead."""
    ocr = OcrRunner(settings)
    if settings.executor.kind != "local":
        try:
            ocr.executor()
        except BaseException:
            ocr.close()
            raise
        ocr.prefetch(_pdfs_to_parse(store, manifest, doc_ids, settings, force))

    def work(entry: DocEntry) -> ParsedDoc:
        source = _readable_source(entry)
        if source is None:
            raise ParseError(f"file disappeared while ingest was running ({entry.sources[0]}); re-run ingest")
        try:
            doc = parse_file(Path(source), source, entry.doc_id, settings, ocr)
        except Exception as exc:
            _unchanged(source, entry)  # a file replaced mid-parse explains the failure better
            if isinstance(exc, OSError):
                raise ParseError(f"cannot read ({exc.strerror or exc})") from exc
            raise
        finally:
            ocr.done_with(Path(source))
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


def _readable_source(entry: DocEntry) -> Optional[str]:
    return next((s for s in entry.sources if os.path.isfile(s)), None)


def _pdfs_to_parse(store: Store, manifest: Manifest, doc_ids: list[str], settings: Settings,
                   force: bool) -> list[tuple[Path, str]]:
    """(path, sha256) of the PDFs and image files ``run_docs`` will parse, in its order (the others are current)."""
    config, out = settings.group_hash("parse"), []
    for doc_id in doc_ids:
        entry = manifest.documents[doc_id]
        source = _readable_source(entry)
        if source is None or input_hash(entry, "parse") is None:
            continue
        if Path(source).suffix.lower() not in {".pdf"} | IMAGE_SUFFIXES:
            continue
        if force or not is_current(store, entry, "parse", config, CODE_VERSION):
            out.append((Path(source), entry.raw_hash))
    return out


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
