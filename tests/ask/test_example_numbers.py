"""A calculation answer's number that only another worked example gives (pipeline/ask/numbers.py
``check_example_numbers``, run by the claim check for calculation questions with their own data)."""

from __future__ import annotations

import pytest
from answer_helpers import make_hit

from pipeline.ask.claims import check, load_rules
from pipeline.ask.numbers import check_example_numbers

pytestmark = pytest.mark.timeout(60)

RULES = load_rules().numbers
OTHER = "例题：块大小1KB，地址项4B，10个直接地址项和1个一级间接，单个文件最大长度为266KB。"
SAME = "DRAM要在2ms内刷新128行，平均每隔15.6μs刷新一行。"


def test_a_result_only_another_example_gives_fails():
    data = ["2", "4", "6"]  # 块大小2KB，地址项4B，6个直接地址项
    assert "another example" in check_example_numbers("单个文件最大长度为266KB。", [OTHER], data, RULES)


def test_a_result_from_a_worked_example_of_the_same_data_holds():
    assert check_example_numbers("平均每隔15.6μs刷新一行。", [SAME], ["2", "128"], RULES) is None


def test_a_result_computed_in_the_sentence_from_the_data_holds():
    assert check_example_numbers("平均刷新间隔 = 2 ÷ 128 = 0.015625ms。", [OTHER], ["2", "128"], RULES) is None


def test_an_operand_from_another_example_fails():
    """`= 132×4 = 528`: 528 is computed, but 132 is no datum of the question (it gave 66MHz)."""
    reason = check_example_numbers("总线带宽 = 132×4 = 528MB/s。", ["总线频率132MHz，宽度4B，带宽528MB/s。"],
                                   ["66", "4", "2"], RULES)
    assert reason is not None and "132" in reason


def test_an_example_must_hold_the_identifying_numbers():
    """512 and 12 identify the question; a passage with 4 and 1 (in any passage) is no example of it."""
    other = "块大小1KB，每个地址项4B，1个一级间接，最大长度为64KB。"
    assert check_example_numbers("最大长度为64KB。", [other], ["512", "4", "12"], RULES) is not None
    same = "盘块512B，地址项4B，12个直接地址，最大长度为8454KB。"
    assert check_example_numbers("最大长度为8454KB。", [same], ["512", "4", "12"], RULES) is None


def test_the_paper_a_question_names_is_no_datum():
    """`2009年408…第几题`: 2009 and 408 name the paper; with no other data the rule does not apply."""
    assert check_example_numbers("综合应用题是第41题到第47题，一共70分。", ["二、综合应用题 41～47小题，共70分"],
                                 ["2009", "408"], RULES) is None


def test_the_claim_check_applies_it_to_calculation_questions_only():
    hits = [make_hit(1, OTHER)]
    calc = check("这个文件最大能有266KB。[1]", hits, "块大小2KB，地址项8B，6个直接地址项和3个一级间接，单个文件最大长度是多少？")
    assert not calc[0].supported and "another example" in calc[0].reason
    concept = check("这个文件最大能有266KB。[1]", hits, "例题里的单个文件最大长度是多少")
    assert concept[0].supported, concept[0].reason


def test_a_worked_example_copied_word_for_word_into_another_calculation_fails():
    """The model copied a note's example, `总线带宽=…=132×4MB/s=528MB/s`, for a bus of 16 bits at 200MHz."""
    hits = [make_hit(1, "例：总线工作频率为132MHz，宽度4B，总线带宽=总线工作频率×总线宽度=132×4MB/s=528MB/s。")]
    claims = check("总线带宽=总线工作频率×总线宽度=132×4MB/s=528MB/s。[1]", hits,
                   "16位数据总线，时钟频率200MHz，一个总线周期占5个时钟周期，求总线带宽。")
    assert not claims[0].supported and "another example" in claims[0].reason
    same = check("总线带宽=总线工作频率×总线宽度=132×4MB/s=528MB/s。[1]", hits,
                 "总线工作频率为132MHz，宽度4B，求总线带宽。")
    assert same[0].supported
