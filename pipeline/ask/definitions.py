"""A "什么是X" question wants the sentence of the material that defines X.

A term as common as 死锁 or 哈夫曼树 is in hundreds of passages, and the lexical ranking favours the
ones that repeat it (exercises, strategies, code comments), not the one that says what it is: asked
`什么是死锁？`, none of the top 5 passages of the evaluation corpus defined it, although two notes do
(`…无法向前推进的现象，就是“死锁”`). So when a question asks for the definition of one term and no
passage retrieval put first defines it, retrieval looks through every passage holding the term for the
one that defines it best (:func:`best_definer`) and puts it first.

A sentence defines X when it starts with X and goes on with a defining word (`X是…`, `X（…）：…`,
`X是指…`, `X即…`), names X at its end (`…的二叉树称为哈夫曼树`, `…的现象，就是“死锁”`, `…叫做X`), or
says so (`定义…X为…`); a remark in parentheses does not define.
"""

from __future__ import annotations

import re
from typing import Iterable, Optional, Sequence

from pipeline.ask.sentences import normalise, split_sentences
from pipeline.models import Chunk

MIN_TERM = 2  # chars: a shorter "term" is a question word
MAX_TERM = 16  # chars: a longer one is a phrase, not a term the material names
SCAN_LIMIT = 2000  # passages holding the term read, at most, in index order (700 took 0.1 s)

_QUOTE = "“”\"'‘’「」『』《》"
# what the question asks the definition of: 什么是X / 何为X / X是什么 / X指什么 / X的定义(是什么) / X是什么意思
_ASKS = [re.compile(r"^(?:请问|请解释一下?|解释一下)?(?:什么是|什么叫做?|何为|何谓|啥是)(?P<t>[^，,。？?]+?)[？?。！!]*$"),
         re.compile(r"^(?:请问)?(?:所谓)?(?P<t>[^，,。？?]+?)(?:到底|究竟)?(?:是什么(?:意思|东西)?|指的?是什么|是指什么|指什么|"
                    r"的(?:定义|概念|含义)(?:是什么)?|是啥|什么意思|是?(?:怎么|咋)回事)[？?。！!]*$")]
_NOT_A_TERM = re.compile(r"和|与|及|跟|同|区别|不同|作用|特点|原因|为什么|怎么|如何|哪|几|多少|\d|^(?:里面|里边|它|其|这|那)")
_BULLET = re.compile(r"^\s*(?:[-+*>•·#]\s*|[(（]?\d{1,2}[)）.、．]\s*|【[^】]{0,12}】\s*)+")
_PAREN = re.compile(r"[（(][^）)]{0,60}[）)]")
_QUOTED = re.compile(r"[“\"‘'「『《]([^”\"’'」』》]{2,16})[”\"’'」』》]")
# "X的Y" / "X里说的Y": Y is the term (TCP的快重传 → 快重传), when Y is a word of its own (≥ 3 chars;
# 进程的状态 keeps its owner: 状态 alone is every thing's)
_OWNED = re.compile(r"^.+?(?:里面?说的|中说的|所说的|说的|里的|中的|的)(?P<t>[^的]{3,})$")
# …the owner stays when Y only names an aspect of it (死锁的必要条件, 快速排序的时间复杂度)
_ASPECT_WORD = re.compile(r"^(?:必要条件|充分条件|条件|特点|特征|作用|原理|过程|步骤|方法|性能|优点|缺点|功能|组成|结构|"
                          r"类型|种类|分类|格式|状态|原因|目的|意义|规则|算法|策略|机制|思想|实现|流程|\S{0,3}复杂度|优缺点)$")
_SUB_QUESTION = re.compile(r"(?<=[？?！!。，,；;])")
_AFTER_LEADING = re.compile(r"^(?:是指|是一种|是一个|是|指的是|指|即|就是|也称|又称|[:：])")
_DEFINITION_HEAD = re.compile(r"定义|概念|含义|是什么")
_TABLE_ROW = re.compile(r"[:：][^；;。]{1,60}[；;][^；;。：:]{1,20}[:：]")
_CJK = re.compile(r"[\u3400-\u9fff]")
PROPERTY_CHARS = 8  # `是面向字节的`: a predicate this short that ends in 的 is a property
MIN_VALUE_WORDS = 2  # Chinese characters after `X：` for it to say what X is (`TCP:6` is a value)
_NAMING = r"(?:称为|称作|称之为|被称为|叫做|叫作|就是|即为|即是|简称)"


def asked_term(question: str) -> Optional[str]:
    """The term a question asks the definition of (`什么是死锁？` → 死锁), or None: several terms, a
    contrast, a purpose or a quantity are not definition questions. The whole question first, then its
    opening sub-question when no other asks one (`原语是什么？操作系统靠什么…` → 原语;
    `快表是什么东西，里面存的是什么` → 快表)."""
    q = normalise(question).strip()
    whole = _term_asked(q)
    if whole:
        return whole
    # only the opening sub-question: a definition asked after the scene (`…SCAN：磁头…，访问序列是什么`)
    # names a description, not a term; and two asked (进程是什么，线程是什么) are no one definition
    parts = [p.strip().rstrip("，,；;").strip() for p in _SUB_QUESTION.split(q) if p.strip()]
    first = _term_asked(parts[0]) if len(parts) > 1 else None
    return first if first and not any(_term_asked(p) for p in parts[1:]) else None


