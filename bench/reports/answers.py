"""Before/after table of judged answers (from bench/answers.py output files), as markdown.

    python -m bench reports.answers bench/results/answers_before.jsonl bench/results/answers_after.jsonl
"""

from __future__ import annotations

import json
import statistics
import sys
from pathlib import Path

from pipeline.ask.evaluate import _percentile, summarise_answers


def load(path: Path) -> tuple[list[dict], dict]:
    rows, summary = [], {}
    for line in open(path, encoding="utf-8"):
        obj = json.loads(line)
        if "summary" in obj:
            summary = obj["summary"]
        else:
            rows.append(obj)
    return rows, summary


def loads(rows: list[dict]) -> str:
    one = [float(r["load"].split()[0]) for r in rows if r.get("load")]
    return f"{min(one):.1f}–{max(one):.1f} (median {statistics.median(one):.1f})" if one else "?"


def table(name: str, rows: list[dict]) -> list[str]:
    s = summarise_answers(rows)
    out = [f"**{name}** — {s['n']} questions, 1-min load average during the run {loads(rows)}", "",
           "| kind | n | right | wrong | refused | with unsupported claims | unsupported number | p50 s | p95 s |",
           "|---|---|---|---|---|---|---|---|---|"]
    for k, b in [("all", s)] + list(s["by_kind"].items()):
        out.append(f"| {k} | {b['n']} | {b['right']} ({b['right_rate']:.2f}) | {b['wrong']} | {b['refused']} | "
                   f"{b['with_unsupported']} | {b['unsupported_number']} | {b['p50_s']:.1f} | {b['p95_s']:.1f} |")
    res = [r for r in rows if r.get("resolves_to_record")]
    ok = sum(1 for r in res if r["source"] == "record" or (r.get("record_answer") or "")[:1] in "ABCD"
             and r.get("record_answer") and _letter(r.get("answer")) == r["record_answer"][:1])
    llm_first = [r["llm_first_token_s"] for r in rows if r.get("llm_first_token_s") is not None]
    first = [r["first_token_s"] for r in rows if r.get("first_token_s") is not None]
    by_source = {k: v["n"] for k, v in s["by_source"].items()}
    out += ["", f"- questions resolving to a record: {len(res)}; answered with the record's option/answer: {ok}",
            f"- answer sources: {by_source}"]
    if first:
        out.append(f"- first streamed text p50 {_percentile(first, 50):.2f} s; first LLM token p50 "
                   f"{_percentile(llm_first, 50):.1f} s, p95 {_percentile(llm_first, 95):.1f} s (of {len(llm_first)} LLM answers)")
    return out


def _letter(text):
    from pipeline.ask.judge import answer_letter

    return answer_letter(text or "")


def main() -> None:
    lines = []
    for p in sys.argv[1:]:
        rows, _ = load(Path(p))
        lines += table(Path(p).stem, rows) + [""]
    print("\n".join(lines))


if __name__ == "__main__":
    main()
