"""Whose reason is it? A cause the model copies from a passage must be given there for the same thing.

The model answers a why-question by joining the question's words to a reason it found in the material:
`循环队列要故意空出一个存储单元不用，因为这样可以简化队列的实现` takes its reason word for word from a note's
item on *storing the queue in an array*, not on the empty slot. Every word is in the passages and the
passage gives causes, so the overlap and cause checks pass; the sentence is still false.

So when the reason (the clause right after 因为/由于/是为了…) is found word for word in a passage sentence
(``said_share`` of its bigrams), the thing it explains (the clause right before the marker) must be
spoken of there too: ``effect_share`` of its bigrams in that sentence, its neighbours or the passage's
heading. A reason found nowhere word for word is left to the other checks (paraphrase is not judged
here). Thresholds live in the rules file (``cause`` in claims.yaml).
"""

from __future__ import annotations

import re
from typing import Iterable, Optional

from pipeline.ask.sentences import containment, grams, normalise, split_sentences, strip_citations
from pipeline.rulefiles import compiled

MIN_CAUSE_GRAMS = 5  # a shorter reason ("因为太小") is said of many things
MIN_EFFECT_GRAMS = 4  # a shorter effect ("这是因为…") names nothing to look for
_CLAUSE = re.compile(r"[，,；;。：:！？!?]")
_THEN = re.compile(r"[，,]\s*(?:所以|因此|故而|故|从而)")


def split_cause(text: str, markers: Iterable[str]) -> Optional[tuple[str, str]]:
    """(effect clause, cause clause) of a sentence giving a reason, or None: the earliest marker
    (longest there) splits it; a leading reason (`因为C，所以E`, `由于C，…，E`) is its first clause and
    the effect the last."""
    found = [m for p in markers for m in [compiled(p).search(text)] if m]
    if not found:
        return None
    m = min(found, key=lambda m: (m.start(), -len(m.group())))
    effect, cause = text[:m.start()], text[m.end():]
    if not effect.strip(" ，,"):  # the reason leads: 因为C，所以E / 由于C，E
        parts = _THEN.split(cause, maxsplit=1)
        if len(parts) < 2:
            clauses = [c for c in _CLAUSE.split(cause) if c.strip()]
            if len(clauses) < 2:
                return None
            parts = [clauses[0], clauses[-1]]
        cause, effect = parts
    clauses_before = [c for c in _CLAUSE.split(effect) if c.strip()]
    clauses_after = [c for c in _CLAUSE.split(cause) if c.strip()]
    if not clauses_before or not clauses_after:
        return None
    cause = clauses_after[0]
    for more in clauses_after[1:]:  # `因为BGP支持CIDR，因此…`: a short first clause is not the whole reason
        if len(grams(cause)) >= MIN_CAUSE_GRAMS:
            break
        cause += "，" + more
    return clauses_before[-1], cause


def transplanted_cause(sentence: str, passages: list[tuple[str, str]], markers: Iterable[str],
                       said_share: float, effect_share: float) -> Optional[str]:
    """Why the sentence's reason belongs to something else, or None. ``passages`` are (heading, text)."""
    split = split_cause(normalise(strip_citations(sentence)), markers)
    if split is None:
        return None
    effect, cause = (grams(part) for part in split)
    if len(cause) < MIN_CAUSE_GRAMS or len(effect) < MIN_EFFECT_GRAMS:
        return None
    found = False
    for heading, text in passages:
        sentence_grams = [grams(s) for s in split_sentences(text)]
        for i, g in enumerate(sentence_grams):
            if containment(cause, g) < said_share:
                continue
            found = True
            around = frozenset().union(grams(heading), *sentence_grams[max(0, i - 1):i + 2])
            if containment(effect, around) >= effect_share:
                return None
    if not found:
        return None
    return f"transplanted cause: the passage gives “{split[1]}” for something else, not for “{split[0]}”"
