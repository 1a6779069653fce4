"""The examrag command line (``python cli.py …`` or the ``examrag`` console script).

Commands live in small modules by area (``ingest``, ``query``, ``syllabus``, ``study``, ``cards``, ``ops``, ``mcp``); importing them registers them
on :data:`app`. Exit codes are listed in :mod:`pipeline.cli.common`.
"""

from __future__ import annotations

import sys

import typer

from pipeline.cli import ingest, query, syllabus, study, cards, ops, mcp  # noqa: F401, I001 - importing registers the commands, in help order
from pipeline.cli.common import app

__all__ = ["app", "main"]


def main() -> None:
    """Run the app. Typer turns Ctrl-C inside a command into exit 130 silently; ingest catches it itself
    to say what was kept. This catches the rest: Ctrl-C before Typer took over (e.g. during imports)."""
    try:
        app()
    except KeyboardInterrupt:
        typer.echo("Interrupted; finished work is kept, re-run to continue.", err=True)
        sys.exit(130)
