"""Vector store over Chroma (embedded on disk, or a ``chroma run`` server).

Chroma never embeds anything here: collections are created with
``embedding_function=None`` and every write carries our own vectors, so it
never tries to download its default model. Telemetry is off.
"""

from __future__ import annotations

from pathlib import Path
import time
from typing import TYPE_CHECKING, Any, Callable, Iterable, Optional, Sequence, TypeVar
from urllib.parse import urlsplit

if TYPE_CHECKING:
    import numpy as np

T = TypeVar("T")
DEFAULT_HNSW: dict[str, Any] = {"space": "cosine"}
HNSW_KEYS = (
    "space", "ef_construction", "ef_search", "max_neighbors",
    "num_threads", "batch_size", "sync_threshold", "resize_factor",
)
# Chroma <1.0 spelled these as collection metadata ("hnsw:M"), hnswlib as M / ef.
_ALIASES = {
    "M": "max_neighbors",
    "m": "max_neighbors",
    "construction_ef": "ef_construction",
    "search_ef": "ef_search",
}
# Settings Chroma lets us change on an existing collection.
_MUTABLE = ("ef_search", "num_threads", "batch_size", "sync_threshold", "resize_factor")
_PAGE = 10_000
# Chroma's own background work on the embedded SQLite file can make a write meet
# "database is locked" (SQLITE_BUSY raised at once, not waited out): try again a few
# times, 0.05 s doubling to 1 s, about 4 s in all, then give the error.
BUSY_ATTEMPTS = 8
BUSY_FIRST_WAIT_S = 0.05
BUSY_MAX_WAIT_S = 1.0


def _settings():
    from chromadb.config import Settings

    return Settings(anonymized_telemetry=False)


def _hnsw_config(hnsw: Optional[dict]) -> dict[str, Any]:
    cfg = dict(DEFAULT_HNSW)
    for key, value in (hnsw or {}).items():
        name = key.removeprefix("hnsw:")
        name = _ALIASES.get(name, name)
        if name not in HNSW_KEYS:
            raise ValueError(f"unknown HNSW setting {key!r}; use one of {', '.join(HNSW_KEYS)}")
        if value is not None:
            cfg[name] = value
    if cfg["space"] != "cosine":
        raise ValueError(f"hnsw space must be 'cosine' (similarity = 1 - distance), got {cfg['space']!r}")
    return cfg


def _parse_url(url: str) -> tuple[str, int, bool]:
    parts = urlsplit(url if "://" in url else f"http://{url}")
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"Chroma URL must look like http://127.0.0.1:8000, got {url!r}")
    ssl = parts.scheme == "https"
    return parts.hostname, parts.port or (443 if ssl else 8000), ssl


def _clean_metadata(meta: Optional[dict]) -> Optional[dict]:
    # Chroma rejects empty dicts and None values.
    meta = {k: v for k, v in (meta or {}).items() if v is not None}
    return meta or None


def _is_busy(exc: BaseException) -> bool:
    text = str(exc).lower()
    return "database is locked" in text or "(code: 5)" in text


def retry_busy(call: Callable[[], T], sleep: Callable[[float], None] = time.sleep) -> T:
    """Run a Chroma write, again after a short wait while SQLite says the file is locked."""
    wait = BUSY_FIRST_WAIT_S
    for attempt in range(1, BUSY_ATTEMPTS + 1):
        try:
            return call()
        except Exception as exc:  # chromadb.errors.InternalError; its class moved between releases
            if attempt == BUSY_ATTEMPTS or not _is_busy(exc):
                raise
            sleep(wait)
            wait = min(wait * 2, BUSY_MAX_WAIT_S)
    raise AssertionError("unreachable")


