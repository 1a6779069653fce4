"""A GGUF model run in-process by llama.cpp, through the prebuilt ``xllamacpp`` wheel (CPU).

Why this runtime: ``xllamacpp`` is a 34 MB prebuilt wheel (no compiler, installs in seconds) that
runs llama.cpp's own C++ server engine inside this process: parallel slots with continuous
batching, JSON-schema constrained output (LLGuidance), thread-safe requests. llama-cpp-python
(0.3.36, no wheel on PyPI: ~20 CPU-minutes of compiling on every fresh machine) is no longer used
by ``pipeline/``: it generates at the same speed (bench/bench_llm_runtime.py), and nothing here
needs its Python-level ``Llama`` API, while keeping it would mean two runtimes to support. It
remains a bench-only requirement (requirements/bench-llama.txt) for that comparison.

Network: nothing leaves the machine, and nothing is downloaded (the model is a local file).
Starting the engine does open llama.cpp's HTTP listener on 127.0.0.1 at a random port (xllamacpp
cannot start without it). Every generation goes in-process; the listener is used only to save and
restore a slot's KV state (``prefix_state``, on 127.0.0.1, no proxy, a time limit on each read). It is
locked with a random API key that never leaves this object, so other local programs get HTTP 401.

Slots: ``slots`` generations run at once, each in its own slot of ``n_ctx`` tokens (the KV cache
is ``slots * n_ctx``, about 28 KB per token for the 1.5B model). ``complete()`` is thread-safe:
up to ``slots`` calls generate concurrently, and further calls wait for a free slot.

Time limits and cancelling: every request streams inside, including prompt-progress events every
``BATCH`` prompt tokens, into a queue that ``complete()`` reads on the caller's thread. So
``on_token`` runs on the caller's thread; when it raises (a web client went away), the caller's
``cancel`` event is set (also while the prompt is still being read, before any token), Ctrl-C
arrives, or ``timeout`` seconds pass (waiting for a slot included), the engine is told to stop at
its next event, which cancels the request and frees its slot; ``complete()`` waits for that up to
``CANCEL_WAIT_S`` and then re-raises (the exception from ``on_token`` as is, a timeout as
:class:`LlmError`).

Prompt cache: with ``prompt_cache`` (the default) a request reuses the KV state of the longest
prefix it shares with what its slot last held: the fixed system prompt (and the chat template's
first tokens) are read once per slot, not once per question (~100 tokens: ~3 s on a 2-core AVX2
CPU). With ``state_dir`` that holds across processes too: the system prompt's state is saved once per
machine and restored into a slot that does not hold it (``prefix_state``), so a cold ``cli.py ask``
reads only its question and material. The slots are chosen here (``id_slot``), so it is known what
each one holds. ``last_stats`` says how many tokens were reused (``cached_tokens``) and read
(``prompt_evaluated``). Without it, every request evaluates its whole prompt, so earlier calls cannot
change an answer even in rounding (for bit-reproducible benches).

Determinism: greedy at ``temperature=0``, otherwise sampled with a fixed ``seed``. With the prompt
cache, the reused prefix was computed in an earlier request's batches; the same question greedy
gave the same text in tests/llm/test_llm_local_real.py, but batched arithmetic may round
differently. Requests running at the same time share batches, and batched arithmetic can
round differently: in bench/bench_llm_runtime.py 1 of 4 answers of 150 tokens generated two at a
time diverged from its one-at-a-time text after 74 characters (a synonym). Same prompt alone,
same answer; under concurrency, answers are equally good but not bit-identical.

Threads: llama.cpp's CPU threads are OpenMP threads. On a busy machine, OpenMP's default of
spinning while waiting made generation 35x slower here (0.25 against 8.8 tokens/s with
``OMP_WAIT_POLICY=PASSIVE``, 1.5B model, 2 threads, load average 12), so it is set to PASSIVE
unless the user set it. It only takes effect if no OpenMP runtime was loaded before this module
imports ``xllamacpp``.
"""

from __future__ import annotations

import atexit
import os
import queue
import secrets
import threading
import time
import weakref
from pathlib import Path
from typing import Any, Callable, Optional

from pipeline.errors import one_line

from .base import Cancelled, Llm, LlmError, Request, TokenCallback
from .prefix_state import PrefixStore, SlotActions
from .runtime import check_cpu, check_gguf, import_runtime

