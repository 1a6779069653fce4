"""The number rule of the claim check: every number a generated sentence states must be one the
material gives, said of the same thing, with the same unit; or computed in the sentence from numbers
it gives (``128×8/16=64``); or, for a comparison (``UDP比TCP的首部少12个字节``, ``快2倍``), the
difference or ratio of a number the material says of the one thing and a number it says of the other.

The small model's favourite invention is a number that *looks* grounded: "UDP比TCP的首部少2个字节"
next to passages that give 8 B for UDP's header and 20 B for TCP's (and 2 B for each UDP field). The
plain rule accepts its 2 (a 2 is said of 首部); the comparison rule asks for 20 − 8.

Pure functions over normalised text (``hay``: the passages and the question, whitespace removed);
the rules (patterns, units, tolerance) come from ``claims.yaml`` through :class:`NumberRules`.
"""

from __future__ import annotations

import logging
import re
from itertools import product
from typing import Optional

from pydantic import field_validator

from pipeline.ask.arithmetic import (EQUALS, OPERATORS, chained_computations, computations, evaluate,
                                     worked_computation)
from pipeline.ask.refs import YEAR_OR_EXAM
from pipeline.ask.sentences import PURE_FUNCTION, grams, normalise, strip_citations
from pipeline.rulefiles import StrictRules, check_patterns, compiled

__all__ = ["NumberRules", "check_numbers", "check_comparisons", "evaluate", "occurrences"]
log = logging.getLogger(__name__)

NUMBER_CONTEXT = 12  # chars each side of a number (within its sentence) that say what it is a number of
_UNIT_GRAMS = {"字节", "个字", "比特", "毫秒", "微秒", "纳秒", "分钟", "小时", "千赫", "兆赫", "赫兹"}
_PUNCT = "，,。；;！？!?\n"


class NumberRules(StrictRules):
    pattern: str
    enumerators: str
    units: list[list[str]]
    arithmetic: bool = True
    tolerance: float = 0.01
    equals: str = EQUALS  # marks between an expression and its result (pipeline/ask/arithmetic.py)
    expression: Optional[str] = None  # no longer read: arithmetic is parsed, not matched (issue 20)
    # "A比B…少N": groups `other` (B and what is compared) and `num`, optional `times` (倍)
    comparison: Optional[str] = None

    @field_validator("pattern", "enumerators", "comparison")
    @classmethod
    def _re(cls, v: Optional[str]) -> Optional[str]:
        return check_patterns([v])[0] if v is not None else v

    @field_validator("equals")
    @classmethod
    def _equals(cls, v: str) -> str:
        bad = [c for c in v if c.isdecimal() or c.isspace() or c == "." or c in OPERATORS]
        if not v or bad:
            raise ValueError(f"equals {v!r}: needs marks that are no digit, space, dot or operator")
        return v

    @field_validator("expression")
    @classmethod
    def _old(cls, v: Optional[str]) -> Optional[str]:
        if v is not None:
            log.warning("claim rules: numbers.expression is no longer used (arithmetic is parsed); remove it")
        return v


class Aliases(list):
    """(alias, group index) pairs, longest alias first, with an index by first character."""

    def __init__(self, pairs):
        super().__init__(pairs)
        self.by_first: dict[str, list[tuple[str, int]]] = {}
        for alias, group in self:
            self.by_first.setdefault(alias[:1], []).append((alias, group))


_ALIASES: dict[int, tuple[object, Aliases]] = {}


def unit_groups(nr: NumberRules) -> Aliases:
    """(alias, group index), longest alias first, so KB wins over B (built once per rules)."""
    kept = _ALIASES.get(id(nr.units))
    if kept is not None and kept[0] is nr.units:
        return kept[1]
    pairs = [(alias, i) for i, group in enumerate(nr.units) for alias in group]
    aliases = Aliases(sorted(pairs, key=lambda p: -len(p[0])))
    _ALIASES[id(nr.units)] = (nr.units, aliases)
    return aliases


def unit_after(text: str, pos: int, aliases: list[tuple[str, int]]) -> Optional[int]:
    rest = text[pos:pos + 12].lstrip()
    if rest.startswith("个") and unit_after(rest, 1, aliases) is not None:
        return unit_after(rest, 1, aliases)  # 8个字节 is 8 字节
    candidates = aliases.by_first.get(rest[:1], ()) if isinstance(aliases, Aliases) else aliases
    for alias, group in candidates:
        if rest.startswith(alias):
            nxt = rest[len(alias):len(alias) + 1]
            if alias.isascii() and alias[-1:].isalpha() and nxt.isascii() and nxt.isalpha():
                continue  # 5Bx, 3Byte… part of a longer Latin word
            return group
    return None


