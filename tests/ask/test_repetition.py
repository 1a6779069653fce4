"""Runaway output (pipeline/ask/repetition.py): loops are caught at once, real steps are not."""

import time

import pytest

from pipeline.ask.repetition import RepetitionGuard, RepetitionRules, looping_tail

ASL = "平均查找长度 = (1 + 2 + 3 + 4 + 5 + 6) / 6 = 3.5"


def feed(sentences, rules=None):
    guard = RepetitionGuard(rules)
    return guard, [guard.sentence(s) for s in sentences]


def test_the_same_sentence_twice_is_a_loop():
    guard, verdicts = feed([ASL, "所以答案是3.5。", ASL + "。"])
    assert verdicts[:2] == [None, None] and verdicts[2] and guard.reason == verdicts[2]


def test_a_leading_connective_does_not_hide_a_repeat():
    said = "奇偶校验码能查出50%错。"
    _, verdicts = feed([said, "根据奇偶校验码的原理，一个数据中1的个数决定校验位。", "因此，" + said])
    assert verdicts[:2] == [None, None] and verdicts[2] and "2 times" in verdicts[2]
    _, verdicts = feed(["所以综上所述，" + said, said])
    assert verdicts[1]


def test_a_connective_before_a_new_statement_is_no_repeat():
    _, verdicts = feed(["栈是后进先出的线性表。", "因此，栈适合实现函数调用。", "即栈顶元素最先出栈。"])
    assert verdicts == [None, None, None]


def test_citations_and_spacing_do_not_hide_a_repeat():
    _, verdicts = feed([ASL, ASL.replace(" ", "") + " [来源: 第七章 查找 › 7.2|第3页·片段1]"])
    assert verdicts[1]


def test_a_short_sentence_may_recur_until_the_third_time():
    _, verdicts = feed(["缺页。", "命中。", "缺页。", "缺页。"])
    assert verdicts == [None, None, None, verdicts[3]] and verdicts[3]


def test_the_same_step_with_other_numbers_eight_times_in_a_row():
    steps = [f"第{i}次访问页面{i}，没有缺页。" for i in range(1, 10)]
    _, verdicts = feed(steps)
    assert verdicts[:7] == [None] * 7 and verdicts[7] and "in a row" in verdicts[7]


def test_seven_faults_in_a_row_of_a_real_simulation_are_no_loop():
    steps = [f"第{i}次访问页面{p}，缺页。" for i, p in enumerate([1, 2, 3, 4, 1, 2, 5], start=1)]
    _, verdicts = feed(steps + ["第8次访问页面1，命中。"])
    assert verdicts == [None] * 8


def test_a_real_simulation_that_varies_is_no_loop():
    pages = [7, 0, 1, 2, 0, 3, 0, 4]
    steps = [f"第{i}次访问页面{p}，{'缺页' if i % 3 else '命中'}。" for i, p in enumerate(pages, start=1)]
    _, verdicts = feed(steps)
    assert verdicts == [None] * len(steps)


def test_a_stretch_said_three_times_in_one_sentence():
    _, verdicts = feed([(ASL + " ") * 3])
    assert verdicts[0] and "one sentence" in verdicts[0]


@pytest.mark.parametrize("text", [
    "01000001001000000000000000000000",  # an IEEE 754 bit pattern: a run of zeros is no loop
    "0101010101010101010101010101010101010101",
    "1111111111111111111111111111111111111111111",
    "TLB命中则直接得到物理地址，否则访问内存中的页表，再访问内存取数据",
])
def test_bit_patterns_and_plain_text_are_no_loop(text):
    guard = RepetitionGuard()
    assert guard.sentence(text) is None and guard.partial(text) is None


def test_an_unfinished_loop_is_seen_before_any_sentence_ends():
    guard = RepetitionGuard()
    stream = ""
    caught_at = None
    for i, ch in enumerate((ASL + " ") * 4):
        stream += ch
        if guard.partial(stream):
            caught_at = i
            break
    assert caught_at is not None and caught_at < len(ASL) * 3 + 10  # within the third copy's end


def test_thresholds_come_from_the_rules():
    _, verdicts = feed([f"第{i}步：{i}+1" for i in range(1, 4)], RepetitionRules(template_run=3, min_chars=4))
    assert verdicts[2]


def test_watching_every_token_is_cheap():
    guard = RepetitionGuard()
    text = "".join(f"第{i}步，把第{i}个元素和第{i + 1}个元素比较，较小的放在前面。" for i in range(40))
    t = time.perf_counter()
    for end in range(1, len(text) + 1):
        guard.partial(text[:end])
    per_call = (time.perf_counter() - t) / len(text)
    assert per_call < 0.005  # the figure is in bench/BENCHMARKS.md
    assert looping_tail(text, 12, 3) is None


def test_a_sentence_opening_with_a_material_label_is_an_echo():
    """The model copying its prompt's next block ("[2] 2021年 第38题…") has stopped answering."""
    guard = RepetitionGuard()
    assert guard.sentence("TIME_WAIT要等2MSL后释放连接。[1]") is None
    assert "echoes the material" in guard.sentence("\n[2] 2021年 第38题（单项选择题）\n")
    assert guard.reason.startswith("echoes")


@pytest.mark.parametrize("text", ["[1]", " [1][2]", "TCP首部20字节[1]。", "[来源: 传输层|片段1] 见上。"])
def test_a_citation_alone_or_at_the_end_is_no_echo(text):
    assert RepetitionGuard().sentence(text) is None
