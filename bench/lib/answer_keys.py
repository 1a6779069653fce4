"""Objective keys for our own answer set (bench/data/answers_set.jsonl): the scoring of a shown answer,
the schema of the set, and the check that every evidence passage is in the corpus.

A key is ``{"all": [[alternative, …], …], "wrong": [string, …]}``: an answer is *right* when every
``all`` group has one alternative in it and no ``wrong`` string is; *reversed* when a ``wrong`` string
is in it (a statement turned around, or a typical wrong number: it is counted apart, and must stay 0);
*refused* when it is empty or the refusal; else *wrong*. Text is compared after NFKC (full-width →
half-width), lower-casing, and with whitespace, markdown markup, citations and list numbers removed.
An alternative that starts or ends with a digit matches only as a whole number ("8位" is not in
"18位", "2.9" is not in "2.95").
"""

from __future__ import annotations

import json
import os
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from pipeline.ask.prompts import REFUSAL
from pipeline.ask.sentences import CITATION
from pipeline.ask.sentences import normalise as nfkc

KINDS = ("contrast", "calculation", "concept")
SUBJECTS = ("DS", "CO", "OS", "CN")
EVIDENCE_MAX = 40  # chars of a corpus passage kept as a pointer in our data file
SET_FILE = Path(__file__).resolve().parents[1] / "data" / "answers_set.jsonl"
HELDOUT_FILE = SET_FILE.with_name("calc_heldout.jsonl")  # calculations and contrasts: never tune rules on it
TRAITS_FILE = SET_FILE.with_name("traits_set.jsonl")  # one thing's 特点 (answered from a table: attributes.py)
TERMS_FILE = SET_FILE.with_name("terms_set.jsonl")  # 什么是X and short contrasts/calculations, written before any run
CONCEPTS_FILE = SET_FILE.with_name("concept_heldout.jsonl")  # why/what/purpose questions by another hand (issue 23)
# by other hands again (helpers that saw no code and no set): 34 concepts adapted to, then 22 concepts and
# 19 contrasts held out (issue 23)
CONCEPTS_DEV2_FILE = SET_FILE.with_name("concept_dev2.jsonl")
CONCEPTS_CHECK2_FILE = SET_FILE.with_name("concept_check2.jsonl")
CONTRASTS_CHECK_FILE = SET_FILE.with_name("contrast_check.jsonl")
CONCEPTS_CHECK3_FILE = SET_FILE.with_name("concept_check3.jsonl")  # 20 concepts + 10 contrasts, held out (seventeenth run)
CHECK4_FILE = SET_FILE.with_name("check4.jsonl")  # 10 calculations, 10 contrasts, 10 concepts, held out (eighteenth run)
# the eval material: ../shared/eval from the repo root (a git worktree elsewhere sets BENCH_EVAL_DIR)
EVAL_DIR = Path(os.environ.get("BENCH_EVAL_DIR") or Path(__file__).resolve().parents[2].parent / "shared" / "eval")

Verdict = Literal["right", "reversed", "refused", "wrong"]
_LIST_NUMBER = re.compile(r"(?m)^\s*\d{1,2}\.\s+")  # the "1. " of the 原文要点 list
_MARKUP = re.compile(r"[\s*#>`|_~$]|==|<br\s*/?>|\\(?=\S)")
_DASHES = str.maketrans({"−": "-", "–": "-", "—": "-", "－": "-"})


def squash(text: str) -> str:
    """Text as keys are compared: NFKC, lower case, no whitespace, markup, citations or list numbers."""
    text = CITATION.sub("", text or "")
    text = _LIST_NUMBER.sub("", text)
    return _MARKUP.sub("", nfkc(text)).translate(_DASHES).lower()


def _pattern(alternative: str) -> re.Pattern:
    alt = squash(alternative)
    head = r"(?<![\d.])" if alt[:1].isdigit() else ""
    tail = r"(?!\.?\d)" if alt[-1:].isdigit() else ""
    return re.compile(head + re.escape(alt) + tail)


def contains(text: str, alternative: str) -> bool:
    """Whether the squashed ``alternative`` is in the squashed ``text`` (whole numbers only, see above)."""
    return bool(_pattern(alternative).search(squash(text)))


@dataclass(frozen=True)
class Score:
    verdict: Verdict
    matched: list[str | None] = field(default_factory=list)  # per ``all`` group: the alternative found
    wrong_found: list[str] = field(default_factory=list)


