"""The terminal session, driven through stdin as a student types, and killed with SIGKILL mid-session:
it loses at most the attempt in flight."""

from __future__ import annotations

import json
import os
import queue
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
NOW = "2026-03-02T08:00:00+00:00"


def _env(sample_data: Path, db: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("EXAMRAG_") or k == "EXAMRAG_MODELS_DIR"}
    env.update(EXAMRAG_DATA_DIR=str(sample_data), EXAMRAG_STUDY_DB=str(db), EXAMRAG_STUDY_NOW=NOW, PYTHONUNBUFFERED="1")
    return env


def test_a_session_typed_on_stdin(sample_data, tmp_path):
    db = tmp_path / "study.sqlite"
    typed = "A\nC\ns\nq\n"  # 2024-1 wrong, 2024-2 right, 2024-3 skipped, then quit
    r = subprocess.run([sys.executable, "cli.py", "practice", "--type", "choice"], cwd=ROOT, env=_env(sample_data, db),
                       input=typed, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert "[1/6] 2024年第1题（单项选择题） 2024-1" in out and "A. 3" in out
    assert "✗ 错误：你的答案 A，正确答案 B" in out and "解析：折半查找的判定树高度" in out
    assert "考查章节：第七章 查找 › 7.2 折半查找" in out and "已记入错题本；下次复习：今天" in out
    assert "✓ 正确（答案 C）" in out and "本次作答 2 项：答对 1，记入错题本 1" in out
    rows = sqlite3.connect(db).execute("SELECT item_id, verdict, seconds FROM attempts ORDER BY id").fetchall()
    assert [(i, v) for i, v, _ in rows] == [("2024-1", "wrong"), ("2024-2", "right")] and all(s is not None for *_, s in rows)


def test_a_comprehensive_question_is_self_graded(sample_data, tmp_path):
    db = tmp_path / "study.sqlite"
    typed = "判定树的根是37\n查找62比较2次\n\nperfect\n2\n"  # two lines, an empty line, a bad rating, then Hard
    r = subprocess.run([sys.executable, "cli.py", "practice", "--question", "2024-41"], cwd=ROOT,
                       env=_env(sample_data, db), input=typed, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert "参考答案：（1）判定树的根是第6个关键字37" in r.stdout and "rating 'perfect'" in r.stdout
    assert "已记入错题本" in r.stdout
    row = sqlite3.connect(db).execute("SELECT answer, verdict, rating FROM attempts").fetchone()
    assert row == ("判定树的根是37\n查找62比较2次", "self", 2)


class Session:
    """A `practice` process whose output is read by a thread, so every wait has a timeout."""

    def __init__(self, args, env):
        self.p = subprocess.Popen([sys.executable, "cli.py", *args], cwd=ROOT, env=env, stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, bufsize=1)
        self.out: queue.Queue[str] = queue.Queue()
        self.seen = ""
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        for ch in iter(lambda: self.p.stdout.read(1), ""):
            self.out.put(ch)

    def wait_for(self, text: str, count: int, timeout: float = 120) -> None:
        deadline = time.monotonic() + timeout
        while self.seen.count(text) < count:
            try:
                self.seen += self.out.get(timeout=max(0.01, deadline - time.monotonic()))
            except queue.Empty:
                raise AssertionError(f"no {count}× {text!r} within {timeout}s; output so far:\n{self.seen}") from None

    def send(self, line: str) -> None:
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()

    def kill(self) -> None:
        """SIGKILL, then take in what it printed before it died."""
        self.p.send_signal(signal.SIGKILL)
        self.p.wait(timeout=30)
        self.reader.join(timeout=30)
        while not self.out.empty():
            self.seen += self.out.get_nowait()


def _consistent(db: Path) -> int:
    """Every stored attempt came with its schedule and 错题本 change; returns the attempt count."""
    con = sqlite3.connect(db)
    assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    n = con.execute("SELECT COUNT(*) FROM attempts").fetchone()[0]
    assert con.execute("SELECT COALESCE(SUM(reps), 0) FROM review_state").fetchone()[0] == n
    wrong = con.execute("SELECT COUNT(*) FROM attempts WHERE verdict='wrong' OR (verdict='self' AND rating<=2)").fetchone()[0]
    assert con.execute("SELECT COALESCE(SUM(wrong_count), 0) FROM mistakes").fetchone()[0] == wrong
    con.close()
    return n


def test_sigkill_at_a_prompt_loses_nothing(sample_data, tmp_path):
    db = tmp_path / "study.sqlite"
    s = Session(["practice", "--type", "choice"], _env(sample_data, db))
    for i, letter in enumerate("ACA", start=1):
        s.wait_for("你的答案（字母", i)
        s.send(letter)
    s.wait_for("你的答案（字母", 4)  # the 4th question is on screen, nothing in flight
    s.kill()
    assert _consistent(db) == 3


def test_sigkill_with_an_answer_in_flight_loses_at_most_that_one(sample_data, tmp_path):
    """A batch of 300 attempts killed while it writes: every attempt printed is stored, at most one
    more (the one in flight), and each one whole."""
    db = tmp_path / "study.sqlite"

    ids = ["2024-1", "2024-2", "2024-3", "2024-4", "2024-5", "2024-6"]
    lines = [json.dumps({"item": ids[i % 6], "answer": "ABCD"[i % 4], "key": f"k{i}"}) for i in range(300)]
    s = Session(["practice", "--answers", "-"], _env(sample_data, db))
    for line in lines:
        s.send(line)
    s.wait_for('"attempt_id"', 40)
    s.kill()
    printed = s.seen.count('"attempt_id"')
    stored = _consistent(db)
    assert printed <= stored <= printed + 1, (printed, stored)
    assert stored < 300  # it was killed mid-run
    again = subprocess.run([sys.executable, "cli.py", "practice", "--answers", "-"], cwd=ROOT, env=_env(sample_data, db),
                           input="\n".join(lines) + "\n", capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr
    assert _consistent(db) == 300  # the re-sent batch stores only what was lost (same keys)
    results = [json.loads(x) for x in again.stdout.splitlines()]
    assert sum(r["duplicate"] for r in results) == stored


def test_a_review_session_asks_the_wrong_question_again_then_cards(study, sample_data, tmp_path):
    me = study.profile("default")
    study.answer(me, "2024-1", "A")
    made = study.make_cards("7.1 顺序查找").made
    study.store.close()
    typed = "B\n\ngood\nq\n"  # the question, right this time; a card revealed and rated Good; quit at the next
    r = subprocess.run([sys.executable, "cli.py", "review"], cwd=ROOT, env=_env(sample_data, study.db_path),
                       input=typed, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert f"今天要复习 {1 + len(made)} 项" in r.stdout and "✓ 正确（答案 B）" in r.stdout
    assert "［____］" in r.stdout or "什么是" in r.stdout  # a card's front, a cloze's words hidden
    assert "本次复习 2 项" in r.stdout
    rows = sqlite3.connect(study.db_path).execute("SELECT item_id, mode, verdict, rating FROM attempts ORDER BY id").fetchall()
    assert rows[1:] == [("2024-1", "review", "right", 3), (made[0].item_id, "review", "self", 3)]
