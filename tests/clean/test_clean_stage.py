"""The clean stage through ``pipeline/clean/stage.py: run()`` with a real Store and Manifest: editing
the rules file re-cleans every document, but only documents whose cleaned output changed get a new
output hash, so the downstream stages (enrich here, index likewise) redo only those."""

from __future__ import annotations

import yaml

from pipeline.clean import stage as clean_stage
from pipeline.clean.core import DEFAULT_RULES_FILE
from pipeline.enrich import stage as enrich_stage
from pipeline.models import Block, CleanDoc, ParsedDoc, Status
from pipeline.runner import input_hash
from pipeline.settings import Settings
from pipeline.store import DocEntry, Manifest, StageRecord, Store

DOCS = {
    "ad": ["栈是后进先出的线性表。", "本资料由小店整理，欢迎选购。"],  # the line the edited rules remove
    "plain": ["队列是先进先出的线性表。"],
    "paper": ["一、单项选择题", "1．栈的特点是\nA．先进先出\nB．后进先出", "2．队列的特点是\nA．先进先出\nB．后进先出"],
}


def _setup(tmp_path):
    store, manifest = Store(tmp_path / "data"), Manifest()
    for name, texts in DOCS.items():
        parsed = ParsedDoc(doc_id=name, source=f"raw/{name}.md", format="md",
                           kind="paper" if name == "paper" else "note", title=name,
                           blocks=[Block(kind="heading", text="第一章", chapter_path=["第一章"], level=1)]
                           + [Block(text=t, chapter_path=["第一章"]) for t in texts])
        out = store.write("parse", name, parsed)
        manifest.documents[name] = DocEntry(doc_id=name, sources=[parsed.source], raw_hash=name * 4, stages={
            "parse": StageRecord(input_hash=name * 4, config_hash="p", code_version="parse-1", output_hash=out,
                                 status="success")})
    rules = tmp_path / "rules.yaml"
    rules.write_text(DEFAULT_RULES_FILE.read_text(encoding="utf-8"), encoding="utf-8")
    return store, manifest, rules


def _run(store, manifest, settings, stage):
    if stage == "clean":
        report = clean_stage.run(store, manifest, sorted(manifest.documents), settings, quiet=True)
    else:
        report = enrich_stage.run(store, manifest, sorted(manifest.documents), settings, quiet=True)
    assert not report.failed
    return {d.doc_id: d.detail for d in report.docs}


def _out(manifest, stage="clean"):
    return {k: e.stages[stage].output_hash for k, e in manifest.documents.items()}


def test_editing_rules_redoes_only_affected_documents(tmp_path):
    store, manifest, rules = _setup(tmp_path)
    settings = Settings.from_flat(data_dir=store.root, rules_file=str(rules), enrich_backend="extractive")
    assert set(_run(store, manifest, settings, "clean").values()) == {"done"}
    assert set(_run(store, manifest, settings, "enrich").values()) == {"done"}
    first, cfg = _out(manifest), {k: e.stages["clean"].config_hash for k, e in manifest.documents.items()}
    assert "小店" in store.read("clean", "ad", CleanDoc).sections[0].text

    # nothing edited: nothing is redone
    assert set(_run(store, manifest, settings, "clean").values()) == {"unchanged"}

    # edit the rules file: a new ad pattern that only the "ad" document contains
    data = yaml.safe_load(rules.read_text(encoding="utf-8"))
    data["ad_patterns"].append("小店整理")
    rules.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")

    assert set(_run(store, manifest, settings, "clean").values()) == {"done"}  # every document re-cleaned …
    second = _out(manifest)
    assert {k for k in first if first[k] != second[k]} == {"ad"}  # … only one output changed
    assert all(e.stages["clean"].config_hash != cfg[k] for k, e in manifest.documents.items())
    cleaned = store.read("clean", "ad", CleanDoc)
    assert "小店" not in cleaned.sections[0].text and cleaned.removed == {"pattern_lines": 1}
    assert "小店" not in (store.root / "cleaned" / "ad.md").read_text(encoding="utf-8")
    assert store.read("clean", "paper", CleanDoc).questions[1].options == {"A": "先进先出", "B": "后进先出"}

    # downstream: enrich's input is clean's output hash, so it redoes the "ad" document only
    assert {k for k, e in manifest.documents.items() if e.stages["enrich"].input_hash != input_hash(e, "enrich")} \
        == {"ad"}
    assert _run(store, manifest, settings, "enrich") == {"ad": "done", "paper": "unchanged", "plain": "unchanged"}


def test_bad_rules_file_fails_the_stage_with_its_name(tmp_path):
    store, manifest, rules = _setup(tmp_path)
    rules.write_text("ad_patterns: ['(未闭合']\n", encoding="utf-8")
    settings = Settings.from_flat(data_dir=store.root, rules_file=str(rules))
    try:
        clean_stage.run(store, manifest, sorted(manifest.documents), settings, quiet=True)
    except ValueError as e:
        assert str(rules) in str(e)
    else:
        raise AssertionError("a bad rules file must be an error")
    assert all("clean" not in e.stages for e in manifest.documents.values())
    assert Status.SUCCESS.value == manifest.documents["ad"].stages["parse"].status
