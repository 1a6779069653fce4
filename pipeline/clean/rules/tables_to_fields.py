"""Rule ``tables_to_fields``: tables → one ``表头1：值1；表头2：值2`` line per row."""

from __future__ import annotations

import html
import re

from pipeline.clean.rules.base import Work, glue
from pipeline.models import Table

_ROW = re.compile(r"^\s*\|?(.*?)\|?\s*$")
_SEP = re.compile(r"^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$")


def cell(text: str) -> str:
    """A cell's text on one line (wrapped pieces glued, spaces collapsed, HTML entities such as the
    ``&nbsp;`` of an empty corner cell decoded)."""
    out = ""
    for piece in html.unescape(str(text or "")).split("\n"):
        out = glue(out, re.sub(r"\s+", " ", piece.strip()))
    return out


def row_line(header: list[str], row: list[str]) -> str:
    """``表头：值`` pairs joined by ``；``. Empty values are skipped; a value without a header
    (empty header cell or more cells than headers) appears alone."""
    parts = []
    for i, value in enumerate(row):
        value = cell(value)
        if not value:
            continue
        name = cell(header[i]) if i < len(header) else ""
        parts.append(f"{name}：{value}" if name else value)
    return "；".join(parts)


def table_lines(table: Table) -> list[str]:
    """Caption first (when there is one), then one line per non-empty row."""
    lines = [cell(table.caption)] if cell(table.caption) else []
    return lines + [line for line in (row_line(table.header, r) for r in table.rows) if line]


def split_md_row(line: str) -> list[str]:
    return [c.strip() for c in re.split(r"(?<!\\)\|", _ROW.match(line).group(1))]


def md_tables(lines: list[str]) -> list[tuple[int, int, Table]]:
    """Markdown tables in ``lines``: (start, end, Table) for a ``| a | b |`` header line followed
    by a ``|---|---|`` separator and the ``|``-containing rows after it."""
    found, i = [], 0
    while i + 1 < len(lines):
        if "|" in lines[i] and _SEP.match(lines[i + 1]) and "|" in lines[i + 1] + lines[i]:
            j = i + 2
            while j < len(lines) and "|" in lines[j] and not _SEP.match(lines[j]):
                j += 1
            found.append((i, j, Table(header=split_md_row(lines[i]), rows=[split_md_row(s) for s in lines[i + 2:j]])))
            i = j
        else:
            i += 1
    return found


def tables_to_fields(work: Work) -> None:
    """Rewrite table blocks, and markdown tables inside text blocks, as field lines; keep each
    original ``Table`` in the block's ``tables`` (later ``Section.tables``). No thresholds."""
    for b in work.blocks:
        if b.kind == "table" and b.table is not None:
            b.lines = table_lines(b.table)
            b.tables.append(b.table)
        elif b.kind == "text":
            for start, end, table in reversed(md_tables(b.lines)):
                b.lines[start:end] = table_lines(table)
                b.tables.insert(0, table)
    work.blocks = [b for b in work.blocks if b.lines]
