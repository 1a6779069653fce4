"""Rule ``watermark``: configured watermark strings, also when OCR scatters their characters."""

from __future__ import annotations

import re

from pipeline.clean.rules.base import Work


def strip_watermarks(line: str, watermarks: list[str]) -> str:
    """``line`` without any occurrence of the watermark strings, or ``""`` when nothing real is
    left: a line made only of watermark characters (e.g. ``王``, ``道 考``) is all watermark."""
    for w in watermarks:
        if w in line:
            line = re.sub(r"[ \t]{2,}", " ", line.replace(w, " ")).strip()
    chars = set("".join(watermarks))
    bare = re.sub(r"\s+", "", line)
    if not bare or (chars and set(bare) <= chars and len(bare) <= max(len(w) for w in watermarks)):
        return ""
    return line


def watermark(work: Work) -> None:
    """Remove ``watermarks`` strings from every heading/text line; drop lines left empty and lines
    that consist only of watermark characters (at most as many as the longest watermark). Single
    watermark characters inside real text are kept: they cannot be told apart from the text."""
    marks = [w for w in work.rules.watermarks if w.strip()]
    if not marks:
        return
    for b in work.blocks:
        if b.kind in ("heading", "text"):
            b.lines = [strip_watermarks(s, marks) for s in b.lines]
    work.filter_lines("watermark", lambda b, s: not s.strip())
