"""Generated answers over a QA file, judged against each question's reference answer.

    python -m bench answers --path after  --data /tmp/base/corpus --out bench/results/answers_after.jsonl
    python -m bench answers --path before --data /tmp/base/corpus --out bench/results/answers_before.jsonl
    python -m bench answers --rejudge bench/results/answers_before.jsonl   # judge saved answers again

``before`` is the original answer path (``git show 03f8208:pipeline/ask/answer.py``: one LLM call over
the top 3 passages, min_coverage 0.5, min_bm25 9.0, max_tokens 400); ``after`` is the query service's
``ask`` (``pipeline.ask.service``: what the CLI, ``eval --answers`` and ``serve`` run).
Both use the same retrieval (top 5) and the same LLM (``--llm local``: the packaged model; ``fake``: a
canned reply, to try the script). ``--out`` keeps whole rows (for reading); ``--results`` writes them
without long quotes of the corpus (its licences keep it out of the project): see ``redact``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
import types
from pathlib import Path

from bench.lib.common import ROOT
from pipeline.ask.evaluate import answer_row, read_questions, summarise_answers

BEFORE_COMMIT = "03f8208"


def before_module() -> types.ModuleType:
    src = subprocess.check_output(["git", "show", f"{BEFORE_COMMIT}:pipeline/ask/answer.py"], cwd=ROOT, text=True)
    mod = types.ModuleType("answer_before")
    exec(compile(src, "answer_before.py", "exec"), mod.__dict__)
    return mod


def make_llm(name: str):
    if name == "none":
        return None
    if name == "fake":
        from pipeline.llm.fake import FakeLlm

        return FakeLlm("在现有资料中没有找到相关内容")
    from pipeline.llm import make_llm as build

    return build("local", threads=int(os.environ.get("BENCH_LLM_THREADS", "2")))


def machine_load() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "?"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--path", choices=("before", "after"), default="after")
    ap.add_argument("--data", type=Path, default=Path("/tmp/base/corpus"))
    ap.add_argument("--qa", type=Path, default=Path("/work/shared/eval/dev.jsonl"))
    ap.add_argument("--out", type=Path)
    ap.add_argument("--llm", choices=("local", "fake", "none"), default="local")
    ap.add_argument("--ids", help="comma-separated question ids to run")
    ap.add_argument("--limit", type=int)
    ap.add_argument("--rejudge", type=Path, help="judge the answers saved in this file again; no LLM")
    ap.add_argument("--results", type=Path, help="also write rows here with quoted corpus text left out (for bench/results)")
    args = ap.parse_args()

    if args.rejudge:
        rejudge(args.rejudge, args.qa, args.data, args.results)
        return
    from pipeline.ask import records
    from pipeline.ask.service import QueryService
    from pipeline.models import Answer
    from pipeline.settings import load_settings

    settings = load_settings(data_dir=args.data)
    questions = list(read_questions(args.qa))
    if args.ids:
        keep = set(args.ids.split(","))
        questions = [q for q in questions if q.get("id") in keep]
    questions = questions[: args.limit] if args.limit else questions
    t_load = time.perf_counter()
    llm = make_llm(args.llm)
    load_s = time.perf_counter() - t_load
    # the query service the CLI, eval --answers and serve use; the LLM is the one built here
    service = QueryService(settings, llm=llm)
    retriever = service.retriever()
    if args.path == "before":
        old = before_module()

        def ask(question: str) -> Answer:
            r = retriever.search(question, top_k=5)
            return old.answer(question, r, llm, min_coverage=0.5, min_bm25=9.0, max_tokens=400)
    else:
        def ask(question: str) -> Answer:
            return service.ask(question, top_k=5, use_llm=llm is not None, on_token=lambda _t: None)

    rows = []
    out = open(args.out, "w", encoding="utf-8") if args.out else None
    public = open(args.results, "w", encoding="utf-8") if args.results else None
    loads = []
    last_stats = None
    for q in questions:
        loads.append(machine_load())
        t0 = time.perf_counter()
        a = ask(q["question"])
        row = answer_row(q, a, time.perf_counter() - t0)
        stats = dict(getattr(llm, "last_stats", None) or {})
        row["llm_stats"] = stats if stats and stats != last_stats else None  # None: no LLM call
        last_stats = stats
        r = retriever.search(q["question"], top_k=5)
        rec, strong = records.resolve(q["question"], r.hits, r.exact_question)
        row["resolves_to_record"] = bool(rec and strong)
        row["record_answer"] = rec.answer if rec and strong else None
        row["load"] = loads[-1]
        row["path"] = args.path
        rows.append(row)
        print(f"{row['id']} {row['verdict']:<8} {row['seconds']:6.1f}s {row['source']:<9} load {row['load']} "
              f"| {(row['answer'] or '').replace(chr(10), ' ')[:70]}", file=sys.stderr, flush=True)
        if out:
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
            out.flush()
        if public:
            public.write(json.dumps(redact(row), ensure_ascii=False) + "\n")
            public.flush()
    summary = summarise_answers(rows)
    summary.update({"path": args.path, "llm": getattr(llm, "model_id", args.llm), "llm_load_s": round(load_s, 2),
                    "loads": loads, "record_option": record_option(rows)})
    for f in (out, public):
        if f:
            f.write(json.dumps({"summary": summary}, ensure_ascii=False) + "\n")
            f.close()
    print_table(summary)


QUOTE_KEEP = 40  # chars of a quoted (record / grounded) answer kept in bench/results
ANSWER_KEEP = 200  # chars of any other answer (most are shorter; pasted passages are cut)


def redact(row: dict) -> dict:
    """The row without long quotes of the corpus (its licences keep it out of the project): a
    record or grounded answer is cut to its start, other answers to ``ANSWER_KEEP`` chars, key
    sentences keep only their ids and citations, the record's answer its first characters, and
    claims only the model's own sentences. Verdicts and reasons stay."""
    r = dict(row)
    if r.get("source") in ("record", "grounded") and r.get("answer"):
        r["answer"] = r["answer"][:QUOTE_KEEP] + "…（原文引用，略）"
    for key in ("answer", "generated"):  # a model may paste whole passages (the old path did)
        if r.get(key) and len(r[key]) > ANSWER_KEEP:
            r[key] = r[key][:ANSWER_KEEP] + "…（略）"
    r["key_sentences"] = [{"chunk_id": k["chunk_id"], "citation": k["citation"], "score": k["score"]}
                          for k in r.get("key_sentences", [])]
    if r.get("record_answer"):
        r["record_answer"] = r["record_answer"][:12]
    if r.get("record") and r["record"].get("answer"):
        r["record"] = {**r["record"], "answer": r["record"]["answer"][:12]}
    r["claims"] = [c for c in r.get("claims", []) if c.get("reason") != "quoted"]
    return r


