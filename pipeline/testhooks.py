"""Named points in ``ingest`` where a crash test can kill or pause the process. No effect unless set.

``EXAMRAG_TEST_KILL_AT=<point>[@n]``
    SIGKILL this process the n-th time (default: first) ``<point>`` is reached: no cleanup, no
    ``finally``, exactly like the OOM killer or a power cut (minus the page cache).
``EXAMRAG_TEST_PAUSE_AT=<point>[@n]`` with ``EXAMRAG_TEST_PAUSE_FILE=<flag file>``
    write this process's pid to ``<flag file>``, then wait until the test deletes it (at most 120 s),
    so a test can act while ingest is mid-way (SIGINT, ``ask``, a second ingest, delete a file).

``EXAMRAG_TEST_TASK_LOG=<dir>`` (set on executor workers; with ``EXAMRAG_TEST_TASK_DELAY=<seconds>``)
    every parse task that starts writes ``<dir>/<kind>-<page>-<pid>`` first, then sleeps the delay, so
    a test can see which worker process runs which page and kill it mid-task.

Points, in the order ingest reaches them:
``discovered`` (raw dir scanned, manifest saved; cli.py), ``<stage>:before_write`` (a document's
work is done, its artifact not written) and ``<stage>:after_write`` (artifact written, manifest not yet
saved) for stage parse/clean/enrich/index (runner.py), ``embed`` (a batch embedded, not yet in Chroma),
``chroma`` (a batch written to Chroma), ``publish`` (BM25 + catalog built, not yet published)
(index/stage.py), ``syllabus`` (index published, the syllabus step not yet run; ingest.py) and
``syllabus:placed`` (placement written, the map not yet; syllabus/stage.py).
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

_seen: dict[tuple[str, str], int] = {}


def _hit(kind: str, spec: str, point: str) -> bool:
    name, _, nth = spec.partition("@")
    if name != point:
        return False
    _seen[kind, point] = _seen.get((kind, point), 0) + 1
    return _seen[kind, point] == int(nth or 1)


def kill_point(point: str) -> None:
    """Call at a named point; kills or pauses the process when a test asked for it."""
    kill = os.environ.get("EXAMRAG_TEST_KILL_AT")
    if kill and _hit("kill", kill, point):
        os.kill(os.getpid(), signal.SIGKILL)
    pause, flag = os.environ.get("EXAMRAG_TEST_PAUSE_AT"), os.environ.get("EXAMRAG_TEST_PAUSE_FILE")
    if pause and flag and _hit("pause", pause, point):
        Path(flag).write_text(str(os.getpid()))
        deadline = time.monotonic() + 120
        while Path(flag).exists() and time.monotonic() < deadline:
            time.sleep(0.05)


def task_point(kind: str, number: int) -> None:
    """Called as a worker task starts (``pipeline.parse.tasks``); see ``EXAMRAG_TEST_TASK_LOG``."""
    log = os.environ.get("EXAMRAG_TEST_TASK_LOG")
    if log:
        Path(log, f"{kind}-{number}-{os.getpid()}").touch()
        time.sleep(float(os.environ.get("EXAMRAG_TEST_TASK_DELAY") or 0))
