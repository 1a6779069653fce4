"""Follow-up rewriting and the session file."""

import pytest

from pipeline.ask.session import KEEP_TURNS, SessionError, Turn, load, rewrite, save_turn, subject_of

VOCAB = {"FIFO", "LRU", "页面", "置换", "算法", "页面置换算法", "时间", "复杂度", "时间复杂度", "死锁", "预防", "快速排序",
         "稳定", "折半查找", "银行家算法", "B树", "区别", "TCP", "拥塞控制", "流量控制", "答案"}


@pytest.mark.parametrize("previous, follow_up, standalone", [
    ("什么是FIFO页面置换算法", "那它和LRU有什么区别", "FIFO页面置换算法和LRU有什么区别"),
    ("FIFO页面置换算法是什么？", "它会产生Belady异常吗", "FIFO页面置换算法会产生Belady异常吗"),
    ("快速排序是稳定的吗", "这种算法的时间复杂度是多少", "快速排序的时间复杂度是多少"),
    ("折半查找的时间复杂度是多少", "它对存储结构有什么要求？", "折半查找对存储结构有什么要求？"),
    ("死锁产生的必要条件有哪些", "那怎么预防呢？", "死锁产生的怎么预防呢？"),
    ("快速排序", "时间复杂度呢？", "快速排序的时间复杂度呢？"),
    ("2019年第42题", "这道题的答案是什么", "2019年第42题的答案是什么"),
    ("TCP拥塞控制是什么", "流量控制和拥塞控制有啥不一样", "流量控制和拥塞控制有啥不一样"),  # names its own subject
    ("什么是银行家算法", "B树和B+树的区别是什么", "B树和B+树的区别是什么"),
])
def test_rewrite(previous, follow_up, standalone):
    history = [Turn(question=previous, standalone=previous)]
    assert rewrite(follow_up, history, VOCAB) == standalone


def test_no_history_no_rewrite():
    assert rewrite("它的时间复杂度是多少", [], VOCAB) == "它的时间复杂度是多少"


def test_the_latest_turn_is_the_subject():
    history = [Turn(question="什么是死锁", standalone="什么是死锁"),
               Turn(question="那快速排序呢", standalone="快速排序是稳定的吗")]
    assert rewrite("它的时间复杂度呢", history, VOCAB) == "快速排序的时间复杂度呢"


@pytest.mark.parametrize("question, subject", [
    ("什么是FIFO页面置换算法？", "FIFO页面置换算法"),
    ("B树和B+树的区别是什么", "B树和B+树"),
    ("请解释一下银行家算法", "银行家算法"),
    ("快速排序是稳定的吗", "快速排序"),
    ("折半查找的时间复杂度是多少", "折半查找"),
    ("2019年第42题", "2019年第42题"),
])
def test_subject_of(question, subject):
    assert subject_of(question) == subject


def test_session_file_keeps_the_last_turns(tmp_path):
    s = load(tmp_path, "复习-1")
    for i in range(KEEP_TURNS + 2):
        save_turn(tmp_path, s, Turn(question=f"q{i}", standalone=f"q{i}"))
    again = load(tmp_path, "复习-1")
    assert [t.question for t in again.turns] == [f"q{i}" for i in range(2, KEEP_TURNS + 2)]
    assert (tmp_path / "sessions" / "复习-1.json").exists()


@pytest.mark.parametrize("name", ["../x", "a/b", "", ".", "x" * 65])
def test_a_session_name_is_never_a_path(tmp_path, name):
    with pytest.raises(SessionError, match="session name"):
        load(tmp_path, name)


def test_a_damaged_session_file_starts_afresh(tmp_path):
    (tmp_path / "sessions").mkdir()
    (tmp_path / "sessions" / "s.json").write_text("{not json")
    assert load(tmp_path, "s").turns == []
