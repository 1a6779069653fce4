"""Calculation rules of computer organisation: how a main-memory address splits for a cache, and the
time of an instruction pipeline without stalls. See pipeline/ask/calc_rules.py."""

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
