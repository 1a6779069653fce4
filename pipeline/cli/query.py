"""The reading commands: `ask`, `chapters`, `questions`, `eval`, `status` (all through the query service)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

from pipeline.cli.common import DataDir, Json, Mode, _echo_json, _fail, _service, app


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
        chapter: Annotated[Optional[str], typer.Option("--chapter", help="Only chunks placed under the syllabus node this names (查找 → 数据结构 › 五、查找; the highest one when several match); without a syllabus, chunks under a heading containing this.")] = None,
        top_k: Annotated[int, typer.Option("--top-k", min=1, max=50)] = 5,
        no_llm: Annotated[bool, typer.Option("--no-llm", help="No generated answer: the record answer or the quoted key sentences, and the cited passages.")] = False,
        session: Annotated[Optional[str], typer.Option("--session", help="Keep the last 3 turns under this name, so a follow-up (\"那它和LRU有什么区别\") is understood.")] = None,
        extras: Annotated[bool, typer.Option("--extras", help="Add 复习建议 and 延伸问题 (two questions the material answers, with citations).")] = False,
        profile: Annotated[str, typer.Option("--profile", help="Whose --session this is (one student never continues another's).")] = "default",
        mode: Mode = None, as_json: Json = False, data_dir: DataDir = None):
    """Answer from your material with citations [来源: 章节路径|片段位置]."""
    from pipeline.ask.service import (
        ChapterNotFound,
        IndexMissing,
        SessionError,
        answer_json,
    )

    service = _service(data_dir)
    streamed = []

    def stream(text: str) -> None:
        streamed.append(text)
        sys.stdout.write(text)
        sys.stdout.flush()

    try:
        result = service.ask(question, chapter=chapter, top_k=top_k, mode=mode, use_llm=not no_llm,
                             on_token=None if as_json or no_llm else stream, session=session, extras=extras,
                             profile=profile)
    except SessionError as exc:
        _fail(str(exc), 2)
    except (ChapterNotFound, IndexMissing) as exc:
        _fail(str(exc))
    if result.chapter is not None:
        typer.echo(result.chapter["note"], err=True)
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
def questions(chapter: Annotated[Optional[str], typer.Option("--chapter", help="Questions placed under the syllabus node this names (the highest when several match); without a syllabus, those whose linked sections or own path contain this.")] = None,
              as_json: Json = False, data_dir: DataDir = None):
    """Past-paper questions, optionally those that test a chapter; each with its place on the syllabus
    (`syllabus_path`, `syllabus_confidence` in --json). Which syllabus node --chapter used goes to stderr."""
    from pipeline.ask.service import IndexMissing

    service = _service(data_dir)
    try:
        rows = service.questions(chapter)
    except IndexMissing as exc:
        _fail(str(exc))
    if chapter:
        typer.echo(service.resolve_chapter(chapter).note(), err=True)
    if as_json:
        _echo_json(rows)
        return
    for r in rows:
        where = f"  {' › '.join(r['syllabus_path'])}" if r.get("syllabus_path") else ""
        typer.echo(f"{r['year']}年 第{r['number']}题 [{r['qtype']}] {r['source']}{where}")


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
        if summary["prompt_tokens_p50"]:  # model calls: what they read, so machines compare
            typer.echo(f"model answers: first model token p50 {summary['llm_first_token_p50_s']:.1f} s; prompt p50 "
                       f"{summary['prompt_tokens_p50']:.0f} tokens ({summary['prompt_evaluated_tokens_p50']:.0f} read, the "
                       f"rest from the prompt cache); prefill p50 {summary['prefill_tok_s_p50']:.1f} tok/s, generation "
                       f"p50 {summary['gen_tok_s_p50']:.1f} tok/s")
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
