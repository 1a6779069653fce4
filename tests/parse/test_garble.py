"""One test per page kind, on small PDFs made here."""

import pymupdf as fitz
import numpy as np
import pytest

from pipeline.parse.garble import GarbleThresholds, classify_page, repeated_lines, strip_lines
from pipeline.parse.pdf import parse_pdf

TH = GarbleThresholds()
BODY = "折半查找要求线性表必须采用顺序存储结构，而且表中元素按关键字有序排列。每次取中间位置的元素与给定值比较。"


def test_good_chinese_text():
    assert classify_page(BODY, has_image=False, expect_cjk=True, th=TH) == "good"


def test_no_text_with_image_is_missing():
    assert classify_page("", has_image=True, expect_cjk=True, th=TH) == "missing"


def test_mojibake_latin_is_garbled():
    moji = "¼ÆËã»ú¿ÆÑ§Óë¼¼Êõ×¨Òµ»ù´¡×ÛºÏ ÊÔÌâ Ò»¡¢µ¥ÏîÑ¡ÔñÌâ µÚ1¡«40Ð¡Ìâ"
    assert classify_page(moji, has_image=False, expect_cjk=True, th=TH) == "garbled"


def test_glyphs_without_unicode_are_garbled():
    junk = "\ufffd" * 30 + "ABC" + "\ue012\ue013" * 20
    assert classify_page(junk, has_image=False, expect_cjk=True, th=TH) == "garbled"


def test_only_repeated_footer_counts_as_missing():
    pages = [f"淘宝店铺：【考研小铺】资料整理\n第{i}页" for i in range(1, 6)]
    boiler = repeated_lines(pages)
    assert classify_page(strip_lines(pages[0], boiler), has_image=True, expect_cjk=True, th=TH) == "missing"


def _cjk_page(doc, text):
    page = doc.new_page()
    page.insert_font(fontname="cjk", fontbuffer=fitz.Font("cjk").buffer)
    page.insert_text((72, 100), text, fontname="cjk", fontsize=14)
    return page


def test_pdf_pages_take_ocr_path_exactly_where_needed(tmp_path):
    doc = fitz.open()
    _cjk_page(doc, BODY[:30])
    _cjk_page(doc, BODY[30:])
    blank = doc.new_page()  # an image-only page: a rendered scan of text
    src = fitz.open()
    _cjk_page(src, "第3页的扫描内容")
    pix = src[0].get_pixmap(dpi=100)
    blank.insert_image(blank.rect, pixmap=pix)
    path = tmp_path / "mixed.pdf"
    doc.save(path)
    calls = []

    def fake_ocr(pdf_path, numbers):
        calls.extend(numbers)
        return {n: ([("第3页的扫描内容", (72, 90, 300, 110))], 0.95) for n in numbers}

    pages, blocks, errors, _ = parse_pdf(path, "mixed.pdf", password=None, th=TH, ocr_pages=fake_ocr)
    assert calls == [3]
    assert [p.method for p in pages] == ["text", "text", "ocr"]
    assert pages[2].ocr_confidence == pytest.approx(0.95)
    assert any("扫描内容" in b.text and b.page == 3 for b in blocks)
    assert not errors
