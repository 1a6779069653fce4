"""Retrieval quality on the 60 dev questions: our modes against two baselines, over the same ingested text.

    .venv/bin/python -m bench quality                 # ~5 min (the enrich-off dir is built once)
    .venv/bin/python -m bench quality --rebuild       # rebuild the enrich-off data dir

Systems (hit@1/3/5 and MRR@10 with pipeline/ask/evaluate.py's hit test for every one of them: a chunk
from the gold file containing the gold passage):

- TF-IDF baseline: character 1-gram + 2-gram TF-IDF (scikit-learn), 500-char windows with 80 overlap,
  cosine over L2-normalised vectors;
- rank_bm25 baseline: ``BM25Okapi`` over plain jieba tokens (a separate jieba with its default
  dictionary, no domain terms), 512-char windows with 50 overlap;
- ours: ``bm25``, ``vector``, ``hybrid`` and ``hybrid --chapter-aware`` through ``Retriever`` exactly as
  ``cli.py eval`` uses it, with the default (extractive) enrichment, and again with enrichment off
  (``EXAMRAG_ENRICH_BACKEND=none``: ``cli.py enrich --force`` then ``cli.py index --force`` on a copy whose
  Chroma store was emptied, so every vector is re-embedded without the prefix).

Baselines read the same cleaned text our index is built from (``cleaned/<doc>.json``: every section's
text, then every past-paper question record as ``chunking.question_text`` writes it), so differences
come from chunking + retrieval, not from parsing/OCR/cleaning. Writes bench/results/quality.json.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

from bench.lib import common as C

TOPK = 10


def windows(text: str, size: int, overlap: int) -> list[str]:
    step = size - overlap
    out = []
    for start in range(0, max(1, len(text) - overlap), step):
        w = text[start:start + size]
        if w.strip():
            out.append(w)
    return out


def corpus_docs(data_dir: Path) -> list[tuple[str, str, str]]:
    """(doc_id, source, text) of every live document's cleaned artifact."""
    from pipeline.index.chunking import question_text
    from pipeline.models import CleanDoc
    from pipeline.store import Store

    store = Store(data_dir)
    man = store.load_manifest()
    out = []
    for doc_id in sorted(man.documents):
        path = store.stage_path("clean", doc_id)
        if not path.exists():
            continue
        d = store.read("clean", doc_id, CleanDoc)
        parts = [s.text for s in d.sections] + [question_text(q) for q in d.questions]
        out.append((doc_id, d.source, "\n".join(p for p in parts if p)))
    return out


def make_hits(found, chunks):
    from pipeline.models import Hit

    return [Hit(rank=r, chunk_id=str(i), doc_id=chunks[i][0], source=chunks[i][1], chapter_path=[],
                chunk_position=1, pages=[], score=float(sc), text=chunks[i][2])
            for r, (i, sc) in enumerate(found, start=1)]


def eval_baseline(name: str, qs, chunks, search) -> dict:
    from pipeline.ask.evaluate import first_hit_rank, summarise

    rows = []
    t0 = time.perf_counter()
    for q in qs:
        hits = make_hits(search(q["question"]), chunks)
        rows.append({"id": q["id"], "kind": q.get("kind", "all"), "rank": first_hit_rank(hits, q.get("gold", []))})
    return {"summary": summarise(rows), "rows": rows, "query_s": round(time.perf_counter() - t0, 2)}


def tfidf_baseline(docs, qs) -> dict:
    import numpy as np
    from sklearn.feature_extraction.text import TfidfVectorizer

    chunks = [(d, s, w) for d, s, t in docs for w in windows(t, 500, 80)]
    t0 = time.perf_counter()
    vec = TfidfVectorizer(analyzer="char", ngram_range=(1, 2), lowercase=True, norm="l2",
                          preprocessor=lambda x: re.sub(r"\s+", "", x.lower()))
    m = vec.fit_transform([c[2] for c in chunks])
    build = time.perf_counter() - t0

    def search(question):
        sc = (m @ vec.transform([question]).T).toarray().ravel()
        top = np.argsort(-sc)[:TOPK]
        return [(int(i), sc[i]) for i in top if sc[i] > 0]

    res = eval_baseline("tfidf", qs, chunks, search)
    res.update({"chunks": len(chunks), "build_s": round(build, 2)})
    return res


