"""Contrast questions (pipeline/ask/contrast.py, contrast_facts.py): a table of what the passages say of each
side, aspect by aspect; golden cases on made-up study text (our own wording)."""

import pytest
from answer_helpers import make_hit

from pipeline.ask import contrast
from pipeline.ask.answer import AnswerConfig, answer, render
from pipeline.ask.citations import targets
from pipeline.ask.claims import load_rules
from pipeline.ask.contrast_facts import facts, lines
from pipeline.ask.retrieve import Retrieval
from pipeline.llm.fake import FakeLlm

RULES = load_rules()
FRAGMENTS = ("内部碎片是指已经分配给进程但进程没有用上的那部分内存空间。"
             "外部碎片是指内存中还没有分配出去、但因为太小而无法分配给任何进程的空闲分区。"
             "内部碎片和外部碎片都会降低内存的利用率。")
QUESTION = "内部碎片和外部碎片有什么区别？"
# the book's words (慢开始) for the question's (慢启动); the phase named inside its clause, not first
WINDOW = ("慢开始与拥塞避免\n"
          "一开始执行的是慢开始，窗口从1起步，每收到一轮确认窗口就翻一番，所以窗口按指数增长。"
          "窗口涨到慢开始门限以后转入拥塞避免，每个往返时间窗口只加1，窗口按线性增长。"
          "慢开始和拥塞避免都是发送方控制拥塞窗口的办法。")
SLOW = "TCP的拥塞控制中慢启动和拥塞避免的区别是什么"


def _hits(*texts, path=("第三章 内存管理", "3.1 碎片")):
    return [make_hit(i, t, path=path) for i, t in enumerate(texts, 1)]


def _cells(table):
    """{aspect: (left cell text or None, right cell text or None)}"""
    return {r.aspect: tuple(c.text if c else None for c in r.cells) for r in table.rows}


def test_the_window_rows_quote_each_phase_in_its_own_column():
    t = contrast.table(SLOW, _hits(WINDOW, path=("第五章 传输层", "5.8 拥塞控制")), RULES)
    assert t.things == ["慢启动", "拥塞避免"] and t.full_rows >= 1
    left, right = t.rows[0].cells
    assert left.text.startswith("一开始执行的是慢开始") and "指数" in left.text
    assert right.text.startswith("窗口涨到慢开始门限以后转入拥塞避免") and "线性" in right.text
    # the sentence naming both is in no column; 慢开始门限 is not 慢开始
    shown = contrast.render(t)
    assert "都是发送方" not in shown
    assert "\n  慢启动：一开始执行的是慢开始" in shown and "\n  拥塞避免：窗口涨到" in shown
    assert shown.startswith(contrast.HEAD) and "\n" + contrast.ASPECT in shown


def test_each_side_of_a_definition_pair():
    t = contrast.table(QUESTION, _hits(FRAGMENTS), RULES)
    (left, right), = [r.cells for r in t.rows if r.full][:1]
    assert left.text.startswith("内部碎片是指已经分配给进程")
    assert right.text.startswith("外部碎片是指内存中还没有分配出去")
    assert all("都会降低" not in (c.text if c else "") for r in t.rows for c in r.cells)


WRONG_COLUMN = [
    # (text, question): no cell of either column may hold what the text says of the other side
    ("与拥塞避免不同，慢开始阶段的窗口每轮翻一番，增长得很快。拥塞避免阶段窗口每轮只加一。", SLOW),
    ("慢开始阶段窗口每轮翻一番，而拥塞避免阶段窗口每轮只加一，增长缓慢。", SLOW),
    ("固定分区分配不会产生外部碎片，但是会产生内部碎片，内部碎片留在分区里面。"
     "外部碎片是分区之间那些太小而无法再分配出去的空闲区域。", QUESTION),
    ("TCP/IP模型的网络层只提供无连接的服务。UDP是无连接的协议，首部只有八个字节。TCP是面向连接的协议，需要三次握手。",
     "TCP和UDP在建立连接上有什么区别"),
]
SAYS = {  # what each text says of one side only
    0: {"翻一番": 0, "只加一": 1, "增长缓慢": 1, "增长得很快": 0},
    1: {"翻一番": 0, "只加一": 1, "增长缓慢": 1},
    2: {"留在分区里面": 0, "太小而无法再分配": 1},
    3: {"八个字节": 1, "三次握手": 0, "只提供无连接的服务": None},
}


