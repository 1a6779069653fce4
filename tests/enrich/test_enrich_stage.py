"""Enrich stage: extractive backend, LLM backend through the real interface (fake model), the cache,
and endpoint failure falling back to extractive."""

import json
import re

from pipeline.enrich import extractive
from pipeline.enrich.stage import LlmEnricher, _parse_reply, enrich_document, run
from pipeline.enrich.cache import EnrichCache
from pipeline.llm.base import LlmError
from pipeline.llm.fake import FakeLlm
from pipeline.models import CleanDoc, Question, Section
from pipeline.settings import Settings
from pipeline.store import DocEntry, Manifest, StageRecord, Store

SECTIONS = [
    Section(chapter_path=["第七章 查找", "7.2 折半查找"], text="折半查找要求线性表有序且顺序存储。每次与中间元素比较，时间复杂度为O(log2 n)。"),
    Section(chapter_path=["第七章 查找", "7.3 树表的查找"], text="B树是多路平衡查找树，B+树的叶结点包含全部关键字并用指针链接，适合范围查询。"),
    Section(chapter_path=["第八章 排序", "8.1 插入排序"], text="直接插入排序是稳定的排序方法，最好情况时间复杂度为O(n)。"),
]


def _doc():
    return CleanDoc(doc_id="d1", source="raw/书.pdf", kind="textbook", sections=SECTIONS,
                    questions=[Question(year=2024, number=1, qtype="choice", text="折半查找最多比较几次？",
                                        options={"A": "3", "B": "4"})])


def test_extractive_keywords_and_summary():
    e = extractive.enrich_text(SECTIONS[1].text)
    assert {"B树", "B+树"} & set(e.keywords), e.keywords
    assert 3 <= len(e.keywords) <= 8
    assert e.summary.startswith("B树是多路平衡查找树") and e.backend == "extractive"


def test_extractive_document_has_sections_and_question_keywords():
    out = enrich_document(_doc(), "extractive", None)
    assert set(out.sections) == {"第七章 查找 › 7.2 折半查找", "第七章 查找 › 7.3 树表的查找", "第八章 排序 › 8.1 插入排序"}
    assert out.questions["2024-1"].keywords


def _json(*items):
    return json.dumps({"sections": [{"summary": s, "keywords": k} for s, k in items]}, ensure_ascii=False)


def test_reply_parser_reads_items_in_section_order():
    reply = "好的：" + _json(("讲折半查找的条件和复杂度。", ["折半查找", "有序表", "时间复杂度", "折半查找"]),
                        ("讲B树与B+树的结构。", ["B树", "B+树", " "]))
    got = _parse_reply(reply, 2)
    assert got[1] == ("讲折半查找的条件和复杂度。", ["折半查找", "有序表", "时间复杂度"])  # de-duplicated
    assert got[2] == ("讲B树与B+树的结构。", ["B树", "B+树"])


def test_reply_parser_drops_items_that_carry_nothing():
    reply = _json(("7.2 折半查找", ["折半查找", "有序表", "二分"]),  # the heading copied as summary
                  ("讲B树与B+树的结构。", ["B树"]),  # one keyword
                  ("讲插入排序的稳定性。", ["插入排序", "稳定", "这是一个远远超过十二个字的关键词短语"]))
    got = _parse_reply(reply, 3, ["第七章 查找 › 7.2 折半查找", "第七章 查找 › 7.3 树表的查找", "第八章 排序 › 8.1 插入排序"])
    assert set(got) == {3} and got[3][1] == ["插入排序", "稳定"]
    assert _parse_reply("not json at all", 1) == {} and _parse_reply('{"sections": 3}', 1) == {}


def _sections_in(user):
    return len(re.findall(r"【节\d+】", user))


def _reply(system, user):
    n = _sections_in(user)
    return _json(*[(f"第{i}节的摘要，讲了一些内容。", ["关键词甲", "关键词乙", "关键词丙"]) for i in range(1, n + 1)])


def test_llm_backend_one_call_per_chapter_and_cache(tmp_path):
    llm = FakeLlm(_reply)
    cache = EnrichCache(tmp_path / "c.sqlite")
    out = enrich_document(_doc(), "llm", LlmEnricher(llm, cache, 1800))
    assert len(llm.calls) == 2  # two chapters, three sections
    e = out.sections["第七章 查找 › 7.3 树表的查找"]
    assert e.summary == "第2节的摘要，讲了一些内容。" and e.backend == "fake" and e.keywords == ["关键词甲", "关键词乙", "关键词丙"]
    schema = llm.call_kwargs[0]["json_schema"]  # the reply is held to one item per section asked
    assert schema["properties"]["sections"]["minItems"] == schema["properties"]["sections"]["maxItems"] == 2
    # second run: everything from the cache
    enrich_document(_doc(), "llm", LlmEnricher(llm, cache, 1800))
    assert len(llm.calls) == 2
    # one section changed: only its chapter is asked again, with only that section
    changed = _doc()
    changed.sections[2] = Section(chapter_path=["第八章 排序", "8.1 插入排序"], text="折半插入排序减少了比较次数。")
    enrich_document(changed, "llm", LlmEnricher(llm, cache, 1800))
    assert len(llm.calls) == 3 and _sections_in(llm.calls[-1][1]) == 1


def test_endpoint_failure_falls_back_per_chapter(tmp_path):
    def down(system, user):
        raise LlmError("LLM endpoint http://127.0.0.1:9/v1 unreachable: connection refused")

    out = enrich_document(_doc(), "llm", LlmEnricher(FakeLlm(down), EnrichCache(tmp_path / "c.sqlite"), 1800))
    assert out.status.value == "partial"
    assert all(e.backend == "extractive" and "unreachable" in e.error for e in out.sections.values())
    assert any("127.0.0.1:9" in err.message for err in out.errors)


def test_stage_rerun_makes_zero_calls(tmp_path):
    store = Store(tmp_path / "data")
    manifest = Manifest()
    store.write("clean", "d1", _doc())
    manifest.documents["d1"] = DocEntry(doc_id="d1", sources=["raw/书.pdf"], raw_hash="x", stages={
        "clean": StageRecord(input_hash="a", config_hash="b", code_version="c", output_hash=store.artifact_hash("clean", "d1"), status="success")})
    settings = Settings.from_flat(data_dir=tmp_path / "data", enrich_backend="llm")
    llm = FakeLlm(_reply)
    rep = run(store, manifest, ["d1"], settings, quiet=True, llm=llm)
    assert rep.counts["llm_calls"] == 2 and rep.docs[0].status.value == "success"
    rep = run(store, manifest, ["d1"], settings, quiet=True, llm=llm, force=True)
    assert rep.counts["llm_calls"] == 0  # forced redo, but every section answer comes from the cache


def test_long_chapter_is_split_into_bounded_calls(tmp_path):
    llm = FakeLlm(_reply)
    sections = [Section(chapter_path=["第七章 查找", f"7.{i} 小节"], text="折半查找要求有序。" * 80) for i in range(10)]
    doc = CleanDoc(doc_id="d2", source="s", kind="textbook", sections=sections)
    enrich_document(doc, "llm", LlmEnricher(llm, EnrichCache(tmp_path / "c.sqlite"), 1800))
    assert len(llm.calls) == 4  # 10 sections × 540 chars under a 1800-char cap: 3 + 3 + 3 + 1
    assert all(len(user) < 1800 + 400 for _, user in llm.calls)
