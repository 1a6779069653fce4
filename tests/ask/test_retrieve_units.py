import pytest

from pipeline.ask.retrieve import question_ref, rrf


@pytest.mark.parametrize("text,expected", [
    ("2023年第42题", (2023, 42)),
    ("23年42题", (2023, 42)),
    ("2023 42", (2023, 42)),
    ("2019年408第3题考的是什么", (2019, 3)),
    ("2024年真题第41题怎么做", (2024, 41)),
    ("折半查找的时间复杂度", None),
])
def test_question_ref(text, expected):
    assert question_ref(text) == expected


def test_rrf_weights_and_order():
    fused = rrf([(["a", "b", "c"], 1.0), (["c", "a"], 0.5)], k=60)
    scores = dict(fused)
    assert scores["a"] == pytest.approx(1 / 61 + 0.5 / 62)
    assert scores["c"] == pytest.approx(1 / 63 + 0.5 / 61)
    assert [cid for cid, _ in fused] == ["a", "c", "b"]


def test_rrf_zero_weight_list_has_no_effect():
    fused = rrf([(["a", "b"], 1.0), (["b"], 0.0)], k=60)
    assert [cid for cid, _ in fused] == ["a", "b"]


def test_query_coverage_separates_in_and_out_of_scope():
    from pipeline.ask.retrieve import query_coverage

    vocab = {"折半", "查找", "折半查找", "时间", "复杂度", "公式", "红", "肉"}
    passages = ["折半查找的时间复杂度为O(log2 n)。"]
    assert query_coverage("折半查找的时间复杂度是多少？", vocab, passages) == 1.0
    assert query_coverage("红烧肉怎么做才好吃？", vocab, passages) == 0.0


def test_query_tokens_come_from_the_index_vocabulary():
    from pipeline.text.tokenize import tokenize_query

    vocab = {"折半", "查找", "折半查找", "平均查找长度", "平均", "长度", "树"}
    toks = tokenize_query("折半查找的平均查找长度与B树", vocab)
    assert {"折半查找", "折半", "查找", "平均查找长度"} <= set(toks)
    assert "的" not in toks and "b" in toks and "树" in toks
