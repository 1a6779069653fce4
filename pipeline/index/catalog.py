"""The chunk catalog: one SQLite file per index generation, row ``pos`` = BM25 document number.

A generation is ``index/gen-<n>/`` holding ``chunks.sqlite`` and ``bm25/``; ``index/current.json``
names the live one and is replaced atomically, so ``ask`` always reads a complete index while an
ingest builds the next one.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Iterable, Optional

from pipeline.models import PATH_SEP, Chunk
from pipeline.store import atomic_write_text, prune_generations, seal_tree


def current_generation(index_dir: Path) -> Optional[dict]:
    path = index_dir / "current.json"
    if not path.exists():
        return None
    return json.loads(path.read_text("utf-8"))


def write_catalog(path: Path, chunks: list[Chunk]) -> None:
    db = sqlite3.connect(path)
    db.execute("""CREATE TABLE chunks (pos INTEGER PRIMARY KEY, chunk_id TEXT UNIQUE, doc_id TEXT, chapter TEXT,
                  kind TEXT, year INTEGER, number INTEGER, body TEXT)""")
    db.executemany("INSERT INTO chunks VALUES (?,?,?,?,?,?,?,?)",
                   [(i, c.chunk_id, c.doc_id, c.chapter, c.kind, c.year, c.number, c.model_dump_json())
                    for i, c in enumerate(chunks)])
    db.execute("CREATE INDEX chunks_yn ON chunks (year, number)")
    db.execute("CREATE INDEX chunks_chapter ON chunks (chapter)")
    db.commit()
    db.close()


def publish(index_dir: Path, gen_dir: Path, meta: dict, grace: float = 0.0) -> None:
    """Seal ``gen_dir`` read-only, point current.json at it, retire the generation it replaces (removed
    after ``grace`` seconds, so a reader that opened it just before never finds it gone) and remove
    generations retired longer ago."""
    seal_tree(gen_dir)
    before = current_generation(index_dir)
    atomic_write_text(index_dir / "current.json", json.dumps({**meta, "generation": gen_dir.name}, ensure_ascii=False))
    old = (before or {}).get("generation")
    prune_generations(index_dir, grace, live=gen_dir.name, retire=(old,) if old else ())


class Catalog:
    """Read side: chunk lookup by id / position, chapter and year/number filters."""

    def __init__(self, path: Path):
        # immutable: a published generation never changes (it is sealed read-only), so SQLite takes no
        # locks: reads work from a read-only mount and from shared storage without file locking
        self.db = sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True, check_same_thread=False)
        self._chapters: Optional[list[str]] = None  # distinct chapter paths, read once per generation

    def __len__(self) -> int:
        return self.db.execute("SELECT COUNT(*) FROM chunks").fetchone()[0]

    def by_ids(self, ids: Iterable[str]) -> dict[str, Chunk]:
        ids = list(ids)
        if not ids:
            return {}
        q = f"SELECT chunk_id, body FROM chunks WHERE chunk_id IN ({','.join('?' * len(ids))})"
        return {cid: Chunk.model_validate_json(body) for cid, body in self.db.execute(q, ids)}

    def chapters(self) -> list[tuple[str, int]]:
        return self.db.execute("SELECT chapter, COUNT(*) FROM chunks GROUP BY chapter ORDER BY MIN(pos)").fetchall()

    def matching_chapters(self, needle: str) -> list[str]:
        """Joined chapter paths with a heading that contains ``needle``."""
        if self._chapters is None:
            self._chapters = [c for (c,) in self.db.execute("SELECT DISTINCT chapter FROM chunks")]
        return [c for c in self._chapters if any(needle in h for h in c.split(PATH_SEP))]

    def positions_in(self, chapters: list[str]) -> list[int]:
        q = f"SELECT pos FROM chunks WHERE chapter IN ({','.join('?' * len(chapters))})"
        return [p for (p,) in self.db.execute(q, chapters)]

    def first_in(self, chapter: str) -> Optional[Chunk]:
        """The first chunk of a section (joined chapter path), or None."""
        row = self.db.execute("SELECT body FROM chunks WHERE chapter=? ORDER BY pos LIMIT 1", (chapter,)).fetchone()
        return Chunk.model_validate_json(row[0]) if row else None

    def questions(self, year: Optional[int], number: int) -> list[Chunk]:
        if year is None:
            rows = self.db.execute("SELECT body FROM chunks WHERE kind='question' AND number=?", (number,))
        else:
            rows = self.db.execute("SELECT body FROM chunks WHERE kind='question' AND year=? AND number=?", (year, number))
        return [Chunk.model_validate_json(b) for (b,) in rows]

    def all_chunks(self) -> list[Chunk]:
        """Every chunk, in BM25 position order (the syllabus step places them all)."""
        return [Chunk.model_validate_json(b) for (b,) in self.db.execute("SELECT body FROM chunks ORDER BY pos")]

    def all_questions(self) -> list[Chunk]:
        return [Chunk.model_validate_json(b) for (b,) in
                self.db.execute("SELECT body FROM chunks WHERE kind='question' ORDER BY year, number")]

    def holding(self, text: str, limit: int) -> list[Chunk]:
        """Chunks whose stored record contains ``text`` (ASCII case ignored), in index order, at most
        ``limit``: a scan of the table, ~30 ms per 10k chunks."""
        rows = self.db.execute("SELECT body FROM chunks WHERE instr(lower(body), ?) > 0 ORDER BY pos LIMIT ?",
                               (text.lower(), limit))
        return [Chunk.model_validate_json(b) for (b,) in rows]

    def chunks_in(self, chapters: list[str]) -> list[Chunk]:
        """The chunks of the given sections (joined chapter paths), in index order."""
        if not chapters:
            return []
        q = f"SELECT body FROM chunks WHERE chapter IN ({','.join('?' * len(chapters))}) ORDER BY pos"
        return [Chunk.model_validate_json(b) for (b,) in self.db.execute(q, chapters)]
