"""Query benchmark: warm latency per retrieval mode at the real corpus size and at 20k / 200k chunks,
rank_bm25 as the baseline engine, index throughput, and cold ``cli.py ask --no-llm``.

    .venv/bin/python -m bench query                       # everything (~30 min the first time,
                                                                #  the scaled data dirs are then reused)
    .venv/bin/python -m bench query --scales 20000 --skip-cold      # quicker
    .venv/bin/python -m bench query --only-cold            # just the cold-ask part (~1 min)

Warm: one ``Retriever`` per data dir (in its own subprocess), every dev question searched once to warm
up, then ``--repeat`` passes over the 60 questions, configs interleaved per question; p50/p95 over all
timed searches. "+chapter" uses the question's ``chapter`` when it has one, else a chapter from the dev
set in turn. rank_bm25 (``BM25Okapi``) is built over the same chunks and our tokens; its query time is
tokenize + ``get_scores`` + top-20 (chapter: mask after scoring). The 20k / 200k dirs are synthetic
(see ``bench/lib/synth.py``: perturbed copies of the corpus chunks, perturbed real vectors, built with our
BM25 / catalog / Chroma code). Cold: wall time of fresh ``cli.py ask --no-llm`` processes (median of
``--cold-runs``), a step-by-step probe (``bench/lib/cold_probe.py``) and ``python -X importtime``.
Writes bench/results/query.json.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path

from bench.lib import common as C

COLD_Q = "B树和B+树的区别是什么"
CONFIGS = [("hybrid", False), ("hybrid", True), ("bm25", False), ("bm25", True), ("vector", False), ("vector", True)]


def dev_questions() -> list[dict]:
    from pipeline.ask.evaluate import read_questions

    qs = list(read_questions(C.DEV))
    chapters = [q["chapter"] for q in qs if q.get("chapter")]
    for i, q in enumerate(qs):
        q["_chapter"] = q.get("chapter") or chapters[i % len(chapters)]
    return qs


# --------------------------------------------------------------------------- warm (subprocess worker)
def warm_worker(data_dir: Path, out: Path, repeat: int, rank_bm25: bool, synthetic: bool) -> None:

    from pipeline.ask.retrieve import ChapterNotFound, Retriever
    from pipeline.text.tokenize import tokenize
    from pipeline.settings import load_settings

    s = load_settings(data_dir=data_dir)
    r = Retriever(data_dir, s)
    qs = dev_questions()
    n = len(r.catalog)
    res: dict = {"chunks": n, "configs": {}, "parts": {}}

    def run(q, mode, chap):
        try:
            return r.search(q["question"], top_k=10, mode=mode, chapter=q["_chapter"] if chap else None)
        except ChapterNotFound:
            return None

    t0 = time.perf_counter()
    for q in qs:  # warm-up: loads jieba, BM25, USE, Chroma, sqlite pages
        for mode, chap in CONFIGS:
            run(q, mode, chap)
    res["warmup_s"] = round(time.perf_counter() - t0, 2)
    times: dict[str, list[float]] = defaultdict(list)
    missing = 0
    for _ in range(repeat):
        for q in qs:
            for mode, chap in CONFIGS:
                a = time.perf_counter()
                got = run(q, mode, chap)
                times[mode + ("+chapter" if chap else "")].append(time.perf_counter() - a)
                missing += got is None
    for k, v in times.items():
        res["configs"][k] = {"p50_ms": round(1000 * C.median(v), 2), "p95_ms": round(1000 * C.pct(v, 95), 2),
                             "n": len(v)}
    res["chapter_not_found"] = missing
    # where the time goes (one more pass with wrapped parts)
    import pipeline.text.tokenize as tokmod

    parts: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    current = {"cfg": ""}

    def wrap(obj, attr, key):
        orig = getattr(obj, attr)

        def timed(*a, **kw):
            t = time.perf_counter()
            try:
                return orig(*a, **kw)
            finally:
                parts[current["cfg"]][key].append(time.perf_counter() - t)

        setattr(obj, attr, timed)

    for name in ("tokenize", "tokenize_query"):
        if hasattr(tokmod, name):
            wrap(tokmod, name, f"{name} (query)")
    wrap(r.bm25, "search", "bm25 search")
    wrap(r.embedder, "embed_query", "embed query (USE)")
    wrap(r.vectors, "query", "chroma query")
    wrap(r.catalog, "by_ids", "catalog by_ids")
    wrap(r.catalog, "matching_chapters", "chapter match (sqlite)")
    wrap(r.catalog, "positions_in", "chapter positions (sqlite)")
    for q in qs:
        for mode, chap in (("hybrid", False), ("hybrid", True)):
            cfg = "hybrid" + ("+chapter" if chap else "")
            current["cfg"] = cfg
            a = time.perf_counter()
            run(q, mode, chap)
            parts[cfg]["total"].append(time.perf_counter() - a)
    res["parts"] = {cfg: {k: round(1000 * C.median(v) * len(v) / len(qs), 2) for k, v in d.items()}
                    for cfg, d in parts.items()}  # mean-per-question of median-per-call: ms per search
    if rank_bm25:
        import pipeline.text.tokenize as tk

        if hasattr(tk, "tokenize_query"):  # the same query tokens our BM25 gets: only the engine differs
            def qtok(text):
                return tk.tokenize_query(text, r.bm25.vocab)
        else:
            qtok = tokenize
        res["rank_bm25"] = rank_bm25_bench(r, data_dir, qs, repeat, synthetic, qtok)
    out.write_text(json.dumps(res, ensure_ascii=False, indent=1))


def rank_bm25_bench(r, data_dir: Path, qs, repeat: int, synthetic: bool, tokenize) -> dict:
    import numpy as np
    from rank_bm25 import BM25Okapi

    from pipeline.ask.retrieve import ChapterNotFound

    if synthetic:
        from bench.lib.synth import load_tokens

        toks = load_tokens(data_dir)
    else:
        from bench.lib.synth import index_chunks

        _, toks = index_chunks(data_dir)
    assert len(toks) == len(r.bm25), (len(toks), len(r.bm25))
    t0 = time.perf_counter()
    bm = BM25Okapi(toks)
    build = time.perf_counter() - t0
    del toks
    masks = {}
    for q in qs:
        try:
            m = np.zeros(len(r.bm25), dtype=bool)
            m[r.catalog.positions_in(r.resolve_chapter(q["_chapter"]))] = True
            masks[q["id"]] = m
        except ChapterNotFound:
            masks[q["id"]] = None

    def search(q, chap):
        sc = bm.get_scores(tokenize(q["question"]))
        if chap and masks[q["id"]] is not None:
            sc = np.where(masks[q["id"]], sc, -np.inf)
        top = np.argpartition(-sc, 19)[:20]
        return top[np.argsort(-sc[top])]

    times: dict[str, list[float]] = defaultdict(list)
    t0 = time.perf_counter()
    for q in qs[:5]:
        search(q, False)
    per = (time.perf_counter() - t0) / 5
    reps = repeat if per * len(qs) * 2 * repeat < 240 else 1  # keep the 200k run bounded
    for _ in range(reps):
        for q in qs:
            for chap in (False, True):
                a = time.perf_counter()
                search(q, chap)
                times["rank_bm25" + ("+chapter" if chap else "")].append(time.perf_counter() - a)
    return {"build_s": round(build, 2), "build_chunks_per_s": round(len(r.bm25) / build, 1), "repeat": reps,
            "configs": {k: {"p50_ms": round(1000 * C.median(v), 2), "p95_ms": round(1000 * C.pct(v, 95), 2),
                            "n": len(v)} for k, v in times.items()}}


def run_warm(data_dir: Path, repeat: int, rank_bm25: bool, synthetic: bool) -> dict:
    out = C.WORK / f"warm_{data_dir.name}.json"
    cmd = [C.PY, "-m", "bench.query", "--warm-worker", str(data_dir), str(out), str(repeat),
           "1" if rank_bm25 else "0", "1" if synthetic else "0"]
    run = C.time_v(cmd)
    if run["rc"] != 0:
        print(run["stderr"][-4000:])
        raise SystemExit(f"warm worker failed on {data_dir}")
    res = json.loads(out.read_text())
    res["worker_max_rss_mb"] = run["max_rss_mb"]
    return res


# --------------------------------------------------------------------------- embed / tokenize rates
def rate_worker(data_dir: Path, out: Path) -> None:
    """Embedding and tokenizing rate on a fixed sample of real chunks (index throughput parts)."""
    import random

    from bench.lib.synth import load_source

    from pipeline.index.embed import UseEmbedder
    from pipeline.text.tokenize import tokenize

    chunks, *_ = load_source(data_dir)
    sample = random.Random(1).sample(chunks, min(512, len(chunks)))
    texts = [c.index_text for c in sample]
    tokenize("预热")
    t0 = time.perf_counter()
    for t in texts:
        tokenize(t)
    tok = time.perf_counter() - t0
    e = UseEmbedder().load()
    e.embed_documents(texts[:16])
    t0 = time.perf_counter()
    e.embed_documents(texts[:256])
    emb = time.perf_counter() - t0
    out.write_text(json.dumps({"tokenize_chunks_per_s": round(len(texts) / tok, 1),
                               "embed_chunks_per_s": round(256 / emb, 1),
                               "mean_chars": round(sum(map(len, texts)) / len(texts))}))


# --------------------------------------------------------------------------- cold
def cold(real: Path, runs: int) -> dict:
    ask = [C.PY, "cli.py", "ask", "--no-llm", "--data-dir", str(real)]
    from pipeline.settings import load_settings

    default_mode = load_settings(data_dir=real).ask.retrieval_mode
    cmds = {
        "python -c pass": [C.PY, "-c", "pass"],
        "cli.py --help": [C.PY, "cli.py", "--help"],
        f"ask --no-llm (default mode: {default_mode})": ask + [COLD_Q],
        "ask --no-llm --mode bm25": ask + ["--mode", "bm25", COLD_Q],
        "ask --no-llm --mode bm25 --chapter 查找": ask + ["--mode", "bm25", "--chapter", "查找", "折半查找的时间复杂度"],
        "ask --no-llm --mode hybrid": ask + ["--mode", "hybrid", COLD_Q],
        "ask --no-llm --mode hybrid --chapter 查找": ask + ["--mode", "hybrid", "--chapter", "查找", "折半查找的时间复杂度"],
        "ask --no-llm --mode vector": ask + ["--mode", "vector", COLD_Q],
    }
    walls: dict[str, list[float]] = defaultdict(list)
    rss: dict[str, float] = {}
    for _ in range(runs):  # interleaved, so load changes hit every command alike
        for name, cmd in cmds.items():
            r = C.time_v(cmd)
            if r["rc"] != 0:
                print(f"{name}: rc {r['rc']}\n{r['stderr'][-2000:]}")
            walls[name].append(r["wall_s"])
            rss[name] = r["max_rss_mb"]
    steps: dict[str, list[float]] = defaultdict(list)
    for _ in range(runs):
        p = subprocess.run([C.PY, "-m", "bench.lib.cold_probe", str(real), COLD_Q], cwd=C.ROOT, capture_output=True,
                           text=True)
        if p.returncode:
            print(p.stderr[-2000:])
            continue
        for k, v in json.loads(p.stdout.strip().splitlines()[-1]).items():
            steps[k].append(v)
    # -X importtime of the real command: cumulative time per top-level package (self times summed)
    p = subprocess.run([C.PY, "-X", "importtime", "cli.py", "ask", "--no-llm", "--mode", "hybrid", "--data-dir", str(real),
                        COLD_Q],
                       cwd=C.ROOT, capture_output=True, text=True)
    by_pkg: dict[str, float] = defaultdict(float)
    top_level: list[tuple[str, float]] = []
    for ln in p.stderr.splitlines():
        m = re.match(r"import time:\s+(\d+) \|\s+(\d+) \| (\s*)(\S+)", ln)
        if not m:
            continue
        self_us, cum_us, indent, name = int(m.group(1)), int(m.group(2)), len(m.group(3)), m.group(4)
        by_pkg[name.split(".")[0]] += self_us / 1e6
        if indent == 1:
            top_level.append((name, cum_us / 1e6))
    return {
        "question": COLD_Q, "runs": runs, "default_mode": default_mode,
        "wall_median_s": {k: round(C.median(v), 3) for k, v in walls.items()},
        "wall_all_s": walls, "max_rss_mb": rss,
        "probe_median_s": {k: round(C.median(v), 4) for k, v in steps.items()},
        "importtime_by_package_s": dict(sorted(((k, round(v, 3)) for k, v in by_pkg.items()),
                                               key=lambda kv: -kv[1])[:20]),
        "importtime_top_level_s": sorted(((k, round(v, 3)) for k, v in top_level), key=lambda kv: -kv[1])[:15],
        "importtime_total_s": round(sum(by_pkg.values()), 3),
    }


# --------------------------------------------------------------------------- main
def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scales", default="20000,200000", help="synthetic sizes (comma list; '' for none)")
    ap.add_argument("--repeat", type=int, default=3, help="timed passes over the 60 questions")
    ap.add_argument("--cold-runs", type=int, default=5)
    ap.add_argument("--skip-cold", action="store_true")
    ap.add_argument("--only-cold", action="store_true")
    ap.add_argument("--no-rank-bm25", action="store_true", help="skip the rank_bm25 baseline")
    ap.add_argument("--warm-worker", nargs=5, help=argparse.SUPPRESS)
    ap.add_argument("--rate-worker", nargs=2, help=argparse.SUPPRESS)
    args = ap.parse_args()
    C.setup()
    if args.warm_worker:
        d, out, rep, rb, syn = args.warm_worker
        warm_worker(Path(d), Path(out), int(rep), rb == "1", syn == "1")
        return
    if args.rate_worker:
        rate_worker(Path(args.rate_worker[0]), Path(args.rate_worker[1]))
        return
    info = C.machine()
    real = C.ingested_dir()
    print(f"query bench on {real}; load average {info['loadavg_at_start']}", flush=True)
    data: dict = {"machine": info, "command": "python -m bench query " + " ".join(sys.argv[1:]),
                  "warm": {}, "builds": {}}
    prev = C.RESULTS / "query.json"
    if args.only_cold and prev.exists():  # keep the warm results of the last full run
        old = json.loads(prev.read_text())
        data.update({k: old[k] for k in ("warm", "builds", "rates") if k in old})
        data["warm_machine"] = old.get("warm_machine", old["machine"])
        data["warm_command"] = old.get("warm_command", old.get("command"))
    if not args.only_cold:
        data["warm_machine"], data["warm_command"] = info, data["command"]
        print("warm: real corpus", flush=True)
        data["warm"]["real"] = run_warm(real, args.repeat, not args.no_rank_bm25, False)
        out = C.WORK / "rates.json"
        subprocess.run([C.PY, "-m", "bench.query", "--rate-worker", str(real), str(out)], cwd=C.ROOT, check=True)
        data["rates"] = json.loads(out.read_text())
        from bench.lib import synth

        src = None
        for n in [int(x) for x in args.scales.split(",") if x.strip()]:
            d = C.WORK / f"scale_{n}"
            print(f"scale {n}: building {d}", flush=True)
            if src is None and not (d / "bench_synth.json").exists():
                src = synth.load_source(real)
            rec = synth.build_scaled(real, d, n, tokens="perturb", source=src)
            data["builds"][str(n)] = rec
            print(f"scale {n}: warm queries", flush=True)
            data["warm"][str(n)] = run_warm(d, args.repeat, not args.no_rank_bm25, True)
    if not args.skip_cold:
        print("cold ask", flush=True)
        data["cold"] = cold(real, args.cold_runs)
    report(data)
    C.save("query", data)


def report(data: dict) -> None:
    rows = []
    for scale, w in data.get("warm", {}).items():
        for cfg, v in w["configs"].items():
            rows.append([w["chunks"], "ours", cfg, v["p50_ms"], v["p95_ms"]])
        for cfg, v in (w.get("rank_bm25") or {}).get("configs", {}).items():
            rows.append([w["chunks"], "rank_bm25", cfg, v["p50_ms"], v["p95_ms"]])
    if rows:
        print(C.table(["chunks", "engine", "config", "p50 ms", "p95 ms"], rows, "Warm query latency"))
        prow = []
        for scale, w in data["warm"].items():
            for cfg, parts in w["parts"].items():
                prow.append([w["chunks"], cfg] + [f"{k} {v}" for k, v in parts.items()])
        for r in prow:
            print(f"  {r[0]:>7} {r[1]:<15} " + " | ".join(r[2:]))
        trow = []
        rates = data.get("rates", {})
        for scale, w in data["warm"].items():
            b = data["builds"].get(scale, {}).get("timings", {})
            rb = w.get("rank_bm25") or {}
            n = w["chunks"]
            if b:
                trow.append([n, round(n / b["bm25_build_s"]), round(n / (b["bm25_build_s"] + b["bm25_save_s"])),
                             round(n / b["chroma_s"]), round(n / b["catalog_s"]), rb.get("build_chunks_per_s", "")])
        if trow:
            print(C.table(["chunks", "bm25s build/s", "bm25s build+save/s", "chroma upsert/s", "catalog/s",
                           "rank_bm25 build/s"], trow, "Index throughput (chunks/s, tokens given)"))
        if rates:
            print(f"  tokenize (jieba, ours): {rates['tokenize_chunks_per_s']} chunks/s; "
                  f"embed (USE): {rates['embed_chunks_per_s']} chunks/s (mean {rates['mean_chars']} chars)")
    cold_ = data.get("cold")
    if cold_:
        print(C.table(["command", "median wall s"], [[k, v] for k, v in cold_["wall_median_s"].items()],
                      f"Cold (median of {cold_['runs']} fresh processes)"))
        print(C.table(["step", "median s"], [[k, v] for k, v in cold_["probe_median_s"].items()],
                      "Cold ask, step by step (bench/lib/cold_probe.py)"))
        print(C.table(["package", "import s (self, summed)"], list(cold_["importtime_by_package_s"].items())[:12],
                      "python -X importtime cli.py ask --no-llm --mode hybrid"))


if __name__ == "__main__":
    main()
