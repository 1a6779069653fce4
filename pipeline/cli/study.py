"""The study commands: `practice`, `review`, `mistakes`, `progress` (all through the study service).

Interactive by default (a terminal session reading one line per answer); ``--json`` serves scripts:
``practice --json`` lists the practice set, ``practice --question 2024-1 --answer B`` stores one
attempt and prints it, ``practice --answers answers.jsonl`` stores one attempt per line
(``{"item": "2024-1", "answer": "B", "seconds": 12, "rating": 3, "key": "<uuid>"}``; ``-`` reads
stdin) and prints one JSON line per attempt; a bad line is one error line naming the file and
line, the others go on, and the exit code is 1.
"""

from __future__ import annotations

import json
import sys
import time
from datetime import datetime
from pathlib import Path
from typing import Annotated, Optional

import typer

from pipeline.cli.common import DataDir, Json, _echo_json, _fail, _settings, app

ProfileOpt = Annotated[str, typer.Option("--profile", help="Whose study data (created on first use).")]
ChapterOpt = Annotated[Optional[str], typer.Option("--chapter", help="Only questions that test a chapter matching this (as `questions --chapter`).")]


def _study(data_dir: Optional[Path]):
    from pipeline.study.service import StudyService

    return StudyService(_settings(data_dir))


def _study_error() -> type[Exception]:
    """A request the service refuses (bad answer, missing rating…): said, then asked again."""
    from pipeline.study.service import StudyError

    return StudyError


def _errors() -> tuple[type[Exception], ...]:
    """What a study command reports as one line and exit 1."""
    from pipeline.ask.service import ChapterNotFound, IndexMissing

    return (_study_error(), ChapterNotFound, IndexMissing)


def _line(prompt: str):
    """One line of input, stripped; None at end of input (Ctrl-D, a closed pipe)."""
    typer.echo(prompt, nl=False)
    line = sys.stdin.readline()
    return None if line == "" else line.strip()


def _when(at: datetime, svc) -> str:
    local = at.astimezone()
    _, end = svc.day()
    return f"今天 {local:%H:%M}" if local < end else f"{local:%Y-%m-%d}"


def show_question(item, i: int, n: int) -> None:
    kind = {"choice": "单项选择题", "comprehensive": "综合应用题"}.get(item.qtype or "", "题")
    head = f"{item.year}年第{item.number}题" if item.year else f"第{item.number}题"
    typer.echo(f"\n── [{i}/{n}] {head}（{kind}） {item.item_id} ──")
    typer.echo(item.stem)
    for k, v in sorted(item.options.items()):
        typer.echo(f"  {k}. {v}")
    if item.figure is not None:
        typer.echo("  （本题有图，见原卷：" + item.citation + "）")


def show_solution(item, res, svc) -> None:
    if res.verdict == "right":
        typer.echo(f"✓ 正确（答案 {item.answer}）")
    elif res.verdict == "wrong":
        typer.echo(f"✗ 错误：你的答案 {res.answer}，正确答案 {item.answer}")
    if item.analysis:
        typer.echo(f"解析：{item.analysis}")
    typer.echo(f"  {item.solution_citation or item.citation}")
    if item.sections:
        typer.echo("考查章节：" + "；".join(s.chapter for s in item.sections))
    note = "已记入错题本；" if res.in_mistakes else ""
    typer.echo(f"{note}下次复习：{_when(res.due, svc)}")


def attempt_interactive(svc, profile, item, mode: str):
    """Ask one question or card in the terminal and store the attempt; "quit", "skip" or the result."""
    t0 = time.monotonic()
    if item.kind == "card":
        typer.echo(f"\n{item.prompt()}")
        if _line("（回车看答案，q 结束）") in (None, "q"):
            return "quit"
        typer.echo(f"{item.back}\n  {item.citation}")
        return _rate_and_store(svc, profile, item, "", t0, mode)
    if item.qtype == "choice" and item.answer:
        while True:
            ans = _line("你的答案（字母，s 跳过，q 结束）：")
            if ans is None or ans.lower() == "q":
                return "quit"
            if ans.lower() == "s":
                return "skip"
            try:
                res = svc.answer(profile, item.item_id, ans, seconds=round(time.monotonic() - t0, 1), mode=mode)
            except _study_error() as exc:
                typer.echo(str(exc))
                continue
            show_solution(item, res, svc)
            return res
    typer.echo("写下你的答案，空行结束（直接回车跳过，q 结束）：")
    lines = []
    while True:
        line = _line("")
        if line is None or (not lines and line.lower() == "q"):
            return "quit"
        if not line:
            break
        lines.append(line)
    if not lines:
        return "skip"
    typer.echo(f"参考答案：{item.answer or '（答案册未给出）'}")
    if item.analysis:
        typer.echo(f"解析：{item.analysis}")
    if item.scoring:
        typer.echo(f"评分说明：{item.scoring}")
    typer.echo(f"  {item.solution_citation or item.citation}")
    return _rate_and_store(svc, profile, item, "\n".join(lines), t0, mode)


