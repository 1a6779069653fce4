"""The grounded core: the sentences of the passages that cover the question, with citations."""

import pytest
from answer_helpers import make_hit

from pipeline.ask.keysentences import _ASKS_PURPOSE, ASPECT, aspect_terms, joined_sentences, record_sentences, select
from pipeline.ask.question import question_terms

NOTES = ("折半查找又称二分查找。它要求线性表必须采用顺序存储结构，而且表中元素按关键字有序排列。"
         "折半查找的时间复杂度为O(log2n)。顺序查找适用于顺序表和链表。")
SORT = "快速排序是一种不稳定的排序方法。快速排序的平均时间复杂度为O(nlog2n)，最坏情况下为O(n^2)。堆排序也不稳定。"


def test_best_sentence_first_with_its_citation():
    hits = [make_hit(1, NOTES), make_hit(2, SORT, path=("第八章 排序", "8.3 快速排序"))]
    keys = select("快速排序稳定吗", hits)
    assert keys[0].text == "快速排序是一种不稳定的排序方法。"
    assert keys[0].chunk_id == "c2" and keys[0].citation == hits[1].citation


def test_second_sentence_adds_what_the_first_lacks():
    keys = select("折半查找的时间复杂度是多少？要求什么存储结构？", [make_hit(1, NOTES)])
    texts = [k.text for k in keys]
    assert "折半查找的时间复杂度为O(log2n)。" in texts
    assert any("顺序存储结构" in t for t in texts)
    assert len(keys) <= 3


def test_nothing_relevant_gives_no_key_sentence():
    assert select("红烧肉怎么做才好吃", [make_hit(1, NOTES), make_hit(2, SORT)]) == []


def test_duplicates_across_passages_are_dropped():
    hits = [make_hit(1, SORT), make_hit(2, SORT, chunk_id="copy")]
    keys = select("快速排序的平均时间复杂度", hits)
    assert len({k.text for k in keys}) == len(keys)


def test_index_vocabulary_weights_long_terms():
    vocab = {"平均查找长度": 1, "平均": 2, "查找": 3, "长度": 4, "顺序查找": 5, "顺序": 6, "折半查找": 7, "折半": 8}
    hits = [make_hit(1, "顺序查找的平均查找长度为(n+1)/2。查找成功时比较次数与位置有关。")]
    keys = select("顺序查找的平均查找长度是多少", hits, vocab=vocab)
    assert keys[0].text == "顺序查找的平均查找长度为(n+1)/2。"


def test_long_sentence_is_trimmed_for_display():
    long = "虚拟存储器" + "，它把内存和外存统一管理" * 20 + "。"
    keys = select("虚拟存储器是什么", [make_hit(1, long)])
    assert keys and len(keys[0].text) <= 162 and keys[0].text.endswith("…")


def test_heading_and_announcement_are_joined_to_what_follows():
    text = "1. 三次握手建立连接\n（1）客户端发送SYN=1的连接请求报文段。区别可以归纳为以下几点。（1）B+树的叶结点用指针链接。"
    sents = joined_sentences(text)
    assert sents[0] == "1. 三次握手建立连接 （1）客户端发送SYN=1的连接请求报文段。"
    assert sents[1] == "区别可以归纳为以下几点。（1）B+树的叶结点用指针链接。"


def test_a_question_in_the_notes_is_joined_to_its_answer():
    text = "第三个报文段可以携带数据。为什么要三次握手而不是两次？主要是为了防止已失效的连接请求报文段突然又传到服务器。"
    keys = select("为什么要三次握手", [make_hit(1, text, path=("传输层", "TCP连接管理"))])
    assert keys[0].text.startswith("为什么要三次握手而不是两次？主要是为了防止")


def test_a_restatement_stays_with_its_sentence():
    text = "奇偶校验码对出错的数据无法检验出是否出错。即出错奇数个位可以检查出来，偶数个位不能检查出来。"
    assert joined_sentences(text) == [text]


def test_definition_wins_a_what_is_question():
    hits = [make_hit(1, "RAID1:镜像磁盘阵列。RAID5:无独立校验的奇偶校验磁盘阵列。", path=("存储系统", "RAID的分级")),
            make_hit(2, "RAID（廉价冗余磁盘阵列）是将多个独立的物理磁盘组成一个独立的逻辑盘。", path=("存储系统", "磁盘阵列"))]
    assert select("RAID是什么", hits)[0].chunk_id == "c2"


