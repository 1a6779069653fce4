"""Every citation an answer shows resolves to the document, pages and boxes it opens: a merged record's
booklet citation (no hit cites it), the key sentences', the checked sentences', 参考来源 and 延伸问题'.
Made-up hits first, then the answers the query service gives on the shipped sample."""

import re

import pytest

from pipeline.ask.answer import answer
from pipeline.ask.citations import passage_targets, shown_citations, targets
from pipeline.ask.extras import study_extras
from pipeline.ask.retrieve import Retrieval, to_hit
from pipeline.ask.service import QueryService, answer_json
from pipeline.index.catalog import Catalog, write_catalog
from pipeline.llm.fake import FakeLlm
from pipeline.models import Box, Chunk, Part
from pipeline.settings import load_settings

PAPER, BOOKLET = "paper0001", "booklet01"
STEM_CITE = "[来源: 2009年真题 › 一、单项选择题 › 第25题|第4页·题目]"
SOLUTION_CITE = "[来源: 2009年答案 › 第25题|第7-8页·答案与解析]"
RECORD = ("2009年 第25题（单项选择题）\n某计算机系统中有8台打印机，由K个进程竞争使用，每个进程最多需要3台打印机。"
          "该系统可能会发生死锁的K的最小值是\nA. 2\nB. 3\nC. 4\nD. 5\n答案：C\n解析：K=4时，每个进程分得2台后都在等第3台，发生死锁。")
SORT = "快速排序是一种不稳定的排序方法，平均时间复杂度为O(nlog2n)。归并排序是稳定的。"


def _box(doc, page, y=100.0):
    return Box(doc_id=doc, page=page, x0=50, y0=y, x1=400, y1=y + 20)


def _record_chunk() -> Chunk:
    """A record merged from a paper (stem, page 4) and its booklet (solution, pages 7-8)."""
    parts = [Part(role="stem", doc_id=PAPER, source="真题.pdf", pages=[4], citation=STEM_CITE),
             Part(role="solution", doc_id=BOOKLET, source="答案.pdf", pages=[7, 8], citation=SOLUTION_CITE)]
    return Chunk(chunk_id="q25", doc_id=PAPER, source="真题.pdf", kind="question", chapter_path=["2009年真题", "第25题"],
                 chunk_position=1, pages=[4], text=RECORD, year=2009, number=25, parts=parts,
                 sources=["真题.pdf", "答案.pdf"], boxes=[_box(PAPER, 4), _box(BOOKLET, 7), _box(BOOKLET, 8, 60)])


def _text_chunk(cid="c83", text=SORT, pages=(12,)) -> Chunk:
    return Chunk(chunk_id=cid, doc_id="book", source="讲义.pdf", kind="textbook", chapter_path=["第八章 排序", "8.3 快速排序"],
                 chunk_position=1, pages=list(pages), text=text, boxes=[_box("book", pages[0])])


def test_a_merged_record_resolves_its_booklet_citation_to_the_booklet_pages():
    a = answer("2009年第25题", Retrieval(hits=[to_hit(_record_chunk(), 1, 1.0)], best_bm25=3.0, coverage=0.2,
                                          exact_question=True), None)
    assert a.source == "record" and a.record.citation == SOLUTION_CITE and SOLUTION_CITE in a.answer
    got = targets(a)
    assert set(shown_citations(a)) <= set(got)
    solution, stem = got[SOLUTION_CITE], got[STEM_CITE]
    assert (solution.doc_id, solution.source, solution.pages, solution.role) == (BOOKLET, "答案.pdf", [7, 8], "solution")
    assert [(b.doc_id, b.page) for b in solution.boxes] == [(BOOKLET, 7), (BOOKLET, 8)]
    assert (stem.doc_id, stem.pages, [b.page for b in stem.boxes]) == (PAPER, [4], [4])
    assert solution.chunk_id == stem.chunk_id == "q25"


def test_a_plain_passage_opens_on_its_own_document_and_boxes():
    got = passage_targets(to_hit(_text_chunk(), 1, 1.0))
    (text, t), = got.items()
    assert text == _text_chunk().citation() and (t.doc_id, t.pages, t.role, len(t.boxes)) == ("book", [12], None, 1)


def test_further_questions_outside_the_hits_are_read_from_the_catalog(tmp_path):
    record = _record_chunk().model_copy(update={"chapter_paths": [["第八章 排序", "8.3 快速排序"]]})
    chunks = [_text_chunk(), record]
    write_catalog(tmp_path / "c.sqlite", chunks)
    catalog = Catalog(tmp_path / "c.sqlite")
    hits = [to_hit(chunks[0], 1, 9.0)]
    a = answer("快速排序稳定吗", Retrieval(hits=hits, best_bm25=12.0, coverage=0.9, passage_coverage=0.9), None)
    a.extras = study_extras(hits, catalog)
    assert [q.chunk_id for q in a.extras.questions] == ["q25"]  # not among the hits
    assert STEM_CITE in shown_citations(a) and STEM_CITE not in targets(a)  # without the catalog: unresolved
    got = targets(a, catalog.by_ids)
    assert set(shown_citations(a)) <= set(got) and got[STEM_CITE].doc_id == PAPER


# ---------------------------------------------------------------------------- the service on the sample
def _copy_first_sentence(system: str, user: str) -> str:
    """A model that copies the first sentence of passage [1] and cites it (the claim check keeps it)."""
    m = re.search(r"^\[1\][^\n]*?([^。；\n]{8,}[。；])", user, re.MULTILINE)
    return f"{m.group(1)}[1]" if m else "在现有资料中没有找到相关内容"


@pytest.fixture(scope="module")
def services(sample_data):
    settings = load_settings(data_dir=sample_data, llm_backend="none")
    return QueryService(settings), QueryService(settings, llm=FakeLlm(_copy_first_sentence))


def _assert_all_resolve(a, service):
    shown = shown_citations(a)
    assert shown, a.answer
    out = answer_json(a)["citations"]
    missing = [c for c in shown if c not in out]
    assert not missing, (missing, sorted(out))
    docs = {d["doc_id"] for d in service.status()["documents"]}
    for c in shown:
        t = out[c]
        assert t["doc_id"] in docs and t["pages"], (c, t)
        assert all(b["doc_id"] == t["doc_id"] and b["page"] in t["pages"] for b in t["boxes"]), (c, t)
    return out


def test_a_record_answer_on_the_sample_resolves_its_booklet_citation(services):
    plain, _ = services
    a = plain.ask("2024年第41题", extras=True)
    assert a.source == "record"
    out = _assert_all_resolve(a, plain)
    booklet = out[a.record.citation]
    assert booklet["role"] == "solution" and booklet["source"].endswith("参考答案.pdf") and booklet["boxes"]
    assert booklet["doc_id"] not in {h.doc_id for h in a.hits}  # what no hit chip could open


def test_a_grounded_core_on_the_sample_resolves(services):
    plain, _ = services
    a = plain.ask("二叉排序树的查找效率取决于什么？", use_llm=True, extras=True)  # backend none: the grounded core
    assert a.core_shown and a.key_sentences and a.source == "none"
    _assert_all_resolve(a, plain)


def test_a_generated_answer_on_the_sample_resolves(services):
    _, generating = services
    a = generating.ask("二叉排序树的查找效率取决于什么？", extras=True)
    assert a.source == "llm" and a.claims and all(c.citation for c in a.claims if c.supported and c.reason != "no claim")
    out = _assert_all_resolve(a, generating)
    assert all(c.citation in out for c in a.claims if c.citation)
