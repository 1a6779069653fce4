"""Where parse work runs: a local process pool (default) or a Dask distributed cluster.

An executor runs module-level functions as tasks and hands back futures; it knows nothing of PDFs or
OCR (the tasks live in ``pipeline.parse.tasks``, the dispatch in ``pipeline.parse.ocr_runner.OcrRunner``).

``make_executor(settings)`` picks one from ``EXAMRAG_EXECUTOR``:

``local`` (default)
    ``ocr_workers`` spawned processes (``concurrent.futures``), or inline in this process when
    ``ocr_workers`` is 1. Tasks read documents from this machine's disk.
``dask``
    a ``distributed.Client`` on the running cluster at ``EXAMRAG_CLUSTER`` (``tcp://host:8786``).
    Workers need not see this machine's disk: a document goes to the cluster once, as the result of a
    task whose spec holds its bytes (:meth:`DaskExecutor.share`), so when the worker holding it dies
    the scheduler recomputes it elsewhere, which data sent with ``scatter`` would not allow. A worker
    that dies mid-task has its tasks rescheduled by the scheduler (a task that was running on
    ``distributed.scheduler.allowed-failures`` + 1 dying workers fails with ``KilledWorker``: a page
    that crashes every worker does not take the cluster down). Tasks are pure functions of their
    arguments and only the driver writes artifacts, so a retried task can neither lose nor duplicate
    anything.

Why Dask and not Ray: measured on this machine, see docs/deploy.md ("Choosing the engine").
"""

from __future__ import annotations

import asyncio
import concurrent.futures as cf
import re
import threading
import time
import warnings
from pathlib import Path
from typing import Any, Callable, Iterable, Optional, Protocol

from pipeline.errors import one_line
from pipeline.settings import Settings


class ClusterError(RuntimeError):
    """The cluster cannot be used (unreachable, no workers, mismatched workers). One line, naming the address."""


class Executor(Protocol):
    kind: str
    address: str
    remote: bool  # tasks may run where this machine's files are not readable
    # what a future raises when the executor lost the task (a dead worker, a closed connection, a
    # cancelled future) rather than the task failing: a caller retries those, never the task's own errors
    lost: tuple[type[BaseException], ...]

    def slots(self) -> int:
        """Tasks that can run at once (the in-flight bound of the dispatcher)."""

    def share(self, path: Path, data: Optional[bytes] = None) -> Any:
        """What a task is given to read the document at ``path`` (a path, or a handle to its bytes;
        ``data``: the bytes, when the caller has read them already)."""

    def submit(self, fn: Callable, *args: Any) -> Any:
        """Run ``fn(*args)`` as a task; returns a future with ``result(timeout)``, ``done()``, ``cancel()``."""

    def wait_first(self, futures: Iterable, timeout: Optional[float]) -> None:
        """Return when one of ``futures`` is done, or after ``timeout`` seconds."""

    def close(self) -> None: ...


LOST_FUTURE: tuple[type[BaseException], ...] = (cf.CancelledError, asyncio.CancelledError)  # any executor's


class LocalExecutor:
    """A spawned process pool of ``processes`` workers, or inline execution when ``processes`` is 1.

    ``initializer(*initargs)`` runs once in every worker process (not for inline execution: tasks must
    not need it)."""

    kind = "local"
    address = "local"
    remote = False
    lost: tuple[type[BaseException], ...] = LOST_FUTURE

    def __init__(self, processes: int, initializer: Optional[Callable] = None, initargs: tuple = ()):
        self.processes = processes
        self._init = (initializer, initargs)
        self._pool: Optional[cf.ProcessPoolExecutor] = None
        self._sent: list[cf.Future] = []  # pool futures not known to be done

    def slots(self) -> int:
        return self.processes

    def share(self, path: Path, data: Optional[bytes] = None) -> str:
        return str(path)

    def submit(self, fn: Callable, *args: Any) -> cf.Future:
        if self.processes <= 1:
            fut: cf.Future = cf.Future()
            try:
                fut.set_result(fn(*args))
            except Exception as exc:
                fut.set_exception(exc)
            return fut
        if self._pool is None:
            import multiprocessing

            self._pool = cf.ProcessPoolExecutor(max_workers=self.processes, mp_context=multiprocessing.get_context("spawn"),
                                                initializer=self._init[0], initargs=self._init[1])
        fut = self._pool.submit(fn, *args)
        self._sent = [f for f in self._sent if not f.done()] + [fut]
        return fut

    def wait_first(self, futures: Iterable, timeout: Optional[float]) -> None:
        cf.wait(list(futures), timeout=timeout, return_when=cf.FIRST_COMPLETED)

    def close(self) -> None:
        if self._pool is not None:
            if any(not f.done() for f in self._sent):  # a task abandoned after task_timeout: do not wait for it
                for proc in list(getattr(self._pool, "_processes", {}).values()):
                    proc.kill()
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None


