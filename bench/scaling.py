"""Scaling: how index-build time and warm query time grow at 1×, 4×, 16× the corpus.

    .venv/bin/python -m bench scaling                  # ~20 min the first time (dirs are reused)
    .venv/bin/python -m bench scaling --factors 1,4    # quicker

Each size is built by ``bench/lib/synth.py`` with ``tokens="jieba"`` (perturbed copies of the corpus chunks,
each one really tokenized by our jieba tokenizer) and our BM25 / catalog / Chroma code, with perturbed
real vectors; the USE embedding time is *estimated* from the embedding rate measured on 256 real chunks
(embedding 108k chunks would take ~20–40 min here). Query time: the warm worker of bench/query.py (60 dev
questions, ``--repeat`` passes). Plot: bench/results/scaling.png; data: bench/results/scaling.json.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

from bench.lib import common as C


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--factors", default="1,4,16")
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--no-rank-bm25", action="store_true")
    ap.add_argument("--rebuild", action="store_true", help="rebuild the scaled data dirs")
    args = ap.parse_args()
    C.setup()
    from bench.lib import synth
    from bench_query import run_warm

    info = C.machine()
    src_dir = C.ingested_dir()
    print(f"scaling from {src_dir}; load average {info['loadavg_at_start']}", flush=True)
    out = C.WORK / "rates.json"
    subprocess.run([C.PY, "-m", "bench.query", "--rate-worker", str(src_dir), str(out)], cwd=C.ROOT, check=True)
    rates = json.loads(out.read_text())
    src = synth.load_source(src_dir)
    n0 = len(src[0])
    points = []
    for f in [int(x) for x in args.factors.split(",")]:
        d = C.WORK / f"scaling_{f}x"
        if args.rebuild:
            import shutil

            shutil.rmtree(d, ignore_errors=True)
        print(f"{f}×: {n0 * f} chunks → {d}", flush=True)
        rec = synth.build_scaled(src_dir, d, n0 * f, tokens="jieba", source=src)
        print(f"{f}×: warm queries", flush=True)
        warm = run_warm(d, args.repeat, not args.no_rank_bm25, True)
        t = rec["timings"]
        points.append({"factor": f, "chunks": n0 * f, "build": rec, "warm": warm,
                       "embed_est_s": round(n0 * f / rates["embed_chunks_per_s"], 1)})
        print(f"  index {t['index_total_s']:.1f} s (+ embed est. {points[-1]['embed_est_s']} s); "
              f"hybrid p50 {warm['configs']['hybrid']['p50_ms']} ms", flush=True)
    data = {"machine": info, "source": str(src_dir), "rates": rates, "points": points,
            "command": "python -m bench scaling " + " ".join(sys.argv[1:])}
    report(data)
    plot(data, C.RESULTS / "scaling.png")
    C.save("scaling", data)


def report(data: dict) -> None:
    rows = []
    for p in data["points"]:
        t = p["build"]["timings"]
        rows.append([f"{p['factor']}×", p["chunks"], t["tokenize_s"], t["bm25_build_s"] + t["bm25_save_s"],
                     t["catalog_s"], t["chroma_s"], t["index_total_s"], p["embed_est_s"],
                     round(p["chunks"] / t["index_total_s"]),
                     (p["warm"].get("rank_bm25") or {}).get("build_s", "")])
    print(C.table(["size", "chunks", "tokenize s", "bm25s build+save s", "catalog s", "chroma s", "index s (no embed)",
                   "USE embed s (est.)", "chunks/s (no embed)", "rank_bm25 build s"], rows, "Index build time"))
    qrows = []
    for p in data["points"]:
        w = p["warm"]
        row = [f"{p['factor']}×", p["chunks"]]
        for cfg in ("hybrid", "hybrid+chapter", "bm25", "vector"):
            c = w["configs"].get(cfg, {})
            row.append(f"{c.get('p50_ms', '')} / {c.get('p95_ms', '')}")
        rb = (w.get("rank_bm25") or {}).get("configs", {}).get("rank_bm25", {})
        row.append(f"{rb.get('p50_ms', '')} / {rb.get('p95_ms', '')}")
        qrows.append(row)
    print(C.table(["size", "chunks", "hybrid p50/p95 ms", "hybrid+chapter", "bm25", "vector", "rank_bm25"], qrows,
                  "Warm query latency"))


def plot(data: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    pts = data["points"]
    n = [p["chunks"] for p in pts]
    fig, (a, b) = plt.subplots(1, 2, figsize=(11, 4.2))
    parts = [("tokenize (jieba)", lambda t: t["tokenize_s"]),
             ("BM25 build+save", lambda t: t["bm25_build_s"] + t["bm25_save_s"]),
             ("catalog (sqlite)", lambda t: t["catalog_s"]), ("Chroma upsert", lambda t: t["chroma_s"])]
    for label, fn in parts:
        a.plot(n, [fn(p["build"]["timings"]) for p in pts], marker="o", label=label)
    a.plot(n, [p["build"]["timings"]["index_total_s"] for p in pts], marker="s", color="black", label="index total (measured)")
    a.plot(n, [p["build"]["timings"]["index_total_s"] + p["embed_est_s"] for p in pts], "k--", marker="^",
           label="+ USE embedding (estimated)")
    rb = [(p["chunks"], p["warm"]["rank_bm25"]["build_s"]) for p in pts if p["warm"].get("rank_bm25")]
    if rb:
        a.plot(*zip(*rb), marker="x", linestyle=":", label="rank_bm25 build")
    a.set_xscale("log"), a.set_yscale("log")
    a.set_xlabel("chunks"), a.set_ylabel("seconds"), a.set_title("Index build time")
    a.grid(True, which="both", alpha=0.3), a.legend(fontsize=7)
    for cfg in ("hybrid", "hybrid+chapter", "bm25", "vector"):
        b.plot(n, [p["warm"]["configs"][cfg]["p50_ms"] for p in pts], marker="o", label=f"ours {cfg}")
    rq = [(p["chunks"], p["warm"]["rank_bm25"]["configs"]["rank_bm25"]["p50_ms"]) for p in pts if p["warm"].get("rank_bm25")]
    if rq:
        b.plot(*zip(*rq), marker="x", linestyle=":", label="rank_bm25")
    b.set_xscale("log"), b.set_yscale("log")
    b.set_xlabel("chunks"), b.set_ylabel("warm p50 ms"), b.set_title("Warm query latency (60 dev questions)")
    b.grid(True, which="both", alpha=0.3), b.legend(fontsize=7)
    m = data["machine"]
    fig.suptitle(f"examrag scaling — {m['nproc']} cores {m['cpu']}, commit {m['commit']}, {m['when']}", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    print(f"plot: {path.relative_to(C.ROOT)}")


if __name__ == "__main__":
    main()
