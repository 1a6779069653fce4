"""The shipped sample: documents only, every one ingested, and reproducible from its generator."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "data" / "raw"


@pytest.mark.timeout(240)  # measured 39 s on 2 busy cores
def test_fresh_sample_ingests_with_only_success_lines(cli, copy_of_sample, tmp_path):
    """What a student sees on a fresh clone: one `success` line per file, nothing skipped or failed."""
    names = sorted(p.name for p in copy_of_sample.iterdir())
    r = cli("ingest", str(copy_of_sample), "--quiet", data_dir=tmp_path / "data")
    assert r.returncode == 0, r.stdout + r.stderr
    *file_lines, summary = r.stdout.splitlines()
    assert [ln.split(None, 1)[0] for ln in file_lines] == ["success"] * len(names), r.stdout
    assert sorted(ln.rsplit("/", 1)[-1] for ln in file_lines) == names
    assert re.match(rf"{len(names)} file\(s\): {len(names)} success; chunks \d+", summary), summary
    assert r.stderr == "", r.stderr  # no problem lines


def test_generator_reproduces_the_shipped_files(tmp_path):
    """scripts/make_sample.py writes byte-identical files (pinned pymupdf/numpy, fixed dates, seeded noise)."""
    out = tmp_path / "raw"
    r = subprocess.run([sys.executable, str(ROOT / "scripts" / "make_sample.py"), "--out", str(out)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    shipped = sorted(p.name for p in SAMPLE.iterdir())
    assert sorted(p.name for p in out.iterdir()) == shipped
    for name in shipped:
        assert (out / name).read_bytes() == (SAMPLE / name).read_bytes(), name
