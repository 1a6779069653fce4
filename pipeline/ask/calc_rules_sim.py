"""Calculation rules whose result a maintained simulation computes (pipeline/ask/simulations.py), and
the binary-tree counts of data structures. See pipeline/ask/calc_rules.py."""

from __future__ import annotations

import re
from typing import Optional

from pipeline.ask.calc_text import Program, Rule, unique

_SEQUENCE = re.compile(r"\d+(?:\s*[,，、]\s*\d+){4,}")  # a page reference string: 5 numbers or more
_WEIGHTS = re.compile(r"\d+(?:\.\d+)?(?:\s*[,，、]\s*\d+(?:\.\d+)?)+")
_FRAMES = re.compile(r"(\d+)\s*个?\s*(?:物理块|物理页框|页框|内存块|页帧|块)")
_REPLACEMENT = [("fifo_faults", re.compile(r"FIFO|先进先出", re.I)),
                ("lru_faults", re.compile(r"LRU|最近最久未使用|最近最少使用", re.I)),
                ("opt_faults", re.compile(r"OPT|最佳置换|最优置换", re.I))]
_DATA_BITS = re.compile(r"(\d+)\s*位(?:有效)?(?:的)?(?:数据|信息)")
_NODE = r"(?:结点|节点)"


class PageFaults(Rule):
    """缺页次数 of FIFO, LRU or OPT: one algorithm named, one reference string (5 numbers or more), one
    frame count (3个物理块). The frames start empty and the cold misses count (simulations.py)."""

    name = "page_faults"

    def match(self, q: str) -> Optional[str]:
        algos = [name for name, p in _REPLACEMENT if p.search(q)]
        refs, frames = _SEQUENCE.findall(q), _FRAMES.findall(q)
        if "缺页" not in q or len(algos) != 1 or len(refs) != 1 or len(set(frames)) != 1:
            return None
        pages = ", ".join(re.findall(r"\d+", refs[0]))
        return (f"pages = [{pages}]  # 页面访问串\nframes = {frames[0]}  # 物理块数\n"
                f"answer = {algos[0]}(pages, frames)  # 缺页次数")


class HuffmanWpl(Rule):
    """带权路径长度 (WPL) of a Huffman tree over one list of weights; every tie-break gives the same WPL."""

    name = "huffman_wpl"

    def match(self, q: str) -> Optional[str]:
        weights = _WEIGHTS.findall(q)
        if not (re.search(r"哈夫曼|赫夫曼|huffman", q, re.I) and re.search(r"WPL|带权路径长度", q, re.I)
                and len(weights) == 1):
            return None
        values = ", ".join(re.findall(r"\d+(?:\.\d+)?", weights[0]))
        return f"weights = [{values}]  # 权值\nanswer = huffman_wpl(weights)  # 带权路径长度"


class HammingBits(Rule):
    """校验位 of a Hamming code for n data bits (12位数据): single-error correction, the least r with
    2^r >= n + r + 1 (no SEC-DED extra parity bit)."""

    name = "hamming_bits"

    def match(self, q: str) -> Optional[str]:
        bits = _DATA_BITS.findall(q)
        if not (re.search(r"海明|汉明|hamming", q, re.I) and "校验位" in q and len(set(bits)) == 1):
            return None
        return f"data_bits = {bits[0]}  # 数据位数\nanswer = hamming_bits(data_bits)  # 校验位数（位）"


class BinarySearchAsl(Rule):
    """查找成功的平均查找长度 of 折半查找 over n sorted elements (10个元素的有序表, 表长为12), each equally
    likely: the decision tree with mid = (low + high) // 2 (simulations.binary_search_asl). A question
    that also asks the unsuccessful ASL gets no program: the books count its comparisons differently."""

    name = "binary_search_asl"
    _N = (r"(\d+)\s*个(?:元素|关键字|记录|数据|整数)|(?:表长|长度|元素个数)(?:为|是)?\s*(\d+)")

    def match(self, q: str) -> Optional[str]:
        if not (re.search(r"折半查找|二分查找|二分法查找", q) and re.search(r"平均查找长度|ASL", q)
                and "成功" in q) or re.search(r"不成功|失败", q):
            return None
        m = unique(self._N, q)
        if m is None:
            return None
        n = m.group(1) or m.group(2)
        return f"n = {int(n)}  # 元素个数\nanswer = binary_search_asl(n)  # 查找成功的平均查找长度"


