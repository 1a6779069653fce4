"""Which exception a route raises gives which status and error body (pipeline/serve/errors.py)."""

from __future__ import annotations

from typing import Callable, Optional

from fastapi import FastAPI
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import compile_path

from pipeline.ask.service import ChapterNotFound, IndexMissing, SessionError
from pipeline.errors import one_line
from pipeline.serve.errors import ApiError, error_response
from pipeline.serve.sources import SourceError
from pipeline.study.service import ItemNotFound, NotAllowed, StudyError


def install(app: FastAPI, *, retry_after: int, public: Callable[[str], str]) -> None:
    """Map every exception a route can raise to its status and body. ``public`` rewrites the server's
    paths in a detail (see pipeline/serve/paths.py)."""

    def reply(status: int, error: str, detail: str, headers: Optional[dict] = None, **extra) -> JSONResponse:
        return error_response(status, error, public(str(detail)), headers, **extra)

    busy = {"Retry-After": str(retry_after)}

    @app.exception_handler(ApiError)
    async def _api_error(request, exc: ApiError):
        return reply(exc.status, exc.error, exc.detail, exc.headers, **exc.extra)

    @app.exception_handler(SourceError)
    async def _source_error(request, exc: SourceError):
        return reply(exc.status, exc.error, exc.detail)

    @app.exception_handler(IndexMissing)
    async def _no_index(request, exc):
        return reply(503, "index_missing", str(exc), busy)

    @app.exception_handler(ChapterNotFound)
    async def _no_chapter(request, exc: ChapterNotFound):
        return reply(404, "chapter_not_found", str(exc), close=exc.close)

    @app.exception_handler(SessionError)
    async def _bad_session(request, exc: SessionError):
        return reply(422, "bad_session", str(exc))

    @app.exception_handler(StudyError)
    async def _study(request, exc: StudyError):  # its subclasses: not found, not allowed
        if isinstance(exc, ItemNotFound):
            return reply(404, "item_not_found", str(exc))
        if isinstance(exc, NotAllowed):
            return reply(403, "not_allowed", str(exc))
        return reply(400, "study_error", str(exc))

    @app.exception_handler(RequestValidationError)
    async def _invalid(request, exc: RequestValidationError):
        parts = []
        for e in exc.errors():
            loc = ".".join(str(p) for p in e.get("loc", ()) if p not in ("body", "query", "path"))
            parts.append(f"{loc}: {e.get('msg')}" if loc else str(e.get("msg")))
        return reply(422, "invalid_request", "; ".join(parts) or "invalid request")

    @app.exception_handler(StarletteHTTPException)
    async def _http(request, exc: StarletteHTTPException):
        if exc.status_code == 404 and request.url.path.startswith("/api/"):
            return reply(404, "not_found", f"no API endpoint {request.url.path} (see /docs)")
        names = {404: "not_found", 405: "method_not_allowed", 400: "bad_request"}
        headers = exc.headers
        allowed = allowed_methods(request.app, request.url.path) if exc.status_code == 405 else None
        if allowed:
            headers = {**(headers or {}), "Allow": ", ".join(allowed)}
        return reply(exc.status_code, names.get(exc.status_code, "error"), str(exc.detail), headers)

    @app.exception_handler(Exception)
    async def _crash(request, exc: Exception):
        return reply(500, "internal", one_line(exc))


def allowed_methods(app: FastAPI, path: str) -> Optional[list[str]]:
    """Every method the API answers at ``path`` (the ``Allow`` of a 405), from the OpenAPI document:
    a path with a GET and a POST route is two routes, and Starlette's 405 names only one's."""
    for template, operations in app.openapi().get("paths", {}).items():
        if compile_path(template)[0].match(path):
            return sorted(m.upper() for m in operations if m in ("get", "post", "put", "patch", "delete"))
    return None
