"""Chunk boxes: the lines a chunk was read from, precise or none (``pipeline.index.boxes``)."""

from __future__ import annotations

import json

import pymupdf as fitz
import pytest

from pipeline.index.boxes import MIN_COVER, LineIndex, PlacedLine, locate, normalise, record_parts
from pipeline.models import Block, ParsedDoc, Question, QuestionSource, TextLine
from pipeline.runner import input_hash
from pipeline.store import DocEntry, StageRecord

pytestmark = pytest.mark.timeout(300)  # the module fixture ingests a drawn PDF (OCR): 49 s (2 busy cores)

P = ["折半查找又称二分查找，它仅适用于有序的顺序表。首先将给定值", "与表中间位置的元素比较，若相等则查找成功；否则在前半",
     "部分或后半部分中继续查找，直到找到或区间为空为止。"]
NEIGHBOURS = ["顺序查找又称线性查找，它对顺序表和链表都适用，从表的一端", "开始逐个比较，查找成功时的平均查找长度为(n+1)/2。",
              "散列查找通过散列函数直接计算记录的存储地址，理想情况下为O(1)。"]


def L(text: str, y: float, page: int = 1, doc: str = "d", body: bool = True) -> PlacedLine:
    return PlacedLine(doc, normalise(text), TextLine(text=text, page=page, x0=60, y0=y, x1=500, y1=y + 12), body)


def ys(boxes) -> list[float]:
    return [b.y0 for b in boxes]


def test_normalise_keeps_only_words():
    assert normalise("  A．顺序查找 (O(n)) ，\n") == "a顺序查找on"


def test_passage_gets_exactly_its_lines():
    lines = [L(NEIGHBOURS[0], 100), L(NEIGHBOURS[1], 118), L(P[0], 140), L(P[1], 158), L(P[2], 176),
             L(NEIGHBOURS[2], 200)]
    text = "".join(P).replace("，", ",")  # joined by the clean stage, punctuation may change
    boxes = locate(text, lines)
    assert ys(boxes) == [140, 158, 176] and {b.doc_id for b in boxes} == {"d"}


def test_a_passage_over_a_page_break_skips_the_removed_footer_and_header():
    lines = [L(P[0], 700), L(P[1], 718), L("第3页", 800, body=False), L("数据结构复习讲义", 30, page=2, body=False),
             L(P[2], 80, page=2)]
    boxes = locate("".join(P), lines)
    assert [(b.page, b.y0) for b in boxes] == [(1, 700), (1, 718), (2, 80)]


def test_text_rewritten_beyond_recognition_gets_no_boxes():
    """A table rewritten as 字段：值 (tables have no lines), or prose plus such a table below MIN_COVER."""
    table = "查找方法：顺序查找；时间复杂度：O(n)\n查找方法：折半查找；时间复杂度：O(log2 n)"
    lines = [L(P[0], 140), L(P[1], 158), L(P[2], 176)]
    assert locate(table, lines) == []
    mixed = P[0] + table * 2
    assert len(normalise(P[0])) < MIN_COVER * len(normalise(mixed))
    assert locate(mixed, lines) == []


def test_a_passage_found_twice_on_its_pages_is_not_placed():
    lines = [L(P[0], 140), L(P[1], 158), L(NEIGHBOURS[0], 300), L(P[0], 400, page=2), L(P[1], 418, page=2)]
    assert locate(P[0] + P[1], lines) == []


def test_a_short_line_elsewhere_on_the_page_is_not_taken_for_part_of_the_chunk():
    lines = [L("时间复杂度", 60), L(NEIGHBOURS[0], 100), L(NEIGHBOURS[1], 118), L(P[0], 140), L(P[1], 158)]
    boxes = locate(P[0] + P[1] + "时间复杂度为O(log2n)。", lines)
    assert ys(boxes) == [140, 158]


def test_the_line_a_window_cut_counts_at_both_ends():
    lines = [L(NEIGHBOURS[0], 100), L(P[0], 140), L(P[1], 158), L(P[2], 176), L(NEIGHBOURS[2], 200)]
    window = P[0][-8:] + P[1] + P[2][:10]  # starts inside P0, ends inside P2
    assert ys(locate(window, lines)) == [140, 158, 176]


STEM = ["41.（10分）已知有序顺序表中的关键字依次为5，12，18，23，31，37，44，56，62，70，85，",
        "采用折半查找（mid向下取整）。请回答下列问题。"]
ANALYSIS = ["41.【解析】判定树的高度为4，查找62时依次与37、62比较，", "成功的平均查找长度为(1+2×2+3×4+4×4)/11=3。"]