def near_words(text: str, start: int, end: int) -> set[str]:
    """Content bigrams within ``NUMBER_CONTEXT`` chars of a number in its sentence (units, digits left out):
    what the number is said of. "UDP比TCP的首部少2个字节" and "端口号占2字节" share none."""
    before = re.split(r"[。！？!?；;\n]", text[max(0, start - NUMBER_CONTEXT):start])[-1]
    after = re.split(r"[。！？!?；;\n]", text[end:end + NUMBER_CONTEXT])[0]
    window = before + " " + after
    return {g for g in grams(window) if not re.search(r"\d", g) and g not in _UNIT_GRAMS}


def occurrences(num: str, hay: str) -> list[int]:
    """End positions of ``num`` standing alone (not inside a longer number) in ``hay``."""
    pat = re.compile(rf"(?<![\d.]){re.escape(num)}(?!\d|\.\d)")
    return [m.end() for m in pat.finditer(hay)]


def _words(text: str) -> set[str]:
    """Content words of a phrase: Latin words whole, CJK bigrams without function characters (a
    lone character, such as the pronoun 它, names nothing)."""
    return {g for g in grams(text) if not re.search(r"\d", g) and not set(g) & PURE_FUNCTION
            and g not in _UNIT_GRAMS and (len(g) >= 2 or g.isascii())}


_OPERAND = re.compile(r"\d+(?:\.\d+)?")
_CLAUSE_END = re.compile(r"[，,；;。！？!?、\n]|\s-\s")
_NUMBER_TOKEN = re.compile(r"\d+(?:\.\d+)?[A-Za-z%]*")


def said_of(text: str, start: int, end: int) -> set[str]:
    """The words a number is said of: its own clause within ``NUMBER_CONTEXT`` chars each side
    (a list bullet " - " or a comma ends it), other numbers and their units left out. Stricter than
    :func:`near_words`: in "TCP首部：20B - UDP首部：8B" the 20 is said of TCP only."""
    before = _CLAUSE_END.split(text[max(0, start - NUMBER_CONTEXT):start])[-1]
    after = _CLAUSE_END.split(text[end:end + NUMBER_CONTEXT])[0]
    return _words(_NUMBER_TOKEN.sub(" ", before) + " " + _NUMBER_TOKEN.sub(" ", after))


def _said_of(words: set[str], text: str, nr: NumberRules, aliases) -> list[tuple[float, Optional[int]]]:
    """(value, unit group) of every number in ``text`` said of one of ``words``."""
    out = []
    for m in compiled(nr.pattern).finditer(text):
        if words & said_of(text, m.start(), m.end()):
            out.append((float(m.group(1)), unit_after(text, m.end(), aliases)))
    return out


def _thing(phrase: str) -> str:
    """The thing a comparison names: its phrase before 的 ("TCP的首部" → "TCP")."""
    return phrase.split("的", 1)[0] if "的" in phrase[1:] else phrase


