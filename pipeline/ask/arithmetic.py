"""Arithmetic in an answer sentence, found and evaluated in linear time: ``2×3×4=24``, ``(1+2+3)/3 ≈ 2``.

The number rule of the claim check accepts a result computed in the sentence from numbers the
material gives. It used to find ``expression = result`` with one regular expression,
``((?:\\d+(?:\\.\\d+)?|[ops\\s])+?)\\s*[=≈约]+\\s*(\\d+(?:\\.\\d+)?)``, whose nested quantifiers
backtrack exponentially on a long digit run that no ``=`` follows: 24 digits after a formula took
71 s, holding the GIL (issue 20). :func:`computations` finds exactly the pairs that pattern found
(tests/ask/test_arithmetic.py compares them on random strings) by scanning left from each ``=``
instead of trying every split of every digit run, and :func:`evaluate` gives the value Python's
``ast`` gave for the same text, without ``ast`` (so a 1,000-term sum or 3,000 minus signs are not a
``RecursionError``).

What an expression may hold: numbers (``\\d+`` with one optional ``.\\d+``), ``( ) （ ） + - * / × ÷ ^``
and whitespace. A dot joins two digit runs once per number, so in ``1.2.3=x`` the expression starts at
``2.3`` (as the pattern's matches did).
"""

from __future__ import annotations

import operator
import re
import sys
from typing import Iterator, Optional

OPERATORS = "()（）+-*/×÷^"
EQUALS = "=≈约"  # between an expression and its result: the shipped ``numbers.equals``
MAX_DEPTH = 200  # parentheses nested deeper are not an expression (Python's parser says the same)
MAX_EXPONENT = 64  # 2^64 is the largest power an answer computes; 9^999 is not arithmetic


def _digit(c: str) -> bool:
    return c.isdecimal()  # what ``\d`` matches in a str pattern (Unicode category Nd)


def _token_char(c: str) -> bool:
    return c.isdecimal() or c in OPERATORS or c.isspace()


def _leftmost_start(text: str, lo: int, end: int) -> int:
    """The smallest ``s`` in ``[lo, end]`` from which ``text[s:end]`` is a run of expression tokens.
    Every char must be a digit, an operator or whitespace, except a dot between two digits; a dot
    can be crossed once per number, so ``.X.`` with a single digit X stops the run at the dot."""
    j = end - 1
    while j >= lo:
        c = text[j]
        if _token_char(c):
            j -= 1
            continue
        if c != "." or j - 1 < lo or not _digit(text[j - 1]) or j + 1 >= end or not _digit(text[j + 1]):
            break
        b = j + 1
        while b < end and _digit(text[b]):
            b += 1
        if b < end and text[b] == "." and b - (j + 1) < 2:
            break  # 1.2.3: "1.2" took the 2, ".3" has nothing left to start a number
        j -= 1
    return j + 1


def computations(text: str, equals: str = EQUALS) -> Iterator[tuple[str, str]]:
    """``(expression, result)`` for each ``expression = result`` in ``text``, left to right and not
    overlapping. ``result`` is the number right after the ``=`` run (``\\d+(\\.\\d+)?``);
    ``expression`` is the longest run of expression tokens ending before it (its trailing spaces
    excluded), from the end of the previous match on. Linear in ``len(text)``: each char is looked
    at a bounded number of times."""
    n, pos = len(text), 0
    while pos < n:
        q = next((i for i in range(pos, n) if text[i] in equals), -1)
        if q < 0:
            return
        r = q
        while r < n and text[r] in equals:
            r += 1
        k = r
        while k < n and text[k].isspace():
            k += 1
        if k >= n or not _digit(text[k]):
            pos = r  # nothing before this "=" can reach past it
            continue
        e = k
        while e < n and _digit(text[e]):
            e += 1
        if e + 1 < n and text[e] == "." and _digit(text[e + 1]):
            e += 1
            while e < n and _digit(text[e]):
                e += 1
        w = q
        while w > pos and text[w - 1].isspace():
            w -= 1
        s = _leftmost_start(text, pos, w)
        if s >= q:
            pos = r
            continue
        yield text[s:max(w, s + 1)], text[k:e]
        pos = e


# ---------------------------------------------------------------- evaluation

_BINARY = {"+": (1, operator.add), "-": (1, operator.sub), "*": (2, operator.mul), "/": (2, operator.truediv),
           "**": (4, operator.pow)}
_UNARY_PRECEDENCE = 3  # -2**2 is -(2**2); -3*2 is (-3)*2: between * and **, as in Python
_SPACE = " \t\f"
_NEWLINE = "\n\r"  # inside parentheses only, as in Python


