"""The syllabus commands' contract on the shipped sample (its own 考试大纲（样例）.md): `map`, and the
syllabus fields and filters of `questions` and `ask`."""

from __future__ import annotations

import json
from collections import Counter

import pytest

pytestmark = pytest.mark.timeout(900)


def _json(r):
    assert r.returncode == 0, r.stdout + r.stderr
    return json.loads(r.stdout)


def test_map_json_counts_add_up_per_year(cli, sample_data):
    m = _json(cli("map", "--json", data_dir=sample_data))
    assert m["source"].endswith("考试大纲（样例）.md")
    assert [n["heading"] for n in m["nodes"] if n["level"] == 0] == ["数据结构", "计算机组成原理", "操作系统", "计算机网络"]
    rows = _json(cli("questions", "--json", data_dir=sample_data))
    assert all(r["syllabus_path"] for r in rows), "every sample question is placed"
    for node in (n for n in m["nodes"] if n["level"] == 1):
        placed = Counter(str(r["year"]) for r in rows if any(p[:2] == node["path"] for p in r["syllabus_paths"]))
        assert node["by_year"] == dict(placed), node["heading"]
        assert len(node["questions"]) == sum(node["by_year"].values())
    gaps = m["gaps"]
    assert ["计算机组成原理", "一、数据的表示和运算"] in gaps["never_tested"]
    assert not any(n["covered"] for n in m["nodes"] if n["path"][0] == "计算机组成原理")  # no material on it


def test_questions_json_fields_and_chapter_filter(cli, sample_data):
    rows = _json(cli("questions", "--json", data_dir=sample_data))
    assert {"syllabus_path", "syllabus_confidence", "syllabus_paths"} <= set(rows[0])
    assert all(0 <= r["syllabus_confidence"] <= 1 for r in rows)
    r = cli("questions", "--json", "--chapter", "查找", data_dir=sample_data)
    found = _json(r)
    assert "按考纲筛选：数据结构 › 三、查找" in r.stderr
    assert found and all(any(p[:2] == ["数据结构", "三、查找"] for p in q["syllabus_paths"]) for q in found)
    assert (2024, 1) in {(q["year"], q["number"]) for q in found}  # 折半查找, the README's first question
    text = cli("questions", "--chapter", "查找", data_dir=sample_data)
    assert "数据结构 › 三、查找" in text.stdout


def test_ask_says_which_node_it_filtered_on(cli, sample_data):
    r = cli("ask", "--json", "--no-llm", "--chapter", "查找", "折半查找的时间复杂度是多少？", data_dir=sample_data)
    out = _json(r)
    assert out["chapter"]["matched"] == "syllabus" and out["chapter"]["path"] == ["数据结构", "三、查找"]
    assert out["chapter"]["matches"] > 1 and "取最高一级" in r.stderr
    assert out["hits"] and all(h["source"] != "data/raw/考试大纲（样例）.md" for h in out["hits"])


def test_map_text_and_a_node(cli, sample_data):
    r = cli("map", data_dir=sample_data)
    assert r.returncode == 0, r.stderr
    assert "三、查找" in r.stdout and "考过但资料未覆盖" in r.stdout and "从未考过" in r.stdout
    sub = _json(cli("map", "--json", "进程管理", data_dir=sample_data))
    assert {n["path"][1] for n in sub["nodes"]} == {"一、进程管理"}
    r = cli("map", "没有这个考点", data_dir=sample_data)
    assert r.returncode == 1 and "no syllabus node matches" in r.stderr
