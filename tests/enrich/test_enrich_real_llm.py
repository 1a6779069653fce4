"""The enrich stage on the packaged default model (Qwen2.5-Coder-1.5B on xllamacpp), tiny input."""

import pytest

from pipeline.enrich.cache import EnrichCache
from pipeline.enrich.stage import LlmEnricher, enrich_document
from pipeline.llm import make_llm
from pipeline.models import CleanDoc, Section
from pipeline.settings import Settings


@pytest.mark.timeout(900)  # measured 59 s at load 4, once 744 s at load 12 with other models running
def test_packaged_model_summarises_and_extracts_keywords(tmp_path):
    s = Settings()
    llm = make_llm("local", packaged=s.llm.packaged, models_dir=s.models_dir, threads=s.llm.threads, n_ctx=2048)
    doc = CleanDoc(doc_id="d", source="s", kind="textbook", sections=[
        Section(chapter_path=["第七章 查找", "7.2 折半查找"],
                text="折半查找又称二分查找，仅适用于有序的顺序表。每次将给定值与中间元素比较，缩小一半查找区间，时间复杂度为O(log2 n)。"),
    ])
    cache = EnrichCache(tmp_path / "c.sqlite")
    out = enrich_document(doc, "llm", LlmEnricher(llm, cache, 1800))
    e = out.sections["第七章 查找 › 7.2 折半查找"]
    assert cache.calls == 1
    assert e.backend == "local" and e.model == llm.model_id, e
    assert e.summary and 1 <= len(e.keywords) <= 8
    assert any("查找" in k for k in e.keywords), e.keywords
