"""Contrast questions (A和B的区别): a table of what the material says of each side, aspect by aspect (issue 23).

The small model answers "内部碎片和外部碎片有什么区别" with one sentence about 内部碎片 and stops, or says
something the claim check refutes; the grounded core then is often one generic sentence ("TCP 主要通过
四个算法…") that answers nothing. :func:`table` builds the contrast from the passages alone: for the two
things the question contrasts (``entities.question_entities``), the facts the passages state of each
(``contrast_facts``: a clause that names one side and not the other, with the clauses that go on about it),
arranged in rows, one per aspect, in this order:

1. **the question's aspects**: each word the question asks about after naming the things (建立连接, 可靠性,
   删除, 增长; ``aspect_terms``): the pair of facts, one per side, that hold it and score best together
   (their share of all the aspect words, ``DEFINITION_BONUS`` for a definition, less ``RANK_DISCOUNT``
   per passage rank and ``EXERCISE_RANKS`` for an exercise section; more when both are one table field or
   from one passage). A word the facts of a row already hold joins its label;
2. **the material's own table**: the same field of a table row for each side (与信息的关系, 稳定性);
3. **one half row**: a question's aspect word only one side has any fact for, the other shown as
   ``资料未说明``; two such words on opposite sides (稠密 for one, 稀疏 for the other) make one full row;
4. **aspects found in prose**: two facts, one of each side, sharing ``MIN_SHARED`` words besides the
   names and the question's words (每个轮次, cwnd…), best pair first; the shared words label the row
   (``定义`` when both define their thing);

at most ``MAX_ROWS`` rows (``MAX_TABLE_ROWS`` when the rows beyond come from a table of the material,
rule 2: its rows are the material's own comparison, a student wants all of them), each fact in one row, none whose two cells say the same. A table needs one
full row (both sides), else there is none: half a contrast would read as the whole. Every cell is a
passage's words with its citation, so nothing in it is generated, and nothing in it can be reversed
except by a fact put in the wrong column, which ``contrast_facts`` guards against. :func:`render` gives
the lines a terminal and the web page both show (``方面：…`` then one indented line per side, its
citation kept whole for the page's chips).
"""

from __future__ import annotations

import re
from typing import Optional

from pipeline.ask import keysentences
from pipeline.ask.contrast_facts import Fact, facts, side_names
from pipeline.ask.entities import question_entities
from pipeline.ask.question import Asked, asked_of
from pipeline.ask.sentences import FUNCTION_CHARS, content, normalise, split_sentences
from pipeline.models import ContrastRow, ContrastTable, Hit, KeySentence

HEAD = "对比（资料原文）："
ASPECT = "方面："
UNSAID = "资料未说明"
DEFINITION_LABEL = "定义"
MAX_ROWS = 3
MAX_TABLE_ROWS = 8  # rows of the material's own table (rule 2); prose pairs (rule 4) only up to MAX_ROWS
MIN_SHARED = 2  # words (bigrams, Latin words) two facts share to make a row of their own
DEFINITION_BONUS = 0.2
FIELD_BONUS = 1.0  # two facts of one table field ("访存次数：1", "访存次数：2"): the material sets them side by side
PASSAGE_BONUS = 0.3  # two facts of one passage: likely so too
RANK_DISCOUNT = 0.05  # per passage rank: the answer's hits first, then each side's own
SIDE_HITS = 2  # passages of each side's own search the table also reads (service: side_queries)
MAX_HALF_ROWS = 1  # rows with one side 资料未说明: a question's aspect the material leaves open for one side
EXERCISE_RANKS = 5  # an exercise section's passage (…习题 › …) ranks as if this much lower: its analysis
# argues one problem's numbers, the notes state the general fact
_EXERCISE = re.compile(r"习题|练习|例题")
# the words that make a question with two named things a contrast (比较 not as in 比较次数)
_CONTRAST = re.compile(r"区别|区分|不同|差别|差异|异同|有何不同|不一样|比较(?!次)|相比|对比|分别|各自|哪个|哪一个|哪种")
# words two facts often share that name no aspect
_LABEL_NOISE = {"进行", "使用", "采用", "通过", "需要", "可以", "如果", "因此", "所以", "就是", "没有", "每个", "一种", "这样"}
_GLUE = FUNCTION_CHARS | set("个次种棵位条块几各")
_ASPECT_NOISE = {"区别", "区分", "不同", "差别", "差异", "异同", "不一样", "比较", "相比", "对比", "分别", "各自",
                 "有什么", "什么", "两个", "两种", "阶段", "方式", "方法", "本质", "时候", "做法", "哪个", "各要"}


