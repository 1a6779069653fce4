import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import numpy as np
import pytest

from pipeline.index.vector import VectorStore

DIM = 16


@pytest.fixture
def loopback_only(monkeypatch):
    """Fail any Python-level connection that is not to 127.0.0.1 (telemetry, model downloads)."""
    seen = []
    real_connect = socket.socket.connect

    def connect(self, address):
        if self.family in (socket.AF_INET, socket.AF_INET6):
            seen.append(address)
            if address[0] not in ("127.0.0.1", "::1", "localhost"):
                raise AssertionError(f"unexpected network connection to {address}")
        return real_connect(self, address)

    monkeypatch.setattr(socket.socket, "connect", connect)
    return seen


def _vectors(n, seed=0):
    v = np.random.default_rng(seed).normal(size=(n, DIM)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def round_trip(store: VectorStore):
    n = 30
    ids = [f"chunk-{i:03d}" for i in range(n)]
    vecs = _vectors(n)
    chapters = ["查找", "排序", "进程与线程"]
    metas = [{"chapter": chapters[i % 3], "doc": "ds.md", "page": i} for i in range(n)]
    metas[1]["empty"] = None  # None values are dropped, not sent
    store.upsert(ids, vecs, metas)
    assert store.count() == n
    assert store.ids() == set(ids)

    # exact match first, similarity = 1 - cosine distance
    hits = store.query(vecs[7], top_n=5)
    assert hits[0][0] == "chunk-007" and hits[0][1] == pytest.approx(1.0, abs=1e-4)
    sims = [s for _, s in hits]
    assert sims == sorted(sims, reverse=True)
    expected = sorted(range(n), key=lambda i: -float(vecs[i] @ vecs[7]))[:5]
    assert [h[0] for h in hits] == [ids[i] for i in expected]
    for (_, s), i in zip(hits, expected):
        assert s == pytest.approx(float(vecs[i] @ vecs[7]), abs=1e-4)

    # metadata filter is applied before taking top_n
    hits = store.query(vecs[7], top_n=4, where={"chapter": {"$in": ["排序", "进程与线程"]}})
    assert len(hits) == 4
    assert all(int(i[-3:]) % 3 in (1, 2) for i, _ in hits)
    assert store.query(vecs[7], top_n=5, where={"chapter": "不存在"}) == []
    assert len(store.query(vecs[7], top_n=100)) == n  # more than stored is fine

    # upsert replaces; delete removes (unknown ids are ignored)
    store.upsert(["chunk-000"], vecs[1:2], [{"chapter": "排序"}])
    assert store.query(vecs[1], top_n=2)[1][0] in ("chunk-000", "chunk-001")
    assert store.count() == n
    store.delete(["chunk-000", "chunk-001", "nope"])
    assert store.count() == n - 2 and "chunk-000" not in store.ids()
    store.upsert([], np.zeros((0, DIM), np.float32), [])


def test_embedded_round_trip(tmp_path, loopback_only):
    store = VectorStore.open(path=tmp_path / "chroma", collection="examrag-test", hnsw={"ef_search": 50})
    cfg = store.collection.configuration["hnsw"]
    assert cfg["space"] == "cosine" and cfg["ef_search"] == 50
    assert store.collection.configuration.get("embedding_function") is None
    round_trip(store)
    assert loopback_only == []  # embedded mode opens no sockets at all

    # persisted: a new client sees the same data; ef_search can change, M cannot
    again = VectorStore.open(path=tmp_path / "chroma", collection="examrag-test", hnsw={"ef_search": 80, "M": 64})
    assert again.count() == 28
    cfg = again.collection.configuration["hnsw"]
    assert cfg["ef_search"] == 80 and cfg["max_neighbors"] == 16


def test_options(tmp_path):
    store = VectorStore.open(
        path=tmp_path / "c", collection="opts", hnsw={"hnsw:M": 32}, metadata={"embed_model": "hash-64"}
    )
    assert store.collection.configuration["hnsw"]["max_neighbors"] == 32
    assert VectorStore.open(path=tmp_path / "c", collection="alias", hnsw={"M": 24, "ef_search": None}
                            ).collection.configuration["hnsw"]["max_neighbors"] == 24
    with pytest.raises(ValueError, match="unknown HNSW setting"):
        VectorStore.open(path=tmp_path / "c", collection="bad", hnsw={"efSearch": 5})
    assert store.metadata == {"embed_model": "hash-64"}
    assert store.query(_vectors(1)[0], top_n=3) == []  # empty collection
    with pytest.raises(ValueError, match="cosine"):
        VectorStore.open(path=tmp_path / "c", collection="l2", hnsw={"space": "l2"})
    with pytest.raises(ValueError, match="path"):
        VectorStore.open(collection="x")
    with pytest.raises(ValueError, match="shape"):
        store.upsert(["a", "b"], _vectors(3), None)
    store.upsert(["a", "b"], _vectors(2), None)  # metadata is optional
    assert store.count() == 2
    store.drop()


def test_never_embeds_text(tmp_path):
    store = VectorStore.open(path=tmp_path / "c", collection="noef")
    with pytest.raises(Exception):
        store.collection.add(ids=["x"], documents=["没有向量的文本"])  # no embedding function to call
    assert store.count() == 0


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_heartbeat(proc, port, timeout=60.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"chroma run exited with {proc.returncode}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/v2/heartbeat", timeout=2):
                return
        except OSError:
            time.sleep(0.3)
    raise TimeoutError(f"chroma server on port {port} did not answer within {timeout} s")


def test_server_round_trip(tmp_path, loopback_only):
    chroma = Path(sys.executable).parent / "chroma"
    if not chroma.exists():
        pytest.skip("chroma CLI not installed next to this Python")
    port = _free_port()
    log = open(tmp_path / "chroma.log", "wb")
    proc = subprocess.Popen(
        [str(chroma), "run", "--path", str(tmp_path / "srv"), "--host", "127.0.0.1", "--port", str(port)],
        stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
    )
    try:
        _wait_heartbeat(proc, port)
        store = VectorStore.open(url=f"http://127.0.0.1:{port}", collection="examrag-srv")
        assert store.collection.configuration["hnsw"]["space"] == "cosine"
        round_trip(store)
        again = VectorStore.open(url=f"127.0.0.1:{port}", collection="examrag-srv", hnsw={"ef_search": 90})
        assert again.count() == 28 and again.collection.configuration["hnsw"]["ef_search"] == 90
        assert loopback_only and all(addr[0] == "127.0.0.1" for addr in loopback_only)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=30)
        log.close()


class _Locked(Exception):
    """What chromadb's Rust bindings raise when SQLite answers SQLITE_BUSY at once."""


def test_retry_busy_waits_out_a_locked_file():
    from pipeline.index.vector import BUSY_ATTEMPTS, retry_busy

    calls, waits = [], []

    def write():
        calls.append(1)
        if len(calls) < 3:
            raise _Locked("Database error: error returned from database: (code: 5) database is locked")
        return "done"

    assert retry_busy(write, sleep=waits.append) == "done"
    assert len(calls) == 3 and waits == [0.05, 0.1]

    calls.clear(), waits.clear()

    def always_locked():
        calls.append(1)
        raise _Locked("database is locked")

    with pytest.raises(_Locked):
        retry_busy(always_locked, sleep=waits.append)
    assert len(calls) == BUSY_ATTEMPTS and max(waits) == 1.0 and sum(waits) < 5


def test_retry_busy_gives_other_errors_at_once():
    from pipeline.index.vector import retry_busy

    calls = []

    def bad():
        calls.append(1)
        raise ValueError("Expected embeddings to be a list")

    with pytest.raises(ValueError):
        retry_busy(bad, sleep=lambda s: pytest.fail("no wait for a non-busy error"))
    assert calls == [1]
