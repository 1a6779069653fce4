"""Text and markdown notes: encoding detection, markdown headings (never inside code), txt headings."""

from __future__ import annotations

import codecs
import re

from pipeline.models import Block
from pipeline.parse.headings import clean_heading, exam_section, numbering
from pipeline.parse.errors import ParseError

_MD_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*+#*+\s*$")  # possessive tail: no cubic backtracking
_FENCE = re.compile(r"^\s*(```|~~~)")


def decode_text(data: bytes) -> tuple[str, str]:
    """Return (text, encoding). Tries BOMs, UTF-8, GB18030 (covers GBK), UTF-16 without BOM."""
    for bom, enc in ((codecs.BOM_UTF8, "utf-8-sig"), (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16")):
        if data.startswith(bom):
            return data.decode(enc), enc
    if data and data.count(b"\x00") > len(data) // 4:
        for enc in ("utf-16-le", "utf-16-be"):
            try:
                text = data.decode(enc)
                if not _looks_binary(text):
                    return text, enc
            except UnicodeDecodeError:
                pass
        raise ParseError("binary file, not text")
    for enc in ("utf-8", "gb18030"):
        try:
            text = data.decode(enc)
        except UnicodeDecodeError:
            continue
        if _looks_binary(text):
            raise ParseError("binary file, not text")
        return text, enc
    from charset_normalizer import from_bytes

    best = from_bytes(data).best()
    if best is None or _looks_binary(str(best)):
        raise ParseError("binary file, not text")
    return str(best), best.encoding


def _looks_binary(text: str) -> bool:
    if not text:
        return False
    sample = text[:20000]
    ctrl = sum(1 for c in sample if (ord(c) < 32 and c not in "\n\r\t\f") or c == "\ufffd")
    return ctrl / len(sample) > 0.02


_INLINE_DATA = re.compile(r"!?\[[^\]]*\]\(\s*data:[\w/+.-]+;base64,[A-Za-z0-9+/=\s]*\)|"
                          r"^\s*\[[^\]]+\]:\s*<?data:[\w/+.-]+;base64,\S*>?\s*$|data:image/[\w+.-]+;base64,[A-Za-z0-9+/=]{40,}",
                          re.M)


def strip_inline_data(text: str) -> str:
    """Drop embedded base64 images (some notes carry 500 KB of them): not text, and they bloat the index."""
    return _INLINE_DATA.sub("", text)


def parse_markdown(text: str) -> list[Block]:
    """Headings from ``#`` lines outside fenced code; paragraphs split at blank lines."""
    text = strip_inline_data(text)
    blocks: list[Block] = []
    para: list[str] = []
    code: list[str] | None = None

    def flush():
        if para:
            blocks.append(Block(kind="text", text="\n".join(para).strip()))
            para.clear()

    for line in text.splitlines():
        if code is not None:
            code.append(line)
            if _FENCE.match(line):
                blocks.append(Block(kind="code", text="\n".join(code)))
                code = None
            continue
        if _FENCE.match(line):
            flush()
            code = [line]
            continue
        m = _MD_HEADING.match(line)
        if m:
            flush()
            blocks.append(Block(kind="heading", text=clean_heading(m.group(2)), level=len(m.group(1))))
        elif not line.strip():
            flush()
        else:
            para.append(line.rstrip())
    flush()
    if code:
        blocks.append(Block(kind="code", text="\n".join(code)))
    return [b for b in blocks if b.text]


def parse_plain(text: str) -> list[Block]:
    """Plain text: short numbered lines (第X章, 一、, 1.2 …) and exam section titles become headings."""
    blocks: list[Block] = []
    para: list[str] = []

    def flush():
        if para:
            blocks.append(Block(kind="text", text="\n".join(para).strip()))
            para.clear()

    for line in text.splitlines():
        s = line.strip()
        sec = exam_section(s) if s else None
        if sec:  # "一、单项选择题：每小题2分…": a heading, and the line stays text as written
            flush()
            blocks.append(Block(kind="heading", text=sec[0], level=2))
            if sec[1]:
                para.append(s)
            continue
        num = numbering(s) if s else None
        if num:
            flush()
            blocks.append(Block(kind="heading", text=s, level=num[1]))
        elif not s:
            flush()
        else:
            para.append(s)
    flush()
    return blocks
