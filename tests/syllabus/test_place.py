"""Placement on our own small labelled fixture (tests/syllabus/helpers.py): notes by their headings,
past-paper questions by their text, their 考查 line, their linked notes and (weakly) their number."""

from __future__ import annotations

import pytest

from pipeline.syllabus.parts import question_parts
from pipeline.syllabus.place import place
from pipeline.syllabus.rules import load_rules
from pipeline.syllabus.summary import build_map
from pipeline.syllabus.models import PlacementSet
from tests.syllabus.helpers import NOTES, QUESTIONS, chunk, fixture, question_chunk

pytestmark = pytest.mark.timeout(60)


@pytest.fixture(scope="module")
def rules():
    return load_rules()


@pytest.fixture(scope="module")
def placed(rules):
    syllabus, chunks = fixture(rules)
    return syllabus, {p.chunk_id: p for p in place(syllabus, chunks, rules)}


@pytest.mark.parametrize("q", QUESTIONS, ids=[f"{q[0]}-{q[1]}" for q in QUESTIONS])
def test_questions_land_where_a_reader_puts_them(placed, q):
    year, number, *_, expected = q
    p = placed[1][f"q{year}-{number}"]
    assert p.places, "every question with evidence is placed"
    assert p.places[0].path[: len(expected)] == expected
    assert 0.0 <= p.places[0].confidence <= 1.0
    assert p.points == 2  # a choice question's default marks


def test_notes_follow_the_syllabus_not_their_file_layout(placed):
    """查找 › 树形查找 › 平衡二叉树 sits where the syllabus puts 平衡二叉树 (under 树); 图 › 图的应用 ›
    拓扑排序 stays under 图 although it says 排序."""
    by_text = {text: p for (_, _, text), p in zip(NOTES, [placed[1][f"n{i}"] for i in range(len(NOTES))])}
    avl = next(p for t, p in by_text.items() if t.startswith("平衡二叉树"))
    assert avl.places[0].path[:2] == ["数据结构", "一、树与二叉树"]
    topo = next(p for t, p in by_text.items() if t.startswith("拓扑排序"))
    assert topo.places[0].path[:2] == ["数据结构", "二、图"]
    binary = next(p for t, p in by_text.items() if t.startswith("折半查找"))
    assert binary.places[0].path == ["数据结构", "三、查找", "(二)折半查找法"]


def test_the_syllabus_documents_own_chunks_are_not_material(placed):
    assert "s1" not in placed[1]


def test_a_comprehensive_question_spanning_two_chapters_carries_both(rules):
    syllabus, chunks = fixture(rules)
    q = question_chunk(2031, 41, "comprehensive",
                       "（15分）对有序表先用折半查找确定插入位置并画出判定树，再用快速排序的枢轴划分和堆排序的大根堆调整说明排序过程",
                       "折半查找的判定树；快速排序的划分；堆排序建堆。", [["查找", "折半查找"], ["排序", "快速排序"]])
    placements = {p.chunk_id: p for p in place(syllabus, chunks + [q], rules)}
    got = placements[q.chunk_id]
    assert {p.path[1] for p in got.places} == {"三、查找", "四、排序"}
    assert got.places[1].confidence <= got.places[0].confidence
    assert got.points == 15  # from the stem


def test_the_focus_line_outweighs_a_misleading_stem(rules):
    syllabus, chunks = fixture(rules)
    q = question_chunk(2032, 7, "choice", "某表采用下列方法处理，关于它的说法正确的是", "本题考查散列表的线性探测和堆积。", [])
    got = {p.chunk_id: p for p in place(syllabus, chunks + [q], rules)}[q.chunk_id]
    assert got.places[0].path[:3] == ["数据结构", "三、查找", "(三)散列(Hash)表"]
    assert question_parts(q.text, rules).focus == ["散列表的线性探测和堆积"]


def test_without_evidence_nothing_is_placed(rules):
    syllabus, chunks = fixture(rules)
    odd = chunk("x", "note", "notes/misc.md", ["杂记"], "今天天气很好，适合出门散步。")
    got = {p.chunk_id: p for p in place(syllabus, chunks + [odd], rules)}["x"]
    assert got.places == []


def test_map_counts_add_up(placed, rules):
    syllabus, by_id = placed
    m = build_map(syllabus, PlacementSet(key="k", syllabus_hash=syllabus.content_hash, rules_hash="r",
                                         chunks=list(by_id.values())), "k")
    nodes = {n.node_id: n for n in m.nodes}
    subjects = [n for n in m.nodes if n.level == 0]
    assert sum(sum(n.by_year.values()) for n in subjects) == len(QUESTIONS)
    for n in m.nodes:  # a node's questions are its children's and its own, never fewer than any child's
        kids = [k for k in m.nodes if k.parent == n.node_id]
        assert all(set(q.chunk_id for q in k.questions) <= set(q.chunk_id for q in n.questions) for k in kids)
        assert n.chunks >= max((k.chunks for k in kids), default=0)
    memory = next(n for n in m.nodes if n.heading == "二、内存管理")
    assert memory.by_year == {"2030": 1} and memory.covered and memory.tested
    untested = {tuple(nodes[i].path) for i in m.gaps_untested}
    assert ("数据结构", "二、图", "(一)图的遍历") in untested
