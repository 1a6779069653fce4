"""Hybrid retrieval over the live index generation.

Order of evidence: an exact past-paper reference (``2023年第42题``, ``23年42题``, ``2023 42``) resolves
to its question record first; then BM25 and vector top-N lists, each restricted to the chapter filter
before ranking, fused by weighted reciprocal rank fusion (k = ``rrf_k``).
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Optional

import numpy as np

from pipeline.ask.definitions import SCAN_LIMIT, best_definer, defining_sentence, names_of_term
from pipeline.ask.question import Asked, analyse
from pipeline.index.bm25 import Bm25Index
from pipeline.index.catalog import Catalog, current_generation
from pipeline.index.stage import make_embedder_from_settings, open_vectors
from pipeline.models import PATH_SEP, Chunk, Hit
from pipeline.settings import Settings
from pipeline.text.tokenize import tokenize_query


class IndexMissing(RuntimeError):
    pass


class ChapterNotFound(ValueError):
    SHOWN = 60  # characters of the needle the message repeats (a pasted page is not echoed back)

    def __init__(self, needle: str, close: list[str]):
        self.needle, self.close = needle, close
        hint = "；相近的章节：" + "、".join(close) if close else ""
        shown = needle if len(needle) <= self.SHOWN else needle[: self.SHOWN] + "…"
        super().__init__(f"no chapter matches '{shown}'{hint}")


def rrf(lists: list[tuple[list[str], float]], k: int = 60) -> list[tuple[str, float]]:
    """Weighted reciprocal rank fusion: score(d) = Σ w / (k + rank), rank from 1."""
    scores: dict[str, float] = {}
    for ids, weight in lists:
        for rank, cid in enumerate(ids, start=1):
            scores[cid] = scores.get(cid, 0.0) + weight / (k + rank)
    return sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))


# spoken fillers ("快表是什么东西，里面存的是什么") are no topic: left uncovered, they read as an unknown topic
_QUESTION_WORDS = re.compile(r"是个|有何|为何|何为|何种|区别|不同|差异|异同|差别|不一样|什么|怎么|怎样|如何|哪些|哪个|哪里|哪种|多少|几个|几次|几种|为什么|是否|请问|请|一下|"
                             r"分别|呢|吗|吧|是|的|了|和|与|及|或|有|在|对|中|一个|能|会|要|可以|应该|"
                             r"东西|里面|里边|到底|具体|究竟|啥|咋|各自|各|意思|说的|回事|干嘛|干啥|干(?=什么)")
_CONTENT = re.compile(r"[\u3400-\u9fffA-Za-z0-9]")
COVERAGE_HITS = 3
# a Latin-led name the tokenizer splits (B树 → b + 树, B+树, 2PL协议…): found as written in a passage, all
# of it is covered; its lone character (树) never counts on its own, so "B树与B+树有何不同" covered only B, B
_COMPOUND = re.compile(r"[a-z][a-z0-9+]*[\u3400-\u9fff]")


_ONLY_QUESTION_WORDS = re.compile(f"(?:{_QUESTION_WORDS.pattern})+")


def _blank_question_words(question: str) -> str:
    """The question with its question words blanked, each character to a space (positions kept)."""
    return _QUESTION_WORDS.sub(lambda m: " " * len(m.group()), question)


def _inner_words(question: str, blanked: str, vocab) -> list[tuple[str, list[int]]]:
    """Indexed words (≥ 2 chars) that a blanked question word was part of, with their positions:
    中断 (中 is a question word), 有效位, 对称, 会话层, 功能. Found in a passage, the whole word covers
    the question; otherwise its question-word character stays out, as before."""
    low, out = question.lower(), []
    for tok in set(tokenize_query(question, vocab)):
        if len(tok) < 2 or _ONLY_QUESTION_WORDS.fullmatch(tok):
            continue
        start = low.find(tok)
        while start != -1:
            span = range(start, start + len(tok))
            if any(blanked[i] == " " and _CONTENT.match(question[i]) for i in span):
                out.append((tok, [i for i in span if _CONTENT.match(question[i])]))
            start = low.find(tok, start + 1)
    return out


def _compounds(low: str) -> list[tuple[str, list[int]]]:
    """(compound, its character positions) of each Latin-led name in the lowered question."""
    return [(m.group(), list(range(m.start(), m.end()))) for m in _COMPOUND.finditer(low)]


def query_coverage(question: str, vocab, texts: list[str]) -> float:
    """Share of the question's content characters covered by indexed words (≥ 2 chars, or ASCII
    words) that occur in the given hit texts. Questions outside the material score near 0: their
    topic words are not in the index, or not in the passages that matched generic words."""
    q = _blank_question_words(question)
    content = {i for i, ch in enumerate(q) if _CONTENT.match(ch)}
    hay = "".join(texts).lower()
    covered: set[int] = set()
    for word, chars in _inner_words(question, q, vocab):
        if word in hay:
            content.update(chars)
            covered.update(chars)
    if not content:
        return 0.0
    low = q.lower()
    for tok in set(tokenize_query(q, vocab)):
        if (len(tok) >= 2 or tok.isascii()) and tok in hay:
            start = low.find(tok)
            while start != -1:
                covered.update(range(start, start + len(tok)))
                start = low.find(tok, start + 1)
    for compound, chars in _compounds(low):
        if compound in hay:
            covered.update(chars)
    return len(covered & content) / len(content)


def passage_coverage(question: str, bm25: Bm25Index, text: str) -> float:
    """How much of the question one passage covers, each question character weighted by the IDF of
    the indexed word it belongs to (a character no indexed word covers weighs the most: the index
    never saw it). Answers "does one passage speak about this question's rare words together?" —
    unlike :func:`query_coverage`, an off-topic question whose words each occur somewhere (Redis in one
    passage, 持久化 in another) scores low."""
    return _QuestionWeights(question, bm25).coverage(text)


class _QuestionWeights:
    """The question's content characters, each with the words of the index covering it (longest
    first) and their IDF: computed once, then checked against each passage."""

    def __init__(self, question: str, bm25: Bm25Index):
        q = _blank_question_words(question)
        low = q.lower()
        self.content = {i for i, ch in enumerate(q) if _CONTENT.match(ch)}
        # (word, IDF, characters): counted, and covered, only in a passage that has the word
        self.inner = [(w, bm25.idf(w), chars) for w, chars in _inner_words(question, q, bm25.vocab)]
        self.words: list[tuple[str, float, list[int]]] = []  # (word, idf, its content characters)
        for tok in sorted(set(tokenize_query(q, bm25.vocab)), key=len, reverse=True):
            chars, start = [], low.find(tok)
            while start != -1:
                chars += [i for i in range(start, start + len(tok)) if i in self.content]
                start = low.find(tok, start + 1)
            self.words.append((tok, bm25.idf(tok), chars))
        self.compounds = [(c, [i for i in chars if i in self.content]) for c, chars in _compounds(low)]
        self.unseen = bm25.idf("")  # df = 0

    def coverage(self, text: str) -> float:
        hay = text.lower()
        weight: dict[int, tuple[float, bool]] = {}  # char -> (IDF of its word, word found in the passage)
        content = set(self.content)
        for tok, w, chars in self.inner:
            if tok in hay:
                content.update(chars)
                for i in chars:
                    weight[i] = (max(w, weight.get(i, (0.0, True))[0]), True)
        if not content:
            return 0.0
        for tok, w, chars in self.words:
            found = (len(tok) >= 2 or tok.isascii()) and tok in hay
            for i in chars:
                if i not in weight or (found and not weight[i][1]):
                    weight[i] = (w, found)
        for compound, chars in self.compounds:
            if compound in hay:
                for i in chars:
                    weight[i] = (weight.get(i, (self.unseen, False))[0], True)
        total = sum(weight.get(i, (self.unseen, False))[0] for i in content)
        covered = sum(w for i, (w, found) in weight.items() if found and i in content)
        return covered / total if total else 0.0


@dataclass
class Retrieval:
    hits: list[Hit]
    best_bm25: float = 0.0
    best_cosine: float = 0.0
    coverage: float = 0.0
    passage_coverage: float = 0.0  # the best single passage's passage_coverage over the hits
    exact_question: bool = False
    chapters: list[str] = field(default_factory=list)
    side_hits: list[Hit] = field(default_factory=list)  # a contrast question's passages on each side alone (contrast.py)
    asked: Optional[Asked] = None  # the question's one analysis (question.py), with the index vocabulary: answer reads it


class Retriever:
    """Opens the live generation once; reusable across queries (eval, benchmarks)."""

    def __init__(self, data_dir: Path, settings: Settings, embedder=None):
        self.settings = settings
        index_dir = Path(data_dir) / "index"
        self.meta = current_generation(index_dir)
        if not self.meta:
            raise IndexMissing(f"no index in {data_dir}: run `python cli.py ingest DIR` first")
        self._gen = index_dir / self.meta["generation"]
        self._index_dir = index_dir
        self.catalog = Catalog(self._gen / "chunks.sqlite")
        if embedder is not None:
            self.embedder = embedder
        if settings.ask.retrieval_mode != "vector":
            _ = self.bm25  # open (memory-map) now: an ingest publishing a new generation may delete this one

    @cached_property
    def bm25(self) -> Bm25Index:
        return Bm25Index.load(self._gen / "bm25", mmap=True)

    @cached_property
    def embedder(self):
        return make_embedder_from_settings(self.settings)

    @cached_property
    def vectors(self):
        return open_vectors(self._index_dir, self.settings, self.meta["collection"])

    def resolve_chapter(self, needle: str) -> list[str]:
        """The joined chapter paths under a heading containing ``needle``; else ChapterNotFound with up
        to 5 close headings. The needle is read a fixed number of times whatever the heading count
        (its characters once, as a set), so a long one costs its length plus the headings, not their product."""
        found = self.catalog.matching_chapters(needle)
        if found:
            return found
        headings = sorted({h for c, _ in self.catalog.chapters() for h in c.split(PATH_SEP)})
        close = difflib.get_close_matches(needle, headings, n=5, cutoff=0.2)
        chars = set(needle)
        close += [h for h in headings if not chars.isdisjoint(h) and h not in close][: 5 - len(close)]
        raise ChapterNotFound(needle, close[:5])

    @cached_property
    def _positions(self) -> dict[str, int]:
        return {cid: i for i, cid in enumerate(self.bm25.ids)}

    def search(self, question: str, *, top_k: int = 5, chapter: Optional[str] = None,
               mode: Optional[str] = None, within: Optional[set[str]] = None) -> Retrieval:
        """``chapter`` filters by headings; ``within`` (chunk ids: a syllabus node's placement, see
        pipeline/syllabus/view.py) filters to those chunks instead."""
        s = self.settings.ask
        mode = mode or s.retrieval_mode
        chapters = self.resolve_chapter(chapter) if chapter and within is None else []
        asked = analyse(question, self.bm25.vocab)
        result = Retrieval(hits=[], chapters=chapters, asked=asked)
        exact: list[Chunk] = []
        ref = asked.ref
        if ref:
            exact = self.catalog.questions(*ref)
            if chapters:
                exact = [c for c in exact if c.chapter in chapters]
            if within is not None:
                exact = [c for c in exact if c.chunk_id in within]
            # the record with the most to say (answer, analysis) first: that is what the student wants
            exact.sort(key=lambda c: (-("解析" in c.text), -len(c.text), c.source))
            result.exact_question = bool(exact)
        lists: list[tuple[list[str], float]] = []
        raw_scores: list[tuple[str, float]] = []
        if mode in ("hybrid", "bm25"):
            mask = None
            if chapters:
                mask = np.zeros(len(self.bm25), dtype=bool)
                mask[self.catalog.positions_in(chapters)] = True
            if within is not None:
                mask = np.zeros(len(self.bm25), dtype=bool)
                mask[[self._positions[c] for c in within if c in self._positions]] = True
            bm = self.bm25.search(list(asked.tokens), top_n=s.top_n, allowed=mask)
            result.best_bm25 = bm[0][1] if bm else 0.0
            lists.append(([cid for cid, _ in bm], s.bm25_weight if mode == "hybrid" else 1.0))
            raw_scores = bm
        if mode in ("hybrid", "vector"):
            where = {"chapter": {"$in": chapters}} if chapters else None
            vec = self.vectors.query(self.embedder.embed_query(question), top_n=s.top_n, where=where,
                                     ids=sorted(within) if within is not None else None)
            result.best_cosine = vec[0][1] if vec else 0.0
            lists.append(([cid for cid, _ in vec], s.vector_weight if mode == "hybrid" else 1.0))
            raw_scores = vec
        # one engine: its own scores (BM25 score or cosine); hybrid: the fused RRF score
        fused = rrf(lists, k=s.rrf_k) if mode == "hybrid" else raw_scores
        top = max((score for _, score in fused), default=0.0)
        ranked: list[tuple[str, float]] = [(c.chunk_id, top + 1.0) for c in exact]  # above every search hit
        ranked += [(cid, score) for cid, score in fused if cid not in {c.chunk_id for c in exact}]
        chunks = self.catalog.by_ids([cid for cid, _ in ranked[: top_k * 3]])  # ids absent here are ghosts
        picked = [(chunks[cid], score) for cid, score in ranked if cid in chunks][:top_k]
        if asked.defines and picked:
            records = sum(c.chunk_id in {e.chunk_id for e in exact} for c, _ in picked)
            picked = self._definition_first(asked.defines, picked, records, [cid for cid, _ in ranked],
                                            chapters, within, top_k)
        result.hits = [to_hit(c, i, score) for i, (c, score) in enumerate(picked, start=1)]
        if result.hits and len(self.bm25):
            result.coverage = query_coverage(question, self.bm25.vocab, [h.text for h in result.hits[:COVERAGE_HITS]])
            weights = _QuestionWeights(question, self.bm25)
            result.passage_coverage = max(weights.coverage(h.text) for h in result.hits)
        return result


    def _definition_first(self, term: str, picked: list[tuple[Chunk, float]], records: int, ranked: list[str],
                          chapters: list[str], within: Optional[set[str]], top_k: int) -> list[tuple[Chunk, float]]:
        """A "什么是X" question: unless the first passage after the asked records already defines X (or
        one of its other names), the passage that defines it best (``definitions.best_definer``, within
        the same chapter or syllabus filter) goes there, taking the first search hit's score; the
        others move down one."""
        first = picked[records][0] if records < len(picked) else None
        names = names_of_term(term)
        if first is None or defining_sentence(first.text, names):
            return picked
        pool = [c for c, _ in picked[records:]]
        for name in names:
            pool += self.catalog.holding(name, SCAN_LIMIT)
        if chapters:
            pool = [c for c in pool if c.chapter in chapters]
        if within is not None:
            pool = [c for c in pool if c.chunk_id in within]
        definer = best_definer(names, pool, ranked)
        if definer is None:
            return picked
        rest = [(c, s) for c, s in picked if c.chunk_id != definer.chunk_id]
        return (rest[:records] + [(definer, picked[records][1])] + rest[records:])[:top_k]


def to_hit(c: Chunk, rank: int, score: float) -> Hit:
    return Hit(rank=rank, chunk_id=c.chunk_id, doc_id=c.doc_id, source=c.source, chapter_path=c.chapter_path,
               chunk_position=c.chunk_position, pages=c.pages, score=round(score, 6), text=c.text, kind=c.kind,
               year=c.year, number=c.number, citation=c.citation(), chapter_paths=c.chapter_paths,
               sources=c.sources or [c.source], boxes=c.boxes, parts=c.parts)
