"""Two writers, and readers during a write.

Decision: a second ``ingest`` on the same data dir does not queue silently. It exits 1 at once with a
message naming the running ingest's pid, unless given ``--wait SECONDS``, in which case it waits up to
that long for the lock and then runs (or exits 1 the same way). ``ask`` takes no lock: it reads the last
published index generation, so it works while an ingest is writing the next one.
"""

from __future__ import annotations

import json
import re

import pytest
from harness import assert_whole, ingest, run, start, start_paused
from zoo import corpus

pytestmark = pytest.mark.timeout(300)  # real ingests racing asks: up to 43 s a test (2 busy cores)


@pytest.fixture
def raw(tmp_path):
    return corpus(tmp_path / "raw")


def test_second_ingest_is_refused_or_waits(tmp_path, raw):
    data, flag = tmp_path / "data", tmp_path / "paused"
    first = start_paused(raw, data, "discovered", flag)
    busy = ingest(raw, data)
    assert busy.returncode == 1
    pattern = (rf"Error: another ingest is writing to {re.escape(str(data))} \(pid {first.pid}, since \d\d:\d\d:\d\d\)"
               r"{waited}; let it finish, or pass --wait SECONDS to wait for it")
    assert re.fullmatch(pattern.format(waited=""), busy.stderr.strip()), busy.stderr
    assert busy.stdout == ""
    short = ingest(raw, data, "--wait", "1")
    assert short.returncode == 1
    assert re.fullmatch(pattern.format(waited=" after waiting 1s"), short.stderr.strip()), short.stderr
    patient = start("ingest", str(raw), "--quiet", "--wait", "300", data=data)
    flag.unlink()  # let the first one finish; the patient one then takes the lock
    rc, out, err = first.finish()
    assert rc == 0, out + err
    rc, out, err = patient.finish()
    assert rc == 0, out + err
    assert "newly embedded 0, removed 0" in out
    assert_whole(data)


@pytest.mark.parametrize("point", ["embed", "chroma", "publish"])
def test_ask_while_ingest_writes(tmp_path, raw, point):
    data, flag = tmp_path / "data", tmp_path / "paused"
    assert ingest(raw, data).returncode == 0
    (raw / "d.md").write_text("# 网络\n\n## 拥塞控制\n\n慢开始门限ssthresh在超时后减半。\n", "utf-8")
    (raw / "b.md").unlink()
    writer = start_paused(raw, data, point, flag)
    try:
        asked = run("ask", "--json", "--no-llm", "折半查找的时间复杂度", data=data)
        assert asked.returncode == 0, asked.stderr
        hits = json.loads(asked.stdout)["hits"]
        assert hits and hits[0]["source"].endswith("a.md")
        assert run("status", "--json", data=data).returncode == 0
    finally:
        flag.unlink(missing_ok=True)
    rc, out, err = writer.finish()
    assert rc == 0, out + err
    assert_whole(data)
    hits = json.loads(run("ask", "--json", "--no-llm", "慢开始门限 超时", data=data).stdout)["hits"]
    assert hits[0]["source"].endswith("d.md")
