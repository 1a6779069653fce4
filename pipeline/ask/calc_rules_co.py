"""Calculation rules of computer organisation: how a main-memory address splits for a cache, the
time of an instruction pipeline without stalls, how many chips build a memory, a program's CPU time
and a machine's MIPS, a bus's bandwidth, a cache's hit rate and average access time. See pipeline/ask/calc_rules.py."""

from __future__ import annotations

import math
import re
from typing import Optional

from pipeline.ask.calc_text import (
    CHINESE_NUMBERS,
    FREQUENCY,
    NUM,
    SIZE,
    SIZE_UNIT,
    TIME_NS,
    TIME_UNIT,
    Program,
    Rule,
    alternative,
    chinese_number,
    in_clause,
    literal,
    mentioned,
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
    _CACHE = (rf"(?:Cache|cache|高速缓存)(?:的)?(?:数据区|数据存储区|数据部分)?(?:的)?(?:容量|大小)?(?:为|是|共|有)?\s*(\d+)\s*{SIZE_UNIT}"
              rf"|(?<![Cc]ache)(?<!缓存)(?:数据区|数据存储区)(?:的)?(?:容量|大小)?(?:为|是|共|有)?\s*(\d+)\s*{SIZE_UNIT}")  # …cache，数据区64KB
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
        cache_size = int(value(*alternative(cache, 2), SIZE)) if cache else None
        n_lines = cache_size // block_size if cache else int(lines.group(1))
        k = chinese_number(ways.group(1)) if ways else "1"
        if k is None or not all(power_of_two(x) for x in (block_size, n_lines, int(k))) or n_lines < int(k):
            return None
        if cache and cache_size != n_lines * block_size:
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
            p.in_base("cache", *alternative(cache, 2), SIZE, "Cache数据区大小", "B")
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
    """总时间 of n instructions on a k-stage pipeline with no stall: (k + n - 1) * Δt (the first
    instruction takes k stages, each later one finishes a stage after the one before). Δt is the stage
    time (每段10ns), or, with the stages' own times listed (四段分别耗时60ns、80ns、50ns、70ns, as many as
    the stages), the slowest of them: the clock must let every stage finish (the exam's convention; a
    latch delay or another clock stated: no program). 加速比 and 效率 when asked: against each instruction
    going through every stage alone, speedup = n · Σt / total, efficiency = speedup / k. Any hazard,
    stall or bubble not negated (没有阻塞, 不考虑相关), or throughput asked (its unit is the question's
    choice): no program."""

    name = "pipeline_time"
    _STAGE_WORD = r"(?:段|级|个功能段|个阶段|个段|个流水段|个过程段)"
    _STAGES = (rf"(\d+|[二两三四五六七八九十])\s*{_STAGE_WORD}(?:的)?(?:指令)?流水(?:线)?"
               rf"|流水线(?:分为|分成|有|共有|共|包括|包含)\s*(\d+|[二两三四五六七八九十])\s*{_STAGE_WORD}")
    _DT = (rf"(?:每|各)(?:个)?(?:段|级|功能段|阶段|流水段)(?:的)?(?:时间|用时|耗时|执行时间|处理时间)?(?:都|均)?"
           rf"(?:为|是|需要|需|需时|要|用)?\s*{NUM}\s*{TIME_UNIT}")
    # the stages' own times: 分别耗时60ns、80ns、50ns、70ns (a unit on the last at least, one unit for all)
    _TIMES = (rf"(?:段|级|阶段)[^，。？\d]{{0,8}}(?:分别|依次)(?:为|是|耗时|用时|需要|需时|需)?\s*"
              rf"((?:\d+(?:\.\d+)?\s*(?:ns|μs|us|ms|纳秒|微秒|毫秒)?\s*[、,]\s*)+\d+(?:\.\d+)?)\s*{TIME_UNIT}")
    _COUNT = r"(\d+)\s*条(?:指令)?|(\d+)\s*个任务"
    _HAZARD = r"阻塞|停顿|冲突|相关|冒险|气泡|暂停|断流"
    _ASK = r"多长时间|多少时间|多久|总时间|所需时间|需要的时间|完成时间|总共.{0,4}时间|一共.{0,4}时间"

    def match(self, q: str) -> Optional[str]:
        stages, count = unique(self._STAGES, q), unique(self._COUNT, q)
        dt, times = unique(self._DT, q), unique(self._TIMES, q)
        asks = [name for name, pattern in (("time", self._ASK), ("speedup", r"加速比"), ("efficiency", r"效率"))
                if re.search(pattern, q)]
        if stages is None or (dt is None) == (times is None) or count is None or not asks:
            return None
        if re.search(r"吞吐率|时钟周期(?:为|是)\s*\d", q) or mentioned(r"锁存|缓冲寄存器|延迟时间", q):
            return None
        if (dt is not None and "分别" in q) or mentioned(self._HAZARD, q):
            return None
        k = stages.group(1) or stages.group(2)
        p = Program()
        if times is not None:
            written = re.findall(rf"(\d+(?:\.\d+)?)\s*(?:{TIME_UNIT})?", times.group(1))
            if {TIME_NS[u][0] for _, u in written if u} - {TIME_NS[times.group(2)][0]} or str(len(written)) != CHINESE_NUMBERS.get(k, k):
                return None  # stage times in two units, or not one per stage
            unit = TIME_NS[times.group(2)][0]
            for i, (t, _) in enumerate(written, start=1):
                p.given(f"t{i}", t, f"第{'一二三四五六七八九十'[i - 1]}段时间", unit)
            p.line("stages", "len([" + ", ".join(f"t{i}" for i in range(1, len(written) + 1)) + "])", "流水线段数")
            p.line("dt", "max(" + ", ".join(f"t{i}" for i in range(1, len(written) + 1)) + ")",
                   "时钟周期（最慢一段）", unit)
            serial = "(" + " + ".join(f"t{i}" for i in range(1, len(written) + 1)) + ")"
        else:
            p.given("stages", CHINESE_NUMBERS.get(k, k), "流水线段数")
            p.given("dt", dt.group(1), "每段时间", TIME_NS[dt.group(2)][0])
            serial = "stages * dt"
        p.given("n", count.group(1) or count.group(2), "指令条数")
        unit = TIME_NS[(times or dt).group(2)][0]
        # without the pipeline each instruction goes through every stage alone: n · (its stages' time)
        steps = {"time": ("(stages + n - 1) * dt", "总时间", unit),
                 "speedup": (f"n * {serial} / ((stages + n - 1) * dt)", "加速比", ""),
                 "efficiency": (f"n * {serial} / (stages * (stages + n - 1) * dt)", "效率", "")}
        for i, name in enumerate(asks):
            expression, label, shown = steps[name]
            p.line("answer" if i == len(asks) - 1 else f"answer_{name}", expression, label, shown)
        return p.source()


WORDS = {"": ("", ""), "K": ("K", "1024"), "M": ("M", "1048576"), "G": ("G", "1073741824")}
# a chip or memory organisation as the exam writes it: 1K×4位, 16K x 8bit, 64×8位
ORGANISATION = r"(\d+)\s*([KMG]?)\s*[×xX*]\s*(\d+)\s*(?:位|bit|b)(?![A-Za-z/])"


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
               rf"|{ORGANISATION}\s*(?:的)?\s*(?:存储器|主存|内存|存储系统)"
               rf"|(?:存储器|主存|内存)(?:的)?(?:容量)?(?:为|是)\s*{ORGANISATION}")
    _MEMORY_BYTES = (rf"(?:组成|构成|扩展成|扩展为|设计|实现)(?:一个)?(?:容量为)?\s*(\d+)\s*{SIZE_UNIT}(?!\s*[×xX*])"
                     rf"|(?:存储器|主存|内存)(?:的)?(?:容量)?(?:为|是|有)?\s*(\d+)\s*{SIZE_UNIT}(?!\s*[×xX*])")
    _ASK = r"(?:需要|需|共需|要用|用|要)[^，。？；]{0,8}(?:多少|几)\s*(?:片|块|个)|芯片(?:的)?(?:数|数量|个数|片数)"

    def match(self, q: str) -> Optional[str]:
        if not re.search(self._ASK, q) or re.search(r"地址线|数据线|片选|译码|地址范围|分别|引脚|刷新", q):
            return None
        chip = unique(self._CHIP, q)
        memory, memory_bytes = unique(self._MEMORY, q), unique(self._MEMORY_BYTES, q)
        if chip is None or (memory is None) == (memory_bytes is None):
            return None
        chip_words, chip_unit, chip_bits = alternative(chip, 3)
        p = Program()
        p.in_base("chip_words", chip_words, chip_unit, WORDS, "芯片字数", "")
        p.given("chip_bits", chip_bits, "芯片字长（位）")
        chip_total = value(chip_words, chip_unit, WORDS) * int(chip_bits)
        if memory is not None:
            words, unit, bits = alternative(memory, 3)
            if (memory.span() == chip.span() or value(words, unit, WORDS) % value(chip_words, chip_unit, WORDS)
                    or int(bits) % int(chip_bits)):
                return None
            p.in_base("mem_words", words, unit, WORDS, "存储器字数", "")
            p.given("mem_bits", bits, "存储器字长（位）")
            total = value(words, unit, WORDS) * int(bits)
            p.line("answer", "(mem_words * mem_bits) // (chip_words * chip_bits)", "所需芯片数")
        else:
            size, unit = alternative(memory_bytes, 2)
            total = value(size, unit, SIZE) * 8
            if (value(size, unit, SIZE) * 8) % chip_total or 8 % int(chip_bits) and int(chip_bits) % 8:
                return None
            p.in_base("mem", size, unit, SIZE, "存储器容量", "B")
            p.line("answer", "mem * 8 // (chip_words * chip_bits)", "所需芯片数")
        if total % chip_total or total <= chip_total:
            return None
        return p.source()