def test_exercise_questions_are_not_answers():
    hits = [make_hit(1, "(3)折半查找的时间复杂度是多少？"), make_hit(2, "折半查找的时间复杂度为O(log2n)。")]
    assert select("折半查找的时间复杂度是多少", hits)[0].chunk_id == "c2"


def test_an_exercises_arithmetic_does_not_answer_a_question_without_numbers():
    """Asked the general case, `所以接收窗口最大为8-5=3` answers that exercise (3-bit numbers, window 5)."""
    exercise = "选择重传协议中序号用3比特时滑动窗口数量为2^3=8，所以选择重传协议的接收窗口最大为8-5=3。"
    rule = "选择重传协议的接收窗口最大为序号空间的一半，即2^(n-1)。"
    hits = [make_hit(1, exercise), make_hit(2, rule)]
    assert select("选择重传协议的接收窗口最大是多少", hits)[0].chunk_id == "c2"
    # with its own numbers the question is that exercise: the working is the answer
    assert select("序号用3比特、发送窗口为5时，选择重传协议的接收窗口最大是多少", hits)[0].chunk_id == "c1"


def test_a_why_question_prefers_the_sentence_giving_a_cause():
    """`浮点数为什么要进行规格化`: the sentence restating it covers the question best, but says no why."""
    hits = [make_hit(1, "非规格化浮点数需要进行规格化操作才能变成规格化浮点数。为提高运算的精度，需充分利用尾数的有效数位，"
                        "所以浮点数通常采取规格化形式。", path=("浮点数", "规格化"))]
    vocab = {"浮点数": 1, "浮点": 2, "规格化": 3, "进行": 4, "精度": 5, "尾数": 6}
    assert "精度" in select("浮点数为什么要进行规格化？", hits, vocab=vocab)[0].text
    assert select("浮点数怎样进行规格化？", hits, vocab=vocab)[0].text.startswith("非规格化")  # not a why-question


def test_an_exercises_working_is_no_reason():
    """`由于…所以…=300ms` has the cause words, but it works out an exercise: no why-answer, no bonus."""
    from pipeline.ask.keysentences import REASON_FACTOR, scored_candidates
    from pipeline.ask.question import asked_of

    working = "由于三次握手的第三步捎带请求，所以前两次握手算一个RTT，这里需要两个RTT=2×150=300ms。"
    reason = "由于三次握手的第三步捎带请求，所以前两次握手算一个RTT。"
    q = asked_of("三次握手为什么不能是两次？")
    weights = {c.text: c.weight for c in scored_candidates(q, [make_hit(1, working), make_hit(1, reason, chunk_id="c9")], q.terms)}
    assert weights[reason] == pytest.approx(weights[working] * REASON_FACTOR)


def test_a_records_analysis_keeps_an_announced_list_whole():
    """`具体有以下几种情况：（1）…（2）…`: the list is what answers, as in a note."""
    record = ("2015年 第38题（单项选择题）\n路由器收到分组后按哪条路由转发\nA. S1\nB. S2\nC. S3\nD. S4\n答案：C\n"
              "解析：路由器从分组中取出目的地址，在路由表中逐条检查，具体有以下几种情况：\n（1）只有一条路由记录匹配时，按它转发；\n"
              "（2）有多条路由记录匹配时，按最长前缀匹配原则，选网络前缀最长的那条转发。")
    hit = make_hit(1, record, kind="question", year=2015, number=38)
    keys = select("有多条路由记录都匹配时，路由器选哪一条转发？", [hit])
    assert "最长前缀匹配" in keys[0].text and keys[0].text.startswith("路由器从分组中取出目的地址")


def test_a_record_offers_its_answer_with_the_option_text_not_its_stem():
    record = "2009年 第1题（单项选择题）\n栈的特点是什么\nA. 先进先出\nB. 后进先出\n答案：B\n解析：栈是后进先出的线性表。"
    sents = record_sentences(record)
    assert sents == ["答案：B（后进先出）", "栈是后进先出的线性表。"]


