"""Reading order for OCR boxes: visual rows, two-column pages, and row text.

Pure functions over ``OcrLine`` boxes (``x0, y0, x1, y1`` in pixels, y grows downwards).

* Rows: boxes whose vertical extents overlap by at least ``ROW_OVERLAP`` of the smaller height,
  and that do not overlap horizontally, form one visual row (so an option row
  ``A. 顺序查找  B. 折半查找  C. …  D. …`` detected as four boxes stays one row, read left to right,
  even when the scan is slightly skewed).
* Columns: a page is read as two columns when a vertical gutter in the middle part of the page
  is crossed by few boxes and, between those crossing boxes (titles, headers), at least
  ``MIN_COLUMN_ROWS`` rows sit on each side of it, and both sides look like running text (wide
  columns of wide rows, most of them reaching the column's right edge). Each such stretch between crossing boxes is read left column top to
  bottom, then right column; the other stretches of the page are read row by row.
  Option pairs on a one-column page (``A. …`` left, ``B. …`` right) do not look like columns:
  question stems cross the middle and cut them into short stretches, and option rows stop well
  short of the gutter. Grids (tables, four options per row) are not columns either: their rows
  have inner gaps as wide as the would-be gutter.
* Known limit: a two-column page made mostly of short lines (one option per line in each
  column) is read row by row, like a one-column page.
"""

from __future__ import annotations

from statistics import median
from typing import Iterable, Optional

from pipeline.models import OcrLine

ROW_OVERLAP = 0.5  # share of the smaller box height two boxes must share vertically to be one row
SAME_ROW_MAX_X_OVERLAP = 0.3  # boxes overlapping more than this share of the narrower width are different rows
MIN_COLUMN_ROWS = 4  # rows needed on each side of a gutter (within one stretch) to call it two columns
GUTTER_SEARCH = (0.25, 0.75)  # where a gutter may lie, as a share of the page width
MIN_GUTTER = 0.015  # clear gap between the columns, as a share of the page width: at least …
MAX_GUTTER = 0.12  # … and at most
MIN_COLUMN_WIDTH = 0.25  # each column spans at least this share of the page width
MIN_ROW_WIDTH = 0.5  # the median row of a column spans at least this share of the column
MAX_CROSSING_SHARE = 0.2  # at most this share of boxes may cross the gutter (titles, headers, footers)
MIN_FULL_ROWS = 0.5  # share of rows on each side that must reach the side's right edge (running text)
FULL_ROW_SLACK = 0.15  # "reaches the edge": ends within this share of the side's width from it
MAX_GAPPY_ROWS = 0.3  # above this share of rows with gutter-like inner gaps, the page is a grid/table
SPACE_GAP = 0.25  # a horizontal gap wider than this share of the row height becomes a space


def _h(line: OcrLine) -> float:
    return max(line.box[3] - line.box[1], 1e-6)


def _w(line: OcrLine) -> float:
    return max(line.box[2] - line.box[0], 1e-6)


def _cy(line: OcrLine) -> float:
    return (line.box[1] + line.box[3]) / 2


def _x_overlap(a: OcrLine, b: OcrLine) -> float:
    return min(a.box[2], b.box[2]) - max(a.box[0], b.box[0])


class _Row:
    __slots__ = ("members",)

    def __init__(self, first: OcrLine):
        self.members = [first]

    @property
    def y0(self) -> float:
        return sum(m.box[1] for m in self.members) / len(self.members)

    @property
    def y1(self) -> float:
        return sum(m.box[3] for m in self.members) / len(self.members)

    def fit(self, line: OcrLine) -> float:
        """Vertical overlap share of ``line`` with this row, or 0 when it cannot join."""
        y0, y1 = self.y0, self.y1
        overlap = min(y1, line.box[3]) - max(y0, line.box[1])
        share = overlap / min(y1 - y0 if y1 > y0 else 1e-6, _h(line))
        if share < ROW_OVERLAP:
            return 0.0
        for m in self.members:
            if _x_overlap(m, line) > SAME_ROW_MAX_X_OVERLAP * min(_w(m), _w(line)):
                return 0.0
        return share


