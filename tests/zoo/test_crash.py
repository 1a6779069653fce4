"""Crash safety: ``ingest`` killed with SIGKILL at named points (``EXAMRAG_TEST_KILL_AT``, see
pipeline/testhooks.py) or mid-OCR, and Ctrl-C. After a re-run, Chroma = BM25 = catalog = manifest chunks,
no chunk id twice, no chunk of a deleted file, no temp files or orphan index generations left."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest
from harness import ROOT, assert_whole, ingest, manifest, run, start, start_paused
from zoo import corpus

SCAN = ROOT / "data" / "raw" / "2024年计算机专业基础综合模拟卷_扫描版.pdf"
INTERRUPTED = "Interrupted: finished documents are kept; run the same command again to continue."


def leftovers(data: Path) -> list[str]:
    """Temp files and generations a crash left: not the live generation, nor replaced ones kept for readers
    (``index/retired.json``, removed after generation_grace)."""
    gens = {p.name for p in (data / "index").glob("gen-*")}
    retired = data / "index" / "retired.json"
    gens -= set(json.loads(retired.read_text())) if retired.exists() else set()
    live = json.loads((data / "index" / "current.json").read_text())["generation"]
    return sorted([p.name for p in data.rglob(".*.tmp") if "chroma" not in p.parts] + list(gens - {live}))


@pytest.mark.parametrize("point", ["parse:after_write@2", "index:before_write", "embed@2", "chroma@2", "publish"])
def test_killed_first_ingest_completes_on_rerun(tmp_path, point):
    raw, data = corpus(tmp_path / "raw"), tmp_path / "data"
    killed = ingest(raw, data, env={"EXAMRAG_TEST_KILL_AT": point})
    assert killed.returncode == -signal.SIGKILL, killed.stdout + killed.stderr
    again = ingest(raw, data)
    assert again.returncode == 0, again.stdout + again.stderr
    counts = assert_whole(data)
    assert counts["documents"] == 4 and counts["manifest_chunks"] > 130
    assert leftovers(data) == []
    third = ingest(raw, data)
    assert "newly embedded 0, removed 0" in third.stdout


@pytest.mark.parametrize("point", ["chroma@1", "publish"])
def test_killed_incremental_ingest_drops_deleted_file(tmp_path, point):
    raw, data = corpus(tmp_path / "raw"), tmp_path / "data"
    assert ingest(raw, data).returncode == 0
    gone = next(d["doc_id"] for d in manifest(data)["documents"].values() if d["sources"][0].endswith("b.md"))
    (raw / "b.md").unlink()
    (raw / "c.md").write_text("# 图\n\n## 最短路径\n\nDijkstra算法不能处理负权边。\n", "utf-8")
    killed = ingest(raw, data, env={"EXAMRAG_TEST_KILL_AT": point})
    assert killed.returncode == -signal.SIGKILL
    # ask still answers from the last published generation meanwhile
    asked = run("ask", "--json", "--no-llm", "折半查找的时间复杂度", data=data)
    assert asked.returncode == 0 and json.loads(asked.stdout)["hits"], asked.stderr
    again = ingest(raw, data)
    assert again.returncode == 0, again.stderr
    assert_whole(data)
    assert leftovers(data) == []
    assert gone not in {json.loads(p.read_text())["doc_id"] for p in (data / "index" / "docs").glob("*.json")}
    hits = json.loads(run("ask", "--json", "--no-llm", "快速排序 不稳定", data=data).stdout)["hits"]
    assert all("快速排序" not in h["text"] and not h["source"].endswith("b.md") for h in hits)


def test_ctrl_c_stops_cleanly_with_130(tmp_path):
    raw, data = corpus(tmp_path / "raw"), tmp_path / "data"
    proc = start_paused(raw, data, "embed@2", tmp_path / "paused")
    os.kill(proc.pid, signal.SIGINT)
    rc, out, err = proc.finish(timeout=120)
    assert rc == 130, out + err
    assert err.strip().splitlines()[-1] == INTERRUPTED and "Traceback" not in err
    assert {d["stages"].get("index", {}).get("status") for d in manifest(data)["documents"].values()} == {"success"}
    again = ingest(raw, data)
    assert again.returncode == 0, again.stderr
    assert assert_whole(data)["documents"] == 4


def _children(pid: int) -> list[int]:
    """The OCR pool's worker processes (the resource tracker exits by itself once they are gone)."""
    r = subprocess.run(["pgrep", "-P", str(pid), "-f", "spawn_main"], capture_output=True, text=True, timeout=10)
    return [int(x) for x in r.stdout.split()]


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def _during_ocr(raw: Path, data: Path, env: dict | None = None):
    """Start ingest on a scanned PDF and return (process, its OCR worker pids) once OCR workers run."""
    proc = start("ingest", str(raw), "--quiet", data=data, env=env)
    deadline = time.monotonic() + 180
    while len(kids := _children(proc.pid)) < 2:  # ocr_workers defaults to 2
        if proc.poll() is not None or time.monotonic() > deadline:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
            raise AssertionError(f"OCR workers never started: {proc.finish()}")
        time.sleep(0.05)
    time.sleep(0.5)  # OCR under way
    return proc, kids


