"""One analysis of the question, computed once and read by every step of ``ask`` (issue 23, item 8).

Before this module the question was normalised, split into bigrams, searched for a past-paper
reference and tokenized again in retrieval, ``records``, ``keysentences``, ``claims``, ``contrast``,
``conflicts`` and ``calculate``: 17 stays in 6 modules, each free to derive it a little differently.
:func:`analyse` does it once; :class:`Asked` carries the result.

``Asked`` is a ``str`` (the question as asked) with the analysis as attributes, so code that only
shows, stores or pattern-matches the question needs nothing new, and a step reads the analysis with
:func:`asked_of`, which analyses a plain string (tests, tools, one-off callers) and passes an
``Asked`` through untouched. The question's kind needs the past-paper record it resolved to
(retrieval comes first): :meth:`Asked.with_record` sets it once that is known.
"""

from __future__ import annotations

import re
from typing import Literal, Optional

from pipeline.ask.aliases import added_tokens
from pipeline.ask.definitions import asked_term
from pipeline.ask.refs import question_ref
from pipeline.ask.sentences import QUESTION_WORDS, grams, normalise
from pipeline.models import RecordAnswer
from pipeline.text.tokenize import tokenize_query

Kind = Literal["choice", "calculation", "concept", "reason", "other"]
FOCUS_WEIGHT = 1.5  # terms of the question's last clause (what is asked)
SCENE_WEIGHT = 0.5  # terms only in the scene of "A里的B" (IP数据报首部里的TTL…): B is asked about, A says where

# 目的 as "purpose", not the destination of 目的地址/目的网络/目的端口
PURPOSE_WORD = r"目的(?!地址|网络|主机|端口|结点|节点|站|IP|MAC|mac|ip)"
# option lines or an explicit ask for a letter (not 选哪一条: a router choosing a route names no option)
# (``没有选项`` / ``不带选项`` of an IP header are no options to choose from)
_CHOICE = re.compile(r"(?:^|\s|[：:（(])[A-D]\s*[.．、)）:：]\s*\S.*(?:\n|\s)[B-D]\s*[.．、)）:：]|(?<!没有)(?<!不带)(?<!不含)(?<!无)选项|"
                     r"哪一?个选|下列.{0,20}(?:正确|错误|是|不是)", re.S)
# a quantity asked for, or data to compute with
_CALC = re.compile(r"多少|几次|几个|几位|几跳|多久|多长|多大|多快|最多|最少|最大|最小|百分之几|占比|计算|(?<![请要需追寻恳])求出?|平均.{0,6}(?:时间|长度|次数)|\d+\s*(?:[KMG]?B|ms|μs|kHz|bps|位|个|次|%)")
_REASON = re.compile(r"为什么|为何|为啥|凭什么|原因|怎么会|咋会")
_CONCEPT = re.compile(r"是什么|什么是|不一样|差别|差异|有何不同|指什么|什么意思|含义|定义|概念|作用|有什么用|" + PURPOSE_WORD + "|特点|区别|不同|异同|为什么|原理|怎么回事|是指|是啥|啥意思|咋回事|干什么用|干啥用")


_SCENE = re.compile(r"^([^，,；;？?。]{2,}?)(?:里面|里头|当中|之中|里|中)的(?=[^，,；;？?。]{2})")
_WHY_PART = re.compile(r"(?:为什么|为何|为啥|凭什么)([^，,；;？?。]+)")


class Asked(str):
    """The question as asked, and its analysis (read-only by convention; built by :func:`analyse`).

    - ``norm``: NFKC-normalised (``sentences.normalise``); ``low``: that, lower-cased;
    - ``ref``: the past-paper reference ``(year, number)`` it names, or None (``refs.question_ref``);
    - ``content_grams``: bigrams of its content with the question words dropped (什么, 多少…);
      ``all_grams``: every bigram;
    - ``terms``: its indexed words weighted by length, the last clause's ×``FOCUS_WEIGHT``
      (:func:`question_terms`; bigrams when there is no index vocabulary);
    - ``tokens``: its BM25 query tokens (empty without a vocabulary), with the other names of what it
      names that the index knows as one word (``aliases``: 动态半导体存储器 also searches ``dram``);
    - ``defines``: the one term it asks the definition of (`什么是死锁？` → 死锁), or None
      (``definitions.asked_term``);
    - ``why``: what a why-question explains, the text after 为什么 (:func:`why_part`), else "";
    - ``kind``: choice | calculation | concept | reason | other (:func:`question_kind`), None until
      the record is known (:meth:`with_record`).
    """

    norm: str
    low: str
    ref: Optional[tuple[int, int]]
    content_grams: frozenset
    all_grams: frozenset
    terms: dict[str, float]
    tokens: tuple[str, ...]
    defines: Optional[str]
    why: str
    kind: Optional[Kind]
    vocab_id: int

    def with_record(self, record: Optional[RecordAnswer]) -> "Asked":
        """This analysis with the kind set, given the record that may answer alone (None: none)."""
        out = _copy(self)
        out.kind = question_kind(str(self), record)
        return out


