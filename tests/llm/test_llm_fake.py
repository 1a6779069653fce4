"""FakeLlm, make_llm dispatch, chat_messages and LocalGguf's error paths (offline, no model load)."""

from __future__ import annotations

import os
import sys

import pytest

from pipeline.llm import FakeLlm, Llm, LlmError, chat_messages, make_llm
from pipeline.errors import one_line


def test_fake_list_records_calls_and_streams():
    llm = FakeLlm(["第一", "第二"])
    assert isinstance(llm, Llm)
    assert llm.backend == "fake" and llm.model_id == "fake"
    got: list[str] = []
    assert llm.complete("sys", "问1", on_token=got.append) == "第一"
    assert got == ["第", "一"]
    assert llm.complete("sys", "问2", max_tokens=8) == "第二"
    assert llm.calls == [("sys", "问1"), ("sys", "问2")]
    assert llm.call_kwargs[1] == {"max_tokens": 8, "temperature": 0.1, "stream": False, "json_schema": None}
    with pytest.raises(LlmError, match="no canned reply left for call 3 \\(2 given\\)"):
        llm.complete("sys", "问3")


def test_fake_callable_and_fixed():
    llm = FakeLlm(lambda system, user: f"答：{user}")
    assert llm.complete("s", "页表") == "答：页表"
    fixed = FakeLlm("资料中没有找到答案。")
    assert fixed.complete("a", "b") == fixed.complete("c", "d") == "资料中没有找到答案。"
    assert fixed.calls == [("a", "b"), ("c", "d")]


def test_make_llm_none_and_unknown():
    assert make_llm("none") is None
    with pytest.raises(LlmError, match="unknown LLM backend 'gpt'; choose one of: local, openai, none"):
        make_llm("gpt")


def test_import_is_light():
    # importing the layer must not load the runtime (llama.cpp)
    import subprocess

    code = "import sys, pipeline.llm; print('xllamacpp' in sys.modules, 'llama_cpp' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    assert out.stdout.strip() == "False False"


def test_chat_messages():
    assert chat_messages("规则", "问题") == [{"role": "system", "content": "规则"},
                                          {"role": "user", "content": "问题"}]
    assert chat_messages("", "问题") == [{"role": "user", "content": "问题"}]


def test_local_missing_file(tmp_path):
    with pytest.raises(LlmError, match=r"^local LLM: model file .*nope\.gguf not found$"):
        make_llm("local", model_path=str(tmp_path / "nope.gguf"))


def test_local_not_gguf(tmp_path):
    bad = tmp_path / "model.gguf"
    bad.write_bytes(b"<html>")
    with pytest.raises(LlmError, match="is not a GGUF file"):
        make_llm("local", model_path=str(bad))


def test_local_without_runtime(tmp_path, monkeypatch):
    fake = tmp_path / "m.gguf"
    fake.write_bytes(b"GGUF" + b"\0" * 64)
    monkeypatch.setitem(sys.modules, "xllamacpp", None)  # makes `import xllamacpp` fail
    with pytest.raises(LlmError, match=r"^local LLM: xllamacpp is not installed; run scripts/install_llm\.sh$"):
        make_llm("local", model_path=str(fake))


class _BrokenLibrary:
    """An import finder that fails `import xllamacpp` the way a missing system library does."""

    def find_spec(self, name, path=None, target=None):
        if name == "xllamacpp":
            raise ImportError("libgomp.so.1: cannot open shared object file: No such file or directory")
        return None


def test_local_runtime_library_missing(tmp_path, monkeypatch):
    fake = tmp_path / "m.gguf"
    fake.write_bytes(b"GGUF" + b"\0" * 64)
    monkeypatch.delitem(sys.modules, "xllamacpp", raising=False)
    monkeypatch.setattr(sys, "meta_path", [_BrokenLibrary(), *sys.meta_path])
    with pytest.raises(LlmError, match=r"^local LLM: xllamacpp cannot load its library: libgomp\.so\.1: "
                                       r".*apt-get install libgomp1\)$"):
        make_llm("local", model_path=str(fake))


def test_cpu_without_avx2_is_refused(tmp_path):
    from pipeline.llm.local_gguf import check_cpu

    info = tmp_path / "cpuinfo"
    info.write_text("processor\t: 0\nflags\t\t: fpu sse2 avx\n\nprocessor\t: 1\nflags\t\t: fpu sse2 avx\n")
    with pytest.raises(LlmError, match=r"^local LLM: this CPU lacks AVX2, .*EXAMRAG_LLM_BACKEND=openai"):
        check_cpu(info)
    info.write_text("processor\t: 0\nflags\t\t: fpu sse2 avx avx2 fma\n")
    check_cpu(info)
    check_cpu(tmp_path / "missing")  # not Linux: nothing to check


def test_local_corrupt_gguf(llm_runtime, tmp_path):
    fake = tmp_path / "m.gguf"
    fake.write_bytes(b"GGUF" + b"\0" * 64)
    with pytest.raises(LlmError, match=r"^local LLM: cannot load m\.gguf: llama\.cpp rejected it \(corrupt, "):
        make_llm("local", model_path=str(fake))


def test_one_line():
    assert one_line("a\n b\t\tc") == "a b c"
    assert one_line("x" * 500, 10) == "x" * 9 + "…"
    assert str(LlmError("line one\nline two")) == "line one line two"


def test_a_set_cancel_event_stops_a_call():
    import threading

    from pipeline.llm import Cancelled

    cancel = threading.Event()
    llm = FakeLlm("折半查找要求有序")
    seen: list[str] = []

    def token(piece: str) -> None:
        seen.append(piece)
        if len(seen) == 2:
            cancel.set()  # the client went away mid-answer

    with pytest.raises(Cancelled, match="cancelled"):
        llm.complete("s", "u", on_token=token, cancel=cancel)
    assert seen == ["折", "半"]
    with pytest.raises(Cancelled):  # already cancelled: the backend is never asked
        llm.complete("s", "u", cancel=cancel)
    assert len(llm.calls) == 1
