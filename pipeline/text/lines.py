"""Line helpers shared by parse (page verdicts) and clean (header/footer rules)."""

from __future__ import annotations

import re

_SPACE = re.compile(r"\s+")
_DIGITS = re.compile(r"\d+")


def repeat_key(line: str) -> str:
    """What makes two running header/footer lines "the same": whitespace removed, each run of digits
    → ``#`` (``第 12 页 共 30 页`` and ``第9页共10页`` are one line)."""
    return _DIGITS.sub("#", _SPACE.sub("", line))
