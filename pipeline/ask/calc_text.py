"""What the calculation rules share (pipeline/ask/calc_rules.py): reading one datum out of a question,
units, and writing the program.

A rule reads each datum with :func:`unique`: every place the pattern matches must state the same value,
else the datum is ambiguous ("页面大小1KB……页面大小4KB") and the rule gives no program. Numbers are
written into the program as the question writes them (``2`` of 2KB, not 2048), then converted to the
base unit by a named step with a unit constant of ``calculate.UNIT_CONSTANTS`` (``page = page_kb * 1024``),
so the grounding checks see the question's own numbers and the reader sees the conversion.

A label carries its unit in full-width parentheses, ``# 页面大小（KB）``: the render shows
``page_kb（页面大小） = 2KB`` and concludes ``答：最大逻辑地址空间为4MB。`` (``UNITS`` are the units
it reads so).
"""

from __future__ import annotations

import re
from typing import ClassVar, Optional

NUM = r"(?<![\d.^])(\d+(?:\.\d+)?)"  # not the tail of another number or an exponent (10^7)
# clauses: a datum and its name are written in one clause (快表访问时间10ns，内存访问时间80ns)
_CLAUSE = re.compile(r"[，。；;,？?！!\n]")
# a count the question spells; calculate.ungrounded takes it as given (spelled_counts)
CHINESE_NUMBERS = {"一": "1", "两": "2", "二": "2", "三": "3", "四": "4", "五": "5", "六": "6", "七": "7", "八": "8",
                   "九": "9", "十": "10"}

# unit as written → (the unit shown, the factor to the base unit as a unit-constant product; "" for the base)
SIZE = {"B": ("B", ""), "字节": ("B", ""), "K": ("KB", "1024"), "KB": ("KB", "1024"), "M": ("MB", "1048576"),
        "MB": ("MB", "1048576"), "G": ("GB", "1073741824"), "GB": ("GB", "1073741824")}
SIZE_UNIT = r"(KB|MB|GB|K|M|G|B|字节)(?![A-Za-z/])"
TIME_NS = {"ns": ("ns", ""), "纳秒": ("ns", ""), "μs": ("μs", "1000"), "us": ("μs", "1000"), "微秒": ("μs", "1000"),
           "ms": ("ms", "1000000"), "毫秒": ("ms", "1000000"), "s": ("s", "1000000000")}
TIME_UNIT = r"(ns|μs|us|ms|纳秒|微秒|毫秒)(?![A-Za-z/])"
# words that take back what follows them: 不计处理和排队时延, 忽略段间锁存器延迟, 没有任何冒险
NEGATION = r"没有|无|不计|不考虑|不存在|不发生|忽略|不会|不用|不含|不包括"
FREQUENCY = {"Hz": ("Hz", ""), "kHz": ("kHz", "1000"), "KHz": ("kHz", "1000"), "MHz": ("MHz", "1000000"),
             "GHz": ("GHz", "1000000000")}
# the units a label may end with: shown after the value
UNITS = frozenset({"B", "KB", "MB", "GB", "bit", "ns", "μs", "ms", "s", "m", "km", "m/s", "km/s", "b/s", "kb/s",
                   "Mb/s", "Gb/s", "Hz", "kHz", "MHz", "GHz", "MIPS", "MB/s", "K", "M", "G", "dB", "%", "位", "转/分", "转/秒", "级",
                   "MSS"})
SUFFIX = {"KB": "kb", "MB": "mb", "GB": "gb", "μs": "us", "ms": "ms", "s": "s", "km": "km", "km/s": "kmps", "kb/s": "kbps",
          "Mb/s": "mbps", "Gb/s": "gbps", "kHz": "khz", "MHz": "mhz", "GHz": "ghz", "K": "k", "M": "m", "G": "g", "%": "pct", "B": "bytes"}


class Rule:
    """One calculation type: ``match`` gives the program for a (normalised) question, or None unless
    every datum it needs is stated exactly once and the question asks what it computes."""

    name: ClassVar[str] = ""
    # numbers the rule's method fixes, not the question (IPv4's 32 bits); named in its program and its docstring
    conventions: ClassVar[frozenset[float]] = frozenset()

    def match(self, q: str) -> Optional[str]:
        raise NotImplementedError


def clauses(q: str) -> list[str]:
    return [c for c in _CLAUSE.split(q) if c.strip()]


def _stated(m: re.Match) -> tuple[str, ...]:
    """What a match states: its groups that matched (地址32位 and 32位主存地址 state the same 32)."""
    return tuple(g for g in m.groups() if g is not None)


# a datum that goes on as a list: 逻辑地址2500和4000, 页面大小1KB或2KB, 生成多项式1101、10011
_MORE = re.compile(r"\s*(?:和|或|与|及|、)\s*(?:0[xX])?[0-9]")


def unique(pattern: str | re.Pattern, text: str) -> Optional[re.Match]:
    """The match of ``pattern`` when every match in ``text`` states the same values and none goes on
    as a list of several; None when there is none, two that differ, or a list."""
    found = list(re.finditer(pattern, text))
    # a list goes on from a value (2500和4000, 1KB或2KB); after a noun (20个叶子结点、10个度为1的结点)
    # the next number is another datum, and a second match of the same pattern is caught as differing
    listed = any(_MORE.match(text, m.end()) and re.match(r"[0-9A-Za-z]", m.group(0)[-1:]) for m in found)
    if not found or len({_stated(m) for m in found}) != 1 or listed:
        return None
    return found[0]


