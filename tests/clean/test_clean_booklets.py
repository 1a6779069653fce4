"""questions: answer booklets, papers bundled with answers and explanations, several years in one
file, OCR'd numbering, and documents that are not papers. Inputs are small made-up texts shaped like
the real 408 files (never their text)."""

from __future__ import annotations

from pipeline.clean.core import clean_document
from pipeline.clean.rules.question_parts import read_item
from pipeline.clean.rules.questions import questions, second_question_at
from pipeline.models import Block, ParsedDoc, Status


def blocks(*texts: str, page: int = 1, path=("试卷",)) -> list[Block]:
    return [Block(text=t, page=page, chapter_path=list(path)) for t in texts]


def split(make_work, texts, *, kind="paper", title="", source="raw/x.pdf", heading: str = ""):
    bs = ([Block(kind="heading", text=heading, page=1, chapter_path=[heading], level=1)] if heading else [])
    work = make_work(bs + blocks(*texts), kind=kind, title=title, source=source)
    questions(work)
    return work


def by_number(work):
    return {q.number: q for q in work.questions}


def test_booklet_key_then_explanations(make_work):
    """2019答案-style: a key "1．  B", then the numbering restarts with 【参考答案】/【解析】 entries."""
    work = split(make_work, ["一、单项选择题", "1．\nB\n2．  C", "1.【参考答案】B\n【解析】先进后出，选B。",
                             "2.【参考答案】C\n【解析】队列。", "二、综合应用题", "41.【答案解析】\n（1）设计思想。\n（2）代码。"],
                 heading="2019 年408 答案解析", source="raw/2019答案.pdf")
    q = by_number(work)
    assert sorted(q) == [1, 2, 41] and all(x.year == 2019 and x.text == "" for x in q.values())
    assert (q[1].answer, q[1].analysis, q[1].qtype) == ("B", "先进后出，选B。", "choice")
    assert (q[2].answer, q[2].analysis) == ("C", "队列。")
    assert q[41].qtype == "comprehensive" and q[41].answer == "（1）设计思想。\n（2）代码。"
    assert q[1].chapter_path == ["2019答案", "一、单项选择题"]  # the title (else the file name), the section
    assert q[1].sources[0].parts == ["answer", "analysis"] and work.kind == "paper"


def test_paper_with_key_and_same_year_explanation_part(make_work):
    """2009年…真题及答案解析-style: the paper, 参考答案 with a key, then the same year's title again
    with "选择题部分解析" and explanations numbered from 1 without markers."""
    work = split(make_work, [
        "2009 年全国硕士研究生入学统一考试", "一、单项选择题：第1～2 小题。", "1．栈是\nA．队列\nB．表",
        "2．树是\nA．图\nB．表", "参考答案", "一、单项选择题（后附有解析）", "1. B\n2. A",
        "2009 年全国硕士研究生入学统一考试计算机学科专业基础综合试题——选择题部分解析", "一、单项选择题",
        "1．考查栈。\n栈后进先出。", "2．考查树。\n3. 这一行属于第2题的解析"],
        heading="页面提取自－2009年真题及答案解析", title="2009年计算机408真题及答案解析")
    q = by_number(work)
    assert sorted(q) == [1, 2]
    assert q[1].text == "栈是" and q[1].options == {"A": "队列", "B": "表"}
    assert (q[1].answer, q[1].analysis) == ("B", "考查栈。\n栈后进先出。")
    assert (q[2].answer, q[2].analysis) == ("A", "考查树。\n3. 这一行属于第2题的解析")
    text = "\n".join(s for b in work.blocks for s in b.lines)
    assert "一、单项选择题：第1～2 小题。" in text and "参考答案" in text  # title lines stay text


def test_booklet_with_questions_inline(make_work):
    """2011答案-style: each entry repeats the question, then 答案：A。explanation."""
    work = split(make_work, ["2011年408真题答案解析", "一、单项选择题", "1．设n是问题规模\nA．O(n)\nB．O(1)\n答案：A。循环n次。",
                             "二、综合应用题", "41．（8 分）求最短路径。\n（1）写出矩阵。\n答案：（1）矩阵如下。"],
                 source="raw/2011答案.pdf")
    q = by_number(work)
    assert (q[1].text, q[1].options, q[1].answer, q[1].analysis) == ("设n是问题规模", {"A": "O(n)", "B": "O(1)"},
                                                                     "A", "循环n次。")
    assert q[41].text == "（8 分）求最短路径。\n（1）写出矩阵。" and q[41].answer == "（1）矩阵如下。"


