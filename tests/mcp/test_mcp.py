"""`cli.py mcp` as a desktop assistant runs it: a subprocess driven by the official SDK's client, over
stdio and over streamable HTTP, on the ingested sample. Every tool's result is checked against the
CLI's own ``--json`` output for the same question, and its errors against the CLI's one-line causes.
Every wait is bounded: the client's read timeout, anyio.fail_after around each session, and
subprocess timeouts."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

import anyio
import httpx
import pytest

ROOT = Path(__file__).resolve().parents[2]
TOOLS = {"search", "ask", "lookup_question", "practice_questions", "status", "syllabus_map"}
QUESTION = "折半查找的时间复杂度"
SESSION_LIMIT = 180  # seconds for one client session, start-up (index, embedder) included


def server_env(data: Path, **extra: str) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("EXAMRAG_") or k == "EXAMRAG_MODELS_DIR"}
    env.update(EXAMRAG_DATA_DIR=str(data), EXAMRAG_LLM_BACKEND="none", **extra)
    return env


def cli_json(cli, *args, data: Path, code: int = 0):
    r = cli(*args, data_dir=data, env={"EXAMRAG_LLM_BACKEND": "none"}, timeout=300)
    assert r.returncode == code, r.stdout + r.stderr
    return json.loads(r.stdout)


def cli_error(cli, *args, data: Path) -> str:
    r = cli(*args, data_dir=data, env={"EXAMRAG_LLM_BACKEND": "none"}, timeout=300)
    assert r.returncode == 1 and r.stderr.startswith("Error: "), r.stdout + r.stderr
    return r.stderr.strip().removeprefix("Error: ")


def same_as_cli(got: dict, expected: dict) -> None:
    """The tool's object is the CLI's, plus the optional keys its schema always carries (null here); an
    answer's timings are seconds of another run, so only their keys are compared."""
    if "timings" in expected:
        got, expected = dict(got), dict(expected)
        assert set(got.pop("timings")) == set(expected.pop("timings"))
    assert {k: v for k, v in got.items() if k in expected} == expected
    assert all(got[k] is None for k in set(got) - set(expected)), set(got) - set(expected)


def error_text(result) -> str:
    assert result.is_error, result
    return " ".join(c.text for c in result.content)


def stdio_params(data: Path):
    from mcp.client.stdio import StdioServerParameters

    return StdioServerParameters(command=sys.executable, args=[str(ROOT / "cli.py"), "mcp"], env=server_env(data),
                                 cwd=str(ROOT))


def in_session(server, body, limit: float = SESSION_LIMIT):
    """Run ``await body(client)`` in one client session, all within ``limit`` seconds."""
    from mcp import Client

    async def main():
        with anyio.fail_after(limit):
            async with Client(server, read_timeout_seconds=120) as client:
                return await body(client)

    return anyio.run(main)


@pytest.mark.timeout(600)
def test_stdio_tools_give_the_cli_json(cli, sample_data):
    search_cli = cli_json(cli, "ask", "--json", "--no-llm", "--chapter", "查找", QUESTION, data=sample_data)
    ask_cli = cli_json(cli, "ask", "--json", QUESTION, data=sample_data, code=1)  # exit 1: no LLM (backend none)
    record_cli = cli_json(cli, "ask", "--json", "--no-llm", "2024年第2题", data=sample_data)["record"]
    status_cli = cli_json(cli, "status", "--json", data=sample_data)
    questions_cli = cli_json(cli, "questions", "--json", data=sample_data)
    map_cli = cli_json(cli, "map", "--json", data=sample_data)
    chapter_error = cli_error(cli, "ask", "--no-llm", "--chapter", "不存在的章节", QUESTION, data=sample_data)

    async def body(c):
        tools = {t.name: t for t in (await c.list_tools()).tools}
        search = await c.call_tool("search", {"query": QUESTION, "chapter": "查找"})
        ask = await c.call_tool("ask", {"question": QUESTION})
        record = await c.call_tool("lookup_question", {"year": 2024, "number": 2})
        practice = await c.call_tool("practice_questions", {"year": 2024})
        status = await c.call_tool("status", {})
        syllabus = await c.call_tool("syllabus_map", {})
        bad_chapter = await c.call_tool("ask", {"question": QUESTION, "chapter": "不存在的章节"})
        no_question = await c.call_tool("lookup_question", {"year": 2024, "number": 99})
        bad_args = await c.call_tool("search", {"query": "", "k": 0})
        hit = search.structured_content["hits"][0]
        passage = await c.read_resource(f"examrag://chunk/{hit['chunk_id']}")
        templates = await c.list_resource_templates()
        return locals()

    r = in_session(stdio_params(sample_data), body)
    tools = r["tools"]
    assert set(tools) == TOOLS
    for t in tools.values():
        assert t.output_schema and t.input_schema["type"] == "object" and len(t.description) > 80, t.name
        assert t.annotations.read_only_hint is True
    assert tools["search"].input_schema["required"] == ["query"]
    assert tools["lookup_question"].input_schema["required"] == ["year", "number"]
    assert "citation" in tools["ask"].description and "在现有资料中没有找到相关内容" in tools["ask"].description

    same_as_cli(r["search"].structured_content, search_cli)
    assert search_cli["hits"] and all(h["citation"].startswith("[来源: ") and "boxes" in h for h in search_cli["hits"])
    same_as_cli(r["ask"].structured_content, ask_cli)
    assert "EXAMRAG_LLM_BACKEND=none" in ask_cli["note"]
    got = r["record"].structured_content
    assert (got["year"], got["number"], got["chunk_id"]) == (2024, 2, record_cli["chunk_id"])
    assert (got["answer"], got["analysis"], got["answer_citation"]) == (record_cli["answer"], record_cli["analysis"],
                                                                        record_cli["citation"])
    assert {p["role"] for p in got["parts"]} == {"stem", "solution"}
    assert r["practice"].structured_content["result"] == [q for q in questions_cli if q["year"] == 2024]
    assert r["status"].structured_content == status_cli
    assert r["syllabus"].structured_content == map_cli and map_cli["nodes"]

    assert chapter_error in error_text(r["bad_chapter"])
    assert "no question 2024年第99题" in error_text(r["no_question"])
    assert re.search(r"query|k", error_text(r["bad_args"]))

    body = json.loads(r["passage"].contents[0].text)
    hit = r["hit"]
    assert body == {k: v for k, v in hit.items() if k not in ("rank", "score")}
    assert [t.uri_template for t in r["templates"].resource_templates] == ["examrag://chunk/{chunk_id}"]


