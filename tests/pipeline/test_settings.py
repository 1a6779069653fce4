"""One settings object: groups, flat keys, precedence, one-line errors, group hashes."""

import pytest

from pipeline.settings import FLAT_KEYS, Settings, SettingsError, load_settings


def test_flat_keys_reach_their_groups_with_precedence(tmp_path, monkeypatch):
    cfg = tmp_path / "examrag.toml"
    cfg.write_text('ocr_dpi = 200\nllm_backend = "openai"\n[llm]\nmodel = "qwen2.5:7b"\n[ask]\ntop_n = 30\n')
    monkeypatch.setenv("EXAMRAG_CONFIG", str(cfg))
    monkeypatch.setenv("EXAMRAG_TOP_N", "40")  # environment beats the file
    s = load_settings(data_dir=tmp_path, ocr_workers=1)  # explicit overrides beat both
    assert s.parse.ocr_dpi == 200 and s.llm.backend == "openai" and s.llm.model == "qwen2.5:7b"
    assert s.ask.top_n == 40 and s.executor.ocr_workers == 1 and s.data_dir == tmp_path


def test_environment_names_of_the_readme_still_work(monkeypatch):
    for env, value in {"EXAMRAG_LLM_BACKEND": "none", "EXAMRAG_ENRICH_BACKEND": "llm", "EXAMRAG_OCR_ENGINE": "paddleocr",
                       "EXAMRAG_EMBED_MODEL": "hash", "EXAMRAG_RETRIEVAL_MODE": "hybrid", "EXAMRAG_API_TOKEN": "t",
                       "EXAMRAG_LLM_PACKAGED": "qwen0.5b", "EXAMRAG_CHROMA_URL": "http://127.0.0.1:8000"}.items():
        monkeypatch.setenv(env, value)
    s = load_settings()
    assert (s.llm.backend, s.enrich.backend, s.parse.ocr_engine, s.index.embed_model, s.ask.retrieval_mode,
            s.serve.api_token, s.llm.packaged, s.index.chroma_url) == (
        "none", "llm", "paddleocr", "hash", "hybrid", "t", "qwen0.5b", "http://127.0.0.1:8000")


@pytest.mark.parametrize("env, value, message", [
    ("EXAMRAG_LLM_BACKEND", "gpt", "EXAMRAG_LLM_BACKEND='gpt': Input should be 'local', 'openai' or 'none'"),
    ("EXAMRAG_OCR_WORKERS", "0", "EXAMRAG_OCR_WORKERS='0': Input should be greater than or equal to 1"),
    ("EXAMRAG_TOP_N", "many", "EXAMRAG_TOP_N='many': Input should be a valid integer"),
])
def test_a_bad_value_is_one_line_naming_the_variable(monkeypatch, env, value, message):
    monkeypatch.setenv(env, value)
    with pytest.raises(SettingsError) as err:
        load_settings()
    assert str(err.value).startswith(message) and "\n" not in str(err.value)


def test_an_unknown_config_key_is_named_with_a_suggestion(tmp_path):
    (tmp_path / "examrag.toml").write_text("ocr_worker = 3\n")
    with pytest.raises(SettingsError, match=r"unknown key in .*examrag.toml: 'ocr_worker'; did you mean ocr_workers"):
        load_settings(data_dir=tmp_path)


def test_every_key_is_unique_and_documented():
    assert len(FLAT_KEYS) == len(set(FLAT_KEYS))
    for group in Settings.model_fields:
        cls = Settings.model_fields[group].annotation
        for name, field in getattr(cls, "model_fields", {}).items():
            assert field.description, f"{group}.{name} has no description"


def test_a_stage_hash_moves_with_its_group_only():
    base = Settings()
    assert base.group_hash("parse") != Settings.from_flat(ocr_dpi=200).group_hash("parse")
    assert base.group_hash("parse") == Settings.from_flat(ocr_workers=1, top_n=5).group_hash("parse")
    # the LLM matters to enrich only when enrich uses it
    assert base.group_hash("enrich") == Settings.from_flat(llm_model_path="/m.gguf").group_hash("enrich")
    llm = Settings.from_flat(enrich_backend="llm")
    assert llm.group_hash("enrich") != Settings.from_flat(enrich_backend="llm", llm_model_path="/m.gguf").group_hash("enrich")


def test_secrets_are_never_hashed_nor_dumped():
    s = Settings.from_flat(pdf_password="p4ss", llm_api_key="sk-1", api_token="t0k-s3cret")
    assert s.group_hash("parse") == Settings().group_hash("parse")
    dumped = s.model_dump_json()
    assert "p4ss" not in dumped and "sk-1" not in dumped and "t0k-s3cret" not in dumped
