"""--chapter applies inside both engines before ranking; vectors and BM25 agree on the filter."""

import json

import pytest

from tests.conftest import ingest_notes

NOTES = {
    "查找.md": "# 第七章 查找\n\n## 7.2 折半查找\n\n折半查找要求有序顺序表，时间复杂度为O(log2 n)。\n\n## 7.4 散列表\n\n散列查找用散列函数计算地址，冲突用拉链法处理。\n",
    "排序.md": "# 第八章 排序\n\n## 8.2 快速排序\n\n快速排序的时间复杂度为O(nlog2 n)，折半查找不是排序。\n",
}


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    return ingest_notes(tmp_path_factory, NOTES)


@pytest.mark.parametrize("mode", ["bm25", "vector", "hybrid"])
def test_chapter_filter_in_every_engine(cli, data, mode):
    r = cli("ask", "--json", "--no-llm", "--mode", mode, "--chapter", "排序", "时间复杂度 折半查找", data_dir=data,
            env={"EXAMRAG_EMBED_MODEL": "hash"})
    hits = json.loads(r.stdout)["hits"]
    assert hits and all(h["chapter_path"][0] == "第八章 排序" for h in hits)


@pytest.mark.parametrize("mode", ["bm25", "vector", "hybrid"])
def test_unfiltered_search_sees_all_chapters(cli, data, mode):
    r = cli("ask", "--json", "--no-llm", "--mode", mode, "--top-k", "10", "时间复杂度", data_dir=data,
            env={"EXAMRAG_EMBED_MODEL": "hash"})
    chapters = {h["chapter_path"][0] for h in json.loads(r.stdout)["hits"]}
    assert chapters == {"第七章 查找", "第八章 排序"}
