"""The generation queue on a real uvicorn (127.0.0.1, the configuration `cli.py serve` runs): places in
line, 503 beyond it, what never queues, cancellation by a closed tab or the time limit.

Every stream is read through :class:`serve_helpers.EventReader`: each wait has a deadline, and the
stream stays open until its ``with`` block ends. (The hang this file once had: a test read one event
from ``response.iter_lines()`` and dropped the iterator, which closes the connection; the server
then rightly freed the slot, so the next client ran at once and never got the ``queued`` event the
test waited for, while the gated LLM held it for ever.)
"""

from __future__ import annotations

import json
from contextlib import ExitStack, contextmanager

import httpx

from serve_helpers import GENERATED, EventReader, GatedLlm, LiveServer, events_of, make_app, wait_until

TIMEOUT = httpx.Timeout(10.0)  # every connect, read and write of a test client


@contextmanager
def served(sample_data, llm, clients: int = 3, **overrides):
    """(server, [clients]) over the sample with ``llm``."""
    app, settings = make_app(sample_data, llm=llm, **overrides)
    with ExitStack() as stack:
        srv = stack.enter_context(LiveServer(app, settings))
        yield srv, [stack.enter_context(httpx.Client(base_url=srv.url, timeout=TIMEOUT)) for _ in range(clients)]


@contextmanager
def asking(client: httpx.Client, question: str, **fields):
    """An open /api/ask stream, read with deadlines; closed when the block ends."""
    with client.stream("POST", "/api/ask", json={"question": question, **fields}) as r:
        assert r.status_code == 200, r.read()
        yield EventReader(r)


def queue_of(client: httpx.Client) -> dict:
    return client.get("/api/health").json()["queue"]


# ---------------------------------------------------------------------------- the line
def test_beyond_the_queue_is_503_with_retry_after_and_the_line_moves_on(sample_data):
    llm = GatedLlm(slots=1)
    with served(sample_data, llm, serve_queue_size=1, serve_retry_after=7) as (srv, (a, b, c)):
        with asking(a, GENERATED) as ra, asking(b, "折半查找的时间复杂度") as rb:
            assert ra.next({"token"})[0] == "token"  # a holds the only slot
            kind, queued = rb.next({"queued"})  # b waits, first in line
            assert queued["position"] == 1 and queued["slots"] == 1 and queued["running"] == 1
            r = c.post("/api/ask", json={"question": "进程和线程的区别"})
            assert r.status_code == 503 and r.headers["retry-after"] == "7" and r.json()["error"] == "busy"
            assert queue_of(c) == {"slots": 1, "running": 1, "waiting": 1, "queue_size": 1}
            assert c.get("/api/search", params={"q": "B树"}).status_code == 200  # searches never queue
            llm.gate.set()
            assert ra.next({"answer"})[1]["source"] == "llm"
            assert rb.next({"answer"})[1]["source"] == "llm"
        assert wait_until(lambda: queue_of(c)["running"] == 0)
    assert llm.finished == 2 and llm.stopped == []


def test_an_open_stream_keeps_its_slot_and_a_dropped_one_is_a_closed_tab(sample_data):
    """The root cause of the old hang, both ways: a stream read through EventReader stays open (its
    generation keeps the slot); a line iterator dropped after one event closes the connection, and
    the server cancels that generation as it should for a closed tab."""
    llm = GatedLlm(slots=1)
    with served(sample_data, llm, clients=2) as (srv, (a, c)):
        with asking(a, GENERATED) as ra:
            assert ra.next({"token"})[0] == "token"
            assert wait_until(lambda: llm.calls == 1)
            assert not wait_until(lambda: llm.stopped, timeout=1.5)  # still held, still generating
            assert queue_of(c)["running"] == 1
        assert wait_until(lambda: llm.stopped == ["Cancelled"])  # the block closed it: cancelled
        assert wait_until(lambda: queue_of(c)["running"] == 0)
        with a.stream("POST", "/api/ask", json={"question": "折半查找的时间复杂度"}) as r:
            reader = EventReader(r)
            assert reader.next({"token"})[0] == "token"
            assert wait_until(lambda: llm.calls == 2)  # at the gate (a cancel before the LLM starts stops it unrecorded)
            del reader  # its line iterator goes with it: the connection is closed, the response still "open" here
            assert wait_until(lambda: llm.stopped == ["Cancelled", "Cancelled"], timeout=10), llm.stopped
        assert wait_until(lambda: queue_of(c)["running"] == 0)
    assert llm.finished == 0


def test_a_past_paper_question_or_a_refusal_is_answered_while_every_slot_is_busy(sample_data, cli):
    """None calls the LLM, so none waits in line (nor counts against the queue): the record's
    answer, the refusal and the contrast table come at once, as the same events and the same `ask --json` as ever."""
    llm = GatedLlm(slots=1)
    with served(sample_data, llm, clients=2, serve_queue_size=1) as (srv, (a, c)):
        with asking(a, GENERATED) as ra:
            assert ra.next({"token"})[0] == "token"  # a holds the only slot
            record = events_of(c.post("/api/ask", json={"question": "2024年第41题"}, timeout=20))
            assert [k for k, _ in record] == ["token", "answer"] and record[-1][1]["source"] == "record"
            refused = events_of(c.post("/api/ask", json={"question": "2022年世界杯冠军是哪个国家"}, timeout=20))
            assert refused[-1][1]["source"] == "refusal" and refused[-1][1]["refused"] is True
            # a contrast the material's passage (or its table) answers alone: decided before the model would
            # speak, so no place in line either
            table = events_of(c.post("/api/ask", json={"question": "B树和B+树的区别是什么"}, timeout=20))
            assert table[-1][1]["source"] == "grounded" and table[-1][1]["answer"].startswith("资料对两者区别的原文说明")
            assert queue_of(c) == {"slots": 1, "running": 1, "waiting": 0, "queue_size": 1}
            llm.gate.set()
            assert ra.next({"answer"})[1]["source"] == "llm"
    assert llm.calls == 1
    out = cli("ask", "--json", "2024年第41题", data_dir=sample_data, env={"EXAMRAG_LLM_BACKEND": "none"})
    assert record[-1][1]["answer"] == json.loads(out.stdout)["answer"]


