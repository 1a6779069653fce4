"""Read a syllabus's lines into its tree: subject › chapter (五、查找) › section ((四)折半查找法) › point.

A pure function over text lines, so a PDF (its parsed lines), notes (.md/.txt) and tests all go through
the same rules. What real files do, and what each rule does about it:

- PyMuPDF puts spaces inside Chinese text (``(五)B 树…``, ``(二) 路由算法``): :func:`normalise` drops a
  space next to a non-ASCII character and makes full-width brackets and digits half-width.
- Page footers (``- 3 -``) fall between an item and its children: footer lines are dropped first.
- Numbering mixes ``一、``, ``(一)``, ``1.`` and ``1、``: levels come from the order numbering *styles*
  appear (:data:`rules.numbering`), not from fixed styles per level; ``1.`` and ``1、`` are one style.
- Items are cut off (``1、指令流水线的基本概``): kept as written; the next numbered line is never
  taken as their continuation.
- The 考查目标 list (1. 2. 3. before 一、) is skipped; a wrapped description line joins its item's notes.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from typing import Optional

from pipeline.syllabus.models import SyllabusNode
from pipeline.syllabus.rules import SyllabusRules, squash

# full-width brackets, full stop, slash, digits and Latin letters → ASCII (Chinese punctuation ，、：； stays)
_FULLWIDTH = {c: c - 0xFEE0 for c in [0xFF08, 0xFF09, 0xFF0E, 0xFF0F, *range(0xFF10, 0xFF1A), *range(0xFF21, 0xFF3B),
                                      *range(0xFF41, 0xFF5B)]} | {0x3000: 0x20}
_END_PUNCT = tuple("。；;：:！!？?）)")
_MD_HEADING = re.compile(r"^(#{1,6})\s+(.*)$")
_BULLET = re.compile(r"^(\s*)[-*+•]\s+(.*)$")
_MARKUP = re.compile(r"\*\*|__|`")


def normalise(line: str) -> str:
    """Half-width brackets/digits/letters, no spaces next to CJK, collapsed whitespace."""
    return squash(line.translate(_FULLWIDTH))


def node_id(titles: list[str]) -> str:
    return hashlib.sha256("\x1f".join(titles).encode("utf-8")).hexdigest()[:12]


@dataclass
class _Item:
    style: str
    title: str
    heading: str = ""  # the numbering and the title, without the space between them


@dataclass
class _Reader:
    rules: SyllabusRules
    full_len: int
    subjects: list[SyllabusNode] = field(default_factory=list)
    stack: list[tuple[str, SyllabusNode]] = field(default_factory=list)  # (style, node), subject excluded
    skipping: Optional[set[str]] = None  # styles seen in a skipped block (考查目标), None when not skipping
    last: Optional[SyllabusNode] = None  # the node the previous line wrote to
    last_line: str = ""
    last_was_title: bool = False

    @property
    def subject(self) -> Optional[SyllabusNode]:
        return self.subjects[-1] if self.subjects else None

    def start_subject(self, name: str) -> None:
        self.subjects.append(SyllabusNode(node_id="", level=0, heading=name, title=name))
        self.stack, self.skipping, self.last, self.last_was_title = [], None, None, False

    def item(self, item: _Item, line: str) -> None:
        styles = [s for s, _ in self.stack]
        if item.style in styles:
            del self.stack[styles.index(item.style):]
        level = len(self.stack) + 1
        parent = self.stack[-1][1] if self.stack else self.subject
        if level > self.rules.max_level:  # deeper items are their parent's notes
            self.note(line, parent, force_new_line=True)
            return
        node = SyllabusNode(node_id="", level=level, heading=item.heading or line, title=item.title.strip())
        parent.children.append(node)
        self.stack.append((item.style, node))
        self.last, self.last_line, self.last_was_title = node, line, True

    def note(self, line: str, node: Optional[SyllabusNode] = None, force_new_line: bool = False) -> None:
        node = node or self.last or self.subject
        wrapped = (len(self.last_line) >= self.rules.wrap_ratio * self.full_len
                   and not self.last_line.endswith(_END_PUNCT))
        if self.last_was_title and wrapped and node is self.last and not force_new_line:
            node.title += line  # the item's line was cut by the page width
            node.heading += line
        elif node.notes and wrapped and not force_new_line:
            node.notes += line
        else:
            node.notes = f"{node.notes}\n{line}" if node.notes else line
        self.last, self.last_line, self.last_was_title = node, line, False


def _numbered(line: str, rules: SyllabusRules) -> Optional[_Item]:
    for style, pattern in rules.compiled.numbering:
        m = pattern.match(line)
        if m and m.group("title").strip():
            title = m.group("title").strip()
            return _Item(style, title, line[:m.start("title")].rstrip() + title)
    return None


def _prepare(raw: str, rules: SyllabusRules) -> tuple[str, Optional[str]]:
    """(normalised line, markup style) — a Markdown heading or bullet gives a style of its own
    (``h2``, ``bullet1``) for items written without numbering."""
    style = None
    if any(p.match(normalise(raw)) for p in rules.compiled.footer):
        return "", None
    m = _MD_HEADING.match(raw.strip())
    if m:
        style, raw = f"h{len(m.group(1))}", m.group(2)
    else:
        b = _BULLET.match(raw.rstrip())
        if b:
            style, raw = f"bullet{len(b.group(1).expandtabs(4)) // 2}", b.group(2)
    return normalise(_MARKUP.sub("", raw)), style


def _subject_name(line: str, rules: SyllabusRules) -> Optional[str]:
    c = rules.compiled
    m = c.subject_line.fullmatch(line)
    if m:
        name = c.aliases.get(m.group("name").strip().lower())
        if name:
            return name
    return c.aliases.get(line.lower())


def read_outline(lines: list[str], rules: SyllabusRules) -> list[SyllabusNode]:
    """The subjects of a syllabus with their items, in the syllabus's order; [] when it has none."""
    c = rules.compiled
    prepared = []
    for raw in lines:
        line, style = _prepare(raw, rules)
        if line and not any(p.match(line) for p in c.footer):
            prepared.append((line, style))
    lengths = sorted(len(ln) for ln, _ in prepared) or [0]
    reader = _Reader(rules, full_len=max(lengths[int(0.9 * (len(lengths) - 1))], 8))
    for i, (line, style) in enumerate(prepared):
        nxt = prepared[i + 1][0] if i + 1 < len(prepared) else ""
        name = _subject_name(line, rules)
        item = _numbered(line, rules)
        if name is None and item is None and len(line) <= 20 and any(p.match(nxt) for p in c.skip):
            name = line  # a subject of another exam: a short line followed by its 考查目标
        if name is not None:
            reader.start_subject(name)
            continue
        if reader.subject is None:
            continue
        if any(p.match(line) for p in c.stop):
            break
        if any(p.match(line) for p in c.skip):
            reader.skipping = set()
            continue
        if item is None and style is not None:
            item = _Item(style, line)
        if reader.skipping is not None:
            if item is None or not reader.skipping or item.style in reader.skipping:
                if item is not None:
                    reader.skipping.add(item.style)
                continue
            reader.skipping = None
        if item is not None:
            reader.item(item, line)
        else:
            reader.note(line)
    assign_ids(reader.subjects)
    return reader.subjects


def assign_ids(subjects: list[SyllabusNode]) -> None:
    """Give every node its content-addressed id (titles from the subject down; a repeated sibling
    title gets its position)."""

    def visit(node: SyllabusNode, titles: list[str]) -> None:
        node.node_id = node_id(titles)
        seen: dict[str, int] = {}
        for child in node.children:
            n = seen[child.title] = seen.get(child.title, 0) + 1
            visit(child, titles + [child.title if n == 1 else f"{child.title}#{n}"])

    for s in subjects:
        visit(s, [s.title])
