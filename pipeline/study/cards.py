"""Review cards from a chapter's own sentences, each quoted verbatim and cited.

Extractive (the default, no LLM). Per section, the sentences looked at are its key sentences
(``keysentences.select`` asked "什么是<heading>": the answer path's own choice of what a section says
about its subject), then its other sentences in order; each becomes at most one card, by the first
rule that applies, and a section gives at most ``cards_per_section``:

1. ``definition``: the sentence opens with a term (2–``MAX_TERM`` chars, or the one character its
   section is named after: 栈 under "3.1 栈"; no punctuation and no 的,
   not a pronoun, a generic word such as 特点/优点, a question word or an adverb before 是, see
   ``NOT_A_TERM``) then 是 or 是指 (not 是否), and says at least ``MIN_DEFINIENS`` chars after it
   ("二路归并排序是稳定的" states a property, it defines nothing): front "什么是<term>？", back the sentence;
2. ``cloze`` on a name: "…称为X", "又称X", "简称X", "也称X", "称作X", "叫做X": X is hidden;
3. ``cloze`` on a complexity: the first O(…) of the sentence is hidden.

A sentence longer than ``keysentences.trim`` keeps is cut there (marked …), still a quote.
Model-written cards (``use_llm``) are opt-in: the LLM writes 问/答 pairs from one section's chunk,
and a pair is kept only when every claim of its answer passes the claim check against that chunk
(``claims.check``); the others are reported as rejected, with the reason.

A card's id hashes its type, front and back, so making the cards of a chapter again keeps each
card's reviews; its ``source_sha`` (its chunk's text) tells whether its source is still in the index
as it was: a chunk id also hashes its document's id, which changes with any edit of the file.
"""

from __future__ import annotations

import hashlib
import re
from typing import Callable, Optional

from pipeline.ask.claims import check
from pipeline.ask.extras import heading_term
from pipeline.ask.keysentences import joined_sentences, select, trim
from pipeline.ask.retrieve import to_hit
from pipeline.models import Chunk
from pipeline.study.models import CardItem
from pipeline.study.nodes import nodes_of

MAX_TERM = 12
NOT_A_TERM = re.compile(r"^(?:其|它|这|那|该|此|所以|因此|由于|如果|若|但|而|即|也|都|每|一个|一种)|"
                        r"什么|如何|怎么|无论|是否|的|"
                        r"(?:思想|特点|优点|缺点|目的|作用|原因|区别|方法|过程|步骤|条件|关键|核心|问题|情况|结果)$|"
                        r"(?:一定|只|可以|还|也|都|就|才|不|一|二|总|仍|则|又|必然|通常|一般)$")
DEFINITION = re.compile(rf"^(?P<term>[^\s，,。；;：:、（）()“”\"]{{1,{MAX_TERM}}}?)"
                        r"(?:[（(][^）)]{1,24}[）)])?(?:是指|是(?!否))(?P<rest>.*)$", re.S)
MIN_DEFINIENS = 6  # chars after 是 (punctuation not counted)
NAMED = re.compile(rf"(?:称为|又称|简称|也称|称作|叫做)(?P<term>[^\s，,。；;：:、（）()“”\"]{{2,{MAX_TERM}}})")
COMPLEXITY = re.compile(r"O\([^()]{1,16}\)")
MIN_SENTENCE = 10  # chars: shorter sentences say too little to review
PROMPT_VERSION = "cards-v1"
LLM_SYSTEM = "你是计算机考研复习助手。只根据给出的资料出题，不要使用资料以外的知识。"
LLM_USER = ("根据下面的资料写{n}张复习卡片。每张卡片两行，格式为：\n问：……\n答：……\n"
            "答案必须是资料中的原话或直接依据资料。\n\n资料：\n{text}")
_QA = re.compile(r"问[:：]\s*(?P<q>.+?)\s*\n\s*答[:：]\s*(?P<a>.+?)(?=\n\s*问[:：]|\Z)", re.S)


def card_id(card_type: str, front: str, back: str) -> str:
    return "c-" + hashlib.sha256(f"{card_type}\x00{front}\x00{back}".encode()).hexdigest()[:16]


