"""Contrast questions (pipeline/ask/contrast.py): each side's sentence from the passages, quoted after the
answer; golden cases on made-up study text."""

from answer_helpers import make_hit

from pipeline.ask import contrast
from pipeline.ask.answer import answer, render
from pipeline.ask.claims import load_rules
from pipeline.ask.retrieve import Retrieval
from pipeline.llm.fake import FakeLlm

RULES = load_rules()
FRAGMENTS = ("内部碎片是指已经分配给进程但进程没有用上的那部分内存空间。"
             "外部碎片是指内存中还没有分配出去、但因为太小而无法分配给任何进程的空闲分区。"
             "内部碎片和外部碎片都会降低内存的利用率。")
QUESTION = "内部碎片和外部碎片有什么区别？"


def _hits(*texts):
    return [make_hit(i, t, path=("第三章 内存管理", f"3.{i} 碎片")) for i, t in enumerate(texts, 1)]


def test_each_side_is_the_sentence_that_says_it_of_that_thing():
    found = contrast.sides(QUESTION, _hits(FRAGMENTS), RULES)
    assert [t for t, _ in found] == ["内部碎片", "外部碎片"]
    assert found[0][1].text.startswith("内部碎片是指已经分配给进程")
    assert found[1][1].text.startswith("外部碎片是指内存中还没有分配出去")
    # the sentence naming both says nothing of one side
    assert all("都会降低" not in k.text for _, k in found)


def test_a_thing_that_is_not_the_subject_is_not_its_side():
    text = ("间接寻址是相对于直接寻址而言的，形式地址给出的是操作数地址的地址。"
            "一次间接寻址取操作数需要访问主存两次，先取有效地址再取操作数。")
    assert contrast.sides("直接寻址和间接寻址有什么区别", _hits(text), RULES) == []  # no sentence is 直接寻址's


def test_half_a_contrast_is_nothing_and_no_contrast_no_sides():
    only_one = "内部碎片是指已经分配给进程但进程没有用上的那部分内存空间。"
    assert contrast.sides(QUESTION, _hits(only_one), RULES) == []
    assert contrast.sides("内部碎片是什么", _hits(FRAGMENTS), RULES) == []


def test_the_block_is_left_out_when_the_answer_already_quotes_both():
    found = contrast.sides(QUESTION, _hits(FRAGMENTS), RULES)
    assert contrast.block(found, "").startswith("\n" + contrast.HEAD)
    assert contrast.block(found, found[0][1].text + found[1][1].text) == ""


def test_an_answer_that_tells_one_side_gets_both_sides_quoted_after_it():
    hits = _hits(FRAGMENTS)
    retrieval = Retrieval(hits=hits, coverage=1.0, best_bm25=20.0, passage_coverage=1.0)
    streamed: list[str] = []
    llm = FakeLlm(["内部碎片是指已经分配给进程但进程没有用上的那部分内存空间[1]。"])
    a = answer(QUESTION, retrieval, llm, on_token=streamed.append)
    assert a.source == "llm" and contrast.HEAD in a.answer
    assert "外部碎片：外部碎片是指内存中还没有分配出去" in a.answer and hits[0].citation in a.answer
    assert "".join(streamed) == render(a)


def test_a_side_may_be_named_as_the_book_names_it():
    """The question says 慢启动, the passage 慢开始 (``names.same`` in the claim rules)."""
    text = ("慢开始阶段每收到一个确认，拥塞窗口就增加一个报文段，窗口每个往返时间翻一番，呈指数增长。"
            "拥塞避免阶段每经过一个往返时间拥塞窗口只增加一个报文段，窗口按线性规律缓慢增长。")
    found = contrast.sides("慢启动和拥塞避免阶段拥塞窗口的增长有什么区别", _hits(text), RULES)
    assert [t for t, _ in found] == ["慢启动", "拥塞避免"]
    assert found[0][1].text.startswith("慢开始阶段") and found[1][1].text.startswith("拥塞避免阶段")
    # without the synonym there is no 慢启动 side, so nothing (half a contrast is nothing)
    assert contrast.sides("快启动和拥塞避免阶段拥塞窗口的增长有什么区别", _hits(text), RULES) == []
