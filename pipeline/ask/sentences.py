"""Sentence and word helpers shared by key-sentence selection and the claim check.

Both compare short Chinese texts without jieba (kept off the query path): a text's *content* is its
CJK characters, Latin words and numbers with question words, function words and markup removed;
closeness is measured on character bigrams of that content (plus whole Latin words), which does not
depend on a segmenter agreeing with itself on a paraphrase.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

CITATION = re.compile(r"\[来源[:：][^\]\n]*\]|\[\d{1,2}\]")  # a full citation, or a prompt label [1]
# a sentence ends at 。！？ (and ；) or a line break; a colon heading (答案：) stays with its text
_SENT_END = re.compile(r"(?<=[。！？；!?;])|\n+")
_SENT_END_NO_SEMI = re.compile(r"(?<=[。！？!?])|\n+")
_SUP = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹", "0123456789")
_SUP_RUN = re.compile(r"[⁰¹²³⁴⁵⁶⁷⁸⁹]+")
# question and function words: they say how something is asked, not what about
QUESTION_WORDS = re.compile(
    r"什么|怎么|怎样|如何|哪些|哪个|哪里|哪种|哪一|多少|几个|几次|几种|几道|几位|几|为什么|为何|是否|请问|一下|"
    r"分别|呢|吗|吧|啊|有没有|是不是|要不要|能不能|会不会|谁|啥|这个|那个|这|那|还是|东西|里面|里边|到底|具体|究竟|"
    r"意思|所说的|说的")
FUNCTION_CHARS = set("的了是在和与及或有对中一个能会要可以呢吗吧也都就而并且其该此为把被将从向于之所")
# characters that are never part of a 408 term: a bigram holding one is noise (找的, 度是)
PURE_FUNCTION = set("的了是和与及或呢吗吧也都就而且其该此把被将从向于之所")
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_+#./-]*|\d+(?:\.\d+)?")
_CJK = re.compile(r"[\u3400-\u9fff]")


@lru_cache(maxsize=65536)
def normalise(text: str) -> str:
    """NFKC (full-width → ASCII), superscript powers as ``^`` (2³² → 2^32), no markdown emphasis."""
    text = _SUP_RUN.sub(lambda m: "^" + m.group().translate(_SUP), text)
    text = unicodedata.normalize("NFKC", text)
    return text.replace("**", "").replace("`", "")


def split_sentences(text: str, semicolon: bool = True) -> list[str]:
    """Sentences of a passage or an answer, stripped, empty ones dropped. ``semicolon=False`` keeps
    ；-joined clauses together: a table row rewritten as "字段：值；字段：值" is one sentence."""
    pattern = _SENT_END if semicolon else _SENT_END_NO_SEMI
    return [s.strip() for s in pattern.split(text) if s and s.strip()]


def strip_citations(text: str) -> str:
    return CITATION.sub("", text).strip()


def content(text: str, drop_question_words: bool = False) -> str:
    """The text's content characters: CJK and ASCII letters/digits, lowercased."""
    text = normalise(strip_citations(text)).lower()
    if drop_question_words:
        text = QUESTION_WORDS.sub(" ", text)
    return text


@lru_cache(maxsize=32768)
def grams(text: str, drop_question_words: bool = False) -> frozenset[str]:
    """Character bigrams of each CJK run (single characters of one-character runs), plus Latin words
    and numbers whole. Bigrams of two function characters, or holding a pure function character
    (找的, 度是), are left out. Cached: the same passage sentences are scored for many questions."""
    text = content(text, drop_question_words)
    out: set[str] = {w for w in _WORD.findall(text)}
    for run in re.findall(r"[\u3400-\u9fff]+", text):
        if len(run) == 1:
            if run not in FUNCTION_CHARS:
                out.add(run)
            continue
        for i in range(len(run) - 1):
            bg = run[i:i + 2]
            if not (bg[0] in FUNCTION_CHARS and bg[1] in FUNCTION_CHARS) and not set(bg) & PURE_FUNCTION:
                out.add(bg)
    return frozenset(out)


def subject_grams(text: str) -> set[str]:
    """Bigrams without function characters, and Latin names (FIFO, SRAM); no numbers or formulas:
    the words that say what a text is about."""
    return {g for g in grams(text)
            if not _DIGIT.search(g) and not (set(g) & PURE_FUNCTION) and not (g.isascii() and len(g) < 2)}


_DIGIT = re.compile(r"\d")


def containment(needle: set[str], hay: set[str]) -> float:
    """Share of ``needle`` found in ``hay`` (0 when needle is empty)."""
    return len(needle & hay) / len(needle) if needle else 0.0


def has_cjk(text: str) -> bool:
    return bool(_CJK.search(text))


YES_NO = re.compile(r"吗|是否|能否|能不能|有没有|是不是|要不要|会不会|可不可以|还是")


def novelty(text: str, question: str) -> float:
    """Share of the text's content not already in the question (0: it only restates the question).
    A yes/no question is answered by restating it ("快速排序是稳定的"): then every text counts as new."""
    if YES_NO.search(question):
        return 1.0
    if set(re.findall(r"\d+(?:\.\d+)?", content(text))) - set(re.findall(r"\d+(?:\.\d+)?", content(question))):
        return 1.0  # a number the question did not give is news ("UDP的首部有8个字节")
    g = grams(text)
    return 1.0 - containment(g, grams(question)) if g else 0.0
