"""Rule ``toc_pages``: tables of contents."""

from __future__ import annotations

from collections import defaultdict

from pipeline.clean.rules.base import Work, full_match


MAX_ENTRY_CHARS = 100  # longer lines are never TOC entries (and are not scanned by the patterns)


def toc_page_numbers(work: Work) -> set[int]:
    """Pages that look like a table of contents: a heading (or the page's first body line) that is
    wholly a ``toc_title_patterns`` match (目录), or at least ``toc_min_entries`` (default 3) lines of
    at most ``MAX_ENTRY_CHARS`` matching ``toc_entry_patterns``, making up at least
    ``toc_entry_ratio`` (default 0.5) of the page's lines."""
    r, t = work.rules, work.rules.thresholds
    lines: dict[int, list[str]] = defaultdict(list)
    titled: set[int] = set()
    seen_body: set[int] = set()
    for b in work.blocks:
        if b.page is None or b.kind not in ("heading", "text"):
            continue
        first_body = b.band == "body" and b.page not in seen_body
        if b.band == "body":
            seen_body.add(b.page)
        if (b.kind == "heading" or first_body) and b.lines and full_match(r.toc_title_patterns, b.lines[0]):
            titled.add(b.page)
        lines[b.page] += b.lines
    pages = set(titled)
    for page, ls in lines.items():
        entries = sum(1 for s in ls if len(s) <= MAX_ENTRY_CHARS and full_match(r.toc_entry_patterns, s))
        if entries >= t.toc_min_entries and entries >= t.toc_entry_ratio * len(ls):
            pages.add(page)
    return pages


def toc_pages(work: Work) -> None:
    """Drop TOC pages (see ``toc_page_numbers``) whole, tables included. In documents without pages
    (markdown, txt) drop a heading that is a TOC title together with the blocks under it."""
    pages = toc_page_numbers(work)
    toc_path = None
    kept = []
    for b in work.blocks:
        if b.page is None:
            if b.kind == "heading" and full_match(work.rules.toc_title_patterns, " ".join(b.lines)):
                toc_path = b.chapter_path or [" ".join(b.lines)]
            elif toc_path is not None and b.chapter_path[:len(toc_path)] != toc_path:
                toc_path = None
            drop = toc_path is not None
        else:
            drop = b.page in pages
        if drop:
            work.removed["toc_pages"] += len(b.lines) or (len(b.table.rows) if b.table else 0)
        else:
            kept.append(b)
    work.blocks = kept
