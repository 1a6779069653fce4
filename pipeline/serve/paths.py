"""No server paths beyond loopback: what a class server sends shows paths relative to the data dir.

On loopback the student is the server's owner and sees the paths the CLI shows. Bound to any other
address, every string the server sends (JSON bodies, events, error details) has its absolute paths
rewritten: a path inside the data dir, or beside it (its parent, where the material usually sits),
becomes relative to the data dir (``raw/书.pdf``, ``../raw/书.pdf``; the data dir itself ``<data dir>``); any other becomes ``…/`` + its
file name. A path is "absolute" when it starts at the root of this machine's file system (its first
part exists there, so ``/api/…`` in a hint is left alone) or with a drive letter.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

_POSIX = re.compile(r"(?<![\w.~/:\\])/[^\s'\"<>|,;:()\[\]{}`，。；：、）（]+")
_WINDOWS = re.compile(r"\b[A-Za-z]:\\[^\s'\"<>|,;()\[\]{}`，。；：、）（]+")


class PublicPaths:
    """``public(obj)`` → obj with server paths rewritten (a no-op when ``enabled`` is false)."""

    def __init__(self, data_dir: Path, *, enabled: bool):
        self.enabled = enabled
        self.data_dir = Path(os.path.abspath(data_dir))
        self.roots = {p for p in os.listdir("/")} if enabled and os.path.isdir("/") else set()

    def __call__(self, obj: Any) -> Any:
        if not self.enabled:
            return obj
        if isinstance(obj, str):
            return self.text(obj)
        if isinstance(obj, dict):
            return {k: self(v) for k, v in obj.items()}
        if isinstance(obj, (list, tuple)):
            return [self(v) for v in obj]
        return obj

    def text(self, text: str) -> str:
        if not self.enabled or ("/" not in text and "\\" not in text):
            return text
        text = _POSIX.sub(lambda m: self.path(m.group(0)) if self._is_server_path(m.group(0)) else m.group(0), text)
        return _WINDOWS.sub(lambda m: "…/" + m.group(0).rstrip("\\").rsplit("\\", 1)[-1], text)

    def _is_server_path(self, path: str) -> bool:
        first = path.lstrip("/").split("/", 1)[0]
        return bool(first) and first in self.roots

    def path(self, path: str) -> str:
        """One absolute path as shown beyond loopback."""
        p = Path(os.path.normpath(path))
        for base, prefix in ((self.data_dir, ""), (self.data_dir.parent, "../")):
            try:
                rel = p.relative_to(base)
            except ValueError:
                continue
            if rel == Path("."):
                return "<data dir>" if not prefix else ".."
            return prefix + rel.as_posix()
        return "…/" + p.name if p.name else "…"
