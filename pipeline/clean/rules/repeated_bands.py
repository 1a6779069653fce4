"""Rule ``repeated_bands``: running headers and footers found by repetition across pages."""

from __future__ import annotations

import math
from collections import defaultdict

from pipeline.clean.rules.base import Work
from pipeline.text.lines import repeat_key


def repeated_bands(work: Work) -> None:
    """Remove top/bottom-band lines that repeat on many pages.

    A line in a ``top`` or ``bottom`` band block is removed when its ``repeat_key`` occurs in that
    band on at least ``thresholds.repeat_ratio`` (default 0.5) of the document's pages and on at
    least ``thresholds.repeat_min_pages`` (default 3) pages. Body lines are never touched, so a
    document title repeated once in the body stays.
    """
    t = work.rules.thresholds
    pages_of: dict[tuple[str, str], set[int]] = defaultdict(set)
    for b in work.blocks:
        if b.band != "body" and b.page is not None and b.kind in ("heading", "text"):
            for s in b.lines:
                pages_of[(b.band, repeat_key(s))].add(b.page)
    need = max(t.repeat_min_pages, math.ceil(t.repeat_ratio * work.page_count))
    repeated = {key for key, pages in pages_of.items() if len(pages) >= need and key[1]}
    if repeated:
        work.filter_lines("repeated_bands", lambda b, s: b.band != "body" and (b.band, repeat_key(s)) in repeated)
