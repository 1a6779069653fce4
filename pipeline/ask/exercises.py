"""What a passage asserts: an exercise's options are not facts, only its answer is.

A note's 例题 lists options, and most of them are wrong on purpose (``Ⅰ.使系统更高效`` under
``下列()是微内核结构的特点``, answer C: Ⅱ and Ⅳ). Quoted as a key sentence, copied by the model, or
counted as support by the claim check, a wrong option becomes a confidently wrong answer that cites
the page. :func:`asserted_text` keeps a passage's prose and, of each group of options, only the ones the
exercise's answer chooses; with no answer found near the group, none.

Rules (each with a test in tests/ask/test_exercises.py):

1. **exercise**: only a passage that reads as one is touched: a blank (``()``, ``（ ）``, ``____``),
   a filled blank (``（D）``), a marker (例题, 例1, 答案, 解：, 选C), or a past paper's question heading
   (``2017年 第2题（单项选择题）``, whose answer is often in another booklet: then no option stands). ``A、B必须全部为真`` in a logic
   note is no option.
2. **option group**: consecutive lines labelled ``A.``–``D.`` (a list bullet before the label too: ``- A.``) (or ``Ⅰ.``–``Ⅵ.``, ``I.``–``VI.``), at
   least two distinct labels, the first being A (Ⅰ); a line opening with ``A.`` and holding another
   label (``A.0  B.1  C.2  D.3``) is a group by itself.
3. **chosen**: the letters the exercise's answer names, looked for after the group up to the next
   group (``解：C。``, ``答案：B``, ``所以选D``; not ``解：A限制内存的分配…``, which discusses A) and,
   failing that, in the stem before it as a filled blank (``…的功能是（D）。``). Statements numbered
   Ⅰ–Ⅵ are chosen by the chosen letter's own text (``C.Ⅱ、Ⅳ`` keeps Ⅱ and Ⅳ) or by an answer naming
   them (``答案：I. III．``).
4. **negative stem**: when the stem's last sentence asks for what is *not* so (不正确的是, 错误的是,
   不属于; across a line break and emphasis dots: ``错误\n．．的是``), the chosen options are false
   statements: none of the group is kept.
"""

from __future__ import annotations

import re
from functools import lru_cache

from pipeline.models import Hit

_LATIN_ROMAN = {"I": "Ⅰ", "II": "Ⅱ", "III": "Ⅲ", "IV": "Ⅳ", "V": "Ⅴ", "VI": "Ⅵ"}
_ROMAN = r"[ⅠⅡⅢⅣⅤⅥ]|IV|VI|V|I{1,3}"
# a label opening a line: A. / b、 / (C) / Ⅱ. / II．
_LINE_LABEL = re.compile(r"^[\s>]*(?:[-*+•]\s+)?(?:[(（]\s*([A-Da-d]|[ⅠⅡⅢⅣⅤⅥ])\s*[)）]|([A-Da-d]|[ⅠⅡⅢⅣⅤⅥ]|I{1,3}|IV|VI?)\s*[.．、])\s*(?=\S)")
# labels inside a line: "A.0  B.1  C.2" (a label after whitespace or at the start)
_INLINE_LABEL = re.compile(r"(?:^|(?<=[\s;；>]))([A-D])\s*[.．、]\s*(?=\S)")
_EXERCISE = re.compile(r"[(（]\s*[)）]|[(（]\s*[A-D]{1,4}\s*[)）]|_{3,}|例\s*题|例\s*\d|答案|解\s*[:：]|选\s*[A-D]|"
                       r"第\s*\d+\s*题\s*[(（][^)）\n]{0,6}选择题")  # a past paper's question: 2017年 第2题（单项选择题）
_END = r"(?=$|[\s。.，,；;、)）!！])"  # "解：C。", not "解：A限制…" (a discussion of option A)
_CHOSEN_AFTER = re.compile(rf"(?:答案|答|解)\s*[】\]]?\s*(?:是|为|应为|应选|选)?\s*[:：]?\s*([A-D]{{1,4}}){_END}|"
                           rf"(?:故|所以|因此|应)选\s*(?:项)?\s*([A-D]{{1,4}}){_END}", re.M)
_ANSWER_ROMANS = re.compile(r"(?:答案|解)\s*[:：]?\s*([ⅠⅡⅢⅣⅤⅥIV][ⅠⅡⅢⅣⅤⅥIV\s.．、，,和]{0,40})")
_FILLED_BLANK = re.compile(r"[(（]\s*([A-D]{1,4})\s*[)）]")
FRAGMENT_CHARS = 6  # a stem's last line this short (``．．的是``) ends the line before it
_NEGATIVE_STEM = re.compile(r"不正确|错误|不属于|不是|不能|不会|不包括|不可能|不符合|不对|有误|不恰当|不合理|不成立|不必|无关|不具有|不需要")


def _label(line: str) -> str | None:
    m = _LINE_LABEL.match(line)
    if not m:
        return None
    lab = m.group(1) or m.group(2)
    return _LATIN_ROMAN.get(lab, lab.upper() if lab in "abcd" else lab)


def _is_letter(label: str) -> bool:
    return label in ("A", "B", "C", "D")


