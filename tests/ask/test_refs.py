"""Past-paper references: every way a student names a question, and numbers that are not one."""

import pytest

from pipeline.ask.refs import cn_number, question_ref

POSITIVE = [
    ("09年统考第25题，8台打印机K个进程，K最大是多少", (2009, 25)),
    ("2019年408第42题", (2019, 42)),
    ("2019 408 42", (2019, 42)),
    ("2019 42", (2019, 42)),
    ("19年42题", (2019, 42)),
    ("第42题（2019）", (2019, 42)),
    ("第42题(2019年408)怎么做", (2019, 42)),
    ("第8题（19年）", (2019, 8)),
    ("二〇一九年第四十二题", (2019, 42)),
    ("二零零九年第二十五题", (2009, 25)),
    ("2009年第31题：F1引用计数是1，F2和F3的引用计数各是多少？", (2009, 31)),
    ("2009年真题第38题：第一个段序号200", (2009, 38)),
    ("2023年第8题：600个元素的有序表折半查找", (2023, 8)),
    ("2019年408统考真题第3题考的是什么", (2019, 3)),
    ("2024年真题第41题怎么做", (2024, 41)),
    ("23年42题", (2023, 42)),
    ("2023 42", (2023, 42)),
    ("２０２０年第４０题", (2020, 40)),  # full-width digits
    ("408-2009-Q31", (2009, 31)),
    ("2009 Q31", (2009, 31)),
    ("2010年计算机考研真题第5题", (2010, 5)),
    ("2019年408真题选择题第8题", (2019, 8)),
    ("2009年综合应用题第47题", (2009, 47)),
    ("2009第47题", (2009, 47)),
    ("2019年第一题", (2019, 1)),
    ("19年的第8题", (2019, 8)),
]

NEGATIVE = [
    "2^16是多少",
    "IPv4 32位地址能表示多少个",
    "1024 64",
    "第3章的重点",
    "32位地址总线的寻址空间",
    "教材第125页第3题",  # a page, not a paper
    "第12页",
    "折半查找的时间复杂度",
    "408选择题一共40题吗",
    "共1024题",  # not year 2010 question 24
    "2019年的考试大纲",  # a year without a question
    "2009年408综合应用题是第几题到第几题",
    "1998年第5题",  # before the first 408 paper
    "2099年第5题",
    "2019年第99题",  # no such question number
    "192.168.20 10题",
    "第42题",  # no year: which paper?
    "IPv6 128位地址，2019 年开始普及",
    "2019年8月第3题",  # a date, then a question of some other set
    "2019.8",
]


@pytest.mark.parametrize("text,expected", POSITIVE)
def test_reference_is_parsed(text, expected):
    assert question_ref(text) == expected


@pytest.mark.parametrize("text", NEGATIVE)
def test_no_false_reference(text):
    assert question_ref(text) is None


@pytest.mark.parametrize("text,value", [("一", 1), ("十", 10), ("十二", 12), ("二十", 20), ("四十二", 42), ("十十", None)])
def test_chinese_numbers(text, value):
    assert cn_number(text) == value


def test_retrieve_uses_the_same_parser():
    from pipeline.ask import question, retrieve

    assert retrieve.analyse is question.analyse and question.question_ref is question_ref
    assert question.analyse("2019年408第42题怎么做").ref == (2019, 42)
