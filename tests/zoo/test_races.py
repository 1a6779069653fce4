"""Files that cannot be read, files deleted or changed while ingest runs, and --abort-on-error.

Unreadable files: the tests run as root, and root reads a ``chmod 000`` file anyway, so the permission
error is simulated by making the read raise ``PermissionError`` in-process (the same exception the
kernel gives a normal user). The real ``chmod 000`` test runs only when not root.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from harness import assert_whole, ingest, manifest, start_paused
from typer.testing import CliRunner

NOTE = "# 第{n}章\n\n## 要点\n\n第{n}份笔记：{text}。\n"


def _notes(raw: Path, **texts: str) -> dict[str, Path]:
    raw.mkdir(parents=True, exist_ok=True)
    out = {}
    for i, (name, text) in enumerate(sorted(texts.items()), start=1):
        out[name] = raw / f"{name}.md"
        out[name].write_text(NOTE.format(n=i, text=text), encoding="utf-8")
    return out


def _cli(monkeypatch, tmp_path, *args):
    import cli

    monkeypatch.setenv("EXAMRAG_EMBED_MODEL", "hash")
    monkeypatch.setenv("EXAMRAG_DATA_DIR", str(tmp_path / "data"))
    return CliRunner().invoke(cli.app, list(args))


def test_unreadable_at_scan_fails_alone(monkeypatch, tmp_path):
    import pipeline.parse.discover as discover

    paths = _notes(tmp_path / "raw", a="折半查找要求有序", secret="加锁的文件")
    real = discover.sha256_file

    def sha(path):
        if Path(path) == paths["secret"]:
            raise PermissionError(13, "Permission denied", str(path))
        return real(path)

    monkeypatch.setattr(discover, "sha256_file", sha)
    r = _cli(monkeypatch, tmp_path, "ingest", str(tmp_path / "raw"), "--quiet")
    assert r.exit_code == 1
    assert f"failed   {paths['secret']}" in r.stdout.splitlines()
    assert f"success  {paths['a']}" in r.stdout.splitlines()
    assert r.stderr.strip() == f"{paths['secret']}: parse: cannot read (Permission denied)"
    assert manifest(tmp_path / "data")["failures"] == {str(paths["secret"]): "cannot read (Permission denied)"}


def test_unreadable_at_parse_fails_alone(monkeypatch, tmp_path):
    """Readable when scanned, then not (permissions changed mid-run)."""
    import pipeline.parse.stage as parse_stage

    paths = _notes(tmp_path / "raw", a="折半查找要求有序", secret="加锁的文件")
    real = parse_stage.parse_file

    def parse(path, source, *a, **kw):
        if Path(path) == paths["secret"]:
            raise PermissionError(13, "Permission denied", str(path))
        return real(path, source, *a, **kw)

    monkeypatch.setattr(parse_stage, "parse_file", parse)
    r = _cli(monkeypatch, tmp_path, "ingest", str(tmp_path / "raw"), "--quiet")
    assert r.exit_code == 1
    assert r.stderr.strip() == f"{paths['secret']}: parse: cannot read (Permission denied)"


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads chmod 000 files; simulated in the tests above")
def test_chmod_000_for_real(tmp_path):
    paths = _notes(tmp_path / "raw", a="折半查找要求有序", secret="加锁的文件")
    paths["secret"].chmod(0)
    r = ingest(tmp_path / "raw", tmp_path / "data")
    assert r.returncode == 1
    assert f"{paths['secret']}: parse: cannot read (Permission denied)" in r.stderr


def test_deleted_and_changed_while_ingest_runs(tmp_path):
    """Paused right after the scan: one file is deleted, one rewritten. Neither crashes the run; each gets
    a clear line; the next run picks up the new version and forgets the deleted file."""
    raw, data = tmp_path / "raw", tmp_path / "data"
    paths = _notes(raw, keep="折半查找要求有序", gone="快速排序不稳定", edited="旧版本的内容")
    proc = start_paused(raw, data, "discovered", tmp_path / "paused")
    paths["gone"].unlink()
    paths["edited"].write_text(NOTE.format(n=9, text="新版本的内容：堆排序"), encoding="utf-8")
    (tmp_path / "paused").unlink()
    rc, out, err = proc.finish()
    assert rc == 1, out + err
    lines = [ln.strip() for ln in err.splitlines()]
    assert f"{paths['gone']}: parse: file disappeared while ingest was running ({paths['gone']}); re-run ingest" in lines
    assert f"{paths['edited']}: parse: file changed while ingest was running; re-run ingest to pick up the new version" in lines
    assert f"success  {paths['keep']}" in out.splitlines()
    assert "Traceback" not in err

    again = ingest(raw, data)
    assert again.returncode == 0, again.stdout + again.stderr
    assert assert_whole(data)["manifest_chunks"] == 2
    docs = manifest(data)["documents"].values()
    assert sorted(s for d in docs for s in d["sources"]) == sorted([str(paths["keep"]), str(paths["edited"])])
    texts = "".join(c["text"] for p in (data / "index" / "docs").glob("*.json")
                    for c in json.loads(p.read_text())["chunks"])
    assert "新版本的内容" in texts and "旧版本的内容" not in texts and "快速排序" not in texts


def test_abort_on_error_stops_at_first_failure(tmp_path):
    raw, data = tmp_path / "raw", tmp_path / "data"
    _notes(raw, a="折半查找要求有序", b="快速排序不稳定")
    (raw / "junk.md").write_bytes(bytes(range(256)) * 8)
    r = ingest(raw, data, "--abort-on-error")
    assert r.returncode == 1
    assert f"{raw / 'junk.md'}: parse: binary file, not text" in r.stderr
    assert "(stopped at the first failure: --abort-on-error)" in r.stdout
    assert "chunks" not in r.stdout.splitlines()[-1]  # never reached the index stage
    assert not (data / "index" / "current.json").exists()
    stages = [set(d["stages"]) for d in manifest(data)["documents"].values()]
    assert all(s <= {"parse"} for s in stages)  # nothing went past parse


def test_abort_on_error_at_scan(tmp_path):
    raw, data = tmp_path / "raw", tmp_path / "data"
    _notes(raw, a="折半查找要求有序")
    (raw / "empty.pdf").write_bytes(b"")
    r = ingest(raw, data, "--abort-on-error")
    assert r.returncode == 1
    assert r.stderr.strip() == f"{raw / 'empty.pdf'}: parse: empty file (0 bytes)"
    assert all(d["stages"] == {} for d in manifest(data)["documents"].values())
