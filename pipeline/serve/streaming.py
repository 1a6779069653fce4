"""An answer as server-sent events: ``queued`` (place in line) while waiting, ``token`` pieces, then
one ``answer`` (the ``ask --json`` object) or one ``error`` {error, detail}.

A generated answer runs in its own thread once the queue gives it a slot. A client that goes away
(tab closed) or a request past ``serve_ask_timeout`` stops it: the token callback raises and the LLM
runtime stops at its next token. The slot (or the place in line) is given back however the request
ends, even when the response was cancelled before its body generator started.
"""

from __future__ import annotations

import asyncio
import json
import threading
from typing import Any, AsyncIterator

from fastapi.responses import StreamingResponse

from pipeline.ask.service import Retrieved, answer_json
from pipeline.errors import one_line
from pipeline.serve.context import Serving
from pipeline.serve.errors import ApiError
from pipeline.serve.queue import GenerationQueue, Ticket

HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
WAIT_BEAT = 1.0  # seconds between ": waiting" comments in line (keeps proxies open, notices a closed tab)
GENERATE_BEAT = 15.0  # seconds between ": generating" comments while no token comes


def sse(event: str, data: Any) -> str:
    return f"event: {event}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n"


class GenerationCancelled(Exception):
    """Raised inside the LLM's token callback to stop a generation nobody is waiting for."""


class Job:
    """One queued answer's state, shared by its event stream and the response that sends it."""

    def __init__(self, ticket: Ticket, queue: GenerationQueue):
        self.ticket, self.queue = ticket, queue
        self.cancel = threading.Event()
        self.started = False  # a generation thread owns the slot (and releases it)

    def close(self) -> None:
        """Idempotent end of the request: a running generation stops at its next token; a slot or
        place in line that no generation took is given back (even if the stream never started)."""
        self.cancel.set()
        if not self.started:
            if self.ticket.running:
                self.queue.release(self.ticket)
            else:
                self.queue.leave(self.ticket)


class EventStream(StreamingResponse):
    """An event stream that runs ``on_close`` however the request ends: finished, cut off by the
    client, or cancelled before its body generator ever started (whose ``finally`` then never runs)."""

    def __init__(self, events: AsyncIterator[str], on_close=None):
        super().__init__(events, media_type="text/event-stream", headers=HEADERS)
        self._on_close = on_close

    async def __call__(self, scope, receive, send):
        try:
            await super().__call__(scope, receive, send)
        finally:
            if self._on_close is not None:
                self._on_close()


async def direct_events(ctx: Serving, found: Retrieved, **kwargs) -> AsyncIterator[str]:
    """An answer that calls no LLM (a record, a refusal, passages only): its pieces, then the answer —
    the same events, in the same shapes, as a generated one."""
    pieces: list[str] = []
    try:
        result = await ctx.in_thread(lambda: ctx.service.answer(found, on_token=pieces.append, **kwargs))
    except ApiError as exc:  # a timeout
        yield sse("error", ctx.public({"error": exc.error, "detail": exc.detail}))
        return
    except Exception as exc:  # noqa: BLE001 - reported to the client as an error event, as a generation's
        yield sse("error", ctx.public({"error": "internal", "detail": one_line(exc)}))
        return
    for piece in pieces:
        yield sse("token", ctx.public({"text": piece}))
    yield sse("answer", ctx.public(answer_json(result)))


async def answer_events(ctx: Serving, found: Retrieved, job: Job, **kwargs) -> AsyncIterator[str]:
    """A generated answer: its place in line until the queue runs it, then its tokens and the answer."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + ctx.cfg.ask_timeout
    events: asyncio.Queue = asyncio.Queue()
    ticket, cancel, queue = job.ticket, job.cancel, job.queue

    def put(item) -> None:
        try:
            loop.call_soon_threadsafe(events.put_nowait, item)
        except RuntimeError:  # loop closed: the server is shutting down
            cancel.set()

    def on_token(text: str) -> None:
        if cancel.is_set():
            raise GenerationCancelled("the client went away or the time limit passed")
        if text:
            put(("token", text))

    def generate() -> None:
        try:
            put(("answer", ctx.service.answer(found, on_token=on_token, cancel=cancel, **kwargs)))
        except BaseException as exc:  # noqa: BLE001 - reported to the client as an error event
            put(("failed", exc))
        finally:
            queue.release_threadsafe(ticket)

    def timed_out() -> str:
        return sse("error", {"error": "timeout", "detail": f"no answer within serve_ask_timeout={ctx.cfg.ask_timeout:g}s"})

    try:
        shown = None
        while not ticket.running:
            pos = queue.position(ticket)
            if pos != shown:
                shown = pos
                yield sse("queued", {"position": pos, **queue.stats()})
            left = deadline - loop.time()
            if left <= 0:
                yield timed_out()
                return
            if not await queue.wait(ticket, min(WAIT_BEAT, left)):
                yield ": waiting\n\n"
        if cancel.is_set():
            return
        job.started = True
        threading.Thread(target=generate, name="examrag-generate", daemon=True).start()
        while True:
            left = deadline - loop.time()
            if left <= 0:
                cancel.set()
                yield timed_out()
                return
            try:
                kind, value = await asyncio.wait_for(events.get(), min(left, GENERATE_BEAT))
            except asyncio.TimeoutError:
                yield ": generating\n\n"
                continue
            if kind == "token":
                yield sse("token", ctx.public({"text": value}))
            elif kind == "answer":
                yield sse("answer", ctx.public(answer_json(value)))
                return
            else:
                yield sse("error", ctx.public({"error": "internal", "detail": one_line(value)}))
                return
    finally:
        job.close()