def source_sha(chunk: Chunk) -> str:
    return hashlib.sha256(chunk.text.encode("utf-8")).hexdigest()[:16]


def _card(card_type: str, front: str, back: str, sentence: str, chunk: Chunk, depth: int, origin="extractive") -> CardItem:
    return CardItem(item_id=card_id(card_type, front, back), card_type=card_type, front=front, back=back,
                    sentence=sentence, citation=chunk.citation(), chunk_id=chunk.chunk_id, source_sha=source_sha(chunk),
                    chapter_path=chunk.chapter_path, nodes=[list(n) for n in nodes_of(chunk, depth)], origin=origin)


def _is_term(term: str, chunk: Chunk) -> bool:
    if NOT_A_TERM.search(term):
        return False
    return len(term) >= 2 or bool(chunk.chapter_path) and heading_term(chunk.chapter_path[-1]) == term


def card_from_sentence(sentence: str, chunk: Chunk, depth: int = 2) -> Optional[CardItem]:
    """The card the first applicable rule makes of one sentence (module docstring), or None."""
    s = trim(sentence.strip())
    if len(s) < MIN_SENTENCE:
        return None
    m = DEFINITION.match(s)
    if m and _is_term(m.group("term"), chunk) and len(re.sub(r"\W", "", m.group("rest"))) >= MIN_DEFINIENS:
        return _card("definition", f"什么是{m.group('term')}？", s, s, chunk, depth)
    m = NAMED.search(s) or COMPLEXITY.search(s)
    if m:
        start, end = m.span("term") if "term" in m.groupdict() else m.span()
        hidden = s[start:end]
        return _card("cloze", f"{s[:start]}{{{{c1::{hidden}}}}}{s[end:]}", hidden, s, chunk, depth)
    return None


def section_cards(chunks: list[Chunk], vocab=None, limit: int = 3, depth: int = 2) -> list[CardItem]:
    """Cards of one section's chunks (all under one heading path), key sentences first."""
    if not chunks:
        return []
    term = heading_term(chunks[0].chapter_path[-1]) if chunks[0].chapter_path else ""
    hits = [to_hit(c, i, 1.0) for i, c in enumerate(chunks, start=1)]
    by_id = {c.chunk_id: c for c in chunks}
    ordered: list[tuple[str, Chunk]] = []
    if term:
        ordered += [(k.text, by_id[k.chunk_id]) for k in select(f"什么是{term}", hits, vocab) if k.chunk_id in by_id]
    ordered += [(s, c) for c in chunks for s in joined_sentences(c.text)]
    cards: list[CardItem] = []
    seen: set[str] = set()
    for sentence, chunk in ordered:
        card = card_from_sentence(sentence, chunk, depth)
        if card is None or card.item_id in seen or any(card.sentence in c.sentence or c.sentence in card.sentence for c in cards):
            continue
        seen.add(card.item_id)
        cards.append(card)
        if len(cards) >= limit:
            break
    return cards


def llm_cards(chunk: Chunk, complete: Callable[[str, str], str], n: int = 2,
              depth: int = 2) -> tuple[list[CardItem], list[dict]]:
    """(kept, rejected): 问/答 cards the model wrote from one chunk; kept only when every claim of the
    answer is backed by the chunk (claim check), rejected with the first failing claim's reason."""
    text = complete(LLM_SYSTEM, LLM_USER.format(n=n, text=chunk.text))
    hit = to_hit(chunk, 1, 1.0)
    kept, rejected = [], []
    for m in _QA.finditer(text.strip() + "\n"):
        q, a = m.group("q").strip(), m.group("a").strip()
        claims = [c for c in check(a, [hit], q) if c.reason != "no claim"]
        failed = next((c for c in claims if not c.supported), None)
        if claims and failed is None:
            card = _card("qa", q, a, a, chunk, depth, origin="llm")
            kept.append(card)
        else:
            rejected.append({"front": q, "back": a, "chunk_id": chunk.chunk_id,
                             "reason": failed.reason if failed else "states nothing to check"})
    return kept, rejected
