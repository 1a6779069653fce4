"""Calculation rules of operating systems: paging address translation, the largest logical address
space of a one-page page table, the effective access time with a TLB, a disk's average access time
and its average rotational latency alone, the largest file of a mixed (i-node) index,
how many levels a multi-level page table needs. See pipeline/ask/calc_rules.py."""

from __future__ import annotations

import re
from typing import Optional

from pipeline.ask.calc_text import (
    CHINESE_NUMBERS,
    NUM,
    SIZE,
    SIZE_UNIT,
    TIME_NS,
    TIME_UNIT,
    Program,
    Rule,
    chinese_number,
    in_clause,
    mentioned,
    power_of_two,
    size_in_unit,
    unique,
    value,
)

PAGE_SIZE = rf"(?:页面|每页|页)(?:的)?(?:大小|长度|尺寸|长|容量)?(?:为|是|均为|都是|取)?\s*(\d+)\s*{SIZE_UNIT}"
MULTI_LEVEL = r"二级|两级|多级|二层|两层|多层|页目录|外层页表"


class PagingAddress(Rule):
    """物理地址 of one logical address under paging. Needs the page size (页面大小2KB), one logical
    address (5000; 0x1A3C or 1A3CH in hex) and the block of its page: stated for the page (页号2对应块号8:
    the page stated must be the address's), for "its page" (它所在的页放在物理块7), or a page table
    (页号0、1、2、3对应块号5、10、4、7, several 页号i对应块号j, 页0→块5, 页号/块号 = 0/2、1/9), looked up in the
    program.
    page = addr // size, offset = addr % size, physical = block * size + offset. A page the table lacks
    (缺页, 越界), a segment table or a second address: no program."""

    name = "paging_address"
    _ADDR = (r"(?:逻辑|虚拟|虚)地址(?:为|是|:|：)?\s*(?:(?:十六|16|十)进制(?:数|的)?\s*)?"
             r"(0[xX][0-9A-Fa-f]+|[0-9A-F]*[0-9][0-9A-F]*H|\d+)(?![0-9A-Za-z.])(?!\s*(?:位|比特))")
    _WIDTH = r"(?:逻辑|虚拟|虚)地址(?:长度|长)?(?:为|是|共|有)?\s*(\d+)\s*(?:位|bit|比特)"
    # 页号2对应块号8, 第2页在第8块, 页2→块8 (an arrow from a page to its block)
    _PAIR = (r"(?:页号|第)(?:为|是)?\s*(\d+)\s*号?页?面?\s*(?:对应|映射到|存放在|放在|装入|调入|在)(?:的)?(?:物理)?"
             r"(?:块号|块|页框号|页框|帧号)?\s*号?(?:为|是)?\s*第?\s*(\d+)"
             r"|(?:页号?|第)\s*(\d+)\s*页?\s*(?:→|->|—>|=>)\s*(?:物理)?(?:块号|块|页框号|页框|帧号|帧)?\s*号?\s*(\d+)")
    _ITS = r"(?:所在的?那?一?页面?|该页面?|这一?页面?)[^，。；\d]{0,10}?(?:第\s*)?(?:(?:物理块|块号|页框号|页框|内存块|块)号?(?:为|是)?\s*(\d+)|(\d+)\s*号?(?:物理块|块|页框))"
    _LIST = r"(\d+(?:\s*[、,]\s*\d+)+)"
    # 页号/块号 = 0/2、1/9、2/6: the pairs written with a slash
    _SLASHED = r"页号\s*/\s*(?:物理)?块号\s*(?:=|为|是|：|:)?\s*((?:\d+\s*/\s*\d+\s*[、,，;；]\s*)+\d+\s*/\s*\d+)"
    _TABLE = (rf"(?:页号(?:分别)?(?:为|是)?\s*{_LIST}\s*(?:的页面?)?|第\s*{_LIST}\s*(?:号)?页面?)(?:分别|依次)?"
              rf"(?:(?:对应|映射到|存放在|放在|装入|在)(?:的)?(?:物理)?(?:块号|块|页框号|页框)\s*(?:分别|依次)?(?:为|是)?\s*{_LIST}"
              rf"|(?:装入|调入|存放在|放在|存入|放入)了?(?:内存的?)?(?:第)?\s*{_LIST}\s*号?(?:物理块|块|页框))")

    def match(self, q: str) -> Optional[str]:
        size, addr = unique(PAGE_SIZE, q), unique(self._ADDR, q)
        if size is None or addr is None or "物理地址" not in q or re.search(r"段号|段表|段式|段页|二进制|八进制", q):
            return None
        text = addr.group(1)
        if text.lower().startswith("0x"):
            literal = text
        elif text.endswith("H"):
            literal = "0x" + text[:-1]
        elif re.search(r"十六进制|16进制", q):
            return None  # a hex address written without 0x or H
        else:
            literal = str(int(text))
        logical = int(literal, 0)
        page_size = int(value(size.group(1), size.group(2), SIZE))
        if not power_of_two(page_size):
            return None
        page_no = logical // page_size
        pairs = {(int(a or c), int(b or d)) for a, b, c, d in re.findall(self._PAIR, q)}
        slashed = unique(self._SLASHED, q)
        if slashed is not None:
            pairs |= {(int(a), int(b)) for a, b in re.findall(r"(\d+)\s*/\s*(\d+)", slashed.group(1))}
        tables = re.findall(self._TABLE, q)
        its = unique(self._ITS, q)
        if its is None and re.search(self._ITS, q):
            return None  # its page in two different blocks
        if sum(map(bool, (pairs, tables, its))) != 1 or len(tables) > 1:
            return None
        width = unique(self._WIDTH, q)
        if width is None and re.search(self._WIDTH, q) or width is not None and logical >= 2 ** int(width.group(1)):
            return None  # two widths, or an address wider than the width stated
        p = Program()
        p.in_base("page", size.group(1), size.group(2), SIZE, "页面大小", "B")
        if width is not None:  # a datum the translation does not need: how the address splits, shown
            p.given("addr_bits", width.group(1), "逻辑地址位数")
            p.line("page_no_bits", "addr_bits - int(log2(page))", "页号位数")
        p.line("addr", literal, "逻辑地址")
        p.line("page_no", "addr // page", "页号")
        p.line("offset", "addr % page", "页内偏移")
        if tables:
            pages, blocks = (re.findall(r"\d+", t) for t in (tables[0][0] or tables[0][1], tables[0][2] or tables[0][3]))
            pairs = set(zip(map(int, pages), map(int, blocks))) if len(pages) == len(blocks) else set()
            if not pairs:
                return None
        if its is not None:
            p.given("block", its.group(1) or its.group(2), "物理块号")
        elif len(pairs) == 1:
            (stated, block), = pairs
            if stated != page_no:
                return None  # the page stated is not the address's
            p.given("block", str(block), "物理块号")
        else:
            table = sorted(pairs)
            if len({a for a, _ in table}) != len(table) or page_no not in {a for a, _ in table}:
                return None  # a page twice, or the address's page is not in the table
            p.line("pages", str([a for a, _ in table]), "页表中的页号")
            p.line("blocks", str([b for _, b in table]), "页表中的块号")
            if [a for a, _ in table] == list(range(len(table))):  # pages 0, 1, 2…: the block is at the page's index
                p.line("block", "blocks[page_no]", "物理块号")
            else:
                p.line("block", "0", "物理块号")
                p.lines += ["for i in range(len(pages)):", "    if pages[i] == page_no:", "        block = blocks[i]"]
        if literal.startswith("0x"):  # asked in hex: the answer in hex too, then its decimal value
            p.line("answer_hex", "to_hex(block * page + offset)", "物理地址（十六进制）")
        p.line("answer", "block * page + offset", "物理地址")
        return p.source()


