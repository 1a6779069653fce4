"""The HTTP protocol `serve` runs: uvicorn's own, plus a deadline and a size cap on request headers.

Why: uvicorn starts its keep-alive timer only after a response, so a connection that sends its
headers one byte a second, or nothing at all, was held open for ever; with the server's 256
connections cap, anyone on the network could take every slot before a token was checked. And
uvicorn's httptools parser has no header size limit.

The choice: keep uvicorn (the server every test, the benchmarks and the real-browser test run on;
its streaming and disconnect handling is what the SSE answers rely on) and subclass the protocol it
would pick itself (httptools when installed, else h11) with a timer, rather than switch to hypercorn
(``read_timeout``) or granian (``header_read_timeout``): the timer is ~60 lines over hooks uvicorn's
protocol already has, adds no package, and changes nothing else the server does. A connection must deliver a complete request head within ``header_timeout`` seconds
(``EXAMRAG_SERVE_HEADER_TIMEOUT``, 10) of being opened or of its previous response; otherwise it gets
408 (if it sent anything) and is closed. A head over :data:`MAX_HEADER_BYTES` gets 431 and is closed.
The body has its own deadline and limit (pipeline/serve/limits.py).
"""

from __future__ import annotations

import asyncio
from typing import Optional

from uvicorn.protocols.http.auto import AutoHTTPProtocol

MAX_HEADER_BYTES = 64 * 1024


def _reply(status: bytes) -> bytes:
    return b"HTTP/1.1 " + status + b"\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"


class _HeaderDeadline:
    """Mixin over a uvicorn HTTP protocol. The timer runs while the connection waits for a request
    head: from connection_made, and again from each response that leaves no pipelined request."""

    header_timeout: float = 10.0
    max_header_bytes: int = MAX_HEADER_BYTES

    _header_timer: Optional[asyncio.TimerHandle] = None
    _waiting_since_cycle = None  # the request cycle current when the timer was armed
    _head_bytes = 0

    def connection_made(self, transport) -> None:
        super().connection_made(transport)
        self._arm()

    def data_received(self, data: bytes) -> None:
        waiting = self._header_timer is not None
        if waiting:
            self._head_bytes += len(data)
        super().data_received(data)
        if not waiting or self._header_timer is None:
            return
        if self.cycle is not self._waiting_since_cycle:
            self._disarm()  # a new request's head is complete: the app has it
        elif self._head_bytes > self.max_header_bytes:
            self._refuse(b"431 Request Header Fields Too Large")

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing() and (self.cycle is None or self.cycle.response_complete):
            self._arm()

    def connection_lost(self, exc) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _arm(self) -> None:
        self._disarm()
        self._waiting_since_cycle, self._head_bytes = self.cycle, 0
        self._header_timer = self.loop.call_later(self.header_timeout, self._timed_out)

    def _disarm(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def _timed_out(self) -> None:
        self._header_timer = None
        if self._head_bytes:
            self._refuse(b"408 Request Timeout")
        elif not self.transport.is_closing():
            self.transport.close()

    def _refuse(self, status: bytes) -> None:
        self._disarm()
        if not self.transport.is_closing():
            self.transport.write(_reply(status))
            self.transport.close()


def guarded_protocol(header_timeout: float, max_header_bytes: int = MAX_HEADER_BYTES) -> type[asyncio.Protocol]:
    """The protocol class for ``uvicorn.Config(http=…)``."""
    return type("GuardedHttpProtocol", (_HeaderDeadline, AutoHTTPProtocol),
                {"header_timeout": float(header_timeout), "max_header_bytes": int(max_header_bytes)})
