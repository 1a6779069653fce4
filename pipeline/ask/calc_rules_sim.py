"""Calculation rules whose result a maintained simulation computes (pipeline/ask/simulations.py), and
the binary-tree counts of data structures. See pipeline/ask/calc_rules.py."""

from __future__ import annotations

import re
from typing import Optional

from pipeline.ask.calc_text import Program, Rule, alternative, chinese_number, literal, unique

# a page reference string: 5 numbers or more, with commas or only spaces between them (3 1 4 2 5)
_SEQUENCE = re.compile(r"\d+(?:\s*[,，、]\s*\d+){4,}|(?<![\d.])\d+(?:[ ]+\d+){4,}(?![\d.])")
_WEIGHTS = re.compile(r"\d+(?:\.\d+)?(?:\s*[,，、]\s*\d+(?:\.\d+)?)+")
_FRAMES = re.compile(r"(\d+|[一二两三四五六七八九十])\s*个?\s*(?:物理块|物理页框|页框|内存块|页帧|块)"
                     r"|(?:物理块|物理页框|页框|内存块|页帧)(?:数|个数|数量)(?:为|是)?\s*(\d+|[一二两三四五六七八九十])")
_REPLACEMENT = [("fifo_faults", re.compile(r"FIFO|先进先出", re.I)),
                ("lru_faults", re.compile(r"LRU|最近最久未使用|最近最少使用", re.I)),
                ("opt_faults", re.compile(r"OPT|最佳置换|最优置换", re.I))]
_DATA_BITS = re.compile(r"(\d+)\s*位(?:有效)?(?:的)?(?:数据|信息)")
_NODE = r"(?:结点|节点)"


class PageFaults(Rule):
    """缺页次数 of FIFO, LRU or OPT: one algorithm named, one reference string (5 numbers or more), one
    frame count (3个物理块). The frames start empty and the cold misses count (simulations.py). When
    the question also asks the fault rate (缺页率), it is the faults over the references, as a fraction
    (9/10) and a percentage rounded to 2 decimals."""

    name = "page_faults"
    _RATE = r"缺页率|缺页中断率"

    def match(self, q: str) -> Optional[str]:
        algos = [name for name, p in _REPLACEMENT if p.search(q)]
        refs, frames = _SEQUENCE.findall(q), [a or b for a, b in _FRAMES.findall(q)]
        if "缺页" not in q or len(algos) != 1 or len(refs) != 1 or len(set(frames)) != 1:
            return None
        pages = ", ".join(re.findall(r"\d+", refs[0]))
        p = Program()
        p.line("pages", f"[{pages}]", "页面访问串")
        p.given("frames", chinese_number(frames[0]), "物理块数")
        if not re.search(self._RATE, q):
            p.line("answer", f"{algos[0]}(pages, frames)", "缺页次数")
            return p.source()
        p.line("answer_faults", f"{algos[0]}(pages, frames)", "缺页次数")
        p.line("refs", "len(pages)", "页面访问次数")
        p.line("answer_rate", "fraction_text(answer_faults, refs)", "缺页率")
        p.line("answer", "round(answer_faults / refs * 100, 2)", "缺页率", "%")
        return p.source()


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
    likely: the decision tree with mid = (low + high) // 2 (simulations.binary_search_comparisons), shown
    as a fraction and rounded to 2 decimals, as the hash rule shows its ASL. A question
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
        p = Program()
        p.given("n", str(int(n)), "元素个数")
        p.line("found", "binary_search_comparisons(n)", "成功查找的比较次数之和")
        p.line("answer_fraction", "fraction_text(found, n)", "查找成功的平均查找长度")
        p.line("answer", "round(found / n, 2)", "查找成功的平均查找长度")
        return p.source()