# an instruction count: 2×10^8条, 10^6条, 5000条, 100万条
COUNT = (r"(?:(\d+(?:\.\d+)?)\s*[×xX*]\s*)?10\s*\^\s*(\d+)\s*条|(?<![\d^.])(\d+)\s*条"
         r"|(?<![\d^.])(\d+(?:\.\d+)?)\s*万\s*条")  # 100万条: 万 is the unit constant 10000


class CpuTime(Rule):
    """A program's CPU time, or the machine's MIPS: the clock (主频2GHz, 时钟频率500MHz) or the clock
    cycle (时钟周期2ns), the average CPI (CPI为1.5, 平均CPI=4) and, for the time, the instruction count
    (2×10^8条指令, 10^6条). time = count × CPI / frequency (× cycle), in s, ms or μs, the largest
    unit that keeps it ≥ 1; MIPS = frequency / (CPI × 10^6). A mix of instruction types (运算类指令占60%，CPI=1;
    or 比例分别为60%、30%、10%，CPI分别为1、2、6, the shares adding up to 100%) gives the average CPI, shown
    when asked (求平均CPI及MIPS). Both the time and the MIPS asked, or both the clock and the cycle given:
    no program."""

    name = "cpu_time"
    _FREQ = r"(?:主频|时钟频率|频率|时钟)(?:为|是|均为)?\s*(\d+(?:\.\d+)?)\s*(GHz|MHz|kHz|Hz)"
    _CYCLE = rf"(?:时钟周期|机器周期)(?:为|是)?\s*{NUM}\s*{TIME_UNIT}"
    _CPI = (r"CPI\s*(?:为|是|=|＝|:|：)?\s*(\d+(?:\.\d+)?)"
            r"|每条指令(?:平均)?(?:需要|要花|花费|花|需|占用|耗费|要用|用)?\s*(\d+(?:\.\d+)?)\s*个(?:时钟)?周期")
    # a mix of instruction classes: 运算类指令占60%，CPI=1 (or CPI为1，占60%)
    _MIX = (r"占\s*(\d+(?:\.\d+)?)\s*%\s*[,，、;；]?\s*(?:其)?(?:平均)?CPI\s*(?:为|是|=|＝)\s*(\d+(?:\.\d+)?)"
            r"|CPI\s*(?:为|是|=|＝)\s*(\d+(?:\.\d+)?)\s*[,，、;；]?\s*(?:的指令)?占\s*(\d+(?:\.\d+)?)\s*%"
            # 占60%，每条平均要1个时钟周期
            r"|占\s*(\d+(?:\.\d+)?)\s*%\s*[,，、;；]?\s*(?:每条)?(?:指令)?(?:平均)?(?:需要|要|需|用|花)?\s*"
            r"(\d+(?:\.\d+)?)\s*个(?:时钟)?周期"
            # 40%的指令CPI为1
            r"|(?<![\d.])(\d+(?:\.\d+)?)\s*%\s*的指令\s*(?:的)?(?:平均)?CPI\s*(?:为|是|=|＝)\s*(\d+(?:\.\d+)?)")
    # or as two lists in the same order: 所占比例分别为60%、30%、10%，对应的CPI分别为1、2、6
    _SHARES = r"(?:比例|占比|频度|使用频率|频率)(?:分别)?(?:为|是)?\s*((?:\d+(?:\.\d+)?\s*%\s*[、,]\s*)+\d+(?:\.\d+)?\s*%)"
    _CPIS = r"CPI(?:分别)?(?:为|是)?\s*((?:\d+(?:\.\d+)?\s*[、,]\s*)+\d+(?:\.\d+)?)(?!\s*%)"
    _TIME = r"(?:执行|运行|CPU)(?:时间|该程序.{0,4}时间)|(?:需要|要|用|花)[^，。？]{0,4}(?:多少|多长|多久)(?:时间)?|多长时间|多少时间"
    _ASK_CPI = r"(?:求|计算|算出)[^。？]{0,12}平均CPI|平均CPI(?:是|为)?(?:多少|几)"

    def match(self, q: str) -> Optional[str]:
        freq, cycle = unique(self._FREQ, q), unique(self._CYCLE, q)
        mix = [(m.group(1) or m.group(4) or m.group(5) or m.group(7), m.group(2) or m.group(3) or m.group(6) or m.group(8))
               for m in re.finditer(self._MIX, q)]
        shares, cpis = unique(self._SHARES, q), unique(self._CPIS, q)
        listed = bool(shares and cpis and not mix)
        if listed:
            share_list, cpi_list = (re.findall(r"\d+(?:\.\d+)?", m.group(1)) for m in (shares, cpis))
            if len(share_list) != len(cpi_list):
                return None
            mix = list(zip(share_list, cpi_list))
            q = q.replace(shares.group(0), "").replace(cpis.group(0), "")  # their 分别 is the lists' own
        if re.search(r"分别(?!求|计算|算出|给出)|加速比|提高|改进|更快|快多少", q):
            return None  # 分别求…: the asks listed, not two cases
        if mix:
            if len(mix) < 2 or sum(float(share) for share, _ in mix) != 100 or len(re.findall(r"%", q)) != len(mix) * (not listed):
                return None
            cpi_text = "(" + " + ".join(f"{literal(share)} * {literal(c)}" for share, c in mix) + ") / 100"
            cpi_value = sum(float(share) * float(c) for share, c in mix) / 100
        else:
            cpi = unique(self._CPI, q)
            if cpi is None or re.search(r"比例|占\s*\d|%|各类|各种", q) or len(re.findall(self._CPI, q)) != 1:
                return None
            cpi_text = literal(cpi.group(1) or cpi.group(2))
            cpi_value = float(cpi_text)
        mips, timed, asks_cpi = "MIPS" in q.upper(), bool(re.search(self._TIME, q)), bool(re.search(self._ASK_CPI, q))
        if (mips and timed) or not (mips or timed or asks_cpi) or (asks_cpi and not mix) or cpi_value <= 0:
            return None
        if not (mips or timed):  # the mix's average CPI alone: a clock or a count would be data left unused
            if freq is not None or cycle is not None or unique(COUNT, q) is not None:
                return None
            p = Program()
            p.line("answer", cpi_text, "平均CPI")
            return p.source()
        if (freq is None) == (cycle is None):
            return None
        p = Program()
        if freq is not None:
            p.in_base("freq", freq.group(1), freq.group(2), FREQUENCY, "主频", "Hz")
            per_second = value(freq.group(1), freq.group(2), FREQUENCY)
        else:
            p.in_base("cycle", cycle.group(1), cycle.group(2), TIME_NS, "时钟周期", "ns")
            p.line("freq", "1000000000 / cycle", "主频", "Hz")
            per_second = 1e9 / value(cycle.group(1), cycle.group(2), TIME_NS)
        p.line("cpi", cpi_text, "平均CPI")
        if asks_cpi:  # the mix's average, asked: a conclusion of its own
            p.line("answer_cpi", "cpi", "平均CPI")
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
        elif count.group(3) is not None:
            n, instructions = literal(count.group(3)), float(count.group(3))
        else:
            n, instructions = f"{literal(count.group(4))} * 10000", float(count.group(4)) * 1e4
        p.line("n", n, "指令条数")
        seconds = instructions * cpi_value / per_second
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
    _WIDTH = (r"(?:总线|数据线|数据总线)(?:的)?(?:数据)?(?:宽度|位宽|宽)?(?:为|是|有|共)?\s*(\d+)\s*(位|bit|根|B|字节)(?![A-Za-z/])"
              r"|(?:并行)?(?:传送|传输)\s*(\d+)\s*(位|bit|B|字节)(?:的)?(?:数据|信息)"
              r"|(\d+)\s*(位|bit)(?:的)?(?:数据)?总线")
    _FREQ = r"(?:时钟)?频率(?:为|是)?\s*(\d+(?:\.\d+)?)\s*(GHz|MHz|kHz)"
    _PERIOD = rf"时钟周期(?:为|是)?\s*{NUM}\s*{TIME_UNIT}"
    _CYCLES = (r"(?:一个|每个)?总线(?:传输)?周期(?:包含|含|占用|占|等于|为|由)\s*(\d+|[一二两三四五六七八九十])\s*个时钟周期"
               r"|每\s*(\d+|[一二两三四五六七八九十])\s*个时钟周期(?:完成|进行|传送|传输)(?:一次|1次|一个数据|一个字)"
               r"|(?:完成|进行)?(?:一次|每次)(?:数据)?(?:传送|传输)(?:需要|需|要|占用|占|用)\s*(\d+|[一二两三四五六七八九十])\s*个时钟周期")
    _TIMES = r"(?:一个|每个)时钟周期(?:内)?(?:可以|可|能)?(?:传送|传输)\s*(\d+|[一二两三四五六七八九十])\s*次"

    def match(self, q: str) -> Optional[str]:
        if "总线" not in q or not re.search(r"带宽|数据传输率|数据传输速率|传输速率", q) or re.search(r"分别|各是|突发", q):
            return None
        width, freq, period = unique(self._WIDTH, q), unique(self._FREQ, q), unique(self._PERIOD, q)
        cycles, times = unique(self._CYCLES, q), unique(self._TIMES, q)
        if width is None or (freq is None) == (period is None) or (cycles is None) == (times is None):
            return None
        count = chinese_number(next(g for g in (cycles or times).groups() if g is not None))
        width_number, width_unit = alternative(width, 2)
        if count is None or count == "0":
            return None
        p = Program()
        if width_unit in ("B", "字节"):
            p.given("width", width_number, "总线宽度", "B")
        else:
            if int(width_number) % 8:
                return None
            p.given("width_bits", width_number, "总线宽度", "位")
            p.line("width", "width_bits / 8", "总线宽度", "B")
        if freq is not None:
            p.in_base("freq", freq.group(1), freq.group(2), FREQUENCY, "时钟频率", "Hz")
        else:
            p.in_base("period", period.group(1), period.group(2), TIME_NS, "时钟周期", "ns")
            p.line("freq", "1000000000 / period", "时钟频率", "Hz")
        if cycles is not None:
            p.given("cycles", count, "每个总线周期的时钟周期数")
            p.line("answer", "width * freq / cycles / 1000000", "总线带宽", "MB/s")
        else:
            p.given("times", count, "每个时钟周期传送次数")
            p.line("answer", "width * freq * times / 1000000", "总线带宽", "MB/s")
        return p.source()


