"""The study database: one SQLite file (WAL), numbered migrations, one transaction per write.

It lives apart from the index (``<data_dir>/study.sqlite`` unless ``study_db`` says otherwise), so a
re-ingest never touches it. WAL lets readers (progress, the web pages) read while an attempt is
written; ``synchronous=FULL`` makes a committed attempt survive a power cut, not only a killed
process; ``BEGIN IMMEDIATE`` takes the write lock at the start of a transaction, so two writers wait
for each other (``busy_timeout``) instead of failing mid-transaction when both try to upgrade.

Writers of one process (a server's threads) also queue on a lock per database file before
``BEGIN IMMEDIATE``: SQLite's busy handler sleeps with a growing back-off, which under 50 writers
left a few waiting over a second; a lock hands the file over in arrival order.

Migrations follow simonw/llm: functions ``mNNN_name(db)`` applied in order, each once, recorded in
``_migrations``. A new column or table is a new function at the end; a released one never changes.
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator

BUSY_TIMEOUT_MS = 30_000  # a writer waits this long for another's transaction before failing
MIGRATIONS: list[Callable[[sqlite3.Connection], None]] = []


def migration(fn: Callable[[sqlite3.Connection], None]):
    MIGRATIONS.append(fn)
    return fn


@migration
def m001_initial(db: sqlite3.Connection) -> None:
    _script(db, """
    CREATE TABLE profiles (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL UNIQUE,
        role TEXT NOT NULL DEFAULT 'student' CHECK (role IN ('student', 'admin')),
        created_at TEXT NOT NULL
    );
    -- a token is "<id>.<secret>"; only the secret's sha256 is kept
    CREATE TABLE tokens (
        id TEXT PRIMARY KEY,
        profile_id INTEGER NOT NULL REFERENCES profiles(id) ON DELETE CASCADE,
        secret_sha256 TEXT NOT NULL,
        created_at TEXT NOT NULL,
        revoked_at TEXT
    );
    -- what was practised or reviewed, as it was then (a snapshot: the 错题本 outlives a re-ingest);
    -- shared by all profiles, it holds material, not a student's data
    CREATE TABLE items (
        item_id TEXT PRIMARY KEY,
        kind TEXT NOT NULL CHECK (kind IN ('question', 'card')),
        chunk_id TEXT,
        chapter TEXT NOT NULL DEFAULT '',
        nodes TEXT NOT NULL,
        body TEXT NOT NULL,
        flag TEXT,
        flagged_at TEXT,
        updated_at TEXT NOT NULL
    );
    CREATE INDEX items_kind_chapter ON items (kind, chapter);
    CREATE TABLE attempts (
        id INTEGER PRIMARY KEY,
        profile_id INTEGER NOT NULL REFERENCES profiles(id),
        item_id TEXT NOT NULL REFERENCES items(item_id),
        mode TEXT NOT NULL CHECK (mode IN ('practice', 'review')),
        answer TEXT NOT NULL,
        verdict TEXT NOT NULL CHECK (verdict IN ('right', 'wrong', 'self')),
        rating INTEGER NOT NULL CHECK (rating BETWEEN 1 AND 4),
        seconds REAL,
        at TEXT NOT NULL,
        chunk_id TEXT,
        client_key TEXT,
        UNIQUE (profile_id, client_key)
    );
    CREATE INDEX attempts_profile_item ON attempts (profile_id, item_id, at);
    CREATE TABLE review_state (
        profile_id INTEGER NOT NULL REFERENCES profiles(id),
        item_id TEXT NOT NULL REFERENCES items(item_id),
        card TEXT NOT NULL,
        due TEXT NOT NULL,
        reps INTEGER NOT NULL DEFAULT 0,
        lapses INTEGER NOT NULL DEFAULT 0,
        last_rating INTEGER,
        updated_at TEXT NOT NULL,
        PRIMARY KEY (profile_id, item_id)
    );
    CREATE INDEX review_due ON review_state (profile_id, due);
    CREATE TABLE mistakes (
        profile_id INTEGER NOT NULL REFERENCES profiles(id),
        item_id TEXT NOT NULL REFERENCES items(item_id),
        wrong_count INTEGER NOT NULL,
        first_at TEXT NOT NULL,
        last_at TEXT NOT NULL,
        last_attempt_id INTEGER NOT NULL,
        last_answer TEXT NOT NULL,
        fixed_at TEXT,
        PRIMARY KEY (profile_id, item_id)
    );
    -- what the store last checked against (e.g. the index generation the cards were checked on)
    CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    """)


def _script(db: sqlite3.Connection, sql: str) -> None:
    """Run statements one by one inside the caller's transaction (``executescript`` would commit it)."""
    body = "\n".join(line for line in sql.splitlines() if not line.strip().startswith("--"))
    for statement in body.split(";"):
        if statement.strip():
            db.execute(statement)


_LOCKS: dict[tuple[int, str], threading.RLock] = {}  # (pid, file): a forked child gets locks of its own
_LOCKS_GUARD = threading.Lock()


class Connection(sqlite3.Connection):
    """A connection that knows its file's write lock (shared by every connection of this process)."""

    write_lock: threading.RLock  # re-entrant: a nested transaction fails in SQLite, it never deadlocks


def connect(path: Path) -> Connection:
    """A connection in autocommit mode (transactions are explicit, see :func:`transaction`), migrated."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None, check_same_thread=False,
                         factory=Connection)
    with _LOCKS_GUARD:
        db.write_lock = _LOCKS.setdefault((os.getpid(), str(path.resolve())), threading.RLock())
    db.row_factory = sqlite3.Row
    db.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
    _wal(db)
    db.execute("PRAGMA synchronous=FULL")
    db.execute("PRAGMA foreign_keys=ON")
    migrate(db)
    return db


def _wal(db: sqlite3.Connection) -> None:
    """Switch to WAL. The switch needs a moment with no other connection in a transaction; many
    processes opening a new file at once can find it busy, so it is retried (busy_timeout does not
    cover it)."""
    for attempt in range(50):
        try:
            if db.execute("PRAGMA journal_mode=WAL").fetchone()[0].lower() == "wal":
                return
        except sqlite3.OperationalError:
            pass
        time.sleep(0.02 * (attempt + 1))
    raise sqlite3.OperationalError("could not switch the study database to WAL mode (locked)")


@contextmanager
def transaction(db: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """One write transaction: the write lock taken at the start, committed whole or not at all."""
    lock = getattr(db, "write_lock", None)
    if lock is not None:
        lock.acquire()
    try:
        db.execute("BEGIN IMMEDIATE")
        try:
            yield db
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")
    finally:
        if lock is not None:
            lock.release()


def migrate(db: sqlite3.Connection) -> list[str]:
    """Apply the migrations not yet applied, in order, in one transaction (two processes opening a
    new database at once: the second waits, then finds them applied). Returns the names applied."""
    db.execute("CREATE TABLE IF NOT EXISTS _migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)")
    done = {name for (name,) in db.execute("SELECT name FROM _migrations")}
    if all(fn.__name__ in done for fn in MIGRATIONS):
        return []
    applied = []
    with transaction(db):
        done = {name for (name,) in db.execute("SELECT name FROM _migrations")}
        for fn in MIGRATIONS:
            if fn.__name__ not in done:
                fn(db)
                db.execute("INSERT INTO _migrations VALUES (?, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))", (fn.__name__,))
                applied.append(fn.__name__)
    return applied
