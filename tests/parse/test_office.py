"""Office formats through MarkItDown: headings become chapter paths. Every file is generated here.

python-docx is not installed (MarkItDown reads docx with mammoth), so the docx is written as a
minimal WordprocessingML zip with Word's built-in "heading N" paragraph styles; pptx and xlsx
are made with python-pptx and openpyxl (MarkItDown dependencies); epub is a minimal EPUB 3 zip.
"""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from pipeline.parse.formats import parse_file
from pipeline.parse.ocr_runner import OcrRunner
from pipeline.settings import Settings

W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
PKG = "http://schemas.openxmlformats.org/package/2006"
DOC_REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"


def make_docx(path: Path, items: list[tuple[int, str]]) -> Path:
    """items: (heading level or 0 for body text, text)."""
    def para(level: int, text: str) -> str:
        ppr = f'<w:pPr><w:pStyle w:val="Heading{level}"/></w:pPr>' if level else ""
        return f'<w:p>{ppr}<w:r><w:t xml:space="preserve">{text}</w:t></w:r></w:p>'

    styles = "".join(f'<w:style w:type="paragraph" w:styleId="Heading{i}"><w:name w:val="heading {i}"/></w:style>'
                     for i in (1, 2, 3))
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("[Content_Types].xml",
                   f'<?xml version="1.0" encoding="UTF-8"?><Types xmlns="{PKG}/content-types">'
                   f'<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
                   f'<Default Extension="xml" ContentType="application/xml"/>'
                   f'<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-'
                   f'officedocument.wordprocessingml.document.main+xml"/>'
                   f'<Override PartName="/word/styles.xml" ContentType="application/vnd.openxmlformats-'
                   f'officedocument.wordprocessingml.styles+xml"/></Types>')
        z.writestr("_rels/.rels", f'<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="{PKG}/relationships">'
                                  f'<Relationship Id="rId1" Type="{DOC_REL}/officeDocument" Target="word/document.xml"/>'
                                  f'</Relationships>')
        z.writestr("word/_rels/document.xml.rels",
                   f'<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="{PKG}/relationships">'
                   f'<Relationship Id="rId1" Type="{DOC_REL}/styles" Target="styles.xml"/></Relationships>')
        z.writestr("word/styles.xml", f'<?xml version="1.0" encoding="UTF-8"?><w:styles xmlns:w="{W}">{styles}</w:styles>')
        z.writestr("word/document.xml", f'<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="{W}"><w:body>'
                                        + "".join(para(lv, t) for lv, t in items) + "</w:body></w:document>")
    return path


def make_epub(path: Path, title: str, chapters: list[tuple[str, str]]) -> Path:
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("mimetype", "application/epub+zip", compress_type=zipfile.ZIP_STORED)
        z.writestr("META-INF/container.xml",
                   '<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:'
                   'container"><rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/'
                   'oebps-package+xml"/></rootfiles></container>')
        items = "".join(f'<item id="c{i}" href="c{i}.xhtml" media-type="application/xhtml+xml"/>' for i in range(len(chapters)))
        spine = "".join(f'<itemref idref="c{i}"/>' for i in range(len(chapters)))
        z.writestr("OEBPS/content.opf",
                   f'<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0" '
                   f'unique-identifier="id"><metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>{title}'
                   f'</dc:title><dc:identifier id="id">t</dc:identifier><dc:language>zh</dc:language></metadata>'
                   f'<manifest>{items}</manifest><spine>{spine}</spine></package>')
        for i, (head, body) in enumerate(chapters):
            z.writestr(f"OEBPS/c{i}.xhtml", f'<?xml version="1.0" encoding="utf-8"?><html xmlns="http://www.w3.org/'
                                           f'1999/xhtml"><head><title>{head}</title></head><body><h1>{head}</h1>'
                                           f'<p>{body}</p></body></html>')
    return path


def parse(path: Path, tmp_path: Path):
    settings = Settings(data_dir=tmp_path)
    return parse_file(path, str(path), "o" * 16, settings, OcrRunner(settings))


def paths_of(doc, needle: str) -> list[list[str]]:
    return [b.chapter_path for b in doc.blocks if b.kind == "text" and needle in b.text]


