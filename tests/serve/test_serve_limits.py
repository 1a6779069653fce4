"""`serve` against a hostile client: limits on the body and on every string, a long chapter, slow or
silent connections, UTF-8 tokens, no server paths beyond loopback. Real sockets where the point is
what the server does before the app sees a request; every socket read has a timeout."""

from __future__ import annotations

import json
import socket
import time
from contextlib import contextmanager
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from pipeline.ask.retrieve import ChapterNotFound
from pipeline.serve.auth import bearer_matches
from pipeline.serve.errors import MAX_DETAIL
from pipeline.serve.limits import MAX_BODY
from pipeline.serve.paths import PublicPaths
from pipeline.serve.protocol import MAX_HEADER_BYTES
from serve_helpers import LiveServer, events_of, make_app

ASK = b"POST /api/ask HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"


@contextmanager
def live(sample_data, **overrides):
    app, settings = make_app(sample_data, **overrides)
    with LiveServer(app, settings) as srv:
        yield srv


def connect(srv, timeout: float = 10.0) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", srv.port), timeout=timeout)
    sock.settimeout(timeout)
    return sock


def chunks(size: int, piece: int = 4096) -> bytes:
    """``size`` bytes of a chunked body (without the final 0-chunk)."""
    return b"".join(b"%x\r\n%s\r\n" % (piece, b"x" * piece) for _ in range(size // piece))


def read_all(sock: socket.socket, limit: float = 10.0) -> bytes:
    """Everything until the server closes the connection (fails after ``limit`` s of it staying open)."""
    out, deadline = b"", time.monotonic() + limit
    while time.monotonic() < deadline:
        try:
            part = sock.recv(65536)
        except socket.timeout:
            continue
        except ConnectionResetError:
            return out
        if not part:
            return out
        out += part
    raise AssertionError(f"the connection stayed open for {limit}s (got {out[:200]!r})")


# ---------------------------------------------------------------------------- the body
def test_a_30_mb_body_is_refused_with_413_before_it_is_read(sample_data):
    with live(sample_data) as srv:
        with connect(srv) as sock:  # announced: refused on the Content-Length alone, not a byte sent
            sock.sendall(ASK + b"Content-Length: %d\r\n\r\n" % (30 * 2**20))
            reply = read_all(sock)
        assert reply.startswith(b"HTTP/1.1 413") and b"body_too_large" in reply
        with connect(srv) as sock:  # chunked: counted as it arrives, refused once over the limit
            sock.sendall(ASK + b"Transfer-Encoding: chunked\r\n\r\n" + chunks(MAX_BODY + 8192))
            reply = read_all(sock)
        assert reply.startswith(b"HTTP/1.1 413") and b"body_too_large" in reply
        with connect(srv) as sock:  # a 30 MB chunked stream is cut off long before its end
            sock.sendall(ASK + b"Transfer-Encoding: chunked\r\n\r\n")
            sent, piece = 0, chunks(64 * 1024)
            try:
                while sent < 30 * 2**20:
                    sock.sendall(piece)
                    sent += len(piece)
            except (BrokenPipeError, ConnectionResetError, socket.timeout):
                pass
        assert sent < 30 * 2**20, "the server read a 30 MB body"
    app, _ = make_app(sample_data)
    with TestClient(app, base_url="http://127.0.0.1") as c:
        r = c.post("/api/ask", content=b"{" + b" " * MAX_BODY + b"}", headers={"Content-Type": "application/json"})
        assert r.status_code == 413 and r.json()["error"] == "body_too_large"
        assert c.post("/api/ask", json={"question": "栈是什么", "chapter": "查找"}).status_code == 200


def test_every_string_field_has_a_limit(sample_data):
    app, _ = make_app(sample_data)
    long = "查" * 1_000_000
    with TestClient(app, base_url="http://127.0.0.1") as c:
        cases = [
            c.post("/api/ask", json={"question": "栈是什么", "chapter": "查" * 201}),
            c.post("/api/ask", json={"question": "栈是什么", "session": "s" * 65}),
            c.get("/api/search", params={"q": "栈", "chapter": "查" * 201}),
            c.get("/api/questions", params={"chapter": "查" * 201}),
            c.get("/api/section", params={"path": "查" * 1001}),
            c.get("/api/source/" + "a" * 65),
            c.get("/api/source/" + "a" * 65 + "/section", params={"chunk": "x"}),
            c.get("/api/source/0000000000000000", params={"chunk": "c" * 65}),
            c.get("/api/source/0000000000000000/page/1.png", params={"chunk": "c" * 65}),
        ]
        for r in cases:
            assert r.status_code == 422 and r.json()["error"] == "invalid_request", (r.request.url, r.text[:300])
            assert len(r.content) < 1000
        # a million-character chapter (3 MB of JSON) is under the body limit's refusal, not a 17 s search
        r = c.post("/api/ask", json={"question": "栈是什么", "chapter": long})
        assert r.status_code == 413 and len(r.content) < 1000


def test_an_unknown_chapter_is_resolved_in_one_pass_and_its_error_is_short(sample_data):
    """resolve_chapter reads the needle a fixed number of times, not once per heading (it rebuilt
    set(needle) for each: 1,000,000 characters took 17.8 s to a 404 and echoed 3 MB back)."""

    class Counted(str):
        reads = 0

        def __iter__(self):
            Counted.reads += 1
            return super().__iter__()

    app, _ = make_app(sample_data)
    retriever = app.state.service.retriever()
    headings = {h for c, _ in retriever.catalog.chapters() for h in c.split(" › ")}
    assert len(headings) > 20
    needle = Counted("查" * 5000 + "无此章节")
    with pytest.raises(ChapterNotFound) as info:
        retriever.resolve_chapter(needle)
    assert Counted.reads <= 3, f"the needle was read {Counted.reads} times for {len(headings)} headings"
    assert len(str(info.value)) < 400
    with TestClient(app, base_url="http://127.0.0.1") as c:
        for r in (c.get("/api/search", params={"q": "栈", "chapter": "查早" * 100}),
                  c.post("/api/ask", json={"question": "栈是什么", "chapter": "查早" * 100})):
            assert r.status_code == 404 and r.json()["error"] == "chapter_not_found"
            assert len(r.json()["detail"]) <= MAX_DETAIL and len(r.content) < 2000


# ---------------------------------------------------------------------------- slow and silent clients
def test_a_connection_without_complete_headers_in_time_is_closed(sample_data):
    with live(sample_data, serve_header_timeout=2.0) as srv:
        t0 = time.monotonic()
        with connect(srv) as silent:  # says nothing at all
            assert read_all(silent, limit=6) == b""
        assert 1.5 < time.monotonic() - t0 < 5
        t0 = time.monotonic()
        with connect(srv) as slow:  # one byte a second: never a complete head
            request = b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: slow\r\n\r\n"
            slow.settimeout(1.0)
            reply = b""
            for byte in request:
                try:
                    slow.sendall(bytes([byte]))
                    reply = slow.recv(4096)
                except socket.timeout:
                    continue
                except (BrokenPipeError, ConnectionResetError):
                    break
                if reply or time.monotonic() - t0 > 8:
                    break
            slow.settimeout(5)
            reply += read_all(slow, limit=5)
        assert reply.startswith(b"HTTP/1.1 408") and time.monotonic() - t0 < 6, reply
        with connect(srv) as kept:  # a kept-alive connection has the same deadline for its next head
            kept.sendall(b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            first = kept.recv(65536)
            assert first.startswith(b"HTTP/1.1 200")
            kept.sendall(b"GET /api/health HTTP/1.1\r\n")
            t0 = time.monotonic()
            rest = read_all(kept, limit=6)
            assert b"200 OK" not in rest and time.monotonic() - t0 < 5
        with connect(srv) as big:  # a head over 64 KB is refused at once
            head = b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Pad: "
            big.sendall(head + b"a" * (MAX_HEADER_BYTES + 1 - len(head)))  # one byte over, all of it read
            assert read_all(big, limit=5).startswith(b"HTTP/1.1 431")
        with connect(srv) as fine:  # and a normal client is served as ever
            fine.sendall(b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            assert read_all(fine).startswith(b"HTTP/1.1 200")


def test_one_client_cannot_hold_every_connection(sample_data):
    """Beyond ``max_per_client`` open connections from one address, the next is answered 429 and closed;
    others' connections are untouched, and a closed one frees its place. (Loopback is exempt in `serve`;
    ``cap_loopback`` puts this test's 127.0.0.1 under the cap.)"""
    from pipeline.serve.protocol import _is_loopback, guarded_protocol
    from pipeline.serve.run import uvicorn_config

    app, settings = make_app(sample_data)
    srv = LiveServer(app, settings)
    srv.server.config = uvicorn_config(app, settings, timeout_graceful_shutdown=1,
                                       http=guarded_protocol(10.0, max_per_client=3, cap_loopback=True))
    health = b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
    with srv:
        held = [connect(srv) for _ in range(3)]
        try:
            with connect(srv) as fourth:
                assert read_all(fourth, limit=5).startswith(b"HTTP/1.1 429")
            held[0].sendall(health)
            assert held[0].recv(65536).startswith(b"HTTP/1.1 200")  # the three held ones still work
            held.pop(0).close()
            deadline = time.monotonic() + 5
            while True:  # the server sees the close a moment later
                with connect(srv) as again:
                    again.sendall(health)
                    reply = again.recv(65536)
                if reply.startswith(b"HTTP/1.1 200") or time.monotonic() > deadline:
                    break
                time.sleep(0.05)
            assert reply.startswith(b"HTTP/1.1 200"), reply[:80]
        finally:
            for sock in held:
                sock.close()
    assert _is_loopback("127.0.0.1") and _is_loopback("::1") and _is_loopback("::ffff:127.0.0.1")
    assert not _is_loopback("192.168.1.20") and not _is_loopback("not an address")


# ---------------------------------------------------------------------------- tokens
def test_a_token_is_compared_as_utf8(sample_data):
    token = "令牌-s3cret-éß"
    assert bearer_matches(f"Bearer {token}".encode(), token) and bearer_matches(f"bearer  {token} ".encode(), token)
    assert not bearer_matches(f"Bearer {token}x".encode(), token) and not bearer_matches(token.encode(), token)
    app, _ = make_app(sample_data, api_token=token)
    with TestClient(app, base_url="http://127.0.0.1") as c:
        assert c.get("/api/chapters", headers={"Authorization": f"Bearer {token}".encode()}).status_code == 200
        assert c.get("/api/chapters", headers={"Authorization": "Bearer 令牌".encode()}).status_code == 401


# ---------------------------------------------------------------------------- paths beyond loopback
@pytest.fixture(scope="module")
def absolute_ingest(tmp_path_factory, cli):
    """A note and a damaged PDF ingested by absolute path (their sources and errors are absolute)."""
    root = tmp_path_factory.mktemp("abs")
    raw = root / "raw"
    raw.mkdir()
    note = Path(__file__).resolve().parents[2] / "data" / "raw" / "操作系统笔记.md"
    (raw / note.name).write_bytes(note.read_bytes())
    (raw / "坏.pdf").write_bytes(b"%PDF-1.4 not really a pdf")
    data = root / "data"
    cli("ingest", str(raw), "--quiet", data_dir=data, env={"EXAMRAG_EMBED_MODEL": "hash"})  # exit 1: 坏.pdf
    return root, data


def test_beyond_loopback_no_absolute_server_path_is_served(absolute_ingest):
    root, data = absolute_ingest
    app, _ = make_app(data, serve_host="0.0.0.0", api_token="t", embed_model="hash")
    auth = {"Authorization": "Bearer t"}
    with TestClient(app, base_url="http://192.168.1.5:8408", headers=auth) as c:
        status = c.get("/api/status").json()
        sources = {s for d in status["documents"] for s in d["sources"]}
        assert sources == {"../raw/操作系统笔记.md", "../raw/坏.pdf"}, sources
        assert any(d["errors"] for d in status["documents"])  # the damaged file's error is there, relative
        hit = c.get("/api/search", params={"q": "进程和线程的区别"}).json()["hits"][0]
        assert hit["source"] == "../raw/操作系统笔记.md"
        (root / "raw" / "操作系统笔记.md").rename(root / "moved.md")
        try:
            replies = [c.get(f"/api/source/{hit['doc_id']}"), c.get("/api/source/0000000000000000"),
                       c.get("/api/health"), c.get("/api/chapters"),
                       c.post("/api/ask", json={"question": "进程和线程的区别"})]
        finally:
            (root / "moved.md").rename(root / "raw" / "操作系统笔记.md")
        assert replies[0].status_code == 404 and replies[0].json()["error"] == "source_missing"
        assert "<data dir>" in replies[1].json()["detail"]
        assert events_of(replies[4])[-1][0] == "answer"
        for text in [json.dumps(status, ensure_ascii=False)] + [r.text for r in replies]:
            assert str(root) not in text and "/tmp/" not in text, text[:500]
    app, _ = make_app(data, embed_model="hash")  # on loopback: the paths the CLI shows
    with TestClient(app, base_url="http://127.0.0.1") as c:
        assert str(root) in json.dumps(c.get("/api/status").json(), ensure_ascii=False)


def test_public_paths_rewrite_only_this_machines_paths(tmp_path):
    data = tmp_path / "data"
    p = PublicPaths(data, enabled=True)
    assert p.text(f"no index in {data}: run ingest") == "no index in <data dir>: run ingest"
    assert p.text(f"{data}/raw/书.pdf，坏了") == "raw/书.pdf，坏了"
    assert p.text(f"looked at {tmp_path}/raw/a.pdf, /usr/share/x/b.pdf") == "looked at ../raw/a.pdf, …/b.pdf"
    assert p.text(r"C:\Users\li\408\书.pdf 打不开") == "…/书.pdf 打不开"
    kept = "use /api/source/abc/section?chunk=… or http://127.0.0.1:8408/docs"
    assert p.text(kept) == kept
    assert PublicPaths(data, enabled=False).text(str(data)) == str(data)
