"""Exam simulations a calculation program may call by name (pipeline/ask/program.py).

A 408 question about page replacement, Huffman coding or hashing needs a simulation, and a 1.5B
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
  average number of key comparisons of a successful search. The unsuccessful one is left out: books
  differ on whether the comparison with the empty slot counts and on averaging over ``mod`` or ``m``.
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence
from typing import Optional

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


def linear_probe(keys: Sequence[int], m: int, mod: Optional[int] = None) -> float:
    """Average successful search length (key comparisons) of linear probing; see the module docstring."""
    keys = _int_list(keys, "keys")
    m = _positive_int(m, "m", MAX_TABLE)
    mod = m if mod is None else _positive_int(mod, "mod", m)
    if len(set(keys)) != len(keys):
        raise ValueError("keys must be distinct")
    if not keys or len(keys) > m:
        raise ValueError(f"{len(keys)} keys do not fit a table of {m} slots (need 1 to {m})")
    table: list[Optional[int]] = [None] * m
    comparisons = 0
    for key in keys:
        slot, probes = key % mod, 1
        while table[slot] is not None:
            slot, probes = (slot + 1) % m, probes + 1
        table[slot] = key
        comparisons += probes  # finding it later retraces exactly these probes
    return comparisons / len(keys)


def hamming_bits(data_bits: int) -> int:
    """Check bits a Hamming code needs to correct one error in ``data_bits`` data bits: the least
    ``r`` with ``2**r >= data_bits + r + 1`` (each of the n + r positions, and "no error", gets a syndrome)."""
    n = _positive_int(data_bits, "data_bits", 1 << 20)
    r = 1
    while (1 << r) < n + r + 1:
        r += 1
    return r


SIMULATIONS = {f.__name__: f for f in (fifo_faults, lru_faults, opt_faults, huffman_wpl, linear_probe, hamming_bits)}
