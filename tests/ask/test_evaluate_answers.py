"""eval --answers: judged rows and the summary (counts, unsupported numbers, times, records)."""

from answer_helpers import make_hit

from pipeline.ask.answer import REFUSAL, answer
from pipeline.ask.evaluate import _percentile, run_answers
from pipeline.ask.retrieve import Retrieval
from pipeline.llm.fake import FakeLlm

EXAM = "408计算机学科专业基础综合满分150分，考试时间180分钟。单项选择题共40道，每题2分。"
RECORD = "2009年 第1题（单项选择题）\n栈的特点是\nA. 先进先出\nB. 后进先出\nC. 随机存取\nD. 顺序存取\n答案：B\n解析：栈后进先出。"
QUESTIONS = [
    {"id": "n1", "kind": "number", "question": "408满分多少分", "answer": "150分"},
    {"id": "n2", "kind": "number", "question": "408选择题几道", "answer": "40道，每道2分"},
    {"id": "e1", "kind": "exam_question", "question": "2009年第1题", "answer": "后进先出（选B）"},
    {"id": "o1", "kind": "concept", "question": "红烧肉怎么做", "answer": "不在资料中"},
]


def _ask_with(replies):
    llm = FakeLlm(replies)

    def ask(question):
        if question.startswith("2009"):
            hit = make_hit(1, RECORD, kind="question", year=2009, number=1)
            return answer(question, Retrieval(hits=[hit], exact_question=True), llm)
        if "红烧肉" in question:
            return answer(question, Retrieval(hits=[make_hit(1, EXAM)], best_bm25=0.3, coverage=0.0), llm)
        return answer(question, Retrieval(hits=[make_hit(1, EXAM, path=("考试大纲",))], best_bm25=12, coverage=0.9,
                                          passage_coverage=0.9), llm)
    return ask


def test_rows_and_summary():
    rows, summary = run_answers(QUESTIONS, _ask_with(["408满分150分。[1]", "选择题共40道，每题2分。"]))
    assert [r["verdict"] for r in rows] == ["right", "right", "right", "refused"]
    assert [r["source"] for r in rows] == ["llm", "llm", "record", "refusal"]
    assert summary["right"] == 3 and summary["refused"] == 1 and summary["unsupported_number"] == 0
    assert summary["by_kind"]["number"]["right"] == 2
    assert summary["records"] == {"resolved": 1, "answered_with_record": 1}
    assert summary["p50_s"] <= summary["p95_s"]


def test_an_invented_number_is_never_shown():
    rows, summary = run_answers(QUESTIONS[:1], _ask_with(["408满分100分。"]))
    assert rows[0]["source"] == "grounded" and "150分" in rows[0]["answer"]
    assert summary["unsupported_number"] == 0 and rows[0]["verdict"] == "right"


def test_shown_text_is_checked_for_any_answer_path():
    """The old path (no claim check) is measured the same way: its unsupported numbers count."""
    from pipeline.ask.evaluate import answer_row
    from pipeline.models import Answer

    a = Answer(question="408满分多少分", answer="满分100分，考4年。", refused=False, hits=[make_hit(1, EXAM)])
    row = answer_row(QUESTIONS[0], a, 1.0)
    assert row["unsupported_number"] and row["verdict"] == "wrong"


def test_refusal_row():
    a = _ask_with([])("红烧肉怎么做")
    assert a.refused and a.answer == REFUSAL


def test_percentile_nearest_rank():
    assert _percentile([1, 2, 3, 4], 50) == 2 and _percentile([1, 2, 3, 4], 95) == 4 and _percentile([], 50) == 0.0


def test_the_summary_quotes_what_the_model_read_so_machines_compare():
    from pipeline.ask.evaluate import summarise_answers

    def row(first, prompt, read, prefill):
        return {"kind": "concept", "verdict": "right", "seconds": first + 2, "first_token_s": 0.1, "unsupported": [],
                "unsupported_number": False, "source": "llm", "record_ok": None, "llm_first_token_s": first,
                "timings": {"prompt_tokens": prompt, "prompt_evaluated_tokens": read, "prefill_tok_s": prefill,
                            "gen_tok_s": 12.0}}

    s = summarise_answers([row(6.0, 400, 300, 40.0), row(8.0, 500, 400, 30.0), row(7.0, 450, 350, 35.0),
                           {**row(0, 0, 0, 0), "llm_first_token_s": None, "timings": {}, "source": "record"}])
    assert (s["llm_first_token_p50_s"], s["prompt_tokens_p50"], s["prompt_evaluated_tokens_p50"]) == (7.0, 450, 350)
    assert s["prefill_tok_s_p50"] == 35.0 and s["gen_tok_s_p50"] == 12.0


def test_a_contrast_table_after_the_answer_is_quoted_not_checked_as_prose():
    """The table's head line and its cells (verbatim, some from a side's own search) are no generated claims."""
    from pipeline.ask import contrast
    from pipeline.ask.evaluate import answer_row
    from pipeline.models import Answer, ContrastTable

    body = "408满分150分。"
    table_text = f"\n{contrast.HEAD}\n方面：题量\n  甲：一个不在命中段落里的原文句子。"
    a = Answer(question="408满分多少分", answer=body + table_text, refused=False, hits=[make_hit(1, EXAM)], source="llm",
               contrast=ContrastTable(things=["甲", "乙"], rows=[]))
    assert answer_row(QUESTIONS[0], a, 1.0)["unsupported"] == []
    a.contrast = None  # the same text without a table: its lines are prose, and the check sees them
    assert answer_row(QUESTIONS[0], a, 1.0)["unsupported"] != []
