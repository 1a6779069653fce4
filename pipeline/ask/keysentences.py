"""The grounded core of an answer (原文要点): the 1–3 sentences of the retrieved passages that best
cover the question, verbatim, each with its chunk id and citation. Needs no LLM, so it is shown with
``--no-llm`` too, and it is what an answer falls back to when the LLM's main claim fails the check.

Scoring: a sentence's score is the share of the question's content it covers (``coverage``; a sentence
that names no subject of its own, "目的是：…", also counts its heading's words at ``HEADING_WEIGHT``),
times a rank discount (``RANK_DISCOUNT`` per hit rank below the first: retrieval already ordered the
passages), times factors: a penalty for sentences that ask (exercise text) and for outlines of headings
(a syllabus), a bonus for the sentence that defines the asked term ("X是什么") or says what a thing is
for ("有什么用", "目的") or gives a cause for a why-question (more when it says so: 原因, 是为了), a bonus
for a passage whose heading is the question's subject, penalties for the 答案 line of a past-paper
question the student did not ask about, for an exercise's arithmetic (`8-5=3`) when the question gives
no numbers, for program text and for a sentence that only points elsewhere (`前面已经提到过`). A purpose
or why-question also asks for the purpose or cause itself: ``ASPECT`` is one more term to cover, held by
the sentences that give one (or sit under a heading 作用/原因 of the subject), so a definition alone
does not end the selection. A heading or an announcement ("区别如下：") is joined to the sentence after
it, a question or announcement followed by a numbered (or, after a colon, bulleted) list to the whole
list, and a sentence explaining the one before (`这么做有两个理由：`) to it; sentences over
``LONG_SENTENCE`` chars are trimmed for display. A past-paper
record offers its answer (with the chosen option's text) and analysis, not its stem. With the index
vocabulary, the question's content is its indexed words (the BM25 ``tokenize_query``, no jieba on the
query path) weighted by length; without, character bigrams. Sentences are taken greedily by *new*
coverage, so the second sentence adds what the first lacks; one is taken when the best covers nearly
everything, more while each adds at least ``MIN_GAIN`` and scores at least ``KEEP_RATIO`` of the best.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

from pipeline.ask.arithmetic import worked_computation
from pipeline.ask.calculate import gives_numbers
from pipeline.ask.definitions import defines
from pipeline.ask.question import (FOCUS_WEIGHT, PURPOSE_WORD, Asked, asked_of, question_kind,  # noqa: F401
                                   question_terms)
from pipeline.ask.records import WEAK_Q_IN_STEM, WEAK_STEM_IN_Q, parse_record, stem_match
from pipeline.ask.units import HEADING_CHARS, LIST_CHARS, joined_sentences, record_sentences  # noqa: F401
from pipeline.ask.sentences import containment, content, grams, normalise, novelty, split_sentences
from pipeline.models import Hit, KeySentence

MAX_SENTENCES = 3
MAX_HITS = 5  # passages looked at (the top of the ranking)
RANK_DISCOUNT = 0.08  # score × (1 − 0.08 × (rank − 1)): hit 5 keeps 68 %
LONG_SENTENCE = 160  # chars; longer sentences are cut at a clause boundary near here for display
MIN_CHARS = 8  # shorter sentences ("+ 半导体存储器。") say too little to stand alone
MIN_SCORE = 0.2  # below this share of the question's content a sentence is not a key sentence
MIN_GAIN = 0.1  # a further sentence must add this much coverage
KEEP_RATIO = 0.5  # …and score at least half of the best one
MIN_NOVELTY = 0.2  # a sentence with less content beyond the question's words is penalised like a question
DEFINITION_FACTOR = 1.2  # a concept question prefers the sentence that defines its term
TITLE_FACTOR = 1.1  # a passage whose own heading is the question's subject (§ 奇偶校验码 for 奇偶校验码…)
QUESTION_PENALTY = 0.3  # a sentence asking something (…是多少？) is rarely the answer
ASKED_FACTOR = 1.02  # a question joined to its answer (FAQ-style notes) wins ties: it asks what the student asks
HEADING_WEIGHT = 0.5  # a sentence that names no subject ("目的是：缩短指令字长…" under the heading
# "指令寻址方式") takes it from its heading: question words found only there count half
PURPOSE_FACTOR = 1.5  # "有什么用 / 目的": a sentence saying what something is for (用于…, 为了…, 目的是…)
REASON_FACTOR = 1.5  # "为什么…": a sentence giving a cause or purpose (因为…, 为提高…, 从而…)
EXPLICIT_FACTOR = 1.2  # …more when it says it is giving the reason (…的原因, 理由, 是为了, 之所以)
OTHER_RECORD_FACTOR = 0.5  # the answer line of a past-paper question the student did not ask about
EXAMPLE_FACTOR = 0.5  # a question giving no numbers asks the general case: an exercise's working (…为8-5=3)
# ends as a question or a blank, or a filled blank (`…的取值分别是（C）`: a choice stem with its answer)
_ASKING = re.compile(r"[?？]\s*$|[吗呢]\s*[。.]?$|[(（]\s*[A-D]?\s*[)）]\s*[。.]?$")
# a blank to fill inside a sentence (`下列()是微内核结构的特点`): an exercise's stem; not a call (`fork()`)
_BLANK = re.compile(r"(?<![A-Za-z0-9_])[(（]\s*[)）]|_{3,}")
_BULLET = re.compile(r"^\s*(?:[-+*>•·]\s*|[(（]?\d{1,2}[)）.、．]\s*)+")
_HEAD_NOISE = re.compile(r"【[^】]*】|^[\s\d.、()（）❗#]+|[:：]$")
_PAREN = re.compile(r"[（(][^）)]{0,60}[）)]")
_DEFINES = re.compile(r"^[^。，,]{0,8}?(?:是|指|即|称为|就是|[:：])")
_ASKS_DEFINITION = re.compile(r"是什么|什么是|指什么|是啥|什么意思|含义|定义|是指")
_RECORD_HEAD = re.compile(r"^\d{4}年\s*第\d+题（.*?）$|^第\d+题$")
# "为什么要设置缓冲区" asks what the buffer is for, as "缓冲区有什么用" does (not why in general:
# "为什么四次挥手要等2MSL" wants a reason, which a 目的/作用 sentence need not give)
_ASKS_PURPOSE = re.compile(r"有什么用|有何用|有啥用|什么作用|作用是|用途|" + PURPOSE_WORD + r"|用来干|干什么用|意义|"
                           r"(?:做|干)(?:什么|啥|嘛)的|"
                           r"(?:为什么|为何|为啥)要[^，,。？?]{0,16}?(?:设置|引入|采用|使用|设立|增设|提供|加)")
_STATES_PURPOSE = re.compile(r"目的|为了|用于|用来|以便|作用(?:是|为|[:：])|可将|这样(?:就)?(?:可以|能)|从而(?:可以|能|使)|"
                             r"(?:把|将|用|通过|利用).{1,20}?(?:改造|转换|转变|变|虚拟)(?:为|成)")
# "为什么要进行规格化": a sentence giving a cause or purpose (为提高运算的精度，…采取规格化形式) answers it,
# not one restating the question (非规格化浮点数需要进行规格化操作才能变成规格化浮点数)
_STATES_CAUSE = re.compile(r"因为|由于|为了|理由|(?<![成作称认以])为(?=提高|减少|降低|保证|避免|防止|实现|解决|便于|使|让)|"
                           r"以便|以免|从而|因此|所以|导致|否则|目的|原因")
_LIST_AFTER = re.compile(r"[？?：:]\s*[(（]?1[)）.、．].*[(（]?2[)）.、．]|[：:]\s*[-+*•·]\s.*[。；;]\s*[-+*•·]\s", re.S)
_OUTLINE_MARK = re.compile(r"[(（]?[一二三四五六七八九十]{1,2}[)）、.．]|[(（]?\d{1,2}[)）.、．](?!\d)")
# "X的原因…" gives the cause of X: asked why the wait lasts 2MSL, `四次挥手的原因 客户端发送了FIN…` (why there
# are four) is no cause of it. X must name the last term of what follows 为什么: a Chinese why-clause ends
# with what it asks to explain (…四次挥手最后要等2MSL才**关闭**; …建立连接要**三次握手**).
_CAUSE_OF = re.compile(r"([^，,。；;：:？?\s]{2,16}?)的(?:原因|理由|目的)")
_GIVES_REASON = re.compile(r"原因|理由|是为了|目的是|为的是|之所以|[为因]何|为什么[^？?]{0,30}[？?]")
# an attribute stated of the heading's subject: "目的是：…", "其特点：…", "优点：…"
_SUBJECTLESS = re.compile(r"^(?:[-+*>•·]\s*|[(（]?\d{1,2}[)）.、．]\s*)*(?:其|它的?|该|这种?|此)?"
                          r"(?:目的|作用|用途|特点|优点|缺点|原因|功能|意义|区别|定义|含义|思想|原理|过程|步骤|方法|条件)"
                          r"(?:主要)?(?:是|为|有|在于|如下)?\s*[:：，,]?")
# a line of program text (C in the notes' code blocks): it never states what a concept is or is for
_CODE = re.compile(r"//|->|[{}]|\b(?:typedef|struct|return|void|bool|malloc|sizeof)\b|\w\s*==\s*\w|"
                   r"\b(?:if|for|while)\s*\(|^\s*\w+\s*=\s*[^，。]*;")
_ASKS_CODE = re.compile(r"代码|程序|伪代码|实现|怎么写|如何写|函数|语句")
# the aspect a purpose or why-question asks for, as one more thing to cover (see ``aspect_terms``)
ASPECT = "〈所问方面〉"
ASPECT_SHARE = 0.3  # of the question's term weight: a sentence naming the subject without the aspect covers 77 %
_OPTIONS = re.compile(r"(?:^|[\s>：:])A\s*[.．、]\s*\S[^。]*?\sB\s*[.．、]\s*\S")
_POINTS_ELSEWHERE = re.compile(r"已经?(?:提到|讲到|介绍|讲解|说明)过|前面(?:已经?)?(?:讲|提|介绍|说)过|见(?:上|下)文|"
                               r"后面(?:会|再|将)(?:讲|介绍|详细)|(?:这|本)一?[节章](?:主要)?(?:讨论|介绍|讲)|"
                               r"^(?:本题|此题|该题)?(?:主要)?考(?:查|察)[^。，,；;]{0,24}[。]?$")  # `考查指令流水线的基本概念。`: what a past paper tests
# an exercise's solution speaking of the exercise (`虽然没有明确给出哪个协议，但是…这个指选择重传协议`,
# `所以选D`): it says how to read that question, not a fact about the subject
_ABOUT_EXERCISE = re.compile(r"题目|题干|(?:本|此|该)题|没有明确(?:给出|说明|指出)|(?:故|所以|因此|应)选\s*[A-D]|选项\s*[A-D]")
_ASPECT_WORD = re.compile(r"^(?:作用|用途|用处|目的|意义|原因|理由|好处|功能|干嘛|干什么|为什么|为何)$")
_ASPECT_HEAD = re.compile(r"^(?:主要)?(?:作用|目的|用途|意义|原因|好处|优点|功能|引入原因|为什么\S{0,8})$")


def titled(h: Hit, question: "str | Asked", terms: dict[str, float]) -> bool:
    """The passage's innermost heading names what the question is about."""
    if not h.chapter_path or h.kind == "question":
        return False
    head = _HEAD_NOISE.sub("", normalise(h.chapter_path[-1])).lower()
    if len(head) < 2:
        return False
    terms = {t: w for t, w in terms.items() if t != ASPECT}
    return head in asked_of(question).low or coverage(terms, head)[0] >= 0.5


