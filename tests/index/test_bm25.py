import math
import subprocess
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from pipeline.index.bm25 import Bm25Index
from pipeline.text.tokenize import tokenize

ROOT = Path(__file__).resolve().parents[2]

CORPUS = {
    "ds-1": "顺序查找的平均查找长度为(n+1)/2，适用于顺序表和链表。",
    "ds-2": "折半查找要求线性表有序且顺序存储，查找效率为O(log2n)。",
    "ds-3": "二叉排序树的查找效率取决于树的高度，最坏情况退化为单支树。",
    "ds-4": "快速排序是不稳定的排序算法，平均时间复杂度为O(nlog2n)。",
    "ds-5": "堆排序建堆的时间复杂度为O(n)，排序过程不稳定。",
    "os-1": "进程是资源分配的基本单位，线程是处理机调度的基本单位。",
    "os-2": "死锁产生的四个必要条件：互斥、请求和保持、不剥夺、循环等待。",
    "os-3": "页式存储管理中，快表TLB用于加快地址变换，命中率越高越好。",
    "os-4": "Belady异常指FIFO页面置换算法分配的物理块增多时缺页次数反而增加。",
    "cn-1": "TCP三次握手建立连接，四次挥手释放连接，TIME_WAIT等待2MSL。",
    "cn-2": "UDP首部只有8个字节，TCP首部最短20个字节。",
    "cn-3": "RIP协议允许的最大跳数为15，16表示网络不可达。",
    "cn-4": "以太网最短帧长为64字节，争用期为51.2微秒。",
    "co-1": "DRAM需要定期刷新，SRAM不需要刷新，DRAM采用地址复用。",
}
QUERIES = [
    "查找",
    "平均查找长度",
    "排序算法稳定吗",
    "死锁的必要条件",
    "TCP首部多少字节",
    "快表TLB",
    "DRAM刷新",
    "线程 调度 基本单位",
    "Belady异常 FIFO",
    "O(log2n)",
]


@pytest.fixture(scope="module")
def index():
    return Bm25Index.build(list(CORPUS), [tokenize(t) for t in CORPUS.values()])


def test_chinese_subword_query_matches(index):
    hits = index.search(tokenize("查找"), top_n=10)
    ids = [i for i, _ in hits]
    assert set(ids[:2]) == {"ds-1", "ds-2"}  # 查找 twice each; ds-3 once
    assert ids[2] == "ds-3" and len(ids) == 3
    assert all(s > 0 for _, s in hits)
    assert [s for _, s in hits] == sorted((s for _, s in hits), reverse=True)


def test_scores_match_lucene_formula(index):
    """bm25s 'lucene' = sum idf(t) * tf / (tf + k1 (1 - b + b dl/avgdl)), idf = ln(1 + (N-df+.5)/(df+.5))."""
    k1, b = 1.5, 0.75
    docs = [tokenize(t) for t in CORPUS.values()]
    n, avgdl = len(docs), sum(map(len, docs)) / len(docs)
    df = Counter(t for d in docs for t in set(d))
    for q in QUERIES:
        qt = tokenize(q)
        expected = {}
        for doc_id, d in zip(CORPUS, docs):
            tf = Counter(d)
            s = sum(
                math.log(1 + (n - df[t] + 0.5) / (df[t] + 0.5))
                * tf[t] / (tf[t] + k1 * (1 - b + b * len(d) / avgdl))
                for t in qt if tf[t]
            )
            if s > 0:
                expected[doc_id] = s
        got = dict(index.search(qt, top_n=len(CORPUS)))
        assert got.keys() == expected.keys(), q
        for doc_id, s in expected.items():
            assert got[doc_id] == pytest.approx(s, rel=1e-4), (q, doc_id)


