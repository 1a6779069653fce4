"""Clean stage entry point: ParsedDoc → CleanDoc by the ordered rules in ``pipeline.clean.core``.

The rules file's hash is part of this stage's config hash (with the ``clean`` settings group's): editing it re-cleans, and only documents whose
cleaned output actually changed have a new output hash, so only those are re-enriched and re-indexed.
"""

from __future__ import annotations

from pathlib import Path

from pipeline.clean.core import clean_document, load_rules, render_markdown, rules_hash
from pipeline.models import CleanDoc, ParsedDoc, StageReport
from pipeline.runner import run_docs
from pipeline.settings import Settings
from pipeline.store import DocEntry, Manifest, Store, atomic_write_text

CODE_VERSION = "clean-3"  # 2: booklets, several papers per file, Question.sources, markup, block joining; 3: pipe tables without outer pipes keep their rows


def run(store: Store, manifest: Manifest, doc_ids: list[str], settings: Settings, *, force: bool = False,
        quiet: bool = False, abort_on_error: bool = False) -> StageReport:
    rules = load_rules(Path(settings.clean.rules_file) if settings.clean.rules_file else None)

    def work(entry: DocEntry) -> CleanDoc:
        parsed = store.read("parse", entry.doc_id, ParsedDoc)
        cleaned = clean_document(parsed, rules)
        atomic_write_text(store.root / "cleaned" / f"{entry.doc_id}.md", render_markdown(cleaned))
        return cleaned

    return run_docs(store, manifest, "clean", doc_ids, work, settings, config_extra=rules_hash(rules),
                    code_version=CODE_VERSION, force=force, quiet=quiet, abort_on_error=abort_on_error)
