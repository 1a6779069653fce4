"""Calculation rules that count: stack pop orders, the resources that rule out deadlock, the dummy runs
of an optimal merge tree, the bits of a micro-instruction's fields, a disk head's travel, and an IP
datagram's fragments. See pipeline/ask/calc_rules.py."""

from __future__ import annotations

import re
from typing import Optional

from pipeline.ask.calc_text import CHINESE_COUNT, Program, Rule, stated_count, unique

_LIST = r"\d+(?:\s*[,，、]\s*\d+)+(?:\s*(?:和|及|与)\s*\d+)?"


def _numbers(text: str) -> list[int]:
    return [int(x) for x in re.findall(r"\d+", text)]


class StackSequences(Rule):
    """出栈序列 of n distinct elements pushed in a fixed order, popping allowed at any time: the n-th
    Catalan number C(2n, n)/(n + 1) (``catalan``). n is a stated count (5个元素) or the length of the
    push order written out (1、2、3、4、5 / a、b、c、d); both stated must agree. A question fixing part
    of the order (第一个出栈的是…), asking whether one sequence is possible, or about a queue: no program."""

    name = "stack_sequences"
    _N = rf"(\d+|{CHINESE_COUNT})\s*个(?:不同的?)?(?:元素|数|字符|数据)"
    _ORDER = (rf"(?:按|以)?\s*({_LIST}|[a-zA-Z](?:\s*[,，、]\s*[a-zA-Z])+)\s*的?\s*(?:按|以)?\s*(?:顺序|次序)?\s*"
              r"(?:依次)?\s*(?:进栈|入栈|压栈|压入)")

    def match(self, q: str) -> Optional[str]:
        if not (re.search(r"进栈|入栈|压栈|压入", q) and re.search(r"出栈(?:序列|顺序|次序|排列)", q)
                and re.search(r"(?:多少|几)\s*种", q)):
            return None
        if re.search(r"第[一二三四五六七八九十\d]+个出栈|不可能|可能是|以.{1,6}开头|队列|双端|受限", q):
            return None
        n, order = stated_count(self._N, q), unique(self._ORDER, q)
        count = int(n) if n else None
        listed = re.split(r"\s*[,，、和及与]\s*", order.group(1)) if order else None
        if count is None and listed is None:
            return None
        if count is not None and listed is not None and count != len(listed):
            return None
        p = Program()
        if listed is not None and (count is None or all(x.isdigit() for x in listed)):  # the order written out: n is its length
            items = [str(int(x)) if x.isdigit() else f'"{x}"' for x in listed]
            p.line("order", f"[{', '.join(items)}]", "进栈顺序")
            p.line("n", "len(order)", "元素个数")
        else:
            p.given("n", str(count), "元素个数")
        if not 1 <= (count or len(listed)) <= 30:
            return None
        p.line("answer", "catalan(n)", "不同出栈序列数")
        return p.source()


