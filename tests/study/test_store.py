"""The study store without an index: migrations, one transaction per attempt, the 错题本, idempotent
attempts, isolation between profiles, tokens."""

from __future__ import annotations

import sqlite3
from datetime import timedelta

import pytest

from pipeline.settings import StudySettings
from pipeline.study import users
from pipeline.study.db import MIGRATIONS, connect, migrate
from pipeline.study.store import Attempt, StudyStore
from study_helpers import T0, card, choice


def _try(store, profile, item, verdict, rating, at=T0, key=None, answer="A"):
    return store.record(profile, Attempt(item=item, answer=answer, verdict=verdict, rating=rating, at=at, client_key=key))


def test_migrations_apply_once_and_the_database_is_wal(tmp_path):
    db = connect(tmp_path / "s.sqlite")
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert [n for (n,) in db.execute("SELECT name FROM _migrations")] == [m.__name__ for m in MIGRATIONS]
    assert migrate(db) == []  # applied already
    again = connect(tmp_path / "s.sqlite")  # a second process opening it finds nothing to do
    assert again.execute("SELECT COUNT(*) FROM _migrations").fetchone()[0] == len(MIGRATIONS)


def test_a_wrong_answer_opens_a_mistake_a_right_one_fixes_it(store):
    me = users.ensure(store.db(), "alice", T0)
    q = choice(1)
    first = _try(store, me, q, "wrong", 1)
    assert first.in_mistakes and first.rating_name == "again"
    assert first.due - T0 == timedelta(minutes=10)  # the one learning step: back the same day
    assert [m.item.item_id for m in store.mistakes(me)] == ["2024-1"]
    second = _try(store, me, q, "right", 3, at=T0 + timedelta(minutes=15))
    assert not second.in_mistakes
    entry = store.mistakes(me)[0]
    assert entry.fixed and entry.wrong_count == 1 and entry.last_answer == "A"
    third = _try(store, me, q, "wrong", 1, at=T0 + timedelta(days=3))
    assert third.in_mistakes and store.mistakes(me)[0].wrong_count == 2 and not store.mistakes(me)[0].fixed
    assert [a["verdict"] for a in store.attempts(me)] == ["wrong", "right", "wrong"]


def test_self_graded_hard_is_a_mistake_good_is_not(store):
    me = users.ensure(store.db(), "bob", T0)
    assert _try(store, me, choice(41), "self", 2).in_mistakes
    assert not _try(store, me, choice(42), "self", 3).in_mistakes
    assert [m.item.item_id for m in store.mistakes(me)] == ["2024-41"]


def test_a_client_key_stores_an_attempt_exactly_once(store):
    me = users.ensure(store.db(), "carol", T0)
    a = _try(store, me, choice(1), "wrong", 1, key="k-1")
    b = _try(store, me, choice(1), "wrong", 1, key="k-1", at=T0 + timedelta(minutes=1))
    assert b.duplicate and b.attempt_id == a.attempt_id and b.at == a.at
    assert len(store.attempts(me)) == 1 and store.mistakes(me)[0].wrong_count == 1
    other = users.ensure(store.db(), "dave", T0)  # keys are per student: the same key is another attempt
    assert not _try(store, other, choice(1), "right", 3, key="k-1").duplicate


def test_a_failing_attempt_leaves_nothing_behind(store, monkeypatch):
    me = users.ensure(store.db(), "erin", T0)

    def boom(*a, **k):
        raise RuntimeError("crash inside the transaction")

    monkeypatch.setattr("pipeline.study.schedule.review", boom)
    with pytest.raises(RuntimeError):
        _try(store, me, choice(1), "wrong", 1)
    db = store.db()
    assert db.execute("SELECT COUNT(*) FROM items").fetchone()[0] == 0
    assert db.execute("SELECT COUNT(*) FROM attempts").fetchone()[0] == 0
    assert not db.in_transaction


def test_profiles_never_see_each_other(store):
    a, b = users.ensure(store.db(), "a", T0), users.ensure(store.db(), "b", T0)
    _try(store, a, choice(1), "wrong", 1)
    _try(store, a, card(1), "self", 3)
    assert store.attempts(b) == [] and store.mistakes(b) == [] and store.states(b) == {}
    assert store.counts(b) == {"attempts": 0, "right": 0, "wrong": 0}
    assert [i.item_id for i, _, _ in store.due(b, T0 + timedelta(days=400), T0)] == [card(1).item_id]  # a new card for b
    assert {i.item_id for i, _, _ in store.due(a, T0 + timedelta(days=400), T0)} == {"2024-1", card(1).item_id}


def test_flagged_cards_are_held_back_from_review(store):
    me = users.ensure(store.db(), "f", T0)
    store.put_cards([card(1), card(2)], T0)
    store.flag({card(2).item_id: "source changed"}, T0)
    assert [i.item_id for i, due, st in store.due(me, T0, T0)] == [card(1).item_id]
    store.put_cards([card(2, chunk_id="new-chunk")], T0)  # made again from the current text
    assert {i.item_id for i, _, _ in store.due(me, T0, T0)} == {card(1).item_id, card(2).item_id}


def test_new_cards_per_day(tmp_path):
    store = StudyStore(tmp_path / "s.sqlite", StudySettings(new_cards_per_day=2, fuzz=False))
    me = users.ensure(store.db(), "g", T0)
    store.put_cards([card(i) for i in range(5)], T0)
    assert len(store.due(me, T0, T0)) == 2
    _try(store, me, card(0), "self", 4)  # one new card started today
    assert len([x for x in store.due(me, T0, T0) if x[2] == "new"]) == 1
    store.close()


def test_tokens_are_stored_hashed_and_checked(store):
    db = store.db()
    alice, token = users.issue_token(db, "alice", T0)
    assert token.startswith("exr_") and users.authenticate(db, token) == alice
    stored = [r[0] for r in db.execute("SELECT secret_sha256 FROM tokens")]
    secret = token.split(".", 1)[1]
    assert stored == [users.digest(secret)] and secret not in str(list(db.iterdump()))
    tampered = token[:-1] + ("A" if token[-1] != "A" else "B")
    for bad in (tampered, token.replace("exr_", "exr"), "", "exr_0000000000000000." + secret, "Bearer " + token):
        assert users.authenticate(db, bad) is None, bad
    with pytest.raises(users.ProfileError, match="has a token already"):
        users.issue_token(db, "alice", T0)
    _, fresh = users.issue_token(db, "alice", T0, rotate=True)
    assert users.authenticate(db, token) is None and users.authenticate(db, fresh) == alice
    admin, admin_token = users.issue_token(db, "teacher", T0, admin=True)
    assert users.authenticate(db, admin_token).role == "admin"
    with pytest.raises(users.ProfileError, match="is a admin"):
        users.issue_token(db, "teacher", T0, rotate=True)
    assert [(r["name"], r["has_token"]) for r in users.listing(db)] == [("alice", True), ("teacher", True)]
    with pytest.raises(users.ProfileError, match="not allowed"):
        users.ensure(db, "../x", T0)


def test_the_database_file_is_a_plain_sqlite_file(store, tmp_path):
    me = users.ensure(store.db(), "h", T0)
    _try(store, me, choice(1), "wrong", 1)
    store.close()
    raw = sqlite3.connect(tmp_path / "study.sqlite")
    assert raw.execute("SELECT item_id, verdict, rating FROM attempts").fetchall() == [("2024-1", "wrong", 1)]
    assert raw.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
