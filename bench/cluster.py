"""Parse the eval corpus with the local executor and through a Dask cluster on this machine; per-task overhead.

    .venv/bin/python -m bench cluster [--workers 2] [--pages 8] [--skip-parse]

1. ``parse`` of every file of the eval corpus (../shared/eval/corpus, or $BENCH_CORPUS) into a fresh data dir,
   once with ``EXAMRAG_EXECUTOR=local`` (the default process pool, ocr_workers=2) and once with
   ``EXAMRAG_EXECUTOR=dask`` on a scheduler + ``--workers`` single-threaded workers started here on 127.0.0.1
   (tests/cluster/cluster_helpers.py); wall time, pages OCR'd, and whether the parsed artifacts are equal
   byte for byte after a canonical dump.
2. Per-task overhead: a no-op task's round trip and throughput, and for ``--pages`` OCR'd corpus pages sent one at
   a time, the driver's round trip minus the time the task spent inside the worker (render + OCR): what
   sending a page to a worker and its lines back costs, queueing excluded.

The cluster shares the 2 cores with the driver, so on this machine the cluster cannot be faster than the
local pool: the run measures the cost of the fan-out, not the speed-up of more machines (docs/deploy.md
scales the per-worker rate). The load average is recorded; the machine may be busy.
Results: bench/results/cluster.json.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import time
from pathlib import Path

from bench.lib import common as C
from pipeline.executors import DaskExecutor, LocalExecutor
from pipeline.ingest import run_stages
from pipeline.parse.ocr_runner import engine_kwargs
from pipeline.parse.tasks import engine_spec, ocr_pdf_page
from pipeline.settings import Settings
from tests.cluster.cluster_helpers import LocalDaskCluster


def corpus() -> Path:
    for p in (os.environ.get("BENCH_CORPUS"), C.ROOT / C.CORPUS, "/work/shared/eval/corpus"):
        if p and Path(p).is_dir():
            return Path(p).resolve()
    raise SystemExit("no eval corpus: set BENCH_CORPUS")


def noop(x):
    return x


def timed_page(src, password, number, dpi, spec):
    """A page task that also says how long it ran inside the worker, wall and CPU seconds (defined in
    __main__: sent by value). CPU seconds are what a worker with a core of its own would take."""
    t, c = time.perf_counter(), time.process_time()
    ocr_pdf_page(src, password, number, dpi, spec)
    return time.perf_counter() - t, time.process_time() - c


def canonical(data: Path) -> dict[str, str]:
    return {p.name: json.dumps(json.loads(p.read_text("utf-8")), sort_keys=True, ensure_ascii=False)
            for p in sorted((data / "parsed").glob("*.json"))}


def ocr_pages(data: Path) -> list[tuple[str, int]]:
    """(source, page) of every page the parse OCR'd."""
    out = []
    for p in sorted((data / "parsed").glob("*.json")):
        d = json.loads(p.read_text("utf-8"))
        out += [(d["source"], pg["number"]) for pg in d["pages"] if pg["method"] == "ocr" and d["format"] == "pdf"]
    return out


def parse_run(kind: str, raw: Path, data: Path, cluster: str = "") -> dict:
    shutil.rmtree(data, ignore_errors=True)
    s = Settings.from_flat(data_dir=data, executor=kind, cluster=cluster or None)
    load = os.getloadavg()[0]
    t = time.monotonic()
    result = run_stages(s, ["parse"], raw, quiet=True)
    wall = time.monotonic() - t
    tally = result.tally()
    pages = sum(len(json.loads(p.read_text("utf-8"))["pages"]) for p in (data / "parsed").glob("*.json"))
    ocr = len(ocr_pages(data))
    return {"executor": kind, "seconds": round(wall, 1), "files": sum(tally.values()), "tally": tally,
            "pages": pages, "ocr_pages": ocr, "s_per_ocr_page": round(wall / max(ocr, 1), 2),
            "loadavg_at_start": round(load, 2), "loadavg_at_end": round(os.getloadavg()[0], 2)}


