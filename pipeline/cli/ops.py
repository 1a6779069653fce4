"""Operating the install: `doctor` and `serve`."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from pipeline.cli.common import DataDir, Json, _echo_json, _fail, _settings, app


@app.command()
def doctor(as_json: Json = False, data_dir: DataDir = None):
    """Check this install: Python, pinned packages, model files (sha256), LLM, OCR, disk, Chroma.

    One line per component: ok, off (switched off in the settings) or failed with the one-line fix.
    Takes tens of seconds (it imports every package and loads the models). Exit 0 when nothing failed, else 1."""
    from pipeline.doctor import iter_checks

    checks = []
    for check in iter_checks(_settings(data_dir)):
        checks.append(check)
        if not as_json:
            typer.echo(check.line())
    failed = [c for c in checks if not c.ok]
    if as_json:
        _echo_json({"ok": not failed, "checks": [c.to_dict() for c in checks]})
    else:
        typer.echo(f"{len(checks) - len(failed)} of {len(checks)} checks passed" + ("" if not failed else
                   f"; failed: {', '.join(c.name for c in failed)}"))
    if failed:
        raise typer.Exit(1)


@app.command()
def serve(host: Annotated[Optional[str], typer.Option("--host", help="Address to bind (default 127.0.0.1, env EXAMRAG_SERVE_HOST). Beyond loopback needs EXAMRAG_API_TOKEN.")] = None,
          port: Annotated[Optional[int], typer.Option("--port", min=1, max=65535, help="Port (default 8408, env EXAMRAG_SERVE_PORT).")] = None,
          data_dir: DataDir = None):
    """The study web app and HTTP API on http://127.0.0.1:8408/ (ask, past-paper practice, status; /docs).

    Serves the last published index while an ingest runs. Exit 2 for a bind beyond loopback without
    EXAMRAG_API_TOKEN, 1 when the port cannot be bound."""
    from pipeline.serve.run import BindFailed, BindRefused
    from pipeline.serve.run import serve as run_server

    try:
        run_server(_settings(data_dir, serve_host=host, serve_port=port))
    except BindRefused as exc:
        _fail(str(exc), 2)
    except BindFailed as exc:
        _fail(str(exc))
