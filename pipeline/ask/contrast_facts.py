"""What the passages say of each side of a contrast (A和B的区别), clause by clause (issue 23).

The contrast table (``contrast.py``) puts one fact per side in each row; a fact in the wrong column is
a reversed answer, worse than none. So a passage sentence is cut at its clause marks (，；：) and each
clause is given to a side only when it is unambiguous:

1. a clause that **names** exactly one side starts that side's fact ("最开始是慢开始算法，…": the name
   need not open the sentence, only its clause). A name is one of the side's names (the question's
   word, the other names of the same thing in the claim rules' ``names.same``, the side without the
   kind word both end with, ``SHARED_HEADS``: 虚电路方式 → 虚电路, and without the prefix both share:
   进程同步 → 同步);
2. a name is no mention when a longer known name covers it (慢开始门限 is not 慢开始, 寄存器间接寻址 not
   间接寻址: the claim rules' names, the domain terms and words before a head), when it is part of the other side's name where it stands, or when a
   Latin word goes on around it (TCP in TCP/IP); it is an **object**, not what the clause speaks of,
   after a verb of ``_OBJECT`` in its clause ("但是不会产生内部碎片", "出现某些急需处理的异常情况" are
   said of something else), right after a demonstrative (这些异常情况) or a comparing word of
   ``_COMPARE`` ("与拥塞避免不同");
3. a clause naming **both** sides, or the other side at all, belongs to neither and ends the fact; so
   does another known name's field (``BGP：…``) or a clause that turns to another thing (``_SWITCH``:
   后者, 两者, 都…);
4. a clause naming **neither** (or the same side again) goes on with the fact before it in the same
   sentence ("进入拥塞避免，每个轮次只将 cwnd 加 1": the second clause is 拥塞避免's). A sentence opens as
   the side of the one before it when it goes on from it (``_GOES_ON``: 因此, 所以, 即…), else as the
   side its passage's heading is the name of ("2.1 Prim算法"; not "中断的分类") when the passage never
   names the other side, else as no side's;
5. a **table row** (the clean stage writes each as ``表头：值；表头：值``) gives one fact per field: of
   the side its first cell names ("分页；与信息的关系：信息的物理单位" → 分页, field 与信息的关系), or
   of the side a field is headed by ("协议：路由算法；RIP：距离-向量" → RIP, field 路由算法);
6. a fact must say something besides the name: ``MIN_PREDICATE`` characters, ``MIN_CELL`` for a
   table field or a "name：value" clause ("RIP：距离-向量");
7. sentences that state nothing are not read: a past-paper record's, an exercise's or an option's
   (an option may be the wrong one), a question, an exercise's task (…，求Cache命中次数), a link.

Everything here is verbatim: a fact's text is a stretch of one passage sentence, or one table cell.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Optional

from pipeline.ask.names import namer as make_namer
from pipeline.ask.sentences import normalise, split_sentences, subject_grams
from pipeline.models import Hit

MIN_PREDICATE = 8  # content characters (a Latin word counts one) a fact says besides the side's name
MIN_CELL = 1  # …as a table field or the value after "name：" ("RIP：距离-向量", "稳定性：×")
MAX_CHARS = 160  # of one fact: a table cell, not a paragraph (cut at a clause mark)
MAX_HITS = 12  # passages read: the answer's top hits and each side's own (contrast.SIDE_HITS each)
# a word both sides end with that names their kind, not either of them: 虚电路方式/数据报方式 are 虚电路/数据报
SHARED_HEADS = ("方式", "方法", "算法", "阶段", "机制", "技术", "策略", "协议", "法")
_CLAUSE = re.compile(r"[^，,；;：:]+[，,；;：:]*")
_LEAD = re.compile(r"^\s*(?:[+\-*>•·]\s*|\d{1,2}[.、)）]\s*|[（(]\d{1,2}[)）]\s*)+")  # bullets and list numbers
# what stands right before a name the clause compares with, not speaks of
_COMPARE = re.compile(r"(?:与|和|跟|同|比|较|相比|相对于|不同于|区别于|不像|而不是|而非|不是|如同|像)\s*$")
# a verb right before a name makes it the clause's object: the clause speaks of something else
_OBJECT = re.compile(r"(?:产生|出现|存在|会有|没有|造成|导致|形成|减少|消除|引起|采用|使用|利用|借助|调用|支持|属于|搭配|配合|结合)"
                     r"|(?:这些|那些|某些|这种|那种|此类|各种|该)\s*$")  # anywhere before it in the clause; a demonstrative right before
_LATIN_EDGE = re.compile(r"[a-z0-9/+\-_.]")
_SWITCH = re.compile(r"^\s*(?:而|但是?|然而)?\s*(?:前者|后者|另一|另外|其他|其余|反之|相反|相比之下|两者|二者|它们|都|均|同样)")
# a sentence opening with one of these goes on about what the sentence before spoke of ("因此，要删除一个
# 元素时，可给它做一个删除标记")
_GOES_ON = re.compile(r"^\s*(?:因此|所以|故|即|也就是说|这样|此时|于是|从而|但是?|然而|否则|同时|并且|而且)")
_OPTION = re.compile(r"^\s*[(（]?[A-D][.．、)）:：]")
_NOT_STATED = re.compile(r"例题|习题|本题|题中|故选|选项|答案|详见|参见|https?://|[?？]\s*$|[(（]\s*[)）]|[吗呢]\s*[。.]?$"
                         r"|(?<![a-z0-9])[A-D]\s*(?:[.．、]|错误|正确|项|对|错)"
                         # an exercise's task (假设…，求Cache命中次数): what it assumes holds for that exercise only
                         r"|(?:^|[，,；;])\s*(?:分别|再|并|试|请)?(?:求出?|计算出|试问|问|指出|写出|画出)[^，,；;。]{0,30}[。.]?\s*$", re.I)
_HEADING_NOISE = re.compile(r"【[^】]*】|^[\s\d.、()（）❗#一二三四五六七八九十]+|[:：]\s*$")
TABLE_ROW = re.compile(r"^[^；。\n]{1,40}；[^；。\n]{1,30}[：:]")  # a row as the clean stage writes it (表头：值；…)
# a row glued to the sentence before it in one line (a chunk joins a list's last item and the table's
# first row: `…开销小。建立连接；数据报服务：不用；虚电路服务：必须`): split after the full stop; two
# cells at least (one `X；Y：` in prose is no row)
_GLUED_ROW = re.compile(r"(?<=[。！？!?])\s*(?=[^；。\n]{1,40}；[^；。\n]{1,30}[：:][^；。\n]*；[^；。\n]{1,30}[：:])")


def lines(text: str) -> list[str]:
    """The passage's lines, stripped, a table row glued to the sentence before it on a line of its own."""
    return [part.strip() for line in text.split("\n") for part in _GLUED_ROW.split(line)]
