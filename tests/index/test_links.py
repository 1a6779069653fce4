from pipeline.index.links import link_questions
from pipeline.index.bm25 import Bm25Index
from pipeline.text.tokenize import tokenize
from pipeline.models import Chunk


def _chunk(cid, kind, path, text):
    return Chunk(chunk_id=cid, doc_id="d", source="s", kind=kind, chapter_path=path, chunk_position=1, text=text)


def test_question_links_to_section_not_to_other_questions():
    chunks = [
        _chunk("s1", "textbook", ["第七章 查找", "7.2 折半查找"], "折半查找要求有序顺序表，判定树高度决定最多比较次数。"),
        _chunk("s2", "textbook", ["第八章 排序", "8.2 交换排序"], "快速排序选取枢轴，平均时间复杂度为O(nlog2 n)。"),
        _chunk("s3", "paper", ["2024年卷", "一、单项选择题"], "折半查找 折半查找 折半查找 的说明文字"),
        _chunk("q1", "question", ["2024年卷", "一、单项选择题", "第1题"], "对有序表进行折半查找，最多比较几次？"),
        _chunk("q2", "question", ["2024年卷", "一、单项选择题", "第2题"], "折半查找的判定树是什么？"),
    ]
    tokens = [tokenize(c.text) for c in chunks]
    bm25 = Bm25Index.build([c.chunk_id for c in chunks], tokens)
    links = link_questions(chunks, tokens, bm25)
    assert links["q1"] == [["第七章 查找", "7.2 折半查找"]]
    assert set(links) == {"q1", "q2"}
