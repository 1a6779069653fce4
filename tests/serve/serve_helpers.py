"""Helpers for the serve tests and bench/bench_serve.py: an OpenAI-compatible fake LLM endpoint on
127.0.0.1, a gated in-process LLM, a uvicorn server in a thread, and an SSE reader."""

from __future__ import annotations

import json
import re
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Iterator, Optional

from pipeline.llm.base import Cancelled, Llm, Request

CITATION = re.compile(r"\[来源: [^\]]+\]")


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

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
        self.srv.shutdown()
        self.srv.server_close()


def copied_reply(user_prompt: str) -> str:
    """An answer that copies the first whole sentence of passage [1] and cites it, as the prompt asks:
    a sentence the claim check must accept."""
    m = re.search(r"^\[1\][^\n]*?([^。；\n]{8,}[。；])", user_prompt, re.M)
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
    """uvicorn serving ``app`` on 127.0.0.1 in a thread: real sockets, so streams and disconnects are real."""

    def __init__(self, app):
        import uvicorn

        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.server = uvicorn.Server(uvicorn.Config(app, log_level="warning", timeout_graceful_shutdown=1))
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.sock]}, daemon=True)

    def __enter__(self):
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started:
            assert time.monotonic() < deadline, "server did not start"
            time.sleep(0.05)
        return self

    def __exit__(self, *exc):
        self.server.should_exit = True
        self.thread.join(10)
        self.sock.close()


def sse_events(lines: Iterator[str]) -> Iterator[tuple[str, Optional[dict]]]:
    """(event, data) from an iterator of SSE text lines; comments are skipped."""
    event, data = "message", ""
    for line in lines:
        if line == "":
            if data:
                yield event, json.loads(data)
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