@pytest.mark.timeout(300)
def test_stdio_without_an_index_says_what_the_cli_says(cli, tmp_path):
    empty = tmp_path / "empty"
    cause = cli_error(cli, "ask", "--no-llm", QUESTION, data=empty)

    async def body(c):
        result = await c.call_tool("search", {"query": QUESTION})
        try:
            await c.read_resource("examrag://chunk/0123")
        except Exception as exc:  # noqa: BLE001 - an MCP error: the message is what counts
            return result, str(exc)
        return result, None

    result, resource_error = in_session(stdio_params(empty), body)
    assert cause in error_text(result)
    assert resource_error is not None and "no index" in resource_error


class HttpServer:
    """``cli.py mcp --http --port 0`` in a subprocess; stderr is drained by a thread (never a blocking
    read in the test), and the URL is taken from its start-up line."""

    def __init__(self, data: Path, *args: str, **env: str):
        self.proc = subprocess.Popen([sys.executable, str(ROOT / "cli.py"), "mcp", "--http", "--port", "0", *args],
                                     cwd=ROOT, env=server_env(data, **env), stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        self.lines: list[str] = []
        threading.Thread(target=self._drain, daemon=True).start()

    def _drain(self):
        for line in self.proc.stderr:
            self.lines.append(line)

    def url(self, limit: float = 120) -> str:
        deadline = time.monotonic() + limit
        while time.monotonic() < deadline:
            for line in self.lines:
                m = re.search(r"http://\S+/api/mcp", line)
                if m:
                    return m.group(0)
            if self.proc.poll() is not None:
                break
            time.sleep(0.1)
        raise AssertionError("no URL line from `cli.py mcp --http`: " + "".join(self.lines))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.proc.terminate()
        try:
            self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=15)


INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
ACCEPT = {"Accept": "application/json, text/event-stream"}


def http_client(url: str, token: str | None = None):
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    headers = {"Authorization": f"Bearer {token}"} if token else None
    return streamable_http_client(url, http_client=create_mcp_http_client(headers=headers))


@pytest.mark.timeout(600)
def test_http_with_a_token_refuses_requests_without_it(cli, sample_data):
    status_cli = cli_json(cli, "status", "--json", data=sample_data)
    search_cli = cli_json(cli, "ask", "--json", "--no-llm", QUESTION, data=sample_data)
    with HttpServer(sample_data, EXAMRAG_API_TOKEN="t0ken-for-tests") as server:
        url = server.url()
        missing = httpx.post(url, json=INIT, headers=ACCEPT, timeout=30)
        wrong = httpx.post(url, json=INIT, headers={**ACCEPT, "Authorization": "Bearer nope"}, timeout=30)

        async def body(c):
            return ({t.name for t in (await c.list_tools()).tools}, await c.call_tool("status", {}),
                    await c.call_tool("search", {"query": QUESTION}))

        names, status, search = in_session(http_client(url, "t0ken-for-tests"), body)
    for r in (missing, wrong):
        assert r.status_code == 401 and r.headers["www-authenticate"] == "Bearer"
        assert r.json()["error"] == "unauthorized"
    assert names == TOOLS
    assert status.structured_content == status_cli
    same_as_cli(search.structured_content, search_cli)


@pytest.mark.timeout(600)
def test_http_without_a_token_serves_loopback_only(cli, sample_data):
    status_cli = cli_json(cli, "status", "--json", data=sample_data)
    with HttpServer(sample_data) as server:
        url = server.url()
        port = url.split(":")[2].split("/")[0]
        foreign = httpx.post(url, json=INIT, headers={**ACCEPT, "Host": f"attacker.example:{port}"}, timeout=30)

        async def body(c):
            return await c.call_tool("status", {})

        status = in_session(http_client(url), body)
    assert foreign.status_code == 400 and foreign.json()["error"] == "bad_host"
    assert status.structured_content == status_cli
    refused = cli("mcp", "--http", "--host", "0.0.0.0", data_dir=sample_data, timeout=120)
    assert refused.returncode == 2 and "EXAMRAG_API_TOKEN" in refused.stderr