def rank_bm25_baseline(docs, qs) -> dict:
    import logging

    import jieba
    import numpy as np
    from rank_bm25 import BM25Okapi

    tk = jieba.Tokenizer()  # default dictionary, none of our domain terms
    jieba.setLogLevel(logging.WARNING)
    word = re.compile(r"\w")

    def toks(text):
        return [t.lower() for t in tk.lcut(text) if word.search(t)]

    chunks = [(d, s, w) for d, s, t in docs for w in windows(t, 512, 50)]
    t0 = time.perf_counter()
    bm = BM25Okapi([toks(c[2]) for c in chunks])
    build = time.perf_counter() - t0

    def search(question):
        sc = bm.get_scores(toks(question))
        top = np.argsort(-sc)[:TOPK]
        return [(int(i), sc[i]) for i in top if sc[i] > 0]

    res = eval_baseline("rank_bm25", qs, chunks, search)
    res.update({"chunks": len(chunks), "build_s": round(build, 2)})
    return res


def ours(data_dir: Path, qa_file: Path, mode: str, chapter_aware: bool = False) -> dict:
    """What ``cli.py eval --mode MODE [--chapter-aware]`` computes: the query service's own eval."""
    from pipeline.ask.evaluate import read_questions
    from pipeline.ask.service import QueryService
    from pipeline.settings import load_settings

    service = QueryService(load_settings(data_dir=data_dir))
    ranks: list[dict] = []
    t0 = time.perf_counter()
    summary = service.evaluate(qa_file, mode=mode, chapter_aware=chapter_aware,
                               on_row=lambda r: ranks.append({"id": r["id"], "rank": r["rank"]}))
    query_s = round(time.perf_counter() - t0, 2)
    kinds = {q["id"]: q.get("kind", "all") for q in read_questions(qa_file)}
    rows = [{"id": r["id"], "kind": kinds.get(r["id"], "all"), "rank": r["rank"]} for r in ranks]
    summary.pop("mode", None)
    return {"summary": summary, "rows": rows, "chunks": len(service.retriever().catalog), "query_s": query_s}


