"""One settings object with a group per stage (parse, clean, enrich, index, syllabus), per service (ask, llm,
serve, study) and for where work runs (executor).

Precedence: defaults < config file < environment < explicit overrides (CLI options, tests).

Every field has one flat *key*: its group's ``KEY_PREFIX`` plus its name (``llm`` group, field
``backend`` → ``llm_backend``), unless the field names its key itself. The environment variable is
``EXAMRAG_<KEY>`` (``EXAMRAG_LLM_BACKEND``); overrides and the config file accept the same flat keys,
and the file also accepts TOML tables (``[llm] backend = "openai"``). The config file is
``$EXAMRAG_CONFIG`` if set, else ``<data_dir>/examrag.toml`` when it exists.

A stage's config hash is the hash of its group (plus the groups it declares it uses), so adding a
setting to a stage's group re-runs that stage when the setting changes; fields marked
``exclude=True`` (secrets) are never hashed nor printed. Settings that do not change what a stage
writes (worker counts, timeouts) live outside the stage groups, so changing them redoes nothing.
"""

from __future__ import annotations

import hashlib
import json
import os
import tomllib
from pathlib import Path
from datetime import datetime
from typing import Any, ClassVar, Literal, Optional

from pydantic import BaseModel, ConfigDict, Field, ValidationError

ENV_PREFIX = "EXAMRAG_"


class Group(BaseModel):
    """A settings group; ``KEY_PREFIX`` makes its fields' flat keys (and environment names)."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)
    KEY_PREFIX: ClassVar[str] = ""

    @classmethod
    def keys(cls) -> dict[str, str]:
        """Flat key → field name."""
        out = {}
        for name, field in cls.model_fields.items():
            extra = field.json_schema_extra if isinstance(field.json_schema_extra, dict) else {}
            out[str(extra.get("key") or cls.KEY_PREFIX + name)] = name
        return out

    def uses(self) -> tuple[str, ...]:
        """Other groups whose values change what this group's stage writes."""
        return ()


class ParseSettings(Group):
    ocr_engine: Literal["rapidocr", "paddleocr"] = Field("rapidocr", description="rapidocr (packaged default) or paddleocr (optional install: scripts/setup.sh --paddle).")
    ocr_dpi: int = Field(150, description="Render resolution for OCR'd pages; PP-OCR small models suit 150.")
    paddle_det_dir: Optional[str] = Field(None, description="PP-OCR detection model dir for paddleocr.")
    paddle_rec_dir: Optional[str] = Field(None, description="PP-OCR recognition model dir for paddleocr.")
    garble_min_chars: int = Field(20, description="A page with fewer extractable characters (after dropping lines repeated on most pages, e.g. a seller's footer) has no text layer: OCR'd when it shows an image or vector-drawn glyphs, else a blank page.")
    garble_min_cjk_ratio: float = Field(0.2, description="Below this share of CJK among letters, a page of a Chinese document is 'garbled' (Latin-1 mojibake, or only Latin letters and digits extract). 408 corpus: good pages >= 0.31, garbled <= 0.03.")
    garble_max_bad_ratio: float = Field(0.1, description="Above this share of U+FFFD / private-use / control chars a page is 'garbled' (symbol-font glyphs U+F020-U+F0FF not counted). 408 corpus: good pages <= 0.03, garbled >= 0.3.")
    pdf_password: Optional[str] = Field(None, exclude=True, description="Password tried for encrypted PDFs (a secret: never hashed or printed; a document that failed for want of it is retried anyway).")