class PageTableSpace(Rule):
    """最大逻辑地址空间 when a one-level page table may occupy one page (页表最多占一个页面; or k pages
    as stated): entries = k * page // entry, space = entries * page, shown in the largest of GB/MB/KB
    that divides it. The exam's convention when only 页面大小 and 页表项 are given and the largest
    space is asked is one page. Two-level tables: no program."""

    name = "page_table_space"
    _ENTRY = r"页表项(?:的)?(?:大小|长度|长)?(?:为|是|占|占用)?\s*(\d+)\s*(B|字节)(?![A-Za-z/])"
    _TABLE_PAGES = r"页表[^，。？；]{0,12}?(一|两|二|\d+)\s*个?(?:页面|页框|物理页|页(?![表号内面]))"
    _ASK = r"(?:最大|最多)[^，。？]{0,8}地址空间|地址空间[^，。？]{0,6}(?:最大|最多)"

    def match(self, q: str) -> Optional[str]:
        size, entry = unique(PAGE_SIZE, q), unique(self._ENTRY, q)
        if size is None or entry is None or not re.search(self._ASK, q) or re.search(MULTI_LEVEL, q):
            return None
        stated = unique(self._TABLE_PAGES, q)
        if stated is None and re.search(self._TABLE_PAGES, q):
            return None  # two different page counts
        table_pages = chinese_number(stated.group(1)) if stated else "1"
        page_size, entry_size = int(value(size.group(1), size.group(2), SIZE)), int(entry.group(1))
        if table_pages is None or not power_of_two(page_size) or not entry_size or page_size % entry_size:
            return None
        space = int(table_pages) * page_size // entry_size * page_size
        p = Program()
        p.in_base("page", size.group(1), size.group(2), SIZE, "页面大小", "B")
        p.given("entry", entry.group(1), "页表项大小", "B")
        # not stated: the exam's convention (a one-level page table fits in one page), said as such
        p.given("table_pages", table_pages, "页表所占页数" if stated else "按惯例的页表页数")
        p.line("entries", "table_pages * page // entry", "页表项个数")
        divisor, unit = size_in_unit(space)
        if power_of_two(space):
            p.line("addr_bits", "int(log2(entries * page))", "逻辑地址位数")
        if divisor:
            p.line("space", "entries * page", "最大逻辑地址空间", "B")
            p.line("answer", f"space // {divisor}", "最大逻辑地址空间", unit)
        else:
            p.line("answer", "entries * page", "最大逻辑地址空间", "B")
        return p.source()


