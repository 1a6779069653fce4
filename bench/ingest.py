"""Ingest benchmark: wall time and peak memory of a full ingest into a fresh data dir, split by stage.

    .venv/bin/python -m bench ingest                 # the eval corpus (~10 min on 2 busy cores)
    .venv/bin/python -m bench ingest --raw data/raw  # the shipped sample (~30 s)

The stages run through the Python API exactly as ``cli.py ingest`` runs them (``_run_stages``:
discover → parse → clean → enrich → index, one process), under ``/usr/bin/time -v``. Per stage we
record wall seconds (imports included), ``StageReport.seconds``, and the peak resident memory of the
process tree (OCR worker processes included; sampled from /proc every 0.2 s). Per document we time
the stage's work function, which gives pages/s for text-layer PDF pages and s/page for OCR'd pages
(counted from the parsed artifacts' ``PageInfo.method``). The index stage is split into chunk+tokenize,
embedding, Chroma writes, BM25 build and catalog write. Writes bench/results/ingest.json.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import time
from collections import defaultdict
from pathlib import Path

from bench.lib import common as C


class Acc:
    """Accumulates seconds and calls per key."""

    def __init__(self):
        self.s: dict[str, float] = defaultdict(float)
        self.n: dict[str, int] = defaultdict(int)

    def wrap(self, obj, attr: str, key: str, count=None):
        orig = getattr(obj, attr)
        acc = self

        def timed(*a, **kw):
            t0 = time.perf_counter()
            try:
                return orig(*a, **kw)
            finally:
                acc.s[key] += time.perf_counter() - t0
                acc.n[key] += count(a, kw) if count else 1

        setattr(obj, attr, timed)
        return orig


def inner(raw: Path, data_dir: Path, out: Path) -> None:
    """Runs inside /usr/bin/time: the stages, timed. Mirrors cli.py _run_stages."""
    t_start = time.monotonic()
    sampler = C.RssSampler()
    sampler.start()
    sampler.mark("imports")
    t0 = time.monotonic()
    from pipeline.settings import load_settings
    from pipeline.store import Store

    s = load_settings(data_dir=data_dir)
    store = Store(s.data_dir)
    result: dict = {"stages": {}, "docs": {}, "index_parts": {}}
    per_doc: dict[str, dict[str, float]] = defaultdict(dict)
    acc = Acc()
    result["import_s"] = round(time.monotonic() - t0, 3)
    with store.lock():
        manifest = store.load_manifest()
        sampler.mark("discover")
        t0 = time.monotonic()
        from pipeline.parse.discover import discover

        doc_ids, problems = discover(raw, store, manifest)
        store.save_manifest(manifest)
        result["stages"]["discover"] = {"wall_s": round(time.monotonic() - t0, 3), "docs": len(doc_ids)}
        from pipeline.stages import NAMES  # the registry's order

        for stage in NAMES:
            sampler.mark(stage)
            t0 = time.monotonic()
            mod = __import__(f"pipeline.{stage}.stage", fromlist=["run"])
            import_s = time.monotonic() - t0
            # time each document's work function
            orig_run_docs = mod.run_docs

            def run_docs(store_, manifest_, stage_, ids, work, *args, _orig=orig_run_docs, _stage=stage, **kw):
                def timed_work(entry):
                    w0 = time.perf_counter()
                    try:
                        return work(entry)
                    finally:
                        per_doc[entry.doc_id][_stage] = time.perf_counter() - w0
                t = time.perf_counter()
                rep = _orig(store_, manifest_, stage_, ids, timed_work, *args, **kw)
                acc.s[f"{_stage}.run_docs"] += time.perf_counter() - t
                return rep

            mod.run_docs = run_docs
            kw = dict(force=False, quiet=True, abort_on_error=False)
            extra = {}
            if stage == "index":
                extra = _instrument_index(mod, s, acc)
                kw["embedder"] = extra.pop("embedder")
            rep = mod.run(store, manifest, doc_ids, s, **kw)
            wall = time.monotonic() - t0
            st = {"wall_s": round(wall, 3), "report_seconds": rep.seconds, "import_s": round(import_s, 3),
                  "docs": len(rep.docs), "failed": len(rep.failed)}
            if stage == "index":
                st["counts"] = {k: v for k, v in rep.counts.items()}
            if stage == "enrich":
                st["calls"] = rep.counts.get("llm_calls", 0)
            result["stages"][stage] = st
            print(f"{stage:<8} {wall:8.1f} s", flush=True)
        store.save_manifest(manifest)
    result["index_parts"] = {k: {"s": round(v, 3), "calls": acc.n[k]} for k, v in acc.s.items()}
    result["total_wall_s"] = round(time.monotonic() - t_start, 3)
    result["rss_peak_mb"] = sampler.stop()
    result["per_doc"] = {d: {k: round(v, 3) for k, v in t.items()} for d, t in per_doc.items()}
    from pipeline.settings import FLAT_KEYS  # flat key → (group, field): settings are nested by group

    result["settings"] = {k: str(getattr(getattr(s, FLAT_KEYS[k][0]) if FLAT_KEYS[k][0] else s, FLAT_KEYS[k][1]))
                          for k in ("ocr_engine", "ocr_workers", "ocr_dpi", "embed_model", "enrich_backend",
                                    "chunk_size", "chunk_overlap")}
    out.write_text(json.dumps(result, ensure_ascii=False, indent=1), encoding="utf-8")


def _instrument_index(mod, s, acc: Acc) -> dict:
    """Wrap the index stage's parts (module attributes looked up at call time) to time them."""
    import pipeline.index.bm25 as bm25
    import pipeline.index.vector as vector

    if hasattr(mod, "make_chunks"):
        acc.wrap(mod, "make_chunks", "index.chunking")
    acc.wrap(mod, "tokenize", "index.tokenize")  # the name the index stage calls
    acc.wrap(bm25.Bm25Index, "build", "index.bm25_build")
    acc.wrap(bm25.Bm25Index, "save", "index.bm25_save")
    if hasattr(mod, "write_catalog"):
        acc.wrap(mod, "write_catalog", "index.catalog_write")
    acc.wrap(vector.VectorStore, "upsert", "index.chroma_upsert", count=lambda a, kw: len(a[1]))
    acc.wrap(vector.VectorStore, "open", "index.chroma_open")
    if hasattr(mod, "sync"):
        acc.wrap(mod, "sync", "index.sync_total")
    emb = mod.make_embedder_from_settings(s)
    t0 = time.perf_counter()
    if hasattr(emb, "load"):
        emb.load()
    acc.s["index.embed_model_load"] += time.perf_counter() - t0
    acc.wrap(emb, "embed_documents", "index.embed", count=lambda a, kw: len(a[0]))
    return {"embedder": emb}


