"""`mcp`: examrag as an MCP server for desktop assistants and agents (pipeline.mcp)."""

from __future__ import annotations

from typing import Annotated

import typer

from pipeline.cli.common import DataDir, _fail, _settings, app


@app.command()
def mcp(http: Annotated[bool, typer.Option("--http", help="Serve streamable HTTP on --host:--port at /api/mcp instead of stdio.")] = False,
        host: Annotated[str, typer.Option("--host", help="With --http: address to bind. Beyond loopback needs EXAMRAG_API_TOKEN.")] = "127.0.0.1",
        port: Annotated[int, typer.Option("--port", min=0, max=65535, help="With --http: port (0 picks a free one, printed on stderr).")] = 8409,
        data_dir: DataDir = None):
    """An MCP server over the query service: tools search, ask, lookup_question, practice_questions, status;
    passages as resources examrag://chunk/{id}.

    Over stdio by default (what a desktop assistant starts; see README "Use from an agent"). With --http,
    streamable HTTP at http://127.0.0.1:8409/api/mcp, with serve's rules: loopback only without
    EXAMRAG_API_TOKEN; with it, every request sends Authorization: Bearer <token>.
    Exit 2 for a bind beyond loopback without a token, 1 when the port cannot be bound."""
    settings = _settings(data_dir)
    if not http:
        from pipeline.mcp import run_stdio

        run_stdio(settings)
        return
    from pipeline.mcp import run_http
    from pipeline.serve.run import BindFailed, BindRefused

    try:
        run_http(settings, host, port)
    except BindRefused as exc:
        _fail(str(exc), 2)
    except BindFailed as exc:
        _fail(str(exc))