class TlbAccessTime(Rule):
    """平均访问时间 (effective access time) with a TLB: TLB time t, memory time m, hit rate h (95% or
    0.95). Serial lookup, the default of 先查快表…不命中再访问页表: a hit t + m, a miss t + m + m (the page
    table, then the data). Parallel lookup (同时/并行查快表和页表): a hit t + m, a miss m + m. A question
    naming neither, a two-level table or page faults: no program."""

    name = "tlb_access_time"
    _TLB = r"快表|TLB|相联存储器|联想存储器|相联寄存器"
    _TIME = rf"{NUM}\s*{TIME_UNIT}"
    _RATE = r"(\d+(?:\.\d+)?)\s*%|(0\.\d+)(?![\d%])"
    _PARALLEL = r"(?:同时|并行)[^，。？]{0,8}(?:快表|TLB|页表)|(?:快表|TLB)[^，。？]{0,8}(?:同时|并行)"
    _SERIAL = r"先[^，。？]{0,4}(?:快表|TLB)|(?:不命中|未命中|没有命中|没命中|缺失)[^，。？]{0,6}(?:再|才|则)"
    _ASK = r"平均[^，。？]{0,8}时间|平均[^，。？]{0,10}(?:多少|多长|多久)|有效(?:访问|存取|访存)时间|EAT"

    def match(self, q: str) -> Optional[str]:
        if not re.search(self._ASK, q) or re.search(rf"{MULTI_LEVEL}|未命中率|不命中率|缺失率", q) or mentioned("缺页", q):
            return None  # (不考虑缺页, 不会缺页: none)
        tlb = in_clause(q, self._TLB, self._TIME, without=r"内存|主存|访存")
        mem = in_clause(q, r"内存|主存|访存|存储器", self._TIME, without=self._TLB)
        rate = in_clause(q, r"命中率|命中的?概率", self._RATE)
        parallel = bool(re.search(self._PARALLEL, q))
        if tlb is None or mem is None or rate is None or not (parallel or re.search(self._SERIAL, q)):
            return None
        p = Program()
        if tlb.group(2) == mem.group(2):
            unit = TIME_NS[tlb.group(2)][0]
            p.given("tlb", tlb.group(1), "快表访问时间", unit)
            p.given("mem", mem.group(1), "内存访问时间", unit)
        else:
            unit = "ns"
            p.in_base("tlb", tlb.group(1), tlb.group(2), TIME_NS, "快表访问时间", unit)
            p.in_base("mem", mem.group(1), mem.group(2), TIME_NS, "内存访问时间", unit)
        p.line("hit_time", "tlb + mem", "快表命中时的时间", unit)
        p.line("miss_time", "mem + mem" if parallel else "tlb + mem + mem", "快表未命中时的时间", unit)
        if rate.group(1):
            if not 0 <= float(rate.group(1)) <= 100:
                return None
            p.given("hit_pct", rate.group(1), "快表命中率", "%")
            p.line("answer", "(hit_pct * hit_time + (100 - hit_pct) * miss_time) / 100", "平均访问时间", unit)
        else:
            p.given("hit", rate.group(2), "快表命中率")
            p.line("answer", "hit * hit_time + (1 - hit) * miss_time", "平均访问时间", unit)
        return p.source()


