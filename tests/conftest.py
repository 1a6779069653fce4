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


@pytest.fixture(scope="session")
def cli():
    """``cli(*args, data_dir=..., env=...)`` runs ``python cli.py`` in a subprocess."""
    return run_cli


@pytest.fixture(scope="session")
def sample_ingest(tmp_path_factory) -> tuple[Path, subprocess.CompletedProcess]:
    """The shipped sample ingested once with the real default models (OCR, embeddings): the data dir and
    the run (without --quiet and not on a terminal: tests/cli/test_ingest_output.py compares its lines)."""
    data = tmp_path_factory.mktemp("sample") / "data"
    result = run_cli("ingest", "data/raw", data_dir=data)
    assert result.returncode == 0, result.stdout + result.stderr
    return data, result


@pytest.fixture(scope="session")
def sample_data(sample_ingest) -> Path:
    return sample_ingest[0]


@pytest.fixture
def copy_of_sample(tmp_path) -> Path:
    """A copy of data/raw as shipped (sample documents only; its generator is scripts/make_sample.py)."""
    raw = tmp_path / "raw"
    shutil.copytree(SAMPLE, raw)
    return raw
