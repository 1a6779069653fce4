"""BM25 over our own tokens (see ``pipeline/text/tokenize.py``), backed by bm25s.

bm25s's own splitter keeps ``顺序查找的平均查找长度`` as one token, so the index is
built from pre-tokenized lists with a vocabulary we assign (first-seen order,
so the saved files are the same on every run). Saved as a directory of bm25s
arrays plus ``ids.json`` and ``meta.json``; loading memory-maps the arrays.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional, Sequence

if TYPE_CHECKING:
    import numpy as np

FORMAT = "examrag-bm25"
FORMAT_VERSION = 1
_IDS = "ids.json"
_META = "meta.json"


class Bm25Index:
    """A BM25 index over documents identified by string ids.

    >>> idx = Bm25Index.build(["a", "b"], [["查找", "长度"], ["排序"]])
    >>> idx.search(["查找"], top_n=5)  # doctest: +SKIP
    [('a', 0.2411...)]
    """

    def __init__(self, k1: float = 1.5, b: float = 0.75, method: str = "lucene") -> None:
        self.k1, self.b, self.method = k1, b, method
        self.ids: list[str] = []
        self.info: dict[str, Any] = {}  # free-form, saved in meta.json (e.g. tokenizer version)
        self._bm25 = None  # bm25s.BM25, None when the index has no vocabulary

    def __len__(self) -> int:
        return len(self.ids)

    @property
    def vocab(self) -> dict:
        """Token → id of every indexed token (empty for an index without vocabulary)."""
        return self._bm25.vocab_dict if self._bm25 is not None else {}

    @classmethod
    def build(
        cls,
        ids: Sequence[str],
        token_lists: Sequence[Sequence[str]],
        k1: float = 1.5,
        b: float = 0.75,
        method: str = "lucene",
    ) -> "Bm25Index":
        """A new index with ``token_lists[i]`` stored under ``ids[i]``."""
        if len(ids) != len(token_lists):
            raise ValueError(f"{len(ids)} ids but {len(token_lists)} token lists")
        if len(set(ids)) != len(ids):
            raise ValueError("duplicate ids")
        idx = cls(k1=k1, b=b, method=method)
        idx.ids = list(ids)
        vocab: dict[str, int] = {}
        doc_ids = [[vocab.setdefault(t, len(vocab)) for t in tokens] for tokens in token_lists]
        if not vocab:
            return idx  # no documents, or none with a token: every search is empty
        import bm25s
        from bm25s.tokenization import Tokenized

        _quiet()
        model = bm25s.BM25(k1=k1, b=b, method=method)
        model.index(Tokenized(ids=doc_ids, vocab=vocab), create_empty_token=False, show_progress=False)
        idx._bm25 = model
        return idx

    def search(
        self,
        query_tokens: Sequence[str],
        top_n: int,
        allowed: Optional["np.ndarray"] = None,
    ) -> list[tuple[str, float]]:
        """Best ``top_n`` (id, score) pairs with score > 0, highest first.

        ``allowed`` is a boolean mask over documents (``len(self)`` long): documents
        where it is False are excluded before ranking (chapter filters).
        """
        import numpy as np

        if allowed is not None:
            allowed = np.asarray(allowed)
            if allowed.shape != (len(self.ids),):
                raise ValueError(f"allowed mask has shape {allowed.shape}, expected ({len(self.ids)},)")
        if self._bm25 is None or top_n <= 0:
            return []
        token_ids = self._bm25.get_tokens_ids(list(query_tokens))
        if not token_ids:
            return []
        weight_mask = None if allowed is None else allowed.astype(np.float32)
        scores = self._bm25.get_scores_from_ids(token_ids, weight_mask=weight_mask)
        hits = np.flatnonzero(scores > 0)
        if len(hits) > top_n:
            hits = hits[np.argpartition(-scores[hits], top_n - 1)[:top_n]]
        hits = hits[np.lexsort((hits, -scores[hits]))]  # score desc, then index for ties
        return [(self.ids[i], float(scores[i])) for i in hits]

    def idf(self, token: str) -> float:
        """BM25's inverse document frequency of ``token``: ln(1 + (N - df + 0.5) / (df + 0.5)); a token the
        index never saw (df = 0) gets the largest value. Read off the stored matrix: no extra state."""
        import math

        n = len(self.ids)
        tid = self.vocab.get(token)
        df = 0 if tid is None else int(self._bm25.scores["indptr"][tid + 1] - self._bm25.scores["indptr"][tid])
        return math.log(1 + (n - df + 0.5) / (df + 0.5))

    def save(self, dir: Path) -> None:
        """Write the index to ``dir`` atomically: a sibling temp dir, then a rename."""
        dir = Path(dir)
        dir.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{dir.name}.tmp-", dir=dir.parent))
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o777 & ~umask)  # mkdtemp makes 0700
        try:
            import bm25s

            if self._bm25 is not None:
                self._bm25.save(tmp, show_progress=False)
            (tmp / _IDS).write_text(json.dumps(self.ids, ensure_ascii=False), encoding="utf-8")
            meta = {
                "format": FORMAT,
                "format_version": FORMAT_VERSION,
                "bm25s_version": bm25s.__version__,
                "num_docs": len(self.ids),
                "has_vocab": self._bm25 is not None,
                "params": {"k1": self.k1, "b": self.b, "method": self.method},
                "info": self.info,
            }
            (tmp / _META).write_text(json.dumps(meta, ensure_ascii=False, indent=2), encoding="utf-8")
            _replace_dir(tmp, dir)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise

    @classmethod
    def load(cls, dir: Path, mmap: bool = True) -> "Bm25Index":
        """Load an index written by ``save``; arrays are memory-mapped by default."""
        dir = Path(dir)
        meta_path = dir / _META
        if not meta_path.is_file():
            raise FileNotFoundError(f"no BM25 index at {dir} (missing {_META})")
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
        if meta.get("format") != FORMAT or meta.get("format_version") != FORMAT_VERSION:
            raise ValueError(
                f"{dir}: unsupported BM25 index format {meta.get('format')!r} "
                f"v{meta.get('format_version')}; rebuild the index"
            )
        idx = cls(**meta["params"])
        idx.info = meta.get("info", {})
        idx.ids = json.loads((dir / _IDS).read_text(encoding="utf-8"))
        if meta["has_vocab"]:
            import bm25s

            _quiet()
            idx._bm25 = bm25s.BM25.load(dir, mmap=mmap, show_progress=False)
            n = idx._bm25.scores["num_docs"]
            if n != len(idx.ids):
                raise ValueError(f"{dir}: index has {n} documents but {len(idx.ids)} ids")
        return idx


def _quiet() -> None:
    """bm25s sets its logger to DEBUG on import; keep its build chatter out of our logs."""
    import logging

    logging.getLogger("bm25s").setLevel(logging.WARNING)


def _replace_dir(src: Path, dst: Path) -> None:
    """Move ``src`` to ``dst``, replacing an existing ``dst`` (two renames)."""
    if not dst.exists():
        os.replace(src, dst)
        return
    old = Path(tempfile.mkdtemp(prefix=f".{dst.name}.old-", dir=dst.parent))
    os.rmdir(old)
    os.replace(dst, old)
    try:
        os.replace(src, dst)
    except BaseException:
        os.replace(old, dst)
        raise
    shutil.rmtree(old, ignore_errors=True)
