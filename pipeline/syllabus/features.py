"""Text → term vectors for placement: character bigrams (and single characters) of Chinese runs, whole Latin words.

Bigrams rather than the index's jieba tokens: a syllabus item (``(四)折半查找法``), a notes heading
(``7.2 折半查找``) and a stem (``进行折半查找``) share bigrams (折半, 半查, 查找) whatever a word splitter
makes of each, and a cut-off item (``TCP连接管``) still shares most of its bigrams with ``TCP连接管理``.
Single characters count too, weighed down (栈, 树, 图, 堆 say a lot in a stem). Latin words stay whole
and join their Chinese neighbour (``B+树`` → ``b+``, ``b+树``).

Vectors are rows of a scipy sparse matrix (sublinear tf × smoothed idf, L2-normalised), so scoring every
chunk against every node is one sparse product.
"""

from __future__ import annotations

import re
from collections import Counter
from itertools import chain
from operator import add
from typing import Iterable, Optional, Sequence

import numpy as np

_RUN = re.compile(r"(?:[a-z][a-z0-9+#]*|\d+[a-z][a-z0-9]*|[\u3400-\u9fff])++")  # possessive: one way to split a run
_UNIT = re.compile(r"[a-z][a-z0-9+#]*|\d+[a-z][a-z0-9]*|[\u3400-\u9fff]")
_ALL_CJK = re.compile(r"[\u3400-\u9fff]+")
# bigrams every stem is made of: they say nothing about where a question sits
STOP = frozenset("""下列 列说 说法 法中 中正 正确 确的 错误 误的 的是 是不 不正 叙述 述中 以下 关于 于下 的叙 述正
若某 某计 某系 采用 使用 请回 回答 答下 列问 问题 个数 的个 多少 少是 一个 如下 下图 图所 所示 示的 其中 则该
可以 以及 要求 求出 的值 值是 之后 之前 为了 由于 因此 所以 如果 那么 需要 能够 不能 都是 分别 每个 所有 以上 最多
最少 至少 至多 选项 选择 答案 解析 故选 本题 此题 该题 考查 题目 给出 给定 项中 列选 是如 下有 的时""".split())
STOP_CHARS = frozenset("的是了在和与及或有对中为则若该其这那个下列一二三四五六七八九十种")
STOP_WORDS = frozenset("a an the of to in and or is are be by for on with as at it this that".split())
UNIGRAM_WEIGHT = 0.4  # a single Chinese character against a bigram
_DROP = STOP | STOP_CHARS | STOP_WORDS | set("adefghijklmnopqrstuvwxyz0123456789")  # b, c name B树, C语言


def terms(text: str) -> Counter:
    """Bag of bigrams, single characters and Latin words of ``text``; lower-cased."""
    out: list[str] = []
    for run in _RUN.findall(text.lower()):
        if _ALL_CJK.fullmatch(run):  # the common case, done with slices
            out.extend(run)
            out.extend(map(add, run, run[1:]))
            continue
        units = _UNIT.findall(run)
        out.extend(units)
        out.extend(map(add, units, units[1:]))
    bag = Counter(out)
    for t in _DROP & bag.keys():
        del bag[t]
    return bag


class Vectorizer:
    """A vocabulary with smoothed idf over a collection of bags; turns bags into L2-normalised sparse rows."""

    def __init__(self, bags: Iterable[Counter]):
        bags = list(bags)
        n = len(bags)
        df = Counter(chain.from_iterable(bag.keys() for bag in bags))
        names = sorted(df)
        self.vocab = {t: i for i, t in enumerate(names)}
        self.idf = np.log(1 + n / (np.array([df[t] for t in names], dtype=np.float64) + 1))
        self.idf *= np.array([UNIGRAM_WEIGHT if len(t) == 1 and not t.isascii() else 1.0 for t in names])

    def matrix(self, bags: Sequence[Counter], weights: Optional[Sequence[float]] = None):
        """One normalised row per bag (unknown terms dropped); ``weights`` scales rows before summing parts."""
        from scipy.sparse import csr_matrix

        lookup = self.vocab.get
        indptr = [0]
        cols: list = []
        counts: list = []
        for bag in bags:
            ids = list(map(lookup, bag.keys()))
            if None in ids:
                kept = [(i, c) for i, c in zip(ids, bag.values()) if i is not None]
                ids, vals = [i for i, _ in kept], [c for _, c in kept]
            else:
                vals = list(bag.values())
            cols.extend(ids)
            counts.extend(vals)
            indptr.append(len(cols))
        col = np.array(cols, dtype=np.int64)
        data = (1.0 + np.log(np.array(counts, dtype=np.float64))) * self.idf[col] if cols else np.zeros(0)
        m = csr_matrix((data, col, np.array(indptr)), shape=(len(bags), len(self.vocab)))
        m = normalise_rows(m)
        if weights is not None:
            m = m.multiply(np.asarray(weights, dtype=np.float64).reshape(-1, 1)).tocsr()
        return m


def normalise_rows(m):
    """Rows scaled to unit L2 norm (empty rows stay empty)."""
    norms = np.sqrt(np.asarray(m.multiply(m).sum(axis=1)).ravel())
    norms[norms == 0] = 1.0
    from scipy.sparse import diags

    return (diags(1.0 / norms) @ m).tocsr()
