"""Data-dir layout, atomic writes, the manifest, and the data-dir lock.

Layout under ``data_dir``::

    manifest.json              per document: sources, input hash, per-stage record
    parsed/<doc_id>.json       ParsedDoc
    cleaned/<doc_id>.json      CleanDoc (+ <doc_id>.md for a human to read)
    enriched/<doc_id>.json     EnrichedDoc
    index/docs/<doc_id>.json   IndexedDoc (the chunks)
    index/chroma/, index/bm25/ the two search engines
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator, Optional, Type, TypeVar

from pydantic import BaseModel, Field

from pipeline import __version__
from pipeline.models import SCHEMA_VERSION

STAGES = ("parse", "clean", "enrich", "index")
STAGE_DIRS = {"parse": "parsed", "clean": "cleaned", "enrich": "enriched", "index": "index/docs"}
T = TypeVar("T", bound=BaseModel)


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 16), b""):
            h.update(block)
    return h.hexdigest()


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Write via a temp file in the same directory, fsync, then rename: never a half file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def atomic_write_text(path: Path, text: str) -> None:
    atomic_write_bytes(path, text.encode("utf-8"))


class StageRecord(BaseModel):
    input_hash: str  # hash of what the stage read (raw bytes or the upstream artifact)
    config_hash: str
    code_version: str
    output_hash: str
    status: str
    errors: list[str] = Field(default_factory=list)
    finished_at: float = 0.0


class DocEntry(BaseModel):
    doc_id: str
    sources: list[str]  # every path (as given to ingest) holding these bytes
    raw_hash: str
    stages: dict[str, StageRecord] = Field(default_factory=dict)


class Manifest(BaseModel):
    schema_version: int = SCHEMA_VERSION
    code_version: str = __version__
    documents: dict[str, DocEntry] = Field(default_factory=dict)
    failures: dict[str, str] = Field(default_factory=dict)  # source -> last error line


class Store:
    """Everything on disk under one data dir."""

    def __init__(self, data_dir: Path):
        self.root = Path(data_dir)

    # paths
    def stage_path(self, stage: str, doc_id: str) -> Path:
        return self.root / STAGE_DIRS[stage] / f"{doc_id}.json"

    @property
    def manifest_path(self) -> Path:
        return self.root / "manifest.json"

    @property
    def index_dir(self) -> Path:
        return self.root / "index"

    # artifacts
    def write(self, stage: str, doc_id: str, artifact: BaseModel) -> str:
        """Write an artifact atomically; returns its content hash (the next stage's input hash)."""
        text = artifact.model_dump_json(indent=1)
        atomic_write_text(self.stage_path(stage, doc_id), text)
        return sha256_text(text)

    def read(self, stage: str, doc_id: str, model: Type[T]) -> T:
        path = self.stage_path(stage, doc_id)
        data = json.loads(path.read_text("utf-8"))
        if data.get("schema_version") != SCHEMA_VERSION:
            raise ValueError(f"{path}: schema_version {data.get('schema_version')} is not {SCHEMA_VERSION}; re-run with --force")
        return model.model_validate(data)

    def artifact_hash(self, stage: str, doc_id: str) -> Optional[str]:
        path = self.stage_path(stage, doc_id)
        return sha256_text(path.read_text("utf-8")) if path.exists() else None

    def remove_doc(self, doc_id: str) -> None:
        for stage in STAGES:
            self.stage_path(stage, doc_id).unlink(missing_ok=True)
        (self.root / "cleaned" / f"{doc_id}.md").unlink(missing_ok=True)

    # manifest
    def load_manifest(self) -> Manifest:
        if not self.manifest_path.exists():
            return Manifest()
        return Manifest.model_validate_json(self.manifest_path.read_text("utf-8"))

    def save_manifest(self, manifest: Manifest) -> None:
        atomic_write_text(self.manifest_path, manifest.model_dump_json(indent=1))

    @contextmanager
    def lock(self, wait: bool = True, timeout: float = 600.0) -> Iterator[None]:
        """Exclusive lock on the data dir for writers; readers (ask) never take it."""
        self.root.mkdir(parents=True, exist_ok=True)
        fh = open(self.root / ".lock", "w")
        start = time.monotonic()
        try:
            while True:
                try:
                    fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if not wait or time.monotonic() - start > timeout:
                        raise LockBusy(f"{self.root}: another examrag ingest is running (lock {self.root / '.lock'})")
                    time.sleep(0.5)
            yield
        finally:
            fh.close()


class LockBusy(RuntimeError):
    pass
