"""Answer past-paper questions straight from their record: the answer booklet's 答案 and 解析,
verbatim, with the record's citation. No LLM, so it takes milliseconds and cannot be wrong in a
way the booklet is not.

A question resolves to a record when it names it (``2009年第25题``: retrieval put the record first),
or when a top hit is a record whose stem the question matches *strongly*: both ways, because a
concept question ("快速排序稳定吗") is often contained in some record's stem, but a student who
pastes a question repeats most of its stem. Strong means at least ``STEM_Q_IN_STEM`` of the
question's content bigrams occur in the stem and at least ``STEM_STEM_IN_Q`` of the stem's occur
in the question (options excluded on both sides: a pasted question may omit them). A top record
that matches less than that, but at least ``WEAK_Q_IN_STEM`` / ``WEAK_STEM_IN_Q`` (a paraphrase of
it), is still handed to the LLM (its answer and analysis lead the prompt), without skipping the model.
"""

from __future__ import annotations

import re
from typing import Optional

from pipeline.ask.refs import question_ref
from pipeline.ask.sentences import containment, grams
from pipeline.models import Hit, RecordAnswer

STEM_TOP = 2  # a stem match is looked for among the first hits only
STEM_Q_IN_STEM = 0.7
STEM_STEM_IN_Q = 0.6
WEAK_Q_IN_STEM = 0.5
WEAK_STEM_IN_Q = 0.25
_HEAD = re.compile(r"^(?:\d{4}年\s*)?第\d+题(?:（[^）]*）)?\s*$")
_OPTION = re.compile(r"^[A-D][.．、]\s")
_ANSWER = re.compile(r"^答案[:：]\s*", re.M)
_ANALYSIS = re.compile(r"^解析[:：]\s*", re.M)


def parse_record(text: str) -> tuple[str, Optional[str], Optional[str]]:
    """(stem, answer, analysis) of a record chunk made by ``chunking.question_text``."""
    a = _ANSWER.search(text)
    b = _ANALYSIS.search(text)
    cut = min(m.start() for m in (a, b) if m) if (a or b) else len(text)
    stem_lines = [ln for ln in text[:cut].splitlines() if ln.strip() and not _HEAD.match(ln.strip())]
    stem = "\n".join(ln for ln in stem_lines if not _OPTION.match(ln.strip()))
    answer = text[a.end(): b.start() if b and b.start() > a.end() else len(text)].strip() if a else None
    analysis = text[b.end():].strip() if b else None
    return stem.strip(), answer or None, analysis or None


def stem_match(question: str, stem: str) -> tuple[float, float]:
    """(share of the question in the stem, share of the stem in the question), bigram containment."""
    q = grams(re.sub(r"(?m)^\s*[A-D][.．、].*$", "", question), drop_question_words=True)
    s = grams(stem)
    return containment(q, s), containment(s, q | grams(question))


def to_record(h: Hit, match: str, similarity: float, strong: bool = True) -> RecordAnswer:
    _, answer, analysis = parse_record(h.text)
    qtype = "choice" if answer and re.fullmatch(r"\s*[A-D][。.]?\s*", answer) else None
    # the answer and analysis are cited where they were read: the answer booklet, when the record was
    # merged from a paper and its booklet (Hit.citation cites the stem)
    solution = next((p for p in h.parts if p.role == "solution"), None)
    return RecordAnswer(year=h.year, number=h.number, qtype=qtype, answer=answer, analysis=analysis,
                        chunk_id=h.chunk_id, citation=solution.citation if solution else h.citation, match=match,
                        similarity=round(similarity, 3), strong=strong)


def resolve(question: str, hits: list[Hit], exact: bool) -> tuple[Optional[RecordAnswer], bool]:
    """(record, strong): the record the question resolves to and whether it may answer alone."""
    ref = question_ref(question)
    if exact and ref and hits and hits[0].kind == "question" and (hits[0].year, hits[0].number) == tuple(ref):
        return to_record(hits[0], "reference", 1.0), True
    for h in hits[:STEM_TOP]:
        if h.kind != "question":
            continue
        if ref and (h.year, h.number) != tuple(ref):
            continue  # names another question: never answer it with this one
        stem, _, _ = parse_record(h.text)
        q_in_s, s_in_q = stem_match(question, stem)
        if q_in_s >= STEM_Q_IN_STEM and s_in_q >= STEM_STEM_IN_Q:
            return to_record(h, "stem", min(q_in_s, s_in_q)), True
        if h.rank == 1 and q_in_s >= WEAK_Q_IN_STEM and s_in_q >= WEAK_STEM_IN_Q:
            return to_record(h, "stem", q_in_s, strong=False), False
    return None, False


def answerable(record: RecordAnswer) -> bool:
    return bool(record.answer or record.analysis)


def format_record(record: RecordAnswer) -> str:
    """The booklet's answer and analysis, verbatim, with the record's citation."""
    head = f"{record.year}年第{record.number}题" if record.year else f"第{record.number}题"
    lines = []
    if record.answer:
        lines.append(f"答案：{record.answer} {record.citation}")
    if record.analysis:
        lines.append(f"解析：{record.analysis}" + ("" if record.answer else f" {record.citation}"))
    return f"【{head}】\n" + "\n".join(lines)
