
import pytest

from pipeline.parse.errors import ParseError
from pipeline.parse.text import decode_text, parse_markdown, parse_plain

NOTE = "一、传输层概述\n传输层为应用进程之间提供端到端的逻辑通信。\n二、拥塞控制\n慢开始和拥塞避免。"


@pytest.mark.parametrize("encoding", ["utf-8", "gbk", "gb18030", "utf-16", "utf-16-le", "utf-8-sig"])
def test_decode_text_encodings(encoding):
    data = NOTE.encode(encoding)
    text, used = decode_text(data)
    assert text.lstrip("\ufeff") == NOTE, used


def test_gbk_is_not_taken_for_utf8():
    text, used = decode_text(NOTE.encode("gbk"))
    assert used == "gb18030" and "拥塞控制" in text


def test_binary_junk_is_refused():
    junk = bytes(range(256)) * 40
    with pytest.raises(ParseError, match="binary"):
        decode_text(junk)


def test_markdown_headings_skip_code():
    md = "# 操作系统\n\n## 死锁\n\n死锁的四个必要条件。\n\n```c\n#include <stdio.h>\n#define N 5\n```\n\n### 银行家算法\n\n安全性检查。\n"
    blocks = parse_markdown(md)
    heads = [(b.level, b.text) for b in blocks if b.kind == "heading"]
    assert heads == [(1, "操作系统"), (2, "死锁"), (3, "银行家算法")]
    code = [b for b in blocks if b.kind == "code"]
    assert len(code) == 1 and "#include <stdio.h>" in code[0].text


def test_plain_text_numbered_headings():
    blocks = parse_plain(NOTE)
    assert [b.text for b in blocks if b.kind == "heading"] == ["一、传输层概述", "二、拥塞控制"]


def test_inline_base64_images_are_dropped():
    payload = "iVBORw0KGgo" + "A" * 5000
    md = f"# 传输层\n\nUDP首部8字节。\n\n![UDP格式](data:image/png;base64,{payload})\n\n[UDPformat]:data:image/png;base64,{payload}\n"
    blocks = parse_markdown(md)
    text = "\n".join(b.text for b in blocks)
    assert "UDP首部8字节" in text and "base64" not in text and "AAAA" not in text
