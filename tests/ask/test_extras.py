"""Study extras come from the material only: its sections and its answered past-paper questions."""

from pipeline.ask.extras import heading_term, study_extras
from pipeline.ask.retrieve import to_hit
from pipeline.index.catalog import Catalog, write_catalog
from pipeline.models import Chunk

CH = "第七章 查找"


def _chunk(cid, path, text, kind="textbook", pages=(3,), **kw):
    return Chunk(chunk_id=cid, doc_id="d", source="书.pdf", kind=kind, chapter_path=list(path), chunk_position=1,
                 pages=list(pages), text=text, **kw)


def _catalog(tmp_path, chunks):
    write_catalog(tmp_path / "c.sqlite", chunks)
    return Catalog(tmp_path / "c.sqlite")


CHUNKS = [
    _chunk("c72", [CH, "7.2 折半查找"], "折半查找要求线性表有序且顺序存储，时间复杂度为O(log2n)。"),
    _chunk("c73", [CH, "7.3 分块查找"], "分块查找又称索引顺序查找，块间有序、块内无序。", pages=[4]),
    _chunk("c74", [CH, "7.4 散列表"], "本节讨论哈希函数的构造。", pages=[5]),  # does not open by naming 散列表
    _chunk("c81", ["第八章 排序", "8.1 插入排序"], "插入排序是稳定的。", pages=[6]),
    _chunk("q42", ["2019年真题", "第42题"], "2019年 第42题（综合应用题）\n设计折半查找的非递归算法。\n答案：见解析\n解析：low、high…",
           kind="question", year=2019, number=42, chapter_paths=[[CH, "7.2 折半查找"]]),
    _chunk("q01", ["2019年真题", "第1题"], "2019年 第1题（单项选择题）\n下列排序算法中稳定的是", kind="question",
           year=2019, number=1, chapter_paths=[[CH, "7.2 折半查找"]]),  # no answer in the record: never offered
]


def test_review_and_further_questions_cite_the_material(tmp_path):
    catalog = _catalog(tmp_path, CHUNKS)
    extras = study_extras([to_hit(CHUNKS[0], 1, 9.0)], catalog)
    assert extras.review == "先复习 第七章 查找 › 7.2 折半查找（第3页），再做真题 2019年第1题、2019年第42题。"
    assert [q.question for q in extras.questions] == ["2019年第42题：设计折半查找的非递归算法。", "什么是分块查找？"]
    assert [q.chunk_id for q in extras.questions] == ["q42", "c73"]
    assert extras.questions[1].citation == CHUNKS[1].citation()


def test_nothing_to_offer_is_empty_not_invented(tmp_path):
    catalog = _catalog(tmp_path, [CHUNKS[3]])
    extras = study_extras([to_hit(CHUNKS[3], 1, 5.0)], catalog)
    assert extras.questions == [] and extras.review == "先复习 第八章 排序 › 8.1 插入排序（第6页）。"


def test_heading_term():
    assert heading_term("7.2 折半查找") == "折半查找"
    assert heading_term("第七章 查找") == "查找"
    assert heading_term("（三）散列表") == "散列表"
