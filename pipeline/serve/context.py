"""What every view works with: the query service, the sources, the generation queue, the worker
threads and the public-path rewrite. One object per app (``app.state.serving``); a view receives it
as the parameter ``ctx: Ctx``, as a datasette view holds its ``ds``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any

import anyio
from fastapi import Depends, Request
from fastapi.responses import JSONResponse

from pipeline.ask.service import QueryService
from pipeline.serve.errors import ApiError
from pipeline.serve.paths import PublicPaths
from pipeline.serve.queue import GenerationQueue
from pipeline.serve.sources import Sources
from pipeline.settings import ServeSettings

SEARCH_THREADS = 8  # searches and page images running at once (the rest wait for a thread)


@dataclass
class Serving:
    service: QueryService
    sources: Sources
    queue: GenerationQueue
    cfg: ServeSettings
    public: PublicPaths
    limiter: anyio.CapacityLimiter

    async def in_thread(self, fn, *args) -> Any:
        """Run blocking service work in a worker thread, bounded in time (503 past serve_request_timeout)."""
        try:
            with anyio.fail_after(self.cfg.request_timeout):
                return await anyio.to_thread.run_sync(fn, *args, limiter=self.limiter, abandon_on_cancel=True)
        except TimeoutError:
            raise self.busy("timeout", f"no answer within serve_request_timeout={self.cfg.request_timeout:g}s "
                                       "(the machine is busy); try again") from None

    def busy(self, error: str, detail: str) -> ApiError:
        return ApiError(503, error, detail, {"Retry-After": str(self.cfg.retry_after)})

    def json(self, obj: Any, headers: dict | None = None) -> JSONResponse:
        """A 200 JSON response, server paths rewritten beyond loopback."""
        return JSONResponse(self.public(obj), headers=headers)


def serving(request: Request) -> Serving:
    return request.app.state.serving


Ctx = Annotated[Serving, Depends(serving)]