class ExecutorSettings(Group):
    """Where parse work runs. Changes nothing in what is written, so no stage hashes it."""

    ocr_workers: int = Field(2, ge=1, description="Processes used for OCR pages by the local executor (2 cores here; measured optimum).")
    kind: Literal["local", "dask"] = Field("local", json_schema_extra={"key": "executor"}, description="Where page rendering, page verdicts and OCR run: local (a process pool of ocr_workers on this machine) | dask (tasks on a running Dask distributed cluster at `cluster`; docs/deploy.md). The artifacts are the same either way.")
    cluster: Optional[str] = Field(None, json_schema_extra={"key": "cluster"}, description="Scheduler address of the cluster for executor=dask, e.g. tcp://10.0.0.5:8786 (`dask scheduler` prints it).")
    connect_timeout: float = Field(10.0, gt=0, json_schema_extra={"key": "cluster_connect_timeout"}, description="Seconds to reach the cluster scheduler and see a worker; then ingest stops with one line naming the address (exit 1).")
    task_timeout: float = Field(600.0, gt=0, json_schema_extra={"key": "task_timeout"}, description="Seconds one page task (render + OCR) may take from submission, queueing included (in-flight tasks are bounded by the workers' slots); then its document fails with one line and is redone by the next ingest, never waited on forever.")


class CleanSettings(Group):
    rules_file: Optional[str] = Field(None, description="User rules YAML replacing pipeline/clean/rules.yaml (its content is hashed, not only its path).")


class EnrichSettings(Group):
    KEY_PREFIX: ClassVar[str] = "enrich_"
    backend: Literal["extractive", "llm", "none"] = Field("extractive", description="extractive (jieba, default: measured as good as the packaged LLM at 1/900 of the time) | llm (uses the llm group) | none.")
    max_input_chars: int = Field(1800, description="Input cap per LLM call (chars of section text).")

    def uses(self) -> tuple[str, ...]:
        return ("llm",) if self.backend == "llm" else ()


class IndexSettings(Group):
    embed_model: Literal["use", "sentence-transformers", "hash"] = Field("use", description="use (packaged USE-multilingual) | sentence-transformers (a local model dir) | hash (tests).")
    embed_model_dir: Optional[str] = Field(None, description="Local sentence-transformers model directory (never downloaded).")
    embed_query_prefix: str = Field("", description="Instruction prefix for queries (BGE/E5-style models).")
    embed_doc_prefix: str = Field("", description="Prefix for documents.")
    chunk_size: int = Field(512, description="Target characters per chunk.")
    chunk_overlap: int = Field(50, description="Characters repeated between neighbouring chunks.")
    chroma_url: Optional[str] = Field(None, description="Use a Chroma server (e.g. http://127.0.0.1:8000) instead of the embedded store.")
    hnsw_m: int = Field(16, description="Chroma HNSW M.")
    hnsw_ef_search: int = Field(64, description="Chroma HNSW ef at query time.")
    bm25_k1: float = Field(1.5, description="BM25 term-frequency saturation.")
    bm25_b: float = Field(0.3, description="BM25 length normalisation; 0.3 measured better than the usual 0.75 on the dev set (chunks are already bounded in length).")


class SyllabusSettings(Group):
    """The syllabus step (pipeline/syllabus): which syllabus, and the rules that read it and place the material."""

    KEY_PREFIX: ClassVar[str] = "syllabus_"
    file: Optional[str] = Field(None, description="A syllabus you wrote (.yaml/.yml, .md or .txt; see pipeline/syllabus/sources.py) used instead of one found among the ingested files.")
    rules_file: Optional[str] = Field(None, description="Syllabus rules YAML replacing pipeline/syllabus/rules.yaml (subjects, numbering styles, placement weights); its content is hashed, so editing it re-places everything.")