def test_docx_heading_styles_become_chapter_paths(tmp_path):
    path = make_docx(tmp_path / "查找.docx", [
        (1, "第三章 查找"), (0, "查找是在数据集合中寻找满足条件的元素。"),
        (2, "3.1 顺序查找"), (0, "顺序查找适用于顺序表和链表。"),
        (2, "3.2 折半查找"), (3, "3.2.1 判定树"), (0, "折半查找的过程可用判定树描述。")])
    doc = parse(path, tmp_path)
    assert doc.format == "office" and doc.title == "第三章 查找"
    assert [(b.level, b.text) for b in doc.blocks if b.kind == "heading"] == [
        (1, "第三章 查找"), (2, "3.1 顺序查找"), (2, "3.2 折半查找"), (3, "3.2.1 判定树")]
    assert paths_of(doc, "顺序查找适用") == [["第三章 查找", "3.1 顺序查找"]]
    assert paths_of(doc, "判定树描述") == [["第三章 查找", "3.2 折半查找", "3.2.1 判定树"]]


def test_html_headings_become_chapter_paths(tmp_path):
    path = tmp_path / "note.html"
    path.write_text("<html><head><title>查找笔记</title><style>p{color:red}</style></head><body>"
                    "<h1>第三章 查找</h1><p>查找的基本概念。</p><h2>3.1 顺序查找</h2><p>顺序查找适用于顺序表和链表。</p>"
                    "<script>var x = 1;</script><h2>3.2 <b>折半</b>查找</h2><p>折半查找要求表有序。</p>"
                    "<!-- 注释不是正文 --></body></html>", encoding="utf-8")
    doc = parse(path, tmp_path)
    assert doc.title == "查找笔记"
    assert paths_of(doc, "顺序查找适用") == [["第三章 查找", "3.1 顺序查找"]]
    assert paths_of(doc, "要求表有序") == [["第三章 查找", "3.2 折半查找"]]
    text = "\n".join(b.text for b in doc.blocks)
    assert "var x" not in text and "color" not in text and "注释" not in text


def test_pptx_slides_are_pages_and_titles_are_headings(tmp_path):
    pptx = pytest.importorskip("pptx")
    prs = pptx.Presentation()
    for title, body in (("第四章 散列表", "散列函数把关键字映射为地址。"), ("4.1 处理冲突", "开放定址法和拉链法。")):
        slide = prs.slides.add_slide(prs.slide_layouts[1])
        slide.shapes.title.text = title
        slide.placeholders[1].text = body
    path = tmp_path / "4.散列表.pptx"
    prs.save(path)
    doc = parse(path, tmp_path)
    assert doc.title == "散列表"  # several slide titles: the file name (ordinal dropped) is the title
    assert paths_of(doc, "拉链法") == [["散列表", "4.1 处理冲突"]]
    assert {b.page for b in doc.blocks if "拉链法" in b.text} == {2}
    assert "Slide number" not in "\n".join(b.text for b in doc.blocks)


def test_xlsx_sheet_is_a_heading_over_its_table(tmp_path):
    openpyxl = pytest.importorskip("openpyxl")
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "常用端口"
    for row in (["协议", "端口"], ["DNS", "53"], ["HTTP", "80"]):
        ws.append(row)
    path = tmp_path / "ports.xlsx"
    wb.save(path)
    doc = parse(path, tmp_path)
    rows = [b for b in doc.blocks if "DNS" in b.text]
    assert rows and rows[0].chapter_path == ["ports", "常用端口"]
    assert "| DNS | 53 |" in rows[0].text


def test_epub_chapters_under_the_book_title(tmp_path):
    path = make_epub(tmp_path / "book.epub", "数据结构笔记", [
        ("第一章 线性表", "线性表是具有相同数据类型的n个数据元素的有限序列。"),
        ("第二章 栈和队列", "栈是只允许在一端进行插入或删除操作的线性表。")])
    doc = parse(path, tmp_path)
    assert doc.title == "数据结构笔记"
    assert paths_of(doc, "只允许在一端") == [["数据结构笔记", "第二章 栈和队列"]]
    assert "**Title:**" not in "\n".join(b.text for b in doc.blocks)


def test_unreadable_office_file_is_one_clear_error(tmp_path):
    from pipeline.parse.errors import ParseError

    path = tmp_path / "broken.docx"
    path.write_bytes(b"PK\x03\x04 not really a zip")  # MarkItDown alone would return these bytes as text
    with pytest.raises(ParseError, match="not a valid .docx"):
        parse(path, tmp_path)
