"""Re-runs redo exactly what changed; deleted files leave both engines; same bytes twice = one doc."""

import json
import shutil

import pytest

NOTE_A = "# 查找\n\n## 折半查找\n\n折半查找要求顺序存储且有序，时间复杂度为O(log2 n)。\n"
NOTE_B = "# 排序\n\n## 快速排序\n\n快速排序平均时间复杂度为O(nlog2 n)，是不稳定的排序方法。\n"


@pytest.fixture
def raw(tmp_path):
    d = tmp_path / "raw"
    d.mkdir()
    (d / "a.md").write_text(NOTE_A, encoding="utf-8")
    (d / "b.md").write_text(NOTE_B, encoding="utf-8")
    return d


def _ingest(cli, raw, data):
    r = cli("ingest", str(raw), "--quiet", data_dir=data, env={"EXAMRAG_EMBED_MODEL": "hash"})
    assert r.returncode == 0, r.stdout + r.stderr
    return r


def _status(cli, data):
    return json.loads(cli("status", "--json", data_dir=data, env={"EXAMRAG_EMBED_MODEL": "hash"}).stdout)


def _ask(cli, data, q):
    r = cli("ask", "--json", "--no-llm", q, data_dir=data, env={"EXAMRAG_EMBED_MODEL": "hash"})
    return json.loads(r.stdout)


@pytest.mark.timeout(420)  # measured 119 s on 2 busy cores
def test_change_delete_and_duplicate(cli, raw, tmp_path):
    data = tmp_path / "data"
    _ingest(cli, raw, data)
    manifest = json.loads((data / "manifest.json").read_text())
    before = {d["sources"][0]: d["stages"]["parse"]["finished_at"] for d in manifest["documents"].values()}
    c = _status(cli, data)["counts"]
    assert c["manifest_chunks"] == c["bm25_chunks"] == c["vector_chunks"] == 2

    # change b only: a is not re-parsed, b's old chunk leaves both engines
    (raw / "b.md").write_text(NOTE_B.replace("不稳定", "不稳定（枢轴选择影响性能）"), encoding="utf-8")
    r = _ingest(cli, raw, data)
    assert "newly embedded 1, removed 1" in r.stdout
    manifest = json.loads((data / "manifest.json").read_text())
    after = {d["sources"][0]: d["stages"]["parse"]["finished_at"] for d in manifest["documents"].values()}
    assert after[str(raw / "a.md")] == before[str(raw / "a.md")]
    assert len(manifest["documents"]) == 2
    hits = _ask(cli, data, "快速排序 枢轴")["hits"]
    assert any("枢轴" in h["text"] for h in hits)

    # the same bytes under a second name: one document, two sources
    shutil.copy(raw / "a.md", raw / "a 副本 📚.md")
    r = _ingest(cli, raw, data)
    assert "newly embedded 0, removed 0" in r.stdout
    docs = _status(cli, data)["documents"]
    assert sorted(len(d["sources"]) for d in docs) == [1, 2]

    # delete b: no ghost hits, counts agree
    (raw / "b.md").unlink()
    r = _ingest(cli, raw, data)
    assert "removed 1" in r.stdout
    c = _status(cli, data)["counts"]
    assert c["manifest_chunks"] == c["bm25_chunks"] == c["vector_chunks"] == 1
    assert all("快速排序" not in h["text"] for h in _ask(cli, data, "快速排序")["hits"])


def test_bad_files_fail_alone_with_clear_lines(cli, raw, tmp_path):
    (raw / "empty.pdf").write_bytes(b"")
    (raw / "broken.pdf").write_bytes(b"%PDF-1.7\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF")
    (raw / "junk.md").write_bytes(bytes(range(256)) * 50)
    data = tmp_path / "data"
    r = cli("ingest", str(raw), "--quiet", data_dir=data, env={"EXAMRAG_EMBED_MODEL": "hash"})
    assert r.returncode == 1
    assert f"{raw / 'empty.pdf'}: parse: empty file (0 bytes)" in r.stderr
    assert f"{raw / 'broken.pdf'}: parse: " in r.stderr
    assert f"{raw / 'junk.md'}: parse: binary file, not text" in r.stderr
    assert "failed   " + str(raw / "junk.md") in r.stdout
    c = _status(cli, data)["counts"]
    assert c["manifest_chunks"] == c["bm25_chunks"] == c["vector_chunks"] == 2
