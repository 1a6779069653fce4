"""Fixtures for the clean-stage tests: the shipped rules and a factory for a rule's working state."""

from __future__ import annotations

import pytest

from pipeline.clean.core import Rules, load_rules
from pipeline.clean.rules.base import Work
from pipeline.models import Block, PageInfo, ParsedDoc


@pytest.fixture(scope="session")
def rules() -> Rules:
    return load_rules(None)


@pytest.fixture
def make_work(rules):
    """``make_work(blocks, kind=..., pages=N or [PageInfo], title=..., source=..., rules=...)`` → Work."""

    def make(blocks: list[Block], *, kind: str = "textbook", pages=None, title: str = "", source: str = "x.pdf",
             rules_: Rules | None = None, **updates) -> Work:
        if isinstance(pages, int):
            pages = [PageInfo(number=i) for i in range(1, pages + 1)]
        parsed = ParsedDoc(doc_id="d", source=source, format="pdf", kind=kind, title=title, pages=pages or [],
                           blocks=blocks)
        r = rules_ or rules
        if updates:
            r = r.model_copy(update=updates)
        return Work.start(parsed, r)

    return make


@pytest.fixture
def lines_of():
    """``lines_of(work)`` → every remaining line, in order."""
    return lambda work: [s for b in work.blocks for s in b.lines]