def overhead(ex, pages: list[tuple[str, int]], n_noop: int = 100) -> dict:
    ex.submit(noop, 0).result(timeout=120)
    t = time.perf_counter()
    for i in range(n_noop):
        ex.submit(noop, i).result(timeout=120)
    rt = (time.perf_counter() - t) / n_noop
    t = time.perf_counter()
    futs = [ex.submit(noop, i) for i in range(5 * n_noop)]
    for f in futs:
        f.result(timeout=120)
    thr = (time.perf_counter() - t) / (5 * n_noop)
    spec = engine_spec("rapidocr", engine_kwargs(Settings(), threads=1))
    shared: dict[str, object] = {}
    rows = []
    timed_page_fn = timed_page
    for i, (source, number) in enumerate([pages[0]] + pages):  # the first one warms the engine up, not counted
        src = shared.setdefault(source, ex.share(Path(source)))
        t = time.perf_counter()
        inside, cpu = ex.submit(timed_page_fn, src, None, number, 150, spec).result(timeout=600)
        total = time.perf_counter() - t
        if i:
            rows.append({"page": f"{Path(source).name}#{number}", "round_trip_s": round(total, 3),
                         "in_task_s": round(inside, 3), "in_task_cpu_s": round(cpu, 3),
                         "overhead_ms": round((total - inside) * 1000, 1)})
    return {"noop_round_trip_ms": round(rt * 1000, 2), "noop_throughput_ms_per_task": round(thr * 1000, 3),
            "page_tasks": rows,
            "page_overhead_ms_median": statistics.median(r["overhead_ms"] for r in rows) if rows else None,
            "page_in_task_s_median": statistics.median(r["in_task_s"] for r in rows) if rows else None,
            "page_in_task_cpu_s_median": statistics.median(r["in_task_cpu_s"] for r in rows) if rows else None}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--pages", type=int, default=8, help="OCR'd pages sent one at a time for the overhead")
    ap.add_argument("--skip-parse", action="store_true",
                    help="only the overhead part, merged into the last results (needs a previous local run)")
    args = ap.parse_args()
    C.setup()
    raw = corpus()
    work = C.WORK / "cluster"
    work.mkdir(parents=True, exist_ok=True)
    previous = C.RESULTS / "cluster.json"
    out: dict = json.loads(previous.read_text("utf-8")) if args.skip_parse and previous.exists() else {}
    out.update({"machine": C.machine(), "corpus": str(raw), "workers": args.workers})
    out["loadavg_at_start"] = [round(x, 2) for x in os.getloadavg()]
    print(f"load average {out['loadavg_at_start']}; corpus {raw}", flush=True)
    if not args.skip_parse:
        out["local"] = parse_run("local", raw, work / "local")
        print("local:", json.dumps(out["local"], ensure_ascii=False), flush=True)
    pages = ocr_pages(work / "local")
    step = max(1, len(pages) // max(args.pages, 1))
    sample = pages[::step][: args.pages]
    t = time.monotonic()
    with LocalDaskCluster(args.workers) as cluster:
        out["cluster_start_s"] = round(time.monotonic() - t, 1)
        if not args.skip_parse:
            out["dask"] = parse_run("dask", raw, work / "dask", cluster.address)
            print("dask:", json.dumps(out["dask"], ensure_ascii=False), flush=True)
            a, b = canonical(work / "local"), canonical(work / "dask")
            out["identical_parsed_artifacts"] = a == b
            out["differing"] = sorted(k for k in a if a[k] != b.get(k))[:10]
        ex = DaskExecutor(cluster.address, 30)
        try:
            out["overhead_dask"] = overhead(ex, sample)
        finally:
            ex.close()
    local = LocalExecutor(2)
    try:
        out["overhead_local_pool"] = overhead(local, sample)
    finally:
        local.close()
    for k in ("overhead_dask", "overhead_local_pool"):
        o = out[k]
        print(f"{k}: no-op {o['noop_round_trip_ms']} ms round trip, {o['noop_throughput_ms_per_task']} ms/task "
              f"pipelined; page task overhead median {o['page_overhead_ms_median']} ms "
              f"(in task {o['page_in_task_s_median']} s wall, {o['page_in_task_cpu_s_median']} s CPU)", flush=True)
    if "local" in out and "dask" in out:
        out["pages_per_s_per_worker"] = round(out["dask"]["ocr_pages"] / out["dask"]["seconds"] / args.workers, 3)
        out["ocr_s_per_page_in_worker"] = out["overhead_dask"]["page_in_task_s_median"]
    cpu = out["overhead_dask"]["page_in_task_cpu_s_median"]
    out["ocr_cpu_s_per_page"] = cpu
    out["pages_per_s_per_dedicated_core"] = round(1 / (cpu + out["overhead_dask"]["page_overhead_ms_median"] / 1000), 3)
    out["loadavg_at_end"] = [round(x, 2) for x in os.getloadavg()]
    (C.RESULTS / "cluster.json").write_text(json.dumps(out, ensure_ascii=False, indent=1) + "\n", "utf-8")
    print("written bench/results/cluster.json", flush=True)


if __name__ == "__main__":
    main()