class LinearProbingHash(Rule):
    """A hash table with open addressing by linear probing (线性探测): H(key) = key % p (H(key)=key mod
    11, or 除留余数法 with 除数 p), table length m (表长13, or the addresses 0~12), one list of keys
    inserted in the order given. Shown: the table after the inserts, each key's comparisons, the
    successful ASL (their sum over the keys, as a fraction and rounded to 2 decimals), and when asked
    (不成功, 失败) the unsuccessful ASL in the 408 convention named on its label: from each of the p
    addresses the hash can give, comparisons up to the first empty slot, the one with the empty slot
    counted, summed over p (simulations.linear_probe_misses; the label says 计空位比较, the program
    divides by p). Another probing (二次探测, 链地址…), a load factor, a deletion, a hash of another form
    (3·key % 7), p > m, or a full table with the unsuccessful ASL asked: no program. An ASL must be
    asked (成功 or 不成功)."""

    name = "linear_probing_hash"
    # (the question is NFKC-normalised: its ，；？ are , ; ?)
    _HASH = r"H\s*\(\s*(key|Key|KEY|k|K|x)\s*\)\s*=\s*\1\s*(?:%|mod|MOD|Mod)\s*(\d+)(?![\d.])(?!\s*[+\-*×/])"
    # 除留余数法 named, its divisor stated: 除数为11, 除数p=11, p=11
    _NAMED = r"除留余数法|H\s*\(\s*(\w+)\s*\)\s*=\s*\1\s*(?:%|mod|MOD)\s*p(?![A-Za-z])"
    _DIVISOR = r"(?:除数|模数)\s*(?:p\s*)?(?:为|是|取|=)\s*(\d+)(?![\d.])|(?<![A-Za-z])p\s*=\s*(\d+)(?![\d.])"
    _LENGTH = (r"(?:散列表|哈希表|Hash表|hash表)(?:的)?(?:长度|表长|长|大小|容量)(?:为|是|取|设为)?\s*(?:m\s*=\s*)?(\d+)(?![\d.])"
               r"|表长(?:度)?(?:为|是|取)?\s*(?:m\s*=\s*)?(\d+)(?![\d.])"
               r"|(?:长度|表长|大小)(?:为|是)?\s*(\d+)\s*的(?:散列表|哈希表|Hash表)")
    _RANGE = r"(?:地址空间|地址范围|地址区间|散列地址|地址)(?:为|是)?\s*[\[(]?\s*(0)\s*(?:~|-|—|到|至|\.\.)\s*(\d+)(?![\d.])"
    _LIST = r"(\d+(?:\s*([,、])\s*\d+)(?:\s*\2\s*\d+)+)"
    # the list after its name (关键字序列为13、24、35), or before the insert (将13,24,35依次插入)
    _KEYS = (rf"(?:关键字|关键码|键值|序列|插入|元素|记录)[^,。;?\d]{{0,8}}?[{{(\[]?\s*{_LIST}",
             rf"{_LIST}\s*[}})\]]?\s*(?:依次|按顺序|顺序|按序)?(?:插入|存入|放入|散列)")
    _OTHER = r"二次探测|平方探测|二次探查|平方探查|链地址|拉链|链接法|双散列|再哈希法|伪随机|装填因子|装载因子|负载因子|删除|堆积"

    def match(self, q: str) -> Optional[str]:
        if not re.search(r"线性探测|线性探查", q) or re.search(self._OTHER, q):
            return None
        success = bool(re.search(r"(?<!不)成功", q))
        fail = bool(re.search(r"不成功|失败", q))
        if not (success or fail) or not re.search(r"平均查找长度|ASL", q, re.I):
            return None
        hashed, length, span = unique(self._HASH, q), unique(self._LENGTH, q), unique(self._RANGE, q)
        stated = unique(self._DIVISOR, q) if re.search(self._NAMED, q) else None
        if (hashed is None) == (stated is None) or (length is None and span is None):
            return None  # no hash function, or two ways (H(key)=key%11 and 除数为11: one is enough)
        lists = {m.group(1): m.span(1) for pattern in self._KEYS for m in re.finditer(pattern, q)}
        if len(lists) != 1:
            return None
        (text, where), = lists.items()
        data = [m for m in (hashed, stated, length, span) if m is not None]
        if any(m.start() < where[1] and where[0] < m.end() for m in data):
            return None  # the list runs into a datum: 表长11,13,24,35
        keys = [int(k) for k in re.findall(r"\d+", text)]
        divisor = hashed.group(2) if hashed else stated.group(1) or stated.group(2)
        m = length.group(1) or length.group(2) or length.group(3) if length else str(int(span.group(2)) + 1)
        if length and span and int(span.group(2)) + 1 != int(m):
            return None
        if len(set(keys)) != len(keys) or not 0 < int(divisor) <= int(m) or len(keys) > int(m):
            return None
        if fail and len(keys) == int(m):
            return None  # a full table: an unsuccessful search meets no empty slot
        p = Program()
        p.line("keys", str(keys), "关键字序列")
        if span:
            p.given("first", span.group(1), "首地址")
            p.given("last", span.group(2), "末地址")
        if length:
            p.given("m", m, "散列表长")
        else:
            p.line("m", "last - first + 1", "散列表长")
        p.given("p", divisor, "散列函数的除数")
        p.line("answer_table", "linear_probe_table(keys, m, p)", "从地址零起的散列表")
        p.line("probes", "linear_probe_probes(keys, m, p)", "各关键字的比较次数")
        p.line("found", "sum(probes)", "成功查找的比较次数之和")
        p.line("n", "len(keys)", "关键字个数")
        p.line("answer_success_fraction", "fraction_text(found, n)", "查找成功的平均查找长度")
        p.line("answer_success" if fail else "answer", "round(found / n, 2)", "查找成功的平均查找长度")
        if fail:
            p.line("misses", "linear_probe_misses(keys, m, p)", "各散列地址的失败比较次数")
            p.line("missed", "sum(misses)", "失败查找的比较次数之和")
            p.line("answer_fail_fraction", "fraction_text(missed, p)", "计空位比较的查找失败ASL")
            p.line("answer", "round(missed / p, 2)", "计空位比较的查找失败ASL")
        return p.source()


