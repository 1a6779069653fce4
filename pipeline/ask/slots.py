"""A count the question asks for, answered with a share.

Asked `奇偶校验码能查出几位错`, the model wrote `奇偶校验码能查出50%错`: the passage's 50% is its
检错能力 (`奇数个位数可以检查出来，偶数个位数不能检查出来，所以其检错能力为50%`), and the sentence
put it in the slot the question left for a number of bits (dev q126). Every number and word of it is in
the passage, so the number rule let it pass.

The rule reads the answer sentence as the question with its slot filled: the words just before the
question word (``BEFORE`` chars: `能查出`) and the first word after it (`错`) frame the filler. When
the question asks a count (几位, 多少次…) and the filler is a share (50%, 百分之五十, 一半), the
sentence answers another quantity. A question that asks a share itself (百分之几, 利用率, 占比) is left
alone, and so is a sentence that does not restate the question.
"""

from __future__ import annotations

import re
from typing import Optional

from pipeline.ask.sentences import normalise, strip_citations

BEFORE = 3  # chars of the question before its question word that must frame the filler
FILLER_CHARS = 12  # a longer filler is no slot filled: the sentence says something else

_COUNT = re.compile(r"(?:几|多少)(?P<measure>位|次|个|道|条|种|跳|级|层|页|块|轮|字节|比特|bit)")
_SHARE_ASKED = re.compile(r"百分之几|百分比|占比|比例|比率|[率例]")
_SHARE = re.compile(r"\d+(?:\.\d+)?\s*%|百分之|一半|[二三四五六七八九十]分之")
_CLAUSE = re.compile(r"[，,。；;！？!?\n]")


def share_for_count(sentence: str, question: str) -> Optional[str]:
    """Why ``sentence`` fails (it fills the count ``question`` asks for with a share), or None."""
    q = normalise(question)
    m = _COUNT.search(q)
    if not m or _SHARE_ASKED.search(q):
        return None
    before = q[max(0, m.start() - BEFORE):m.start()]
    after = _CLAUSE.split(q[m.end():], maxsplit=1)[0][:1]
    if len(before) < BEFORE or _CLAUSE.search(before):
        return None
    text = normalise(strip_citations(sentence))
    end = r"(?=" + re.escape(after) + r")" if after else r"(?=[，,。；;！？!?]|$)"
    for f in re.finditer(re.escape(before) + r"(?P<filler>[^，,。；;！？!?\n]{1,%d}?)" % FILLER_CHARS + end, text):
        filler = f.group("filler")
        if _SHARE.search(filler) and m.group("measure") not in filler:
            return f"asks 几{m.group('measure')} (a count), the sentence fills it with a share ({filler})"
    return None
