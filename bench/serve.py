"""Load on `cli.py serve`, on 127.0.0.1 only, bounded in count and time.

1. search: ``--clients`` (50) concurrent keep-alive clients call ``GET /api/search`` for ``--seconds``
   (30) with the 60 dev questions in turn: first back to back (no think time: a closed loop, every
   client always waiting, the hardest case), then with ``--think`` (0.5 s) between a client's
   requests; p50/p95/p99 latency, throughput, errors, and the server's CPU time per request (the
   figure that does not depend on how busy the machine is).
2. ask: ``--ask-clients`` (10) students press "ask" at the same moment, with questions that need a
   generation (not past-paper lookups, which are answered from their record without queueing). The LLM is an OpenAI-compatible
   fake endpoint on 127.0.0.1 that streams a cited answer in ~1 s (``--token-delay`` per piece), so
   the numbers are the server's queueing, not a model's speed. With one slot and ``serve_queue_size``
   8: one generates, eight wait (their position is streamed), one gets 503 + Retry-After. Reports
   each client's outcome, queue positions, time to first token and to the answer, and that the server
   is still healthy afterwards.

The server runs as a subprocess (`python cli.py serve`) on the ingested corpus (read-only: serving
writes nothing), the clients in this process (aiohttp). Writes bench/results/serve.json.

    python -m bench serve [--data-dir /tmp/base/corpus] [--clients 50] [--seconds 30]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

from bench.lib import common as C

FALLBACK_QUESTIONS = ["B树和B+树的区别是什么", "折半查找的时间复杂度", "进程和线程的区别", "TCP三次握手的过程",
                      "页面置换算法有哪些", "虚拟存储器的基本原理", "快速排序的平均时间复杂度", "死锁产生的必要条件",
                      "Cache的映射方式", "IP地址的分类", "中断处理的过程", "哈夫曼树的构造"]


def questions(path: Path, generated: bool = False) -> list[str]:
    """The QA file's questions; ``generated``: only those that are not past-paper lookups (a record's
    answer needs no generation and skips the queue, so it would not exercise it)."""
    if path.exists():
        from pipeline.ask.evaluate import read_questions

        return [q["question"] for q in read_questions(path) if not (generated and q.get("kind") == "exam_question")]
    print(f"({path} not found: using {len(FALLBACK_QUESTIONS)} built-in questions)")
    return FALLBACK_QUESTIONS


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(data_dir: Path, llm_url: str, queue_size: int) -> tuple[subprocess.Popen, str]:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("EXAMRAG_") or k == "EXAMRAG_MODELS_DIR"}
    env.update(EXAMRAG_DATA_DIR=str(data_dir), EXAMRAG_LLM_BACKEND="openai", EXAMRAG_LLM_BASE_URL=llm_url,
               EXAMRAG_LLM_MODEL="fake-408", EXAMRAG_SERVE_QUEUE_SIZE=str(queue_size))
    proc = subprocess.Popen([C.PY, "cli.py", "serve", "--host", "127.0.0.1", "--port", str(port)], cwd=C.ROOT,
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    url = f"http://127.0.0.1:{port}"
    import urllib.request

    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"serve exited: {proc.stderr.read()}")
        try:
            with urllib.request.urlopen(url + "/api/health", timeout=2) as r:
                if r.status == 200:
                    return proc, url
        except OSError:
            time.sleep(0.3)
    proc.kill()
    raise SystemExit("serve did not come up in 120 s")


def cpu_seconds(pid: int) -> float:
    """utime + stime of a process (all its threads), from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def search_load(url: str, qs: list[str], clients: int, seconds: float, pid: int = 0, think: float = 0.0) -> dict:
    import aiohttp

    lat: list[float] = []
    errors: dict[str, int] = {}
    stop = time.monotonic() + seconds

    async def client(i: int, session) -> None:
        n = i
        while time.monotonic() < stop:
            q = qs[n % len(qs)]
            n += clients
            t = time.perf_counter()
            try:
                async with session.get(url + "/api/search", params={"q": q, "k": "5"}) as r:
                    body = await r.read()
                    if r.status != 200 or not json.loads(body).get("hits"):
                        errors[f"HTTP {r.status}"] = errors.get(f"HTTP {r.status}", 0) + 1
                        continue
            except (aiohttp.ClientError, asyncio.TimeoutError) as exc:
                errors[type(exc).__name__] = errors.get(type(exc).__name__, 0) + 1
                continue
            lat.append((time.perf_counter() - t) * 1000)
            if think:
                await asyncio.sleep(think)

    timeout = aiohttp.ClientTimeout(total=60)
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=clients), timeout=timeout) as session:
        # warm-up: one pass over the questions, not timed
        for q in qs:
            async with session.get(url + "/api/search", params={"q": q}) as r:
                await r.read()
        began, cpu0 = time.monotonic(), cpu_seconds(pid) if pid else 0.0
        await asyncio.gather(*(client(i, session) for i in range(clients)))
        took = time.monotonic() - began
        cpu = (cpu_seconds(pid) - cpu0) if pid else float("nan")
    return {"clients": clients, "think_s": think, "seconds": round(took, 1), "requests": len(lat), "rps": round(len(lat) / took, 1),
            "server_cpu_ms_per_request": round(cpu * 1000 / max(1, len(lat)), 2),
            "p50_ms": round(C.pct(lat, 50), 1), "p95_ms": round(C.pct(lat, 95), 1), "p99_ms": round(C.pct(lat, 99), 1),
            "max_ms": round(max(lat, default=0), 1), "errors": errors}