class CacheAccessTime(Rule):
    """A cache's hit rate, the average access time of the cache-memory system, or its efficiency: the
    hit rate (``命中率为95%``, 0.95) or the counts it comes from (``Cache完成存取1900次，主存完成存取100次``:
    h = 1900 / 2000; or ``一共访存2000次，其中Cache命中1900次``), the cache time and the memory time, and
    for a time how the two are accessed, which must be stated: 同时/并行 (h·tc + (1 - h)·tm; also 未命中时的访问
    时间按主存…计) or 先访问Cache…未命中再访问主存 (h·tc + (1 - h)·(tc + tm)).
    efficiency = tc / average. A TLB, page faults, a two-level cache or block transfers counted: no program."""

    name = "cache_access_time"
    _CACHE = r"Cache|cache|高速缓存"
    _TIME = rf"{NUM}\s*{TIME_UNIT}"
    _RATE = r"命中率(?:为|是)?\s*(?:(\d+(?:\.\d+)?)\s*%|(0\.\d+))"
    _HITS = (r"(?:Cache|cache|高速缓存)(?:完成|命中)?(?:存取|访问|命中)?(?:的)?(?:次数)?(?:为|是|共)?\s*(\d+)\s*次"
             r"|(\d+)\s*次(?:是)?在\s*(?:Cache|cache|高速缓存)\s*中?(?:完成|命中)")  # 共有4750次在Cache中完成
    _MISSES = (r"(?:主存|内存)(?:完成)?(?:存取|访问)?(?:的)?(?:次数)?(?:为|是|共)?\s*(\d+)\s*次"
               r"|(\d+)\s*次(?:要|需要|需)?(?:从|在|访问)\s*(?:主存|内存)")  # 另有250次要从主存中存取
    # …or the miss costs the memory time alone (未命中时的访问时间按主存存取周期计): the parallel formula
    _TOTAL = r"(?:一共|共|总共)?访存(?:的)?(?:次数)?(?:为|是|共)?\s*(\d+)\s*次"
    _PARALLEL = (r"(?<!不)(?:同时访问|同时启动|并行访问|同时(?:对|向)?(?:Cache|cache|主存))"
                 r"|(?:未命中|不命中|缺失)时?(?:的)?(?:访问|存取)?时间按主存")
    _SERIAL = r"先访问(?:Cache|cache|高速缓存)|(?:未命中|不命中|缺失)[^，。？]{0,6}(?:再|才)(?:访问)?(?:主存|内存)"

    def match(self, q: str) -> Optional[str]:
        if not re.search(self._CACHE, q) or re.search(r"快表|TLB|页表|缺页|L1|L2|一级Cache|二级Cache|写回|全写", q):
            return None
        if mentioned("块调入", q):
            return None
        ask_time = bool(re.search(r"平均(?:访问|存取|访存)时间|平均时间", q))
        ask_efficiency = bool(re.search(r"效率", q))
        ask_rate = bool(re.search(r"命中率[^，。,]{0,6}(?:是|为)?\s*(?:多少|几)|(?:求|计算|算出)[^，。,]{0,8}命中率", q))
        rate, hits, misses = unique(self._RATE, q), unique(self._HITS, q), unique(self._MISSES, q)
        total = unique(self._TOTAL, q) if hits is not None and misses is None else None  # 一共访存5000次，其中命中4800次
        if (rate is None) == (hits is None or (misses is None and total is None)) or not (ask_time or ask_efficiency or ask_rate):
            return None
        p = Program()
        if rate is None:
            p.given("hits", hits.group(1) or hits.group(2), "Cache完成存取次数")
            if total is not None:
                if int(total.group(1)) <= int(hits.group(1) or hits.group(2)):
                    return None
                p.given("total", total.group(1), "访存总次数")
                p.line("misses", "total - hits", "主存完成存取次数")
            else:
                p.given("misses", misses.group(1) or misses.group(2), "主存完成存取次数")
            p.line("hit", "hits / (hits + misses)", "命中率")
            if ask_rate:
                p.line("answer" if not (ask_time or ask_efficiency) else "answer_rate", "round(hit * 100, 2)", "命中率", "%")
            if not (ask_time or ask_efficiency):
                return p.source()
        elif rate.group(1):
            if not 0 <= float(rate.group(1)) <= 100:
                return None
            p.given("hit_pct", rate.group(1), "命中率", "%")
            p.line("hit", "hit_pct / 100", "命中率")
        else:
            p.given("hit", rate.group(2), "命中率")
        if ask_rate and rate is not None:
            return None  # the hit rate is given
        parallel, serial = bool(re.search(self._PARALLEL, q)), bool(re.search(self._SERIAL, q))
        tc = in_clause(q, self._CACHE, self._TIME, without=r"主存|内存")
        tm = in_clause(q, r"主存|内存", self._TIME, without=self._CACHE)
        if tc is None or tm is None or parallel == serial:
            return None
        if tc.group(2) != tm.group(2):
            return None
        unit = TIME_NS[tc.group(2)][0]
        p.given("tc", tc.group(1), "Cache存取时间", unit)
        p.given("tm", tm.group(1), "主存存取时间", unit)
        miss = "tm" if parallel else "(tc + tm)"
        name = "answer" if not ask_efficiency else "answer_time" if ask_time else "average"
        p.line(name, f"hit * tc + (1 - hit) * {miss}", "平均访问时间", unit)
        if ask_efficiency:
            p.line("answer", f"round(tc / {name} * 100, 2)", "访问效率", "%")
        return p.source()
