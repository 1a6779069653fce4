"""Calculation rules that are one closed form over one or two numbers: the range of an n-bit integer
code, the edges of a complete graph, and the array positions of a node's relatives in a complete
binary tree or heap. See pipeline/ask/calc_rules.py."""

from __future__ import annotations

import re
from typing import Optional

from pipeline.ask.calc_text import CHINESE_COUNT, Program, Rule, chinese_number, unique


class IntegerRange(Rule):
    """The smallest and largest integer an n-bit code writes (n counts the sign bit): 补码 and 移码
    -2^(n-1) … 2^(n-1) - 1 (one zero, so one more negative number); 原码 and 反码 -(2^(n-1) - 1) …
    2^(n-1) - 1 (two zeros); 无符号 0 … 2^n - 1. Asked as 最小值/最大值 (both, or one) or 范围, and how
    many integers it writes when asked (原码 and 反码 2^n - 1: ±0 is one). Fractions
    (定点小数), floating point, two codes named, or a width stated twice: no program."""

    name = "integer_range"
    _WIDTH = rf"(\d+|{CHINESE_COUNT})\s*位(?:的)?(?:二进制)?(?:有符号|带符号)?(?:数)?(?:补码|原码|反码|移码|无符号)?"
    _SIGN_BIT = r"[（(]?\s*(?:含|包括|其中)\s*(?:1|一)\s*位符号位\s*[)）]?"  # the sign bit counted in n: no width of its own
    _COUNT = r"(?:一共|共|总共)?能表示(?:多少|几)个(?:不同的)?(?:整数|数)"
    _CODES = {"补码": "two", "移码": "two", "原码": "sign", "反码": "sign", "无符号": "unsigned"}
    _MIN = r"最小(?:值|的数|的整数)?|最小负数|最负"
    _MAX = r"最大(?:值|的数|的整数)?|最大正数"
    _RANGE = r"(?:表示|数值|取值)?范围"

    def match(self, q: str) -> Optional[str]:
        if "整数" not in q or re.search(r"小数|浮点|阶码|尾数|规格化|溢出|加法|减法|运算|真值|为什么|为何|原因", q):
            return None
        codes = {self._CODES[c] for c in self._CODES if c in q}
        width = unique(self._WIDTH, re.sub(self._SIGN_BIT, "", q))
        if len(codes) != 1 or width is None:
            return None
        low, high, count = re.search(self._MIN, q), re.search(self._MAX, q), re.search(self._COUNT, q)
        if not (low or high or count or re.search(self._RANGE, q)):
            return None
        code, = codes
        bits = chinese_number(width.group(1))
        if bits is None or not 2 <= int(bits) <= 64:
            return None
        p = Program()
        p.given("n", bits, "位数")  # the sign bit counted, as the exam writes 8位补码
        smallest = {"two": "-2 ** (n - 1)", "sign": "-(2 ** (n - 1) - 1)", "unsigned": "0"}[code]
        largest = "2 ** n - 1" if code == "unsigned" else "2 ** (n - 1) - 1"
        steps = []
        if low and high and high.start() < low.start():
            steps = [("max", largest, "最大值"), ("min", smallest, "最小值")]
        elif low or high:
            steps = [("min", smallest, "最小值")] * bool(low) + [("max", largest, "最大值")] * bool(high)
        elif not count:  # the range: smallest first
            steps = [("min", smallest, "最小值"), ("max", largest, "最大值")]
        if count:  # how many integers: sign-magnitude writes 0 twice
            steps.append(("count", "2 ** n - 1" if code == "sign" else "2 ** n", "能表示的整数个数"))
        for i, (name, expression, label) in enumerate(steps):
            p.line("answer" if i == len(steps) - 1 else f"answer_{name}", expression, label)
        return p.source()