def _tokens(expr: str) -> Optional[list[str]]:
    """Numbers, operators (``**`` for ``^``) and parentheses; None for anything Python would not
    read as an arithmetic expression (``007``, ``2 3``, ``//``, a non-ASCII digit)."""
    expr = expr.replace("×", "*").replace("÷", "/").replace("^", "**").replace("（", "(").replace("）", ")")
    out: list[str] = []
    i, n, depth = 0, len(expr), 0
    while i < n:
        c = expr[i]
        if c in _SPACE or (c in _NEWLINE and depth > 0):
            i += 1
        elif c.isascii() and (c.isdigit() or (c == "." and i + 1 < n and expr[i + 1].isdigit())):
            j = i
            while j < n and expr[j].isascii() and expr[j].isdigit():
                j += 1
            if j < n and expr[j] == ".":
                j += 1
                while j < n and expr[j].isascii() and expr[j].isdigit():
                    j += 1
            num = expr[i:j]
            if "." not in num and (len(num) > 1 and num[0] == "0" and num.strip("0")
                                   or len(num) > (sys.get_int_max_str_digits() or len(num))):
                return None  # 007 is no Python number; nor is an int of more than 4300 digits
            out.append(num)
            i = j
        elif expr.startswith("**", i):
            out.append("**")
            i += 2
        elif expr.startswith("//", i):
            return None
        elif c in "+-*/()":
            depth += {"(": 1, ")": -1}.get(c, 0)
            if depth > MAX_DEPTH:
                return None
            out.append(c)
            i += 1
        else:
            return None
    return out


def _rpn(tokens: list[str]) -> Optional[list[tuple[str, str]]]:
    """Shunting-yard to reverse Polish notation: ("num", "2"), ("bin", "+"), ("neg", "-"), ("pos", "+");
    None when the tokens are not one well-formed expression."""
    out: list[tuple[str, str]] = []
    stack: list[tuple[str, str]] = []  # ("bin", op) | ("neg"/"pos", op) | ("(", "(")
    want_operand = True
    for t in tokens:
        if want_operand:
            if t in "+-" and len(t) == 1:
                stack.append(("neg" if t == "-" else "pos", t))
            elif t == "(":
                stack.append(("(", t))
            elif t[0].isdigit() or t[0] == ".":
                out.append(("num", t))
                want_operand = False
            else:
                return None
            continue
        if t == ")":
            while stack and stack[-1][0] != "(":
                out.append(stack.pop())
            if not stack:
                return None
            stack.pop()
        elif t in _BINARY:
            prec = _BINARY[t][0]
            while stack and stack[-1][0] != "(":
                top = stack[-1]
                top_prec = _UNARY_PRECEDENCE if top[0] in ("neg", "pos") else _BINARY[top[1]][0]
                if top_prec > prec or (top_prec == prec and t != "**"):
                    out.append(stack.pop())
                else:
                    break
            stack.append(("bin", t))
            want_operand = True
        else:
            return None  # "2(3)", "2 3": no operator between
    if want_operand:
        return None
    while stack:
        if stack[-1][0] == "(":
            return None
        out.append(stack.pop())
    return out


def evaluate(expr: str) -> Optional[float]:
    """Value of a small arithmetic expression (+ − × ÷ ^ and parentheses), None if not one: the value
    ``ast`` gave the same text with ``×÷^（）`` read as ``*/**()`` (a unary + is not arithmetic; a
    power above ``MAX_EXPONENT``, a division by zero or an overflow is None)."""
    tokens = _tokens(expr.strip())
    rpn = _rpn(tokens) if tokens else None
    if not rpn:
        return None
    values: list = []
    try:
        for kind, t in rpn:
            if kind == "num":
                values.append(float(t))
            elif kind == "neg":
                values.append(-values.pop())
            elif kind == "pos":
                return None
            else:
                right, left = values.pop(), values.pop()
                if t == "**" and abs(right) > MAX_EXPONENT:
                    return None
                values.append(_BINARY[t][1](left, right))
    except (ZeroDivisionError, OverflowError):
        return None
    return values[0] if len(values) == 1 else None


_NUMBER_OPERAND = re.compile(r"\d+(?:\.\d+)?")
_CHAIN = re.compile(r"\s*[-+*/×÷^]")


def chained_computations(text: str, equals: str = EQUALS) -> Iterator[tuple[str, str]]:
    """:func:`computations`, where a chain (`RTT=2×150=300`, `= 2 ÷ 128 = 0.0156`) goes on from the last
    result: the expression after it starts with an operator and gets that result in front."""
    previous = ""
    for expr, result in computations(text, equals):
        yield (previous + expr if _CHAIN.match(expr) else expr), result
        previous = result


def worked_computation(text: str, equals: str = EQUALS) -> Optional[tuple[str, str]]:
    """The first ``expression = result`` over two or more concrete numbers that evaluates (`8-5=3`,
    `2^3=8`): a worked example's arithmetic. A conversion (`1KB=1024B`) or a formula over letters
    (`ASL=(n+1)/2`) is none. None when there is none."""
    for expr, result in chained_computations(text, equals):
        if len(_NUMBER_OPERAND.findall(expr)) >= 2 and evaluate(expr) is not None:
            return expr.strip(), result
    return None
