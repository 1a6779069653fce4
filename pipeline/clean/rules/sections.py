"""Rule ``sections``: the remaining blocks → ``Section``s by chapter_path."""

from __future__ import annotations

from pipeline.clean.rules.base import WBlock, Work
from pipeline.models import Section


def _merge(group: list[WBlock]) -> Section:
    lines = [s for b in group for s in b.lines]
    tables = [t for b in group for t in b.tables]
    formulas = list(dict.fromkeys(f for b in group for f in b.formulas))
    pages = sorted({b.page for b in group if b.page is not None})
    return Section(chapter_path=list(group[0].chapter_path), text="\n".join(lines), pages=pages,
                   tables=tables, formulas=formulas)


def sections(work: Work) -> None:
    """Group consecutive non-heading blocks with the same chapter_path into one ``Section`` (text =
    their lines joined by ``\\n``; pages, tables and formulas collected). Heading blocks only give
    the path, their text is not repeated; a first body line equal to the section's own heading is
    dropped (counted as removed). Sections left without text are dropped. No thresholds."""
    groups: list[list[WBlock]] = []
    for b in work.blocks:
        if b.kind == "heading":
            continue
        if groups and groups[-1][0].chapter_path == b.chapter_path:
            groups[-1].append(b)
        else:
            groups.append([b])
    out = []
    for group in groups:
        first = group[0]
        if first.chapter_path and first.kind == "text" and first.lines \
                and first.lines[0].strip() == first.chapter_path[-1].strip():
            first.lines = first.lines[1:]
            work.removed["sections"] += 1
        section = _merge(group)
        if section.text.strip():
            out.append(section)
    work.sections = out
