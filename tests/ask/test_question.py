"""One analysis of the question (pipeline/ask/question.py): what it holds, and that the answer path
makes it once and hands it on instead of re-deriving it in every module."""

import pytest
from answer_helpers import make_hit

from pipeline.ask import question as question_mod
from pipeline.ask.answer import answer
from pipeline.ask.question import Asked, analyse, asked_of
from pipeline.ask.retrieve import Retrieval
from pipeline.llm.fake import FakeLlm
from pipeline.models import RecordAnswer

CONTRAST = "快速排序是一种不稳定的排序方法。归并排序是稳定的排序方法，需要O(n)的辅助空间。"


def test_the_analysis_holds_what_every_step_reads():
    q = analyse("２０１９年４０８第４２题，ＴＣＰ的三次握手是什么？")
    assert isinstance(q, str) and q == "２０１９年４０８第４２题，ＴＣＰ的三次握手是什么？"  # shown as asked
    assert q.norm.startswith("2019年408第42题,TCP")  # NFKC once, for every module
    assert q.low == q.norm.lower()
    assert q.ref == (2019, 42)
    assert "握手" in q.content_grams and "什么" not in q.content_grams  # question words are no content
    assert "什么" in q.all_grams
    assert q.terms and q.tokens == ()  # no vocabulary: bigram terms, no BM25 tokens
    assert q.kind is None  # the kind needs the record, known after retrieval


def test_the_kind_is_set_once_the_record_is_known():
    q = analyse("死锁的K的最小值是多少")
    assert q.with_record(None).kind == "calculation"
    choice = RecordAnswer(year=2009, number=25, qtype="choice", answer="C", analysis=None, chunk_id="c",
                          citation="[来源: x|第1页]", match="stem", similarity=0.9)
    assert q.with_record(choice).kind == "choice"
    assert q.kind is None and q.with_record(choice).ref == q.ref  # a copy: the analysis itself is unchanged


def test_asked_of_passes_an_analysis_through_and_analyses_text():
    q = analyse("B树和B+树的区别")
    assert asked_of(q) is q
    other = asked_of("B树和B+树的区别")
    assert isinstance(other, Asked) and other is not q and other.norm == q.norm
    vocab = {"区别": 0, "b树": 1}
    assert asked_of(q, vocab) is not q  # analysed without the index vocabulary: terms differ, so again


@pytest.fixture
def count_analyses(monkeypatch):
    calls = []
    real = question_mod.analyse

    def counting(question, vocab=None):
        calls.append(question)
        return real(question, vocab)

    monkeypatch.setattr(question_mod, "analyse", counting)
    return calls


def test_the_answer_path_analyses_the_question_once(count_analyses):
    """Key sentences, the contrast table, the claim check, conflicts and the completion all read one
    analysis: before it, the question was normalised and split into grams again in each of them."""
    hits = [make_hit(1, CONTRAST), make_hit(2, "归并排序是稳定的。快速排序不稳定，平均时间复杂度为O(nlog2n)。")]
    llm = FakeLlm(["快速排序不稳定，归并排序稳定[1]。"])
    retrieval = Retrieval(hits=hits, best_bm25=12.0, coverage=0.9, passage_coverage=0.9)
    a = answer("快速排序和归并排序哪个是稳定的？", retrieval, llm)
    assert a.answer and not a.refused
    assert len(count_analyses) == 1


def test_an_analysis_made_by_retrieval_is_not_made_again(count_analyses):
    hits = [make_hit(1, CONTRAST)]
    retrieval = Retrieval(hits=hits, best_bm25=12.0, coverage=0.9, passage_coverage=0.9,
                          asked=analyse("归并排序稳定吗"))
    count_analyses.clear()
    a = answer("归并排序稳定吗", retrieval, FakeLlm(["归并排序是稳定的[1]。"]))
    assert a.answer and count_analyses == []
    assert type(a.question) is str  # the stored answer holds the text, not the analysis
