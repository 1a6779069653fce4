"""Helpers for the serve tests and bench/bench_serve.py: an OpenAI-compatible fake LLM endpoint on
127.0.0.1, a gated in-process LLM, the app served by uvicorn in a thread or `cli.py serve` in a
process, and an SSE reader. Every wait here has a time limit."""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import threading
import time
from contextlib import contextmanager, suppress
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Iterator, Optional

import httpx

from pipeline.llm.base import Cancelled, Llm, Request

CITATION = re.compile(r"\[来源: [^\]]+\]")


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    timeout = 30  # every read of a request (socket timeout)

    def log_message(self, *args):
        pass

    def do_POST(self):
        srv = self.server
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
        user = body["messages"][-1]["content"]
        text = copied_reply(user)
        with srv.lock:
            srv.requests += 1
            srv.active += 1
        try:
            if not body.get("stream"):
                raw = json.dumps({"choices": [{"index": 0, "message": {"role": "assistant", "content": text}}]},
                                 ensure_ascii=False).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)
                return
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Connection", "close")
            self.end_headers()
            try:
                for i in range(0, len(text), srv.piece):
                    chunk = {"choices": [{"index": 0, "delta": {"content": text[i:i + srv.piece]}}]}
                    self.wfile.write(f"data: {json.dumps(chunk, ensure_ascii=False)}\n\n".encode())
                    self.wfile.flush()
                    time.sleep(srv.delay)
                self.wfile.write(b"data: [DONE]\n\n")
                self.wfile.flush()
                with srv.lock:
                    srv.completed += 1
            except (BrokenPipeError, ConnectionResetError):
                with srv.lock:
                    srv.aborted += 1
            self.close_connection = True
        finally:
            with srv.lock:
                srv.active -= 1


class FakeEndpoint:
    """``with FakeEndpoint(delay=0.03) as ep:`` → ``ep.base_url`` (…/v1). Streams ``piece`` characters
    every ``delay`` seconds; counts requests, completed and aborted streams."""

    def __init__(self, delay: float = 0.03, piece: int = 2):
        self.srv = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self.srv.daemon_threads = True
        self.srv.handle_error = lambda request, client_address: None
        self.srv.delay, self.srv.piece = delay, piece
        self.srv.lock = threading.Lock()
        self.srv.requests = self.srv.active = self.srv.completed = self.srv.aborted = 0
        self.base_url = f"http://127.0.0.1:{self.srv.server_address[1]}/v1"

    def __getattr__(self, name):
        return getattr(self.srv, name)

    def __enter__(self):
        threading.Thread(target=self.srv.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        return self

    def __exit__(self, *exc):
        stopper = threading.Thread(target=self.srv.shutdown, daemon=True)  # shutdown() itself never times out
        stopper.start()
        stopper.join(10)
        self.srv.server_close()


# a question the sample's answer needs the model for: a why-question no record, rule or contrast table answers
# (B树和B+树的区别 is answered by its contrast table alone, without the model)
GENERATED = "B+树为什么适合做数据库索引"


def copied_reply(user_prompt: str) -> str:
    """An answer that copies the first whole sentence of passage [1] and cites it, as the prompt asks:
    a sentence the claim check must accept. The block may open mid-sentence (a window around a key
    sentence: "[1] og2(n+1)⌉" then the next line), so the whole block is read, not its first line."""
    block = re.search(r"^\[1\] (.*?)(?:\n\n|\n</资料>|\Z)", user_prompt, re.M | re.S)
    m = re.search(r"([^。；\n]{8,}[。；])", block.group(1)) if block else None
    return f"{m.group(1)}[1]" if m else "在现有资料中没有找到相关内容"


class GatedLlm(Llm):
    """An in-process LLM whose generation waits on ``gate`` after its first token, so tests can hold a
    slot busy, queue behind it and disconnect mid-answer. Records what stopped a generation (the
    request's cancel event, as a real runtime checks it between steps)."""

    backend = "fake"
    model_id = "gated"

    def __init__(self, slots: int = 1):
        self.slots = slots
        self.gate = threading.Event()
        self.started = threading.Semaphore(0)
        self.stopped: list[str] = []  # why a generation stopped early
        self.finished = 0
        self.calls = 0
        self.replies: list[str] = []

    def _run(self, request: Request, on_token) -> str:
        self.calls += 1
        self.started.release()
        reply = copied_reply(request.user)
        try:
            for i, ch in enumerate(reply):
                if request.cancelled():
                    raise Cancelled("gated LLM: cancelled")
                if on_token is not None:
                    on_token(ch)
                if i == 0:
                    while not self.gate.wait(0.02):
                        if request.cancelled():
                            raise Cancelled("gated LLM: cancelled")
        except Exception as exc:
            self.stopped.append(type(exc).__name__)
            raise
        self.finished += 1
        self.replies.append(reply)
        return reply


class LiveServer:
    """``app`` served on 127.0.0.1 in a thread, with the configuration `cli.py serve` runs (guarded
    protocol, connection cap): real sockets, so streams and disconnects are real."""

    def __init__(self, app, settings=None):
        import uvicorn

        from pipeline.serve.run import uvicorn_config
        from pipeline.settings import Settings

        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        config = uvicorn_config(app, settings or Settings(), timeout_graceful_shutdown=1)
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.sock]}, daemon=True)

    def __enter__(self):
        self.thread.start()
        if not wait_until(lambda: self.server.started, timeout=30, step=0.05):
            raise AssertionError("server did not start")
        return self

    def __exit__(self, *exc):
        self.server.should_exit = True
        self.thread.join(10)
        self.sock.close()


