"""Tokens for BM25 over mixed Chinese/English study text.

Chinese runs go through jieba's search mode, which keeps a long word *and* its
sub-words (``存储管理`` → ``存储``, ``管理``, ``存储管理``), so a query for a short
term matches text that uses a longer compound. Latin identifiers and numbers
stay whole and lowercased (``netif_receive_skb``, ``ESP32`` → ``esp32``,
``192.168.1.1``); ``_``/``-`` compounds also yield their parts. Big-O
expressions become one normalised token (``O(n log₂ n)`` → ``o(nlog2n)``).
Punctuation and a small set of function words are dropped.

The same function must tokenize documents and queries; record
``TOKENIZER_VERSION`` with an index and rebuild when it changes.
"""

from __future__ import annotations

import hashlib
import logging
import re
import threading
import unicodedata
from pathlib import Path

TOKENIZER_VERSION = "jieba-search-1"

_CJK = r"\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_TOKEN_RE = re.compile(
    # Big-O / Theta / Omega with a short argument: O(log2n), O(n^2), Θ(nlogn)
    r"(?P<bigo>[OΘΩ]\s*\(\s*[0-9A-Za-z_+\-*/^.\s]{1,24}?\s*\))"
    # a run of CJK ideographs, handed to jieba
    rf"|(?P<cjk>[{_CJK}]+)"
    # identifiers and numbers: netif_receive_skb, esp32, 3.14, 192.168.1.1, x86-64, c++, c#
    r"|(?P<word>[A-Za-z0-9_]+(?:[.\-][A-Za-z0-9_]+)*(?:\+\+|#(?![A-Za-z0-9_]))?)"
    # letters of other scripts (Greek, kana, Cyrillic…)
    rf"|(?P<other>[^\W_A-Za-z0-9{_CJK}]+)"
)
_SPLIT_RE = re.compile(r"[_\-]")

# Function words only: anything that can carry meaning in 408 text stays
# (e.g. English "as"/"is"/"it" are also AS, IS-IS, IT once lowercased).
STOPWORDS_ZH = frozenset(
    "的 地 得 了 着 过 是 在 和 与 及 或 而 也 就 都 又 还 被 把 将 对 从 向 为 以 于 之 其 此 这 那 "
    "该 个 吗 呢 吧 啊 呀 么 我 你 他 她 它 我们 你们 他们 一个 一种 这个 那个 这些 那些 "
    "但 但是 则 即 并 且 如果 因为 所以 因此 可以 可 会 能 要".split()
)
STOPWORDS_EN = frozenset(
    "a an the of to and or for with by from this that these those be are was were been "
    "its into than then there which".split()
)
STOPWORDS = STOPWORDS_ZH | STOPWORDS_EN

_jieba = None
_jieba_lock = threading.Lock()


def _get_jieba():
    """Import and initialise jieba once, without its stderr chatter."""
    global _jieba
    if _jieba is None:
        with _jieba_lock:
            if _jieba is None:
                import jieba

                jieba.setLogLevel(logging.WARNING)
                jieba.initialize()
                for term in read_terms():
                    if re.fullmatch(rf"[{_CJK}A-Za-z0-9+]+", term):
                        jieba.add_word(term, freq=50000)
                _jieba = jieba
    return _jieba


TERMS_FILE = Path(__file__).with_name("terms.txt")


def read_terms() -> list[str]:
    """Domain terms (one per line, ``#`` comments) that jieba should keep whole."""
    if not TERMS_FILE.exists():
        return []
    lines = TERMS_FILE.read_text("utf-8").splitlines()
    return [t.strip() for t in lines if t.strip() and not t.lstrip().startswith("#")]


def terms_hash() -> str:
    return hashlib.sha256("\n".join(read_terms()).encode()).hexdigest()[:12]


def load_terms() -> None:
    """Make sure jieba is initialised with the domain terms (for keyword extraction too)."""
    _get_jieba()


def _bigo(expr: str) -> str:
    return re.sub(r"\s+", "", expr).lower()


MAX_QUERY_WORD = 8  # longest CJK vocabulary word looked for inside a query


def tokenize_query(text: str, vocab) -> list[str]:
    """Query tokens without jieba: every indexed word (2–8 chars) found inside a CJK run, plus
    single characters no such word covers. Matches what search-mode jieba gives documents, and
    keeps jieba's ~1 s start-up off the query path. ``vocab`` is any container of index tokens."""
    return _tokens(text, lambda piece: _vocab_words(piece, vocab))


def _vocab_words(piece: str, vocab) -> list[str]:
    found: list[str] = []
    covered = [False] * len(piece)
    for i in range(len(piece)):
        for j in range(min(len(piece), i + MAX_QUERY_WORD), i + 1, -1):
            word = piece[i:j]
            if word in vocab and word not in STOPWORDS:
                found.append(word)
                for k in range(i, j):
                    covered[k] = True
    for i, ch in enumerate(piece):
        if not covered[i] and ch in vocab and ch not in STOPWORDS:
            found.append(ch)
    return found


def tokenize(text: str) -> list[str]:
    """Return BM25 tokens for ``text`` (document or query), in text order."""
    return _tokens(text, lambda piece: [t for t in _get_jieba().lcut_for_search(piece) if t not in STOPWORDS])


def _tokens(text: str, cjk_words) -> list[str]:
    if not text:
        return []
    text = unicodedata.normalize("NFKC", text)  # full-width → ASCII, ₂ → 2
    out: list[str] = []
    for m in _TOKEN_RE.finditer(text):
        kind = m.lastgroup
        piece = m.group()
        if kind == "cjk":
            out.extend(cjk_words(piece))
        elif kind == "word":
            tok = piece.lower()
            if tok in STOPWORDS:
                continue
            out.append(tok)
            if "_" in tok or "-" in tok:
                out.extend(p for p in _SPLIT_RE.split(tok) if p and p != tok and p not in STOPWORDS)
        elif kind == "bigo":
            out.append(_bigo(piece))
        else:
            out.append(piece.lower())
    return out
