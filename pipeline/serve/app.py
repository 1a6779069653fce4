"""The web app: a JSON API in the CLI's ``--json`` shapes, SSE answers, page images, and a static page.

Every route calls :class:`~pipeline.ask.service.QueryService` (the same object the CLI uses), so the
API, the page and ``cli.py … --json`` cannot drift apart: the page is a client of this API and has no
data of its own, like Datasette's JSON twins.

Concurrency: searches, lists and page images run in worker threads (at most ``SEARCH_THREADS`` at
once, each bounded by ``serve_request_timeout``); every generation goes through one
:class:`~pipeline.serve.queue.GenerationQueue` sized from the LLM's ``slots`` (a question answered
from its past-paper record, or refused, needs no generation and skips the queue). An answer streams as
server-sent events: ``queued`` (position in line) while waiting, ``token`` pieces, then one
``answer`` holding the full ``ask --json`` object, or one ``error``. A client that goes away (tab
closed) or a request past ``serve_ask_timeout`` stops its generation: the token callback raises and
the LLM runtime stops at its next token.
"""

from __future__ import annotations

import asyncio
import hmac
import ipaddress
import json
import threading
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Annotated, Any, Literal, Optional

import anyio
from fastapi import FastAPI, Query
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, Response, StreamingResponse
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, Field
from starlette.exceptions import HTTPException as StarletteHTTPException

from pipeline import __version__
from pipeline.ask.session import SessionError, check_name as check_session_name
from pipeline.ask.service import ChapterNotFound, IndexMissing, QueryService, answer_json
from pipeline.errors import one_line
from pipeline.serve.queue import GenerationQueue, QueueFull
from pipeline.serve.sources import SourceError, Sources
from pipeline.settings import Settings

