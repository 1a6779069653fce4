"""The report of answers that show an exercise's unchosen option, on the shipped sample's index."""

import json

import pytest

from bench.reports import options_shown

pytestmark = pytest.mark.timeout(120)


def test_an_answer_showing_a_cut_option_is_counted(sample_data, tmp_path, monkeypatch, capsys):
    options = options_shown.cut_options(sample_data)
    assert options, "the sample's past paper has options its answers do not choose"
    option = sorted(options)[0]
    results = tmp_path / "set.jsonl"
    rows = [{"id": "x1", "shown": f"解答：{option}。"}, {"id": "x2", "shown": "在现有资料中没有找到相关内容"}]
    results.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows), "utf-8")
    monkeypatch.setenv("EXAMRAG_DATA_DIR", str(sample_data))
    assert options_shown.main([str(results)]) == 0
    out = capsys.readouterr().out
    assert "x1:" in out and "x2:" not in out and "1 of 2 answers show a cut option" in out
