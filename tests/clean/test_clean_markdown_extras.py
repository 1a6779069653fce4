"""Markdown details seen in real notes: alignment rows like :--:, generated TOCs, emphasis."""

from pipeline.clean.core import clean_document, load_rules
from pipeline.models import Block, ParsedDoc


def _note(text: str) -> ParsedDoc:
    return ParsedDoc(doc_id="n", source="笔记.md", format="md", kind="note", title="应用层",
                     blocks=[Block(kind="heading", text="应用层", level=1, chapter_path=["应用层"]),
                             Block(kind="text", text=text, chapter_path=["应用层"])])


def test_short_alignment_row_still_makes_a_table():
    md = "|应用| 协议 | 端口号 |\n| :---: | :--: | :--: |\n| 网际报文存取协议 | IMAP | 143 |\n| 域名解析 | DNS | 53 |"
    text = clean_document(_note(md), load_rules(None)).sections[0].text
    assert "应用：网际报文存取协议；协议：IMAP；端口号：143" in text
    assert "|" not in text


def test_generated_toc_comments_and_emphasis_are_dropped():
    md = "<!-- GFM-TOC -->\n* [应用层](#应用层)\n* [域名系统](#域名系统)\n<!-- GFM-TOC -->\n**端口号**是传输层的==服务访问点==。"
    text = clean_document(_note(md), load_rules(None)).sections[0].text
    assert text == "端口号是传输层的服务访问点。"
