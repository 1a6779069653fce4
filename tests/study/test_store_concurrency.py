"""The store under concurrent writers: 50 students × 20 attempts, as 50 threads of one process and as
50 processes, every attempt stored exactly once (a retried attempt too), 0 errors. (The HTTP load
benchmark comes with the server; `python -m bench study_store` times this.)"""

from __future__ import annotations

import multiprocessing
import sqlite3
import threading
import traceback
from datetime import timedelta

from study_helpers import T0, choice

from pipeline.settings import StudySettings
from pipeline.study import users
from pipeline.study.store import Attempt, StudyStore

STUDENTS, ATTEMPTS = 50, 20
ITEMS = [choice(n) for n in range(1, 7)]


def student(store: StudyStore, s: int) -> None:
    """20 attempts of one student; every 5th is sent twice (a retry after a lost response)."""
    me = users.ensure(store.db(), f"student{s}", T0)
    for i in range(ATTEMPTS):
        item = ITEMS[(s + i) % len(ITEMS)]
        verdict = "wrong" if (s + i) % 3 == 0 else "right"
        a = Attempt(item=item, answer="A" if verdict == "wrong" else "B", verdict=verdict,
                    rating=1 if verdict == "wrong" else 3, at=T0 + timedelta(minutes=i), client_key=f"s{s}-a{i}")
        first = store.record(me, a)
        if i % 5 == 4:
            assert store.record(me, a).duplicate and not first.duplicate


def _check(path) -> None:
    db = sqlite3.connect(path)
    assert db.execute("SELECT COUNT(*) FROM attempts").fetchone()[0] == STUDENTS * ATTEMPTS
    assert db.execute("SELECT COUNT(DISTINCT client_key) FROM attempts").fetchone()[0] == STUDENTS * ATTEMPTS
    per = db.execute("SELECT COUNT(*) FROM attempts GROUP BY profile_id").fetchall()
    assert per == [(ATTEMPTS,)] * STUDENTS
    assert db.execute("SELECT SUM(reps) FROM review_state").fetchone()[0] == STUDENTS * ATTEMPTS
    wrong = db.execute("SELECT COUNT(*) FROM attempts WHERE verdict='wrong'").fetchone()[0]
    assert db.execute("SELECT SUM(wrong_count) FROM mistakes").fetchone()[0] == wrong
    assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_fifty_threads(tmp_path):
    store = StudyStore(tmp_path / "s.sqlite", StudySettings(fuzz=False))
    errors: list[str] = []

    def run(s):
        try:
            student(store, s)
        except Exception:
            errors.append(traceback.format_exc())
        finally:
            store.close()

    threads = [threading.Thread(target=run, args=(s,)) for s in range(STUDENTS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    assert not any(t.is_alive() for t in threads), "a writer hung"
    assert errors == []
    _check(tmp_path / "s.sqlite")


def _process(path, s, q):
    try:
        student(StudyStore(path, StudySettings(fuzz=False)), s)
        q.put(None)
    except Exception:
        q.put(traceback.format_exc())


def test_fifty_processes(tmp_path):
    path = tmp_path / "s.sqlite"
    ctx = multiprocessing.get_context("fork")
    q = ctx.Queue()
    procs = [ctx.Process(target=_process, args=(path, s, q)) for s in range(STUDENTS)]
    for p in procs:
        p.start()
    results = [q.get(timeout=300) for _ in procs]
    for p in procs:
        p.join(timeout=60)
    assert [r for r in results if r] == []
    assert all(p.exitcode == 0 for p in procs)
    _check(path)
