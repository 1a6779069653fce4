"""No test can hang: every test has a time limit (pytest.ini, tests/time_limits.py), and no test code waits
on a subprocess, thread, queue, future or socket without a timeout of its own.

The check reads syntax trees, so it sees calls, not what they are called on. It flags what can only be a
blocking wait: ``subprocess.run/call/check_call/check_output`` without ``timeout=``; ``.communicate()``,
``.wait()``, ``.join()``, ``.get()``, ``.result()`` and ``.acquire()`` with no arguments at all (``str.join``
and ``dict.get`` always have one); ``urlopen`` and ``requests.*`` without ``timeout=`` (httpx has a 5 s default);
a socket ``.recv``/``.accept`` in a function that never calls ``.settimeout``; and ``timeout=None`` anywhere.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# nothing is exempt any more: tests/serve was audited with the serve work (issue 20, item 1)
NOT_YET: tuple[str, ...] = ()
SUBPROCESS_CALLS = {"run", "call", "check_call", "check_output"}
BLOCKING_METHODS = {"communicate", "wait", "join", "get", "result", "acquire"}
SOCKET_READS = {"recv", "recv_into", "recvfrom", "accept"}
REQUESTS_VERBS = {"get", "post", "put", "delete", "head", "patch", "request"}


def _has_kw(call: ast.Call, name: str) -> bool:
    return any(k.arg == name for k in call.keywords) or any(k.arg is None for k in call.keywords)  # **kw: trust it


def _dotted(node: ast.AST) -> str:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
    return ".".join(reversed(parts))


def _socket_bounded(made: ast.Call, calls: list[ast.Call]) -> bool:
    """A ``create_connection(addr, timeout)`` (positional or keyword); a bare socket only if the module calls settimeout."""
    if _dotted(made.func).endswith("create_connection"):
        return len(made.args) >= 2 or _has_kw(made, "timeout")
    return any(isinstance(c.func, ast.Attribute) and c.func.attr == "settimeout" for c in calls)


def unbounded_waits(source: str) -> list[tuple[int, str]]:
    """(line, what) for every wait in ``source`` that has no timeout."""
    tree = ast.parse(source)
    found: list[tuple[int, str]] = []
    # a socket passed in from a helper: bounded when every socket this module makes has a timeout
    all_calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call)]
    made = [c for c in all_calls if _dotted(c.func).endswith(("create_connection", "socket.socket"))]
    module_bounded = bool(made) and all(_socket_bounded(c, all_calls) for c in made)
    for func in [tree, *(n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)))]:
        body = func.body if isinstance(func, ast.Module) else [func]
        calls = [n for part in body for n in ast.walk(part) if isinstance(n, ast.Call)]
        sets_timeout = module_bounded or any(
            (isinstance(c.func, ast.Attribute) and c.func.attr == "settimeout")
            or (_dotted(c.func).endswith("create_connection") and _socket_bounded(c, [])) for c in calls)
        for c in calls:
            name = _dotted(c.func)
            attr = c.func.attr if isinstance(c.func, ast.Attribute) else name
            if name in {f"subprocess.{f}" for f in SUBPROCESS_CALLS} and not _has_kw(c, "timeout"):
                found.append((c.lineno, f"{name}() without timeout="))
            elif isinstance(c.func, ast.Attribute) and attr in BLOCKING_METHODS and not c.args and not c.keywords:
                found.append((c.lineno, f".{attr}() without a timeout"))
            elif attr == "communicate" and len(c.args) < 2 and not _has_kw(c, "timeout"):
                found.append((c.lineno, ".communicate() without timeout="))
            elif name.endswith("urlopen") and len(c.args) < 3 and not _has_kw(c, "timeout"):
                found.append((c.lineno, f"{name}() without timeout="))
            elif name.split(".")[0] == "requests" and attr in REQUESTS_VERBS and not _has_kw(c, "timeout"):
                found.append((c.lineno, f"{name}() without timeout="))
            elif attr in SOCKET_READS and isinstance(c.func, ast.Attribute) and not sets_timeout \
                    and not isinstance(func, ast.Module):
                found.append((c.lineno, f".{attr}() on a socket with no settimeout() in {func.name}"))
            if any(k.arg == "timeout" and isinstance(k.value, ast.Constant) and k.value.value is None
                   for k in c.keywords):
                found.append((c.lineno, f"{name or attr}(timeout=None)"))
    return sorted(set(found))


def test_no_test_waits_without_a_timeout():
    bad = []
    for path in sorted((ROOT / "tests").rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        if rel.startswith(NOT_YET):
            continue
        bad += [f"{rel}:{line}: {what}" for line, what in unbounded_waits(path.read_text("utf-8"))]
    assert not bad, "waits without a timeout (a hung test blocks CI):\n" + "\n".join(bad)


@pytest.mark.parametrize("code, flagged", [
    ("subprocess.run(['ls'])", True),
    ("subprocess.run(['ls'], timeout=5)", False),
    ("subprocess.check_output(cmd, **kw)", False),
    ("proc.wait()", True),
    ("proc.wait(10)", False),
    ("proc.communicate()", True),
    ("proc.communicate(timeout=60)", False),
    ("worker.join()", True),
    ("worker.join(timeout=5)", False),
    ("', '.join(parts)", False),
    ("q.get()", True),
    ("d.get('k')", False),
    ("fut.result()", True),
    ("fut.result(timeout=30)", False),
    ("urllib.request.urlopen(url)", True),
    ("urllib.request.urlopen(url, timeout=2)", False),
    ("requests.get(url)", True),
    ("httpx.get(url, timeout=None)", True),
    ("httpx.get(url)", False),
    ("def f(s):\n    return s.recv(10)", True),
    ("def f(s):\n    s.settimeout(5)\n    return s.recv(10)", False),
    ("def f():\n    s = socket.create_connection(a, timeout=5)\n    return s.recv(10)", False),
    ("def f():\n    s = socket.create_connection(a)\n    return s.recv(10)", True),
    ("def mk():\n    return socket.create_connection(a, 5)\ndef f(s):\n    return s.recv(10)", False),
    ("def mk():\n    return socket.create_connection(a)\ndef f(s):\n    return s.recv(10)", True),
    ("def mk():\n    return socket.create_connection(a, 5)\ndef mk2():\n    return socket.create_connection(a)\n"
     "def f(s):\n    return s.recv(10)", True),
])
def test_the_check_sees_each_kind_of_wait(code, flagged):
    assert bool(unbounded_waits(code)) is flagged, code


def test_every_test_has_a_time_limit(pytestconfig):
    assert float(pytestconfig.getini("timeout")) > 0
    assert pytestconfig.getini("timeout_method") == "signal"


INNER = '''
import signal
import time


def test_stuck_in_python():
    time.sleep(30)


def test_after_it():
    pass


def test_stuck_where_no_signal_reaches():
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})  # as C code waiting with the signal deferred
    time.sleep(30)
'''


def _inner_run(tmp_path, select: str):
    """A pytest run of INNER's tests selected by ``select``, with a 1 s limit and a 1 s watchdog grace."""
    import os
    import subprocess
    import sys
    import time

    (tmp_path / "pytest.ini").write_text("[pytest]\ntimeout = 1\ntimeout_method = signal\n")
    (tmp_path / "conftest.py").write_text("from tests.time_limits import pytest_configure, pytest_runtest_protocol, "
                                          "pytest_unconfigure  # noqa: F401\n")
    (tmp_path / "test_inner.py").write_text(INNER)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "EXAMRAG_TEST_WATCHDOG_GRACE": "1"}
    started = time.monotonic()
    r = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-k", select, "test_inner.py"],
                       cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    return r, time.monotonic() - started