def _term_asked(q: str) -> Optional[str]:
    for pattern in _ASKS:
        m = pattern.match(q)
        if not m:
            continue
        term = m.group("t").strip()
        quoted = _QUOTED.search(term)
        if quoted:  # 线索二叉树里说的“线索” → 线索: the quotes mark the term, the rest is where it is used
            term = quoted.group(1)
        term = _PAREN.sub("", term).strip().strip(_QUOTE).strip()  # 快表（TLB） → 快表
        term = re.sub(r"^(?:一下|下|所谓)", "", term)
        owned = _OWNED.match(term)
        if owned and not _ASPECT_WORD.match(owned.group("t")):  # 程序访问的时间局部性 → 时间局部性: the material defines the term, not its scene
            term = owned.group("t")
        if MIN_TERM <= len(term) <= MAX_TERM and not _NOT_A_TERM.search(term):
            return term
    return None


def defines(sentence: str, term: str) -> bool:
    """Does ``sentence`` define ``term`` (leading `X是…`/`X：…`, or trailing `…称为X`)? A table row the
    clean stage wrote as `字段：值；字段：值` (`中断：程序控制；DMA：硬件控制`) compares, it does not define."""
    low_term = term.lower()
    bare_sentence = _BULLET.sub("", normalise(sentence)).lstrip()
    if bare_sentence[:1] in "（(":
        return False  # a remark in parentheses (`（无向连通图就是最小生成树。）`), not the text's definition
    if _TABLE_ROW.search(bare_sentence):
        return False  # a table row: `子网掩码：…；下一跳：…` lists a route's fields
    s = _PAREN.sub("", bare_sentence).lower()
    bare = s.lstrip(_QUOTE)
    if bare.startswith(low_term):
        rest = bare[len(low_term):].lstrip(_QUOTE).lstrip()
        if _AFTER_LEADING.match(rest) and not rest.startswith("是否") and not _only_a_property(rest):
            return True
    if re.search(r"定义[^，,。；;]{0,16}?" + re.escape(low_term) + r"\s*(?:为|是)", s):
        return True  # 我们定义无向连通图的最小生成树（MST）为…
    named = re.compile(_NAMING + "[" + re.escape(_QUOTE) + r"]?\s*" + re.escape(low_term)
                       + "[" + re.escape(_QUOTE) + r"]?\s*(?:[，,。；;.！!]|$)")
    return bool(named.search(s))


def _only_a_property(rest: str) -> bool:
    """What follows the term says a property or a value, not what it is: `是稳定的。`, `是无连接的`
    (a short predicate ending in 的: 冒泡排序是稳定的), or after a colon no words (`TCP:6`,
    `最小生成树:(0, 3: 1)…`: a table value or a program's output)."""
    body = rest.rstrip("。.；;！!").strip()
    if body.startswith("是") and body.endswith("的") and len(body) <= PROPERTY_CHARS:
        return True
    if body[:1] in ":：":
        return len(_CJK.findall(body)) < MIN_VALUE_WORDS
    return False


def names_of_term(term: str) -> tuple[str, ...]:
    """The term and its other names, the term first: without a kind word (ARP协议 → ARP) and from
    aliases.txt (快表 → TLB), as ``attributes.names_of`` finds them for a table's header."""
    from pipeline.ask.attributes import names_of  # attributes reads the question's analysis: import late
    return (term, *sorted(n for n in names_of(term) if n != term.lower()))


def defining_sentence(text: str, names: "str | Sequence[str]") -> Optional[str]:
    """The first sentence of ``text`` that defines the term (or one of its ``names``), or None."""
    names = (names,) if isinstance(names, str) else tuple(names)
    low = text.lower()
    held = [n for n in names if n.lower() in low]
    if not held:
        return None
    for s in split_sentences(text, semicolon=False):
        if any(defines(s, n) for n in held):
            return s
    return None


def best_definer(names: "str | Sequence[str]", chunks: Iterable[Chunk], ranked: Sequence[str] = ()) -> Optional[Chunk]:
    """The passage to answer "什么是X" with (``names``: X and its other names): among the ``chunks``
    with a sentence defining X, a note before a past-paper analysis (which defines in passing), then
    one under a heading naming the term and 定义/概念/含义, then under a heading naming it, then the
    best in ``ranked`` (retrieval's order of chunk ids), then the first in the index."""
    place = {cid: i for i, cid in enumerate(ranked)}
    names = (names,) if isinstance(names, str) else tuple(names)
    lows = [n.lower() for n in names]
    best: Optional[tuple[tuple, Chunk]] = None
    for order, c in enumerate(chunks):
        if not defining_sentence(c.text, names):
            continue
        heads = [h.lower() for h in c.chapter_path]
        named = any(low in h for h in heads for low in lows)
        about = named and any(_DEFINITION_HEAD.search(h) for h in heads)
        key = (c.kind == "question", not about, not named, place.get(c.chunk_id, len(place)), order)
        if best is None or key < best[0]:
            best = (key, c)
    return best[1] if best else None
