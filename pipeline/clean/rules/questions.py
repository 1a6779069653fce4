"""Rule ``questions``: a past paper's questions → ``Question`` records."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from pipeline.clean.rules.base import WBlock, Work, rx
from pipeline.clean.rules.question_parts import (answer_entry, compact_answers, find_year, is_answer_title,
                                                 looks_like_answer_start, number_match, parse_options,
                                                 section_match, source_name, split_markers, tidy_answer)
from pipeline.models import Question

Kept = Optional[tuple[str, list[str]]]  # (line, chapter_path) to keep as section text, or None if consumed


@dataclass
class _Draft:
    number: int
    section: str
    qtype: str
    path: list[str]
    lines: list[str]
    pages: set = field(default_factory=set)


class PaperSplitter:
    """Reads a paper line by line. Modes: ``body`` (before the first question section, or in a
    non-paper after a heading ends the exercises), ``section`` (after a section title such as
    ``一、单项选择题``, before its first question), ``question``, ``answers`` (after ``参考答案``).
    A question starts at a number larger than the previous one in its section."""

    def __init__(self, work: Work):
        self.qr, self.title = work.rules.questions, work.title
        self.is_paper = work.parsed.kind == "paper"
        self.mode = "body"
        self.section, self.qtype, self.path = "", "other", [work.title]
        self.last = 0
        self.drafts: list[_Draft] = []
        self.answers: dict[int, list[str]] = {}
        self.answer_no: Optional[int] = None
        self.pending: Optional[tuple[str, str, list[str]]] = None  # a section title seen among answers

    def feed(self, line: str, block: WBlock) -> Kept:
        s = line.strip()
        if self.mode != "body" and is_answer_title(self.qr, s):
            self.mode, self.answer_no = "answers", None
            return None
        sec = section_match(self.qr, s)
        if sec:
            return self._section(sec, block)
        num = number_match(self.qr, s)
        if self.mode == "answers":
            return self._answer_line(s, num, block)
        if block.kind == "heading" and not self.is_paper and self.mode != "body":
            self.mode, self.last = "body", 0  # a heading ends a textbook's exercises
        if self.mode in ("section", "question") and num and num[0] > self.last:
            self._start(num[0], num[1], block)
            return None
        if self.mode == "question":
            self.drafts[-1].lines.append(line.rstrip())  # code keeps its indentation
            self.drafts[-1].pages.add(block.page)
            return None
        if self.mode == "section":
            return line.rstrip(), list(self.path)
        return line.rstrip(), list(block.chapter_path) or [self.title]

    def _section(self, sec: tuple[str, str, str], block: WBlock) -> Kept:
        name, qtype, rest = sec
        if self.is_paper:
            path = [self.title, name]
        else:
            base = block.chapter_path[:-1] if block.kind == "heading" else block.chapter_path
            path = list(base or [self.title]) + [name]
        if self.mode == "answers":
            self.pending = (name, qtype, path)
            return None
        self.mode, self.section, self.qtype, self.path, self.last = "section", name, qtype, path, 0
        return (rest, list(path)) if rest else None

    def _start(self, number: int, rest: str, block: WBlock) -> None:
        self.mode, self.last = "question", number
        self.drafts.append(_Draft(number, self.section, self.qtype, list(self.path), [rest] if rest else [],
                                  {block.page}))

    def _answer_line(self, s: str, num, block: WBlock) -> Kept:
        numbers = {d.number: d.qtype for d in self.drafts}
        compact = compact_answers(s)
        if compact and set(compact) <= set(numbers):
            for n, letters in compact.items():
                self.answers.setdefault(n, [letters])
            self.answer_no = None
            return None
        following = min((n for n in numbers if n > (self.answer_no or 0)), default=None)
        if num and num[0] in numbers and num[0] > (self.answer_no or 0) and (
                numbers[num[0]] != "choice" or num[0] == following or looks_like_answer_start(self.qr, num[1])):
            self.answer_no = num[0]
            self.answers[num[0]] = [num[1]] if num[1] else []
        elif num and self.pending and num[0] > max(numbers, default=0):
            self.mode, self.answer_no = "question", None  # questions go on after a partial answer key
            self.section, self.qtype, self.path = self.pending
            self.pending = None
            self._start(num[0], num[1], block)
        elif self.answer_no is not None:
            self.answers[self.answer_no].append(s)
        return None

    def build(self, year: Optional[int]) -> list[Question]:
        return [self._question(d, year) for d in self.drafts]

    def _question(self, d: _Draft, year: Optional[int]) -> Question:
        body, answer, analysis = split_markers(self.qr, "\n".join(d.lines))
        options: dict[str, str] = {}
        if d.qtype != "comprehensive":
            body, options = parse_options(self.qr.option_pattern, body)
        if d.number in self.answers:
            a2, z2 = answer_entry(self.qr, "\n".join(self.answers[d.number]), d.qtype)
            answer, analysis = answer or a2, analysis or z2
        qtype = d.qtype if d.qtype != "other" else ("choice" if options else "other")
        return Question(year=year, number=d.number, qtype=qtype, section=d.section, text=body.strip(),
                        options=options, answer=tidy_answer(answer), analysis=analysis,
                        pages=sorted(p for p in d.pages if p is not None), chapter_path=d.path)


def is_paper(work: Work) -> bool:
    """A paper: ``ParsedDoc.kind == "paper"``, or a question section title plus at least
    ``thresholds.min_questions`` (default 3) lines starting with a question number."""
    if work.parsed.kind == "paper":
        return True
    qr = work.rules.questions
    lines = [s for b in work.blocks for s in b.lines]
    return (any(section_match(qr, s) for s in lines)
            and sum(1 for s in lines if number_match(qr, s)) >= work.rules.thresholds.min_questions)


def questions(work: Work) -> None:
    """Split a paper into ``Question`` records (see ``PaperSplitter``): options A–D parsed from
    choice questions, sub-parts kept in the text, answers/analysis from inline markers or from a
    following answer section (matched by number), ``year`` from the title or file name (for a
    document the parser did not call a paper, only if its title or file name matches
    ``paper_title_pattern``), ``chapter_path = [title, section title]``. Lines before the first
    section stay section text (as do a section title's instructions); the document becomes a
    ``paper`` when any question is found. Nothing is counted as removed: question lines move into
    ``work.questions``."""
    if not is_paper(work):
        return
    splitter = PaperSplitter(work)
    blocks: list[WBlock] = []
    for b in work.blocks:
        run: list[str] = []
        run_path: Optional[list[str]] = None
        for line in b.lines:
            kept = splitter.feed(line, b)
            if kept is not None and kept[1] == run_path:
                run.append(kept[0])
                continue
            if run:
                blocks.append(b.with_lines(run, run_path))
            run, run_path = ([kept[0]], kept[1]) if kept else ([], None)
        if run:
            blocks.append(b.with_lines(run, run_path))
    if not splitter.drafts:
        return
    work.blocks = blocks
    qr, name = work.rules.questions, source_name(work.parsed.source)
    dated = work.parsed.kind == "paper" or rx(qr.paper_title_pattern).search(f"{work.parsed.title} {name}")
    year = find_year(qr.year_patterns, work.parsed.title, name) if dated else None
    work.questions = splitter.build(year)
    work.kind = "paper"
