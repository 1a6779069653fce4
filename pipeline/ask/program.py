"""Calculations by program, not by prose (issue 23): run a tiny model-written program safely.

For a calculation question the model writes named quantities instead of doing arithmetic in its
sentences, e.g. ``page=1024`` / ``block=8`` / ``addr=2500`` / ``offset=addr % page`` /
``phys=block*page+offset``, or a short loop over a list where the exam needs a simulation (or a call
of one of :mod:`pipeline.ask.simulations`). :func:`run_program` returns every named step with its
value, the result, and the *inputs* — the names given a number literal — which the answer path must
find in the question or the passages before it trusts the result.

How it is kept safe, in layers:
1. a static whitelist of syntax (:mod:`pipeline.ask.program_check`): plain names, arithmetic, if, for
   over range/list, while, calls of whitelisted plain names; no attributes, imports, def/lambda,
   comprehensions, dunders or non-ASCII names. A refusal costs no process and says which line and
   construct;
2. a maintained restricted evaluator, never ``exec``/``eval``: simpleeval for a one-statement
   program, asteval for the rest, each with our guards (:mod:`pipeline.ask.program_child`): sizes of
   powers and shifts checked before computing, values ≤ ``max_magnitude``, lists flat and capped,
   strings capped, loop iterations counted across all loops;
3. a separate process, ``python -m pipeline.ask.program_child``, with RLIMIT_CPU, RLIMIT_AS and
   RLIMIT_FSIZE set by the child itself, and a wall-clock timeout after which the parent kills it.
   A subprocess rather than multiprocessing: spawn would re-import the parent's ``__main__`` (the CLI
   or the server, with their heavy imports) in every child, and a plain subprocess starts in ~60 ms,
   is killed by pid, and is safe to start from the server's threads (no ``preexec_fn``). The reply
   is JSON in a file capped by RLIMIT_FSIZE, so a runaway child cannot fill the parent's memory.

Steps: one per assigned name (loop variables excepted), in the order the names were *first*
assigned, each with the source of its *last executed* assignment and its value at the end — so a
counter in a loop is one step ``faults = faults + 1 → 9``, not nine. The result is what the last
statement assigns (a program must end with an assignment or an expression); a bare expression that
is not a name is named ``_``. Linux only (``resource``).
"""

from __future__ import annotations

import json
import math
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Optional

from pydantic import BaseModel, Field

from pipeline.ask.program_check import Refused, check
from pipeline.models import ProgramResult, ProgramStep, ProgramValue

PROJECT_ROOT = Path(__file__).resolve().parents[2]
CHILD_MODULE = "pipeline.ask.program_child"
MAX_ERROR_CHARS = 300


class ProgramLimits(BaseModel):
    """Bounds for one program. The defaults fit a 408 calculation with room to spare: an exam
    reference string is ~20 pages, so 10,000 iterations are a nested simulation several times over
    (asteval runs ~90 µs per loop iteration: ~1 s at the cap, inside the 2 s of CPU)."""

    max_source_chars: int = Field(4_000, ge=1, le=100_000)  # a calculation is ~10 lines; longer is not one
    max_depth: int = Field(50, ge=5, le=200)  # AST nesting; the evaluators recurse per level
    max_iterations: int = Field(10_000, ge=1, le=10**9)  # all loops together; also the longest range()
    max_list: int = Field(1_000, ge=1, le=10**7)
    max_str: int = Field(1_000, ge=1, le=10**7)
    max_magnitude: float = Field(1e40, gt=1, le=1e300)  # ~2**132: room for 2**128 (IPv6 addresses)
    cpu_seconds: int = Field(2, ge=1, le=60)  # RLIMIT_CPU of the child
    memory_mb: int = Field(512, ge=64, le=8_192)  # RLIMIT_AS of the child (it needs ~30 MB)
    wall_seconds: float = Field(5.0, gt=0, le=120)  # the parent kills the child after this
    output_bytes: int = Field(256_000, ge=1_000, le=10**8)  # the child's JSON reply


