"""What `ingest` prints when it is not on a terminal (CI logs, scripts, pipes) stays the same line for
line: the live progress display is for terminals only. The golden files were captured from the
hand-written progress line's code before the rich display replaced it; regenerate with
``EXAMRAG_GEN_TEST_DATA=1`` only for an intended change of the lines, and review the diff."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

GOLDEN = Path(__file__).parent / "golden"
GENERATE = os.environ.get("EXAMRAG_GEN_TEST_DATA", "").lower() in ("1", "true", "yes")
NOTE = "# 第一章 进程\n\n## 1.1 进程的概念\n\n进程是程序的一次执行过程，是系统进行资源分配和调度的基本单位。\n"


def normalise(text: str, *paths: Path) -> str:
    """Timings and temporary folders vary between runs; everything else must match."""
    for i, p in enumerate(paths):
        text = text.replace(str(p), f"<DIR{i}>")
    return re.sub(r"; \d+\.\d+s$", "; <T>s", text, flags=re.M)


def verify(actual: str, name: str) -> None:
    path = GOLDEN / name
    if GENERATE:
        path.write_text(actual, encoding="utf-8")
    assert path.exists(), f"missing {name}: run with EXAMRAG_GEN_TEST_DATA=1"
    assert actual == path.read_text(encoding="utf-8")


def streams(result, *paths: Path) -> str:
    return (f"exit {result.returncode}\n--- stdout\n{normalise(result.stdout, *paths)}"
            f"--- stderr\n{normalise(result.stderr, *paths)}")


@pytest.mark.timeout(60)
def test_gen_test_data_flag_is_off():
    assert not GENERATE, "EXAMRAG_GEN_TEST_DATA is set: golden files were rewritten, review and unset it"


@pytest.mark.timeout(900)
def test_sample_ingest_lines_unchanged(sample_ingest):
    """The shipped sample's first ingest, as CI sees it (the session fixture's run, stdout and stderr piped)."""
    _, result = sample_ingest
    verify(streams(result), "ingest_sample.txt")


@pytest.mark.timeout(300)
def test_problem_lines_unchanged_and_quiet_prints_the_same(cli, tmp_path):
    """A bad PDF and an empty note next to a good one: the per-file lines, the problems on stderr, the
    summary and the exit code; then the re-run (``unchanged``), which ``--quiet`` must print identically."""
    raw = tmp_path / "raw"
    raw.mkdir()
    (raw / "进程笔记.md").write_text(NOTE, encoding="utf-8")
    (raw / "坏文件.pdf").write_bytes(b"%PDF-1.4\nthis is not a pdf body\n")
    (raw / "空白.txt").write_text("", encoding="utf-8")
    data = tmp_path / "data"
    first = cli("ingest", str(raw), data_dir=data, timeout=240)
    verify(streams(first, raw), "ingest_problems.txt")
    again = cli("ingest", str(raw), data_dir=data, timeout=240)
    quiet = cli("ingest", str(raw), "--quiet", data_dir=data, timeout=240)
    verify(streams(again, raw), "ingest_problems_rerun.txt")
    assert streams(quiet, raw) == streams(again, raw)
