"""Contrast questions (A和B的区别): each side from the material, quoted, after the answer (issue 23).

The small model answers "内部碎片和外部碎片有什么区别" with one sentence about 内部碎片 and stops;
the claim check passes it (it is true) and the student never sees the other side. :func:`sides`
picks, for each of the two things the question contrasts (``entities.question_entities``: 进程和线程,
B树与B+树), the passage sentence that best says what the question asks of it:

1. a candidate names that thing and not the other (a sentence naming both is the answer's job, and
   cannot be told apart by whose side it is on; a name includes the other names of the same thing
   in the claim rules' ``names.same``: the question's 慢启动 is the book's 慢开始), as its subject: within ``SUBJECT_WITHIN`` characters
   of its start ("间接寻址是相对于直接寻址而言的…" is not 直接寻址's side), and says something of it
   (``MIN_PREDICATE`` characters besides the name: "1. 分页存储管理" is a list item, not a fact);
2. its score is the share of the question's aspect words it holds (the question's terms without the
   two names and without 区别/不同: 删除, 可靠性, 连接), weighted as the key sentences weigh them, plus
   ``DEFINITION_BONUS`` when it reads as a definition ("X是…", "X指…");
3. it must score at least ``MIN_SCORE``; if either side has none, nothing is added (half a contrast
   would read as the whole).

The two sentences are shown verbatim with their citations as ``对比（资料原文）``, unless the
answer already quotes them. Nothing here is generated, so nothing here can be reversed.
"""

from __future__ import annotations

import re
from typing import Optional

from pipeline.ask import keysentences
from pipeline.ask.entities import question_entities
from pipeline.ask.sentences import content, normalise
from pipeline.models import Hit, KeySentence

HEAD = "对比（资料原文）："
MIN_SCORE = 0.2
DEFINITION_BONUS = 0.2
MAX_CHARS = 160  # of one side's sentence: a contrast line, not a paragraph
SUBJECT_WITHIN = 6
MIN_PREDICATE = 12
_CONTRAST = re.compile(r"区别|不同|差别|差异|异同|有何不同|不一样|比较|相比|对比")
_LEAD = re.compile(r"^(?:[+\-*>•·]|\d+[.、)）]|[（(]\d+[)）])+")  # bullets and list numbers
_CJK_OR_WORD = re.compile(r"[\u4e00-\u9fff]|[a-z0-9]+")
_ASPECT_NOISE = {"区别", "不同", "差别", "差异", "异同", "不一样", "比较", "相比", "对比", "分别", "有什么", "什么"}


def contrasted(question: str, rules) -> list[str]:
    """The two things a contrast question names, else []."""
    return question_entities(question, rules) if _CONTRAST.search(question) else []


def sides(question: str, hits: list[Hit], rules, vocab=None) -> list[tuple[str, KeySentence]]:
    """[(thing, its sentence)] for both things, or [] (see the module docstring)."""
    things = contrasted(question, rules)
    if len(things) != 2:
        return []
    terms = keysentences.question_terms(question, vocab)
    names = [t.lower() for t in things]
    aspect = {t: w for t, w in terms.items()
              if t not in _ASPECT_NOISE and not any(t.lower() in n or n in t.lower() for n in names)}
    total = sum(aspect.values())
    out: list[tuple[str, KeySentence]] = []
    names_of = rules.names.also if getattr(rules, "names", None) is not None else (lambda n: [n])
    for thing, other in ((things[0], things[1]), (things[1], things[0])):
        best: Optional[tuple[float, str, Hit]] = None
        mine, theirs = [n.lower() for n in names_of(thing)], [n.lower() for n in names_of(other)]
        for text, hit in keysentences.candidates(hits):
            low = _LEAD.sub("", normalise(text).lower())
            said = next((n for n in mine if 0 <= low.find(n) <= SUBJECT_WITHIN), None)  # 慢启动 as 慢开始
            if said is None or any(n in low for n in theirs) or len(text) > MAX_CHARS:
                continue
            if len(_CJK_OR_WORD.findall(low.replace(said, ""))) < MIN_PREDICATE:
                continue
            score = sum(w for t, w in aspect.items() if t.lower() in low) / total if total else 0.0
            if re.search(rf"{re.escape(said)}\s*(?:是|指|就是|即)", low):
                score += DEFINITION_BONUS
            if best is None or score > best[0]:
                best = (score, text, hit)
        if best is None or best[0] < MIN_SCORE:
            return []
        out.append((thing, KeySentence(text=best[1], chunk_id=best[2].chunk_id, citation=best[2].citation,
                                       score=round(best[0], 3))))
    return out


def block(found: list[tuple[str, KeySentence]], shown: str) -> str:
    """The ``对比（资料原文）`` lines, or "" when the answer already quotes both sentences."""
    have = content(shown)
    if not found or all(content(k.text) in have for _, k in found):
        return ""
    return f"\n{HEAD}" + "".join(f"\n{thing}：{k.text} {k.citation}" for thing, k in found)