class CrcRemainder(Rule):
    """CRC 校验码 (the remainder) of info bits (信息位101001) for a generator given as a polynomial
    (G(x)=x^3+x^2+1: evaluated at x = 2, its bit string) or as bits (生成多项式1101): mod-2 division of
    the info bits followed by degree zeros (simulations.crc_remainder). When the question asks what is
    sent (发送的比特串, 码字) that is the info bits followed by the remainder."""

    name = "crc_remainder"
    _INFO = r"(?:信息位|信息码|信息|数据位|数据|报文|帧)(?:比特串|位串|序列|串)?(?:为|是)?[:：]?\s*([01]{2,})(?![0-9])"
    _POLY = r"G\s*\(\s*x\s*\)\s*=\s*(x[x0-9^+\s]*)"
    _GEN_BITS = r"(?:生成多项式|生成码|除数)(?:对应的)?(?:比特串|位串|代码)?(?:为|是)?[:：]?\s*([01]{2,})(?![0-9])"
    # the sent bits asked (not 要发送的数据为…, which states the info bits)
    _SENT = (r"(?:(?:发送|发出|传输|传送)(?:出去)?的[^，。？]{0,6}(?:比特串|位串|码字|帧|序列)|码字|实际[^，。？]{0,10})"
             r"(?:是|为)?(?:什么|多少)")

    def match(self, q: str) -> Optional[str]:
        if not re.search(r"CRC|循环冗余", q, re.I) or not re.search(r"余数|校验码|校验位|冗余码|FCS", q):
            return None
        info, poly, bits = unique(self._INFO, q), unique(self._POLY, q), unique(self._GEN_BITS, q)
        if info is None or (poly is None) == (bits is None):
            return None
        if poly is not None:
            generator = self._polynomial(poly.group(1))
            if generator is None:
                return None
            generator = f"to_bits({generator})"
        else:
            if bits.group(1)[0] != "1":
                return None
            generator = f'"{bits.group(1)}"'
        p = Program()
        p.line("info", f'"{info.group(1)}"', "信息位")
        p.line("generator", generator, "生成多项式的比特串")
        if re.search(self._SENT, q):
            p.line("answer_check", "crc_remainder(info, generator)", "CRC校验码")
            p.line("answer", "info + answer_check", "发送的比特串")
        else:
            p.line("answer", "crc_remainder(info, generator)", "CRC校验码")
        return p.source()

    @staticmethod
    def _polynomial(text: str) -> Optional[str]:
        """x^3+x^2+1 → ``2 ** 3 + 2 ** 2 + 1``; None for anything else (a coefficient, a repeated power)."""
        terms, powers = [], set()
        for term in re.sub(r"\s", "", text).split("+"):
            m = re.fullmatch(r"x(?:\^(\d+))?|1", term)
            if m is None:
                return None
            power = 0 if term == "1" else int(m.group(1) or 1)
            if power in powers or power > 64:
                return None
            powers.add(power)
            terms.append("1" if term == "1" else "2" if m.group(1) is None else f"2 ** {int(m.group(1))}")
        return " + ".join(terms) if max(powers) >= 1 else None


