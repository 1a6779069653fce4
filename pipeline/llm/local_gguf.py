"""A GGUF model run in-process by llama-cpp-python (CPU)."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any, Optional

from pipeline.errors import one_line

from .base import LlmError, TokenCallback

INSTALL_HINT = "run scripts/install_llm.sh"


class LocalGguf:
    """Chat completion with a local GGUF file; the model is loaded once, here.

    ``llama_cpp`` is imported inside ``__init__`` so importing this module is cheap.
    The chat template stored in the GGUF metadata is used.

    By default every call starts from an empty context and re-seeds the sampler with
    ``seed``, so the same prompt gives the same answer whatever was asked before
    (measured: reusing the KV cache of a previous identical prompt changed a greedy
    answer). ``reuse_prefix=True`` keeps llama-cpp-python's prefix reuse instead:
    faster when consecutive prompts share a long beginning, but answers then depend
    on the previous call.

    ``load_s`` is the model load time; ``last_stats`` holds the measurements of the
    last call: ``prompt_tokens`` (approximate), ``completion_tokens`` (streamed pieces,
    about one per token), ``first_token_s``, ``total_s``.
    """

    backend = "local"

    def __init__(self, model_path: Path, n_threads: int = 2, n_ctx: int = 4096,
                 seed: int = 0, reuse_prefix: bool = False) -> None:
        path = Path(model_path).expanduser()
        self.model_path = path
        self.model_id = path.stem
        self.n_ctx = n_ctx
        self.reuse_prefix = reuse_prefix
        self.seed = seed
        self.last_stats: dict[str, Any] = {}
        self._lock = threading.Lock()
        if not path.is_file():
            raise LlmError(f"local LLM: model file {path} not found")
        try:
            with open(path, "rb") as f:
                magic = f.read(4)
        except OSError as e:
            raise LlmError(f"local LLM: cannot read model file {path}: {e.strerror or e}") from None
        if magic != b"GGUF":
            raise LlmError(f"local LLM: {path} is not a GGUF file (starts with {magic!r})")
        try:
            import llama_cpp  # heavy: loads the shared library
        except ImportError as e:
            raise LlmError(f"local LLM: llama-cpp-python is not installed ({one_line(e, 120)}); "
                           f"{INSTALL_HINT}") from None
        except OSError as e:
            raise LlmError(f"local LLM: llama-cpp-python cannot load its library: "
                           f"{one_line(e, 160)}; {INSTALL_HINT}") from None
        t0 = time.perf_counter()
        try:
            self._llama = llama_cpp.Llama(
                model_path=str(path), n_ctx=n_ctx, n_threads=n_threads,
                n_threads_batch=n_threads, seed=seed, verbose=False)
        except (ValueError, RuntimeError, OSError) as e:
            raise LlmError(f"local LLM: cannot load {path.name}: {one_line(e, 160)}") from None
        self.load_s = time.perf_counter() - t0
        name = self._llama.metadata.get("general.name") if self._llama.metadata else None
        self.model_name = name or path.stem

    def complete(
        self,
        system: str,
        user: str,
        *,
        max_tokens: int = 512,
        temperature: float = 0.1,
        on_token: Optional[TokenCallback] = None,
        json_schema: Optional[dict] = None,
    ) -> str:
        messages = []
        if system:
            messages.append({"role": "system", "content": system})
        messages.append({"role": "user", "content": user})
        pieces: list[str] = []
        first: Optional[float] = None
        with self._lock:
            t0 = time.perf_counter()
            if not self.reuse_prefix:
                self._llama.reset()
            for chunk in self._chunks(messages, max_tokens, temperature, json_schema):
                choices = chunk.get("choices") or []
                text = (choices[0].get("delta") or {}).get("content") if choices else None
                if not text:
                    continue
                if first is None:
                    first = time.perf_counter() - t0
                pieces.append(text)
                if on_token is not None:  # its exceptions propagate untouched
                    on_token(text)
            total = time.perf_counter() - t0
            n_done = len(pieces)
            self.last_stats = {
                "prompt_tokens": max(0, int(self._llama.n_tokens) - n_done),
                "completion_tokens": n_done,
                "first_token_s": first,
                "total_s": total,
            }
        return "".join(pieces)

    def _chunks(self, messages, max_tokens, temperature, json_schema=None):
        """Stream chunks from llama_cpp, its own failures turned into LlmError."""
        def fail(e: Exception) -> LlmError:
            if isinstance(e, ValueError):  # "Requested tokens (5000) exceed context window of 4096"
                return LlmError(f"local LLM {self.model_id}: {one_line(e, 200)}")
            return LlmError(f"local LLM {self.model_id}: generation failed: {one_line(e, 200)}")

        extra = {"response_format": {"type": "json_object", "schema": json_schema}} if json_schema else {}
        try:
            it = iter(self._llama.create_chat_completion(
                messages=messages, max_tokens=max_tokens, temperature=temperature,
                seed=self.seed, stream=True, **extra))
        except (ValueError, RuntimeError) as e:
            raise fail(e) from None
        while True:
            try:
                chunk = next(it)
            except StopIteration:
                return
            except (ValueError, RuntimeError) as e:
                raise fail(e) from None
            yield chunk

    def close(self) -> None:
        """Free the model now rather than at garbage collection."""
        llama = getattr(self, "_llama", None)
        if llama is not None:
            llama.close()
            self._llama = None