def is_definition(sentence: str, terms: dict[str, float]) -> bool:
    """The sentence defines a question term: "RAID（…）是将多个…", "+ 进程：是…", "SPOOLing技术即…"."""
    s = _PAREN.sub("", _BULLET.sub("", normalise(sentence))).lower()
    for t in terms:
        if s.startswith(t) and not (t.isascii() and re.match(r"[a-z0-9]", s[len(t):len(t) + 1])):
            if _DEFINES.match(s[len(t):len(t) + 12]):
                return True
    return False


def coverage(terms: dict[str, float], text: str, covered: Optional[set[str]] = None) -> tuple[float, set[str]]:
    """Weighted share of ``terms`` found in ``text`` (ignoring those in ``covered``), and which."""
    total = sum(terms.values())
    if not total:
        return 0.0, set()
    low = _same_words(content(text))
    bigrams = None
    found = set()
    for t in terms:
        if covered and t in covered:
            continue
        same = _same_words(t)
        if len(t) == 2 and not t.isascii():
            bigrams = bigrams if bigrams is not None else grams(text)
            if t in bigrams or same in low:
                found.add(t)
        elif same in low:
            found.add(t)
    return sum(terms[t] for t in found) / total, found


def _same_words(text: str) -> str:
    """One spelling of what the notes write two ways: 节点/结点 (头节点), TIME_WAIT/TIME-WAIT."""
    return re.sub(r"(?<=[a-z])_(?=[a-z])", "-", text.replace("节点", "结点"))