def test_a_numbered_list_after_a_question_is_kept_whole():
    text = ("为什么客户端最后要等待一段时间才关闭？1. 保证最后一个确认报文段能够到达服务器，丢失时可以重传。"
            "2. 让本次连接中迟到的旧报文段在网络中消失，不影响下一次连接。此后连接彻底释放。")
    keys = select("为什么客户端最后要等待才关闭", [make_hit(1, text, path=("传输层", "连接释放"))])
    assert "1. 保证最后一个确认报文段" in keys[0].text and "2. 让本次连接中迟到的旧报文段" in keys[0].text
    assert "此后连接彻底释放" not in keys[0].text


def test_a_purpose_question_prefers_the_sentence_that_says_what_it_is_for():
    text = ("虚拟设备技术是一种以空间换时间的技术。虚拟设备技术需要磁盘上的输入井和输出井。"
            "操作系统用虚拟设备技术把一台独占的打印机改造为多个用户可以共享的设备。")
    keys = select("虚拟设备技术有什么用", [make_hit(1, text, path=("设备管理", "虚拟设备"))])
    assert keys[0].text.startswith("操作系统用虚拟设备技术把一台独占的打印机改造为")


# the index vocabulary (the query path matches the question's words against it; 目的 is one)
ADDRESSING_VOCAB = {w: i for i, w in enumerate(["指令系统", "指令", "系统", "采用", "不同", "寻址方式", "寻址", "方式", "目的"])}


def test_a_sentence_without_subject_takes_it_from_its_heading():
    """"目的是：…" says nothing of what it is the purpose of: its heading does. Of two such
    sentences, the one under the heading the question names leads, even from rank 2."""
    hits = [make_hit(1, "目的是：减少访存次数、加快地址变换。", path=("存储管理", "快表")),
            make_hit(2, "目的是：让地址码更短、可访问的范围更大、编程更灵活。", path=("指令系统", "多种寻址方式"))]
    keys = select("指令系统采用不同寻址方式的目的是什么", hits, vocab=ADDRESSING_VOCAB)
    assert keys[0].chunk_id == "c2"
    # a sentence that names its own subject does not borrow the heading's words
    hits = [make_hit(1, "目的是：减少访存次数、加快地址变换。", path=("存储管理", "快表")),
            make_hit(2, "快表的目的是减少访存。", path=("指令系统", "多种寻址方式"))]
    assert all(k.chunk_id != "c2" for k in select("指令系统采用不同寻址方式的目的是什么", hits, vocab=ADDRESSING_VOCAB))


def test_the_answer_line_of_another_past_paper_question_is_not_the_core():
    other = ("2019年 第43题（综合应用题）\n某计算机的指令系统有16条指令，采用单字长指令格式，寻址方式字段占3位。\n"
             "答案：指令系统最多16条指令，寻址方式字段3位，故地址码占9位。")
    notes = "多种寻址方式的目的：缩短指令长度、扩大寻址空间、提高编程灵活性。"
    hits = [make_hit(1, other, kind="question", year=2019, number=43, path=("2019年", "第43题")),
            make_hit(2, notes, path=("指令系统", "寻址方式"))]
    keys = select("指令系统采用不同寻址方式的目的是什么", hits)
    assert keys[0].text == notes
    # asked about that very question, its answer line leads
    keys = select("2019年第43题地址码占几位", hits)
    assert keys[0].text.startswith("答案：")


def test_an_outline_of_headings_says_nothing():
    syllabus = "(二)指令的寻址方式 1.有效地址的概念 2.数据寻址和指令寻址"
    notes = "采用不同寻址方式的目的是缩短指令长度。"
    keys = select("采用不同寻址方式的目的", [make_hit(1, syllabus, path=("考试大纲", "指令系统")),
                                      make_hit(2, notes, path=("指令系统", "寻址"))])
    assert keys[0].text == notes


def test_why_set_up_something_asks_what_it_is_for():
    """"为什么要设置缓冲区" is answered by the buffer's 作用, not by an exercise that merely names it."""
    hits = [make_hit(1, "例题 在单用户计算机上，下列I/O操作中需要使用缓冲技术的是（）。",
                     path=("设备管理习题", "缓冲区管理")),
            make_hit(2, "缓冲区的作用：缓和CPU与I/O设备之间速度不匹配的矛盾，减少对CPU的中断频率。",
                     path=("设备管理", "缓冲区管理"))]
    keys = select("操作系统为什么要在CPU和I/O设备之间设置缓冲区？", hits)
    assert keys[0].text.startswith("缓冲区的作用：缓和CPU与I/O设备之间速度不匹配")
    assert keys[0].score >= 0.6  # CORE_MIN_SCORE: the core may stand as the answer


