"""The examrag command line's shared parts: the Typer app, common options, settings, errors.

The command line: parses options, calls the stage registry (pipeline.ingest) or the query service
(pipeline.ask.service), prints text or --json. No retrieval, answering or eval logic lives here.

Exit codes: 0 success; 1 something failed (other files still processed; or the LLM was unavailable and
only passages were printed; or an unknown --chapter; or another ingest holds the data dir; or the
cluster at EXAMRAG_CLUSTER cannot be used); 2 usage error
(including a setting with an impossible value); 130 interrupted.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Optional

import typer

app = typer.Typer(add_completion=False, no_args_is_help=True, help="examrag: cited answers from your own 408 material, offline.")

DataDir = Annotated[Optional[Path], typer.Option("--data-dir", help="Data directory (default data/, env EXAMRAG_DATA_DIR).")]
Quiet = Annotated[bool, typer.Option("--quiet", "-q", help="No live progress display (it is shown only on a terminal anyway).")]
Force = Annotated[bool, typer.Option("--force", help="Redo every document, not only changed ones.")]
Json = Annotated[bool, typer.Option("--json", help="Print one JSON object.")]
Mode = Annotated[Optional[str], typer.Option("--mode", help="hybrid | bm25 | vector")]


def _settings(data_dir: Optional[Path], **overrides):
    from pipeline.settings import SettingsError, load_settings

    try:
        return load_settings(data_dir=data_dir, **overrides)
    except SettingsError as exc:
        _fail(str(exc), 2)


def _service(data_dir: Optional[Path], **overrides):
    from pipeline.ask.service import QueryService

    return QueryService(_settings(data_dir, **overrides))


def _echo_json(obj) -> None:
    typer.echo(json.dumps(obj, ensure_ascii=False, indent=1))


def _fail(msg: str, code: int = 1):
    typer.echo(f"Error: {msg}", err=True)
    raise typer.Exit(code)