def score(text: str, key: dict) -> Score:
    """The verdict on one shown answer against its key (see the module docstring)."""
    flat = squash(text)
    matched = [next((alt for alt in group if _pattern(alt).search(flat)), None) for group in key["all"]]
    wrong_found = [w for w in key.get("wrong", []) if _pattern(w).search(flat)]
    if wrong_found:
        verdict: Verdict = "reversed"
    elif all(m is not None for m in matched):
        verdict = "right"
    elif not flat or squash(REFUSAL) in flat:
        verdict = "refused"
    else:
        verdict = "wrong"
    return Score(verdict, matched, wrong_found)


def load_set(path: Path = SET_FILE) -> list[dict]:
    with open(path, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


# ------------------------------------------------------------------ schema
def _bigrams(text: str) -> set[str]:
    s = re.sub(r"[^\w]", "", squash(text))
    return {s[i:i + 2] for i in range(len(s) - 1)}


def similarity(a: str, b: str) -> float:
    """Character-bigram Jaccard of two questions (1.0: the same wording)."""
    x, y = _bigrams(a), _bigrams(b)
    return len(x & y) / len(x | y) if x | y else 0.0


def schema_problems(rows: list[dict], dev_questions: Iterable[str] = (), max_similarity: float = 0.5,
                    balanced: bool = True, our_questions: Iterable[str] = ()) -> list[str]:
    """Everything wrong with the set's shape: ids, kinds (as many of each when ``balanced``: the held-out
    set is calculations and contrasts only), subjects, keys, evidence pointers, working for calculations,
    a key that marks its own right answer reversed, and questions too close to a dev one or to one of
    ``our_questions`` (answers_set.jsonl, when another set is checked: held out means unlike it too)."""
    out: list[str] = []
    ids = [r.get("id") for r in rows]
    out += [f"duplicate id {i}" for i in sorted({i for i in ids if ids.count(i) > 1})]
    counts = {k: sum(r.get("kind") == k for r in rows) for k in KINDS}
    if balanced and len(set(counts.values())) != 1:
        out.append(f"kinds not balanced: {counts}")
    for r in rows:
        rid = r.get("id")
        if r.get("kind") not in KINDS:
            out.append(f"{rid}: kind {r.get('kind')!r}")
        if r.get("subject") not in SUBJECTS:
            out.append(f"{rid}: subject {r.get('subject')!r}")
        if not str(r.get("question", "")).strip():
            out.append(f"{rid}: no question")
        key = r.get("key") or {}
        groups = key.get("all") or []
        if not groups or any(not g or any(not str(a).strip() for a in g) for g in groups):
            out.append(f"{rid}: empty key group")
        if any(not str(w).strip() for w in key.get("wrong", [])):
            out.append(f"{rid}: empty wrong string")
        if groups and all(groups):
            model = "；".join(g[0] for g in groups)
            if score(model, key).verdict != "right":
                out.append(f"{rid}: the key's own alternatives do not score right ({score(model, key)})")
        evidence = r.get("evidence") or []
        if not evidence:
            out.append(f"{rid}: no evidence")
        for e in evidence:
            if not e.get("file") or not e.get("contains"):
                out.append(f"{rid}: evidence without file or passage")
            elif len(e["contains"]) > EVIDENCE_MAX:
                out.append(f"{rid}: evidence passage over {EVIDENCE_MAX} chars")
        if r.get("kind") == "calculation" and not str(r.get("working", "")).strip():
            out.append(f"{rid}: calculation without working")
    for source, questions in (("dev", dev_questions), ("our set", our_questions)):
        for q in questions:
            for r in rows:
                if similarity(r.get("question", ""), q) >= max_similarity:
                    out.append(f"{r.get('id')}: too close to {source} question {q!r}")
    return out


# ------------------------------------------------------------------ evidence
def _flat(text: str) -> str:
    return re.sub(r"\s+", "", unicodedata.normalize("NFKC", text))


def file_text(path: Path) -> str:
    """A corpus file's text: markdown as is, a PDF's pages through PyMuPDF."""
    if path.suffix.lower() == ".pdf":
        import pymupdf

        with pymupdf.open(path) as doc:
            return "\n".join(page.get_text() for page in doc)
    return path.read_text(encoding="utf-8")


def evidence_problems(rows: list[dict], corpus: Path) -> list[str]:
    """Each evidence passage that is not in its file (whitespace-insensitive, NFKC), or whose file is missing."""
    cache: dict[str, str] = {}
    out: list[str] = []
    for r in rows:
        for e in r.get("evidence", []):
            path = corpus / e["file"]
            if e["file"] not in cache:
                cache[e["file"]] = _flat(file_text(path)) if path.is_file() else ""
            if not cache[e["file"]]:
                out.append(f"{r['id']}: no file {e['file']}")
            elif _flat(e["contains"]) not in cache[e["file"]]:
                out.append(f"{r['id']}: {e['contains']!r} not in {e['file']}")
    return out