def check_comparisons(text: str, material: str, nr: NumberRules) -> tuple[set[str], Optional[str]]:
    """(numbers of ``text`` verified as comparisons, reason of the first that fails or None).
    ``material``: the passages and the question, normalised, whitespace kept (it separates words).

    For "A比B…少N": the numbers the passages say of A's own words and of B's own words (the words
    both share, such as 首部, tell nothing apart); N must be the difference of one of each (or, with
    倍, their ratio), within the tolerance; or the passages state the same comparison with N."""
    if not nr.comparison:
        return set(), None
    aliases = unit_groups(nr)
    verified: set[str] = set()
    comparison = compiled(nr.comparison)
    for m in comparison.finditer(text):
        num, times = m.group("num"), bool(m.group("times"))
        clause_start = max(text.rfind(ch, 0, m.start()) for ch in _PUNCT) + 1
        # "UDP比TCP的首部少…": the things are UDP and TCP; 首部, what is compared, tells nothing apart
        a_words, b_words = _words(_thing(text[clause_start:m.start()])), _words(_thing(m.group("other")))
        a_only, b_only = a_words - b_words, b_words - a_words
        if not a_only or not b_only:
            continue  # "它比…": the thing compared is not named; the plain number rule applies
        unit = unit_after(text, m.end("num"), aliases)
        stated = [s for s in comparison.finditer(material) if s.group("num") == num]
        if any((a_only | b_only) & _words(material[max(0, s.start() - NUMBER_CONTEXT):s.end()]) for s in stated):
            verified.add(num)
            continue
        value = float(num)
        tol = nr.tolerance * max(1.0, abs(value))
        side_a = [(v, u) for v, u in _said_of(a_only, material, nr, aliases) if unit is None or u in (None, unit)]
        side_b = [(v, u) for v, u in _said_of(b_only, material, nr, aliases) if unit is None or u in (None, unit)]
        ok = False
        for (a, ua), (b, ub) in product(side_a, side_b):
            if ua is not None and ub is not None and ua != ub:
                continue
            if times:
                ok = any(d and abs(n / d - value) <= tol for n, d in ((a, b), (b, a)))
                ok = ok or (min(a, b) > 0 and abs(abs(a - b) / min(a, b) - value) <= tol)  # 多N倍
            else:
                ok = abs(abs(a - b) - value) <= tol
            if ok:
                break
        if not ok:
            what = "".join(sorted(b_only))[:12]
            return verified, (f"number {num}{'倍' if times else ''} of a comparison is not the difference of what "
                              f"the passages give for the two ({what})")
        verified.add(num)
    return verified, None


# a formula with numbers and no result: "E = 8 * 1024 + 2500" (the offset is 452; the passage writes
# 8 * 1024 + 452 = 8644). Each number is in the passages, so the per-number rule passed it; a formula
# stated without its result must be written in the passages as it is. No "-": 41-47, 2009-2016 are ranges;
# a lone power or fraction (2^32, 1/2) is a number.
_BARE_FORMULA = re.compile(r"\d+(?:\.\d+)?(?:[+*/×÷^]\d+(?:\.\d+)?)+(?![\d.]|[+*/×÷^]|[=≈])")
_SAME_OPERATOR = str.maketrans({"×": "*", "÷": "/", "＋": "+", "＊": "*", "／": "/"})


def _formula_form(text: str) -> str:
    return re.sub(r"\s+|\\(?=[*^])", "", text).translate(_SAME_OPERATOR)


def unwritten_formula(text: str, hay: str) -> Optional[str]:
    """The first formula of ``text`` that gives no result and that ``hay`` does not write, else None."""
    flat, where = _formula_form(text), _formula_form(hay)
    for m in _BARE_FORMULA.finditer(flat):
        f = m.group(0)
        if len(re.findall(r"[+*/×÷^]", f)) < 2 and not re.search(r"[+*]", f):
            continue  # 2^32, 1/2: a power or a fraction is a number, not a formula
        if f not in where:
            return f
    return None


def check_numbers(sentence: str, hay: str, q_hay: str, nr: NumberRules, material: str = "") -> Optional[str]:
    """None when every number of ``sentence`` is backed by ``hay`` (passages + question, whitespace
    removed) or, failing that, the question alone (``q_hay``); else the reason. ``material`` is
    ``hay`` with its whitespace, for comparisons (:func:`check_comparisons`)."""
    text = compiled(nr.enumerators, re.M).sub("", normalise(strip_citations(sentence)))
    text = re.sub(r"(?<=\d) +(?=\d{3}(?!\d))", "", text)  # 125 000 → 125000, as in the passages
    aliases = unit_groups(nr)
    computed, failed = check_comparisons(text, material or hay, nr)
    if failed:
        return failed
    formula = unwritten_formula(text, hay) if nr.arithmetic else None
    if formula is not None:
        return f"number: formula {formula} (no result) not in the passages"
    if nr.arithmetic:
        for expr, result in computations(text, nr.equals):
            value, operands = evaluate(expr), _OPERAND.findall(expr)
            if (value is not None and len(operands) >= 2
                    and abs(value - float(result)) <= nr.tolerance * max(1.0, abs(float(result)))
                    and all(occurrences(o, hay) for o in operands)):
                computed.add(result)
    for m in compiled(nr.pattern).finditer(text):
        num = m.group(1)
        if num in computed:
            continue
        ends = occurrences(num, hay)
        unit = unit_after(text, m.end(), aliases)
        if not ends:
            return f"number {num} not in the passages"
        if len(num) > 1 or unit is not None:
            near = near_words(text, m.start(), m.end())
            if near and not any(near & near_words(hay, e - len(num), e) for e in ends) and not occurrences(num, q_hay):
                return f"number {num} not said of this in the passages"
        if unit is None:
            continue
        units_there = {unit_after(hay, e, aliases) for e in ends}
        if unit not in units_there and None not in units_there:  # a bare "41~47 题" is not against 41题
            alias = next(a for a, g in aliases if g == unit and text[m.end():].lstrip().lstrip("个").startswith(a))
            return f"number {num}{alias} (with its unit) not in the passages"
    return None


