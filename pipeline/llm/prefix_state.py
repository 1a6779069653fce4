"""The KV state of a fixed system prompt, saved once per machine and restored into a slot in ~1 ms.

Why: on a 2-core AVX2 CPU the packaged 1.5B model reads about 30 prompt tokens a second, and the answer
prompt's fixed system part is ~100 tokens: ~3.3 s before the first token of every cold ``cli.py ask`` and of
every slot's first question in ``serve``. The in-process prompt cache (``prompt_cache``) only helps a slot
that already read it. llama.cpp can write a slot's KV cache to a file and read it back; for the 105-token
system prompt that is a 3 MB file, restored in about 1 ms. So the first process that needs a system prompt
computes it once (a one-token request holding only the system prompt, pinned to a slot), saves the slot,
and every later process, and every slot that last held another prompt, restores it instead of reading it.

The file holds only the system prompt's tokens and their KV state: no student's question is written to
disk. Its name is a digest of the model file (path, size, mtime), the runtime's version, the context
size and the system text, so another model, runtime or prompt never restores it. Writes are atomic:
llama.cpp saves under a temporary name, then it is renamed.

The slot actions go to llama.cpp's own HTTP listener on 127.0.0.1 (xllamacpp exposes no in-process call
for them), with the engine's random API key, no proxy, and a time limit on every read. Any failure
(a corrupt or truncated file, a busy slot) only means the prompt is read as before.
"""

from __future__ import annotations

import hashlib
import json
import os
import urllib.error
import urllib.request
from pathlib import Path
from typing import Optional

SUFFIX = ".kv"
MAX_STATES = 32  # saved states kept per folder (~3 MB each): the least recently used go first
HTTP_TIMEOUT_S = 10.0  # a slot action is a file read/write of a few MB: milliseconds when it works
_NO_PROXY = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # loopback never goes through a proxy


class PrefixStore:
    """Where the saved states of one model live, and what each is called."""

    def __init__(self, directory: Path, model_path: Path, runtime_version: str, n_ctx: int) -> None:
        self.directory = Path(directory)
        st = model_path.stat()
        self._model_key = f"{model_path.resolve()}|{st.st_size}|{st.st_mtime_ns}|{runtime_version}|{n_ctx}"

    def digest(self, system: str) -> str:
        """The name of ``system``'s state for this model and runtime (without the suffix)."""
        return hashlib.sha256(f"{self._model_key}\n{system}".encode("utf-8")).hexdigest()[:32]

    def path(self, digest: str) -> Path:
        return self.directory / f"{digest}{SUFFIX}"

    def temp_name(self, digest: str) -> str:
        """A name only this process writes (llama.cpp accepts letters, digits, '.', '-', '_')."""
        return f"{digest}.{os.getpid()}.tmp"

    def used(self, digest: str) -> None:
        """Mark a state as just used (its mtime), so :meth:`prune` keeps it."""
        try:
            os.utime(self.path(digest))
        except OSError:
            pass

    def prune(self, keep: int = MAX_STATES) -> list[Path]:
        """Remove all but the ``keep`` most recently used states (a changed prompt, model or runtime
        leaves its old states unused); the removed paths."""
        try:
            states = sorted(self.directory.glob(f"*{SUFFIX}"), key=lambda p: p.stat().st_mtime, reverse=True)
        except OSError:
            return []
        gone = []
        for old in states[keep:]:
            try:
                old.unlink()
                gone.append(old)
            except OSError:
                pass
        return gone


class SlotActions:
    """``save`` / ``restore`` of one slot through the engine's HTTP listener (see the module docstring)."""

    def __init__(self, address: str, api_key: str, timeout: float = HTTP_TIMEOUT_S) -> None:
        self.address = address.rstrip("/")
        self.api_key = api_key
        self.timeout = timeout

    def save(self, slot: int, filename: str) -> bool:
        """Write ``slot``'s KV state to ``filename`` in the engine's save folder; False on any failure."""
        reply = self._post(slot, "save", filename)
        return reply is not None and int(reply.get("n_saved", 0)) > 0

    def restore(self, slot: int, filename: str) -> int:
        """Load ``filename`` into ``slot``; the tokens restored (0 on any failure)."""
        reply = self._post(slot, "restore", filename)
        return int(reply.get("n_restored", 0)) if reply else 0

    def _post(self, slot: int, action: str, filename: str) -> Optional[dict]:
        req = urllib.request.Request(
            f"{self.address}/slots/{int(slot)}?action={action}", method="POST",
            data=json.dumps({"filename": filename}).encode("utf-8"),
            headers={"Authorization": f"Bearer {self.api_key}", "Content-Type": "application/json"})
        try:
            with _NO_PROXY.open(req, timeout=self.timeout) as resp:
                reply = json.loads(resp.read(1 << 16).decode("utf-8"))
        except (urllib.error.URLError, OSError, ValueError):  # HTTPError (busy slot, bad file) included
            return None
        return reply if isinstance(reply, dict) else None
