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

from pipeline.ask.question import Asked, asked_of
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
# A figure's caption ("题4 图", "题44-a 图 页表的部分内容", "题44图a") is read with the page's text and
# lands in the answer or the analysis, where it is not answer text: a line of captions (each with a short
# title of no sentence punctuation), a run of captions ending a line, and captions glued to each other
# ("题4 图题5 图") are dropped. A reference to a figure in a sentence ("如题47 图所示", "题42 图中R1的
# 路由表") is prose and stays.
_LABEL = r"题[ \t]*\d{1,2}(?:[ \t]*[-–－][ \t]*[a-zA-Z\d])?[ \t]*图(?:[ \t]?[a-z](?![A-Za-z]))?"
_CAPTION_LINE = re.compile(rf"^[ \t\u3000]*(?:{_LABEL}(?:[ \t\u3000]+[^，。；：？！,;:?!、\n题]{{1,20}}?)?[ \t\u3000]*)+$")
_CAPTION_TAIL = re.compile(rf"(?:(?<=[。；！？.;!?\s])|^)(?:{_LABEL}[ \t\u3000]*)+$")
_CAPTION_RUN = re.compile(rf"(?<!如)(?:{_LABEL}[ \t\u3000]*){{2,}}")


def strip_captions(text: str) -> str:
    """``text`` without the figure captions that leaked into it (see ``_LABEL``); a line that held only
    captions goes, every other line stays as it was."""
    lines = []
    for line in text.splitlines():
        cut = line
        for pattern in (_CAPTION_LINE, _CAPTION_RUN, _CAPTION_TAIL):
            cut = pattern.sub("", cut)
        if cut == line or cut.strip():
            lines.append(cut if cut == line else cut.rstrip())
    return "\n".join(lines).strip()


def parse_record(text: str) -> tuple[str, Optional[str], Optional[str]]:
    """(stem, answer, analysis) of a record chunk made by ``chunking.question_text``; figure captions
    are cut from the answer and the analysis (the stem keeps them: it is matched, not shown)."""
    a = _ANSWER.search(text)
    b = _ANALYSIS.search(text)
    cut = min(m.start() for m in (a, b) if m) if (a or b) else len(text)
    stem_lines = [ln for ln in text[:cut].splitlines() if ln.strip() and not _HEAD.match(ln.strip())]
    stem = "\n".join(ln for ln in stem_lines if not _OPTION.match(ln.strip()))
    answer = strip_captions(text[a.end(): b.start() if b and b.start() > a.end() else len(text)]) if a else None
    analysis = strip_captions(text[b.end():]) if b else None
    return stem.strip(), answer or None, analysis or None


def stem_match(question: str, stem: str) -> tuple[float, float]:
    """(share of the question in the stem, share of the stem in the question), bigram containment."""
    q = grams(re.sub(r"(?m)^\s*[A-D][.．、].*$", "", question), drop_question_words=True)
    s = grams(stem)
    return containment(q, s), containment(s, q | grams(question))


# a solution that refers to a figure ("如图所示", "见题47图", "下图"): text alone cannot show it
_FIGURE = re.compile(r"如(?:下|上)?图|见(?:下|上)?图|图\s*\d*\s*所示|下图|题\s*\d+\s*[-—]?\s*[a-z]?\s*图")


def to_record(h: Hit, match: str, similarity: float, strong: bool = True) -> RecordAnswer:
    _, answer, analysis = parse_record(h.text)
    qtype = "choice" if answer and re.fullmatch(r"\s*[A-D][。.]?\s*", answer) else None
    # the answer and analysis are cited where they were read: the answer booklet, when the record was
    # merged from a paper and its booklet (Hit.citation cites the stem)
    solution = next((p for p in h.parts if p.role == "solution"), None)
    pages = (solution.pages if solution else h.pages) if _FIGURE.search((answer or "") + (analysis or "")) else []
    return RecordAnswer(year=h.year, number=h.number, qtype=qtype, answer=answer, analysis=analysis,
                        chunk_id=h.chunk_id, citation=solution.citation if solution else h.citation, match=match,
                        similarity=round(similarity, 3), strong=strong, figure_pages=pages)


def resolve(question: "str | Asked", hits: list[Hit], exact: bool) -> tuple[Optional[RecordAnswer], bool]:
    """(record, strong): the record the question resolves to and whether it may answer alone."""
    ref = asked_of(question).ref
    if exact and ref and hits and hits[0].kind == "question" and (hits[0].year, hits[0].number) == ref:
        return to_record(hits[0], "reference", 1.0), True
    for h in hits[:STEM_TOP]:
        if h.kind != "question":
            continue
        if ref and (h.year, h.number) != ref:
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
    if record.figure_pages:  # the text cannot show the figure: say where it is printed (the web page opens it)
        lines.append(f"（解析中的图见所引答案第{page_span(record.figure_pages)}页）")
    return f"【{head}】\n" + "\n".join(lines)


def page_span(pages: list[int]) -> str:
    """7 / 7-8 / 3、5: how a citation writes pages."""
    pages = sorted(set(pages))
    if len(pages) > 1 and pages == list(range(pages[0], pages[-1] + 1)):
        return f"{pages[0]}-{pages[-1]}"
    return "、".join(str(p) for p in pages)
