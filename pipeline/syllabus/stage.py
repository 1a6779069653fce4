"""The syllabus step: find the syllabus, place every chunk of the live index generation on it, write the map.

It runs after the index stage in ``ingest`` and on its own (``cli.py place``), under the data-dir lock.
Unlike the four per-document stages it works on the whole index at once, so it keeps its own record:

    syllabus/tree.json       the Syllabus (its content hash is what placement depends on)
    syllabus/placement-<key>.json  PlacementSet: every chunk's places on the tree (named by its key)
    syllabus/map.json        SyllabusMap: per node its questions by year, its material, the gaps; names
                             the placement file it was built from (written last: the switch)

The tree is re-read only when the syllabus input changed (the syllabus file's bytes, or the parse
outputs of the documents); placement is redone only when its key changed: the tree hash, the rules
hash, this code's version and the index generation's chunk set. Without a syllabus the three files are
removed, so nothing stale is read, and chapter filters fall back to headings.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Optional

from pipeline.hashing import sha256_file, sha256_text
from pipeline.index.catalog import Catalog, current_generation
from pipeline.models import DocReport, ErrorItem, StageReport, Status
from pipeline.settings import Settings
from pipeline.store import Manifest, Store, atomic_write_text
from pipeline.syllabus.models import (MAP, RECORD, TREE, PlacementSet, Syllabus, SyllabusMap, placement_name,
                                      syllabus_dir)
from pipeline.syllabus.place import PLACEMENT_VERSION, place
from pipeline.syllabus.rules import load_rules, rules_hash
from pipeline.syllabus.sources import find_syllabus, yaml_candidates
from pipeline.syllabus.summary import build_map
from pipeline.testhooks import kill_point

def _tree_input_key(store: Store, manifest: Manifest, explicit: Optional[Path], rules_digest: str) -> str:
    """Everything the tree is read from: the explicit file's bytes, YAML candidates' bytes, and every
    document's sources and parse output (a renamed or re-parsed document may be, or stop being, the syllabus)."""
    parts = [rules_digest]
    for path in ([explicit] if explicit else []) + yaml_candidates(manifest):
        parts.append(f"{path}:{sha256_file(path) if path.is_file() else 'missing'}")
    for doc_id in sorted(manifest.documents):
        entry = manifest.documents[doc_id]
        rec = entry.stages.get("parse")
        parts.append(f"{doc_id}:{rec.output_hash if rec else ''}:{'|'.join(entry.sources)}")
    return sha256_text("\n".join(parts))


def _read_json(path: Path) -> Optional[dict]:
    try:
        return json.loads(path.read_text("utf-8"))
    except (OSError, ValueError):
        return None


def run(store: Store, manifest: Manifest, settings: Settings, *, force: bool = False) -> StageReport:
    """Read (or reuse) the tree, then place (or reuse the placement). Never raises for bad input: a bad
    syllabus or rules file is one error line in the report."""
    started = time.monotonic()
    report = StageReport(stage="syllabus")
    out = syllabus_dir(store.root)
    out.mkdir(parents=True, exist_ok=True)
    for tmp in out.glob(".*.tmp"):  # a killed writer's (the caller holds the data-dir lock)
        tmp.unlink(missing_ok=True)
    g = settings.syllabus
    try:
        rules = load_rules(Path(g.rules_file) if g.rules_file else None)
    except ValueError as exc:
        report.docs.append(DocReport(doc_id="", source=g.rules_file or "rules", status=Status.FAILED,
                                     errors=[ErrorItem(file=g.rules_file or "rules", stage="syllabus", message=str(exc))]))
        return report
    explicit = Path(g.file) if g.file else None
    r_hash = rules_hash(rules)
    record = _read_json(out / RECORD) or {}
    input_key = _tree_input_key(store, manifest, explicit, r_hash)
    syllabus: Optional[Syllabus] = None
    problems: list[str] = []
    if not force and record.get("input_key") == input_key and (out / TREE).exists():
        syllabus = Syllabus.model_validate_json((out / TREE).read_text("utf-8"))
        problems = record.get("problems", [])
    else:
        syllabus, problems = find_syllabus(store, manifest, rules, explicit)
        if syllabus is None:
            for path in [out / TREE, out / MAP, *out.glob("placement-*.json")]:
                path.unlink(missing_ok=True)
        else:
            atomic_write_text(out / TREE, syllabus.model_dump_json(indent=1))
        record = {"input_key": input_key, "problems": problems}
        atomic_write_text(out / RECORD, json.dumps(record, ensure_ascii=False))
    errors = [ErrorItem(file=p.split(": ", 1)[0], stage="syllabus", message=p.split(": ", 1)[-1]) for p in problems]
    if syllabus is None:
        if errors:
            report.docs.append(DocReport(doc_id="", source=errors[0].file, status=Status.FAILED, errors=errors))
        report.counts["syllabus_nodes"] = 0
        report.seconds = round(time.monotonic() - started, 3)
        return report
    meta = current_generation(store.index_dir)
    generation = meta.get("generation", "") if meta else ""
    key = sha256_text("\n".join([syllabus.content_hash, r_hash, PLACEMENT_VERSION, (meta or {}).get("ids_hash", "")]))
    old = _read_json(out / MAP)
    # a placement file gone (deleted by hand, an older run's cleanup) is redone, or every filter would fail
    if force or not old or old.get("key") != key or not (out / placement_name(key)).exists():
        chunks = Catalog(store.index_dir / generation / "chunks.sqlite").all_chunks() if generation else []
        t0 = time.monotonic()
        placed = place(syllabus, chunks, rules)
        placement = PlacementSet(key=key, syllabus_hash=syllabus.content_hash, rules_hash=r_hash,
                                 generation=generation, chunks=placed, seconds=round(time.monotonic() - t0, 3))
        atomic_write_text(out / placement_name(key), placement.model_dump_json())
        kill_point("syllabus:placed")
        atomic_write_text(out / MAP, build_map(syllabus, placement, key).model_dump_json())
        for old in out.glob("placement-*.json"):  # a reader that opened the old map reopens (view.py)
            if old.name != placement_name(key):
                old.unlink(missing_ok=True)
        detail = "placed"
    else:
        detail = "unchanged"
    summary = SyllabusMap.model_validate_json((out / MAP).read_text("utf-8"))
    counts = syllabus.counts()
    status = Status.PARTIAL if errors else Status.SUCCESS
    report.docs.append(DocReport(doc_id=syllabus.doc_id or "", source=syllabus.source, status=status, errors=errors,
                                 detail=f"{detail}: {counts['chapter']} chapters, {counts['section']} sections"))
    report.counts.update({"syllabus_nodes": sum(counts.values()), "syllabus_chapters": counts["chapter"],
                          "placed_questions": summary.counts.get("questions_placed", 0),
                          "placed_chunks": summary.counts.get("chunks_placed", 0)})
    report.seconds = round(time.monotonic() - started, 3)
    return report
