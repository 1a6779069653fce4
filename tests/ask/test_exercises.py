"""An exercise's options are not facts: only the ones its answer chooses stay in what a passage asserts."""

import pytest
from answer_helpers import make_hit

from pipeline.ask.claims import check, load_rules
from pipeline.ask.exercises import asserted_hits, asserted_text
from pipeline.ask.keysentences import select

pytestmark = pytest.mark.timeout(60)

# our own exercise, shaped as the notes write them: numbered statements, lettered sets of them, the answer
STATEMENTS = ("例题 下列()是分页存储管理的优点。\n"
              "Ⅰ.没有外部碎片\n"
              "Ⅱ.页表不占内存\n"
              "Ⅲ.便于共享整个段\n"
              "Ⅳ.内存利用率较高\n"
              "A.Ⅰ、Ⅱ\n"
              "B.Ⅱ、Ⅲ\n"
              "C.Ⅰ、Ⅳ\n"
              "D.Ⅲ、Ⅳ\n"
              "解：C。分页只有很小的内部碎片。")


def lines(text: str) -> list[str]:
    return [ln for ln in text.split("\n") if ln.strip()]


def test_statements_are_kept_only_when_the_chosen_letter_names_them():
    out = lines(asserted_text(STATEMENTS))
    assert "Ⅰ.没有外部碎片" in out and "Ⅳ.内存利用率较高" in out and "C.Ⅰ、Ⅳ" in out
    assert not any(ln.startswith(("Ⅱ.", "Ⅲ.", "A.", "B.", "D.")) for ln in out)
    assert out[0].startswith("例题") and out[-1].startswith("解：C。")  # the prose stays, word for word


@pytest.mark.parametrize("answer_line, kept", [
    ("答案：B", "B.时间片用完"),
    ("解：B。时间片用完时进程回到就绪队列。", "B.时间片用完"),
    ("所以选B。", "B.时间片用完"),
    ("【答案】B", "B.时间片用完"),
    ("答：B。", "B.时间片用完"),
])
def test_the_answer_after_the_options_chooses(answer_line, kept):
    text = ("例题 进程从运行态转为就绪态的原因是（  ）。\nA.等待I/O完成\nB.时间片用完\nC.申请内存失败\nD.进程结束\n"
            + answer_line)
    out = lines(asserted_text(text))
    assert kept in out and not any(ln.startswith(("A.", "C.", "D.")) for ln in out)


def test_a_filled_blank_in_the_stem_chooses_and_one_line_options_are_cut_to_it():
    text = "> 例1：采用时间片轮转调度的系统是（C）。\nA.批处理系统  B.实时系统  C.分时系统  D.单道系统"
    assert lines(asserted_text(text)) == ["> 例1：采用时间片轮转调度的系统是（C）。", "C.分时系统"]


def test_a_discussion_of_an_option_is_no_choice():
    """`解：A错误…` talks about option A; the exercise's choice is the later 所以选D."""
    text = ("例题 下列说法正确的是（）\nA.缓冲区越大越好\nB.缓冲区只能在内存\nC.缓冲区不能在外存\nD.缓冲区可缓和速度不匹配\n"
            "解：A错误，缓冲区过大浪费内存。所以选D。")
    out = lines(asserted_text(text))
    assert "D.缓冲区可缓和速度不匹配" in out and "A.缓冲区越大越好" not in out


def test_with_no_answer_nearby_no_option_is_asserted():
    text = "例题 下列关于快表的说法正确的是（  ）。\nA.快表在外存\nB.快表是页表的副本\nC.快表比内存慢\nD.快表容量无限"
    assert lines(asserted_text(text)) == ["例题 下列关于快表的说法正确的是（  ）。"]


def test_a_negative_stem_chooses_a_false_statement_so_nothing_stays():
    text = ("例题 下列关于分段的说法中，不正确的是()。\nA.段长可以不同\nB.段是逻辑单位\nC.分段会产生内部碎片\nD.段可以共享\n"
            "解：C。")
    assert lines(asserted_text(text)) == ["例题 下列关于分段的说法中，不正确的是()。", "解：C。"]


def test_roman_statements_chosen_by_the_answer_itself():
    text = ">下列措施中，能提高磁盘阵列可靠性的有（ ）\n>I．镜像\n>II．条带化\n>III．奇偶校验\n>\n>答案：I. III．"
    out = lines(asserted_text(text))
    assert ">I．镜像" in out and ">III．奇偶校验" in out and ">II．条带化" not in out


@pytest.mark.parametrize("text", [
    "Y = A · B\nA、B必须全部为真，Y才为真。\nA：0；B：0；Y：0",  # a logic note: A and B are variables
    "A.先来先服务\nB.短作业优先\n两种调度算法各有所长。",  # no exercise: a list, not options
    "调用fork()后，子进程得到父进程的副本。",
])
def test_prose_that_is_no_exercise_is_untouched(text):
    assert asserted_text(text) == text


def test_hits_keep_their_ids_and_citations():
    hits = [make_hit(1, STATEMENTS), make_hit(2, "分页存储管理把内存分为大小相等的块。")]
    out = asserted_hits(hits)
    assert out[1] is hits[1]
    assert out[0].chunk_id == hits[0].chunk_id and out[0].citation == hits[0].citation
    assert "页表不占内存" in hits[0].text and "页表不占内存" not in out[0].text


