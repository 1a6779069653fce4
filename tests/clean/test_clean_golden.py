"""Golden files: ``data/<case>.input.json`` (ParsedDoc) → ``<case>.expected.json`` (CleanDoc) and
``<case>.expected.md`` (render_markdown). Regenerate with ``EXAMRAG_GEN_TEST_DATA=1``, review the
diff, then run again without it (``test_gen_test_data_flag_is_off`` fails while it is set)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from pipeline.clean.core import clean_document, render_markdown
from pipeline.models import CleanDoc, ParsedDoc

DATA = Path(__file__).parent / "data"
GENERATE = os.environ.get("EXAMRAG_GEN_TEST_DATA", "").lower() in ("1", "true", "yes")
CASES = sorted(p.name[: -len(".input.json")] for p in DATA.glob("*.input.json"))


def verify(actual: str, path: Path) -> None:
    if GENERATE:
        path.write_text(actual, encoding="utf-8")
    assert path.exists(), f"missing {path.name}: run with EXAMRAG_GEN_TEST_DATA=1"
    assert actual == path.read_text(encoding="utf-8")


def test_gen_test_data_flag_is_off():
    assert not GENERATE, "EXAMRAG_GEN_TEST_DATA is set: golden files were rewritten, review and unset it"


def test_cases_present():
    assert {"textbook_header_footer", "paper_2019", "note_markdown", "paper_with_answers"} <= set(CASES)


@pytest.mark.parametrize("case", CASES)
def test_golden(case, rules):
    parsed = ParsedDoc.model_validate_json((DATA / f"{case}.input.json").read_text(encoding="utf-8"))
    doc = clean_document(parsed, rules)
    verify(json.dumps(doc.model_dump(mode="json"), ensure_ascii=False, indent=1) + "\n", DATA / f"{case}.expected.json")
    verify(render_markdown(doc), DATA / f"{case}.expected.md")
    assert CleanDoc.model_validate_json((DATA / f"{case}.expected.json").read_text(encoding="utf-8")) == doc


def test_textbook_case_facts(rules):
    doc = clean(rules, "textbook_header_footer")
    text = "\n".join(s.text for s in doc.sections)
    for noise in ("数据结构复习讲义", "第 1 页", "淘宝店铺", "考研党之家", "王道论坛"):
        assert noise not in text
    assert "其中n为表长" in text and "操作：插入；最好情况：O(1)；最坏情况：O(n)；平均情况：O(n)" in text
    assert doc.sections[1].tables[0].caption == "表1-1 顺序表基本操作的时间复杂度"
    assert doc.removed == {"pattern_lines": 2, "repeated_bands": 8}


def test_paper_case_facts(rules):
    doc = clean(rules, "paper_2019")
    assert doc.kind == "paper"
    assert [(q.number, q.qtype, q.answer is not None) for q in doc.questions] == [
        (1, "choice", True), (2, "choice", True), (3, "choice", False), (41, "comprehensive", True)]
    assert all(q.year == 2019 for q in doc.questions)
    assert doc.questions[2].options == {"A": "9", "B": "10", "C": "11", "D": "12"}
    assert "（1）" in doc.questions[3].text and "（2）" in doc.questions[3].text
    assert doc.sections[0].text.startswith("考生注意事项")


def test_note_case_facts(rules):
    doc = clean(rules, "note_markdown")
    text = "\n".join(s.text for s in doc.sections)
    assert "O(log2 n)" in text and "O(nlog n)" in text and "⌈log2(n+1)⌉" in text
    assert "算法：快速排序；平均：O(nlog n)；最坏：O(n^2)；稳定性：不稳定" in text
    assert "$O(\\log_2 n)$" in doc.sections[1].formulas
    assert "目录" not in [s.chapter_path[-1] for s in doc.sections] and "公众号" not in text


def test_paper_with_answers_case_facts(rules):
    """A paper, its key and comprehensive answer, then the same year's title with the explanations."""
    doc = clean(rules, "paper_with_answers")
    assert [(q.year, q.number, q.answer) for q in doc.questions] == [(2020, 1, "B"), (2020, 2, "B"),
                                                                     (2020, 41, "（1）头插法逐个摘下结点插入头结点之后。\n（2）O(n)。")]
    assert doc.questions[1].analysis.startswith("考查哈夫曼树。") and doc.questions[1].options["B"] == "19"
    assert doc.questions[0].pages == [1, 3] and doc.questions[0].sources[0].parts == ["text", "options", "answer",
                                                                                      "analysis"]
    text = render_markdown(doc)
    for noise in ("研芝士", "淘宝店铺", "考研党之家", "第 1 页"):
        assert noise not in text
    assert doc.removed == {"pattern_lines": 1, "repeated_bands": 3, "sections": 2, "watermark": 1}


def clean(rules, case: str) -> CleanDoc:
    parsed = ParsedDoc.model_validate_json((DATA / f"{case}.input.json").read_text(encoding="utf-8"))
    return clean_document(parsed, rules)