def group_rows(lines: Iterable[OcrLine]) -> list[list[OcrLine]]:
    """Group boxes into visual rows, rows top to bottom, boxes in a row left to right."""
    rows: list[_Row] = []
    for line in sorted(lines, key=lambda ln: (_cy(ln), ln.box[0])):
        best, best_fit = None, 0.0
        for row in rows[-8:]:  # only recent rows can still be open: boxes arrive top to bottom
            fit = row.fit(line)
            if fit > best_fit:
                best, best_fit = row, fit
        if best is None:
            rows.append(_Row(line))
        else:
            best.members.append(line)
    ordered = sorted(rows, key=lambda r: ((r.y0 + r.y1) / 2, min(m.box[0] for m in r.members)))
    return [sorted(r.members, key=lambda m: m.box[0]) for r in ordered]


def _gutters(lines: list[OcrLine], page_width: float) -> list[tuple[float, list[OcrLine]]]:
    """Candidate gutters: (x, crossing boxes) for each run of low-crossing x positions, widest first."""
    lo, hi = GUTTER_SEARCH
    steps = 100
    xs = [page_width * (lo + (hi - lo) * i / steps) for i in range(steps + 1)]
    max_cross = max(2, int(MAX_CROSSING_SHARE * len(lines)))
    crossing = [[ln for ln in lines if ln.box[0] < x < ln.box[2]] for x in xs]
    runs: list[tuple[int, int]] = []
    start: Optional[int] = None
    for i, cr in enumerate(crossing + [None]):
        ok = cr is not None and len(cr) <= max_cross
        if ok and start is None:
            start = i
        elif not ok and start is not None:
            runs.append((start, i - 1))
            start = None
    found = []
    for a, b in runs:
        # within the run, prefer the x crossed by the fewest boxes, then the run's middle
        mid = (a + b) / 2
        best = min(range(a, b + 1), key=lambda i: (len(crossing[i]), abs(i - mid)))
        found.append((b - a, xs[best], crossing[best]))
    found.sort(key=lambda t: -t[0])
    return [(x, cr) for _, x, cr in found]


def _stretches(lines: list[OcrLine], spanning: list[OcrLine]) -> list[tuple[list[OcrLine], Optional[OcrLine]]]:
    """Split non-spanning boxes into vertical stretches separated by spanning boxes.

    Returns (boxes of the stretch, spanning box that follows it or None)."""
    span_sorted = sorted(spanning, key=lambda s: s.box[1])
    ids = {id(s) for s in spanning}
    buckets: list[list[OcrLine]] = [[] for _ in range(len(span_sorted) + 1)]
    for ln in lines:
        if id(ln) in ids:
            continue
        k = 0
        while k < len(span_sorted) and _cy(ln) > _cy(span_sorted[k]):
            k += 1
        buckets[k].append(ln)
    return [(buckets[k], span_sorted[k] if k < len(span_sorted) else None) for k in range(len(buckets))]


def _split_sides(part: list[OcrLine], x: float) -> tuple[list[OcrLine], list[OcrLine]]:
    return [ln for ln in part if _center_x(ln) < x], [ln for ln in part if _center_x(ln) >= x]


def _is_two_columns(part: list[OcrLine], x: float, page_width: float) -> bool:
    """Whether one stretch (boxes between spanning boxes) reads as two columns split at ``x``."""
    left, right = _split_sides(part, x)
    if not left or not right:
        return False
    gap = min(ln.box[0] for ln in right) - max(ln.box[2] for ln in left)
    if not MIN_GUTTER * page_width <= gap <= MAX_GUTTER * page_width:
        return False
    left_rows, right_rows = group_rows(left), group_rows(right)
    if min(len(left_rows), len(right_rows)) < MIN_COLUMN_ROWS:
        return False
    for rows in (left_rows, right_rows):
        if not _is_text_column(rows, page_width):
            return False
    return _gappy_share(left_rows + right_rows, gap) <= MAX_GAPPY_ROWS