async def ask_burst(url: str, qs: list[str], clients: int) -> dict:
    import aiohttp

    async def student(i: int, session) -> dict:
        out = {"client": i, "status": None, "positions": [], "first_token_s": None, "answer_s": None, "events": 0}
        t0 = time.perf_counter()
        try:
            async with session.post(url + "/api/ask", json={"question": qs[i % len(qs)]}) as r:
                out["status"] = r.status
                if r.status != 200:
                    out["retry_after"] = r.headers.get("Retry-After")
                    out["error"] = (await r.json()).get("error")
                    return out
                event = ""
                async for raw in r.content:
                    line = raw.decode("utf-8").rstrip("\n")
                    if line.startswith("event:"):
                        event = line[6:].strip()
                    elif line.startswith("data:"):
                        out["events"] += 1
                        data = json.loads(line[5:])
                        if event == "queued":
                            out["positions"].append(data["position"])
                        elif event == "token" and out["first_token_s"] is None:
                            out["first_token_s"] = round(time.perf_counter() - t0, 2)
                        elif event == "answer":
                            out["answer_s"] = round(time.perf_counter() - t0, 2)
                            out["cited"] = "[来源:" in (data.get("answer") or "")
                        elif event == "error":
                            out["error"] = data.get("error")
        except (aiohttp.ClientError, asyncio.TimeoutError) as exc:
            out["error"] = type(exc).__name__
        return out

    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=300)) as session:
        generated = []  # questions whose answer needs a generation (a record or a refusal skips the queue)
        for q in qs:
            async with session.get(url + "/api/search", params={"q": q}) as r:
                if (await r.json()).get("source") not in ("record", "refusal"):
                    generated.append(q)
            if len(generated) == clients:
                break
        qs = generated or qs
        rows = await asyncio.gather(*(student(i, session) for i in range(clients)))
        async with session.get(url + "/api/health") as r:
            health = await r.json()
    return {"clients": clients, "rows": rows, "health_after": health}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data-dir", type=Path, default=Path(os.environ.get("BENCH_DATA_DIR", "/tmp/base/corpus")))
    ap.add_argument("--questions", type=Path, default=None, help="QA jsonl (default ../shared/eval/dev.jsonl)")
    ap.add_argument("--clients", type=int, default=50)
    ap.add_argument("--seconds", type=float, default=30)
    ap.add_argument("--think", type=float, default=0.5,
                    help="second search run: each client waits this long between requests (0: skip it)")
    ap.add_argument("--ask-clients", type=int, default=10)
    ap.add_argument("--queue-size", type=int, default=8)
    ap.add_argument("--token-delay", type=float, default=0.05, help="fake LLM: seconds per streamed piece")
    args = ap.parse_args()
    if not (1 <= args.clients <= 200 and 0 < args.seconds <= 120 and 1 <= args.ask_clients <= 50):
        raise SystemExit("bounded load only: --clients 1-200, --seconds ≤ 120, --ask-clients 1-50")
    C.setup()
    data_dir = args.data_dir.resolve()
    qa = args.questions or (C.DEV if C.DEV.exists() else Path("/work/shared/eval/dev.jsonl"))
    qs, ask_qs = questions(qa), questions(qa, generated=True)
    from tests.serve.serve_helpers import FakeEndpoint

    info = C.machine()
    print(f"bench_serve: {data_dir}, {len(qs)} questions, load average {info['loadavg_at_start']}")
    with FakeEndpoint(delay=args.token_delay, piece=3) as endpoint:
        proc, url = start_server(data_dir, endpoint.base_url, args.queue_size)
        try:
            runs = [asyncio.run(search_load(url, qs, args.clients, args.seconds, proc.pid))]
            if args.think:
                runs.append(asyncio.run(search_load(url, qs, args.clients, args.seconds, proc.pid, args.think)))
            print(C.table(["clients", "think s", "s", "requests", "req/s", "p50 ms", "p95 ms", "p99 ms", "max ms",
                           "errors", "server CPU ms/req"],
                          [[r["clients"], r["think_s"], r["seconds"], r["requests"], r["rps"], r["p50_ms"], r["p95_ms"],
                            r["p99_ms"], r["max_ms"], sum(r["errors"].values()), r["server_cpu_ms_per_request"]]
                           for r in runs],
                          "GET /api/search (think 0: closed loop, every client always has a request out)"))
            ask = asyncio.run(ask_burst(url, ask_qs, args.ask_clients))
            rows = ask["rows"]
            print(C.table(["client", "HTTP", "queue positions", "first token s", "answer s", "error"],
                          [[r["client"], r["status"], ",".join(map(str, r["positions"])) or "-",
                            r["first_token_s"] if r["first_token_s"] is not None else "-",
                            r["answer_s"] if r["answer_s"] is not None else "-",
                            r.get("error") or (f"Retry-After {r['retry_after']}" if r.get("retry_after") else "")]
                           for r in rows], f"{args.ask_clients} × POST /api/ask at once (1 slot, queue {args.queue_size})"))
            alive = proc.poll() is None
            print(f"server alive after the burst: {alive}; queue after: {ask['health_after']['queue']}")
        finally:
            C.stop(proc)
        C.save("serve", {"machine": info, "data_dir": str(data_dir), "search": runs,
                         "ask": {**ask, "server_alive": alive, "token_delay": args.token_delay,
                                 "queue_size": args.queue_size}})


if __name__ == "__main__":
    main()