def _dask_lost() -> tuple[type[BaseException], ...]:
    """Dask's own "the cluster, not the task, failed": a task that killed ``allowed-failures`` + 1
    workers (KilledWorker), a connection to a worker or the scheduler that closed (CommClosedError);
    a cancelled future (FutureCancelledError) is a ``cf.CancelledError``."""
    from distributed.comm.core import CommClosedError
    from distributed.scheduler import KilledWorker

    return (*LOST_FUTURE, KilledWorker, CommClosedError)


def _blob(data: bytes) -> bytes:
    """The task whose spec holds a document's bytes (see :meth:`DaskExecutor.share`)."""
    return data


class DaskExecutor:
    """Tasks on a running Dask distributed cluster."""

    kind = "dask"
    remote = True

    def __init__(self, address: str, connect_timeout: float = 10.0):
        self.address = address
        try:
            from distributed import Client
        except ImportError:
            raise ClusterError("EXAMRAG_EXECUTOR=dask needs the dask distributed package: "
                               "bash scripts/setup.sh --cluster") from None
        if not address:
            raise ClusterError("EXAMRAG_EXECUTOR=dask needs EXAMRAG_CLUSTER=tcp://HOST:8786 (the scheduler's address)")
        if "://" not in address:
            address = self.address = f"tcp://{address}"
        if not re.fullmatch(r"(tcp|tls)://(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9_.-]+):\d{1,5}", address):
            raise ClusterError(f"EXAMRAG_CLUSTER={address!r} is not a scheduler address like tcp://10.0.0.5:8786")
        started = time.monotonic()
        try:
            self.client = Client(address, timeout=connect_timeout, set_as_default=False)
        except Exception as exc:  # OSError (refused, timed out), ValueError (a malformed address)
            raise ClusterError(f"cannot reach the dask cluster at {address} (EXAMRAG_CLUSTER): "
                               f"{one_line(exc, 200)}") from None
        try:
            left = max(1.0, connect_timeout - (time.monotonic() - started))
            self.client.wait_for_workers(1, timeout=left)
        except Exception:
            self.client.close()
            raise ClusterError(f"the dask cluster at {address} (EXAMRAG_CLUSTER) has no workers "
                               f"after {connect_timeout:g}s: start some with `dask worker {address}`") from None
        self._slots = 0
        self._slots_at = 0.0
        self.lost = _dask_lost()

    def slots(self) -> int:
        """Worker threads in the cluster, refreshed at most every 5 s (workers come and go)."""
        if time.monotonic() - self._slots_at > 5:
            try:
                workers = self.client.scheduler_info(n_workers=-1)["workers"].values()
            except TypeError:  # older distributed without n_workers
                workers = self.client.scheduler_info()["workers"].values()
            self._slots = max(1, sum(int(w.get("nthreads", 1)) for w in workers))
            self._slots_at = time.monotonic()
        return self._slots

    def share(self, path: Path, data: Optional[bytes] = None) -> Any:
        """A future of the document's bytes, computed from a spec that holds them: the scheduler can
        recompute it on another worker if the worker holding it dies (``scatter`` data would be lost)."""
        data = Path(path).read_bytes() if data is None else data
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "Sending large graph": intended, once per document
            return self.client.submit(_blob, data, pure=False)

    def submit(self, fn: Callable, *args: Any) -> Any:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return self.client.submit(fn, *args, pure=False, retries=0)

    def wait_first(self, futures: Iterable, timeout: Optional[float]) -> None:
        # distributed.wait() needs a default client; this one is not (a library must not set globals)
        futures = list(futures)
        if not futures or any(f.done() for f in futures):
            return
        event = threading.Event()
        for f in futures:
            f.add_done_callback(lambda _f: event.set())
        event.wait(timeout)

    def run_on_workers(self, fn: Callable, *args: Any) -> dict[str, Any]:
        """``fn(*args)`` once on every worker now in the cluster: {worker address: result}."""
        return self.client.run(fn, *args)

    def close(self) -> None:
        try:
            self.client.close(timeout=5)
        except Exception:  # noqa: BLE001 - closing a client of a dead cluster must not mask the real error
            pass


def make_executor(settings: Settings, *, initializer: Optional[Callable] = None, initargs: tuple = ()) -> Executor:
    """The executor chosen by the ``executor`` settings group (raises :class:`ClusterError`)."""
    g = settings.executor
    if g.kind == "dask":
        return DaskExecutor(g.cluster or "", g.connect_timeout)
    return LocalExecutor(g.ocr_workers, initializer, initargs)


