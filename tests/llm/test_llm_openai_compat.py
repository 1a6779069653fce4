"""OpenAICompat against a tiny local http.server (offline)."""

from __future__ import annotations

import json
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from pipeline.llm import LlmError, make_llm
from pipeline.llm.openai_compat import OpenAICompat


def _reply(text: str) -> dict:
    return {"id": "x", "object": "chat.completion",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                         "finish_reason": "stop"}]}


def _chunk(text: str) -> dict:
    return {"id": "x", "object": "chat.completion.chunk",
            "choices": [{"index": 0, "delta": {"content": text}, "finish_reason": None}]}


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):  # keep pytest output clean
        pass

    def do_POST(self):
        srv = self.server
        n = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(n)
        srv.requests.append({"path": self.path, "headers": dict(self.headers),
                             "body": json.loads(body)})
        kind, arg = srv.script.pop(0) if srv.script else ("json", _reply("默认"))
        if kind == "sleep":
            time.sleep(arg)
            kind, arg = "json", _reply("too late")
        if kind == "status":  # (code, body bytes)
            code, raw = arg
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(raw)))
            self.end_headers()
            self.wfile.write(raw)
        elif kind == "json":
            raw = arg if isinstance(arg, bytes) else json.dumps(arg, ensure_ascii=False).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(raw)))
            self.end_headers()
            self.wfile.write(raw)
        elif kind == "sse":  # list of payload strings (already JSON or "[DONE]")
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(b": keep-alive comment\n\n")
            for payload in arg:
                self.wfile.write(f"data: {payload}\n\n".encode())
                self.wfile.flush()
            self.close_connection = True


@pytest.fixture
def server():
    srv = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    srv.daemon_threads = True
    srv.handle_error = lambda request, client_address: None  # client gone (timeout test)
    srv.script = []
    srv.requests = []
    t = threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    t.start()
    srv.base_url = f"http://127.0.0.1:{srv.server_address[1]}/v1"
    yield srv
    srv.shutdown()
    srv.server_close()


def _client(srv, **kw) -> OpenAICompat:
    kw.setdefault("backoff", 0.01)
    return OpenAICompat(srv.base_url, "qwen2.5:7b", **kw)


def test_non_streaming(server):
    server.script = [("json", _reply("页表把页号映射到物理块号。[1]"))]
    llm = _client(server, api_key="sk-test")
    out = llm.complete("系统提示", "什么是页表？", max_tokens=64, temperature=0.0)
    assert out == "页表把页号映射到物理块号。[1]"
    assert llm.backend == "openai" and llm.model_id == "qwen2.5:7b"
    req = server.requests[0]
    assert req["path"] == "/v1/chat/completions"
    assert req["headers"]["Authorization"] == "Bearer sk-test"
    body = req["body"]
    assert body["model"] == "qwen2.5:7b"
    assert body["messages"] == [{"role": "system", "content": "系统提示"},
                                {"role": "user", "content": "什么是页表？"}]
    assert body["max_tokens"] == 64 and body["temperature"] == 0.0
    assert "stream" not in body and "response_format" not in body


def test_json_schema_is_sent_as_response_format(server):
    schema = {"type": "object", "properties": {"sections": {"type": "array"}}, "required": ["sections"]}
    server.script = [("json", _reply('{"sections": []}'))]
    assert _client(server).complete("s", "u", json_schema=schema) == '{"sections": []}'
    fmt = server.requests[0]["body"]["response_format"]
    assert fmt == {"type": "json_schema", "json_schema": {"name": "answer", "schema": schema}}


def test_streaming_sse(server):
    events = [json.dumps(_chunk(t), ensure_ascii=False) for t in ["快表", "是", "高速缓存", "。"]]
    events.insert(0, json.dumps({"choices": [{"index": 0, "delta": {"role": "assistant"}}]}))
    events.append(json.dumps({"choices": [], "usage": {"completion_tokens": 4}}))
    events.append("[DONE]")
    server.script = [("sse", events)]
    got: list[str] = []
    out = _client(server).complete("", "快表是什么？", on_token=got.append)
    assert got == ["快表", "是", "高速缓存", "。"]
    assert out == "快表是高速缓存。"
    body = server.requests[0]["body"]
    assert body["stream"] is True
    assert body["messages"] == [{"role": "user", "content": "快表是什么？"}]  # no empty system
    assert "Authorization" not in server.requests[0]["headers"]


def test_callback_errors_propagate_untouched(server):
    server.script = [("sse", [json.dumps(_chunk("a")), json.dumps(_chunk("b")), "[DONE]"])]

    def broken(_text):
        raise BrokenPipeError("stdout closed")  # an OSError, but not the endpoint's fault

    with pytest.raises(BrokenPipeError):
        _client(server).complete("s", "u", on_token=broken)
    assert len(server.requests) == 1