class DeadlockResources(Rule):
    """n processes share one kind of resource, each needing at most k units: with at least n(k - 1) + 1
    units no allocation can deadlock (each may hold k - 1 and one more lets one finish). Asked the
    other way (m units, each needing at most k), at most ⌊(m - 1)/(k - 1)⌋ processes. Two kinds of
    resource, k of 1, or neither count asked: no program."""

    name = "deadlock_resources"
    _PROCS = rf"(\d+|{CHINESE_COUNT})\s*个(?:并发)?进程"
    _NEED = rf"(?:每个进程|各进程|每个)\s*(?:最多|至多|最多需要|最多同时)?\s*(?:同时)?\s*(?:需要|需|申请|要|使用)\s*(\d+|{CHINESE_COUNT})\s*(?:台|个|件|份|单位)"
    _UNITS = rf"(?:共有|有|配置了?|配备了?|拥有)\s*(\d+|{CHINESE_COUNT})\s*(?:台|个|件|份|单位)"
    _NO_DEADLOCK = r"不会?(?:发生|产生|出现)?死锁|不死锁|避免死锁|死锁不会发生|不可能(?:发生|产生)?死锁"

    def match(self, q: str) -> Optional[str]:
        if not re.search(self._NO_DEADLOCK, q) or re.search(r"银行家|安全序列|资源分配图|两类|两种资源|R1|R2", q):
            return None
        k = stated_count(self._NEED, q)
        if k is None or int(k) < 2:
            return None
        asks_units = re.search(r"(?:至少|最少)\s*(?:要|需要|得|应)?\s*(?:配置?|配备|提供|有)?\s*(?:几|多少)\s*(?:台|个|件|份|单位)", q)
        asks_procs = re.search(r"(?:最多|至多)\s*(?:允许|能|可以|可)?\s*(?:有)?\s*(?:几|多少)\s*个\s*进程", q)
        p = Program()
        if asks_units and not asks_procs:
            procs = stated_count(self._PROCS, q)
            if procs is None:
                return None
            p.given("n", procs, "进程数")
            p.given("k", k, "每个进程最多需要")
            p.line("answer", "n * (k - 1) + 1", "不会死锁的最少资源数")
            return p.source()
        if asks_procs and not asks_units:
            units = stated_count(self._UNITS, re.sub(self._NEED, " ", q))
            if units is None:
                return None
            p.given("m", units, "资源总数")
            p.given("k", k, "每个进程最多需要")
            p.line("answer", "(m - 1) // (k - 1)", "不会死锁的最多进程数")
            return p.source()
        return None


class DummyRuns(Rule):
    """虚段 to add before building the optimal (Huffman) merge tree of m initial runs merged k ways: the
    tree is strict k-ary when (m - 1) % (k - 1) == 0, else k - 1 - (m - 1) % (k - 1) empty runs are added.
    Both m and k stated once; 2-way merging needs none and is answered so."""

    name = "dummy_runs"
    _RUNS = rf"(\d+|{CHINESE_COUNT})\s*个(?:初始)?归并段"
    _WAYS = rf"(\d+|{CHINESE_COUNT})\s*路(?:平衡)?归并"

    def match(self, q: str) -> Optional[str]:
        if not re.search(r"虚段|空段|虚拟段", q) or not re.search(r"(?:多少|几)\s*个|(?:多少|几)\s*段", q):
            return None
        m, k = stated_count(self._RUNS, q), stated_count(self._WAYS, q)
        if m is None or k is None or int(k) < 2 or int(m) < 1:
            return None
        p = Program()
        p.given("m", m, "初始归并段数")
        p.given("k", k, "归并路数")
        p.line("u", "(m - 1) % (k - 1)", "多出的段数")
        p.line("answer", "(k - 1 - u) % (k - 1)", "需补充的虚段数")
        return p.source()


class MicroFieldBits(Rule):
    """The control field of a micro-instruction in 字段直接编码 (field direct encoding): each group of
    mutually exclusive micro-commands is one field of ⌈log2(c + 1)⌉ bits (one code means "none of
    them"), the field the sum. The group sizes are one list (分别有3、7、8、15个微命令); a stated group
    count must agree. 直接编码 (one bit per command) or a group count alone: no program."""

    name = "micro_field_bits"
    _GROUPS = rf"(\d+|{CHINESE_COUNT})\s*个(?:互斥)?(?:组|类|字段)"
    _SIZES = rf"(?:分别|依次|各)\s*(?:有|包含|含有?|为)?\s*({_LIST})\s*个(?:微命令|微操作|命令)"

    def match(self, q: str) -> Optional[str]:
        if not re.search(r"字段直接编码|字段编码|分段直接编码", q) or not re.search(r"(?:多少|几)\s*位|位数", q):
            return None
        sizes = unique(self._SIZES, q)
        if sizes is None:
            return None
        counts = _numbers(sizes.group(1))
        groups = stated_count(self._GROUPS, q)
        if groups is not None and groups != str(len(counts)):
            return None
        if len(counts) < 2 or any(c < 1 for c in counts):
            return None
        p = Program()
        if groups is not None:
            p.given("g", str(len(counts)), "互斥组数")  # stated, and the list has as many
        p.line("groups", f"[{', '.join(map(str, counts))}]", "各互斥组的微命令数")
        p.line("total", "0", "字段位数之和")
        p.lines.append("for c in groups:\n    total += ceil(log2(c + 1))")
        p.line("answer", "total", "操作控制字段位数")
        return p.source()


