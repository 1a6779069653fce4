"""Judge a generated answer against a short reference answer (the ``answer`` field of dev.jsonl).

- **refused**: the answer is the refusal sentence (or there is none).
- **choice** (the reference names an option: ``（选B）``, ``（C）``, ``B（82）``): right when the
  option the answer chooses is that letter; an answer naming no option is judged on content.
- **numbers** (the reference's key numbers: those outside parentheses; of ``a=b`` only ``b``;
  "1和1" needs two 1s; a formula like ``m+1`` must occur as written):
  right when at least ``NUMBER_SHARE`` of them occur in the answer, the first one always; when
  they are all single digits (``大于1``, ``2MSL``), the key terms must occur too.
- **terms** otherwise: right when at least ``TERM_SHARE`` of the reference's key content (character
  bigrams of its first clause, parentheses removed) occurs in the answer, and the answer does not
  take the opposite side of a polarity pair the reference uses (能/不能, 需要/不需要, 稳定/不稳定…),
  nor swap the two things the question contrasts (given the ``question``).

``TERM_SHARE`` was set on 34 grounded-core answers labelled by hand (0.6 called three right
paraphrases wrong); the judge was then checked by hand on 20 generated answers
(bench/results/judge_check.md).
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Literal, NamedTuple, Optional

from pipeline.ask.claims import Evidence, check_entities, load_rules, polarity_terms
from pipeline.ask.prompts import REFUSAL
from pipeline.ask.sentences import containment, grams, normalise, strip_citations
from pipeline.models import Hit

NUMBER_SHARE = 0.75
TERM_SHARE = 0.5
Verdict = Literal["right", "wrong", "refused"]

_REF_LETTER = [re.compile(p) for p in (r"选\s*([A-D])", r"[（(]\s*([A-D])\s*[)）]", r"^\s*([A-D])\s*[（(]",
                                       r"^\s*([A-D])\s*$")]
_ANS_LETTER = [re.compile(p, re.M) for p in (
    r"答案\s*(?:是|为|应为|应选|选)?\s*[:：]?\s*([A-D])(?![A-Za-z])", r"选\s*项?\s*([A-D])(?![A-Za-z])",
    r"正确(?:答案|选项)?\s*(?:是|为)\s*([A-D])(?![A-Za-z])", r"^\s*([A-D])\s*(?:[.．、:：)）]|$)",
    r"(?<![A-Za-z])([A-D])\s*(?:选项|项)")]
_PAREN = re.compile(r"[（(][^）)]*[）)]")
_FORMULA = re.compile(r"(?<![A-Za-z])[a-z]\s*[+\-]\s*\d+(?!\d)")  # m+1, n-1: a letter and a number
_NUM = re.compile(r"(?<![A-Za-z0-9.^])\d+(?:\.\d+)*")
# extra opposites for one-character reference answers ("要", "能")
_EXTRA = [(re.compile(r"(?<![不主重必只还概纲摘])要"), re.compile(r"不要|不需要|不用|无需|不必")),
          (re.compile(r"(?<![不功性可智])能"), re.compile(r"不能|无法|不可以"))]


class Judgement(NamedTuple):
    verdict: Verdict
    reason: str


def reference_letter(reference: str) -> Optional[str]:
    ref = normalise(reference)
    for p in _REF_LETTER:
        m = p.search(ref)
        if m:
            return m.group(1)
    return None


def answer_letter(text: str) -> Optional[str]:
    """The option the answer chooses: the earliest explicit choice (答案：C, 选C, 正确答案是C); only
    without one, the earliest option line ("A. …") — a pasted record lists all its options."""
    for group in (_ANS_LETTER[:3], _ANS_LETTER[3:]):
        found = [(m.start(), m.group(1)) for p in group for m in [p.search(text)] if m]
        if found:
            return min(found)[1]
    return None


def key_numbers(reference: str) -> list[str]:
    ref = _PAREN.sub(" ", normalise(reference))
    out: list[str] = []
    for clause in re.split(r"[；;，,、]", ref):
        if re.search(r"[=≈]", clause):
            clause = re.split(r"[=≈]", clause)[-1]
        out += _NUM.findall(clause)
    return out


def _count_number(num: str, text: str) -> int:
    if re.search(rf"[都均](?:是|为)?\s*{re.escape(num)}(?!\d|\.\d)", text):
        return 99  # "都是1": as many as asked
    return len(re.findall(rf"(?<![\d.A-Za-z]){re.escape(num)}(?!\d|\.\d)", text))


def _has_number(num: str, text: str) -> bool:
    return _count_number(num, text) > 0


def _opposite(reference: str, answer: str) -> Optional[str]:
    """A polarity term of the reference whose opposite, and not itself, the answer uses."""
    rules = load_rules()
    for pair in rules.polarity.pairs:
        if pair.only_alone:
            continue
        ref_sides = {s for _, _, s in polarity_terms(reference, pair, rules)}
        ans_sides = {s for _, _, s in polarity_terms(answer, pair, rules)}
        if len(ref_sides) == 1 and ans_sides and not (ref_sides & ans_sides):
            return pair.name
    for pos, neg in _EXTRA:
        if pos.search(neg.sub("", reference)) and not neg.search(reference):
            if neg.search(answer) and not pos.search(neg.sub("", answer)):
                return neg.pattern.split("|")[0]
    return None


def _swapped(reference: str, answer: str, question: str) -> Optional[str]:
    """The answer says of one of the question's two contrasted things what the reference says of
    the other (the claim rule ``check_entities``, with the reference as the passage)."""
    if not question:
        return None

    rules = load_rules()
    ref = Hit(rank=1, chunk_id="reference", doc_id="", source="", chapter_path=[], chunk_position=1, pages=[],
              score=1.0, text=reference)
    ev = Evidence.build([ref], question, rules)
    for sentence in re.split(r"[。！？\n]", answer):
        why = check_entities(sentence, ev, rules)
        if why:
            return why
    return None


def judge(answer: Optional[str], reference: str, refused: bool = False, question: str = "") -> Judgement:
    text = normalise(strip_citations(answer or ""))
    if refused or not text.strip() or text.strip() == REFUSAL:
        return Judgement("refused", "no answer")
    letter = reference_letter(reference)
    chosen = answer_letter(text)
    if letter and chosen:
        return Judgement("right" if chosen == letter else "wrong", f"option {chosen}, reference {letter}")
    nums = key_numbers(reference)
    key = re.split(r"[；;]", _PAREN.sub("", normalise(reference)))[0]
    formulas = [f.replace(" ", "") for f in _FORMULA.findall(key)]
    if formulas and not all(f in text.replace(" ", "") for f in formulas):  # m+1 is not n+1
        return Judgement("wrong", f"formula {','.join(formulas)} not in the answer")
    if nums:
        counts = Counter(nums)
        present = [n for n in counts for _ in range(min(counts[n], _count_number(n, text)))]
        ok = _has_number(nums[0], text) and len(present) >= NUMBER_SHARE * len(nums)
        why = f"numbers {len(present)}/{len(nums)} of {','.join(nums)}"
        if ok and all(len(n) == 1 for n in nums):  # "大于1", "2MSL": a lone digit is in any text
            rest = _NUM.sub(" ", key)
            words = grams(rest)
            share = containment(words, grams(text)) if words else float(all(w in text for w in rest.split()))
            ok = share >= TERM_SHARE
            why += f"; single digits, so also key terms {share:.2f}"
        return Judgement("right" if ok else "wrong", why + ("" if chosen or not letter else "; no option named"))
    share = containment(grams(key), grams(text))
    if len(grams(key)) <= 1:  # a one-word reference (低, 要): it must occur
        share = 1.0 if key.strip("，,。 ") and key.strip("，,。 ") in text else 0.0
    flip = _opposite(key, text)
    if flip:
        return Judgement("wrong", f"opposite polarity ({flip})")
    swap = _swapped(reference, text, question)
    if swap:
        return Judgement("wrong", swap)
    return Judgement("right" if share >= TERM_SHARE else "wrong", f"key terms {share:.2f} of '{key}'"
                     + ("" if chosen or not letter else "; no option named"))
