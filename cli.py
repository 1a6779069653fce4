"""examrag command line: parses options, calls the stage registry (pipeline.ingest) or the query service
(pipeline.ask.service), prints text or --json. No retrieval, answering or eval logic lives here.

Exit codes: 0 success; 1 something failed (other files still processed; or the LLM was unavailable and
only passages were printed; or an unknown --chapter; or another ingest holds the data dir; or the
cluster at EXAMRAG_CLUSTER cannot be used); 2 usage error
(including a setting with an impossible value); 130 interrupted.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

from pipeline.stages import STAGES

app = typer.Typer(add_completion=False, no_args_is_help=True, help="examrag: cited answers from your own 408 material, offline.")

DataDir = Annotated[Optional[Path], typer.Option("--data-dir", help="Data directory (default data/, env EXAMRAG_DATA_DIR).")]
Quiet = Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")]
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


def _run_stages(stages: list[str], raw_dir: Optional[Path], data_dir: Optional[Path], force: bool, quiet: bool,
                abort_on_error: bool, wait: float = 0.0) -> None:
    """Print one line per file (its worst status), every problem on stderr, and a summary. Exit 1 if a
    file failed or another writer holds the lock, 130 on Ctrl-C."""
    from pipeline.executors import ClusterError
    from pipeline.ingest import run_stages
    from pipeline.store import LockBusy, ManifestError

    settings = _settings(data_dir)
    try:
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


def _print_answer(result, *, streamed: bool) -> None:
    """The answer (unless it was streamed as it came), the study extras, then the cited passages."""
    from pipeline.ask.service import render

    if streamed:
        typer.echo("")
    else:
        text = render(result)
        if text:
            typer.echo(text)
        elif result.note and not result.generation_failed:
            typer.echo(result.note)
    if result.standalone_question:
        typer.echo(f"（按上下文理解为：{result.standalone_question}）", err=True)
    if result.note and result.generation_failed:
        typer.echo(result.note, err=True)
    if result.extras is not None:
        if result.extras.review:
            typer.echo(f"\n复习建议：{result.extras.review}")
        if result.extras.questions:
            typer.echo("延伸问题：")
            for i, q in enumerate(result.extras.questions, start=1):
                typer.echo(f"  {i}. {q.question} {q.citation}")
    typer.echo("\n参考片段：" if result.hits else "没有检索到片段。")
    for h in result.hits:
        snippet = h.text.replace("\n", " ")[:120]
        typer.echo(f"[{h.rank}] {h.citation} {h.source} (score {h.score:.4f})\n    {snippet}")
        if h.chapter_paths:
            typer.echo("    对应章节：" + "；".join(" › ".join(p) for p in h.chapter_paths))


@app.command()
def ask(question: Annotated[str, typer.Argument(help="Your question, e.g. \"B树和B+树的区别是什么\".")],
        chapter: Annotated[Optional[str], typer.Option("--chapter", help="Only chunks under a heading containing this.")] = None,
        top_k: Annotated[int, typer.Option("--top-k", min=1, max=50)] = 5,
        no_llm: Annotated[bool, typer.Option("--no-llm", help="No generated answer: the record answer or the quoted key sentences, and the cited passages.")] = False,
        session: Annotated[Optional[str], typer.Option("--session", help="Keep the last 3 turns under this name, so a follow-up (\"那它和LRU有什么区别\") is understood.")] = None,
        extras: Annotated[bool, typer.Option("--extras", help="Add 复习建议 and 延伸问题 (two questions the material answers, with citations).")] = False,
        mode: Mode = None, as_json: Json = False, data_dir: DataDir = None):
    """Answer from your material with citations [来源: 章节路径|片段位置]."""
    from pipeline.ask.service import ChapterNotFound, IndexMissing, SessionError, answer_json

    service = _service(data_dir)
    streamed = []

    def stream(text: str) -> None:
        streamed.append(text)
        sys.stdout.write(text)
        sys.stdout.flush()

    try:
        result = service.ask(question, chapter=chapter, top_k=top_k, mode=mode, use_llm=not no_llm,
                             on_token=None if as_json or no_llm else stream, session=session, extras=extras)
    except SessionError as exc:
        _fail(str(exc), 2)
    except (ChapterNotFound, IndexMissing) as exc:
        _fail(str(exc))
    if as_json:
        _echo_json(answer_json(result))
    else:
        _print_answer(result, streamed=bool(streamed))
    if result.generation_failed:
        raise typer.Exit(1)


@app.command()
def chapters(as_json: Json = False, data_dir: DataDir = None):
    """The chapter tree with chunk counts (a heading's count includes its subsections)."""
    from pipeline.ask.service import IndexMissing

    try:
        tree = _service(data_dir).chapters()
    except IndexMissing as exc:
        _fail(str(exc))
    if as_json:
        _echo_json(tree)
        return

    def show(nodes, depth=0):
        for node in nodes:
            typer.echo(f"{'  ' * depth}{node['title']}  ({node['chunks']})")
            show(node["children"], depth + 1)

    show(tree)


@app.command()
def questions(chapter: Annotated[Optional[str], typer.Option("--chapter", help="Questions whose linked sections or own path contain this.")] = None,
              as_json: Json = False, data_dir: DataDir = None):
    """Past-paper questions, optionally those that test a chapter."""
    from pipeline.ask.service import IndexMissing

    try:
        rows = _service(data_dir).questions(chapter)
    except IndexMissing as exc:
        _fail(str(exc))
    if as_json:
        _echo_json(rows)
        return
    for r in rows:
        typer.echo(f"{r['year']}年 第{r['number']}题 [{r['qtype']}] {r['source']}")


@app.command(name="eval")
def eval_(qa_file: Annotated[Path, typer.Argument(help="QA jsonl: question, gold[{file, contains}], answer, kind, chapter.", exists=True, dir_okay=False)],
          mode: Mode = None,
          chapter_aware: Annotated[bool, typer.Option("--chapter-aware", help="Use each question's chapter as --chapter.")] = False,
          answers: Annotated[bool, typer.Option("--answers", help="Answer every question and judge it against its reference `answer`: right / wrong / refused, unsupported claims, time per answer.")] = False,
          no_llm: Annotated[bool, typer.Option("--no-llm", help="With --answers: judge the answers given without the LLM (record answers, key sentences).")] = False,
          as_json: Json = False, data_dir: DataDir = None):
    """Retrieval quality on a QA file (hit@1/3/5, MRR), or with --answers the answers' quality."""
    from pipeline.ask.service import IndexMissing

    on_row = (lambda row: typer.echo(json.dumps(row, ensure_ascii=False))) if as_json else None
    service = _service(data_dir)
    try:
        if answers:
            summary = service.evaluate_answers(qa_file, use_llm=not no_llm, mode=mode, on_row=on_row)
        else:
            summary = service.evaluate(qa_file, mode=mode, chapter_aware=chapter_aware, on_row=on_row)
    except (IndexMissing, ValueError) as exc:
        _fail(str(exc))
    if as_json:
        typer.echo(json.dumps({"summary": summary}, ensure_ascii=False))
    elif answers:
        typer.echo(f"{'kind':<14}{'n':>4}{'right':>7}{'wrong':>7}{'refused':>9}{'unsupp.':>9}{'unsupp.#':>9}{'p50 s':>8}{'p95 s':>8}")
        for name, b in [("all", summary)] + list(summary["by_kind"].items()):
            typer.echo(f"{name:<14}{b['n']:>4}{b['right']:>7}{b['wrong']:>7}{b['refused']:>9}{b['with_unsupported']:>9}"
                       f"{b['unsupported_number']:>9}{b['p50_s']:>8.1f}{b['p95_s']:>8.1f}")
        rec = summary["records"]
        typer.echo(f"right rate {summary['right_rate']:.3f}; record questions answered with the record "
                   f"{rec['answered_with_record']}/{rec['resolved']}; first shown text p50 {summary['first_token_p50_s']:.2f} s")
    else:
        typer.echo(f"{'kind':<14}{'n':>4}{'hit@1':>8}{'hit@3':>8}{'hit@5':>8}{'MRR':>8}")
        for name, b in [("all", summary)] + list(summary["by_kind"].items()):
            typer.echo(f"{name:<14}{b['n']:>4}{b['hit@1']:>8.3f}{b['hit@3']:>8.3f}{b['hit@5']:>8.3f}{b['mrr']:>8.3f}")


@app.command()
def status(as_json: Json = False, data_dir: DataDir = None):
    """Documents, stage status and index counts (Chroma = BM25 = manifest when healthy)."""
    report = _service(data_dir).status()
    if as_json:
        _echo_json(report)
        return
    for d in report["documents"]:
        st = " ".join(f"{k}:{v}" for k, v in d["stages"].items())
        typer.echo(f"{d['doc_id']}  {st}  {', '.join(d['sources'])}")
    for k, v in report["counts"].items():
        typer.echo(f"{k}: {v}")


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
    from pipeline.serve.run import BindFailed, BindRefused, serve as run_server

    try:
        run_server(_settings(data_dir, serve_host=host, serve_port=port))
    except BindRefused as exc:
        _fail(str(exc), 2)
    except BindFailed as exc:
        _fail(str(exc))


if __name__ == "__main__":
    # Typer turns Ctrl-C inside a command into exit 130 silently; ingest catches it itself to say what
    # was kept. This catches the rest: Ctrl-C before Typer took over (e.g. during imports).
    try:
        app()
    except KeyboardInterrupt:
        typer.echo("Interrupted; finished work is kept, re-run to continue.", err=True)
        sys.exit(130)
