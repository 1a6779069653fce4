"""The API's contract: the OpenAPI document is true to every response.

In process: the document declares the error body, the statuses and (on a token server) the bearer
scheme. Against a real `cli.py serve` on the ingested sample (a token set, the LLM a fake
OpenAI-compatible endpoint, so answers are generated): schemathesis with every check, a fixed budget
and seed (``SCHEMATHESIS``), must find no failure; and the shipped server closes a silent or slow
connection after its default 10 s header timeout.
"""

from __future__ import annotations

import json
import select
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient

from serve_helpers import FakeEndpoint, ServeProcess, make_app

# examples per operation (every phase: examples, coverage, fuzzing, stateful) and the seed. The response
# time check ("all" turns it on, 10 s by default) only catches a runaway: speed is for the benchmarks, and
# a first vector query loads the embedder on a machine that may be busy with other work.
SCHEMATHESIS = {"max_examples": 100, "seed": 408, "max_response_s": 120}
TOKEN = "contract-s3cret"
API_METHODS = {"get", "post", "put", "delete", "patch"}


def _operations(doc: dict):
    for path, ops in doc["paths"].items():
        for method, op in ops.items():
            if method in API_METHODS and path.startswith("/api/"):
                yield path, method, op


def test_the_document_declares_the_error_body_every_status_and_the_bearer_scheme(sample_data):
    app, _ = make_app(sample_data)
    with TestClient(app, base_url="http://127.0.0.1") as c:
        plain = c.get("/openapi.json").json()
    assert "HTTPValidationError" not in str(plain) and "ValidationError" not in plain["components"]["schemas"]
    error = plain["components"]["schemas"]["ErrorBody"]
    assert set(error["required"]) == {"error", "detail"}
    for path, method, op in _operations(plain):
        responses = op["responses"]
        assert "400" in responses, (path, method)  # the Host check answers any route
        for code, response in responses.items():
            if code != "200":
                assert response["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/ErrorBody"}
        if op.get("parameters") or op.get("requestBody"):
            assert "422" in responses, (path, method)
        assert "security" not in op and "401" not in responses  # no token, no 401
    ask = plain["paths"]["/api/ask"]["post"]["responses"]
    assert {"404", "413", "422", "503"} <= set(ask) and "text/event-stream" in ask["200"]["content"]
    assert {"404", "503"} <= set(plain["paths"]["/api/search"]["get"]["responses"])
    assert "image/png" in plain["paths"]["/api/source/{doc_id}/page/{n}.png"]["get"]["responses"]["200"]["content"]

    app, _ = make_app(sample_data, api_token=TOKEN)
    with TestClient(app, base_url="http://127.0.0.1") as c:
        guarded = c.get("/openapi.json").json()
        assert c.get("/docs").status_code == 200  # the docs page itself needs no token
    assert guarded["components"]["securitySchemes"]["bearer"] == {
        "type": "http", "scheme": "bearer", "description": "The server's EXAMRAG_API_TOKEN."}
    for path, method, op in _operations(guarded):
        assert op["security"] == [{"bearer": []}] and "401" in op["responses"], (path, method)


@pytest.fixture(scope="module")
def live_serve(sample_data, tmp_path_factory):
    """`cli.py serve` on the sample with a token and the fake endpoint as its LLM."""
    logs = tmp_path_factory.mktemp("contract")
    with FakeEndpoint(delay=0.0, piece=8) as endpoint:
        env = {"EXAMRAG_LLM_BACKEND": "openai", "EXAMRAG_LLM_BASE_URL": endpoint.base_url, "EXAMRAG_LLM_MODEL": "fake-408",
               "EXAMRAG_STUDY_DB": str(logs / "study.sqlite")}
        with ServeProcess(sample_data, logs / "serve.log", env=env, token=TOKEN) as server:
            yield server, logs


def _schemathesis_config(server: ServeProcess, path: Path) -> Path:
    """Real ids from the sample for the operations that need one, so the run reaches their logic."""
    hits = httpx.get(server.url + "/api/search", params={"q": "折半查找的时间复杂度", "k": 5}, headers=server.headers,
                     timeout=30).json()["hits"]
    pdf = next(h for h in hits if h["source"].endswith(".pdf"))
    path.write_text(f'''
[[operations]]
include-path-regex = "^/api/source/"
parameters = {{ doc_id = "{pdf['doc_id']}" }}
''', "utf-8")
    return path