def page_stats(data_dir: Path, per_doc: dict) -> dict:
    """Pages by method from the parsed artifacts, and throughput from per-document parse times."""
    text_only_pages = text_only_s = 0.0
    ocr_docs_s = ocr_docs_text_pages = ocr_pages = 0.0
    md_files = md_s = 0.0
    counts: dict[str, int] = defaultdict(int)
    for f in sorted((data_dir / "parsed").glob("*.json")):
        d = json.loads(f.read_text("utf-8"))
        sec = per_doc.get(d["doc_id"], {}).get("parse")
        methods = defaultdict(int)
        for p in d.get("pages", []):
            methods[p["method"]] += 1
            counts[f"{d['format']}:{p['method']}"] += 1
        if sec is None:
            continue
        if d["format"] == "pdf" and not methods["ocr"]:
            text_only_pages += methods["text"] + methods["none"]
            text_only_s += sec
        elif methods["ocr"]:
            ocr_docs_s += sec
            ocr_docs_text_pages += methods["text"] + methods["none"]
            ocr_pages += methods["ocr"]
        elif d["format"] in ("md", "txt"):
            md_files += 1
            md_s += sec
    text_pps = text_only_pages / text_only_s if text_only_s else None
    ocr_s = ocr_docs_s - (ocr_docs_text_pages / text_pps if text_pps else 0)
    return {
        "pages_by_format_method": dict(counts),
        "text_pdf_pages": int(text_only_pages), "text_pdf_seconds": round(text_only_s, 2),
        "text_pages_per_s": round(text_pps, 1) if text_pps else None,
        "ocr_pages": int(ocr_pages), "ocr_docs_seconds": round(ocr_docs_s, 2),
        "ocr_s_per_page": round(ocr_s / ocr_pages, 2) if ocr_pages else None,
        "md_files": int(md_files), "md_seconds": round(md_s, 2),
        "md_files_per_s": round(md_files / md_s, 1) if md_s else None,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--raw", default=str(C.CORPUS), help="raw folder to ingest (default: the eval corpus)")
    ap.add_argument("--data-dir", default=str(C.WORK / "ingest"), help="fresh data dir (deleted first)")
    ap.add_argument("--keep", action="store_true", help="keep the data dir afterwards")
    ap.add_argument("--name", default=None, help="results name (default ingest, or ingest_<raw dir name>)")
    ap.add_argument("--inner", nargs=3, metavar=("RAW", "DATA_DIR", "OUT"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    C.setup()
    if args.inner:
        inner(Path(args.inner[0]), Path(args.inner[1]), Path(args.inner[2]))
        return
    data_dir = Path(args.data_dir)
    shutil.rmtree(data_dir, ignore_errors=True)
    data_dir.parent.mkdir(parents=True, exist_ok=True)
    out = data_dir.parent / f"{data_dir.name}.inner.json"
    info = C.machine()
    print(f"ingest {args.raw} → {data_dir} (fresh); load average {info['loadavg_at_start']}", flush=True)
    run = C.time_v([C.PY, "-m", "bench.ingest", "--inner", args.raw, str(data_dir), str(out)])
    if run["rc"] != 0:
        print(run["stdout"][-3000:], run["stderr"][-3000:], sep="\n")
        raise SystemExit(f"ingest failed (rc {run['rc']})")
    res = json.loads(out.read_text("utf-8"))
    pages = page_stats(data_dir, res["per_doc"])
    chunks = (res["stages"].get("index", {}).get("counts") or {}).get("manifest")
    parts = res["index_parts"]
    idx = res["stages"]["index"]
    embedded = parts.get("index.embed", {}).get("calls")
    summary = {
        "wall_s": run["wall_s"], "max_rss_mb_single_process": run["max_rss_mb"],
        "chunks": chunks,
        "index_chunks_per_s": round(chunks / idx["wall_s"], 1) if chunks else None,
        "embed_chunks_per_s": round(embedded / parts["index.embed"]["s"], 1) if embedded else None,
        "tokenize_chunks_per_s": round(parts["index.tokenize"]["calls"] / parts["index.tokenize"]["s"], 1)
        if parts.get("index.tokenize", {}).get("s") else None,
        **pages,
    }
    data = {"machine": info, "raw": args.raw, "summary": summary, "stages": res["stages"],
            "rss_peak_mb_tree": res["rss_peak_mb"], "index_parts": parts, "settings": res["settings"],
            "import_s": res["import_s"], "per_doc": res["per_doc"],
            "command": "python -m bench ingest" + ("" if args.raw == str(C.CORPUS) else f" --raw {args.raw}")}
    rows = [[name, st["wall_s"], st.get("report_seconds", ""), res["rss_peak_mb"].get(name, ""),
             f"{100 * st['wall_s'] / run['wall_s']:.0f}%"] for name, st in res["stages"].items()]
    rows.append(["total (time -v)", run["wall_s"], "", f"{run['max_rss_mb']} (largest process)", "100%"])
    print(C.table(["stage", "wall s", "StageReport.seconds", "peak RSS MB (tree)", "share"], rows,
                  "Ingest by stage"))
    prow = [[k, v["s"], v["calls"] or ""] for k, v in sorted(parts.items()) if k.startswith("index.")]
    print(C.table(["index part", "seconds", "items (chunks)"], prow,
                  "Index stage parts (sync_total contains embed, chroma_*, bm25_*, catalog_write)"))
    srow = [[k, v] for k, v in summary.items() if k != "pages_by_format_method"]
    srow.append(["pages_by_format_method", json.dumps(pages["pages_by_format_method"])])
    print(C.table(["metric", "value"], srow, "Throughput"))
    name = args.name or ("ingest" if args.raw == str(C.CORPUS) else f"ingest_{Path(args.raw).name}")
    C.save(name, data)
    if not args.keep and args.raw != str(C.CORPUS):
        shutil.rmtree(data_dir, ignore_errors=True)


if __name__ == "__main__":
    main()
