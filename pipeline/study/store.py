"""The study store: every read and write of the study database, each write one transaction.

Per student: attempts, review state (the fsrs Card as JSON), the 错题本. Shared: items (snapshots of
the questions practised and the cards made). Every per-student query carries ``profile_id`` in its
WHERE clause; nothing here takes a profile from anywhere but its caller.

An attempt is stored with the schedule change and the 错题本 change it causes in one transaction:
a killed process loses at most the attempt in flight, never half of one. A client may pass a
``client_key`` (a UUID per attempt): a retried request with the same key returns the stored attempt
and writes nothing, so an attempt is stored exactly once however often it is sent.

One connection per thread and process (sqlite3 connections are neither thread- nor fork-safe).
Times are stored as UTC ISO strings of one fixed format (``iso``), so they compare as text.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Iterable, Optional

from pydantic import TypeAdapter

from pipeline.settings import StudySettings
from pipeline.study import schedule
from pipeline.study.db import connect, transaction
from pipeline.study.models import RATING_NAMES, AttemptResult, CardItem, Item, Mistake, Profile, Verdict

ITEM = TypeAdapter(Item)


def iso(at: datetime) -> str:
    return at.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def parse_iso(text: Optional[str]) -> Optional[datetime]:
    return datetime.fromisoformat(text.replace("Z", "+00:00")) if text else None


@dataclass
class Attempt:
    """What a caller asks to store (the service has graded it)."""

    item: Item
    answer: str
    verdict: Verdict
    rating: int
    at: datetime
    mode: str = "practice"
    seconds: Optional[float] = None
    client_key: Optional[str] = None


class StudyStore:
    def __init__(self, path: Path, cfg: StudySettings):
        self.path = Path(path)
        self.cfg = cfg
        self.scheduler = schedule.scheduler(cfg)
        self._local = threading.local()

    def db(self) -> sqlite3.Connection:
        """This thread's connection (a new one after a fork)."""
        conn = getattr(self._local, "conn", None)
        if conn is None or self._local.pid != os.getpid():
            conn = connect(self.path)
            self._local.conn, self._local.pid = conn, os.getpid()
        return conn

    def close(self) -> None:
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None

    # ------------------------------------------------------------------ items (shared)
    def _put_item(self, db: sqlite3.Connection, item: Item, at: datetime, *, clear_flag: bool = False) -> None:
        chapter = " › ".join(item.chapter_path) if isinstance(item, CardItem) else ""
        body = item.model_dump_json(exclude={"flag"})
        db.execute("INSERT INTO items (item_id, kind, chunk_id, chapter, nodes, body, updated_at) VALUES (?,?,?,?,?,?,?) "
                   "ON CONFLICT(item_id) DO UPDATE SET chunk_id=excluded.chunk_id, chapter=excluded.chapter, "
                   "nodes=excluded.nodes, body=excluded.body, updated_at=excluded.updated_at"
                   + (", flag=NULL, flagged_at=NULL" if clear_flag else ""),
                   (item.item_id, item.kind, item.chunk_id, chapter, json.dumps(item.nodes, ensure_ascii=False), body, iso(at)))

    def put_cards(self, cards: Iterable[CardItem], at: datetime) -> None:
        with transaction(self.db()) as db:
            for card in cards:
                self._put_item(db, card, at, clear_flag=True)

    def item(self, item_id: str) -> Optional[Item]:
        row = self.db().execute("SELECT body, flag FROM items WHERE item_id=?", (item_id,)).fetchone()
        return self._item(row) if row else None

    @staticmethod
    def _item(row) -> Item:
        item = ITEM.validate_json(row["body"])
        if isinstance(item, CardItem):
            item.flag = row["flag"]
        return item

    def cards(self, chapters: Optional[list[str]] = None) -> list[CardItem]:
        q = "SELECT body, flag FROM items WHERE kind='card'"
        args: list = []
        if chapters is not None:
            q += f" AND chapter IN ({','.join('?' * len(chapters))})"
            args = list(chapters)
        return [self._item(r) for r in self.db().execute(q + " ORDER BY chapter, rowid", args)]

    def flag(self, flags: dict[str, str], at: datetime) -> None:
        with transaction(self.db()) as db:
            for item_id, reason in flags.items():
                db.execute("UPDATE items SET flag=?, flagged_at=? WHERE item_id=? AND flag IS NULL", (reason, iso(at), item_id))

    def meta(self, key: str) -> Optional[str]:
        row = self.db().execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        return row["value"] if row else None

    def set_meta(self, key: str, value: str) -> None:
        with transaction(self.db()) as db:
            db.execute("INSERT INTO meta VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value=excluded.value", (key, value))

    # ------------------------------------------------------------------ attempts (per student)
    def record(self, profile: Profile, a: Attempt) -> AttemptResult:
        """Store one attempt with its schedule and 错题本 change, in one transaction."""
        db = self.db()
        with transaction(db):
            if a.client_key:
                row = db.execute("SELECT * FROM attempts WHERE profile_id=? AND client_key=?",
                                 (profile.id, a.client_key)).fetchone()
                if row is not None:
                    return self._result(db, profile, row, duplicate=True)
            self._put_item(db, a.item, a.at)
            st = db.execute("SELECT card, reps, lapses FROM review_state WHERE profile_id=? AND item_id=?",
                            (profile.id, a.item.item_id)).fetchone()
            before = schedule.load(st["card"] if st else None, a.item.item_id, a.at)
            after = schedule.review(self.scheduler, before, a.rating, a.at, a.seconds)
            cur = db.execute("INSERT INTO attempts (profile_id, item_id, mode, answer, verdict, rating, seconds, at, chunk_id, "
                             "client_key) VALUES (?,?,?,?,?,?,?,?,?,?)",
                             (profile.id, a.item.item_id, a.mode, a.answer, a.verdict, a.rating, a.seconds, iso(a.at),
                              a.item.chunk_id, a.client_key))
            attempt_id = cur.lastrowid
            db.execute("INSERT INTO review_state VALUES (?,?,?,?,?,?,?,?) ON CONFLICT(profile_id, item_id) DO UPDATE SET "
                       "card=excluded.card, due=excluded.due, reps=excluded.reps, lapses=excluded.lapses, "
                       "last_rating=excluded.last_rating, updated_at=excluded.updated_at",
                       (profile.id, a.item.item_id, after.to_json(), iso(after.due), (st["reps"] if st else 0) + 1,
                        (st["lapses"] if st else 0) + schedule.is_lapse(before, a.rating), a.rating, iso(a.at)))
            if a.item.kind == "question":
                if self.is_mistake(a.verdict, a.rating):
                    db.execute("INSERT INTO mistakes VALUES (?,?,1,?,?,?,?,NULL) ON CONFLICT(profile_id, item_id) DO UPDATE "
                               "SET wrong_count=wrong_count+1, last_at=excluded.last_at, last_attempt_id=excluded.last_attempt_id, "
                               "last_answer=excluded.last_answer, fixed_at=NULL",
                               (profile.id, a.item.item_id, iso(a.at), iso(a.at), attempt_id, a.answer))
                else:
                    db.execute("UPDATE mistakes SET fixed_at=? WHERE profile_id=? AND item_id=? AND fixed_at IS NULL",
                               (iso(a.at), profile.id, a.item.item_id))
            row = db.execute("SELECT * FROM attempts WHERE id=?", (attempt_id,)).fetchone()
            return self._result(db, profile, row)

    def is_mistake(self, verdict: str, rating: int) -> bool:
        return verdict == "wrong" or (verdict == "self" and rating <= self.cfg.mistake_max_rating)

    def _result(self, db, profile: Profile, row, duplicate: bool = False) -> AttemptResult:
        st = db.execute("SELECT due FROM review_state WHERE profile_id=? AND item_id=?", (profile.id, row["item_id"])).fetchone()
        open_ = db.execute("SELECT 1 FROM mistakes WHERE profile_id=? AND item_id=? AND fixed_at IS NULL",
                           (profile.id, row["item_id"])).fetchone()
        item = self.item(row["item_id"])
        return AttemptResult(attempt_id=row["id"], item_id=row["item_id"], profile=profile.name, mode=row["mode"],
                             answer=row["answer"], verdict=row["verdict"], rating=row["rating"],
                             rating_name=RATING_NAMES[row["rating"]], seconds=row["seconds"], at=parse_iso(row["at"]),
                             due=parse_iso(st["due"]), in_mistakes=bool(open_), duplicate=duplicate,
                             correct_answer=getattr(item, "answer", None) if item.kind == "question" else item.back,
                             analysis=getattr(item, "analysis", None), scoring=getattr(item, "scoring", None))

    def attempts(self, profile: Profile, item_id: Optional[str] = None, limit: Optional[int] = None) -> list[dict]:
        q = "SELECT * FROM attempts WHERE profile_id=?"
        args: list = [profile.id]
        if item_id:
            q += " AND item_id=?"
            args.append(item_id)
        q += " ORDER BY id DESC" + (f" LIMIT {int(limit)}" if limit else "")
        return [{k: r[k] for k in ("id", "item_id", "mode", "answer", "verdict", "rating", "seconds", "at", "chunk_id")}
                for r in self.db().execute(q, args)]

    def counts(self, profile: Profile) -> dict[str, int]:
        r = self.db().execute("SELECT COUNT(*) n, SUM(verdict='right') right_, SUM(verdict='wrong') wrong FROM attempts "
                              "WHERE profile_id=?", (profile.id,)).fetchone()
        return {"attempts": r["n"], "right": r["right_"] or 0, "wrong": r["wrong"] or 0}

    def mistakes(self, profile: Profile) -> list[Mistake]:
        rows = self.db().execute("SELECT m.*, i.body, i.flag FROM mistakes m JOIN items i ON i.item_id=m.item_id "
                                 "WHERE m.profile_id=? ORDER BY m.fixed_at IS NOT NULL, m.last_at DESC", (profile.id,))
        return [Mistake(item=self._item(r), wrong_count=r["wrong_count"], first_at=parse_iso(r["first_at"]),
                        last_at=parse_iso(r["last_at"]), last_answer=r["last_answer"], fixed=r["fixed_at"] is not None,
                        fixed_at=parse_iso(r["fixed_at"])) for r in rows]

    def states(self, profile: Profile) -> dict[str, tuple["schedule.Card", int]]:
        """item id → (its fsrs Card, its last rating)."""
        rows = self.db().execute("SELECT item_id, card, last_rating FROM review_state WHERE profile_id=?", (profile.id,))
        return {r["item_id"]: (schedule.Card.from_json(r["card"]), r["last_rating"]) for r in rows}

    def due(self, profile: Profile, until: datetime, day_start: datetime) -> list[tuple[Item, Optional[datetime], str]]:
        """(item, due, state) of items due by ``until`` (flagged cards held back), then new cards up to
        the day's allowance (``new_cards_per_day`` less those first reviewed since ``day_start``)."""
        db = self.db()
        out = []
        for r in db.execute("SELECT s.due, s.card, i.body, i.flag FROM review_state s JOIN items i ON i.item_id=s.item_id "
                            "WHERE s.profile_id=? AND s.due<=? AND i.flag IS NULL ORDER BY s.due", (profile.id, iso(until))):
            out.append((self._item(r), parse_iso(r["due"]), schedule.state_name(schedule.Card.from_json(r["card"]))))
        started = db.execute("SELECT COUNT(*) FROM (SELECT a.item_id, MIN(a.at) first FROM attempts a JOIN items i ON "
                             "i.item_id=a.item_id WHERE a.profile_id=? AND i.kind='card' GROUP BY a.item_id) WHERE first>=?",
                             (profile.id, iso(day_start))).fetchone()[0]
        allowance = max(0, self.cfg.new_cards_per_day - started)
        if allowance:
            for r in db.execute("SELECT body, flag FROM items i WHERE kind='card' AND flag IS NULL AND NOT EXISTS "
                                "(SELECT 1 FROM review_state s WHERE s.profile_id=? AND s.item_id=i.item_id) "
                                "ORDER BY chapter, rowid LIMIT ?", (profile.id, allowance)):
                out.append((self._item(r), None, "new"))
        return out

    # ------------------------------------------------------------------ the class (aggregates only)
    def class_rows(self) -> list[sqlite3.Row]:
        """Per student and question item: attempts and wrong ones (students' names never leave here)."""
        return self.db().execute("SELECT a.profile_id, a.item_id, i.nodes, COUNT(*) n, SUM(a.verdict='wrong' OR "
                                 "(a.verdict='self' AND a.rating<=?)) wrong FROM attempts a JOIN items i ON "
                                 "i.item_id=a.item_id JOIN profiles p ON p.id=a.profile_id WHERE i.kind='question' AND "
                                 "p.role='student' GROUP BY a.profile_id, a.item_id",
                                 (self.cfg.mistake_max_rating,)).fetchall()
