"""Calculation rules of computer organisation: how a main-memory address splits for a cache, the
time of an instruction pipeline without stalls, how many chips build a memory, a program's CPU time
and a machine's MIPS, a bus's bandwidth. See pipeline/ask/calc_rules.py."""

from __future__ import annotations

import math
import re
from typing import Optional

from pipeline.ask.calc_text import (
    NUM,
    SIZE,
    SIZE_UNIT,
    TIME_NS,
    TIME_UNIT,
    Program,
    Rule,
    chinese_number,
    literal,
    power_of_two,
    unique,
    value,
)


class CacheAddressSplit(Rule):
    """标记、行号 (组号)、块内地址 bits of a byte-addressed main-memory address. Needs the address bits
    (地址32位) or the main memory size (主存256MB), the cache data size (Cache数据区16KB) or its line
    count (Cache共128行), the block size (块大小64B) and one mapping: 直接映射, k路组相联 or 全相联.
    offset = log2(block), lines = cache / block, index = log2(lines / ways) (none when fully
    associative), tag = address bits - index - offset; each field is a conclusion. Word addressing,
    valid/dirty bits or the cache's total capacity: no program."""

    name = "cache_address_split"
    _ADDR_BITS = r"(?:主存|内存|物理)?地址(?:长度|位数)?(?:为|是|共|长)?\s*(\d+)\s*位|(\d+)\s*位(?:的)?(?:主存|内存|物理)?地址"
    _MEMORY = rf"(?:主存|内存)(?:的)?(?:容量|大小|空间)?(?:为|是|共|有)?\s*(\d+)\s*{SIZE_UNIT}"
    _CACHE = rf"(?:Cache|cache|高速缓存)(?:的)?(?:数据区|数据存储区|数据部分)?(?:的)?(?:容量|大小)?(?:为|是|共|有)?\s*(\d+)\s*{SIZE_UNIT}"
    _LINES = r"(?:Cache|cache|高速缓存)(?:共|共有|有|分为)?\s*(\d+)\s*(?:行|个行|块|个块)"
    _BLOCK = (rf"(?:块|行)(?:的)?(?:大小|长度|长|容量)(?:为|是|均为)?\s*(\d+)\s*{SIZE_UNIT}"
              rf"|每(?:块|行)(?:为|是|有)?\s*(\d+)\s*{SIZE_UNIT}")
    _WAYS = r"(\d+|[二两八])\s*路(?:组相联|组相连|组关联)"
    _ASK = r"标记|[Tt]ag|行号|组号|块内地址|块内偏移|索引"

    def match(self, q: str) -> Optional[str]:
        if not re.search(self._ASK, q) or re.search(r"按字编址|有效位|脏位|修改位|一致性|总容量|命中率|替换", q):
            return None
        bits, memory = unique(self._ADDR_BITS, q), unique(self._MEMORY, q)
        cache, lines, block = unique(self._CACHE, q), unique(self._LINES, q), unique(self._BLOCK, q)
        ways = unique(self._WAYS, q)
        direct, full = bool(re.search(r"直接映射|直接映像|直接相联", q)), "全相联" in q
        if (bits is None) == (memory is None) or (cache is None) == (lines is None) or block is None:
            return None
        if sum((direct, full, ways is not None)) != 1 or ways is None and re.search(self._WAYS, q):
            return None
        block_number, block_unit = (block.group(1), block.group(2)) if block.group(1) else (block.group(3), block.group(4))
        block_size = int(value(block_number, block_unit, SIZE))
        n_lines = int(value(cache.group(1), cache.group(2), SIZE)) // block_size if cache else int(lines.group(1))
        k = chinese_number(ways.group(1)) if ways else "1"
        if k is None or not all(power_of_two(x) for x in (block_size, n_lines, int(k))) or n_lines < int(k):
            return None
        if cache and int(value(cache.group(1), cache.group(2), SIZE)) != n_lines * block_size:
            return None
        p = Program()
        if bits is not None:
            address_bits = int(bits.group(1) or bits.group(2))
            p.given("addr_bits", str(address_bits), "主存地址位数")
        else:
            size = int(value(memory.group(1), memory.group(2), SIZE))
            if not power_of_two(size):
                return None
            address_bits = int(math.log2(size))
            p.in_base("memory", memory.group(1), memory.group(2), SIZE, "主存容量", "B")
            p.line("addr_bits", "int(log2(memory))", "主存地址位数")
        index_bits = 0 if full else int(math.log2(n_lines // int(k)))
        if address_bits - index_bits - int(math.log2(block_size)) < 1:
            return None
        if cache:
            p.in_base("cache", cache.group(1), cache.group(2), SIZE, "Cache数据区大小", "B")
        p.in_base("block", block_number, block_unit, SIZE, "块大小", "B")
        if cache:
            p.line("lines", "cache // block", "Cache行数")
        else:
            p.given("lines", lines.group(1), "Cache行数")
        p.line("answer_offset", "int(log2(block))", "块内地址位数（位）")
        if full:
            p.line("answer", "addr_bits - answer_offset", "标记位数（位）")
            return p.source()
        if direct:
            p.line("answer_index", "int(log2(lines))", "行号位数（位）")
        else:
            p.given("ways", k, "每组行数")
            p.line("sets", "lines // ways", "组数")
            p.line("answer_index", "int(log2(sets))", "组号位数（位）")
        p.line("answer", "addr_bits - answer_index - answer_offset", "标记位数（位）")
        return p.source()


class PipelineTime(Rule):
    """总时间 of n instructions on a k-stage pipeline, each stage Δt, with no stall: (k + n - 1) * Δt
    (the first instruction takes k stages, each later one finishes a stage after the one before). Any
    hazard, stall or bubble not negated (没有阻塞, 不考虑相关), different stage times, or a question
    that also asks throughput, speedup or efficiency: no program."""

    name = "pipeline_time"
    _STAGE_WORD = r"(?:段|级|个功能段|个阶段|个段|个流水段|个过程段)"
    _STAGES = (rf"(\d+)\s*{_STAGE_WORD}(?:的)?(?:指令)?流水(?:线)?"
               rf"|流水线(?:分为|分成|有|共有|共|包括|包含)\s*(\d+)\s*{_STAGE_WORD}")
    _DT = (rf"每(?:个)?(?:段|级|功能段|阶段|流水段)(?:的)?(?:时间|用时|耗时|执行时间|处理时间)?(?:都|均)?"
           rf"(?:为|是|需要|需|需时|用)?\s*{NUM}\s*{TIME_UNIT}")
    _COUNT = r"(\d+)\s*条(?:指令)?|(\d+)\s*个任务"
    _HAZARD = r"阻塞|停顿|冲突|相关|冒险|气泡|暂停|断流"
    _NEGATION = r"没有|无|不考虑|不存在|不发生|忽略|不会"
    _ASK = r"多长时间|多少时间|多久|总时间|所需时间|需要的时间|完成时间|总共.{0,4}时间|一共.{0,4}时间"

    def match(self, q: str) -> Optional[str]:
        stages, dt, count = unique(self._STAGES, q), unique(self._DT, q), unique(self._COUNT, q)
        if stages is None or dt is None or count is None or not re.search(self._ASK, q):
            return None
        if re.search(r"吞吐率|加速比|效率|分别", q):
            return None
        for hazard in re.finditer(self._HAZARD, q):
            if not re.search(self._NEGATION, q[max(0, hazard.start() - 10):hazard.start()]):
                return None
        p = Program()
        p.given("stages", stages.group(1) or stages.group(2), "流水线段数")
        p.given("dt", dt.group(1), "每段时间", TIME_NS[dt.group(2)][0])
        p.given("n", count.group(1) or count.group(2), "指令条数")
        p.line("answer", "(stages + n - 1) * dt", "总时间", TIME_NS[dt.group(2)][0])
        return p.source()


WORDS = {"": ("", ""), "K": ("K", "1024"), "M": ("M", "1048576"), "G": ("G", "1073741824")}
# a chip or memory organisation as the exam writes it: 1K×4位, 16K x 8bit, 64×8位
ORGANISATION = r"(\d+)\s*([KMG]?)\s*[×xX*]\s*(\d+)\s*(?:位|bit|b)(?![A-Za-z/])"


def _alternative(m: re.Match, width: int) -> tuple[str, ...]:
    """The groups of the alternative that matched, a pattern of alternatives ``width`` groups each."""
    groups = m.groups()
    for start in range(0, len(groups), width):
        if groups[start] is not None:
            return groups[start:start + width]
    raise ValueError("no alternative matched")


class ChipCount(Rule):
    """How many chips build a memory (字扩展, 位扩展 or both): the chip's organisation, written with
    芯片 next to it (``用1K×4位的芯片``, ``芯片规格为2K×8位``), and the memory's (``组成4K×8位的存储器``) or its
    byte size (``组成64KB的主存``, 8 bits a byte). count = memory bits / chip bits; the memory's words and
    word width must each be a multiple of the chip's (the standard expansion), else no program. A
    question that also asks address lines, chip select or the decoder: no program."""

    name = "chip_count"
    _CHIP = (rf"{ORGANISATION}\s*(?:的)?\s*(?:[SD]?RAM|ROM|EPROM|存储)?\s*芯片"
             rf"|芯片(?:的)?(?:规格|容量|型号)?(?:为|是|均为)?\s*{ORGANISATION}")
    _MEMORY = (rf"(?:组成|构成|扩展成|扩展为|设计|实现|搭建)(?:一个)?(?:容量为)?\s*{ORGANISATION}"
               rf"|{ORGANISATION}\s*(?:的)?\s*(?:存储器|主存|内存|存储系统)")
    _MEMORY_BYTES = (rf"(?:组成|构成|扩展成|扩展为|设计|实现)(?:一个)?(?:容量为)?\s*(\d+)\s*{SIZE_UNIT}(?!\s*[×xX*])"
                     rf"|(?:存储器|主存|内存)(?:的)?(?:容量)?(?:为|是)\s*(\d+)\s*{SIZE_UNIT}(?!\s*[×xX*])")
    _ASK = r"(?:需要|需|共需|要用|用|要)[^，。？；]{0,8}(?:多少|几)\s*(?:片|块|个)|芯片(?:的)?(?:数|数量|个数|片数)"

    def match(self, q: str) -> Optional[str]:
        if not re.search(self._ASK, q) or re.search(r"地址线|数据线|片选|译码|地址范围|分别|引脚|刷新", q):
            return None
        chip = unique(self._CHIP, q)
        memory, memory_bytes = unique(self._MEMORY, q), unique(self._MEMORY_BYTES, q)
        if chip is None or (memory is None) == (memory_bytes is None):
            return None
        chip_words, chip_unit, chip_bits = _alternative(chip, 3)
        p = Program()
        p.in_base("chip_words", chip_words, chip_unit, WORDS, "芯片字数", "")
        p.given("chip_bits", chip_bits, "芯片字长（位）")
        chip_total = value(chip_words, chip_unit, WORDS) * int(chip_bits)
        if memory is not None:
            words, unit, bits = _alternative(memory, 3)
            if (memory.span() == chip.span() or value(words, unit, WORDS) % value(chip_words, chip_unit, WORDS)
                    or int(bits) % int(chip_bits)):
                return None
            p.in_base("mem_words", words, unit, WORDS, "存储器字数", "")
            p.given("mem_bits", bits, "存储器字长（位）")
            total = value(words, unit, WORDS) * int(bits)
            p.line("answer", "(mem_words * mem_bits) // (chip_words * chip_bits)", "所需芯片数")
        else:
            size, unit = _alternative(memory_bytes, 2)
            total = value(size, unit, SIZE) * 8
            if (value(size, unit, SIZE) * 8) % chip_total or 8 % int(chip_bits) and int(chip_bits) % 8:
                return None
            p.in_base("mem", size, unit, SIZE, "存储器容量", "B")
            p.line("answer", "mem * 8 // (chip_words * chip_bits)", "所需芯片数")
        if total % chip_total or total <= chip_total:
            return None
        return p.source()


FREQUENCY = {"GHz": ("GHz", "1000000000"), "MHz": ("MHz", "1000000"), "kHz": ("kHz", "1000"), "Hz": ("Hz", "")}
# an instruction count: 2×10^8条, 10^6条, 5000条
COUNT = r"(?:(\d+(?:\.\d+)?)\s*[×xX*]\s*)?10\s*\^\s*(\d+)\s*条|(?<![\d^.])(\d+)\s*条"


class CpuTime(Rule):
    """A program's CPU time, or the machine's MIPS: the clock (主频2GHz, 时钟频率500MHz) or the clock
    cycle (时钟周期2ns), the average CPI (CPI为1.5, 平均CPI=4) and, for the time, the instruction count
    (2×10^8条指令, 10^6条). time = count × CPI / frequency (× cycle), in s, ms or μs, the largest
    unit that keeps it ≥ 1; MIPS = frequency / (CPI × 10^6). A mix of instruction types (比例, 占…%),
    both asked, or both the clock and the cycle given: no program."""

    name = "cpu_time"
    _FREQ = r"(?:主频|时钟频率|频率|时钟)(?:为|是|均为)?\s*(\d+(?:\.\d+)?)\s*(GHz|MHz|kHz|Hz)"
    _CYCLE = rf"(?:时钟周期|机器周期)(?:为|是)?\s*{NUM}\s*{TIME_UNIT}"
    _CPI = r"CPI(?:为|是|=|＝|:|：)?\s*(\d+(?:\.\d+)?)"
    _TIME = r"(?:执行|运行|CPU)(?:时间|该程序.{0,4}时间)|(?:需要|要|用|花)[^，。？]{0,4}(?:多少|多长|多久)(?:时间)?|多长时间|多少时间"

    def match(self, q: str) -> Optional[str]:
        if re.search(r"比例|占\s*\d|%|分别|各类|各种|加速比|提高|改进", q) or len(re.findall(r"CPI", q)) != 1:
            return None
        freq, cycle, cpi = unique(self._FREQ, q), unique(self._CYCLE, q), unique(self._CPI, q)
        if cpi is None or (freq is None) == (cycle is None) or float(cpi.group(1)) <= 0:
            return None
        mips, timed = "MIPS" in q.upper(), bool(re.search(self._TIME, q))
        if mips == timed:
            return None
        p = Program()
        if freq is not None:
            p.in_base("freq", freq.group(1), freq.group(2), FREQUENCY, "主频", "Hz")
            per_second = value(freq.group(1), freq.group(2), FREQUENCY)
        else:
            p.in_base("cycle", cycle.group(1), cycle.group(2), TIME_NS, "时钟周期", "ns")
            p.line("freq", "1000000000 / cycle", "主频", "Hz")
            per_second = 1e9 / value(cycle.group(1), cycle.group(2), TIME_NS)
        p.given("cpi", cpi.group(1), "平均CPI")
        if mips:
            if unique(COUNT, q) is not None:
                return None  # an instruction count is a datum the MIPS does not use
            p.line("answer", "freq / (cpi * 1000000)", "指令执行速度（MIPS）")
            return p.source()
        count = unique(COUNT, q)
        if count is None:
            return None
        if count.group(2) is not None:
            n = (f"{count.group(1)} * " if count.group(1) else "") + f"10 ** {int(count.group(2))}"
            instructions = float(count.group(1) or 1) * 10 ** int(count.group(2))
        else:
            n, instructions = literal(count.group(3)), float(count.group(3))
        p.line("n", n, "指令条数")
        seconds = instructions * float(cpi.group(1)) / per_second
        scale, unit = next(((s, u) for s, u in (("", "s"), ("1000", "ms"), ("1000000", "μs"))
                            if seconds * (int(s) if s else 1) >= 1), ("1000000000", "ns"))
        p.line("answer", "n * cpi / freq" + (f" * {scale}" if scale else ""), "CPU执行时间", unit)
        return p.source()


class BusBandwidth(Rule):
    """总线带宽 in MB/s (10^6 B/s, the exam's convention for rates): the bus width (``数据线32位``,
    ``总线宽度为4B``), its clock (``时钟频率为100MHz``) and how often it transfers, which must be stated:
    ``一个总线周期包含2个时钟周期`` (one transfer a bus cycle) or ``每个时钟周期传送两次``. bandwidth =
    width in bytes × frequency × transfers a clock (or ÷ clocks a bus cycle). Neither stated, or both: no
    program (one transfer a clock is not the only reading)."""

    name = "bus_bandwidth"
    _WIDTH = r"(?:总线|数据线|数据总线)(?:的)?(?:宽度|位宽)?(?:为|是|有|共)?\s*(\d+)\s*(位|bit|根|B|字节)(?![A-Za-z/])"
    _FREQ = r"(?:时钟)?频率(?:为|是)?\s*(\d+(?:\.\d+)?)\s*(GHz|MHz|kHz)"
    _CYCLES = r"(?:一个|每个)?总线(?:传输)?周期(?:包含|含|占用|占|等于|为|由)\s*(\d+|[一两二])\s*个时钟周期"
    _TIMES = r"(?:一个|每个)时钟周期(?:内)?(?:可以|可|能)?(?:传送|传输)\s*(\d+|[一两二])\s*次"

    def match(self, q: str) -> Optional[str]:
        if "总线" not in q or not re.search(r"带宽|数据传输率|数据传输速率|传输速率", q) or re.search(r"分别|各是|突发", q):
            return None
        width, freq = unique(self._WIDTH, q), unique(self._FREQ, q)
        cycles, times = unique(self._CYCLES, q), unique(self._TIMES, q)
        if width is None or freq is None or (cycles is None) == (times is None):
            return None
        count = chinese_number((cycles or times).group(1))
        if count is None or count == "0":
            return None
        p = Program()
        if width.group(2) in ("B", "字节"):
            p.given("width", width.group(1), "总线宽度", "B")
        else:
            if int(width.group(1)) % 8:
                return None
            p.given("width_bits", width.group(1), "总线宽度", "位")
            p.line("width", "width_bits / 8", "总线宽度", "B")
        p.in_base("freq", freq.group(1), freq.group(2), FREQUENCY, "时钟频率", "Hz")
        if cycles is not None:
            p.given("cycles", count, "每个总线周期的时钟周期数")
            p.line("answer", "width * freq / cycles / 1000000", "总线带宽", "MB/s")
        else:
            p.given("times", count, "每个时钟周期传送次数")
            p.line("answer", "width * freq * times / 1000000", "总线带宽", "MB/s")
        return p.source()
