"""Past-paper records: found by reference or by a strong stem match, answered verbatim."""

import pytest
from answer_helpers import make_hit

from pipeline.ask.records import format_record, parse_record, resolve, stem_match

RECORD = ("2009年 第25题（单项选择题）\n某计算机系统中有8台打印机，由K个进程竞争使用，每个进程最多需要3台打印机。"
          "该系统可能会发生死锁的K的最小值是\nA. 2\nB. 3\nC. 4\nD. 5\n答案：C\n"
          "解析：K=4时，每个进程分得2台后，8台分完，都在等第3台，发生死锁。")
PASSAGE = "死锁产生的必要条件：互斥条件、不剥夺条件、请求并保持条件、循环等待条件。"


def _record_hit(rank=1):
    return make_hit(rank, RECORD, path=("2009年真题", "第25题"), kind="question", year=2009, number=25)


def test_parse_record():
    stem, answer, analysis = parse_record(RECORD)
    assert stem.startswith("某计算机系统中有8台打印机") and "A. 2" not in stem
    assert answer == "C" and analysis.startswith("K=4时")


def test_reference_resolves_to_the_first_hit_record():
    rec, strong = resolve("09年统考第25题，8台打印机K个进程，K最小是多少", [_record_hit()], exact=True)
    assert strong and rec.match == "reference" and (rec.year, rec.number, rec.answer) == (2009, 25, "C")


def test_reference_to_another_question_never_uses_this_record():
    rec, _ = resolve("2009年第26题是什么", [_record_hit()], exact=False)
    assert rec is None


PASTED = "某计算机系统中有8台打印机，由K个进程竞争使用，每个进程最多需要3台打印机。该系统可能会发生死锁的K的最小值是多少？"


@pytest.mark.parametrize("question,strong", [
    (PASTED, True),  # the stem pasted, no reference
    (PASTED + " A.2 B.3 C.4 D.5", True),  # with the options
    ("8台打印机K个进程每个最多要3台，K最小多少会死锁", False),  # a paraphrase: the LLM sees the record
    ("死锁是什么", None),  # a concept question inside the stem's words: not this record
])
def test_stem_match_strength(question, strong):
    rec, is_strong = resolve(question, [_record_hit(), make_hit(2, PASSAGE)], exact=False)
    if strong is None:
        assert rec is None
    else:
        assert rec is not None and is_strong == strong


def test_stem_match_is_two_sided():
    stem, _, _ = parse_record(RECORD)
    q_in_s, s_in_q = stem_match("打印机", stem)
    assert q_in_s == 1.0 and s_in_q < 0.2


def test_format_states_answer_and_analysis_verbatim_with_citation():
    rec, _ = resolve("2009年第25题", [_record_hit()], exact=True)
    text = format_record(rec)
    assert text.splitlines()[0] == "【2009年第25题】"
    assert f"答案：C {rec.citation}" in text
    assert "解析：K=4时，每个进程分得2台后，8台分完，都在等第3台，发生死锁。" in text


CAPTIONED = ("2013年 第43题（综合应用题）\n某网络拓扑如题43 图所示，请回答下列问题。\n答案：（1）R1的路由表如题43-a 图所示。\n"
             "题43-a 图 R1的路由表\n（2）共需3跳。题4 图题5 图\n解析：如图所示，分组经R1、R2到达H2，"
             "依次给出到达题43 图中子网的路由。\n题44-a 图  页表的部分内容    题44-b 图 Cache 的部分内容\n题38 图")


def test_figure_captions_are_not_answer_text():
    _, answer, analysis = parse_record(CAPTIONED)
    # a caption line, a caption run ending a line, captions glued together: gone
    assert answer == "（1）R1的路由表如题43-a 图所示。\n（2）共需3跳。"
    assert analysis == "如图所示，分组经R1、R2到达H2，依次给出到达题43 图中子网的路由。"  # a figure named in prose stays
    rec, _ = resolve("2013年第43题", [make_hit(1, CAPTIONED, path=("2013年真题", "第43题"), kind="question", year=2013,
                                             number=43)], exact=True)
    assert "题4 图" not in format_record(rec) and "页表的部分内容" not in format_record(rec)


def test_a_solution_that_refers_to_a_figure_names_the_pages_it_is_on():
    """The text cannot show "如图所示": the answer says on which pages of the cited booklet part the figure is."""
    from pipeline.models import Part

    hit = make_hit(1, CAPTIONED, path=("2013年真题", "第43题"), kind="question", year=2013, number=43)
    hit.parts = [Part(role="stem", doc_id="p", source="2013真题.pdf", pages=[9], citation="[来源: 2013真题 › 第43题|第9页·题目]"),
                 Part(role="solution", doc_id="b", source="2013答案.pdf", pages=[7, 8],
                      citation="[来源: 2013答案 › 第43题|第7-8页·答案与解析]")]
    rec, _ = resolve("2013年第43题", [hit], exact=True)
    assert rec.figure_pages == [7, 8] and rec.citation.endswith("第7-8页·答案与解析]")
    assert format_record(rec).endswith("（解析中的图见所引答案第7-8页）")
    plain, _ = resolve("2009年第25题", [_record_hit()], exact=True)
    assert plain.figure_pages == [] and "图见" not in format_record(plain)
