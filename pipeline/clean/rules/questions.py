"""Rule ``questions``: past papers, answer booklets and papers with their answers → ``Question`` records."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Optional

from pipeline.clean.rules.base import WBlock, Work, rx
from pipeline.clean.rules.question_parts import (compact_answers, find_year, has_line_options, is_answer_title,
                                                 looks_like_answer, number_match, option_letter, paper_start_year,
                                                 read_item, section_match, source_name)
from pipeline.models import Question, QuestionSource

Kept = Optional[tuple[str, list[str]]]  # (line, chapter_path) to keep as section text, or None if consumed
_ORDINAL = re.compile(r"^[一二三四五六七八九十]+\s*[、.．]\s*|^[（(][一二三四五六七八九十]+[)）]\s*")


@dataclass
class _Item:
    """One numbered entry: a question (``role="question"``) or an answer/explanation of one."""

    year: Optional[int]
    number: int
    section: str
    qtype: str
    path: list[str]
    role: str
    lines: list[str]
    pages: set = field(default_factory=set)
    pass_no: int = 0


class PaperSplitter:
    """Reads a document line by line, cutting it into numbered entries.

    * ``mode``: ``body`` (before the first question section; in a non-paper after a heading ends the
      exercises), ``section`` (after a section title such as ``一、单项选择题``), ``item`` (inside an entry).
    * ``role``: ``question``, or ``answer`` after an answer title (``参考答案``, ``2019 年408 答案解析``), a
      second title line of the same year's paper (its explanations follow), a section title met again
      in the same year (an answer key repeats them), a compact key line (``1.D 2.D 3.C``) or a
      restart of the numbering with an answer (``1.【参考答案】B`` after 40).
    * A paper title line of another year (``2010 年全国硕士研究生入学统一考试``) starts that year's paper.

    A question number must be larger than the previous one in its section (``number_pattern``);
    ``number_expected_pattern`` (``6．5 个字符``, ``47(9分)``) is accepted only for the next number and
    ``number_first_pattern`` (``1若栈``) only for the first question after a section title. An answer
    entry must start with an answer, or be a known question's number — for a choice question the next
    one (in an answer booklet, without the questions: within 2 of the next number).
    """

    def __init__(self, work: Work, year: Optional[int], dated: bool, multi_year: bool):
        self.qr, self.title = work.rules.questions, work.title
        self.doc_id, self.source = work.parsed.doc_id, work.parsed.source
        self.is_paper = work.parsed.kind == "paper"
        self.dated, self.multi = dated, multi_year
        self.year = year
        self.role, self.mode = "question", "body"
        self.section, self.qtype, self.base = "", "other", None
        self.path = self._path("")
        self.last, self.prev, self.first = 0, 0, None
        self.items: list[_Item] = []
        self.current: Optional[_Item] = None
        self.filled: set = set()  # (year, section) that hold questions
        self.pass_no = 0

    # ----------------------------------------------------------------- state changes
    def _path(self, name: str) -> list[str]:
        if self.base is not None:
            return self.base + [name]
        head = [self.title] + ([f"{self.year}年"] if self.multi and self.year else [])
        return head + ([name] if name else [])

    def _new_pass(self, role: str, new_part: bool = False) -> None:
        self.settle([it for it in self.items if it.pass_no == self.pass_no])  # before its numbers are used
        self.role, self.current, self.pass_no = role, None, self.pass_no + 1
        if new_part:
            self._new_part()
        self.last, self.prev, self.first = 0, 0, None
        if self.mode == "item":
            self.mode = "section"

    def _new_year(self, year: int) -> None:
        self.year = year
        self._new_pass("question", new_part=True)
        self.mode = "body"

    def _new_part(self) -> None:
        """A new part (a paper, its answers): no section until its first section title."""
        self.section, self.qtype = "", "other"
        if self.base is None:
            self.path = self._path("")

    def _qnums(self) -> dict[int, str]:
        return {it.number: it.qtype for it in self.items if it.year == self.year and it.role == "question"}

    # ----------------------------------------------------------------- reading
    def feed(self, line: str, block: WBlock) -> Kept:
        s = line.strip()
        year = paper_start_year(self.qr, s) if self.dated else None
        if year is not None and year != self.year:
            self._new_year(year)
        elif year is not None and any(it.year == self.year for it in self.items):
            self._new_pass("answer", new_part=True)  # the same paper's title again: its explanations follow
        if is_answer_title(self.qr, s):
            self._new_pass("answer", new_part=True)
            return line.rstrip(), list(self.path)
        if year is not None:
            return line.rstrip(), list(self.path)
        sec = section_match(self.qr, s)
        if sec:
            return self._section(sec, line, block)
        compact = compact_answers(s) if self.mode != "body" or self.role == "answer" else {}
        if compact:
            self._compact(compact, block)
            return None
        if block.kind == "heading" and not self.is_paper and self.mode != "body":
            self._new_pass("question")  # a heading ends a textbook's exercises
            self.mode = "body"
        num = self._number(s)
        if num is not None:
            self._start(num[0], num[1], block)
            return None
        if self.mode == "item" and self.current is not None:
            self.current.lines.append(line.rstrip())  # code keeps its indentation
            self.current.pages.add(block.page)
            return None
        if self.mode == "section" or self.role == "answer":
            return line.rstrip(), list(self.path)
        return line.rstrip(), list(block.chapter_path) or [self.title]

    def _section(self, sec: tuple[str, str, str], line: str, block: WBlock) -> Kept:
        name, qtype, _ = sec
        key = (self.year, _ORDINAL.sub("", name))
        if self.role == "question" and key in self.filled:
            self._new_pass("answer")  # an answer key repeats the section titles
        if not self.is_paper:
            base = block.chapter_path[:-1] if block.kind == "heading" else block.chapter_path
            self.base = list(base or [self.title])
        self.section, self.qtype, self.path = name, qtype, self._path(name)
        self.mode, self.last, self.first, self.current = "section", 0, None, None
        return line.rstrip(), list(self.path)  # the whole title line stays text (its instructions too)

    def _number(self, s: str) -> Optional[tuple[int, str]]:
        """The entry number starting ``s`` if it is accepted as a new entry (maybe after changing role)."""
        if self.mode == "body" and self.role == "question":
            return None
        qr = self.qr
        strict = number_match(qr, s)
        num = strict or number_match(qr, s, qr.number_expected_pattern)
        if num is None and self.mode == "section" and self.last == 0:
            num = number_match(qr, s, qr.number_first_pattern)
        if num is None:
            return None
        n, rest = num
        if not strict and n != self.prev + 1:
            return None
        if n <= self.last:  # a restart: an answer pass over the same numbers
            restart = n == self.first or (self.role == "answer" and n == 1)
            if restart and strict and (looks_like_answer(qr, rest) or (self.role == "answer" and not rest)):
                self._new_pass("answer")
                return num
            return None
        if self.role == "question":
            return num
        qnums = self._qnums()
        if qnums and n > max(qnums) and strict and self.mode == "section" \
                and (self.year, _ORDINAL.sub("", self.section)) not in self.filled:
            self.role = "question"  # a new section after a partial answer key: its questions go on
            return num
        if looks_like_answer(qr, rest):
            return num
        if qnums and n not in qnums:
            return None
        expected = min((q for q in qnums if q > self.last), default=self.last + 1)
        slack = 0 if qnums else 2  # without the questions, allow a skipped (misread) number or two
        return num if qnums.get(n, self.qtype) != "choice" or n - expected <= slack else None

    def _start(self, number: int, rest: str, block: WBlock) -> None:
        cur = self.current
        if cur is not None and self.role == "question" and number == cur.number + 2 and cur.qtype != "comprehensive":
            cut = second_question_at(self.qr, cur.lines)  # the number of the question between was lost
            if cut is not None:
                self.items.append(_Item(cur.year, cur.number + 1, cur.section, cur.qtype, list(cur.path), cur.role,
                                        cur.lines[cut:], set(cur.pages), cur.pass_no))
                cur.lines = cur.lines[:cut]
        if self.first is None:
            self.first = number
        self.mode, self.last, self.prev = "item", number, number
        self.current = _Item(self.year, number, self.section, self.qtype, list(self.path), self.role,
                             [rest] if rest else [], {block.page}, self.pass_no)
        self.items.append(self.current)
        if self.role == "question":
            self.filled.add((self.year, _ORDINAL.sub("", self.section)))

    def _compact(self, compact: dict[int, str], block: WBlock) -> None:
        """A key line ``1.D 2.D 3.C``: one answer entry per number."""
        if self.role == "question":
            self._new_pass("answer")
        for n, letters in compact.items():
            self.items.append(_Item(self.year, n, self.section, self.qtype, list(self.path), "answer",
                                    [letters], {block.page}, self.pass_no))
        self.mode, self.current = "section", None
        self.last = self.prev = max(compact)

    # ----------------------------------------------------------------- output
    def settle(self, items: list[_Item]) -> None:
        """Check a finished pass's role against its entries: a pass whose choice entries mostly carry
        options A–D is questions (a paper under a title like 真题及答案解析); a question pass whose
        entries mostly look like answers (letters, an answer marker, or nothing) is answers."""
        if not items:
            return
        looks = [item_look(self.qr, it) for it in items]
        choice = [look for it, look in zip(items, looks) if it.qtype != "comprehensive"]
        if items[0].role == "answer" and choice and 2 * choice.count("options") >= len(choice):
            role = "question"
        elif items[0].role == "question" and 2 * looks.count("answer") > len(items):
            role = "answer"
        else:
            return
        for it in items:
            it.role = role
        if role == "question":
            self.filled |= {(it.year, _ORDINAL.sub("", it.section)) for it in items}

    def build(self) -> list[Question]:
        self.settle([it for it in self.items if it.pass_no == self.pass_no])
        groups: dict[tuple, list[_Item]] = {}
        for it in self.items:
            groups.setdefault((it.year, it.number), []).append(it)
        return [self._question(items) for items in groups.values()]

    def _question(self, items: list[_Item]) -> Question:
        """One record from a number's entries: the stem and options from its question entries (from
        answer entries only when there is none), the first answer, every analysis."""
        asked = [it for it in items if it.role == "question"]
        head = (asked or items)[0]
        qtype = next((it.qtype for it in asked + items if it.qtype != "other"), "other")
        stems: dict[str, list[str]] = {"question": [], "answer": []}
        options: dict[str, str] = {}
        answer, analyses = None, []
        for it in items:
            stem, opts, ans, anl = read_item(self.qr, "\n".join(it.lines), qtype, it.role)
            if stem:
                stems[it.role].append(stem)
            options = options or opts
            answer = answer or ans
            if anl and anl not in analyses:
                analyses.append(anl)
        stem_parts = stems["question"] or stems["answer"]
        if stems["question"]:
            analyses += [s for s in stems["answer"] if s not in analyses]  # keep every piece of text
        if qtype == "other" and options:
            qtype = "choice"
        pages = sorted({p for it in items for p in it.pages if p is not None})
        text, analysis = "\n".join(stem_parts).strip(), "\n".join(analyses) or None
        parts = [k for k, v in (("text", text), ("options", options), ("answer", answer), ("analysis", analysis)) if v]
        return Question(year=head.year, number=head.number, qtype=qtype, section=head.section, text=text,
                        options=options, answer=answer, analysis=analysis, pages=pages, chapter_path=head.path,
                        sources=[QuestionSource(doc_id=self.doc_id, source=self.source, pages=pages, parts=parts)])


def second_question_at(qr, lines: list[str]) -> Optional[int]:
    """Where a second choice question starts inside one entry (its number lost, e.g. not in the text
    layer): after the line holding the D option of a first A–D run, when another A option line
    follows a line later. None otherwise."""
    def letter_at_start(s: str) -> str:
        m = rx(qr.option_pattern).match(s.strip())
        return option_letter(m) if m else ""

    a_lines = [i for i, s in enumerate(lines) if letter_at_start(s) == "A"]
    if len(a_lines) < 2:
        return None
    d = next((i for i in range(a_lines[0], len(lines)) if any(
        option_letter(m) == "D" for m in rx(qr.option_pattern).finditer(lines[i]))), None)
    if d is None or not any(a > d + 1 for a in a_lines):
        return None
    return d + 1


def item_look(qr, it: _Item) -> str:
    """``options`` (options A–D, the A at the start of a line), ``answer`` (empty, letters only, or
    starting with an answer marker) or ``text``."""
    text = "\n".join(it.lines).strip()
    if not text or looks_like_answer(qr, text):
        return "answer"
    if it.qtype != "comprehensive" and has_line_options(qr, text):
        return "options"
    return "text"


def _names(work: Work) -> str:
    return f"{work.parsed.title} {source_name(work.parsed.source)}"


def is_paper(work: Work) -> bool:
    """A paper: ``ParsedDoc.kind == "paper"``, or a question section title plus at least
    ``thresholds.min_questions`` (default 3) lines starting with a question number; never a document
    whose title or file name matches ``not_paper_pattern`` (e.g. the syllabus, 考试大纲)."""
    qr = work.rules.questions
    if rx(qr.not_paper_pattern).search(_names(work)):
        return False
    if work.parsed.kind == "paper":
        return True
    lines = [s for b in work.blocks for s in b.lines]
    return (any(section_match(qr, s) for s in lines)
            and sum(1 for s in lines if number_match(qr, s)) >= work.rules.thresholds.min_questions)


def questions(work: Work) -> None:
    """Split papers, answer booklets and papers with answers into ``Question`` records (see
    ``PaperSplitter``), one per (year, number): stem and options A–D from the question, sub-parts kept
    in the text, answer/analysis from inline markers, answer keys, answer sections and explanation
    passes (matched by number). ``year`` comes from each paper's title line, else the title or file
    name — for a document the parser did not call a paper only if its title or file name matches
    ``paper_title_pattern``; such a document keeps its kind (a note's exercises stay a note) and its
    questions stay under its own headings. ``chapter_path = [title, (year if several), section]``.
    Lines outside entries stay section text. A document matching ``not_paper_pattern`` is not split
    and is not a paper. Nothing is counted as removed: entry lines move into ``work.questions``."""
    qr = work.rules.questions
    if not is_paper(work):
        if work.parsed.kind == "paper":
            work.kind = "textbook" if work.parsed.format in ("pdf", "image") else "note"
        return
    dated = work.parsed.kind == "paper" or bool(rx(qr.paper_title_pattern).search(_names(work)))
    year = find_year(qr.year_patterns, work.parsed.title, source_name(work.parsed.source)) if dated else None
    years = {paper_start_year(qr, s) for b in work.blocks for s in b.lines} - {None} if dated else set()
    splitter = PaperSplitter(work, year, dated, len(years) > 1)
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
    if not splitter.items:
        return
    work.blocks = blocks
    work.questions = splitter.build()
    if dated:
        work.kind = "paper"