class BinaryTreeCounts(Rule):
    """结点总数 (or 叶子结点数) of a binary tree from the counts by degree: n0 = n2 + 1 (a binary tree
    with n nodes has n - 1 branches, n1 + 2·n2 of them). Leaves and degree-1 nodes given (20个叶子结点、
    10个度为1的结点): n2 = n0 - 1, n = n0 + n1 + n2. Degree-2 and degree-1 nodes given: branches
    n1 + 2·n2, n = branches + 1, n0 = n - n1 - n2. Anything else (only the leaves, all three) no program."""

    name = "binary_tree_counts"
    _LEAVES = rf"(\d+)\s*个\s*(?:叶子?|终端){_NODE}|(?:叶子?|终端){_NODE}(?:数|个数)?(?:有|为|是|共)?\s*(\d+)\s*个?"
    _DEGREE = rf"(\d+)\s*个\s*度为\s*([12])\s*的{_NODE}|度为\s*([12])\s*的{_NODE}(?:数|个数)?(?:有|为|是|共)?\s*(\d+)"
    # what is asked: the quantity right before (or after) 多少/几
    _ASK_TOTAL = (rf"(?:多少|几)个{_NODE}|{_NODE}(?:总数|总个数)|总{_NODE}数"
                  rf"|{_NODE}(?:数|个数)?(?:一共|总共|共)(?:有|是)?(?:多少|几)")
    _ASK_LEAVES = (rf"(?:叶子?|终端){_NODE}(?:数|个数|的个数)?(?:一共|共)?(?:有|是|为)?(?:多少|几)"
                   rf"|(?:多少|几)个(?:叶子?|终端){_NODE}")

    def match(self, q: str) -> Optional[str]:
        if "二叉树" not in q or re.search(r"度为\s*[03-9]|叉树", q.replace("二叉树", "")):
            return None
        leaves, counts = unique(self._LEAVES, q), {}
        for m in re.finditer(self._DEGREE, q):
            degree, count = (m.group(2), m.group(1)) if m.group(1) else (m.group(3), m.group(4))
            if counts.setdefault(degree, count) != count:
                return None
        if leaves is None and re.search(self._LEAVES, q):
            return None  # two different leaf counts
        ask_total, ask_leaves = bool(re.search(self._ASK_TOTAL, q)), bool(re.search(self._ASK_LEAVES, q))
        p = Program()
        if leaves is not None and set(counts) == {"1"} and ask_total and not ask_leaves:
            p.given("n0", leaves.group(1) or leaves.group(2), "叶子结点数")
            p.given("n1", counts["1"], "度为一的结点数")
            p.line("n2", "n0 - 1", "度为二的结点数")
            p.line("answer", "n0 + n1 + n2", "结点总数")
            return p.source()
        if leaves is None and set(counts) == {"1", "2"} and (ask_total or ask_leaves):
            p.given("n2", counts["2"], "度为二的结点数")
            p.given("n1", counts["1"], "度为一的结点数")
            p.line("branches", "n1 + 2 * n2", "分支数")
            if ask_leaves:
                p.line("answer_total" if ask_total else "total", "branches + 1", "结点总数")
                p.line("answer", ("answer_total" if ask_total else "total") + " - n1 - n2", "叶子结点数")
            else:
                p.line("answer", "branches + 1", "结点总数")
            return p.source()
        return None


class CompleteBinaryTree(Rule):
    """高度 and/or 叶子结点数 of a complete binary tree of n nodes (1000个结点的完全二叉树): height
    floor(log2 n) + 1, leaves n - n // 2 (the nodes numbered after the last parent, n // 2).
    Each asked quantity is a conclusion, in the order asked; nothing else asked may be (度为…, 非叶…)."""

    name = "complete_binary_tree"
    _N = (rf"(\d+)\s*个{_NODE}的完全二叉树|完全二叉树(?:共|总共|一共)?(?:有|含|包含|含有)\s*(\d+)\s*个{_NODE}"
          rf"|完全二叉树的?{_NODE}(?:总)?数(?:为|是)\s*(\d+)")
    _HEIGHT = r"(?:高度|深度|层数|树高)(?:是|为|有)?(?:多少|几)|(?:几|多少)层"
    _LEAVES = rf"叶子?{_NODE}(?:数|个数|的个数)?(?:有|是|为)?(?:多少|几)|(?:多少|几)个叶子?{_NODE}"

    def match(self, q: str) -> Optional[str]:
        m = unique(self._N, q)
        if m is None or re.search(r"(?<!深)度为|非叶|分支结点|分支节点|满二叉树|第\s*\d+\s*层", q):
            return None
        asked = sorted((found.start(), name) for name, pattern in (("height", self._HEIGHT), ("leaves", self._LEAVES))
                       if (found := re.search(pattern, q)))
        if not asked:
            return None
        n = m.group(1) or m.group(2) or m.group(3)
        p = Program()
        p.given("n", n, "结点数")
        steps = {"height": ("floor(log2(n)) + 1", "高度"), "leaves": ("n - n // 2", "叶子结点数")}
        for i, (_, name) in enumerate(asked):
            expression, label = steps[name]
            p.line("answer" if i == len(asked) - 1 else f"answer_{name}", expression, label)
        return p.source()
