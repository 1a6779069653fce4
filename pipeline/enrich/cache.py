"""SQLite cache of enrichment answers keyed by text hash + prompt version + model id."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Optional

from pipeline.models import Enrichment
from pipeline.hashing import sha256_text


class EnrichCache:
    def __init__(self, path: Path):
        path.parent.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(path)
        self.db.execute("CREATE TABLE IF NOT EXISTS enrich (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        self.calls = 0  # LLM calls made through this cache's owner (for tests and reports)

    @staticmethod
    def key(text: str, prompt_version: str, model_id: str) -> str:
        return sha256_text(f"{prompt_version}\x00{model_id}\x00{text}")

    def get(self, key: str) -> Optional[Enrichment]:
        row = self.db.execute("SELECT value FROM enrich WHERE key = ?", (key,)).fetchone()
        return Enrichment.model_validate(json.loads(row[0])) if row else None

    def put(self, key: str, value: Enrichment) -> None:
        self.db.execute("INSERT OR REPLACE INTO enrich (key, value) VALUES (?, ?)", (key, value.model_dump_json()))
        self.db.commit()

    def close(self) -> None:
        self.db.close()
