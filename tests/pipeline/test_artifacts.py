"""The shared artifact base, the typed stage status, and a stage's config hash taken from its settings group."""

from __future__ import annotations

import dataclasses
import json

import pytest
from pydantic import ValidationError

from pipeline import stages
from pipeline.models import (CleanDoc, EnrichedDoc, ErrorItem, IndexedDoc, InputFormat, ParsedDoc, StageArtifact,
                             Status)
from pipeline.runner import run_docs
from pipeline.settings import Settings
from pipeline.store import DocEntry, Manifest, StageRecord, Store

ARTIFACTS = (ParsedDoc, CleanDoc, EnrichedDoc, IndexedDoc)


def _parsed(**kw) -> ParsedDoc:
    return ParsedDoc(doc_id="d" * 16, source="raw/查找.md", format=InputFormat.MARKDOWN, title="查找", **kw)


@pytest.mark.parametrize("model", ARTIFACTS)
def test_every_stage_artifact_shares_the_base_and_keeps_its_field_order_on_disk(model):
    assert issubclass(model, StageArtifact)
    fields = {"doc_id": "d" * 16, "source": "a.md", "kind": "note", "format": "md"}
    doc = model.model_validate({k: v for k, v in fields.items() if k in model.model_fields})
    keys = list(json.loads(doc.model_dump_json()))
    assert keys[:3] == ["schema_version", "doc_id", "source"] and keys[-2:] == ["status", "errors"]


def test_a_parsed_artifact_is_written_byte_for_byte_as_before_the_base():
    """The exact text schema 1 has always had (downstream input hashes are hashes of this text)."""
    doc = _parsed(status=Status.PARTIAL, errors=[ErrorItem(file="raw/查找.md", stage="parse", message="x")])
    assert doc.model_dump_json() == (
        '{"schema_version":1,"doc_id":"dddddddddddddddd","source":"raw/查找.md","format":"md","kind":"note",'
        '"title":"查找","pages":[],"blocks":[],"status":"partial",'
        '"errors":[{"file":"raw/查找.md","stage":"parse","message":"x","page":null}]}')
    assert ParsedDoc.model_validate_json(doc.model_dump_json()) == doc


def test_the_input_format_is_typed():
    assert _parsed().format is InputFormat.MARKDOWN
    assert ParsedDoc.model_validate_json(_parsed().model_dump_json()).format is InputFormat.MARKDOWN
    with pytest.raises(ValidationError):
        ParsedDoc.model_validate({"doc_id": "d", "source": "s", "format": "doc"})


def test_stage_status_is_typed_and_written_as_its_value():
    rec = StageRecord(input_hash="i", config_hash="c", code_version="v", output_hash="o", status="partial")
    assert rec.status is Status.PARTIAL and f"{rec.status}" == "partial"
    assert json.loads(rec.model_dump_json())["status"] == "partial"
    with pytest.raises(ValidationError):
        StageRecord(input_hash="i", config_hash="c", code_version="v", output_hash="o", status="done")


def _run_parse(tmp_path, settings: Settings, work) -> StageRecord:
    store = Store(tmp_path / "data")
    manifest = Manifest(documents={"d" * 16: DocEntry(doc_id="d" * 16, sources=["raw/查找.md"], raw_hash="r" * 64)})
    run_docs(store, manifest, "parse", ["d" * 16], work, settings, code_version="t-1", config_extra="+rules", quiet=True)
    return manifest.documents["d" * 16].stages["parse"]


def test_a_stage_config_hash_is_its_settings_group_hash(tmp_path, monkeypatch):
    s = Settings(data_dir=tmp_path)
    rec = _run_parse(tmp_path, s, lambda entry: _parsed())
    assert rec.config_hash == s.group_hash("parse") + "+rules" and rec.status is Status.SUCCESS
    # the registry, not the stage's code, names the group: point parse at another group and its hash follows
    moved = tuple(dataclasses.replace(st, settings_group="index") if st.name == "parse" else st for st in stages.STAGES)
    monkeypatch.setattr(stages, "STAGES", moved)
    rec = _run_parse(tmp_path / "again", s, lambda entry: _parsed())
    assert rec.config_hash == s.group_hash("index") + "+rules" != s.group_hash("parse") + "+rules"


def test_the_runner_reads_status_and_errors_from_the_artifact(tmp_path):
    """An artifact listing errors is never recorded as a success."""
    err = ErrorItem(file="raw/查找.md", stage="parse", message="page 3 unreadable\nsecond line")
    rec = _run_parse(tmp_path, Settings(data_dir=tmp_path), lambda entry: _parsed(errors=[err]))
    assert rec.status is Status.PARTIAL and rec.errors == ["raw/查找.md: parse: page 3 unreadable second line"]
    on_disk = json.loads((tmp_path / "data" / "parsed" / f"{'d' * 16}.json").read_text("utf-8"))
    assert on_disk["status"] == "partial"