class DiskSeek(Rule):
    """Tracks the head moves serving a request queue from a stated track, 先来先服务 (FCFS) or 最短寻找
    时间优先 (SSTF) (``fcfs_seek``, ``sstf_seek``). SCAN, C-SCAN and LOOK depend on a direction and on
    whether the arm runs to the disk's end, conventions books differ on: no program; so for a tie SSTF
    cannot break (the sandbox refuses it)."""

    name = "disk_seek"
    _START = r"(?:磁头|磁臂|当前)[^，,。；;]{0,12}?(?:在|位于|处于|停在|停留在)\s*(?:第)?\s*(\d+)\s*(?:号)?\s*(?:磁道|柱面)"
    _QUEUE = rf"(?:请求|访问)(?:队列|序列|的磁道|磁道)?[^，,。；;\d]{{0,10}}?({_LIST})"
    _ALGOS = (("sstf_seek", r"SSTF|最短寻[找道](?:时间)?优先"), ("fcfs_seek", r"FCFS|先来先服务"))

    def match(self, q: str) -> Optional[str]:
        algos = [fn for fn, pattern in self._ALGOS if re.search(pattern, q, re.I)]
        if len(algos) != 1 or re.search(r"SCAN|LOOK|扫描|电梯|循环", q, re.I):
            return None
        if not re.search(r"(?:移动|寻道|经过|走过)[^，,。；;]{0,8}?(?:多少|几|总|距离|长度)|磁道数|寻道长度|移动距离", q):
            return None
        start, queue = unique(self._START, q), unique(self._QUEUE, q)
        if start is None or queue is None:
            return None
        requests = _numbers(queue.group(1))
        if len(requests) < 2:
            return None
        p = Program()
        p.given("start", start.group(1), "磁头起始磁道")
        p.line("requests", f"[{', '.join(map(str, requests))}]", "请求磁道序列")
        p.line("answer", f"{algos[0]}(start, requests)", "磁头移动的磁道数")
        return p.source()


class IpFragments(Rule):
    """An IPv4 datagram split for a link's MTU: every fragment but the last carries the most data that
    fits beside the header and is a multiple of 8 bytes, ⌊(MTU − header)/8⌋·8; the count is the data
    over that, rounded up; the 片偏移 field counts 8-byte units, the last fragment's being (count − 1)·per/8.
    Reads the total length (or the data length), the header length and the MTU, each stated once; asked
    the count, the last offset, or both (in the order asked). A header with options or several links:
    no program."""

    name = "ip_fragments"
    _TOTAL = r"总长度?(?:为|是)?\s*(\d+)\s*(?:B|字节)"
    _DATA = r"数据(?:部分|字段|载荷)?(?:长度)?(?:为|是|有)?\s*(\d+)\s*(?:B|字节)"
    _HEADER = r"首部(?:长度)?(?:为|是|占)?\s*(\d+)\s*(?:B|字节)"
    _MTU = r"MTU\s*(?:为|是|=)?\s*(\d+)\s*(?:B|字节)"

    def match(self, q: str) -> Optional[str]:
        if not re.search(r"分片|分成几|分为几|几片|多少片|几个片|片偏移", q) or re.search(r"(?<!没有)(?<!不带)(?<!不含)(?<!无)选项(?!为0|为空)|IPv6|两条|经过两", q):
            return None
        total, data = unique(self._TOTAL, q), unique(self._DATA, q)
        header, mtu = unique(self._HEADER, q), unique(self._MTU, q)
        if header is None or mtu is None or (total is None) == (data is None):
            return None
        asks_count = re.search(r"分成几|分为几|几片|多少片|几个(?:分)?片|多少个(?:分)?片|分片数", q)
        asks_offset = re.search(r"(?:最后一[个片]?|末)[^，,。；;？?]{0,10}片偏移", q)
        if not asks_count and not asks_offset:
            return None
        if re.search(r"片偏移", q) and not asks_offset:
            return None  # some other fragment's offset: not computed here
        h, m = int(header.group(1)), int(mtu.group(1))
        if not 20 <= h <= 60 or m <= h + 8:
            return None
        p = Program()
        if total is not None:
            if int(total.group(1)) <= h:
                return None
            p.given("total", total.group(1), "数据报总长度", "B")
        p.given("header", header.group(1), "首部长度", "B")
        p.given("mtu", mtu.group(1), "MTU", "B")
        if total is not None:
            p.line("data", "total - header", "数据部分长度", "B")
        else:
            p.given("data", data.group(1), "数据部分长度", "B")
        p.line("per", "(mtu - header) // 8 * 8", "每片最多数据", "B")
        p.line("count", "ceil(data / per)", "分片数")
        steps = [("count", "count", "分片数")] * bool(asks_count) + \
            [("offset", "(count - 1) * per // 8", "最后一片的片偏移")] * bool(asks_offset)
        if asks_count and asks_offset and asks_offset.start() < asks_count.start():
            steps.reverse()
        for i, (name, expression, label) in enumerate(steps):
            p.line("answer" if i == len(steps) - 1 else f"answer_{name}", expression, label)
        return p.source()


