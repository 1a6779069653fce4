"""Helpers of the ``questions`` rule: the pieces of one question (options, inline answer/analysis,
answer-section entries) and the exam year."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Optional

from pipeline.clean.rules.base import full_match, glue, rx

_LETTERS = "ABCD"
_CHOICE_ANSWER = re.compile(r"^\s*([A-D]{1,4})(?![A-Za-z])(?=$|[\s。.，,；;])[\s。.，,；;]*")  # not "A、B 错误"
_COMPACT_PAIR = re.compile(r"(\d{1,2})\s*[.．、:：]?\s*([A-D]{1,4})(?![A-Za-z])")
_CHOSEN = re.compile(r"(?:故|所以|因此|应)?选\s*([A-D]{1,4})(?![A-Za-z])|答案(?:为|是|应为)\s*([A-D]{1,4})(?![A-Za-z])")
_LEAD_LETTERS = re.compile(r"^([A-D]{1,4})(?![A-Za-z])[ \t]*(?:[。.．，,；;、:：]|\n)\s*(?=\S)")
_BARE_ANSWER = re.compile(r"([A-D]{1,4})[\s。.]*")
_COMPACT_RANGE = re.compile(r"^(\d{1,2})\s*[～~\-—–至]\s*(\d{1,2})\s*[:：.．、]?\s*([A-D]+)$")


def find_year(patterns: list[str], *texts: str) -> Optional[int]:
    """The first year any of ``patterns`` (group 1) finds in ``texts``, tried in order (title, then
    file name); two digits mean 20xx below 50, else 19xx. Years outside 1978–2099 are ignored."""
    for text in texts:
        for p in patterns:
            for m in rx(p).finditer(text or ""):
                y = int(m.group(1))
                y = y + (2000 if y < 50 else 1900) if y < 100 else y
                if 1978 <= y <= 2099:
                    return y
    return None


def first_match(patterns: list[str], text: str, start: int = 0) -> Optional[re.Match]:
    found = [m for m in (rx(p).search(text, start) for p in patterns) if m]
    return min(found, key=lambda m: m.start()) if found else None


def clean_piece(text: Optional[str]) -> Optional[str]:
    if text is None:
        return None
    text = text.strip().lstrip(":：").strip()
    return text or None


def split_markers(qr, text: str) -> tuple[str, Optional[str], Optional[str]]:
    """``(body, answer, analysis)``: the text before the first answer/analysis marker, the text
    after the answer marker and the text after the analysis marker (each up to the other one)."""
    a = first_match(qr.answer_markers, text)
    z = first_match(qr.analysis_markers, text)
    if not a and not z:
        return text, None, None
    if a and (not z or a.start() < z.start()):
        z = first_match(qr.analysis_markers, text, a.end())
        answer = text[a.end():z.start() if z else len(text)]
        return text[:a.start()], clean_piece(answer), clean_piece(text[z.end():]) if z else None
    a = first_match(qr.answer_markers, text, z.end())
    analysis = text[z.end():a.start() if a else len(text)]
    return text[:z.start()], clean_piece(text[a.end():]) if a else None, clean_piece(analysis)


def option_letter(m: re.Match) -> str:
    """The option letter an ``option_pattern`` match names (upper case)."""
    return next((g for g in m.groups() if g), "").upper()


def parse_options(option_pattern: str, body: str) -> tuple[str, dict[str, str]]:
    """``(stem, options)``. Options are a run of markers A, B, C, D in that order (on one line or on
    several). The longest run wins; among equally long runs, one whose A starts a line, then the
    last one (options come after the stem). Fewer than two markers → no options."""
    marks = list(rx(option_pattern).finditer(body))
    best: list[re.Match] = []
    best_key = (0, False, -1)
    for i, m in enumerate(marks):
        if option_letter(m) != "A":
            continue
        chain = [m]
        for n in marks[i + 1:]:
            if len(chain) < len(_LETTERS) and option_letter(n) == _LETTERS[len(chain)] and n.start() >= chain[-1].end():
                chain.append(n)
        key = (len(chain), not body[:m.start()].rstrip(" \t") or body[:m.start()].rstrip(" \t").endswith("\n"),
               m.start())
        if key > best_key:
            best, best_key = chain, key
    if len(best) < 2:
        return body, {}
    options = {}
    for m, nxt in zip(best, best[1:] + [None]):
        value = body[m.end():nxt.start() if nxt else len(body)]
        joined = ""
        for piece in value.split("\n"):
            joined = glue(joined, piece.strip())
        options[option_letter(m)] = joined.strip()
    return body[:best[0].start()].rstrip(), options


def has_line_options(qr, body: str) -> bool:
    """Options A–D (at least two) whose A starts a line — an explanation's "A、B 错误" does not count."""
    stem, options = parse_options(qr.option_pattern, body)
    return len(options) >= 2 and (not stem or "\n" in body[len(stem):len(body) - len(body[len(stem):].lstrip())])


def compact_answers(line: str) -> dict[int, str]:
    """Answer keys written compactly on one line: ``1.C 2.B 3.D``, ``1～5 CBDAA``, or a table row
    rewritten by ``tables_to_fields`` (``题号：答案；1：B；2：C``). Empty unless the whole line is one."""
    s = line.strip()
    m = _COMPACT_RANGE.match(s)
    if m and int(m.group(2)) - int(m.group(1)) + 1 == len(m.group(3)):
        return {int(m.group(1)) + k: ch for k, ch in enumerate(m.group(3))}
    pairs = list(_COMPACT_PAIR.finditer(s))
    if len(pairs) >= 2 and not re.sub(r"题号|答案|[\s:：，,；;。]", "", _COMPACT_PAIR.sub("", s)):
        return {int(p.group(1)): p.group(2) for p in pairs}
    return {}