class VectorStore:
    """One Chroma collection holding our chunk vectors (cosine space)."""

    def __init__(self, client: Any, collection: Any) -> None:
        self.client = client
        self.collection = collection

    @classmethod
    def open(
        cls,
        path: Optional[Path] = None,
        url: Optional[str] = None,
        collection: str = "examrag",
        hnsw: Optional[dict] = None,
        metadata: Optional[dict] = None,
    ) -> "VectorStore":
        """Open (creating if needed) ``collection`` on disk at ``path`` or on the server at ``url``.

        ``hnsw`` takes Chroma 1.x keys (``ef_construction``, ``ef_search``,
        ``max_neighbors``, …), ``M``, or the legacy ``hnsw:*`` spellings; the space is
        always cosine. Build-time keys only apply to a new collection; ``ef_search``
        and the other mutable ones are updated on an existing one. ``metadata`` is stored on a new collection (e.g. the
        embedding model id) and readable as ``store.metadata``.
        """
        import chromadb

        if url:
            host, port, ssl = _parse_url(url)
            client = chromadb.HttpClient(host=host, port=port, ssl=ssl, settings=_settings())
        elif path is not None:
            Path(path).mkdir(parents=True, exist_ok=True)
            client = chromadb.PersistentClient(path=str(path), settings=_settings())
        else:
            raise ValueError("VectorStore.open needs a path (embedded Chroma) or a url (Chroma server)")
        cfg = _hnsw_config(hnsw)
        coll = retry_busy(lambda: client.get_or_create_collection(
            collection,
            configuration={"hnsw": cfg},
            metadata=_clean_metadata(metadata),
            embedding_function=None,
        ))
        current = (coll.configuration or {}).get("hnsw") or {}
        if current.get("space", "cosine") != "cosine":
            raise ValueError(
                f"collection {collection!r} exists with distance {current['space']!r}, not cosine: "
                "delete it and re-index"
            )
        # get_or_create ignores the configuration of an existing collection: apply what may change
        changed = {k: cfg[k] for k in _MUTABLE if k in cfg and current.get(k) != cfg[k]}
        if changed and current:
            retry_busy(lambda: coll.modify(configuration={"hnsw": changed}))
        return cls(client, coll)

    @property
    def name(self) -> str:
        return self.collection.name

    @property
    def metadata(self) -> dict:
        return dict(self.collection.metadata or {})

    def count(self) -> int:
        return self.collection.count()

    def upsert(self, ids: Sequence[str], vectors: "np.ndarray", metadatas: Optional[Sequence[dict]] = None) -> None:
        """Insert or replace vectors (rows of ``vectors``) under ``ids``, in Chroma-sized batches."""
        import numpy as np

        vectors = np.asarray(vectors, dtype=np.float32)
        n = len(ids)
        if vectors.ndim != 2 or vectors.shape[0] != n:
            raise ValueError(f"vectors must be a ({n}, dim) array, got shape {vectors.shape}")
        if metadatas is not None and len(metadatas) != n:
            raise ValueError(f"{n} ids but {len(metadatas)} metadatas")
        if n == 0:
            return
        batch = self.client.get_max_batch_size()
        for start in range(0, n, batch):
            end = start + batch
            metas = None
            if metadatas is not None:
                metas = [_clean_metadata(m) for m in metadatas[start:end]]
            batch_ids, batch_vectors = list(ids[start:end]), vectors[start:end]
            retry_busy(lambda: self.collection.upsert(ids=batch_ids, embeddings=batch_vectors, metadatas=metas))

    def delete(self, ids: Iterable[str]) -> None:
        ids = list(ids)
        batch = self.client.get_max_batch_size()
        for start in range(0, len(ids), batch):
            chunk = ids[start : start + batch]
            retry_busy(lambda: self.collection.delete(ids=chunk))

    def query(self, vector: "np.ndarray", top_n: int, where: Optional[dict] = None,
              ids: Optional[Sequence[str]] = None) -> list[tuple[str, float]]:
        """Nearest ``top_n`` ids as (id, cosine similarity), best first; ``where`` filters metadata first,
        ``ids`` (when given) restricts the search to those ids ([] finds nothing)."""
        import numpy as np

        if top_n <= 0 or (ids is not None and not ids):
            return []
        q = np.asarray(vector, dtype=np.float32).reshape(1, -1)
        extra = {"ids": list(ids)} if ids is not None else {}
        res = self.collection.query(query_embeddings=q, n_results=top_n, where=where or None, include=["distances"],
                                    **extra)
        return [(i, 1.0 - float(d)) for i, d in zip(res["ids"][0], res["distances"][0])]

    def ids(self) -> set[str]:
        out: set[str] = set()
        offset = 0
        while True:
            page = self.collection.get(include=[], limit=_PAGE, offset=offset)["ids"]
            out.update(page)
            if len(page) < _PAGE:
                return out
            offset += _PAGE

    def drop(self) -> None:
        """Delete the whole collection (e.g. after changing the embedding model)."""
        self.client.delete_collection(self.collection.name)
