"""The arithmetic of the number rule (pipeline/ask/arithmetic.py): the same pairs and values the old
pattern + ``ast`` found (compared on random short strings, where the old pattern is still fast), in
linear time on the strings that made it run away (issue 20)."""

from __future__ import annotations

import ast
import operator
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipeline.ask.arithmetic import computations, evaluate

ROOT = Path(__file__).resolve().parents[2]
# the pattern claims.yaml shipped until issue 20: exponential on a digit run no "=" follows
OLD_EXPRESSION = r"((?:\d+(?:\.\d+)?|[()（）+\-*/×÷^\s])+?)\s*[=≈约]+\s*(\d+(?:\.\d+)?)"
_OPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
        ast.Pow: operator.pow, ast.USub: operator.neg}


def old_evaluate(expr: str):
    """numbers.evaluate as it was: ast.parse and a walk over the tree."""
    expr = expr.replace("×", "*").replace("÷", "/").replace("^", "**").replace("（", "(").replace("）", ")")
    try:
        node = ast.parse(expr.strip(), mode="eval").body
    except SyntaxError:
        return None

    def ev(n):
        if isinstance(n, ast.Constant) and isinstance(n.value, (int, float)):
            return float(n.value)
        if isinstance(n, ast.BinOp) and type(n.op) in _OPS:
            left, right = ev(n.left), ev(n.right)
            if isinstance(n.op, ast.Pow) and abs(right) > 64:
                raise ValueError
            return _OPS[type(n.op)](left, right)
        if isinstance(n, ast.UnaryOp) and type(n.op) in _OPS:
            return _OPS[type(n.op)](ev(n.operand))
        raise ValueError

    try:
        return ev(node)
    except (ValueError, ZeroDivisionError, OverflowError):
        return None


def old_computations(text: str):
    return [(m.group(1), m.group(2)) for m in re.finditer(OLD_EXPRESSION, text)]


def same(a, b) -> bool:
    return a == b or (a is not None and b is not None and a != a and b != b)  # nan == nan


# short strings, so the old pattern's worst case stays small (2^11 splits)
_ALPHABET = "0123456789" * 3 + ".+-*/×÷^()（） =≈约x中\t"
_PIECES = ["1", "23", "0.4", "05", ".", "=", "≈", " ", "×", "+", "-", "^", "/", "(", "）", "x", "中"]
short_texts = st.one_of(st.text(alphabet=_ALPHABET, max_size=14),
                        st.lists(st.sampled_from(_PIECES), max_size=8).map("".join))
_EXPR_ALPHABET = "0123456789" * 2 + ".+-*/×÷^()（）  \t\n"


@settings(max_examples=1000, deadline=None, database=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(short_texts)
def test_computations_find_what_the_old_pattern_found(text):
    assert list(computations(text)) == old_computations(text)


@settings(max_examples=1000, deadline=None, database=None, derandomize=True)
@given(st.text(alphabet=_EXPR_ALPHABET, max_size=16))
def test_evaluate_gives_what_ast_gave(expr):
    assert same(evaluate(expr), old_evaluate(expr)), (evaluate(expr), old_evaluate(expr))


@pytest.mark.parametrize("text,pairs", [
    ("最大数据率为2×3×4=24kbps。", [("2×3×4", "24")]),
    ("平均CPI=0.4×1+0.4×3+0.2×4=2.4", [("0.4×1+0.4×3+0.2×4", "2.4")]),
    ("1.2.3=6", [("2.3", "6")]),  # a dot joins two digit runs once per number
    ("1.23.4=6", [("1.23.4", "6")]),
    ("x = 5，(1 + 2) × 3 ≈ 9", [(" ", "5"), ("(1 + 2) × 3", "9")]),
    ("1+1=2=2", [("1+1", "2")]),
    ("CPI=0.4", []),
    ("2×3=x", []),
])
def test_computations_examples(text, pairs):
    assert list(computations(text)) == pairs


@pytest.mark.parametrize("expr,value", [
    ("2×3×4", 24.0), ("(1+2+3+4+5+6)/6", 3.5), ("2^10", 1024.0), ("-2^2", -4.0), ("2^-1", 0.5),
    ("（1+2）×3", 9.0), ("007", None), ("2 3", None), ("+3", None), ("2^65", None), ("1/0", None),
    ("1.23.4", None), ("8//2", None), ("", None),
])
def test_evaluate_examples(expr, value):
    assert evaluate(expr) == value


def test_long_flat_expressions_are_values_not_recursion_errors():
    assert evaluate("+".join(["1"] * 3000)) == 3000.0
    assert evaluate("-" * 3001 + "1") == -1.0
    assert evaluate("(" * 200 + "1" + ")" * 200) == 1.0
    assert evaluate("(" * 201 + "1" + ")" * 201) is None  # as deep as Python's parser goes


_RUNAWAY = textwrap.dedent("""
    import time
    from pipeline.ask.numbers import check_numbers
    from pipeline.ask.claims import load_rules
    rules = load_rules().numbers
    hay = "平均CPI=0.4×1+0.4×3+0.2×4=2.4，主频为1GHz，" + "1" * 8
    worst = 0.0
    for text in ("平均CPI=0.4×1+0.4×3+0.2×4 " + "1" * 24 + "条",
                 "平均CPI=0.4×1+0.4×3+0.2×4 " + "1" * 2000 + "条",
                 ("0.4×1+0.4×3+0.2×4 " * 120)[:2000],
                 ("1" * 31 + "+") * 62):
        t = time.perf_counter()
        check_numbers(text, hay, "", rules, hay)
        worst = max(worst, time.perf_counter() - t)
    print(worst)
""")


def test_a_long_digit_run_after_a_formula_is_checked_at_once():
    """71 s (and doubling with every digit) with the old pattern: in a subprocess with a hard time
    limit, so the old code fails this test instead of hanging the suite."""
    try:
        out = subprocess.run([sys.executable, "-c", _RUNAWAY], cwd=ROOT, capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        pytest.fail("the number check ran away (over 60 s)")
    assert out.returncode == 0, out.stderr[-2000:]
    assert float(out.stdout.strip().splitlines()[-1]) < 1.0  # the target (< 50 ms) is in bench/BENCHMARKS.md