def test_merged_record_is_placed_part_by_part_in_the_documents_that_gave_them():
    """The booklet reprints the stem above its analysis: the stem is still placed (in the paper, which
    gave it), not dropped as found twice; the analysis is placed in the booklet."""
    paper = LineIndex([L("40.下列关于TCP拥塞控制的叙述中，错误的是（ ）。", 90, doc="paper"), L(STEM[0], 110, doc="paper"),
                       L(STEM[1], 128, doc="paper")])
    booklet = LineIndex([L(STEM[0], 250, page=5, doc="booklet"), L(STEM[1], 268, page=5, doc="booklet"),
                         L(ANALYSIS[0], 300, page=5, doc="booklet"), L(ANALYSIS[1], 318, page=5, doc="booklet")])
    q = Question(year=2024, number=41, qtype="comprehensive", text="已知有序顺序表中的关键字依次为5，12，18，23，31，37，"
                 "44，56，62，70，85，采用折半查找（mid向下取整）。请回答下列问题。",
                 analysis="判定树的高度为4，查找62时依次与37、62比较，成功的平均查找长度为(1+2×2+3×4+4×4)/11=3。",
                 chapter_path=["2024年真题", "二、综合应用题"],
                 sources=[QuestionSource(doc_id="paper", source="raw/2024年真题.pdf", pages=[1], parts=["text"]),
                          QuestionSource(doc_id="booklet", source="raw/2024答案.pdf", pages=[5, 6], parts=["analysis"])])
    parts, boxes = record_parts(q, {"paper": paper, "booklet": booklet}.__getitem__)
    assert [(b.doc_id, b.page, b.y0) for b in boxes] == [("paper", 1, 110), ("paper", 1, 128), ("booklet", 5, 300),
                                                         ("booklet", 5, 318)]
    # each part cites its own file and only the pages it was found on (the booklet recorded 5-6)
    assert [(p.role, p.source, p.pages) for p in parts] == [("stem", "raw/2024年真题.pdf", [1]),
                                                            ("solution", "raw/2024答案.pdf", [5])]
    assert parts[0].citation == "[来源: 2024年真题 › 二、综合应用题 › 第41题|第1页·题目]"
    assert parts[1].citation == "[来源: 2024答案 › 第41题|第5页·答案与解析]"
    # one candidate list holding the stem twice cannot tell which is meant: the stem part is not placed
    both = paper.on_pages([1]) + booklet.on_pages([5])
    assert [b.doc_id for b in locate(q.text, both)] == []


def test_stem_is_placed_when_the_solution_cannot_be():
    """One document gave stem and solution; the explanation is a table rewritten as 字段：值."""
    paper = LineIndex([L(STEM[0], 110, doc="paper"), L(STEM[1], 128, doc="paper"), L("41.【解析】", 300, doc="paper")])
    q = Question(year=2024, number=41, text=STEM[0][8:] + STEM[1], answer="见下表",
                 analysis="序号：1；说明：a入栈；栈内：a\n序号：2；说明：b入栈；栈内：ab\n序号：3；说明：b出栈；栈内：a",
                 sources=[QuestionSource(doc_id="paper", pages=[1], parts=["text", "answer", "analysis"])])
    parts, boxes = record_parts(q, {"paper": paper}.__getitem__)
    assert [b.y0 for b in boxes] == [110, 128]
    # the solution could not be placed: it cites the pages its document recorded, never nothing
    assert [(p.role, p.pages) for p in parts] == [("stem", [1]), ("solution", [1])]


def test_a_one_line_chunk_is_placed_only_on_the_one_line_it_equals():
    lines = [L("（一）单选题答案", 100), L("1.【参考答案】B", 120), L("（二）单选题答案解析", 300)]
    assert ys(locate("（一）单选题答案", lines)) == [100]
    assert locate("单选题", lines) == []  # part of a line is not enough for a short chunk
    assert locate("（一）单选题答案", lines + [L("（一）单选题答案", 500, page=2)]) == []


def test_line_index_reads_parsed_lines_by_page_once_each():
    line = TextLine(text="一、单项选择题：第1～40小题", page=2, x0=60, y0=140, x1=300, y1=152)
    doc = ParsedDoc(doc_id="d", source="a.pdf", format="pdf", blocks=[
        Block(kind="heading", text="一、单项选择题", page=2, lines=[line]),
        Block(kind="text", text=line.text + "\n1. 栈", page=2, lines=[line, line.model_copy(update={"text": "1. 栈",
                                                                                                    "y0": 160})]),
        Block(kind="text", text="页脚", page=2, band="bottom", lines=[line.model_copy(update={"text": "页脚",
                                                                                             "y0": 800})])])
    idx = LineIndex.from_parsed(doc)
    got = idx.on_pages([2, 3])
    assert [(pl.line.text, pl.body) for pl in got] == [(line.text, True), ("1. 栈", True), ("页脚", False)]
    assert idx.on_pages([1]) == [] and idx.on_pages([]) == []


def test_index_is_redone_when_only_the_line_boxes_changed():
    """A re-parse that moves lines but leaves the cleaned text (hence enrich's output) the same."""
    def rec(out):
        return StageRecord(input_hash="i", config_hash="c", code_version="v", output_hash=out, status="success")

    entry = DocEntry(doc_id="d", sources=["a.pdf"], raw_hash="r",
                     stages={"parse": rec("p1"), "clean": rec("c1"), "enrich": rec("e1")})
    before = input_hash(entry, "index")
    entry.stages["parse"] = rec("p2")
    assert input_hash(entry, "index") != before and input_hash(entry, "enrich") == "c1"


