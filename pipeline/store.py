"""Data-dir layout, atomic writes, the manifest, and the data-dir lock.

Layout under ``data_dir``::

    manifest.json              per document: sources, input hash, per-stage record
    parsed/<doc_id>.json       ParsedDoc
    cleaned/<doc_id>.json      CleanDoc (+ <doc_id>.md for a human to read)
    enriched/<doc_id>.json     EnrichedDoc
    index/docs/<doc_id>.json   IndexedDoc (the chunks)
    index/chroma/, index/gen-*/ the two search engines (a BM25 + catalog generation, see catalog.py)
    .lock                      held by the one writer (ingest or a stage command); holds its pid

Crash safety: every file is written to a temp file, fsynced, renamed over the old one, and the
directory fsynced, so a reader sees the old or the new file, never half of one. The manifest records a
stage as done only after that stage's artifact is written this way (runner.py). Temp files left by a
killed writer are swept by the next writer (``sweep``).
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator, Optional, Type, TypeVar

from pydantic import BaseModel, Field

from pipeline import __version__
from pipeline.errors import one_line
from pipeline.hashing import sha256_text
from pipeline.models import SCHEMA_VERSION, ErrorItem, StageArtifact, Status
from pipeline.stages import STAGES, get as get_stage

A = TypeVar("A", bound=StageArtifact)


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
    fsync_dir(path.parent)


def fsync_dir(path: Path) -> None:
    """Make a rename (or new files) in ``path`` durable."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def atomic_write_text(path: Path, text: str) -> None:
    atomic_write_bytes(path, text.encode("utf-8"))


class StageRecord(BaseModel):
    input_hash: str  # hash of what the stage read (raw bytes or the upstream artifact)
    config_hash: str
    code_version: str
    output_hash: str
    status: Status  # written as its value ("success"), as ever
    errors: list[str] = Field(default_factory=list)  # one line each, for people reading manifest.json
    error_items: list[ErrorItem] = Field(default_factory=list)  # the same, structured, re-reported on re-runs
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
    failures: dict[str, str] = Field(default_factory=dict)  # source -> why it could not be read
    skipped: dict[str, str] = Field(default_factory=dict)  # source -> why it was not ingested


class Store:
    """Everything on disk under one data dir."""

    def __init__(self, data_dir: Path):
        self.root = Path(data_dir)

    # paths
    def stage_path(self, stage: str, doc_id: str) -> Path:
        return self.root / get_stage(stage).artifact_dir / f"{doc_id}.json"

    @property
    def manifest_path(self) -> Path:
        return self.root / "manifest.json"

    @property
    def index_dir(self) -> Path:
        return self.root / "index"

    # artifacts
    def write(self, stage: str, doc_id: str, artifact: StageArtifact) -> str:
        """Write an artifact atomically; returns its content hash (the next stage's input hash)."""
        text = artifact.model_dump_json(indent=1)
        atomic_write_text(self.stage_path(stage, doc_id), text)
        return sha256_text(text)

    def read(self, stage: str, doc_id: str, model: Type[A]) -> A:
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
            self.stage_path(stage.name, doc_id).unlink(missing_ok=True)
        (self.root / "cleaned" / f"{doc_id}.md").unlink(missing_ok=True)

    # manifest
    def load_manifest(self) -> Manifest:
        if not self.manifest_path.exists():
            return Manifest()
        try:
            return Manifest.model_validate_json(self.manifest_path.read_text("utf-8"))
        except ValueError as exc:
            raise ManifestError(f"{self.manifest_path} is damaged ({one_line(exc)}); move it away and "
                                "re-run ingest (every document is then redone)") from None

    def save_manifest(self, manifest: Manifest) -> None:
        atomic_write_text(self.manifest_path, manifest.model_dump_json(indent=1))

    def sweep(self, grace: float = 0.0) -> list[Path]:
        """Remove temp files of killed writers, index generations that were never published (a killed
        writer's), and replaced ones retired more than ``grace`` seconds ago (see :func:`prune_generations`).
        Call only while holding ``lock`` (then no other writer owns them); returns what was removed."""
        dirs = [self.root, self.index_dir] + [self.root / s.artifact_dir for s in STAGES]  # never data/raw
        gone = [p for d in dirs if d.is_dir() for p in d.glob(".*.tmp") if p.is_file()]
        for p in gone:
            p.unlink(missing_ok=True)
        current = self.index_dir / "current.json"
        live = json.loads(current.read_text("utf-8")).get("generation") if current.exists() else None
        if self.index_dir.exists():
            gone += prune_generations(self.index_dir, grace, live=live)
        return gone

    @contextmanager
    def lock(self, wait: float = 0.0) -> Iterator[None]:
        """Exclusive lock on the data dir for writers (ingest, stage commands); ``ask`` never takes it,
        it reads the last published index generation.

        A second writer waits up to ``wait`` seconds (0: not at all), then raises :class:`LockBusy`
        naming the holder's pid. The lock is an ``flock``, so the kernel drops it when its holder dies,
        even by SIGKILL: there is never a stale lock to delete by hand."""
        self.root.mkdir(parents=True, exist_ok=True)
        path = self.root / ".lock"
        fh = open(path, "a+")
        deadline = time.monotonic() + wait
        try:
            while True:
                try:
                    fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() >= deadline:
                        fh.seek(0)
                        holder = fh.read().strip() or "unknown"
                        waited = f" after waiting {wait:g}s" if wait else ""
                        raise LockBusy(f"another ingest is writing to {self.root} ({holder}){waited}; let it finish, "
                                       "or pass --wait SECONDS to wait for it") from None
                    time.sleep(0.2)
            fh.seek(0)
            fh.truncate()
            fh.write(f"pid {os.getpid()}, since {time.strftime('%H:%M:%S')}")
            fh.flush()
            yield
        finally:
            fh.close()


