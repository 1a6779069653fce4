"""The stage registry: the one place that says which stages exist, in which order, where each writes
its per-document artifact, which settings group configures it, and where its ``run`` lives.

Store (artifact folders), runner (a stage's input is the previous stage's output), ingest and the
CLI (one command per stage) all read :data:`STAGES`. ``run`` is named by an import path and loaded on
first use, so this module sits on the bottom floor: it imports no stage, and ``cli.py --help`` loads
none of them.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Optional, Protocol

if TYPE_CHECKING:
    from pipeline.models import StageReport
    from pipeline.settings import Settings
    from pipeline.store import Manifest, Store


class StageRun(Protocol):
    def __call__(self, store: "Store", manifest: "Manifest", doc_ids: list[str], settings: "Settings", *,
                 force: bool = False, quiet: bool = False, abort_on_error: bool = False) -> "StageReport": ...


@dataclass(frozen=True)
class Stage:
    name: str
    artifact_dir: str  # under the data dir, one ``<doc_id>.json`` per document
    settings_group: str  # the group of :class:`pipeline.settings.Settings` whose hash is this stage's config
    entry: str  # "module:function" of its ``run(store, manifest, doc_ids, settings, ...) -> StageReport``
    summary: str
    # artifacts it reads besides its predecessor's, so a change in them alone redoes it (the index stage
    # places chunks on the parsed line boxes: a re-parse that changes only boxes must re-index)
    also_reads: tuple[str, ...] = ()

    def config_hash(self, settings: "Settings", extra: str = "") -> str:
        """This stage's config hash: the hash of its settings group (and of the groups that group uses),
        then ``extra``, what else configures it (a rules file's hash, a prompt or tokenizer version)."""
        return settings.group_hash(self.settings_group) + extra

    @property
    def run(self) -> StageRun:
        module, func = self.entry.split(":")
        return getattr(importlib.import_module(module), func)


STAGES: tuple[Stage, ...] = (
    Stage("parse", "parsed", "parse", "pipeline.parse.stage:run", "read PDFs (text layer or OCR), images, notes"),
    Stage("clean", "cleaned", "clean", "pipeline.clean.stage:run", "strip headers/footers, split questions, rewrite tables"),
    Stage("enrich", "enriched", "enrich", "pipeline.enrich.stage:run", "section summaries and keywords"),
    Stage("index", "index/docs", "index", "pipeline.index.stage:run", "chunks, BM25 and vectors", ("parse",)),
)
NAMES: tuple[str, ...] = tuple(s.name for s in STAGES)


def get(name: str) -> Stage:
    for s in STAGES:
        if s.name == name:
            return s
    raise KeyError(f"no stage {name!r}; stages: {', '.join(NAMES)}")


def previous(name: str) -> Optional[str]:
    """The stage whose output ``name`` reads (None for the first, which reads the raw file)."""
    i = NAMES.index(name)
    return NAMES[i - 1] if i else None