class AskSettings(Group):
    retrieval_mode: Literal["bm25", "hybrid", "vector"] = Field("bm25", description="bm25 | hybrid | vector. bm25 is the default because it measured best on the dev set (BENCHMARKS.md): the packaged USE embeddings lower hybrid MRR, and loading them costs ~2 s per cold ask.")
    top_n: int = Field(20, description="Candidates taken from each engine before fusion.")
    rrf_k: int = Field(60, description="Reciprocal-rank-fusion constant.")
    bm25_weight: float = Field(1.0, description="RRF weight of the BM25 list.")
    vector_weight: float = Field(0.1, description="RRF weight of the vector list. 0.1 measured best with the packaged USE vectors (bench/fusion.py: 0.1–1.0 tried), still below BM25 alone; ~0.3 with EmbeddingGemma.")
    refuse_min_coverage: float = Field(0.5, description="Refuse before calling the LLM when less than this share of the question's content characters is matched by indexed words found in the top passages, and the best BM25 score is below refuse_min_bm25 (calibrated on the dev set + bench/data/out_of_scope.jsonl; see BENCHMARKS.md).")
    refuse_min_bm25: float = Field(9.0, description="See refuse_min_coverage.")
    refuse_min_passage_coverage: float = Field(0.35, description="Refuse when no single top passage covers this share of the question (IDF-weighted: its rare words count most; a word the index never saw counts fully against). Off-topic questions whose words each occur somewhere in the material (Redis in one passage, 持久化 in another) score low. Calibrated with refuse_min_passage_coverage_weak on the dev set and bench/data/out_of_scope*.jsonl (BENCHMARKS.md); 0.25–0.35 give the same counts on dev, our own answer set and the off-topic sets (0.40 refuses two more own-set questions). 0.30 was tried: it admits 在Internet上用于收发电子邮件的协议是 (0.34), which the model then answered wrongly (SMTP alone, for sending and receiving), so 0.35 stays.")
    refuse_min_passage_coverage_weak: float = Field(0.55, description="Refuse below this passage coverage when the best BM25 score is also below refuse_min_bm25.")
    record_answers: bool = Field(True, description="A question that resolves to a past-paper record (by reference, or a top hit whose stem matches it) is answered with the record's 答案 and 解析 verbatim, without the LLM.")
    key_sentences: int = Field(3, ge=1, le=5, description="Sentences quoted as 原文要点, the grounded core shown with every answer.")
    max_context_chars: int = Field(320, description="Passage characters the LLM reads per answer: ~2 s of prompt reading per 100 characters on 2 cores, and the 1.5B model keeps to short material better. 320 (was 450): the same 53/60 dev answers right, one by one, with the prompt read p50 259 tokens instead of ~360 (BENCHMARKS.md, third run).")
    calc_programs: bool = Field(True, description="A calculation question with its own data is answered by a program a sandbox runs, shown with its steps (pipeline/ask/calculate.py): written by rule for the standard 408 calculation types (pipeline/ask/calc_rules.py: page faults, Huffman WPL, paging addresses, TLB and disk access times, cache fields, pipeline and frame delays…), by the model with calc_model_programs; only when every number it uses is one the question gives. false: prose, checked sentence by sentence.")
    calc_model_programs: bool = Field(False, description="A calculation question no rule recognises (pipeline/ask/calculate.py: ruled_program) gets a program written by the model, held to assignment lines by a JSON schema, run in the sandbox. Off: on our own questions the model's programs that passed the checks were simulation calls the rules now write, or wrong formulas, at ~13 s each before the prose answer.")
    calc_formulas: bool = Field(False, description="Also show a calculation program that is a formula the model wrote (not a call of a maintained simulation: page replacement, Huffman WPL, linear probing); a program written by rule is shown without it. Off: the packaged 1.5B model's formulas were wrong 3 of 3 times on our own questions (pipeline/ask/calculate.py).")
    contrast_sides: bool = Field(True, description="A contrast question (A和B的区别) gets a table of what the passages say of each side, aspect by aspect, each cell quoted with its citation (pipeline/ask/contrast.py): after the checked answer, or as the answer when the model's answer fails the check (not the one generic key sentence).")
    contrast_table_first: bool = Field(True, description="A contrast question whose table has at least two full rows is answered with the table alone, without the model: on our own 16 contrasts as many right (12) with the model as without, but 3 of the model's checked answers still showed a false sentence (快速排序和归并排序都是稳定的…) and took 8.4 s a question against 1.2 s (BENCHMARKS.md). false: the model answers and the table follows.")
    unsupported: Optional[Literal["drop", "mark"]] = Field(None, description="A generated sentence the passages do not back is dropped, or kept and marked （资料中未找到依据）; unset: as claims_file says.")
    claims_file: Optional[str] = Field(None, description="Claim-check rules YAML replacing pipeline/ask/claims.yaml (polarity pairs, number units, thresholds).")