class DiskAccessTime(Rule):
    """平均访问时间 of one sector, or of k consecutive sectors on one track (连续的4个扇区): rotation
    speed (12000转/分, or 转/秒), average seek time (ms), sectors per track. One turn 60 * 1000 / rpm
    ms; average rotational latency half a turn (one seek and one wait: the k sectors follow each other
    under the head); transfer k · a turn / sectors; total seek + latency + transfer (no controller
    time: one given would be a number the program does not use, and the answer is then prose). Sectors
    not said to be consecutive, a whole track, or a shortest/longest seek: no program."""

    name = "disk_access_time"
    _RPM = (r"(\d+|[一两二]万)\s*(?:转/分钟|转/分|r/min|rpm|RPM|转每分钟|转每分)"
            r"|每分(?:钟)?(?:旋?转)?\s*(\d+|[一两二]万)\s*(?:转|圈)")  # 每分钟6000转, 每分钟一万转
    _RPS = r"(\d+)\s*(?:转/秒|r/s|rps|转每秒)|每秒(?:钟)?(?:旋?转)?\s*(\d+)\s*(?:转|圈)"
    _SEEK = rf"寻道(?:时间)?(?:为|是|要|需要)?\s*{NUM}\s*(?:ms|毫秒)(?![A-Za-z/])"
    _SECTORS = (r"(?:每|一)(?:个|条)?(?:磁道|道)(?:上)?(?:有|共有|包含|含|分为)?\s*(\d+)\s*个?扇区"
                r"|(\d+)\s*个?扇区/(?:磁)?道")
    _RUN = r"(?:连续|相邻|挨着)(?:存放|排列|分布|存储)?(?:的)?\s*(\d+|[两二三四五六七八九十])\s*个扇区"
    _ASK = r"(?:读|写|访问|存取|读写)(?:取|出|入)?(?:一个|1个|某个|任一|一)扇区|平均(?:访问|存取|读取?|读写)时间"
    _ASK_RUN = r"平均[^，。？]{0,6}(?:时间|多久)|(?:多少|多长)时间|多久|(?:多少|几)(?:毫秒|ms)"

    def match(self, q: str) -> Optional[str]:
        rpm, rps = unique(self._RPM, q), unique(self._RPS, q)
        seek, sectors, run = unique(self._SEEK, q), unique(self._SECTORS, q), unique(self._RUN, q)
        if (rpm is None) == (rps is None) or seek is None or sectors is None:
            return None
        if not re.search(self._ASK_RUN if run else self._ASK, q) or (run is None and re.search(self._RUN, q)):
            return None
        if re.search(r"整个磁道|整道|全部扇区|多个扇区|最大寻道|最小寻道", q) or (run is None and "连续" in q):
            return None
        p = Program()
        _rotation_speed(p, rpm, rps)
        p.given("seek", seek.group(1), "平均寻道时间", "ms")
        p.given("sectors", sectors.group(1) or sectors.group(2), "每磁道扇区数")
        if run is not None:
            p.given("k", CHINESE_NUMBERS.get(run.group(1), run.group(1)), "连续读的扇区数")
        _one_turn(p, rpm)
        p.line("latency", "turn / 2", "平均旋转延迟", "ms")
        if run is not None:
            p.line("transfer", "k * turn / sectors", "连续扇区的传输时间", "ms")
        else:
            p.line("transfer", "turn / sectors", "一个扇区的传输时间", "ms")
        p.line("answer", "seek + latency + transfer", "平均访问时间", "ms")
        return p.source()