def run_program(source: str, *, limits: Optional[ProgramLimits] = None) -> ProgramResult:
    """Check ``source`` and run it in a limited child process. Never raises for a bad program:
    ``ok=False`` with a one-line ``error`` ("line 2: call of 'open' is not allowed (...)")."""
    limits = limits or ProgramLimits()
    started = time.perf_counter()
    try:
        check(source, max_chars=limits.max_source_chars, max_depth=limits.max_depth,
              max_magnitude=limits.max_magnitude)
        reply = _run_child(source, limits)
    except Refused as e:
        reply = {"ok": False, "error": str(e)}
    elapsed_ms = (time.perf_counter() - started) * 1000
    if not reply.get("ok"):
        return ProgramResult(ok=False, error=_one_line(reply.get("error") or "failed"), elapsed_ms=elapsed_ms)
    steps = [_step(s) for s in reply["steps"]]
    by_name = {s.name: s for s in steps}
    return ProgramResult(ok=True, steps=steps, result=_step(reply["result"]), elapsed_ms=elapsed_ms,
                         inputs=[by_name[n] for n in reply["inputs"] if n in by_name])


def _step(raw: dict) -> ProgramStep:
    return ProgramStep(name=raw["name"], expression=raw["expression"], value=raw["value"],
                       shown=shown(raw["value"]))


def _run_child(source: str, limits: ProgramLimits) -> dict:
    """Run the child and read its reply; a limit it hit becomes ``{"ok": False, "error": ...}``."""
    request = json.dumps({"source": source, "limits": limits.model_dump()})  # ASCII: no locale matters
    # -B: no .pyc writes under RLIMIT_FSIZE; -E, -s: no PYTHON* variables, no user site
    command = [sys.executable, "-B", "-E", "-s", "-m", CHILD_MODULE]
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        child = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=out, stderr=err, cwd=PROJECT_ROOT,
                                 env={"PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8"}, close_fds=True)
        try:
            child.communicate(request.encode(), timeout=limits.wall_seconds)
        except subprocess.TimeoutExpired:
            return {"ok": False, "error": f"stopped: still running after {limits.wall_seconds:g} s"}
        finally:
            if child.poll() is None:  # timed out, or the parent was interrupted: no orphan left running
                child.kill()
                child.wait()
        if child.returncode in (-signal.SIGXCPU, -signal.SIGKILL):
            return {"ok": False, "error": f"stopped: more than {limits.cpu_seconds} s of CPU"}
        out.seek(0)
        data = out.read(limits.output_bytes + 1)
        if child.returncode != 0 or not data:
            err.seek(0)
            tail = err.read()[-2_000:].decode("utf-8", "replace").strip().splitlines()
            reason = tail[-1] if tail else "no output"
            if "MemoryError" in reason:
                return {"ok": False, "error": f"stopped: more than {limits.memory_mb} MB of memory"}
            return {"ok": False, "error": f"the program's process failed (exit {child.returncode}): {reason}"}
    if len(data) > limits.output_bytes:
        return {"ok": False, "error": f"the result is larger than {limits.output_bytes} bytes"}
    return json.loads(data)


def _one_line(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= MAX_ERROR_CHARS else text[: MAX_ERROR_CHARS - 1] + "…"


def shown(value: ProgramValue) -> str:
    """A value for display: ints as ints, floats to at most 6 significant digits in plain notation
    (``0.333333``, ``8644``, ``0.000025``); scientific only below 1e-6 or from 1e15 on."""
    if isinstance(value, (bool, int)):
        return str(value)
    if isinstance(value, float):
        return _float_text(value)
    if isinstance(value, list):
        return "[" + ", ".join(shown(v) for v in value) + "]"
    return str(value)


def _float_text(x: float) -> str:
    if not math.isfinite(x):
        return str(x)
    if x.is_integer() and abs(x) < 1e15:
        return str(int(x))  # exact: 8644.0 is 8644, 1234567.0 keeps its seven digits
    rounded = float(f"{x:.6g}")
    if not 1e-6 <= abs(rounded) < 1e15:
        return f"{x:.6g}"
    decimals = max(0, 5 - math.floor(math.log10(abs(rounded))))
    text = f"{rounded:.{decimals}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text
