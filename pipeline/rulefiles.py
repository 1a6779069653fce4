"""What the user-edited rule files (clean ``rules.yaml``, ask ``claims.yaml``) share: strict models
(a misspelt key is an error, not a silently ignored rule) and regular expressions checked at load
time, so a bad pattern is one clear line naming it instead of a crash halfway through a run.

**No pattern can run away** (issue 20). A pattern with nested quantifiers (``(\\d+)+x``) can take
minutes on one line, and Python's ``re`` holds the GIL while it matches, so on ``serve`` every
client would wait. So every rules-file pattern is

1. **checked when loaded** (:func:`runaway`, static, so a verdict does not depend on how busy the
   machine is): a repeat of a repeat over the same characters, or a repeat of alternatives that
   match one character, is a load error naming the pattern and the cause;
2. **matched under a time bound** (:class:`Pattern`): by the ``regex`` module, whose repeat guards
   turn most exponential cases polynomial, with ``timeout=MATCH_TIMEOUT`` and the GIL released
   (``concurrent=True``); a match that runs over raises :class:`PatternTimeout`, a one-line error.
"""

from __future__ import annotations

import re
import re._constants as sre
import re._parser as sre_parse
from functools import lru_cache
from typing import Annotated, Optional

import regex
from pydantic import AfterValidator, BaseModel, ConfigDict, ValidationError

MATCH_TIMEOUT = 1.0  # s per call at run time; shipped patterns need microseconds per line


