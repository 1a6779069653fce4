"""One thing's attributes from the material's own table (pipeline/ask/attributes.py): a 特点 question
gets the thing's column of a table, row by row and cited, never the other column's cells."""

import pytest
from answer_helpers import make_hit

from pipeline.ask import attributes
from pipeline.ask import service as service_module
from pipeline.ask.answer import answer, render
from pipeline.ask.retrieve import Retrieval
from pipeline.ask.service import QueryService
from pipeline.llm.fake import FakeLlm
from pipeline.settings import load_settings
from tests.conftest import ingest_notes

# our own text, written as the clean stage writes a table (one row per line, 表头：值；…)
RAM_TABLE = ("随机存储器分静态和动态两种。\n"
             "对比项：存储元件；SRAM（静态RAM）：触发器；DRAM（动态RAM）：电容\n"
             "对比项：读出后要不要刷新；SRAM（静态RAM）：不用；DRAM（动态RAM）：需要\n"
             "对比项：速度；SRAM（静态RAM）：快；DRAM（动态RAM）：慢\n"
             "对比项：集成度；SRAM（静态RAM）：低；DRAM（动态RAM）：高\n")
ROW_TABLE = ("两种指令集对比如下。\n"
             "精简指令集；指令条数：少于一百条；指令长度：固定；控制方式：硬布线\n"
             "复杂指令集；指令条数：多于二百条；指令长度：可变；控制方式：微程序\n")
PATH = ("存储系统", "半导体随机存储器")


def _hit(rank, text, kind="text"):
    return make_hit(rank, text, path=PATH, kind=kind)


@pytest.mark.parametrize("question,thing", [
    ("动态半导体存储器的特点是", "动态半导体存储器"),
    ("DRAM有什么特点？", "DRAM"),
    ("请简述RIP协议的特点", "RIP协议"),
    ("SRAM和DRAM的特点", None),  # two things: a contrast, not one column
    ("DMA方式有什么特点？CPU要参与吗？", None),  # a second question the column would not answer
    ("为什么DRAM要刷新", None),
])
def test_the_asked_thing(question, thing):
    assert attributes.asked_thing(question) == thing


def test_names_take_other_names_and_drop_a_kind_word():
    assert {"dram", "动态半导体存储器"} <= attributes.names_of("动态半导体存储器")
    assert "rip" in attributes.names_of("RIP协议")


def test_a_column_headed_by_the_thing_gives_the_rows_aspect():
    names = attributes.names_of("动态RAM")  # named by the header's parenthesis
    row = "对比项：读出后要不要刷新；SRAM（静态RAM）：不用；DRAM（动态RAM）：需要"
    assert attributes.row_attributes(row, names) == [attributes.Attribute("读出后要不要刷新", "需要")]
    assert attributes.row_attributes(row, attributes.names_of("SRAM")) == [
        attributes.Attribute("读出后要不要刷新", "不用")]
    assert attributes.row_attributes(row, {"磁盘"}) == []


def test_the_things_own_row_gives_every_field():
    rows = attributes.row_attributes("精简指令集；指令条数：少于一百条；指令长度：固定", {"精简指令集"})
    assert rows == [attributes.Attribute("指令条数", "少于一百条"), attributes.Attribute("指令长度", "固定")]


def test_a_long_cell_is_prose_not_a_value():
    row = "对比项：工作原理；DRAM（动态RAM）：" + "电容上的电荷会慢慢泄漏" * 5
    assert attributes.row_attributes(row, {"dram"}) == []


def test_find_reads_the_best_table_of_the_top_passages():
    hits = [_hit(1, "DRAM需要刷新。"), _hit(2, RAM_TABLE)]
    found = attributes.find("DRAM的特点是什么", hits)
    assert found is not None and found.hit.rank == 2
    assert [(a.aspect, a.value) for a in found.rows] == [
        ("存储元件", "电容"), ("读出后要不要刷新", "需要"), ("速度", "慢"), ("集成度", "高")]
    rows = attributes.find("复杂指令集的特点", [_hit(1, ROW_TABLE)]).rows
    assert [a.value for a in rows] == ["多于二百条", "可变", "微程序"]


def test_too_few_rows_or_a_past_paper_passage_is_no_table():
    two_rows = "\n".join(RAM_TABLE.splitlines()[:3])
    assert attributes.find("DRAM的特点", [_hit(1, two_rows)]) is None
    assert attributes.find("DRAM的特点", [_hit(1, RAM_TABLE, kind="question")]) is None
    assert attributes.find("磁盘的特点", [_hit(1, RAM_TABLE)]) is None


def test_the_answer_is_the_column_without_the_model():
    llm = FakeLlm(["不该被调用"])
    r = Retrieval(hits=[_hit(1, RAM_TABLE)], best_bm25=12.0, coverage=0.9, passage_coverage=0.9)
    a = answer("动态半导体存储器的特点是", r, llm)
    assert llm.calls == [] and a.source == "grounded" and not a.refused
    text = render(a)
    assert text.startswith("资料中的表列出动态半导体存储器的特点：")
    assert "读出后要不要刷新：需要 [来源: 存储系统 › 半导体随机存储器|第3页·片段1]" in text
    assert "触发器" not in text and "不用" not in text  # SRAM's cells


NOTES = {"存储.md": "# 存储系统\n\n## SRAM和DRAM的特点\n\n随机存储器分静态和动态两种，特点对比如下。\n\n"
                    "| 对比项 | SRAM（静态RAM） | DRAM（动态RAM） |\n| --- | --- | --- |\n"
                    "| 存储元件 | 触发器 | 电容 |\n| 读出后要不要刷新 | 不用 | 需要 |\n"
                    "| 速度 | 快 | 慢 |\n| 集成度 | 低 | 高 |\n\n"
                    "## 磁表面存储器\n\n磁盘和磁带是磁表面存储器，断电后信息不丢失。\n"}


@pytest.fixture(scope="module")
def table_data(tmp_path_factory):
    return ingest_notes(tmp_path_factory, NOTES)


@pytest.mark.timeout(300)
def test_an_ingested_table_answers_without_loading_the_model(table_data, monkeypatch):
    """From a markdown table through the clean stage's rows to the answer, with the local model configured
    but never built (the answer is decided before the model would speak)."""
    made = []
    monkeypatch.setattr(service_module, "make_llm_from_settings", lambda s: made.append(1) or FakeLlm(["不该"]))
    svc = QueryService(load_settings(data_dir=table_data, llm_backend="local", embed_model="hash"))
    a = svc.ask("SRAM有什么特点？")
    assert made == [] and a.source == "grounded" and a.note == attributes.NOTE
    assert "存储元件：触发器" in a.answer and "读出后要不要刷新：不用" in a.answer and "电容" not in a.answer
