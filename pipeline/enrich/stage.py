"""Enrich stage entry point: CleanDoc → EnrichedDoc.

Backends: ``extractive`` (jieba, no LLM), ``llm`` (the configured LLM, one call per chapter with all
its sections, cached; any failure falls back to extractive for that chapter and is recorded), ``none``.
"""

from __future__ import annotations

import json
import re
from typing import Optional

from pipeline.enrich import extractive, prompts
from pipeline.enrich.cache import EnrichCache
from pipeline.errors import one_line
from pipeline.llm.from_settings import make_llm_from_settings
from pipeline.models import PATH_SEP, CleanDoc, EnrichedDoc, Enrichment, ErrorItem, Section, StageReport, Status
from pipeline.runner import run_docs
from pipeline.settings import Settings
from pipeline.store import DocEntry, Manifest, Store
from pipeline.text.tokenize import terms_hash

CODE_VERSION = "enrich-1"
SECTION_MAX_CHARS = 500  # each section's text is cut to this in an LLM prompt
REPLY_TOKENS_PER_SECTION = 100  # JSON summary + keywords measured at 45-70 tokens (1.5B)
MAX_SECTIONS_PER_CALL = 4  # a reply of ~60 tokens per section; 8 ran past max_tokens


def config_extra() -> str:
    """What configures enrich besides its settings group (and the LLM's, when it is used): the prompt
    version and the term list."""
    return prompts.PROMPT_VERSION + terms_hash()


def _chapters(sections: list[Section]) -> list[list[Section]]:
    groups: dict[str, list[Section]] = {}
    for s in sections:
        groups.setdefault(PATH_SEP.join(s.chapter_path[:1]), []).append(s)
    return list(groups.values())


def _parse_reply(reply: str, n: int, paths: Optional[list[str]] = None) -> dict[int, tuple[str, list[str]]]:
    """Section number (1-based) → (summary, keywords) from a JSON reply ``{"sections": [...]}``.

    Items that carry nothing are dropped (the section then falls back to extractive): an empty or
    heading-only summary (small models copy the heading), fewer than 2 usable keywords."""
    start, end = reply.find("{"), reply.rfind("}")
    try:
        items = json.loads(reply[start:end + 1])["sections"] if start != -1 else []
    except (ValueError, KeyError, TypeError):
        return {}
    out: dict[int, tuple[str, list[str]]] = {}
    for i, item in enumerate(items[:n] if isinstance(items, list) else [], start=1):
        if not isinstance(item, dict):
            continue
        summary = " ".join(str(item.get("summary") or "").split())[: prompts.SUMMARY_MAX_CHARS]
        raw = item.get("keywords") if isinstance(item.get("keywords"), list) else []
        kws = list(dict.fromkeys(k for k in (str(x).strip(" 。.，,") for x in raw)
                                 if 1 < len(k) <= prompts.KEYWORD_MAX_CHARS))[:8]
        path = paths[i - 1] if paths and i <= len(paths) else ""
        heading_only = bool(path) and re.sub(r"[\s›：:]", "", summary) in re.sub(r"[\s›]", "", path)
        if len(summary) >= 6 and not heading_only and len(kws) >= 2:
            out[i] = (summary, kws)
    return out


