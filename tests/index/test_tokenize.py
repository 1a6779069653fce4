import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

from pipeline.text.tokenize import STOPWORDS, TOKENIZER_VERSION, tokenize


def test_chinese_subwords_are_kept():
    toks = tokenize("顺序查找的平均查找长度")
    assert "查找" in toks
    assert "的" not in toks  # stopword
    assert {"顺序", "平均", "长度"} <= set(toks)


def test_search_mode_keeps_compound_and_parts():
    toks = tokenize("页式存储管理中的快表")
    assert {"存储", "管理", "存储管理", "快表"} <= set(toks)


def test_identifiers_and_numbers_whole_and_lowercased():
    toks = tokenize("2023年408真题 调用netif_receive_skb，ESP32 与 IPv4 地址192.168.1.1")
    for t in ["2023", "408", "netif_receive_skb", "esp32", "ipv4", "192.168.1.1"]:
        assert t in toks
    assert "ESP32" not in toks
    # snake_case parts are extra tokens, the whole identifier stays
    assert {"netif", "receive", "skb"} <= set(toks)


def test_big_o_is_one_normalised_token():
    assert "o(log2n)" in tokenize("查找效率为O(log2n)")
    # NFKC turns the subscript into a digit; spaces inside are dropped
    assert tokenize("O(n log₂ n)") == tokenize("O(nlog2n)") == ["o(nlog2n)"]


def test_punctuation_dropped_and_fullwidth_normalised():
    toks = tokenize("ＴＣＰ的“三次握手”：SYN、ACK！")
    assert toks[0] == "tcp"
    assert all(t.strip("，。、：“”！()（）") == t and t for t in toks)
    assert {"syn", "ack"} <= set(toks)


def test_languages_symbols_and_empty():
    assert tokenize("") == []
    assert tokenize("，。！？ …") == []
    assert "c++" in tokenize("C++和Java")
    assert "time_wait" in tokenize("TIME_WAIT状态")


def test_stopwords_are_function_words_only():
    assert "的" in STOPWORDS and "了" in STOPWORDS
    for content in ["查找", "进程", "as", "is", "it", "中断"]:
        assert content not in STOPWORDS
    assert "as" in tokenize("AS 自治系统")


def test_version_constant():
    assert TOKENIZER_VERSION


def test_jieba_is_quiet(tmp_path):
    # a fresh TMPDIR makes jieba build its prefix-dict cache, the noisy path
    code = "from pipeline.text.tokenize import tokenize; print(tokenize('二叉排序树'))"
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    r = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT, env=env, timeout=120
    )
    assert "二叉" in r.stdout
    assert "Building prefix dict" not in r.stderr and "Loading model" not in r.stderr
    assert r.stderr.strip() == ""