@pytest.mark.parametrize("case", range(len(WRONG_COLUMN)))
def test_a_clause_about_one_side_is_never_in_the_other_column(case):
    text, question = WRONG_COLUMN[case]
    things = contrast.contrasted(question, RULES)
    found = facts(things, _hits(text), RULES)
    assert found, "the text states facts of at least one side"
    for f in found:
        for words, side in SAYS[case].items():
            if words in f.text:
                assert side == f.side, f"{words!r} put under {things[f.side]}: {f.text}"


def test_a_longer_name_or_an_object_is_no_side():
    # 寄存器间接寻址 is not 间接寻址; "采用…直接寻址" speaks of something else
    text = ("寄存器间接寻址的操作数在主存中，需要访问一次主存。某些指令采用直接寻址方式以减少计算量，执行速度较快。"
            "直接寻址的形式地址就是操作数的有效地址，只访问主存一次。")
    found = facts(["直接寻址", "间接寻址"], _hits(text), RULES)
    assert [f.side for f in found] == [0] and found[0].text.startswith("直接寻址的形式地址")


def test_an_exercise_s_task_states_nothing_of_either_side():
    # what an exercise assumes (假设…直接映射，求…) holds for that exercise only
    text = ("假设地址映射方式为直接映射，求Cache命中次数。假设地址映射方式为组相联映射，分别指出标记、组号的位数。"
            "直接映射的每个主存块只能放到Cache中唯一的一行。组相联映射的主存块可以放到对应组中的任意一行。")
    found = facts(["直接映射", "组相联映射"], _hits(text), RULES)
    assert [f.text for f in found] == ["直接映射的每个主存块只能放到Cache中唯一的一行。",
                                       "组相联映射的主存块可以放到对应组中的任意一行。"]


def test_the_same_two_sentences_in_two_passages_make_one_row():
    text = "直接映射的每个主存块只能放到Cache中唯一的一行。组相联映射的主存块可以放到对应组中的任意一行。"
    t = contrast.table("直接映射和组相联映射有什么区别", _hits(text, text), RULES)
    assert len(t.rows) == 1 and t.full_rows == 1


def test_a_table_row_gives_one_fact_per_field_and_rows_pair_the_fields():
    rows = ("分页；单位：信息的物理单位；大小：固定，由系统决定\n"
            "分段；单位：信息的逻辑单位；大小：不固定，由用户程序决定")
    t = contrast.table("分页和分段有什么区别", _hits(rows), RULES)
    assert _cells(t)["单位"] == ("单位：信息的物理单位", "单位：信息的逻辑单位")
    assert _cells(t)["大小"] == ("大小：固定，由系统决定", "大小：不固定，由用户程序决定")
    # the transposed form: the row names the aspect, the columns the things
    flipped = "协议：选路算法；RIP：距离向量；OSPF：链路状态；BGP：路径向量"
    t = contrast.table("RIP和OSPF用的算法有什么区别", _hits(flipped), RULES)
    assert _cells(t)["选路算法"] == ("RIP：距离向量", "OSPF：链路状态")  # the row's own word; BGP's value is no one's
    assert "\n  RIP：距离向量 [来源" in contrast.render(t)  # the cell names its side already


