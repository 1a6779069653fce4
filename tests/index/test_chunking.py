from pipeline.index.chunking import chunk_id, make_chunks, split_windows
from pipeline.models import CleanDoc, EnrichedDoc, Enrichment, Question, Section


def test_short_text_is_one_window():
    assert split_windows("折半查找。", 512, 50) == ["折半查找。"]


def test_windows_cut_at_sentence_ends_with_overlap():
    sents = [f"第{i}句讲的是查找方法的一个要点内容。" for i in range(60)]
    text = "".join(sents)
    windows = split_windows(text, 512, 50)
    assert len(windows) > 1
    assert all(len(w) <= 512 for w in windows)
    assert all(w.endswith("。") for w in windows)
    # the next window repeats the tail of the previous one
    assert windows[1].startswith(windows[0][-len(sents[59]):]) or windows[0][-20:] in windows[1]
    assert "".join(sents[:3]) in windows[0]


def test_overlong_sentence_is_cut_hard():
    windows = split_windows("查" * 1300, 512, 50)
    assert all(len(w) <= 512 for w in windows) and len(windows) == 3


def _doc():
    return CleanDoc(doc_id="d1", source="raw/a.pdf", kind="textbook",
                    sections=[Section(chapter_path=["第七章 查找", "7.2 折半查找"], text="折半查找仅适用于有序顺序表。", pages=[3])],
                    questions=[Question(year=2024, number=41, qtype="comprehensive", text="41. 折半查找判定树",
                                        chapter_path=["2024年模拟卷", "二、综合应用题"], pages=[2])])


def test_chunks_carry_metadata_and_prefix_is_not_text():
    enriched = EnrichedDoc(doc_id="d1", source="raw/a.pdf", kind="textbook",
                           sections={"第七章 查找 › 7.2 折半查找": Enrichment(summary="讲折半查找。", keywords=["折半查找", "有序表"])})
    chunks = make_chunks(_doc(), enriched)
    sec, q = chunks
    assert sec.chapter_path == ["第七章 查找", "7.2 折半查找"] and sec.pages == [3] and sec.chunk_position == 1
    assert sec.text == "折半查找仅适用于有序顺序表。"
    assert sec.prefix.startswith("【第七章 查找 - 7.2 折半查找｜折半查找；有序表】")
    assert sec.index_text.endswith(sec.text)
    assert sec.citation() == "[来源: 第七章 查找 › 7.2 折半查找|第3页·片段1]"
    assert q.kind == "question" and (q.year, q.number, q.qtype) == (2024, 41, "comprehensive")
    assert q.chapter_path[-1] == "第41题"


def test_chunk_ids_are_content_addressed():
    a = make_chunks(_doc(), None)
    b = make_chunks(_doc(), None)
    assert [c.chunk_id for c in a] == [c.chunk_id for c in b]
    assert chunk_id("x", {"a": 1, "b": 2}) == chunk_id("x", {"b": 2, "a": 1})
    assert chunk_id("x", {"a": 1}) != chunk_id("y", {"a": 1})


def test_page_labels_never_span_unused_pages():
    from pipeline.models import page_label

    assert page_label([3]) == "3"
    assert page_label([4, 3]) == "3-4"
    assert page_label([1, 7, 13, 14]) == "1、7、13-14"


def test_a_record_cites_where_its_stem_was_read():
    from pipeline.models import Chunk, Part

    stem = Part(role="stem", doc_id="p", source="2009真题.pdf", pages=[3], citation="[来源: 2009真题 › 第25题|第3页·题目]")
    sol = Part(role="solution", doc_id="b", source="2009答案.pdf", pages=[15], citation="[来源: 2009答案 › 第25题|第15页·答案与解析]")
    c = Chunk(chunk_id="q", doc_id="p", source="2009真题.pdf", kind="question", chapter_path=["2009真题", "第25题"],
              chunk_position=1, pages=[3, 7, 15], text="…", parts=[stem, sol])
    assert c.citation() == stem.citation  # not 第3-15页 over two files
    assert c.model_copy(update={"parts": []}).citation() == "[来源: 2009真题 › 第25题|第3-15页·片段1]"
