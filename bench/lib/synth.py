"""Synthetic scale-up of an ingested data dir: N chunks built with the real index code.

Chunk i is source chunk ``i % n0`` of the ingested corpus; copy 0 is the original, later copies are
perturbed so they are not duplicates:

- text: ~8% of the CJK characters replaced by CJK characters drawn from the corpus, and the sentence
  order rotated (what the catalog stores and ``ask`` shows);
- BM25 tokens: ``tokens="jieba"`` tokenizes the perturbed text with our tokenizer (real ingest cost,
  ~700 chunks/s on 2 cores); ``tokens="perturb"`` (fast, for 200k chunks) takes the source chunk's
  tokens and replaces ~10% of them by tokens drawn from the corpus token stream (so the vocabulary
  and posting lists grow realistically without a jieba pass);
- vectors: the source chunk's real USE vector plus Gaussian noise, renormalised (cosine to the
  original ≈ 0.9). Embedding 200k chunks with USE would take ~40 min here; the estimated embedding
  time is reported separately from the measured embedding rate.

Then exactly what ``pipeline/index/stage.py: sync`` does: ``Bm25Index.build(...).save``,
``write_catalog``, ``VectorStore.upsert`` (Chroma, same collection name and HNSW settings),
``publish``. A built dir is reused when its ``bench_synth.json`` matches the request.
"""

from __future__ import annotations

import hashlib
import json
import pickle
import random
import re
import shutil
import time
from pathlib import Path

SYNTH_VERSION = 3  # 3: chunks as the index builds them (merged past-paper questions)
_CJK = re.compile(r"[\u4e00-\u9fff]")
_SENT = re.compile(r"(?<=[。！？；!?;\n])")


def index_chunks(data_dir: Path):
    """(chunks, tokens) exactly as the index stage builds the live generation: per-document chunks plus
    past-paper questions merged across documents (``pipeline.index.stage.collect``), all tokenized."""
    from pipeline.index.stage import collect
    from pipeline.text.tokenize import tokenize
    from pipeline.store import Store

    store = Store(data_dir)
    chunks, tokens = collect(store, store.load_manifest())
    return chunks, [t if t is not None else tokenize(c.index_text) for c, t in zip(chunks, tokens)]


def load_source(data_dir: Path):
    """(chunks, tokens, vectors[n0, dim], meta) of the live index of an ingested data dir."""
    import numpy as np

    from pipeline.index.catalog import current_generation
    from pipeline.index.vector import VectorStore
    from pipeline.store import Store

    store = Store(data_dir)
    meta = current_generation(store.index_dir)
    chunks, tokens = index_chunks(data_dir)
    vs = VectorStore.open(store.index_dir / "chroma", None, meta["collection"])
    vec = np.zeros((len(chunks), meta["dim"]), dtype=np.float32)
    pos = {c.chunk_id: i for i, c in enumerate(chunks)}
    ids = [c.chunk_id for c in chunks]
    for s in range(0, len(ids), 5000):
        got = vs.collection.get(ids=ids[s:s + 5000], include=["embeddings"])
        for cid, e in zip(got["ids"], got["embeddings"]):
            vec[pos[cid]] = e
    return chunks, tokens, vec, meta


def _perturb_text(text: str, rng: random.Random, pool: str, rate: float = 0.08) -> str:
    sents = [s for s in _SENT.split(text) if s]
    if len(sents) > 1:
        k = rng.randrange(1, len(sents))
        sents = sents[k:] + sents[:k]
    chars = list("".join(sents))
    for i, ch in enumerate(chars):
        if _CJK.match(ch) and rng.random() < rate:
            chars[i] = pool[rng.randrange(len(pool))]
    return "".join(chars)


def _perturb_tokens(toks: list[str], rng: random.Random, stream: list[str], rate: float = 0.10) -> list[str]:
    out = list(toks)
    for i in range(len(out)):
        if rng.random() < rate:
            out[i] = stream[rng.randrange(len(stream))]
    return out


