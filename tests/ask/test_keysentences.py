"""The grounded core: the sentences of the passages that cover the question, with citations."""

from answer_helpers import make_hit

from pipeline.ask.keysentences import select

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
