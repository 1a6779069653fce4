"""Rule ``join_lines``: wrapped lines → paragraphs."""

from __future__ import annotations

import re

from pipeline.clean.rules.base import WBlock, Work, glue, is_cjk, starts_any, width
from pipeline.clean.rules.tables_to_fields import md_tables

# A paragraph ends after these (optionally followed by closing quotes/brackets).
_END = re.compile(r"[。！？；：!?;:][”’」』\"')）】]*$")
_MD_TABLE_ROW = re.compile(r"^\s*\|.*\|\s*$|^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)+\|?\s*$")
_MATH = re.compile(r"[=≤≥≠<>{};∑∫]|\\[A-Za-z]+")


def is_verbatim(line: str) -> bool:
    """Lines kept exactly as they are, on their own: markdown table rows, display-formula
    delimiters (``$$``, ``\\[``, ``\\]``), and formula/code lines (no CJK character and a math or
    code sign such as ``=``, ``≤``, ``{``, ``;`` or a ``\\command``)."""
    s = line.strip()
    if _MD_TABLE_ROW.match(s) or s.startswith(("$$", "\\[")) or s.endswith(("$$", "\\]")):
        return True
    return not any(is_cjk(c) for c in s) and bool(_MATH.search(s))


def ends_paragraph(line: str, widest: int, ratio: float) -> bool:
    """A line ends its paragraph when it ends in ``。！？；：`` (or ASCII ``!?;:``), or when it is
    narrower than ``ratio`` × the block's widest line (display width, CJK counts 2)."""
    return bool(_END.search(line.rstrip())) or width(line) < ratio * widest


def join_paragraphs(lines: list[str], list_patterns: list[str], ratio: float) -> list[str]:
    """Join wrapped ``lines`` into paragraphs. List items (``list_patterns``) always start a new
    paragraph but take their own wrapped continuation lines; verbatim lines stay alone, indented."""
    # a markdown table's lines, also one written without outer pipes (GFM allows "a|b" rows), which
    # is_verbatim alone cannot tell from prose containing a "|"
    table = {i for start, end, _ in md_tables(lines) for i in range(start, end)}
    widest = max((width(s) for i, s in enumerate(lines) if i not in table and not is_verbatim(s)), default=0)
    paras: list[str] = []
    open_para = False  # may the next line continue paras[-1]?
    for i, line in enumerate(lines):
        s = line.strip()
        if not s:
            open_para = False
        elif i in table or is_verbatim(s):
            paras.append(line.rstrip())  # indentation kept (code)
            open_para = False
        elif open_para and not starts_any(list_patterns, s):
            paras[-1] = glue(paras[-1], s)
            open_para = not ends_paragraph(s, widest, ratio)
        else:
            paras.append(s)
            open_para = not ends_paragraph(s, widest, ratio)
    return paras


def merge_ocr_lines(work: Work) -> list[WBlock]:
    """On OCR pages the parser gives one block per visual line: merge consecutive body text blocks
    of the same page and chapter_path so their lines can be joined like a PDF text block's."""
    ocr = {p.number for p in work.parsed.pages if p.method == "ocr"}
    out: list[WBlock] = []
    for b in work.blocks:
        prev = out[-1] if out else None
        if (prev is not None and b.page in ocr and b.kind == "text" and b.band == "body" and prev.kind == "text"
                and prev.band == "body" and prev.page == b.page and prev.chapter_path == b.chapter_path):
            prev.lines = prev.lines + b.lines
        else:
            out.append(b)
    return out


def merge_wrapped_blocks(work: Work) -> list[WBlock]:
    """A paragraph the PDF cut into two blocks: merge a body text block into the previous one of the
    same page and chapter_path when the previous one's last line does not end a paragraph (no closing
    punctuation, at least ``short_line_ratio`` of the page's widest body line) and the next one's
    first line is neither a list item nor verbatim."""
    t, patterns = work.rules.thresholds, work.rules.list_item_patterns
    widest: dict = {}
    for b in work.blocks:
        if b.kind == "text" and b.band == "body" and b.page is not None:
            widest[b.page] = max([widest.get(b.page, 0)] + [width(s) for s in b.lines if not is_verbatim(s)])
    out: list[WBlock] = []
    for b in work.blocks:
        prev = out[-1] if out else None
        if (prev is not None and b.page is not None and b.kind == prev.kind == "text" and b.band == prev.band == "body"
                and prev.page == b.page and prev.chapter_path == b.chapter_path and prev.lines and b.lines
                and not is_verbatim(prev.lines[-1]) and not is_verbatim(b.lines[0])
                and not ends_paragraph(prev.lines[-1], widest[b.page], t.short_line_ratio)
                and not starts_any(patterns, b.lines[0].strip())):
            prev.lines = prev.lines + b.lines
            prev.tables += b.tables
            prev.formulas += b.formulas
        else:
            out.append(b)
    return out


def join_lines(work: Work) -> None:
    """Join wrapped lines of each text block into paragraphs (see ``join_paragraphs``); a line
    narrower than ``thresholds.short_line_ratio`` (default 0.7) of the widest line ends a
    paragraph. Blocks holding one paragraph cut in two are merged first (OCR'd lines, see
    ``merge_ocr_lines``; PDF blocks, see ``merge_wrapped_blocks``). Headings, tables and code blocks
    are left alone. Nothing is removed."""
    work.blocks = merge_ocr_lines(work)
    work.blocks = merge_wrapped_blocks(work)
    for b in work.blocks:
        if b.kind == "text":
            b.lines = join_paragraphs(b.lines, work.rules.list_item_patterns, work.rules.thresholds.short_line_ratio)
