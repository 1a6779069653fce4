"""Clean stage core: the rules config, ``clean_document`` (a pure function applying the ordered rules)
and ``render_markdown``.

The rules themselves live one per module in ``pipeline.clean.rules``; their order is
``pipeline.clean.rules.DEFAULT_RULES``. Their user-editable patterns and thresholds come from
``rules.yaml`` (shipped beside this file), loaded into :class:`Rules`.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Literal, Optional

import yaml
from pydantic import field_validator

from pipeline.clean.rules import DEFAULT_RULES
from pipeline.clean.rules.base import Work
from pipeline.models import CleanDoc, ErrorItem, ParsedDoc, Question, Status
from pipeline.rulefiles import Patterns, StrictRules, check_patterns, one_line

DEFAULT_RULES_FILE = Path(__file__).with_name("rules.yaml")
NEVER = "(?!)"  # a pattern that matches nothing: the default of keys added after a user copied the rules


class SectionTitle(StrictRules):
    pattern: str
    qtype: Literal["choice", "comprehensive", "other"] = "other"

    @field_validator("pattern")
    @classmethod
    def _one(cls, v: str) -> str:
        return check_patterns([v])[0]


class QuestionRules(StrictRules):
    section_titles: list[SectionTitle]
    answer_section_titles: Patterns
    paper_start_pattern: str = NEVER
    number_pattern: str
    number_expected_pattern: str = NEVER
    number_first_pattern: str = NEVER
    subpart_pattern: str
    option_pattern: str
    answer_markers: Patterns
    analysis_markers: Patterns
    year_patterns: Patterns
    paper_title_pattern: str
    not_paper_pattern: str = NEVER

    @field_validator("number_pattern", "number_expected_pattern", "number_first_pattern", "paper_start_pattern",
                     "subpart_pattern", "option_pattern", "paper_title_pattern", "not_paper_pattern")
    @classmethod
    def _one(cls, v: str) -> str:
        return check_patterns([v])[0]


class Replacement(StrictRules):
    pattern: str
    repl: str = ""

    @field_validator("pattern")
    @classmethod
    def _one(cls, v: str) -> str:
        return check_patterns([v])[0]


class Thresholds(StrictRules):
    repeat_ratio: float
    repeat_min_pages: int
    toc_min_entries: int
    toc_entry_ratio: float
    short_line_ratio: float
    min_questions: int


class Rules(StrictRules):
    """Everything user-editable about cleaning; see the comments in ``rules.yaml``."""

    header_footer_patterns: Patterns
    ad_patterns: Patterns
    page_number_patterns: Patterns
    band_page_number_patterns: Patterns
    watermarks: list[str]
    markup_replacements: list[Replacement] = []  # keys with defaults may be missing from older rules files
    toc_title_patterns: Patterns
    toc_entry_patterns: Patterns
    list_item_patterns: Patterns
    questions: QuestionRules
    thresholds: Thresholds


def load_rules(path: Optional[Path] = None) -> Rules:
    """Load the rules file; ``None`` means the shipped ``rules.yaml``. A user file replaces it whole.

    Raises ``ValueError`` naming the file on a missing key, an unknown key or a bad pattern.
    """
    path = Path(path) if path is not None else DEFAULT_RULES_FILE
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        return Rules.model_validate(data or {})
    except (yaml.YAMLError, ValueError) as e:  # pydantic's ValidationError is a ValueError
        raise ValueError(one_line(path, "clean rules", e)) from e


def rules_hash(rules: Rules) -> str:
    """sha256 of the canonical JSON of the rules (sorted keys, no whitespace, UTF-8)."""
    canon = json.dumps(rules.model_dump(mode="json"), sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canon.encode("utf-8")).hexdigest()


def clean_document(parsed: ParsedDoc, rules: Rules) -> CleanDoc:
    """Apply ``DEFAULT_RULES`` in order to a copy of the parsed blocks; the input is not modified."""
    work = Work.start(parsed, rules)
    for rule in DEFAULT_RULES:
        rule(work)
    doc = CleanDoc(doc_id=parsed.doc_id, source=parsed.source, kind=work.kind, title=work.title,
                   sections=work.sections, questions=work.questions,
                   removed={k: v for k, v in sorted(work.removed.items()) if v})
    if work.kind == "paper" and not work.questions:
        doc.status = Status.PARTIAL
        doc.errors.append(ErrorItem(file=parsed.source, stage="clean",
                                    message="试卷中未识别出题目（未找到“一、单项选择题”等题型标题或题号）"))
    return doc


def _heading_lines(path: list[str], prev: list[str], skip_root: str) -> list[str]:
    """Markdown headings for the part of ``path`` that differs from ``prev`` (## for the outermost)."""
    def strip_root(p: list[str]) -> list[str]:
        return p[1:] if skip_root and p[:1] == [skip_root] else p

    path, prev = strip_root(path), strip_root(prev)
    common = 0
    while common < min(len(path), len(prev)) and path[common] == prev[common]:
        common += 1
    return [f"{'#' * min(depth + 2, 6)} {title}" for depth, title in enumerate(path) if depth >= common]


def _question_heading(q: Question) -> str:
    year = f"{q.year}年 " if q.year else ""
    kind = re.sub(r"^[一二三四五六七八九十]+\s*[、.．]\s*", "", q.section).strip()
    return f"### {year}第{q.number}题" + (f"（{kind}）" if kind else "")


def _paragraphs(text: str) -> list[str]:
    """Markdown for section/question text: a blank line after each paragraph, fenced code verbatim."""
    out, fenced = [], False
    for line in text.split("\n"):
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
            out += [line] if fenced else [line, ""]
        elif fenced:
            out.append(line)
        elif line.strip():
            out += [line, ""]
    return out


def _question_md(q: Question) -> list[str]:
    out = [_question_heading(q), "", *_paragraphs(q.text)]
    out += [f"- {k}. {v}" for k, v in q.options.items()] + ([""] if q.options else [])
    if q.answer:
        out += _paragraphs(f"**答案**：{q.answer}")
    if q.analysis:
        out += _paragraphs(f"**解析**：{q.analysis}")
    return out


def render_markdown(doc: CleanDoc) -> str:
    """Human-readable markdown: ``# title``, then each section under headings from its chapter_path
    (the title itself not repeated), a question section's questions right after its text, and any
    other questions at the end under their section's heading."""
    out: list[str] = [f"# {doc.title or doc.source}", ""]
    pending: dict[tuple[str, ...], list[Question]] = {}
    for q in doc.questions:
        pending.setdefault(tuple(q.chapter_path), []).append(q)
    prev: list[str] = []
    for s in doc.sections:
        heads = _heading_lines(s.chapter_path, prev, doc.title)
        out += [line for h in heads for line in (h, "")]
        out += _paragraphs(s.text)
        for q in pending.pop(tuple(s.chapter_path), []):
            out += _question_md(q)
        prev = s.chapter_path
    for path, qs in pending.items():
        heads = _heading_lines(list(path), prev, doc.title)
        out += [line for h in heads for line in (h, "")]
        for q in qs:
            out += _question_md(q)
        prev = list(path)
    return "\n".join(out).rstrip() + "\n"
