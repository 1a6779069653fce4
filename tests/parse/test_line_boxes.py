"""Blocks carry their lines' boxes: text-layer lines where PyMuPDF put them, OCR rows mapped from
image pixels back to PDF points, an image file's rows in pixels on page 1."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pymupdf as fitz
import pytest

from pipeline.parse.garble import GarbleThresholds
from pipeline.parse.layout import BBox, LineBox, OcrPage
from pipeline.parse.pdf import parse_pdf
from pipeline.parse.formats import _parse_image, parse_file
from pipeline.parse.ocr_runner import OcrRunner
from pipeline.settings import Settings

TH = GarbleThresholds()
PASSAGE = ["栈是只允许在一端进行插入或删除操作的线性表。", "队列是只允许在一端插入而在另一端删除的线性表。",
           "循环队列用模运算把存储空间想象成一个环。"]


def _page(doc, **kw):
    page = doc.new_page(**kw)
    page.insert_font(fontname="cjk", fontbuffer=fitz.Font("cjk").buffer)
    return page


def _truth(page) -> dict[str, BBox]:
    """Each text-layer line of ``page`` → its box, straight from PyMuPDF."""
    return {"".join(s["text"] for s in ln["spans"]).strip(): BBox(*ln["bbox"])
            for b in page.get_text("dict")["blocks"] if b["type"] == 0 for ln in b["lines"]}


def test_text_layer_lines_keep_their_boxes_through_merging_and_headings(tmp_path):
    doc = fitz.open()
    page = _page(doc)
    page.insert_text((60, 100), "第三章 栈和队列", fontname="cjk", fontsize=16)
    for i, t in enumerate(PASSAGE):  # one PDF block per line: merged into one Block of three lines
        page.insert_text((60, 140 + 18 * i), t, fontname="cjk", fontsize=10.5)
    truth = _truth(page)
    path = tmp_path / "book.pdf"
    doc.save(path)
    blocks = parse_pdf(path, str(path), password=None, th=TH, ocr_pages=lambda p, n: {}).blocks
    head = next(b for b in blocks if b.kind == "heading")
    body = next(b for b in blocks if b.kind == "text")
    assert [ln.text for ln in head.lines] == ["第三章 栈和队列"]
    assert [ln.text for ln in body.lines] == PASSAGE and body.text.split("\n") == PASSAGE
    for ln in head.lines + body.lines:
        want = truth[ln.text]
        assert ln.page == 1
        assert (ln.x0, ln.y0, ln.x1, ln.y1) == pytest.approx(tuple(want), abs=0.06)  # stored rounded to 0.1


def test_exam_section_title_is_a_heading_over_its_own_line(tmp_path):
    doc = fitz.open()
    page = _page(doc)
    page.insert_text((60, 150), "一、单项选择题：第1～40小题，每小题2分，共80分。", fontname="cjk", fontsize=10.5)
    page.insert_text((60, 168), "1. 已知程序如下，程序运行时使用栈来保存调用过程的信息。", fontname="cjk", fontsize=10.5)
    path = tmp_path / "2015真题.pdf"
    doc.save(path)
    blocks = parse_pdf(path, str(path), password=None, th=TH, ocr_pages=lambda p, n: {}).blocks
    head = next(b for b in blocks if b.kind == "heading" and b.text == "一、单项选择题")
    assert [ln.text for ln in head.lines] == ["一、单项选择题：第1～40小题，每小题2分，共80分。"]
    body = [b for b in blocks if b.kind == "text"]
    assert ["\n".join(ln.text for ln in b.lines) for b in body] == [b.text for b in body]


def test_ocr_rows_land_where_the_scanned_text_was_drawn(tmp_path):
    """A page that is only an image (rendered at 100 dpi) is OCR'd by the real default engine at
    ``ocr_dpi`` (150); each row's box, mapped back by 72/dpi, sits within a few points of the
    text-layer box of the line that was drawn (the right edge within one character: the layer's
    box includes the last glyph's full advance, the OCR box ends at its ink)."""
    src = fitz.open()
    sp = _page(src, width=595, height=842)
    sp.insert_text((72, 120), "第三章 栈和队列", fontname="cjk", fontsize=14)
    for i, t in enumerate(PASSAGE):
        sp.insert_text((72, 200 + 30 * i), t, fontname="cjk", fontsize=12)
    truth = _truth(sp)
    doc = fitz.open()
    page = doc.new_page(width=595, height=842)
    page.insert_image(page.rect, pixmap=sp.get_pixmap(dpi=100))
    path = tmp_path / "scan.pdf"
    doc.save(path)
    settings = Settings.from_flat(data_dir=tmp_path / "data", ocr_workers=1)
    assert settings.parse.ocr_dpi != 100
    runner = OcrRunner(settings)
    try:
        parsed = parse_file(path, str(path), "d", settings, runner)
    finally:
        runner.close()
    assert parsed.pages[0].method == "ocr"
    lines = [ln for b in parsed.blocks for ln in b.lines]
    assert len(lines) == 4
    for ln in lines:
        key = next(k for k in truth if k.replace(" ", "") == ln.text.replace(" ", ""))
        want = truth[key]
        assert ln.page == 1
        assert abs(ln.x0 - want.x0) <= 3 and abs(ln.y0 - want.y0) <= 3 and abs(ln.y1 - want.y1) <= 3, (ln, want)
        assert want.x1 - 14 <= ln.x1 <= want.x1 + 3, (ln, want)


class _FakeRunner:
    """An OCR runner that "reads" one line of a 1240 x 1754 image (OcrRunner.image_file's contract)."""

    def image_file(self, path):
        return OcrPage([LineBox("栈是只允许在一端进行插入或删除操作的线性表。", BBox(100.0, 300.0, 900.0, 340.0))], 0.9), 1754


def test_image_file_rows_are_in_pixels_on_page_one(tmp_path):
    from PIL import Image

    path = tmp_path / "scan.png"
    Image.fromarray(np.full((1754, 1240, 3), 255, dtype=np.uint8)).save(path)
    blocks, pages = _parse_image(Path(path), _FakeRunner())
    assert [(ln.page, ln.x0, ln.y0, ln.x1, ln.y1) for ln in blocks[0].lines] == [(1, 100.0, 300.0, 900.0, 340.0)]
    assert pages[0].number == 1