def test_stream_requested_but_server_answers_json(server):
    server.script = [("json", _reply("整段回答"))]
    got: list[str] = []
    assert _client(server).complete("s", "u", on_token=got.append) == "整段回答"
    assert got == ["整段回答"]


def test_retry_after_500_then_success(server):
    server.script = [("status", (500, b'{"error": {"message": "overloaded"}}')),
                     ("status", (503, b"busy")),
                     ("json", _reply("ok"))]
    assert _client(server, retries=2).complete("s", "u") == "ok"
    assert len(server.requests) == 3


def test_500_exhausts_retries(server):
    server.script = [("status", (500, b'{"error": {"message": "model crashed"}}'))] * 2
    with pytest.raises(LlmError) as ei:
        _client(server, retries=1).complete("s", "u")
    msg = str(ei.value)
    assert msg == (f"LLM endpoint {server.base_url} returned HTTP 500: model crashed "
                   f"(after 2 attempts)")
    assert len(server.requests) == 2


def test_404_is_not_retried(server):
    server.script = [("status", (404, b'{"error": {"message": "model \\"x\\" not found"}}'))]
    with pytest.raises(LlmError, match=r'returned HTTP 404: model "x" not found$'):
        _client(server, retries=2).complete("s", "u")
    assert len(server.requests) == 1


def test_connection_refused():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()  # nothing listens there now
    base = f"http://127.0.0.1:{port}/v1"
    llm = OpenAICompat(base, "m", retries=1, backoff=0.01)
    with pytest.raises(LlmError) as ei:
        llm.complete("s", "u")
    assert str(ei.value) == f"LLM endpoint {base} unreachable: connection refused (after 2 attempts)"
    assert "\n" not in str(ei.value)


def test_timeout(server):
    server.script = [("sleep", 2.0)]
    llm = _client(server, timeout=0.3, retries=0)
    t0 = time.perf_counter()
    with pytest.raises(LlmError) as ei:
        llm.complete("s", "u")
    assert time.perf_counter() - t0 < 1.5
    assert str(ei.value) == f"LLM endpoint {server.base_url} timed out after 0.3s"


def test_malformed_json(server):
    server.script = [("json", b"<html>not json</html>")]
    with pytest.raises(LlmError) as ei:
        _client(server).complete("s", "u")
    assert str(ei.value).startswith(f"LLM endpoint {server.base_url} returned malformed JSON")
    assert len(server.requests) == 1  # not retried


def test_no_choices(server):
    server.script = [("json", {"choices": []})]
    with pytest.raises(LlmError, match="returned no choices"):
        _client(server).complete("s", "u")


def test_malformed_stream_event(server):
    server.script = [("sse", [json.dumps(_chunk("a")), "{broken"])]
    got: list[str] = []
    with pytest.raises(LlmError, match="malformed stream event"):
        _client(server).complete("s", "u", on_token=got.append)
    assert got == ["a"]


def test_error_event_in_stream(server):
    server.script = [("sse", [json.dumps({"error": {"message": "context too long"}})])]
    with pytest.raises(LlmError, match="returned an error: context too long$"):
        _client(server).complete("s", "u", on_token=lambda t: None)


def test_base_url_forms(server):
    server.script = [("json", _reply("a")), ("json", _reply("b"))]
    assert OpenAICompat(server.base_url + "/", "m").complete("s", "u") == "a"
    assert OpenAICompat(server.base_url + "/chat/completions", "m").complete("s", "u") == "b"
    assert [r["path"] for r in server.requests] == ["/v1/chat/completions"] * 2
    with pytest.raises(LlmError, match="not an http"):
        OpenAICompat("127.0.0.1:11434", "m")


def test_loopback_ignores_proxy_env(server, monkeypatch):
    monkeypatch.setenv("http_proxy", "http://127.0.0.1:9")  # would refuse
    monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:9")
    monkeypatch.delenv("no_proxy", raising=False)
    monkeypatch.delenv("NO_PROXY", raising=False)
    server.script = [("json", _reply("direct"))]
    assert _client(server, retries=0).complete("s", "u") == "direct"


def test_make_llm_openai(server):
    server.script = [("json", _reply("hi"))]
    llm = make_llm("openai", base_url=server.base_url, model="m", timeout=5)
    assert llm.complete("s", "u") == "hi"
    with pytest.raises(LlmError, match="needs a base URL"):
        make_llm("openai", model="m")
    with pytest.raises(LlmError, match="needs a model name"):
        make_llm("openai", base_url=server.base_url)