STATIC = Path(__file__).parent / "static"
MAX_QUESTION = 500
SEARCH_THREADS = 8  # searches and page images running at once (the rest wait for a thread)
PAGE_CSP = ("default-src 'self'; img-src 'self' blob: data:; style-src 'self'; script-src 'self'; "
            "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
Mode = Literal["bm25", "hybrid", "vector"]
NO_GENERATION = ("record", "refusal")  # answer sources that never call the LLM


class AskRequest(BaseModel):
    question: str = Field(min_length=1, max_length=MAX_QUESTION, description="The question (at most 500 characters).")
    chapter: Optional[str] = Field(None, description="Only passages under a heading containing this (as `ask --chapter`).")
    session: Optional[str] = Field(None, max_length=64, description="Conversation name (as `ask --session`): its last 3 turns make a follow-up stand alone.")
    extras: bool = Field(False, description="Add 复习建议 and 延伸问题 (as `ask --extras`).")
    top_k: int = Field(5, ge=1, le=50, description="Passages retrieved (as `ask --top-k`).")
    mode: Optional[Mode] = Field(None, description="Retrieval mode (as `ask --mode`).")


class _Stream(StreamingResponse):
    """A streaming response that runs ``on_close`` however the request ends: finished, cut off by the
    client, or cancelled before its body generator ever started (whose ``finally`` then never runs)."""

    def __init__(self, content, on_close, **kwargs):
        super().__init__(content, **kwargs)
        self._on_close = on_close

    async def __call__(self, scope, receive, send):
        try:
            await super().__call__(scope, receive, send)
        finally:
            self._on_close()


class _Job:
    """One answer's state, shared by its event stream and the response that sends it."""

    def __init__(self, ticket, queue: GenerationQueue):
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


class GenerationCancelled(Exception):
    """Raised inside the LLM's token callback to stop a generation nobody is waiting for."""


class ApiError(Exception):
    def __init__(self, status: int, error: str, detail: str, headers: Optional[dict] = None, **extra):
        super().__init__(detail)
        self.status, self.error, self.detail, self.headers, self.extra = status, error, detail, headers or {}, extra


def error_response(status: int, error: str, detail: str, headers: Optional[dict] = None, **extra) -> JSONResponse:
    return JSONResponse({"error": error, "detail": detail, **extra}, status_code=status, headers=headers)


def sse(event: str, data: Any) -> str:
    return f"event: {event}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n"


def is_loopback(host: str) -> bool:
    host = host.strip().strip("[]")
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _host_of(header: str) -> str:
    if header.startswith("["):
        return header[1:].split("]", 1)[0]
    return header.rsplit(":", 1)[0] if header.count(":") == 1 else header


class Guard:
    """Pure ASGI middleware (never buffers a stream): the Host check that stops DNS rebinding while
    bound to loopback, the bearer token on /api/*, and safe response headers."""

    def __init__(self, app, *, token: Optional[str], loopback_only: bool):
        self.app, self.token, self.loopback_only = app, token, loopback_only

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        if self.loopback_only and not is_loopback(_host_of(headers.get("host", ""))):
            return await error_response(400, "bad_host", "this server answers only to localhost / 127.0.0.1 "
                                        "(Host header refused)")(scope, receive, send)
        if self.token and scope["path"].startswith("/api/"):
            scheme, _, given = headers.get("authorization", "").partition(" ")
            if scheme.lower() != "bearer" or not hmac.compare_digest(given.strip().encode(), self.token.encode()):
                return await error_response(401, "unauthorized", "send the header Authorization: Bearer <EXAMRAG_API_TOKEN>",
                                            {"WWW-Authenticate": "Bearer"})(scope, receive, send)

        async def send_with_headers(message):
            if message["type"] == "http.response.start":
                extra = [(b"x-content-type-options", b"nosniff"), (b"referrer-policy", b"no-referrer"),
                         (b"x-frame-options", b"DENY")]
                message = {**message, "headers": list(message.get("headers", [])) + extra}
            await send(message)

        await self.app(scope, receive, send_with_headers)


def create_app(settings: Settings, *, service: Optional[QueryService] = None) -> FastAPI:
    """The app over ``service`` (default: a new QueryService(settings)). Used by ``cli.py serve`` and tests."""
    from fastapi_offline import FastAPIOffline

    service = service or QueryService(settings)
    sources = Sources(settings, service)
    cfg = settings.serve
    queue = GenerationQueue(slots=1, size=cfg.queue_size)
    limiter = anyio.CapacityLimiter(SEARCH_THREADS)

    def warm() -> None:
        """Open the index and load the LLM before the first request (a model load blocks the service)."""
        try:
            service.retriever()
        except IndexMissing:
            pass
        llm = service.llm()  # None (with llm_error) for backend none or a missing model: passages only
        queue.set_slots(getattr(llm, "slots", 1) if llm is not None else 1)

    @asynccontextmanager
    async def lifespan(app):
        await anyio.to_thread.run_sync(warm)
        yield

    app = FastAPIOffline(title="examrag", version=__version__, redoc_url=None, lifespan=lifespan,
                         description="Cited answers from your own 408 material. The JSON shapes are those of "
                                     "`cli.py ask/chapters/questions/status --json`; errors are `{error, detail}`.")
    app.state.service, app.state.sources, app.state.queue = service, sources, queue

    # ------------------------------------------------------------------ errors
    @app.exception_handler(ApiError)
    async def _api_error(request, exc: ApiError):
        return error_response(exc.status, exc.error, exc.detail, exc.headers, **exc.extra)

    @app.exception_handler(SourceError)
    async def _source_error(request, exc: SourceError):
        return error_response(exc.status, exc.error, exc.detail)

    @app.exception_handler(IndexMissing)
    async def _no_index(request, exc):
        return error_response(503, "index_missing", str(exc), {"Retry-After": str(cfg.retry_after)})

    @app.exception_handler(ChapterNotFound)
    async def _no_chapter(request, exc: ChapterNotFound):
        return error_response(404, "chapter_not_found", str(exc), close=exc.close)

    @app.exception_handler(RequestValidationError)
    async def _invalid(request, exc: RequestValidationError):
        parts = []
        for e in exc.errors():
            loc = ".".join(str(p) for p in e.get("loc", ()) if p not in ("body", "query", "path"))
            parts.append(f"{loc}: {e.get('msg')}" if loc else str(e.get("msg")))
        return error_response(422, "invalid_request", "; ".join(parts) or "invalid request")

    @app.exception_handler(StarletteHTTPException)
    async def _http(request, exc: StarletteHTTPException):
        names = {404: "not_found", 405: "method_not_allowed", 400: "bad_request"}
        return error_response(exc.status_code, names.get(exc.status_code, "error"), str(exc.detail), exc.headers)

    @app.exception_handler(Exception)
    async def _crash(request, exc: Exception):
        return error_response(500, "internal", one_line(exc))

    async def in_thread(fn, *args):
        """Run blocking service work in a worker thread, bounded in time (503 past serve_request_timeout)."""
        try:
            with anyio.fail_after(cfg.request_timeout):
                return await anyio.to_thread.run_sync(fn, *args, limiter=limiter, abandon_on_cancel=True)
        except TimeoutError:
            raise ApiError(503, "timeout", f"no answer within serve_request_timeout={cfg.request_timeout:g}s "
                                           "(the machine is busy); try again", {"Retry-After": str(cfg.retry_after)}) from None

    # ------------------------------------------------------------------ page
    def page() -> FileResponse:
        return FileResponse(STATIC / "index.html", headers={"Content-Security-Policy": PAGE_CSP, "Cache-Control": "no-cache"})

    for path in ("/", "/practice", "/status"):
        app.add_api_route(path, page, methods=["GET"], include_in_schema=False)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    # ------------------------------------------------------------------ API
    @app.get("/api/search", summary="Ranked cited passages (= `ask --json --no-llm`)")
    async def search(q: Annotated[str, Query(min_length=1, max_length=MAX_QUESTION, description="The question.")],
                     chapter: Annotated[Optional[str], Query(description="Only under a heading containing this.")] = None,
                     k: Annotated[int, Query(ge=1, le=50, description="How many passages.")] = 5,
                     mode: Optional[Mode] = None):
        result = await in_thread(lambda: service.search(q, chapter=chapter, top_k=k, mode=mode))
        return JSONResponse(answer_json(result))

    @app.post("/api/ask", summary="Stream an answer as server-sent events",
              response_class=StreamingResponse,
              responses={200: {"content": {"text/event-stream": {}},
                               "description": "`queued` {position, slots, running, waiting} while waiting for a "
                                              "generation slot; `token` {text} pieces; then one `answer` (the "
                                              "`ask --json` object) or one `error` {error, detail}."},
                         503: {"description": "Queue full (Retry-After), or no index yet."}})
    async def ask(body: AskRequest):
        def check():  # the errors a student can fix, before the stream starts
            retriever = service.retriever()
            if body.chapter:
                retriever.resolve_chapter(body.chapter)
            if body.session is not None:
                try:
                    check_session_name(body.session)
                except SessionError as exc:
                    raise ApiError(422, "bad_session", str(exc)) from None

        await in_thread(check)
        kwargs: dict[str, Any] = {"chapter": body.chapter, "top_k": body.top_k, "mode": body.mode}
        if body.session is None:
            # a past-paper record or a refusal needs no generation: answered at once, never queued
            # behind other students' generations (a few ms of retrieval, repeated by the answer)
            quick = await in_thread(lambda: service.search(body.question, **kwargs))
            if quick.source in NO_GENERATION:
                if body.extras:
                    kwargs["extras"] = True
                return StreamingResponse(_direct_events(body.question, kwargs), media_type="text/event-stream",
                                         headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})
        try:
            ticket = queue.admit()
        except QueueFull as exc:
            raise ApiError(503, "busy", f"the answer queue is full: {exc}; try again shortly",
                           {"Retry-After": str(cfg.retry_after)}) from None
        if body.session is not None:
            kwargs["session"] = body.session
        if body.extras:
            kwargs["extras"] = True
        job = _Job(ticket, queue)
        return _Stream(_answer_events(body.question, kwargs, job), job.close, media_type="text/event-stream",
                       headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})

    async def _direct_events(question: str, kwargs: dict):
        """The events of an answer that calls no LLM: its pieces, then the answer (the same events,
        in the same shapes, as a generated one)."""
        pieces: list[str] = []
        try:
            result = await in_thread(lambda: service.ask(question, on_token=pieces.append, **kwargs))
        except ApiError as exc:
            yield sse("error", {"error": exc.error, "detail": exc.detail})
            return
        except Exception as exc:  # noqa: BLE001 - reported to the client as an error event, as a generation's
            yield sse("error", {"error": "internal", "detail": one_line(exc)})
            return
        for piece in pieces:
            yield sse("token", {"text": piece})
        yield sse("answer", answer_json(result))

    async def _answer_events(question: str, kwargs: dict, job: _Job):
        loop = asyncio.get_running_loop()
        deadline = loop.time() + cfg.ask_timeout
        events: asyncio.Queue = asyncio.Queue()
        ticket, cancel = job.ticket, job.cancel

        def put(item):
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
                put(("answer", service.ask(question, on_token=on_token, cancel=cancel, **kwargs)))
            except BaseException as exc:  # noqa: BLE001 - reported to the client as an error event
                put(("failed", exc))
            finally:
                queue.release_threadsafe(ticket)

        def timed_out() -> str:
            return sse("error", {"error": "timeout", "detail": f"no answer within serve_ask_timeout={cfg.ask_timeout:g}s"})

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
                if not await queue.wait(ticket, min(1.0, left)):
                    yield ": waiting\n\n"  # a comment line: keeps proxies open, notices a closed tab
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
                    kind, value = await asyncio.wait_for(events.get(), min(left, 15.0))
                except asyncio.TimeoutError:
                    yield ": generating\n\n"
                    continue
                if kind == "token":
                    yield sse("token", {"text": value})
                elif kind == "answer":
                    yield sse("answer", answer_json(value))
                    return
                else:
                    yield sse("error", {"error": "internal", "detail": one_line(value)})
                    return
        finally:
            job.close()

    @app.get("/api/chapters", summary="The chapter tree (= `chapters --json`)")
    async def chapters():
        return JSONResponse(await in_thread(service.chapters))

    @app.get("/api/questions", summary="Past-paper questions (= `questions --json`)")
    async def questions(chapter: Annotated[Optional[str], Query(description="Questions testing a chapter containing this.")] = None):
        return JSONResponse(await in_thread(service.questions, chapter))

    @app.get("/api/status", summary="Documents, per-stage state, errors, index counts (= `status --json`)")
    async def status():
        return JSONResponse(await in_thread(service.status))

    @app.get("/api/health", summary="Liveness, the live index generation, the generation queue")
    async def health():
        def info():
            try:
                generation = service.retriever().meta.get("generation")
            except IndexMissing:
                generation = None
            llm = service._llm
            return {"ok": True, "version": __version__, "generation": generation, "queue": queue.stats(),
                    "llm": getattr(llm, "model_id", None), "llm_error": service.llm_error}

        return JSONResponse(await in_thread(info))

    @app.get("/api/section", summary="The passages of one section (a question's `chapter_paths` entry)")
    async def section_chunks(path: Annotated[str, Query(min_length=1, description="The chapter path joined with ' › '.")]):
        rows = await in_thread(sources.chapter_chunks, path)
        return JSONResponse({"chapter": path, "chunks": [
            {k: c.get(k) for k in ("chunk_id", "doc_id", "source", "chapter_path", "chunk_position", "pages", "text", "kind")}
            for c in rows]})

    @app.get("/api/source/{doc_id}", summary="Where a passage sits: page to open and its highlight boxes")
    async def source_info(doc_id: str, chunk: Annotated[Optional[str], Query(description="Chunk id of a hit.")] = None):
        return JSONResponse(await in_thread(sources.page_info, doc_id, chunk))

    @app.get("/api/source/{doc_id}/page/{n}.png", summary="A page image with the passage highlighted",
             response_class=Response, responses={200: {"content": {"image/png": {}}}})
    async def page_png(doc_id: str, n: int,
                       chunk: Annotated[Optional[str], Query(description="Chunk id of a hit: its passage is highlighted.")] = None,
                       zoom: Annotated[float, Query(ge=0.5, le=4.0, description="Scale (1 = 72 dpi).")] = 1.5):
        png, placement = await in_thread(sources.render, doc_id, n, chunk, zoom)
        marked = len(placement.rects.get(n, []))
        return Response(png, media_type="image/png",
                        headers={"X-Highlight": placement.method if marked else "none", "X-Highlight-Boxes": str(marked),
                                 "Cache-Control": "private, max-age=300"})

    @app.get("/api/source/{doc_id}/section", summary="A note's section with the passage marked")
    async def source_section(doc_id: str, chunk: Annotated[str, Query(min_length=1, description="Chunk id of a hit.")]):
        return JSONResponse(await in_thread(sources.section, doc_id, chunk))

    @app.api_route("/api/{rest:path}", methods=["GET", "POST", "PUT", "DELETE", "PATCH"], include_in_schema=False)
    async def api_unknown(rest: str):
        raise ApiError(404, "not_found", f"no API endpoint /api/{rest} (see /docs)")

    app.add_middleware(Guard, token=cfg.api_token, loopback_only=is_loopback(cfg.host))
    return app
