"""Index stage entry point: per document CleanDoc+EnrichedDoc → chunks (IndexedDoc), then ``sync``
brings Chroma and the BM25/catalog generation in line with exactly the chunks of live documents.

``sync`` works by set difference, so it is both the incremental path (only new chunks are embedded,
chunks of changed or deleted files leave both engines) and the crash-repair path (a run killed
mid-write is completed by the next one).
"""

from __future__ import annotations

import hashlib
import json
import time
from typing import Optional

from pipeline.events import track
from pipeline.index.bm25 import Bm25Index
from pipeline.index.boxes import LineIndex, locate, record_parts
from pipeline.index.catalog import current_generation, publish, write_catalog
from pipeline.index.chunking import make_chunks, question_chunk
from pipeline.index.embed import make_embedder
from pipeline.index.links import link_questions
from pipeline.index.merge import merge_questions
from pipeline.index.vector import VectorStore
from pipeline.models import Chunk, CleanDoc, EnrichedDoc, IndexedDoc, ParsedDoc, QuestionSource, StageReport, Status
from pipeline.runner import run_docs
from pipeline.settings import Settings
from pipeline.store import DocEntry, Manifest, Store
from pipeline.testhooks import kill_point
from pipeline.text.tokenize import TOKENIZER_VERSION, terms_hash, tokenize

CODE_VERSION = "index-4"  # 3: chunks carry boxes; 4: past-paper records carry their parts
EMBED_BATCH = 64


def config_extra() -> str:
    """What configures index besides its settings group: the tokenizer version and the domain term
    list (which changes tokens)."""
    return TOKENIZER_VERSION + terms_hash()


def make_embedder_from_settings(s: Settings):
    g = s.index
    return make_embedder(g.embed_model, g.embed_model_dir, g.embed_query_prefix, g.embed_doc_prefix)


def collection_name(model_id: str) -> str:
    return "chunks_" + hashlib.sha256(model_id.encode()).hexdigest()[:10]


def open_vectors(index_dir, s: Settings, collection: str) -> VectorStore:
    """The vector store of ``index_dir`` (embedded Chroma), or the Chroma server of ``chroma_url``."""
    g = s.index
    return VectorStore.open(None if g.chroma_url else index_dir / "chroma", g.chroma_url, collection,
                            {"M": g.hnsw_m, "ef_search": g.hnsw_ef_search})


def run(store: Store, manifest: Manifest, doc_ids: list[str], settings: Settings, *, force: bool = False,
        quiet: bool = False, abort_on_error: bool = False, embedder=None) -> StageReport:
    """Chunk each changed document, then sync both engines; ``report.counts`` holds the index totals."""

    def work(entry: DocEntry) -> IndexedDoc:
        clean = store.read("clean", entry.doc_id, CleanDoc)
        enriched = store.read("enrich", entry.doc_id, EnrichedDoc)
        chunks = make_chunks(clean, enriched, settings.index.chunk_size, settings.index.chunk_overlap)
        lines = LineIndex.from_parsed(store.read("parse", entry.doc_id, ParsedDoc))
        for c in chunks:
            if not (c.kind == "question" and c.year is not None):  # dated records are placed once merged (collect)
                c.boxes = locate(c.text, lines.on_pages(c.pages))
        return IndexedDoc(doc_id=entry.doc_id, source=clean.source, chunks=chunks,
                          tokens=[tokenize(c.index_text) for c in chunks])

    report = run_docs(store, manifest, "index", doc_ids, work, settings, config_extra=config_extra(),
                      code_version=CODE_VERSION, force=force, quiet=quiet, abort_on_error=abort_on_error)
    report.counts.update(sync(store, manifest, settings, embedder=embedder, quiet=quiet, force=force))
    return report


def live_docs(store: Store, manifest: Manifest) -> list[IndexedDoc]:
    docs = []
    for doc_id in sorted(manifest.documents):
        rec = manifest.documents[doc_id].stages.get("index")
        if rec and rec.status != Status.FAILED and store.stage_path("index", doc_id).exists():
            docs.append(store.read("index", doc_id, IndexedDoc))
    return docs