_DEFINES = re.compile(r"^\s*(?:[(（][^)）]{0,30}[)）])?\s*(?:是|指|即|就是|称为|也称|又称|[:：])")
_COUNTED = re.compile(r"[\u4e00-\u9fff]|[a-z0-9]+|[×√✓✗]")


@dataclass
class Fact:
    """A stretch of one passage sentence (or one table cell) that speaks of one side (0 or 1)."""

    side: int
    text: str
    hit: Optional[Hit]  # None for a fact of an answer's sentence (said_of)
    sentence: int  # index of its sentence among all read (facts of one sentence share it)
    words: frozenset = field(default_factory=frozenset)  # its subject words, the sides' names left out
    defines: bool = False  # it opens with the side's name and says what it is ("内部碎片是指…")
    said: str = ""  # its content with both sides' names left out: two cells saying the same are no difference
    field: str = ""  # a table row's field it is the value of ("与信息的关系"; the row's head when the field is the side)


def side_names(things: list[str], rules) -> list[list[str]]:
    """Each side's names, lowercased, longest first: the question's word, its ``names.same``, the
    side without a kind word or prefix both sides share (虚电路方式 → 虚电路, 进程同步 → 同步), and a
    known name that ends it (一次间接寻址 → 间接寻址)."""
    also = rules.names.also if getattr(rules, "names", None) is not None else (lambda n: [n])
    names = [[normalise(n).lower() for n in also(t)] for t in things]
    a, b = (normalise(t).lower() for t in things)
    for head in SHARED_HEADS:
        if a.endswith(head) and b.endswith(head) and min(len(a), len(b)) - len(head) >= 2:
            names[0].append(a[: -len(head)])
            names[1].append(b[: -len(head)])
            break
    known = make_namer(rules.names if getattr(rules, "names", None) is not None else None)
    for side, thing in enumerate((a, b)):  # 一次间接寻址: the book's 间接寻址 too
        ends = [n.lower() for s, e, n in known.find(thing) if e == len(thing) and s > 0 and len(n) >= 3]
        names[side] += ends[-1:]
    prefix = len(_common_prefix(a, b))
    if prefix >= 2 and min(len(a), len(b)) - prefix >= 2:  # 进程同步 / 进程互斥: the book says 同步, 互斥
        names[0].append(a[prefix:])
        names[1].append(b[prefix:])
    return [sorted(set(n), key=len, reverse=True) for n in names]


def _common_prefix(a: str, b: str) -> str:
    i = 0
    while i < min(len(a), len(b)) and a[i] == b[i]:
        i += 1
    return a[:i]


