"""Who may talk to the server: the loopback test, the Host check and the bearer token.

Small and free of FastAPI on purpose: any HTTP front end of the query service (this web app, an MCP
HTTP transport) imports :func:`is_loopback`, :func:`bearer_matches` and :class:`Guard` from here, so
the rules are one piece of code.
"""

from __future__ import annotations

import hmac
import ipaddress
from datetime import datetime, timezone
from typing import Callable, Iterable, Optional

import anyio

from pipeline.serve.errors import error_response
from pipeline.study.models import Profile

SAFE_HEADERS = [(b"x-content-type-options", b"nosniff"), (b"referrer-policy", b"no-referrer"),
                (b"x-frame-options", b"DENY")]
TOKEN_HINT = "send the header Authorization: Bearer <EXAMRAG_API_TOKEN or your own token from `cli.py users add NAME`>"
STUDENT_PREFIX = b"exr_"  # pipeline/study/users.py: a per-user token
# the holder of the server's own token (EXAMRAG_API_TOKEN): the admin, who sees class aggregates only
SERVER_ADMIN = Profile(id=0, name="admin", role="admin", created_at=datetime(2026, 1, 1, tzinfo=timezone.utc))


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


def caller(request) -> Optional[Profile]:
    """Who a request acts as: the profile its token names (``request.state.profile``, set by
    :class:`Guard`), None for the loopback owner (no tokens: the CLI's ``default`` profile)."""
    return getattr(request.state, "profile", None)


class Guard:
    """Pure ASGI middleware (never buffers a stream): the Host check that stops DNS rebinding while
    bound to loopback, the bearer token on /api/* (before any body is read), and safe response headers.

    Tokens: the server's own ``token`` (EXAMRAG_API_TOKEN) acts as the admin (:data:`SERVER_ADMIN`);
    a per-user token (``exr_…``, `cli.py users add`) as the profile ``authenticate`` returns for it,
    checked on every request (a rotated token stops at once). Either way the profile goes into
    ``scope["state"]["profile"]`` (``request.state.profile``), and only from the token: nothing a
    request says can name another profile. Without a server token (loopback only) a request with no
    live per-user token acts as the owner (no profile set: the views use ``default``)."""

    def __init__(self, app, *, token: Optional[str], loopback_only: bool,
                 authenticate: Optional[Callable[[str], Optional[Profile]]] = None):
        self.app, self.token, self.loopback_only, self.authenticate = app, token, loopback_only, authenticate

    async def profile_of(self, authorization: bytes) -> Optional[Profile]:
        """The profile a bearer header acts as; None for no or a dead token."""
        if self.token and bearer_matches(authorization, self.token):
            return SERVER_ADMIN
        scheme, _, given = authorization.partition(b" ")
        given = given.strip()
        if scheme.lower() != b"bearer" or self.authenticate is None or not given.startswith(STUDENT_PREFIX):
            return None
        try:
            text = given.decode("ascii")
        except UnicodeDecodeError:
            return None
        return await anyio.to_thread.run_sync(self.authenticate, text)  # a SQLite read: off the event loop

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        headers = scope.get("headers", [])
        if self.loopback_only and not is_loopback(host_of(header(headers, b"host").decode("latin-1"))):
            return await error_response(400, "bad_host", "this server answers only to localhost / 127.0.0.1 "
                                        "(Host header refused)")(scope, receive, send)
        if scope["path"].startswith("/api/"):
            authorization = header(headers, b"authorization")
            profile = await self.profile_of(authorization) if authorization else None
            if self.token and profile is None:
                return await error_response(401, "unauthorized", TOKEN_HINT,
                                            {"WWW-Authenticate": "Bearer"})(scope, receive, send)
            scope = {**scope, "state": {**scope.get("state", {}), "profile": profile}}

        async def send_with_headers(message):
            if message["type"] == "http.response.start":
                message = {**message, "headers": list(message.get("headers", [])) + SAFE_HEADERS}
            await send(message)

        await self.app(scope, receive, send_with_headers)
