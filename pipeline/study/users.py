"""Profiles and per-student tokens.

A token is ``exr_<id>.<secret>``: ``id`` (8 random bytes, hex) finds its row, ``secret`` (32 random
bytes, url-safe) proves it. Only ``sha256(secret)`` is stored: the secret is random, so a slow
password hash would add nothing, and a leaked database gives no token. The stored digest is
compared in constant time (``hmac.compare_digest``). A token is printed once, when issued; issuing
a new one for the same name (``rotate``) revokes the old ones.

Roles: a student's token acts as that student only; the admin's token sees class aggregates only
(service.class_nodes), never a student's attempts.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import sqlite3
from datetime import datetime
from typing import Optional

from pipeline.ask import session as sessions
from pipeline.study.db import transaction
from pipeline.study.models import Profile

PREFIX = "exr_"
_TOKEN = re.compile(rf"^{PREFIX}([0-9a-f]{{16}})\.([A-Za-z0-9_\-]{{20,100}})$")


class ProfileError(ValueError):
    pass


def check_name(name: str) -> str:
    """A profile name is a session name (letters of any script, digits, _ - .): it names a folder of
    ``ask --session`` files too."""
    try:
        return sessions.check_name(name, "profile")
    except sessions.SessionError as exc:
        raise ProfileError(str(exc)) from None


def digest(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def _profile(row: sqlite3.Row) -> Profile:
    return Profile(id=row["id"], name=row["name"], role=row["role"], created_at=row["created_at"])


def get(db: sqlite3.Connection, name: str) -> Optional[Profile]:
    row = db.execute("SELECT * FROM profiles WHERE name=?", (name,)).fetchone()
    return _profile(row) if row else None


def ensure(db: sqlite3.Connection, name: str, at: datetime, role: str = "student") -> Profile:
    """The profile called ``name``, created on first use (the CLI's ``--profile``)."""
    check_name(name)
    found = get(db, name)
    if found is not None:
        return found
    with transaction(db):
        db.execute("INSERT OR IGNORE INTO profiles (name, role, created_at) VALUES (?, ?, ?)", (name, role, at.isoformat()))
    return get(db, name)


def issue_token(db: sqlite3.Connection, name: str, at: datetime, *, admin: bool = False,
                rotate: bool = False) -> tuple[Profile, str]:
    """(profile, token) for a new user; with ``rotate`` a fresh token for an existing one (its old
    tokens revoked). Raises ProfileError for a bad name, a user who has a token already (without
    ``rotate``) or a role change."""
    check_name(name)
    role = "admin" if admin else "student"
    token_id, secret = secrets.token_hex(8), secrets.token_urlsafe(32)
    with transaction(db):
        row = db.execute("SELECT * FROM profiles WHERE name=?", (name,)).fetchone()
        if row is not None and row["role"] != role:
            raise ProfileError(f"{name!r} is a {row['role']}, not a {role}")
        live = row is not None and db.execute("SELECT 1 FROM tokens WHERE profile_id=? AND revoked_at IS NULL",
                                              (row["id"],)).fetchone()
        if live and not rotate:
            raise ProfileError(f"{name!r} has a token already; `users add {name} --rotate` issues a new one "
                               "and revokes the old")
        if row is None:
            db.execute("INSERT INTO profiles (name, role, created_at) VALUES (?, ?, ?)", (name, role, at.isoformat()))
            row = db.execute("SELECT * FROM profiles WHERE name=?", (name,)).fetchone()
        db.execute("UPDATE tokens SET revoked_at=? WHERE profile_id=? AND revoked_at IS NULL", (at.isoformat(), row["id"]))
        db.execute("INSERT INTO tokens VALUES (?, ?, ?, ?, NULL)", (token_id, row["id"], digest(secret), at.isoformat()))
    return _profile(row), f"{PREFIX}{token_id}.{secret}"


def authenticate(db: sqlite3.Connection, token: str) -> Optional[Profile]:
    """The profile a token acts as, or None (malformed, unknown, revoked or wrong secret)."""
    m = _TOKEN.match(token or "")
    if not m:
        return None
    row = db.execute("SELECT p.*, t.secret_sha256 FROM tokens t JOIN profiles p ON p.id = t.profile_id "
                     "WHERE t.id=? AND t.revoked_at IS NULL", (m.group(1),)).fetchone()
    expected = row["secret_sha256"] if row else digest("")  # compare anyway: no early exit on an unknown id
    if hmac.compare_digest(digest(m.group(2)), expected) and row is not None:
        return _profile(row)
    return None


def listing(db: sqlite3.Connection) -> list[dict]:
    """Profiles with their role and whether they hold a live token (never the token)."""
    rows = db.execute("SELECT p.*, EXISTS(SELECT 1 FROM tokens t WHERE t.profile_id=p.id AND t.revoked_at IS NULL) AS "
                      "has_token FROM profiles p ORDER BY p.name").fetchall()
    return [{**_profile(r).model_dump(mode="json"), "has_token": bool(r["has_token"])} for r in rows]