class _Sides:
    """The two sides' names and the other known names, for telling which side a clause names."""

    def __init__(self, things: list[str], rules):
        self.names = side_names(things, rules)
        self.known = make_namer(rules.names if getattr(rules, "names", None) is not None else None)
        self.all = {n for side in self.names for n in side}

    def named(self, clause: str) -> tuple[set[int], set[int], bool]:
        """(the sides the clause names as its subject, those it names as an object or compares with,
        whether it is another known name's field: ``BGP：…``)."""
        text = normalise(clause)
        low = text.lower()  # same length: positions carry over
        others = [(s, e) for s, e, n in self.known.find(text) if not self._is_side(n)]
        subjects, objects = set(), set()
        for side in (0, 1):
            for s, e in self._mentions(low, side, others):
                (objects if _COMPARE.search(low[:s]) or _OBJECT.search(low[:s]) else subjects).add(side)
        lead = len(low) - len(low.lstrip())
        field = not subjects and any(s == lead and low[e:].lstrip()[:1] in (":", "：") for s, e in others)
        return subjects, objects, field

    def _is_side(self, name: str) -> bool:
        """A known name that is a side's: one of its names, bracketed (普里姆(Prim)算法 is prim算法), or
        with a kind word after it (同步定时方式, 慢开始算法)."""
        low = self.known.key(name)
        heads = set(self.known.heads) | set(SHARED_HEADS)
        return name.lower() in self.all or low in self.all or any(
            low.endswith(h) and low[: -len(h)] in self.all for h in heads)

    def _mentions(self, low: str, side: int, others: list[tuple[int, int]]) -> list[tuple[int, int]]:
        taken: list[tuple[int, int]] = []
        for name in self.names[side]:  # longest first: 慢开始 in 慢开始阶段 once
            for m in re.finditer(re.escape(name), low):
                s, e = m.span()
                if any(ts <= s and e <= te for ts, te in taken):
                    continue
                if any(cs <= s and e <= ce and ce - cs > e - s for cs, ce in others):
                    continue  # inside a longer name: 慢开始门限
                if _latin_goes_on(low, s, e) or self._inside_other(low, s, e, side):
                    continue
                taken.append((s, e))
        return taken

    def _inside_other(self, low: str, s: int, e: int, side: int) -> bool:
        """Part of the other side's name where it stands (中断 in 内中断, when 内中断 is 异常's)."""
        return any(m.start() <= s and e <= m.end() and m.end() - m.start() > e - s
                   for name in self.names[1 - side] for m in re.finditer(re.escape(name), low))

    def titled(self, hit: Hit) -> Optional[int]:
        """The side a passage's heading is the name of ("2.1 【考点】普里姆(Prim)算法"), when the passage
        never names the other side; else None: a heading that only holds the name ("中断的分类"), or
        a section that speaks of both, may say things of the other side unnamed."""
        if not hit.chapter_path:
            return None
        title = _HEADING_NOISE.sub("", normalise(hit.chapter_path[-1])).strip()
        side = self.only(title) if self._is_side(title) else None
        low = normalise(hit.text).lower()
        return side if side is not None and not any(n in low for n in self.names[1 - side]) else None

    def only(self, text: str) -> Optional[int]:
        """The one side ``text`` (a heading, a table cell) names, else None."""
        subjects, objects, field = self.named(text)
        return next(iter(subjects)) if len(subjects) == 1 and not objects - subjects and not field else None


def _latin_goes_on(low: str, s: int, e: int) -> bool:
    """A Latin name inside a longer Latin word: tcp in tcp/ip, rip in ripv2."""
    before = low[s - 1] if s > 0 else ""
    after = low[e] if e < len(low) else ""
    return (low[s].isascii() and bool(before) and bool(_LATIN_EDGE.match(before))) or \
        (low[e - 1].isascii() and bool(after) and bool(_LATIN_EDGE.match(after)))


def sentences(hits: list[Hit]) -> list[tuple[str, Hit, bool]]:
    """(sentence, its passage, whether it is a table row) as written (a heading line stays apart: it
    is no fact), bullets cut, without those that state nothing (rule 7)."""
    out = []
    for h in hits[:MAX_HITS]:
        if h.kind == "question":
            continue
        for line in lines(h.text):
            if _OPTION.match(line):
                continue
            if TABLE_ROW.match(line):
                out.append((line, h, True))
                continue
            for s in split_sentences(line, semicolon=False):
                s = _LEAD.sub("", s).strip()
                if s and not _NOT_STATED.search(s):
                    out.append((s, h, False))
    return out


def facts(things: list[str], hits: list[Hit], rules) -> list[Fact]:
    """Every fact the passages state of one side (see the module docstring)."""
    sides = _Sides(things, rules)
    return _facts(sentences(hits), sides, {h.chunk_id: sides.titled(h) for h in hits})


