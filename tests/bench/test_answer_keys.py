"""Scoring a shown answer on an objective key (bench/lib/answer_keys.py): right, reversed, refused, wrong,
on made-up answers, with the normalisation a key relies on."""

from __future__ import annotations

import pytest

from bench.lib.answer_keys import contains, score, squash
from pipeline.ask.prompts import REFUSAL

pytestmark = pytest.mark.timeout(30)

TCP_UDP = {"all": [["面向连接"], ["无连接"]], "wrong": ["UDP是面向连接", "TCP是无连接"]}
CACHE = {"all": [["18位"], ["8位"], ["6位"]], "wrong": ["14位"]}


def test_right_when_every_group_has_an_alternative():
    s = score("TCP提供面向连接的可靠服务，UDP是无连接的。", TCP_UDP)
    assert s.verdict == "right"
    assert s.matched == ["面向连接", "无连接"]


def test_reversed_when_a_wrong_string_is_there_even_with_every_key_term():
    s = score("UDP是面向连接的，TCP是无连接的。", TCP_UDP)
    assert s.verdict == "reversed"
    assert s.wrong_found == ["UDP是面向连接", "TCP是无连接"]


def test_a_negated_statement_is_not_the_reversed_one():
    assert score("UDP不是面向连接的，它是无连接的；TCP面向连接。", TCP_UDP).verdict == "right"


@pytest.mark.parametrize("text", ["", "   \n", REFUSAL, REFUSAL + "。", f"解答：{REFUSAL}"])
def test_refused_when_empty_or_the_refusal(text):
    assert score(text, TCP_UDP).verdict == "refused"


def test_wrong_when_a_group_is_missing():
    s = score("TCP是面向连接的传输层协议。", TCP_UDP)
    assert s.verdict == "wrong"
    assert s.matched == ["面向连接", None]


def test_full_width_markdown_and_line_breaks_do_not_matter():
    assert score("ＴＣＰ：**面向\n连接**；ＵＤＰ：`无 连接`", TCP_UDP).verdict == "right"
    assert squash("１８位 **标记**") == "18位标记"


def test_a_number_matches_only_whole():
    assert score("标记18位、行号8位、块内6位", CACHE).verdict == "right"
    assert score("标记18位，块内地址16位", CACHE).matched == ["18位", None, None]  # "8位" and "6位" sit inside
    assert not contains("平均查找长度约为2.95", "2.9")
    assert not contains("共128ns", "28ns")
    assert contains("约为2.9。", "2.9")


def test_citations_and_list_numbers_are_not_part_of_the_answer():
    key = {"all": [["72"]], "wrong": []}
    assert score("原文要点：\n72. 哈夫曼树的带权路径长度最小 [来源: 数据结构|第72页·片段3]", key).verdict == "wrong"
    assert score("WPL = 72 [来源: 数据结构|第3页·片段1]", key).verdict == "right"


def test_a_wrong_number_marks_the_answer_reversed():
    key = {"all": [["130ns"]], "wrong": ["128ns"]}
    assert score("平均访问时间为128ns", key).verdict == "reversed"
    assert score("平均为 130 ns", key).verdict == "right"
