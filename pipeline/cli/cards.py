"""Study material and access: `cards`, `export anki`, `users` (through the study service)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from pipeline.cli.common import DataDir, Json, _echo_json, _fail, app
from pipeline.cli.study import _errors, _study

export_app = typer.Typer(no_args_is_help=True, help="Export study material to other tools.")
users_app = typer.Typer(no_args_is_help=True, help="Students and the admin of a class server (per-user tokens).")
app.add_typer(export_app, name="export")
app.add_typer(users_app, name="users")


def _show_card(c) -> None:
    flag = f"  ⚠ {c.flag}" if c.flag else ""
    typer.echo(f"{c.item_id} [{c.card_type}] {c.front}\n    → {c.back[:120]}\n    {c.citation}{flag}")


@app.command()
def cards(chapter: Annotated[Optional[str], typer.Option("--chapter", help="Make cards from the sections under a heading matching this.")] = None,
          llm: Annotated[bool, typer.Option("--llm", help="Also let the LLM write cards; kept only when the claim check backs them.")] = False,
          list_only: Annotated[bool, typer.Option("--list", help="List stored cards, make none.")] = False,
          flagged: Annotated[bool, typer.Option("--flagged", help="List the cards held back because their source changed.")] = False,
          as_json: Json = False, data_dir: DataDir = None):
    """Review cards (definition, cloze) quoted from the material, each with its citation."""
    svc = _study(data_dir)
    try:
        if chapter and not (list_only or flagged):
            report = svc.make_cards(chapter, use_llm=llm)
        else:
            listed = svc.cards(chapter, flagged=True if flagged else None)
            report = None
    except _errors() as exc:
        _fail(str(exc))
    if report is None:
        if as_json:
            _echo_json([c.model_dump(mode="json") for c in listed])
            return
        for c in listed:
            _show_card(c)
        typer.echo(f"{len(listed)} card(s)")
        return
    if as_json:
        _echo_json(report.model_dump(mode="json"))
        return
    for c in report.made + report.confirmed + report.kept:
        _show_card(c)
    for r in report.rejected:
        typer.echo(f"rejected (claim check): {r['front']} → {r['back'][:60]}: {r['reason']}", err=True)
    typer.echo(f"{len(report.made)} new, {len(report.confirmed)} re-made from changed material, "
               f"{len(report.kept)} already stored" + (f", {len(report.rejected)} model-written rejected" if llm else ""))


@export_app.command("anki")
def export_anki(output: Annotated[Path, typer.Option("--output", "-o", help="The .apkg file to write.")],
                chapter: Annotated[Optional[str], typer.Option("--chapter", help="Only questions and cards of a chapter matching this.")] = None,
                deck: Annotated[Optional[str], typer.Option("--deck", help="Deck name (default: examrag <chapter>).")] = None,
                as_json: Json = False, data_dir: DataDir = None):
    """An Anki deck of past-paper questions and cards; re-exporting updates the same notes (stable GUIDs)."""
    svc = _study(data_dir)
    try:
        summary = svc.export_anki(output, chapter=chapter, deck=deck)
    except _errors() as exc:
        _fail(str(exc))
    if as_json:
        _echo_json(summary)
        return
    typer.echo(f"{summary['path']}: {summary['questions']} question(s), {summary['cards']} card(s), "
               f"{summary['figures']} figure(s)")
    for q in summary["figures_missing"]:
        typer.echo(f"{q}: its figure was not exported: the original file is missing or changed since ingest", err=True)


@users_app.command("add")
def users_add(name: Annotated[str, typer.Argument(help="The student's profile name.")],
              admin: Annotated[bool, typer.Option("--admin", help="The class admin: sees class aggregates only.")] = False,
              rotate: Annotated[bool, typer.Option("--rotate", help="Issue a new token for an existing user (the old one stops working).")] = False,
              as_json: Json = False, data_dir: DataDir = None):
    """Issue a per-user token for `serve` beyond loopback. It is printed once; only its hash is stored."""
    svc = _study(data_dir)
    try:
        profile, token = svc.add_user(name, admin=admin, rotate=rotate)
    except _errors() as exc:
        _fail(str(exc))
    if as_json:
        _echo_json({"profile": profile.model_dump(mode="json"), "token": token})
        return
    typer.echo(f"{profile.role} {profile.name}: token (shown once, keep it):\n{token}")


@users_app.command("list")
def users_list(as_json: Json = False, data_dir: DataDir = None):
    """Profiles, roles and whether each holds a token (tokens are never shown again)."""
    rows = _study(data_dir).users()
    if as_json:
        _echo_json(rows)
        return
    for r in rows:
        typer.echo(f"{r['name']}  {r['role']}  {'token' if r['has_token'] else 'no token'}")
