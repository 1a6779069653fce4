"""`ingest` and the one-stage commands (`parse`, `clean`, …, read from the stage registry)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from pipeline.cli.common import DataDir, Force, Quiet, _fail, _settings, app
from pipeline.cli.display import ingest_display
from pipeline.stages import STAGES


def _run_stages(stages: list[str], raw_dir: Optional[Path], data_dir: Optional[Path], force: bool, quiet: bool,
                abort_on_error: bool, wait: float = 0.0) -> None:
    """Print one line per file (its worst status), every problem on stderr, and a summary. Exit 1 if a
    file failed or another writer holds the lock, 130 on Ctrl-C."""
    from pipeline.executors import ClusterError
    from pipeline.ingest import run_stages
    from pipeline.store import LockBusy, ManifestError

    settings = _settings(data_dir)
    try:
        with ingest_display(quiet=quiet):
            result = run_stages(settings, stages, raw_dir, force=force, quiet=quiet, abort_on_error=abort_on_error,
                                wait=wait)
    except (LockBusy, ManifestError, ClusterError) as exc:
        _fail(str(exc))
    except KeyboardInterrupt:
        typer.echo("\nInterrupted: finished documents are kept; run the same command again to continue.", err=True)
        raise typer.Exit(130)
    for f in result.files():
        note = f": {f.detail}" if f.detail else ""
        note += f" (also as: {', '.join(f.also_as)})" if f.also_as else ""
        typer.echo(f"{f.status:<8} {f.source}{note}")
    for line in result.error_lines():
        typer.echo(f"  {line}", err=True)
    tally = result.tally()
    summary = f"{sum(tally.values())} file(s): " + ", ".join(f"{tally[st]} {st}" for st in
                                                             ("success", "partial", "skipped", "failed") if tally[st])
    if abort_on_error and tally["failed"]:
        summary += " (stopped at the first failure: --abort-on-error)"
    c = result.counts
    if "manifest" in c:
        summary += f"; chunks {c['manifest']} (vectors {c['vectors']}, newly embedded {c['embedded']}, removed {c['deleted']})"
    typer.echo(f"{summary}; {result.seconds:.1f}s")
    if tally["failed"]:
        raise typer.Exit(1)


@app.command()
def ingest(raw_dir: Annotated[Path, typer.Argument(help="Folder with PDFs, scans, notes.", exists=True, file_okay=False)],
           data_dir: DataDir = None, force: Force = False, quiet: Quiet = False,
           abort_on_error: Annotated[bool, typer.Option("--abort-on-error", help="Stop at the first file that fails (default: finish the others, then exit 1).")] = False,
           wait: Annotated[float, typer.Option("--wait", min=0, help="If another ingest holds the data dir, wait up to this many seconds for it (default: exit 1 at once).")] = 0.0):
    """Parse → clean → enrich → index every supported file under RAW_DIR (only what changed).

    Prints one line per file (success / partial / failed / skipped) and each problem as "file (第N页): stage: cause" on stderr; the same lines go to data/manifest.json.

    Exit 0 when nothing failed; 1 when a file failed (the others are still ingested) or another ingest is running; 130 on Ctrl-C (finished documents are kept; re-run to continue)."""
    _run_stages([], raw_dir, data_dir, force, quiet, abort_on_error, wait)


def _stage_command(name: str, summary: str):
    def command(data_dir: DataDir = None, force: Force = False, quiet: Quiet = False):
        _run_stages([name], None, data_dir, force, quiet, False)

    command.__doc__ = f"Re-run the {name} stage ({summary}) for documents whose input to it changed."
    return command


for _stage in STAGES:
    app.command(name=_stage.name)(_stage_command(_stage.name, _stage.summary))
