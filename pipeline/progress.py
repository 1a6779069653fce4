"""A small progress line with ETA on stderr; silent when quiet or stderr is not a terminal."""

from __future__ import annotations

import sys
import time


class Progress:
    def __init__(self, label: str, total: int, enabled: bool = True):
        self.label, self.total = label, max(total, 1)
        self.enabled = enabled and sys.stderr.isatty()
        self.start = time.monotonic()
        self.done = 0

    def update(self, done: int, note: str = "") -> None:
        self.done = done
        if not self.enabled:
            return
        elapsed = time.monotonic() - self.start
        eta = elapsed / done * (self.total - done) if done else 0.0
        bar = "#" * int(20 * done / self.total)
        sys.stderr.write(f"\r{self.label:<7} [{bar:<20}] {done}/{self.total} ETA {eta:5.0f}s {note[:40]:<40}")
        sys.stderr.flush()

    def close(self) -> None:
        if self.enabled:
            sys.stderr.write("\r" + " " * 100 + "\r")
            sys.stderr.flush()
