"""The LLM layer: one small interface (:class:`Llm`), several backends.

- ``local``: a GGUF file run in-process by llama.cpp (the prebuilt ``xllamacpp`` wheel, see
  ``local_gguf``); by default the packaged Qwen2.5-Coder-1.5B-Instruct assembled from PyPI part
  packages and verified by sha256 (see ``packaged``).
- ``openai``: any OpenAI-compatible endpoint, e.g. Ollama at ``http://127.0.0.1:11434/v1``.
- ``none``: no LLM (retrieval only).

Heavy imports (xllamacpp) happen only when a local model is actually built.
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

from .base import Cancelled, Llm, LlmError, Request, TokenCallback, chat_messages
from .fake import FakeLlm
from .packaged import DEFAULT_PACKAGED, PACKAGED, default_models_dir

BACKENDS = ("local", "openai", "none")
STATE_DIR = "kv"  # in the models folder: saved system-prompt KV states (local_gguf, prefix_state)

__all__ = ["Cancelled", "Llm", "LlmError", "Request", "TokenCallback", "chat_messages", "FakeLlm", "make_llm", "BACKENDS",
           "PACKAGED", "DEFAULT_PACKAGED", "default_models_dir"]


def make_llm(
    backend: str,
    *,
    model_path: Optional[str] = None,
    packaged: str = DEFAULT_PACKAGED,
    models_dir: Optional[Path] = None,
    base_url: Optional[str] = None,
    model: Optional[str] = None,
    api_key: Optional[str] = None,
    timeout: Optional[float] = None,
    threads: int = 2,
    n_ctx: int = 4096,
    slots: int = 2,
    prompt_cache: bool = True,
) -> Optional[Llm]:
    """Build the configured LLM, or return None for backend ``none``.

    ``local``: ``model_path`` (a user GGUF file) if given, else the packaged model
    ``packaged`` assembled and verified in ``models_dir`` (default
    ``$EXAMRAG_MODELS_DIR`` or ``~/.cache/examrag/models``); the model is loaded now, with
    ``slots`` concurrent generations of ``n_ctx`` tokens each, reusing a slot's prompt prefix when
    ``prompt_cache`` (and a system prompt's KV state saved in ``models_dir/kv`` by an earlier process:
    ``prefix_state``). ``timeout`` bounds a whole call
    (default: none).
    ``openai``: ``base_url`` and ``model`` are required; ``timeout`` bounds connecting and each
    read (default 60 s).
    Raises :class:`LlmError` with a one-line message on any problem.
    """
    b = (backend or "").strip().lower()
    if b == "none":
        return None
    if b == "local":
        from .local_gguf import LocalGguf

        home = Path(models_dir) if models_dir else default_models_dir()
        if model_path:
            path = Path(model_path).expanduser()
        else:
            from .packaged import assemble

            path = assemble(packaged, home)
        return LocalGguf(path, n_threads=threads, n_ctx=n_ctx, slots=slots, timeout=timeout,
                         prompt_cache=prompt_cache, state_dir=home / STATE_DIR)
    if b == "openai":
        from .openai_compat import OpenAICompat

        if not base_url:
            raise LlmError("LLM backend openai needs a base URL "
                           "(e.g. Ollama: http://127.0.0.1:11434/v1)")
        if not model:
            raise LlmError(f"LLM backend openai needs a model name for {base_url} "
                           f"(e.g. qwen2.5:7b for Ollama)")
        return OpenAICompat(base_url, model, api_key=api_key, timeout=60 if timeout is None else timeout)
    raise LlmError(f"unknown LLM backend {backend!r}; choose one of: {', '.join(BACKENDS)}")