class RotationalLatency(Rule):
    """平均旋转延迟 alone: rotation speed (6000转/分, or 转/秒). One turn 60 * 1000 / rpm ms, the
    average latency half a turn (the exam's convention). A question that also gives a seek time or
    sectors per track asks for more (``DiskAccessTime``): no program here."""

    name = "rotational_latency"
    _ASK = r"(?:平均)?旋转延迟(?:时间)?|平均(?:旋转)?等待时间|平均延迟时间"

    def match(self, q: str) -> Optional[str]:
        rpm, rps = unique(DiskAccessTime._RPM, q), unique(DiskAccessTime._RPS, q)
        if (rpm is None) == (rps is None) or not re.search(self._ASK, q):
            return None
        if re.search(r"寻道|扇区|存取时间|访问时间|传输时间|读取|读出|写入|磁道|多个|分别", q):
            return None
        p = Program()
        _rotation_speed(p, rpm, rps)
        _one_turn(p, rpm)
        p.line("answer", "turn / 2", "平均旋转延迟", "ms")
        return p.source()


def _rotation_speed(p: Program, rpm: Optional[re.Match], rps: Optional[re.Match]) -> None:
    """The rotation speed as given: 转/分 (``rpm``) or 转/秒 (``rps``), exactly one of them matched."""
    if rpm is not None:
        speed = rpm.group(1) or rpm.group(2)
        p.given("rpm", SPELLED_TEN_THOUSANDS.get(speed, speed), "转速", "转/分")  # 一万转: 万 is a unit
    else:
        p.given("rps", rps.group(1) or rps.group(2), "转速", "转/秒")


SPELLED_TEN_THOUSANDS = {"一万": "10000", "两万": "20000", "二万": "20000"}


def _one_turn(p: Program, rpm: Optional[re.Match]) -> None:
    p.line("turn", "60 * 1000 / rpm" if rpm is not None else "1000 / rps", "旋转一周的时间", "ms")