def build_scaled(src_dir: Path, out_dir: Path, n_chunks: int, *, tokens: str = "perturb", seed: int = 0,
                 settings=None, log=print, source=None) -> dict:
    """Build (or reuse) ``out_dir`` holding ``n_chunks`` chunks; returns the build record with timings."""
    import numpy as np

    from pipeline.index.bm25 import Bm25Index
    from pipeline.index.catalog import publish, write_catalog
    from pipeline.index.stage import _meta, collection_name
    from pipeline.index.vector import VectorStore
    from pipeline.settings import load_settings

    out_dir = Path(out_dir)
    want = {"version": SYNTH_VERSION, "src": str(src_dir), "n": n_chunks, "tokens": tokens, "seed": seed}
    rec_path = out_dir / "bench_synth.json"
    if rec_path.exists() and (out_dir / "index" / "current.json").exists():
        rec = json.loads(rec_path.read_text())
        src_meta = json.loads((Path(src_dir) / "index" / "current.json").read_text())
        if rec.get("want") == want and rec.get("src_ids_hash") == src_meta.get("ids_hash"):
            log(f"  reusing {out_dir} ({n_chunks} chunks, built {rec.get('built')})")
            rec["reused"] = True
            return rec
    shutil.rmtree(out_dir, ignore_errors=True)
    s = settings or load_settings(data_dir=out_dir)
    t: dict[str, float] = {}
    t0 = time.perf_counter()
    chunks0, tokens0, vec0, meta0 = source or load_source(Path(src_dir))
    t["load_source_s"] = time.perf_counter() - t0
    n0 = len(chunks0)
    rng = random.Random(seed)
    nrng = np.random.default_rng(seed)
    pool = "".join(_CJK.findall("".join(c.text for c in chunks0[:2000]))) or "的"
    stream = [tok for tl in tokens0 for tok in tl]
    if tokens == "jieba":
        from pipeline.text.tokenize import tokenize

        tokenize("预热")  # jieba init outside the timed part
    t0 = time.perf_counter()
    chunks, toks = [], []
    tok_s = 0.0
    for i in range(n_chunks):
        c, copy = chunks0[i % n0], i // n0
        if copy == 0 and tokens != "jieba":
            chunks.append(c)
            toks.append(tokens0[i % n0])
            continue
        text = c.text if copy == 0 else _perturb_text(c.text, rng, pool)
        cid = c.chunk_id if copy == 0 else hashlib.sha256(f"{copy}:{c.chunk_id}".encode()).hexdigest()[:24]
        nc = c.model_copy(update={"chunk_id": cid, "text": text})
        chunks.append(nc)
        if tokens == "jieba":
            a = time.perf_counter()
            toks.append(tokenize(nc.index_text))
            tok_s += time.perf_counter() - a
        else:
            toks.append(_perturb_tokens(tokens0[i % n0], rng, stream))
    t["make_chunks_s"] = time.perf_counter() - t0 - tok_s
    t["tokenize_s"] = tok_s
    reps = np.arange(n_chunks) % n0
    vec = vec0[reps].copy()
    copies = np.arange(n_chunks) >= n0
    noise = nrng.standard_normal((int(copies.sum()), vec.shape[1])).astype(np.float32)
    vec[copies] += 0.5 * noise / np.sqrt(vec.shape[1])
    vec /= np.linalg.norm(vec, axis=1, keepdims=True)
    ids = [c.chunk_id for c in chunks]
    index_dir = out_dir / "index"
    gen = index_dir / f"gen-{time.time_ns()}"
    gen.mkdir(parents=True)
    t0 = time.perf_counter()
    idx = Bm25Index.build(ids, toks)
    t["bm25_build_s"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    idx.save(gen / "bm25")
    t["bm25_save_s"] = time.perf_counter() - t0
    del idx
    t0 = time.perf_counter()
    write_catalog(gen / "chunks.sqlite", chunks)
    t["catalog_s"] = time.perf_counter() - t0
    coll = collection_name(meta0["embed_model"])
    t0 = time.perf_counter()
    vs = VectorStore.open(index_dir / "chroma", None, coll, {"M": s.index.hnsw_m, "ef_search": s.index.hnsw_ef_search})
    step = 5000
    for a in range(0, n_chunks, step):
        vs.upsert(ids[a:a + step], vec[a:a + step], [_meta(c) for c in chunks[a:a + step]])
        if a and a % 50000 == 0:
            log(f"  chroma {a}/{n_chunks} ({time.perf_counter() - t0:.0f} s)")
    t["chroma_s"] = time.perf_counter() - t0
    publish(index_dir, gen, {"ids_hash": hashlib.sha256("\n".join(ids).encode()).hexdigest(), "count": n_chunks,
                             "embed_model": meta0["embed_model"], "collection": coll, "dim": int(vec.shape[1])})
    with open(out_dir / "tokens.pkl", "wb") as fh:
        pickle.dump(toks, fh, protocol=5)
    t["index_total_s"] = sum(t[k] for k in ("tokenize_s", "bm25_build_s", "bm25_save_s", "catalog_s", "chroma_s"))
    rec = {"want": want, "src_ids_hash": meta0["ids_hash"], "n_source": n0, "n": n_chunks,
           "built": time.strftime("%Y-%m-%d %H:%M:%S"), "timings": {k: round(v, 3) for k, v in t.items()},
           "tokens_per_chunk": round(sum(map(len, toks)) / n_chunks, 1)}
    rec_path.write_text(json.dumps(rec, indent=1))
    rec["reused"] = False
    return rec


def load_tokens(out_dir: Path) -> list[list[str]]:
    with open(Path(out_dir) / "tokens.pkl", "rb") as fh:
        return pickle.load(fh)
