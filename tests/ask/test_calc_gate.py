"""A calculation a rule computes from the question's own data passes the weak-retrieval refusal gate
(issue 23): answered by its program, no model call, the method cited only from a passage about the
question (else named the standard one, nothing cited); every other question weak retrieval finds is
still refused, off-topic ones with numbers included. Our own wording, made-up passages."""

from __future__ import annotations

import pytest
from answer_helpers import make_hit

from pipeline.ask import calculate
from pipeline.ask.answer import REFUSAL, AnswerConfig, answer, render
from pipeline.ask.retrieve import Retrieval
from pipeline.llm.fake import FakeLlm

pytestmark = pytest.mark.timeout(60)

DISK = "一块硬盘转速6000转/分，平均寻道时间5ms，每个磁道200个扇区，随机读一个扇区平均要多久？"  # 5 + 5 + 0.05
HASH = "散列表长7，H(key)=key%7，线性探测，依次插入8、15、22，求查找成功的平均查找长度。"  # 1, 2, 3: 6/3 = 2
UNRELATED = make_hit(1, "进程是资源分配的基本单位，线程是调度的基本单位。", path=("第二章 进程管理", "2.1 进程"))


def _weak(*hits):
    """Retrieval the gate refuses: little of the question matched, a weak best BM25 score."""
    return Retrieval(hits=list(hits), best_bm25=2.0, coverage=0.2, passage_coverage=0.1)


@pytest.mark.parametrize("question, value", [(DISK, 10.05), (HASH, 2)])
@pytest.mark.parametrize("hits", [[], [UNRELATED]], ids=["no hits", "an unrelated hit"])
def test_a_ruled_calculation_passes_the_gate_with_an_honest_method_line(question, value, hits):
    llm = FakeLlm([])  # any call fails the test
    streamed: list[str] = []
    a = answer(question, _weak(*hits), llm, on_token=streamed.append)
    assert not a.refused and a.source == "program" and llm.calls == []
    assert a.program.result.value == pytest.approx(value)
    assert a.answer.splitlines()[-1] == f"方法依据：{calculate.STANDARD_METHOD}"
    assert "[来源:" not in a.answer and UNRELATED.citation not in render(a)  # no passage is passed off as the method
    assert "".join(streamed) == render(a) and not a.core_shown and a.key_sentences == []


def test_the_gate_pass_needs_no_model_at_all():
    a = answer(DISK, _weak(), None)  # --no-llm: the program is no generation
    assert a.source == "program" and a.program.result.value == pytest.approx(10.05)


def test_a_passage_about_the_question_is_cited_as_the_method():
    """Words of the question in one passage (the core test passes) although the gate was weak: that
    passage is the method's source."""
    about = make_hit(1, "一块硬盘随机读一个扇区平均要多久：平均寻道时间，加上转速决定的半圈旋转时间，"
                        "加上每个磁道的扇区数决定的传输时间。", path=("第五章 输入输出", "5.3 磁盘"))
    r = Retrieval(hits=[about], best_bm25=6.0, coverage=0.8, passage_coverage=0.3)
    a = answer(DISK, r, FakeLlm([]))
    assert a.source == "program" and a.answer.splitlines()[-1] == f"方法依据：{about.citation}"


@pytest.mark.parametrize("question", [
    "向银行贷款10万元，年利率4.5%，贷款3年，到期一共要还多少利息？",
    "一辆汽车以每小时60公里的速度行驶了2.5小时，一共走了多少公里？",
    "家里宽带是100Mb/s，每月套餐费用是多少元？",
    "磁盘转速7200转/分，平均寻道时间8ms，平均访问时间是多少？",  # 408, but no rule has every datum
    "一个进程有5个线程，每个线程3个打开的文件，一共多少个文件描述符？",
])
def test_a_question_no_rule_computes_is_still_refused(question):
    llm = FakeLlm(["不该被调用"])
    a = answer(question, _weak(UNRELATED), llm)
    assert a.refused and a.answer == REFUSAL and llm.calls == [] and a.source == "refusal"


def test_a_ruled_program_that_fails_its_checks_is_refused():
    """A datum the rule does not read (the controller's 0.2ms) means another problem: no program, and
    with weak retrieval no answer."""
    question = "磁盘转速7200转/分，平均寻道时间8ms，每磁道500个扇区，控制器延迟0.2ms，读一个扇区的平均时间是多少？"
    assert calculate.ruled_program(question) is not None
    assert answer(question, _weak(UNRELATED), FakeLlm([])).refused


def test_without_calc_programs_the_gate_refuses_as_before():
    a = answer(DISK, _weak(UNRELATED), FakeLlm([]), cfg=AnswerConfig(calc_programs=False))
    assert a.refused and a.source == "refusal"


def test_a_strong_past_paper_record_is_not_passed_by_rule():
    stem = "2015年第30题（单项选择题）\n" + DISK + "\nA. 10ms\nB. 10.05ms\nC. 15ms\nD. 5ms\n答案：B\n解析：5+5+0.05。"
    record = make_hit(1, stem, kind="question", year=2015, number=30)
    assert not calculate.passes_gate(DISK, "choice", None, False)  # a choice question is no calculation
    a = answer(DISK, _weak(record), FakeLlm([]))
    assert a.refused and a.source == "refusal"  # the gate's answer, as before: the record is not trusted weakly


def test_a_weakly_matched_choice_record_does_not_make_a_ruled_calculation_a_choice():
    """The top hit is another past-paper disk question (a paraphrase match, not strong): its type is the
    record's; the question, with its own data and no options, is a calculation its rule computes."""
    stem = ("2016年第21题（单项选择题）\n一块硬盘转速10000转/分，平均寻道时间6ms，磁盘控制器延迟为0.2ms，传输速率20MB/s，"
            "读一个4KB扇区平均要多久\nA. 9ms\nB. 9.4ms\nC. 12ms\nD. 12.4ms\n答案：B\n解析：略。")
    record = make_hit(1, stem, kind="question", year=2016, number=21, path=("2016年真题", "单项选择题"))
    r = Retrieval(hits=[record], best_bm25=30.0, coverage=0.8, passage_coverage=0.6)
    llm = FakeLlm([])  # any call fails the test
    a = answer(DISK, r, llm)
    assert a.source == "program" and a.kind == "calculation" and llm.calls == []
    assert a.record is not None and not a.record.strong and a.program.result.value == pytest.approx(10.05)
