"""The syllabus step end to end through `cli.py`: a syllabus PDF we make (a page footer between an item and
its children, a space inside B 树) recognised among the ingested files, re-runs that redo only what
changed, a user's syllabus.yaml, a bad rules file, and no syllabus at all."""

from __future__ import annotations

import json

import pytest

pytestmark = pytest.mark.timeout(600)

ENV = {"EXAMRAG_EMBED_MODEL": "hash"}
PAGE1 = ["计算机专业基础考试大纲（练习）", "IV 考查内容", "数据结构", "【考查目标】", "1.掌握常用的数据结构及其算法。",
         "一、查找", "(一)顺序查找法", "(二)折半查找法"]
PAGE2 = ["(三)B 树及其基本操作", "(四)散列表", "二、排序", "(一)快速排序", "(二)堆排序",
         "操作系统", "一、进程管理", "(一)进程同步与互斥", "(二)死锁"]
NOTES = {
    "search.md": "# 查找\n\n## 折半查找\n\n折半查找要求有序顺序表，判定树的高度为⌈log2(n+1)⌉，最多比较这么多次。\n\n"
                 "## 散列查找\n\n散列表用散列函数计算地址，冲突用线性探测或拉链法处理。\n",
    "sort.md": "# 排序\n\n## 快速排序\n\n快速排序选枢轴划分序列，平均时间复杂度为O(nlog2n)，不稳定。\n",
    "os.md": "# 进程管理\n\n## 死锁\n\n死锁的四个必要条件是互斥、不剥夺、请求并保持和循环等待，银行家算法可以避免死锁。\n",
}


def _syllabus_pdf(path):
    import pymupdf as fitz

    font = fitz.Font("cjk")
    doc = fitz.open()
    for n, lines in enumerate((PAGE1, PAGE2), start=1):
        page = doc.new_page()
        page.insert_font(fontname="F0", fontbuffer=font.buffer)
        for i, line in enumerate(lines):
            page.insert_text((72, 80 + 24 * i), line, fontname="F0", fontsize=12)
        page.insert_text((280, page.rect.height - 40), f"- {n} -", fontname="F0", fontsize=10)  # the footer
    doc.save(path)


@pytest.fixture
def raw(tmp_path):
    d = tmp_path / "raw"
    d.mkdir()
    for name, text in NOTES.items():
        (d / name).write_text(text, encoding="utf-8")
    _syllabus_pdf(d / "考试大纲.pdf")
    return d


def _json(r):
    assert r.returncode == 0, r.stdout + r.stderr
    return json.loads(r.stdout)