def candidates(hits: list[Hit]) -> list[tuple[str, Hit]]:
    """Sentences of the top hits, long ones trimmed. Of a past-paper record only its answer (with the
    chosen option's text) and analysis: its stem is a question, not an answer."""
    out: list[tuple[str, Hit]] = []
    for h in hits[:MAX_HITS]:
        for s in record_sentences(h.text) if h.kind == "question" else joined_sentences(h.text):
            if _RECORD_HEAD.match(s) or len(_BULLET.sub("", s).strip(" 。；;")) < MIN_CHARS:
                continue
            out.append((trim(s), h))
    return out


def is_outline(sentence: str) -> bool:
    """Only headings strung together ("(二)指令的寻址方式 1.有效地址的概念": a syllabus or a table of
    contents): no end mark, no "字段：值", every numbered piece heading-short. It names topics, it
    says nothing about them."""
    if re.search(r"[。！？!?；;：:]", sentence):
        return False
    pieces = [p for p in _OUTLINE_MARK.split(sentence) if p.strip()]
    return len(pieces) >= 2 and all(len(p.strip()) <= HEADING_CHARS for p in pieces)


def penalty(sentence: str) -> float:
    """Questions (exercise text) and outlines rarely answer anything."""
    if is_outline(sentence):
        return QUESTION_PENALTY
    parts = split_sentences(sentence) or [sentence]
    if _ASKING.search(parts[-1]) or _BLANK.search(parts[-1]):
        return QUESTION_PENALTY
    if any(_ASKING.search(p) for p in parts[:-1]):
        return ASKED_FACTOR
    return 1.0


