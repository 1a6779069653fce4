"""bench/ is a package run as ``python -m bench NAME``: no module edits ``sys.path`` (the runner puts the repo
root first), and names say what is measured, not that it is a benchmark (``bench/syllabus.py``)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

pytestmark = pytest.mark.timeout(60)

BENCH = Path(__file__).resolve().parents[2] / "bench"


def _sys_path_edits(source: str) -> list[int]:
    return [n.lineno for n in ast.walk(ast.parse(source))
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
            and n.func.attr in {"insert", "append"} and ast.unparse(n.func.value) == "sys.path"]


def test_no_benchmark_edits_sys_path():
    bad = [f"{p.relative_to(BENCH.parent)}:{line}" for p in sorted(BENCH.rglob("*.py"))
           for line in _sys_path_edits(p.read_text("utf-8"))]
    assert bad == []


def test_benchmark_names_have_no_bench_prefix():
    assert [p.name for p in BENCH.rglob("bench_*.py")] == []


def test_the_check_sees_an_edit():
    assert _sys_path_edits("import sys\nsys.path.insert(0, 'x')\n") == [2]
    assert _sys_path_edits("paths.insert(0, 'x')\n") == []
