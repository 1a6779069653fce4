"""The REAL packaged default model: assemble, load, and answer in Chinese.

Not optional: it fails when llama_cpp or the part packages are missing (run
scripts/install_llm.sh). It is skipped only when llama_cpp is not importable AND
EXAMRAG_ALLOW_NO_LLM=1 is set. Costs ~10-20 s on 2 cores (1.1 GB model, 16 tokens).
"""

from __future__ import annotations

import os
import re

import pytest

from pipeline.llm import DEFAULT_PACKAGED, make_llm
from pipeline.llm.packaged import PACKAGED, assemble, default_models_dir, sha256_file

CJK = re.compile(r"[\u4e00-\u9fff]")


def _require_llama_cpp():
    try:
        import llama_cpp  # noqa: F401
    except ImportError:
        if os.environ.get("EXAMRAG_ALLOW_NO_LLM") == "1":
            pytest.skip("llama_cpp not importable and EXAMRAG_ALLOW_NO_LLM=1")
        raise


@pytest.fixture(scope="module")
def real_llm():
    _require_llama_cpp()
    llm = make_llm("local", packaged=DEFAULT_PACKAGED, models_dir=default_models_dir(), threads=2)
    yield llm
    llm.close()


def test_packaged_default_is_verified():
    path = assemble(DEFAULT_PACKAGED, default_models_dir())
    model = PACKAGED[DEFAULT_PACKAGED]
    assert path.stat().st_size == model.size
    with open(path, "rb") as f:
        assert f.read(4) == b"GGUF"
    if os.environ.get("EXAMRAG_REHASH") == "1":  # full re-hash on demand (~3 s)
        assert sha256_file(path) == model.sha256


def test_real_model_answers_in_chinese(real_llm):
    assert real_llm.backend == "local"
    assert real_llm.model_id == "qwen2.5-coder-1.5b-instruct-q4_k_m"
    assert "1.5B" in real_llm.model_name
    streamed: list[str] = []
    out = real_llm.complete("你是计算机考研助手，用中文简短回答。", "用一句话解释什么是栈。",
                            max_tokens=16, temperature=0.0, on_token=streamed.append)
    assert out.strip(), "empty completion"
    assert CJK.search(out), f"no Chinese in the answer: {out!r}"
    assert "".join(streamed) == out
    st = real_llm.last_stats
    assert 1 <= st["completion_tokens"] <= 16
    assert st["first_token_s"] is not None and st["first_token_s"] <= st["total_s"]
    # without streaming: same text at temperature 0
    assert real_llm.complete("你是计算机考研助手，用中文简短回答。", "用一句话解释什么是栈。",
                             max_tokens=16, temperature=0.0) == out


def test_real_model_prompt_too_long(real_llm):
    from pipeline.llm import LlmError

    with pytest.raises(LlmError, match=r"^local LLM qwen2.5-coder-1.5b-instruct-q4_k_m: "
                                       r"Requested tokens \(\d+\) exceed context window of 4096$"):
        real_llm.complete("", "栈" * 6000, max_tokens=16)
