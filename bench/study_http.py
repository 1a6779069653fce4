"""50 students record attempts against one `cli.py serve` at once: every attempt stored exactly once, 0 errors.

The server is `python cli.py serve` (a subprocess, 127.0.0.1, the server token set so every student
uses their own `users add` token) on the shipped sample ingested once into ``$BENCH_WORK/study_http``
(or ``--data-dir``), with a fresh study database per run. ``--students`` (50) clients, each with its
own token and keep-alive connection, first fetch their practice set (``GET /api/practice``) and then,
all at once and back to back (no think time: the hardest case), ``POST /api/attempts`` ``--attempts``
(20) times, each with a fresh client key; every ``--retry-every``-th attempt is sent a second time
with the same key (a retry after a lost response), which must come back ``duplicate``. Then the
database is read directly: attempts stored, distinct client keys, FSRS repetitions and per-student
counts must all equal students × attempts. Reports wall time, attempts/s and POST latency
(p50/p95/p99, retries included). Writes bench/results/study_http.json.

    python -m bench study_http [--students 50] [--attempts 20] [--retry-every 5] [--data-dir DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
import uuid
from datetime import datetime, timezone
from pathlib import Path

import httpx

from bench.lib import common as C

ADMIN = "bench-study-admin"


def sample_dir(given: str | None) -> Path:
    """The data dir to serve: ``given``, else the shipped sample ingested once into BENCH_WORK."""
    if given:
        return Path(given)
    data = C.WORK / "study_http"
    if not (data / "index" / "current.json").exists():
        env = {k: v for k, v in os.environ.items() if not k.startswith("EXAMRAG_") or k == "EXAMRAG_MODELS_DIR"}
        print(f"ingesting the shipped sample into {data} (once) …", flush=True)
        subprocess.run([C.PY, "cli.py", "ingest", "data/raw", "--quiet"], env={**env, "EXAMRAG_DATA_DIR": str(data)},
                       check=True, timeout=900)
    return data


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def issue_tokens(db: Path, students: int) -> list[str]:
    """A `users add` token per student, issued straight into the study database before the server starts."""
    from pipeline.settings import StudySettings
    from pipeline.study import users
    from pipeline.study.store import StudyStore

    store = StudyStore(db, StudySettings())
    now = datetime.now(timezone.utc)
    tokens = [users.issue_token(store.db(), f"student{s:02d}", now)[1] for s in range(students)]
    store.close()
    return tokens


def start(data: Path, db: Path, port: int, log: Path) -> subprocess.Popen:
    env = {k: v for k, v in os.environ.items() if not k.startswith("EXAMRAG_") or k == "EXAMRAG_MODELS_DIR"}
    env.update(EXAMRAG_DATA_DIR=str(data), EXAMRAG_STUDY_DB=str(db), EXAMRAG_API_TOKEN=ADMIN, EXAMRAG_LLM_BACKEND="none")
    proc = subprocess.Popen([C.PY, "cli.py", "serve", "--port", str(port)], env=env, stdout=open(log, "w"),
                            stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"serve exited: {log.read_text()[-2000:]}")
        try:
            if httpx.get(f"http://127.0.0.1:{port}/api/health", headers={"Authorization": f"Bearer {ADMIN}"},
                         timeout=2).status_code == 200:
                return proc
        except httpx.HTTPError:
            pass
        time.sleep(0.3)
    C.stop(proc)
    raise SystemExit("serve did not come up within 180 s")


async def student(url: str, token: str, attempts: int, retry_every: int, go: asyncio.Event, out: dict) -> None:
    """One student: the practice set, then ``attempts`` POSTs back to back once ``go`` is set."""
    async with httpx.AsyncClient(base_url=url, headers={"Authorization": f"Bearer {token}"}, timeout=120) as c:
        r = await c.get("/api/practice", params={"type": "choice"})
        if r.status_code != 200:
            out["errors"].append(f"practice {r.status_code}: {r.text[:200]}")
            return
        items = [(q["item_id"], sorted(q["options"]) or ["A"]) for q in r.json()]
        out["ready"] += 1
        await go.wait()
        for i in range(attempts):
            item, options = items[i % len(items)]
            body = {"item_id": item, "answer": options[i % len(options)], "seconds": 20.0, "client_key": uuid.uuid4().hex}
            sends = 2 if retry_every and i % retry_every == retry_every - 1 else 1
            for n in range(sends):
                t = time.perf_counter()
                try:
                    r = await c.post("/api/attempts", json=body)
                except httpx.HTTPError as exc:
                    out["errors"].append(f"{type(exc).__name__}: {exc}")
                    continue
                out["latency"].append(time.perf_counter() - t)
                if r.status_code != 200:
                    out["errors"].append(f"{r.status_code}: {r.text[:200]}")
                elif r.json()["duplicate"] != (n == 1):
                    out["errors"].append(f"attempt {i} send {n}: duplicate={r.json()['duplicate']}")


async def load(url: str, tokens: list[str], attempts: int, retry_every: int) -> dict:
    out = {"errors": [], "latency": [], "ready": 0}
    go = asyncio.Event()
    tasks = [asyncio.create_task(student(url, t, attempts, retry_every, go, out)) for t in tokens]
    while out["ready"] + len(out["errors"]) < len(tokens):
        await asyncio.sleep(0.05)
    t0 = time.perf_counter()
    go.set()
    await asyncio.wait_for(asyncio.gather(*tasks), timeout=900)
    out["wall_s"] = time.perf_counter() - t0
    return out


def stored(db: Path) -> dict:
    conn = sqlite3.connect(db)
    one = lambda q: conn.execute(q).fetchone()[0]  # noqa: E731
    per = [n for (n,) in conn.execute("SELECT COUNT(*) FROM attempts GROUP BY profile_id")]
    out = {"attempts": one("SELECT COUNT(*) FROM attempts"), "client_keys": one("SELECT COUNT(DISTINCT client_key) FROM attempts"),
           "fsrs_reps": one("SELECT SUM(reps) FROM review_state"), "per_student_min": min(per, default=0),
           "per_student_max": max(per, default=0), "students_with_attempts": len(per)}
    conn.close()
    return out


def main() -> None:
    C.setup()
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--students", type=int, default=50)
    ap.add_argument("--attempts", type=int, default=20)
    ap.add_argument("--retry-every", type=int, default=5)
    ap.add_argument("--data-dir", help="an ingested data dir (default: the shipped sample, ingested once)")
    args = ap.parse_args()
    machine = C.machine()
    data = sample_dir(args.data_dir)
    C.WORK.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=C.WORK) as tmp:
        db, log = Path(tmp) / "study.sqlite", Path(tmp) / "serve.log"
        tokens = issue_tokens(db, args.students)
        port = free_port()
        proc = start(data, db, port, log)
        try:
            run = asyncio.run(load(f"http://127.0.0.1:{port}", tokens, args.attempts, args.retry_every))
        finally:
            C.stop(proc)
        counts = stored(db)
    expected = args.students * args.attempts
    lat = run["latency"]
    exactly_once = (counts["attempts"] == counts["client_keys"] == counts["fsrs_reps"] == expected
                    and counts["per_student_min"] == counts["per_student_max"] == args.attempts)
    row = {"students": args.students, "attempts_each": args.attempts, "expected": expected, "posts": len(lat),
           **counts, "exactly_once": exactly_once, "errors": len(run["errors"]), "error_samples": run["errors"][:3],
           "wall_s": round(run["wall_s"], 2), "attempts_per_s": round(expected / run["wall_s"], 1),
           "p50_ms": round(C.pct(lat, 50) * 1000, 1), "p95_ms": round(C.pct(lat, 95) * 1000, 1),
           "p99_ms": round(C.pct(lat, 99) * 1000, 1), "max_ms": round(max(lat) * 1000, 1) if lat else None}
    print(C.table(["students", "attempts", "POSTs (with retries)", "stored", "exactly once", "errors", "wall s",
                   "attempts/s", "p50 ms", "p95 ms", "p99 ms"],
                  [[row["students"], expected, row["posts"], row["attempts"], row["exactly_once"], row["errors"],
                    row["wall_s"], row["attempts_per_s"], row["p50_ms"], row["p95_ms"], row["p99_ms"]]]))
    C.save("study_http", {"machine": machine, "command": C.command("study_http"), "data_dir": str(data), "run": row})
    if not exactly_once or run["errors"]:
        sys.exit(1)


if __name__ == "__main__":
    main()
