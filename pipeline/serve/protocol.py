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

The deadline alone still lets one host hold every slot by reconnecting each 10 s, so a client address
beyond loopback may keep at most ``max_per_client`` connections open (``EXAMRAG_SERVE_MAX_PER_CLIENT``, 32: a
browser opens 6 per host, an SSE answer holds one); one more is answered 429 and closed before it
counts. Loopback is the machine's owner (and the load benchmarks), so it is not capped.
"""

from __future__ import annotations

import asyncio
import ipaddress
from typing import ClassVar, Optional

from uvicorn.protocols.http.auto import AutoHTTPProtocol

MAX_HEADER_BYTES = 64 * 1024
MAX_PER_CLIENT = 32


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
    max_per_client: int = MAX_PER_CLIENT
    cap_loopback: bool = False
    _open_per_client: ClassVar[dict[str, int]] = {}  # replaced by a fresh dict per server in guarded_protocol
    _client: Optional[str] = None  # the address this connection is counted under

    def connection_made(self, transport) -> None:
        super().connection_made(transport)
        client = _client_address(transport)
        if client is not None and self.max_per_client and (self.cap_loopback or not _is_loopback(client)):
            if self._open_per_client.get(client, 0) >= self.max_per_client:
                self._refuse(b"429 Too Many Requests")
                return
            self._open_per_client[client] = self._open_per_client.get(client, 0) + 1
            self._client = client
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
        if self._client is not None:
            left = self._open_per_client.get(self._client, 1) - 1
            if left > 0:
                self._open_per_client[self._client] = left
            else:
                self._open_per_client.pop(self._client, None)
            self._client = None
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


def _client_address(transport) -> Optional[str]:
    peer = transport.get_extra_info("peername")
    return str(peer[0]) if isinstance(peer, (tuple, list)) and peer else None


def _is_loopback(address: str) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    mapped = getattr(ip, "ipv4_mapped", None)  # ::ffff:127.0.0.1
    return (mapped or ip).is_loopback


def guarded_protocol(header_timeout: float, max_header_bytes: int = MAX_HEADER_BYTES, *,
                     max_per_client: int = MAX_PER_CLIENT, cap_loopback: bool = False) -> type[asyncio.Protocol]:
    """The protocol class for ``uvicorn.Config(http=…)``: one per server, with its own per-client counts
    (``cap_loopback`` lets a test on 127.0.0.1 meet the per-client cap)."""
    return type("GuardedHttpProtocol", (_HeaderDeadline, AutoHTTPProtocol),
                {"header_timeout": float(header_timeout), "max_header_bytes": int(max_header_bytes),
                 "max_per_client": int(max_per_client), "cap_loopback": bool(cap_loopback),
                 "_open_per_client": {}})