class IndexedFileSize(Rule):
    """The largest file a mixed index can address (UNIX i-node style): the direct entries (``10个直接地址项``),
    the single, double and triple indirect ones (``1个一级间接``, one unless a count is written), the block
    size (``磁盘块大小为1KB``) and an address entry's size (``地址项占4B``, ``盘块号占4字节``). Entries in a
    block n = block / entry; blocks = direct + single·n + double·n² + triple·n³; size = blocks × block,
    in the largest unit dividing it. An entry size missing, an index kind stated twice, or a question
    that also asks how many blocks or accesses: no program."""

    name = "indexed_file_size"
    _COUNT = r"(\d+|[一两二])\s*个\s*(?:的)?{kind}|{kind}(?:地址|索引)?(?:项|指针|块号|地址项|索引项)?(?:有|为|共)?\s*(\d+|[一两二])\s*个"
    _KINDS = (("direct", "直接(?:地址|索引|块|盘块)?", "直接地址项数"),
              ("single", "一(?:级|次)间接", "一级间接地址项数"),
              ("double", "二(?:级|次)间接", "二级间接地址项数"),
              ("triple", "三(?:级|次)间接", "三级间接地址项数"))
    _BLOCK = (rf"(?:簇|磁盘块|盘块|物理块|数据块|块)(?:[（(][^）)]{{0,4}}[）)])?(?:的)?(?:大小|长度|容量)?(?:为|是|均为)?"
              rf"\s*(\d+)\s*{SIZE_UNIT}")
    _ENTRY = (r"(?:地址项|盘块号|索引项|块号|块地址|地址|指针)(?:的)?(?:大小|长度)?(?:占|为|是|长|用)?\s*(\d+)\s*个?(B|字节|位|bit)"
              r"|每个(?:地址项|盘块号|索引项|块号|地址|指针)(?:占|为|是|用)?\s*(\d+)\s*个?(B|字节|位|bit)")
    # 一级、二级、三级间接指针各1个, 一级间接地址项和二级间接地址项各1个: one count for each kind in the clause
    _EACH = r"([^，。；,;]*间接[^，。；,;]*?)各\s*(\d+|[一两二])\s*个"
    _ASK = r"最大(?:文件)?(?:长度|大小|容量)|文件(?:的)?最大(?:长度|大小|容量)?|最大(?:能|可以)?(?:表示|支持|容纳|放|存放|存)|文件最大"
    _INDEXED = r"索引|地址项|i-?node|i\s*节点|i\s*结点|直接(?:地址|块|盘块)?(?:项|指针)"
    _UNIT_ASKED = rf"多少\s*(KB|MB|GB|B|字节)|(KB|MB|GB|字节)\s*(?:为单位|计)|单位\s*[:：为是]?\s*(KB|MB|GB|B|字节)"

    def match(self, q: str) -> Optional[str]:
        if not re.search(self._ASK, q) or not re.search(self._INDEXED, q, re.I):
            return None
        if re.search(r"多少次|几次|访问磁盘|读盘|分别|(?<!间接)各(?!\s*(?:\d|[一两二])\s*个)", q):
            return None
        block, entry = unique(self._BLOCK, q), unique(self._ENTRY, q)
        if block is None or entry is None:
            return None
        counts = {}
        each = unique(self._EACH, q)
        for name, kind, _ in self._KINDS:
            found = unique(self._COUNT.format(kind=kind), q)
            listed = each is not None and name != "direct" and re.search(kind[0] + "(?:级|次)", each.group(1)) is not None
            if found is not None and listed:
                return None  # stated twice
            if found is not None or listed:
                number = chinese_number(each.group(2) if listed else found.group(1) or found.group(2))
                if number is None:
                    return None
                counts[name] = number
            elif name != "direct" and re.search(kind, q):
                return None  # a kind of entry the question names, with no count read: never leave it out
        if "direct" not in counts or len(counts) < 2:
            return None
        entry_number, entry_unit = (entry.group(1), entry.group(2)) if entry.group(1) else (entry.group(3), entry.group(4))
        bits = entry_unit in ("位", "bit")
        if bits and int(entry_number) % 8:
            return None
        entry_size = int(entry_number) // 8 if bits else int(entry_number)
        block_size = int(value(block.group(1), block.group(2), SIZE))
        if not entry_size or block_size % entry_size or block_size <= entry_size:
            return None
        p = Program()
        p.in_base("block", block.group(1), block.group(2), SIZE, "盘块大小", "B")
        if bits:
            p.given("entry_bits", entry_number, "地址项长度", "位")
            p.line("entry", "entry_bits // 8", "地址项大小", "B")
        else:
            p.given("entry", entry_number, "地址项大小", "B")
        p.line("per_block", "block // entry", "每块地址项数")
        terms = []
        for power, (name, _, label) in enumerate(self._KINDS):
            if name in counts:
                p.given(name, counts[name], label)
                terms.append(" * ".join([name] + ["per_block"] * power))  # n·n·n: a 3 the question does not give
        p.line("blocks", " + ".join(terms), "可寻址的盘块数")
        n = block_size // entry_size
        size = sum(int(counts[name]) * n ** power for power, (name, _, _) in enumerate(self._KINDS) if name in counts)
        asked = re.search(self._UNIT_ASKED, q)
        asked_unit = {"字节": "B"}.get(u := next(g for g in asked.groups() if g), u) if asked else None
        if asked_unit is not None:
            divisor = {"B": "", "KB": "1024", "MB": "1048576", "GB": "1073741824"}[asked_unit]
            if divisor and size * block_size % int(divisor):
                return None  # not a whole number of the unit asked
            unit = asked_unit
        else:
            divisor, unit = size_in_unit(size * block_size)
        p.line("answer", "blocks * block" + (f" // {divisor}" if divisor else ""), "文件最大长度", unit)
        return p.source()