@pytest.fixture(scope="module")
def killed_mid_ocr(tmp_path_factory):
    """ingest with the real default models (rapidocr, USE embeddings), SIGKILLed while OCR workers run."""
    root = tmp_path_factory.mktemp("ocr_kill")
    raw, data = root / "raw", root / "data"
    raw.mkdir()
    (raw / SCAN.name).write_bytes(SCAN.read_bytes())
    (raw / "a.md").write_text("# 查找\n\n## 折半查找\n\n折半查找要求顺序存储且有序。\n", "utf-8")
    env = {"EXAMRAG_EMBED_MODEL": "use"}
    proc, kids = _during_ocr(raw, data, env)
    os.kill(proc.pid, signal.SIGKILL)
    rc = proc.proc.wait(timeout=60)
    parsed_scan = any(SCAN.name in json.loads(p.read_text())["source"] for p in (data / "parsed").glob("*.json"))
    time.sleep(3)
    orphans = [k for k in kids if _alive(k)]
    for k in orphans:  # never leave them behind, whatever the test says
        os.kill(k, signal.SIGKILL)
    return raw, data, env, rc, parsed_scan, orphans


def test_sigkill_during_ocr_then_rerun_with_real_models(killed_mid_ocr):
    raw, data, env, rc, parsed_scan, _ = killed_mid_ocr
    assert rc == -signal.SIGKILL and not parsed_scan
    again = ingest(raw, data, env=env)
    assert again.returncode == 0, again.stdout + again.stderr
    counts = assert_whole(data)
    assert counts["documents"] == 2 and counts["embed_model"].startswith("use")
    hits = json.loads(run("ask", "--json", "--no-llm", "2024年第41题", data=data, env=env).stdout)["hits"]
    assert hits[0]["source"].endswith(SCAN.name)


def test_sigkill_during_ocr_leaves_no_worker_behind(killed_mid_ocr):
    """OCR workers set PR_SET_PDEATHSIG, so they die with a SIGKILLed parent."""
    assert killed_mid_ocr[-1] == []


def test_ctrl_c_in_terminal_during_ocr(tmp_path):
    """Ctrl-C in a terminal signals the whole process group: the parent and its OCR workers."""
    raw, data = tmp_path / "raw", tmp_path / "data"
    raw.mkdir()
    (raw / SCAN.name).write_bytes(SCAN.read_bytes())
    proc, kids = _during_ocr(raw, data)
    started = time.monotonic()
    os.killpg(proc.pid, signal.SIGINT)
    try:
        rc, out, err = proc.finish(timeout=120)
        assert rc == 130, out + err
        assert INTERRUPTED in err
        assert time.monotonic() - started < 30
        time.sleep(1)
        assert [k for k in kids if _alive(k)] == []
    finally:
        for k in kids:
            if _alive(k):
                os.kill(k, signal.SIGKILL)