def analyse(question: str, vocab=None) -> Asked:
    """Analyse ``question`` once (see :class:`Asked`); ``vocab`` is the BM25 vocabulary."""
    q = Asked(question)
    q.norm = normalise(question)
    q.low = q.norm.lower()
    ref = question_ref(question)
    q.ref = tuple(ref) if ref else None
    q.content_grams = grams(question, drop_question_words=True)
    q.all_grams = grams(question)
    q.terms = question_terms(question, vocab)
    tokens = tokenize_query(question, vocab) if vocab else []
    q.tokens = tuple(tokens + added_tokens(q.norm, tokens, vocab))
    q.defines = asked_term(question)
    q.why = why_part(question)
    q.kind = None
    q.vocab_id = id(vocab) if vocab else 0
    return q


def asked_of(question: "str | Asked", vocab=None) -> Asked:
    """``question`` itself when already analysed (with this vocabulary, or asked without one), else
    its analysis: the answer path passes an :class:`Asked` from end to end; other callers may pass text."""
    if isinstance(question, Asked) and (not vocab or question.vocab_id == id(vocab)):
        return question
    return analyse(str(question), vocab)


def question_kind(question: str, record: Optional[RecordAnswer] = None) -> Kind:
    """choice | calculation | concept | reason | other, from the question's wording (and the record's type)."""
    if _CHOICE.search(question) or (record is not None and record.qtype == "choice"):
        return "choice"
    if _REASON.search(question):
        return "reason"  # 为什么…: the reasons themselves, not a definition
    from pipeline.ask.calc_rules import ruled_norm  # (it reads the analysis: imported here, not at the top)

    if ruled_norm(normalise(question)) is not None:  # a rule computes it: 请写出…的网络地址, 七个顶点…有几条弧
        return "calculation"
    if _CONCEPT.search(question) and not re.search(r"\d", question):
        return "concept"
    if _CALC.search(question):
        return "calculation"
    if _CONCEPT.search(question):
        return "concept"
    return "other"


def why_part(question: str) -> str:
    """What a why-question explains: the text after 为什么 ("…为什么要在TIME-WAIT状态等2MSL"), else ""."""
    why = _WHY_PART.search(normalise(question))
    return why.group(1) if why else ""


def question_terms(question: str, vocab=None) -> dict[str, float]:
    """Content terms of the question with weights. With a vocabulary: indexed words (≥ 2 chars or
    Latin), weight = length, so 平均查找长度 outweighs 查找; without: bigrams, weight 1. Terms of the
    last clause weigh ``FOCUS_WEIGHT`` times more when there are several: a Chinese question sets
    the scene first and asks last ("死锁的必要条件里，请求和保持条件指什么"). Terms only in the scene of
    ``A里的B``/``A中的B`` weigh ``SCENE_WEIGHT``: a sentence on 首部 does not answer 首部里的TTL."""
    if isinstance(question, Asked) and (not vocab or question.vocab_id == id(vocab)):
        return question.terms
    q = normalise(question)
    clauses = [c for c in re.split(r"[，,；;：:？?]", q) if c.strip()]
    last = clauses[-1] if len(clauses) > 1 else ""
    why = why_part(q)
    if why:  # "…四次挥手后客户端为什么要在TIME-WAIT状态等2MSL": what follows 为什么 is what is explained
        last = f"{last} {why}"
    scene = _SCENE.search(q)
    scene, rest = (scene.group(1).lower(), q[scene.end():].lower()) if scene else ("", "")

    def weight(t: str) -> float:
        w = FOCUS_WEIGHT if last and t in last.lower() else 1.0
        return w * SCENE_WEIGHT if scene and t in scene and t not in rest else w

    if vocab:
        toks = {t for t in tokenize_query(QUESTION_WORDS.sub(" ", q), vocab) if len(t) >= 2 or t.isascii() and t.isalnum()}
        if toks:
            return {t: len(t) * weight(t) for t in toks}
    return {g: weight(g) for g in grams(question, drop_question_words=True) if len(g) >= 2 or g.isascii()}


def _copy(q: Asked) -> Asked:
    out = Asked(str(q))
    out.__dict__.update(q.__dict__)
    return out
