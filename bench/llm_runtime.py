"""Local LLM runtimes side by side: xllamacpp (what examrag runs) against llama-cpp-python 0.3.36
(what it ran before), on the same realistic RAG answer prompts, then 1 against 2 concurrent
generations on xllamacpp's parallel slots.

Prompts: ``pipeline.ask.answer``'s own system prompt and ``build_prompt`` over three ~300-character
passages of the shipped notes (data/raw) and a question; greedy, at most ``--max-tokens``
(150) tokens, streamed. Each runtime lives in its own worker process (two copies of llama.cpp in
one process could clash) holding the packaged Qwen2.5-Coder-1.5B-Instruct Q4_K_M with 2 threads;
the parent sends the prompts alternately, so only one worker computes at a time and both see the
same machine load. Reported per runtime: load time, median first-token latency, median total time,
median generation speed (completion tokens / (total - first token)).

Both workers get the same ``OMP_WAIT_POLICY`` (``--omp-wait-policy``, default PASSIVE as
pipeline/llm/local_gguf.py sets it): both llama.cpp builds use OpenMP.

    .venv/bin/python -m bench llm_runtime [--rounds 1] [--max-tokens 150] [--pairs 2]

Needs ``requirements/bench-llama.txt`` (llama-cpp-python, a ~20 CPU-minute source build) for the
comparison; without it only xllamacpp is measured. Writes bench/results/llm_runtime.json.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from bench.lib import common as c

RUNTIMES = ("xllamacpp", "llama-cpp-python")

# (question, keywords that pick its passages from the notes)
QUESTIONS = [
    ("进程的三种基本状态之间如何转换？", ["就绪", "阻塞", "运行"]),
    ("产生死锁的必要条件有哪些？如何预防死锁？", ["死锁", "必要条件", "破坏"]),
    ("银行家算法的安全性检查是怎样进行的？", ["银行家", "安全", "Need"]),
    ("TCP为什么需要三次握手来建立连接？", ["握手", "SYN", "连接"]),
    ("TCP拥塞控制中慢开始和拥塞避免有什么区别？", ["拥塞", "cwnd", "ssthresh"]),
]


@dataclass
class _Passage:
    citation: str
    text: str


def _paragraphs(size: int = 300) -> list[_Passage]:
    """~``size``-character passages of the shipped notes (consecutive paragraphs of one section),
    cited the way ``ask`` cites them."""
    raw = c.ROOT / "data" / "raw"
    sources = [("操作系统笔记.md", (raw / "操作系统笔记.md").read_text(encoding="utf-8")),
               ("计算机网络笔记.txt", (raw / "计算机网络笔记.txt").read_bytes().decode("gb18030"))]
    out: list[_Passage] = []
    for name, text in sources:
        heading, buf = name, ""
        for line in [*text.splitlines(), "#"]:
            line = line.strip()
            if line.startswith("#") or re.match(r"^[一二三四五六七八九十]+、", line):
                if len(buf) >= 100:
                    out.append(_Passage(f"[来源: {name} › {heading}|片段{len(out) + 1}]", buf[:size]))
                heading, buf = line.lstrip("# ") or heading, ""
            elif len(line) >= 40 and not line.startswith(("|", "```", "-", ">")):
                buf += line
                if len(buf) >= size - 40:
                    out.append(_Passage(f"[来源: {name} › {heading}|片段{len(out) + 1}]", buf[:size]))
                    buf = ""
    return out


def prompts(max_chars: int) -> list[tuple[str, str, str]]:
    """(question, system, user) for each question, built as ``ask`` builds them (key sentences, the
    prompt for the question's kind, ``max_chars`` of material) over the 3 passages with most keyword hits."""
    from pipeline.ask import keysentences
    from pipeline.ask.prompts import build_prompt, question_kind
    from pipeline.models import Hit

    paras = _paragraphs()
    out = []
    for question, words in QUESTIONS:
        ranked = sorted(paras, key=lambda p: -sum(p.text.count(k) for k in words))[:3]
        hits = [Hit(rank=i, chunk_id=f"p{i}", doc_id="sample", source="data/raw", chapter_path=[p.citation],
                    chunk_position=i, pages=[], score=1.0 / i, text=p.text, citation=p.citation)
                for i, p in enumerate(ranked, start=1)]
        keys = keysentences.select(question, hits)
        prompt = build_prompt(question, hits, keys, None, question_kind(question), max_chars)
        out.append((question, prompt.system, prompt.user))
    return out


# ------------------------------------------------------------------ workers (child processes)

def _worker(runtime: str, threads: int, batch: int) -> None:
    """Load one runtime, then answer JSON requests from stdin, one JSON line each on stdout."""
    send = _sender()
    t0 = time.perf_counter()
    gen = _xllamacpp(threads, batch) if runtime == "xllamacpp" else _llama_cpp_python(threads)
    send({"load_s": time.perf_counter() - t0})
    for line in sys.stdin:
        req = json.loads(line)
        if req.get("pair"):
            send(_pair(gen, req["pair"], req["max_tokens"]))
        else:
            send(gen(req["system"], req["user"], req["max_tokens"]))


def _sender():
    out = sys.stdout
    sys.stdout = sys.stderr  # anything a runtime prints must not corrupt the protocol

    def send(obj: dict) -> None:
        out.write(json.dumps(obj, ensure_ascii=False) + "\n")
        out.flush()
    return send


def _xllamacpp(threads: int, batch: int):
    from pipeline.llm.local_gguf import LocalGguf
    from pipeline.llm.packaged import DEFAULT_PACKAGED, assemble, default_models_dir

    llm = LocalGguf(assemble(DEFAULT_PACKAGED, default_models_dir()), n_threads=threads, slots=2, batch=batch)

    def gen(system: str, user: str, max_tokens: int) -> dict:
        text = llm.complete(system, user, max_tokens=max_tokens, temperature=0.0, on_token=lambda _: None)
        return {**llm.last_stats, "text": text}

    gen.llm = llm  # type: ignore[attr-defined]  # _pair reads per-call stats through it
    return gen


def _llama_cpp_python(threads: int):
    import llama_cpp

    from pipeline.llm import chat_messages
    from pipeline.llm.packaged import DEFAULT_PACKAGED, assemble, default_models_dir

    path = assemble(DEFAULT_PACKAGED, default_models_dir())
    llama = llama_cpp.Llama(model_path=str(path), n_ctx=4096, n_threads=threads,
                            n_threads_batch=threads, seed=0, verbose=False)

    def gen(system: str, user: str, max_tokens: int) -> dict:
        llama.reset()  # every call starts from an empty context, as xllamacpp's requests do
        t0 = time.perf_counter()
        first, pieces = None, []
        for chunk in llama.create_chat_completion(messages=chat_messages(system, user), max_tokens=max_tokens,
                                                  temperature=0.0, seed=0, stream=True):
            text = (chunk["choices"][0].get("delta") or {}).get("content")
            if text:
                first = first if first is not None else time.perf_counter() - t0
                pieces.append(text)
        total = time.perf_counter() - t0
        done = len(llama.tokenize("".join(pieces).encode(), add_bos=False, special=False))
        return {"prompt_tokens": int(llama.n_tokens) - done, "completion_tokens": done,
                "first_token_s": first, "total_s": total, "text": "".join(pieces)}

    return gen


def _pair(gen, pair: list[list[str]], max_tokens: int) -> dict:
    """Two requests at once on xllamacpp's slots (one thread each); per-request stats, wall time."""
    llm = gen.llm
    results: list[dict] = [{}, {}]

    def one(i: int) -> None:
        text = llm.complete(pair[i][0], pair[i][1], max_tokens=max_tokens, temperature=0.0,
                            on_token=lambda _: None)
        results[i] = {**llm.last_stats, "text": text}  # last_stats is per thread

    t0 = time.perf_counter()
    threads = [threading.Thread(target=one, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return {"wall_s": time.perf_counter() - t0, "requests": results}


# ------------------------------------------------------------------ parent

class Worker:
    """A runtime in a child process, spoken to in JSON lines."""

    def __init__(self, runtime: str, threads: int, batch: int, env: dict) -> None:
        self.runtime = runtime
        self.proc = subprocess.Popen([sys.executable, "-m", "bench.llm_runtime", "--worker", runtime, "--threads", str(threads),
                                      "--xllamacpp-batch", str(batch)],
                                     cwd=c.ROOT, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     text=True, encoding="utf-8")
        self.load_s = self._read()["load_s"]

    def ask(self, req: dict) -> dict:
        self.proc.stdin.write(json.dumps(req, ensure_ascii=False) + "\n")
        self.proc.stdin.flush()
        return self._read()

    def _read(self) -> dict:
        line = self.proc.stdout.readline()
        if not line:
            raise SystemExit(f"{self.runtime} worker died (exit {self.proc.wait()}); see its stderr above")
        return json.loads(line)

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait(timeout=60)


def _gen_tps(r: dict) -> float:
    gen_s = r["total_s"] - (r["first_token_s"] or 0)
    return (r["completion_tokens"] - 1) / gen_s if gen_s > 0 and r["completion_tokens"] > 1 else float("nan")


def _summary(runs: list[dict], load_s: float) -> dict:
    return {"load_s": round(load_s, 2), "runs": len(runs),
            "median_prompt_tokens": c.median([r["prompt_tokens"] for r in runs]),
            "median_completion_tokens": c.median([r["completion_tokens"] for r in runs]),
            "median_first_token_s": round(c.median([r["first_token_s"] for r in runs]), 2),
            "median_total_s": round(c.median([r["total_s"] for r in runs]), 2),
            "median_gen_tok_s": round(c.median([_gen_tps(r) for r in runs]), 2),
            "median_end_to_end_tok_s": round(c.median([r["completion_tokens"] / r["total_s"] for r in runs]), 2)}


def _have_llama_cpp() -> bool:
    import importlib.util

    return importlib.util.find_spec("llama_cpp") is not None


def compare(workers: dict[str, Worker], cases, rounds: int, max_tokens: int) -> dict[str, list[dict]]:
    """Each prompt on each runtime, alternating; which runtime goes first alternates too."""
    runs: dict[str, list[dict]] = {name: [] for name in workers}
    order = list(workers)
    for r in range(rounds):
        for i, (question, system, user) in enumerate(cases):
            for name in (order if (r + i) % 2 == 0 else order[::-1]):
                res = workers[name].ask({"system": system, "user": user, "max_tokens": max_tokens})
                res.update(question=question, round=r)
                runs[name].append(res)
                print(f"  {name:17s} {question[:14]:14s} first {res['first_token_s']:.2f}s total "
                      f"{res['total_s']:.2f}s {res['completion_tokens']} tokens", flush=True)
    return runs


def concurrency(worker: Worker, cases, pairs: int, max_tokens: int) -> dict:
    """The same two prompts one after the other, then at the same time (two slots)."""
    out = []
    for k in range(pairs):
        a, b = cases[(2 * k) % len(cases)], cases[(2 * k + 1) % len(cases)]
        t0 = time.perf_counter()
        seq = [worker.ask({"system": a[1], "user": a[2], "max_tokens": max_tokens}),
               worker.ask({"system": b[1], "user": b[2], "max_tokens": max_tokens})]
        seq_wall = time.perf_counter() - t0
        par = worker.ask({"pair": [[a[1], a[2]], [b[1], b[2]]], "max_tokens": max_tokens})
        out.append({"questions": [a[0], b[0]], "sequential": {"wall_s": seq_wall, "requests": seq},
                    "concurrent": par})
        print(f"  pair {k}: sequential {seq_wall:.1f}s, concurrent {par['wall_s']:.1f}s", flush=True)
    return _concurrency_summary(out)


def _concurrency_summary(pairs: list[dict]) -> dict:
    def agg(mode: str) -> dict:
        reqs = [r for p in pairs for r in p[mode]["requests"]]
        tokens = sum(r["completion_tokens"] for r in reqs)
        wall = sum(p[mode]["wall_s"] for p in pairs)
        return {"median_first_token_s": round(c.median([r["first_token_s"] for r in reqs]), 2),
                "median_total_s": round(c.median([r["total_s"] for r in reqs]), 2),
                "median_per_request_gen_tok_s": round(c.median([_gen_tps(r) for r in reqs]), 2),
                "total_wall_s": round(wall, 1), "total_completion_tokens": tokens,
                "aggregate_tok_s": round(tokens / wall, 2)}
    same = all(p["sequential"]["requests"][i]["text"] == p["concurrent"]["requests"][i]["text"]
               for p in pairs for i in range(2))
    return {"one_at_a_time": agg("sequential"), "two_at_once": agg("concurrent"),
            "same_text_as_sequential": same, "pairs": pairs}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--worker", choices=RUNTIMES, help=argparse.SUPPRESS)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=1, help="passes over the 5 prompts per runtime")
    ap.add_argument("--max-tokens", type=int, default=150)
    ap.add_argument("--max-chars", type=int, default=None,
                    help="material characters per prompt (default: what ask uses, AskSettings.max_context_chars)")
    ap.add_argument("--pairs", type=int, default=2, help="prompt pairs for 1 vs 2 concurrent (0: skip)")
    ap.add_argument("--omp-wait-policy", default="PASSIVE", help="OMP_WAIT_POLICY for both workers ('' = unset)")
    ap.add_argument("--only", choices=RUNTIMES, help="measure one runtime")
    ap.add_argument("--name", default="llm_runtime", help="results file bench/results/<name>.json")
    ap.add_argument("--xllamacpp-batch", type=int, default=None,
                    help="xllamacpp prompt tokens per decode step (default: pipeline's BATCH)")
    args = ap.parse_args()
    c.setup()
    from pipeline.llm.local_gguf import BATCH

    batch = args.xllamacpp_batch or BATCH
    if args.worker:
        return _worker(args.worker, args.threads, batch)
    env = {k: v for k, v in os.environ.items() if k != "OMP_WAIT_POLICY"}
    if args.omp_wait_policy:
        env["OMP_WAIT_POLICY"] = args.omp_wait_policy
    env["PYTHONPATH"] = str(c.ROOT)
    names = [args.only] if args.only else [n for n in RUNTIMES if n != "llama-cpp-python" or _have_llama_cpp()]
    if "llama-cpp-python" not in names and not args.only:
        print("llama-cpp-python is not installed (requirements/bench-llama.txt): measuring xllamacpp only")
    from pipeline.settings import AskSettings

    max_chars = args.max_chars or AskSettings().max_context_chars
    cases = prompts(max_chars)
    info = c.machine()
    print(f"load average at start {info['loadavg_at_start']} on {info['nproc']} cores")
    workers = {}
    for name in names:
        workers[name] = Worker(name, args.threads, batch, env)
        print(f"{name}: loaded in {workers[name].load_s:.2f}s", flush=True)
    for w in workers.values():  # one untimed call each: first-call effects out of the medians
        w.ask({"system": cases[0][1], "user": "你好", "max_tokens": 4})
    runs = compare(workers, cases, args.rounds, args.max_tokens)
    summary = {name: _summary(runs[name], workers[name].load_s) for name in names}
    conc = None
    if args.pairs and "xllamacpp" in workers:
        print("xllamacpp, 1 vs 2 concurrent generations:")
        conc = concurrency(workers["xllamacpp"], cases, args.pairs, args.max_tokens)
    for w in workers.values():
        w.close()
    info["loadavg_at_end"] = [round(x, 2) for x in os.getloadavg()]
    versions = {}
    from importlib import metadata

    for dist in ("xllamacpp", "llama-cpp-python"):
        try:
            versions[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            pass
    rows = [[n, s["load_s"], s["median_first_token_s"], s["median_total_s"], s["median_gen_tok_s"],
             s["median_end_to_end_tok_s"], s["median_prompt_tokens"], s["median_completion_tokens"]]
            for n, s in summary.items()]
    print(c.table(["runtime", "load s", "first token s", "total s", "gen tok/s", "end-to-end tok/s",
                   "prompt tokens", "completion tokens"], rows,
                  f"Qwen2.5-Coder-1.5B Q4_K_M, {args.threads} threads, {len(cases)} RAG prompts x {args.rounds}, "
                  f"greedy, max {args.max_tokens} tokens (medians)"))
    if conc:
        rows = [[mode, m["median_first_token_s"], m["median_total_s"], m["median_per_request_gen_tok_s"],
                 m["total_wall_s"], m["aggregate_tok_s"]]
                for mode, m in (("1 at a time", conc["one_at_a_time"]), ("2 at once", conc["two_at_once"]))]
        print(c.table(["xllamacpp", "first token s", "total s", "per-request gen tok/s", "wall s", "aggregate tok/s"],
                      rows, f"1 vs 2 concurrent generations ({args.pairs} pairs); "
                            f"same text as one at a time: {conc['same_text_as_sequential']}"))
    c.save(args.name, {"machine": info, "versions": versions, "threads": args.threads, "xllamacpp_batch": batch,
                           "omp_wait_policy": args.omp_wait_policy or None, "max_tokens": args.max_tokens,
                           "rounds": args.rounds, "max_chars": max_chars, "summary": summary, "concurrency": conc,
                           "prompts": [{"question": q, "user_chars": len(u)} for q, _, u in cases],
                           "runs": runs})


if __name__ == "__main__":
    main()