DEFAULT_SLOTS = 2
# Prompt tokens per decode step: the longest stretch without an event to stop at (~2 s of prompt
# processing at 30 tokens/s). Measured on 2 busy cores: 64 processed prompts no slower than 256
# (medians 7.4 against 7.5 tokens/s, two runs of two prompts each, load average 12-16).
BATCH = 64
CANCEL_WAIT_S = 2.0  # how long complete() waits for a cancelled request to leave its slot
EXIT_WAIT_S = 30.0  # how long close() (also run at exit) waits for running requests to stop

_TEXT, _ERROR, _DONE = "text", "error", "done"


class LocalGguf(Llm):
    """Chat completion with a local GGUF file; the model is loaded once, here.

    ``timeout`` bounds each ``complete()`` call in seconds (None: no limit); ``batch`` is the
    prompt tokens per decode step (see ``BATCH``); ``state_dir`` is where system-prompt KV states are
    saved for later processes (None: not saved; see ``prefix_state``). ``load_s`` is the
    load time; ``last_stats`` holds the measurements of the calling thread's last call (so
    concurrent callers each see their own): ``prompt_tokens`` (all of the prompt),
    ``cached_tokens`` (reused from the prompt cache) and ``prompt_evaluated`` (read now),
    ``completion_tokens``, ``prefill_tok_s`` and ``gen_tok_s`` (the engine's own rates),
    ``first_token_s``, ``total_s``.
    """

    backend = "local"

    def __init__(self, model_path: Path, n_threads: int = 2, n_ctx: int = 4096,
                 slots: int = DEFAULT_SLOTS, timeout: Optional[float] = None, seed: int = 0,
                 batch: int = BATCH, prompt_cache: bool = True, state_dir: Optional[Path] = None) -> None:
        path = Path(model_path).expanduser()
        self.model_path = path
        self.model_id = path.stem
        self.n_ctx = n_ctx
        self.slots = max(1, int(slots))
        self.timeout = timeout
        self.seed = seed
        self.batch = batch
        self.prompt_cache = prompt_cache
        self._stats = threading.local()
        self._free: queue.Queue[int] = queue.Queue()  # the ids of the slots no call is using
        for slot in range(self.slots):
            self._free.put(slot)
        self._holds: list[Optional[str]] = [None] * self.slots  # the system prompt (digest) each slot's cache starts with
        self._prefix_lock = threading.Lock()  # one process computes a missing saved state at a time
        self._api_key = secrets.token_hex(16)
        self._runs: set[_Run] = set()
        self._runs_lock = threading.Lock()
        self._server: Any = None
        check_gguf(path)
        check_cpu()
        xllamacpp = import_runtime()
        self._store = _prefix_store(state_dir, path, xllamacpp, n_ctx) if prompt_cache else None
        params = self._params(xllamacpp, path, n_threads)
        t0 = time.perf_counter()
        try:
            self._server = xllamacpp.Server(params)
        except (RuntimeError, ValueError, OSError, MemoryError) as e:
            raise LlmError(f"local LLM: cannot load {path.name}: llama.cpp rejected it (corrupt, "
                           f"truncated, an unsupported architecture, or not enough memory; "
                           f"{one_line(e, 100)})") from None
        # Wait for the engine's loop to run (a metrics request is answered by it): a Server dropped
        # before its loop started hangs forever in its destructor, joining a thread that never ends
        # (seen: `ask` of a past-paper question, answered from its record in milliseconds without the
        # model, never exited).
        self._server.handle_metrics()
        self._slot_actions = SlotActions(self._server.listening_address, self._api_key) if self._store else None
        self.load_s = time.perf_counter() - t0
        _close_at_exit(self)

    def _params(self, xllamacpp: Any, path: Path, n_threads: int) -> Any:
        p = xllamacpp.CommonParams()
        p.model.path = str(path)
        p.n_parallel = self.slots
        p.n_ctx = self.n_ctx * self.slots  # split evenly: every slot holds a full n_ctx
        p.kv_unified = False
        p.n_batch = p.n_ubatch = self.batch
        p.cpuparams.n_threads = p.cpuparams_batch.n_threads = n_threads
        p.n_threads_http = 1
        p.verbosity = -1  # failures come back as LlmError; the log would flood the terminal
        p.api_keys = [self._api_key]  # the HTTP listener answers 401 to others
        if self._store is not None:  # saved system-prompt states (prefix_state): the only use of the listener
            p.slot_save_path = f"{self._store.directory}{os.sep}"
            p.endpoint_slots = True
        p.offline = True
        p.fit_params = False  # keep n_ctx as asked instead of shrinking it to free memory
        p.cache_ram_mib = 0  # no extra prompt store in RAM: a slot's own KV (prompt_cache) is the cache
        p.cache_idle_slots = False
        p.endpoint_metrics = True  # busy_slots() reads the engine's metrics
        return p

    def _run(self, req: Request, on_token: Optional[TokenCallback]) -> str:
        server = self._server
        if server is None:
            raise LlmError(f"local LLM {self.model_id}: closed")
        request: dict[str, Any] = {
            "messages": req.messages, "max_tokens": req.max_tokens,
            "temperature": req.temperature, "seed": self.seed, "stream": True,
            "return_progress": True, "cache_prompt": self.prompt_cache}
        if req.json_schema:
            request["json_schema"] = req.json_schema  # held to it by the engine's grammar sampler
        t0 = time.perf_counter()
        self._stats.value = {}  # a call that fails before its prompt is read leaves no figures, never the last call's
        deadline = None if self.timeout is None else time.monotonic() + self.timeout
        try:
            slot = self._free.get(timeout=_left(deadline))
        except queue.Empty:
            raise LlmError(f"local LLM {self.model_id}: timed out after {self.timeout:g}s "
                           f"waiting for a free slot (all {self.slots} busy)") from None
        pieces: list[str] = []
        first: Optional[float] = None

        def on_text(text: str) -> None:
            nonlocal first
            if first is None:
                first = time.perf_counter() - t0
            pieces.append(text)
            if on_token is not None:  # its exceptions propagate untouched
                on_token(text)

        request["id_slot"] = slot
        digest = self._store.digest(req.system) if self._store else None
        try:
            self._prepare(server, slot, req, deadline, digest)
        except BaseException:
            self._free.put(slot)
            raise
        self._holds[slot] = None  # known again once this request has read its prompt
        run = _Run(req.cancel)
        try:
            t = self._exchange(server, request, req, deadline, on_text, pieces, release=slot, run=run)
        except BaseException:
            # stopped (the caller's on_token raised: a loop, a failed claim) or failed: what was measured
            # of this call, so a stopped answer still quotes its prompt tokens and prefill rate
            self._stats.value = _partial_stats(run.progress, first, len(pieces), time.perf_counter() - t0)
            raise
        self._holds[slot] = digest
        self._stats.value = {
            "prompt_tokens": int(t.get("cache_n", 0) + t.get("prompt_n", 0)) if t else None,
            "cached_tokens": int(t.get("cache_n", 0)) if t else None,
            "prompt_evaluated": int(t["prompt_n"]) if "prompt_n" in t else None,
            "prefill_tok_s": _rate(t.get("prompt_per_second")),
            "gen_tok_s": _rate(t.get("predicted_per_second")),
            "completion_tokens": int(t["predicted_n"]) if "predicted_n" in t else len(pieces),
            "first_token_s": first,
            "total_s": time.perf_counter() - t0,
        }
        return "".join(pieces)

    @property
    def last_stats(self) -> dict[str, Any]:
        return getattr(self._stats, "value", {})

    def _exchange(self, server: Any, request: dict, req: Request, deadline: Optional[float],
                  on_text: Callable[[str], None], pieces: list[str], release: Optional[int] = None,
                  run: Optional["_Run"] = None) -> dict[str, Any]:
        """Run one request in the engine on a worker thread, passing its text to ``on_text`` on this
        thread; stop it on cancel, timeout or any exception. Returns the engine's timings. Slot
        ``release`` is freed when the engine is done with the request, not before (a stopped request
        leaves its slot at the engine's next event)."""
        run = run or _Run(req.cancel)
        run.release = release
        worker = run.worker = threading.Thread(target=self._generate, args=(server, request, run),
                                               name="examrag-llm", daemon=True)
        with self._runs_lock:
            self._runs.add(run)
        try:
            worker.start()
        except BaseException:
            with self._runs_lock:
                self._runs.discard(run)
            if release is not None:
                self._free.put(release)
            raise
        try:
            while True:
                kind, value = run.next(deadline)
                if req.cancelled():  # seen at the next prompt-progress event or token
                    raise Cancelled(f"local LLM {self.model_id}: cancelled ({len(pieces)} tokens generated)")
                if kind == _TEXT:
                    on_text(value)
                elif kind == _ERROR:
                    raise LlmError(f"local LLM {self.model_id}: {value}")
                elif kind == _DONE:
                    break
                else:  # timed out
                    raise LlmError(f"local LLM {self.model_id}: timed out after {self.timeout:g}s "
                                   f"({len(pieces)} tokens generated)")
        except BaseException:
            run.stop.set()
            worker.join(CANCEL_WAIT_S)
            raise
        worker.join()
        return run.timings

    def _prepare(self, server: Any, slot: int, req: Request, deadline: Optional[float],
                 digest: Optional[str]) -> None:
        """Make ``slot``'s cache start with ``req.system`` (``digest`` names it; see prefix_state):
        nothing when it already does; else restore the saved state, computing and saving it first when
        this machine has none."""
        store, actions = self._store, self._slot_actions
        if store is None or actions is None or digest is None or not req.system:
            return
        if self._holds[slot] == digest:
            return
        saved = store.path(digest)
        if not saved.is_file():
            with self._prefix_lock:
                if not saved.is_file():
                    self._save_prefix(server, slot, req, deadline, digest)
        if saved.is_file() and actions.restore(slot, saved.name) > 0:
            self._holds[slot] = digest
            store.used(digest)
        elif saved.is_file():  # corrupt, truncated, or of another build: computed anew next time
            saved.unlink(missing_ok=True)

    def _save_prefix(self, server: Any, slot: int, req: Request, deadline: Optional[float], digest: str) -> None:
        """Read the system prompt alone into ``slot`` (one token generated) and save the slot's state
        under a temporary name, then rename it: the file never holds a question."""
        request = {"messages": [{"role": "system", "content": req.system}, {"role": "user", "content": ""}],
                   "max_tokens": 1, "temperature": 0.0, "seed": self.seed, "stream": True,
                   "return_progress": True, "cache_prompt": True, "id_slot": slot}
        self._exchange(server, request, req, deadline, lambda _text: None, [])
        store, temp = self._store, self._store.temp_name(digest)
        try:
            if self._slot_actions.save(slot, temp):
                os.replace(store.directory / temp, store.path(digest))
                self._holds[slot] = digest
                store.prune()
        except OSError:
            pass
        finally:
            (store.directory / temp).unlink(missing_ok=True)

    def _generate(self, server: Any, request: dict, run: "_Run") -> None:
        """Worker thread: run one request in the engine."""
        try:
            server.handle_chat_completions(request, run.on_event)
        except Exception as e:  # e.g. ValueError for a JSON schema the grammar cannot express
            run.put(_ERROR, f"request rejected: {one_line(str(e) or type(e).__name__, 200)}")
        finally:
            run.put(_DONE, "")
            with self._runs_lock:
                self._runs.discard(run)
            if run.release is not None:
                self._free.put(run.release)

    def busy_slots(self) -> int:
        """Requests the engine is processing now: its own count, so a cancelled request is seen
        to have left its slot."""
        return int(self.metric("requests_processing"))

    def metric(self, name: str) -> float:
        """One of the engine's Prometheus metrics (``llamacpp:<name>``), e.g.
        ``tokens_predicted_total``."""
        server = self._server
        if server is None:
            raise LlmError(f"local LLM {self.model_id}: closed")
        for line in server.handle_metrics().splitlines():
            if line.startswith(f"llamacpp:{name} "):
                return float(line.split()[1])
        raise LlmError(f"local LLM {self.model_id}: the engine has no metric {name!r}")

    def close(self, wait: float = EXIT_WAIT_S) -> None:
        """Stop running requests (their calls raise LlmError), wait up to ``wait`` seconds for
        them to leave the engine, and free the model.

        Also run at interpreter exit: an engine still computing while Python tears itself down
        crashed the process (segmentation fault after Ctrl-C during a prompt)."""
        with self._runs_lock:
            runs = list(self._runs)
        for run in runs:
            run.put(_ERROR, "closed while generating")
            run.stop.set()
        end = time.monotonic() + wait
        for run in runs:
            if run.worker is not None:
                run.worker.join(max(0.0, end - time.monotonic()))
        self._server = None  # the engine stops and frees the model once no request holds it


