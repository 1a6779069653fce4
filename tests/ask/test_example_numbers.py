"""A calculation answer's number that only another worked example gives (pipeline/ask/numbers.py
``check_example_numbers``, run by the claim check for calculation questions with their own data), and
arithmetic over concrete numbers in the answer to a question that gives none (``check_general_arithmetic``)."""

from __future__ import annotations

import pytest
from answer_helpers import make_hit

from pipeline.ask.claims import check, load_rules
from pipeline.ask.numbers import check_example_numbers, check_general_arithmetic

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


EXERCISE = ("例题 对于滑动窗口协议，若分组序号采用3比特编号，发送窗口大小为5，则接收窗口最大是()。解：B。选择重传协议中"
            "滑动窗口数量为2^3=8，所以接收窗口最大为8-5=3。k位比特编号最大接受窗口为2^(k-1)，即一半。")


@pytest.mark.parametrize("sentence", ["接收窗口为8-5=3。", "序号空间为2^3=8，接收窗口最大为8-5=3。",
                                      "平均查找长度 = (1 + 2 + 3) / 3 = 2。"])
def test_arithmetic_over_concrete_numbers_answers_some_example(sentence):
    assert "a worked example's" in check_general_arithmetic(sentence, RULES)


@pytest.mark.parametrize("sentence", ["最大接收窗口为2^(k-1)。", "1KB=1024B，所以页内偏移有10位。",
                                      "选择重传协议的接收窗口大于1。", "ASL=(n+1)/2。"])
def test_a_formula_a_conversion_or_a_plain_number_is_no_example(sentence):
    assert check_general_arithmetic(sentence, RULES) is None


def test_the_claim_check_applies_it_when_the_question_gives_no_numbers():
    hits = [make_hit(1, EXERCISE)]
    general = check("选择重传协议的接收窗口为8-5=3。[1]", hits, "选择重传协议的接收窗口是多少")
    assert not general[0].supported and "8-5=3" in general[0].reason
    copied = check("所以接收窗口最大为8-5=3。[1]", hits, "选择重传协议的接收窗口最大是多少？")
    assert not copied[0].supported  # the exercise's own words, but not this question's answer
    own = check("接收窗口最大为8-5=3。[1]", hits, "3比特编号、发送窗口为5时，选择重传协议的接收窗口最大是多少？")
    assert own[0].supported, own[0].reason
    spelled = check("接收窗口最大为8-5=3。[1]", hits, "序号用三个比特、发送窗口为五时，接收窗口最大是多少？")
    assert spelled[0].supported, spelled[0].reason
    paper = check("接收窗口为8-5=3。[1]", hits, "2009年408真题里选择重传协议的接收窗口是多少")
    assert not paper[0].supported  # the year names the paper; it is no datum
