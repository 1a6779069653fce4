"""Regenerate the generated blocks of BENCHMARKS.md from bench/results/*.json.

    .venv/bin/python -m bench reports.benchmarks_md

Only the text between ``<!-- BEGIN generated:NAME -->`` and ``<!-- END generated:NAME -->`` is
replaced; the prose around it is kept (re-read it after a re-run: it describes the run it was written for).
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

from bench.lib import common as C

MD = C.ROOT / "BENCHMARKS.md"


def load(name: str):
    p = C.RESULTS / f"{name}.json"
    return json.loads(p.read_text("utf-8")) if p.exists() else None


def t(headers, rows) -> str:
    return C.table(headers, rows).strip("\n")


def f1(x) -> str:
    return "" if x in (None, "") else f"{x:.1f}" if isinstance(x, (int, float)) else str(x)


def block_machine() -> str:
    rows = []
    for name in ("ingest", "profile_parse", "profile_index", "quality", "fusion", "fusion_st", "query", "scaling", "cold_cuts", "enrich"):
        r = load(name)
        if r:
            m = r["machine"]
            rows.append([f"`{r.get('command', name).strip()}`", m["when"], m["commit"], " ".join(map(str, m["loadavg_at_start"]))])
            wm = r.get("warm_machine")
            if wm and wm is not m and wm.get("when") != m["when"]:
                rows.append([f"`{r.get('warm_command', name).strip()}` (the warm tables)", wm["when"], wm["commit"],
                             " ".join(map(str, wm["loadavg_at_start"]))])
    m = next((load(n)["machine"] for n in ("ingest", "query", "quality", "scaling") if load(n)), None)
    head = ""
    if m:
        head = (f"Machine: {m['nproc']} cores, {m['cpu']}, {m['ram_gb']} GB RAM, Python {m['python']}, "
                f"{m['platform']}.\n\n")
    return head + t(["command", "run at", "commit", "load average at start (1/5/15 min)"], rows)


def block_ingest() -> str:
    r = load("ingest")
    if not r:
        return "_no results yet: run `python -m bench ingest`_"
    s, st, peaks = r["summary"], r["stages"], r["rss_peak_mb_tree"]
    rows = [[k, f1(v["wall_s"]), f"{100 * v['wall_s'] / s['wall_s']:.0f}%", f1(peaks.get(k))] for k, v in st.items()]
    rows.append(["**total**", f"**{s['wall_s']:.1f}** ({s['wall_s'] / 60:.1f} min)", "100%",
                 f"{s['max_rss_mb_single_process']:.0f} (largest single process)"])
    out = [t(["stage", "wall s", "share", "peak RSS MB (process tree, incl. OCR workers)"], rows), ""]
    p = r["index_parts"]
    g = lambda k: p.get(k, {}).get("s", 0.0)  # noqa: E731
    irows = [["chunk + tokenize (jieba) per document", f1(g("index.run_docs")), f"{s['tokenize_chunks_per_s']:.0f} chunks/s tokenize"],
             ["USE model load", f1(g("index.embed_model_load")), ""],
             ["embed (USE, 1 thread)", f1(g("index.embed")), f"{s['embed_chunks_per_s']:.1f} chunks/s"],
             ["Chroma open + upsert", f1(g("index.chroma_open") + g("index.chroma_upsert")),
              f"{p.get('index.chroma_upsert', {}).get('calls', 0) / max(g('index.chroma_upsert'), 1e-9):.0f} chunks/s"],
             ["BM25 build + save", f1(g("index.bm25_build") + g("index.bm25_save")), ""],
             ["catalog (sqlite) write", f1(g("index.catalog_write")), ""],
             ["**index stage**", f1(st["index"]["wall_s"]), f"**{s['index_chunks_per_s']:.1f} chunks/s** end to end ({s['chunks']} chunks)"]]
    out += ["Index stage parts:", "", t(["part", "s", "rate"], irows), ""]
    prow = [["text-layer PDF pages", s["text_pdf_pages"], f"{s['text_pages_per_s']} pages/s",
             f"{s['text_pdf_seconds']} s over PDFs without OCR pages"],
            ["OCR'd PDF pages", s["ocr_pages"], f"{s['ocr_s_per_page']} s/page",
             f"{s['ocr_docs_seconds']} s over PDFs with OCR pages, minus their text pages; "
             f"{r['settings']['ocr_workers']} OCR worker processes"],
            ["markdown notes", s["md_files"], f"{s['md_files_per_s']} files/s", f"{s['md_seconds']} s"]]
    out += ["Parse throughput (per-document parse times; pages by `PageInfo.method`):", "",
            t(["input", "count", "rate", "from"], prow)]
    return "\n".join(out)


def block_profile() -> str:
    outs = []
    for stage in ("parse", "index", "enrich", "clean"):
        r = load(f"profile_{stage}")
        if not r:
            continue
        own = [[f"`{f[:110]}`", v] for f, v in r["own_pct"][:12]]
        inc = [[f"`{f[:110]}`", v] for f, v in r["inclusive_pct"][:14]]
        outs += [f"`{' '.join(r['profiled'])}`: {r['wall_s']} s wall, {r['samples']} py-spy samples over all processes"
                 f" ({len(r['files'])} files). Full listing: [bench/results/profile_{stage}.txt](bench/results/profile_{stage}.txt),"
                 f" icicle chart: [profile_{stage}.svg](bench/results/profile_{stage}.svg).", "",
                 t(["where the CPU goes", "% samples"], [[k, v] for k, v in r.get("categories_pct", {}).items()]), "",
                 t(["own time (top of stack)", "% samples"], own), "", t(["inclusive", "% samples"], inc), ""]
    return "\n".join(outs) or "_no profile yet: run `python -m bench profile_ingest`_"


def block_quality() -> str:
    r = load("quality")
    if not r:
        return "_no results yet: run `python -m bench quality`_"
    sy = r["systems"]
    rows = [[n, v.get("chunks", ""), v["summary"]["hit@1"], v["summary"]["hit@3"], v["summary"]["hit@5"], v["summary"]["mrr"]]
            for n, v in sy.items()]
    first = next(iter(sy.values()))["summary"]["by_kind"]
    kinds = sorted(first)
    krows = [[n] + [f"{v['summary']['by_kind'][k]['hit@5']:.2f} / {v['summary']['by_kind'][k]['mrr']:.2f}" for k in kinds]
             for n, v in sy.items()]
    out = [t(["system", "chunks", "hit@1", "hit@3", "hit@5", "MRR@10"], rows), "",
           "By question kind (hit@5 / MRR):", "", t(["system"] + [f"{k} ({first[k]['n']})" for k in kinds], krows)]
    for ref in ("ours bm25 (enrich extractive)", "ours hybrid (enrich extractive)"):
        base = sy.get(ref)
        if not base:
            continue
        h5 = {x["id"]: bool(x["rank"] and x["rank"] <= 5) for x in base["rows"]}
        hrows = []
        for n, v in sy.items():
            if n == ref:
                continue
            o = {x["id"]: bool(x["rank"] and x["rank"] <= 5) for x in v["rows"]}
            won = sorted(i for i in h5 if h5[i] and not o[i])
            lost = sorted(i for i in h5 if o[i] and not h5[i])
            hrows.append([n, len(won), len(lost), " ".join(won), " ".join(lost)])
        out += ["", f"Head to head at hit@5 against **{ref}** — questions only one side finds in its top 5:", "",
                t(["other system", f"{ref.split(' (')[0]} only", "other only", "ids (ours only)", "ids (other only)"], hrows)]
    return "\n".join(out)


def block_query() -> str:
    r = load("query")
    if not r or not r.get("warm"):
        return "_no results yet: run `python -m bench query`_"
    rows = []
    order = ["hybrid", "hybrid+chapter", "bm25", "bm25+chapter", "vector", "vector+chapter"]
    for scale, w in r["warm"].items():
        syn = "" if scale == "real" else " (synthetic)"
        for cfg in order:
            v = w["configs"].get(cfg)
            if v:
                rows.append([f"{w['chunks']:,}{syn}", f"ours {cfg}", v["p50_ms"], v["p95_ms"]])
        for cfg, v in (w.get("rank_bm25") or {}).get("configs", {}).items():
            rows.append([f"{w['chunks']:,}{syn}", cfg, v["p50_ms"], v["p95_ms"]])
    out = [t(["chunks", "engine / config", "p50 ms", "p95 ms"], rows), "",
           "Where a warm hybrid search spends its time (median ms per search, one extra pass):", ""]
    prow = []
    for scale, w in r["warm"].items():
        for cfg, parts in w["parts"].items():
            prow.append([f"{w['chunks']:,}", cfg] + [", ".join(f"{k} {v}" for k, v in parts.items())])
    out += [t(["chunks", "config", "parts (ms)"], prow), ""]
    trow = []
    rates = r.get("rates", {})
    for scale, w in r["warm"].items():
        b = r["builds"].get(scale, {}).get("timings")
        rb = w.get("rank_bm25") or {}
        if b:
            n = w["chunks"]
            trow.append([f"{n:,}", round(n / (b["bm25_build_s"] + b["bm25_save_s"])), round(n / b["chroma_s"]),
                         round(n / b["catalog_s"]), rb.get("build_chunks_per_s", "")])
    if trow:
        out += ["Index throughput, chunks/s (tokens given; ours = bm25s build+save, Chroma upsert, catalog — "
                "rank_bm25 = `BM25Okapi(corpus)`):", "",
                t(["chunks", "ours BM25", "ours Chroma", "ours catalog", "rank_bm25"], trow), ""]
    if rates:
        out += [f"Per-chunk work before those: our jieba tokenizer {rates['tokenize_chunks_per_s']} chunks/s, "
                f"USE embedding {rates['embed_chunks_per_s']} chunks/s (sample of 256 real chunks, mean "
                f"{rates['mean_chars']} chars)."]
    return "\n".join(out)


def block_cold() -> str:
    r = load("query")
    if not r or not r.get("cold"):
        return "_no results yet: run `python -m bench query --only-cold`_"
    c = r["cold"]
    rows = [[k, v, c["max_rss_mb"].get(k, "")] for k, v in c["wall_median_s"].items()]
    out = [t(["command (fresh process)", f"median wall s ({c['runs']} runs)", "peak RSS MB"], rows), "",
           f"Step by step (`bench/lib/cold_probe.py`, median of {c['runs']}; times add up to the in-process total, "
           "interpreter start-up comes on top):", "",
           t(["step", "median s"], [[k, v] for k, v in c["probe_median_s"].items()]), "",
           f"`python -X importtime cli.py ask --no-llm --mode hybrid …`: {c['importtime_total_s']} s of imports in all; "
           "by top-level package (self times summed):", "",
           t(["package", "s"], list(c["importtime_by_package_s"].items())[:14])]
    return "\n".join(out)


def block_cuts() -> str:
    r = load("cold_cuts")
    if not r:
        return "_no results yet: run `python -m bench prototypes.cold_cuts`_"
    return "\n".join([
        t(["cold step, fresh process", "median s"], [[k, v] for k, v in r["cold_median_s"].items()]), "",
        t(["warm exact vector search (numpy, 1 BLAS thread)", "p50 ms"], [[k, v] for k, v in r["warm_exact_p50_ms"].items()])])


def block_scaling() -> str:
    r = load("scaling")
    if not r:
        return "_no results yet: run `python -m bench scaling`_"
    rows, qrows = [], []
    for p in r["points"]:
        b = p["build"]["timings"]
        rows.append([f"{p['factor']}×", f"{p['chunks']:,}", b["tokenize_s"], b["bm25_build_s"] + b["bm25_save_s"],
                     b["catalog_s"], b["chroma_s"], b["index_total_s"], p["embed_est_s"],
                     (p["warm"].get("rank_bm25") or {}).get("build_s", "")])
        w = p["warm"]["configs"]
        rb = (p["warm"].get("rank_bm25") or {}).get("configs", {}).get("rank_bm25", {})
        qrows.append([f"{p['factor']}×", f"{p['chunks']:,}"] +
                     [f"{w[c]['p50_ms']} / {w[c]['p95_ms']}" for c in ("hybrid", "hybrid+chapter", "bm25", "vector")] +
                     [f"{rb.get('p50_ms', '')} / {rb.get('p95_ms', '')}"])
    return "\n".join([
        "![scaling](bench/results/scaling.png)", "",
        t(["size", "chunks", "tokenize s", "BM25 build+save s", "catalog s", "Chroma s", "index s (measured)",
           "+ USE embed s (estimated)", "rank_bm25 build s"], rows), "",
        t(["size", "chunks", "hybrid p50/p95 ms", "hybrid+chapter", "bm25", "vector", "rank_bm25"], qrows)])


def block_fusion(name: str = "fusion") -> str:
    r = load(name)
    if not r:
        return f"_no results yet: run `python -m bench fusion {'--st-dir DIR' if name == 'fusion_st' else '--e5'}`_"
    rows = [[x["system"], x["all"]["hit@1"], x["all"]["hit@5"], x["all"]["mrr"], x["non_exam"]["hit@1"],
             x["non_exam"]["hit@5"], x["non_exam"]["mrr"]] for x in r["results"]]
    out = t(["system", "hit@1", "hit@5", "MRR@10", "non-exam hit@1", "non-exam hit@5", "non-exam MRR@10"], rows)
    if r.get("speeds"):
        out += "\n\nRe-scoring models, embedding the candidate chunks (union of both top-20 lists of the 35 non-exam questions):\n\n"
        out += t(["model", "candidate chunks", "embed s", "chunks/s"],
                 [[k, v["candidates"], v["embed_s"], v["chunks_per_s"]] for k, v in r["speeds"].items()])
    return out


def block_enrich() -> str:
    r = load("enrich")
    if not r:
        return "_no results yet: run `python -m bench enrich`_"
    rows = []
    for x in r["rows"]:
        fb = x.get("fallbacks")
        rows.append([x["backend"], x["sections"], f1(x["enrich_s"]), f1(x["s_per_100_sections"]), f1(x["enrich_peak_mb"]),
                     f"{fb['fell_back']}/{fb['sections']}" if fb else "",
                     x["bm25"]["hit@1"], x["bm25"]["hit@5"], x["bm25"]["mrr"], x["hybrid"]["hit@5"], x["hybrid"]["mrr"]])
    head = (f"Sub-corpus: {len(r['files'])} note files, {len(r['questions'])} dev questions "
            f"({', '.join(r['questions'])}).\n\n")
    return head + t(["enrichment", "sections", "enrich s", "s / 100 sections", "peak MB", "LLM fallbacks",
                     "bm25 hit@1", "bm25 hit@5", "bm25 MRR@10", "hybrid hit@5", "hybrid MRR@10"], rows)


def block_others() -> str:
    lines = []
    for script, what in (("reports/parse.py", "per-PDF parse report and gold findability after parsing"),
                         ("parse.py", "parse benchmark"),
                         ("reports/clean.py", "questions per year and gold findability before/after cleaning")):
        if (C.ROOT / "bench" / script).exists():
            lines.append(f"- `bench/{script}` — {what} (see its docstring for the command).")
    for p in sorted(C.RESULTS.glob("*")):
        if p.suffix in (".json", ".md", ".txt", ".png", ".svg") and not any(
                p.name.startswith(x) for x in ("ingest", "quality", "query", "scaling", "profile_", "cold_cuts", "fusion", "enrich")):
            lines.append(f"- [bench/results/{p.name}](bench/results/{p.name})")
    return "\n".join(lines) or "_none yet_"


BLOCKS = {"machine": block_machine, "ingest": block_ingest, "profile": block_profile, "quality": block_quality,
          "query": block_query, "cold": block_cold, "cuts": block_cuts, "scaling": block_scaling, "others": block_others, "fusion": block_fusion,
          "fusion_st": lambda: block_fusion("fusion_st"),
          "enrich": block_enrich}


def main() -> None:
    C.setup()
    text = MD.read_text("utf-8")
    for name, fn in BLOCKS.items():
        pat = re.compile(rf"(<!-- BEGIN generated:{name} -->\n).*?(<!-- END generated:{name} -->)", re.S)
        if not pat.search(text):
            print(f"BENCHMARKS.md has no block {name}; skipped")
            continue
        body = fn()
        text = pat.sub(lambda m: m.group(1) + body.strip("\n") + "\n" + m.group(2), text)
    MD.write_text(text, "utf-8")
    print(f"updated {MD.relative_to(C.ROOT)}")


if __name__ == "__main__":
    main()
