"""Who may talk to the server: the loopback test, the Host check and the bearer token.

Small and free of FastAPI on purpose: any HTTP front end of the query service (this web app, an MCP
HTTP transport) imports :func:`is_loopback`, :func:`bearer_matches` and :class:`Guard` from here, so
the rules are one piece of code.
"""

from __future__ import annotations

import hmac
import ipaddress
from typing import Iterable, Optional

from pipeline.serve.errors import error_response

SAFE_HEADERS = [(b"x-content-type-options", b"nosniff"), (b"referrer-policy", b"no-referrer"),
                (b"x-frame-options", b"DENY")]
TOKEN_HINT = "send the header Authorization: Bearer <EXAMRAG_API_TOKEN>"


def is_loopback(host: str) -> bool:
    """``localhost`` or a loopback address (``127.0.0.0/8``, ``::1``), brackets allowed."""
    host = host.strip().strip("[]")
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def host_of(header: str) -> str:
    """The host part of a Host header (``[::1]:8408`` → ``::1``, ``localhost:8408`` → ``localhost``)."""
    if header.startswith("["):
        return header[1:].split("]", 1)[0]
    return header.rsplit(":", 1)[0] if header.count(":") == 1 else header


def bearer_matches(authorization: bytes, token: str) -> bool:
    """Whether an ``Authorization`` header value (raw bytes, as they came) carries ``token``.

    Compared as UTF-8 bytes in constant time: a token may hold any characters (HTTP clients send a
    header's bytes as they are; decoding them as Latin-1 first made a non-Latin-1 token never match)."""
    scheme, _, given = authorization.partition(b" ")
    return scheme.lower() == b"bearer" and hmac.compare_digest(given.strip(), token.encode("utf-8"))


def header(headers: Iterable[tuple[bytes, bytes]], name: bytes) -> bytes:
    """The first value of header ``name`` (lower case) in an ASGI header list, b"" if absent."""
    return next((v for k, v in headers if k.lower() == name), b"")


class Guard:
    """Pure ASGI middleware (never buffers a stream): the Host check that stops DNS rebinding while
    bound to loopback, the bearer token on /api/* (before any body is read), and safe response headers."""

    def __init__(self, app, *, token: Optional[str], loopback_only: bool):
        self.app, self.token, self.loopback_only = app, token, loopback_only

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        headers = scope.get("headers", [])
        if self.loopback_only and not is_loopback(host_of(header(headers, b"host").decode("latin-1"))):
            return await error_response(400, "bad_host", "this server answers only to localhost / 127.0.0.1 "
                                        "(Host header refused)")(scope, receive, send)
        if self.token and scope["path"].startswith("/api/") and \
                not bearer_matches(header(headers, b"authorization"), self.token):
            return await error_response(401, "unauthorized", TOKEN_HINT,
                                        {"WWW-Authenticate": "Bearer"})(scope, receive, send)

        async def send_with_headers(message):
            if message["type"] == "http.response.start":
                message = {**message, "headers": list(message.get("headers", [])) + SAFE_HEADERS}
            await send(message)

        await self.app(scope, receive, send_with_headers)