class CompleteGraphEdges(Rule):
    """The edges of a complete graph of n vertices: undirected n(n-1)/2, directed n(n-1) (arcs). Both
    kinds asked: both, in the order asked. A graph not said to be complete: no program."""

    name = "complete_graph_edges"
    _N = rf"(\d+|{CHINESE_COUNT})\s*个顶点(?:的)?"
    _UNDIRECTED = r"无向完全图"
    _DIRECTED = r"有向完全图"
    _ASK = r"(?:多少|几)\s*条\s*(?:边|弧)|边数|弧数|边\s*[（(]弧[)）]\s*数|边的数目|弧的数目|(?:有|是)(?:多少|几)"

    def match(self, q: str) -> Optional[str]:
        n = unique(self._N, q)
        kinds = sorted((m.start(), name) for name, pattern in (("undirected", self._UNDIRECTED),
                                                               ("directed", self._DIRECTED))
                       if (m := re.search(pattern, q)))
        if n is None or not kinds or not re.search(self._ASK, q) or re.search(r"连通|生成树|度|路径|权", q):
            return None
        if chinese_number(n.group(1)) is None:
            return None
        p = Program()
        p.given("n", chinese_number(n.group(1)), "顶点数")
        formulas = {"undirected": ("n * (n - 1) // 2", "无向完全图的边数"), "directed": ("n * (n - 1)", "有向完全图的弧数")}
        for i, (_, kind) in enumerate(kinds):
            expression, label = formulas[kind]
            p.line("answer" if i == len(kinds) - 1 else f"answer_{kind}", expression, label)
        return p.source()


class TreeIndex(Rule):
    """Where a node's relatives sit when a complete binary tree (or a heap) is stored in an array in
    level order: numbered from 1 (从1开始), node i's parent is i // 2, its children 2i and 2i + 1, the
    last non-leaf of n nodes n // 2; from 0 (下标从0开始), (i - 1) // 2, 2i + 1, 2i + 2 and n // 2 - 1
    (one formula over the start, ``base``).
    The start must be stated; each relative asked is given in the order asked. A child past n (when n
    is stated) or the root's parent: no program."""

    name = "tree_index"
    _START = r"(?:下标|编号|序号|索引)(?:从|由)\s*([01])\s*开始|从\s*(?:下标|编号|序号)?\s*([01])\s*(?:号)?开始"
    _NODE_AT = r"(?:下标|编号|序号)(?:为|是)?\s*(\d+)\s*的(?:结点|节点|元素)"
    _N = r"(?:共有?|一共有?|总共有?|有|含有?|包含)\s*(\d+)\s*个(?:元素|结点|节点|关键字)"
    _ASKS = (("parent", r"双亲|父结点|父节点|父亲"), ("left", r"左孩子|左子结点|左子节点"),
             ("right", r"右孩子|右子结点|右子节点"), ("last", r"最后一个非叶|最后一个分支|最后一个非终端"))
    _CHILDREN = r"(?<![左右])孩子|左\s*[、和及与]?\s*右孩子"

    def match(self, q: str) -> Optional[str]:
        if not re.search(r"堆|完全二叉树|顺序存储", q) or not re.search(r"数组|顺序存储|下标", q):
            return None
        start, at, n = unique(self._START, q), unique(self._NODE_AT, q), unique(self._N, q)
        if start is None:
            return None
        found = {name: m.start() for name, pattern in self._ASKS if (m := re.search(pattern, q))}
        both = re.search(self._CHILDREN, q)
        if both and (both.group(0).startswith("左") or not ({"left", "right"} & set(found))):
            found["left"] = found["right"] = both.start()  # 孩子, 左右孩子, 左、右孩子: both children
        if not found or (set(found) - {"last"} and at is None) or ("last" in found and n is None):
            return None
        base = int(start.group(1) or start.group(2))
        i = int(at.group(1)) if at else None
        size = int(n.group(1)) if n else None
        # one formula for either start: numbered from 1 they are i // 2, 2i, 2i + 1, n // 2
        formulas = {"parent": ("(i - base - 1) // 2 + base", "双亲的下标"), "left": ("2 * (i - base) + 1 + base", "左孩子的下标"),
                    "right": ("2 * (i - base) + 2 + base", "右孩子的下标"), "last": ("n // 2 - 1 + base", "最后一个非叶结点的下标")}
        if i is not None and (i < base or (size is not None and i > size - 1 + base)):
            return None
        if "parent" in found and i == base:
            return None  # the root has none
        for child, offset in (("left", 0), ("right", 1)):
            if child in found and size is not None and 2 * i + base + offset > size - 1 + base:
                return None  # no such child among the n nodes
        p = Program()
        p.given("base", str(base), "起始下标")
        if i is not None:
            p.given("i", str(i), "结点的下标")
        if size is not None:
            p.given("n", str(size), "结点个数")
        asked = sorted(found, key=lambda name: (found[name], ["parent", "left", "right", "last"].index(name)))
        for k, name in enumerate(asked):
            expression, label = formulas[name]
            p.line("answer" if k == len(asked) - 1 else f"answer_{name}", expression, label)
        return p.source()
