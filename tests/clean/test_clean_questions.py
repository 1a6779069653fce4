"""questions: splitting papers into Question records, and its helpers."""

from __future__ import annotations

import pytest

from pipeline.clean.rules.question_parts import (answer_entry, compact_answers, find_year, parse_options,
                                                 split_markers)
from pipeline.clean.rules.questions import is_paper, questions
from pipeline.models import Block

TITLE = "2024年全国硕士研究生招生考试计算机学科专业基础试题"


def paper_blocks(*texts: str, page: int = 1) -> list[Block]:
    return [Block(text=t, page=page, chapter_path=[TITLE]) for t in texts]


@pytest.mark.parametrize("title, name, year", [
    ("2019年全国硕士研究生招生考试", "x.pdf", 2019), ("", "2021-408真题.pdf", 2021), ("", "真题2015.pdf", 2015),
    ("19年计算机真题", "x.pdf", 2019), ("408真题", "x.pdf", None), ("", "408-19.pdf", None),
])
def test_find_year(rules, title, name, year):
    assert find_year(rules.questions.year_patterns, title, name) == year


@pytest.mark.parametrize("body, stem, options", [
    ("下列正确的是（  ）。\nA．栈 B．队列 C．树 D．图", "下列正确的是（  ）。", {"A": "栈", "B": "队列", "C": "树", "D": "图"}),
    ("下列正确的是\nA. 栈\nB. 队列\nC. 树\nD. 图", "下列正确的是", {"A": "栈", "B": "队列", "C": "树", "D": "图"}),
    ("n的值是\nA．56    B．57\nC．58    D．60", "n的值是", {"A": "56", "B": "57", "C": "58", "D": "60"}),
    ("设A．B为集合，则\nA、仅I\nB、仅II", "设A．B为集合，则", {"A": "仅I", "B": "仅II"}),
    ("没有选项的题目", "没有选项的题目", {}),
])
def test_parse_options(rules, body, stem, options):
    assert parse_options(rules.questions.option_pattern, body) == (stem, options)


def test_split_markers(rules):
    q = rules.questions
    assert split_markers(q, "题干\n【答案】C\n【解析】因为……") == ("题干\n", "C", "因为……")
    assert split_markers(q, "题干 解析：先分析。答案：D") == ("题干 ", "D", "先分析。")
    assert split_markers(q, "请分析下列答案的正确性") == ("请分析下列答案的正确性", None, None)


def test_answer_entry(rules):
    q = rules.questions
    assert answer_entry(q, "【答案】C。\n【解析】略。", "choice") == ("C", "略。")
    assert answer_entry(q, "B 树的后根遍历对应中序遍历。", "choice") == ("B", "树的后根遍历对应中序遍历。")
    assert answer_entry(q, "（1）思想……\n（2）代码……", "comprehensive") == ("（1）思想……\n（2）代码……", None)


def test_compact_answers():
    assert compact_answers("1.C 2.B 3．D") == {1: "C", 2: "B", 3: "D"}
    assert compact_answers("1～5 CBDAA") == {1: "C", 2: "B", 3: "D", 4: "A", 5: "A"}
    assert compact_answers("1．C") == {}
    assert compact_answers("1. 设有数组") == {}


def test_not_a_paper_without_section_title(make_work):
    work = make_work([Block(text="1. 第一点。\n2. 第二点。\n3. 第三点。")], kind="textbook")
    assert not is_paper(work)
    questions(work)
    assert work.questions == [] and work.kind == "textbook"


def test_paper_detected_by_content(make_work):
    work = make_work(paper_blocks("一、单项选择题", "1．甲\nA．a B．b", "2．乙\nA．a B．b", "3．丙\nA．a B．b"),
                     kind="note", title=TITLE)
    assert is_paper(work)
    questions(work)
    assert [q.number for q in work.questions] == [1, 2, 3]
    assert work.kind == "paper"