# words that ask for the difference itself; 分别/各自/哪个 ask for one fact of each ("发送和读取分别用什么协议"),
# which a key sentence often states for both at once: their table follows the model's answer, it is not the answer
_ASKS_DIFFERENCE = re.compile(r"区别|区分|不同|差别|差异|异同|不一样|比较(?!次)|相比|对比")


def asks_difference(question: str) -> bool:
    """Does the question ask how two things differ (not only for a fact of each)?"""
    return bool(_ASKS_DIFFERENCE.search(question))


# a sentence that states a difference itself: "B树和B+树的主要区别可以归纳为以下几点", "两者的不同在于…"
_STATES_DIFFERENCE = re.compile(r"(?:区别|不同|差别|差异|不同之处|区别之处)(?:主要)?(?:在于|是|有|为|如下|可以|可归纳|归纳|表现在|体现在|[：:])")
_LIST_ITEM = re.compile(r"^\s*(?:[（(]\d{1,2}[)）]|\d{1,2}[.、．]|[①②③④⑤⑥⑦⑧⑨⑩]|[一二三四五六七八九十][、.．])")
STATED_KEYS = 2  # key sentences looked at for a stated difference (the best ones: it must answer the question)
STATED_CHARS = 600  # of the stated passage shown: its sentence and the numbered points that follow it
STATED_HITS = 2  # …then the best passages' own sentences: "有何不同" ranks the material's "主要区别有" low as a key
STATED_HEAD = "资料对两者区别的原文说明："


def stated(question: "str | Asked", keys: list[KeySentence], hits: list[Hit], rules) -> Optional[ContrastTable]:
    """The sentence that states the difference the question asks about: it names both sides and says
    区别在于/不同是/区别如下…; looked for in the first ``STATED_KEYS`` key sentences, then in the first
    ``STATED_HITS`` passages (a question worded 有何不同 ranks the passage's 主要区别有 low as a key). Returned
    with the numbered points after it in its passage (up to ``STATED_CHARS``), not cut as a key sentence is,
    as a table that answers with it (``answers == "stated"``, no rows). The material's own statement answers
    a 区别 question better than facts the table pairs up; None when the question asks no difference or no
    sentence states it."""
    things = contrasted(question, rules) if asks_difference(question) else []
    if len(things) != 2:
        return None
    names = side_names(things, rules)
    by_id = {h.chunk_id: h for h in hits}
    candidates = [(k.text, by_id.get(k.chunk_id), k) for k in keys[:STATED_KEYS]]
    candidates += [(sentence, hit, None) for hit in hits[:STATED_HITS]
                   for sentence in split_sentences(hit.text, semicolon=False)]
    for sentence, hit, key in candidates:
        low = normalise(sentence).lower()
        if not _STATES_DIFFERENCE.search(low) or not _names_both(low, names):
            continue
        said = key or KeySentence(text=sentence, chunk_id=hit.chunk_id, citation=hit.citation)
        if hit is not None:  # a key sentence whose passage is not among the hits stays as it is
            said = said.model_copy(update={"text": _with_points(sentence, hit.text)})
        return ContrastTable(things=things, rows=[], answers="stated", stated=said)
    return None


def _names_both(low: str, names: list[list[str]]) -> bool:
    """Both sides named, each apart from the other's longer name (B树 not only inside B+树)."""
    every = sorted({n for side in names for n in side}, key=len, reverse=True)
    found = set()
    for n in every:
        if n in low:
            found |= {i for i, side in enumerate(names) if n in side}
            low = low.replace(n, "\x00")
    return found == {0, 1}


def _with_points(sentence: str, passage: str) -> str:
    """``sentence`` as its passage has it, with the numbered points that follow it (a key sentence is cut
    with "…"): up to ``STATED_CHARS``, ending at a sentence."""
    head = sentence.rstrip("…")
    at = passage.find(head[:40])
    if at < 0:
        return sentence
    out = ""
    for part in split_sentences(passage[at:], semicolon=False):
        if out and (len(out) + len(part) > STATED_CHARS or not (_LIST_ITEM.search(part) or len(out) < len(head))):
            break
        out += part
    return out.strip() or sentence


