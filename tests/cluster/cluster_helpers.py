"""A real Dask cluster on 127.0.0.1 for the cluster tests and bench/cluster.py: one scheduler and
N workers (one single-threaded process each, as in docs/deploy.md), each in its own process group so a
test can kill one like a lost machine. Everything it starts is killed on exit."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Optional

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LocalDaskCluster:
    """``with LocalDaskCluster(workers=2) as c:`` → ``c.address`` (tcp://127.0.0.1:port), ``c.workers``
    (Popen per worker), ``c.kill_worker(pid)``. Workers run this checkout (cwd and PYTHONPATH = repo root),
    with ``env`` added to their environment."""

    def __init__(self, workers: int = 2, env: Optional[dict] = None, start_timeout: float = 180.0,
                 log_dir: Optional[Path] = None):
        self.n = workers
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("EXAMRAG_") or k == "EXAMRAG_MODELS_DIR"}
        self.env.update({"PYTHONPATH": str(ROOT), "DASK_DISTRIBUTED__WORKER__DAEMON": "False", **(env or {})})
        self.start_timeout = start_timeout
        self.log_dir = log_dir
        self.address = f"tcp://127.0.0.1:{free_port()}"
        self.scheduler: Optional[subprocess.Popen] = None
        self.workers: list[subprocess.Popen] = []

    def _spawn(self, args: list[str], name: str) -> subprocess.Popen:
        out = open(self.log_dir / f"{name}.log", "wb") if self.log_dir else subprocess.DEVNULL
        return subprocess.Popen([sys.executable, "-m", *args], cwd=ROOT, env=self.env, stdout=out,
                                stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True)

    def __enter__(self) -> "LocalDaskCluster":
        port = self.address.rsplit(":", 1)[1]
        try:
            self.scheduler = self._spawn(["distributed.cli.dask_scheduler", "--host", "127.0.0.1", "--port", port,
                                          "--no-dashboard"], "scheduler")
            for i in range(self.n):
                self.workers.append(self._spawn(["distributed.cli.dask_worker", self.address, "--name", f"w{i}",
                                                 "--nthreads", "1", "--nworkers", "1", "--no-nanny",
                                                 "--no-dashboard", "--host", "127.0.0.1"], f"worker{i}"))
            self.wait_for_workers(self.n)
        except BaseException:
            self.__exit__()
            raise
        return self

    def wait_for_workers(self, n: int) -> None:
        from distributed import Client

        with Client(self.address, timeout=self.start_timeout, set_as_default=False) as client:
            client.wait_for_workers(n, timeout=self.start_timeout)

    def worker_pids(self) -> set[int]:
        return {p.pid for p in self.workers if p.poll() is None}

    def kill_worker(self, pid: int) -> None:
        """SIGKILL a worker's whole process group: the machine is gone, nothing is cleaned up."""
        os.killpg(os.getpgid(pid), signal.SIGKILL)

    def __exit__(self, *exc) -> None:
        for p in self.workers + ([self.scheduler] if self.scheduler else []):
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pass


def start_timed(workers: int = 2, **kw) -> tuple[LocalDaskCluster, float]:
    """Start a cluster; returns it (entered) and the seconds until all workers had joined."""
    t = time.monotonic()
    cluster = LocalDaskCluster(workers, **kw).__enter__()
    return cluster, time.monotonic() - t