class StrictRules(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class PatternTimeout(ValueError):
    """A rules-file pattern ran over ``MATCH_TIMEOUT`` on one text."""


class Pattern:
    """A compiled rules-file pattern whose every call runs under ``MATCH_TIMEOUT`` without holding
    the GIL. The methods of ``re.Pattern`` the stages use; ``finditer`` returns a list (a lazy
    iterator's clock would also count the caller's work between matches)."""

    __slots__ = ("pattern", "_rx")

    def __init__(self, pattern: str, flags: int = 0):
        self.pattern = pattern
        self._rx = regex.compile(pattern, flags)

    def _run(self, fn, *args, **kw):
        try:
            return fn(*args, timeout=MATCH_TIMEOUT, concurrent=True, **kw)
        except TimeoutError:
            text = next((a for a in args if isinstance(a, str)), "")
            raise PatternTimeout(f"pattern {self.pattern!r} ran over {MATCH_TIMEOUT:g} s on a "
                                 f"{len(text)}-char text (nested quantifiers?)") from None

    def search(self, string: str, pos: int = 0, endpos: Optional[int] = None):
        return self._run(self._rx.search, string, pos, len(string) if endpos is None else endpos)

    def match(self, string: str, pos: int = 0, endpos: Optional[int] = None):
        return self._run(self._rx.match, string, pos, len(string) if endpos is None else endpos)

    def fullmatch(self, string: str, pos: int = 0, endpos: Optional[int] = None):
        return self._run(self._rx.fullmatch, string, pos, len(string) if endpos is None else endpos)

    def finditer(self, string: str) -> list:
        return self._run(lambda s, **kw: list(self._rx.finditer(s, **kw)), string)

    def findall(self, string: str) -> list:
        return self._run(self._rx.findall, string)

    def sub(self, repl, string: str, count: int = 0) -> str:
        return self._run(self._rx.sub, repl, string, count)

    def split(self, string: str, maxsplit: int = 0) -> list[str]:
        return self._run(self._rx.split, string, maxsplit)

    def __repr__(self) -> str:
        return f"Pattern({self.pattern!r})"


@lru_cache(maxsize=4096)
def compiled(pattern: str, flags: int = 0) -> Pattern:
    """The bounded compiled form of a rules-file pattern (cached)."""
    return Pattern(pattern, flags)


def check_patterns(patterns: list[str]) -> list[str]:
    """``patterns`` unchanged if each compiles and cannot run away (:func:`runaway`); else
    ValueError naming the bad one and why."""
    for p in patterns:
        try:
            re.compile(p)
            compiled(p)
        except (re.error, regex.error) as e:
            raise ValueError(f"bad regular expression {p!r}: {e}") from e
        slow = runaway(p)
        if slow:
            raise ValueError(f"pattern {p!r} can run away: {slow} backtracks without end on a long line; "
                             f"rewrite it")
    return patterns


Patterns = Annotated[list[str], AfterValidator(check_patterns)]
"""A rules-file field holding regexes: each is checked when the file loads (:func:`check_patterns`)."""


def one_line(path, what: str, exc: Exception) -> str:
    """``path: invalid <what>: key.path: cause`` for a rules-file error (pydantic's own message is
    several lines per error)."""
    if isinstance(exc, ValidationError):
        causes = []
        for err in exc.errors():
            loc = ".".join(str(x) for x in err["loc"])
            msg = err["msg"].removeprefix("Value error, ")
            causes.append(f"{loc}: {msg}" if loc else msg)
        cause = "; ".join(causes)
    else:
        cause = " ".join(str(exc).split())
    return f"{path}: invalid {what}: {cause}"


# ---------------------------------------------------------------- the static check

_REPEATS = (sre.MAX_REPEAT, sre.MIN_REPEAT)  # a possessive repeat gives nothing back: not one to check
_CATEGORY_TESTS = {"CATEGORY_DIGIT": str.isdecimal, "CATEGORY_SPACE": str.isspace,
                   "CATEGORY_WORD": lambda c: c.isalnum() or c == "_", "CATEGORY_LINEBREAK": lambda c: c == "\n"}


def runaway(pattern: str) -> Optional[str]:
    """Why ``pattern`` can backtrack without end, or None. It can when one turn of a repeat can
    match runs of one character of two or more lengths: a long run of it then splits among the
    turns in exponentially many ways — ``(\\d+)+``, ``(\\w+\\s?)+``, ``(x+x+)+``, ``(a|aa)+``,
    ``(.*a){12}``. ``(?:\\s*[、,]\\s*[A-D])*`` is fine: every turn needs a comma and a letter, and
    no one character is both. A pattern ``re`` cannot parse (``\\p{Han}``) is not checked here; it
    still runs under ``MATCH_TIMEOUT``."""
    try:
        tree = sre_parse.parse(pattern)
    except (re.error, RecursionError, OverflowError):
        return None
    return _check(list(tree))


def _check(seq) -> Optional[str]:
    for op, av in seq:
        if op in _REPEATS and av[1] >= 2:
            body = list(av[2])
            for c in _REPRESENTATIVES | _literals(body):
                lengths = _lengths(body, c) - {0}
                if len(lengths) >= 2 and (av[1] > _MANY or _MANY + 1 in lengths):
                    return (f"a repeated part can match a run of {c!r} in more than one length "
                            f"(nested quantifiers such as (a+)+ or (a|aa)+)")
        for sub in _children(op, av):
            why = _check(sub)
            if why:
                return why
    return None


_MANY = 4  # run lengths are counted up to this; "more" stands for every length beyond
# one character of each kind a class can be made of (digit, letters, space, CJK, punctuation)
_REPRESENTATIVES = frozenset("1aZ_ \t\n中。，,.!-(")


def _lengths(seq, c: str) -> set:
    """The lengths of the runs of ``c`` alone that ``seq`` can match (0 for none; _MANY+1 for any
    longer); empty when ``seq`` cannot match a run of ``c`` at all."""
    total = {0}
    for op, av in seq:
        if op in (sre.AT, sre.ASSERT, sre.ASSERT_NOT, sre.GROUPREF):
            continue
        if op in (sre.LITERAL, sre.NOT_LITERAL, sre.IN, sre.ANY, sre.CATEGORY):
            item = {1} if _accepts(op, av, c) else set()
        elif op in (sre.MAX_REPEAT, sre.MIN_REPEAT, sre.POSSESSIVE_REPEAT):
            lo, hi, body = av
            once = _lengths(list(body), c)
            item = set()
            acc = {0}
            for k in range(0, min(hi, _MANY + 1) + 1):
                if k >= lo:
                    item |= acc
                acc = {min(a + b, _MANY + 1) for a in acc for b in once}
                if not acc:
                    break
            if hi > _MANY and once - {0}:
                item.add(_MANY + 1)
        else:  # groups and branches: the union of their alternatives
            item = set()
            for sub in _children(op, av):
                item |= _lengths(sub, c)
        total = {min(a + b, _MANY + 1) for a in total for b in item}
        if not total:
            return set()
    return total


def _children(op, av) -> list:
    if op in (sre.MAX_REPEAT, sre.MIN_REPEAT, sre.POSSESSIVE_REPEAT):
        return [list(av[2])]
    if op == sre.SUBPATTERN:
        return [list(av[3])]
    if op == sre.ATOMIC_GROUP:
        return [list(av)]
    if op == sre.BRANCH:
        return [list(a) for a in av[1]]
    if op == sre.GROUPREF_EXISTS:
        return [list(av[1])] + ([list(av[2])] if av[2] else [[]])
    if op in (sre.ASSERT, sre.ASSERT_NOT):
        return [list(av[1])]
    return []


def _literals(seq) -> set[str]:
    """The pattern's own characters (literals, ends of ranges): with ``_REPRESENTATIVES`` the
    characters a run is tried with."""
    out: set[str] = set()
    for op, av in seq:
        if op == sre.LITERAL:
            out.add(chr(av))
        elif op == sre.IN:
            out |= {chr(x) for o, x in av if o == sre.LITERAL}
            out |= {chr(x[i]) for o, x in av if o == sre.RANGE for i in (0, 1)}
        for sub in _children(op, av):
            out |= _literals(sub)
    return out


def _accepts(op, av, c: str) -> bool:
    """Does one character item (literal, set, any) match ``c``?"""
    if op == sre.LITERAL:
        return ord(c) == av
    if op == sre.NOT_LITERAL:
        return ord(c) != av
    if op == sre.ANY:
        return c != "\n"
    if op == sre.CATEGORY:
        return _in([(op, av)], c)
    negate = bool(av) and av[0][0] == sre.NEGATE
    return _in(av[1:] if negate else av, c) != negate


def _in(items, c: str) -> bool:
    for op, av in items:
        if (op == sre.LITERAL and ord(c) == av) or (op == sre.RANGE and av[0] <= ord(c) <= av[1]):
            return True
        if op == sre.CATEGORY:
            name = str(av).replace("UNI_", "").replace("LOC_", "")
            negated = name.startswith("CATEGORY_NOT_")
            test = _CATEGORY_TESTS.get(name.replace("NOT_", ""), lambda ch: False)
            if test(c) != negated:
                return True
    return False
