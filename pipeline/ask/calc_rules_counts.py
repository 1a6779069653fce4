"""Calculation rules that count: stack pop orders, the resources that rule out deadlock, the dummy runs
of an optimal merge tree, the bits of a micro-instruction's fields, a disk head's travel, and an IP
datagram's fragments. See pipeline/ask/calc_rules.py."""

from __future__ import annotations

import re
from typing import Optional

from pipeline.ask.calc_text import CHINESE_COUNT, Program, Rule, chinese_number, unique

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
        n, order = unique(self._N, q), unique(self._ORDER, q)
        count = int(chinese_number(n.group(1))) if n and chinese_number(n.group(1)) else None
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
        need = unique(self._NEED, q)
        if need is None or chinese_number(need.group(1)) is None or int(chinese_number(need.group(1))) < 2:
            return None
        k = chinese_number(need.group(1))
        asks_units = re.search(r"(?:至少|最少)\s*(?:要|需要|得|应)?\s*(?:配置?|配备|提供|有)?\s*(?:几|多少)\s*(?:台|个|件|份|单位)", q)
        asks_procs = re.search(r"(?:最多|至多)\s*(?:允许|能|可以|可)?\s*(?:有)?\s*(?:几|多少)\s*个\s*进程", q)
        p = Program()
        if asks_units and not asks_procs:
            procs = unique(self._PROCS, q)
            if procs is None or chinese_number(procs.group(1)) is None:
                return None
            p.given("n", chinese_number(procs.group(1)), "进程数")
            p.given("k", k, "每个进程最多需要")
            p.line("answer", "n * (k - 1) + 1", "不会死锁的最少资源数")
            return p.source()
        if asks_procs and not asks_units:
            units = unique(self._UNITS, re.sub(self._NEED, " ", q))
            if units is None or chinese_number(units.group(1)) is None:
                return None
            p.given("m", chinese_number(units.group(1)), "资源总数")
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
        runs, ways = unique(self._RUNS, q), unique(self._WAYS, q)
        if runs is None or ways is None:
            return None
        m, k = chinese_number(runs.group(1)), chinese_number(ways.group(1))
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
        groups = unique(self._GROUPS, q)
        if groups is not None and chinese_number(groups.group(1)) not in (None, str(len(counts))):
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
