"""A contrast answer that says the same of both sides.

Asked how a stack and a queue differ, the model wrote `栈是一种只允许从一端插入和删除的线性表，而队列是
一种只允许从一端插入和删除的线性表`: the same predicate for both, the second half wrong (a queue inserts
at one end and deletes at the other). Each half reads like a passage's words, so the overlap and
swap rules let it pass, and the question's two things (栈, a single character) are not found by the
entity rule.

The rule needs no names: in a question asking how things differ, a sentence whose clauses say one
predicate (``MIN_PREDICATE`` chars or more: `是一种只允许从一端插入和删除的线性表`) of two different
subjects (`栈`, `队列`) states no difference. Two things alike in one respect are said with 都 in one
clause (`两者都是线性表`), which this rule does not read.
"""

from __future__ import annotations

import re
from typing import Optional

from pipeline.ask.contrast import asks_difference
from pipeline.ask.sentences import normalise, strip_citations

MIN_PREDICATE = 6  # a shorter predicate (`是线性表`) may be what two things share
SUBJECT_CHARS = 12  # a longer lead before the verb is no subject

_CLAUSE = re.compile(r"[，,；;]\s*(?:而且|而|但是|但|然而|相反|另外)?\s*")
_SUBJECT = re.compile(rf"^(?P<subject>[^，,；;]{{1,{SUBJECT_CHARS}}}?)(?P<predicate>(?:是|指|采用|需要|允许|只允许|只能|能够|能|可以|用于|适用于).+)$")


def same_of_both(sentence: str, question: str) -> Optional[str]:
    """Why ``sentence`` fails (it says one predicate of two subjects, asked how they differ), or None."""
    if not asks_difference(question):
        return None
    text = re.sub(r"[。.！!？?]+$", "", normalise(strip_citations(sentence)))
    said: dict[str, str] = {}
    for clause in _CLAUSE.split(text):
        m = _SUBJECT.match(clause.strip())
        if not m or len(m.group("predicate")) < MIN_PREDICATE:
            continue
        subject, predicate = m.group("subject"), m.group("predicate")
        if said.get(predicate, subject) != subject:
            return f"says the same of {said[predicate]} and {subject} ({predicate[:20]}), asked how they differ"
        said[predicate] = subject
    return None