class LlmEnricher:
    """Chapter-level prompts so a 500-page corpus costs one call per chapter, not per section."""

    def __init__(self, llm, cache: EnrichCache, max_chars: int):
        self.llm, self.cache, self.max_chars = llm, cache, max_chars

    def chapter(self, sections: list[Section]) -> list[Enrichment]:
        keys = [EnrichCache.key(PATH_SEP.join(s.chapter_path) + "\n" + s.text, prompts.PROMPT_VERSION,
                                self.llm.model_id) for s in sections]
        results: list[Optional[Enrichment]] = [self.cache.get(k) for k in keys]
        todo = [i for i, c in enumerate(results) if c is None]
        for batch in self._batches(sections, todo):
            self._ask(sections, keys, batch, results)
        return results  # type: ignore[return-value]

    def _batches(self, sections: list[Section], todo: list[int]) -> list[list[int]]:
        """Consecutive sections packed so one prompt stays under ``max_chars`` (each section is cut
        to ``SECTION_MAX_CHARS``): a chapter costs a few calls, never one per section."""
        batches: list[list[int]] = []
        size = 0
        for i in todo:
            n = min(len(sections[i].text), SECTION_MAX_CHARS) + 40
            if batches and size + n <= self.max_chars and len(batches[-1]) < MAX_SECTIONS_PER_CALL:
                batches[-1].append(i)
                size += n
            else:
                batches.append([i])
                size = n
        return batches

    def _ask(self, sections, keys, batch: list[int], results) -> None:
        body = "\n\n".join(f"【节{j + 1}】{PATH_SEP.join(sections[i].chapter_path)}\n{sections[i].text[:SECTION_MAX_CHARS]}"
                           for j, i in enumerate(batch))
        self.cache.calls += 1
        reply = self.llm.complete(prompts.SYSTEM, prompts.SECTIONS_TEMPLATE.format(sections=body, n=len(batch)),
                                  max_tokens=REPLY_TOKENS_PER_SECTION * len(batch) + 40,
                                  json_schema=prompts.sections_schema(len(batch)))
        parsed = _parse_reply(reply, len(batch), [PATH_SEP.join(sections[i].chapter_path) for i in batch])
        for j, i in enumerate(batch):
            if j + 1 in parsed:
                summ, kws = parsed[j + 1]
                e = Enrichment(summary=summ, keywords=kws, backend=self.llm.backend, model=self.llm.model_id)
                self.cache.put(keys[i], e)
            else:
                e = extractive.enrich_text(sections[i].text)
                e.error = "LLM reply had no usable item for this section; extractive fallback"
            results[i] = e


def enrich_document(doc: CleanDoc, backend: str, enricher: Optional[LlmEnricher]) -> EnrichedDoc:
    out = EnrichedDoc(doc_id=doc.doc_id, source=doc.source, kind=doc.kind)
    if backend == "none":
        return out
    for group in _chapters([s for s in doc.sections if s.text.strip()]):
        results: list[Enrichment]
        if enricher is not None:
            try:
                results = enricher.chapter(group)
            except Exception as exc:  # endpoint down, timeout, malformed: record and fall back
                msg = one_line(exc)
                results = []
                for s in group:
                    e = extractive.enrich_text(s.text)
                    e.error = msg
                    results.append(e)
                out.errors.append(ErrorItem(file=doc.source, stage="enrich",
                                            message=f"{PATH_SEP.join(group[0].chapter_path[:1])}: {msg}; used extractive fallback"))
        else:
            results = [extractive.enrich_text(s.text) for s in group]
        for s, e in zip(group, results):
            out.sections[PATH_SEP.join(s.chapter_path)] = e
    for q in doc.questions:
        text = q.text + " " + " ".join(q.options.values())
        e = extractive.enrich_text(text)
        e.summary = ""
        out.questions[f"{q.year}-{q.number}"] = e
    if out.errors:
        out.status = Status.PARTIAL
    return out


def run(store: Store, manifest: Manifest, doc_ids: list[str], settings: Settings, *, force: bool = False,
        quiet: bool = False, abort_on_error: bool = False, llm=None) -> StageReport:
    """Enrich each changed document; ``report.counts["llm_calls"]`` is the number of LLM calls made."""
    backend = settings.enrich.backend
    cache = EnrichCache(store.root / "enrich_cache.sqlite")
    enricher = None
    setup_error: Optional[str] = None
    if backend == "llm":
        if llm is None:
            try:
                llm = make_llm_from_settings(settings)
            except Exception as exc:
                setup_error = one_line(exc)
        if llm is not None:
            enricher = LlmEnricher(llm, cache, settings.enrich.max_input_chars)

    def work(entry: DocEntry) -> EnrichedDoc:
        doc = store.read("clean", entry.doc_id, CleanDoc)
        result = enrich_document(doc, backend, enricher)
        if setup_error:
            result.errors.append(ErrorItem(file=doc.source, stage="enrich", message=f"{setup_error}; used extractive fallback"))
            result.status = Status.PARTIAL
        return result

    try:
        report = run_docs(store, manifest, "enrich", doc_ids, work, settings, config_extra=config_extra(),
                          code_version=CODE_VERSION, force=force, quiet=quiet, abort_on_error=abort_on_error)
    finally:
        cache.close()
    report.counts["llm_calls"] = cache.calls
    return report