def test_a_why_question_without_setting_up_is_not_a_purpose_question():
    assert not _ASKS_PURPOSE.search("为什么四次挥手最后要等2MSL才关闭")
    assert _ASKS_PURPOSE.search("为什么要引入快表")


def test_a_bulleted_list_after_an_announcement_is_kept_whole():
    """"+ 缓冲区作用：" is heading-short, yet it announces the list after it; a bullet after no colon
    starts no list."""
    text = "+ 缓冲区作用：\n+ 缓和CPU与I/O设备之间速度不匹配的矛盾。\n+ 减少对CPU的中断频率。\n+ 提高并行性。"
    assert joined_sentences(text)[0] == "+ 缓冲区作用： + 缓和CPU与I/O设备之间速度不匹配的矛盾。+ 减少对CPU的中断频率。+ 提高并行性。"
    plain = "缓冲区管理\n- 单缓冲。\n- 双缓冲。"
    assert joined_sentences(plain) == ["缓冲区管理 - 单缓冲。", "- 双缓冲。"]
    # a lead that does not say what it lists (`超时：`) keeps its bullets apart: a long run of loose notes
    # would cover any question's words
    changes = "引入线程之后的变化：\n- 线程是调度的基本单位。\n- 各线程间也能并发。"
    assert joined_sentences(changes) == ["引入线程之后的变化： - 线程是调度的基本单位。- 各线程间也能并发。"]
    notes = "重传：\n超时：\n+ 每发送一个报文段就设置一次计时器。\n+ 时延方差很大，采用自适应算法。"
    assert joined_sentences(notes)[1:] == ["+ 每发送一个报文段就设置一次计时器。", "+ 时延方差很大，采用自适应算法。"]


def test_a_sentence_that_explains_the_one_before_stays_with_it_and_its_list():
    text = ("TIME_WAIT\n客户端收到FIN后还要等待2MSL。这么做有两个理由：\n- 确保最后一个确认报文能够到达。\n"
            "- 让本连接的旧报文从网络中消失。\n此后关闭。")
    first = joined_sentences(text)[0]
    assert first.startswith("TIME_WAIT 客户端收到FIN后还要等待2MSL。这么做有两个理由：")
    assert first.endswith("- 让本连接的旧报文从网络中消失。")


def test_a_purpose_question_wants_the_sentence_saying_what_for_not_a_cause_in_passing():
    """Asked why something is introduced, `X的作用：` answers; `由于…因此` about something else does not,
    though both name X."""
    hits = [make_hit(1, "使用硬件作为缓冲区的成本较高，由于访问频率极高，因此联想寄存器也用作缓冲区。"
                        "缓冲区的作用：缓和CPU与I/O设备之间速度不匹配的矛盾。", path=("设备管理", "缓冲区管理"))]
    keys = select("I/O管理里为什么要引入缓冲区？", hits)
    assert keys[0].text.startswith("缓冲区的作用")


def test_after_a_definition_the_sentence_saying_what_it_is_for_is_added():
    """`X有什么用`: the definition names X, and the purpose is one more thing asked (``ASPECT``)."""
    terms = aspect_terms("虚拟设备技术有什么用")
    assert ASPECT in terms and terms[ASPECT] > 0
    assert ASPECT not in aspect_terms("虚拟设备技术是什么")
    hits = [make_hit(1, "虚拟设备技术是用软件模拟脱机输入输出的技术。", path=("设备管理", "虚拟设备")),
            make_hit(2, "打印机是独占设备，可以用虚拟设备技术改造成共享设备。", path=("设备管理", "共享打印机"))]
    texts = [k.text for k in select("虚拟设备技术有什么用", hits)]
    assert any("改造成共享设备" in t for t in texts)


def test_program_text_does_not_answer_a_concept_question():
    code = make_hit(1, "//初始化一个带头结点的单链表 bool InitList(LinkList &L){", path=("线性表", "单链表"))
    notes = make_hit(2, "头节点不存储数据，只是为了方便单链表之后的插入和删除操作。", path=("线性表", "单链表"))
    assert select("单链表为什么要加头结点", [code, notes])[0].chunk_id == "c2"  # 头节点 is 头结点
    assert select("单链表初始化的代码怎么写", [code, notes])[0].chunk_id == "c1"


