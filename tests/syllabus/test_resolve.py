"""`--chapter X` → one syllabus node: the highest that contains X, saying how many matched; linear in
the node count whatever X is."""

from __future__ import annotations

import time

import pytest

from pipeline.syllabus.models import PlacementSet, placement_name, syllabus_dir
from pipeline.syllabus.place import place
from pipeline.syllabus.rules import load_rules
from pipeline.syllabus.summary import build_map
from pipeline.store import atomic_write_text
from pipeline.syllabus.view import SyllabusView
from tests.syllabus.helpers import fixture

pytestmark = pytest.mark.timeout(60)


@pytest.fixture(scope="module")
def view(tmp_path_factory):
    rules = load_rules()
    syllabus, chunks = fixture(rules)
    placement = PlacementSet(key="k", syllabus_hash=syllabus.content_hash, rules_hash="r",
                             chunks=place(syllabus, chunks, rules))
    data = tmp_path_factory.mktemp("data")
    out = syllabus_dir(data)
    atomic_write_text(out / placement_name("k"), placement.model_dump_json())
    atomic_write_text(out / "map.json", build_map(syllabus, placement, "k").model_dump_json())
    return SyllabusView.open(data)


def test_an_ambiguous_text_takes_the_highest_node_and_says_so(view):
    r = view.resolve("查找")  # also in (一)顺序查找法, (二)折半查找法
    assert r.path == ["数据结构", "三、查找"] and r.matches == 3
    assert "数据结构 › 三、查找" in r.note() and "取最高一级" in r.note()
    assert r.to_json()["matched"] == "syllabus"


def test_exact_title_wins_among_nodes_of_one_level(view):
    assert view.resolve("排序").path == ["数据结构", "四、排序"]  # not 二、图 › … › 2.拓扑排序
    assert view.resolve("树").path == ["数据结构", "一、树与二叉树"]


def test_spaces_full_width_and_paths(view):
    assert view.resolve(" 散列（Hash）表 ").path == ["数据结构", "三、查找", "(三)散列(Hash)表"]
    assert view.resolve("进程管理 › 死锁").path == ["操作系统", "一、进程管理", "(三)死锁"]
    assert view.resolve("内存管理/页面置换").path[-1] == "1.页面置换算法"
    assert view.resolve("数据结构").level == 0


def test_a_point_filters_by_its_section(view):
    r = view.resolve("页面置换")
    assert r.level == 3 and r.filter_node_id == view.resolve("虚拟内存管理").node_id
    ids = view.chunk_ids_under(r.filter_node_id)
    assert "q2030-28" in ids and "q2030-29" not in ids


def test_no_match_falls_back_to_headings(view):
    r = view.resolve("KMP")
    assert r.node_id is None and "按资料的章节标题筛选" in r.note() and r.to_json()["matched"] == "headings"


def test_chapter_filter_and_places(view):
    under = view.chunk_ids_under(view.resolve("查找").node_id)
    assert {"q2030-1"} <= under and "q2030-4" not in under
    assert view.places("q2030-4")[0].path[:2] == ["数据结构", "四、排序"]


def test_resolution_is_linear_for_long_input(view):
    started = time.perf_counter()
    for needle in ("查" * 20000, "a" * 20000 + "›" + "b" * 20000, "›" * 5000):
        assert view.resolve(needle).node_id is None
    assert time.perf_counter() - started < 5


def test_map_json_subtree_and_gaps(view):
    whole = view.map_json()
    assert whole["gaps"]["never_tested"] and all(isinstance(p, list) for p in whole["gaps"]["never_tested"])
    sub = view.map_json("查找")
    assert sub["chapter"]["path"] == ["数据结构", "三、查找"]
    assert {tuple(n["path"][:2]) for n in sub["nodes"]} == {("数据结构", "三、查找")}
    with pytest.raises(KeyError):
        view.map_json("不在考纲里")


def test_a_view_opened_before_a_new_run_reads_the_new_pair(tmp_path):
    """The writer puts placement-<key>.json, then map.json (naming it), then removes the old placement: a
    view that opened the old map finds its placement gone and reads the new pair, never a mixed one."""
    rules = load_rules()
    syllabus, chunks = fixture(rules)
    placed = place(syllabus, chunks, rules)
    out = syllabus_dir(tmp_path)

    def write(key):
        p = PlacementSet(key=key, syllabus_hash=syllabus.content_hash, rules_hash="r", chunks=placed)
        atomic_write_text(out / placement_name(key), p.model_dump_json())
        atomic_write_text(out / "map.json", build_map(syllabus, p, key).model_dump_json())
        for old in out.glob("placement-*.json"):
            if old.name != placement_name(key):
                old.unlink()

    write("a" * 64)
    view = SyllabusView.open(tmp_path)
    write("b" * 64)
    assert view.places("q2030-1") and view.key == "b" * 64
