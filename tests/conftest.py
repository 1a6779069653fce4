"""Shared fixtures: no network beyond loopback, an isolated data dir, the shipped sample ingested once."""

from __future__ import annotations

import ipaddress
import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from tests.time_limits import add_fixture_time
from tests.time_limits import pytest_configure, pytest_runtest_protocol, pytest_unconfigure  # noqa: F401 (hooks)

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "data" / "raw"
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")

_real_connect = socket.socket.connect


def _guarded_connect(self, address):
    host = address[0] if isinstance(address, tuple) else address
    if isinstance(host, str) and self.family in (socket.AF_INET, socket.AF_INET6):
        try:
            loopback = ipaddress.ip_address(host).is_loopback
        except ValueError:
            loopback = host == "localhost"
        if not loopback:
            raise RuntimeError(f"test tried to reach the network: {address}")
    return _real_connect(self, address)


@pytest.fixture(autouse=True)
def no_network(monkeypatch):
    """Any connection except loopback fails the test (models must come from installed packages)."""
    monkeypatch.setattr(socket.socket, "connect", _guarded_connect)


@pytest.fixture(autouse=True)
def isolated_env(monkeypatch, tmp_path):
    for key in list(os.environ):
        if key.startswith("EXAMRAG_") and key not in ("EXAMRAG_MODELS_DIR", "EXAMRAG_ALLOW_NO_LLM"):
            monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("EXAMRAG_DATA_DIR", str(tmp_path / "data"))


def run_cli(*args: str, data_dir: Path | None = None, env: dict | None = None, timeout: float = 900):
    """Run ``python cli.py`` in a subprocess, as a student would."""
    full_env = {k: v for k, v in os.environ.items() if not k.startswith("EXAMRAG_") or k == "EXAMRAG_MODELS_DIR"}
    full_env.update(env or {})
    if data_dir is not None:
        full_env["EXAMRAG_DATA_DIR"] = str(data_dir)
    return subprocess.run([sys.executable, str(ROOT / "cli.py"), *args], cwd=ROOT, env=full_env,
                          capture_output=True, text=True, timeout=timeout)


def ingest_notes(tmp_path_factory, notes: dict[str, str], env: dict | None = None) -> Path:
    """Write ``notes`` (file name → text) to a fresh raw folder, ingest it with ``cli.py`` (hashed
    embeddings unless ``env`` says otherwise) and return the data dir: a small corpus a test module
    builds once."""
    raw = tmp_path_factory.mktemp("raw")
    for name, text in notes.items():
        (raw / name).write_text(text, encoding="utf-8")
    data = tmp_path_factory.mktemp("data")
    r = run_cli("ingest", str(raw), "--quiet", data_dir=data, env={"EXAMRAG_EMBED_MODEL": "hash", **(env or {})})
    assert r.returncode == 0, r.stderr
    return data


@pytest.fixture(scope="session")
def cli():
    """``cli(*args, data_dir=..., env=...)`` runs ``python cli.py`` in a subprocess."""
    return run_cli


SAMPLE_INGEST_TIMEOUT = 300  # s; the sample ingest took 34 s on 2 cores under load 10-12 (see pytest.ini)


def pytest_collection_modifyitems(config, items):
    # the test that sets up the shared sample ingest pays for it: every test that may be that one gets its time
    add_fixture_time(items, {"sample_data": SAMPLE_INGEST_TIMEOUT})


@pytest.fixture(scope="session")
def sample_ingest(tmp_path_factory) -> tuple[Path, subprocess.CompletedProcess]:
    """The shipped sample ingested once with the real default models (OCR, embeddings): the data dir and
    the run (without --quiet and not on a terminal: tests/cli/test_ingest_output.py compares its lines)."""
    data = tmp_path_factory.mktemp("sample") / "data"
    result = run_cli("ingest", "data/raw", data_dir=data, timeout=SAMPLE_INGEST_TIMEOUT)
    assert result.returncode == 0, result.stdout + result.stderr
    return data, result


@pytest.fixture(scope="session")
def sample_data(sample_ingest) -> Path:
    return sample_ingest[0]


@pytest.fixture(scope="session")
def llm_runtime():
    """The local LLM runtime (xllamacpp). It is part of the product, so a test that needs it fails
    without it, unless EXAMRAG_ALLOW_NO_LLM=1 says this machine is expected to lack it (then it skips)."""
    try:
        import xllamacpp
    except ImportError:
        if os.environ.get("EXAMRAG_ALLOW_NO_LLM") == "1":
            pytest.skip("xllamacpp not importable and EXAMRAG_ALLOW_NO_LLM=1")
        raise
    return xllamacpp


TINY_PARTS = (b"GGUF" + b"a" * 1000, b"b" * 777, b"c" * 5)  # a "model" in three part packages


@pytest.fixture
def tiny_packaged(tmp_path, monkeypatch):
    """``tiny_packaged(name)`` → (model, site, lookups): a packaged model registered as ``name`` whose three
    part packages are the files of TINY_PARTS in ``tmp_path/site``. The part lookup finds them there (a
    deleted file is a part package not installed) and records each part number it is asked for."""
    import hashlib

    from pipeline.llm import LlmError
    from pipeline.llm import packaged as pk

    def make(name: str):
        site = tmp_path / "site"
        site.mkdir(exist_ok=True)
        for i, data in enumerate(TINY_PARTS, 1):
            (site / f"part{i:02d}.bin").write_bytes(data)
        whole = b"".join(TINY_PARTS)
        model = pk.PackagedModel(name=name, title="tiny test model", dist_prefix="tiny-part", parts=len(TINY_PARTS),
                                 version="1.0", filename="tiny.gguf", sha256=hashlib.sha256(whole).hexdigest(),
                                 size=len(whole))
        monkeypatch.setitem(pk.PACKAGED, name, model)
        lookups: list[int] = []

        def find_part(m, i):
            lookups.append(i)
            part = site / f"part{i:02d}.bin"
            if not part.exists():
                raise LlmError(f"packaged model {m.name}: part package {m.dist(i)} is not installed; {pk.INSTALL_HINT}")
            return part

        monkeypatch.setattr(pk, "find_part", find_part)
        return model, site, lookups

    return make


@pytest.fixture
def copy_of_sample(tmp_path) -> Path:
    """A copy of data/raw as shipped (sample documents only; its generator is scripts/make_sample.py)."""
    raw = tmp_path / "raw"
    shutil.copytree(SAMPLE, raw)
    return raw