RETIRED = "retired.json"  # in the index dir: replaced generation -> when it was replaced (unix time)


def prune_generations(index_dir: Path, grace: float, *, live: Optional[str], retire: tuple[str, ...] = ()) -> list[Path]:
    """Remove index generations no reader should still need; returns them.

    ``retire``: generations that ``live`` has just replaced. They are kept ``grace`` seconds, for readers
    that opened them before the switch: a request in flight in a server, or a replica on shared storage
    (NFS), where a file deleted by another machine is gone even for a process that has it open. A
    generation that was never published (a killed writer's) goes at once. Only the writer (holding the
    data-dir lock) calls this."""
    path = index_dir / RETIRED
    try:
        retired: dict[str, float] = json.loads(path.read_text("utf-8")) if path.exists() else {}
    except ValueError:
        retired = {}
    before = dict(retired)
    now = time.time()
    for name in retire:
        if name != live:
            retired.setdefault(name, now)
    gone = []
    for gen in sorted(index_dir.glob("gen-*")):
        since = retired.get(gen.name)
        if gen.name != live and (since is None or now - since >= grace):
            remove_tree(gen)
            gone.append(gen)
    kept = {k: v for k, v in retired.items() if (index_dir / k).exists()}
    if kept != before:
        atomic_write_text(path, json.dumps(kept, sort_keys=True))
    return gone


def seal_tree(path: Path) -> None:
    """Make a published directory read-only (files 0444, folders 0555): nothing may change it in place."""
    for root, dirs, files in os.walk(path):
        for f in files:
            os.chmod(os.path.join(root, f), 0o444)
    for root, dirs, _ in os.walk(path, topdown=False):
        for d in dirs:
            os.chmod(os.path.join(root, d), 0o555)
    os.chmod(path, 0o555)


def remove_tree(path: Path) -> None:
    """Remove a (possibly sealed) directory tree: folders are made writable first."""
    for root, dirs, _ in os.walk(path):
        for d in dirs:
            try:
                os.chmod(os.path.join(root, d), 0o755)
            except OSError:
                pass
    try:
        os.chmod(path, 0o755)
    except OSError:
        pass
    shutil.rmtree(path, ignore_errors=True)


class LockBusy(RuntimeError):
    pass


class ManifestError(RuntimeError):
    pass
