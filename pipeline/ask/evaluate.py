"""Evaluation over a QA file (lines like shared/eval/dev.jsonl): retrieval hit@1/3/5 and MRR@10, and
generated answers judged against each question's reference ``answer`` (:func:`run_answers`).

A retrieved chunk is a hit when it comes from a gold file and contains a gold passage after removing
whitespace and markdown markup; a table passage (``a|b``) needs every cell; OCR'd text may differ
slightly (similarity ≥ ``FUZZY_MIN`` over an aligned window, for passages of ≥ 10 characters).
"""

from __future__ import annotations

import difflib
import json
import math
import re
import time
from pathlib import Path
from typing import Callable, Iterator, Optional

from pipeline.ask import contrast
from pipeline.ask.claims import check
from pipeline.ask.judge import answer_letter, judge
from pipeline.models import Answer, Hit

FUZZY_MIN = 0.85
KS = (1, 3, 5)
MRR_DEPTH = 10
_MARKUP = re.compile(r"[\s*#>`|_~\[\]$]|==|<br\s*/?>|\\(?=\S)")


def normalise(text: str) -> str:
    return _MARKUP.sub("", text)


def _fuzzy_in(needle: str, hay: str) -> bool:
    if len(needle) < 10 or len(hay) < len(needle) * 0.8:
        return False
    step = max(1, len(needle) // 4)
    for start in range(0, max(1, len(hay) - len(needle) + step), step):
        window = hay[start:start + len(needle) + 4]
        if difflib.SequenceMatcher(None, needle, window, autojunk=False).ratio() >= FUZZY_MIN:
            return True
    return False


def passage_in(contains: str, text: str) -> bool:
    hay = normalise(text)
    cells = [normalise(c) for c in contains.split("|") if normalise(c)]
    if len(cells) > 1:
        return all(c in hay for c in cells)
    needle = normalise(contains)
    return needle in hay or _fuzzy_in(needle, hay)


def same_file(source: str, gold_file: str) -> bool:
    return source == gold_file or source.replace("\\", "/").endswith("/" + gold_file)


def is_hit(hit: Hit, gold: list[dict]) -> bool:
    """A merged past-paper question counts as coming from every file it drew on."""
    files = hit.sources or [hit.source]
    return any(any(same_file(f, g["file"]) for f in files) and passage_in(g["contains"], hit.text) for g in gold)


def read_questions(path: Path) -> Iterator[dict]:
    with open(path, encoding="utf-8") as fh:
        for n, line in enumerate(fh, start=1):
            if line.strip():
                try:
                    yield json.loads(line)
                except json.JSONDecodeError as exc:
                    raise ValueError(f"{path}:{n}: not JSON ({exc.msg})") from None


def first_hit_rank(hits: list[Hit], gold: list[dict]) -> Optional[int]:
    for h in hits:
        if is_hit(h, gold):
            return h.rank
    return None


def summarise(rows: list[dict]) -> dict:
    def block(items: list[dict]) -> dict:
        n = len(items)
        out = {"n": n}
        for k in KS:
            out[f"hit@{k}"] = round(sum(1 for r in items if r["rank"] and r["rank"] <= k) / n, 3) if n else 0.0
        out["mrr"] = round(sum(1 / r["rank"] for r in items if r["rank"] and r["rank"] <= MRR_DEPTH) / n, 3) if n else 0.0
        return out

    summary = block(rows)
    kinds = sorted({r["kind"] for r in rows})
    summary["by_kind"] = {k: block([r for r in rows if r["kind"] == k]) for k in kinds}
    return summary


# ---------------------------------------------------------------- answers (eval --answers)


def _percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100); 0.0 for no values."""
    if not values:
        return 0.0
    ordered = sorted(values)
    rank = max(1, math.ceil(q / 100 * len(ordered)))
    return round(ordered[rank - 1], 3)


def answer_row(q: dict, a: Answer, seconds: float) -> dict:
    """One judged answer: the verdict against the reference, and what the claim rules say about the
    text as shown (the same check for any answer path, so before/after runs compare)."""

    verdict = judge(a.answer, q.get("answer", ""), refused=a.refused, question=q["question"])
    # record and grounded answers quote the passages word for word: nothing in them to check; a program
    # answer's numbers are its inputs, each found in the question or the passages before it was shown
    # (calculate.ungrounded), and what the sandbox computed from them: no prose to check
    quoted = a.source in ("record", "grounded", "program")
    text = a.answer or ""
    if a.contrast is not None:  # the contrast table after a checked answer quotes cells verbatim, some from
        text = text.split(contrast.HEAD)[0]  # each side's own search (not among the hits): only the prose is checked
    shown = check(text, a.hits, q["question"], record=a.record) if text.strip() and not (a.refused or quoted) else []
    bad = [c for c in shown if not c.supported]
    record_ok = None
    if (a.record is not None and a.record.strong) or a.source == "record":
        rec = (a.record.answer or a.record.analysis or "") if a.record else ""
        letters = re.findall(r"[A-D]", rec[:12]) if rec else []
        chosen = answer_letter(a.answer or "")
        record_ok = a.source == "record" or bool(letters and chosen in letters)
    return {"id": q.get("id"), "kind": q.get("kind", "all"), "question": q["question"], "reference": q.get("answer"),
            "verdict": verdict.verdict, "reason": verdict.reason, "answer": a.answer, "refused": a.refused,
            "source": a.source,
            "answer_kind": a.kind, "seconds": round(seconds, 3), "first_token_s": a.timings.get("first_token"),
            "llm_first_token_s": a.timings.get("llm_first_token"), "timings": a.timings,
            "unsupported": [{"text": c.text, "reason": c.reason} for c in bad],
            "unsupported_number": any(c.reason.startswith("number") for c in bad),
            "record": a.record.model_dump(include={"year", "number", "match", "answer"}) if a.record else None,
            "record_ok": record_ok, "generated": a.generated, "claims": [c.model_dump() for c in a.claims],
            "key_sentences": [k.model_dump() for k in a.key_sentences]}


def run_answers(questions: list[dict], ask: Callable[[str], Answer],
                on_row: Optional[Callable[[dict], None]] = None) -> tuple[list[dict], dict]:
    """Answer every question with ``ask``, judge each against its reference ``answer``; returns the
    rows and :func:`summarise_answers` of them."""
    rows = []
    for q in questions:
        t0 = time.perf_counter()
        a = ask(q["question"])
        row = answer_row(q, a, time.perf_counter() - t0)
        rows.append(row)
        if on_row:
            on_row(row)
    return rows, summarise_answers(rows)


def _figure(rows: list[dict], key: str) -> list[float]:
    return [r["timings"][key] for r in rows if key in (r.get("timings") or {})]


def summarise_answers(rows: list[dict]) -> dict:
    def block(items: list[dict]) -> dict:
        n = len(items)
        count = {v: sum(1 for r in items if r["verdict"] == v) for v in ("right", "wrong", "refused")}
        times = [r["seconds"] for r in items]
        first = [r["first_token_s"] for r in items if r.get("first_token_s") is not None]
        return {"n": n, **count, "right_rate": round(count["right"] / n, 3) if n else 0.0,
                "with_unsupported": sum(1 for r in items if r["unsupported"]),
                "unsupported_number": sum(1 for r in items if r["unsupported_number"]),
                "p50_s": _percentile(times, 50), "p95_s": _percentile(times, 95),
                "first_token_p50_s": _percentile(first, 50),
                # what the model read, so timings carry across machines (prefill ~30 tok/s on 2 AVX2 cores)
                "llm_first_token_p50_s": _percentile([r["llm_first_token_s"] for r in items if r.get("llm_first_token_s")], 50),
                "prompt_tokens_p50": _percentile(_figure(items, "prompt_tokens"), 50),
                "prompt_evaluated_tokens_p50": _percentile(_figure(items, "prompt_evaluated_tokens"), 50),
                "prefill_tok_s_p50": _percentile(_figure(items, "prefill_tok_s"), 50),
                "gen_tok_s_p50": _percentile(_figure(items, "gen_tok_s"), 50)}

    summary = block(rows)
    summary["by_kind"] = {k: block([r for r in rows if r["kind"] == k]) for k in sorted({r["kind"] for r in rows})}
    summary["by_source"] = {s: block([r for r in rows if r["source"] == s]) for s in sorted({r["source"] for r in rows})}
    resolved = [r for r in rows if r["record_ok"] is not None]
    summary["records"] = {"resolved": len(resolved), "answered_with_record": sum(1 for r in resolved if r["record_ok"])}
    return summary