class CrcRemainder(Rule):
    """CRC 校验码 (the remainder) of info bits (信息位101001) for a generator given as a polynomial
    (G(x)=x^3+x^2+1: evaluated at x = 2, its bit string) or as bits (生成多项式1101): mod-2 division of
    the info bits followed by degree zeros (simulations.crc_remainder). When the question asks what is
    sent (发送的比特串, 码字) that is the info bits followed by the remainder."""

    name = "crc_remainder"
    _INFO = r"(?:信息位|信息码|信息|数据位|数据|报文|帧)(?:比特串|位串|序列|串)?(?:为|是)?[:：]?\s*([01]{2,})(?![0-9])"
    _POLY = r"G\s*\(\s*x\s*\)\s*=\s*(x[x0-9^+\s]*)"
    _GEN_BITS = r"(?:生成多项式|生成码|除数)(?:对应的)?(?:比特串|位串|代码)?(?:为|是)?[:：]?\s*([01]{2,})(?![0-9])"
    # the sent bits named: 实际发送的比特串, 发出去的帧, 加上校验码后的数据, 码字 …
    _SENT = (r"(?:发送|发出|传输|传送|发)(?:出去|出)?的[^,。?;\d]{0,6}?(?:比特串|位串|比特序列|码字|帧|数据|序列|报文|信息)"
             r"|(?:加上|添加|附加|拼接|加入)[^,。?;\d]{0,10}?后的[^,。?;\d]{0,4}?(?:比特串|位串|码字|帧|数据|序列|报文)"
             r"|码字|实际发送")
    # …followed by bits: a datum (要发送的数据为1101011011, 发送的信息位是101001), not what is asked
    _STATED = r"[^,。?;\d]{0,4}?(?:为|是|:)?\s*[01]{2,}"

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
        if any(not re.match(self._STATED, q[m.end():]) for m in re.finditer(self._SENT, q)):
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
    # the degree in words: 15个结点左右孩子都有 (2), 8个结点只有一个孩子 (1), 10个双分支结点
    _TWO = r"(?:左右孩子都有|左右孩子均有|左右子树都有|左右子树均不空|都有左右孩子|有两个孩子|有2个孩子)"
    _ONE = r"(?:只有一个孩子|只有1个孩子|仅有一个孩子|有且仅有一个孩子|只有一棵子树|只有一个子树)"
    _WORDED = (rf"(\d+)\s*个{_NODE}[^，。？；、\d]{{0,3}}?(?:(?P<two>{_TWO})|(?P<one>{_ONE}))"
               rf"|(\d+)\s*个(?:(?P<two2>双分支)|(?P<one2>单分支)){_NODE}")
    # what is asked: the quantity right before (or after) 多少/几
    _ASK_TOTAL = (rf"(?:多少|几)个{_NODE}|{_NODE}(?:总数|总个数)|总{_NODE}数"
                  rf"|{_NODE}(?:数|个数)?(?:一共|总共|共)(?:有|是)?(?:多少|几)")
    _ASK_LEAVES = (rf"(?:叶子?|终端){_NODE}(?:数|个数|的个数)?(?:一共|共)?(?:有|是|为)?(?:多少|几)"
                   rf"|叶子(?:数|个数)?(?:一共|共)?(?:有|是|为)?(?:多少|几)"
                   rf"|(?:多少|几)个(?:叶子?{_NODE}|叶子)")

    def match(self, q: str) -> Optional[str]:
        if "二叉树" not in q or re.search(r"度为\s*[03-9]|叉树", q.replace("二叉树", "")):
            return None
        leaves, counts = unique(self._LEAVES, q), {}
        stated = [(m.group(2), m.group(1)) if m.group(1) else (m.group(3), m.group(4))
                  for m in re.finditer(self._DEGREE, q)]
        stated += [("2" if m.group("two") or m.group("two2") else "1", m.group(1) or m.group(4))
                   for m in re.finditer(self._WORDED, q)]
        for degree, count in stated:
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
    _N = (rf"(\d+)\s*个{_NODE}的完全二叉树|完全二叉树(?:共|总共|一共)?(?:有|含|包含|含有)?\s*(\d+)\s*个{_NODE}"
          rf"|完全二叉树的?{_NODE}(?:总)?数(?:为|是)\s*(\d+)")
    # asked with 多少/几, or named after 求/计算 (求……的高度，以及其中叶结点的个数): group "at" is where
    _HEIGHT = (r"(?P<at>高度|深度|层数|树高)(?:是|为|有)?(?:多少|几)|(?P<at2>几|多少)层"
               r"|(?:求|计算|算出)[^。？?]{0,24}?的(?P<at3>高度|深度|层数)")
    _LEAVES = (rf"(?P<at>叶子?{_NODE}|叶子)(?:数|个数|的个数)?(?:有|是|为)?(?:多少|几)|(?P<at2>多少|几)个叶子?{_NODE}"
               rf"|(?:求|计算|算出)[^。？?]{{0,40}}?(?P<at3>叶子?{_NODE})(?:数|的?个数)")

    def match(self, q: str) -> Optional[str]:
        m = unique(self._N, q)
        root_level = rf"根{_NODE}?(?:所在(?:的)?层|在|的层次)?(?:为|是)?第\s*1\s*层"  # the convention, no datum
        if m is None or re.search(r"(?<!深)度为|非叶|分支结点|分支节点|满二叉树|第\s*\d+\s*层", re.sub(root_level, "", q)):
            return None
        asked = sorted((next(found.start(g) for g in ("at", "at2", "at3") if found.group(g)), name)
                       for name, pattern in (("height", self._HEIGHT), ("leaves", self._LEAVES))
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


_TIMES = r"(\d+(?:\.\d+)?(?:\s*(?:ms|s|h)?\s*[,，、和]\s*\d+(?:\.\d+)?)+)"
_POLICIES = [("fcfs", re.compile(r"FCFS|先来先服务|先到先服务", re.I)),
             ("sjf", re.compile(r"SJF|SPF|短作业优先|短进程优先|最短作业优先|最短进程优先", re.I)),
             ("hrrn", re.compile(r"HRRN|高响应比", re.I))]
_SCHEDULE_ASKS = [("avg_weighted_turnaround", re.compile(r"平均带权周转时间"), "平均带权周转时间"),
                  ("avg_turnaround", re.compile(r"平均周转时间"), "平均周转时间"),
                  ("avg_waiting", re.compile(r"平均等待时间"), "平均等待时间")]


class Scheduling(Rule):
    """平均周转时间, 平均带权周转时间 or 平均等待时间 of FCFS, SJF or HRRN, non-preemptive (scheduling.py):
    one policy named; the run times as one list (``运行时间分别为5、3、1``) or one pair a job
    (``P1到达时间0、运行时间8``, ``P1 0时刻到达，运行4``); the arrival times as one list (``到达时间分别为…``,
    ``分别在0、1、2时刻到达``), or ``同时到达`` (all at 0). The run
    order is shown before the averages, each rounded to 2 decimals; two averages asked are both given.
    Preemption (抢占, 剩余时间), time slices (RR), priorities, I/O, clock times (8:00) or a list whose
    length differs from the other: no program."""

    name = "scheduling"
    _ARRIVALS = (rf"(?:到达|提交|进入系统的?)(?:时间|时刻)?(?:分别|依次)?(?:为|是)?\s*{_TIMES}"
                 rf"|(?:分别|依次)(?:在|于)\s*{_TIMES}\s*(?:ms|s)?\s*(?:时刻)?(?:到达|提交)")
    _BURSTS = rf"(?:运行|执行|服务|估计运行|需要运行|所需|要求运行|CPU执行|处理)(?:的)?时间(?:分别|依次)?(?:为|是)?\s*{_TIMES}"
    _PAIR = (r"(?:P|J|进程|作业)\s*(\d+)[^，；;。P]{0,6}?(?:到达|提交)(?:时间|时刻)?(?:为|是)?\s*(\d+(?:\.\d+)?)\s*(?:ms|s|h)?[、，,]?\s*"
             r"(?:运行|执行|服务|需要运行|所需)(?:时间)?(?:为|是)?\s*(\d+(?:\.\d+)?)"
             # P1 0时刻到达，运行4
             r"|(?:P|J|进程|作业)\s*(\d+)\s*[在于]?\s*(\d+(?:\.\d+)?)\s*(?:ms|s)?\s*时刻?到达[、，,]?\s*"
             r"(?:运行|执行|服务|需要运行)(?:时间)?(?:为|是)?\s*(\d+(?:\.\d+)?)")

    def match(self, q: str) -> Optional[str]:
        policies = [name for name, p in _POLICIES if p.search(q)]
        found = [(m.start(), fn, label) for fn, p, label in _SCHEDULE_ASKS for m in [p.search(q)] if m]
        asked = [(fn, label) for _, fn, label in sorted(found)]  # in the question's order
        if len(policies) != 1 or not asked or len(asked) > 2:
            return None
        if re.search(r"(?<!非)(?<!不可)(?<!不)抢占|剩余时间|SRTF|时间片|(?<![A-Za-z])RR(?![A-Za-z])|轮转|优先级|优先数|I/O|\d:\d|\d：\d|多道|内存", q, re.I):
            return None
        pairs = [alternative(m, 3) for m in re.finditer(self._PAIR, q)]  # (job, arrival, run time)
        arrivals_m, bursts_m = unique(self._ARRIVALS, q), unique(self._BURSTS, q)
        if pairs:
            if arrivals_m or bursts_m or [int(n) for n, _, _ in pairs] != list(range(1, len(pairs) + 1)):
                return None
            arrivals, bursts = [a for _, a, _ in pairs], [b for _, _, b in pairs]
        else:
            if bursts_m is None:
                return None
            bursts = re.findall(r"\d+(?:\.\d+)?", bursts_m.group(1))
            if arrivals_m is not None:
                arrivals = re.findall(r"\d+(?:\.\d+)?", arrivals_m.group(1) or arrivals_m.group(2))
            elif re.search(r"同时到达|同时提交|都在0时刻到达|均在0时刻到达|同一时刻到达", q):
                arrivals = ["0"] * len(bursts)
            else:
                return None
        if len(arrivals) != len(bursts) or len(bursts) < 2 or any(float(b) <= 0 for b in bursts):
            return None
        p = Program()
        p.line("arrivals", "[" + ", ".join(literal(a) for a in arrivals) + "]", "到达时间")
        p.line("bursts", "[" + ", ".join(literal(b) for b in bursts) + "]", "运行时间")
        p.line("order", f'schedule_order(arrivals, bursts, "{policies[0]}")', "运行顺序")
        for i, (fn, label) in enumerate(asked):
            name = "answer" if i == len(asked) - 1 else "answer_" + fn.removeprefix("avg_")
            p.line(name, f'round({fn}(arrivals, bursts, "{policies[0]}"), 2)', label)
        return p.source()
