"""The answer judge on realistic answers (references in the style of shared/eval/dev.jsonl)."""

import pytest

from pipeline.ask.judge import answer_letter, judge, key_numbers, reference_letter

CASES = [
    # reference, answer, verdict
    ("1和1（选B）", "【2009年第31题】\n答案：B [来源: x|片段1]\n解析：建立符号链接时引用计数直接复制。", "right"),
    ("1和1（选B）", "F2和F3的引用计数分别为1和2，选C。", "wrong"),
    ("1和1（选B）", "F2的引用计数是1，F3的引用计数是2。", "wrong"),  # one 1 is not "1和1"
    ("1和1（选B）", "F2和F3的引用计数都是1。", "right"),
    ("m级索引需m+1次；链接分配需n次（连续分配1次）", "索引分配访问磁盘一次。链接分配要访问磁盘n+1次。", "wrong"),
    ("m级索引需m+1次；链接分配需n次（连续分配1次）", "m级索引要访问磁盘m+1次，链接分配要访问n次。", "right"),
    ("2^9-2=510（选C）", "2017年 第38题\n若将网络划分为128个子网\nA. 254\nB. 256\nC. 510\n答案：C", "right"),
    ("传输层（选B）", "OSI模型中第一个提供端到端服务的是传输层。", "right"),  # no option named: content
    ("传输层（选B）", "第一个端到端的是网络层。", "wrong"),
    ("24kbps（选B）", "最大数据率为2×3×4=24kbps。", "right"),
    ("64ms（128×8/16kbps）", "发送一帧的时间是128×8/16kbps=64ms。", "right"),
    ("64ms（128×8/16kbps）", "发送一帧需要8ms。", "wrong"),
    ("40小题，每小题2分，共80分", "单项选择题共40小题，每小题2分，共80分。", "right"),
    ("40小题，每小题2分，共80分", "选择题共40道，满分100分。", "wrong"),
    ("2ms÷128≈15.6μs", "平均每隔15.6μs刷新一行。", "right"),
    ("UDP首部8B，TCP首部（固定部分）20B", "UDP首部8字节，TCP首部固定部分20字节。", "right"),
    ("能处理带负权值（但不能有负权回路），O(V^3)", "Floyd算法不能处理带负权值的边。", "wrong"),
    ("不能；链路层设备只隔离冲突域，网络层设备才隔离广播域", "网桥和交换机不能隔离广播域，只能隔离冲突域。", "right"),
    ("不能；链路层设备只隔离冲突域，网络层设备才隔离广播域", "网桥能隔离广播域。", "wrong"),
    ("要（需要刷新）；SRAM不用", "DRAM读出后需要重写。", "right"),
    ("要（需要刷新）；SRAM不用", "DRAM读出后不需要重写。", "wrong"),
    ("低（作业调度=高级调度，频率最低；进程调度最高）", "作业调度的频率最低。", "right"),
    ("进程是资源分配的基本单位，线程是独立调度的基本单位", "进程是资源分配的基本单位，线程是调度的基本单位。", "right"),
    ("2MSL", "要等待2MSL的时间。", "right"),
    ("B（82）", "答案：B。", "right"),
    ("指令执行速度快，指令功能的修改和扩展难（选D）", "硬布线控制器指令执行速度慢，指令功能的修改和扩展难。", "wrong"),
    ("指令执行速度快，指令功能的修改和扩展难（选D）", "硬布线控制器指令执行速度快，修改和扩展指令功能难。", "right"),
    ("大于1", "接收窗口尺寸W_R＋发送窗口尺寸W_T≤2^n。", "wrong"),  # a lone digit is not enough
    ("大于1", "选择重传协议的接收窗口大于1。", "right"),
    ("1000（选D）", "在现有资料中没有找到相关内容", "refused"),
]


@pytest.mark.parametrize("reference,answer,verdict", CASES)
def test_judge(reference, answer, verdict):
    assert judge(answer, reference).verdict == verdict


def test_refused_flag_wins():
    assert judge("随便什么", "1000（选D）", refused=True).verdict == "refused"


@pytest.mark.parametrize("reference,letter", [("1和1（选B）", "B"), ("B（82）", "B"),
                                              ("缩短指令长度，扩大寻址空间（C）", "C"), ("64ms（128×8/16kbps）", None)])
def test_reference_letter(reference, letter):
    assert reference_letter(reference) == letter


def test_answer_letter_is_the_earliest_choice():
    assert answer_letter("答案：C\n解析：A项错误，B项错误。") == "C"
    assert answer_letter("没有选项") is None


def test_key_numbers_skip_derivations_and_parentheses():
    assert key_numbers("2^9-2=510（选C）") == ["510"]
    assert key_numbers("最短帧长64B（512bit），争用期51.2μs") == ["64", "51.2"]


def test_swapped_answer_is_wrong_given_the_question():
    q = "进程和线程谁是调度的基本单位，谁是资源分配的基本单位"
    ref = "进程是资源分配的基本单位，线程是独立调度的基本单位"
    assert judge("进程是调度的基本单位，线程是资源分配的基本单位。", ref, question=q).verdict == "wrong"
    assert judge("进程是资源分配的基本单位，线程是调度的基本单位。", ref, question=q).verdict == "right"