def answer_entry(qr, text: str, qtype: str) -> tuple[Optional[str], Optional[str]]:
    """``(answer, analysis)`` from one answer-section entry. Without an answer marker a choice
    answer is the leading letters (the rest is analysis) or the letter of a closing ``故选B`` (the
    whole text is analysis; a choice entry with no letter at all is all analysis), and any other
    answer is the whole text; text before a marker that nothing else claims is analysis."""
    body, answer, analysis = split_markers(qr, text)
    body = body.strip()
    if answer is None and body:
        m = _CHOICE_ANSWER.match(body) if qtype != "comprehensive" else None
        chosen = _CHOSEN.findall(body) if qtype != "comprehensive" else []
        if m:
            answer, body = m.group(1), body[m.end():].strip()
        elif chosen:
            answer = "".join(chosen[-1])  # "……故选B。": the letter is the answer, the text the analysis
        elif qtype == "comprehensive":
            answer, body = body, ""
    if body:
        analysis = f"{body}\n{analysis}" if analysis else body
    return split_choice_answer(tidy_answer(answer), clean_piece(analysis), qtype)


def split_choice_answer(answer: Optional[str], analysis: Optional[str], qtype: str
                        ) -> tuple[Optional[str], Optional[str]]:
    """A choice answer written as ``A。程序中……`` → answer ``A``, the rest goes first in the analysis."""
    m = _LEAD_LETTERS.match(answer or "") if qtype != "comprehensive" else None
    if not m:
        return answer, analysis
    rest = answer[m.end():].strip()
    return m.group(1), (f"{rest}\n{analysis}" if analysis else rest)


def read_item(qr, text: str, qtype: str, role: str) -> tuple[str, dict[str, str], Optional[str], Optional[str]]:
    """``(stem, options, answer, analysis)`` of one numbered entry. Text before the first
    answer/analysis marker is a stem when it has options A–D (choice) or is followed by an answer
    marker; in a ``question`` entry it always is, unless it is only letters (an answer key ``1．B``).
    Otherwise (an ``answer`` entry: after 参考答案, in an answer booklet) it is read by
    ``answer_entry``. A choice answer ``A。因为……`` is split into the letter and the analysis."""
    body, answer, analysis = split_markers(qr, text)
    stem, options = body, {}
    if qtype != "comprehensive" and (role == "question" or has_line_options(qr, body)):
        stem, options = parse_options(qr.option_pattern, body)
    bare = _BARE_ANSWER.fullmatch(stem.strip())
    if not options and (bare or (role == "answer" and (answer is None or not stem.strip()))):
        z2 = None
        if bare:
            answer = answer or bare.group(1)
        elif answer is None:
            answer, z2 = answer_entry(qr, body, qtype)
        analysis = "\n".join(p for p in (z2, analysis) if p) or None
        stem = ""
    answer, analysis = split_choice_answer(tidy_answer(answer), clean_piece(analysis), qtype)
    return stem.strip(), options, answer, analysis


def tidy_answer(answer: Optional[str]) -> Optional[str]:
    """Stripped answer; a bare choice answer such as ``C。`` becomes ``C``."""
    answer = clean_piece(answer)
    m = _CHOICE_ANSWER.fullmatch(answer) if answer else None
    return m.group(1) if m else answer


def section_match(qr, line: str) -> Optional[tuple[str, str, str]]:
    """``(name, qtype, rest of line)`` when ``line`` starts with a question section title."""
    s = line.strip()
    for st in qr.section_titles:
        m = rx(st.pattern).match(s)
        if m:
            return m.group(0).strip(), st.qtype, s[m.end():].strip(" ：:")
    return None


def is_answer_title(qr, line: str) -> bool:
    return full_match(qr.answer_section_titles, line)


def number_match(qr, line: str, pattern: Optional[str] = None) -> Optional[tuple[int, str]]:
    """``(number, rest of line)`` for a line starting with a question number (``number_pattern``
    unless another ``pattern`` is given; spaces inside the number, as OCR leaves them, are ignored)."""
    m = rx(pattern or qr.number_pattern).match(line)
    if not m:
        return None
    return int(re.sub(r"\s", "", m.group(1))), line[m.end():].strip()


def paper_start_year(qr, line: str) -> Optional[int]:
    """The year of a paper's title line (``2010 年全国硕士研究生入学统一考试``), else None."""
    s = line.strip()
    m = rx(qr.paper_start_pattern).match(s) if len(s) <= 120 else None
    year = int(m.group(1)) if m else 0
    return year if 1978 <= year <= 2099 else None


def looks_like_answer(qr, rest: str) -> bool:
    """Does a numbered line's rest start an answer: option letter(s), a sub-part ``（1）`` or a marker?"""
    s = rest.strip()
    if _CHOICE_ANSWER.match(s) or rx(qr.subpart_pattern).match(s):
        return True
    m = first_match(qr.answer_markers + qr.analysis_markers, s)
    return bool(m and m.start() == 0)


def source_name(source: str) -> str:
    return Path(source).name