def test_every_row_of_the_materials_own_table_is_shown_and_prose_pairs_stay_few():
    """A table of the material is its own comparison: all its rows (up to MAX_TABLE_ROWS), not the
    first three; rows paired from prose stay at MAX_ROWS (beyond, they pair loosely related sentences)."""
    fields = ["存储信息；SRAM：触发器；DRAM：电容", "破坏性读出；SRAM：非；DRAM：是", "需要刷新；SRAM：不要；DRAM：需要",
              "运行速度；SRAM：快；DRAM：慢", "集成度；SRAM：低；DRAM：高", "存储成本；SRAM：高；DRAM：低"]
    t = contrast.table("SRAM和DRAM的区别是什么？", _hits("\n".join(fields)), RULES)
    assert list(_cells(t)) == ["存储信息", "破坏性读出", "需要刷新", "运行速度", "集成度", "存储成本"]
    many = "\n".join(f"方面{i}；SRAM：值甲{i}；DRAM：值乙{i}" for i in range(12))
    assert len(contrast.table("SRAM和DRAM的区别是什么？", _hits(many), RULES).rows) == contrast.MAX_TABLE_ROWS
    prose = ("内部碎片是指分配给进程但没有用上的内存空间。外部碎片是指没有分配出去但太小而无法分配的空闲分区。"
             "内部碎片出现在固定分区和分页的内存管理中。外部碎片出现在动态分区和分段的内存管理中。"
             "内部碎片的大小不超过一页的页内空间。外部碎片的大小可以是内存中任意小的空闲区。"
             "内部碎片无法用紧凑技术消除的方法回收。外部碎片可以用紧凑技术消除的方法回收。")
    assert len(contrast.table(QUESTION, _hits(prose), RULES).rows) <= contrast.MAX_ROWS


def test_a_table_row_glued_to_the_sentence_before_it_is_still_a_row():
    """A chunk may join a list's last item and a table's first row in one line (seen: the 建立连接 row of
    虚电路/数据报 was lost so); a single `X；Y：` after a full stop in prose stays prose."""
    text = ("+ 分组首部包含虚电路号，开销小。建立连接；数据报服务：不用；虚电路服务：必须\n"
            "分组顺序；数据报服务：不保证有序；虚电路服务：保证有序")
    t = contrast.table("虚电路服务和数据报服务有什么不同？", _hits(text), RULES)
    assert _cells(t)["建立连接"] == ("虚电路服务：必须", "数据报服务：不用")
    prose = "分页的单位是页。其特点；优点：实现简单。"
    assert lines(prose) == [prose]


def test_an_aspect_one_side_leaves_open_is_marked_and_half_a_table_is_none():
    text = (FRAGMENTS + "紧凑技术可以把外部碎片拼接成一大块连续的空闲区。")
    t = contrast.table("内部碎片和外部碎片在拼接上有什么区别", _hits(text), RULES)
    assert any(r.cells[0] is None and "拼接" in r.cells[1].text for r in t.rows)
    assert f"  内部碎片：{contrast.UNSAID}" in contrast.render(t)
    only_one = "内部碎片是指已经分配给进程但进程没有用上的那部分内存空间。"
    assert contrast.table(QUESTION, _hits(only_one), RULES) is None
    assert contrast.table("内部碎片是什么", _hits(FRAGMENTS), RULES) is None


def test_the_block_leaves_out_the_rows_the_answer_quotes():
    t = contrast.table(QUESTION, _hits(FRAGMENTS), RULES)
    assert contrast.block(t, "").startswith("\n" + contrast.HEAD)
    quoted = "".join(c.text for r in t.rows for c in r.cells if c)
    assert contrast.block(t, quoted) == ""
    assert contrast.block(None, "") == ""


def _retrieval(hits, side_hits=()):
    return Retrieval(hits=hits, coverage=1.0, best_bm25=20.0, passage_coverage=1.0, side_hits=list(side_hits))


