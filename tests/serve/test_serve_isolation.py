"""Per-student isolation on a real `python cli.py serve` (a subprocess on the ingested sample): two
students with their own tokens from `cli.py users add`, and the server's own token (the admin).

Neither student sees the other's attempts, 错题本, review queue, progress or `ask` sessions through
any endpoint, including the other's attempt ids and item ids in URLs, and no parameter can name
another profile. The admin sees the class aggregates only (counts, never names) and gets 403 on
every per-student route; a student gets 403 on the aggregates. Every request has a timeout.
"""

from __future__ import annotations

import json

import httpx
import pytest

from serve_helpers import ServeProcess, events_of

NOW = "2026-03-02T08:00:00+00:00"
ADMIN = "isolation-admin-s3cret"
STUDENT_READS = ("/api/practice", "/api/attempts", "/api/mistakes", "/api/review", "/api/progress")
T = 60  # seconds: every request's timeout


@pytest.fixture(scope="module")
def server(sample_data, tmp_path_factory, cli):
    """(serve, {name: headers}) with students alice and bob issued by `cli.py users add NAME --json`."""
    tmp = tmp_path_factory.mktemp("isolation")
    env = {"EXAMRAG_STUDY_DB": str(tmp / "study.sqlite"), "EXAMRAG_STUDY_NOW": NOW, "EXAMRAG_LLM_BACKEND": "none"}
    heads = {"admin": {"Authorization": f"Bearer {ADMIN}"}}
    for name in ("alice", "bob"):
        r = cli("users", "add", name, "--json", data_dir=sample_data, env=env, timeout=120)
        assert r.returncode == 0, r.stdout + r.stderr
        heads[name] = {"Authorization": f"Bearer {json.loads(r.stdout)['token']}"}
    with ServeProcess(sample_data, tmp / "serve.log", env=env, token=ADMIN) as served:
        yield served, heads


def _get(server, path, head, **params):
    return httpx.get(server.url + path, params=params, headers=head, timeout=T)


def _ask(server, head, question, session):
    r = httpx.post(server.url + "/api/ask", json={"question": question, "session": session, "use_llm": False},
                   headers=head, timeout=T)
    assert r.status_code == 200, r.text
    return next(data for kind, data in events_of(r) if kind == "answer")


def test_neither_student_sees_the_others_attempts_mistakes_review_progress_or_sessions(server):
    srv, h = server
    alice = []
    for item, pick in (("2024-1", "A"), ("2024-4", "D"), ("2024-2", "C")):  # 2024-1 and 2024-4 wrong
        r = httpx.post(srv.url + "/api/attempts", json={"item_id": item, "answer": pick, "seconds": 10},
                       headers=h["alice"], timeout=T)
        assert r.status_code == 200 and r.json()["profile"] == "alice", r.text
        alice.append(r.json())
    # bob's one attempt; his profile named in every way a request could try: ignored, the token decides
    r = httpx.post(srv.url + "/api/attempts", params={"profile": "alice"},
                   json={"item_id": "2024-3", "answer": "A"}, headers={**h["bob"], "X-Profile": "alice"}, timeout=T)
    assert r.status_code == 200 and r.json()["profile"] == "bob"

    assert {a["item_id"] for a in _get(srv, "/api/attempts", h["alice"]).json()} == {"2024-1", "2024-4", "2024-2"}
    assert [a["item_id"] for a in _get(srv, "/api/attempts", h["bob"], profile="alice").json()] == ["2024-3"]
    for a in alice:  # alice's ids in bob's URLs find nothing
        assert _get(srv, f"/api/attempts/{a['attempt_id']}", h["bob"]).status_code == 404
        assert _get(srv, f"/api/attempts/{a['attempt_id']}", h["alice"]).json()["item_id"] == a["item_id"]
        assert _get(srv, "/api/attempts", h["bob"], item_id=a["item_id"]).json() == []
    assert {m["item"]["item_id"] for m in _get(srv, "/api/mistakes", h["alice"]).json()} == {"2024-1", "2024-4"}
    assert _get(srv, "/api/mistakes", h["bob"]).json() == []
    assert _get(srv, "/api/mistakes", h["bob"], node="查找").json() == []
    assert not {"2024-1", "2024-4", "2024-2"} & {d["item"]["item_id"] for d in _get(srv, "/api/review", h["bob"]).json()}
    assert {"2024-1", "2024-4"} <= {d["item"]["item_id"] for d in _get(srv, "/api/review", h["alice"]).json()}
    bob_progress = _get(srv, "/api/progress", h["bob"]).json()
    assert bob_progress["profile"] == "bob" and bob_progress["attempts"] == 1 and bob_progress["wrong"] == 0
    assert _get(srv, "/api/progress", h["alice"]).json()["wrong"] == 2
    # bob's review of alice's wrong item is his own first attempt, not a continuation of hers
    r = httpx.post(srv.url + "/api/review", json={"item_id": "2024-1", "answer": "A"}, headers=h["bob"], timeout=T).json()
    assert r["profile"] == "bob" and r["in_mistakes"]
    assert {m["item"]["item_id"] for m in _get(srv, "/api/mistakes", h["alice"]).json()} == {"2024-1", "2024-4"}
    assert [m["item"]["item_id"] for m in _get(srv, "/api/mistakes", h["bob"]).json()] == ["2024-1"]

    # sessions: alice's conversation s1 makes her follow-up stand alone; bob's s1 is his own, empty
    _ask(srv, h["alice"], "折半查找的时间复杂度是多少", "s1")
    hers = _ask(srv, h["alice"], "它的适用条件呢", "s1")
    assert "折半查找" in hers.get("standalone_question", ""), hers.get("standalone_question")
    his = _ask(srv, h["bob"], "它的适用条件呢", "s1")
    assert "折半查找" not in his.get("standalone_question", ""), his


def test_the_admin_sees_class_aggregates_only_and_tokens_are_required(server):
    srv, h = server
    httpx.post(srv.url + "/api/attempts", json={"item_id": "2024-5", "answer": "A"}, headers=h["alice"], timeout=T)
    for path in STUDENT_READS:
        r = _get(srv, path, h["admin"])
        assert r.status_code == 403 and r.json()["error"] == "not_allowed", (path, r.text)
        assert _get(srv, path, {}).status_code == 401
        assert _get(srv, path, {"Authorization": "Bearer exr_0123456789abcdef.AAAAAAAAAAAAAAAAAAAAAAAA"}).status_code == 401
    assert _get(srv, "/api/attempts/1", h["admin"]).status_code == 403
    r = httpx.post(srv.url + "/api/attempts", json={"item_id": "2024-5", "answer": "B"}, headers=h["admin"], timeout=T)
    assert r.status_code == 403
    agg = _get(srv, "/api/class/nodes", h["admin"])
    assert agg.status_code == 200 and agg.json(), agg.text
    assert "alice" not in agg.text and "bob" not in agg.text and "profile" not in agg.text
    assert set(agg.json()[0]) == {"path", "node", "students", "students_wrong", "attempts", "wrong", "wrong_rate"}
    for name in ("alice", "bob"):
        assert _get(srv, "/api/class/nodes", h[name]).status_code == 403
        assert _get(srv, "/api/me", h[name]).json() == {"profile": name, "role": "student", "token": True}
        assert _get(srv, "/api/chapters", h[name]).status_code == 200  # the material is everyone's
