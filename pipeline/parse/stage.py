"""Parse stage entry point: ``run`` (manifest documents → ParsedDoc), one document at a time through
the runner's incremental loop.

The parts it joins: ``discover`` (raw folder → manifest documents, pipeline/parse/discover.py),
``parse_file`` (a file's format → its reader, pipeline/parse/formats.py) and the OCR runner
(pipeline/parse/ocr_runner.py: page OCR on the local pool or a cluster, time-bounded).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Optional

from pipeline.hashing import sha256_file
from pipeline.models import ErrorItem, InputFormat, ParsedDoc, StageReport, Status
from pipeline.parse.errors import ParseError
from pipeline.parse.formats import input_format, parse_file
from pipeline.parse.ocr_runner import OcrRunner
from pipeline.runner import input_hash, is_current, run_docs
from pipeline.settings import Settings
from pipeline.stages import get as get_stage
from pipeline.store import DocEntry, Manifest, Store

CODE_VERSION = "parse-3"  # 3: blocks carry their line boxes
OCR_FORMATS = {InputFormat.PDF, InputFormat.IMAGE}  # the formats whose pages a cluster OCRs ahead


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
        if doc.format == InputFormat.PDF and _truncated(source):
            doc.errors.append(ErrorItem(file=source, stage="parse", message=(
                "PDF is truncated (no %%EOF at its end: an incomplete download or copy?); "
                "kept what could be read, the rest of the file is missing")))
            doc.status = Status.PARTIAL
        return doc

    try:
        return run_docs(store, manifest, "parse", doc_ids, work, settings, code_version=CODE_VERSION,
                        force=force, quiet=quiet, abort_on_error=abort_on_error)
    finally:
        ocr.close()


def _readable_source(entry: DocEntry) -> Optional[str]:
    return next((s for s in entry.sources if os.path.isfile(s)), None)


def _pdfs_to_parse(store: Store, manifest: Manifest, doc_ids: list[str], settings: Settings,
                   force: bool) -> list[tuple[Path, str]]:
    """(path, sha256) of the PDFs and image files ``run_docs`` will parse, in its order (the others are current)."""
    config, out = get_stage("parse").config_hash(settings), []
    for doc_id in doc_ids:
        entry = manifest.documents[doc_id]
        source = _readable_source(entry)
        if source is None or input_hash(entry, "parse") is None:
            continue
        if input_format(Path(source)) not in OCR_FORMATS:
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
