"""The grounded core: the sentences of the passages that cover the question, with citations."""

from answer_helpers import make_hit

from pipeline.ask.keysentences import joined_sentences, record_sentences, select

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


def test_a_record_offers_its_answer_with_the_option_text_not_its_stem():
    record = "2009年 第1题（单项选择题）\n栈的特点是什么\nA. 先进先出\nB. 后进先出\n答案：B\n解析：栈是后进先出的线性表。"
    sents = record_sentences(record)
    assert sents == ["答案：B（后进先出）", "栈是后进先出的线性表。"]
