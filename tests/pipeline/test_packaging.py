"""pyproject.toml repeats the pins of requirements/*.txt (which scripts/setup.sh installs, with lock.txt as
constraints): these tests fail when one side changes without the other, and check what the wheel needs
(the console script, the package data)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

import pipeline

ROOT = Path(__file__).resolve().parents[2]
REQ = ROOT / "requirements"
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]
pytestmark = pytest.mark.timeout(60)


def norm(spec: str) -> str:
    """``Name[extra]==1.0`` → ``name[extra]==1.0`` (PEP 503 name, no spaces), to compare two spellings."""
    spec = spec.replace(" ", "")
    m = re.match(r"([A-Za-z0-9._-]+)(.*)", spec)
    return re.sub(r"[-_.]+", "-", m.group(1)).lower() + m.group(2)


def name_of(spec: str) -> str:
    return re.split(r"[\[=<>!~;]", norm(spec), maxsplit=1)[0]


def requirements(name: str) -> set[str]:
    """The requirement lines of a requirements file (comments, options and --hash continuations dropped)."""
    out = set()
    for line in (REQ / name).read_text("utf-8").splitlines():
        line = line.split("#", 1)[0].strip().rstrip("\\").strip()
        if line and not line.startswith("-"):
            out.add(norm(line.split(" --hash", 1)[0]))
    return out


def torch_pin() -> str:
    """setup.sh installs torch first, by itself (see requirements/base.txt's header)."""
    m = re.search(r"pip install -q (torch==\S+)", (ROOT / "scripts" / "setup.sh").read_text("utf-8"))
    assert m, "scripts/setup.sh no longer installs a pinned torch"
    return norm(m.group(1))


def lock() -> dict[str, str]:
    pins = {}
    for line in (REQ / "lock.txt").read_text("utf-8").splitlines():
        if "==" in line and not line.startswith("#"):
            name, version = line.strip().split("==")
            pins[name_of(name)] = version
    return pins


def test_dependencies_are_base_txt_and_torch():
    assert {norm(d) for d in PROJECT["dependencies"]} == requirements("base.txt") | {torch_pin()}


@pytest.mark.parametrize("extra, files", [("llm", ["llm.txt"]), ("paddle", ["paddle.txt"]),
                                          ("cluster", ["cluster.txt"]), ("test", ["test.txt"])])
def test_extras_are_their_requirements_files(extra, files):
    assert {norm(d) for d in PROJECT["optional-dependencies"][extra]} == set().union(*map(requirements, files))


def test_pins_agree_with_the_lock():
    """A package the lock pins is pinned to the same version here (or left to the lock's constraint)."""
    pins = lock()
    every = PROJECT["dependencies"] + [d for ds in PROJECT["optional-dependencies"].values() for d in ds]
    bad = []
    for spec in every:
        m = re.search(r"==([^;,\s]+)", spec)
        name = name_of(spec)
        if m and name in pins and pins[name] != m.group(1):
            bad.append(f"{spec}: lock.txt has {pins[name]}")
    assert not bad, bad


def test_the_parser_sees_drift(tmp_path):
    """The comparison reads real spellings: a different pin or name form is seen, a different spelling is not."""
    assert norm("fastapi_offline==1.7.7") == norm("FastAPI-Offline == 1.7.7")
    assert norm("markitdown[docx,pptx,xlsx]==0.1.9") != norm("markitdown[docx,pptx,xlsx]==0.1.8")
    assert name_of("PyYAML==6.0.2") == "pyyaml" and "xllamacpp==2026.10.11549" in requirements("llm.txt")


def test_console_script_version_and_package_data():
    assert PROJECT["scripts"] == {"examrag": "pipeline.cli:main"}
    assert PROJECT["version"] == pipeline.__version__
    data = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["tool"]["setuptools"]["package-data"]["pipeline"]
    pkg = ROOT / "pipeline"
    shipped = {p.relative_to(pkg) for pattern in data for p in pkg.glob(pattern) if p.is_file()}
    needed = {p.relative_to(pkg) for p in pkg.rglob("*") if p.is_file() and p.suffix not in (".py", ".pyc")
              and "__pycache__" not in p.parts}
    assert needed and needed <= shipped, needed - shipped
