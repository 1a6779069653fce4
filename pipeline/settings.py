"""One settings object. Precedence: defaults < config file < environment (EXAMRAG_*) < CLI.

The config file is TOML: ``$EXAMRAG_CONFIG`` if set, else ``<data_dir>/examrag.toml`` when it
exists. Every field reads from ``EXAMRAG_<FIELD_NAME_UPPER>``.
"""

from __future__ import annotations

import hashlib
import json
import os
import tomllib
from pathlib import Path
from typing import Optional

from pydantic import BaseModel, Field

ENV_PREFIX = "EXAMRAG_"


class Settings(BaseModel):
    data_dir: Path = Field(Path("data"), description="Where stage artifacts, manifest and indexes live.")

    # parse
    ocr_engine: str = Field("rapidocr", description="rapidocr (packaged default) or paddleocr.")
    ocr_dpi: int = Field(150, description="Render resolution for OCR'd pages; PP-OCR small models suit 150.")
    ocr_workers: int = Field(2, description="Processes used for OCR pages (2 cores here).")
    paddle_det_dir: Optional[str] = Field(None, description="PP-OCR detection model dir for paddleocr.")
    paddle_rec_dir: Optional[str] = Field(None, description="PP-OCR recognition model dir for paddleocr.")
    garble_min_chars: int = Field(20, description="A page with fewer extractable characters (after dropping lines repeated on most pages, e.g. a seller's footer) has no text layer: OCR'd when it shows an image or vector-drawn glyphs, else a blank page.")
    garble_min_cjk_ratio: float = Field(0.2, description="Below this share of CJK among letters, a page of a Chinese document is 'garbled' (Latin-1 mojibake, or only Latin letters and digits extract). 408 corpus: good pages >= 0.31, garbled <= 0.03.")
    garble_max_bad_ratio: float = Field(0.1, description="Above this share of U+FFFD / private-use / control chars a page is 'garbled' (symbol-font glyphs U+F020-U+F0FF not counted). 408 corpus: good pages <= 0.03, garbled >= 0.3.")
    pdf_password: Optional[str] = Field(None, description="Password tried for encrypted PDFs.")

    # clean
    rules_file: Optional[str] = Field(None, description="User rules YAML replacing pipeline/clean/rules.yaml.")

    # enrich
    enrich_backend: str = Field("extractive", description="extractive | llm (uses llm_backend) | none.")
    enrich_max_input_chars: int = Field(1800, description="Input cap per LLM call (chars of section text).")

    # index
    embed_model: str = Field("use", description="use (packaged USE-multilingual) | sentence-transformers | hash (tests).")
    embed_model_dir: Optional[str] = Field(None, description="Local sentence-transformers model directory.")
    embed_query_prefix: str = Field("", description="Instruction prefix for queries (BGE/E5-style models).")
    embed_doc_prefix: str = Field("", description="Prefix for documents.")
    chunk_size: int = Field(512, description="Target characters per chunk.")
    chunk_overlap: int = Field(50, description="Characters repeated between neighbouring chunks.")
    chroma_url: Optional[str] = Field(None, description="Use a Chroma server (e.g. http://127.0.0.1:8000) instead of the embedded store.")
    hnsw_m: int = Field(16, description="Chroma HNSW M.")
    hnsw_ef_search: int = Field(64, description="Chroma HNSW ef at query time.")

    bm25_k1: float = Field(1.5, description="BM25 term-frequency saturation.")
    bm25_b: float = Field(0.3, description="BM25 length normalisation; 0.3 measured better than the usual 0.75 on the dev set (chunks are already bounded in length).")

    # retrieval
    retrieval_mode: str = Field("bm25", description="bm25 | hybrid | vector. bm25 is the default because it measured best on the dev set (BENCHMARKS.md): the packaged USE embeddings lower hybrid MRR, and loading them costs ~2 s per cold ask.")
    top_n: int = Field(20, description="Candidates taken from each engine before fusion.")
    rrf_k: int = Field(60, description="Reciprocal-rank-fusion constant.")
    bm25_weight: float = Field(1.0, description="RRF weight of the BM25 list.")
    vector_weight: float = Field(0.1, description="RRF weight of the vector list. 0.1 measured best with the packaged USE vectors (bench/bench_fusion.py: 0.1–1.0 tried), still below BM25 alone; ~0.3 with EmbeddingGemma.")
    refuse_min_coverage: float = Field(0.5, description="Refuse before calling the LLM when less than this share of the question's content characters is matched by indexed words found in the top passages, and the best BM25 score is below refuse_min_bm25 (calibrated on the dev set + bench/data/out_of_scope.jsonl; see BENCHMARKS.md).")
    refuse_min_bm25: float = Field(9.0, description="See refuse_min_coverage.")

    # llm
    llm_backend: str = Field("local", description="local (packaged GGUF or llm_model_path) | openai | none.")
    llm_packaged: str = Field("qwen1.5b", description="Packaged GGUF to assemble: qwen1.5b | qwen0.5b.")
    llm_model_path: Optional[str] = Field(None, description="A user GGUF file used instead of the packaged model.")
    llm_base_url: Optional[str] = Field(None, description="OpenAI-compatible endpoint, e.g. http://127.0.0.1:11434/v1 (Ollama).")
    llm_model: Optional[str] = Field(None, description="Model name for the endpoint.")
    llm_api_key: Optional[str] = Field(None, description="API key for the endpoint, if it needs one.")
    llm_timeout: float = Field(120.0, description="Seconds per LLM call before giving up.")
    llm_threads: int = Field(2, description="CPU threads for the local model.")
    llm_max_tokens: int = Field(400, description="Answer length cap.")
    models_dir: Path = Field(Path.home() / ".cache" / "examrag" / "models", description="Where packaged models are assembled.")

    def stage_hash(self, *names: str) -> str:
        """Hash of the settings a stage depends on, so a change re-runs that stage only."""
        payload = {n: getattr(self, n) for n in names}
        return hashlib.sha256(json.dumps(payload, default=str, sort_keys=True).encode()).hexdigest()[:16]


def _coerce(raw: str, annotation) -> object:
    text = str(annotation)
    if "bool" in text:
        return raw.lower() in {"1", "true", "yes", "on"}
    return raw


def load_settings(**overrides) -> Settings:
    """Build settings from defaults, config file, environment and explicit overrides (CLI)."""
    values: dict = {}
    env = {k[len(ENV_PREFIX):].lower(): v for k, v in os.environ.items() if k.startswith(ENV_PREFIX)}
    data_dir = Path(overrides.get("data_dir") or env.get("data_dir") or "data")
    cfg_path = Path(env["config"]) if "config" in env else data_dir / "examrag.toml"
    if cfg_path.is_file():
        with open(cfg_path, "rb") as fh:
            values.update(tomllib.load(fh))
    for name, field in Settings.model_fields.items():
        if name in env and env[name] != "":
            values[name] = _coerce(env[name], field.annotation)
    values.update({k: v for k, v in overrides.items() if v is not None})
    return Settings(**values)
