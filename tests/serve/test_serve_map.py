"""The syllabus map over HTTP (issue 21): /api/map is `cli.py map --json`, /api/questions carries each
record's syllabus place and filters by the node a chapter resolves to (as `questions --chapter`),
/api/map/material gives the chunks the map counts, and without a syllabus both say so (404
syllabus_missing) while the questions stay, unplaced. All on the ingested shipped sample, whose
考试大纲（样例）.md is its syllabus."""

from __future__ import annotations

import json
import shutil

import pytest
from fastapi.testclient import TestClient

from serve_helpers import make_app


def _node(body: dict, *path: str) -> dict:
    return next(n for n in body["nodes"] if n["path"] == list(path))


def test_the_map_is_map_json_and_a_cell_is_its_questions(client, cli, sample_data):
    body = client.get("/api/map").json()
    run = cli("map", "--json", data_dir=sample_data, timeout=120)
    assert run.returncode == 0, run.stderr
    assert body == json.loads(run.stdout)
    assert body["years"] == [2024] and body["counts"]["questions_placed"] == body["counts"]["questions"] > 0
    search = _node(body, "数据结构", "三、查找")
    # a first-level node's per-year counts are its questions of that year, and its sections' add up within them
    for n in (m for m in body["nodes"] if m["level"] == 1):
        for year, count in n["by_year"].items():
            assert count == sum(1 for q in n["questions"] if str(q["year"]) == year)
    sections = [n for n in body["nodes"] if n["parent"] == search["node_id"]]
    assert {q["chunk_id"] for s in sections for q in s["questions"]} <= {q["chunk_id"] for q in search["questions"]}
    assert search["by_year"] == {"2024": 3} and search["covered"] and search["tested"]

    # the cell's questions are what practice for the node lists: the same as `questions --chapter`
    rows = client.get("/api/questions", params={"chapter": "数据结构 › 三、查找"}).json()
    assert {(q["year"], q["number"]) for q in rows} == {(q["year"], q["number"]) for q in search["questions"]}
    assert all(q["syllabus_path"][:2] == ["数据结构", "三、查找"] and 0 < q["syllabus_confidence"] <= 1 for q in rows)
    short = client.get("/api/questions", params={"chapter": "查找"}).json()
    run = cli("questions", "--chapter", "查找", "--json", data_dir=sample_data, timeout=120)
    assert run.returncode == 0, run.stderr
    assert short == rows == json.loads(run.stdout)


def test_every_question_row_has_its_syllabus_place_and_the_document_declares_it(client):
    rows = client.get("/api/questions").json()
    assert rows and all({"syllabus_path", "syllabus_confidence", "syllabus_paths"} <= set(q) for q in rows)
    placed = [q for q in rows if q["syllabus_path"]]
    assert len(placed) == len(rows)  # the sample's 8 records are all placed
    assert all(q["syllabus_path"] == q["syllabus_paths"][0] for q in placed)
    doc = client.get("/openapi.json").json()
    row = doc["components"]["schemas"]["QuestionRow"]
    assert {"syllabus_path", "syllabus_confidence", "syllabus_paths"} <= set(row["properties"])
    for path in ("/api/map", "/api/map/material"):
        responses = doc["paths"][path]["get"]["responses"]
        assert {"200", "400", "404", "422", "503"} <= set(responses), path
        assert "schema" in responses["200"]["content"]["application/json"], path


def test_a_node_narrows_the_map_and_says_what_it_resolved_to(client):
    whole = client.get("/api/map").json()
    search = _node(whole, "数据结构", "三、查找")
    by_text = client.get("/api/map", params={"node": "查找"}).json()
    by_id = client.get("/api/map", params={"node": search["node_id"]}).json()
    assert by_text["nodes"] == by_id["nodes"] and by_text["nodes"][0] == search
    assert {n["parent"] for n in by_text["nodes"][1:]} <= {n["node_id"] for n in by_text["nodes"]}
    assert by_text["chapter"]["path"] == ["数据结构", "三、查找"] and by_text["chapter"]["matches"] > 1  # (二)折半查找 too
    assert "取最高一级" in by_text["chapter"]["note"]
    for route in ("/api/map", "/api/map/material"):
        r = client.get(route, params={"node": "量子计算"})
        assert r.status_code == 404 and r.json()["error"] == "node_not_found", route
    assert client.get("/api/map/material").status_code == 422  # node is required
    assert client.get("/api/map/material", params={"node": "  "}).json()["error"] == "node_not_found"
    assert client.get("/api/map", params={"node": " "}).json() == whole  # blank: the whole map