def test_split_paper(make_work, lines_of):
    blocks = paper_blocks(
        "考生注意事项：", "1．答题前填写姓名。", "2．考试结束后交回。",
        "一、单项选择题：第1～40小题，每小题2分，共80分。",
        "1．栈的特点是（  ）。\nA．先进先出 B．后进先出 C．随机存取 D．顺序存取\n【答案】B",
        "2．下列排序中稳定的是（  ）。\nA．快速排序\nB．堆排序\nC．归并排序\nD．希尔排序") + [
        Block(kind="heading", text="二、综合应用题", page=2, chapter_path=[TITLE, "二、综合应用题"]),
        Block(text="41．（10分）已知一个带头结点的单链表。\n（1）给出算法思想。\n（2）给出算法实现。", page=2,
              chapter_path=[TITLE, "二、综合应用题"]),
        Block(text="参考答案", page=3),
        Block(text="2．【答案】C\n【解析】归并排序是稳定的。\n1. 解析中的步骤不是新答案", page=3),
        Block(text="41．（1）双指针。\n（2）代码略。", page=3)]
    work = make_work(blocks, kind="paper", title=TITLE, source="data/raw/x.pdf")
    questions(work)
    q1, q2, q41 = work.questions
    assert (q1.number, q1.qtype, q1.section, q1.year) == (1, "choice", "一、单项选择题", 2024)
    assert q1.text == "栈的特点是（  ）。" and q1.options["B"] == "后进先出" and q1.answer == "B"
    assert q2.options == {"A": "快速排序", "B": "堆排序", "C": "归并排序", "D": "希尔排序"}
    assert q2.answer == "C" and q2.analysis == "归并排序是稳定的。\n1. 解析中的步骤不是新答案"
    assert q41.qtype == "comprehensive" and q41.options == {} and q41.pages == [2, 3]  # question and answer
    assert q41.text == "（10分）已知一个带头结点的单链表。\n（1）给出算法思想。\n（2）给出算法实现。"
    assert q41.answer == "（1）双指针。\n（2）代码略。"
    assert q41.chapter_path == [TITLE, "二、综合应用题"]
    assert lines_of(work) == ["考生注意事项：", "1．答题前填写姓名。", "2．考试结束后交回。",
                              "一、单项选择题：第1～40小题，每小题2分，共80分。", "二、综合应用题", "参考答案"]
    assert work.blocks[3].chapter_path == [TITLE, "一、单项选择题"]
    assert work.kind == "paper"


def test_questions_continue_after_a_partial_answer_key(make_work):
    blocks = paper_blocks("一、单项选择题", "1．甲\nA．a B．b", "参考答案", "1．A",
                          "二、综合应用题", "41．设计算法。", "参考答案", "41．略。")
    work = make_work(blocks, kind="paper", title=TITLE)
    questions(work)
    assert [(q.number, q.answer) for q in work.questions] == [(1, "A"), (41, "略。")]


def test_exercises_in_a_textbook_end_at_the_next_heading(make_work, lines_of):
    blocks = [Block(kind="heading", text="第一章 绪论", chapter_path=["第一章 绪论"], page=1),
              Block(text="正文。", chapter_path=["第一章 绪论"], page=1),
              Block(kind="heading", text="一、单项选择题", chapter_path=["第一章 绪论", "一、单项选择题"], page=1),
              Block(text="1．甲\nA．a B．b\n2．乙\nA．a B．b\n3．丙\nA．a B．b", chapter_path=["第一章 绪论", "一、单项选择题"], page=1),
              Block(kind="heading", text="第二章 线性表", chapter_path=["第二章 线性表"], page=2),
              Block(text="1. 线性表的特点：", chapter_path=["第二章 线性表"], page=2)]
    work = make_work(blocks, kind="textbook", title="讲义")
    questions(work)
    assert [q.number for q in work.questions] == [1, 2, 3]
    assert work.questions[0].chapter_path == ["第一章 绪论", "一、单项选择题"]
    assert "1. 线性表的特点：" in lines_of(work)


def test_paper_without_questions_keeps_blocks(make_work, lines_of):
    work = make_work(paper_blocks("只有说明文字。"), kind="paper", title=TITLE)
    questions(work)
    assert work.questions == [] and lines_of(work) == ["只有说明文字。"]


@pytest.mark.parametrize("source, year", [("data/raw/2025王道数据结构.pdf", None), ("data/raw/2019年408真题整理.md", 2019)])
def test_non_paper_gets_a_year_only_when_named_like_a_paper(make_work, source, year):
    work = make_work(paper_blocks("一、单项选择题", "1．甲\nA．a B．b", "2．乙\nA．a B．b", "3．丙\nA．a B．b"),
                     kind="textbook", source=source)
    questions(work)
    assert [q.year for q in work.questions] == [year] * 3


def test_answer_key_table_and_prose_answers(rules):
    q = rules.questions
    assert compact_answers("题号：答案；1：B；2：C；3：D") == {1: "B", 2: "C", 3: "D"}
    assert answer_entry(q, "本题考查栈的性质，栈是后进先出的线性表，故选B。", "choice") == (
        "B", "本题考查栈的性质，栈是后进先出的线性表，故选B。")


def test_answer_entries_without_markers(make_work):
    blocks = paper_blocks("一、单项选择题", "1．甲\nA．a B．b", "2．乙\nA．a B．b", "3．丙\nA．a B．b",
                          "参考答案", "1．本题考查栈。\n3. 这不是第3题的答案，因为第2题还没有出现", "2．B", "3．解析：略。答案：A")
    work = make_work(blocks, kind="paper", title=TITLE)
    questions(work)
    # a choice entry without a letter is all analysis
    assert [(q.number, q.answer, q.analysis) for q in work.questions] == [
        (1, None, "本题考查栈。\n3. 这不是第3题的答案，因为第2题还没有出现"), (2, "B", None), (3, "A", "略。")]
