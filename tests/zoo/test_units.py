"""The small pieces crash safety rests on: atomic writes, the sweep after a crash, the lock, one-line
messages, and the test hook itself."""

from __future__ import annotations

import json
import os
import signal

import pytest

from pipeline import testhooks
from pipeline.errors import one_line
from pipeline.store import LockBusy, ManifestError, Store, atomic_write_text


def test_atomic_write_keeps_old_file_when_rename_fails(tmp_path, monkeypatch):
    target = tmp_path / "a.json"
    atomic_write_text(target, "old")

    def boom(*_):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(OSError):
        atomic_write_text(target, "new")
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["a.json"]


def test_sweep_removes_crash_leftovers_only(tmp_path):
    store = Store(tmp_path)
    (tmp_path / "raw").mkdir()
    (tmp_path / "raw" / ".mine.tmp").write_text("a user's file")  # data/raw is the student's, never touched
    (tmp_path / "parsed").mkdir()
    (tmp_path / "parsed" / ".x.json.k3j.tmp").write_text("{")
    (tmp_path / ".manifest.json.9a.tmp").write_text("{")
    for gen in ("gen-1", "gen-2"):
        (tmp_path / "index" / gen).mkdir(parents=True)
    (tmp_path / "index" / "current.json").write_text(json.dumps({"generation": "gen-2"}))
    gone = sorted(p.name for p in store.sweep())
    assert gone == [".manifest.json.9a.tmp", ".x.json.k3j.tmp", "gen-1"]
    assert (tmp_path / "raw" / ".mine.tmp").exists() and (tmp_path / "index" / "gen-2").exists()


def test_lock_refuses_second_writer_naming_the_first(tmp_path):
    with Store(tmp_path).lock():
        with pytest.raises(LockBusy, match=rf"another ingest is writing to {tmp_path} \(pid {os.getpid()}, since "
                                           r"\d\d:\d\d:\d\d\) after waiting 0.3s; let it finish, or pass --wait"):
            with Store(tmp_path).lock(wait=0.3):
                pass
    with Store(tmp_path).lock():  # released on exit
        pass


def test_damaged_manifest_is_a_clear_error(tmp_path):
    (tmp_path / "manifest.json").write_text('{"documents": {"x": ')
    with pytest.raises(ManifestError, match="manifest.json is damaged .*; move it away and re-run ingest"):
        Store(tmp_path).load_manifest()


@pytest.mark.parametrize("exc, line", [
    (KeyError("chapter"), "KeyError: 'chapter'"),
    (MemoryError(), "MemoryError"),
    (PermissionError(13, "Permission denied", "/x.pdf"), "[Errno 13] Permission denied: '/x.pdf'"),
    (ValueError("\n  first   line\nsecond line"), "ValueError: first line"),
    ("x" * 400, "x" * 299 + "…"),
])
def test_one_line(exc, line):
    assert one_line(exc) == line


def test_kill_point_fires_on_the_nth_visit_only(monkeypatch):
    calls = []
    monkeypatch.setattr(testhooks.os, "kill", lambda pid, sig: calls.append((pid, sig)))
    monkeypatch.setattr(testhooks, "_seen", {})
    monkeypatch.setenv("EXAMRAG_TEST_KILL_AT", "embed@2")
    testhooks.kill_point("chroma")
    testhooks.kill_point("embed")
    assert calls == []
    testhooks.kill_point("embed")
    assert calls == [(os.getpid(), signal.SIGKILL)]
    testhooks.kill_point("embed")
    assert len(calls) == 1


def test_pause_point_waits_for_the_flag_file(monkeypatch, tmp_path):
    flag = tmp_path / "paused"
    monkeypatch.setattr(testhooks, "_seen", {})
    monkeypatch.setenv("EXAMRAG_TEST_PAUSE_AT", "publish")
    monkeypatch.setenv("EXAMRAG_TEST_PAUSE_FILE", str(flag))
    monkeypatch.setattr(testhooks.time, "sleep", lambda _: flag.unlink())  # the "test" releases it at once
    testhooks.kill_point("publish")
    assert not flag.exists()


def test_a_replaced_generation_is_kept_for_its_grace_then_removed(tmp_path):
    from pipeline.store import prune_generations

    index = tmp_path / "index"
    for gen in ("gen-1", "gen-2", "gen-3"):  # gen-3: a killed writer's, never published
        (index / gen).mkdir(parents=True)
    assert [p.name for p in prune_generations(index, 600, live="gen-2", retire=("gen-1",))] == ["gen-3"]
    assert json.loads((index / "retired.json").read_text()).keys() == {"gen-1"}
    assert [p.name for p in prune_generations(index, 600, live="gen-2")] == []  # still within its grace
    assert [p.name for p in prune_generations(index, 0, live="gen-2")] == ["gen-1"]
    assert json.loads((index / "retired.json").read_text()) == {}