def _rate_and_store(svc, profile, item, answer: str, t0: float, mode: str):
    while True:
        r = _line("自评：1 不会  2 部分会  3 会  4 熟练（q 结束）：")
        if r is None or r.lower() == "q":
            return "quit"
        try:
            res = svc.answer(profile, item.item_id, answer, rating=r, seconds=round(time.monotonic() - t0, 1), mode=mode)
        except _study_error() as exc:
            typer.echo(str(exc))
            continue
        typer.echo(("已记入错题本；" if res.in_mistakes else "") + f"下次复习：{_when(res.due, svc)}")
        return res


def _session(svc, profile, items, mode: str) -> None:
    done = []
    for i, item in enumerate(items, start=1):
        if item.kind == "question":
            show_question(item, i, len(items))
        else:
            typer.echo(f"\n── [{i}/{len(items)}] 卡片 {item.item_id} ──")
        res = attempt_interactive(svc, profile, item, mode)
        if res == "quit":
            break
        if res != "skip":
            done.append(res)
    right = sum(r.verdict == "right" for r in done)
    wrong = sum(r.in_mistakes for r in done)
    what = "复习" if mode == "review" else "作答"
    typer.echo(f"\n本次{what} {len(done)} 项：答对 {right}，记入错题本 {wrong}。`python cli.py mistakes` 查看错题。")


def _batch(svc, profile, answers: Optional[Path], one: Optional[dict], mode: str) -> None:
    """One attempt per JSON line (or the one given by options); results as JSON lines."""
    failed = 0
    if one is not None:
        rows = [("--answer", 1, one)]
    else:
        fh = sys.stdin if str(answers) == "-" else open(answers, encoding="utf-8")
        rows = ((str(answers), n, line) for n, line in enumerate(fh, start=1) if line.strip())
    for name, n, row in rows:
        try:
            obj = json.loads(row) if isinstance(row, str) else row
            iid = obj.get("item") or obj.get("question")
            if not iid:
                raise _study_error()("no \"item\" (a question id such as 2024-1, or a card id)")
            res = svc.answer(profile, str(iid), str(obj.get("answer", "")), rating=obj.get("rating"),
                             seconds=obj.get("seconds"), mode=mode, client_key=obj.get("key"))
        except (ValueError, AttributeError, *_errors()) as exc:
            failed += 1
            typer.echo(f"Error: {name}:{n}: {exc}", err=True)
            continue
        typer.echo(res.model_dump_json())
    if failed:
        raise typer.Exit(1)


def _printed_json(rows, as_json: bool) -> bool:
    """With ``--json``, print ``rows`` as the JSON list scripts read, and say so."""
    if as_json:
        _echo_json([r.model_dump(mode="json") for r in rows])
    return as_json


@app.command()
def practice(chapter: ChapterOpt = None,
             year: Annotated[Optional[int], typer.Option("--year", help="Only this year's paper.")] = None,
             qtype: Annotated[Optional[str], typer.Option("--type", help="choice | comprehensive")] = None,
             question: Annotated[Optional[list[str]], typer.Option("--question", help="These questions (2024-1; repeatable).")] = None,
             answer: Annotated[Optional[str], typer.Option("--answer", help="With one --question: store this answer (batch, prints JSON).")] = None,
             rating: Annotated[Optional[str], typer.Option("--rating", help="Self-grade for a comprehensive question: 1-4 or again/hard/good/easy.")] = None,
             seconds: Annotated[Optional[float], typer.Option("--seconds", help="Time taken, with --answer.")] = None,
             answers: Annotated[Optional[Path], typer.Option("--answers", help="JSONL of attempts to store ('-': stdin), one result line each.")] = None,
             limit: Annotated[Optional[int], typer.Option("--limit", min=1, help="At most this many questions.")] = None,
             profile: ProfileOpt = "default", as_json: Json = False, data_dir: DataDir = None):
    """Practise past-paper questions; every attempt is stored (verdict, time, FSRS schedule, 错题本)."""
    if qtype not in (None, "choice", "comprehensive"):
        _fail("--type must be choice or comprehensive", 2)
    svc = _study(data_dir)
    try:
        prof = svc.profile(profile)
        if answers is not None or answer is not None:
            if answer is not None and len(question or []) != 1:
                _fail("--answer needs exactly one --question", 2)
            one = None if answers is not None else {"item": question[0], "answer": answer, "rating": rating, "seconds": seconds}
            _batch(svc, prof, answers, one, "practice")
            return
        items = svc.practice_set(prof, chapter=chapter, year=year, qtype=qtype, limit=limit, ids=question)
    except _errors() as exc:
        _fail(str(exc))
    if _printed_json(items, as_json):
        return
    typer.echo(f"练习 {len(items)} 题（档案 {prof.name}）。")
    _session(svc, prof, items, "practice")