def test_agrees_with_rank_bm25(index):
    from rank_bm25 import BM25Okapi

    docs = [tokenize(t) for t in CORPUS.values()]
    ref = BM25Okapi(docs, k1=1.5, b=0.75)
    ids = list(CORPUS)
    overlaps = []
    for q in QUERIES:
        qt = tokenize(q)
        ref_scores = ref.get_scores(qt)
        ref_top = [ids[i] for i in np.argsort(-ref_scores, kind="stable")[:3] if ref_scores[i] > 0]
        ours = [i for i, _ in index.search(qt, top_n=3)]
        assert ours[0] == ref_top[0], q
        overlaps.append(len(set(ours) & set(ref_top)) / max(len(ref_top), 1))
    assert np.mean(overlaps) >= 0.9, overlaps


def test_mask_filters_before_ranking(index):
    ids = list(CORPUS)
    only_os = np.array([i.startswith("os-") for i in ids])
    hits = index.search(tokenize("基本单位 查找 快表"), top_n=2, allowed=only_os)
    assert hits and all(i.startswith("os-") for i, _ in hits)
    # the filter applies before top_n: a filtered-out better match does not eat a slot
    assert index.search(tokenize("查找"), top_n=1, allowed=np.array([i == "ds-3" for i in ids])) == [
        ("ds-3", pytest.approx(dict(index.search(tokenize("查找"), 10))["ds-3"]))
    ]
    assert index.search(tokenize("查找"), top_n=5, allowed=np.zeros(len(ids), bool)) == []
    with pytest.raises(ValueError, match="mask"):
        index.search(tokenize("查找"), top_n=5, allowed=np.ones(3, bool))


def test_unknown_and_empty_queries(index):
    assert index.search(tokenize("量子纠缠"), top_n=5) == []
    assert index.search([], top_n=5) == []
    assert index.search(tokenize("查找"), top_n=0) == []
    assert len(index.search(tokenize("查找"), top_n=100)) == 3


def test_save_load_round_trip(index, tmp_path):
    index.info = {"tokenizer": "jieba-search-1"}
    d = tmp_path / "bm25"
    index.save(d)
    index.save(d)  # overwriting an existing index works
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bm25"]  # no temp dirs left
    for mmap in (True, False):
        loaded = Bm25Index.load(d, mmap=mmap)
        assert len(loaded) == len(index) and loaded.ids == index.ids
        assert loaded.info == {"tokenizer": "jieba-search-1"}
        mask = np.array([i.startswith("ds") for i in index.ids])
        for q in QUERIES:
            qt = tokenize(q)
            assert loaded.search(qt, 5) == index.search(qt, 5)
            assert loaded.search(qt, 5, allowed=mask) == index.search(qt, 5, allowed=mask)


def test_empty_index(tmp_path):
    for idx in (Bm25Index.build([], []), Bm25Index.build(["a", "b"], [[], []])):
        assert idx.search(["查找"], 5) == []
        idx.save(tmp_path / "e")
        loaded = Bm25Index.load(tmp_path / "e")
        assert len(loaded) == len(idx) and loaded.search(["查找"], 5) == []


def test_bad_input(tmp_path):
    with pytest.raises(ValueError, match="duplicate"):
        Bm25Index.build(["a", "a"], [["x"], ["y"]])
    with pytest.raises(ValueError):
        Bm25Index.build(["a"], [])
    with pytest.raises(FileNotFoundError):
        Bm25Index.load(tmp_path / "missing")


def test_import_is_light():
    code = "import sys, pipeline.index.bm25; print('bm25s' in sys.modules, 'numpy' in sys.modules)"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT, timeout=60)
    assert r.stdout.split() == ["False", "False"]


def test_idf_from_document_frequencies(index, tmp_path):
    n = len(CORPUS)
    df = sum("DRAM" in t for t in CORPUS.values())
    assert df == 1
    assert index.idf("dram") == pytest.approx(math.log(1 + (n - df + 0.5) / (df + 0.5)))
    df = sum("查找" in t for t in CORPUS.values())
    assert index.idf("查找") == pytest.approx(math.log(1 + (n - df + 0.5) / (df + 0.5)))
    assert index.idf("从未出现的词") == pytest.approx(math.log(1 + (n + 0.5) / 0.5))  # the largest
    index.save(tmp_path / "bm25")
    assert Bm25Index.load(tmp_path / "bm25", mmap=True).idf("查找") == index.idf("查找")  # from the saved matrix
