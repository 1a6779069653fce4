"""docx/pptx/xlsx/html/epub through MarkItDown, then the markdown reader.

MarkItDown gives ``#`` headings for docx heading styles, html ``<h1>``…, pptx slide titles and
xlsx sheet names, so headings become chapter paths like any markdown note. On top of that:
pptx slides become pages (``<!-- Slide number: N -->`` markers, dropped from the text), epub
metadata lines (``**Title:** …``) are dropped and give the document title, as does html ``<title>``.
"""

from __future__ import annotations

import re
from pathlib import Path

from pipeline.models import Block
from pipeline.parse.errors import ParseError
from pipeline.parse.text import _looks_binary, parse_markdown

OFFICE_SUFFIXES = {".docx", ".pptx", ".xlsx", ".html", ".htm", ".epub"}
ZIP_SUFFIXES = {".docx", ".pptx", ".xlsx", ".epub"}

_SLIDE = re.compile(r"^<!--\s*Slide number:\s*(\d+)\s*-->\s*$", re.M)
_COMMENT = re.compile(r"<!--.*?-->", re.S)
_EPUB_META = re.compile(r"^\*\*(Title|Authors?|Language|Identifier|Publisher|Date|Description|Subject|Rights):\*\*\s*(.*)$")


def parse_office(path: Path) -> tuple[list[Block], str]:
    """(blocks, title from the file's own metadata or "")."""
    import zipfile

    from markitdown import MarkItDown

    suffix = path.suffix.lower()
    if suffix in ZIP_SUFFIXES and not zipfile.is_zipfile(path):
        raise ParseError(f"not a valid {suffix} file (not a zip archive: damaged, or renamed from another type?)")
    try:
        result = MarkItDown(enable_plugins=False).convert(str(path))
    except Exception as exc:
        raise ParseError(f"cannot convert with MarkItDown ({exc.__class__.__name__}: {str(exc)[:120]})")
    text = result.text_content or ""
    if _looks_binary(text):  # MarkItDown falls back to reading bytes as text when its converter fails
        raise ParseError(f"cannot convert with MarkItDown (the {suffix} file looks damaged: binary output)")
    title = (getattr(result, "title", None) or "").strip()
    if suffix == ".epub":
        text, meta_title = _strip_epub_meta(text)
        title = title or meta_title
    if suffix == ".pptx":
        return _slides(text), title
    return parse_markdown(_COMMENT.sub("", text)), title


def _strip_epub_meta(text: str) -> tuple[str, str]:
    lines = text.splitlines()
    title = ""
    i = 0
    while i < len(lines) and (not lines[i].strip() or _EPUB_META.match(lines[i].strip())):
        m = _EPUB_META.match(lines[i].strip())
        if m and m.group(1) == "Title":
            title = m.group(2).strip()
        i += 1
    return "\n".join(lines[i:]), title


def _slides(text: str) -> list[Block]:
    """One markdown part per slide; its blocks carry the slide number as their page."""
    parts = _SLIDE.split(text)
    blocks = parse_markdown(_COMMENT.sub("", parts[0]))
    for number, body in zip(parts[1::2], parts[2::2]):
        for b in parse_markdown(_COMMENT.sub("", body)):
            b.page = int(number)
            blocks.append(b)
    return blocks
