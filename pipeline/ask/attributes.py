"""One thing's attributes, read from the material's own table (issue 23: concept questions).

Asked "动态半导体存储器的特点是", the model was given the notes' SRAM/DRAM table, which the clean stage
writes as rows ``类型特点：读出后需要重写（刷新）；SRAM（静态RAM）：不用；DRAM（动态RAM）：需要``; it read
the first row and answered "存储类型为DRAM". What the student needs is the table's DRAM column, one
line per row, in the table's own words, cited. Read by rule, without the model:

1. the question asks for the attributes (``_ASKS``: 特点, 特性, 性质, 优缺点…) of **one** thing: what
   stands before them, with no 和/与/及 joining two (a contrast goes to ``contrast``);
2. the thing's names: the question's word and its other names (``aliases``: 动态半导体存储器 = DRAM);
3. a table row of a top passage gives one attribute when a field is headed by one of the names
   (``DRAM（动态RAM）：需要`` → the row's aspect ``读出后需要重写（刷新）``: 需要; a header matches by its
   text or by its parenthesis), or when its first cell is the thing (``DRAM；存储元件：电容；…`` → each
   field of the row);
   the question's word may end with a kind word the header leaves out (``KIND_WORDS``: RIP协议 → RIP);
4. the passage with the most such attributes, at least ``MIN_ROWS`` (a table, not a stray row), is the
   answer: its attributes in the table's order, each line cited.
"""

from __future__ import annotations

import re
from typing import NamedTuple, Optional

from pipeline.ask.aliases import other_names
from pipeline.ask.contrast_facts import TABLE_ROW, lines, row_fields
from pipeline.ask.sentences import normalise
from pipeline.models import Hit

MIN_ROWS = 3  # attributes of one passage's table before it is the answer
MAX_HITS = 5  # top passages read
MAX_VALUE = 40  # chars; a longer cell is prose, not a table value
_ASKS = re.compile(r"^(?:请问|请|简要|简单|简述|说说|说一下|谈谈|介绍一下)*(.{2,24}?)(?:的|有)?(?:哪些|什么|何|啥)?(?:主要)?"
                   r"(?:特点|特性|性质|优缺点|优点和缺点|特征)(?:是什么|是|有哪些|有什么)?\s*[？?。]*\s*$")
_TWO = re.compile(r"[和与及跟、]|以及|还是|对比|相比|比较|区别|不同")
_PAREN = re.compile(r"[（(]([^）)]*)[)）]")
LEAD = "资料中的表列出{thing}的特点："
NOTE = "the material's table lists the attributes asked for: answered with its rows, without the model"
KIND_WORDS = ("协议", "方式", "算法", "技术", "机制", "服务")


class Attribute(NamedTuple):
    aspect: str
    value: str


class Attributes(NamedTuple):
    thing: str
    rows: list[Attribute]
    hit: Hit


def asked_thing(question: str) -> Optional[str]:
    """The one thing whose attributes the question asks for, or None (not such a question, or two things)."""
    m = _ASKS.match(normalise(question).strip())
    if not m:
        return None
    thing = m.group(1).strip(" ，,。？?")
    return thing if len(thing) >= 2 and not _TWO.search(thing) else None


def names_of(thing: str) -> set[str]:
    """The thing's names, lower-cased: the question's word, without a kind word a table's header
    leaves out (RIP协议 → RIP), and their other names (aliases.txt)."""
    names = {thing}
    for kind in KIND_WORDS:
        if thing.endswith(kind) and len(thing) - len(kind) >= 2:
            names.add(thing[: -len(kind)])
    return {n.lower() for name in names for n in [name, *other_names(name)]}


def _is(cell: str, names: set[str]) -> bool:
    """A header cell names the thing: its text without the parenthesis, or the parenthesis
    (``DRAM（动态RAM）`` is DRAM and 动态RAM)."""
    low = normalise(cell).lower().strip()
    bare = _PAREN.sub("", low).strip()
    return bare in names or any(p.strip() in names for p in _PAREN.findall(low))


def row_attributes(line: str, names: set[str]) -> list[Attribute]:
    """Rule 3: the attributes one table row gives the thing (none when it does not name it)."""
    _, fields = row_fields(line)
    if len(fields) < 2:
        return []
    if len(fields[0]) == 1 and _is(fields[0][0], names):  # the thing's row: every field is its attribute
        return [Attribute(f[0].strip(), f[1].strip()) for f in fields[1:]
                if len(f) == 2 and f[1].strip() and len(f[1]) <= MAX_VALUE]
    aspect = fields[0][-1].strip()
    for f in fields[1:]:
        if len(f) == 2 and _is(f[0], names) and f[1].strip() and len(f[1]) <= MAX_VALUE and aspect:
            return [Attribute(aspect, f[1].strip())]
    return []


def find(question: str, hits: list[Hit]) -> Optional[Attributes]:
    """The thing's attributes from the best table of the top passages, or None (see the module docstring)."""
    thing = asked_thing(question)
    if thing is None:
        return None
    names = names_of(thing)
    best: Optional[Attributes] = None
    for h in hits[:MAX_HITS]:
        if h.kind == "question":
            continue
        rows = [a for line in lines(h.text) if TABLE_ROW.match(line)
                for a in row_attributes(line, names)]
        if len(rows) >= MIN_ROWS and (best is None or len(rows) > len(best.rows)):
            best = Attributes(thing, rows, h)
    return best


def render(a: Attributes) -> str:
    """A lead line, then ``aspect：value [来源: …]`` per attribute (the citation whole: the page makes it a chip)."""
    return "\n".join([LEAD.format(thing=a.thing)] + [f"{r.aspect}：{r.value} {a.hit.citation}" for r in a.rows])
