"""The working state the clean rules share, and small text helpers.

A rule is a function ``rule(work: Work) -> None`` that rewrites ``work`` in place; its docstring
states its thresholds. ``Work.blocks`` are the parsed blocks split into lines; the last rules turn
them into ``work.questions`` and ``work.sections``.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Optional

from pipeline.models import Block, ParsedDoc, Question, Section, Table
from pipeline.rulefiles import Pattern, compiled

if TYPE_CHECKING:
    from pipeline.clean.core import Rules


@dataclass
class WBlock:
    """A block being cleaned: its text as a list of lines (paragraphs after ``join_lines``)."""

    kind: str
    lines: list[str]
    page: Optional[int] = None
    chapter_path: list[str] = field(default_factory=list)
    band: str = "body"
    level: Optional[int] = None
    table: Optional[Table] = None
    tables: list[Table] = field(default_factory=list)  # originals of rows rewritten as 字段：值
    formulas: list[str] = field(default_factory=list)  # originals of formulas rewritten as text

    @classmethod
    def from_block(cls, b: Block) -> "WBlock":
        lines = [b.text] if b.kind == "code" else b.text.split("\n")
        return cls(kind=b.kind, lines=[s for s in lines if s.strip()], page=b.page,
                   chapter_path=list(b.chapter_path), band=b.band, level=b.level,
                   table=b.table.model_copy(deep=True) if b.table else None)

    def with_lines(self, lines: list[str], chapter_path: Optional[list[str]] = None) -> "WBlock":
        """A copy holding ``lines`` (and another chapter_path, if given)."""
        path = list(self.chapter_path if chapter_path is None else chapter_path)
        return WBlock(self.kind, list(lines), self.page, path, self.band, self.level, self.table,
                      list(self.tables), list(self.formulas))


@dataclass
class Work:
    parsed: ParsedDoc
    rules: "Rules"
    blocks: list[WBlock]
    kind: str
    title: str
    sections: list[Section] = field(default_factory=list)
    questions: list[Question] = field(default_factory=list)
    removed: Counter = field(default_factory=Counter)

    @classmethod
    def start(cls, parsed: ParsedDoc, rules: "Rules") -> "Work":
        blocks = [WBlock.from_block(b) for b in parsed.blocks]
        title = parsed.title.strip() or Path(parsed.source).stem
        return cls(parsed=parsed, rules=rules, blocks=[b for b in blocks if b.lines or b.table], kind=parsed.kind,
                   title=title)

    def filter_lines(self, rule: str, drop, kinds: Iterable[str] = ("heading", "text")) -> None:
        """Remove the lines for which ``drop(block, line)`` is true from blocks of ``kinds``;
        count them under ``rule`` and drop blocks left empty."""
        kinds = set(kinds)
        for b in self.blocks:
            if b.kind in kinds:
                kept = [s for s in b.lines if not drop(b, s)]
                self.removed[rule] += len(b.lines) - len(kept)
                b.lines = kept
        self.blocks = [b for b in self.blocks if b.lines or (b.kind == "table" and b.table)]

    @property
    def page_count(self) -> int:
        pages = {b.page for b in self.parsed.blocks if b.page is not None}
        return max(len(self.parsed.pages), len(pages))


def rx(pattern: str) -> Pattern:
    """The rules-file pattern compiled to run under a time bound (``pipeline.rulefiles``): a
    runaway pattern is an error for its document, not a stage that never ends."""
    return compiled(pattern)


def full_match(patterns: Iterable[str], line: str) -> bool:
    s = line.strip()
    return any(rx(p).fullmatch(s) for p in patterns)


def search_any(patterns: Iterable[str], line: str) -> bool:
    return any(rx(p).search(line) for p in patterns)


def starts_any(patterns: Iterable[str], line: str) -> bool:
    s = line.strip()
    return any(rx(p).match(s) for p in patterns)


def is_cjk(ch: str) -> bool:
    """CJK ideographs and full-width punctuation/forms."""
    o = ord(ch)
    return 0x3000 <= o <= 0x9FFF or 0xF900 <= o <= 0xFAFF or 0xFF00 <= o <= 0xFFEF or 0x20000 <= o <= 0x2FFFF


def width(s: str) -> int:
    """Display width: CJK characters count 2, others 1."""
    return sum(2 if is_cjk(c) else 1 for c in s.strip())


def glue(left: str, right: str) -> str:
    """Join two wrapped pieces: no space around CJK, one space between ASCII words, de-hyphenate."""
    left, right = left.rstrip(), right.lstrip()
    if not left or not right:
        return left + right
    a, b = left[-1], right[0]
    if a == "-" and len(left) > 1 and left[-2].isalpha() and b.islower():
        return left[:-1] + right
    if a.isascii() and b.isascii() and (b.isalnum() or b in "([") and a not in "([/":
        return f"{left} {right}"
    return left + right
