"""Practice items from record chunks: stem, options, answer, 评分说明, grading, figure regions, nodes."""

from __future__ import annotations

import pytest

from pipeline.models import Box, Chunk, Part
from pipeline.study.items import grade_choice, letters, parse_item_id, question_item, split_scoring
from pipeline.study.nodes import UNPLACED, nodes_of, under

STEM_DOC, BOOKLET = "d" * 16, "b" * 16


def record(number=1, text=None, qtype="choice", boxes=(), paths=(("第七章 查找", "7.2 折半查找"), ("第七章 查找", "7.1 顺序查找"))):
    text = text or (f"2024年 第{number}题（单项选择题）\n对长度为15的有序表折半查找，最多比较（）次。\nA. 3\nB. 4\nC. 5\nD. 15\n"
                    "答案：B\n解析：判定树高度为4。")
    return Chunk(chunk_id=f"r{number}", doc_id=STEM_DOC, source="paper.pdf", kind="question",
                 chapter_path=["2024年卷", "一、单项选择题", f"第{number}题"], chunk_position=1, pages=[1], text=text,
                 year=2024, number=number, qtype=qtype, chapter_paths=[list(p) for p in paths], boxes=list(boxes),
                 parts=[Part(role="stem", doc_id=STEM_DOC, source="paper.pdf", pages=[1], citation="[来源: 卷|第1页·题目]"),
                        Part(role="solution", doc_id=BOOKLET, source="key.pdf", pages=[1], citation="[来源: 答案|第1页·答案与解析]")])


def test_a_choice_record_becomes_an_item():
    item = question_item(record())
    assert item.item_id == "2024-1" and item.stem == "对长度为15的有序表折半查找，最多比较（）次。"
    assert item.options == {"A": "3", "B": "4", "C": "5", "D": "15"}
    assert (item.answer, item.analysis, item.scoring) == ("B", "判定树高度为4。", None)
    assert item.citation == "[来源: 卷|第1页·题目]" and item.solution_citation == "[来源: 答案|第1页·答案与解析]"
    assert item.nodes == [["第七章 查找", "7.2 折半查找"]]
    assert [s.chapter for s in item.sections] == ["第七章 查找 › 7.2 折半查找", "第七章 查找 › 7.1 顺序查找"]


@pytest.mark.parametrize("answer,verdict", [("B", "right"), ("b", "right"), (" B。", "right"), ("A", "wrong"),
                                            ("AB", "wrong"), ("", "wrong")])
def test_grading_a_choice(answer, verdict):
    assert grade_choice(question_item(record()), answer) == verdict


def test_a_record_without_a_letter_answer_is_not_graded():
    item = question_item(record(text="2024年 第7题（单项选择题）\n题干。\nA. 1\nB. 2\n答案：见解析\n解析：……"))
    assert grade_choice(item, "A") is None
    assert letters(" a、c ") == "AC"


def test_scoring_notes_are_split_from_the_answer():
    text = ("2024年 第41题（综合应用题）\n(10分）请回答。\n答案：（1）判定树……\n（2）ASL=3。\n"
            "评分说明：（1）3分，画对判定树即得分；（2）4分。\n解析：折半查找……")
    item = question_item(record(41, text, "comprehensive"))
    assert item.answer == "（1）判定树……\n（2）ASL=3。"
    assert item.scoring == "（1）3分，画对判定树即得分；（2）4分。" and item.analysis == "折半查找……"
    assert split_scoring("【评分标准】每问2分") == (None, "每问2分")
    assert split_scoring("没有评分说明的解析") == ("没有评分说明的解析", None)


def test_a_figure_runs_from_its_first_line_to_the_next_question():
    def lines(y0, y1, doc=STEM_DOC):
        return [Box(doc_id=doc, page=1, x0=50, y0=y0, x1=500, y1=y1), Box(doc_id=BOOKLET, page=1, x0=50, y0=10, x1=500, y1=20)]

    with_figure = record(3, "2024年 第3题（单项选择题）\n如下图所示的二叉树，其后序序列是（）。\nA. a\nB. b\n答案：A", boxes=lines(300, 330))
    nxt = record(4, boxes=lines(520, 540))
    item = question_item(with_figure, neighbours=[with_figure, nxt])
    f = item.figure
    assert (f.doc_id, f.page, f.y0, f.y1) == (STEM_DOC, 1, 296.0, 519.0) and f.x1 == -1
    last = question_item(with_figure, neighbours=[with_figure])
    assert last.figure.y1 == -1  # the last question of the page: to the bottom
    assert question_item(nxt, neighbours=[with_figure, nxt]).figure is None  # its stem points at no figure
    assert question_item(record(5, with_figure.text), neighbours=[]).figure is None  # lines never placed: no crop


def test_item_ids():
    assert parse_item_id("2024-41") == (2024, 41) and parse_item_id("2024年第41题") == (2024, 41)
    assert parse_item_id("x-3") == (None, 3) and parse_item_id("c-1234") is None and parse_item_id("41") is None


def test_nodes_until_the_syllabus_map_are_headings():
    assert nodes_of(record()) == [("第七章 查找", "7.2 折半查找")]
    assert nodes_of(record(paths=())) == [UNPLACED]
    deep = record(paths=(("第七章 查找", "7.3 树表的查找", "7.3.2 B树和B+树"),))
    assert nodes_of(deep) == [("第七章 查找", "7.3 树表的查找")] and nodes_of(deep, depth=1) == [("第七章 查找",)]
    note = record().model_copy(update={"kind": "note", "chapter_path": ["操作系统笔记", "死锁", "银行家算法"]})
    assert nodes_of(note) == [("操作系统笔记", "死锁")]
    assert under(("第七章 查找", "7.2 折半查找"), "折半") and under(("第七章 查找", "7.2 折半查找"), "第七章 查找 › 7.2 折半查找")
    assert not under(("第七章 查找",), "排序")