_CIDR = r"(?<![\d.])(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})\s*/\s*(\d{1,2})(?!\d)"


class RouteAggregation(Rule):
    """Routes aggregated into one (路由聚合, 超网): the longest prefix all the listed networks share. Each
    network a.b.c.d/n is stated with its length; the aggregate's length starts at the shortest stated and
    shrinks until every network falls in one block of 2^(32 − length) addresses (IPv4's 32 bits, the
    rule's convention); the answer is that block's address and its length. Fewer than two networks, an
    octet over 255, or a question about which route a packet takes (最长前缀匹配, 转发): no program."""

    name = "route_aggregation"
    conventions = frozenset({32.0})

    def match(self, q: str) -> Optional[str]:
        if not re.search(r"聚合|汇聚|汇总|超网|合并成一条|合并为一条", q) or re.search(r"最长前缀|转发|下一跳是|哪个接口|匹配", q):
            return None
        nets = re.findall(_CIDR, q)
        if len(nets) < 2 or len(nets) > 8 or len(set(nets)) != len(nets):
            return None
        if any(int(o) > 255 for net in nets for o in net[:4]) or any(not 8 <= int(net[4]) <= 32 for net in nets):
            return None
        p = Program()
        # `4条路由：…` states how many are listed (not `聚合成一条路由`, the result): it must be as many
        count = stated_count(rf"(?<![成为])(\d+|{CHINESE_COUNT})\s*(?:条|个)(?:路由|网络|子网|地址块|前缀)", q)
        if count is not None:
            if count != str(len(nets)):
                return None
            p.given("routes", str(len(nets)), "路由条数")
        names = []
        for i, net in enumerate(nets, start=1):
            p.line(f"net{i}", f"ip_value([{', '.join(str(int(o)) for o in net[:4])}])", "网络的地址值")
            names.append(f"net{i}")
        p.line("addr_bits", "32", "地址位数")
        p.line("prefix", f"min({', '.join(str(int(net[4])) for net in nets)})", "前缀长度")
        p.line("block", "2 ** (addr_bits - prefix)", "地址块大小")
        same = " and ".join(f"{n} // block == net1 // block" for n in names[1:])
        p.lines.append(f"while not ({same}):\n    prefix -= 1\n    block = block * 2")
        p.line("answer_network", "to_dotted(net1 // block * block)", "聚合后的网络地址")
        p.line("answer", "prefix", "聚合后的前缀长度", "位")
        return p.source()


