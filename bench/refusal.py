"""Off-topic refusal against on-topic recall: how many questions the retrieval gate refuses before any
LLM call (``pipeline.ask.answer.should_refuse``, thresholds in AskSettings), on the dev questions (all
answerable from the corpus: every refusal there is a loss), on our own contrast/calculation/concept
questions (``bench/data/answers_set.jsonl``, likewise answerable) and on off-topic questions written for this
(``bench/data/out_of_scope.jsonl``: 20 used to set the first gate; ``out_of_scope_2.jsonl``: 30
calibration + 20 held out, never looked at while the passage-coverage gate was set).

    python -m bench refusal [--data /tmp/corpus] [--sweep]

``--sweep`` also tries neighbouring values of ``refuse_min_passage_coverage`` to show the trade-off.
The last column is what ``answer()`` refuses (no model): the gate, less the calculation questions a rule of
``calc_rules`` computes from their own data (issue 23), which pass it with their program.
Writes bench/results/refusal.json. Retrieval only: ~10 s.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from bench.lib import common as c
from pipeline.ask.answer import answer, should_refuse
from pipeline.ask.evaluate import read_questions
from pipeline.ask.service import QueryService
from pipeline.settings import load_settings

DATA = c.ROOT / "bench" / "data"


def question_sets(dev: Path) -> dict[str, list[str]]:
    sets = {"dev (answerable)": [q["question"] for q in read_questions(dev)],
            "own set (answerable)": [q["question"] for q in read_questions(DATA / "answers_set.jsonl")],
            "off-topic, out_of_scope.jsonl": [q["question"] for q in read_questions(DATA / "out_of_scope.jsonl")]}
    second = list(read_questions(DATA / "out_of_scope_2.jsonl"))
    for split in ("calibration", "heldout"):
        sets[f"off-topic, out_of_scope_2 {split}"] = [q["question"] for q in second if q.get("split") == split]
    return sets


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=c.INGESTED)
    ap.add_argument("--qa", type=Path, default=c.DEV)
    ap.add_argument("--sweep", action="store_true")
    args = ap.parse_args()
    c.setup()
    settings = load_settings(data_dir=args.data)
    service = QueryService(settings)
    retriever, cfg = service.retriever(), service.answer_config()
    a = settings.ask
    sets = question_sets(args.qa)
    searched = {name: [(q, retriever.search(q, top_k=5)) for q in qs] for name, qs in sets.items()}

    def refused(r, min_passage):
        return should_refuse(r, a.refuse_min_coverage, a.refuse_min_bm25, min_passage,
                             a.refuse_min_passage_coverage_weak)

    rows = []
    for name, items in searched.items():
        out = [q for q, r in items if refused(r, a.refuse_min_passage_coverage)]
        ruled = [q for q, r in items if q in out and not answer(q, r, None, cfg=cfg, vocab=retriever.bm25.vocab).refused]
        rows.append({"set": name, "n": len(items), "refused": len(out), "refused_questions": out,
                     "passed_questions": [q for q, _ in items if q not in out],
                     "refused_after_rules": len(out) - len(ruled), "passed_by_rule": ruled})
    sweep = []
    if args.sweep:
        for mp in (0.25, 0.30, 0.35, 0.40, 0.45, 0.50):
            sweep.append({"refuse_min_passage_coverage": mp,
                          **{name: sum(refused(r, mp) for _, r in items) for name, items in searched.items()}})
    print(f"thresholds: coverage {a.refuse_min_coverage}, bm25 {a.refuse_min_bm25}, passage coverage "
          f"{a.refuse_min_passage_coverage} (weak {a.refuse_min_passage_coverage_weak})")
    print(f"{'set':<40}{'n':>4}{'refused':>9}{'after calc rules':>18}")
    for r in rows:
        print(f"{r['set']:<40}{r['n']:>4}{r['refused']:>9}{r['refused_after_rules']:>18}")
        for q in r["passed_by_rule"]:
            print(f"    passed by a calculation rule: {q}")
        wrong, what = ((r["refused_questions"], "refused") if "answerable" in r["set"]
                       else (r["passed_questions"], "not refused"))
        for q in wrong:
            print(f"    {what}: {q}")
    for s in sweep:
        print("  sweep", s)
    c.save("refusal", {"machine": c.machine(), "thresholds": {"refuse_min_coverage": a.refuse_min_coverage,
                                              "refuse_min_bm25": a.refuse_min_bm25,
                                              "refuse_min_passage_coverage": a.refuse_min_passage_coverage,
                                              "refuse_min_passage_coverage_weak": a.refuse_min_passage_coverage_weak},
                               "data_dir": str(args.data), "sets": rows, "sweep": sweep})


if __name__ == "__main__":
    main()
