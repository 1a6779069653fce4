"""One small generated PDF per kind of page met in real exam PDFs, through ``parse_pdf``.

OCR is faked here (it records which pages it was asked for), except in the last test, which runs
the packaged rapidocr engine end to end through ``parse_file``. What each PDF simulates:

- good text: Chinese text in an embedded CJK font (Unicode map present).
- no text: a blank page carrying only an image of rendered text (an image-only scan).
- glyphs without Unicode, drawn: the page's text converted to vector outlines (SVG with
  text-as-path, back to PDF), plus a real-text footer "第 N 页，共 3 页" on every page. This is what
  "Microsoft: Print To PDF" papers in the corpus look like: only the footer extracts.
- glyphs without Unicode, mapped to private use: the CJK font's ToUnicode CMap rewritten so every
  glyph maps into U+E000–U+E0FF (what fonts with custom encodings give).
- mojibake: the Chinese text shown as an image, under an invisible (render mode 3) text layer of
  the same text's GBK bytes read as Latin-1 ("ÕÛ°ë²éÕÒ…").
- OCR'd layer: a page image of the text with an invisible text layer holding the correct Chinese
  (what scanners' "searchable PDF" writes): the layer is kept, the page is not OCR'd again.
"""

from __future__ import annotations

from pathlib import Path

import pymupdf as fitz
import pytest

from pipeline.parse.garble import GarbleThresholds
from pipeline.parse.layout import BBox, LineBox, OcrPage
from pipeline.parse.pdf import open_pdf, page_verdicts, parse_pdf

TH = GarbleThresholds()
LINES = ["第三章 查找", "折半查找要求线性表必须采用顺序存储结构，", "而且表中元素按关键字有序排列。",
         "每次取中间位置的元素与给定值比较，", "若相等则查找成功，否则缩小查找区间。"]
TEXT = "".join(LINES)


def _font(page) -> None:
    page.insert_font(fontname="cjk", fontbuffer=fitz.Font("cjk").buffer)


def _write(page, lines=LINES, render_mode: int = 0, fontname: str = "cjk", y0: float = 100) -> None:
    if fontname == "cjk":
        _font(page)
    for i, line in enumerate(lines):
        page.insert_text((72, y0 + 24 * i), line, fontname=fontname, fontsize=14, render_mode=render_mode)


def _image_of_text(lines=LINES, dpi: int = 150) -> fitz.Pixmap:
    src = fitz.open()
    _write(src.new_page(), lines)
    return src[0].get_pixmap(dpi=dpi)


def _scan_page(doc, lines=LINES):
    page = doc.new_page()
    page.insert_image(page.rect, pixmap=_image_of_text(lines))
    return page


def _vector_page(doc, footer: str):
    """Text as glyph outlines (no font, nothing to extract) and a real-text footer."""
    src = fitz.open()
    _write(src.new_page())
    outlined = fitz.open("pdf", fitz.open("svg", src[0].get_svg_image(text_as_path=True).encode()).convert_to_pdf())
    page = doc.new_page(width=outlined[0].rect.width, height=outlined[0].rect.height)
    page.show_pdf_page(page.rect, outlined, 0)
    _font(page)
    page.insert_text((250, page.rect.height - 30), footer, fontname="cjk", fontsize=9)
    return page


def _map_to_private_use(doc) -> None:
    """Rewrite every ToUnicode CMap so all glyph codes map into U+E000–U+E0FF."""
    ranges = "\n".join(f"<{hi:02x}00> <{hi:02x}ff> <e000>" for hi in range(256))
    cmap = ("/CIDInit /ProcSet findresource begin 12 dict begin begincmap\n"
            "/CIDSystemInfo <</Registry(Adobe)/Ordering(UCS)/Supplement 0>> def\n"
            "/CMapName /Junk-UCS def /CMapType 2 def\n1 begincodespacerange\n<0000> <ffff>\nendcodespacerange\n"
            f"256 beginbfrange\n{ranges}\nendbfrange\nendcmap CMapName currentdict /CMap defineresource pop end end")
    for xref in range(1, doc.xref_length()):
        kind, value = doc.xref_get_key(xref, "ToUnicode")
        if kind == "xref":
            doc.update_stream(int(value.split()[0]), cmap.encode())


