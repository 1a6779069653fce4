"""A formula over a letter the answer never says the meaning of.

Asked `索引分配访问第n条记录要访问磁盘几次`, the model wrote `要访问磁盘m+1次`: the passage's row is
`m级索引…需访问磁盘m+1次`, and without `m级` a student cannot read the answer (dev q064). Asked the
receive window of selective repeat, it wrote `接收窗口是2^(k-1)` and never said that k is the bits of a
sequence number (q131). Both formulas are in the passages, so the invented-formula rule lets them pass.

When a passage sentence (up to ``QUOTE_CHARS``) writes the same formula and says its letters
(`k位比特编号最大接受窗口为2^(k-1)`), that sentence is shown instead, cited (:func:`passage_saying`);
otherwise the sentence fails.

A letter is *said* when the question or the answer so far uses it outside a formula: `m级`, `第n条`,
`设k为…`, `N=…`, `n(n-1)/2` (its leading n). A lowercase n is the number of elements, nodes or
records by the books' convention (`平均查找长度为(n+1)/2`, `O(n^2)`), and Big-O notation is left out
whole.
"""

from __future__ import annotations

import re
from typing import Optional

from pipeline.ask.sentences import normalise, strip_citations
from pipeline.models import Hit

QUOTE_CHARS = 80  # a longer passage sentence (a whole table row) is no stand-in for one answer sentence

# a formula over a one-letter variable: m+1, 2^(k-1), n/2, N-1 (as the invented-formula rule reads it)
LETTER_FORMULA = re.compile(r"(?<![A-Za-z0-9])(?:[A-Za-z]\s*[-+*/^]\s*\d+|\d+\s*[-+*/^]\s*\(?\s*[A-Za-z])"
                            r"(?![A-Za-z0-9])")
_BIG_O = re.compile(r"O\s*\([^)]*\)")
_LETTER = re.compile(r"[A-Za-z]")
CONVENTIONAL = {"n"}  # the size of the input, read without being said


def _letters_outside_formulas(text: str) -> set[str]:
    bare = LETTER_FORMULA.sub(" ", _BIG_O.sub(" ", text))
    return {m.group() for m in re.finditer(r"(?<![A-Za-z])[A-Za-z](?![A-Za-z])", bare)}


def unsaid_letter(sentence: str, said_before: str, question: str) -> Optional[str]:
    """Why ``sentence`` fails (a formula over a letter neither the question nor the answer up to and
    including this sentence uses outside a formula), or None."""
    text = normalise(strip_citations(sentence))
    formulas = list(LETTER_FORMULA.finditer(_BIG_O.sub(" ", text)))
    if not formulas:
        return None
    said = _letters_outside_formulas(" ".join((normalise(strip_citations(said_before)), text, normalise(question))))
    for m in formulas:
        for letter in _LETTER.findall(m.group()):
            if letter not in said and letter not in CONVENTIONAL:
                return f"formula {m.group().strip()}: the answer does not say what {letter} is"
    return None


def _squash(text: str) -> str:
    return re.sub(r"\s+", "", text)


def passage_saying(sentence: str, hits: list[Hit]) -> Optional[tuple[str, Hit]]:
    """(the shortest passage sentence that writes each letter formula of ``sentence`` and says its
    letters, the hit it is in), or None."""
    text = normalise(strip_citations(sentence))
    formulas = {_squash(m.group()) for m in LETTER_FORMULA.finditer(_BIG_O.sub(" ", text))}
    best: Optional[tuple[str, Hit]] = None
    for hit in hits:
        for piece in re.split(r"(?<=[。！？!?])|\n", hit.text):  # shown as the passage writes it
            piece = piece.strip(" >-*\t")
            flat = _squash(normalise(piece))
            if not piece or len(piece) > QUOTE_CHARS or not all(f in flat for f in formulas):
                continue
            if unsaid_letter(piece, "", "") is None and (best is None or len(piece) < len(best[0])):
                best = (piece, hit)
    return best
