"""Merge past-paper question records of the same (year, number) read from different documents.

A year's paper, its answer booklet and papers bundled with answers each give a ``Question`` for the
same question: the paper the stem and options, the booklet the answer and explanation, a bundle
both. ``merge_questions`` makes one record of them. It is pure: the inputs are not modified.
"""

from __future__ import annotations

from collections import Counter
from typing import Optional

from pipeline.models import Question, QuestionSource

Key = tuple[int, int]


def _stem_rank(q: Question) -> tuple:
    """The best stem: complete options A–D first, then any options, then the longer stem."""
    return (len(q.options) >= 4, bool(q.options), bool(q.text.strip()), len(q.text))


def _explained_rank(q: Question) -> tuple:
    """The best explanation: a longer analysis (for a comprehensive question: answer + analysis)."""
    return (len(q.analysis or "") + (len(q.answer or "") if q.qtype == "comprehensive" else 0),)


def _best(records: list[Question], rank) -> Question:
    """The highest-ranked record; the earliest one on a tie."""
    return max(enumerate(records), key=lambda iq: (rank(iq[1]), -iq[0]))[1]


def _choice_answer(records: list[Question], explained: Question) -> Optional[str]:
    """The answer most records give (letters compared without spaces); on a tie the explained record's."""
    votes = Counter("".join((q.answer or "").split()).upper() for q in records if q.answer)
    if not votes:
        return None
    top = max(votes.values())
    mine = "".join((explained.answer or "").split()).upper()
    if votes.get(mine) == top:
        return explained.answer
    return next(q.answer for q in records if q.answer and votes["".join(q.answer.split()).upper()] == top)


def _sources(q: Question) -> list[QuestionSource]:
    """A record's sources; a record without any stands for itself (no document known)."""
    return [s.model_copy(deep=True) for s in q.sources] or [QuestionSource(pages=list(q.pages))]


def merge_group(records: list[Question]) -> Question:
    """One record from records of one (year, number), in the given order:

    * ``text``, ``options``, ``section``, ``chapter_path``, ``pages``, ``chapter_paths``, ``keywords``:
      from the record with the best stem (options A–D, else the longest text);
    * ``qtype``: the stem record's, else the first that is not ``other``;
    * ``analysis``: from the record with the longest explanation (for a comprehensive question answer
      and analysis together), and for a comprehensive question its ``answer`` too;
    * a choice ``answer``: the one most records give (ties: the explained record's, then the first);
    * ``sources``: every record's sources in order, each with ``parts`` = what it gave the result.
    """
    if len(records) == 1:
        return records[0].model_copy(deep=True)
    stem = _best(records, _stem_rank)
    qtype = stem.qtype if stem.qtype != "other" else next((q.qtype for q in records if q.qtype != "other"), "other")
    explained = _best(records, _explained_rank)
    if qtype == "comprehensive":
        answer = explained.answer or next((q.answer for q in records if q.answer), None)
    else:
        answer = _choice_answer(records, explained)
    analysis = explained.analysis or next((q.analysis for q in records if q.analysis), None)
    merged = stem.model_copy(deep=True, update={"qtype": qtype, "answer": answer, "analysis": analysis,
                                                "sources": []})
    for q in records:
        gave = []
        if q is stem:
            gave += [p for p, v in (("text", merged.text), ("options", merged.options)) if v]
        if answer and q.answer == answer and "answer" not in {p for s in merged.sources for p in s.parts}:
            gave.append("answer")
        if analysis and q.analysis == analysis and "analysis" not in {p for s in merged.sources for p in s.parts}:
            gave.append("analysis")
        for i, src in enumerate(_sources(q)):
            src.parts = gave if i == 0 else []
            merged.sources.append(src)
    return merged


def merge_questions(records: list[Question]) -> list[Question]:
    """Merge records of the same (year, number) from different documents into one (see
    ``merge_group``): stem and options from the paper, answer and analysis from the booklet,
    ``pages`` of the stem's document, ``sources`` naming every document and what it gave.

    Records without a year (a textbook's exercises) are never merged and keep their order after the
    dated ones; dated records come out sorted by (year, number). The input is not modified."""
    groups: dict[Key, list[Question]] = {}
    undated: list[Question] = []
    for q in records:
        if q.year is None:
            undated.append(q.model_copy(deep=True))
        else:
            groups.setdefault((q.year, q.number), []).append(q)
    return [merge_group(groups[key]) for key in sorted(groups)] + undated
