"""The incremental loop every per-document stage shares.

A document is redone for a stage when its input hash (raw bytes, or the upstream artifacts' hashes),
the stage's config hash (its settings group's hash, :meth:`pipeline.stages.Stage.config_hash`, plus
what else configures it) or the stage's code version changed, when it failed last time, or with
``force``. The manifest is saved after each document, so an interrupted run resumes where it stopped.

Order per document: work → artifact written atomically (store.write) → manifest record saved. A crash
before the record is saved only costs redoing that document; a record never points at a missing or
half-written artifact. Every error message is made one line here, whatever raised it.
"""

from __future__ import annotations

import time
from typing import Callable, Optional

from pipeline.errors import one_line
from pipeline.events import track
from pipeline.models import DocReport, ErrorItem, StageArtifact, StageReport, Status
from pipeline.settings import Settings
from pipeline.stages import get as get_stage, previous
from pipeline.store import DocEntry, Manifest, StageRecord, Store
from pipeline.testhooks import kill_point

WorkFn = Callable[[DocEntry], StageArtifact]


def input_hash(entry: DocEntry, stage: str) -> Optional[str]:
    prev = previous(stage)
    if prev is None:
        return entry.raw_hash
    hashes = []
    for name in (prev, *get_stage(stage).also_reads):
        rec = entry.stages.get(name)
        if rec is None or rec.status == Status.FAILED:
            return None
        hashes.append(rec.output_hash)
    return "+".join(hashes)


def is_current(store: Store, entry: DocEntry, stage: str, config_hash: str, code_version: str) -> bool:
    rec = entry.stages.get(stage)
    return bool(rec and rec.status != Status.FAILED and rec.input_hash == input_hash(entry, stage)
                and rec.config_hash == config_hash and rec.code_version == code_version
                and store.stage_path(stage, entry.doc_id).exists())


def run_docs(store: Store, manifest: Manifest, stage: str, doc_ids: list[str], work: WorkFn, settings: Settings, *,
             code_version: str, config_extra: str = "", force: bool = False, quiet: bool = False,
             abort_on_error: bool = False) -> StageReport:
    """Run ``work`` on each document of ``stage`` that is not current. Its config hash is the stage's
    settings group's hash (the registry names the group) followed by ``config_extra``."""
    config_hash = get_stage(stage).config_hash(settings, config_extra)
    report = StageReport(stage=stage)
    started = time.monotonic()
    bar = track(stage, len(doc_ids), "files", enabled=not quiet)
    for i, doc_id in enumerate(doc_ids):
        entry = manifest.documents[doc_id]
        source = entry.sources[0] if entry.sources else doc_id
        bar.update(i, source)
        in_hash = input_hash(entry, stage)
        if in_hash is None:
            report.docs.append(DocReport(doc_id=doc_id, source=source, status=Status.SKIPPED,
                                         detail=f"not run: {previous(stage)} failed"))
            continue
        if not force and is_current(store, entry, stage, config_hash, code_version):
            rec = entry.stages[stage]
            report.docs.append(DocReport(doc_id=doc_id, source=source, status=rec.status,
                                         errors=rec.error_items, detail="unchanged"))
            continue
        try:
            artifact = work(entry)
            status = artifact.status
            errors: list[ErrorItem] = list(artifact.errors)
            for e in errors:
                e.message = one_line(e.message)
            if errors and status == Status.SUCCESS:  # never success while errors are listed
                status = Status.PARTIAL
                artifact.status = status
            kill_point(f"{stage}:before_write")
            out_hash = store.write(stage, doc_id, artifact)
            kill_point(f"{stage}:after_write")
        except KeyboardInterrupt:
            raise
        except Exception as exc:  # one bad document never stops the others
            status, out_hash = Status.FAILED, ""
            errors = [ErrorItem(file=source, stage=stage, message=one_line(exc))]
        entry.stages[stage] = StageRecord(input_hash=in_hash, config_hash=config_hash, code_version=code_version,
                                          output_hash=out_hash, status=status,
                                          errors=[e.line() for e in errors], error_items=errors,
                                          finished_at=time.time())
        store.save_manifest(manifest)
        report.docs.append(DocReport(doc_id=doc_id, source=source, status=status, errors=errors, detail="done"))
        if abort_on_error and status == Status.FAILED:
            break
    bar.close()
    report.seconds = round(time.monotonic() - started, 3)
    return report