class ServeProcess:
    """``cli.py serve`` in its own process on a free loopback port, up when /api/health answers;
    stopped (terminate, then kill) on exit. ``env`` adds EXAMRAG_* settings."""

    def __init__(self, data_dir: Path, log: Path, env: Optional[dict] = None, token: Optional[str] = None):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log_path, self.token = log, token
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("EXAMRAG_") or k == "EXAMRAG_MODELS_DIR"}
        self.env.update(EXAMRAG_DATA_DIR=str(data_dir), **(env or {}))
        if token:
            self.env["EXAMRAG_API_TOKEN"] = token
        self.proc: Optional[subprocess.Popen] = None

    @property
    def headers(self) -> dict:
        return {"Authorization": f"Bearer {self.token}".encode()} if self.token else {}

    def up(self) -> bool:
        try:
            return httpx.get(self.url + "/api/health", headers=self.headers, timeout=2).status_code == 200
        except httpx.HTTPError:
            return False

    def __enter__(self):
        root = Path(__file__).resolve().parents[2]
        self._log = open(self.log_path, "w")
        self.proc = subprocess.Popen([sys.executable, "cli.py", "serve", "--port", str(self.port)], cwd=root,
                                     env=self.env, stdout=self._log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        try:
            if not wait_until(lambda: self.up() or self.proc.poll() is not None, timeout=120, step=0.3) or not self.up():
                raise AssertionError(f"serve did not come up: {self.log_path.read_text(errors='replace')[-2000:]}")
        except BaseException:
            self.__exit__()  # never leave the process behind
            raise
        return self

    def __exit__(self, *exc):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            with suppress(subprocess.TimeoutExpired):
                self.proc.wait(15)
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)
        self._log.close()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class EventReader:
    """The SSE events of an open streaming response, each wait bounded: ``next({"answer"})`` gives the
    next event of those kinds or fails after ``timeout`` s (a single read is bounded by the client's
    read timeout). Holds the response's line iterator, so the stream stays open until the response
    is closed: an iterator dropped after one event closes the connection (httpcore closes it when
    the iterator is finalised), which a server rightly takes for a closed tab."""

    def __init__(self, response, timeout: float = 30.0):
        self.response, self.timeout = response, timeout
        self._lines = _sse_lines(response.iter_lines())

    def next(self, kinds, timeout: Optional[float] = None) -> tuple[str, Optional[dict]]:
        limit = timeout or self.timeout
        deadline = time.monotonic() + limit
        for kind, data in self._lines:  # every line, comments too, so a stream of keep-alives cannot hold us
            if kind in kinds:
                return kind, data
            if time.monotonic() > deadline:
                raise AssertionError(f"no {sorted(kinds)} event within {limit:g}s")
        raise AssertionError(f"stream ended before {sorted(kinds)}")


