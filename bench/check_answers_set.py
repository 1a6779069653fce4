"""Check our answer set (bench/data/answers_set.jsonl): its schema, and that every evidence passage is in the corpus.

    python -m bench check_answers_set [--corpus ../shared/eval/corpus] [--dev ../shared/eval/dev.jsonl]
    BENCH_EVAL_DIR=/work/shared/eval python -m bench check_answers_set     # from a worktree elsewhere
    python -m bench check_answers_set --set bench/data/calc_heldout.jsonl  # the held-out set

A set other than answers_set.jsonl need not balance its kinds, and its questions must not be close to
answers_set.jsonl's either (nor to a dev question).

Exits 1 with one line per problem. The evidence passages are short pointers (≤ 40 chars) into the eval
corpus, matched whitespace-insensitively (a PDF's text through PyMuPDF); the questions and keys are ours.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from bench.lib import answer_keys as keys


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--set", type=Path, default=keys.SET_FILE)
    ap.add_argument("--corpus", type=Path, default=keys.EVAL_DIR / "corpus")
    ap.add_argument("--dev", type=Path, default=keys.EVAL_DIR / "dev.jsonl")
    args = ap.parse_args()
    rows = keys.load_set(args.set)
    dev = [q["question"] for q in keys.load_set(args.dev)] if args.dev.is_file() else []
    other_set = args.set.resolve() != keys.SET_FILE.resolve()  # e.g. the held-out calc_heldout.jsonl
    ours = [q["question"] for q in keys.load_set(keys.SET_FILE)] if other_set else []
    problems = keys.schema_problems(rows, dev, balanced=not other_set, our_questions=ours)
    n_evidence = sum(len(r.get("evidence", [])) for r in rows)
    if args.corpus.is_dir():
        problems += keys.evidence_problems(rows, args.corpus)
        checked = f"{n_evidence} evidence passages checked in {args.corpus}"
    else:
        checked = f"evidence not checked: no corpus at {args.corpus}"
    kinds = {k: sum(r["kind"] == k for r in rows) for k in keys.KINDS}
    print(f"{len(rows)} questions {kinds}; dev questions compared: {len(dev)}; {checked}")
    for p in problems:
        print("  " + p)
    print("problems:", len(problems))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