def build_noenrich(src: Path, dst: Path, rebuild: bool) -> dict:
    """Copy ``src``; enrich with backend none; re-index with an empty Chroma (vectors re-embedded)."""
    marker = dst / "bench_noenrich.json"
    src_meta = (src / "index" / "current.json").read_text()
    if not rebuild and marker.exists() and json.loads(marker.read_text()).get("src_meta") == src_meta:
        print(f"  reusing {dst}")
        return json.loads(marker.read_text())
    shutil.rmtree(dst, ignore_errors=True)
    shutil.copytree(src, dst)
    shutil.rmtree(dst / "index" / "chroma", ignore_errors=True)
    env = {**os.environ, "EXAMRAG_ENRICH_BACKEND": "none"}
    rec = {"src_meta": src_meta}
    for cmd in (["enrich", "--force"], ["index", "--force"]):
        t0 = time.perf_counter()
        p = subprocess.run([C.PY, "cli.py", *cmd, "--data-dir", str(dst), "-q"], cwd=C.ROOT, env=env,
                           capture_output=True, text=True)
        rec[" ".join(cmd)] = {"s": round(time.perf_counter() - t0, 1), "rc": p.returncode,
                              "tail": p.stdout.strip().splitlines()[-1:]}
        print(f"  cli.py {' '.join(cmd)} (enrich none): {rec[' '.join(cmd)]}")
        if p.returncode:
            print(p.stderr[-2000:])
    marker.write_text(json.dumps(rec))
    return rec


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data-dir", default=None, help="ingested data dir (default: see bench.lib.common.ingested_dir)")
    ap.add_argument("--rebuild", action="store_true", help="rebuild the enrich-off copy")
    ap.add_argument("--no-enrich-off", action="store_true", help="skip the enrich-off variant")
    ap.add_argument("--refresh", action="store_true",
                    help="first bring the data dir up to the current code: cli.py clean, enrich, index (incremental)")
    args = ap.parse_args()
    C.setup()
    from pipeline.ask.evaluate import read_questions

    info = C.machine()
    data_dir = Path(args.data_dir) if args.data_dir else C.ingested_dir()
    qs = list(read_questions(C.DEV))
    refreshed = {}
    if args.refresh:
        for stage in ("clean", "enrich", "index"):
            t0 = time.perf_counter()
            p = subprocess.run([C.PY, "cli.py", stage, "--data-dir", str(data_dir), "-q"], cwd=C.ROOT,
                               capture_output=True, text=True)
            refreshed[stage] = {"s": round(time.perf_counter() - t0, 1), "rc": p.returncode,
                                "tail": p.stdout.strip().splitlines()[-1:]}
            print(f"  refresh: cli.py {stage}: {refreshed[stage]}", flush=True)
    print(f"quality on {data_dir} ({len(qs)} questions); load average {info['loadavg_at_start']}", flush=True)
    systems: dict[str, dict] = {}
    docs = corpus_docs(data_dir)
    print("  baseline TF-IDF", flush=True)
    systems["baseline: TF-IDF char 1-2gram, 500/80"] = tfidf_baseline(docs, qs)
    print("  baseline rank_bm25", flush=True)
    systems["baseline: rank_bm25 jieba, 512/50"] = rank_bm25_baseline(docs, qs)
    del docs
    for mode in ("bm25", "vector", "hybrid"):
        print(f"  ours {mode}", flush=True)
        systems[f"ours {mode} (enrich extractive)"] = ours(data_dir, C.DEV, mode)
    systems["ours hybrid --chapter-aware (enrich extractive)"] = ours(data_dir, C.DEV, "hybrid", True)
    build = None
    if not args.no_enrich_off:
        noenrich = C.WORK / "noenrich"
        print(f"  enrich-off copy {noenrich}", flush=True)
        build = build_noenrich(data_dir, noenrich, args.rebuild)
        for mode in ("bm25", "vector", "hybrid"):
            systems[f"ours {mode} (enrich off)"] = ours(noenrich, C.DEV, mode)
    report(systems)
    C.save("quality", {"machine": info, "data_dir": str(data_dir), "questions": str(C.DEV),
                       "command": "python -m bench quality " + " ".join(sys.argv[1:]), "noenrich_build": build,
                       "refreshed": refreshed, "systems": systems})


def report(systems: dict) -> None:
    rows = [[name, r.get("chunks", ""), r["summary"]["hit@1"], r["summary"]["hit@3"], r["summary"]["hit@5"],
             r["summary"]["mrr"]] for name, r in systems.items()]
    print(C.table(["system", "chunks", "hit@1", "hit@3", "hit@5", "MRR"], rows, "Retrieval quality, 60 dev questions"))
    kinds = sorted(next(iter(systems.values()))["summary"]["by_kind"])
    krows = [[name] + [f"{r['summary']['by_kind'][k]['hit@5']:.2f}/{r['summary']['by_kind'][k]['mrr']:.2f}"
                       for k in kinds] for name, r in systems.items()]
    ns = next(iter(systems.values()))["summary"]["by_kind"]
    print(C.table(["system (hit@5 / MRR)"] + [f"{k} ({ns[k]['n']})" for k in kinds], krows, "By kind"))
    # head to head at hit@5: questions one system finds in its top 5 and the other does not
    hyb = systems.get("ours hybrid (enrich extractive)")
    if hyb:
        h5 = {r["id"]: bool(r["rank"] and r["rank"] <= 5) for r in hyb["rows"]}
        hrows = []
        for name, r in systems.items():
            if name.startswith("baseline") or name.startswith("ours bm25") or name.startswith("ours vector"):
                other = {x["id"]: bool(x["rank"] and x["rank"] <= 5) for x in r["rows"]}
                won = sorted(i for i in h5 if h5[i] and not other[i])
                lost = sorted(i for i in h5 if other[i] and not h5[i])
                hrows.append([name, len(won), len(lost), " ".join(won[:12]), " ".join(lost[:12])])
        print(C.table(["vs ours hybrid", "hybrid wins", "hybrid loses", "won ids", "lost ids"], hrows,
                      "Head to head at hit@5 (ours hybrid, enrich extractive)"))


if __name__ == "__main__":
    main()
