"""The live ingest display on a terminal (rich, which ships with typer): one row per stage with its
count, elapsed time, ETA and current file, and an OCR row with the pages done out of those known so far.

Only on a terminal: when stderr is piped or redirected (CI logs, scripts) or with ``--quiet`` nothing
is installed, so the output is the per-file lines and summary alone, as before (tests/cli/golden/).
"""

from __future__ import annotations

import sys
from contextlib import contextmanager, nullcontext
from pathlib import PurePath
from typing import Iterator

from pipeline.events import Display, watching

NOTE_WIDTH = 40  # characters of the current file's name shown (the end of a long name is kept)


class RichDisplay(Display):
    """Rows appear as stages begin and stay when they end, so the finished display reads as a timing
    summary above the per-file lines. The OCR row adds up the pages of every PDF OCR'd so far: a PDF's
    scanned pages are known only once its text layer was read, so the total grows file by file."""

    def __init__(self, console):
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

        self.progress = Progress(TextColumn("{task.description:<6}"), BarColumn(bar_width=20), MofNCompleteColumn(),
                                 TextColumn("{task.fields[unit]:<6}"), TimeElapsedColumn(), TextColumn("ETA"),
                                 TimeRemainingColumn(), TextColumn("{task.fields[note]}"),
                                 console=console, refresh_per_second=4, transient=False)
        self.rows: dict[str, int] = {}
        self.ocr_before = 0  # OCR pages of earlier PDFs, done
        self.ocr_file = 0  # pages of the PDF being OCR'd

    def begin(self, label: str, total: int, unit: str) -> None:
        if label == "ocr" and label in self.rows:
            row = self.progress.tasks[self.rows[label]]
            self.ocr_before, self.ocr_file = int(row.completed), total
            self.progress.update(self.rows[label], total=(row.total or 0) + total)
            return
        if label == "ocr":
            self.ocr_file = total
        self.rows[label] = self.progress.add_task("OCR" if label == "ocr" else label, total=total, unit=unit, note="")

    def update(self, label: str, done: int, note: str) -> None:
        if label not in self.rows:
            return
        completed = self.ocr_before + done if label == "ocr" else done
        self.progress.update(self.rows[label], completed=completed, note=_short(note))

    def end(self, label: str) -> None:
        if label not in self.rows:
            return
        if label == "ocr":
            self.progress.update(self.rows[label], completed=self.ocr_before + self.ocr_file, note="")
        else:
            row = self.progress.tasks[self.rows[label]]
            self.progress.update(self.rows[label], completed=row.total, note="")


def _short(note: str) -> str:
    name = PurePath(note).name if note else ""
    return name if len(name) <= NOTE_WIDTH else "…" + name[-(NOTE_WIDTH - 1):]


@contextmanager
def _live(display: RichDisplay) -> Iterator[RichDisplay]:
    with display.progress, watching(display):
        yield display


def ingest_display(*, quiet: bool):
    """The rich display while the block runs, when stderr is a terminal and not ``quiet``; else nothing.
    Decided on ``isatty`` itself, not on rich's guess (which FORCE_COLOR and the like turn on in CI logs)."""
    if quiet or not sys.stderr.isatty():
        return nullcontext()
    from rich.console import Console

    return _live(RichDisplay(Console(stderr=True)))
