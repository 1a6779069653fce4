"""examrag command line: thin wrappers that call one stage's run() and print text or --json.

Exit codes: 0 success; 1 something failed (other files still processed; or the LLM was unavailable and
only passages were printed; or an unknown --chapter; or another ingest holds the data dir); 2 usage error;
130 interrupted.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

from pipeline.errors import one_line

app = typer.Typer(add_completion=False, no_args_is_help=True, help="examrag: cited answers from your own 408 material, offline.")

DataDir = Annotated[Optional[Path], typer.Option("--data-dir", help="Data directory (default data/, env EXAMRAG_DATA_DIR).")]
Quiet = Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")]
Force = Annotated[bool, typer.Option("--force", help="Redo every document, not only changed ones.")]
Json = Annotated[bool, typer.Option("--json", help="Print one JSON object.")]


def _settings(data_dir: Optional[Path]):
    from pipeline.settings import load_settings

    return load_settings(data_dir=data_dir)


def _echo_json(obj) -> None:
    typer.echo(json.dumps(obj, ensure_ascii=False, indent=1))


def _fail(msg: str, code: int = 1) -> None:
    typer.echo(f"Error: {msg}", err=True)
    raise typer.Exit(code)


def _print_reports(reports, quiet: bool, manifest=None) -> dict[str, int]:
    """One line per file on stdout, its worst status over the stages (``failed`` < ``partial`` <
    ``skipped`` < ``success``), with the skip reason and the file's other names; then every error
    line on stderr, ``file (第N页): stage: cause``. Returns how many files ended in each status."""
    order = {"failed": 0, "partial": 1, "skipped": 2, "success": 3}
    worst: dict[str, tuple[str, str, str]] = {}
    lines: list[str] = []
    for rep in reports:
        for d in rep.docs:
            st = d.status.value
            if d.source not in worst or order[st] < order[worst[d.source][0]]:
                worst[d.source] = (st, d.detail, d.doc_id)
            lines += [e.line() for e in d.errors]
    for source in sorted(worst):
        st, detail, doc_id = worst[source]
        entry = manifest.documents.get(doc_id) if manifest is not None and doc_id else None
        others = [s for s in entry.sources if s != source] if entry else []
        note = f": {detail}" if st == "skipped" and detail else ""
        note += f" (also as: {', '.join(others)})" if others else ""
        typer.echo(f"{st:<8} {source}{note}")
    for line in dict.fromkeys(lines):
        typer.echo(f"  {line}", err=True)
    tally = dict.fromkeys(order, 0)
    for st, _, _ in worst.values():
        tally[st] += 1
    return tally


def _run_stages(stages: list[str], raw_dir: Optional[Path], data_dir: Optional[Path], force: bool, quiet: bool,
                abort_on_error: bool, wait: float = 0.0) -> None:
    """Run ``stages`` under the data-dir lock. Exit 1 if any file failed (the others are finished first,
    unless ``abort_on_error``), 1 if another writer holds the lock after ``wait`` seconds, 130 on Ctrl-C."""
    import time

    from pipeline.models import StageReport
    from pipeline.store import LockBusy, ManifestError, Store
    from pipeline.testhooks import kill_point

    s = _settings(data_dir)
    store = Store(s.data_dir)
    started = time.monotonic()
    reports: list = []
    counts = None
    try:
        with store.lock(wait=wait):
            store.sweep()
            manifest = store.load_manifest()
            if raw_dir is not None:
                from pipeline.parse.stage import discover

                doc_ids, problems = discover(raw_dir, store, manifest)
                store.save_manifest(manifest)
                reports.append(StageReport(stage="discover", docs=problems))
                kill_point("discovered")
            else:
                doc_ids = sorted(manifest.documents)
            for stage in stages:
                if abort_on_error and any(r.failed for r in reports):
                    break
                kw = dict(force=force, quiet=quiet, abort_on_error=abort_on_error)
                if stage == "parse":
                    from pipeline.parse.stage import run
                    rep = run(store, manifest, doc_ids, s, **kw)
                elif stage == "clean":
                    from pipeline.clean.stage import run
                    rep = run(store, manifest, doc_ids, s, **kw)
                elif stage == "enrich":
                    from pipeline.enrich.stage import run
                    rep, _calls = run(store, manifest, doc_ids, s, **kw)
                else:
                    from pipeline.index.stage import run
                    rep, counts = run(store, manifest, doc_ids, s, **kw)
                reports.append(rep)
            store.save_manifest(manifest)
    except (LockBusy, ManifestError) as exc:
        _fail(str(exc))
    except KeyboardInterrupt:
        typer.echo("\nInterrupted: finished documents are kept; run the same command again to continue.", err=True)
        raise typer.Exit(130)
    tally = _print_reports(reports, quiet, manifest)
    summary = f"{sum(tally.values())} file(s): " + ", ".join(f"{tally[st]} {st}" for st in
                                                             ("success", "partial", "skipped", "failed") if tally[st])
    if abort_on_error and tally["failed"]:
        summary += " (stopped at the first failure: --abort-on-error)"
    if counts:
        summary += f"; chunks {counts['manifest']} (vectors {counts['vectors']}, newly embedded {counts['embedded']}, removed {counts['deleted']})"
    typer.echo(f"{summary}; {time.monotonic() - started:.1f}s")
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
    _run_stages(["parse", "clean", "enrich", "index"], raw_dir, data_dir, force, quiet, abort_on_error, wait)


def _stage_command(name: str):
    def command(data_dir: DataDir = None, force: Force = False, quiet: Quiet = False):
        _run_stages([name], None, data_dir, force, quiet, False)

    command.__doc__ = f"Re-run the {name} stage for documents whose input to it changed."
    return command


for _name in ("parse", "clean", "enrich", "index"):
    app.command(name=_name)(_stage_command(_name))


def _retriever(data_dir: Optional[Path]):
    from pipeline.ask.retrieve import IndexMissing, Retriever

    s = _settings(data_dir)
    try:
        return s, Retriever(s.data_dir, s)
    except IndexMissing as exc:
        _fail(str(exc))


@app.command()
def ask(question: Annotated[str, typer.Argument(help="Your question, e.g. \"B树和B+树的区别是什么\".")],
        chapter: Annotated[Optional[str], typer.Option("--chapter", help="Only chunks under a heading containing this.")] = None,
        top_k: Annotated[int, typer.Option("--top-k", min=1, max=50)] = 5,
        no_llm: Annotated[bool, typer.Option("--no-llm", help="Only show ranked cited passages.")] = False,
        mode: Annotated[Optional[str], typer.Option("--mode", help="hybrid | bm25 | vector")] = None,
        as_json: Json = False, data_dir: DataDir = None):
    """Answer from your material with citations [来源: 章节路径|片段位置]."""
    from pipeline.ask.answer import answer
    from pipeline.ask.retrieve import ChapterNotFound

    s, retriever = _retriever(data_dir)
    try:
        r = retriever.search(question, top_k=top_k, chapter=chapter, mode=mode)
    except ChapterNotFound as exc:
        _fail(str(exc))
    llm, note = None, None
    if not no_llm and s.llm_backend != "none":
        from pipeline.llm.from_settings import make_llm_from_settings

        try:
            llm = make_llm_from_settings(s)
        except Exception as exc:
            note = f"no generated answer: {one_line(exc)}"
    elif not no_llm:
        note = "no generated answer: EXAMRAG_LLM_BACKEND=none"
    stream = None if as_json or llm is None else (lambda t: (sys.stdout.write(t), sys.stdout.flush()))
    llm_failed = False
    try:
        result = answer(question, r, llm, min_coverage=s.refuse_min_coverage, min_bm25=s.refuse_min_bm25,
                        max_tokens=s.llm_max_tokens, on_token=stream)
    except Exception as exc:  # endpoint down mid-answer, model crash: passages still printed
        from pipeline.models import Answer

        result = Answer(question=question, answer=None, refused=False, hits=r.hits)
        note, llm_failed = f"no generated answer: {one_line(exc)}", True
    result.note = result.note or note
    if as_json:
        out = result.model_dump(include={"question", "answer", "refused", "hits"})
        keep = ("rank", "chunk_id", "doc_id", "source", "chapter_path", "chunk_position", "pages", "score", "text",
                "kind", "year", "number", "citation", "chapter_paths", "sources", "boxes")
        out["hits"] = [{k: h[k] for k in keep} for h in out["hits"]]
        if result.note:
            out["note"] = result.note
        _echo_json(out)
    else:
        if stream is not None:
            typer.echo("")
        elif result.answer:
            typer.echo(result.answer)
        if result.note and (llm is None and not no_llm or llm_failed):
            typer.echo(result.note, err=True)
        typer.echo("\n参考片段：" if result.hits else "没有检索到片段。")
        for h in result.hits:
            snippet = h.text.replace("\n", " ")[:120]
            typer.echo(f"[{h.rank}] {h.citation} {h.source} (score {h.score:.4f})\n    {snippet}")
            if h.chapter_paths:
                typer.echo("    对应章节：" + "；".join(" › ".join(p) for p in h.chapter_paths))
    if (note and not no_llm) or llm_failed:
        raise typer.Exit(1)


def chapter_tree(rows: list[tuple[str, int]]) -> list[dict]:
    """Nested nodes {"title", "chunks" (own + descendants), "children"} from joined chapter paths."""
    roots: list[dict] = []
    for joined, n in rows:
        level = roots
        for title in joined.split(" › "):
            node = next((c for c in level if c["title"] == title), None)
            if node is None:
                node = {"title": title, "chunks": 0, "children": []}
                level.append(node)
            node["chunks"] += n
            level = node["children"]
    return roots


@app.command()
def chapters(as_json: Json = False, data_dir: DataDir = None):
    """The chapter tree with chunk counts (a heading's count includes its subsections)."""
    _, retriever = _retriever(data_dir)
    tree = chapter_tree(retriever.catalog.chapters())
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
    _, retriever = _retriever(data_dir)
    qs = retriever.catalog.all_questions()
    if chapter:
        # a question tests the section it links to best (the others are shown, not used to filter)
        qs = [q for q in qs if any(chapter in h for p in q.chapter_paths[:1] + [q.chapter_path] for h in p)]
    rows = [{"year": q.year, "number": q.number, "qtype": q.qtype, "text": q.text, "chapter_paths": q.chapter_paths,
             "source": q.source, "pages": q.pages} for q in qs]
    if as_json:
        _echo_json(rows)
        return
    for r in rows:
        typer.echo(f"{r['year']}年 第{r['number']}题 [{r['qtype']}] {r['source']}")


@app.command(name="eval")
def eval_(qa_file: Annotated[Path, typer.Argument(help="QA jsonl: question, gold[{file, contains}], kind, chapter.", exists=True, dir_okay=False)],
          mode: Annotated[Optional[str], typer.Option("--mode", help="hybrid | bm25 | vector")] = None,
          chapter_aware: Annotated[bool, typer.Option("--chapter-aware", help="Use each question's chapter as --chapter.")] = False,
          as_json: Json = False, data_dir: DataDir = None):
    """Retrieval quality on a QA file: hit@1/3/5 and MRR, overall and per kind."""
    from pipeline.ask.evaluate import MRR_DEPTH, first_hit_rank, read_questions, summarise
    from pipeline.ask.retrieve import ChapterNotFound

    _, retriever = _retriever(data_dir)
    rows = []
    try:
        questions = list(read_questions(qa_file))
    except ValueError as exc:
        _fail(str(exc))
    for q in questions:
        chapter = q.get("chapter") if chapter_aware else None
        try:
            r = retriever.search(q["question"], top_k=MRR_DEPTH, chapter=chapter, mode=mode)
            hits = r.hits
        except ChapterNotFound:
            hits = []
        rank = first_hit_rank(hits, q.get("gold", []))
        rows.append({"id": q.get("id"), "kind": q.get("kind", "all"), "rank": rank})
        if as_json:
            typer.echo(json.dumps({"id": q.get("id"), "question": q["question"], "rank": rank,
                                   "hits": [h.model_dump() for h in hits]}, ensure_ascii=False))
    summary = summarise(rows)
    summary["mode"] = mode or retriever.settings.retrieval_mode
    if as_json:
        typer.echo(json.dumps({"summary": summary}, ensure_ascii=False))
        return
    typer.echo(f"{'kind':<14}{'n':>4}{'hit@1':>8}{'hit@3':>8}{'hit@5':>8}{'MRR':>8}")
    for name, b in [("all", summary)] + list(summary["by_kind"].items()):
        typer.echo(f"{name:<14}{b['n']:>4}{b['hit@1']:>8.3f}{b['hit@3']:>8.3f}{b['hit@5']:>8.3f}{b['mrr']:>8.3f}")


@app.command()
def status(as_json: Json = False, data_dir: DataDir = None):
    """Documents, stage status and index counts (Chroma = BM25 = manifest when healthy)."""
    from pipeline.store import Store

    s = _settings(data_dir)
    store = Store(s.data_dir)
    manifest = store.load_manifest()
    docs = [{"doc_id": d.doc_id, "sources": d.sources,
             "stages": {k: v.status for k, v in d.stages.items()}} for d in manifest.documents.values()]
    counts = {"documents": len(docs), "failures": manifest.failures}
    from pipeline.index.catalog import current_generation

    meta = current_generation(store.index_dir)
    if meta:
        from pipeline.index.stage import collect

        counts["manifest_chunks"] = len(collect(store, manifest)[0])
        _, retriever = _retriever(data_dir)
        counts["bm25_chunks"] = len(retriever.bm25)
        counts["catalog_chunks"] = len(retriever.catalog)
        counts["vector_chunks"] = retriever.vectors.count()
        counts["embed_model"] = meta.get("embed_model")
    if as_json:
        _echo_json({"documents": docs, "counts": counts})
        return
    for d in docs:
        st = " ".join(f"{k}:{v}" for k, v in d["stages"].items())
        typer.echo(f"{d['doc_id']}  {st}  {', '.join(d['sources'])}")
    for k, v in counts.items():
        typer.echo(f"{k}: {v}")


if __name__ == "__main__":
    # Typer turns Ctrl-C inside a command into exit 130 silently; ingest catches it itself to say what
    # was kept. This catches the rest: Ctrl-C before Typer took over (e.g. during imports).
    try:
        app()
    except KeyboardInterrupt:
        typer.echo("Interrupted; finished work is kept, re-run to continue.", err=True)
        sys.exit(130)
