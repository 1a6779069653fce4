"""Past-paper records: found by reference or by a strong stem match, answered verbatim."""

import pytest
from answer_helpers import make_hit

from pipeline.ask.records import format_record, parse_record, resolve, stem_match

RECORD = ("2009年 第25题（单项选择题）\n某计算机系统中有8台打印机，由K个进程竞争使用，每个进程最多需要3台打印机。"
          "该系统可能会发生死锁的K的最小值是\nA. 2\nB. 3\nC. 4\nD. 5\n答案：C\n"
          "解析：K=4时，每个进程分得2台后，8台分完，都在等第3台，发生死锁。")
PASSAGE = "死锁产生的必要条件：互斥条件、不剥夺条件、请求并保持条件、循环等待条件。"


def _record_hit(rank=1):
    return make_hit(rank, RECORD, path=("2009年真题", "第25题"), kind="question", year=2009, number=25)


def test_parse_record():
    stem, answer, analysis = parse_record(RECORD)
    assert stem.startswith("某计算机系统中有8台打印机") and "A. 2" not in stem
    assert answer == "C" and analysis.startswith("K=4时")


def test_reference_resolves_to_the_first_hit_record():
    rec, strong = resolve("09年统考第25题，8台打印机K个进程，K最小是多少", [_record_hit()], exact=True)
    assert strong and rec.match == "reference" and (rec.year, rec.number, rec.answer) == (2009, 25, "C")


def test_reference_to_another_question_never_uses_this_record():
    rec, _ = resolve("2009年第26题是什么", [_record_hit()], exact=False)
    assert rec is None


PASTED = "某计算机系统中有8台打印机，由K个进程竞争使用，每个进程最多需要3台打印机。该系统可能会发生死锁的K的最小值是多少？"


@pytest.mark.parametrize("question,strong", [
    (PASTED, True),  # the stem pasted, no reference
    (PASTED + " A.2 B.3 C.4 D.5", True),  # with the options
    ("8台打印机K个进程每个最多要3台，K最小多少会死锁", False),  # a paraphrase: the LLM sees the record
    ("死锁是什么", None),  # a concept question inside the stem's words: not this record
])
def test_stem_match_strength(question, strong):
    rec, is_strong = resolve(question, [_record_hit(), make_hit(2, PASSAGE)], exact=False)
    if strong is None:
        assert rec is None
    else:
        assert rec is not None and is_strong == strong


def test_stem_match_is_two_sided():
    stem, _, _ = parse_record(RECORD)
    q_in_s, s_in_q = stem_match("打印机", stem)
    assert q_in_s == 1.0 and s_in_q < 0.2


def test_format_states_answer_and_analysis_verbatim_with_citation():
    rec, _ = resolve("2009年第25题", [_record_hit()], exact=True)
    text = format_record(rec)
    assert text.splitlines()[0] == "【2009年第25题】"
    assert f"答案：C {rec.citation}" in text
    assert "解析：K=4时，每个进程分得2台后，8台分完，都在等第3台，发生死锁。" in text