def said_of(things: list[str], text: str, rules) -> list[Fact]:
    """The facts one text (an answer's sentence) states of each side, by the same rules (no passage:
    ``hit`` is None)."""
    units = [(s, None, False) for line in text.split("\n") for s in split_sentences(line, semicolon=False)]
    return _facts(units, _Sides(things, rules), {})


def _facts(units, sides: "_Sides", heading: dict) -> list[Fact]:
    out: list[Fact] = []
    last: tuple[Optional[str], Optional[int]] = (None, None)  # (passage, side) the sentence before ended on
    for i, (sentence, hit, row) in enumerate(units):
        chunk_id = hit.chunk_id if hit is not None else None
        if row:
            out += _row_facts(sentence, hit, i, sides)
            last = (None, None)
            continue
        subject, start, pos = heading.get(chunk_id), 0, 0
        if last[0] == chunk_id and last[1] is not None and _GOES_ON.match(sentence):
            subject = last[1]
        for clause in _CLAUSE.findall(sentence):
            subjects, objects, field = sides.named(clause)
            if len(subjects) == 1 and not objects - subjects:  # this side's, as the subject
                named = next(iter(subjects))
                if named != subject:
                    _close(out, sides, subject, sentence, start, pos, hit, i)
                    subject, start = named, pos
            elif subjects or objects - {subject} or field or _SWITCH.match(clause):
                _close(out, sides, subject, sentence, start, pos, hit, i)  # both, the other, or another thing
                subject = None
            pos += len(clause)
        _close(out, sides, subject, sentence, start, pos, hit, i)
        last = (chunk_id, subject)
    return out


def row_fields(line: str) -> tuple[list[str], list[list[str]]]:
    """A table row's cells, and each cell split at its first colon: ``[header, value]``, or ``[value]``
    for a cell without one (``分页；与信息的关系：…`` → ``[["分页"], ["与信息的关系", "…"]]``)."""
    cells = [c.strip() for c in line.split("；") if c.strip()]
    return cells, [re.split(r"[：:]", c, maxsplit=1) for c in cells]


def _row_facts(line: str, hit: Hit, index: int, sides: _Sides) -> list[Fact]:
    """Rule 5: the fields of a table row, each of the side the row or the field is headed by."""
    cells, fields = row_fields(line)
    head = fields[0][-1]  # the first cell's value: the row's thing or aspect
    owner = sides.only(head)
    out = []
    for cell, parts in zip(cells[1:], fields[1:]):
        if len(parts) != 2 or not parts[1].strip():
            continue
        name, value = parts
        side, aspect = (owner, name) if owner is not None else (sides.only(name), head)
        subjects, objects, _ = sides.named(value)
        if side is None or sides.only(name) not in (None, side) or (subjects | objects) - {side}:
            continue  # a value naming the other side is no fact of this one
        text = _trim(cell)
        out.append(Fact(side=side, text=text, hit=hit, sentence=index, words=frozenset(_words(text, sides)),
                        said=_blank(value, sides), field=aspect.strip()))
    return out


def _close(out: list[Fact], sides: _Sides, subject: Optional[int], sentence: str, start: int, end: int,
           hit: Optional[Hit], index: int) -> None:
    """Keep the stretch ``sentence[start:end]`` as a fact of ``subject`` when it says enough."""
    if subject is None or end <= start:
        return
    text = sentence[start:end].strip()
    if end < len(sentence):
        text = text.rstrip("，,；;：: ")  # cut before the next side's clause
    text = _trim(text)
    head = normalise(text).lower()
    low = head
    for name in sides.names[subject]:
        low = low.replace(name, " ")
    labelled = any(head.startswith(n) and head[len(n):].lstrip()[:1] in (":", "：") for n in sides.names[subject])
    if len(_COUNTED.findall(low)) < (MIN_CELL if labelled else MIN_PREDICATE):
        return
    defines = any(head.startswith(n) and _DEFINES.match(head[len(n):]) for n in sides.names[subject])
    out.append(Fact(side=subject, text=text, hit=hit, sentence=index, words=frozenset(_words(text, sides)),
                    said=_blank(text, sides), defines=defines))


def _blank(text: str, sides: _Sides) -> str:
    """The text with both sides' names blanked, lowercased."""
    blank = normalise(text).lower()
    for n in sorted(sides.all, key=len, reverse=True):
        blank = blank.replace(n, " ")
    return blank


def _words(text: str, sides: _Sides) -> set[str]:
    """Subject words of a fact without the sides' names (定时方式 leaves 方式, not 时方)."""
    return subject_grams(_blank(text, sides))


def _trim(text: str) -> str:
    if len(text) <= MAX_CHARS:
        return text
    cut = max(text.rfind(p, 0, MAX_CHARS) for p in "，,；;、")
    return text[: cut if cut > MAX_CHARS // 2 else MAX_CHARS] + "…"
