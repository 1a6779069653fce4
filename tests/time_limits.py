"""Every test has a time limit, and a test past it ends with the stack it was stuck in.

Two layers, both from the test's own limit (its ``@pytest.mark.timeout(N)``, else ``timeout`` in pytest.ini):

1. pytest-timeout, ``timeout_method = signal``: SIGALRM at the limit fails the test with its traceback and the
   run goes on. It reaches Python code, blocking system calls, lock and subprocess waits, even a runaway
   ``re`` match (sre checks for signals; measured: a catastrophic pattern stopped 1.0 s after the alarm,
   where a timer thread, the ``thread`` method, could not run until the match ended 21 s later: the match
   holds the GIL).
2. A watchdog in C (``faulthandler.dump_traceback_later``: a thread that needs no GIL) WATCHDOG_GRACE seconds
   after the limit, for what a signal cannot reach: C code waiting with the signal deferred (a C++ runtime's
   condition variable, SIGALRM blocked). It prints every thread's stack and ends the whole run (exit 1), so
   CI stops with a stack instead of hanging for its 90 minutes.

A session fixture is set up inside the first test that asks for it, so its own bound is added to the limit
of every test that uses it (:func:`add_fixture_time`: the sample ingest, tests/conftest.py).

Loaded by tests/conftest.py. ``EXAMRAG_TEST_WATCHDOG_GRACE`` shortens the grace (for the test of the watchdog).
"""

from __future__ import annotations

import faulthandler
import os
import sys

import pytest

WATCHDOG_GRACE = float(os.environ.get("EXAMRAG_TEST_WATCHDOG_GRACE", "60"))
_STDERR_FD = pytest.StashKey[int]()


def time_limit(item: pytest.Item) -> float:
    """The test's limit in seconds: its closest ``timeout`` mark, else the ini default (0: none)."""
    mark = item.get_closest_marker("timeout")
    if mark is not None and (mark.args or "timeout" in mark.kwargs):
        return float(mark.args[0] if mark.args else mark.kwargs["timeout"])
    return float(item.config.getini("timeout") or 0)


def add_fixture_time(items: list[pytest.Item], bounds: dict[str, float]) -> None:
    """Raise the limit of each test using one of ``bounds``' fixtures by that fixture's bound (seconds)."""
    for item in items:
        extra = sum(seconds for name, seconds in bounds.items() if name in getattr(item, "fixturenames", ()))
        if extra:
            item.add_marker(pytest.mark.timeout(time_limit(item) + extra), append=False)


def pytest_configure(config: pytest.Config) -> None:
    # the terminal's stderr, kept apart: while a test runs, fd 2 is the capture file, lost on exit
    config.stash[_STDERR_FD] = os.dup(sys.stderr.fileno())


def pytest_unconfigure(config: pytest.Config) -> None:
    if _STDERR_FD in config.stash:
        os.close(config.stash[_STDERR_FD])


@pytest.hookimpl(wrapper=True, trylast=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem):
    limit = time_limit(item)
    if limit <= 0:
        return (yield)
    faulthandler.dump_traceback_later(limit + WATCHDOG_GRACE, exit=True, file=item.config.stash[_STDERR_FD])
    try:
        return (yield)
    finally:
        faulthandler.cancel_dump_traceback_later()
