"""Run stages in registry order over a data dir: the one write path (``ingest`` and the per-stage
commands call it).

Under the data-dir lock: sweep what killed writers left, find documents (with a raw dir), run each
requested stage over them, then (when the index stage ran) the syllabus step, which places the whole
index on the syllabus (pipeline/syllabus); save the manifest. Bad files never stop the others; the
result says what happened per file so the caller can print it and choose an exit code.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional, Sequence

from pipeline.models import StageReport, Status
from pipeline.parse.discover import discover
from pipeline.settings import Settings
from pipeline.stages import STAGES, get as get_stage
from pipeline.store import Manifest, Store
from pipeline.syllabus.sources import yaml_candidates
from pipeline.syllabus.stage import run as place_on_syllabus
from pipeline.testhooks import kill_point

STATUS_ORDER = {"failed": 0, "partial": 1, "skipped": 2, "success": 3}  # worst first


@dataclass
class FileLine:
    """One file's outcome over all stages run: its worst status, why it was skipped, its other names."""

    source: str
    status: str
    detail: str = ""
    also_as: list[str] = field(default_factory=list)


@dataclass
class IngestResult:
    reports: list[StageReport]
    manifest: Manifest
    seconds: float

    @property
    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for r in self.reports:
            out.update(r.counts)
        return out

    def files(self) -> list[FileLine]:
        """One line per file, sorted by path, with its worst status over the stages."""
        worst: dict[str, tuple[str, str, str]] = {}
        for rep in self.reports:
            for d in rep.docs:
                st = d.status.value
                if d.source not in worst or STATUS_ORDER[st] < STATUS_ORDER[worst[d.source][0]]:
                    worst[d.source] = (st, d.detail, d.doc_id)
        lines = []
        for source in sorted(worst):
            st, detail, doc_id = worst[source]
            entry = self.manifest.documents.get(doc_id) if doc_id else None
            others = [s for s in entry.sources if s != source] if entry else []
            lines.append(FileLine(source, st, detail if st == "skipped" else "", others))
        return lines

    def error_lines(self) -> list[str]:
        """Every problem as ``file (第N页): stage: cause``, each once, in stage order."""
        lines = [e.line() for rep in self.reports for d in rep.docs for e in d.errors]
        return list(dict.fromkeys(lines))

    def tally(self) -> dict[str, int]:
        out = dict.fromkeys(STATUS_ORDER, 0)
        for f in self.files():
            out[f.status] += 1
        return out


def run_stages(settings: Settings, stages: Sequence[str] = (), raw_dir: Optional[Path] = None, *,
               force: bool = False, quiet: bool = False, abort_on_error: bool = False,
               wait: float = 0.0) -> IngestResult:
    """Run ``stages`` (default: all, in registry order) for the documents under ``raw_dir`` (or every
    known document). Raises LockBusy / ManifestError (one line each) and KeyboardInterrupt; finished
    documents are kept in every case."""
    names = [s.name for s in STAGES if not stages or s.name in stages]
    store = Store(settings.data_dir)
    started = time.monotonic()
    reports: list[StageReport] = []
    with store.lock(wait=wait):
        store.sweep(grace=settings.generation_grace)
        manifest = store.load_manifest()
        if raw_dir is not None:
            doc_ids, problems = discover(raw_dir, store, manifest)
            _syllabus_files_are_not_skipped(problems, manifest)
            store.save_manifest(manifest)
            reports.append(StageReport(stage="discover", docs=problems))
            kill_point("discovered")
        else:
            doc_ids = sorted(manifest.documents)
        for name in names:
            if abort_on_error and any(r.failed for r in reports):
                break
            run = get_stage(name).run
            reports.append(run(store, manifest, doc_ids, settings, force=force, quiet=quiet,
                               abort_on_error=abort_on_error))
        if "index" in names and not (abort_on_error and any(r.failed for r in reports)):
            kill_point("syllabus")
            reports.append(place_on_syllabus(store, manifest, settings, force=force))
        store.save_manifest(manifest)
    return IngestResult(reports, manifest, time.monotonic() - started)


def run_syllabus(settings: Settings, *, force: bool = False, wait: float = 0.0) -> StageReport:
    """The syllabus step alone (``cli.py place``), under the data-dir lock."""
    store = Store(settings.data_dir)
    with store.lock(wait=wait):
        return place_on_syllabus(store, store.load_manifest(), settings, force=force)


def _syllabus_files_are_not_skipped(problems: list, manifest: Manifest) -> None:
    """A ``syllabus.yaml`` is no document for the parse stage, but the syllabus step reads it: its line
    says so instead of "skipped: unsupported file type" (it stays listed in ``manifest.skipped``, where
    the syllabus step finds it)."""
    names = {str(p) for p in yaml_candidates(manifest)}
    for d in problems:
        if d.source in names and d.status == Status.SKIPPED:
            d.status, d.detail = Status.SUCCESS, "syllabus (read by the syllabus step)"
            manifest.skipped[d.source] = "syllabus: read by the syllabus step, not indexed"