def test_a_nodes_material_is_what_the_map_counts_and_opens_in_its_document(client):
    whole = client.get("/api/map").json()
    for n in (m for m in whole["nodes"] if m["level"] <= 2):
        data = client.get("/api/map/material", params={"node": n["node_id"]}).json()
        assert data["total"] == n["chunks"] == len(data["chunks"]), n["path"]
        sources = {}
        for c in data["chunks"]:
            sources[c["source"]] = sources.get(c["source"], 0) + 1
        assert sources == n["sources"], n["path"]
    data = client.get("/api/map/material", params={"node": "数据结构 › 三、查找 › 折半查找"}).json()
    assert data["path"] == ["数据结构", "三、查找", "(二)折半查找"] and data["total"] >= 1
    assert all(0 < c["syllabus_confidence"] <= 1 for c in data["chunks"])
    assert any("折半查找" in c["text"] for c in data["chunks"])
    first = data["chunks"][0]
    assert first["kind"] in ("textbook", "note") and first["citation"].startswith("[来源: ")
    info = client.get(f"/api/source/{first['doc_id']}", params={"chunk": first["chunk_id"]})
    assert info.status_code == 200 and info.json()["paged"]  # the handout PDF: the page opens with the passage boxed
    # reading order: (the file with most chunks on the node first, then) each file in index order: the
    # handout's pages ascending (the sample has one file per subject; files are ordered on the corpus)
    rows = client.get("/api/map/material", params={"node": "数据结构"}).json()["chunks"]
    assert {c["source"] for c in rows} == {"data/raw/数据结构复习讲义.pdf"}
    firsts = [c["pages"][0] for c in rows]
    assert firsts == sorted(firsts) and len(set(firsts)) > 2
    one = client.get("/api/map/material", params={"node": "数据结构", "limit": 2}).json()
    assert len(one["chunks"]) == 2 and one["total"] == _node(whole, "数据结构")["chunks"] > 2


def test_without_a_syllabus_the_map_says_so_and_questions_stay_unplaced(sample_data, tmp_path):
    data = tmp_path / "data"
    shutil.copytree(sample_data, data, ignore=shutil.ignore_patterns(".lock", "syllabus"))
    app, _ = make_app(data)
    with TestClient(app, base_url="http://127.0.0.1") as c:
        for route, params in (("/api/map", {}), ("/api/map/material", {"node": "查找"})):
            r = c.get(route, params=params)
            assert r.status_code == 404 and r.json()["error"] == "syllabus_missing", route
            assert "syllabus" in r.json()["detail"]
        rows = c.get("/api/questions").json()
        assert rows and all(q["syllabus_path"] is None and q["syllabus_confidence"] is None for q in rows)
        by_heading = c.get("/api/questions", params={"chapter": "查找"}).json()  # headings: 第七章 查找
        assert by_heading and all(any("查找" in h for h in q["chapter_paths"][0]) for q in by_heading)
        assert c.get("/map").status_code == 200  # the page still loads, and says there is no syllabus


@pytest.mark.parametrize("path", ["/map", "/static/map.js"])
def test_the_map_page_and_its_script_are_served_offline(client, path):
    r = client.get(path)
    assert r.status_code == 200
    if path == "/map":
        assert "/static/map.js" in r.text and "default-src 'self'" in r.headers["content-security-policy"]
    else:
        assert "http://" not in r.text and "https://" not in r.text
