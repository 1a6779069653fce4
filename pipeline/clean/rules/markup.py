"""Rule ``markup``: markdown images and HTML tags in notes → their text."""

from __future__ import annotations

from pipeline.clean.rules.base import Work, rx


def strip_markup(line: str, replacements) -> str:
    """``line`` with every ``markup_replacements`` pattern replaced, in order."""
    for r in replacements:
        line = rx(r.pattern).sub(r.repl, line)
    return line


def markup(work: Work) -> None:
    """Apply ``markup_replacements`` (pattern → replacement, in order) to heading and text lines:
    a markdown image becomes its alt text (nothing for an automatic name such as ``image-2024…``), an
    ``<img>`` its alt, ``<sup>2</sup>`` ``^2``, ``<br>`` a space, and other layout tags (``<div>``,
    ``<span>``, ``<font>``, ``<u>`` …) are dropped with their text kept. Code blocks are left alone
    (``#include <stdio.h>``). Lines left empty are removed and counted. No thresholds."""
    reps = work.rules.markup_replacements
    if not reps:
        return
    for b in work.blocks:
        if b.kind in ("heading", "text"):
            b.lines = [s if s.strip() == "" else strip_markup(s, reps) for s in b.lines]
    work.filter_lines("markup", lambda b, s: not s.strip())
