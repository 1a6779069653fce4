"""Limits on what a request may bring: the body (size and time) and every string field.

A body is read whole here, before any route parses it: more than :data:`MAX_BODY` bytes is refused
with 413 — by its Content-Length before a byte is read, or counted as a chunked body arrives — and a
body not complete within the header timeout gets 408. Both close the connection (the rest of the
body is never read). The largest valid request, an ask with every field at its limit and every
character JSON-escaped, is under 6 KB.
"""

from __future__ import annotations

import anyio

from pipeline.serve.auth import header
from pipeline.serve.errors import error_response

MAX_BODY = 32 * 1024
MAX_QUESTION = 500  # characters of a question (as `ask`)
MAX_CHAPTER = 200  # characters of a chapter filter: longer than any heading path
MAX_NAME = 64  # a session name, a document or chunk id
MAX_SECTION = 1000  # a joined chapter path (/api/section)

CLOSE = {"Connection": "close"}


class BodyLimit:
    """Pure ASGI middleware: the whole body within ``max_bytes`` and ``timeout`` s, then replayed to
    the app; later ``receive()`` calls (the disconnect a stream listens for) pass straight through."""

    def __init__(self, app, *, max_bytes: int = MAX_BODY, timeout: float = 10.0):
        self.app, self.max_bytes, self.timeout = app, max_bytes, timeout

    async def __call__(self, scope, receive, send):
        headers = scope.get("headers", []) if scope["type"] == "http" else []
        length = header(headers, b"content-length")
        chunked = b"chunked" in header(headers, b"transfer-encoding").lower()
        if scope["type"] != "http" or not (length or chunked):
            return await self.app(scope, receive, send)
        too_large = error_response(413, "body_too_large", f"the request body is over {self.max_bytes} bytes", CLOSE)
        if length and (not length.isdigit() or int(length) > self.max_bytes):
            return await too_large(scope, receive, send)
        parts, size, more = [], 0, True
        with anyio.move_on_after(self.timeout):
            while more:
                message = await receive()
                if message["type"] == "http.disconnect":
                    return  # the client went away mid-body: nobody to answer
                part = message.get("body", b"")
                size += len(part)
                if size > self.max_bytes:
                    return await too_large(scope, receive, send)
                parts.append(part)
                more = message.get("more_body", False)
        if more:
            return await error_response(408, "body_timeout", f"the request body did not arrive within "
                                        f"{self.timeout:g}s", CLOSE)(scope, receive, send)
        replay = [{"type": "http.request", "body": b"".join(parts), "more_body": False}]

        async def replayed():
            return replay.pop() if replay else await receive()

        await self.app(scope, replayed, send)
