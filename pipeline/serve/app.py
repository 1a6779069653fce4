"""The web app, wired: a JSON API in the CLI's ``--json`` shapes, SSE answers, page images, a static page.

Every route calls :class:`~pipeline.ask.service.QueryService` (the same object the CLI uses), so the
API, the page and ``cli.py … --json`` cannot drift apart: the page is a client of this API and has no
data of its own, like Datasette's JSON twins. The routes live in pipeline/serve/views/, one module per
kind of thing served; this module only puts the app together:

- the context every view receives (:class:`~pipeline.serve.context.Serving`);
- the views' routers and the static files;
- the error handlers (handlers.py, bodies in errors.py) and the OpenAPI document (contract.py);
- the middleware, outermost first: the Host check and the token, the admin's or a student's (auth.py),
  then the body limit (limits.py).

Concurrency: searches, lists and page images run in worker threads (at most ``SEARCH_THREADS`` at
once, each bounded by ``serve_request_timeout``); every generation goes through one
:class:`~pipeline.serve.queue.GenerationQueue` sized from the LLM's ``slots`` (see views/answers.py
for what skips it, streaming.py for the events).
"""

from __future__ import annotations

from contextlib import asynccontextmanager
from typing import Optional

import anyio
from fastapi import FastAPI

from pipeline import __version__
from pipeline.ask.service import IndexMissing, QueryService
from pipeline.serve import contract, handlers
from pipeline.serve.auth import Guard, is_loopback
from pipeline.serve.context import SEARCH_THREADS, Serving
from pipeline.serve.limits import BodyLimit
from pipeline.serve.paths import PublicPaths
from pipeline.serve.queue import GenerationQueue
from pipeline.serve.sources import Sources
from pipeline.serve.views import ROUTERS, pages
from pipeline.settings import Settings
from pipeline.study.service import StudyService

__all__ = ["create_app", "is_loopback"]
DESCRIPTION = ("Cited answers from your own 408 material. The JSON shapes are those of "
               "`cli.py ask/chapters/questions/status --json`; errors are `{error, detail}`.")


def create_app(settings: Settings, *, service: Optional[QueryService] = None) -> FastAPI:
    """The app over ``service`` (default: a new QueryService(settings)). Used by ``cli.py serve`` and tests."""
    from fastapi_offline import FastAPIOffline

    cfg = settings.serve
    service = service or QueryService(settings)
    beyond_loopback = not is_loopback(cfg.host)
    ctx = Serving(service=service, sources=Sources(settings, service), queue=GenerationQueue(slots=1, size=cfg.queue_size),
                  cfg=cfg, public=PublicPaths(settings.data_dir, enabled=beyond_loopback),
                  limiter=anyio.CapacityLimiter(SEARCH_THREADS))

    @asynccontextmanager
    async def lifespan(app):
        await anyio.to_thread.run_sync(warm, ctx)
        yield

    app = FastAPIOffline(title="examrag", version=__version__, redoc_url=None, lifespan=lifespan, description=DESCRIPTION)
    app.state.serving = ctx
    app.state.service, app.state.sources, app.state.queue = ctx.service, ctx.sources, ctx.queue
    app.state.study = StudyService(settings, query=service)  # opens its database on first use (views/study.py)
    for router in ROUTERS:
        app.include_router(router)
    pages.mount_static(app)
    handlers.install(app, retry_after=cfg.retry_after, public=ctx.public.text)
    contract.install(app, token=bool(cfg.api_token))
    app.add_middleware(BodyLimit, timeout=cfg.header_timeout)
    app.add_middleware(Guard, token=cfg.api_token, loopback_only=not beyond_loopback,
                       authenticate=app.state.study.authenticate)
    return app


def warm(ctx: Serving) -> None:
    """Open the index and load the LLM before the first request (a model load blocks the service)."""
    try:
        ctx.service.retriever()
    except IndexMissing:
        pass
    llm = ctx.service.llm()  # None (with llm_error) for backend none or a missing model: passages only
    ctx.queue.set_slots(getattr(llm, "slots", 1) if llm is not None else 1)