def test_pdf_syllabus_is_found_placed_and_re_placed_only_when_needed(cli, raw, tmp_path):
    data = tmp_path / "data"
    r = cli("ingest", str(raw), "--quiet", data_dir=data, env=ENV)
    assert r.returncode == 0, r.stdout + r.stderr
    assert f"success  {raw / '考试大纲.pdf'}" in r.stdout
    m = _json(cli("map", "--json", data_dir=data, env=ENV))
    chapters = [n["path"] for n in m["nodes"] if n["level"] == 1]
    assert chapters == [["数据结构", "一、查找"], ["数据结构", "二、排序"], ["操作系统", "一、进程管理"]]
    search = [n["heading"] for n in m["nodes"] if n["parent"] == m["nodes"][1]["node_id"]]
    assert search == ["(一)顺序查找法", "(二)折半查找法", "(三)B树及其基本操作", "(四)散列表"]  # across the footer
    nodes = {tuple(n["path"]): n for n in m["nodes"]}
    assert nodes[("数据结构", "一、查找", "(二)折半查找法")]["sources"] == {str(raw / "search.md"): 1}
    assert nodes[("操作系统", "一、进程管理", "(二)死锁")]["covered"]
    assert ["数据结构", "一、查找", "(三)B树及其基本操作"] in m["gaps"]["never_tested"]

    again = _json(cli("place", "--json", data_dir=data, env=ENV))
    assert again["docs"][0]["detail"].startswith("unchanged")
    for placement in (data / "syllabus").glob("placement-*.json"):  # gone by hand: placed again, not a crash
        placement.unlink()
    redone = _json(cli("place", "--json", data_dir=data, env=ENV))
    assert redone["docs"][0]["detail"].startswith("placed") and list((data / "syllabus").glob("placement-*.json"))
    assert _json(cli("questions", "--json", "--chapter", "查找", data_dir=data, env=ENV)) is not None
    rules = tmp_path / "rules.yaml"
    from pipeline.syllabus.rules import DEFAULT_RULES_FILE

    rules.write_text(DEFAULT_RULES_FILE.read_text("utf-8").replace("weight_links: 0.6", "weight_links: 0.5"), "utf-8")
    edited = _json(cli("place", "--json", data_dir=data, env={**ENV, "EXAMRAG_SYLLABUS_RULES_FILE": str(rules)}))
    assert edited["docs"][0]["detail"].startswith("placed")

    # --chapter resolves on the syllabus; stderr says which node
    r = cli("ask", "--json", "--no-llm", "--chapter", "查找", "判定树的高度", data_dir=data, env=ENV)
    out = _json(r)
    assert out["chapter"]["path"] == ["数据结构", "一、查找"] and "按考纲筛选：数据结构 › 一、查找" in r.stderr
    assert out["hits"] and all(h["source"] == str(raw / "search.md") for h in out["hits"])

    # the syllabus goes: the map goes, --chapter falls back to headings
    (raw / "考试大纲.pdf").unlink()
    r = cli("ingest", str(raw), "--quiet", data_dir=data, env=ENV)
    assert r.returncode == 0, r.stderr
    r = cli("map", data_dir=data, env=ENV)
    assert r.returncode == 1 and "no syllabus" in r.stderr
    out = _json(cli("ask", "--json", "--no-llm", "--chapter", "查找", "判定树", data_dir=data, env=ENV))
    assert out["chapter"]["matched"] == "headings"


def test_a_users_syllabus_yaml_and_a_bad_rules_file(cli, tmp_path):
    raw = tmp_path / "raw"
    raw.mkdir()
    for name, text in NOTES.items():
        (raw / name).write_text(text, encoding="utf-8")
    (raw / "syllabus.yaml").write_text("数据结构:\n  查找: [折半查找, 散列表]\n  排序: [快速排序]\n", encoding="utf-8")
    data = tmp_path / "data"
    r = cli("ingest", str(raw), "--quiet", data_dir=data, env=ENV)
    assert r.returncode == 0, r.stdout + r.stderr
    assert f"success  {raw / 'syllabus.yaml'}" in r.stdout and "skipped" not in r.stdout
    m = _json(cli("map", "--json", data_dir=data, env=ENV))
    assert [n["heading"] for n in m["nodes"] if n["level"] == 1] == ["查找", "排序"]
    assert m["counts"]["chunks_placed"] >= 3

    bad = tmp_path / "bad.yaml"
    bad.write_text("subjects: []\n", encoding="utf-8")
    r = cli("place", data_dir=data, env={**ENV, "EXAMRAG_SYLLABUS_RULES_FILE": str(bad)})
    assert r.returncode == 1 and "invalid syllabus rules" in r.stderr and len(r.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("point", ["syllabus", "syllabus:placed"])
def test_killed_before_or_during_the_syllabus_step_completes_on_rerun(cli, raw, tmp_path, point):
    """SIGKILL after the index is published but before the map is written: the reader sees no map (or the
    old one, never a placement and map from different runs); the next ingest redoes the step."""
    data = tmp_path / "data"
    killed = cli("ingest", str(raw), "--quiet", data_dir=data, env={**ENV, "EXAMRAG_TEST_KILL_AT": point})
    assert killed.returncode == -9, killed.stdout + killed.stderr
    r = cli("map", "--json", data_dir=data, env=ENV)
    assert r.returncode == 1 and "no syllabus" in r.stderr  # the map is written last
    again = cli("ingest", str(raw), "--quiet", data_dir=data, env=ENV)
    assert again.returncode == 0, again.stdout + again.stderr
    m = _json(cli("map", "--json", data_dir=data, env=ENV))
    assert m["counts"]["chunks_placed"] >= 3
    assert not list((data / "syllabus").glob(".*.tmp"))
