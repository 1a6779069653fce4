"""Past-paper references in a question: ``09年统考第25题``, ``2019年408第42题``, ``2019 408 42``,
``19年42题``, ``第42题（2019）``, ``二〇一九年第四十二题``, ``2009 Q31`` → (year, number).

A reference resolves to the question record of that paper (``Catalog.questions``), which is why a
false positive is expensive: the student would get the answer to another question. So a year must
be a plausible 408 year (``FIRST_YEAR``..``LAST_YEAR``; the unified exam started in 2009) and be
*marked* as a year (``年``, a paper word such as ``408``/``统考``/``真题``, or a bare ``YEAR NUMBER``
query), and a number must be marked as a question (``第…题``, ``…题``, ``Q…``) and lie in
1..``MAX_NUMBER``. ``2^16``, ``IPv4 32位``, ``1024 64``, ``第3章``, ``第12页`` therefore never match.
"""

from __future__ import annotations

import re
import unicodedata
from typing import NamedTuple, Optional

FIRST_YEAR = 2009  # first unified 408 exam
LAST_YEAR = 2035  # generous upper bound; a larger 4-digit number is not a paper year
MAX_NUMBER = 60  # 408 papers have 47 questions; leave room for other papers

_CN_DIGIT = {"〇": 0, "零": 0, "○": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5,
             "六": 6, "七": 7, "八": 8, "九": 9}

# words that may stand between a year and the question number: 2019年408统考真题第42题
_PAPER = (r"(?:408|计算机|专业基础综合|专业课|全国|硕士|研究生|入学|考试|统一|统考|联考|考研|真题|试题|试卷|卷|"
          r"单项选择题|选择题|单选题|综合应用题|综合题|应用题|大题|的|中|里|年)")
_YEAR4 = r"(?<!\d)(?P<year>(?:19|20)\d{2})"
_YEAR2 = r"(?<![\d.^])(?P<year>\d{2})"
_NUM = r"第?\s*(?P<num>\d{1,2})(?!\d)\s*(?:小题|题|道)"
_PATTERNS = [
    # 2019年408第42题, 09年统考第25题, 19年42题, 2019年真题42题
    re.compile(rf"{_YEAR4}\s*年\s*(?:{_PAPER}\s*)*{_NUM}"),
    re.compile(rf"{_YEAR2}\s*年\s*(?:{_PAPER}\s*)*{_NUM}"),
    # 2019 408 第42题, 2019统考第42题 (4-digit year followed by a paper word or a space)
    re.compile(rf"{_YEAR4}\s*(?:{_PAPER}\s*)+{_NUM}"),
    re.compile(rf"{_YEAR4}\s+{_NUM}"),
    re.compile(rf"{_YEAR4}\s*第\s*(?P<num>\d{{1,2}})(?!\d)\s*(?:小题|题)"),  # 2009第47题
    # 第42题（2019）, 第42题(19年), 42题（2019年408）
    re.compile(r"第?\s*(?P<num>\d{1,2})(?!\d)\s*(?:小题|题)\s*[（(]\s*(?P<year>(?:19|20)?\d{2})(?!\d)\s*年?[^)）]{0,8}[)）]"),
    # 2009 Q31, 2009-Q31, 408-2009-Q31
    re.compile(rf"{_YEAR4}\s*[-_ ]?\s*[Qq]\s*(?P<num>\d{{1,2}})(?!\d)"),
]
# the whole query is "YEAR [408] NUMBER": 2019 408 42, 2019 42
# a number that names the paper a question is from (2009年, 408), not a datum of the question
YEAR_OR_EXAM = re.compile(r"^(?:19|20)\d\d$|^408$")
_BARE = re.compile(r"^\s*(?P<year>(?:19|20)\d{2})\s*(?:年)?\s+(?:408\s+)?(?P<num>\d{1,2})\s*$")

_CN_YEAR = re.compile(r"([〇零○一二三四五六七八九]{2,4})(?=\s*年)")
_CN_NUM = re.compile(r"第([一二三四五六七八九十两]{1,3})(?=\s*(?:小题|题|道))")


class QuestionRef(NamedTuple):
    year: int
    number: int


def cn_number(text: str) -> Optional[int]:
    """一 → 1, 十二 → 12, 四十二 → 42, 二十 → 20 (numbers below 100)."""
    if "十" not in text:
        return _CN_DIGIT.get(text) if len(text) == 1 else None
    tens, _, ones = text.partition("十")
    t = _CN_DIGIT.get(tens, None) if tens else 1
    o = _CN_DIGIT.get(ones, None) if ones else 0
    if t is None or o is None or "十" in ones:
        return None
    return t * 10 + o


def _arabic(text: str) -> str:
    """二〇一九年第四十二题 → 2019年第42题; full-width digits become ASCII (NFKC)."""
    text = unicodedata.normalize("NFKC", text)
    text = _CN_YEAR.sub(lambda m: "".join(str(_CN_DIGIT[c]) for c in m.group(1)), text)
    return _CN_NUM.sub(lambda m: f"第{n}" if (n := cn_number(m.group(1))) is not None else m.group(0), text)


def _year(raw: str) -> Optional[int]:
    year = int(raw) if len(raw) == 4 else 2000 + int(raw)
    return year if FIRST_YEAR <= year <= LAST_YEAR else None


def question_ref(text: str) -> Optional[QuestionRef]:
    """(year, number) when the question names a past-paper question, else None."""
    norm = _arabic(text)
    candidates = [_BARE.match(norm)] + [p.search(norm) for p in _PATTERNS]
    for m in candidates:
        if not m:
            continue
        year, num = _year(m.group("year")), int(m.group("num"))
        if year is not None and 1 <= num <= MAX_NUMBER:
            return QuestionRef(year, num)
    return None