class LlmSettings(Group):
    KEY_PREFIX: ClassVar[str] = "llm_"
    backend: Literal["local", "openai", "none"] = Field("local", description="local (packaged GGUF or llm_model_path) | openai (any OpenAI-compatible endpoint) | none.")
    packaged: Literal["qwen1.5b", "qwen0.5b"] = Field("qwen1.5b", description="Packaged GGUF to assemble: qwen1.5b | qwen0.5b.")
    model_path: Optional[str] = Field(None, description="A user GGUF file used instead of the packaged model.")
    base_url: Optional[str] = Field(None, description="OpenAI-compatible endpoint, e.g. http://127.0.0.1:11434/v1 (Ollama).")
    model: Optional[str] = Field(None, description="Model name for the endpoint.")
    api_key: Optional[str] = Field(None, exclude=True, description="API key for the endpoint, if it needs one (a secret: never hashed or printed).")
    timeout: float = Field(120.0, description="Seconds one LLM call may take in all (the local model: waiting for a slot, reading the prompt, generating; an endpoint: connecting and each read) before it is stopped.")
    threads: int = Field(2, description="CPU threads for the local model.")
    slots: int = Field(2, ge=1, description="Generations the local model runs at once (each with its own n_ctx context); more wait for a free slot. `serve` sizes its queue from it.")
    n_ctx: int = Field(4096, ge=512, description="Context tokens per slot of the local model (prompt + answer).")
    max_tokens: int = Field(300, description="Answer length cap in tokens (~12 s of generation for the packaged model on 2 cores).")
    prompt_cache: bool = Field(True, description="The local model reuses the KV state of the prompt prefix its slot already holds (the fixed system prompt: ~3 s less per question on 2 AVX2 cores), and restores that state, saved once per machine in models_dir/kv, into a new process or a slot that does not hold it (a cold ask). false: every prompt is read whole and nothing is saved (bit-reproducible benches).")


class ServeSettings(Group):
    KEY_PREFIX: ClassVar[str] = "serve_"
    host: str = Field("127.0.0.1", description="Address `cli.py serve` binds to; anything but loopback needs api_token.")
    port: int = Field(8408, description="Port `cli.py serve` listens on.")
    api_token: Optional[str] = Field(None, exclude=True, json_schema_extra={"key": "api_token"}, description="Bearer token every /api/* request must carry (required to bind beyond loopback).")
    queue_size: int = Field(8, ge=0, description="Answers that may wait for a free generation slot (the LLM runtime's `slots`, 1 for most); one more gets 503 with Retry-After.")
    ask_timeout: float = Field(300.0, gt=0, description="Seconds one /api/ask may take in all, queue wait included; then its generation is cancelled and the stream ends with an error event.")
    request_timeout: float = Field(20.0, gt=0, description="Seconds a search, list or page-image request may take before it answers 503.")
    retry_after: int = Field(10, ge=1, description="Seconds the Retry-After header of a 503 (queue full, timed out) suggests.")
    header_timeout: float = Field(10.0, gt=0, description="Seconds a connection has to send a complete request head (and then its body) before it is closed: a slow or silent client cannot hold a connection.")
    max_per_client: int = Field(32, ge=0, description="Connections one client address beyond loopback may hold open (429 beyond; 0: no cap). Raise it when a whole class reaches the server through one proxy address.")


