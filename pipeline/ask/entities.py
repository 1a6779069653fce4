"""The entity rules of the claim check: what an answer says of a named thing must be what the
passages say of it, not of another thing (rules and thresholds in ``claims.yaml``, ``entities``).

1. **contrast** (:func:`check_entities`): when the question contrasts two things (进程和线程), a
   clause of the answer naming one says what the passages say of that one ("进程是调度的基本单位"
   where they say it of 线程 is a swap);
2. **attribute swap** (:func:`check_swaps`): the words an answer says of a name (开放定址法需要物理
   删除) that the passages say only of a sibling (拉链法: same head 法, or the question's other
   thing) and not of it: "开放定址法需要物理删除元素，而拉链法需要逻辑删除元素" when the passages say
   the reverse, or "Prim算法…直接找权值最小的边" (Kruskal). Words after a negator count as negated
   (不需要指定起始顶点: ¬顶点), so "not X" and "X" are different attributes;
3. **mapped codes** (:func:`check_codes`): a code the passages map to a meaning (变形补码: 01表示正
   溢出, 10表示负溢出) must mean the same in the answer ("10表示无溢出" is wrong; "01表示溢出" only
   less precise).

Rules 2 and 3 use the names of ``pipeline/ask/names.py``; a rules file without ``names`` or
``min_distinct``/``code_pattern`` keeps rule 1 only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Optional

from pydantic import field_validator

from pipeline.ask.names import MAX_PREFIX, Namer
from pipeline.ask.question import Asked, asked_of
from pipeline.ask.sentences import PURE_FUNCTION, containment, grams, normalise, strip_citations, subject_grams
from pipeline.rulefiles import StrictRules, check_patterns, compiled

if TYPE_CHECKING:
    from pipeline.ask.claims import ClaimRules, Evidence

_SENTENCE = re.compile(r"[。！？!?\n]")
_JOINERS = " 和与及、或/,，以"  # "A和B都需要…": what B's segment says, A's says too
NEG_SCOPE = 6  # characters after a negator that it denies (the bigrams starting there)
MIN_FACTS = 3  # words the passages must say of a name before an answer's words about it are weighed
_CLAUSE = re.compile(r"[，,；;：:、]")
# what may stand before a subject name in its clause (and between two names joined as one subject)
_LEAD = re.compile(r"\s*(?:(?:在|而|则|但是|但|对于|对|至于|其中|和|与|及|以及|或|跟|同|相比之下)\s*)*")


class EntityRules(StrictRules):
    conjunctions: list[str]
    min_predicate: float
    clause_marks: str
    # attribute swap: at least this many words of an answer about A that the passages say of a
    # sibling B and not of A (0: off)
    min_distinct: int = 0
    negators: list[str] = []  # words after one of these, in its clause, are negated attributes
    # mapped codes: groups `codes` (one or more codes) and `meaning`
    code_pattern: Optional[str] = None
    min_meaning: float = 0.67  # bigram share at which two meanings of one code agree
    # "A和B是一回事": the two contrasted things said to be one; only a passage saying so backs it ([]: off)
    same_patterns: list[str] = []

    @field_validator("code_pattern")
    @classmethod
    def _re(cls, v: Optional[str]) -> Optional[str]:
        return check_patterns([v])[0] if v is not None else v


# ---------------------------------------------------------------- 1. contrast


def question_entities(question: "str | Asked", rules: "ClaimRules") -> list[str]:
    """The two things a question contrasts: 进程和线程…, SRAM和DRAM…, 流量控制和拥塞控制…
    (a Chinese entity on the right is cut to the length of the one on the left)."""
    if rules.entities is None:
        return []
    conj = "|".join(re.escape(c) for c in rules.entities.conjunctions)
    cjk = rf"[^\W\dA-Za-z_{''.join(PURE_FUNCTION)}]"
    q = asked_of(question).norm
    m = re.search(rf"([A-Za-z][A-Za-z0-9+]*{cjk}{{0,4}}|{cjk}{{2,6}})\s*(?:{conj})\s*([A-Za-z0-9+]*)({cjk}*)", q)
    if not m:
        return []
    left = m.group(1)
    tail = len(re.sub(r"^[A-Za-z][A-Za-z0-9+]*", "", left))  # Chinese chars after a Latin head: B树 → 1
    right = m.group(2) + m.group(3)[:tail] if m.group(2) else m.group(3)[: len(left)]
    if not m.group(2) and len(_common_prefix(left, m.group(3))) >= 2:  # 进程同步和进程互斥: two kinds of 进程, whole
        right = _to_head(left[-2:], right, m.group(3), len(left))  # 邻接矩阵存储和邻接表存储有…: 邻接表存储
    elif not m.group(2):
        left, right = _as_named(left, right, m.group(3), rules, q[: m.start(1)])
    return [left, right] if left.lower() != right.lower() and len(right) >= 2 else []


NAME_AFTER = 1  # a function character before the right side's name: 和用开放定址法 → 开放定址法


def _as_named(left: str, right: str, right_text: str, rules: "ClaimRules", before: str = "") -> tuple[str, str]:
    """The two things cut to the names the rules know, where they know one: a known name ending the
    left side (控制中慢启动 → 慢启动), else the last one reaching into it from the words before
    (用拉链法处理冲突 → 拉链法); one starting the right text, after at most ``NAME_AFTER`` characters
    (拥塞避免的区别: the length of the left side would cut it to 拥塞避; 用开放定址法 → 开放定址法);
    else, when the left side ends with a head (寻址), the right side up to the same head
    (直接寻址和一次间接寻址: 一次间接寻址, not 一次间接)."""
    if getattr(rules, "names", None) is None:
        return left, right
    namer = rules.names.namer()
    ends = [n for s, e, n in namer.find(left, headed=False) if e == len(left)]
    if ends:
        left = max(ends, key=len)
    else:
        text = before + left
        inside = [n for s, e, n in namer.find(text) if s < len(before) < e < len(text)]
        if inside:
            left = inside[-1]
    if not right_text:
        return left, right
    starts = [(s, n) for s, e, n in namer.find(right_text, headed=False) if s <= NAME_AFTER]
    if starts:
        return left, max(starts, key=lambda sn: (-sn[0], len(sn[1])))[1]
    head = namer.head(left)
    return left, _to_head(head, right, right_text, len(left)) if head else right


def _to_head(head: str, right: str, right_text: str, size: int) -> str:
    """The right side up to ``head`` when it ends there within ``MAX_PREFIX`` characters more than
    the left side has (else as cut)."""
    at = right_text.find(head, 1, size + MAX_PREFIX + len(head))
    return right_text[: at + len(head)] if at > 0 else right


def _common_prefix(a: str, b: str) -> str:
    i = 0
    while i < min(len(a), len(b)) and a[i] == b[i]:
        i += 1
    return a[:i]


def clauses(text: str, rules: "ClaimRules") -> list[str]:
    return [c for c in re.split(rf"[{rules.entities.clause_marks}\n]", normalise(strip_citations(text))) if c.strip()]


def _mentions(clause: str, entities: list[str]) -> list[str]:
    low = clause.lower()
    return [e for e in entities if e.lower() in low]


def _predicate(clause: str, entities: list[str]) -> set[str]:
    for e in entities:
        clause = re.sub(re.escape(e), " ", clause, flags=re.I)
    return subject_grams(clause)


def check_entities(sentence: str, ev: "Evidence", rules: "ClaimRules") -> Optional[str]:
    """A swap of the two things the question contrasts ("进程是调度的基本单位" where the passage
    says 线程 is): for a clause of the answer naming one of them, the passage clauses saying the
    same thing (``min_predicate`` of its other words) must name the same one."""
    entities = ev.entities
    if len(entities) != 2:
        return None
    for clause in clauses(sentence, rules):
        named = _mentions(clause, entities)
        pred = _predicate(clause, entities)
        if len(named) != 1 or len(pred) < 2:
            continue
        best, who = 0.0, set()
        for unit in ev.clauses:
            other = _mentions(unit, entities)
            if len(other) != 1:
                continue
            score = containment(pred, _predicate(unit, entities))
            if score < rules.entities.min_predicate:
                continue
            if score > best + 0.05:
                best, who = score, {other[0]}
            elif score >= best - 0.05:
                who.add(other[0])
        if who and named[0] not in who:
            return f"swap: the passage says this of {'/'.join(sorted(who))}, not {named[0]}"
    return check_sameness(sentence, ev, rules) or check_side_facts(sentence, ev, rules)


_BOTH_NAMED = ("两者", "二者", "它们", "这两个", "两个概念")
_NOT_BEFORE = re.compile(r"(?:不|并非|非|没|并不)\s*$")


def said_same(text: str, entities: list[str], rules: "ClaimRules") -> bool:
    """Does ``text`` (one clause or sentence) say the two things are one and the same? Both named (or
    两者/它们) and a pattern of ``same_patterns`` not negated (不是一回事, 并非相同)."""
    low = text.lower()
    if not (all(e.lower() in low for e in entities) or any(w in text for w in _BOTH_NAMED)):
        return False
    for p in rules.entities.same_patterns:
        for m in re.finditer(p, text):
            if not _NOT_BEFORE.search(text[max(0, m.start() - 3):m.start()]):
                return True
    return False


def check_sameness(sentence: str, ev: "Evidence", rules: "ClaimRules") -> Optional[str]:
    """The two things the question contrasts said to be the same ("波特率和比特率是一回事") where no passage
    sentence says so: a contrast question is asked because they differ, and the model's "yes" to
    `…是一回事吗` is its own guess."""
    entities = ev.entities
    if len(entities) != 2 or rules.entities is None or not rules.entities.same_patterns:
        return None
    if not said_same(sentence, entities, rules):
        return None
    for h in ev.hits:
        if any(said_same(s, entities, rules) for s in re.split(r"[。！？!?\n]", h.text)):
            return None
    return f"says {entities[0]} and {entities[1]} are the same; no passage does"


def check_side_facts(sentence: str, ev: "Evidence", rules: "ClaimRules") -> Optional[str]:
    """Rule 1, fact by fact: what the sentence says of one side (its clauses as the contrast table
    reads them, ``contrast_facts``: "慢开始阶段，拥塞窗口的增长方式是线性增长，每次增加1" is all 慢开始's)
    holds at least ``min_distinct`` words the passages' facts say of the other side only, and more than
    twice as many as those they say of this side only: the two things swapped. Words after a negator
    count as negated (不是线性增长: ¬线性), the question's own words not at all. A side the passages say
    fewer than ``MIN_FACTS`` words of is not weighed."""
    er = rules.entities
    if er is None or not er.min_distinct or len(ev.entities) != 2:
        return None
    from pipeline.ask.contrast_facts import facts, said_of  # the contrast table's reading of a side

    if ev.side_facts is None:
        found = facts(ev.entities, ev.hits, rules)
        ev.side_facts = [set().union(*[_fact_words(f, er) for f in found if f.side == side]) for side in (0, 1)]
    for f in said_of(ev.entities, normalise(strip_citations(sentence)), rules):
        mine, theirs = ev.side_facts[f.side], ev.side_facts[1 - f.side]
        if len(mine) < MIN_FACTS:
            continue
        words = _fact_words(f, er) - ev.question_grams - {"¬" + g for g in ev.question_grams}
        only_theirs, only_mine = words & (theirs - mine), words & (mine - theirs)
        if len(only_theirs) >= er.min_distinct and len(only_theirs) > 2 * len(only_mine):
            return (f"swap: the passages say {_phrase(only_theirs, f.said)} of {ev.entities[1 - f.side]}, "
                    f"not of {ev.entities[f.side]}")
    return None


def _fact_words(f, er: EntityRules) -> set[str]:
    return attributes(f.said, er.negators, er.clause_marks)


# ---------------------------------------------------------------- 2. attribute swaps


def segments(text: str, namer: Namer) -> list[tuple[tuple[str, ...], str]]:
    """(names, what follows them) for each subject name in each sentence of ``text``: what a
    sentence says after a name, up to the next subject name, is said of it ("在拉链法中，删除时直接
    物理删除" of 拉链法). A name is a subject where it begins a clause (after 在/而/则/对于… at most);
    one inside a clause is an object ("…并不是指拥塞窗口增长得慢" is still about 慢启动), and of
    "X的Y" Y is the subject. Names joined by 和/与/、 share what follows the last of them."""
    out = []
    for sent in _SENTENCE.split(text):
        subjects: list[tuple[int, int, str]] = []
        for s, e, n in namer.find(sent):
            if _LEAD.fullmatch(_CLAUSE.split(sent[:s])[-1]):
                subjects.append((s, e, n))
            elif subjects and sent[subjects[-1][1]:s] == "的":
                subjects[-1] = (s, e, n)  # 散列表的装填因子是…: said of 装填因子, not of 散列表
        pending: list[str] = []
        for i, (_, end, name) in enumerate(subjects):
            nxt = subjects[i + 1][0] if i + 1 < len(subjects) else len(sent)
            owners = pending + [namer.key(name)]
            seg = _without_names(sent[end:nxt], namer)
            if not seg.strip(_JOINERS):
                pending = owners
                continue
            pending = []
            out.append((tuple(owners), seg))
    return out


def _without_names(text: str, namer: Namer) -> str:
    """``text`` with the names in it blanked: the words of 直接寻址 in "比直接寻址多访问一次" are
    no attribute of the subject."""
    for s, e, _ in reversed(namer.find(text)):
        text = text[:s] + " " + text[e:]
    return text


def attributes(text: str, negators: list[str], marks: str) -> set[str]:
    """Content bigrams of ``text``; in each clause, those starting within ``NEG_SCOPE`` characters
    after its first negator as ``¬word`` (不需要指定起始顶点 → ¬需要, ¬指定, ¬起始…): what a negator
    denies is the verb phrase right after it, not the rest of a long clause."""
    out: set[str] = set()
    for clause in re.split(rf"[{re.escape(marks)}]", text):
        cut = min((i for i in (clause.find(n) for n in negators) if i >= 0), default=-1)
        if cut < 0:
            out |= subject_grams(clause)
            continue
        neg = next(n for n in sorted(negators, key=len, reverse=True) if clause.startswith(n, cut))
        start = cut + len(neg)
        out |= subject_grams(clause[:cut])
        out |= {"¬" + g for g in subject_grams(clause[start:start + NEG_SCOPE + 1])}
        out |= subject_grams(clause[start + NEG_SCOPE:])
    return out


def _phrase(words: set[str], text: str) -> str:
    """The words as the text has them: overlapping bigrams joined in order (物理+理删 → 物理删),
    a negated word with 不 before it."""
    plain = sorted({w.lstrip("¬") for w in words}, key=lambda w: (text.find(w), w))
    runs: list[str] = []
    for w in plain:
        if runs and runs[-1].endswith(w[:1]) and text.find(runs[-1] + w[1:]) >= 0:
            runs[-1] += w[1:]
        else:
            runs.append(w)
    denied = {w[1:] for w in words if w.startswith("¬")}
    return "、".join(("不" if any(d in r for d in denied) else "") + r for r in runs[:4])


def _flip(word: str) -> str:
    return word[1:] if word.startswith("¬") else "¬" + word


@dataclass
class Facts:
    """What the passages say of each name, and what they map each code to (built once per answer)."""

    said: dict[str, set[str]] = field(default_factory=dict)
    codes: dict[str, list[tuple[str, str]]] = field(default_factory=dict)  # code → (meaning, passage line)

    @classmethod
    def build(cls, texts: list[str], namer: Namer, rules: "ClaimRules") -> "Facts":
        er = rules.entities
        facts = cls()
        for text in texts:
            text = normalise(strip_citations(text))
            if er.min_distinct:
                for owners, seg in segments(text, namer):
                    words = attributes(seg, er.negators, er.clause_marks)
                    for name in owners:
                        facts.said.setdefault(name, set()).update(words)
            if er.code_pattern:
                for line in _SENTENCE.split(text):
                    for code, meaning in code_meanings(line, er.code_pattern):
                        facts.codes.setdefault(code, []).append((meaning, line))
        return facts


def _siblings(a: str, b: str, namer: Namer, question_names: set[str]) -> bool:
    """Two names of one kind: a shared head (Prim算法/Kruskal算法, 开放定址法/拉链法), or both named
    by the question."""
    if any(a.endswith(h) and b.endswith(h) and len(a) > len(h) and len(b) > len(h) for h in namer.heads):
        return True
    return a in question_names and b in question_names


def check_swaps(sentence: str, ev: "Evidence", rules: "ClaimRules") -> Optional[str]:
    """An attribute of a sibling given to a name: at least ``min_distinct`` of the words the
    sentence says of A are said of a sibling B in the passages and not of A (or denied of A only),
    and at least twice as many as the words said of A and not of B."""
    er = rules.entities
    if er is None or not er.min_distinct:
        return None
    text = normalise(strip_citations(sentence))
    for owners, seg in segments(text, ev.namer):
        if len(owners) != 1:
            continue
        a = owners[0]
        of_a = ev.facts.said.get(a)
        said = attributes(seg, er.negators, er.clause_marks)
        if not of_a or len(of_a) < MIN_FACTS or len(said) < er.min_distinct:
            continue
        for b, of_b in ev.facts.said.items():
            if b == a or not _siblings(a, b, ev.namer, ev.question_names):
                continue
            # what the passages say only of B, or deny of A only (A ¬X in the passages, A X here)
            only_b = (said & (of_b - of_a)) | {w for w in said
                                                if _flip(w) in of_a and _flip(w) not in of_b and w not in of_a}
            only_a = said & (of_a - of_b)
            if len(only_b) >= er.min_distinct and len(only_b) >= 2 * len(only_a):
                return f"swap: the passages say {_phrase(only_b, seg)} of {b}, not of {a}"
    return None


# ---------------------------------------------------------------- 3. mapped codes


def code_meanings(text: str, pattern: str) -> list[tuple[str, str]]:
    """(code, meaning) pairs: "00或11表示没有溢出" → (00, 无溢出), (11, 无溢出)."""
    out = []
    for m in compiled(pattern).finditer(text):
        meaning = _meaning(m.group("meaning"))
        if meaning:
            out += [(c, meaning) for c in re.findall(r"[0-9A-Za-z]+", m.group("codes"))]
    return out


def _meaning(text: str) -> str:
    text = re.sub(r"\s+", "", text).strip("的了")
    return re.sub(r"没有|不是|并非|未|不|非", "无", text)


def _agree(said: str, given: str, share: float) -> bool:
    """The answer's meaning is the passage's, or a less precise form of it (溢出 for 正溢出)."""
    if said in given or given in said:
        return True
    a, b = grams(said), grams(given)
    return containment(a, b) >= share or containment(b, a) >= share


def check_codes(sentence: str, ev: "Evidence", rules: "ClaimRules") -> Optional[str]:
    """A code the passages map to a meaning (in a line about the same thing: it shares a word
    with the sentence or the question) must mean that in the sentence too."""
    er = rules.entities
    if er is None or not er.code_pattern or not ev.facts.codes:
        return None
    text = normalise(strip_citations(sentence))
    pairs = code_meanings(text, er.code_pattern)
    if not pairs:
        return None
    context = subject_grams(compiled(er.code_pattern).sub(" ", text)) | ev.question_grams
    for code, said in pairs:
        given = [(m, line) for m, line in ev.facts.codes.get(code, []) if subject_grams(line) & context]
        if given and not any(_agree(said, m, er.min_meaning) for m, _ in given):
            return f"code {code}: the passages say {given[0][0]}, not {said}"
    return None


def check_attributes(sentence: str, ev: "Evidence", rules: "ClaimRules") -> Optional[str]:
    """Rules 2 and 3: attribute swaps, then mapped codes."""
    return check_swaps(sentence, ev, rules) or check_codes(sentence, ev, rules)