class AvlNodes(Rule):
    """A balanced binary tree (AVL) at its sparsest: the fewest nodes of height h are
    N(h) = N(h − 1) + N(h − 2) + 1 with N(0) = 0, N(1) = 1 (a lone root has height 1, the exam's
    convention); asked the other way, the greatest height n nodes can reach is the largest h with
    N(h) ≤ n. A height counted from 0 (根的高度为0) or a tree that is not balanced: no program."""

    name = "avl_nodes"
    _HEIGHT = rf"(?:高度|深度|层数)(?:为|是)?\s*(\d+|{CHINESE_COUNT})(?!\d)"
    _NODES = rf"(\d+|{CHINESE_COUNT})\s*个(?:结点|节点)"

    def match(self, q: str) -> Optional[str]:
        if not re.search(r"平衡二叉树|AVL|平衡树", q, re.I) or re.search(r"高度为\s*0|深度为\s*0|从0|为0层|完全二叉树|满二叉树", q):
            return None
        fewest = re.search(r"(?:最少|至少)\s*(?:有|需要|要|含有?)?\s*(?:多少|几)\s*个?\s*(?:结点|节点)", q)
        tallest = re.search(r"(?:最大|最高|最多)\s*(?:的)?\s*(?:高度|深度|层数)|(?:高度|深度)\s*(?:最大|最多)", q)
        if bool(fewest) == bool(tallest):
            return None
        p = Program()
        if fewest:
            h = stated_count(self._HEIGHT, q)
            if h is None or not 1 <= int(h) <= 40:
                return None
            p.given("h", h, "高度")
            p.line("prev", "0", "上一高度的最少结点数")
            p.line("cur", "1", "最少结点数")
            p.lines.append("for level in range(h - 1):\n    nxt = prev + cur + 1\n    prev = cur\n    cur = nxt")
            p.line("answer", "cur", "最少结点数")
            return p.source()
        n = stated_count(self._NODES, q)
        if n is None or not 1 <= int(n) <= 10 ** 6:
            return None
        p.given("n", n, "结点数")
        p.line("prev", "0", "上一高度的最少结点数")
        p.line("cur", "1", "最少结点数")
        p.line("height", "1", "高度")
        p.lines.append("while prev + cur + 1 <= n:\n    nxt = prev + cur + 1\n    prev = cur\n    cur = nxt\n    height += 1")
        p.line("answer", "height", "最大高度")
        return p.source()


class FloatEncoding(Rule):
    """A decimal value written as an IEEE 754 machine code: 单精度 (float, 32 bits) or 双精度 (double,
    64), round to nearest (``float_hex``: the sign, the biased exponent, the fraction with the leading 1
    hidden). The value is stated once (x=-5.5, 真值为-0.75, 十进制数-0.75); asked in hex (十六进制) or
    binary (二进制). Decoding a code back to its value, or another format (IBM, a custom exponent width):
    no program."""

    name = "float_encoding"
    conventions = frozenset({32.0, 64.0})  # the format's width when the question does not say 32位
    _VALUE = r"(?:[xXyYfF]|真值|十进制数|数值?|值)\s*(?:=|为|是)?\s*(-?\d+(?:\.\d+)?)(?![\d.])"

    def match(self, q: str) -> Optional[str]:
        if not re.search(r"IEEE\s*754|单精度|双精度|float|double", q, re.I) or not re.search(r"机器码|编码|表示|存储|十六进制|二进制", q):
            return None
        if re.search(r"[0-9A-F]{8}\s*H|0x[0-9a-fA-F]{8}|对应的(?:真)?值|真值是(?:多少|什么)|阶码.{0,6}位|IBM", q):
            return None  # a code given: decoding, not encoding
        double = re.search(r"双精度|double", q, re.I)
        if double and re.search(r"单精度|float", q, re.I):
            return None
        value = unique(self._VALUE, q)
        if value is None:
            return None
        width = "64" if double else "32"
        p = Program()
        p.given("x", value.group(1), "十进制真值")
        p.given("width", width, "格式位数")  # 32位 stated, or the format's width (the rule's convention)
        if re.search(r"二进制", q) and not re.search(r"十六进制", q):
            p.line("answer", "float_bits(x, width)", "机器码（二进制）")
        else:
            p.line("answer_bits", "float_bits(x, width)", "机器码（二进制）")
            p.line("answer", "float_hex(x, width)", "机器码（十六进制）")
        return p.source()