class PageTableLevels(Rule):
    """How many levels a multi-level page table needs when each level's table fits in one page (the
    exam's premise, said or not): the logical address bits (``逻辑地址32位``) or space (``虚拟地址空间4GB``),
    the page size and the page-table entry's size. offset = log2(page), index bits a level =
    log2(page / entry), levels = ceil((address bits - offset) / index bits). A page or entry size that
    is not a power of two, or the bits of each level asked too: no program."""

    name = "page_table_levels"
    _BITS = (r"(?:逻辑|虚拟)地址(?:长度|位数)?(?:为|是|共|长|有)?\s*(\d+)\s*位|(\d+)\s*位(?:的)?(?:逻辑|虚拟)地址")
    _SPACE = rf"(?:逻辑|虚拟)(?:地址)?空间(?:的)?(?:大小)?(?:为|是|有)?\s*(\d+)\s*{SIZE_UNIT}"
    _ASK = r"(?:几|多少)级|级数|(?:几|多少)层"

    def match(self, q: str) -> Optional[str]:
        if not re.search(self._ASK, q) or not re.search(r"页表", q) or re.search(r"分别|各级|每级[^，。？]{0,6}(?:几|多少)位", q):
            return None
        bits, space = unique(self._BITS, q), unique(self._SPACE, q)
        size, entry = unique(PAGE_SIZE, q), unique(PageTableSpace._ENTRY, q)
        if (bits is None) == (space is None) or size is None or entry is None:
            return None
        page_size, entry_size = int(value(size.group(1), size.group(2), SIZE)), int(entry.group(1))
        if not power_of_two(page_size) or not power_of_two(entry_size) or page_size <= entry_size:
            return None
        p = Program()
        if bits is not None:
            address_bits = int(bits.group(1) or bits.group(2))
            p.given("addr_bits", str(address_bits), "逻辑地址位数")
        else:
            space_size = int(value(space.group(1), space.group(2), SIZE))
            if not power_of_two(space_size):
                return None
            address_bits = space_size.bit_length() - 1
            p.in_base("space", space.group(1), space.group(2), SIZE, "逻辑地址空间", "B")
            p.line("addr_bits", "int(log2(space))", "逻辑地址位数")
        if address_bits <= page_size.bit_length() - 1:
            return None
        p.in_base("page", size.group(1), size.group(2), SIZE, "页面大小", "B")
        p.given("entry", str(entry_size), "页表项大小", "B")
        p.line("offset_bits", "int(log2(page))", "页内偏移位数（位）")
        p.line("index_bits", "int(log2(page // entry))", "每级页表索引位数（位）")
        p.line("answer", "ceil((addr_bits - offset_bits) / index_bits)", "页表级数", "级")
        return p.source()