def test_a_failed_answer_is_replaced_by_the_table_not_one_generic_sentence():
    generic = make_hit(1, "TCP的拥塞控制用到四种算法：慢开始、拥塞避免、快重传和快恢复。", path=("第五章 传输层", "5.8 拥塞控制"))
    side = make_hit(2, WINDOW, path=("第五章 传输层", "5.8.1 慢开始与拥塞避免"), chunk_id="side1")
    streamed: list[str] = []
    llm = FakeLlm(["慢启动阶段窗口按线性增长，拥塞避免阶段窗口按指数增长[1]。"])  # reversed: fails the check
    a = answer(SLOW, _retrieval([generic], [side]), llm, cfg=AnswerConfig(contrast_table_first=False),
               on_token=streamed.append)
    assert a.source == "grounded" and a.contrast is not None and a.contrast.answers == "fallback"
    assert a.answer.startswith(contrast.HEAD) and "一开始执行的是慢开始" in a.answer
    assert "窗口按线性增长，拥塞避免阶段窗口按指数" not in render(a)
    assert "".join(streamed) == render(a)
    # the cell from a side's own passage opens where it was read (the web page's chips)
    assert side.citation in targets(a, lambda ids: {i: side for i in ids if i == side.chunk_id})


def test_a_checked_answer_is_followed_by_the_table():
    hits = _hits(FRAGMENTS)
    streamed: list[str] = []
    llm = FakeLlm(["内部碎片是指已经分配给进程但进程没有用上的那部分内存空间[1]。"])
    a = answer(QUESTION, _retrieval(hits), llm, cfg=AnswerConfig(contrast_table_first=False), on_token=streamed.append)
    assert a.source == "llm" and contrast.HEAD in a.answer and a.contrast is not None
    assert "外部碎片：外部碎片是指内存中还没有分配出去" not in a.answer  # named already: not twice
    assert "  外部碎片是指内存中还没有分配出去" in a.answer and hits[0].citation in a.answer
    assert "".join(streamed) == render(a)


def test_with_two_full_rows_the_table_answers_without_the_model():
    rows = ("分页；单位：信息的物理单位；大小：固定，由系统决定\n"
            "分段；单位：信息的逻辑单位；大小：不固定，由用户程序决定")
    llm = FakeLlm([])  # any call would raise
    streamed: list[str] = []
    a = answer("分页和分段有什么区别", _retrieval(_hits(rows)), llm, on_token=streamed.append)  # the default
    assert a.source == "grounded" and a.contrast.answers == "alone" and not llm.calls
    assert "信息的逻辑单位" in render(a) and "".join(streamed) == render(a)
    assert "与资料不一致" not in render(a)  # no model answer was refused


def test_a_side_may_be_named_as_the_book_names_it():
    """The question says 慢启动, the passage 慢开始 (``names.same`` in the claim rules)."""
    t = contrast.table(SLOW, _hits(WINDOW), RULES)
    assert t is not None
    assert contrast.table("快启动和拥塞避免的区别是什么", _hits(WINDOW), RULES) is None  # no 快启动 side


def test_side_queries_search_each_side_and_the_two_compared():
    qs = contrast.side_queries(SLOW, RULES)
    assert qs[0].startswith("慢启动 慢开始") and qs[1].startswith("拥塞避免") and qs[2] == "慢启动 拥塞避免 区别"
    assert contrast.side_queries("慢开始是什么", RULES) == []


def test_a_list_of_more_than_two_or_a_count_is_no_contrast():
    assert contrast.contrasted("中继器、集线器、网桥和路由器里哪个能隔离冲突域？", RULES) == []
    assert contrast.contrasted("冒泡排序的比较次数和初始序列有关系吗", RULES) == []  # 比较次数 is a count
    assert contrast.contrasted("快速排序和归并排序，哪个更省空间？", RULES) == ["快速排序", "归并排序"]