def make_app(data_dir: Path, llm=None, **overrides):
    """(app, settings) over ``data_dir`` with ``llm`` (default: none) and EXAMRAG_* ``overrides``."""
    from pipeline.ask.service import QueryService
    from pipeline.serve.app import create_app
    from pipeline.settings import load_settings

    settings = load_settings(data_dir=data_dir, llm_backend="none", **overrides)
    return create_app(settings, service=QueryService(settings, llm=llm)), settings


def events_of(response) -> list[tuple[str, dict]]:
    """The events of a response read whole (an in-process client's)."""
    return list(sse_events(iter(response.text.split("\n"))))


def sse_events(lines: Iterator[str]) -> Iterator[tuple[str, Optional[dict]]]:
    """(event, data) from an iterator of SSE text lines; comments are skipped."""
    return ((event, data) for event, data in _sse_lines(lines) if event is not None)


def _sse_lines(lines: Iterator[str]) -> Iterator[tuple[Optional[str], Optional[dict]]]:
    """One item per line read: (event, data) where a line ends an event, else (None, None)."""
    event, data = "message", ""
    for line in lines:
        if line == "" and data:
            yield event, json.loads(data)
        else:
            yield None, None
        if line == "":
            event, data = "message", ""
        elif line.startswith("event:"):
            event = line[6:].strip()
        elif line.startswith("data:"):
            data += line[5:].strip()


def wait_until(cond, timeout: float = 10.0, step: float = 0.02) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if cond():
            return True
        time.sleep(step)
    return cond()


# ---------------------------------------------------------------------------- the real browser
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--disable-dev-shm-usage", "--lang=zh-CN"]


def require_chromium() -> None:
    """At a browser test module's top: fail in CI when chromium is missing (.ci/run installs it), else skip."""
    import pytest

    if CHROMIUM and DRIVER:
        return
    if os.environ.get("CI"):
        pytest.fail("chromium / chromedriver missing: .ci/run installs them (apt-get install chromium chromium-driver)",
                    pytrace=False)
    pytest.skip("needs Debian's chromium and chromium-driver (apt-get install -y chromium chromium-driver)",
                allow_module_level=True)


@contextmanager
def serve_with_fake_endpoint(data_dir: Path, tmp_path: Path, *, delay: float, piece: int):
    """`cli.py serve` on a free loopback port with the fake OpenAI-compatible endpoint as its LLM (the study
    database apart); yields (server, endpoint)."""
    with FakeEndpoint(delay=delay, piece=piece) as endpoint:
        env = {"EXAMRAG_LLM_BACKEND": "openai", "EXAMRAG_LLM_BASE_URL": endpoint.base_url, "EXAMRAG_LLM_MODEL": "fake-408",
               "EXAMRAG_STUDY_DB": str(tmp_path / "study.sqlite")}
        with ServeProcess(data_dir, tmp_path / "serve.log", env=env) as served:
            yield served, endpoint


@contextmanager
def chromium_driver(profile_dir: Path, window: str = "1400,1000"):
    """Debian's headless chromium through its own chromedriver (explicit paths: selenium-manager never
    downloads anything), every page load bounded; quit on exit."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    os.environ.setdefault("SE_OFFLINE", "true")
    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for flag in CHROMIUM_FLAGS + [f"--window-size={window}", f"--user-data-dir={profile_dir}"]:
        opts.add_argument(flag)
    driver = webdriver.Chrome(options=opts, service=Service(executable_path=DRIVER))
    driver.set_page_load_timeout(60)
    try:
        yield driver
    finally:
        driver.quit()
