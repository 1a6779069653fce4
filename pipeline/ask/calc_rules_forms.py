"""Calculation rules that are one closed form over one or two numbers: the range of an n-bit integer
code, and the edges of a complete graph. See pipeline/ask/calc_rules.py."""

from __future__ import annotations

import re
from typing import Optional

from pipeline.ask.calc_text import Program, Rule, unique


class IntegerRange(Rule):
    """The smallest and largest integer an n-bit code writes (n counts the sign bit): 补码 and 移码
    -2^(n-1) … 2^(n-1) - 1 (one zero, so one more negative number); 原码 and 反码 -(2^(n-1) - 1) …
    2^(n-1) - 1 (two zeros); 无符号 0 … 2^n - 1. Asked as 最小值/最大值 (both, or one) or 范围. Fractions
    (定点小数), floating point, two codes named, or a width stated twice: no program."""

    name = "integer_range"
    _WIDTH = r"(\d+)\s*位(?:的)?(?:二进制)?(?:有符号|带符号)?(?:数)?(?:补码|原码|反码|移码|无符号)?"
    _CODES = {"补码": "two", "移码": "two", "原码": "sign", "反码": "sign", "无符号": "unsigned"}
    _MIN = r"最小(?:值|的数|的整数)?|最小负数|最负"
    _MAX = r"最大(?:值|的数|的整数)?|最大正数"
    _RANGE = r"(?:表示|数值|取值)?范围"

    def match(self, q: str) -> Optional[str]:
        if "整数" not in q or re.search(r"小数|浮点|阶码|尾数|规格化|溢出|加法|减法|运算|真值|为什么|为何|原因", q):
            return None
        codes = {self._CODES[c] for c in self._CODES if c in q}
        width = unique(self._WIDTH, q)
        if len(codes) != 1 or width is None:
            return None
        low, high = re.search(self._MIN, q), re.search(self._MAX, q)
        if not (low or high or re.search(self._RANGE, q)):
            return None
        code, = codes
        p = Program()
        p.given("n", width.group(1), "位数")  # the sign bit counted, as the exam writes 8位补码
        if not 2 <= int(width.group(1)) <= 64:
            return None
        smallest = {"two": "-2 ** (n - 1)", "sign": "-(2 ** (n - 1) - 1)", "unsigned": "0"}[code]
        largest = "2 ** n - 1" if code == "unsigned" else "2 ** (n - 1) - 1"
        if low and high and high.start() < low.start():
            p.line("answer_max", largest, "最大值")
            p.line("answer", smallest, "最小值")
        elif low and not high:
            p.line("answer", smallest, "最小值")
        elif high and not low:
            p.line("answer", largest, "最大值")
        else:  # both, or the range: smallest first
            p.line("answer_min", smallest, "最小值")
            p.line("answer", largest, "最大值")
        return p.source()


class CompleteGraphEdges(Rule):
    """The edges of a complete graph of n vertices: undirected n(n-1)/2, directed n(n-1) (arcs). Both
    kinds asked: both, in the order asked. A graph not said to be complete: no program."""

    name = "complete_graph_edges"
    _N = r"(\d+)\s*个顶点(?:的)?"
    _UNDIRECTED = r"无向完全图"
    _DIRECTED = r"有向完全图"
    _ASK = r"(?:多少|几)\s*条\s*(?:边|弧)|边数|弧数|边的数目|弧的数目|(?:有|是)(?:多少|几)"

    def match(self, q: str) -> Optional[str]:
        n = unique(self._N, q)
        kinds = sorted((m.start(), name) for name, pattern in (("undirected", self._UNDIRECTED),
                                                               ("directed", self._DIRECTED))
                       if (m := re.search(pattern, q)))
        if n is None or not kinds or not re.search(self._ASK, q) or re.search(r"连通|生成树|度|路径|权", q):
            return None
        p = Program()
        p.given("n", n.group(1), "顶点数")
        formulas = {"undirected": ("n * (n - 1) // 2", "无向完全图的边数"), "directed": ("n * (n - 1)", "有向完全图的弧数")}
        for i, (_, kind) in enumerate(kinds):
            expression, label = formulas[kind]
            p.line("answer" if i == len(kinds) - 1 else f"answer_{kind}", expression, label)
        return p.source()
