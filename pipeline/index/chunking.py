"""Heading-first chunking: each chapter_path section, then ~512-char windows with ~50 overlap cut at
Chinese sentence ends (。！？； first, then newline); each past-paper question is one chunk."""

from __future__ import annotations

import hashlib
import json
import re

from pipeline.models import PATH_SEP, Chunk, CleanDoc, EnrichedDoc, Question

_SENT = re.compile(r"(?<=[。！？；!?;])|(?<=\n)")
QTYPE_CN = {"choice": "单项选择题", "comprehensive": "综合应用题", "other": "题"}


def split_windows(text: str, size: int = 512, overlap: int = 50) -> list[str]:
    """Pack sentences into windows of at most ``size`` chars; the next window starts with the last
    ~``overlap`` chars of sentences from the previous one. Over-long sentences are cut hard."""
    text = text.strip()
    if len(text) <= size:
        return [text] if text else []
    sents: list[str] = []
    for s in _SENT.split(text):
        while len(s) > size:
            sents.append(s[:size])
            s = s[size - overlap:]
        if s.strip():
            sents.append(s)
    windows, cur, fresh = [], [], False  # fresh: cur holds a sentence not yet in any window
    for s in sents:
        if cur and fresh and sum(map(len, cur)) + len(s) > size:
            windows.append("".join(cur).strip())
            tail: list[str] = []
            while cur and sum(map(len, tail)) + len(cur[-1]) <= overlap:
                tail.insert(0, cur.pop())
            cur = tail if sum(map(len, tail)) + len(s) <= size else []
        cur.append(s)
        fresh = True
    if cur and fresh and "".join(cur).strip():
        windows.append("".join(cur).strip())
    return windows


def chunk_id(text: str, meta: dict) -> str:
    payload = text + "\x00" + json.dumps(meta, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()[:24]


def question_text(q: Question) -> str:
    head = f"{q.year}年 第{q.number}题（{QTYPE_CN.get(q.qtype, '题')}）" if q.year else f"第{q.number}题"
    parts = [head, q.text.strip()]
    parts += [f"{k}. {v}" for k, v in sorted(q.options.items())]
    if q.answer:
        parts.append(f"答案：{q.answer}")
    if q.analysis:
        parts.append(f"解析：{q.analysis}")
    return "\n".join(p for p in parts if p)


def _prefix(path: list[str], summary: str, keywords: list[str]) -> str:
    if not keywords and not summary:
        return ""
    head = " - ".join(path[-2:])
    return f"【{head}｜{'；'.join(keywords)}】{summary}\n"


def make_chunks(doc: CleanDoc, enriched: EnrichedDoc | None, size: int = 512, overlap: int = 50) -> list[Chunk]:
    chunks: list[Chunk] = []
    for sec in doc.sections:
        enr = enriched.sections.get(PATH_SEP.join(sec.chapter_path)) if enriched else None
        prefix = _prefix(sec.chapter_path, enr.summary, enr.keywords) if enr else ""
        for pos, window in enumerate(split_windows(sec.text, size, overlap), start=1):
            # the prefix is part of what is embedded: a new enrichment must give a new id (and vector)
            meta = {"doc": doc.doc_id, "path": sec.chapter_path, "pos": pos, "pages": sec.pages, "prefix": prefix}
            chunks.append(Chunk(chunk_id=chunk_id(window, meta), doc_id=doc.doc_id, source=doc.source,
                                kind=doc.kind, chapter_path=sec.chapter_path, chunk_position=pos,
                                pages=sec.pages, text=window, prefix=prefix))
    for q in doc.questions:
        enr = enriched.questions.get(f"{q.year}-{q.number}") if enriched else None
        chunks.append(question_chunk(q, doc.doc_id, doc.source, enr.keywords if enr else []))
    return chunks


def question_chunk(q: Question, doc_id: str, source: str, keywords: list[str]) -> Chunk:
    """One chunk for one question record (merged across documents or not)."""
    text = question_text(q)
    path = list(q.chapter_path) + [f"第{q.number}题"]
    prefix = _prefix(path, "", keywords)
    sources = list(dict.fromkeys([source] + [s.source for s in q.sources if s.source]))
    meta = {"doc": doc_id, "path": path, "pos": 1, "pages": q.pages, "year": q.year, "number": q.number,
            "prefix": prefix, "sources": sources}
    return Chunk(chunk_id=chunk_id(text, meta), doc_id=doc_id, source=source, kind="question",
                 chapter_path=path, chunk_position=1, pages=q.pages, text=text, prefix=prefix,
                 year=q.year, number=q.number, qtype=q.qtype, chapter_paths=q.chapter_paths, sources=sources)
