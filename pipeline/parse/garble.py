"""Decide, per PDF page, whether the text layer can be trusted.

Verdicts: ``good`` (use the text layer), ``missing`` (too little text, or only text repeated on
most pages such as a seller's footer, while the page carries an image: OCR it), ``garbled`` (text
is mojibake, glyph junk or not the expected language: OCR it). Thresholds are settings:

- ``garble_min_chars`` (20): fewer non-space characters than this counts as no text.
- ``garble_max_bad_ratio`` (0.05): share of U+FFFD, private-use and control characters.
- ``garble_min_cjk_ratio`` (0.2): share of CJK among letters, for documents expected in Chinese.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_LETTER = re.compile(r"[^\W\d_]", re.UNICODE)
_BAD = re.compile(r"[\ufffd\ue000-\uf8ff\x00-\x08\x0b\x0c\x0e-\x1f]")


@dataclass(frozen=True)
class GarbleThresholds:
    min_chars: int = 20
    max_bad_ratio: float = 0.05
    min_cjk_ratio: float = 0.2


def text_stats(text: str) -> tuple[int, float, float]:
    """(non-space chars, bad-char ratio, CJK share among letters)."""
    compact = re.sub(r"\s+", "", text)
    n = len(compact)
    if n == 0:
        return 0, 0.0, 0.0
    bad = len(_BAD.findall(compact)) / n
    letters = _LETTER.findall(compact)
    cjk = len(_CJK.findall(compact))
    cjk_ratio = cjk / len(letters) if letters else 0.0
    return n, bad, cjk_ratio


def classify_page(text: str, *, has_image: bool, expect_cjk: bool, th: GarbleThresholds) -> str:
    """Return good / missing / garbled for one page's text layer (boilerplate already removed)."""
    n, bad, cjk_ratio = text_stats(text)
    if n < th.min_chars:
        return "missing" if has_image else "good"
    if bad > th.max_bad_ratio:
        return "garbled"
    if expect_cjk and cjk_ratio < th.min_cjk_ratio:
        return "garbled"
    return "good"


def repeated_lines(pages: list[str], min_share: float = 0.5) -> set[str]:
    """Lines (digits normalised) present on at least ``min_share`` of pages (min 2): boilerplate."""
    if len(pages) < 2:
        return set()
    counts: dict[str, int] = {}
    for text in pages:
        for key in {normalise_line(l) for l in text.splitlines() if l.strip()}:
            counts[key] = counts.get(key, 0) + 1
    need = max(2, int(len(pages) * min_share + 0.999))
    return {k for k, c in counts.items() if c >= need}


def normalise_line(line: str) -> str:
    return re.sub(r"\d+", "#", re.sub(r"\s+", "", line))


def strip_lines(text: str, boiler: set[str]) -> str:
    return "\n".join(l for l in text.splitlines() if normalise_line(l) not in boiler)
