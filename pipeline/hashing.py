"""Content hashes: document ids, artifact hashes, model-file verification."""

from __future__ import annotations

import hashlib
from pathlib import Path

_BLOCK = 1 << 20  # 1 MiB reads: a 1.1 GB model hashes at disk speed


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        while block := fh.read(_BLOCK):
            h.update(block)
    return h.hexdigest()


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