class FakeOcr:
    def __init__(self, text_lines=LINES):
        self.calls: list[int] = []
        self.lines = text_lines

    def __call__(self, path, numbers):
        self.calls.extend(numbers)
        return {n: OcrPage([LineBox(t, BBox(72, 90 + 24 * i, 400, 104 + 24 * i)) for i, t in enumerate(self.lines)],
                           0.93)
                for n in numbers}


def _parse(doc, tmp_path: Path, name: str = "kinds.pdf"):
    path = tmp_path / name
    doc.save(path)
    ocr = FakeOcr()
    result = parse_pdf(path, str(path), password=None, th=TH, ocr_pages=ocr)
    return result.pages, result.blocks, result.errors, ocr


def _page_text(blocks, page: int) -> str:
    return "".join(b.text for b in blocks if b.page == page).replace("\n", "")


def test_good_text_layer_is_used_without_ocr(tmp_path):
    doc = fitz.open()
    _write(doc.new_page())
    pages, blocks, errors, ocr = _parse(doc, tmp_path)
    assert ocr.calls == [] and not errors
    assert (pages[0].verdict, pages[0].method) == ("good", "text")
    assert TEXT.replace("第三章 查找", "") in _page_text(blocks, 1)


def test_image_only_page_is_ocrd(tmp_path):
    doc = fitz.open()
    _write(doc.new_page())
    _scan_page(doc)
    pages, blocks, errors, ocr = _parse(doc, tmp_path)
    assert ocr.calls == [2]
    assert [(p.verdict, p.method) for p in pages] == [("good", "text"), ("missing", "ocr")]
    assert pages[1].ocr_confidence == pytest.approx(0.93)
    assert "折半查找要求线性表" in _page_text(blocks, 2)


def test_vector_glyphs_with_only_a_footer_are_ocrd(tmp_path):
    doc = fitz.open()
    for n in range(1, 4):
        _vector_page(doc, f"第 {n} 页，共 3 页")
    probe = fitz.open("pdf", doc.tobytes())
    assert [p.get_text().strip() for p in probe] == [f"第 {n} 页，共 3 页" for n in range(1, 4)]
    assert not any(p.get_images() for p in probe)  # nothing but paths: no image to hint at a scan
    pages, blocks, errors, ocr = _parse(doc, tmp_path)
    assert ocr.calls == [1, 2, 3]
    assert all((p.verdict, p.method) == ("missing", "ocr") for p in pages)


def test_glyphs_mapped_to_private_use_are_ocrd(tmp_path):
    doc = fitz.open()
    _write(doc.new_page())
    _map_to_private_use(doc)
    probe = fitz.open("pdf", doc.tobytes())
    extracted = probe[0].get_text().replace("\n", "").replace(" ", "")
    assert extracted and all("\ue000" <= c <= "\ue0ff" for c in extracted), extracted[:20]
    pages, blocks, errors, ocr = _parse(doc, tmp_path)
    assert ocr.calls == [1]
    assert (pages[0].verdict, pages[0].method) == ("garbled", "ocr")


def test_latin1_mojibake_layer_is_ocrd(tmp_path):
    doc = fitz.open()
    page = _scan_page(doc)
    moji = [line.encode("gbk").decode("latin-1") for line in LINES]
    _write(page, lines=moji, render_mode=3, fontname="helv")
    probe = fitz.open("pdf", doc.tobytes())
    assert "Õ" in probe[0].get_text()  # the layer really extracts as Latin-1 garbage
    pages, blocks, errors, ocr = _parse(doc, tmp_path, name="2013计算机考研408真题.pdf")
    assert ocr.calls == [1]
    assert (pages[0].verdict, pages[0].method) == ("garbled", "ocr")
    assert "Õ" not in _page_text(blocks, 1) and "折半查找" in _page_text(blocks, 1)