def contrasted(question: "str | Asked", rules) -> list[str]:
    """The two things a contrast question names, else [] (also for a list of more: 中继器、集线器、网桥、
    路由器里哪个…, where a table of the first two would answer nothing)."""
    question = asked_of(question)
    things = question_entities(question, rules) if _CONTRAST.search(question) else []
    if len(things) == 2 and re.search(re.escape(things[1]) + r"\s*、\s*[^\W\d]", question.norm, re.I):
        return []
    return things


def aspect_terms(question: "str | Asked", things: list[str], vocab=None) -> dict[str, float]:
    """The question's words about what to compare (weighted as the key sentences weigh them): those
    after its first named thing (before it the question sets the scene: TCP拥塞控制里…), without the
    things' names and the words of contrast."""
    question = asked_of(question, vocab)
    q = question.low
    at = min((q.find(t.lower()) for t in things if t.lower() in q), default=0)
    asked = q[at:]
    names = [t.lower() for t in things]
    every = question.terms
    terms = {t: w for t, w in every.items()
             if t not in _ASPECT_NOISE and t.lower() in asked and not _straddles(t, every)
             and not any(t.lower() in n or n in t.lower() for n in names)}
    return {t: w for t, w in terms.items() if not any(t != u and t in u for u in terms)}  # 关键字, not 关键 too


def _straddles(term: str, terms) -> bool:
    """A two-character word across two of the question's words, one of its characters a function or
    measure word (方法|有 → 法有, 要|访存 → 要访, 几棵|子树 → 棵子): the index knows it, the question
    does not say it."""
    if len(term) != 2 or term.isascii() or not set(term) & _GLUE:
        return False
    return any(u != term and (u.endswith(term[0]) or u.startswith(term[1])) for u in terms)


def side_queries(question: "str | Asked", rules, vocab=None) -> list[str]:
    """One search per side (its names and the question's aspect words) and one for the two compared
    ("分页 分段 区别": the notes' comparison sections), or [] for no contrast: the answer's passages
    often speak of one side only."""
    question = asked_of(question, vocab)
    things = contrasted(question, rules)
    if len(things) != 2:
        return []
    aspects = " ".join(aspect_terms(question, things, vocab))
    names = side_names(things, rules)
    each = [" ".join(dict.fromkeys([t] + names[i])) + (" " + aspects if aspects else "") for i, t in enumerate(things)]
    return each + [f"{things[0]} {things[1]} 区别"]


def table(question: "str | Asked", hits: list[Hit], rules, vocab=None, side_hits: Optional[list[Hit]] = None) -> Optional[ContrastTable]:
    """The contrast table, or None (no contrast question, or no full row: see the module docstring)."""
    question = asked_of(question, vocab)
    things = contrasted(question, rules)
    if len(things) != 2:
        return None
    passages = list(hits[:keysentences.MAX_HITS])
    seen = {h.chunk_id for h in passages}
    passages += [h for h in side_hits or [] if h.chunk_id not in seen and not seen.add(h.chunk_id)]
    rank = {h.chunk_id: i + (EXERCISE_RANKS if _EXERCISE.search(" ".join(h.chapter_path)) else 0)
            for i, h in enumerate(passages)}
    rows = _Rows(facts(things, passages, rules), aspect_terms(question, things, vocab), rank)
    rows.asked()
    rows.fields()
    rows.half()
    rows.shared(question.low, vocab)
    out = ContrastTable(things=things, rows=[ContrastRow(aspect="、".join(label), cells=[_cell(f) for f in cells])
                                             for label, cells in rows.rows])
    out.rows.sort(key=lambda r: not r.full)  # full rows first
    return out if out.full_rows else None