@app.command()
def review(item: Annotated[Optional[str], typer.Option("--item", help="Store one review of this item (batch, prints JSON).")] = None,
           answer: Annotated[Optional[str], typer.Option("--answer", help="With --item: a choice question's letter.")] = None,
           rating: Annotated[Optional[str], typer.Option("--rating", help="With --item: 1-4 or again/hard/good/easy.")] = None,
           answers: Annotated[Optional[Path], typer.Option("--answers", help="JSONL of reviews to store ('-': stdin).")] = None,
           limit: Annotated[Optional[int], typer.Option("--limit", min=1)] = None,
           profile: ProfileOpt = "default", as_json: Json = False, data_dir: DataDir = None):
    """Today's due items (FSRS): wrong questions come back, cards as scheduled; Again/Hard/Good/Easy."""
    svc = _study(data_dir)
    try:
        prof = svc.profile(profile)
        if answers is not None or item is not None:
            one = None if answers is not None else {"item": item, "answer": answer or "", "rating": rating}
            _batch(svc, prof, answers, one, "review")
            return
        due = svc.due(prof)[:limit]
    except _errors() as exc:
        _fail(str(exc))
    if _printed_json(due, as_json):
        return
    if not due:
        typer.echo("今天没有要复习的内容。")
        return
    typer.echo(f"今天要复习 {len(due)} 项（档案 {prof.name}）。")
    _session(svc, prof, [d.item for d in due], "review")


@app.command()
def mistakes(node: Annotated[Optional[str], typer.Option("--node", "--chapter", help="Only entries on a node (heading) matching this.")] = None,
             open_only: Annotated[bool, typer.Option("--open", help="Only entries not answered right since.")] = False,
             profile: ProfileOpt = "default", as_json: Json = False, data_dir: DataDir = None):
    """The 错题本: wrong and self-graded-low attempts, with the booklet's explanation and the sections tested."""
    svc = _study(data_dir)
    try:
        entries = svc.mistakes(svc.profile(profile), node, include_fixed=not open_only)
    except _errors() as exc:
        _fail(str(exc))
    if _printed_json(entries, as_json):
        return
    if not entries:
        typer.echo("错题本是空的。")
    for e in entries:
        q = e.item
        state = "已订正" if e.fixed else "未订正"
        typer.echo(f"\n{q.item_id} ×{e.wrong_count} {state} 最近 {e.last_at.astimezone():%Y-%m-%d %H:%M}"
                   + ("（资料中此题已更新）" if e.changed else ""))
        typer.echo("  " + q.stem.replace("\n", " ")[:100])
        typer.echo(f"  你的答案：{e.last_answer[:60] or '（空）'}  正确答案：{(q.answer or '')[:60]}")
        if q.analysis:
            typer.echo(f"  解析：{q.analysis[:200]}")
        for s in q.sections:
            typer.echo(f"  考查章节：{s.chapter}" + (f"  {s.citation}" if s.citation else ""))


def _pad(text: str, width: int) -> str:
    """Pad to a display width: a CJK character takes two columns."""
    import unicodedata

    used = sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)
    return text + " " * max(1, width - used)


def _bar(x: float, width: int = 10) -> str:
    full = round(x * width)
    return "█" * full + "░" * (width - full)


@app.command()
def progress(top: Annotated[int, typer.Option("--top", min=1, help="Nodes in 下一步复习.")] = 5,
             profile: ProfileOpt = "default", as_json: Json = False, data_dir: DataDir = None):
    """Mastery per node (from attempts and FSRS states) and 下一步复习: exam frequency × (1 − mastery)."""
    svc = _study(data_dir)
    try:
        report = svc.progress(svc.profile(profile), top=top)
    except _errors() as exc:
        _fail(str(exc))
    if as_json:
        _echo_json(report.model_dump(mode="json"))
        return
    typer.echo(f"档案 {report.profile}：作答 {report.attempts} 次，答对 {report.right}，答错 {report.wrong}")
    typer.echo("\n掌握度：")
    for n in report.nodes:
        label = "  " * (len(n.path) - 1) + n.path[-1]
        typer.echo(f"{_pad(label, 30)}{_bar(n.mastery)} {n.mastery:>4.0%}  真题 {n.questions}  卡片 {n.cards}")
    typer.echo("\n下一步复习（考频 × (1 − 掌握度)）：")
    for i, n in enumerate(report.next, start=1):
        typer.echo(f"{i}. {n.node}  考频 {n.questions} · 掌握 {n.mastery:.0%} → 优先级 {n.priority:.2f}")
        typer.echo(f"   真题：{', '.join(n.question_ids)}")
        for link in n.material[:1]:
            typer.echo(f"   资料：{link.citation or link.chapter} ({link.chunk_id})")
        for c in n.commands[:1]:
            typer.echo(f"   {c}")
    if not report.next:
        typer.echo("（没有待加强的节点）")