class StudySettings(Group):
    """The student's side (pipeline/study): where it is kept and how reviews are scheduled. Changes
    nothing an ingest writes, so no stage hashes it."""

    KEY_PREFIX: ClassVar[str] = "study_"
    db: Optional[str] = Field(None, description="The study database (profiles, attempts, 错题本, review state, cards); default <data_dir>/study.sqlite. Kept apart from the index: a re-ingest never touches it.")
    desired_retention: float = Field(0.9, gt=0.5, lt=1.0, description="FSRS desired retention: the chance of recalling an item when it comes due (the fsrs package's default).")
    learning_steps: list[float] = Field([10.0], description="Minutes between the first reviews of a new item (FSRS learning steps). One step of 10: a wrong answer comes back later the same day, a right one graduates to days at once (a past-paper question answered right needs no repeat within minutes).")
    relearning_steps: list[float] = Field([10.0], description="Minutes before a forgotten item (rated Again after graduating) comes back.")
    maximum_interval: int = Field(36500, ge=1, description="Longest review interval, days.")
    fuzz: bool = Field(True, description="Spread review intervals of 3 days or more by a few percent (FSRS fuzz, as Anki does), so items learnt together do not all come due together.")
    day_starts_at: int = Field(4, ge=0, le=23, description="Local hour the study day starts (as Anki): `review` shows what is due before the next start.")
    new_cards_per_day: int = Field(20, ge=0, description="Cards never reviewed that `review` adds to a day's due items.")
    mistake_max_rating: int = Field(2, ge=1, le=3, description="A self-graded attempt rated this or lower (1 Again, 2 Hard) goes into the 错题本, like a wrong choice.")
    mastery_horizon_days: float = Field(7.0, gt=0, description="Mastery of an item = the FSRS chance of recalling it this many days from now (0 for an item never attempted).")
    node_depth: int = Field(2, ge=1, description="Heading levels progress rolls up to while the material has no syllabus map (1: chapters, 2: sections).")
    cards_per_section: int = Field(3, ge=1, description="Most cards `cards` makes from one section.")
    now: Optional[datetime] = Field(None, description="A fixed current time (ISO 8601) for scripted sessions and tests; unset: the clock.")


def _default_models_dir() -> Path:
    return Path(os.environ.get("EXAMRAG_MODELS_DIR") or Path.home() / ".cache" / "examrag" / "models").expanduser()


