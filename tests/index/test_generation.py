"""The published BM25 generation follows its tokens, not only its chunk ids."""

from pipeline.ask.retrieve import Retriever
from pipeline.index import stage as index_stage
from pipeline.ingest import run_stages
from pipeline.settings import load_settings
from pipeline.text.tokenize import tokenize

NOTE = "# 查找\n\n## 折半查找\n\n折半查找要求顺序存储且有序，时间复杂度为O(log2 n)。\n"


def _vocab(settings) -> set[str]:
    return set(Retriever(settings.data_dir, settings).bm25.vocab)


def test_a_new_tokenizer_publishes_a_new_vocabulary(tmp_path, monkeypatch):
    raw = tmp_path / "raw"
    raw.mkdir()
    (raw / "a.md").write_text(NOTE, encoding="utf-8")
    settings = load_settings(data_dir=tmp_path / "data", embed_model="hash")
    run_stages(settings, raw_dir=raw, quiet=True)
    before = _vocab(settings)
    assert "折半" in before and "新词元" not in before

    # same chunk ids, new tokens: the index must not keep serving the old vocabulary
    monkeypatch.setattr(index_stage, "TOKENIZER_VERSION", "test-tokenizer-2")
    monkeypatch.setattr(index_stage, "tokenize", lambda text: tokenize(text) + ["新词元"])
    result = run_stages(settings, ["index"], quiet=True)
    assert [d.detail for d in result.reports[0].docs] == ["done"]  # re-tokenised
    assert "新词元" in _vocab(settings)