def in_clause(q: str, names: str, value: str, *, without: str = "") -> Optional[re.Match]:
    """The one value a clause naming ``names`` (and not ``without``) states, the clause holding exactly
    one match of ``value``: 快表 in 查一次快表10ns, not in 快表和内存分别为10ns和80ns."""
    found = []
    for c in clauses(q):
        if re.search(names, c) and not (without and re.search(without, c)):
            ms = list(re.finditer(value, c))
            if len(ms) == 1:
                found.append(ms[0])
            elif ms:
                return None  # two values in a clause that names it: which is it
    if not found or len({_stated(m) for m in found}) != 1:
        return None
    return found[0]


def alternative(m: re.Match, width: int) -> tuple[str, ...]:
    """The groups of the alternative that matched, in a pattern of alternatives ``width`` groups each
    (``1K×4位的芯片`` or ``芯片规格为1K×4位``: the same three data either way)."""
    groups = m.groups()
    for start in range(0, len(groups), width):
        if groups[start] is not None:
            return groups[start:start + width]
    raise ValueError("no alternative matched")


def literal(number: str) -> str:
    """The number as a Python literal: ``08`` is a syntax error, ``8`` is the same number."""
    return number if "." in number else str(int(number))


def power_of_two(n: int) -> bool:
    return n > 0 and n & (n - 1) == 0


def value(number: str, unit: str, table: dict[str, tuple[str, str]]) -> float:
    """The number in the base unit, for a rule's own checks (the program computes its own)."""
    factor = table[unit][1]
    return float(number) * (eval_product(factor) if factor else 1)


def eval_product(text: str) -> int:
    out = 1
    for part in text.split("*"):
        out *= int(part)
    return out


class Program:
    """A ruled program, line by line: each input with its name as a comment (``# 页面大小（KB）``),
    each step named, the last line ``answer = ...  # 结果的名称``."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def line(self, name: str, expression: str, label: str, unit: str = "") -> str:
        self.lines.append(f"{name} = {expression}  # {label}" + (f"（{unit}）" if unit else ""))
        return name

    def given(self, name: str, number: str, label: str, unit: str = "") -> str:
        return self.line(name, literal(number), label, unit)

    def in_base(self, name: str, number: str, unit: str, table: dict[str, tuple[str, str]], label: str,
                base: str) -> str:
        """The datum in its unit, then (a named step) in the base unit: ``page_kb = 2`` ``page = page_kb * 1024``."""
        shown, factor = table[unit]
        if not factor:
            return self.given(name, number, label, shown)
        raw = self.given(f"{name}_{SUFFIX.get(shown, 'raw')}", number, label, shown)
        return self.line(name, f"{raw} * {factor}", label, base)

    def source(self) -> str:
        return "\n".join(self.lines)


def size_in_unit(n_bytes: int) -> tuple[str, str]:
    """The largest of GB/MB/KB that divides a size exactly: (divisor, unit); ("", "B") if none."""
    for divisor, unit in (("1073741824", "GB"), ("1048576", "MB"), ("1024", "KB")):
        if n_bytes >= int(divisor) and n_bytes % int(divisor) == 0:
            return divisor, unit
    return "", "B"


# …or after it in its clause: 处理时间忽略不计, 确认帧的发送时间可忽略
_TAKEN_BACK = re.compile(r"[^，。；;,？?！!\n]{0,6}?(?:忽略不计|可以?忽略|忽略|不计|不考虑|为0|为零)")


def mentioned(pattern: str, q: str, reach: int = 16) -> bool:
    """Whether ``q`` says ``pattern`` without taking it back: a match with no ``NEGATION`` in the
    ``reach`` characters of its clause before it (不计处理和排队时延 mentions no queueing), nor a
    ``_TAKEN_BACK`` right after it (处理时间忽略不计)."""
    for m in re.finditer(pattern, q):
        before = _CLAUSE.split(q[:m.start()])[-1][-reach:]
        if not re.search(NEGATION, before) and not _TAKEN_BACK.match(q, m.end()):
            return True
    return False


# a count written in characters, up to 99: 九, 十二, 七十五, 二十
CHINESE_COUNT = r"(?:[一二两三四五六七八九]?十[一二三四五六七八九]?|[一二两三四五六七八九十])"


def chinese_number(text: str) -> Optional[str]:
    """A count as digits: ``3`` stays, 一…九十九 (两 too) become 1…99, any other numeral None."""
    if text.isascii() and text.isdigit():
        return text
    if text in CHINESE_NUMBERS:
        return CHINESE_NUMBERS[text]
    m = re.fullmatch(r"([一二两三四五六七八九])?十([一二三四五六七八九])?", text)
    if not m:
        return None
    tens = int(CHINESE_NUMBERS[m.group(1)]) if m.group(1) else 1
    return str(tens * 10 + (int(CHINESE_NUMBERS[m.group(2)]) if m.group(2) else 0))


def stated_count(pattern: str | re.Pattern, text: str) -> Optional[str]:
    """The one count ``pattern``'s first group states (``5个进程``, ``五个进程``), as digits; None when it
    is not stated, stated twice differently, or not a numeral :func:`chinese_number` reads."""
    m = unique(pattern, text)
    return chinese_number(m.group(1)) if m else None
