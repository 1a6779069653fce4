"""Polarity: where a sentence takes one side of an opposite pair (稳定/不稳定, 需要/不需要…) about a
subject, a passage speaking of the same subject (and object) with that pair must take the same side.

The subject of a term is the text before it (``SUBJECT_CHARS``), its object the text after it up to the
next mark; a predicate said of several things at once ("A和B都…") is checked for each on its own
(:func:`coordinated`). Among the passages' mentions, the one whose subject stands closest
(``_proximity``) and speaks of the same object (``OBJECT_WEIGHT``) decides. Polarity words inside a
name (慢启动, 快速排序) are no claim (``names.masked``). Pairs and thresholds: ``polarity`` in claims.yaml.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Optional

from pipeline.ask.claim_rules import ClaimRules, PolarityPair
from pipeline.ask.names import masked, namer
from pipeline.ask.sentences import QUESTION_WORDS, containment, normalise, strip_citations, subject_grams
from pipeline.rulefiles import compiled

if TYPE_CHECKING:
    from pipeline.ask.claims import Evidence

SUBJECT_CHARS = 40  # the subject of a polarity term is searched this far before it
OBJECT_CHARS = 10  # …and its object this far after it, up to the next punctuation mark
OBJECT_WEIGHT = 0.5  # a passage mention about the same object outranks others about the same subject
PROXIMITY = 12  # chars at which a subject word before a passage's polarity term counts half


def polarity_terms(text: str, pair: PolarityPair, rules: ClaimRules) -> list[tuple[int, int, str]]:
    """(start, end, side) of the pair's terms in ``text``, longest match first, negators applied."""
    found = []
    for side, terms in (("a", pair.a), ("b", pair.b)):
        for t in terms:
            found += [(m.start(), m.end(), side) for m in compiled(t).finditer(text)]
    found = masked(found, namer(rules.names).find(text, headed=False))
    found.sort(key=lambda f: (f[0], -(f[1] - f[0])))
    out, last_end = [], -1
    for start, end, side in found:
        if start < last_end:
            continue
        last_end = end
        if text[end:end + 1] == "性":  # 稳定性：× — an attribute and its value, not a claim
            value = re.match(r"性\s*(?:[:：]\s*)?(\S)", text[end:])
            pol = rules.polarity
            if not value or value.group(1) not in pol.yes_values + pol.no_values:
                continue
            out.append((start, end, side if value.group(1) in pol.yes_values else ("b" if side == "a" else "a")))
            continue
        before = text[max(0, start - rules.polarity.window - 1):start]
        if any(n in before for n in rules.polarity.negators):
            side = "b" if side == "a" else "a"
        out.append((start, end, side))
    return out


def _subject(text: str, start: int, prev_end: int) -> set[str]:
    """Content bigrams (and Latin words) of the text before a polarity term: its subject."""
    return _subject_grams(text[max(prev_end, start - SUBJECT_CHARS, 0):start])


_subject_grams = subject_grams


def _subject_overlap(claim: set[str], passage: set[str]) -> float:
    """Weighted share of the claim's subject in the passage's: a Latin name counts twice, so
    "FIFO算法" does not match "LRU算法" on 算法 alone."""
    total = _weight(claim)
    return _weight(claim & passage) / total if total else 0.0


def _weight(subj: set[str]) -> int:
    """A Latin word (SRAM, DMA) names a subject on its own; a bigram is half of one."""
    return sum(2 if g.isascii() else 1 for g in subj)


def _question_subject(question: str, pair: PolarityPair) -> set[str]:
    """The question with the pair's own terms removed ("快速排序是稳定的吗" → 快速排序)."""
    for t in pair.a + pair.b:
        question = compiled(t).sub(" ", question)
    return _subject_grams(QUESTION_WORDS.sub(" ", normalise(question)))


def check_polarity(sentence: str, ev: Evidence, rules: ClaimRules) -> Optional[str]:
    text = normalise(strip_citations(sentence))
    active = [(p, polarity_terms(text, p, rules)) for p in rules.polarity.pairs]
    active = [(p, terms) for p, terms in active if terms]
    if len(active) > 1:
        active = [(p, t) for p, t in active if not p.only_alone]
    for pair, terms in active:
        need = pair.min_subject or rules.polarity.min_subject
        prev = 0
        for start, end, side in terms:
            subjects = coordinated(text[max(prev, start - SUBJECT_CHARS, 0):start]) or [_subject(text, start, prev)]
            prev = end
            for subj in subjects:
                if _weight(subj) < 2:  # "是稳定的。": the subject is the question's
                    subj = subj | _question_subject(ev.question, pair)
                verdict = _passage_side(subj, _object(text, end), pair, ev, rules, need)
                if verdict and side not in verdict[0]:
                    said = text[start:end]
                    return f"polarity: says {said}, the passage says {verdict[1]}"
    return None


