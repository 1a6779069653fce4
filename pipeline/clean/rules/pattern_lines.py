"""Rule ``pattern_lines``: header/footer, advertising and page-number lines found by pattern."""

from __future__ import annotations

from pipeline.clean.rules.base import WBlock, Work, full_match, search_any


def is_noise_line(rules, block: WBlock, line: str) -> bool:
    """True for a page number (whole line), a header/footer (whole line) or an ad (substring)."""
    if full_match(rules.page_number_patterns, line) or full_match(rules.header_footer_patterns, line):
        return True
    if block.band != "body" and full_match(rules.band_page_number_patterns, line):
        return True
    return search_any(rules.ad_patterns, line)


def pattern_lines(work: Work) -> None:
    """Remove lines matching the configured patterns, anywhere on the page.

    ``page_number_patterns`` and ``header_footer_patterns`` must match the whole (stripped) line;
    ``band_page_number_patterns`` (bare numbers) only apply in the top/bottom band; an
    ``ad_patterns`` match anywhere in a line drops the whole line. No numeric thresholds.
    """
    work.filter_lines("pattern_lines", lambda b, s: is_noise_line(work.rules, b, s))
