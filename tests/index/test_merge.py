"""merge_questions: records of one (year, number) from a paper, its answer booklet and a bundle."""

from __future__ import annotations

from pipeline.index.merge import merge_questions
from pipeline.models import Question, QuestionSource


def rec(doc: str, number: int = 1, year: int | None = 2019, *, text: str = "", options=None, answer=None,
        analysis=None, qtype: str = "choice", pages=(1,), path=("试卷", "一、单项选择题")) -> Question:
    q = Question(year=year, number=number, qtype=qtype, section=path[-1], text=text, options=options or {},
                 answer=answer, analysis=analysis, pages=list(pages), chapter_path=list(path))
    parts = [k for k, v in (("text", text), ("options", options), ("answer", answer), ("analysis", analysis)) if v]
    q.sources = [QuestionSource(doc_id=doc, source=f"raw/{doc}.pdf", pages=list(pages), parts=parts)]
    return q


OPTS = {"A": "栈", "B": "队列", "C": "树", "D": "图"}


def test_paper_and_booklet_become_one_record():
    paper = rec("paper", text="下列结构中先进先出的是", options=OPTS, pages=(1,))
    booklet = rec("booklet", answer="B", analysis="先进先出，选B。", pages=(7,), path=("2019答案", "一、单项选择题"))
    [q] = merge_questions([booklet, paper])
    assert (q.text, q.options, q.answer, q.analysis) == ("下列结构中先进先出的是", OPTS, "B", "先进先出，选B。")
    assert q.pages == [1] and q.chapter_path == ["试卷", "一、单项选择题"]  # the stem's document
    assert [(s.doc_id, s.pages, s.parts) for s in q.sources] == [
        ("booklet", [7], ["answer", "analysis"]), ("paper", [1], ["text", "options"])]


def test_best_stem_longest_explanation_and_majority_answer():
    ocr = rec("ocr", text="下列结构中先进先出的是", options={"A": "栈", "B": "队列"}, answer="C")
    good = rec("bundle", text="下列结构中先进先出的是", options=OPTS, answer="B", analysis="短。")
    booklet = rec("booklet", answer="B", analysis="更长的解析：先进先出。")
    [q] = merge_questions([ocr, good, booklet])
    assert q.options == OPTS and q.answer == "B" and q.analysis == "更长的解析：先进先出。"
    parts = {s.doc_id: s.parts for s in q.sources}
    assert parts == {"ocr": [], "bundle": ["text", "options", "answer"], "booklet": ["analysis"]}


def test_comprehensive_answer_comes_with_its_explanation():
    paper = rec("paper", 41, text="（10 分）设计算法。", qtype="comprehensive", path=("试卷", "二、综合应用题"))
    key = rec("bundle", 41, answer="略。", qtype="comprehensive")
    booklet = rec("booklet", 41, answer="（1）双指针。\n（2）代码。", analysis="时间O(n)。", qtype="other")
    [q] = merge_questions([paper, key, booklet])
    assert (q.qtype, q.answer, q.analysis) == ("comprehensive", "（1）双指针。\n（2）代码。", "时间O(n)。")


def test_groups_sorted_undated_kept_and_input_untouched():
    a1, b1 = rec("a", 2, text="乙"), rec("b", 2, answer="D")
    c = rec("a", 1, text="甲")
    old = rec("a", 1, year=2018, text="旧")
    note = rec("note", 1, year=None, text="习题一")
    note2 = rec("note", 1, year=None, text="另一本书的习题一")
    out = merge_questions([a1, note, b1, c, old, note2])
    assert [(q.year, q.number, q.text) for q in out] == [
        (2018, 1, "旧"), (2019, 1, "甲"), (2019, 2, "乙"), (None, 1, "习题一"), (None, 1, "另一本书的习题一")]
    assert out[2].answer == "D" and b1.text == "" and a1.answer is None and len(a1.sources) == 1
    assert out[3] is not note and out[3] == note


def test_single_record_and_record_without_sources():
    plain = Question(year=2020, number=5, text="甲", pages=[3])
    [q] = merge_questions([plain])
    assert q == plain and q is not plain
    [m] = merge_questions([plain, rec("booklet", 5, year=2020, answer="A", pages=(9,))])
    assert m.answer == "A" and [(s.doc_id, s.pages) for s in m.sources] == [("", [3]), ("booklet", [9])]
