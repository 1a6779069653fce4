"""Our own contrast / calculation / concept questions, answered by the query service and scored on objective keys.

    python -m bench answer_set --data-dir /tmp/corpus --no-llm             # retrieval + grounded core only
    python -m bench answer_set --data-dir /tmp/corpus --json /tmp/set.jsonl  # with the LLM (slow: 48 answers)
    python -m bench answer_set --kinds contrast concept --limit 5
    python -m bench answer_set --set bench/data/calc_heldout.jsonl --no-llm  # held-out set: never use it to tune rules
    python -m bench answer_set --set bench/data/terms_set.jsonl  # 什么是X questions (and a few others), keys written first
    python -m bench answer_set --set bench/data/concept_heldout.jsonl  # why/what/purpose questions by another hand

The questions (bench/data/answers_set.jsonl) are beyond the record: no past-paper question answers them
directly, and none repeats a dev question. Each is asked through ``QueryService.ask`` (what the CLI and
serve run) and the text a student sees (``pipeline.ask.answer.render``) is scored by
``bench.lib.answer_keys.score``: right / reversed (a wrong string present: must stay 0) / refused / wrong.
The table gives, per kind and overall, the right rate, the reversed, refused and wrong counts, seconds per
question and every figure ``Answer.timings`` holds (first token, LLM time, any added later). ``--json`` writes
one line per question and a summary line; answers quoting the corpus are cut to their start there (its
licences keep it out of the project) unless ``--full``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import statistics
import sys
import time
from pathlib import Path

from bench.lib import answer_keys as keys

QUOTE_KEEP = 40  # chars kept of an answer that quotes the corpus (record, grounded core)
ANSWER_KEEP = 300  # chars kept of a generated answer


def shown_excerpt(text: str, quotes_corpus: bool, full: bool) -> str:
    if full:
        return text
    keep = QUOTE_KEEP if quotes_corpus else ANSWER_KEEP
    return text if len(text) <= keep else text[:keep] + "…"


def _stats(values: list[float]) -> dict:
    if not values:
        return {}
    return {"n": len(values), "mean": round(statistics.fmean(values), 3),
            "median": round(statistics.median(values), 3), "max": round(max(values), 3)}


def summarise(rows: list[dict]) -> dict:
    """Counts, right rate and timing figures of some scored rows (one kind, or all)."""
    verdicts = [r["verdict"] for r in rows]
    out = {"n": len(rows), **{v: verdicts.count(v) for v in ("right", "reversed", "refused", "wrong")},
           "gate_refused": sum(r["gate_refused"] for r in rows),
           "right_rate": round(verdicts.count("right") / len(rows), 3) if rows else 0.0,
           "seconds": _stats([r["seconds"] for r in rows])}
    timing_keys = sorted({k for r in rows for k in r["timings"]})
    out["timings"] = {k: _stats([r["timings"][k] for r in rows if k in r["timings"]]) for k in timing_keys}
    return out


def print_table(summary: dict) -> None:
    groups = [*keys.KINDS, "all"]
    present = [g for g in groups if summary.get(g, {}).get("n")]
    print(f"{'kind':<12}{'n':>4}{'right':>7}{'rate':>7}{'rev':>5}{'refus':>7}{'wrong':>7}{'gate':>6}"
          f"{'s mean':>9}{'s med':>8}{'s max':>8}")
    for g in present:
        s = summary[g]
        sec = s["seconds"]
        print(f"{g:<12}{s['n']:>4}{s['right']:>7}{s['right_rate']:>7.2f}{s['reversed']:>5}{s['refused']:>7}"
              f"{s['wrong']:>7}{s['gate_refused']:>6}{sec.get('mean', 0):>9.2f}{sec.get('median', 0):>8.2f}"
              f"{sec.get('max', 0):>8.2f}")
    print("timings (Answer.timings, seconds unless named otherwise):")
    for g in present:
        for k, st in summary[g]["timings"].items():
            print(f"  {g:<12}{k:<18} n {st['n']:>3}  mean {st['mean']:>8.3f}  median {st['median']:>8.3f}  "
                  f"max {st['max']:>8.3f}")


def ask_one(service, q: dict, args: argparse.Namespace, out) -> dict:
    """Ask one question, score what is shown, print a progress line and write its JSON line."""
    from pipeline.ask.answer import render

    t0 = time.perf_counter()
    a = service.ask(q["question"], use_llm=not args.no_llm, on_token=lambda _t: None)
    seconds = time.perf_counter() - t0
    text = render(a)
    s = keys.score(text, q["key"])
    row = {"id": q["id"], "kind": q["kind"], "subject": q["subject"], "verdict": s.verdict,
           "matched": s.matched, "wrong_found": s.wrong_found, "source": a.source,
           # refused by the retrieval gate, before any model call (not: the model's answer failed the check)
           "gate_refused": a.refused and not a.claims and (a.note or "").startswith("retrieval found nothing"),
           "core_shown": a.core_shown, "seconds": round(seconds, 3),
           "timings": {k: v for k, v in a.timings.items() if isinstance(v, (int, float))}, "note": a.note,
           "shown": shown_excerpt(text, a.source in ("record", "grounded", "none") or a.core_shown, args.full)}
    print(f"{q['id']} {q['kind']:<11} {s.verdict:<8} {seconds:6.2f}s {a.source:<8} "
          f"| {text.replace(chr(10), ' ')[:60]}", file=sys.stderr, flush=True)
    if out:
        out.write(json.dumps(row, ensure_ascii=False) + "\n")
        out.flush()
    return row


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", type=Path, help="an ingested data dir (default: EXAMRAG_DATA_DIR, else data)")
    ap.add_argument("--set", type=Path, default=keys.SET_FILE)
    ap.add_argument("--kinds", nargs="+", choices=keys.KINDS)
    ap.add_argument("--ids", help="comma-separated question ids")
    ap.add_argument("--no-llm", action="store_true", help="no generation: score what --no-llm shows (the grounded core)")
    ap.add_argument("--json", type=Path, help="write one JSON line per question and a summary line here")
    ap.add_argument("--full", action="store_true", help="keep whole answers in --json (not for bench/results)")
    ap.add_argument("--limit", type=int)
    args = ap.parse_args(argv)

    from pipeline.ask.service import QueryService
    from pipeline.settings import load_settings

    questions = [q for q in keys.load_set(args.set) if not args.kinds or q["kind"] in args.kinds]
    if args.ids:
        wanted = set(args.ids.split(","))
        questions = [q for q in questions if q["id"] in wanted]
    questions = questions[: args.limit] if args.limit else questions
    settings = load_settings(data_dir=args.data_dir)
    service = QueryService(settings)
    with open(args.json, "w", encoding="utf-8") if args.json else contextlib.nullcontext() as out:
        rows = [ask_one(service, q, args, out) for q in questions]
        summary = {g: summarise([r for r in rows if g == "all" or r["kind"] == g]) for g in (*keys.KINDS, "all")}
        summary.update({"data_dir": str(settings.data_dir), "llm": not args.no_llm, "set": str(args.set),
                        "llm_model": service.llm_model_id})
        if out:
            out.write(json.dumps({"summary": summary}, ensure_ascii=False) + "\n")
    print_table(summary)
    return 0


if __name__ == "__main__":
    sys.exit(main())
