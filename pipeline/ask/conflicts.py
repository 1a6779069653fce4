"""Conflicts in the material: the passages give different numbers for the quantity a question asks.

Asked how many memory accesses one indirect addressing takes, a passage may say 3 (counting the
instruction fetch) and 2 (for the operand) in one breath. An answer that picks one hides the other;
a student needs both, with what makes them differ (issue 23). :func:`find_conflicts` finds them
among the hits, for the answer path to disclose (:func:`disclosure`):

1. the question asks a number in a unit: 几/多少 followed by a unit of ``numbers.units`` (几次,
   多少字节). 多少 alone is not enough: "逻辑地址2500对应的物理地址是多少" found 页内偏移量占10位 and
   占14位 in two worked examples, a quantity it did not ask;
2. a passage number with that unit is *about the question* when its sentence holds
   ``MIN_SUBJECT`` of the question's content words (a Latin name twice), its own clause shares one
   of them (not "每个字段2字节" for UDP's 首部), and the name it is said of (the sentence's subject
   before it, ``pipeline/ask/names.py``) is one the question names, or none (直接寻址's 1次 is not
   about 间接寻址);
   a number is said of what the question counts ("几个关键字": not "2个孩子"), and an ordinal
   (第5个字节) is no count;
3. two or more different values in one unit group are a conflict (64B and 512bit are not): one
   statement per value (the best-covered), its clause and the clause before it, and the difference
   named (the words one statement has and the other lacks: 若把取指令也算在内 / 仅就取操作数而言).
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Optional

from pydantic import BaseModel

from pipeline.ask.claims import ClaimRules, load_rules
from pipeline.ask.entities import segments
from pipeline.ask.names import namer
from pipeline.ask.numbers import said_of, unit_after, unit_groups
from pipeline.ask.question import Asked, asked_of
from pipeline.ask.sentences import QUESTION_WORDS, containment, normalise, strip_citations, subject_grams
from pipeline.models import Hit
from pipeline.rulefiles import compiled

MIN_SUBJECT = 0.5  # share of the question's content words a passage sentence must hold (Latin ones twice)
UNIT_WORDS = {"字节", "个字", "比特", "毫秒", "微秒", "纳秒", "分钟", "小时"}  # say how, not what, is counted
SHARED = 0.8  # a clause this much inside the other statement's clauses is common ground, not a difference
_ASKS = re.compile(r"(几|多少)\s*")
_SENTENCE = re.compile(r"[。！？!?\n]")
_CLAUSE = re.compile(r"[，,；;：:]")
_ORDINAL = re.compile(r"第\s*(?:\d+\s*[、,，和~～\-]\s*)*$")
_SPACED_THOUSANDS = re.compile(r"(?<=\d) +(?=\d{3}(?!\d))")


class Statement(BaseModel):
    """One value the material gives for the quantity."""

    value: str
    unit: str = ""  # as the passage writes it (次, B, 字节)
    text: str  # the clause with the number and the clause before it
    condition: str  # what this statement has that the other does not ("若把取指令也算在内")
    citation: str
    chunk_id: str


class Conflict(BaseModel):
    """Different values for one quantity, each with its citation."""

    quantity: str  # what the values are of, in the passages' words ("访问主存")
    statements: list[Statement]
    difference: str  # "3次：若把取指令也算在内；2次：仅就取操作数而言"


def asked_unit(question: "str | Asked", rules: ClaimRules) -> tuple[bool, Optional[int]]:
    """(does the question ask a number, the unit group it asks in or None for any)."""
    text = asked_of(question).norm
    aliases = unit_groups(rules.numbers)
    asks = False
    for m in _ASKS.finditer(text):
        asks = True
        group = unit_after(text, m.end(), aliases)
        if group is not None:
            return True, group
    return asks, None


def find_conflicts(question: "str | Asked", hits: list[Hit], rules: Optional[ClaimRules] = None) -> list[Conflict]:
    """The conflicts among ``hits`` for the quantity ``question`` asks (see the module docstring);
    [] when it asks no number or the passages agree."""
    rules = rules or load_rules()
    question = asked_of(question)
    asks, unit = asked_unit(question, rules)
    if not asks or unit is None:
        return []  # 多少 with no unit: "物理地址是多少" drew 10位 vs 14位 of 页内偏移量, another quantity
    q_words = subject_grams(QUESTION_WORDS.sub(" ", question.norm)) - UNIT_WORDS
    names = namer(rules.names)
    q_names = {names.key(n) for _, _, n in names.find(question.norm)}
    counted = _counted(question, rules)
    found: dict[tuple[int, float], tuple[float, Statement]] = {}
    for hit in hits:
        text = _SPACED_THOUSANDS.sub("", normalise(strip_citations(hit.text)))  # 4 000 字节 is 4000
        for sent in _SENTENCE.split(text):
            cover = _cover(q_words, subject_grams(sent))
            if cover < MIN_SUBJECT or _about_a_sibling(sent, q_names, names):
                continue
            for value, unit_text, group, start, end in _numbers(sent, rules, unit):
                near = said_of(sent, start, end + len(unit_text) + 1)
                if not near & q_words or (counted and not counted & near):
                    continue  # "每个字段2字节", "2个孩子" for 几个关键字: a number of something else
                if _ORDINAL.search(sent[max(0, start - 16):start]):
                    continue  # 第5个字节, 第5、6个字节, 第45题: an ordinal, not a count
                owner = _owner(sent, start, names)
                if owner is not None and owner not in q_names:
                    continue  # said of another thing
                st = Statement(value=value, unit=unit_text, text=_context(sent, start), condition="",
                               citation=hit.citation, chunk_id=hit.chunk_id)
                key = (group, float(value))
                if key not in found or cover > found[key][0]:
                    found[key] = (cover, st)
    groups = Counter(g for g, _ in found)  # values are compared in one unit: 64B and 512bit agree
    if not groups:
        return []
    group = max(groups, key=lambda g: (groups[g], -g))
    same = [f for (g, _), f in found.items() if g == group]
    if len(same) < 2:
        return []
    statements = [st for _, st in sorted(same, key=lambda f: -f[0])][:2]
    for st, other in ((statements[0], statements[1]), (statements[1], statements[0])):
        st.condition = _condition(st.text, other.text)
    difference = "；".join(f"{s.value}{s.unit}：{s.condition}" for s in statements)
    return [Conflict(quantity=_quantity(statements), statements=statements, difference=difference)]


def _numbers(sent: str, rules: ClaimRules, unit: Optional[int]) -> list[tuple[str, str, int, int, int]]:
    """(value, unit as written, unit group, start, end) of the numbers in ``sent`` with the asked
    unit (any unit when the question asks none)."""
    aliases = unit_groups(rules.numbers)
    out = []
    for m in compiled(rules.numbers.pattern).finditer(sent):
        group = unit_after(sent, m.end(), aliases)
        if group is None or (unit is not None and group != unit):
            continue
        rest = sent[m.end():].lstrip().lstrip("个")
        written = next((a for a, g in aliases if g == group and rest.startswith(a)), "")
        out.append((m.group(1), written, group, m.start(), m.end()))
    return out


def _counted(question: "Asked", rules: ClaimRules) -> set[str]:
    """What the question counts, right after its unit ("几个关键字" → 关键字, "几次主存" → 主存):
    a passage number must be said of it too."""
    text = question.norm
    aliases = unit_groups(rules.numbers)
    for m in _ASKS.finditer(text):
        rest = text[m.end():].lstrip().lstrip("个")
        alias = next((a for a, _ in aliases if rest.startswith(a)), None)
        if alias is not None:
            return subject_grams(re.split(r"[，,。？?！!；;的]", rest[len(alias):])[0][:4]) - UNIT_WORDS
    return set()


def _cover(words: set[str], text_words: set[str]) -> float:
    """Weighted share of the question's words in a sentence: a Latin name (UDP, TCP) counts twice,
    so a sentence about IPv4's 首部 does not cover "UDP首部"."""
    total = sum(2 if w.isascii() else 1 for w in words)
    return sum(2 if w.isascii() else 1 for w in words & text_words) / total if total else 0.0


