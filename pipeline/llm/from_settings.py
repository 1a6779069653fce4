"""Build the configured LLM from Settings (kept apart so the rest of the llm package never reads settings)."""

from __future__ import annotations

from pipeline.llm import make_llm
from pipeline.settings import Settings


def make_llm_from_settings(s: Settings):
    """The LLM of the ``llm`` settings group, or None for backend ``none``; raises LlmError."""
    g = s.llm
    return make_llm(g.backend, model_path=g.model_path, packaged=g.packaged, models_dir=s.models_dir,
                    base_url=g.base_url, model=g.model, api_key=g.api_key, timeout=g.timeout, threads=g.threads,
                    slots=g.slots, n_ctx=g.n_ctx, prompt_cache=g.prompt_cache)
