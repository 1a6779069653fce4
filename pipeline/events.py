"""How a running ingest says how far it is, without knowing who watches.

A stage opens a :func:`track` per unit of work it counts (``parse`` over files, ``embed`` over
chunks, ``ocr`` over one PDF's pages) and updates it. Nothing is shown unless a caller installed a
:class:`Display` with :func:`watching`: the command line installs its rich live display on a
terminal only (pipeline.cli.display), so library callers, tests, pipes and CI logs get no progress
output at all and print exactly what they did before.

The display is process-wide, not per thread: parse's OCR runner reports from the thread that drives
the pages, and one data dir has one writer at a time (the data-dir lock).
"""

from __future__ import annotations

import threading
from contextlib import contextmanager
from typing import Iterator


class Display:
    """What a watcher implements. A label may begin again (``ocr`` once per PDF); this base shows nothing."""

    def begin(self, label: str, total: int, unit: str) -> None: ...

    def update(self, label: str, done: int, note: str) -> None: ...

    def end(self, label: str) -> None: ...


_NOTHING = Display()
_current: Display = _NOTHING
_lock = threading.Lock()


@contextmanager
def watching(display: Display) -> Iterator[Display]:
    """Send every :func:`track` in this block to ``display`` (the previous one is restored after)."""
    global _current
    with _lock:
        previous, _current = _current, display
    try:
        yield display
    finally:
        with _lock:
            _current = previous


class Track:
    """One counted piece of work: ``update(done, note)`` as it goes, ``close()`` when it ends."""

    def __init__(self, display: Display, label: str, total: int, unit: str):
        self.display, self.label = display, label
        display.begin(label, total, unit)

    def update(self, done: int, note: str = "") -> None:
        self.display.update(self.label, done, note)

    def close(self) -> None:
        self.display.end(self.label)


def track(label: str, total: int, unit: str = "files", *, enabled: bool = True) -> Track:
    """A track on the installed display; ``enabled=False`` (a stage run with ``quiet``) reports nothing."""
    return Track(_current if enabled else _NOTHING, label, total, unit)