def _about_a_sibling(sent: str, q_names: set[str], names) -> bool:
    """Does the sentence name a sibling of the question's thing (直接寻址 for 间接寻址) and not the
    thing itself?"""
    headed = {q for q in q_names if names.head(q)}
    here = {names.key(n) for _, _, n in names.find(sent)}
    if not headed or here & headed:
        return False
    return any(names.head(n) == names.head(q) for q in headed for n in here)


def _owner(sent: str, pos: int, names) -> Optional[str]:
    """The subject name the text at ``pos`` is said of, None if no name comes before it."""
    owner, at = None, 0
    for owners, seg in segments(sent, names):
        at = sent.find(seg, at)
        if at <= pos:
            owner = owners[-1]
    return owner


def _context(sent: str, pos: int) -> str:
    """The clause holding ``pos`` and the clause before it."""
    bounds = [0] + [m.end() for m in _CLAUSE.finditer(sent)] + [len(sent) + 1]
    i = max(k for k in range(len(bounds) - 1) if bounds[k] <= pos)
    return sent[bounds[max(0, i - 1)]:bounds[i + 1] - 1].strip("，,；;：: ")


def _condition(text: str, other: str) -> str:
    """What ``text`` says that ``other`` does not: its clauses before the number's that ``other``
    does not share; failing that, the number's clause."""
    theirs = subject_grams(other)
    clauses = [c.strip() for c in _CLAUSE.split(text) if c.strip()]
    own = [c for c in clauses[:-1] if containment(subject_grams(c), theirs) < SHARED]
    return "，".join(own) or (clauses[-1] if clauses else text)


def _quantity(statements: list[Statement]) -> str:
    """The words both statements' number clauses share, in order: "需访问主存"."""
    a, b = (re.sub(r"[\d.]+\S?$", "", _CLAUSE.split(s.text)[-1]) for s in statements)
    best = ""
    for i in range(len(a)):
        for j in range(i + len(best) + 1, len(a) + 1):
            if a[i:j] in b:
                best = a[i:j]
            else:
                break
    return best.strip() or a.strip()


def disclosure(conflict: Conflict) -> str:
    """A sentence for the answer: both values, what makes them differ, each with its citation."""
    parts = [f"{s.value}{s.unit}（{s.condition}）{s.citation}" for s in conflict.statements]
    return f"注意：资料对“{conflict.quantity}”给出了不同的数：" + "；".join(parts) + "。"
