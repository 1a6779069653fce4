"""Every asked part of a calculation answered (issue 23): the linear-probing hash table and its ASLs,
the page-fault rate beside the count, the CRC frame sent beside the remainder, the channel limits
rounded. Our own questions, each worked by hand in the comment, run through ``calculate.solve`` (the
sandbox and every grounding check); and questions no rule may take."""

from __future__ import annotations

import pytest

from pipeline.ask import calc_rules, calculate
from pipeline.ask.simulations import EMPTY

pytestmark = pytest.mark.timeout(60)


def _solved(question: str, rule: str):
    found = calc_rules.ruled(question)
    assert found is not None and found[0] == rule, found
    text, run, note = calculate.solve(question, [], [], None, citation="[来源: 方法]")  # no model: None
    assert text is not None and note == f"ok: by rule {rule}", f"{note}\n{found[1]}"
    return text, {s.name: s.value for s in run.steps}, run.result.value


E = EMPTY
# (question, the table, successful ASL as fraction and value, unsuccessful ASL as fraction and value or None)
HASHES = [
    # m = 13, H = k % 13: 26→0 (1), 39→1 (2), 14→2 (2), 1→3 (3), 27→4 (4): 12/5 = 2.4
    ("哈希表长度为13，哈希函数H(key)=key%13，用线性探测法解决冲突，依次插入关键字26、39、14、1、27，求查找成功的平均查找长度。",
     [26, 39, 14, 1, 27] + [E] * 8, ("12/5", 2.4), None),
    # the same, unsuccessful too: from 0..4: 6, 5, 4, 3, 2; 5..12 empty: 1 each (8): 28/13 = 2.15
    ("散列表的表长为13，散列函数H(key)=key mod 13，采用线性探测再散列处理冲突，把26,39,14,1,27依次插入，"
     "分别求等概率下查找成功和查找不成功时的平均查找长度。",
     [26, 39, 14, 1, 27] + [E] * 8, ("12/5", 2.4), ("28/13", 2.15)),
    # addresses 0~7 (m = 8), H = k % 7: 9→2 (1), 16→3 (2), 2→4 (3), 23→5 (4), 5→6 (2), 12→7 (3): 15/6 = 2.5;
    # unsuccessful over the 7 hash addresses: 1, 1, 7 (2..7 full, wraps to 0), 6, 5, 4, 3: 27/7 = 3.86
    ("散列表的地址区间为0~7，散列函数为H(key)=key MOD 7，采用线性探测法，将关键字序列{9, 16, 2, 23, 5, 12}依次存入，"
     "分别求查找成功与查找失败时的平均查找长度。",
     [E, E, 9, 16, 2, 23, 5, 12], ("15/6", 2.5), ("27/7", 3.86)),
    # 除留余数法, p = 11, m = 12: 22→0, 41→8, 53→9, 46→2 (1 each), 30→8,9 taken→10 (3), 13→2 taken→3 (2): 9/6
    ("用除留余数法构造散列函数，除数p=11，散列表长12，采用线性探查法解决冲突，依次插入22, 41, 53, 46, 30, 13，"
     "求等概率下查找成功的ASL。",
     [22, E, 46, 13, E, E, E, E, 41, 53, 30, E], ("9/6", 1.5), None),
]


@pytest.mark.parametrize("question, table, success, fail", HASHES)
def test_a_linear_probing_table_and_its_asl(question, table, success, fail):
    text, steps, result = _solved(question, "linear_probing_hash")
    assert steps["answer_table"] == table
    assert steps["answer_success_fraction"] == success[0]
    assert steps["answer_success" if fail else "answer"] == pytest.approx(success[1])
    conclusion = text.splitlines()[-2]
    assert f"查找成功的平均查找长度为{success[0]} = {success[1]:g}" in conclusion
    if fail is None:
        assert "misses" not in steps and result == pytest.approx(success[1])
    else:  # the convention is on the label: the empty slot's comparison counted, over the p hash addresses
        assert steps["answer_fail_fraction"] == fail[0] and result == pytest.approx(fail[1])
        assert f"计空位比较的查找失败ASL为{fail[0]} = {fail[1]:g}" in conclusion
        assert "round(missed / p, 2)" in text


@pytest.mark.parametrize("question", [
    "散列表长11，H(key)=key mod 11，用二次探测法处理冲突，依次插入13、24、35，求查找成功的平均查找长度。",  # not linear
    "散列表长10，H(key)=(3×key) mod 7，线性探测，关键字序列为7、8、30、11，求查找成功的ASL。",  # another hash
    "散列表长11，采用线性探测，依次插入13、24、35，求查找成功的平均查找长度。",  # no hash function
    "H(key)=key%11，线性探测法处理冲突，依次插入13、24、35，求查找成功的平均查找长度。",  # no table length
    "表长为5，H(key)=key%5，线性探测，依次插入1、2、3、4、6，求查找失败的平均查找长度。",  # full: no empty slot
    "散列表长11，H(key)=key%13，线性探测，依次插入13、24、35，求查找成功的平均查找长度。",  # p > m
    "装填因子为0.75，H(key)=key%11，线性探测，依次插入13、24、35，求查找成功的平均查找长度。",  # a load factor
    "散列表长11，H(key)=key%11，线性探测，依次插入13、24、13，求查找成功的平均查找长度。",  # a key twice
    "散列表长11，H(key)=key%11，线性探测，依次插入13、24、35、7、18，画出插入后的散列表。",  # no ASL asked
    "表长11,13,24,35依次插入，H(key)=key%11，线性探测，查找成功的ASL是多少？",  # the list runs into the length
    "散列表长11，H(key)=key%11，除留余数法的除数为13，线性探测，依次插入13、24、35，查找成功的ASL？",  # two divisors
    "线性探测法和链地址法处理冲突有什么区别？",
])
def test_a_hash_question_no_rule_may_take(question):
    assert calc_rules.ruled(question) is None