def collect(store: Store, manifest: Manifest) -> tuple[list[Chunk], list[Optional[list[str]]]]:
    """The chunks the live documents give, in a stable order, with their BM25 tokens (None where a
    chunk must be tokenized first). Dated past-paper questions are merged across documents (paper
    stem + booklet answer and analysis → one record, ``pipeline.index.merge``), and placed on the
    pages of every document they were read from."""
    chunks: list[Chunk] = []
    tokens: list[Optional[list[str]]] = []
    seen: set[str] = set()

    def add(c: Chunk, t: Optional[list[str]]) -> None:
        if c.chunk_id not in seen:
            seen.add(c.chunk_id)
            chunks.append(c)
            tokens.append(t)

    dated = []
    keywords: dict[tuple[str, int, int], list[str]] = {}
    for d in live_docs(store, manifest):
        has_dated = False
        for c, t in zip(d.chunks, d.tokens):
            if c.kind == "question" and c.year is not None:
                has_dated = True
                continue
            add(c, t)
        if has_dated:
            clean = store.read("clean", d.doc_id, CleanDoc)
            enriched = store.read("enrich", d.doc_id, EnrichedDoc)
            for q in clean.questions:
                if q.year is not None:
                    if not q.sources:
                        gave = [p for p, v in (("text", q.text), ("options", q.options), ("answer", q.answer),
                                               ("analysis", q.analysis)) if v]
                        q.sources = [QuestionSource(doc_id=d.doc_id, source=clean.source, pages=q.pages, parts=gave)]
                    dated.append(q)
                    e = enriched.questions.get(f"{q.year}-{q.number}")
                    keywords[(d.doc_id, q.year, q.number)] = e.keywords if e else []
    lines: dict[str, LineIndex] = {}

    def lines_of(doc_id: str) -> LineIndex:  # each paper's parsed lines read once per collect
        if doc_id not in lines:
            path = store.stage_path("parse", doc_id)
            lines[doc_id] = LineIndex.from_parsed(store.read("parse", doc_id, ParsedDoc)) if path.exists() \
                else LineIndex([])
        return lines[doc_id]

    for q in merge_questions(dated):
        main = next((s for s in q.sources if "text" in s.parts), q.sources[0])
        chunk = question_chunk(q, main.doc_id, main.source, keywords.get((main.doc_id, q.year, q.number), []))
        chunk.parts, chunk.boxes = record_parts(q, lines_of)
        add(chunk, None)
    return chunks, tokens


def sync(store: Store, manifest: Manifest, settings: Settings, *, embedder=None, quiet: bool = False,
         force: bool = False) -> dict:
    chunks, tokens = collect(store, manifest)
    seen = {c.chunk_id for c in chunks}
    ids = [c.chunk_id for c in chunks]
    embedder = embedder or make_embedder_from_settings(settings)
    vectors = open_vectors(store.index_dir, settings, collection_name(embedder.model_id))
    existing = vectors.ids()
    stale = existing - seen
    if stale:
        vectors.delete(sorted(stale))
    todo = [c for c in chunks if c.chunk_id not in existing]
    bar = track("embed", len(todo), "chunks", enabled=not quiet)
    for i in range(0, len(todo), EMBED_BATCH):
        batch = todo[i:i + EMBED_BATCH]
        vecs = embedder.embed_documents([c.index_text for c in batch])
        kill_point("embed")
        vectors.upsert([c.chunk_id for c in batch], vecs, [_meta(c) for c in batch])
        kill_point("chroma")
        bar.update(i + len(batch))
    bar.close()
    # The generation is rebuilt when anything it holds changes: the chunk set, the BM25 parameters, the
    # tokens (tokenizer version, term list, and every document's stored tokens, through the index
    # artifacts' hashes: an unchanged chunk set with new tokens must not keep the old vocabulary), and
    # the highlight boxes and record parts (not part of a chunk id), and this code's version.
    doc_tokens = sorted(rec.stages["index"].output_hash for rec in manifest.documents.values()
                        if "index" in rec.stages and rec.stages["index"].status != Status.FAILED)
    boxes = [json.dumps([b.model_dump() for b in c.boxes]) for c in chunks]
    parts = [json.dumps([p.model_dump() for p in c.parts], ensure_ascii=False) for c in chunks if c.parts]
    key = "\n".join(ids + [f"k1={settings.index.bm25_k1} b={settings.index.bm25_b}", TOKENIZER_VERSION, terms_hash(),
                           CODE_VERSION] + doc_tokens + boxes + parts)
    ids_hash = hashlib.sha256(key.encode()).hexdigest()
    current = current_generation(store.index_dir)
    collection = collection_name(embedder.model_id)
    if force or not current or current.get("ids_hash") != ids_hash or current.get("collection") != collection:
        gen = store.index_dir / f"gen-{time.time_ns()}"
        gen.mkdir(parents=True)
        tokens = [t if t is not None else tokenize(c.index_text) for c, t in zip(chunks, tokens)]
        bm25 = Bm25Index.build(ids, tokens, k1=settings.index.bm25_k1, b=settings.index.bm25_b)
        bm25.save(gen / "bm25")
        links = link_questions(chunks, tokens, bm25)
        chunks = [c.model_copy(update={"chapter_paths": links[c.chunk_id]}) if c.chunk_id in links else c
                  for c in chunks]
        write_catalog(gen / "chunks.sqlite", chunks)
        kill_point("publish")
        publish(store.index_dir, gen, {"ids_hash": ids_hash, "count": len(ids), "embed_model": embedder.model_id,
                                       "collection": collection, "dim": embedder.dim}, grace=settings.generation_grace)
    return {"manifest": len(ids), "bm25": len(ids), "vectors": vectors.count(), "embedded": len(todo),
            "deleted": len(stale)}


def _meta(c) -> dict:
    meta = {"doc_id": c.doc_id, "chapter": c.chapter, "kind": c.kind}
    if c.year is not None:
        meta["year"] = c.year
    if c.number is not None:
        meta["number"] = c.number
    return meta
