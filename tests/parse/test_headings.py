"""Headings → chapter_path: numbering rules, PDF font-size levels and outline, markdown notes."""

from __future__ import annotations

from pathlib import Path

import pymupdf as fitz
import pytest

from pipeline.parse.garble import GarbleThresholds
from pipeline.parse.headings import (clean_heading, exam_section, numbering, plausible_heading,
                                     title_from_filename, usable_outline)
from pipeline.parse.pdf import parse_pdf
from pipeline.parse.formats import parse_file
from pipeline.parse.ocr_runner import OcrRunner
from pipeline.settings import Settings

TH = GarbleThresholds()
BODY = "折半查找要求线性表必须采用顺序存储结构，而且表中元素按关键字有序排列，每次取中间位置比较。"


# ---------------------------------------------------------------- pure rules

@pytest.mark.parametrize("line,want", [
    ("第七章 查找", ("chapter", 1)), ("7.3 树表的查找", ("decimal", 2)), ("7.3.1 B树", ("decimal", 3)),
    ("一、线性表", ("cn_item", 2)), ("（二）线性表的实现", ("cn_paren", 3)), ("IV 考查内容", ("roman", 1)),
    ("10.0.0.1/24", None), ("1.5 ms", None), ("I think so", None), ("7.3 查找。", None)])
def test_numbering(line, want):
    assert numbering(line) == want


def test_exam_section_title_and_rest():
    assert exam_section("一、单项选择题：第1～40小题，每小题2分，共80分。") == ("一、单项选择题", "第1～40小题，每小题2分，共80分。")
    assert exam_section("二、综合应用题答案") == ("二、综合应用题答案", "")
    assert exam_section("一、线性表") is None


@pytest.mark.parametrize("text,ok", [("第一章 绪论", True), ("TCP", True), ("交换机", True), ("a", False),
                                     ("L/2", False), ("return false;", False), ("if (p == NULL)", False)])
def test_plausible_heading(text, ok):
    assert plausible_heading(text) is ok


def test_markdown_heading_markup_is_removed():
    assert clean_heading("二、==【考点】线性结构==") == "二、【考点】线性结构"
    assert clean_heading("**TCP** 与 [UDP](udp.md)") == "TCP 与 UDP"
    assert clean_heading('<a name="1"></a> 一、概述') == "一、概述"


def test_title_from_filename():
    assert [title_from_filename(s) for s in ("7.查找", "3.1特殊矩阵的压缩存储", "2009答案", "计算机网络 - 网络层")] == [
        "查找", "特殊矩阵的压缩存储", "2009答案", "计算机网络 - 网络层"]


def test_tool_leftovers_are_not_outline_entries():
    toc = [[1, "页面提取自－2009-2010年真题--选择题解析", 1], [1, "FLA", 2], [1, "scan0001.pdf", 3],
           [1, "第一章 绪论", 4], [2, "1.1 基本概念", 0]]
    assert usable_outline(toc) == [(1, "第一章 绪论", 4)]


# ---------------------------------------------------------------- PDFs

def _new_page(doc):
    """A page of ``doc`` with the CJK font ``_line`` writes in."""
    page = doc.new_page()
    page.insert_font(fontname="cjk", fontbuffer=fitz.Font("cjk").buffer)
    return page


def _line(page, y, text, size=10.5):
    page.insert_text((60, y), text, fontname="cjk", fontsize=size)


def _parse(doc, tmp_path: Path, name="book.pdf"):
    path = tmp_path / name
    doc.save(path)
    return parse_pdf(path, str(path), password=None, th=TH, ocr_pages=lambda p, n: {})


def _heads(blocks):
    return [(b.level, b.text) for b in blocks if b.kind == "heading"]


def test_font_size_ranks_nest_headings_and_running_headers_are_not_headings(tmp_path):
    doc = fitz.open()
    for pno in range(4):
        page = _new_page(doc)
        _line(page, 100, "数据结构复习讲义", size=14)  # a big running header inside the body band
        y = 140
        if pno == 0:
            _line(page, y, "第一部分 数据结构", size=22)
            y += 40
        _line(page, y, f"第{'一二三四'[pno]}章 线性表{pno}", size=16)
        _line(page, y + 30, f"{pno + 1}.1 顺序表", size=12.5)
        for i in range(6):
            _line(page, y + 60 + 18 * i, BODY)
    blocks = _parse(doc, tmp_path).blocks
    heads = _heads(blocks)
    assert (1, "第一部分 数据结构") in heads and (2, "第一章 线性表0") in heads and (3, "1.1 顺序表") in heads
    assert not any("复习讲义" in t for _, t in heads)
    assert [t for _, t in heads].count("第四章 线性表3") == 1


