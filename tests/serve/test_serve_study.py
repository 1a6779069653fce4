"""The study routes in process, on the ingested sample: a choice attempt graded against the booklet,
a comprehensive one self-graded, the 错题本 filtered by node, FSRS review, progress (by node and by
syllabus node id), idempotent retries, and the errors a page shows. Tokens: the server token is the
admin; `users add` tokens act as their student. The clock is fixed, so "due today" is stable."""

from __future__ import annotations

import uuid

import pytest
from fastapi.testclient import TestClient

from serve_helpers import make_app

NOW = "2026-03-02T08:00:00+00:00"
ADMIN = "study-admin-s3cret"


@pytest.fixture
def served(sample_data, tmp_path):
    """(client, study service, {name: headers}): a token server with students alice and bob."""
    app, _ = make_app(sample_data, api_token=ADMIN, study_db=str(tmp_path / "study.sqlite"), study_now=NOW)
    svc = app.state.study
    heads = {"admin": {"Authorization": f"Bearer {ADMIN}"}}
    for name in ("alice", "bob"):
        heads[name] = {"Authorization": f"Bearer {svc.add_user(name)[1]}"}
    with TestClient(app, base_url="http://127.0.0.1:8408") as c:
        yield c, svc, heads


def _attempt(c, head, item, answer="", **kw):
    return c.post("/api/attempts", json={"item_id": item, "answer": answer, "client_key": uuid.uuid4().hex, **kw},
                  headers=head)


def test_practice_records_grades_and_feeds_mistakes_review_and_progress(served):
    c, svc, h = served
    assert c.get("/api/me", headers=h["alice"]).json() == {"profile": "alice", "role": "student", "token": True}
    listed = c.get("/api/practice", params={"type": "choice", "limit": 5}, headers=h["alice"])
    assert listed.status_code == 200, listed.text
    ids = [q["item_id"] for q in listed.json()]
    assert ids == ["2024-1", "2024-2", "2024-3", "2024-4", "2024-5"]
    picks = {"2024-1": "A", "2024-2": "C", "2024-3": "A", "2024-4": "D", "2024-5": "B"}  # 1 and 4 wrong
    verdicts = {}
    for item, pick in picks.items():
        r = _attempt(c, h["alice"], item, pick, seconds=12.5)
        assert r.status_code == 200, r.text
        body = r.json()
        verdicts[item] = body["verdict"]
        assert body["rating"] == (1 if body["verdict"] == "wrong" else 3) and body["correct_answer"]
        assert body["profile"] == "alice" and body["in_mistakes"] == (body["verdict"] == "wrong")
    assert verdicts == {"2024-1": "wrong", "2024-2": "right", "2024-3": "right", "2024-4": "wrong", "2024-5": "right"}

    # a comprehensive question needs the student's own grade; then it is stored like any other
    no_grade = _attempt(c, h["alice"], "2024-41", "用折半查找……")
    assert no_grade.status_code == 400 and no_grade.json()["error"] == "study_error"
    graded = _attempt(c, h["alice"], "2024-41", "用折半查找……", rating="hard")
    assert graded.status_code == 200 and graded.json()["verdict"] == "self" and graded.json()["rating"] == 2
    assert graded.json()["scoring"] or graded.json()["correct_answer"]

    mistakes = c.get("/api/mistakes", headers=h["alice"]).json()
    assert sorted(m["item"]["item_id"] for m in mistakes) == ["2024-1", "2024-4", "2024-41"]
    assert all(m["item"]["answer"] and m["item"]["sections"] for m in mistakes)  # the booklet answer, the sections tested
    on_node = c.get("/api/mistakes", params={"node": "树表的查找"}, headers=h["alice"]).json()
    assert "2024-4" in [m["item"]["item_id"] for m in on_node] and "2024-1" not in [m["item"]["item_id"] for m in on_node]

    due = c.get("/api/review", headers=h["alice"]).json()
    assert {"2024-1", "2024-4", "2024-41"} <= {d["item"]["item_id"] for d in due}
    again = c.post("/api/review", json={"item_id": "2024-1", "answer": "B"}, headers=h["alice"]).json()
    assert again["mode"] == "review" and again["verdict"] == "right" and not again["in_mistakes"]
    assert c.get("/api/mistakes", params={"open": True}, headers=h["alice"]).json()[0]["item"]["item_id"] != "2024-1"

    progress = c.get("/api/progress", headers=h["alice"]).json()
    assert progress["profile"] == "alice" and progress["attempts"] == 7 and progress["next"]
    by_id = progress["by_node_id"]
    assert by_id, "the sample has a syllabus map: mastery per syllabus node id"
    tested = [n for n in by_id.values() if n["attempted"]]
    assert tested and all(0 <= n["mastery"] <= 1 for n in tested)
    assert any(n["mastery"] > 0 for n in tested) and any(n["wrong"] for n in tested)
    assert c.get("/api/attempts", params={"item_id": "2024-1"}, headers=h["alice"]).json()[0]["mode"] == "review"


