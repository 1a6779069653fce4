"""Sentences whose every word is in a passage and which still do not answer: a formula over a letter
never said (pipeline/ask/letters.py), a count filled with a share (pipeline/ask/slots.py)."""

import pytest

from pipeline.ask.letters import unsaid_letter
from pipeline.ask.slots import share_for_count

pytestmark = pytest.mark.timeout(30)


@pytest.mark.parametrize("sentence, before, question, letter", [
    ("索引分配要访问磁盘m+1次。", "", "索引分配访问第n条记录要访问磁盘几次", "m"),
    ("接收窗口最大为2^(k-1)。", "", "选择重传协议的接收窗口是多少", "k"),
    ("共需要t+1次比较。", "", "折半查找要比较几次", "t"),
])
def test_a_formula_over_a_letter_never_said_fails(sentence, before, question, letter):
    why = unsaid_letter(sentence, before, question)
    assert why and f"what {letter} is" in why


@pytest.mark.parametrize("sentence, before, question", [
    ("采用m级索引时要访问磁盘m+1次。", "", "索引分配要访问磁盘几次"),  # said in the sentence
    ("索引分配要访问磁盘m+1次。", "设索引共有m级。", "索引分配要访问磁盘几次"),  # said before
    ("要比较k+1次。", "", "一棵高为k的树要比较几次"),  # said by the question
    ("顺序查找的平均查找长度为(n+1)/2。", "", "顺序查找的平均查找长度是多少"),  # n: the input size
    ("快速排序最坏时间复杂度为O(m^2)。", "", "快速排序最坏多慢"),  # Big-O is left whole
    ("比较次数为n(n-1)/2。", "", "冒泡排序比较几次"),
    ("TCP/IP协议有四层。", "", "TCP/IP有几层"),  # no formula
])
def test_a_letter_said_or_conventional_passes(sentence, before, question):
    assert unsaid_letter(sentence, before, question) is None


@pytest.mark.parametrize("sentence", ["奇偶校验码能查出50%错。", "奇偶校验码能查出一半的错。", "奇偶校验码能查出百分之五十的错"])
def test_a_count_filled_with_a_share_fails(sentence):
    assert "share" in share_for_count(sentence, "奇偶校验码能查出几位错")


@pytest.mark.parametrize("sentence, question", [
    ("奇偶校验码能查出奇数个位的错。", "奇偶校验码能查出几位错"),  # a count (of a kind)
    ("奇偶校验码的检错能力为50%。", "奇偶校验码能查出几位错"),  # does not restate the question
    ("信道利用率为50%。", "信道利用率是多少"),  # a share asked
    ("停等协议的信道利用率能达到百分之几十。", "停等协议的信道利用率能达到百分之几"),
    ("间接寻址要访存2次。", "间接寻址要访存几次"),
])
def test_a_count_or_an_asked_share_passes(sentence, question):
    assert share_for_count(sentence, question) is None


def test_the_passage_sentence_that_says_the_letter_is_shown_instead():
    from answer_helpers import make_hit

    from pipeline.ask.claims import Checker
    from pipeline.ask.answer import _SentenceStream

    hits = [make_hit(1, "流量控制的三种协议。序号用k位比特编号时，选择重传的接收窗口最大为2^(k-1)，即一半。")]
    checker = Checker(hits, "选择重传协议的接收窗口是多少")
    shown: list[str] = []
    stream = _SentenceStream(checker, shown.append, "drop", "", {})
    stream.feed("选择重传协议的接收窗口是2^(k-1)，即一半。")
    stream.close()
    claim = checker.claims[0]
    assert claim.supported and claim.reason.startswith("quoted instead")
    assert shown == ["序号用k位比特编号时，选择重传的接收窗口最大为2^(k-1)，即一半。" + hits[0].citation]


def test_with_no_passage_sentence_saying_the_letter_the_sentence_fails():
    from answer_helpers import make_hit

    from pipeline.ask.claims import check

    hits = [make_hit(1, "帧序号用k个比特表示。选择重传的接收窗口最大为2^(k-1)。")]
    claims = check("选择重传协议的接收窗口是2^(k-1)。", hits, "选择重传协议的接收窗口是多少")
    assert not claims[0].supported and "what k is" in claims[0].reason


@pytest.mark.parametrize("sentence, question", [
    ("栈是一种只允许从一端插入和删除的线性表，而队列是一种只允许从一端插入和删除的线性表。", "栈和队列两者到底有啥不一样？"),
    ("TCP是面向连接的协议；UDP是面向连接的协议。", "TCP和UDP有什么区别"),
])
def test_the_same_predicate_of_both_sides_of_a_contrast_fails(sentence, question):
    from pipeline.ask.sides import same_of_both

    assert "says the same of" in same_of_both(sentence, question)


@pytest.mark.parametrize("sentence, question", [
    ("栈只允许在一端插入和删除，而队列是一种只允许在一端插入、另一端删除的线性表。", "栈和队列有啥不一样"),
    ("两者都是操作受限的线性表。", "栈和队列有啥不一样"),  # alike in one respect, said with 都
    ("TCP是面向连接的协议，UDP是面向连接的协议。", "TCP是什么"),  # no difference asked
])
def test_different_predicates_or_no_contrast_pass(sentence, question):
    from pipeline.ask.sides import same_of_both

    assert same_of_both(sentence, question) is None


def test_the_checker_fails_a_contrast_sentence_that_says_the_same_of_both():
    from answer_helpers import make_hit

    from pipeline.ask.claims import check

    hits = [make_hit(1, "栈是一种只允许从一端插入和删除的线性表。队列只允许在一端插入，在另一端删除。")]
    claims = check("栈是一种只允许从一端插入和删除的线性表，而队列是一种只允许从一端插入和删除的线性表。", hits,
                   "栈和队列有啥不一样")
    assert not claims[0].supported and "says the same of" in claims[0].reason
