"""Start the server: refuse an unsafe bind, bind the socket ourselves (a taken port is one line, not a
traceback), then run uvicorn on it with the guarded protocol (pipeline/serve/protocol.py)."""

from __future__ import annotations

import socket
import sys

from pipeline.serve.app import create_app
from pipeline.serve.auth import is_loopback
from pipeline.settings import Settings

MAX_CONNECTIONS = 256  # beyond this uvicorn answers 503 at once instead of queueing sockets


class BindRefused(Exception):
    """The server must not start with these settings (exit 2)."""


class BindFailed(Exception):
    """The address could not be bound (exit 1)."""


def check_bind(host: str, token: str | None) -> None:
    """Loopback is always allowed; any other address only with an API token."""
    if not is_loopback(host) and not token:
        raise BindRefused(f"refusing to serve on {host}: beyond loopback every /api/* request must carry a token; "
                          "set EXAMRAG_API_TOKEN, or keep the default --host 127.0.0.1")


def bind(host: str, port: int) -> socket.socket:
    try:
        family, kind, proto, _, addr = socket.getaddrinfo(host.strip("[]"), port, type=socket.SOCK_STREAM,
                                                          flags=socket.AI_PASSIVE)[0]
        sock = socket.socket(family, kind, proto)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(addr)
    except OSError as exc:
        raise BindFailed(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    sock.set_inheritable(True)
    return sock


def uvicorn_config(app, settings: Settings, **overrides):
    """The uvicorn configuration `serve` runs with (the tests' live server uses it too)."""
    import uvicorn

    from pipeline.serve.protocol import guarded_protocol

    options = dict(log_level="warning", access_log=False, timeout_graceful_shutdown=3,
                   limit_concurrency=MAX_CONNECTIONS, server_header=False,
                   http=guarded_protocol(settings.serve.header_timeout, max_per_client=settings.serve.max_per_client))
    return uvicorn.Config(app, **{**options, **overrides})


def serve(settings: Settings) -> None:
    """Run until Ctrl-C. Raises BindRefused / BindFailed before anything is served."""
    import uvicorn

    cfg = settings.serve
    check_bind(cfg.host, cfg.api_token)
    sock = bind(cfg.host, cfg.port)
    app = create_app(settings)
    shown = f"[{cfg.host}]" if ":" in cfg.host else cfg.host
    print(f"examrag: serving {settings.data_dir} on http://{shown}:{cfg.port}/ "
          f"(API docs /docs{', token required on /api/*' if cfg.api_token else ''}); Ctrl-C to stop",
          file=sys.stderr, flush=True)
    uvicorn.Server(uvicorn_config(app, settings)).run(sockets=[sock])