def record_option(rows: list[dict]) -> dict:
    """Of the questions that resolve to a record (same resolution for both paths): how many answers
    state the record's option (choice) or are the record's answer."""
    from pipeline.ask.judge import answer_letter

    res = [r for r in rows if r.get("resolves_to_record")]
    ok = 0
    for r in res:
        rec = (r.get("record_answer") or "").strip()
        if r["source"] == "record":
            ok += 1
        elif rec[:1] in "ABCD" and rec and answer_letter(r.get("answer") or "") == rec[:1]:
            ok += 1
    return {"resolved": len(res), "with_record_answer": ok}


def print_table(summary: dict) -> None:
    head = f"{'kind':<14}{'n':>4}{'right':>7}{'wrong':>7}{'refused':>8}{'unsupp':>8}{'unsNum':>8}{'p50 s':>8}{'p95 s':>8}"
    print(head)
    for name, b in [("all", summary)] + list(summary["by_kind"].items()):
        print(f"{name:<14}{b['n']:>4}{b['right']:>7}{b['wrong']:>7}{b['refused']:>8}{b['with_unsupported']:>8}"
              f"{b['unsupported_number']:>8}{b['p50_s']:>8.1f}{b['p95_s']:>8.1f}")
    if "record_option" in summary:
        print("records:", summary["record_option"])


def rejudge(path: Path, qa: Path, data: Path, results: Path | None = None) -> None:
    """Judge saved answers again and re-check their shown text with the current rules (same
    retrieval, no LLM), e.g. after the judge or the claim rules changed."""
    from pipeline.ask.service import QueryService
    from pipeline.models import Answer, RecordAnswer
    from pipeline.settings import load_settings

    retriever = QueryService(load_settings(data_dir=data)).retriever()
    refs = {q["id"]: q for q in read_questions(qa)}
    rows = []
    for line in open(path, encoding="utf-8"):
        old = json.loads(line)
        if "summary" in old:
            continue
        q = refs[old["id"]]
        hits = retriever.search(q["question"], top_k=5).hits
        rec = RecordAnswer(**{**old["record"], "chunk_id": "", "citation": ""}) if old.get("record") else None
        a = Answer(question=q["question"], answer=old["answer"], refused=old["refused"], hits=hits,
                   source=old["source"], record=rec, kind=old.get("answer_kind"), generated=old.get("generated"),
                   timings={k: v for k, v in (("first_token", old.get("first_token_s")),
                                              ("llm_first_token", old.get("llm_first_token_s"))) if v is not None})
        row = {**old, **answer_row(q, a, old["seconds"])}
        row["claims"], row["key_sentences"] = old.get("claims", []), old.get("key_sentences", [])
        rows.append(row)
        print(f"{row['id']} {row['verdict']:<8} {row['reason']}")
    summary = summarise_answers(rows)
    summary["record_option"] = record_option(rows)
    print_table(summary)
    if results:
        with open(results, "w", encoding="utf-8") as f:
            for row in rows:
                f.write(json.dumps(redact(row), ensure_ascii=False) + "\n")
            f.write(json.dumps({"summary": summary}, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
