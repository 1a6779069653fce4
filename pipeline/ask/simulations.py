"""Exam simulations a calculation program may call by name (pipeline/ask/program.py).

A 408 question about page replacement, Huffman coding, hashing, binary search or CRC needs a simulation, and a 1.5B
model's hand-written loop for one is where it goes wrong: these are maintained, tested versions it
calls instead (``fifo_faults([7, 0, 1, 2, 0], 3)``). Pure functions over plain lists; every input is
type-checked and capped, because the arguments come from model-written programs.

Conventions, chosen so that each answer is unambiguous:
- page replacement: the frames start empty and every miss is a fault, the cold misses that fill the
  empty frames included (the count 408 answers use; subtract ``frames`` for "replacements");
- ``huffman_wpl``: the weighted path length of an optimal (Huffman) tree, which every tie-breaking
  order gives alike; one weight alone is a tree of one leaf at depth 0, so 0;
- ``hamming_bits``: check bits for single-error correction (not the SEC-DED extra parity bit);
- ``linear_probe``: keys inserted in the given order into an empty table of ``m`` slots with
  ``H(k) = k % mod`` (``mod`` defaults to ``m``) and probes ``(H(k) + i) % m``; the result is the
  average number of key comparisons of a successful search. ``linear_probe_table`` is the table after
  the inserts (``EMPTY`` for a free slot), ``linear_probe_probes`` each key's comparisons in the order
  given. ``linear_probe_misses`` is the unsuccessful search from each of the ``mod`` addresses the hash
  can give, in the 408 convention (books differ): probes up to the first empty slot, the comparison
  with the empty slot counted (an empty home slot costs 1); a full table has no empty slot to stop at
  and is refused;
- ``binary_search_asl``: the textbook's decision tree over positions 1..n with ``mid = (low + high) // 2``
  (the lower middle), every element equally likely; a search for the element at depth d compares d keys;
- ``crc_remainder``: bit strings (``"101001"``, so leading zeros stay), the remainder of the info bits
  followed by as many zeros as the generator's degree, divided mod 2 (XOR, no carries) by the generator.
  ``to_bits(n)`` writes a number in binary: a polynomial evaluated at x = 2 is its bit string
  (``to_bits(2 ** 3 + 2 ** 2 + 1)`` is ``"1101"`` for x^3+x^2+1).
- ``catalan(n)``: the pop orders of n distinct elements pushed in a fixed order;
- ``fcfs_seek`` / ``sstf_seek``: tracks the disk head moves from ``start`` serving ``requests`` in the
  order given, or nearest first (a tie between two sides is refused: the algorithm does not settle it);
- ``float_bits`` / ``float_hex``: a value's IEEE 754 single (32) or double (64) code, round to nearest;
- ``fraction_text(9, 10)`` writes a ratio of two counts as ``"9/10"`` (a fault rate, an ASL's sum over
  its count), beside its decimal value.
"""

from __future__ import annotations

import heapq
import math
import struct
from collections.abc import Sequence
from typing import Optional

from pipeline.ask.scheduling import SCHEDULING

MAX_ITEMS = 10_000  # a reference string, weight list or key list longer than this is not an exam question
MAX_FRAMES = 1_000
MAX_TABLE = 100_000


def _int_list(values: object, what: str, *, max_items: int = MAX_ITEMS) -> list[int]:
    if not isinstance(values, (list, tuple)):
        raise TypeError(f"{what} must be a list of integers, not {type(values).__name__}")
    if len(values) > max_items:
        raise ValueError(f"{what} has {len(values)} items; at most {max_items}")
    for v in values:
        if isinstance(v, bool) or not isinstance(v, int):
            raise TypeError(f"{what} must hold integers, not {type(v).__name__}")
    return list(values)