class _Rows:
    """The rows of one table as they are found (rules 1–3 of the module docstring), each fact in one row."""

    def __init__(self, found: list[Fact], aspects: dict[str, float], rank: dict[str, int]):
        self.found, self.aspects, self.rank = found, aspects, rank
        self.rows: list[tuple[list[str], list[Optional[Fact]]]] = []
        self.used: set[int] = set()
        self.order = sorted(aspects, key=lambda t: (-aspects[t], t))

    def _add(self, label: list[str], cells: list[Optional[Fact]], limit: int = MAX_ROWS) -> bool:
        """Add a row (False when the table has ``limit`` rows). Two cells saying the same
        ("时间复杂度：NlogN" twice) are no difference, and a row the table already has (two passages
        holding the same sentences) says nothing new: used, not shown."""
        if len(self.rows) >= limit:
            return False
        if all(cells) and _squash(cells[0].said) == _squash(cells[1].said):
            self.used.update(id(f) for f in cells)
            return True
        said = [_squash(f.said) if f else None for f in cells]
        if any([_squash(f.said) if f else None for f in row] == said for _, row in self.rows):
            self.used.update(id(f) for f in cells if f is not None)
            return True  # the same two sentences again, from another passage holding them: one row
        self.rows.append((label, cells))
        self.used.update(id(f) for f in cells if f is not None)
        return True

    def _label_row(self, term: str) -> bool:
        """A full row whose facts both hold the word takes it into its label."""
        row = next((r for r in self.rows if all(f is not None and _holds(f, term) for f in r[1])), None)
        if row is not None and not any(term.lower() in w.lower() for w in row[0]):
            row[0].append(term)
        return row is not None

    def asked(self) -> None:
        """Rule 1: a row per aspect word of the question that both sides have a fact for: the pair
        of facts holding it that scores best together (more when they are the same field of a table,
        ``FIELD_BONUS``, or come from one passage, ``PASSAGE_BONUS``: the material sets them side by side)."""
        for term in self.order:
            if self._label_row(term):
                continue
            holding = [[f for f in self.found if f.side == side and id(f) not in self.used and _holds(f, term)]
                       for side in (0, 1)]
            pairs = [(a, b) for a in holding[0] for b in holding[1]]
            if pairs:
                a, b = max(pairs, key=lambda p: (self._together(*p, term), -len(p[0].text) - len(p[1].text)))
                own = a.field and _key(a.field) == _key(b.field) and term.lower() in _key(a.field)
                self._add([a.field] if own else [term], [a, b])  # 查找方式, the row's own word for it

    def _together(self, a: Fact, b: Fact, term: str) -> float:
        """Two facts' scores, more when the material sets them side by side; most when the word is
        the table row's own aspect (查找方式；B树：…；B+树：…), not a word in its cells."""
        same_field = bool(a.field) and _key(a.field) == _key(b.field)
        bonus = FIELD_BONUS if same_field else PASSAGE_BONUS if a.hit.chunk_id == b.hit.chunk_id else 0.0
        if same_field and term.lower() in _key(a.field):
            bonus += FIELD_BONUS
        return self._score(a) + self._score(b) + bonus

    def fields(self) -> None:
        """Rule 2, from tables: the same field of a table row for each side (与信息的关系, 稳定性)."""
        by_field: dict[str, list[list[Fact]]] = {}
        for f in self.found:
            if f.field and id(f) not in self.used:
                by_field.setdefault(_key(f.field), [[], []])[f.side].append(f)
        for a, b in by_field.values():
            if a and b and not self._add([a[0].field], [a[0], b[0]], MAX_TABLE_ROWS):
                return

    def shared(self, scene: str, vocab=None) -> None:
        """Rule 2, from prose: the two facts sharing the most words besides the question's scene."""
        while len(self.rows) < MAX_ROWS:
            best, best_key = None, None
            for a in (f for f in self.found if f.side == 0 and id(f) not in self.used):
                for b in (f for f in self.found if f.side == 1 and id(f) not in self.used):
                    shared = {w for w in a.words & b.words if w not in scene}
                    if len(shared) < MIN_SHARED:
                        continue
                    key = (len(shared) + self._score(a) + self._score(b), -len(a.text) - len(b.text))
                    if best_key is None or key > best_key:
                        best, best_key = (shared, [a, b]), key
            if best is None:
                return
            shared, cells = best
            label = [DEFINITION_LABEL] if all(f.defines for f in cells) else _phrase(shared, cells[0].text, vocab)
            self._add(label, cells)

    def half(self) -> None:
        """A question's aspect word only one side has facts for (the other has none at all, not just
        none left): one row with the other side 资料未说明; two such words on opposite sides
        (稠密 for Prim, 稀疏 for Kruskal: the question's alternatives) make one full row."""
        halves: list[tuple[str, int, Fact]] = []
        for term in self.order:
            if self._label_row(term) or any(set(term) & set(w) for r in self.rows for w in r[0]):
                continue
            have = [any(f.side == side and _holds(f, term) for f in self.found) for side in (0, 1)]
            if have.count(True) != 1:
                continue
            side = have.index(True)
            fact = self._best(side, term)
            if fact is not None and not any(h[2] is fact for h in halves):
                halves.append((term, side, fact))
        pair = next(((x, y) for x in halves for y in halves if x[1] == 0 and y[1] == 1), None)
        if pair is not None:
            (ta, _, fa), (tb, _, fb) = pair
            self._add([ta, tb], [fa, fb])
        elif halves and MAX_HALF_ROWS:
            term, side, fact = halves[0]
            label = [term] + [t for t in self.order if t != term and _holds(fact, t)]
            self._add(label, [fact, None] if side == 0 else [None, fact])

    def _score(self, f: Fact) -> float:
        total = sum(self.aspects.values())
        cov = sum(w for t, w in self.aspects.items() if _holds(f, t)) / total if total else 0.0
        return (cov + (DEFINITION_BONUS if f.defines else 0.0)) * (1.0 - RANK_DISCOUNT * self.rank.get(f.hit.chunk_id, 0))

    def _best(self, side: int, term: str) -> Optional[Fact]:
        options = [f for f in self.found if f.side == side and id(f) not in self.used and _holds(f, term)]
        return max(options, key=lambda f: (self._score(f), -len(f.text)), default=None)