def test_a_retried_post_is_stored_once_and_errors_are_the_documented_ones(served):
    c, svc, h = served
    body = {"item_id": "2024-2", "answer": "B", "client_key": "retry-1"}
    first = c.post("/api/attempts", json=body, headers=h["bob"]).json()
    second = c.post("/api/attempts", json=body, headers=h["bob"]).json()
    assert not first["duplicate"] and second["duplicate"] and second["attempt_id"] == first["attempt_id"]
    assert len(c.get("/api/attempts", headers=h["bob"]).json()) == 1
    one = c.get(f"/api/attempts/{first['attempt_id']}", headers=h["bob"])
    assert one.status_code == 200 and one.json()["item_id"] == "2024-2"

    assert c.post("/api/attempts", json={"item_id": "2031-99", "answer": "A"}, headers=h["bob"]).json()["error"] == "item_not_found"
    assert c.post("/api/attempts", json={"item_id": "2024-2", "answer": ""}, headers=h["bob"]).status_code == 400
    assert c.post("/api/attempts", json={"item_id": "2024-2", "rating": 7}, headers=h["bob"]).status_code == 422
    assert c.post("/api/attempts", json={"item_id": "2024-2", "rating": True}, headers=h["bob"]).status_code == 422
    assert c.get("/api/practice", params={"year": 1999}, headers=h["bob"]).json() == []
    assert c.get("/api/mistakes").status_code == 401
    assert c.get("/api/mistakes", headers={"Authorization": "Bearer exr_0123456789abcdef.not-a-live-token-at-all"}).status_code == 401


def test_the_admin_sees_class_aggregates_only_and_a_student_never_them(served):
    c, svc, h = served
    _attempt(c, h["alice"], "2024-1", "A")
    _attempt(c, h["bob"], "2024-1", "B")
    for path in ("/api/practice", "/api/mistakes", "/api/review", "/api/progress", "/api/attempts"):
        r = c.get(path, headers=h["admin"])
        assert r.status_code == 403 and r.json()["error"] == "not_allowed", path
    assert _attempt(c, h["admin"], "2024-1", "A").status_code == 403
    rows = c.get("/api/class/nodes", headers=h["admin"])
    assert rows.status_code == 200
    top = rows.json()
    assert top and max(n["students"] for n in top) == 2 and max(n["students_wrong"] for n in top) == 1
    assert "alice" not in rows.text and "bob" not in rows.text
    assert c.get("/api/class/nodes", headers=h["alice"]).status_code == 403
    assert c.get("/api/me", headers=h["admin"]).json()["role"] == "admin"


def test_loopback_without_tokens_is_the_default_profile(sample_data, tmp_path):
    app, _ = make_app(sample_data, study_db=str(tmp_path / "study.sqlite"), study_now=NOW)
    with TestClient(app, base_url="http://127.0.0.1:8408") as c:
        assert c.get("/api/me").json() == {"profile": "default", "role": "student", "token": False}
        r = c.post("/api/attempts", json={"item_id": "2024-3", "answer": "A"}, params={"profile": "bob"})
        assert r.status_code == 200 and r.json()["profile"] == "default"  # no parameter names a profile
    assert [a["item_id"] for a in app.state.study.attempts(app.state.study.profile("default"))] == ["2024-3"]


def test_a_rotated_token_stops_at_once_and_a_student_token_works_on_loopback(served, sample_data, tmp_path):
    c, svc, h = served
    new = svc.add_user("alice", rotate=True)[1]
    assert c.get("/api/me", headers=h["alice"]).status_code == 401
    assert c.get("/api/me", headers={"Authorization": f"Bearer {new}"}).json()["profile"] == "alice"

    app, _ = make_app(sample_data, study_db=str(tmp_path / "study.sqlite"), study_now=NOW)  # no server token
    with TestClient(app, base_url="http://127.0.0.1:8408") as loop:
        assert loop.get("/api/me", headers={"Authorization": f"Bearer {new}"}).json()["profile"] == "alice"
        assert loop.get("/api/me", headers=h["alice"]).json()["profile"] == "default"  # a dead token: the owner


def test_a_card_is_reviewed_with_the_students_own_rating(served):
    c, svc, h = served
    made = svc.make_cards("查找").made
    assert made
    due = c.get("/api/review", headers=h["bob"]).json()
    cards = [d for d in due if d["item"]["kind"] == "card"]
    assert cards and all(d["new"] for d in cards)
    card = cards[0]["item"]
    assert c.post("/api/review", json={"item_id": card["item_id"]}, headers=h["bob"]).status_code == 400  # no rating
    r = c.post("/api/review", json={"item_id": card["item_id"], "rating": "easy"}, headers=h["bob"]).json()
    assert r["verdict"] == "self" and r["rating"] == 4 and r["mode"] == "review" and not r["in_mistakes"]
    assert card["item_id"] not in {d["item"]["item_id"] for d in c.get("/api/review", headers=h["bob"]).json()}
    assert card["item_id"] in {d["item"]["item_id"] for d in c.get("/api/review", headers=h["alice"]).json()}
