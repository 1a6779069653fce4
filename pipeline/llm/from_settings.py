"""Build the configured LLM from Settings (kept apart so the llm package never imports settings)."""

from __future__ import annotations


def make_llm_from_settings(s):
    from pipeline.llm import make_llm

    return make_llm(s.llm_backend, model_path=s.llm_model_path, packaged=s.llm_packaged, models_dir=s.models_dir,
                    base_url=s.llm_base_url, model=s.llm_model, api_key=s.llm_api_key, timeout=s.llm_timeout,
                    threads=s.llm_threads)
