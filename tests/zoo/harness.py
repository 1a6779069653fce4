"""Running ``cli.py`` the way a student does (a subprocess), pausing or killing it at named points
(``pipeline/testhooks.py``), and checking that the index is whole afterwards."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HASH = {"EXAMRAG_EMBED_MODEL": "hash"}  # fast fake embedder; tests that need the real one say so


def env_for(data: Path, extra: dict | None = None) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("EXAMRAG_") or k == "EXAMRAG_MODELS_DIR"}
    env.update({"EXAMRAG_DATA_DIR": str(data), **HASH, **(extra or {})})
    return env


def run(*args: str, data: Path, env: dict | None = None, timeout: float = 600) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(ROOT / "cli.py"), *args], cwd=ROOT, env=env_for(data, env),
                          capture_output=True, text=True, timeout=timeout)


def ingest(raw: Path, data: Path, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return run("ingest", str(raw), "--quiet", *args, data=data, env=env)


def _terminal_signals() -> None:
    """Give the child SIGINT's default action, as a terminal would: a test run launched as a background
    job (``cmd &`` in a non-interactive shell) ignores SIGINT, the child would inherit that, and
    Python then never raises KeyboardInterrupt."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_DFL)


class Background:
    """``cli.py`` running in the background, in its own process group (so a test can Ctrl-C the whole
    group). Output goes to files, not pipes: OCR workers inherit the parent's stdout/stderr, and a pipe
    they keep open would make reading it hang after the parent is killed."""

    def __init__(self, *args: str, data: Path, env: dict | None = None):
        import tempfile

        self._out = tempfile.TemporaryFile("w+", encoding="utf-8")
        self._err = tempfile.TemporaryFile("w+", encoding="utf-8")
        self.proc = subprocess.Popen([sys.executable, str(ROOT / "cli.py"), *args], cwd=ROOT,
                                     env=env_for(data, env), stdout=self._out, stderr=self._err,
                                     start_new_session=True, preexec_fn=_terminal_signals)
        self.pid = self.proc.pid

    def poll(self):
        return self.proc.poll()

    def finish(self, timeout: float = 300) -> tuple[int, str, str]:
        """Wait for the process; (return code, stdout, stderr)."""
        rc = self.proc.wait(timeout=timeout)
        self._out.seek(0)
        self._err.seek(0)
        return rc, self._out.read(), self._err.read()


def start(*args: str, data: Path, env: dict | None = None) -> Background:
    return Background(*args, data=data, env=env)


def start_paused(raw: Path, data: Path, point: str, flag: Path, *args: str, env: dict | None = None,
                 timeout: float = 300) -> Background:
    """Start ``ingest`` and return once it is paused at ``point`` (delete ``flag`` to let it go on)."""
    flag.unlink(missing_ok=True)
    proc = start("ingest", str(raw), "--quiet", *args, data=data,
                 env={"EXAMRAG_TEST_PAUSE_AT": point, "EXAMRAG_TEST_PAUSE_FILE": str(flag), **(env or {})})
    deadline = time.monotonic() + timeout
    while not flag.exists():
        if proc.poll() is not None:
            rc, out, err = proc.finish()
            raise AssertionError(f"ingest ended (rc {rc}) before reaching {point}:\n{out}\n{err}")
        assert time.monotonic() < deadline, f"ingest never reached {point}"
        time.sleep(0.05)
    return proc


def status(data: Path) -> dict:
    r = run("status", "--json", data=data)
    assert r.returncode == 0, r.stdout + r.stderr
    return json.loads(r.stdout)


def by_source(st: dict) -> dict[str, dict]:
    """status --json documents keyed by each of their source names."""
    return {s: d for d in st["documents"] for s in d["sources"]}


def manifest(data: Path) -> dict:
    return json.loads((data / "manifest.json").read_text("utf-8"))


def disk_chunks(data: Path) -> list[dict]:
    """Every chunk in the per-document index artifacts of live (manifest-listed) documents."""
    live = manifest(data)["documents"]
    out = []
    for doc_id in live:
        path = data / "index" / "docs" / f"{doc_id}.json"
        if path.exists() and live[doc_id]["stages"].get("index", {}).get("status") != "failed":
            out += json.loads(path.read_text("utf-8"))["chunks"]
    return out


def engine_ids(data: Path) -> tuple[list[str], list[str]]:
    """(chunk ids in the published catalog = BM25 rows, chunk ids in Chroma)."""
    import chromadb
    from chromadb.api.client import SharedSystemClient
    from chromadb.config import Settings

    meta = json.loads((data / "index" / "current.json").read_text("utf-8"))
    db = sqlite3.connect(data / "index" / meta["generation"] / "chunks.sqlite")
    catalog = [r[0] for r in db.execute("SELECT chunk_id FROM chunks ORDER BY pos")]
    db.close()
    client = chromadb.PersistentClient(path=str(data / "index" / "chroma"), settings=Settings(anonymized_telemetry=False))
    try:
        vectors = client.get_collection(meta["collection"]).get(include=[])["ids"]
    finally:
        SharedSystemClient.clear_system_cache()
    return catalog, vectors


def assert_whole(data: Path) -> dict:
    """Chroma = BM25 = catalog = manifest chunk count, the same ids everywhere, no id twice, and every
    chunk belongs to a document the manifest still lists. Returns status --json counts."""
    counts = status(data)["counts"]
    assert counts["manifest_chunks"] == counts["bm25_chunks"] == counts["catalog_chunks"] == counts["vector_chunks"], counts
    ids = [c["chunk_id"] for c in disk_chunks(data)]
    assert len(ids) == len(set(ids)), "duplicate chunk ids"
    catalog, vectors = engine_ids(data)
    assert len(catalog) == len(set(catalog)) and len(vectors) == len(set(vectors))
    assert set(catalog) == set(vectors) == set(ids)
    live = set(manifest(data)["documents"])
    assert {c["doc_id"] for c in disk_chunks(data)} <= live
    return counts
