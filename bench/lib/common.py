"""Shared helpers for the benchmarks: paths, machine description, timing, tables, results JSON,
stopping a server subprocess.

Benchmarks are measurements, not tests: nothing here asserts a time.
"""

from __future__ import annotations

import contextlib
import json
import os
import platform
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]  # the repo root; benchmarks run here (python -m bench …)
RESULTS = ROOT / "bench" / "results"
CORPUS = Path("../shared/eval/corpus")  # relative to ROOT, so chunk sources match the gold files
DEV = Path("../shared/eval/dev.jsonl")
INGESTED = Path(os.environ.get("BENCH_INGESTED", "/tmp/corpus"))  # an ingested copy of CORPUS
REAL = Path(os.environ.get("BENCH_REAL", "/tmp/corpus_bench"))  # our private copy of INGESTED
WORK = Path(os.environ.get("BENCH_WORK", "/tmp/examrag_bench"))  # scratch data dirs
PY = str(ROOT / ".venv" / "bin" / "python") if (ROOT / ".venv" / "bin" / "python").exists() else sys.executable


def setup() -> None:
    """chdir to the repo root (relative corpus paths match the gold files from there) and make sure
    bench/results exists."""
    os.chdir(ROOT)
    RESULTS.mkdir(parents=True, exist_ok=True)


def command(name: str) -> str:
    """How this run was started, for its results file: ``python -m bench NAME ARGS…``."""
    return " ".join(["python -m bench", name, *sys.argv[1:]])


def stop(proc: subprocess.Popen, grace: float = 15.0) -> None:
    """End a subprocess: SIGTERM, and SIGKILL if it is still there after ``grace`` seconds."""
    proc.terminate()
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(grace)
    if proc.poll() is None:
        proc.kill()
        proc.wait(grace)


def real_copy() -> Path:
    """A private copy (REAL) of the shared ingested corpus (INGESTED), refreshed when that changed."""
    import shutil

    src_meta = (INGESTED / "index" / "current.json").read_text()
    cur = REAL / "index" / "current.json"
    if not cur.exists() or cur.read_text() != src_meta:
        shutil.rmtree(REAL, ignore_errors=True)
        shutil.copytree(INGESTED, REAL)
    return REAL


def ingested_dir() -> Path:
    """The ingested corpus the query/quality/scaling benches read: bench/ingest.py's fresh data dir
    (built by the current code) when there is one, else a private copy of $BENCH_INGESTED."""
    fresh = WORK / "ingest"
    if os.environ.get("BENCH_DATA_DIR"):
        return Path(os.environ["BENCH_DATA_DIR"])
    if (fresh / "index" / "current.json").exists():
        return fresh
    return real_copy()


def _read(path: str) -> str:
    try:
        return Path(path).read_text()
    except OSError:
        return ""


def machine() -> dict:
    cpu = next((ln.split(":", 1)[1].strip() for ln in _read("/proc/cpuinfo").splitlines()
                if ln.startswith("model name")), platform.processor())
    mem_kb = next((int(ln.split()[1]) for ln in _read("/proc/meminfo").splitlines() if ln.startswith("MemTotal")), 0)
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                                text=True).stdout.strip()
        # results written by the earlier scripts of the same run do not make the code dirty
        dirty = bool(subprocess.run(["git", "status", "--porcelain", "--untracked-files=no", "--", ".",
                                     ":!bench/results", ":!BENCHMARKS.md"], cwd=ROOT,
                                    capture_output=True, text=True).stdout.strip())
    except OSError:
        commit, dirty = "", False
    return {
        "nproc": os.cpu_count(),
        "cpu": cpu,
        "ram_gb": round(mem_kb / 1024 / 1024, 1),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "commit": commit + ("+dirty" if dirty else ""),
        "loadavg_at_start": [round(x, 2) for x in os.getloadavg()],
        "when": time.strftime("%Y-%m-%d %H:%M:%S"),
    }


