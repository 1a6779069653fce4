"""Cold `cli.py ask` of questions the model answers: the saved system-prompt state against reading it whole.

Each question is asked in a new process (as a student's terminal does), twice, interleaved: once with the
default settings (the system prompt's KV state restored from the models folder, ``prefix_state``) and once
with ``EXAMRAG_LLM_PROMPT_CACHE=false`` (every prompt token read: what every cold ask did before). Prints,
per run, the wall time, the first model token and the answer time from ``ask --json`` ``timings``, with the
prompt tokens (all, cached, read) and the engine's prefill and generation rates, so a figure from one CPU
carries over to another; then the medians and the ratio.

    python -m bench cold_llm --data /tmp/corpus [--questions FILE.jsonl] [--limit 6]

The default questions are the dev set's that the model answers (not records, refusals, rules or tables),
read from an ``answers_dump`` file when given (``--dump``), else the first ``--limit`` dev concept questions.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from bench.lib import answer_keys as keys

ROOT = Path(__file__).resolve().parent.parent
FIGURES = ("llm_first_token", "total", "prompt_tokens", "prompt_cached_tokens", "prompt_evaluated_tokens",
           "prefill_tok_s", "gen_tok_s")


def questions(dump: Path | None, limit: int) -> list[str]:
    if dump is not None:
        rows = [json.loads(line) for line in dump.read_text("utf-8").splitlines() if line.strip()]
        return [r["q"]["question"] for r in rows if r["set"] == "dev" and r["a"]["source"] == "llm"][:limit]
    rows = [json.loads(line) for line in (keys.EVAL_DIR / "dev.jsonl").read_text("utf-8").splitlines() if line.strip()]
    return [r["question"] for r in rows if r.get("kind") == "concept"][:limit]


def ask(question: str, data: Path, saved_state: bool) -> dict:
    env = {**os.environ, "EXAMRAG_DATA_DIR": str(data)}
    if not saved_state:
        env["EXAMRAG_LLM_PROMPT_CACHE"] = "false"
    t0 = time.perf_counter()
    r = subprocess.run([sys.executable, str(ROOT / "cli.py"), "ask", "--json", question], cwd=ROOT, env=env,
                       capture_output=True, text=True, timeout=600)
    wall = time.perf_counter() - t0
    answer = json.loads(r.stdout) if r.returncode == 0 else {}
    t = answer.get("timings", {})
    return {"wall": round(wall, 2), "source": answer.get("source"), **{k: t.get(k) for k in FIGURES}}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench cold_llm", description=__doc__.split("\n")[0])
    p.add_argument("--data", type=Path, required=True, help="an ingested data dir (the eval corpus)")
    p.add_argument("--dump", type=Path, help="an answers_dump run: its dev questions the model answered")
    p.add_argument("--limit", type=int, default=6)
    args = p.parse_args(argv)
    rows: dict[str, list[dict]] = {"saved state": [], "read whole": []}
    for q in questions(args.dump, args.limit):
        for label, saved in (("saved state", True), ("read whole", False)):
            row = ask(q, args.data, saved)
            rows[label].append(row)
            print(label, json.dumps(row, ensure_ascii=False), q[:24], flush=True)
    medians = {}
    for label, runs in rows.items():
        llm = [r for r in runs if r.get("llm_first_token")]
        medians[label] = {k: round(statistics.median(r[k] for r in llm if r.get(k) is not None), 2)
                          for k in ("wall",) + FIGURES if any(r.get(k) is not None for r in llm)}
        print("median", label, f"({len(llm)} model answers)", medians[label])
    a, b = medians["saved state"], medians["read whole"]
    if a.get("llm_first_token") and b.get("llm_first_token"):
        print("first model token, saved/whole:", round(a["llm_first_token"] / b["llm_first_token"], 2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
