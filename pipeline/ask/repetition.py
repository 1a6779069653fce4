"""Runaway output: the model saying the same sentence or step again and again (issue 23).

The small model loops: ``平均查找长度 = (1 + 2 + 3 + 4 + 5 + 6) / 6 = 3.5`` eight times, or
``第N次访问… 页面，没有缺页`` nine times, until the token limit, 92 s later. A loop says nothing new,
so the answer path stops generation at the first sign of one and counts the sentence as a failed
claim. :class:`RepetitionGuard` watches the stream (thresholds in ``claims.yaml``, ``repetition``):

- **sentence** (:meth:`RepetitionGuard.sentence`, per finished sentence): the same sentence again
  (whitespace, punctuation, citations and a leading connective ignored: ``因此，X。`` after ``X。``
  says nothing new) once it has ``min_chars`` characters, else the
  ``short_times``-th time; the same sentence with other numbers (``第1次…``, ``第2次…``)
  ``template_run`` times in a row; or a sentence that is itself one stretch said ``tail_times`` times;
- **echo** (per finished sentence): a sentence opening with a material block's label (``[2] 2021年
  第38题…``): the model copies its prompt instead of answering (dev q081 went on to a made-up
  ``答案：CLOSE-WAIT`` for a past paper nobody asked about);
- **partial** (:meth:`RepetitionGuard.partial`, on the unfinished rest of the stream): a loop with
  no sentence end, whose last characters are one stretch of at least ``tail_chars`` said
  ``tail_times`` times in a row.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Optional

from pipeline.ask.sentences import normalise, strip_citations
from pipeline.rulefiles import StrictRules

_NOISE = re.compile(r"[\s，,。；;：:！!？?、“”\"'‘’【】「」*#`]+")
_DIGITS = re.compile(r"\d+(?:\.\d+)?")
_ECHO = re.compile(r"\s*\[\d{1,2}\]\s*[^\s\[]")  # "[2] 2021年 第38题": a prompt block's label, then its text
MAX_UNIT = 160  # longest stretch a loop is looked for in (a long calculation step)
MIN_DISTINCT = 4  # a stretch of fewer distinct characters is a bit pattern or a run of zeros, not a loop


# words that only link a sentence to the one before: "因此，奇偶校验码能查出50%错。" repeats "奇偶校验码能查出50%错。"
LEAD_WORDS = ("综上所述", "由此可见", "也就是说", "换句话说", "总而言之", "因此", "所以", "综上", "总之", "故而",
              "从而", "于是", "可见", "即")


class RepetitionRules(StrictRules):
    lead_words: list[str] = list(LEAD_WORDS)  # dropped from a sentence's start before comparing
    min_chars: int = 6  # a sentence this long said a second time is a loop…
    short_times: int = 3  # …a shorter one ("缺页。") the third time
    template_run: int = 8  # the same sentence with other numbers, this many times in a row
    tail_chars: int = 12  # a stretch at least this long…
    tail_times: int = 3  # …said this many times in a row, within one sentence or the unfinished rest


def key(sentence: str, lead_words: tuple[str, ...] | list[str] = ()) -> str:
    """What a sentence says, for comparing: no citations, whitespace or punctuation, and none of
    ``lead_words`` at its start (a connective, "因此", is not what it says)."""
    k = _NOISE.sub("", normalise(strip_citations(sentence)))
    cut = True
    while cut:
        cut = False
        for w in sorted(lead_words, key=len, reverse=True):
            if k.startswith(w) and len(k) > len(w):
                k, cut = k[len(w):], True
                break
    return k


def looping_tail(text: str, min_unit: int, times: int) -> Optional[str]:
    """The stretch that ``text`` ends with ``times`` times in a row (the last copy may be cut
    short: the stream is mid-way through it), at least ``min_unit`` long; None if there is none.
    Looks at the last ``times × MAX_UNIT`` characters only, so a call is cheap on every token."""
    text = text[-times * MAX_UNIT:]
    for p in range(min_unit, len(text) // times + 1):
        tail = text[-times * p:]
        if tail[p:] == tail[:-p] and len(set(tail[:p])) >= MIN_DISTINCT and not tail[:p].isdigit():
            return tail[:p]
    return None


class RepetitionGuard:
    """Feed it the stream; :attr:`reason` is set by the first loop found (and stays)."""

    def __init__(self, rules: Optional[RepetitionRules] = None):
        self.rules = rules or RepetitionRules()
        self.seen: Counter[str] = Counter()
        self.last_template = ""
        self.run = 0
        self.reason: Optional[str] = None

    def sentence(self, text: str) -> Optional[str]:
        """Why ``text``, the next finished sentence, is a loop, or None."""
        r = self.rules
        if _ECHO.match(text):
            self.reason = self.reason or "echoes the material (a block label opens the sentence)"
            return "echoes the material (a block label opens the sentence)"
        k = key(text, r.lead_words)
        if not k:
            return None
        self.seen[k] += 1
        template = _DIGITS.sub("#", k)
        self.run = self.run + 1 if template == self.last_template else 1
        self.last_template = template
        why = None
        if self.seen[k] >= (2 if len(k) >= r.min_chars else r.short_times):
            why = f"the same sentence {self.seen[k]} times"
        elif "#" in template and len(k) >= r.min_chars and self.run >= r.template_run:
            why = f"the same step with other numbers {self.run} times in a row"
        else:
            unit = looping_tail(k, r.tail_chars, r.tail_times)
            if unit:
                why = f"{unit[:20]!r} {r.tail_times} times in one sentence"
        if why and self.reason is None:
            self.reason = why
        return why

    def partial(self, text: str) -> Optional[str]:
        """Why the unfinished rest of the stream (no sentence end yet) is a loop, or None."""
        unit = looping_tail(key(text), self.rules.tail_chars, self.rules.tail_times)
        if unit is None:
            return None
        why = f"{unit[:20]!r} {self.rules.tail_times} times in a row"
        self.reason = self.reason or why
        return why