def pct(values: list[float], p: float) -> float:
    """Percentile (nearest-rank on the sorted list, linear interpolation)."""
    if not values:
        return float("nan")
    v = sorted(values)
    k = (len(v) - 1) * p / 100
    lo, hi = int(k), min(int(k) + 1, len(v) - 1)
    return v[lo] + (v[hi] - v[lo]) * (k - lo)


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def table(headers: list[str], rows: list[list], title: str = "") -> str:
    """A GitHub-markdown table (also readable in a terminal)."""
    def fmt(x):
        if isinstance(x, float):
            return f"{x:.3f}" if abs(x) < 10 else f"{x:.1f}"
        return str(x)

    cells = [[fmt(c) for c in r] for r in rows]
    widths = [max(len(h), *(len(r[i]) for r in cells)) if cells else len(h) for i, h in enumerate(headers)]
    out = [f"\n{title}\n"] if title else []
    out.append("| " + " | ".join(h.ljust(w) for h, w in zip(headers, widths)) + " |")
    out.append("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    out += ["| " + " | ".join(c.ljust(w) for c, w in zip(r, widths)) + " |" for r in cells]
    return "\n".join(out)


def save(name: str, data: dict) -> Path:
    """Write bench/results/<name>.json (latest) and print where."""
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / f"{name}.json"
    path.write_text(json.dumps(data, ensure_ascii=False, indent=1, default=str), encoding="utf-8")
    print(f"\nwrote {path.relative_to(ROOT)}")
    return path


class RssSampler(threading.Thread):
    """Samples the resident memory of this process plus all its descendants (/proc) every ``every`` s.

    ``mark(label)`` starts a new segment; ``peaks`` maps label -> peak MB of the process tree."""

    def __init__(self, every: float = 0.2, pid: int | None = None):
        super().__init__(daemon=True)
        self.every, self.pid = every, pid or os.getpid()
        self.label = "start"
        self.peaks: dict[str, float] = {}
        self._halt = threading.Event()

    @staticmethod
    def _rss_kb(pid: int) -> int:
        for ln in _read(f"/proc/{pid}/status").splitlines():
            if ln.startswith("VmRSS:"):
                return int(ln.split()[1])
        return 0

    @staticmethod
    def _children(pid: int) -> list[int]:
        out = []
        for task in Path(f"/proc/{pid}/task").glob("*"):
            out += [int(x) for x in _read(str(task / "children")).split()]
        return out

    def tree_mb(self) -> float:
        todo, seen, total = [self.pid], set(), 0
        while todo:
            p = todo.pop()
            if p in seen:
                continue
            seen.add(p)
            total += self._rss_kb(p)
            todo += self._children(p)
        return total / 1024

    def mark(self, label: str) -> None:
        self.label = label
        self.peaks.setdefault(label, self.tree_mb())

    def run(self) -> None:
        while not self._halt.is_set():
            mb = self.tree_mb()
            if mb > self.peaks.get(self.label, 0):
                self.peaks[self.label] = mb
            self._halt.wait(self.every)

    def stop(self) -> dict[str, float]:
        self._halt.set()
        self.join(timeout=2)
        return {k: round(v, 1) for k, v in self.peaks.items()}


def time_v(cmd: list[str], env: dict | None = None) -> dict:
    """Run ``cmd`` under /usr/bin/time -v; wall seconds, peak RSS (MB, largest single process), rc."""
    import re
    import tempfile

    with tempfile.NamedTemporaryFile("r", suffix=".time") as tf:
        t0 = time.monotonic()
        proc = subprocess.run(["/usr/bin/time", "-v", "-o", tf.name, *cmd], cwd=ROOT, env=env,
                              capture_output=True, text=True)
        wall = time.monotonic() - t0
        text = Path(tf.name).read_text()
    m = re.search(r"Maximum resident set size \(kbytes\): (\d+)", text)
    return {"wall_s": round(wall, 2), "max_rss_mb": round(int(m.group(1)) / 1024, 1) if m else None,
            "rc": proc.returncode, "stdout": proc.stdout, "stderr": proc.stderr}