def _squash(text: str) -> str:
    return re.sub(r"[^\w×√✓✗+\-=<>]+", "", text)  # 稳定性：× and 稳定性：√ differ


def _key(field: str) -> str:
    return normalise(field).strip().lower()


def _holds(f: Fact, term: str) -> bool:
    """The fact (or the table field it is the value of) holds the word; 可靠性 is held by 可靠."""
    t = term.lower()
    t = t[:-1] if len(t) >= 3 and t.endswith("性") else t
    return t in content(f.text) or t in _key(f.field)


def _phrase(words: set[str], text: str, vocab=None) -> list[str]:
    """The shared words as the text has them: overlapping bigrams joined in order (每个+个轮+轮次 →
    每个轮次); with the index vocabulary, only runs that are words (not 指进, a bigram across two)."""
    low = normalise(text).lower()
    ordered = sorted(words, key=lambda w: (low.find(w), w))
    runs: list[str] = []
    for w in ordered:
        if runs and low.find(runs[-1] + w[1:]) >= 0 and runs[-1].endswith(w[:1]):
            runs[-1] += w[1:]
        elif not runs or w not in runs[-1]:
            runs.append(w)
    kept = [r for r in runs if r not in _LABEL_NOISE and (not vocab or r in vocab or r.isascii())]
    return (kept or runs)[:3]


def _cell(f: Optional[Fact]) -> Optional[KeySentence]:
    return None if f is None else KeySentence(text=f.text, chunk_id=f.hit.chunk_id, citation=f.hit.citation)


def render(t: ContrastTable, rows: Optional[list[ContrastRow]] = None) -> str:
    """The table as lines a terminal and the web page both read: ``方面：…`` and under it one line per
    side, ``  A：fact [来源: …]`` (the citation kept whole: the page turns it into a chip). A difference
    the material states (``answers == "stated"``) is its passage under ``STATED_HEAD``."""
    if t.stated is not None and t.answers == "stated":
        return f"{STATED_HEAD}\n{t.stated.text} {t.stated.citation}"
    lines = [HEAD]
    for r in t.rows if rows is None else rows:
        lines.append(f"{ASPECT}{r.aspect}")
        for thing, c in zip(t.things, r.cells):
            if c is None:
                lines.append(f"  {thing}：{UNSAID}")
            elif normalise(c.text).lower().startswith(normalise(thing).lower()):  # "B+树：n": named already
                lines.append(f"  {c.text} {c.citation}")
            else:
                lines.append(f"  {thing}：{c.text} {c.citation}")
    return "\n".join(lines)


def block(t: Optional[ContrastTable], shown: str) -> str:
    """The table after a checked answer (a leading line break), without the rows the answer already
    quotes whole; "" when it quotes them all."""
    if t is None:
        return ""
    have = content(shown)
    rows = [r for r in t.rows if not all(c is None or content(c.text) in have for c in r.cells)]
    return "\n" + render(t, rows) if rows else ""
