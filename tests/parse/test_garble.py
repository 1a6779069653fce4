"""One test per page kind, on small PDFs made here."""

import pymupdf as fitz
import pytest

from pipeline.parse.garble import GarbleThresholds, classify_page, repeated_lines, strip_lines
from pipeline.parse.layout import BBox, LineBox, OcrPage
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
        return {n: OcrPage([LineBox("第3页的扫描内容", BBox(72, 90, 300, 110))], 0.95) for n in numbers}

    result = parse_pdf(path, "mixed.pdf", password=None, th=TH, ocr_pages=fake_ocr)
    pages, blocks, errors = result.pages, result.blocks, result.errors
    assert calls == [3]
    assert [p.method for p in pages] == ["text", "text", "ocr"]
    assert pages[2].ocr_confidence == pytest.approx(0.95)
    assert any("扫描内容" in b.text and b.page == 3 for b in blocks)
    assert not errors


def test_symbol_font_glyphs_on_a_chinese_page_stay_good():
    """Word's Symbol/Wingdings glyphs (matrix brackets, arrows) extract as U+F0xx: not junk."""
    page = BODY * 3 + "\uf0e6\uf0e7\uf0e7\uf0e8\uf0f6\uf0f7\uf0f8" * 6 + "关键路径为0\uf0e01\uf0e02"
    assert classify_page(page, has_image=False, expect_cjk=True, th=TH) == "good"
    assert classify_page("\uf0e7" * 60 + "ABC", has_image=False, expect_cjk=False, th=TH) == "garbled"


def test_cjk_read_in_the_wrong_encoding_is_garbled():
    for wrong in (BODY.encode("utf-8").decode("gbk", errors="replace"), BODY.encode("gbk").decode("big5", errors="ignore")):
        assert classify_page(wrong, has_image=False, expect_cjk=True, th=TH) == "garbled", wrong[:20]
    traditional = "折半搜尋要求線性表必須採用順序儲存結構，而且表中元素按關鍵字有序排列。每次取中間位置的元素比較。"
    assert classify_page(traditional, has_image=False, expect_cjk=True, th=TH) == "good"


def test_latin1_mojibake_is_garbled_even_when_chinese_was_not_expected():
    moji = BODY.encode("gbk").decode("latin-1")
    assert classify_page(moji, has_image=False, expect_cjk=False, th=TH) == "garbled"
    french = "La recherche dichotomique exige une liste triée et accède à l'élément du milieu à chaque étape."
    assert classify_page(french, has_image=False, expect_cjk=False, th=TH) == "good"


def test_latin_only_layer_of_a_chinese_paper_is_garbled():
    """Only code, digits and Latin extract (the CJK glyphs have no Unicode): OCR the page."""
    code = "int count = 0;\nwhile(p != NULL){\nif(count < k) count++;\nelse q = q->link; p = p->link;\n}\n0.5MB/4B=125 000"
    assert classify_page(code, has_image=False, expect_cjk=True, th=TH) == "garbled"


def test_blank_page_without_image_is_good_not_missing():
    assert classify_page("  \n ", has_image=False, expect_cjk=True, th=TH) == "good"


def test_chinese_is_expected_from_fonts_when_nothing_else_says_so():
    """A paper whose CJK glyphs do not extract and whose file name is not Chinese is still known to be
    Chinese from its fonts (names as found in the 408 corpus)."""
    from pipeline.parse.garble import _cjk_font, expects_cjk

    assert _cjk_font("ABCDEE+ËÎÌå", "Identity-H")  # 宋体 written in GBK, read as Latin-1
    assert _cjk_font("*SimSun-7943-Identity-H", "Identity-H")
    assert _cjk_font("SimSun", "UniGB-UTF16-H") and _cjk_font("KZJFCU+AdobeSongStd-Light", "Identity-H")
    assert not _cjk_font("CIDFont+F1", "Identity-H") and not _cjk_font("TimesNewRomanPSMT", "WinAnsiEncoding")
    assert not _cjk_font("Century Gothic", "WinAnsiEncoding")  # a Latin font despite "Gothic"
    doc = fitz.open()
    page = doc.new_page()
    page.insert_text((72, 100), "int count = 0; while (p != NULL) p = p->next;", fontname="helv")
    assert not expects_cjk(doc, [page.get_text()], "scan.pdf")
    assert expects_cjk(doc, [""], "2009答案.pdf")  # the file name says so