def test_a_why_question_weighs_what_it_asks_to_explain():
    terms = question_terms("TCP四次挥手后客户端为什么要在TIME-WAIT状态等2MSL再关闭")
    assert terms["关闭"] > terms["挥手"]  # what follows 为什么 is explained; the rest sets the scene


# text that is no answer at rank 1, the answer at rank 2: the answer leads the 原文要点
NOT_ANSWERS = [
    # a sentence that says it gives the reason wins over a story told with 由于…所以
    pytest.param("为啥TCP建立连接要三次握手",
     ("攻击者发送大量TCP连接，由于每一个都没法完成三次握手，所以服务器资源耗尽。", ("传输层", "SYN洪泛")),
     ("TCP三次握手的原因：第三次握手是为了防止失效的连接请求到达服务器。", ("传输层", "连接建立")), id="reason"),
    # a choice stem with its answer filled in is still a question
    pytest.param("DRAM为啥要定期刷新？",
     ("【2018年真题】为保证地址引脚数最少并减小刷新开销，DRAM芯片的行数、列数分别是（C）", ("存储系统", "DRAM")),
     ("DRAM靠电容存储电荷，电荷会泄漏，所以DRAM要定期刷新。", ("存储系统", "DRAM")), id="filled-stem"),
    # a sentence pointing elsewhere says nothing
    pytest.param("TCP的快重传是咋回事？",
     ("快重传（冗余ACK）在可靠传输中已经提到过。", ("传输层", "快重传")),
     ("快重传是指发送方一连收到三个重复确认就立即重传，不必等超时。", ("传输层", "拥塞控制")), id="elsewhere"),
    # an exercise with its options is no answer
    pytest.param("冯诺依曼机的存储程序是什么意思",
     ("例题：冯诺依曼机的基本工作方式是：A.控制流驱动方式 B.多指令多数据流方式", ("计算机系统", "冯诺依曼")),
     ("存储程序：将指令以代码的形式事先输入主存储器，再按地址顺序执行。", ("计算机系统", "冯诺依曼")), id="options"),
    # the cause of something else: asked why the wait lasts 2MSL, not why there are four steps
    pytest.param("为什么四次挥手最后要等2MSL才关闭",
     ("四次挥手的原因 客户端发出FIN报文后，服务器收到就进入CLOSE-WAIT状态。", ("传输层", "四次挥手")),
     ("客户端最后等2MSL再关闭，是为了让最后一个确认丢失时还能重发。", ("传输层", "TIME-WAIT")), id="cause-of-other"),
    # "是干什么的" asks what for; "这样可以使…" says it, a mention in an exercise's working does not
    pytest.param("流水线里的数据旁路技术是干什么的",
     ("题目说流水线没有采用转发，也就是说无法使用数据旁路技术，所以只能等。", ("CPU习题", "流水线")),
     ("数据旁路技术不等结果写回寄存器，直接送给下一条指令，这样可以使流水线不停顿。", ("CPU", "流水线")), id="what-for"),
    # what a past paper tests names a topic, it says nothing of it
    pytest.param("指令流水线的数据相关是什么",
     ("考查指令流水线的数据相关。", ("2010年", "第19题")),
     ("数据相关指后一条指令要用到前一条指令的结果，而结果还没写回。", ("CPU", "流水线")), id="tested-topic"),
]


@pytest.mark.parametrize("question, noise, answer", NOT_ANSWERS)
def test_what_is_no_answer_gives_way_to_the_answer(question, noise, answer):
    hits = [make_hit(1, noise[0], path=noise[1]), make_hit(2, answer[0], path=answer[1])]
    assert select(question, hits)[0].chunk_id == "c2"


def test_the_scene_of_a_question_is_not_what_it_asks_about():
    terms = question_terms("IP数据报首部里的生存时间TTL有什么作用？")
    assert terms["首部"] < terms["生存"] and terms["ttl"] > terms["ip"]
    ttl = make_hit(1, "名称：生存时间；注释：每经过一个路由器TTL减1，为了防止数据报在网络中无限传输。", path=("网络层", "IP数据报"))
    other = make_hit(2, "名称：有效载荷长度；作用：扩展首部加数据部分的长度，IPv6首部长度固定。", path=("网络层", "IPv6"))
    # the other field's row says 首部 and 作用, nothing of TTL: no key sentence
    assert [k.chunk_id for k in select("IP数据报首部里的生存时间TTL有什么作用？", [ttl, other])] == ["c1"]
