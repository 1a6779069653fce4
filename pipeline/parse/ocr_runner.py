"""The OCR runner: sends page OCR to the executor (a local process pool, or a Dask cluster), at most
``2 × slots`` tasks in flight, each bounded by ``task_timeout``; on a cluster it also runs the PDFs'
page verdicts ahead of the driver so the workers stay busy across documents.

A task the executor lost (its worker died, its connection closed, it timed out) fails the whole
document (OcrUnavailable: redone by the next ingest); an OCR error on the page itself stays a page
error. Which exceptions mean "lost" is the executor's to say (``Executor.lost``), by type.
"""

from __future__ import annotations

import hashlib
import os
import threading
import time
from collections import deque
from pathlib import Path
from typing import Optional

from pipeline.errors import one_line
from pipeline.events import track
from pipeline.executors import ClusterError, Executor, make_executor
from pipeline.parse.layout import OcrPage
from pipeline.parse.ocr import OcrError, check_engine
from pipeline.parse.tasks import (engine_spec, fingerprint, init_local_worker, mismatch, ocr_image_file,
                                  ocr_pdf_page, pdf_ocr_pages)
from pipeline.settings import Settings

LOOKAHEAD = 8  # documents whose bytes and verdict task are sent ahead of the pages being OCR'd


class OcrTimeout(OcrError):
    """A page task did not finish within task_timeout."""


class OcrUnavailable(OcrError):
    """A page's task was lost to the executor (timed out, cancelled, its workers died): the document fails
    (and is redone by the next ingest) instead of being kept with the page missing."""


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
            if self._lost(ex, exc):
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

    @staticmethod
    def _lost(ex: Executor, result: object) -> bool:
        """Whether a page task's outcome is the executor failing rather than the page: the runner's own
        time limit, or one of the exception types the executor declares for a task it lost (a dead
        worker, a closed connection, a cancelled future). An OCR error on the page is deterministic and
        stays a page error, as in a local run."""
        return isinstance(result, (OcrTimeout, *ex.lost))

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
            if self._lost(ex, out[n]):
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
