"""Every error the server gives is one JSON body, ``{error, detail}`` (``close`` too for an unknown
chapter), declared in the OpenAPI document with the statuses each route can return (which
exception gives which status: handlers.py).

``detail`` is one line cut to :data:`MAX_DETAIL` characters: a request never gets a large body of
its own input echoed back. Light on purpose (no query service): pipeline/serve/auth.py uses it.
"""

from __future__ import annotations

from typing import Optional

from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field

MAX_DETAIL = 300


class ErrorBody(BaseModel):
    """The body of every error response."""

    error: str = Field(description="A stable code: bad_host, unauthorized, not_found, method_not_allowed, "
                                   "invalid_request, body_too_large, chapter_not_found, index_missing, busy, timeout, …")
    detail: str = Field(description=f"One line for a person (at most {MAX_DETAIL} characters).")
    close: Optional[list[str]] = Field(None, description="chapter_not_found only: up to 5 close headings.")


class ApiError(Exception):
    def __init__(self, status: int, error: str, detail: str, headers: Optional[dict] = None, **extra):
        super().__init__(detail)
        self.status, self.error, self.detail, self.headers, self.extra = status, error, detail, headers or {}, extra


def clip(detail: str) -> str:
    """One line of at most MAX_DETAIL characters."""
    detail = " ".join(str(detail).split())
    return detail if len(detail) <= MAX_DETAIL else detail[: MAX_DETAIL - 1] + "…"


def error_response(status: int, error: str, detail: str, headers: Optional[dict] = None, **extra) -> JSONResponse:
    return JSONResponse({"error": error, "detail": clip(detail), **extra}, status_code=status, headers=headers)


# ---------------------------------------------------------------------------- the OpenAPI declarations
WHY = {
    400: "The Host header is not localhost on a loopback server (bad_host), or the request names something "
         "of the wrong kind (not_paged, chunk_not_in_document), or the study service cannot do it (study_error: "
         "no rating for a self-graded item, a card held back, no question matches).",
    401: "No or a wrong bearer token (unauthorized).",
    403: "The token's profile may not do this (not_allowed): the admin asking for a student's data, a student "
         "for the class aggregates.",
    404: "Not found: chapter_not_found (with `close`), document_not_found, chunk_not_found, page_not_found, "
         "source_missing, source_changed, syllabus_missing, node_not_found, item_not_found, not_found.",
    408: "The request body did not arrive in time (body_timeout).",
    413: "The request body is over the limit (body_too_large).",
    422: "A parameter or the body is invalid (invalid_request, bad_session).",
    503: "No index yet (index_missing), the answer queue is full (busy) or no answer in time (timeout); "
         "see Retry-After.",
}


def errors(*codes: int) -> dict:
    """The ``responses=`` of a route that can fail with ``codes`` (400 always: the Host check)."""
    return {code: {"model": ErrorBody, "description": WHY[code]} for code in sorted({400, *codes})}