def _is_text_column(rows: list[list[OcrLine]], page_width: float) -> bool:
    """A column of running text: wide enough, made of wide rows, most of them reaching its right
    edge. Figure labels, code comments and option blocks fail one of these."""
    x0 = min(m.box[0] for r in rows for m in r)
    x1 = max(m.box[2] for r in rows for m in r)
    width = x1 - x0
    if width < MIN_COLUMN_WIDTH * page_width:
        return False
    row_widths = [max(m.box[2] for m in r) - min(m.box[0] for m in r) for r in rows]
    if median(row_widths) < MIN_ROW_WIDTH * width:
        return False
    return _fullness(rows) >= MIN_FULL_ROWS


def _column_split(lines: list[OcrLine], page_width: float):
    """Return (gutter x, spanning boxes, indices of the stretches read as two columns), or None
    when no stretch of the page reads as two columns."""
    if len(lines) < 2 * MIN_COLUMN_ROWS:
        return None
    for x, spanning in _gutters(lines, page_width):
        parts = _stretches(lines, spanning)
        split = {k for k, (part, _) in enumerate(parts) if _is_two_columns(part, x, page_width)}
        if split:
            return x, spanning, split
    return None


def _gappy_share(rows: list[list[OcrLine]], gutter: float) -> float:
    """Share of rows with an inner gap at least half as wide as the gutter: high for tables and
    grids of options (the "gutter" is just one more cell gap), low for running text."""
    def gappy(row: list[OcrLine]) -> bool:
        return any(b.box[0] - a.box[2] >= 0.5 * gutter for a, b in zip(row, row[1:]))

    return sum(gappy(r) for r in rows) / len(rows)


def _fullness(rows: list[list[OcrLine]]) -> float:
    """Share of rows that run (nearly) to the right edge of their side: high for columns of
    running text, low for option blocks (``A. …`` / ``C. …``) that merely leave a gap mid-page."""
    ends = [max(m.box[2] for m in r) for r in rows]
    width = max(ends) - min(min(m.box[0] for m in r) for r in rows)
    edge = max(ends) - FULL_ROW_SLACK * width
    return sum(e >= edge for e in ends) / len(rows)


def _center_x(line: OcrLine) -> float:
    return (line.box[0] + line.box[2]) / 2


def order_lines(lines: list[OcrLine], page_width: float) -> list[list[OcrLine]]:
    """Rows of boxes in reading order (see the module docstring)."""
    lines = [ln for ln in lines if ln.text.strip()]
    if not lines:
        return []
    found = _column_split(lines, page_width)
    if found is None:
        return group_rows(lines)
    x, spanning, split = found
    rows: list[list[OcrLine]] = []
    for k, (part, after) in enumerate(_stretches(lines, spanning)):
        if k in split:
            left, right = _split_sides(part, x)
            rows.extend(group_rows(left))
            rows.extend(group_rows(right))
        else:
            rows.extend(group_rows(part))
        if after is not None:
            rows.append([after])
    return rows


def row_text(row: list[OcrLine]) -> str:
    """Text of one row: boxes joined left to right, with a space where there is a visible gap."""
    if not row:
        return ""
    height = median(_h(m) for m in row)
    out = row[0].text.strip()
    for prev, cur in zip(row, row[1:]):
        gap = cur.box[0] - prev.box[2]
        sep = " " if gap > SPACE_GAP * height else ""
        out += sep + cur.text.strip()
    return out


def lines_to_text(rows: list[list[OcrLine]]) -> list[str]:
    """One string per row, empty rows dropped."""
    return [t for t in (row_text(r) for r in rows) if t]


def row_box(row: list[OcrLine]) -> tuple[float, float, float, float]:
    """Union box of a row."""
    return (min(m.box[0] for m in row), min(m.box[1] for m in row),
            max(m.box[2] for m in row), max(m.box[3] for m in row))
