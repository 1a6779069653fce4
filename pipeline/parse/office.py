"""docx/pptx/xlsx/html/epub through MarkItDown, then the markdown reader."""

from __future__ import annotations

from pathlib import Path

from pipeline.models import Block
from pipeline.parse.pdf import ParseError
from pipeline.parse.text import parse_markdown

OFFICE_SUFFIXES = {".docx", ".pptx", ".xlsx", ".html", ".htm", ".epub"}


def parse_office(path: Path) -> list[Block]:
    from markitdown import MarkItDown

    try:
        result = MarkItDown(enable_plugins=False).convert(str(path))
    except Exception as exc:
        raise ParseError(f"cannot convert with MarkItDown ({exc.__class__.__name__}: {str(exc)[:120]})")
    return parse_markdown(result.text_content or "")
