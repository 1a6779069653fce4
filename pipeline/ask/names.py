"""Names of things in answers and passages: 慢启动, 快表, 开放定址法, Prim算法, 间接寻址.

Two claim rules need them. **Polarity**: a term inside a name claims nothing (慢启动 says nothing is
slow, 快速排序 nothing is fast), so :func:`masked` drops polarity terms that stand inside a longer
name. **Entities**: what an answer says of a named thing is checked against what the passages say
of it and of its siblings (``pipeline/ask/entities.py``); :meth:`Namer.find` locates the names.

A name is, longest first: one of ``names.listed`` in ``claims.yaml``, a domain term of
``pipeline/text/terms.txt`` (when ``names.domain_terms``), or, for entities only, a word ending in
one of ``names.heads`` (a Latin word, or two to four characters, before 算法, 寻址, 法…).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Optional

from pipeline.rulefiles import StrictRules
from pipeline.text.tokenize import read_terms

# characters that are not part of the word before a head ("这种|算法", "用|堆排序", "一次|间接寻址")
_NOT_IN_PREFIX = set("的了是在和与及或有对中一个能会要可以呢吗吧也都就而并且其该此为把被将从向于之所这那种些各每本用使以按"
                     "次第几多两二三四五六七八九十比如若当即则经过通需求按照据另还仅只再更最很较")
_CJK = re.compile(r"[\u4e00-\u9fff]")
MAX_PREFIX = 4  # CJK characters before a head
# a Latin name in brackets after its Chinese one, or a Latin word and a space, before a head
_BEFORE_HEAD = re.compile(r"(?:[\u4e00-\u9fff]{0,5}[(（][A-Za-z][A-Za-z0-9+\-]*[)）]|(?<![A-Za-z0-9+])[A-Za-z][A-Za-z0-9+]* )$")
_BRACKETED = re.compile(r"^[\u4e00-\u9fff]*[(（]([A-Za-z][A-Za-z0-9+\-]*)[)）]")


class NameRules(StrictRules):
    listed: list[str] = []  # names with a polarity character or two: 慢启动, 高速缓存, 低级调度…
    domain_terms: bool = False  # pipeline/text/terms.txt counts too
    heads: list[str] = []  # "Prim算法", "拉链法": a word before one of these is a name (entities only)
    same: list[list[str]] = []  # names of one thing: [慢启动, 慢开始] (a question's word, the book's word)

    def also(self, name: str) -> list[str]:
        """``name`` and the other names of the same thing (case-insensitive), ``name`` first."""
        low = name.lower()
        group = next((g for g in self.same if low in (x.lower() for x in g)), [])
        return [name] + [x for x in group if x.lower() != low]

    def namer(self) -> "Namer":
        return _namer(tuple(self.listed), self.domain_terms, tuple(self.heads))


@dataclass(frozen=True)
class Namer:
    """The names of one rules file, compiled once."""

    literal: Optional[re.Pattern]
    headed: Optional[re.Pattern]
    heads: tuple[str, ...]

    def find(self, text: str, headed: bool = True) -> list[tuple[int, int, str]]:
        """(start, end, name) of the names in ``text``, left to right, not overlapping; a listed name
        or domain term wins over a headed word that overlaps it."""
        return list(_find(self, text, headed))

    @staticmethod
    def key(name: str) -> str:
        """One spelling per name: "普里姆(Prim)算法", "Prim 算法" and "prim算法" are "prim算法"."""
        return _BRACKETED.sub(r"\1", name).replace(" ", "").lower()

    def head(self, name: str) -> Optional[str]:
        """The head a name ends with (算法 for Prim算法), None if none."""
        return next((h for h in self.heads if name.endswith(h) and len(name) > len(h)), None)


@lru_cache(maxsize=16384)
def _find(namer: Namer, text: str, headed: bool) -> tuple[tuple[int, int, str], ...]:
    spans = [(m.start(), m.end(), m.group()) for m in namer.literal.finditer(text)] if namer.literal else []
    if headed and namer.headed:
        taken = [False] * (len(text) + 1)
        for s, e, _ in spans:
            for i in range(s, e):
                taken[i] = True
        for m in namer.headed.finditer(text):
            start = _prefix_start(text, m.start())
            if start is None or any(taken[i] for i in range(start, m.end())):
                continue
            spans.append((start, m.end(), text[start:m.end()]))
    return tuple(sorted(spans))


def _prefix_start(text: str, head: int) -> Optional[int]:
    """Where the word before a head begins: a Latin word (Prim, LRU, B+), or 2–4 CJK characters
    that are no function, measure or number characters (间接|寻址, 寄存器|寻址, not 一次间接)."""
    m = _BEFORE_HEAD.search(text[max(0, head - 40):head])
    if m:  # "普里姆(Prim)算法", "Prim 算法"
        return head - len(m.group())
    i = head
    while i > 0 and text[i - 1].isascii() and (text[i - 1].isalnum() or text[i - 1] == "+"):
        i -= 1
    if i < head:
        return i if text[i].isalpha() else None
    while i > 0 and head - i < MAX_PREFIX and _CJK.match(text[i - 1]) and text[i - 1] not in _NOT_IN_PREFIX:
        i -= 1
    return i if head - i >= 2 else None


def namer(rules: Optional[NameRules]) -> Namer:
    """The compiled names of ``rules`` (None: no names, as in a rules file from before names)."""
    return rules.namer() if rules is not None else _namer((), False, ())


@lru_cache(maxsize=8)
def _namer(listed: tuple[str, ...], domain_terms: bool, heads: tuple[str, ...]) -> Namer:
    names = set(listed) | (set(read_terms()) if domain_terms else set())
    names = sorted((n for n in names if len(n) >= 2), key=lambda n: (-len(n), n))
    literal = re.compile("|".join(re.escape(n) for n in names)) if names else None
    heads = tuple(sorted(heads, key=len, reverse=True))
    headed = re.compile("|".join(re.escape(h) for h in heads)) if heads else None  # the word before: _prefix_start
    return Namer(literal, headed, heads)


def masked(spans: list[tuple[int, int, str]], names: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    """``spans`` (polarity terms) without those inside a longer name."""
    if not names:
        return spans
    return [(s, e, side) for s, e, side in spans
            if not any(ns <= s and e <= ne and (ne - ns) > (e - s) for ns, ne, _ in names)]