def test_a_wrong_option_is_no_support_for_a_claim():
    """The model copying a wrong option (Ⅱ.页表不占内存) is caught once the options are cut."""
    question = "分页存储管理有什么优点"
    claim = "页表不占内存，便于共享整个段。"
    assert check(claim, [make_hit(1, STATEMENTS)], question, rules=load_rules())[0].supported
    assert not check(claim, asserted_hits([make_hit(1, STATEMENTS)]), question, rules=load_rules())[0].supported
    right = "没有外部碎片，内存利用率较高。"  # the chosen statement still backs what it says
    assert check(right, asserted_hits([make_hit(1, STATEMENTS)]), question, rules=load_rules())[0].supported


def test_a_blank_stem_is_no_key_sentence():
    stem = "例题 下列()是分页存储管理的优点。"
    prose = "分页存储管理的优点是没有外部碎片，内存利用率较高。"
    keys = select("分页存储管理有什么优点", [make_hit(1, stem + "\n" + prose)])
    assert keys and keys[0].text.startswith("分页存储管理的优点")


SOLUTION = ("例题 接收方乱序收到帧后仍能缓存它们，这说明采用的是哪种协议（ ）。\n"
            "解：虽然题目没有明确给出哪种协议，但根据接收窗口能缓存乱序帧可知本题指的是选择重传协议。"
            "选择重传协议的窗口大于1，可以缓存乱序到达的帧。")


def test_a_solution_speaking_of_its_exercise_is_no_key_sentence():
    keys = select("选择重传协议的接收窗口是多大", [make_hit(1, SOLUTION)])
    assert keys and keys[0].text.startswith("选择重传协议的窗口大于1")


def test_a_sentence_about_an_exercise_is_no_claim_for_a_student_who_asked_none():
    hits = [make_hit(1, SOLUTION)]
    talk = check("根据题目，接收方乱序收到帧后仍能缓存它们。", hits, "选择重传协议的接收窗口是多大", rules=load_rules())[0]
    assert not talk.supported and talk.reason.startswith("speaks of an exercise")
    fact = check("选择重传协议的窗口大于1，可以缓存乱序到达的帧。", hits, "选择重传协议的接收窗口是多大", rules=load_rules())[0]
    assert fact.supported, fact.reason
    # a student asking about an exercise may be told what it says
    asked = check("根据题目，接收方乱序收到帧后仍能缓存它们。", hits, "这道题里乱序收到帧能缓存，说明是哪种协议",
                  rules=load_rules())[0]
    assert not asked.reason.startswith("speaks of an exercise")


def test_a_booklet_question_with_emphasis_dots_and_bulleted_options():
    """A past paper's booklet prints 错误的是 as ``错误\\n．．的是`` (dots under 错误) and its options as a
    list; the question's heading marks it an exercise even when its answer is in another booklet."""
    stem = "2019年 第5题（单项选择题）\n下列关于队列的叙述中，错误\n．．的是\n"
    statements = "Ⅰ．队列只允许在一端插入\nⅡ．队列可以用循环数组实现\nⅢ．队列是先进先出的线性表\n"
    options = "- A. 仅Ⅰ\n- B. 仅Ⅱ\n- C. 仅Ⅰ、Ⅲ\n- D. 仅Ⅱ、Ⅲ"
    without_answer = lines(asserted_text(stem + statements + options))
    assert without_answer == ["2019年 第5题（单项选择题）", "下列关于队列的叙述中，错误", "．．的是"]
    with_answer = lines(asserted_text(stem + statements + options.replace("- ", "") + "\n答案：A"))
    assert not any("队列只允许在一端插入" in ln or "仅Ⅰ" in ln for ln in with_answer)  # A chooses a false statement


@pytest.mark.parametrize("stem", ["下列叙述中，不．符合m阶B树定义要求的是______。", "不属于此译码空间的地址是()。![图]"])
def test_a_negative_stem_is_read_through_emphasis_dots_and_trailing_figures(stem):
    text = f"例题 {stem}\nA.根结点至少有两棵子树\nB.所有叶结点在同一层\n解：A。"
    assert "A.根结点至少有两棵子树" not in asserted_text(text)


def test_a_positive_stem_after_notes_that_say_no_keeps_its_answer():
    """Only the stem's own line tells whether it asks for what is not so: 不需要 in the notes above
    the exercise does not make its chosen option false."""
    text = ("SDRAM不需要插入等待状态\n>例题：双端口RAM在（）情况下会发生读/写冲突\n>  A.左右端口地址码不同\n"
            ">  B.左端口和右端口的地址码相同\n>\n>答案：B；")
    out = asserted_text(text)
    assert "B.左端口和右端口的地址码相同" in out and "A.左右端口地址码不同" not in out


def test_an_exercise_answer_line_is_no_claim_for_a_student_who_asked_none():
    hits = [make_hit(1, "2018年 第3题（单项选择题）\n客户发出FIN并收到服务器的FIN后，客户进入的状态是（ ）。\n答案：C")]
    said = check("答案：CLOSE-WAIT", hits, "TIME_WAIT状态要等多久", rules=load_rules())[0]
    assert not said.supported and said.reason.startswith("speaks of an exercise")
