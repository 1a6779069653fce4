"""The study store under concurrent writers: ``--students`` (50) each record ``--attempts`` (20)
attempts through ``StudyStore.record`` (one transaction each: the attempt, its FSRS state, its 错题本
change), all at once, as threads of one process and as separate processes, on one SQLite file (WAL,
synchronous=FULL). Every ``--retry-every``-th attempt is sent twice with the same client key (a
client retrying after a lost response). Checks every attempt is stored exactly once and counts
errors; reports wall time, attempts/s and per-attempt latency (waiting for the write lock included).

This is the store alone; the HTTP load benchmark (50 students against one `serve`) comes with the
server's study endpoints. Writes bench/results/study_store.json.

    python -m bench study_store [--students 50] [--attempts 20] [--retry-every 5]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import sqlite3
import sys
import tempfile
import threading
import time
import traceback
from datetime import datetime, timedelta, timezone
from pathlib import Path

from bench.lib import common as C
from pipeline.settings import StudySettings
from pipeline.study import users
from pipeline.study.models import QuestionItem
from pipeline.study.store import Attempt, StudyStore

T0 = datetime(2026, 3, 2, 8, 0, tzinfo=timezone.utc)
ITEMS = [QuestionItem(item_id=f"2024-{n}", year=2024, number=n, qtype="choice", stem="题干", answer="B",
                      citation="[来源: 卷|第1页]", chunk_id=f"c{n}", nodes=[["第七章 查找", "7.2 折半查找"]]) for n in range(1, 9)]


def student(path: Path, s: int, attempts: int, retry_every: int) -> list[float]:
    """One student's attempts; returns each record() call's latency in seconds."""
    store = StudyStore(path, StudySettings())
    me = users.ensure(store.db(), f"student{s}", T0)
    lat = []
    for i in range(attempts):
        verdict = "wrong" if (s + i) % 3 == 0 else "right"
        a = Attempt(item=ITEMS[(s + i) % len(ITEMS)], answer="A" if verdict == "wrong" else "B", verdict=verdict,
                    rating=1 if verdict == "wrong" else 3, at=T0 + timedelta(minutes=i), client_key=f"s{s}-a{i}",
                    seconds=20.0)
        t = time.perf_counter()
        store.record(me, a)
        lat.append(time.perf_counter() - t)
        if retry_every and i % retry_every == retry_every - 1:
            t = time.perf_counter()
            assert store.record(me, a).duplicate
            lat.append(time.perf_counter() - t)
    store.close()
    return lat


def _proc(path, s, attempts, retry_every, q):
    try:
        q.put(("ok", student(path, s, attempts, retry_every)))
    except Exception:
        q.put(("error", traceback.format_exc()))


def run(kind: str, students: int, attempts: int, retry_every: int, work: Path) -> dict:
    path = work / f"{kind}.sqlite"
    StudyStore(path, StudySettings()).db()  # created and migrated before the clock starts
    results: list = []
    t0 = time.perf_counter()
    if kind == "threads":
        lock = threading.Lock()

        def go(s):
            try:
                r = ("ok", student(path, s, attempts, retry_every))
            except Exception:
                r = ("error", traceback.format_exc())
            with lock:
                results.append(r)

        threads = [threading.Thread(target=go, args=(s,)) for s in range(students)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=600)
    else:
        ctx = multiprocessing.get_context("fork")
        q = ctx.Queue()
        procs = [ctx.Process(target=_proc, args=(path, s, attempts, retry_every, q)) for s in range(students)]
        for p in procs:
            p.start()
        results = [q.get(timeout=600) for _ in procs]
        for p in procs:
            p.join(timeout=60)
    wall = time.perf_counter() - t0
    errors = [r[1] for r in results if r[0] == "error"]
    lat = [x for r in results if r[0] == "ok" for x in r[1]]
    db = sqlite3.connect(path)
    stored = db.execute("SELECT COUNT(*) FROM attempts").fetchone()[0]
    distinct = db.execute("SELECT COUNT(DISTINCT client_key) FROM attempts").fetchone()[0]
    reps = db.execute("SELECT SUM(reps) FROM review_state").fetchone()[0]
    expected = students * attempts
    calls = expected + (students * (attempts // retry_every) if retry_every else 0)
    return {"kind": kind, "students": students, "attempts_each": attempts, "calls": calls, "expected": expected,
            "stored": stored, "exactly_once": stored == distinct == reps == expected, "errors": len(errors),
            "error_samples": errors[:2], "wall_s": round(wall, 2), "attempts_per_s": round(expected / wall, 1),
            "p50_ms": round(C.pct(lat, 50) * 1000, 1), "p95_ms": round(C.pct(lat, 95) * 1000, 1),
            "p99_ms": round(C.pct(lat, 99) * 1000, 1), "max_ms": round(max(lat) * 1000, 1) if lat else None}


def main() -> None:
    C.setup()
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--students", type=int, default=50)
    ap.add_argument("--attempts", type=int, default=20)
    ap.add_argument("--retry-every", type=int, default=5)
    args = ap.parse_args()
    machine = C.machine()
    rows = []
    with tempfile.TemporaryDirectory(dir=C.WORK if C.WORK.exists() else None) as tmp:
        for kind in ("threads", "processes"):
            rows.append(run(kind, args.students, args.attempts, args.retry_every, Path(tmp)))
    print(C.table(["writers", "attempts", "calls", "stored", "exactly once", "errors", "wall s", "attempts/s",
                   "p50 ms", "p95 ms", "p99 ms"],
                  [[f"{r['students']} {r['kind']}", r["expected"], r["calls"], r["stored"], r["exactly_once"], r["errors"],
                    r["wall_s"], r["attempts_per_s"], r["p50_ms"], r["p95_ms"], r["p99_ms"]] for r in rows]))
    out = {"machine": machine, "command": "python -m bench study_store " + " ".join(sys.argv[1:]), "runs": rows}
    (C.RESULTS / "study_store.json").write_text(json.dumps(out, ensure_ascii=False, indent=1), "utf-8")


if __name__ == "__main__":
    main()