def test_a_fact_of_each_is_asked_of_the_model_and_the_table_follows():
    """"分页和分段分别以什么为单位" asks one fact of each, which one key sentence may state for both: the
    table is not the answer on its own (the model is asked; the table follows its checked answer)."""
    rows = ("分页；单位：信息的物理单位；大小：固定，由系统决定\n"
            "分段；单位：信息的逻辑单位；大小：不固定，由用户程序决定")
    llm = FakeLlm(["分页以信息的物理单位划分，分段以信息的逻辑单位划分[1]。"])
    a = answer("分页和分段分别以什么为单位", _retrieval(_hits(rows)), llm)
    assert llm.calls and a.source == "llm"
    assert contrast.asks_difference("分页和分段有什么区别") and not contrast.asks_difference("分页和分段分别以什么为单位")


# our own wording: a passage that states the difference itself, point by point
STATED = ("顺序表和链表都是线性表的存储结构。顺序表和链表的主要区别有以下几点。（1）顺序表用一组地址连续的存储单元依次存放元素，"
          "链表的结点在内存中可以不连续；（2）顺序表可以随机存取，链表只能从头指针开始顺序存取。（3）顺序表插入删除要移动元素，"
          "链表只需修改指针。链表的每个结点还要多占一个指针域。")


def test_a_difference_the_material_states_is_the_answer_whole_without_the_model():
    llm = FakeLlm([])  # any call would raise
    streamed: list[str] = []
    a = answer("顺序表和链表的区别是什么", _retrieval(_hits(STATED, path=("第二章 线性表", "2.3 比较"))), llm,
               on_token=streamed.append)
    assert a.source == "grounded" and a.contrast.answers == "stated" and not llm.calls
    shown = render(a)
    assert shown.startswith("解答：\n" + contrast.STATED_HEAD) and "".join(streamed) == shown
    # the sentence with its numbered points, all three, and not the sentence after them
    assert "主要区别有以下几点。（1）" in shown and "（3）顺序表插入删除要移动元素，链表只需修改指针。" in shown
    assert "多占一个指针域" not in shown and a.hits[0].citation in shown


BTREES = ("B树是多路平衡查找树。B树和B+树的主要区别有以下几点。（1）B+树的叶结点包含全部关键字，B树的关键字不重复；"
          "（2）B+树的叶结点用指针链接，适合范围查询。B树的查找可以在非叶结点结束。")


def test_a_stated_difference_is_found_in_the_best_passages_when_no_key_sentence_holds_it():
    """"有何不同" / "不一样" do not share the passage's 区别: its statement ranks low as a key sentence,
    so the best passages' own sentences are looked at too (both sides named, a difference stated)."""
    hits = _hits(BTREES, path=("第七章 查找", "7.3 B树"))
    keys = [contrast.KeySentence(text="B树是多路平衡查找树。", chunk_id=hits[0].chunk_id, citation=hits[0].citation)]
    for question in ("B树与B+树有何不同", "B树和B+树有什么不一样"):
        said = contrast.stated(question, keys, hits, RULES)
        assert said is not None and said.answers == "stated", question
        assert said.stated.text.startswith("B树和B+树的主要区别有以下几点。（1）") and "（2）" in said.stated.text
        assert "非叶结点结束" not in said.stated.text and said.stated.citation == hits[0].citation
    assert contrast.stated("B树和B+树分别适合什么查询", keys, hits, RULES) is None  # no difference asked


@pytest.mark.parametrize("question, text", [
    ("顺序表和链表分别怎样存取元素", STATED),  # a fact of each is asked: the model answers
    ("顺序表和链表的区别是什么", "顺序表的主要区别在于地址连续。链表由结点构成，结点含数据域和指针域。"),  # one side only
    ("B树和B+树的区别是什么", "B+树和平衡树的主要区别在于叶结点用指针链接。"),  # B树 only inside B+树
])
def test_no_stated_difference(question, text):
    hits = _hits(text)
    keys = [contrast.KeySentence(text=t, chunk_id=hits[0].chunk_id, citation=hits[0].citation)
            for t in text.split("。") if t]
    assert contrast.stated(question, keys, hits, RULES) is None
