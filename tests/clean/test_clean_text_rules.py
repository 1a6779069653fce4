"""join_lines, tables_to_fields, formulas_to_text."""

from __future__ import annotations

import pytest

from pipeline.clean.rules.base import glue
from pipeline.clean.rules.formulas_to_text import convert_formulas, formulas_to_text, latex_to_text
from pipeline.clean.rules.join_lines import is_verbatim, join_lines, join_paragraphs
from pipeline.clean.rules.tables_to_fields import md_tables, row_line, tables_to_fields
from pipeline.models import Block, PageInfo, Table


def join(rules, text: str) -> list[str]:
    return join_paragraphs(text.split("\n"), rules.list_item_patterns, rules.thresholds.short_line_ratio)


def test_wrapped_chinese_lines_become_one_paragraph(rules):
    text = "线性表是具有相同数据类型的n个数据元素的有限序列，其中n为表长，当\nn=0时线性表是一个空表。"
    assert join(rules, text) == ["线性表是具有相同数据类型的n个数据元素的有限序列，其中n为表长，当n=0时线性表是一个空表。"]


def test_sentence_end_and_short_line_end_paragraphs(rules):
    text = ("栈是只允许在一端进行插入或删除操作的线性表。\n队列也是一种操作受限的线性表，只允许在表的一端进行插\n"
            "入，而在表的另一端进行删除\n队头是允许删除的一端，队尾是允许插入的一端，这两端的\n名称不能混淆")
    assert join(rules, text) == [
        "栈是只允许在一端进行插入或删除操作的线性表。",
        "队列也是一种操作受限的线性表，只允许在表的一端进行插入，而在表的另一端进行删除",
        "队头是允许删除的一端，队尾是允许插入的一端，这两端的名称不能混淆"]


def test_list_items_start_lines_and_take_their_continuations(rules):
    text = ("线性表的特点如下：\n1. 表中元素的个数有限，且每个元素\n都是单个数据元素。\n（1）第一个子项\n"
            "A．先序遍历    B．中序遍历\n- 要求有序\n• 要求顺序存储")
    assert join(rules, text) == ["线性表的特点如下：", "1. 表中元素的个数有限，且每个元素都是单个数据元素。",
                                 "（1）第一个子项", "A．先序遍历    B．中序遍历", "- 要求有序", "• 要求顺序存储"]


def test_formula_and_code_lines_kept_intact(rules):
    text = "递推式如下\nT(n) = 2T(n/2) + n\n其中\n    x = x + 1;\n$$\n\\sum_{i=1}^n i\n$$\n| a | b |"
    assert join(rules, text) == ["递推式如下", "T(n) = 2T(n/2) + n", "其中", "    x = x + 1;", "$$",
                                 "\\sum_{i=1}^n i", "$$", "| a | b |"]


def test_is_verbatim():
    assert is_verbatim("i = 0;") and is_verbatim("|---|---|") and is_verbatim("$$")
    assert not is_verbatim("设 i = 0，则") and not is_verbatim("the stack is a list")


def test_glue():
    assert glue("中文", "文本") == "中文文本"
    assert glue("the", "stack") == "the stack"
    assert glue("exam-", "ple") == "example"
    assert glue("复杂度为", "O(n)") == "复杂度为O(n)"


def test_join_lines_merges_ocr_line_blocks(make_work, lines_of):
    ocr = ["单链表的结点除存放元素自身的信息外，还需要存放一个指向其后继的", "指针。", "通常用头指针L来标识一个单链表。"]
    blocks = [Block(text=t, page=1, chapter_path=["链表"]) for t in ocr]
    work = make_work(blocks, pages=[PageInfo(number=1, method="ocr")])
    join_lines(work)
    assert len(work.blocks) == 1
    assert lines_of(work) == ["单链表的结点除存放元素自身的信息外，还需要存放一个指向其后继的指针。", "通常用头指针L来标识一个单链表。"]


def test_join_lines_merges_a_paragraph_cut_into_two_pdf_blocks(make_work, lines_of):
    """A PDF block ending mid-sentence at full width continues in the next block of the page; a
    closed sentence, a short line, a list item, another page or a code block stay apart."""
    blocks = [Block(text="这一段在 PDF 里被切成了两块，前一块结束在半句话的中", page=1), Block(text="间。", page=1),
              Block(text="图 A-2", page=1), Block(text="第二段没有句号但是很长", page=1),
              Block(text="1. 列表项", page=1), Block(text="下一页的长长长长长长长", page=2),
              Block(kind="code", text="a\nb", page=2)]
    work = make_work(blocks, pages=2)
    join_lines(work)
    assert lines_of(work) == ["这一段在 PDF 里被切成了两块，前一块结束在半句话的中间。", "图 A-2", "第二段没有句号但是很长", "1. 列表项",
                              "下一页的长长长长长长长", "a\nb"]


