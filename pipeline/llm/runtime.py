"""Before the engine starts: is the model file a GGUF, can this CPU run the prebuilt wheel, does the
wheel import (each failure a one-line LlmError with its fix, never an illegal-instruction crash)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from pipeline.errors import one_line

from .base import LlmError

INSTALL_HINT = "run scripts/install_llm.sh"


def check_gguf(path: Path) -> None:
    """LlmError unless ``path`` is a readable file starting with the GGUF magic (a user's file
    gets this check; the packaged model is verified by sha256 in packaged.assemble)."""
    if not path.is_file():
        raise LlmError(f"local LLM: model file {path} not found")
    try:
        with open(path, "rb") as f:
            magic = f.read(4)
    except OSError as e:
        raise LlmError(f"local LLM: cannot read model file {path}: {e.strerror or e}") from None
    if magic != b"GGUF":
        raise LlmError(f"local LLM: {path} is not a GGUF file (starts with {magic!r})")


def check_cpu(cpuinfo: Path = Path("/proc/cpuinfo")) -> None:
    """LlmError on an x86-64 CPU without AVX2: the prebuilt wheel is compiled for AVX2 and would
    die of an illegal instruction instead of failing with a message. Unknown CPUs pass."""
    try:
        flags = next((ln.split(":", 1)[1].split() for ln in cpuinfo.read_text().splitlines()
                      if ln.startswith("flags")), None)
    except OSError:
        return
    if flags is not None and "avx2" not in flags:
        raise LlmError("local LLM: this CPU lacks AVX2, which the prebuilt xllamacpp runtime needs; "
                       "use an OpenAI-compatible endpoint instead (EXAMRAG_LLM_BACKEND=openai), or none")


def import_runtime() -> Any:
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # see local_gguf's docstring (Threads)
    try:
        import xllamacpp  # heavy: loads llama.cpp
    except ModuleNotFoundError as e:
        if e.name != "xllamacpp":
            raise LlmError(f"local LLM: xllamacpp cannot import {e.name}; {INSTALL_HINT}") from None
        raise LlmError(f"local LLM: xllamacpp is not installed; {INSTALL_HINT}") from None
    except (ImportError, OSError) as e:  # a shared library it links to is missing
        hint = ("install the OpenMP runtime (Debian/Ubuntu: apt-get install libgomp1)"
                if "libgomp" in str(e) else INSTALL_HINT)
        raise LlmError(f"local LLM: xllamacpp cannot load its library: {one_line(str(e), 160)}; "
                       f"{hint}") from None
    return xllamacpp