def test_passages_only_answers_never_take_a_place_in_line(sample_data):
    """No LLM (backend none), or use_llm false: milliseconds of work, answered at once even with the
    only slot taken and no room in line (they used to queue: 18 of 30 concurrent asks got 503)."""
    llm = GatedLlm(slots=1)
    with served(sample_data, llm, clients=2, serve_queue_size=0) as (srv, (a, c)):
        with asking(a, GENERATED) as ra:
            assert ra.next({"token"})[0] == "token"  # the only slot, no room in line
            assert wait_until(lambda: llm.calls == 1)
            assert c.post("/api/ask", json={"question": "折半查找的时间复杂度"}).status_code == 503
            r = c.post("/api/ask", json={"question": "折半查找的时间复杂度", "use_llm": False})
            assert r.status_code == 200, r.text
            answer = events_of(r)[-1]
            assert answer[0] == "answer" and answer[1]["answer"] is None and answer[1]["hits"]
    assert llm.calls == 1
    with served(sample_data, None, clients=1, serve_queue_size=0) as (srv, (c,)):
        import concurrent.futures as cf

        with cf.ThreadPoolExecutor(6) as pool:  # 6 at once against 1 slot and no line: all answered
            kinds = list(pool.map(lambda _: [k for k, _ in events_of(c.post("/api/ask", json={"question": "进程和线程的区别"}))],
                                  range(12), timeout=120))
        assert all(k[-1] == "answer" for k in kinds), kinds
        assert queue_of(c)["running"] == 0


# ---------------------------------------------------------------------------- cancellation
def test_a_closed_tab_cancels_its_generation_and_frees_the_slot(sample_data):
    llm = GatedLlm(slots=1)
    with served(sample_data, llm, serve_queue_size=2) as (srv, (a, b, c)):
        with asking(a, GENERATED) as ra:
            assert ra.next({"token"})[0] == "token"
            with asking(b, "折半查找的时间复杂度") as rb:  # waits in line, then leaves
                assert rb.next({"queued"})[1]["position"] == 1
            assert wait_until(lambda: queue_of(c)["waiting"] == 0)
            assert wait_until(lambda: llm.calls == 1)  # a's generation is at the gate when its tab closes
        # the running one's client is gone: its cancel event stopped the runtime, the slot is free
        assert wait_until(lambda: llm.stopped == ["Cancelled"], timeout=10), llm.stopped
        assert wait_until(lambda: queue_of(c)["running"] == 0)
        assert llm.finished == 0 and llm.calls == 1  # the one that left the line never generated
        llm.gate.set()
        with asking(c, "进程和线程的区别") as rc:
            assert rc.next({"answer"})[1]["source"] == "llm"


def test_an_answer_past_its_time_limit_is_stopped(sample_data):
    llm = GatedLlm(slots=1)
    with served(sample_data, llm, clients=1, serve_ask_timeout=1.0) as (srv, (a,)):
        with asking(a, GENERATED) as ra:
            kind, data = ra.next({"error", "answer"})
        assert kind == "error" and data["error"] == "timeout"
        # stopped at the gate, or (on a machine too busy to reach the LLM within the second) before it
        assert wait_until(lambda: llm.stopped == ["Cancelled"] or llm.calls == 0)
        assert llm.finished == 0
        assert wait_until(lambda: queue_of(a)["running"] == 0)


def test_a_client_gone_before_the_stream_starts_gives_its_slot_back(sample_data):
    """Raw ASGI: the client disconnects at once. Whether or not the body generator ever ran, the slot
    (or place in line) is returned and nothing keeps generating."""
    import asyncio

    llm = GatedLlm(slots=1)
    app, _ = make_app(sample_data, llm=llm)
    queue = app.state.queue
    body = json.dumps({"question": GENERATED}).encode()

    async def call():
        messages = [{"type": "http.request", "body": body, "more_body": False}]

        async def receive():
            if messages:
                return messages.pop(0)
            return {"type": "http.disconnect"}

        sent = []

        async def send(message):
            sent.append(message)

        scope = {"type": "http", "asgi": {"version": "3.0", "spec_version": "2.3"}, "http_version": "1.1",
                 "method": "POST", "scheme": "http", "path": "/api/ask", "raw_path": b"/api/ask", "query_string": b"",
                 "root_path": "", "headers": [(b"host", b"127.0.0.1"), (b"content-type", b"application/json"),
                                              (b"content-length", str(len(body)).encode())],
                 "client": ("127.0.0.1", 5000), "server": ("127.0.0.1", 8408)}
        for _ in range(3):
            await app(scope, receive, send)
            messages.append({"type": "http.request", "body": body, "more_body": False})
        for _ in range(100):  # a started generation stops at its next token, then releases
            if queue.stats()["running"] == 0:
                break
            await asyncio.sleep(0.05)
        return sent

    sent = asyncio.run(asyncio.wait_for(call(), 60))
    assert sent[0]["type"] == "http.response.start" and sent[0]["status"] == 200
    assert queue.stats() == {"slots": 1, "running": 0, "waiting": 0, "queue_size": 8}
    assert llm.finished == 0 and len(llm.stopped) == llm.calls
