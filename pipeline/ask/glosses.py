"""A sentence that says only what a passage puts in parentheses has taken a gloss for the statement.

A note may state that word extension raises the number of words while the bit width stays, and gloss
"the number of words" in parentheses as the number of addresses. Asked what word extension extends, the
1.5B model answered with the gloss alone, worded as the statement (dev q124): every word is in the
passage, the overlap and transplant checks pass, and the statement itself is lost.

So of what the sentence adds to the question (its character trigrams outside its own parentheses, the
question's left out), when at least ``MIN_FOUND`` are in one passage and ``GLOSS_SHARE`` of those lie only
inside that passage's parentheses (at most ``MAIN_SHARE`` in its running text), and no passage says them
in running text (``ELSEWHERE_SHARE``), the sentence fails. Over 614 supported claims of ten stored
answer dumps it fired on this one sentence only (BENCHMARKS.md, sixteenth run).
"""

from __future__ import annotations

import re
from typing import Optional

from pipeline.ask.sentences import normalise, strip_citations
from pipeline.models import Hit

MIN_FOUND = 3  # trigrams of the sentence's own content found in the passage: fewer say too little
GLOSS_SHARE = 0.8  # …of which at least this share inside its parentheses
MAIN_SHARE = 0.3  # …and less than this share in its running text
ELSEWHERE_SHARE = 0.5  # no passage may hold this share of them in running text
_PAREN = re.compile(r"[（(]([^（()）]{1,80})[)）]")
_CJK_RUN = re.compile(r"[\u3400-\u9fff]+")


def trigrams(text: str) -> set[str]:
    """Character trigrams of each CJK run (a bigram is too common to say whose words these are)."""
    return {run[i:i + 3] for run in _CJK_RUN.findall(normalise(text)) for i in range(len(run) - 2)}


def gloss_only(sentence: str, question: str, hits: list[Hit]) -> Optional[str]:
    """Why ``sentence`` says only a parenthetical remark of a passage, or None (see the module doc)."""
    own = trigrams(_PAREN.sub(" ", normalise(strip_citations(sentence)))) - trigrams(question)
    if len(own) < MIN_FOUND:
        return None
    flagged = None
    for h in hits:
        text = normalise(h.text)
        main, inside = trigrams(_PAREN.sub(" ", text)), trigrams(" ".join(_PAREN.findall(text)))
        found = own & (main | inside)
        if not found:
            continue
        in_main = len(found & main) / len(found)
        if in_main >= ELSEWHERE_SHARE and len(found) >= MIN_FOUND:
            return None  # a passage says it in its running text
        if flagged is None and len(found) >= MIN_FOUND and in_main < MAIN_SHARE \
                and len(found & inside) / len(found) >= GLOSS_SHARE:
            flagged = f"garbled: says only what a passage puts in parentheses ({'、'.join(_PAREN.findall(text))[:30]}…)"
    return flagged
