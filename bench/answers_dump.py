"""Answer the dev set and our own set through the query service once, keep every ``Answer`` whole, and
compare two such runs offline: a change to the claim rules or the answer path is judged on all 108
questions from one model run each, not re-asked per idea.

    EXAMRAG_DATA_DIR=/tmp/corpus python -m bench answers_dump run OUT.jsonl        # ~25 min on 2 cores
    python -m bench answers_dump compare BEFORE.jsonl AFTER.jsonl                  # seconds

``run`` writes one line per question: the set, the question row and ``Answer.model_dump()`` (hits, key
sentences, claims, generated text, timings). Dumps hold corpus text: keep them out of the project (/tmp).
``compare`` judges both as ``eval --answers`` does (dev: ``pipeline.ask.judge`` on the answer) and as
``bench answer_set`` does (own set: ``bench.lib.answer_keys`` on the text shown), prints right counts by
set and kind, every changed verdict and every answer whose text changed, and the LLM timing medians
(prompt tokens, tokens read beyond the cache, prefill and generation tok/s, first model token, total).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

from bench.lib import answer_keys as keys

SETS = (("dev", keys.EVAL_DIR / "dev.jsonl"), ("own", keys.SET_FILE))
TIMINGS = ("prompt_tokens", "prompt_cached_tokens", "prompt_evaluated_tokens", "prefill_tok_s", "gen_tok_s",
           "llm_first_token", "total")


def run(out: Path) -> None:
    from pipeline.ask.service import QueryService
    from pipeline.settings import load_settings

    service = QueryService(load_settings())
    with open(out, "w", encoding="utf-8") as fh:
        for name, path in SETS:
            for line in path.read_text("utf-8").splitlines():
                if not line.strip():
                    continue
                q = json.loads(line)
                t0 = time.perf_counter()
                a = service.ask(q["question"], on_token=lambda _t: None)
                row = {"set": name, "q": q, "seconds": round(time.perf_counter() - t0, 2), "a": a.model_dump(mode="json")}
                fh.write(json.dumps(row, ensure_ascii=False) + "\n")
                fh.flush()
                print(name, q["id"], a.source, row["seconds"], file=sys.stderr, flush=True)


def load(path: Path) -> dict:
    from pipeline.ask.answer import render
    from pipeline.ask.judge import judge
    from pipeline.models import Answer

    out = {}
    for line in path.read_text("utf-8").splitlines():
        r = json.loads(line)
        a, q = Answer.model_validate(r["a"]), r["q"]
        if r["set"] == "own":
            verdict = keys.score(render(a), q["key"]).verdict
        else:
            verdict = judge(a.answer, q["answer"], refused=a.refused, question=q["question"]).verdict
        out[(r["set"], q["id"])] = (verdict, a, q)
    return out


def timing_medians(run_: dict) -> dict:
    figures = [a.timings for _, a, _ in run_.values() if a.timings.get("llm_first_token")]
    out = {"llm_answers": len(figures)}
    for k in TIMINGS:
        values = [t[k] for t in figures if isinstance(t.get(k), (int, float))]
        out[k] = round(statistics.median(values), 2) if values else None
    return out


def compare(before: Path, after: Path) -> None:
    runs = {"before": load(before), "after": load(after)}
    for name, _ in SETS:
        for label, r in runs.items():
            rows = [v for k, v in r.items() if k[0] == name]
            by_kind: dict[str, list[str]] = {}
            for verdict, _, q in rows:
                by_kind.setdefault(q.get("kind", "all"), []).append(verdict)
            verdicts = [v for v, _, _ in rows]
            print(name, label, {v: verdicts.count(v) for v in sorted(set(verdicts))},
                  {k: f"{v.count('right')}/{len(v)}" for k, v in sorted(by_kind.items())})
    a, b = runs["before"], runs["after"]
    for k in b:
        if k not in a:
            continue
        if a[k][0] != b[k][0]:
            print("changed", k, a[k][0], "->", b[k][0])
        elif (a[k][1].answer or "") != (b[k][1].answer or ""):
            print("text changed", k, b[k][0], a[k][1].source, "->", b[k][1].source)
    for label, r in runs.items():
        print("timings", label, timing_medians(r))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench answers_dump", description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    sub.add_parser("run").add_argument("out", type=Path)
    c = sub.add_parser("compare")
    c.add_argument("before", type=Path)
    c.add_argument("after", type=Path)
    args = p.parse_args(argv)
    if args.cmd == "run":
        run(args.out)
    else:
        compare(args.before, args.after)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
