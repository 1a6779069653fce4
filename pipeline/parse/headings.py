"""Heading recognition: numbering patterns (第七章, 7.3, 7.3.1, 一、, （一）) and heading paths.

A line is a heading candidate only if it is short (≤ ``MAX_HEADING_CHARS``) and does not end like
a sentence; callers add font evidence where they have it (PDF) and decide.
"""

from __future__ import annotations

import re
from typing import Optional

MAX_HEADING_CHARS = 40
_CN_NUM = "零一二三四五六七八九十百千〇两"

# (name, regex, level); decimal depth gives its own level.
PATTERNS: list[tuple[str, re.Pattern, Optional[int]]] = [
    ("part", re.compile(rf"^第[{_CN_NUM}\d]+(部分|篇)\s*\S"), 1),
    ("chapter", re.compile(rf"^第[{_CN_NUM}\d]+章\s*\S*"), 1),
    ("section", re.compile(rf"^第[{_CN_NUM}\d]+节\s*\S"), 2),
    ("decimal", re.compile(r"^(\d{1,2}(?:\.\d{1,2}){1,3})(?![\d.])\s*[^\d\s.、，。,]"), None),
    ("cn_item", re.compile(rf"^[{_CN_NUM}]{{1,3}}、\s*\S"), 2),
    ("cn_paren", re.compile(rf"^[（(][{_CN_NUM}]{{1,3}}[）)]\s*\S"), 3),
]


def numbering(line: str) -> Optional[tuple[str, int]]:
    """Return (pattern name, level) when the line starts with heading numbering."""
    s = line.strip()
    if not s or len(s) > MAX_HEADING_CHARS or s[-1] in "。；;，,：:？?！!":
        return None
    for name, rx, level in PATTERNS:
        m = rx.match(s)
        if m:
            if name == "decimal":
                return name, m.group(1).count(".") + 1
            return name, level  # type: ignore[return-value]
    return None


class HeadingPath:
    """Keeps the current path of headings as headings of given levels arrive."""

    def __init__(self, root: Optional[list[str]] = None):
        self._stack: list[tuple[int, str]] = []
        self.root = list(root or [])

    def push(self, level: int, title: str) -> list[str]:
        while self._stack and self._stack[-1][0] >= level:
            self._stack.pop()
        self._stack.append((level, title))
        return self.path

    @property
    def path(self) -> list[str]:
        return self.root + [t for _, t in self._stack]
