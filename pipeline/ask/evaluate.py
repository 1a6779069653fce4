"""Retrieval evaluation over a QA file (lines like shared/eval/dev.jsonl): hit@1/3/5 and MRR@10.

A retrieved chunk is a hit when it comes from a gold file and contains a gold passage after removing
whitespace and markdown markup; a table passage (``a|b``) needs every cell; OCR'd text may differ
slightly (similarity ≥ ``FUZZY_MIN`` over an aligned window, for passages of ≥ 10 characters).
"""

from __future__ import annotations

import difflib
import json
import re
from pathlib import Path
from typing import Iterator, Optional

from pipeline.models import Hit

FUZZY_MIN = 0.85
KS = (1, 3, 5)
MRR_DEPTH = 10
_MARKUP = re.compile(r"[\s*#>`|_~\[\]$]|==|<br\s*/?>|\\(?=\S)")


def normalise(text: str) -> str:
    return _MARKUP.sub("", text)


def _fuzzy_in(needle: str, hay: str) -> bool:
    if len(needle) < 10 or len(hay) < len(needle) * 0.8:
        return False
    step = max(1, len(needle) // 4)
    for start in range(0, max(1, len(hay) - len(needle) + step), step):
        window = hay[start:start + len(needle) + 4]
        if difflib.SequenceMatcher(None, needle, window, autojunk=False).ratio() >= FUZZY_MIN:
            return True
    return False


def passage_in(contains: str, text: str) -> bool:
    hay = normalise(text)
    cells = [normalise(c) for c in contains.split("|") if normalise(c)]
    if len(cells) > 1:
        return all(c in hay for c in cells)
    needle = normalise(contains)
    return needle in hay or _fuzzy_in(needle, hay)


def same_file(source: str, gold_file: str) -> bool:
    return source == gold_file or source.replace("\\", "/").endswith("/" + gold_file)


def is_hit(hit: Hit, gold: list[dict]) -> bool:
    """A merged past-paper question counts as coming from every file it drew on."""
    files = hit.sources or [hit.source]
    return any(any(same_file(f, g["file"]) for f in files) and passage_in(g["contains"], hit.text) for g in gold)


def read_questions(path: Path) -> Iterator[dict]:
    with open(path, encoding="utf-8") as fh:
        for n, line in enumerate(fh, start=1):
            if line.strip():
                try:
                    yield json.loads(line)
                except json.JSONDecodeError as exc:
                    raise ValueError(f"{path}:{n}: not JSON ({exc.msg})") from None


def first_hit_rank(hits: list[Hit], gold: list[dict]) -> Optional[int]:
    for h in hits:
        if is_hit(h, gold):
            return h.rank
    return None


def summarise(rows: list[dict]) -> dict:
    def block(items: list[dict]) -> dict:
        n = len(items)
        out = {"n": n}
        for k in KS:
            out[f"hit@{k}"] = round(sum(1 for r in items if r["rank"] and r["rank"] <= k) / n, 3) if n else 0.0
        out["mrr"] = round(sum(1 / r["rank"] for r in items if r["rank"] and r["rank"] <= MRR_DEPTH) / n, 3) if n else 0.0
        return out

    summary = block(rows)
    kinds = sorted({r["kind"] for r in rows})
    summary["by_kind"] = {k: block([r for r in rows if r["kind"] == k]) for k in kinds}
    return summary
