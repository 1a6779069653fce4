"""Answers that show an exercise's unchosen option as if it were a fact (issue 23, ``pipeline/ask/exercises.py``).

    EXAMRAG_DATA_DIR=/tmp/corpus python -m bench reports.options_shown RESULTS.jsonl [RESULTS.jsonl …]

Every option the exercise rules cut from the index's chunks (an option its exercise's answer does not
choose, or any option of a 不正确 stem) that is at least ``MIN_CHARS`` long is looked for in what each
answer shows: the ``shown`` text of ``bench answer_set --json`` rows, or the answer of ``bench answers_dump``
lines. Prints each answer that shows one, and the count. Short options (a port, a bare term such as
TIME_WAIT) are often said for other reasons: the list is for reading, the count an upper bound.
"""

from __future__ import annotations

import json
import re
import sqlite3
import sys
from pathlib import Path

MIN_CHARS = 12  # an option's text, whitespace removed, at least this long


def _squash(text: str) -> str:
    return re.sub(r"\s+", "", text)


def cut_options(data_dir: Path) -> set[str]:
    """The text of every option the exercise rules cut from the current index generation."""
    from pipeline.ask.exercises import asserted_text
    from pipeline.index.catalog import current_generation

    gen = current_generation(data_dir / "index")
    if gen is None:
        raise SystemExit(f"no index in {data_dir}: ingest first")
    db = sqlite3.connect(data_dir / "index" / gen["generation"] / "chunks.sqlite")
    out: set[str] = set()
    try:
        for (body,) in db.execute("select body from chunks"):
            text = json.loads(body).get("text", "")
            kept = {_squash(line) for line in asserted_text(text).split("\n")}
            for line in text.split("\n"):
                if _squash(line) in kept:
                    continue
                for part in re.split(r"(?:^|\s)[(（]?[A-DⅠⅡⅢⅣⅤⅥ][)）]?\s*[.．、]?\s*", line):
                    part = _squash(part).lstrip(">")
                    if len(part) >= MIN_CHARS:
                        out.add(part)
    finally:
        db.close()
    return out


def shown_texts(path: Path):
    """(id, shown text) of each answer in a results file of either kind."""
    for line in path.read_text("utf-8").splitlines():
        row = json.loads(line)
        if "shown" in row:
            yield row["id"], row["shown"] or ""
        elif "a" in row:
            yield row["q"]["id"], row["a"].get("answer") or ""


def main(argv: list[str]) -> int:
    from pipeline.settings import load_settings

    if not argv:
        print(__doc__)
        return 2
    options = cut_options(Path(load_settings().data_dir))
    print(f"{len(options)} cut options of ≥ {MIN_CHARS} chars")
    for name in argv:
        found = total = 0
        for qid, text in shown_texts(Path(name)):
            total += 1
            flat = _squash(text)
            hit = next((o for o in sorted(options) if o in flat), None)
            if hit:
                found += 1
                print(f"  {qid}: {hit[:40]}")
        print(f"{name}: {found} of {total} answers show a cut option")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