def _inline_labels(line: str) -> list[re.Match]:
    return list(_INLINE_LABEL.finditer(line))


def _one_line_group(line: str) -> bool:
    """A line that opens with option A and holds at least one more label: ``A.0  B.1  C.2  D.3``."""
    inline = _inline_labels(line)
    return (len({m.group(1) for m in inline}) >= 2 and inline[0].group(1) == "A"
            and not line[:inline[0].start()].strip(" \t>"))


def _groups(lines: list[str]) -> list[tuple[int, int]]:
    """(start, end) line ranges of option groups (rule 2)."""
    out, i = [], 0
    while i < len(lines):
        if _one_line_group(lines[i]):
            out.append((i, i + 1))
            i += 1
            continue
        lab = _label(lines[i])
        if lab not in ("A", "Ⅰ"):
            i += 1
            continue
        j, seen = i, set()
        while j < len(lines) and (nxt := _label(lines[j])) is not None and _is_letter(nxt) == _is_letter(lab):
            seen.add(nxt)
            j += 1
        if len(seen) >= 2:
            out.append((i, j))
            i = j
        else:
            i += 1
    return out


def _chosen(after: str, before: str) -> set[str]:
    m = _CHOSEN_AFTER.search(after)
    if m:
        return set(m.group(1) or m.group(2))
    blanks = _FILLED_BLANK.findall(before)
    return set(blanks[-1]) if blanks else set()


def _romans(text: str) -> set[str]:
    """The statement numbers a text names, Latin spellings too (``I、Ⅱ、Ⅲ``)."""
    return {_LATIN_ROMAN.get(r, r) for r in re.findall(_ROMAN, text)}


def _options(line: str, whole_line: bool) -> list[tuple[str, str]]:
    """(label, text) of the options on a line of a group."""
    if not whole_line:
        return [(_label(line), _LINE_LABEL.sub("", line, count=1))]
    labels = _inline_labels(line)
    return [(m.group(1), line[m.end(): labels[k + 1].start() if k + 1 < len(labels) else None].strip())
            for k, m in enumerate(labels)]


@lru_cache(maxsize=4096)
def asserted_text(text: str) -> str:
    """``text`` with the options its exercises do not choose removed (see the module's rules)."""
    if not _EXERCISE.search(text):
        return text
    lines = text.split("\n")
    groups = _groups(lines)
    if not groups:
        return text
    out = {i: line for i, line in enumerate(lines)}
    stem = ""
    statements: list[int] = []  # lines of the Ⅰ–Ⅵ group waiting for the letter group that chooses among them
    for gi, (s, e) in enumerate(groups):
        nxt = groups[gi + 1][0] if gi + 1 < len(groups) else len(lines)
        before = "\n".join(lines[groups[gi - 1][1] if gi else 0:s])
        after = "\n".join(lines[e:nxt])
        if before.strip():
            stem = before
        negative = bool(_NEGATIVE_STEM.search(_asking_sentence(stem)))
        one_line = e - s == 1 and _one_line_group(lines[s])
        if not one_line and not _is_letter(_label(lines[s])):  # statements Ⅰ–Ⅵ
            statements = list(range(s, e))
            picked = set() if negative else _chosen_romans(after)
            for i in statements:
                if _label(lines[i]) not in picked:
                    out.pop(i, None)
            if not after.strip() and gi + 1 < len(groups):
                for i in statements:  # the letter group right after decides which stand
                    out.pop(i, None)
            else:
                statements = []
            continue
        chosen = set() if negative else _chosen(after, before or stem)
        romans: set[str] = set()
        for i in range(s, e):
            kept = [(lab, body) for lab, body in _options(lines[i], one_line) if lab in chosen]
            romans |= {r for _, body in kept for r in _romans(body)}
            if not kept:
                out.pop(i, None)
            elif one_line:
                out[i] = "  ".join(f"{lab}.{body}" for lab, body in kept)
        for i in statements:
            if _label(lines[i]) in romans:
                out[i] = lines[i]
        statements = []
    return "\n".join(out[i] for i in sorted(out))


def _asking_sentence(stem: str) -> str:
    """The stem's last line, joined to the line before when it is only a fragment: a booklet prints
    ``错误\n．．的是`` for 错误的是, with dots under 错误."""
    lines = [re.sub(r"[\s．·•]+", "", ln) for ln in stem.split("\n")]
    lines = [ln for ln in lines if ln.strip(">")]
    if not lines:
        return ""
    if len(lines) >= 2 and len(lines[-1]) <= FRAGMENT_CHARS:
        return lines[-2] + lines[-1]
    return lines[-1]


def _chosen_romans(after: str) -> set[str]:
    """``答案：I. III．`` (statements chosen with no lettered options)."""
    m = _ANSWER_ROMANS.search(after)
    return _romans(m.group(1)) if m else set()


def asserted_hits(hits: list[Hit]) -> list[Hit]:
    """The hits as what they assert (a copy where an exercise's unchosen options were cut; ids and
    citations unchanged, so what cites them still opens the same page)."""
    out = []
    for h in hits:
        text = asserted_text(h.text)
        out.append(h if text == h.text else h.model_copy(update={"text": text}))
    return out