def test_exam_paper_title_lines_merge_and_sections_become_headings(tmp_path):
    doc = fitz.open()
    page = _new_page(doc)
    _line(page, 90, "2015年全国硕士研究生招生考试", size=16)
    _line(page, 115, "计算机学科专业基础综合试题", size=16)
    _line(page, 150, "一、单项选择题：第1～40小题，每小题2分，共80分。")
    _line(page, 170, "1. 已知程序如下，程序运行时使用栈来保存调用过程的信息。")
    _line(page, 190, "A. 栈    B. 队列    C. 树    D. 图")
    _line(page, 230, "二、综合应用题：第41～47题，共70分。")
    _line(page, 250, "41. （13分）已知有向带权图G……")
    blocks = _parse(doc, tmp_path, name="2015真题.pdf").blocks
    assert _heads(blocks) == [(1, "2015年全国硕士研究生招生考试 计算机学科专业基础综合试题"),
                              (2, "一、单项选择题"), (2, "二、综合应用题")]
    text = "\n".join(b.text for b in blocks if b.kind == "text")
    assert "二、综合应用题：第41～47题，共70分。" in text  # the line itself is kept as written


def test_single_entry_outline_does_not_switch_off_the_heuristics(tmp_path):
    doc = fitz.open()
    page = _new_page(doc)
    _line(page, 90, "2020年408答案解析", size=18)
    _line(page, 130, "一、单项选择题", size=14)
    _line(page, 160, BODY)
    doc.set_toc([[1, "2020年408答案解析", 1]])
    blocks = _parse(doc, tmp_path).blocks
    assert _heads(blocks) == [(1, "2020年408答案解析"), (2, "一、单项选择题")]


def test_rich_outline_is_the_authority(tmp_path):
    doc = fitz.open()
    for n in range(3):
        page = _new_page(doc)
        _line(page, 90, f"第{'一二三'[n]}章 标题{n}", size=18)
        _line(page, 130, "一段放大的提示语", size=14)
        _line(page, 160, BODY)
    doc.set_toc([[1, f"第{'一二三'[n]}章 标题{n}", n + 1] for n in range(3)])
    blocks = _parse(doc, tmp_path).blocks
    assert _heads(blocks) == [(1, f"第{'一二三'[n]}章 标题{n}") for n in range(3)]


def test_big_labels_on_an_ocr_layer_over_a_scan_are_not_headings(tmp_path):
    src = fitz.open()
    sp = _new_page(src)
    for i in range(12):
        _line(sp, 120 + 20 * i, BODY)
    pix = sp.get_pixmap(dpi=100)
    doc = fitz.open()
    page = _new_page(doc)
    page.insert_image(page.rect, pixmap=pix)
    page.insert_text((60, 90), "交换机", fontname="cjk", fontsize=20, render_mode=3)  # OCR layer sizes are guesses
    for i in range(12):
        page.insert_text((60, 120 + 20 * i), BODY, fontname="cjk", fontsize=10.5, render_mode=3)
    blocks = _parse(doc, tmp_path).blocks
    assert _heads(blocks) == []


def test_metadata_title_is_used_only_when_it_is_the_real_title(tmp_path):
    for meta, want in (("2016çœŁé¢Ÿå‘−çŁflæ¡‹408.pdf", ""), ("第一章", ""), ("考试大纲", "考试大纲")):
        doc = fitz.open()
        page = _new_page(doc)
        _line(page, 90, "考试大纲", size=18)
        _line(page, 130, BODY)
        doc.set_metadata({"title": meta})
        assert _parse(doc, tmp_path).title == want, meta


# ---------------------------------------------------------------- notes (md) through the stage

def _parse_note(tmp_path: Path, name: str, text: str):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    settings = Settings(data_dir=tmp_path)
    return parse_file(path, str(path), "n" * 16, settings, OcrRunner(settings))


def test_note_with_several_top_headings_sits_under_its_file_title(tmp_path):
    doc = _parse_note(tmp_path, "7.查找.md", "# 一、查找Search\n\n基本概念。\n\n# 三、==树形结构==\n\n## 4.多路查找树\n\nB树是多路平衡查找树。\n")
    assert doc.title == "查找"
    para = next(b for b in doc.blocks if "多路平衡" in b.text)
    assert para.chapter_path == ["查找", "三、树形结构", "4.多路查找树"]


def test_note_with_one_top_heading_uses_it_as_title(tmp_path):
    doc = _parse_note(tmp_path, "3-file-management.md", "# 文件管理\n\n## 文件分配\n\n索引分配。\n")
    assert doc.title == "文件管理"
    assert next(b for b in doc.blocks if "索引分配" in b.text).chapter_path == ["文件管理", "文件分配"]