def test_row_line():
    assert row_line(["操作", "最好", "最坏"], ["插入", "O(1)", "O(n)"]) == "操作：插入；最好：O(1)；最坏：O(n)"
    assert row_line(["a", ""], ["1", "2", "3"]) == "a：1；2；3"
    assert row_line(["a", "b"], ["1", ""]) == "a：1"
    assert row_line(["名\n称"], ["单\n链表"]) == "名称：单链表"


def test_table_block_to_fields(make_work, lines_of):
    table = Table(caption="表1 复杂度", header=["操作", "平均"], rows=[["插入", "O(n)"], ["删除", "O(n)"]])
    work = make_work([Block(kind="table", text="", page=1, table=table)], pages=1)
    tables_to_fields(work)
    assert lines_of(work) == ["表1 复杂度", "操作：插入；平均：O(n)", "操作：删除；平均：O(n)"]
    assert work.blocks[0].tables == [table]


def test_markdown_table_in_text_block(make_work, lines_of):
    text = "对比如下：\n| 算法 | 平均 |\n|---|:---:|\n| 快排 | O(nlogn) |\n| 归并 | O(nlogn) |\n表后文字。"
    work = make_work([Block(text=text)], kind="note")
    tables_to_fields(work)
    assert lines_of(work) == ["对比如下：", "算法：快排；平均：O(nlogn)", "算法：归并；平均：O(nlogn)", "表后文字。"]
    assert work.blocks[0].tables == [Table(header=["算法", "平均"], rows=[["快排", "O(nlogn)"], ["归并", "O(nlogn)"]])]


def test_md_tables_needs_separator():
    assert md_tables(["| a | b |", "| 1 | 2 |"]) == []


@pytest.mark.parametrize("src, text", [
    ("\\log_2 n", "log2 n"), ("\\log_{2} n", "log2 n"), ("\\frac{a}{b}", "a/b"), ("\\frac{n+1}{2}", "(n+1)/2"),
    ("\\lceil x \\rceil", "⌈x⌉"), ("\\lfloor \\log_2 n \\rfloor + 1", "⌊log2 n⌋ + 1"), ("a \\times b", "a × b"),
    ("i \\le n", "i ≤ n"), ("i \\geq 0", "i ≥ 0"), ("n^{2}", "n^2"), ("2^{h+1}-1", "2^(h+1)-1"), ("\\sqrt{n}", "√n"),
    ("O(n\\log n)", "O(nlog n)"), ("\\frac{n(n-1)}{2}", "n(n-1)/2"), ("x_{i+1}", "x_(i+1)"),
    ("\\Theta(n^2)", "Θ(n^2)"), ("\\text{次}", "次"), ("\\overline{A}", "¬A"), ("\\unknowncmd", "unknowncmd"),
])
def test_latex_to_text(src, text):
    assert latex_to_text(src) == text


def test_convert_formulas_finds_delimiters():
    text, originals = convert_formulas("复杂度为$O(n\\log n)$，价格$5 和 $6元，公式\n$$\nT(n)=2T(\\frac{n}{2})+n\n$$\n完")
    assert text == "复杂度为O(nlog n)，价格$5 和 $6元，公式\nT(n)=2T(n/2)+n\n完"
    assert originals == ["$O(n\\log n)$", "$$\nT(n)=2T(\\frac{n}{2})+n\n$$"]


def test_formulas_rule_keeps_originals_once_and_skips_code(make_work, lines_of):
    blocks = [Block(text="高度为$\\lceil \\log_2(n+1) \\rceil$，即$\\lceil \\log_2(n+1) \\rceil$。"),
              Block(kind="code", text="echo $HOME $PATH")]
    work = make_work(blocks, kind="note")
    formulas_to_text(work)
    assert lines_of(work) == ["高度为⌈log2(n+1)⌉，即⌈log2(n+1)⌉。", "echo $HOME $PATH"]
    assert work.blocks[0].formulas == ["$\\lceil \\log_2(n+1) \\rceil$"]


def test_a_pipe_table_without_outer_pipes_keeps_its_rows():
    """GFM allows rows written "a|b|c": each is a row, never glued to the next as a wrapped line."""
    from pipeline.clean.rules.join_lines import join_paragraphs
    from pipeline.clean.rules.tables_to_fields import md_tables, table_lines

    lines = ["&nbsp;|访问第n条记录|优点", ":----:|:---:|:--:", "连续分配|需访问磁盘1次|顺序存取快",
             "链接分配|需访问磁盘n次|无碎片", "索引分配|m级需访问磁盘m+1次|可以随机访问"]
    joined = join_paragraphs(lines, [], 0.7)
    assert joined == lines
    (_, _, table), = md_tables(joined)
    assert table_lines(table)[2] == "索引分配；访问第n条记录：m级需访问磁盘m+1次；优点：可以随机访问"  # empty corner