@pytest.mark.timeout(1500)
def test_schemathesis_finds_no_failure_against_a_live_serve(live_serve):
    server, logs = live_serve
    config = _schemathesis_config(server, logs / "schemathesis.toml")
    cmd = [str(Path(sys.executable).parent / "schemathesis"), "--config-file", str(config), "run",
           server.url + "/openapi.json", "--checks", "all", "--workers", "1",
           "--max-examples", str(SCHEMATHESIS["max_examples"]), "--seed", str(SCHEMATHESIS["seed"]),
           "--request-timeout", "120", "--max-response-time", str(SCHEMATHESIS["max_response_s"]),
           "-H", f"Authorization: Bearer {TOKEN}",
           "--report", "junit", "--report-dir", str(logs)]
    run = subprocess.run(cmd, cwd=logs, capture_output=True, text=True, timeout=1400,
                         env={"PATH": str(Path(sys.executable).parent), "HOME": str(logs), "NO_COLOR": "1"})
    out = run.stdout + run.stderr
    assert run.returncode == 0 and "Failures:" not in out, out[-6000:]
    assert "generated" in out and "Seed: 408" in out, out[-3000:]
    assert server.proc.poll() is None, "the server died under the run"


# a choice answered without a letter, a self-graded item without a rating: schema-valid, refused by the service (400)
STUDENT_CONFIG = '''
[[operations]]
include-path-regex = "^/api/(attempts|review)$"
include-method = "POST"
checks.positive_data_acceptance.expected-statuses = ["2xx", "400", "404"]
'''


@pytest.mark.timeout(900)
def test_schemathesis_as_a_student_finds_no_failure_on_the_study_routes(live_serve, sample_data, cli):
    """The study routes as a student sees them (the admin token above gets 403 there): real practice sets,
    attempts, 错题本, review and progress, every response checked against the document."""
    server, logs = live_serve
    made = cli("users", "add", "contract-student", "--json", data_dir=sample_data, timeout=120,
               env={"EXAMRAG_STUDY_DB": str(logs / "study.sqlite")})
    assert made.returncode == 0, made.stdout + made.stderr
    token = json.loads(made.stdout)["token"]
    config = logs / "schemathesis-student.toml"
    config.write_text(STUDENT_CONFIG, "utf-8")
    cmd = [str(Path(sys.executable).parent / "schemathesis"), "--config-file", str(config), "run",
           server.url + "/openapi.json", "--checks", "all", "--workers", "1",
           "--include-path-regex", "^/api/(me|practice|attempts|mistakes|review|progress|class)",
           "--max-examples", str(SCHEMATHESIS["max_examples"]), "--seed", str(SCHEMATHESIS["seed"]),
           "--request-timeout", "120", "--max-response-time", str(SCHEMATHESIS["max_response_s"]),
           "-H", f"Authorization: Bearer {token}", "--report", "junit", "--report-dir", str(logs)]
    run = subprocess.run(cmd, cwd=logs, capture_output=True, text=True, timeout=800,
                         env={"PATH": str(Path(sys.executable).parent), "HOME": str(logs), "NO_COLOR": "1"})
    out = run.stdout + run.stderr
    assert run.returncode == 0 and "Failures:" not in out, out[-6000:]
    assert "generated" in out and "Seed: 408" in out, out[-3000:]


@pytest.mark.timeout(120)
def test_the_shipped_server_closes_a_silent_or_slow_connection_after_10_s(live_serve):
    """The default EXAMRAG_SERVE_HEADER_TIMEOUT (10 s) of `cli.py serve` itself: a connection that
    sends nothing, and one that sends its head one byte a second, are both closed at ~10 s."""
    server, _ = live_serve
    head = b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer x\r\nUser-Agent: one-byte-a-second\r\n\r\n"
    silent = socket.create_connection(("127.0.0.1", server.port), timeout=5)
    slow = socket.create_connection(("127.0.0.1", server.port), timeout=5)
    t0, closed, sent, replies = time.monotonic(), {}, 0, {silent: b"", slow: b""}
    try:
        while len(closed) < 2 and time.monotonic() - t0 < 30:
            if slow not in closed and sent < len(head) and time.monotonic() - t0 >= sent:
                try:
                    slow.sendall(head[sent:sent + 1])
                    sent += 1
                except (BrokenPipeError, ConnectionResetError):
                    closed[slow] = time.monotonic() - t0
            ready, _, _ = select.select([s for s in (silent, slow) if s not in closed], [], [], 0.2)
            for s in ready:
                try:
                    part = s.recv(4096)
                except ConnectionResetError:
                    part = b""
                replies[s] += part
                if not part:
                    closed[s] = time.monotonic() - t0
    finally:
        silent.close()
        slow.close()
    assert set(closed) == {silent, slow}, f"still open after 30 s: {closed}"
    assert 9.0 <= closed[silent] <= 13.0 and replies[silent] == b""
    assert 9.0 <= closed[slow] <= 13.0 and replies[slow].startswith(b"HTTP/1.1 408") and sent < len(head)
    assert server.up()  # and everyone else is served as ever