class Settings(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    data_dir: Path = Field(Path("data"), description="Where stage artifacts, manifest and indexes live.")
    models_dir: Path = Field(default_factory=_default_models_dir, description="Where packaged models are assembled (EXAMRAG_MODELS_DIR).")
    generation_grace: float = Field(600.0, ge=0, description="Seconds a replaced index generation is kept after an ingest publishes a new one, for readers that opened it just before (a request in flight; replicas on shared storage, where a deleted file is gone even while open). Longer than serve_ask_timeout.")
    parse: ParseSettings = Field(default_factory=ParseSettings)
    executor: ExecutorSettings = Field(default_factory=ExecutorSettings)
    clean: CleanSettings = Field(default_factory=CleanSettings)
    enrich: EnrichSettings = Field(default_factory=EnrichSettings)
    index: IndexSettings = Field(default_factory=IndexSettings)
    syllabus: SyllabusSettings = Field(default_factory=SyllabusSettings)
    ask: AskSettings = Field(default_factory=AskSettings)
    llm: LlmSettings = Field(default_factory=LlmSettings)
    serve: ServeSettings = Field(default_factory=ServeSettings)
    study: StudySettings = Field(default_factory=StudySettings)

    @classmethod
    def from_flat(cls, **values: Any) -> "Settings":
        """Settings from flat keys (``ocr_workers=1``, ``llm_backend="none"``) and/or group tables."""
        return cls.model_validate(_nest(values))

    def group_hash(self, group: str) -> str:
        """Hash of a group and of the groups it uses: a stage's settings part of its config hash."""
        g = getattr(self, group)
        payload = {name: getattr(self, name).model_dump(mode="json") for name in (group, *g.uses())}
        return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()[:16]


GROUPS: dict[str, type[Group]] = {name: f.annotation for name, f in Settings.model_fields.items()
                                  if isinstance(f.annotation, type) and issubclass(f.annotation, Group)}
FLAT_KEYS: dict[str, tuple[str, str]] = {name: ("", name) for name in Settings.model_fields if name not in GROUPS}
for _group, _cls in GROUPS.items():
    for _key, _field in _cls.keys().items():
        assert _key not in FLAT_KEYS, f"settings key {_key} is defined twice"
        FLAT_KEYS[_key] = (_group, _field)


class SettingsError(ValueError):
    """A setting with a value it cannot take; the message is one line naming where it came from."""


def _nest(values: dict[str, Any], origin: dict[str, str] | None = None) -> dict[str, Any]:
    """Route flat keys into their groups; group tables pass through (merged)."""
    out: dict[str, Any] = {}
    for key, value in values.items():
        if key in GROUPS and isinstance(value, dict):
            out.setdefault(key, {}).update(value)
        elif key in FLAT_KEYS:
            group, field = FLAT_KEYS[key]
            if group:
                out.setdefault(group, {})[field] = value
            else:
                out[field] = value
        else:
            where = (origin or {}).get(key, "setting")
            raise SettingsError(f"unknown {where} {key!r}" + _close(key))
    return out


def _close(key: str) -> str:
    import difflib

    close = difflib.get_close_matches(key, list(FLAT_KEYS), n=3)
    return f"; did you mean {', '.join(close)}?" if close else ""


def load_settings(**overrides: Any) -> Settings:
    """Defaults < config file < environment (EXAMRAG_*) < ``overrides`` (flat keys; None = not given).

    Raises :class:`SettingsError` with one line naming the bad variable, file key or option."""
    env = {k[len(ENV_PREFIX):].lower(): v for k, v in os.environ.items() if k.startswith(ENV_PREFIX) and v != ""}
    data_dir = Path(overrides.get("data_dir") or env.get("data_dir") or "data")
    cfg_path = Path(env["config"]) if "config" in env else data_dir / "examrag.toml"
    merged: dict[str, Any] = {}
    origin: dict[str, str] = {}
    if cfg_path.is_file():
        try:
            with open(cfg_path, "rb") as fh:
                from_file = tomllib.load(fh)
        except (OSError, tomllib.TOMLDecodeError) as exc:
            raise SettingsError(f"config file {cfg_path}: {exc}") from None
        origin.update({k: f"key in {cfg_path}:" for k in from_file})
        _deep_update(merged, _nest(from_file, origin))
    known_env = {k: v for k, v in env.items() if k in FLAT_KEYS}
    origin.update({k: f"{ENV_PREFIX}{k.upper()}" for k in known_env})
    _deep_update(merged, _nest(known_env))
    given = {k: v for k, v in overrides.items() if v is not None}
    _deep_update(merged, _nest(given))
    try:
        return Settings.model_validate(merged)
    except ValidationError as exc:
        raise SettingsError(_explain(exc, origin)) from None


def _deep_update(into: dict, new: dict) -> None:
    for k, v in new.items():
        if isinstance(v, dict) and isinstance(into.get(k), dict):
            into[k].update(v)
        else:
            into[k] = v


def _explain(exc: ValidationError, origin: dict[str, str]) -> str:
    """The first validation error as one line: ``EXAMRAG_LLM_BACKEND='x': Input should be …``."""
    err = exc.errors()[0]
    loc = [str(p) for p in err["loc"]]
    key = next((k for k, (g, f) in FLAT_KEYS.items() if [g, f] == loc[:2] or ([f] == loc[:1] and not g)), ".".join(loc))
    name = origin.get(key, key)
    return f"{name}={err.get('input')!r}: {err['msg']}"
