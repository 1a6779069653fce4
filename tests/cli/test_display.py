"""The live ingest display: what it counts (stages, the OCR pages of every PDF so far) and that it shows
on a terminal only. Its absence off a terminal is tests/cli/test_ingest_output.py's golden files."""

from __future__ import annotations

import io
import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pipeline.cli.display import RichDisplay, _short
from pipeline.events import track, watching

ROOT = Path(__file__).resolve().parents[2]


def recorded():
    from rich.console import Console

    return Console(file=io.StringIO(), force_terminal=True, width=120, record=True, color_system=None)


@pytest.mark.timeout(60)
def test_rows_count_files_and_add_up_the_ocr_pages_of_each_pdf():
    display = RichDisplay(recorded())
    with display.progress, watching(display):
        parse = track("parse", 3, "files")
        parse.update(0, "data/raw/甲.pdf")
        ocr = track("ocr", 2, "pages")
        ocr.update(2, "甲.pdf")
        ocr.close()
        parse.update(1, "data/raw/乙.pdf")
        ocr = track("ocr", 3, "pages")  # the second PDF's scanned pages join the total
        ocr.update(1, "乙.pdf")
        row = display.progress.tasks[display.rows["ocr"]]
        assert (row.completed, row.total, row.fields["note"]) == (3, 5, "乙.pdf")
        ocr.close()
        parse.close()
        track("embed", 4, "chunks", enabled=False).update(4)  # quiet: not shown
    text = display.progress.console.export_text()
    assert "3/3" in text and "files" in text and "5/5" in text and "pages" in text
    assert "embed" not in text


@pytest.mark.timeout(60)
def test_nothing_is_reported_without_a_display():
    bar = track("parse", 2)  # the base display: every call is a no-op
    bar.update(1, "x")
    bar.close()


@pytest.mark.timeout(60)
def test_long_file_names_keep_their_end():
    name = "很长的文件名" * 10 + "_扫描版.pdf"
    short = _short(f"data/raw/{name}")
    assert short.endswith("_扫描版.pdf") and short.startswith("…") and len(short) == 40


@pytest.mark.timeout(240)
def test_ingest_on_a_terminal_shows_the_stage_rows(tmp_path):
    """`ingest` with stdout and stderr on a pseudo-terminal: the stage rows, then the usual lines."""
    raw = tmp_path / "raw"
    raw.mkdir()
    (raw / "进程笔记.md").write_text("# 第一章 进程\n\n进程是资源分配的基本单位。\n", encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("EXAMRAG_") or k == "EXAMRAG_MODELS_DIR"}
    env.update(EXAMRAG_DATA_DIR=str(tmp_path / "data"), COLUMNS="120", LINES="30", TERM="xterm")
    leader, follower = pty.openpty()
    proc = subprocess.Popen([sys.executable, str(ROOT / "cli.py"), "ingest", str(raw)], cwd=ROOT, env=env,
                            stdin=subprocess.DEVNULL, stdout=follower, stderr=follower)
    os.close(follower)
    out = b""
    deadline = time.monotonic() + 200
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([leader], [], [], 1.0)
            if ready:
                try:
                    piece = os.read(leader, 65536)
                except OSError:  # the child closed the terminal
                    break
                if not piece:
                    break
                out += piece
            elif proc.poll() is not None:
                break
        assert proc.wait(timeout=30) == 0, out.decode("utf-8", "replace")
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(leader)
    text = out.decode("utf-8", "replace")
    for row in ("parse", "clean", "enrich", "index", "embed"):
        assert row in text, text
    assert "1/1" in text and "files" in text and "chunks" in text
    assert "success" in text and "1 file(s): 1 success" in text
