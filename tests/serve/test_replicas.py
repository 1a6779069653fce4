"""Two stateless `cli.py serve` replicas over one data dir and one Chroma server (`chroma run`), while
ingests publish new index generations: both follow each new generation without a restart, and not one
search fails, even with the replaced generation deleted at once (``EXAMRAG_GENERATION_GRACE=0``, the
worst case for a reader that read current.json just before the switch).

Real processes on 127.0.0.1: one Chroma server, two replicas, the ingests; searches are bounded in count
and time, and every process is killed at the end.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import pytest
from serve_helpers import wait_until

ROOT = Path(__file__).resolve().parents[2]
NEW_TERM = "鸵鸟调度算法"  # only in the note added by the second ingest
NEW_NOTE = f"# 补充\n\n## {NEW_TERM}\n\n{NEW_TERM}在检测到死锁时忽略它，是一种鸵鸟策略。{NEW_TERM}适合死锁极少发生的系统。\n"
QUERIES = ("折半查找的时间复杂度", "TCP三次握手", "进程和线程的区别", NEW_TERM, "页面置换算法")


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get(url: str, timeout: float = 30.0) -> tuple[int, dict]:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as exc:
        return exc.code, {"error": exc.read()[:200].decode("utf-8", "replace")}


class Procs:
    """Processes started in their own process group, all killed on exit."""

    def __init__(self, logs: Path):
        self.logs, self.procs = logs, []

    def start(self, name: str, args: list[str], env: dict) -> subprocess.Popen:
        out = open(self.logs / f"{name}.log", "wb")
        p = subprocess.Popen(args, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                             start_new_session=True)
        self.procs.append(p)
        return p

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        for p in self.procs:
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            p.wait(timeout=10)


def test_two_replicas_follow_new_generations_with_no_failed_search(tmp_path):
    chroma = Path(sys.executable).parent / "chroma"
    if not chroma.exists():
        pytest.skip("the chroma CLI is not installed next to this Python")
    raw, data, logs = tmp_path / "raw", tmp_path / "data", tmp_path / "logs"
    logs.mkdir()
    raw.mkdir()
    for f in (ROOT / "data" / "raw").iterdir():  # the sample's text documents (no OCR: this test is about serving)
        if "扫描" not in f.name:
            shutil.copy(f, raw / f.name)
    chroma_port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("EXAMRAG_") or k == "EXAMRAG_MODELS_DIR"}
    env.update(EXAMRAG_DATA_DIR=str(data), EXAMRAG_CHROMA_URL=f"http://127.0.0.1:{chroma_port}",
               EXAMRAG_EMBED_MODEL="hash", EXAMRAG_RETRIEVAL_MODE="hybrid", EXAMRAG_LLM_BACKEND="none",
               EXAMRAG_GENERATION_GRACE="0", ANONYMIZED_TELEMETRY="False")

    def ingest() -> None:
        r = subprocess.run([sys.executable, "cli.py", "ingest", str(raw), "--quiet"], cwd=ROOT, env=env,
                           capture_output=True, text=True, timeout=600)
        assert r.returncode == 0, r.stdout + r.stderr

    with Procs(logs) as procs:
        procs.start("chroma", [str(chroma), "run", "--host", "127.0.0.1", "--port", str(chroma_port),
                               "--path", str(tmp_path / "chroma")], env)
        assert wait_until(lambda: _up(f"http://127.0.0.1:{chroma_port}/api/v2/heartbeat"), timeout=120, step=0.5), \
            (logs / "chroma.log").read_text(errors="replace")[-2000:]
        ingest()
        ports = [free_port(), free_port()]
        for i, port in enumerate(ports):
            procs.start(f"replica{i}", [sys.executable, "cli.py", "serve", "--port", str(port)], env)
        urls = [f"http://127.0.0.1:{p}" for p in ports]
        for i, url in enumerate(urls):
            assert wait_until(lambda: _up(url + "/api/health"), timeout=120, step=0.5), \
                (logs / f"replica{i}.log").read_text(errors="replace")[-2000:]

        failures: list[str] = []
        done = {"n": 0}
        stop = threading.Event()

        def hammer(worker: int) -> None:
            i = worker
            deadline = time.monotonic() + 300  # bounded, whatever happens
            while not stop.is_set() and time.monotonic() < deadline:
                url = urls[i % 2]
                q = urllib.parse.quote(QUERIES[i % len(QUERIES)])
                try:
                    status, body = get(f"{url}/api/search?q={q}&k=3")
                    if status != 200:
                        failures.append(f"{url}: {status} {body}")
                except Exception as exc:  # noqa: BLE001 - a refused or dropped connection is a failed search too
                    failures.append(f"{url}: {exc!r}")
                done["n"] += 1
                i += 1
                time.sleep(0.01)

        def sees_new_note(url: str) -> bool:
            status, body = get(f"{url}/api/search?q={urllib.parse.quote(NEW_TERM)}&k=3")
            return status == 200 and any(h["source"].endswith("补充.md") for h in body["hits"])

        def generation(url: str) -> str:
            return get(url + "/api/health")[1]["generation"]

        threads = [threading.Thread(target=hammer, args=(w,)) for w in range(3)]
        for t in threads:
            t.start()
        try:
            first = generation(urls[0])
            (raw / "补充.md").write_text(NEW_NOTE, "utf-8")
            ingest()  # generation 2: a document added
            assert all(wait_until(lambda u=u: sees_new_note(u), timeout=60, step=0.2) for u in urls)
            second = json.loads((data / "index" / "current.json").read_text())["generation"]
            assert second != first and [generation(u) for u in urls] == [second, second]
            (raw / "补充.md").unlink()
            ingest()  # generation 3: the document removed (its vectors leave the shared Chroma collection)
            assert all(wait_until(lambda u=u: not sees_new_note(u), timeout=60, step=0.2) for u in urls)
            time.sleep(1.0)  # searches keep running on the new generation for a moment
        finally:
            stop.set()
            for t in threads:
                t.join(timeout=60)
        assert failures == [], failures[:5]
        assert done["n"] >= 30, f"only {done['n']} searches ran during the switches"
        # grace 0: the replaced generations are gone, only the live one remains, sealed read-only
        gens = list((data / "index").glob("gen-*"))
        assert len(gens) == 1
        assert (gens[0].stat().st_mode & 0o777) == 0o555 and ((gens[0] / "chunks.sqlite").stat().st_mode & 0o777) == 0o444


def _up(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=5) as r:
            return r.status == 200
    except (OSError, urllib.error.URLError):
        return False


def test_a_generation_removed_while_a_replica_opens_it_is_not_a_failed_request(sample_data, tmp_path, monkeypatch):
    """The window the replica test can only hit by chance, made certain: the generation a request read in
    current.json is published over and deleted (grace 0) between that read and opening its catalog."""
    from pipeline.ask import retrieve
    from pipeline.ask.service import QueryService
    from pipeline.index.catalog import current_generation, publish
    from pipeline.settings import Settings

    data = tmp_path / "data"
    shutil.copytree(sample_data, data, ignore=shutil.ignore_patterns(".lock"))
    index = data / "index"
    old = current_generation(index)
    service = QueryService(Settings(data_dir=data, llm={"backend": "none"}))
    real_catalog = retrieve.Catalog
    switched = []

    def catalog_after_a_switch(path):
        if not switched:  # an ingest publishes a new generation and deletes this one right now
            new = index / "gen-9999999999999999999"
            shutil.copytree(index / old["generation"], new)
            publish(index, new, {k: v for k, v in old.items() if k != "generation"}, grace=0)
            switched.append(new.name)
        return real_catalog(path)

    monkeypatch.setattr(retrieve, "Catalog", catalog_after_a_switch)
    hits = service.search("折半查找的时间复杂度").hits
    assert hits and switched and service.retriever().meta["generation"] == switched[0]
    assert not (index / old["generation"]).exists()