def test_a_test_past_its_limit_fails_with_its_stack_and_the_run_goes_on(tmp_path):
    r, took = _inner_run(tmp_path, "stuck_in_python or after_it")
    assert r.returncode == 1 and took < 30, (took, r.stdout, r.stderr)
    assert "1 failed, 1 passed" in r.stdout and "Timeout (>1.0s)" in r.stdout
    assert "time.sleep(30)" in r.stdout  # where it was stuck


def test_a_test_no_signal_reaches_is_ended_by_the_watchdog_with_every_stack(tmp_path):
    r, took = _inner_run(tmp_path, "no_signal_reaches")
    assert r.returncode == 1 and took < 30, (took, r.stdout, r.stderr)
    assert "Timeout (0:00:02)!" in r.stderr and "test_stuck_where_no_signal_reaches" in r.stderr, r.stderr


def test_a_test_that_may_set_up_the_sample_ingest_gets_its_time(request):
    """The shared sample ingest runs inside whichever test first asks for it: each such test's limit includes it."""
    from tests.conftest import SAMPLE_INGEST_TIMEOUT
    from tests.time_limits import time_limit

    users = [item for item in request.session.items if "sample_data" in getattr(item, "fixturenames", ())]
    if not users:
        pytest.skip("no test using sample_data was collected in this run")
    assert all(time_limit(item) >= SAMPLE_INGEST_TIMEOUT + float(request.config.getini("timeout")) for item in users)
