"""Enrichment ablation: off / extractive / LLM, on the same sub-corpus, with time per 100 sections.

    .venv/bin/python -m bench enrich                      # ~50 min: the packaged 1.5B reads ~430 sections
    .venv/bin/python -m bench enrich --max-sections 150   # a quicker, noisier run
    .venv/bin/python -m bench enrich --backends none,extractive

Why a sub-corpus: the packaged 1.5B model needs ~6 s per section on 2 cores, so LLM-enriching all
3,376 sections of ../shared/eval/corpus would take ~6 h. The sub-corpus is every file a chosen set of
dev questions needs: dev questions whose gold passages all sit in markdown notes, taken cheapest-first
(fewest sections to enrich) while the files' sections stay under ``--max-sections``. Every backend
enriches and indexes exactly those files, and all three are evaluated on exactly those questions, so
differences come from enrichment only. With fewer distractor files than the full corpus the absolute
hit rates are higher than on the full corpus; compare the rows with each other.

Steps: copy the chosen files (keeping their paths under the corpus root, so gold paths match) into a
raw dir; ``ingest`` it once with enrichment off; then for each backend, on a copy of that data dir:
``enrich --force`` (timed) and ``index --force``; ``eval`` in bm25 (the default mode) and hybrid mode.
Writes bench/results/enrich.json.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
from pathlib import Path

from bench.lib import common as C


def section_counts(ingested: Path) -> dict[str, int]:
    """Corpus-relative source path → number of non-empty sections, from an ingested corpus."""
    counts = {}
    for f in (ingested / "cleaned").glob("*.json"):
        d = json.loads(f.read_text(encoding="utf-8"))
        rel = d["source"].replace("\\", "/").split(str(C.CORPUS).rstrip("/") + "/", 1)[-1]
        counts[rel] = sum(1 for s in d.get("sections", []) if s.get("text", "").strip())
    return counts


def choose(questions: list[dict], counts: dict[str, int], max_sections: int) -> tuple[list[dict], set[str]]:
    """Dev questions answered from notes only, cheapest first, while the union of their files stays
    under ``max_sections`` sections."""
    def cost(files: set[str]) -> int:
        return sum(counts.get(f, 0) for f in files)

    cand = [q for q in questions if q["gold"] and all(g["file"].endswith(".md") and g["file"] in counts for g in q["gold"])]
    chosen, files = [], set()
    for q in sorted(cand, key=lambda q: (cost({g["file"] for g in q["gold"]}), q["id"])):
        more = files | {g["file"] for g in q["gold"]}
        if cost(more) <= max_sections:
            chosen.append(q)
            files = more
    return chosen, files


def cli(args: list[str], data_dir: Path, **env: str) -> dict:
    run_env = {**os.environ, "EXAMRAG_DATA_DIR": str(data_dir), **env}
    out = C.time_v([C.PY, "cli.py", *args, "--data-dir", str(data_dir)], env=run_env)
    if out["rc"] not in (0,):
        print(out["stdout"][-2000:], out["stderr"][-2000:], file=sys.stderr)
        raise SystemExit(f"cli.py {' '.join(args)} failed with exit {out['rc']}")
    return out


def evaluate(data_dir: Path, qa: Path, mode: str) -> dict:
    out = cli(["eval", str(qa), "--mode", mode, "--json"], data_dir)
    return json.loads(out["stdout"].strip().splitlines()[-1])["summary"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--max-sections", type=int, default=430)
    ap.add_argument("--backends", default="none,extractive,llm")
    args = ap.parse_args()
    C.setup()

    ingested = C.ingested_dir()
    questions = [json.loads(ln) for ln in C.DEV.read_text(encoding="utf-8").splitlines() if ln.strip()]
    chosen, files = choose(questions, section_counts(ingested), args.max_sections)
    work = C.WORK / "enrich_ablation"
    shutil.rmtree(work, ignore_errors=True)
    raw = work / "raw"
    for f in sorted(files):
        (raw / f).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(C.CORPUS / f, raw / f)
    qa = work / "qa.jsonl"
    qa.write_text("".join(json.dumps(q, ensure_ascii=False) + "\n" for q in chosen), encoding="utf-8")
    print(f"sub-corpus: {len(files)} files, {len(chosen)} questions")

    base = work / "base"
    cli(["ingest", str(raw), "--quiet"], base, EXAMRAG_ENRICH_BACKEND="none")
    sections = sum(1 for f in (base / "cleaned").glob("*.json")
                   for s in json.loads(f.read_text(encoding="utf-8"))["sections"] if s["text"].strip())

    rows = []
    for backend in args.backends.split(","):
        d = work / backend
        shutil.copytree(base, d)
        enrich = cli(["enrich", "--force", "--quiet"], d, EXAMRAG_ENRICH_BACKEND=backend)
        cli(["index", "--force", "--quiet"], d, EXAMRAG_ENRICH_BACKEND=backend)
        row = {"backend": backend, "sections": sections, "enrich_s": enrich["wall_s"],
               "s_per_100_sections": round(100 * enrich["wall_s"] / sections, 1),
               "enrich_peak_mb": enrich["max_rss_mb"],
               "fallbacks": _fallbacks(d) if backend == "llm" else None}
        for mode in ("bm25", "hybrid"):
            row[mode] = evaluate(d, qa, mode)
        rows.append(row)
        print(C.table(["backend", "s/100 sections", "bm25 hit@5", "bm25 MRR", "hybrid hit@5", "hybrid MRR"],
                      [[r["backend"], r["s_per_100_sections"], r["bm25"]["hit@5"], r["bm25"]["mrr"],
                        r["hybrid"]["hit@5"], r["hybrid"]["mrr"]] for r in rows]))
    command = C.command("enrich")
    C.save("enrich", {"command": command, "machine": C.machine(), "files": sorted(files),
                      "questions": [q["id"] for q in chosen],
                      "max_sections": args.max_sections, "rows": rows})


def _fallbacks(data_dir: Path) -> dict:
    """How many LLM-enriched sections fell back to extractive, and why (first words of the error)."""
    total, fell, why = 0, 0, {}
    for f in (data_dir / "enriched").glob("*.json"):
        for e in json.loads(f.read_text(encoding="utf-8")).get("sections", {}).values():
            total += 1
            if e.get("error"):
                fell += 1
                key = e["error"][:40]
                why[key] = why.get(key, 0) + 1
    return {"sections": total, "fell_back": fell, "why": why}


if __name__ == "__main__":
    main()
