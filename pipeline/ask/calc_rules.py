"""Calculation programs written by rule, not by the model (issue 23): the standard 408 calculation
types, each a small named rule that reads its data from the question's wording.

The packaged 1.5B model copies wrong numbers into a formula (another example's 2**32, 2**12), so a
formula is written by rule instead: each :class:`~pipeline.ask.calc_text.Rule` recognises one type of
question, reads every datum it needs with a pattern that must match exactly once (or repeat the same
value), and writes the program from the question's own numbers (``page_kb = 2  # 页面大小（KB）``,
``page = page_kb * 1024``, ``offset = addr % page``…, ``answer = …  # 物理地址``). The sandbox runs it
and ``calculate.solve`` still checks it: every literal a number the question gives or a unit constant,
every number the question gives used. A wrong answer is worse than none, so a rule gives no program
(None) for anything it is not sure of: a datum missing or stated twice with two values, a convention
the wording does not settle (serial or parallel TLB lookup), a variant it does not compute (a
two-level page table, a pipeline with stalls). Each rule's docstring says what it reads and which
convention it uses (the exam's standard one).

:func:`ruled_program` runs every rule; the program is the one rule's that matches. Two rules matching
is a question of two types (or a misreading): no program. The order of ``RULES`` is only the order
they are listed in.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Optional

from pipeline.ask.calc_rules_co import (
    BusBandwidth,
    CacheAccessTime,
    CacheAddressSplit,
    ChipCount,
    CpuTime,
    PipelineTime,
)
from pipeline.ask.calc_rules_counts import (AvlNodes, DeadlockResources, DiskSeek, DummyRuns, FloatEncoding, IpFragments,
                                            MicroFieldBits, RouteAggregation, StackSequences)
from pipeline.ask.calc_rules_forms import CompleteGraphEdges, IntegerRange, TreeIndex
from pipeline.ask.calc_rules_link import SlidingWindow, StopWaitUtilisation
from pipeline.ask.calc_rules_net import (
    FrameDelay,
    MinFrameLength,
    NyquistRate,
    ShannonRate,
    SubnetAddresses,
    SubnetHosts,
    TransmitDelay,
)
from pipeline.ask.calc_rules_os import (
    DiskAccessTime,
    IndexedFileSize,
    PageTableLevels,
    PageTableSpace,
    PagingAddress,
    RotationalLatency,
    TlbAccessTime,
)
from pipeline.ask.calc_rules_sim import (
    BinarySearchAsl,
    BinaryTreeCounts,
    CompleteBinaryTree,
    CrcRemainder,
    HammingBits,
    HuffmanWpl,
    LinearProbingHash,
    PageFaults,
    Scheduling,
)
from pipeline.ask.calc_rules_tcp import CongestionWindow
from pipeline.ask.calc_text import Rule
from pipeline.ask.question import Asked, asked_of

RULES: tuple[Rule, ...] = (
    # simulations (pipeline/ask/simulations.py)
    PageFaults(), HuffmanWpl(), HammingBits(), BinarySearchAsl(), CrcRemainder(), LinearProbingHash(), Scheduling(),
    # formulas
    PagingAddress(), PageTableSpace(), TlbAccessTime(), DiskAccessTime(), RotationalLatency(), IndexedFileSize(),
    PageTableLevels(), CacheAddressSplit(), PipelineTime(), ChipCount(), CpuTime(), BusBandwidth(),
    CacheAccessTime(),
    FrameDelay(), TransmitDelay(), SlidingWindow(), NyquistRate(), ShannonRate(), SubnetHosts(),
    SubnetAddresses(), StopWaitUtilisation(),
    MinFrameLength(),
    BinaryTreeCounts(), CompleteBinaryTree(),
    IntegerRange(), CompleteGraphEdges(), CongestionWindow(), TreeIndex(),
    StackSequences(), DeadlockResources(), DummyRuns(), MicroFieldBits(), DiskSeek(), IpFragments(), RouteAggregation(), AvlNodes(), FloatEncoding(),
)


# a space beside a Chinese character (`Cache 完成存取 1900 次`, `2K×4位 的 SRAM 芯片`): spacing, not a separator
_SPACE_BY_CJK = re.compile(r"\s+(?=[\u3400-\u9fff\uff00-\uffef，。；：？！、（）])|(?<=[\u3400-\u9fff\uff00-\uffef，。；：？！、（）])\s+")


def compact(q: str) -> str:
    """The question as the rules read it: no space beside a Chinese character (Latin words keep theirs)."""
    return _SPACE_BY_CJK.sub("", q)


def ruled(question: "str | Asked") -> Optional[tuple[str, str]]:
    """(the rule's name, its program) when exactly one rule recognises the question; None otherwise."""
    return ruled_norm(asked_of(question).norm)


def ruled_norm(norm: str) -> Optional[tuple[str, str]]:
    """:func:`ruled` of a question already normalised (``sentences.normalise``): no analysis made."""
    return _ruled(compact(norm), RULES)


@lru_cache(maxsize=256)
def _ruled(q: str, rules: tuple[Rule, ...]) -> Optional[tuple[str, str]]:
    """Kept for the last questions: one answer asks up to three times (its kind, whether a program
    applies, the program), and every rule is a pure function of the text. Keyed by the rule set too."""
    found = [(rule.name, program) for rule in rules if (program := rule.match(q)) is not None]
    return found[0] if len(found) == 1 else None


def conventions(rule_name: str) -> frozenset[float]:
    """The numbers a rule's method fixes (IPv4's 32 bits), which its program may write though the
    question does not; empty for any other name."""
    return next((rule.conventions for rule in RULES if rule.name == rule_name), frozenset())


def ruled_program(question: str) -> Optional[str]:
    """The program of a question one rule recognises, from the question's own numbers; None otherwise."""
    found = ruled(question)
    return found[1] if found else None