# ---------------------------------------------------------------- through ingest and ask --json

TABLE = [["查找方法", "时间复杂度", "存储要求"], ["顺序查找", "O(n)", "顺序表或链表"], ["折半查找", "O(log2 n)", "有序顺序表"]]
SCANNED = ["散列表是根据关键字而直接进行访问的数据结构。", "散列函数把关键字映射成对应的存储地址。", "处理冲突的方法有开放定址法和拉链法。"]


def _cjk_page(doc):
    page = doc.new_page(width=595, height=842)
    page.insert_font(fontname="cjk", fontbuffer=fitz.Font("cjk").buffer)
    return page


def _book(path) -> dict:
    """A textbook PDF: page 1 has a text layer (two sections and a ruled table), page 2 is a scan.
    Returns where each passage line was drawn: text → (page, x0, y0, x1, y1) from PyMuPDF."""
    doc = fitz.open()
    page = _cjk_page(doc)

    def line(y, text, size=10.5):
        page.insert_text((60, y), text, fontname="cjk", fontsize=size)

    line(80, "第七章 查找", 18)
    line(120, "7.1 顺序查找", 14)
    line(145, NEIGHBOURS[0])
    line(163, NEIGHBOURS[1])
    line(200, "7.2 折半查找", 14)
    for i, t in enumerate(P):
        line(225 + 18 * i, t)
    line(320, "7.3 查找方法的比较", 14)
    for r, row in enumerate(TABLE):  # a ruled 3×3 grid
        for c, cell in enumerate(row):
            rect = fitz.Rect(60 + 150 * c, 335 + 24 * r, 210 + 150 * c, 359 + 24 * r)
            page.draw_rect(rect, color=(0, 0, 0), width=0.8)
            page.insert_text((rect.x0 + 4, rect.y1 - 7), cell, fontname="cjk", fontsize=10.5)
    drawn = {"".join(s["text"] for s in ln["spans"]): (1, *ln["bbox"])
             for b in page.get_text("dict")["blocks"] if b["type"] == 0 for ln in b["lines"]}
    src = fitz.open()
    sp = _cjk_page(src)
    sp.insert_text((72, 100), "7.4 散列查找", fontname="cjk", fontsize=14)
    for i, t in enumerate(SCANNED):
        sp.insert_text((72, 150 + 30 * i), t, fontname="cjk", fontsize=12)
    drawn.update({"".join(s["text"] for s in ln["spans"]): (2, *ln["bbox"])
                  for b in sp.get_text("dict")["blocks"] if b["type"] == 0 for ln in b["lines"]})
    scan = doc.new_page(width=595, height=842)
    scan.insert_image(scan.rect, pixmap=sp.get_pixmap(dpi=100))
    doc.save(path)
    return drawn


@pytest.fixture(scope="module")
def booked(tmp_path_factory, cli):
    tmp = tmp_path_factory.mktemp("boxes")
    raw = tmp / "raw"
    raw.mkdir()
    drawn = _book(raw / "数据结构讲义.pdf")
    data = tmp / "data"
    r = cli("ingest", str(raw), "--quiet", data_dir=data, env={"EXAMRAG_EMBED_MODEL": "hash"})
    assert r.returncode == 0, r.stdout + r.stderr
    return data, drawn


def _hit(cli, data, query: str, needle: str) -> dict:
    r = cli("ask", "--json", "--no-llm", "--top-k", "10", query, data_dir=data, env={"EXAMRAG_EMBED_MODEL": "hash"})
    assert r.returncode == 0, r.stderr
    return next(h for h in json.loads(r.stdout)["hits"] if needle in h["text"])


def _where(box: dict) -> tuple:
    return box["page"], box["x0"], box["y0"], box["x1"], box["y1"]


def test_text_layer_passage_is_boxed_line_by_line_and_not_its_neighbours(cli, booked):
    data, drawn = booked
    hit = _hit(cli, data, "折半查找 二分查找 有序的顺序表", "二分查找")
    assert all(b["doc_id"] == hit["doc_id"] for b in hit["boxes"])
    assert [_where(b) for b in hit["boxes"]] == [pytest.approx(drawn[t], abs=0.06) for t in P]


def test_scanned_passage_boxes_land_where_the_text_was_drawn(cli, booked):
    data, drawn = booked
    hit = _hit(cli, data, "散列表 开放定址法 拉链法", "拉链法")
    assert len(hit["boxes"]) == len(SCANNED)
    for box, text in zip(hit["boxes"], SCANNED):
        page, x0, y0, x1, y1 = drawn[text]
        assert box["page"] == page == 2
        assert abs(box["x0"] - x0) <= 3 and abs(box["y0"] - y0) <= 3 and abs(box["y1"] - y1) <= 3, (box, text)
        assert x1 - 14 <= box["x1"] <= x1 + 3, (box, text)


def test_table_rewritten_as_fields_gets_no_boxes(cli, booked):
    data, _ = booked
    hit = _hit(cli, data, "查找方法 时间复杂度 存储要求", "存储要求：")
    assert "查找方法：顺序查找" in hit["text"] and hit["boxes"] == []