def test_mojibake_is_caught_without_a_chinese_file_name(tmp_path):
    """Latin-1 mojibake is judged by its letters, not by whether the document was expected in Chinese."""
    doc = fitz.open()
    page = doc.new_page()
    moji = [line.encode("gbk").decode("latin-1") for line in LINES]
    _write(page, lines=moji, fontname="helv")
    pages, _, _, ocr = _parse(doc, tmp_path, name="paper.pdf")
    assert ocr.calls == [1] and pages[0].verdict == "garbled"


def test_ocr_text_layer_over_scan_is_kept(tmp_path):
    doc = fitz.open()
    for _ in range(2):
        page = _scan_page(doc, LINES * 2)
        _write(page, LINES * 2, render_mode=3)  # searchable-PDF layer: invisible, correct text
    pages, blocks, errors, ocr = _parse(doc, tmp_path)
    assert ocr.calls == []
    assert all((p.verdict, p.method) == ("good", "text") for p in pages)
    assert "折半查找要求线性表必须采用顺序存储结构" in _page_text(blocks, 1)


def test_blank_page_is_neither_ocrd_nor_an_error(tmp_path):
    doc = fitz.open()
    _write(doc.new_page())
    doc.new_page()
    pages, _, errors, ocr = _parse(doc, tmp_path)
    assert ocr.calls == [] and not errors
    assert pages[1].verdict == "good" and pages[1].chars == 0


def test_short_text_over_a_full_page_scan_is_ocrd(tmp_path):
    """A scan with only a stamped line of real text (a watermark, a page header) is still a scan."""
    doc = fitz.open()
    page = _scan_page(doc)
    _write(page, lines=["计算机学科专业基础综合试题参考答案"], y0=30)
    pages, _, _, ocr = _parse(doc, tmp_path)
    assert ocr.calls == [1] and pages[0].verdict == "missing"


def test_verdicts_come_with_reasons(tmp_path):
    doc = fitz.open()
    _write(doc.new_page())
    _scan_page(doc)
    path = tmp_path / "r.pdf"
    doc.save(path)
    (good, why_good), (missing, why_missing) = page_verdicts(open_pdf(path, None), str(path), TH)
    assert good.verdict == "good" and "readable" in why_good
    assert missing.verdict == "missing" and "images" in why_missing


def test_mixed_pdf_with_real_ocr_end_to_end(tmp_path):
    """Text page + image-only page through parse_file and the packaged rapidocr (1 worker)."""
    from pipeline.parse.formats import parse_file
    from pipeline.parse.ocr_runner import OcrRunner
    from pipeline.settings import Settings

    doc = fitz.open()
    _write(doc.new_page())
    _scan_page(doc, lines=["第四章 散列表", "散列函数把关键字映射为存储地址。", "处理冲突的方法有开放定址法和拉链法。"])
    path = tmp_path / "mixed.pdf"
    doc.save(path)
    settings = Settings.from_flat(data_dir=tmp_path, ocr_workers=1)
    runner = OcrRunner(settings)
    try:
        parsed = parse_file(path, str(path), "d" * 16, settings, runner)
    finally:
        runner.close()
    assert [p.method for p in parsed.pages] == ["text", "ocr"]
    assert parsed.pages[1].ocr_confidence > 0.8
    ocr_text = "".join(b.text for b in parsed.blocks if b.page == 2).replace(" ", "")
    assert "散列函数把关键字映射为存储地址" in ocr_text and "拉链法" in ocr_text
    heads = [b.text for b in parsed.blocks if b.kind == "heading"]
    assert "第四章 散列表" in heads or "第四章散列表" in [h.replace(" ", "") for h in heads]
    assert not parsed.errors
