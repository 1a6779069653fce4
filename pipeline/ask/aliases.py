"""Other names of what a question names, for retrieval: a student writes 动态半导体存储器 or 快表, the
notes write DRAM or TLB. The groups live in ``aliases.txt`` beside this module (one group per line,
names joined by ``=``; edit freely, nothing is re-indexed: it is read on the query side only).

Only names the index knows as one word are added to a question's BM25 query (:func:`added_tokens`):
an abbreviation's Chinese full name would add its generic parts (传输, 控制, 协议 for TCP) and pull
generic passages up; the single word (``dram``, ``tlb``, ``快表``) only finds the thing itself.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

ALIASES_FILE = Path(__file__).with_name("aliases.txt")


@lru_cache(maxsize=4)
def load_groups(path: Path = ALIASES_FILE) -> tuple[tuple[str, ...], ...]:
    """The alias groups of ``path`` (``#`` comments, blank lines skipped; a group needs two names)."""
    if not path.exists():
        return ()
    groups = []
    for line in path.read_text("utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        names = tuple(n.strip() for n in line.split("=") if n.strip())
        if len(names) >= 2:
            groups.append(names)
    return tuple(groups)


def _named(name: str, text: str) -> bool:
    """``name`` occurs in ``text`` (lower-cased); a Latin name only as a whole word (TCP, not in TCPIP)."""
    low = name.lower()
    if re.fullmatch(r"[a-z0-9+\-/]+", low):
        return re.search(rf"(?<![a-z0-9]){re.escape(low)}(?![a-z0-9])", text) is not None
    return low in text


def other_names(text: str, path: Path = ALIASES_FILE) -> list[str]:
    """The other names of every group one of whose names ``text`` (normalised) uses, in file order."""
    low = text.lower()
    out: list[str] = []
    for group in load_groups(path):
        if any(_named(n, low) for n in group):
            out += [n for n in group if not _named(n, low) and n not in out]
    return out


def added_tokens(text: str, tokens: list[str], vocab, path: Path = ALIASES_FILE) -> list[str]:
    """The other names of ``text``'s things that the index knows as one word and ``tokens`` lack,
    lower-cased as the index stores them."""
    if not vocab:
        return []
    have = set(tokens)
    out = []
    for name in other_names(text, path):
        word = name.lower()
        if word in vocab and word not in have:
            have.add(word)
            out.append(word)
    return out
