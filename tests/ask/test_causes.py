"""A reason copied from a passage must be given there for the same thing (pipeline/ask/causes.py)."""

from __future__ import annotations

import pytest
from answer_helpers import make_hit

from pipeline.ask.causes import split_cause, transplanted_cause
from pipeline.ask.claims import check, load_rules

pytestmark = pytest.mark.timeout(60)

RULES = load_rules().cause
QUEUE = [
    ("栈和队列 › 循环队列 › 特点",
     "循环队列的特点：1. 顺序存储：循环队列用一维数组存放元素。这样可以简化队列的实现，并且下标取模就能绕回开头，从而不浪费空间。"
     "2. 容量固定：数组大小在初始化时确定。"),
    ("栈和队列 › 循环队列 › 判满",
     "若不留空位，队满时队头指针也等于队尾指针，与队空的条件相同，无法区分。所以约定少用一个存储单元来区分队空和队满。"),
]


def _check(sentence: str, passages=QUEUE):
    return transplanted_cause(sentence, passages, RULES.claim, RULES.said_share, RULES.effect_share)


def test_a_reason_the_passage_gives_for_something_else_is_transplanted():
    reason = _check("循环队列要故意空出一个存储单元不用，因为这样可以简化队列的实现。")
    assert reason is not None and "简化队列的实现" in reason and "空出一个存储单元" in reason


def test_a_reason_given_for_the_same_thing_holds():
    assert _check("循环队列要少用一个存储单元，是为了区分队空和队满。") is None
    assert _check("少用一个存储单元是因为不留空位时队满时队头指针也等于队尾指针。") is None


def test_the_heading_names_what_the_passage_explains():
    """`顺序存储` is the item's heading word: storing in an array is what the reason is given for."""
    assert _check("循环队列采用顺序存储，因为这样可以简化队列的实现。") is None


def test_a_reason_found_nowhere_word_for_word_is_left_to_the_other_checks():
    assert _check("循环队列要故意空出一个存储单元不用，因为这样判断更省事也更快。") is None


def test_a_short_reason_or_effect_is_not_judged():
    assert _check("循环队列要空一个单元，因为简化实现。") is None
    assert _check("这是因为这样可以简化队列的实现。") is None


@pytest.mark.parametrize("sentence,effect,cause", [
    ("循环队列要空出一个单元，因为这样可以区分队空和队满，别无他因。", "循环队列要空出一个单元", "这样可以区分队空和队满"),
    ("因为这样可以区分队空和队满，所以循环队列要空出一个单元。", "循环队列要空出一个单元", "这样可以区分队空和队满"),
    ("空出一个单元是为了区分队空和队满", "空出一个单元", "区分队空和队满"),
    ("由于队满和队空时都是头指针等于尾指针，循环队列要空出一个单元。", "循环队列要空出一个单元", "队满和队空时都是头指针等于尾指针"),
])
def test_split_cause(sentence, effect, cause):
    assert split_cause(sentence, RULES.claim) == (effect, cause)


def test_the_claim_check_fails_a_transplanted_cause():
    hits = [make_hit(i, text, path=tuple(heading.split(" › "))) for i, (heading, text) in enumerate(QUEUE, start=1)]
    bad = check("循环队列要故意空出一个存储单元不用，因为这样可以简化队列的实现。[1]", hits, "循环队列为什么要空出一个存储单元？")
    assert not bad[0].supported and bad[0].reason.startswith("transplanted cause")
    good = check("循环队列少用一个存储单元，是为了区分队空和队满。[2]", hits, "循环队列为什么要空出一个存储单元？")
    assert good[0].supported, good[0].reason


def test_a_short_first_clause_of_the_reason_takes_the_next_one_with_it():
    """`因为下标取模，就能绕回开头`: the reason runs past its first clause (too short to judge alone),
    and the passage gives it for storing in an array, not for the empty slot."""
    reason = _check("循环队列要空出一个单元，因为下标取模，就能绕回开头。")
    assert reason is not None and "下标取模，就能绕回开头" in reason
