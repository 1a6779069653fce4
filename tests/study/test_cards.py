"""Cards from the material: the definition and cloze rules on our own sentences, section limits,
stable ids, and model-written cards kept only when the claim check backs them."""

from __future__ import annotations

import pytest

from pipeline.models import Chunk
from pipeline.study.cards import card_from_sentence, card_id, llm_cards, section_cards


def chunk(text: str, path=("第三章 栈和队列", "3.1 栈"), cid="k1") -> Chunk:
    return Chunk(chunk_id=cid, doc_id="d1", source="讲义.pdf", kind="textbook", chapter_path=list(path),
                 chunk_position=1, pages=[12], text=text)


@pytest.mark.parametrize("sentence,front,back", [
    ("栈是只允许在一端进行插入和删除操作的线性表。", "什么是栈？", "栈是只允许在一端进行插入和删除操作的线性表。"),
    ("循环队列（环形队列）是把存储队列的数组看成首尾相接的环的队列。", "什么是循环队列？", None),
    ("中断向量是指中断服务程序的入口地址及其程序状态字。", "什么是中断向量？", None),
])
def test_definitions(sentence, front, back):
    c = card_from_sentence(sentence, chunk(sentence))
    assert c.card_type == "definition" and c.front == front and c.back == (back or sentence)
    assert c.sentence == sentence and c.citation == "[来源: 第三章 栈和队列 › 3.1 栈|第12页·片段1]"


@pytest.mark.parametrize("sentence", [
    "其基本思想是先进后出，后进先出的次序管理元素。",  # a pronoun opens it
    "栈的主要特点是后进先出，它在递归中大量使用。",  # 的 in the term: a property of something
    "二路归并排序是稳定的。",  # nothing defined: a property in 3 chars
    "为什么要设置栈底指针是一个常见的问题吗",  # a question word
    "新插入的元素一定是放在栈顶位置上面的。",  # an adverb before 是
])
def test_not_definitions(sentence):
    c = card_from_sentence(sentence, chunk(sentence))
    assert c is None or c.card_type != "definition", c


@pytest.mark.parametrize("sentence,hidden", [
    ("只允许在表的一端插入、在另一端删除的线性表称为队列，它的特点是先进先出。", "队列"),
    ("顺序栈又称向量栈，用一组地址连续的单元存放元素。", "向量栈"),
    ("用两个栈模拟一个队列时，出队操作的均摊时间复杂度为O(1)。", "O(1)"),
])
def test_clozes(sentence, hidden):
    c = card_from_sentence(sentence, chunk(sentence))
    assert c.card_type == "cloze" and c.back == hidden
    assert c.front == sentence.replace(hidden, "{{c1::" + hidden + "}}", 1)


def test_a_sentence_with_nothing_to_ask_gives_no_card():
    assert card_from_sentence("下面看一个例子。", chunk("下面看一个例子。")) is None
    assert card_from_sentence("栈很常用，应该多练习几道题。", chunk("x")) is None


def test_a_section_gives_at_most_its_limit_key_sentence_first():
    text = ("在递归调用时系统会用到栈。栈是只允许在一端进行插入和删除操作的线性表。"
            "允许插入和删除的一端称为栈顶，另一端称为栈底。进栈和出栈的时间复杂度均为O(1)。"
            "顺序栈又称向量栈，用一组地址连续的单元存放元素。")
    cards = section_cards([chunk(text)], limit=3)
    assert [c.card_type for c in cards] == ["definition", "cloze", "cloze"]
    assert cards[0].front == "什么是栈？" and cards[1].back == "栈顶" and cards[2].back == "O(1)"
    again = section_cards([chunk(text, cid="k2")], limit=3)
    assert [c.item_id for c in again] == [c.item_id for c in cards]  # same text, same ids: reviews are kept
    assert {c.chunk_id for c in again} == {"k2"}
    assert card_id("cloze", "a{{c1::b}}", "b") != card_id("definition", "a{{c1::b}}", "b")


def test_model_written_cards_pass_the_claim_check_or_are_rejected():
    from pipeline.llm.fake import FakeLlm

    text = "栈是只允许在一端进行插入和删除操作的线性表。进栈和出栈的时间复杂度均为O(1)。栈的应用包括括号匹配和递归。"
    llm = FakeLlm("问：栈的进栈操作时间复杂度是多少？\n答：进栈的时间复杂度为O(1)。\n"
                  "问：栈可以用来做什么？\n答：栈可以用于括号匹配和递归。\n"
                  "问：栈最多能存放多少个元素？\n答：一个栈最多可以存放100个元素。\n"
                  "问：队列有什么用？\n答：队列可以用于操作系统的作业调度。\n")
    kept, rejected = llm_cards(chunk(text), llm.complete)
    assert [c.back for c in kept] == ["进栈的时间复杂度为O(1)。", "栈可以用于括号匹配和递归。"]
    assert all(c.origin == "llm" and c.card_type == "qa" and c.citation.startswith("[来源:") for c in kept)
    assert [r["back"] for r in rejected] == ["一个栈最多可以存放100个元素。", "队列可以用于操作系统的作业调度。"]
    assert "number 100" in rejected[0]["reason"] and "overlap" in rejected[1]["reason"]
    assert "只根据给出的资料" in llm.calls[0][0] and text in llm.calls[0][1]