# (question, algorithm, faults, references, percent)
FAULT_RATES = [
    # FIFO, 3 frames: 2 3 _ 1 5(out 2) 2(out 3) 4(out 1) _ 3(out 5) _ 5(out 2) 2(out 4): 9 of 12
    ("系统为进程分配3个物理块，页面走向为2,3,2,1,5,2,4,5,3,2,5,2，采用FIFO置换算法，求缺页次数和缺页率。", 9, 12, 75),
    # LRU, the same string: 2 3 _ 1 5(out 3) _ 4(out 1) _ 3(out 2) 2(out 4) _ _: 7 of 12 = 58.33%
    ("给进程3个页框，开始都空，访问页面的顺序是2、3、2、1、5、2、4、5、3、2、5、2，用LRU算法时缺页中断率是多少？", 7, 12, 58.33),
    # OPT, 4 frames: 1 2 3 4, then 5 evicts 4 (used last), 4 evicts one never used again: 6 of 12 = 50%
    ("4个页框，引用串为1,2,3,4,1,2,5,1,2,3,4,5，采用最佳置换算法(OPT)，缺页率为多少？", 6, 12, 50),
]


@pytest.mark.parametrize("question, faults, refs, percent", FAULT_RATES)
def test_the_fault_rate_is_given_with_the_count(question, faults, refs, percent):
    text, steps, result = _solved(question, "page_faults")
    assert steps["answer_faults"] == faults and steps["refs"] == refs and result == pytest.approx(percent)
    assert text.splitlines()[-2] == f"答：缺页次数为{faults}，缺页率为{faults}/{refs} = {percent:g}%。"


def test_a_count_alone_is_asked_without_a_rate():
    text, steps, result = _solved("给进程3个物理块，访问串2,3,2,1,5,2,4,5,3,2,5,2，FIFO缺页几次？", "page_faults")
    assert result == 9 and "refs" not in steps and text.splitlines()[-2] == "答：缺页次数为9。"


# (question, remainder, the bits sent or None when only the remainder is asked)
CRCS = [
    # 110011 000 ÷ 1001: remainder 101, sent 110011 101
    ("数据为110011，CRC生成多项式为1001，求冗余码和实际发送的比特串。", "101", "110011101"),
    # 101110 0000 ÷ 11001 (x^4+x^3+1): remainder 0110
    ("采用CRC校验，生成多项式G(x)=x^4+x^3+1，要传送的报文是101110，添加校验码后发送的帧是什么？", "0110", "1011100110"),
    # 1101 000 ÷ 1011: remainder 001
    ("信息位1101，生成多项式1011，求CRC校验码，最终发送出去的数据是什么？", "001", "1101001"),
    ("对数据110011做CRC，生成多项式1001，求冗余码及加上冗余码后的比特串。", "101", "110011101"),
    # the bits to send are data here (发送的信息位是…), only the remainder is asked
    ("发送的信息位是110011，生成多项式1001，CRC冗余码是多少？", "101", None),
    ("要发送的数据为1101，CRC生成多项式为1011，求校验码。", "001", None),
]


@pytest.mark.parametrize("question, remainder, sent", CRCS)
def test_the_crc_frame_sent_is_given_when_asked(question, remainder, sent):
    text, steps, result = _solved(question, "crc_remainder")
    if sent is None:
        assert result == remainder and "answer_check" not in steps
    else:
        assert steps["answer_check"] == remainder and result == sent
        assert text.splitlines()[-2] == f"答：CRC校验码为{remainder}，发送的比特串为{sent}。"


@pytest.mark.parametrize("question, rule, shown", [
    # 4000 · log2(1 + 100) = 26632.8 b/s: 26.63 kb/s
    ("带宽4kHz，信噪比为20dB，求香农公式下的最大数据传输速率。", "shannon_rate", "26.63kb/s"),
    # 2 · 3000 · log2(10) = 19931.57 b/s: 19.93 kb/s
    ("无噪声信道带宽为3kHz，采用10种码元状态，最大数据传输速率是多少？", "nyquist_rate", "19.93kb/s"),
    # 2 · 3000 · log2(16) = 24000 exactly: 24 kb/s, nothing to round
    ("按奈奎斯特定理，带宽3kHz，信号有16个电平，最高数据速率为多少？", "nyquist_rate", "24kb/s"),
])
def test_a_channel_limit_is_rounded_to_two_decimals(question, rule, shown):
    text, _, _ = _solved(question, rule)
    assert text.splitlines()[-2] == f"答：最大数据传输速率为{shown}。"


@pytest.mark.parametrize("text, said", [
    ("不计处理和排队时延", False),  # taken back in its clause
    ("忽略段间锁存器延迟", False),
    ("中间无阻塞", False),
    ("分组要在路由器排队", True),
    ("不考虑确认，但有排队时延", True),  # the negation is in another clause
    ("处理时间忽略不计", False),  # taken back after it
    ("排队时间为5ms，不计传播", True),
])
def test_a_mention_taken_back_is_no_mention(text, said):
    from pipeline.ask.calc_text import mentioned

    assert mentioned(r"排队|锁存|阻塞", text) is said