# "快速排序和归并排序都是稳定的": two subjects, one predicate said of each (都/均/全/两者都)
_BOTH = re.compile(r"(?:都|均|全|两者都|二者都|也都)\s*(?:是|为|能|可以|需要|要|属于|采用|不)?[^，,。；;]{0,6}$")
_AND = re.compile(r"以及|和|与|及|跟|同|、")


def coordinated(before: str) -> list[set[str]]:
    """The subjects of a predicate said of several things at once ("A和B都…", "A、B均…"), each on
    its own: checked together, the passage's mention of either one matches half of the subject and
    neither decides, so "快速排序和归并排序都是稳定的" passed though a passage says 快速排序不稳定.
    Empty when ``before`` (the text before the polarity term) names fewer than two."""
    clause = re.split(r"[，,。；;：:！？!?\n]", before)[-1]
    both = _BOTH.search(clause)
    if not both:
        return []
    parts = [_subject_grams(p) for p in _AND.split(clause[:both.start()])]
    parts = [p for p in parts if _weight(p) >= 2]
    return parts if len(parts) >= 2 else []


def _object(text: str, end: int) -> set[str]:
    """What a polarity term is about, after it: 需要|刷新, 能|隔离广播域 (to the next mark)."""
    m = re.match(r"[^，,。；;：:！？!?\n]{0,OBJECT_CHARS}".replace("OBJECT_CHARS", str(OBJECT_CHARS)), text[end:])
    return _subject_grams(m.group() if m else "")


def _local(unit: str, start: int, prev_end: int) -> set[str]:
    """Where a passage term's object may stand before it: its own clause, and in a table row
    ("类型特点：读出后需要重写（刷新）；SRAM：不用") the row's header field."""
    lo = max(prev_end, start - SUBJECT_CHARS, 0)
    clause = re.split(r"[，,；;。]", unit[lo:start])[-1]
    head = ""
    if len(re.findall(r"[:：]", unit)) >= 2 and re.search(r"[；;]", unit):
        head = re.split(r"[；;]", unit)[0]
    return _subject_grams(clause + " " + head)


def _proximity(subj: set[str], low: str, start: int) -> float:
    """How much of the claim's subject stands right before a passage's polarity term: each subject
    word found within ``SUBJECT_CHARS`` before it counts 1/(1 + distance/``PROXIMITY``), Latin names
    twice. "交换机可以隔离冲突域，但不能隔离广播域": 交换机 is the subject of 不能 too, at 9 chars;
    "…交换机只能隔离冲突域；路由器可以隔离广播域": 交换机 is far from 可以, 路由器 is next to it."""
    total = _weight(subj)
    if not total:
        return 0.0
    lo = max(0, start - SUBJECT_CHARS)
    got = 0.0
    for g in subj:
        pos = low.rfind(g, lo, start)
        if pos >= 0:
            got += (2 if g.isascii() else 1) / (1 + (start - pos - len(g)) / PROXIMITY)
    return got / total


def _passage_side(subj: set[str], obj: set[str], pair: PolarityPair, ev: Evidence, rules: ClaimRules,
                  need: float) -> Optional[tuple[set[str], str]]:
    """Sides the passages take about ``subj`` (the best-matching mentions), with a sample term.
    A mention qualifies when ``need`` of the subject's words stand within ``SUBJECT_CHARS`` before
    it; qualified mentions rank by how close the subject is (``_proximity``), and one that also
    speaks of the same object
    (需要刷新, not 需要2^n条线路) ranks higher by ``OBJECT_WEIGHT``. In a table row the object is
    often in the header before the cell ("读出后需要重写（刷新）；SRAM：不用"), so the object is
    looked for on both sides of the passage's term."""
    best, sides, sample = 0.0, set(), ""
    for unit, _ in ev.units:
        low = unit.lower()
        prev = 0
        for start, end, side in polarity_terms(unit, pair, rules):
            around = _local(unit, start, prev)
            prev = end
            if _subject_overlap(subj, _subject(unit, start, 0)) < need:
                continue  # not about the same subject
            score = _proximity(subj, low, start)
            if obj:
                score += OBJECT_WEIGHT * containment(obj, around | _object(unit, end))
            if score > best + 0.05:
                best, sides, sample = score, {side}, unit[start:end + (3 if unit[end:end + 1] == "性" else 0)]
            elif score >= best - 0.05:
                sides.add(side)
                best = max(best, score)
    return (sides, sample) if sides else None
