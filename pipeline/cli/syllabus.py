"""The syllabus commands: `map` (the 考纲地图, through the query service) and `place` (the syllabus step alone)."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from pipeline.cli.common import DataDir, Force, Json, _echo_json, _fail, _settings, app

BAR = "█"


def _years_line(by_year: dict[str, int], years: list[int]) -> str:
    return " ".join(f"{str(y)[2:]}:{by_year.get(str(y), 0)}" for y in years if by_year.get(str(y)))


@app.command(name="map")
def map_(node: Annotated[Optional[str], typer.Argument(help="Only this node and what is under it: a --chapter text (查找) or a node id.")] = None,
         depth: Annotated[int, typer.Option("--depth", min=0, max=3, help="Deepest level shown in text: 0 subjects, 1 chapters (五、查找), 2 sections, 3 points.")] = 2,
         as_json: Json = False, data_dir: DataDir = None):
    """The syllabus map (考纲地图): per syllabus node its past-paper questions by year with points, the
    chunks of your material that cover it and from which files, and the gaps (nodes the exam tests that no
    material covers; nodes never tested).

    Read from what the last ingest (or `place`) computed: no index is opened. Exit 1 without a syllabus."""
    from pipeline.syllabus.view import SyllabusMissing, SyllabusView

    try:  # the syllabus floor's read side directly (the query service gives the same): no index, no LLM imports
        data = SyllabusView.require(_settings(data_dir).data_dir).map_json(node)
    except SyllabusMissing as exc:
        _fail(str(exc))
    except KeyError:
        _fail(f"no syllabus node matches '{node}'")
    if as_json:
        _echo_json(data)
        return
    if "chapter" in data:
        typer.echo(data["chapter"]["note"], err=True)
    years = data["years"]
    c = data["counts"]
    typer.echo(f"考纲：{data['source']}（{c.get('chapter', 0)} 个一级、{c.get('section', 0)} 个二级考点；"
               f"真题 {c.get('questions_placed', 0)}/{c.get('questions', 0)} 道已定位，资料片段 {c.get('chunks_placed', 0)} 个）")
    top = max((sum(n["by_year"].values()) for n in data["nodes"] if n["level"] == 1), default=1) or 1
    for n in data["nodes"]:
        if n["level"] > depth:
            continue
        asked = sum(n["by_year"].values())
        points = sum(n["points_by_year"].values())
        bar = BAR * round(10 * asked / top) if n["level"] == 1 else ""
        material = f"资料 {n['chunks']} 段（{len(n['sources'])} 个文件）" if n["chunks"] else "资料未覆盖"
        head = "  " * n["level"] + n["heading"]
        typer.echo(f"{head}  真题 {asked} 道 {points:g} 分 {bar}  {material}")
        if asked and n["level"] >= 1:
            typer.echo("  " * (n["level"] + 1) + _years_line(n["by_year"], years))
    gaps = data["gaps"]
    typer.echo(f"\n考过但资料未覆盖（{len(gaps['tested_not_covered'])}）：")
    for path in gaps["tested_not_covered"]:
        typer.echo("  " + " › ".join(path))
    typer.echo(f"从未考过（{len(gaps['never_tested'])}）：")
    for path in gaps["never_tested"]:
        typer.echo("  " + " › ".join(path))


@app.command()
def place(data_dir: DataDir = None, force: Force = False, as_json: Json = False):
    """Re-run the syllabus step alone: find the syllabus, place every chunk and past-paper record on it,
    rebuild the map (also part of `ingest`, after index). Only redoes what changed: the syllabus, the rules
    (`syllabus_rules_file`) or the indexed chunks. Exit 1 when the syllabus or rules file is bad."""
    from pipeline.ingest import run_syllabus
    from pipeline.store import LockBusy, ManifestError

    try:
        report = run_syllabus(_settings(data_dir), force=force)
    except (LockBusy, ManifestError) as exc:
        _fail(str(exc))
    if as_json:
        _echo_json(report.model_dump(mode="json"))
    else:
        for d in report.docs:
            typer.echo(f"{d.status.value:<8} {d.source}" + (f": {d.detail}" if d.detail else ""))
        for d in report.docs:
            for e in d.errors:
                typer.echo(f"  {e.line()}", err=True)
        if not report.docs:
            typer.echo("no syllabus found: chapter filters use the material's headings")
        typer.echo(f"{report.counts.get('placed_questions', 0)} question(s) and {report.counts.get('placed_chunks', 0)} "
                   f"chunk(s) placed; {report.seconds:.1f}s")
    if report.failed:
        raise typer.Exit(1)