def test_repeated_section_title_and_compact_key(make_work):
    """2016-style: after the paper the answer part repeats 一、单项选择题 and lists 1.D 2.B on one line."""
    work = split(make_work, ["一、单项选择题", "1．甲\nA．a\nB．b", "2．乙\nA．a\nB．b", "参考答案(2016年)",
                             "一、单项选择题", "1.B 2.A", "二、综合应用题", "41. 【答案要点】\n(1)略。"],
                 source="raw/2016年计算机408真题及答案.pdf")
    q = by_number(work)
    assert [(n, q[n].answer) for n in sorted(q)] == [(1, "B"), (2, "A"), (41, "(1)略。")]
    assert q[1].text == "甲" and q[41].text == "" and q[41].qtype == "comprehensive"


def test_several_years_in_one_file(make_work):
    """2009-2013 完美打印版-style: each year's paper starts with its title line."""
    texts = []
    for year in (2009, 2010):
        texts += [f"{year} 年全国硕士研究生入学统一考试", "一、单项选择题", f"1．{year}甲\nA．a\nB．b", "二、综合应用题",
                  f"41．（10 分）{year}乙"]
    work = split(make_work, texts, title="第一章", source="raw/2009-2013年计算机408真题完美打印版.pdf")
    assert [(q.year, q.number) for q in work.questions] == [(2009, 1), (2009, 41), (2010, 1), (2010, 41)]
    assert work.questions[2].text == "2010甲" and work.questions[2].chapter_path == ["第一章", "2010年", "一、单项选择题"]


def test_ocr_numbering(make_work):
    """OCR'd numbers: "0 1 ." spaces, "34．100BaseT" (a digit after the dot), "47(9分)" (no dot),
    "1若栈" (no dot, first question of a section)."""
    work = split(make_work, ["一、单项选择题", "1若栈S1保存整数\nA．1\nB．2", "0 2 . 乙\nA．a\nB．b", "03．100BaseT 是\nA．a\nB．b",
                             "二、综合应用题", "41．（9 分）丙", "42(9分)丁", "4 3 2 1 这行是第42题的数据"])
    assert [q.number for q in work.questions] == [1, 2, 3, 41, 42]
    q = by_number(work)
    assert q[1].text == "若栈S1保存整数" and q[3].text == "100BaseT 是" and q[42].text == "(9分)丁\n4 3 2 1 这行是第42题的数据"


def test_a_lost_number_between_two_option_runs(make_work):
    """The text layer lost "34．": question 33's entry holds two A–D runs and 35 follows."""
    lines = ["33．甲是", "A．a", "B．b", "C．c", "D．d", "若下图为波形，则", "A．1", "B．2", "C．3", "D．4"]
    assert second_question_at(make_work([]).rules.questions, lines) == 5
    work = split(make_work, ["一、单项选择题", "\n".join(lines), "35．丙\nA．a\nB．b"])
    q = by_number(work)
    assert sorted(q) == [33, 34, 35] and q[34].text == "若下图为波形，则" and q[34].options["D"] == "4"
    assert q[33].options == {"A": "a", "B": "b", "C": "c", "D": "d"}


def test_read_item(rules):
    qr = rules.questions
    assert read_item(qr, "B", "choice", "question") == ("", {}, "B", None)  # a key entry in a question pass
    assert read_item(qr, "【参考答案】B\n考查批处理。", "choice", "answer") == ("", {}, "B", "考查批处理。")
    assert read_item(qr, "A、B 错误，C 正确，故选C。", "choice", "answer") == ("", {}, "C", "A、B 错误，C 正确，故选C。")
    assert read_item(qr, "考查栈。", "choice", "answer") == ("", {}, None, "考查栈。")
    assert read_item(qr, "（1）思路。", "comprehensive", "answer") == ("", {}, "（1）思路。", None)


def test_syllabus_is_not_a_paper(rules):
    parsed = ParsedDoc(doc_id="s", source="raw/408计算机学科专业基础综合考试大纲.pdf", format="pdf", kind="paper",
                       blocks=blocks("一、单项选择题 80 分", "1. 数据结构\n2. 操作系统\n3. 计算机网络"))
    doc = clean_document(parsed, rules)
    assert doc.kind == "textbook" and doc.questions == [] and doc.status == Status.SUCCESS and not doc.errors


def test_note_exercises_stay_a_note(make_work):
    """Exercises under a 选择题 heading in a note become undated records; the note stays a note."""
    work = split(make_work, ["选择题", "1．甲\nA．a\nB．b", "2．乙\nA．a\nB．b", "3．丙\nA．a\nB．b"], kind="note",
                 source="notes/2-stack-ex.md")
    assert work.kind == "note" and [q.year for q in work.questions] == [None] * 3
    assert work.questions[0].chapter_path == ["试卷", "选择题"]


def test_note_without_section_title_is_not_split(make_work):
    work = split(make_work, ["1. 栈的定义。", "2. 栈的操作。", "3. 栈的应用。", "2019 年全国硕士研究生入学统一考试第41题考过栈。"],
                 kind="note", source="notes/2-stack.md")
    assert work.questions == [] and work.kind == "note"
