"""A past-paper record's text split into what placement weighs differently: stem, options, answer,
analysis, and the booklet's 考查 line(s) (``rules.placement.focus_patterns``); and its marks."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Optional

from pipeline.models import Chunk
from pipeline.syllabus.rules import SyllabusRules

_OPTION = re.compile(r"^([A-H])[.．、]\s*(.*)$")
_HEAD = re.compile(r"^\d{4}年\s*第\d+题.*$|^第\d+题$")


@dataclass
class QuestionParts:
    stem: str = ""
    options: str = ""
    answer: str = ""
    analysis: str = ""
    focus: list[str] = field(default_factory=list)


def question_parts(text: str, rules: SyllabusRules) -> QuestionParts:
    """Split a record's text (``pipeline.index.chunking.question_text``) into its parts, and find the
    考查 line(s) in its analysis."""
    parts = QuestionParts()
    stem, options, rest = [], [], ""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("答案：") or line.startswith("解析："):
            rest = "\n".join(lines[i:])
            break
        if i == 0 and _HEAD.match(line.strip()):
            continue
        m = _OPTION.match(line.strip())
        (options if m else stem).append(m.group(2) if m else line)
    parts.stem, parts.options = "\n".join(stem), "\n".join(options)
    ans, _, analysis = rest.partition("解析：")
    parts.answer = ans.removeprefix("答案：").strip()
    parts.analysis = analysis.strip()
    for p in rules.compiled.focus:
        parts.focus += [m.group("focus") for m in p.finditer(parts.analysis)]
    return parts


def question_points(c: Chunk, rules: SyllabusRules) -> Optional[float]:
    m = rules.compiled.points.search(c.text[:200])
    if m:
        return float(m.group("points"))
    return rules.placement.choice_points if c.qtype == "choice" else None