def trim(sentence: str) -> str:
    """Cut an over-long sentence at the last clause mark before ``LONG_SENTENCE`` chars (a joined
    numbered list: ``LIST_CHARS``, so its last reason is not cut off)."""
    limit = LIST_CHARS if _LIST_AFTER.search(sentence) else LONG_SENTENCE
    if len(sentence) <= limit:
        return sentence
    cut = max(sentence.rfind(p, 0, limit) for p in "，,、：:）)")
    return sentence[: cut + 1 if cut > limit // 2 else limit] + "…"


def select(question: "str | Asked", hits: list[Hit], vocab=None, max_sentences: int = MAX_SENTENCES) -> list[KeySentence]:
    """The key sentences, best first (see the module docstring for the scoring): taken greedily by
    the coverage each adds."""
    question = asked_of(question, vocab)
    terms = aspect_terms(question)
    total = sum(terms.values())
    pool = scored_candidates(question, hits, terms)
    chosen: list[KeySentence] = []
    covered: set[str] = set()
    best = 0.0
    while pool and len(chosen) < max_sentences:
        scored = [(c.gain(terms, total, covered), i) for i, c in enumerate(pool)]
        gain, i = max(scored, key=lambda t: (t[0], -t[1]))
        c = pool.pop(i)
        if not chosen and c.score < MIN_SCORE:
            break
        if chosen and (gain < MIN_GAIN or c.score < KEEP_RATIO * best):
            break
        best = best or c.score
        key = content(c.text)
        if any(key in content(k.text) or content(k.text) in key for k in chosen):
            continue
        covered |= c.own
        chosen.append(KeySentence(text=c.text, chunk_id=c.hit.chunk_id, citation=c.hit.citation, score=round(c.score, 3)))
        if _share(terms, covered) >= 0.95:
            break
    return chosen


@dataclass
class Candidate:
    """A candidate sentence: its weight (rank discount and the factors of the module docstring),
    the question terms it says itself (``own``) and those its heading adds (``context``, only for a
    sentence that names no subject: ``_SUBJECTLESS``). Computed once; each greedy pick is set
    arithmetic on them."""

    text: str
    hit: Hit
    weight: float
    own: frozenset
    context: frozenset
    score: float = 0.0  # standalone: gain with nothing covered yet

    def gain(self, terms: dict[str, float], total: float, covered: set[str]) -> float:
        """(new own coverage + ``HEADING_WEIGHT`` × new heading coverage) × weight."""
        if not total:
            return 0.0
        own = sum(terms[t] for t in self.own if t not in covered)
        ctx = sum(terms[t] for t in self.context if t not in covered)
        return (own + HEADING_WEIGHT * ctx) / total * self.weight


def asks_aspect(question: "str | Asked") -> Optional[str]:
    """"purpose" for `X有什么用` / `为什么要引入X`, "reason" for another why-question, else None."""
    question = asked_of(question)
    if _ASKS_PURPOSE.search(question):
        return "purpose"
    return "reason" if (question.kind or question_kind(question.norm)) == "reason" else None


def asks_for(term: str) -> bool:
    """The term only names what is asked of the subject (作用, 原因, 目的): no passage completes it."""
    return bool(_ASPECT_WORD.match(term))


def aspect_terms(question: "str | Asked") -> dict[str, float]:
    """The question's terms, and for a purpose or why-question one more, :data:`ASPECT`, weighing
    ``ASPECT_SHARE`` of the rest: the sentence that names the subject *and* says what it is for (or
    why) covers more than one that only names it (`SPOOLing技术是用软件的方式模拟脱机技术` against
    `打印机…可以用SPOOLing技术改造成共享设备`), and after a definition a purpose sentence still adds."""
    terms = dict(asked_of(question).terms)
    if terms and asks_aspect(question):
        # the word that asks (作用, 原因) is the aspect itself: `名称：有效载荷长度；作用：…` says what *another*
        # field is for, and must not cover 作用 of `TTL有什么作用`
        terms = {t: w for t, w in terms.items() if not _ASPECT_WORD.match(t)} or terms
        terms[ASPECT] = ASPECT_SHARE * sum(terms.values())
    return terms


def scored_candidates(question: "str | Asked", hits: list[Hit], terms: dict[str, float]) -> list[Candidate]:
    """Every candidate sentence of the top hits, weighted and with its terms (:class:`Candidate`)."""
    question = asked_of(question)
    defining = bool(_ASKS_DEFINITION.search(question))
    aspect = asks_aspect(question)
    purpose, reason = aspect == "purpose", (question.kind or question_kind(question.norm)) == "reason"
    general = not gives_numbers(question)
    code_asked = bool(_ASKS_CODE.search(question))
    total = sum(terms.values())
    why = question.why.lower()
    in_why = [t for t in terms if t != ASPECT and why and t.lower() in why]
    explained = max(in_why, key=lambda t: why.rfind(t.lower()) + len(t)) if in_why else None
    pool = []
    for s, h in candidates(hits):
        worked = worked_computation(s) if general or reason else None
        rank_w = (1.0 - RANK_DISCOUNT * (min(h.rank, MAX_HITS) - 1)) * penalty(s)
        if defining and question.defines and defines(s, question.defines):
            rank_w *= DEFINITION_FACTOR ** 2  # defines the asked term itself, not one starting like it (死锁预防是…)
        elif defining and is_definition(s, terms):
            rank_w *= DEFINITION_FACTOR
        states = False
        if (purpose or reason) and causes_other(s, explained):
            pass  # a cause, but of something the question does not ask why of
        elif purpose and _STATES_PURPOSE.search(s):
            rank_w *= PURPOSE_FACTOR
            states = True
        elif reason and _STATES_CAUSE.search(s) and not worked:
            rank_w *= REASON_FACTOR  # (an exercise's working, 由于…所以…=300ms, gives no reason)
            if _GIVES_REASON.search(s):
                rank_w *= EXPLICIT_FACTOR  # `三次握手的原因 第三次握手是为了…` over a story told with 由于…所以
            states = not purpose  # `由于…因此` gives a cause; asked what X is for, it is not the aspect
        if not code_asked and _CODE.search(s):
            rank_w *= QUESTION_PENALTY  # `//初始化一个单链表（带头结点） bool InitList(…){`: code, not an answer
        if titled(h, question, terms):
            rank_w *= TITLE_FACTOR
        if h.kind == "question" and s.startswith("答案：") and not asks_about_record(question, h):
            rank_w *= OTHER_RECORD_FACTOR  # its analysis may state general facts; its answer answers it alone
        if general and worked:
            rank_w *= EXAMPLE_FACTOR  # 所以接收窗口最大为8-5=3 answers that exercise, not 接收窗口是多少
        if _OPTIONS.search(s):
            rank_w *= QUESTION_PENALTY  # `例题：…是：A.… B.…`: an exercise's stem and options, not its answer
        if _POINTS_ELSEWHERE.search(s) or _ABOUT_EXERCISE.search(s):
            rank_w *= QUESTION_PENALTY  # `快重传在可靠传输中已经提到过`: it says where, not what; `本题…`: of an exercise
        if novelty(s, question) < MIN_NOVELTY:
            rank_w *= QUESTION_PENALTY  # only the question's own words: no answer in it
        head = heading(h)
        under_aspect = bool(aspect) and bool(_ASPECT_HEAD.match(head))  # § PCB › 2）作用: all of it says what for
        if under_aspect:
            head = " ".join(_HEAD_NOISE.sub("", normalise(p)) for p in h.chapter_path[-2:])
        own = frozenset(coverage(terms, s)[1] | ({ASPECT} if states and ASPECT in terms else set()))
        context = frozenset()
        if head and (_SUBJECTLESS.match(s) or under_aspect):
            context = frozenset(coverage(terms, head + " " + s)[1] | ({ASPECT} if under_aspect and ASPECT in terms else set())) - own
        c = Candidate(text=s, hit=h, weight=rank_w, own=own, context=context)
        c.score = c.gain(terms, total, set())
        pool.append(c)
    return pool


def causes_other(sentence: str, explained: Optional[str]) -> bool:
    """The sentence names what it gives the cause of (``X的原因``), and X does not name ``explained``, the
    last question term after 为什么 (what the question asks why of)."""
    m = _CAUSE_OF.search(sentence)
    return bool(m and explained) and not coverage({explained: 1.0}, m.group(1))[1]


def heading(h: Hit) -> str:
    """The passage's innermost heading, as context for its sentences (none for a record: its
    path names the paper, not the subject)."""
    if not h.chapter_path or h.kind == "question":
        return ""
    return _HEAD_NOISE.sub("", normalise(h.chapter_path[-1]))


def asks_about_record(question: "str | Asked", h: Hit) -> bool:
    """Does the question ask about this past-paper question (its year and number, or at least a
    paraphrase of its stem)? Otherwise the record's solution is about another question."""
    ref = asked_of(question).ref
    if ref and (h.year, h.number) == ref:
        return True
    stem, _, _ = parse_record(h.text)
    q_in_stem, stem_in_q = stem_match(question, stem)
    return q_in_stem >= WEAK_Q_IN_STEM and stem_in_q >= WEAK_STEM_IN_Q


def _share(terms: dict[str, float], covered: set[str]) -> float:
    total = sum(terms.values())
    return sum(terms[t] for t in covered) / total if total else 0.0


def overlap_with(question: "str | Asked", text: str) -> float:
    """Bigram containment of the question's content in ``text`` (used to rank record stems)."""
    return containment(asked_of(question).content_grams, grams(text))