def _positive_int(value: object, what: str, upper: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{what} must be an integer, not {type(value).__name__}")
    if not 1 <= value <= upper:
        raise ValueError(f"{what} must be between 1 and {upper}, not {value}")
    return value


def fifo_faults(refs: Sequence[int], frames: int) -> int:
    """Page faults of FIFO replacement: on a fault with full frames, the page loaded first leaves."""
    refs = _int_list(refs, "refs")
    frames = _positive_int(frames, "frames", MAX_FRAMES)
    resident: list[int] = []  # in load order
    faults = 0
    for page in refs:
        if page in resident:
            continue
        faults += 1
        if len(resident) == frames:
            resident.pop(0)
        resident.append(page)
    return faults


def lru_faults(refs: Sequence[int], frames: int) -> int:
    """Page faults of LRU replacement: on a fault with full frames, the least recently used page leaves."""
    refs = _int_list(refs, "refs")
    frames = _positive_int(frames, "frames", MAX_FRAMES)
    resident: list[int] = []  # least recently used first
    faults = 0
    for page in refs:
        if page in resident:
            resident.remove(page)
        else:
            faults += 1
            if len(resident) == frames:
                resident.pop(0)
        resident.append(page)
    return faults


def opt_faults(refs: Sequence[int], frames: int) -> int:
    """Page faults of OPT (Belady): on a fault with full frames, the page used again farthest ahead
    leaves (one never used again first). Which of several never-used pages leaves changes no count."""
    refs = _int_list(refs, "refs")
    frames = _positive_int(frames, "frames", MAX_FRAMES)
    resident: list[int] = []
    faults = 0
    for i, page in enumerate(refs):
        if page in resident:
            continue
        faults += 1
        if len(resident) == frames:
            future = refs[i + 1:]
            resident.remove(max(resident, key=lambda p: future.index(p) if p in future else len(future)))
        resident.append(page)
    return faults


def huffman_wpl(weights: Sequence[float]) -> float | int:
    """Weighted path length of a Huffman tree: the sum of the weights of the merged (inner) nodes."""
    if not isinstance(weights, (list, tuple)) or not weights:
        raise TypeError("weights must be a non-empty list of positive numbers")
    if len(weights) > MAX_ITEMS:
        raise ValueError(f"weights has {len(weights)} items; at most {MAX_ITEMS}")
    for w in weights:
        if isinstance(w, bool) or not isinstance(w, (int, float)) or not w > 0:
            raise ValueError(f"weights must be positive numbers, not {w!r}")
    heap = list(weights)
    heapq.heapify(heap)
    total = 0
    while len(heap) > 1:
        merged = heapq.heappop(heap) + heapq.heappop(heap)
        total += merged
        heapq.heappush(heap, merged)
    return total


EMPTY = "空"  # a free slot of a hash table as shown


def _probe_inserts(keys: Sequence[int], m: int, mod: Optional[int]) -> tuple[list[Optional[int]], list[int], int]:
    """(the table, each key's comparisons, mod) after inserting ``keys`` in order with linear probing."""
    keys = _int_list(keys, "keys")
    m = _positive_int(m, "m", MAX_TABLE)
    mod = m if mod is None else _positive_int(mod, "mod", m)
    if len(set(keys)) != len(keys):
        raise ValueError("keys must be distinct")
    if not keys or len(keys) > m:
        raise ValueError(f"{len(keys)} keys do not fit a table of {m} slots (need 1 to {m})")
    table: list[Optional[int]] = [None] * m
    probes = []
    for key in keys:
        slot, n = key % mod, 1
        while table[slot] is not None:
            slot, n = (slot + 1) % m, n + 1
        table[slot] = key
        probes.append(n)  # finding it later retraces exactly these probes
    return table, probes, mod


def linear_probe(keys: Sequence[int], m: int, mod: Optional[int] = None) -> float:
    """Average successful search length (key comparisons) of linear probing; see the module docstring."""
    _, probes, _ = _probe_inserts(keys, m, mod)
    return sum(probes) / len(probes)


def linear_probe_table(keys: Sequence[int], m: int, mod: Optional[int] = None) -> list:
    """The table after inserting ``keys`` in order, slot 0 first: a key, or ``EMPTY``."""
    table, _, _ = _probe_inserts(keys, m, mod)
    return [EMPTY if k is None else k for k in table]


def linear_probe_probes(keys: Sequence[int], m: int, mod: Optional[int] = None) -> list[int]:
    """Each key's comparisons when it is searched for (as when it was inserted), in the order given."""
    _, probes, _ = _probe_inserts(keys, m, mod)
    return probes


def linear_probe_misses(keys: Sequence[int], m: int, mod: Optional[int] = None) -> list[int]:
    """Comparisons of an unsuccessful search starting at each address 0..mod-1, up to and counting the
    first empty slot (the module docstring's convention)."""
    table, _, mod = _probe_inserts(keys, m, mod)
    if None not in table:
        raise ValueError("a full table has no empty slot: an unsuccessful search never stops")
    out = []
    for start in range(mod):
        slot, n = start, 1
        while table[slot] is not None:
            slot, n = (slot + 1) % m, n + 1
        out.append(n)
    return out


def fraction_text(numerator: int, denominator: int) -> str:
    """``"9/5"``: a ratio as the exam writes it, not reduced (the counts stay visible)."""
    for v, what in ((numerator, "numerator"), (denominator, "denominator")):
        if isinstance(v, bool) or not isinstance(v, int):
            raise TypeError(f"{what} must be an integer, not {type(v).__name__}")
    if denominator <= 0 or numerator < 0:
        raise ValueError(f"fraction_text() takes a count over a positive count, not {numerator}/{denominator}")
    return f"{numerator}/{denominator}"


def hamming_bits(data_bits: int) -> int:
    """Check bits a Hamming code needs to correct one error in ``data_bits`` data bits: the least
    ``r`` with ``2**r >= data_bits + r + 1`` (each of the n + r positions, and "no error", gets a syndrome)."""
    n = _positive_int(data_bits, "data_bits", 1 << 20)
    r = 1
    while (1 << r) < n + r + 1:
        r += 1
    return r


def binary_search_asl(n: int) -> float:
    """Average key comparisons of a successful binary search over n sorted elements: the sum of the
    elements' depths in the decision tree (root at depth 1) over n."""
    return binary_search_comparisons(n) / n


def binary_search_comparisons(n: int) -> int:
    """The key comparisons of finding each of n sorted elements once by binary search (mid = (low +
    high) // 2), summed: the elements' depths in the decision tree, root at depth 1."""
    n = _positive_int(n, "n", MAX_TABLE)
    total, stack = 0, [(1, n, 1)]  # (low, high, depth of their middle)
    while stack:
        low, high, depth = stack.pop()
        if low > high:
            continue
        mid = (low + high) // 2
        total += depth
        stack += [(low, mid - 1, depth + 1), (mid + 1, high, depth + 1)]
    return total


MAX_BITS = 1_000  # an exam frame is tens of bits


def _bit_string(value: object, what: str) -> str:
    if not isinstance(value, str) or not value or len(value) > MAX_BITS or set(value) - {"0", "1"}:
        raise ValueError(f"{what} must be a string of 1 to {MAX_BITS} characters 0 and 1, not {value!r}")
    return value


def crc_remainder(info: str, generator: str) -> str:
    """The CRC check bits of ``info`` for ``generator`` (both bit strings): the remainder of
    ``info`` + degree zeros divided mod 2 by the generator, ``degree`` bits long."""
    info = _bit_string(info, "info")
    generator = _bit_string(generator, "generator")
    if len(generator) < 2 or generator[0] != "1":
        raise ValueError(f"a generator starts with 1 and has degree 1 or more, not {generator!r}")
    degree = len(generator) - 1
    bits = [int(b) for b in info + "0" * degree]
    divisor = [int(b) for b in generator]
    for i in range(len(info)):
        if bits[i]:
            for j, d in enumerate(divisor):
                bits[i + j] ^= d
    return "".join(str(b) for b in bits[-degree:])


def to_bits(n: int) -> str:
    """A non-negative integer in binary digits, without a prefix: 13 → ``"1101"``."""
    if isinstance(n, bool) or not isinstance(n, int) or not 0 <= n < 1 << MAX_BITS:
        raise ValueError(f"to_bits() takes an integer from 0 to 2**{MAX_BITS}, not {n!r}")
    return format(n, "b")


def to_hex(n: int) -> str:
    """A non-negative integer as the exam writes hex: upper-case digits and H, 129596 → ``"1FA3CH"``."""
    if isinstance(n, bool) or not isinstance(n, int) or not 0 <= n < 1 << MAX_BITS:
        raise ValueError(f"to_hex() takes an integer from 0 to 2**{MAX_BITS}, not {n!r}")
    return format(n, "X") + "H"


MAX_ROUNDS = 1_000  # transmission rounds of a congestion-window question


def tcp_windows(cwnd: int, ssthresh: int, rounds: int) -> list[int]:
    """The congestion window after each of ``rounds`` transmission rounds, every segment acknowledged:
    slow start doubles it, but not past ``ssthresh`` (it stops at the threshold); from there congestion
    avoidance adds one segment a round. In segments (MSS)."""
    cwnd = _positive_int(cwnd, "cwnd", MAX_TABLE)
    ssthresh = _positive_int(ssthresh, "ssthresh", MAX_TABLE)
    rounds = _positive_int(rounds, "rounds", MAX_ROUNDS)
    out = []
    for _ in range(rounds):
        cwnd = min(cwnd * 2, ssthresh) if cwnd < ssthresh else cwnd + 1
        out.append(cwnd)
    return out


def ip_value(octets: Sequence[int]) -> int:
    """An IPv4 address's four numbers as its 32-bit value: [192, 168, 1, 2] → 3232235778."""
    octets = _int_list(octets, "octets", max_items=4)
    if len(octets) != 4 or any(not 0 <= o <= 255 for o in octets):
        raise ValueError(f"an IPv4 address is four numbers 0 to 255, not {octets!r}")
    return ((octets[0] * 256 + octets[1]) * 256 + octets[2]) * 256 + octets[3]


def to_dotted(n: int) -> str:
    """A 32-bit value as the dotted address the exam writes: 3232235778 → ``"192.168.1.2"``."""
    if isinstance(n, bool) or not isinstance(n, int) or not 0 <= n < 1 << 32:
        raise ValueError(f"to_dotted() takes an integer from 0 to 2**32 - 1, not {n!r}")
    return ".".join(str(n >> shift & 255) for shift in (24, 16, 8, 0))


MAX_CATALAN = 30  # elements of a stack-permutation count (C(60, 30)/31 is already 3.8e15)
MAX_TRACK = 1_000_000


def catalan(n: int) -> int:
    """How many pop orders n distinct elements pushed in a fixed order can leave a stack in:
    the n-th Catalan number C(2n, n) / (n + 1)."""
    n = _positive_int(n, "n", MAX_CATALAN)
    out = 1
    for i in range(n):  # C(i+1) = C(i) * 2(2i + 1) / (i + 2), exact at every step
        out = out * 2 * (2 * i + 1) // (i + 2)
    return out


def _tracks(start: object, requests: object) -> tuple[int, list[int]]:
    reqs = _int_list(requests, "requests")
    if isinstance(start, bool) or not isinstance(start, int) or not 0 <= start <= MAX_TRACK:
        raise ValueError(f"start must be a track from 0 to {MAX_TRACK}, not {start!r}")
    if not reqs or any(not 0 <= r <= MAX_TRACK for r in reqs):
        raise ValueError(f"requests must be tracks from 0 to {MAX_TRACK}")
    return start, reqs


def fcfs_seek(start: int, requests: Sequence[int]) -> int:
    """Tracks the head moves serving ``requests`` in the order given (先来先服务 FCFS)."""
    head, reqs = _tracks(start, requests)
    total = 0
    for r in reqs:
        total, head = total + abs(r - head), r
    return total


def sstf_seek(start: int, requests: Sequence[int]) -> int:
    """Tracks the head moves under 最短寻找时间优先 (SSTF): always the pending request nearest the head.
    Two pending requests equally near on either side have no rule to choose between them: refused."""
    head, pending = _tracks(start, requests)
    total = 0
    while pending:
        nearest = min(abs(r - head) for r in pending)
        sides = {r for r in pending if abs(r - head) == nearest}
        if len(sides) > 1:
            raise ValueError(f"tracks {sorted(sides)} are equally near track {head}: SSTF does not say which is next")
        r = sides.pop()
        pending.remove(r)
        total, head = total + nearest, r
    return total


def _float_code(x: object, width: object) -> int:
    if isinstance(x, bool) or not isinstance(x, (int, float)) or not math.isfinite(x):
        raise ValueError(f"x must be a finite number, not {x!r}")
    if width not in (32, 64):
        raise ValueError(f"an IEEE 754 code here is 32 or 64 bits, not {width!r}")
    try:
        packed = struct.pack(">f" if width == 32 else ">d", float(x))
    except OverflowError:
        raise ValueError(f"{x} is out of range of a {width}-bit float") from None
    return int.from_bytes(packed, "big")


def float_bits(x: float, width: int = 32) -> str:
    """``x`` as an IEEE 754 single (32) or double (64) machine code, bit by bit, round to nearest."""
    return format(_float_code(x, width), f"0{width}b")


def float_hex(x: float, width: int = 32) -> str:
    """The same code in hex as the exam writes it: -5.5 → ``"C0B00000H"``."""
    return format(_float_code(x, width), f"0{width // 4}X") + "H"


SIMULATIONS = {f.__name__: f for f in (fifo_faults, lru_faults, opt_faults, huffman_wpl, linear_probe, linear_probe_table,
                                       linear_probe_probes, linear_probe_misses, hamming_bits, binary_search_asl,
                                       binary_search_comparisons, crc_remainder, to_bits, to_hex, fraction_text, ip_value, to_dotted,
                                       tcp_windows, catalan, fcfs_seek, sstf_seek, float_bits, float_hex)} | SCHEDULING
# what only writes a value another way (a number in binary or hex, a ratio as a fraction): no simulation's result
FORMATTERS = frozenset({"to_bits", "to_hex", "fraction_text", "ip_value", "to_dotted", "float_hex"})