# a calculation question's data: the numbers it gives, minus the paper it names (2009年, 408)
EXAMPLE_SHARE = 0.5  # of the question's data numbers a passage must hold to be a worked example of it
MIN_DATA = 2  # data numbers a question needs for the rule (one number is no example to tell apart)


def check_example_numbers(sentence: str, passages: list[str], data: list[str], nr: NumberRules) -> Optional[str]:
    """For a calculation question with its own data: a number the sentence states that the question
    does not give, and that the sentence does not compute from numbers it states, must come from a
    passage holding the question's data (at least ``EXAMPLE_SHARE`` of ``data``): a worked example of
    this problem (`2ms内刷新128行…15.6μs` for a question giving 2ms and 128). A number that only another
    example gives is the model copying that example's result (`最大文件长度是64KB` from a past paper's
    i-node, asked about another), which the plain number rule lets through. None when it holds."""
    data = [d for d in dict.fromkeys(data) if not YEAR_OR_EXAM.match(d)]
    if len(data) < MIN_DATA:
        return None
    text = compiled(nr.enumerators, re.M).sub("", normalise(strip_citations(sentence)))
    computed = set()
    for expr, result in chained_computations(text, nr.equals):  # `= 2 ÷ 128 = 0.0156` goes on from 2
        value = evaluate(expr)
        if len(_OPERAND.findall(expr)) >= 2 and value is not None \
                and abs(value - float(result)) <= nr.tolerance * max(1.0, abs(float(result))):
            computed.add(result)
    # a passage is a worked example of this question when it holds its data: every identifying number
    # (two digits or more: 512, 128; a 4 or a 1 is in any passage) but at most one of three or more;
    # with fewer than two identifying numbers, EXAMPLE_SHARE of them all
    identifying = [d for d in data if len(d.replace(".", "")) >= 2]
    if len(identifying) >= MIN_DATA:
        pool, need = identifying, len(identifying) - (len(identifying) >= 3)
    else:
        pool, need = data, max(MIN_DATA, round(EXAMPLE_SHARE * len(data)))
    examples = [p for p in passages if sum(bool(occurrences(d, p)) for d in pool) >= need]
    for m in compiled(nr.pattern).finditer(text):
        num = m.group(1)
        if num in data or num in computed or _float_in(num, data):
            continue
        if computed and _method_constant(num):
            continue  # `2×3×4=24`: Nyquist's 2 and log2(16) = 4 beside the data, in a computation that checks
        if not any(occurrences(num, p) for p in examples):
            return f"number {num}: another example's, no passage with this question's data gives it"
    return None


def check_general_arithmetic(sentence: str, nr: NumberRules) -> Optional[str]:
    """For a question that gives no numbers (``calculate.gives_numbers``; the caller knows): it
    asks about the general case, so a sentence working out arithmetic over concrete numbers
    (`接收窗口为8-5=3`, from an exercise with 3-bit numbers and a send window of 5) answers some worked
    example, not this question. A conversion of one quantity (`1KB=1024B`) has one operand and is no
    computation. None when it holds."""
    worked = worked_computation(compiled(nr.enumerators, re.M).sub("", normalise(strip_citations(sentence))), nr.equals)
    if worked:
        return f"arithmetic {worked[0]}={worked[1]} on numbers the question does not give: a worked example's"
    return None


METHOD_CONSTANTS = {"8", "10", "100", "1000", "1024"}  # bits in a byte, powers the units use


def _method_constant(num: str) -> bool:
    """A single digit or a unit's factor: a formula's constant, not a datum copied from an example."""
    return (num.isdigit() and len(num) == 1) or num in METHOD_CONSTANTS


def _float_in(num: str, data: list[str]) -> bool:
    try:
        return any(float(num) == float(d) for d in data)
    except ValueError:
        return False
