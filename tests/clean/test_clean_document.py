"""sections, clean_document (order, purity, counts) and render_markdown."""

from __future__ import annotations

from pipeline.clean.core import clean_document, render_markdown
from pipeline.clean.rules import DEFAULT_RULES
from pipeline.clean.rules.sections import sections
from pipeline.models import Block, CleanDoc, ParsedDoc, Question, Section, Status, Table


def test_rule_order():
    assert [r.__name__ for r in DEFAULT_RULES] == [
        "repeated_bands", "pattern_lines", "watermark", "markup", "toc_pages", "join_lines", "tables_to_fields",
        "formulas_to_text", "questions", "sections"]
    assert all(r.__doc__ for r in DEFAULT_RULES)


def test_sections_group_by_path(make_work):
    table = Table(header=["a"], rows=[["1"]])
    blocks = [Block(kind="heading", text="第一章", chapter_path=["第一章"], page=1),
              Block(text="第一章\n甲。", chapter_path=["第一章"], page=1),
              Block(text="乙。", chapter_path=["第一章"], page=2),
              Block(kind="heading", text="1.1 节", chapter_path=["第一章", "1.1 节"], page=2),
              Block(kind="table", text="", chapter_path=["第一章", "1.1 节"], page=3, table=table),
              Block(kind="heading", text="1.2 空节", chapter_path=["第一章", "1.2 空节"], page=3),
              Block(text="丙。", chapter_path=["第一章"], page=4)]
    work = make_work(blocks, pages=4)
    work.blocks[4].lines, work.blocks[4].tables = ["a：1"], [table]
    sections(work)
    assert work.sections == [
        Section(chapter_path=["第一章"], text="甲。\n乙。", pages=[1, 2]),
        Section(chapter_path=["第一章", "1.1 节"], text="a：1", pages=[3], tables=[table]),
        Section(chapter_path=["第一章"], text="丙。", pages=[4])]
    assert work.removed["sections"] == 1  # the repeated heading line


def test_clean_document_is_pure_and_counts_removed(rules):
    blocks = [Block(text="讲义", page=p, band="top") for p in (1, 2, 3)]
    blocks += [Block(text=f"正文{p}。\n微信公众号：考研", page=p, chapter_path=["一"]) for p in (1, 2, 3)]
    parsed = ParsedDoc(doc_id="d", source="a.pdf", format="pdf", kind="textbook", blocks=blocks)
    before = parsed.model_dump()
    doc = clean_document(parsed, rules)
    assert parsed.model_dump() == before
    assert doc.removed == {"pattern_lines": 3, "repeated_bands": 3}
    assert doc.sections == [Section(chapter_path=["一"], text="正文1。\n正文2。\n正文3。", pages=[1, 2, 3])]
    assert doc.title == "a" and doc.kind == "textbook" and doc.status == Status.SUCCESS
    assert clean_document(parsed, rules) == doc


def test_paper_without_questions_is_partial(rules):
    parsed = ParsedDoc(doc_id="d", source="p.pdf", format="pdf", kind="paper", blocks=[Block(text="扫描不清")])
    doc = clean_document(parsed, rules)
    assert doc.status == Status.PARTIAL and doc.errors[0].stage == "clean"
    assert doc.sections[0].text == "扫描不清"


def test_render_markdown():
    doc = CleanDoc(doc_id="d", source="s.pdf", kind="paper", title="2024年真题",
                   sections=[Section(chapter_path=["2024年真题"], text="说明。"),
                             Section(chapter_path=["2024年真题", "一、单项选择题"], text="每小题2分。")],
                   questions=[Question(year=2024, number=1, qtype="choice", section="一、单项选择题", text="栈是（ ）。",
                                       options={"A": "线性表", "B": "树"}, answer="A", analysis="略。",
                                       chapter_path=["2024年真题", "一、单项选择题"]),
                              Question(number=41, qtype="comprehensive", section="二、综合应用题", text="设计算法。",
                                       chapter_path=["2024年真题", "二、综合应用题"])])
    assert render_markdown(doc) == (
        "# 2024年真题\n\n说明。\n\n## 一、单项选择题\n\n每小题2分。\n\n"
        "### 2024年 第1题（单项选择题）\n\n栈是（ ）。\n\n- A. 线性表\n- B. 树\n\n**答案**：A\n\n**解析**：略。\n\n"
        "## 二、综合应用题\n\n### 第41题（综合应用题）\n\n设计算法。\n")


def test_render_markdown_keeps_code_fences_and_nested_headings():
    doc = CleanDoc(doc_id="d", source="n.md", kind="note", title="笔记",
                   sections=[Section(chapter_path=["笔记", "查找", "二分"], text="说明\n```c\nint a;\nint b;\n```")])
    assert render_markdown(doc) == "# 笔记\n\n## 查找\n\n### 二分\n\n说明\n\n```c\nint a;\nint b;\n```\n"