class _Run:
    """One request: the engine's callback (worker thread) feeds a queue that complete() reads."""

    def __init__(self, cancel: Optional[threading.Event] = None) -> None:
        self.stop = threading.Event()
        self.cancel = cancel
        self.timings: dict[str, Any] = {}
        self.progress: dict[str, Any] = {}  # the last prompt-progress event: total, cache, processed, time_ms
        self.worker: Optional[threading.Thread] = None
        self.release: Optional[int] = None  # the slot id freed when the engine is done with it
        self._q: queue.SimpleQueue = queue.SimpleQueue()

    def put(self, kind: str, value: str) -> None:
        self._q.put((kind, value))

    def next(self, deadline: Optional[float]) -> tuple[str, str]:
        """The next (kind, value); ("timeout", "") once ``deadline`` has passed."""
        left = _left(deadline)
        if left == 0:
            return "timeout", ""
        try:
            return self._q.get(timeout=left)
        except queue.Empty:
            return "timeout", ""

    def on_event(self, event: dict) -> bool:
        """Called by xllamacpp for each stream event; returning True cancels the request.
        It must not raise: xllamacpp would swallow the exception and just stop."""
        try:
            if event.get("error"):
                self.put(_ERROR, _error_text(event["error"]))
                return True
            choices = event.get("choices") or []
            delta = choices[0].get("delta") if choices else None
            text = delta.get("content") if isinstance(delta, dict) else None
            if text:
                self.put(_TEXT, text)
            if event.get("timings"):
                self.timings = event["timings"]
            if isinstance(event.get("prompt_progress"), dict):
                self.progress = event["prompt_progress"]
        except Exception as e:  # noqa: BLE001 - an event of an unexpected shape
            self.put(_ERROR, f"unexpected stream event: {one_line(e, 120)}")
            return True
        return self.stop.is_set() or (self.cancel is not None and self.cancel.is_set())


