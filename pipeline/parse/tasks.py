"""The parse work that runs on executor workers (local processes or cluster nodes).

Two tasks, both pure functions of their arguments, so running one twice (a retry after a worker died)
gives the same result and only the driver writes artifacts:

``ocr_pdf_page``  render one PDF page and OCR it → (lines with boxes in PDF points, mean confidence)
``pdf_ocr_pages`` one PDF's page verdicts → the page numbers whose text layer needs OCR
``ocr_image_file`` OCR a standalone image file (a photographed page) → (lines, confidence, image height)

A document is given as a path (local workers read this machine's disk) or as its bytes (cluster
workers). Each worker process builds one OCR engine, single-threaded, on first use; the rapidocr
engine checks its model files against pinned sha256 before loading them. A task sent to a cluster
carries the driver's :func:`fingerprint` and refuses to run on a worker whose code or libraries
differ, so a cluster run gives the local run's bytes.
"""

from __future__ import annotations

import hashlib
import os
import sys
from importlib import metadata
from pathlib import Path
from typing import Optional, Union

from pipeline.parse.garble import GarbleThresholds
from pipeline.parse.layout import OcrPage
from pipeline.parse.ocr import OcrError, make_engine, ocr_image_lines
from pipeline.parse.ocr.rapid import bundled_model_paths, verify_bundled_models
from pipeline.parse.pdf import page_verdicts
from pipeline.testhooks import task_point

Source = Union[str, bytes]  # a path on the worker's disk, or the document's bytes
EngineSpec = tuple[str, tuple[tuple[str, object], ...]]  # (engine name, sorted constructor kwargs)

MAX_OCR_PIXELS = 12_000_000  # ~A3 at 200 dpi; larger pages are rendered at a lower resolution
# the distributions whose versions change what a page task returns
FINGERPRINT_DISTS = ("pymupdf", "rapidocr", "onnxruntime", "numpy", "opencv-python-headless", "pydantic")

_WORKER: dict = {}  # per process: the engine and the spec it was built from, the verified fingerprint


class WorkerMismatch(OcrError):
    """A worker's code or libraries differ from the driver's: its pages would not be the local run's."""


def engine_spec(name: str, kwargs: dict) -> EngineSpec:
    return name, tuple(sorted(kwargs.items()))


def engine_for(spec: EngineSpec):
    """This process's OCR engine for ``spec``, built (and its models verified) on first use."""
    if _WORKER.get("spec") != spec:
        _WORKER["engine"] = make_engine(spec[0], **dict(spec[1]))
        _WORKER["spec"] = spec
    return _WORKER["engine"]


def init_local_worker(spec: EngineSpec, parent_pid: int) -> None:
    """Local pool worker set-up: die with the parent (a SIGKILLed ingest must not leave OCR workers
    holding its output open), leave Ctrl-C to the parent (no tracebacks from workers), load one engine."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # not Linux: the pool's own shutdown still ends workers
        pass
    if os.getppid() != parent_pid:  # the parent died before the line above took effect
        os._exit(1)
    engine_for(spec)


def fingerprint() -> dict[str, str]:
    """What must be equal on the driver and every worker for a page to come out byte-identical:
    the parse code (a hash of ``pipeline/parse/**.py``), Python and the libraries that touch pixels or text,
    and the bundled OCR models (verified against their pinned sha256)."""
    if "fingerprint" not in _WORKER:
        root = Path(__file__).resolve().parent
        h = hashlib.sha256()
        for path in sorted(root.rglob("*.py")):
            h.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes())
        out = {"parse code": h.hexdigest()[:16], "python": ".".join(map(str, sys.version_info[:3]))}
        for dist in FINGERPRINT_DISTS:
            try:
                out[dist] = metadata.version(dist)
            except metadata.PackageNotFoundError:
                out[dist] = "not installed"
        try:
            verify_bundled_models(bundled_model_paths())
            out["rapidocr models"] = "sha256 verified"
        except OcrError as exc:
            out["rapidocr models"] = str(exc)
        _WORKER["fingerprint"] = out
    return _WORKER["fingerprint"]


def mismatch(expected: dict[str, str], got: dict[str, str]) -> Optional[str]:
    """The first difference between two fingerprints, as ``what: worker has X, driver has Y``."""
    for key, want in expected.items():
        if got.get(key) != want:
            return f"{key}: worker has {got.get(key)!r}, driver has {want!r}"
    return None


def _check(expected: Optional[dict[str, str]]) -> None:
    if expected is None:  # local workers run this very checkout
        return
    if _WORKER.get("checked") != expected:
        diff = mismatch(expected, fingerprint())
        if diff:
            raise WorkerMismatch(f"worker {os.uname().nodename} differs from the ingest ({diff}); "
                                 "install the same examrag checkout on every worker (scripts/setup.sh --cluster)")
        _WORKER["checked"] = expected


def _open(src: Source, password: Optional[str]):
    import pymupdf

    doc = pymupdf.open(src) if isinstance(src, str) else pymupdf.open(stream=src, filetype="pdf")
    if doc.needs_pass:
        doc.authenticate(password or "")
    return doc


def ocr_pdf_page(src: Source, password: Optional[str], number: int, dpi: int, spec: EngineSpec,
                 expected: Optional[dict[str, str]] = None) -> OcrPage:
    """Render page ``number`` (1-based) at ``dpi`` (capped at MAX_OCR_PIXELS) and OCR it: its rows with
    each box mapped back to PDF points."""
    import numpy as np

    _check(expected)
    task_point("ocr", number)
    doc = _open(src, password)
    try:
        page = doc[number - 1]
        # cap the render at MAX_OCR_PIXELS: a poster-sized page at 150 dpi would need gigabytes
        scale = min(dpi / 72.0, (MAX_OCR_PIXELS / max(page.rect.width * page.rect.height, 1.0)) ** 0.5)
        dpi = max(36, int(scale * 72))
        pix = page.get_pixmap(dpi=dpi, alpha=False)
        image = np.frombuffer(pix.samples, dtype=np.uint8).reshape(pix.height, pix.width, pix.n)[:, :, :3]
    finally:
        doc.close()
    return ocr_image_lines(engine_for(spec), np.ascontiguousarray(image)).scaled(72.0 / dpi)


def pdf_ocr_pages(src: Source, password: Optional[str], source: str, th: tuple[int, float, float],
                  expected: Optional[dict[str, str]] = None) -> list[int]:
    """The pages of a PDF whose text layer is not good (``pipeline.parse.pdf.page_verdicts``), so their
    OCR can start before the driver reaches the document. The driver's own verdicts still decide."""
    _check(expected)
    doc = _open(src, password)
    try:
        return [info.number for info, _ in page_verdicts(doc, source, GarbleThresholds(*th)) if info.verdict != "good"]
    finally:
        doc.close()


def ocr_image_file(src: Source, spec: EngineSpec, expected: Optional[dict[str, str]] = None) -> tuple[OcrPage, int]:
    """OCR an image file given by path or bytes: (its rows with boxes in pixels, the image height).
    An unreadable image raises PIL's ``UnidentifiedImageError`` (or OSError), as opening it locally would."""
    import io

    import numpy as np
    from PIL import Image

    _check(expected)
    task_point("image", 1)
    with Image.open(src if isinstance(src, str) else io.BytesIO(src)) as im:
        image = np.asarray(im.convert("RGB"))
    return ocr_image_lines(engine_for(spec), image), image.shape[0]