def _partial_stats(progress: dict[str, Any], first: Optional[float], pieces: int, total: float) -> dict[str, Any]:
    """The figures of a call stopped before the engine's final timings: the prompt from its last
    progress event (``processed`` counts the reused cache too), the pieces seen, no generation rate."""
    try:
        prompt, cache = int(progress["total"]), int(progress["cache"])
        read, ms = int(progress["processed"]) - cache, float(progress["time_ms"])
    except (KeyError, TypeError, ValueError):
        return {"first_token_s": first, "completion_tokens": pieces, "total_s": total, "stopped": True}
    return {"prompt_tokens": prompt, "cached_tokens": cache, "prompt_evaluated": read,
            "prefill_tok_s": _rate(read / ms * 1000) if ms > 0 and read > 0 else None,
            "gen_tok_s": None, "completion_tokens": pieces, "first_token_s": first, "total_s": total,
            "stopped": True}


_LIVE: "weakref.WeakSet[LocalGguf]" = weakref.WeakSet()


def _close_at_exit(llm: LocalGguf) -> None:
    if not _LIVE and not getattr(_close_at_exit, "registered", False):
        atexit.register(_close_all)
        _close_at_exit.registered = True  # type: ignore[attr-defined]
    _LIVE.add(llm)


def _close_all() -> None:
    for llm in list(_LIVE):
        llm.close()


def _prefix_store(state_dir: Optional[Path], model: Path, xllamacpp: Any, n_ctx: int) -> Optional[PrefixStore]:
    """Where saved system-prompt states go (None: not kept; a folder that cannot be made is no error)."""
    if state_dir is None:
        return None
    try:
        Path(state_dir).mkdir(parents=True, exist_ok=True)
        return PrefixStore(Path(state_dir), model, getattr(xllamacpp, "__version__", "?"), n_ctx)
    except OSError:
        return None


def _rate(value: Any) -> Optional[float]:
    """A tokens-per-second figure of the engine's timings, rounded (None when it gave none)."""
    try:
        return round(float(value), 1) if value is not None and float(value) > 0 else None
    except (TypeError, ValueError):
        return None


def _error_text(err: Any) -> str:
    if not isinstance(err, dict):
        return one_line(err, 200)
    if err.get("type") == "exceed_context_size_error" and "n_prompt_tokens" in err:
        return (f"prompt of {err['n_prompt_tokens']} tokens exceeds the context window of "
                f"{err.get('n_ctx', '?')} tokens")
    return one_line(err.get("message") or err, 200)


def _left(deadline: Optional[float]) -> Optional[float]:
    return None if deadline is None else max(0.0, deadline - time.monotonic())
