"""`cli.py serve`: the JSON API equals the CLI's --json, SSE answers, auth, errors, page images with
highlights, offline docs; in-process (TestClient). The queue and cancellation, on a real uvicorn:
test_serve_queue.py; the hardening: test_serve_limits.py; the OpenAPI contract: test_serve_contract.py."""

from __future__ import annotations

import io
import json
import shutil
import sqlite3
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from PIL import Image

from pipeline.ask.service import QueryService, answer_json
from pipeline.llm.fake import FakeLlm
from pipeline.serve.run import BindRefused, check_bind
from pipeline.settings import load_settings
from serve_helpers import GENERATED, copied_reply, events_of, make_app

ROOT = Path(__file__).resolve().parents[2]
TEXTBOOK = "数据结构复习讲义.pdf"
SCANNED = "2024年计算机专业基础综合模拟卷_扫描版.pdf"
NOTE = "操作系统笔记.md"


# ---------------------------------------------------------------------------- same shapes as the CLI
@pytest.mark.parametrize("question, chapter", [("B树和B+树的区别是什么", None), ("折半查找的时间复杂度", "查找"),
                                               ("2024年第41题", None)])
def test_search_is_exactly_ask_json_no_llm(client, cli, sample_data, question, chapter):
    args = ["ask", "--json", "--no-llm", question] + (["--chapter", chapter] if chapter else [])
    expected = json.loads(cli(*args, data_dir=sample_data).stdout)
    r = client.get("/api/search", params={"q": question, **({"chapter": chapter} if chapter else {})})
    assert r.status_code == 200 and r.headers["content-type"] == "application/json"
    got = r.json()
    assert set(got.pop("timings")) == set(expected.pop("timings")) >= {"total"}  # seconds differ run to run
    assert got == expected


def test_lists_are_the_cli_json(client, cli, sample_data):
    assert client.get("/api/chapters").json() == json.loads(cli("chapters", "--json", data_dir=sample_data).stdout)
    assert client.get("/api/questions", params={"chapter": "查找"}).json() == json.loads(
        cli("questions", "--json", "--chapter", "查找", data_dir=sample_data).stdout)
    status = client.get("/api/status").json()
    assert status == json.loads(cli("status", "--json", data_dir=sample_data).stdout)
    assert all(d["errors"] == [] for d in status["documents"])


# ---------------------------------------------------------------------------- SSE answers
def test_ask_streams_tokens_then_one_answer_event(client, sample_data):
    question = GENERATED
    r = client.post("/api/ask", json={"question": question})
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/event-stream")
    events = events_of(r)
    kinds = [k for k, _ in events]
    # the grounded core first, then the generated answer sentence by sentence, each checked before it is sent
    assert kinds[-1] == "answer" and kinds.count("answer") == 1 and set(kinds[:-1]) == {"token"} and len(kinds) >= 3
    streamed = "".join(d["text"] for k, d in events if k == "token")
    answer = events[-1][1]
    settings = load_settings(data_dir=sample_data, llm_backend="none")
    expected = answer_json(QueryService(settings, llm=FakeLlm(lambda s, u: copied_reply(u))).ask(question))
    assert answer.pop("timings")["total"] > 0 and expected.pop("timings")["llm"] >= 0  # seconds differ run to run
    assert answer == expected
    assert streamed == answer["text"] and answer["answer"] in streamed and "[来源:" in streamed
    assert {h["citation"] for h in answer["hits"]} >= set(__import__("re").findall(r"\[来源: [^\]]+\]", streamed))


def test_without_an_llm_the_answer_event_has_the_passages_and_the_note(sample_data):
    app, _ = make_app(sample_data)  # backend none
    with TestClient(app, base_url="http://127.0.0.1") as c:
        events = events_of(c.post("/api/ask", json={"question": "折半查找的时间复杂度"}))
    # the grounded core is streamed (there is no model to wait for), then the answer object
    assert [k for k, _ in events] == ["token", "answer"] and events[0][1]["text"].startswith("原文要点")
    answer = events[1][1]
    assert answer["answer"] is None and answer["text"] == events[0][1]["text"] and answer["key_sentences"]
    assert answer["hits"] and "EXAMRAG_LLM_BACKEND=none" in answer["note"]


# ---------------------------------------------------------------------------- auth and binding
def test_a_token_guards_every_api_route_but_not_the_page(sample_data):
    app, _ = make_app(sample_data, api_token="s3cret-token")
    with TestClient(app, base_url="http://127.0.0.1") as c:
        for path in ("/api/search?q=B树", "/api/chapters", "/api/status", "/api/nope"):
            r = c.get(path)
            assert r.status_code == 401 and r.json()["error"] == "unauthorized" and r.headers["www-authenticate"] == "Bearer"
        assert c.get("/api/chapters", headers={"Authorization": "Bearer wrong"}).status_code == 401
        assert c.post("/api/ask", json={"question": "x" * 600}).status_code == 401  # 401 before validation
        assert c.get("/api/chapters", headers={"Authorization": "Bearer s3cret-token"}).status_code == 200
        assert c.get("/").status_code == 200 and c.get("/static/app.js").status_code == 200


def test_beyond_loopback_without_a_token_exits_2_in_one_line(cli, tmp_path):
    r = cli("serve", "--host", "0.0.0.0", "--port", "18499", data_dir=tmp_path)
    assert r.returncode == 2, r.stdout + r.stderr
    assert r.stderr.strip().count("\n") == 0 and "EXAMRAG_API_TOKEN" in r.stderr
    for host in ("127.0.0.1", "localhost", "::1", "127.0.0.2"):
        check_bind(host, None)
    check_bind("0.0.0.0", "token")
    with pytest.raises(BindRefused):
        check_bind("192.168.1.5", None)


def test_a_foreign_host_header_is_refused_on_loopback(client):
    r = client.get("/api/chapters", headers={"Host": "attacker.example"})
    assert r.status_code == 400 and r.json()["error"] == "bad_host"  # DNS rebinding
    assert client.get("/api/chapters", headers={"Host": "localhost:8408"}).status_code == 200


# ---------------------------------------------------------------------------- errors
def test_a_question_over_500_characters_is_422(client):
    long = "查" * 501
    for r in (client.get("/api/search", params={"q": long}), client.post("/api/ask", json={"question": long})):
        assert r.status_code == 422
        body = r.json()
        assert body["error"] == "invalid_request" and "500" in body["detail"] and set(body) == {"error", "detail"}
    assert client.get("/api/search", params={"q": "查" * 500}).status_code == 200


def test_errors_are_json_with_error_and_detail(client, sample_data):
    hits = client.get("/api/search", params={"q": "折半查找的时间复杂度", "k": 3}).json()["hits"]
    pdf_hit = next(h for h in hits if h["source"].endswith(TEXTBOOK))
    note_hit = client.get("/api/search", params={"q": "进程和线程的区别"}).json()["hits"][0]
    assert note_hit["source"].endswith(NOTE)
    cases = [
        (client.get("/api/search", params={"q": "折半查找", "chapter": "查早"}), 404, "chapter_not_found"),
        (client.post("/api/ask", json={"question": "折半查找", "chapter": "查早"}), 404, "chapter_not_found"),
        (client.get("/api/source/0000000000000000/page/1.png"), 404, "document_not_found"),
        (client.get(f"/api/source/{pdf_hit['doc_id']}/page/1.png", params={"chunk": "nochunk"}), 404, "chunk_not_found"),
        (client.get(f"/api/source/{pdf_hit['doc_id']}/page/99.png"), 404, "page_not_found"),
        (client.get(f"/api/source/{note_hit['doc_id']}/page/1.png"), 400, "not_paged"),
        (client.get(f"/api/source/{note_hit['doc_id']}/section", params={"chunk": pdf_hit["chunk_id"]}), 400, "chunk_not_in_document"),
        (client.get(f"/api/source/{pdf_hit['doc_id']}/page/x.png"), 422, "invalid_request"),
        (client.get("/api/search", params={"q": "B树", "k": 0}), 422, "invalid_request"),
        (client.post("/api/ask", content=b"not json", headers={"Content-Type": "application/json"}), 422, "invalid_request"),
        (client.get("/api/nothing-here"), 404, "not_found"),
        (client.post("/api/nothing-here"), 404, "not_found"),
        (client.delete("/api/chapters"), 405, "method_not_allowed"),
        (client.get("/api/ask"), 405, "method_not_allowed"),
        (client.post("/static/app.js"), 405, "method_not_allowed"),
    ]
    for r, status, error in cases:
        assert (r.status_code, r.json()["error"]) == (status, error), r.text
        assert isinstance(r.json()["detail"], str) and r.json()["detail"]
        if status == 405:
            assert r.headers["allow"]  # which methods the path does take
    assert "第七章 查找" in cases[0][0].json()["close"]
    assert cases[-3][0].headers["allow"] == "GET" and cases[-2][0].headers["allow"] == "POST"


def test_no_index_is_503(tmp_path):
    app, _ = make_app(tmp_path / "empty")
    with TestClient(app, base_url="http://127.0.0.1") as c:
        for r in (c.get("/api/search", params={"q": "B树"}), c.get("/api/chapters"), c.post("/api/ask", json={"question": "B树"})):
            assert r.status_code == 503 and r.json()["error"] == "index_missing" and "ingest" in r.json()["detail"]


# ---------------------------------------------------------------------------- page images and sections
def _png(r) -> Image.Image:
    assert r.status_code == 200 and r.headers["content-type"] == "image/png", r.text
    return Image.open(io.BytesIO(r.content)).convert("RGB")


def _yellow(img: Image.Image, box=None) -> int:
    """Pixels of the highlight's yellow tint over paper (white, grey and black pixels never count)."""
    region = img.crop(box) if box else img
    return sum(1 for r, g, b in region.getdata() if r > 220 and g > 150 and b < 200 and r - b > 50)


def test_the_page_of_a_text_pdf_passage_is_highlighted(client):
    hits = client.get("/api/search", params={"q": "折半查找的时间复杂度", "k": 5}).json()["hits"]
    hit = next(h for h in hits if h["source"].endswith(TEXTBOOK) and h["boxes"])
    info = client.get(f"/api/source/{hit['doc_id']}", params={"chunk": hit["chunk_id"]}).json()
    assert info["paged"] and info["highlight"]["method"] == "boxes" and info["open_page"] in hit["pages"]
    n = info["open_page"]
    marked = client.get(f"/api/source/{hit['doc_id']}/page/{n}.png", params={"chunk": hit["chunk_id"]})
    plain = client.get(f"/api/source/{hit['doc_id']}/page/{n}.png")
    assert marked.headers["x-highlight"] == "boxes" and int(marked.headers["x-highlight-boxes"]) >= 1
    assert plain.headers["x-highlight"] == "none"
    a, b = _png(marked), _png(plain)
    assert a.size == b.size and _yellow(b) == 0 and _yellow(a) > 500
    box = info["highlight"]["boxes"][0]  # the first box's area is tinted, in page points × zoom 1.5
    assert _yellow(a, tuple(int(v * 1.5) for v in (box["x0"], box["y0"], box["x1"], box["y1"]))) > 50


def test_a_scanned_page_is_highlighted_from_its_ocr_boxes(client):
    hit = client.get("/api/search", params={"q": "2024年第4题", "k": 1}).json()["hits"][0]
    assert hit["source"].endswith(SCANNED) and hit["boxes"]
    r = client.get(f"/api/source/{hit['doc_id']}/page/{hit['pages'][0]}.png", params={"chunk": hit["chunk_id"]})
    assert r.headers["x-highlight"] == "boxes" and _yellow(_png(r)) > 500


def test_a_passage_the_index_could_not_place_is_shown_unmarked(client):
    """The table chunk of 7.2 was rewritten as 字段：值: no boxes, so no highlight rather than a guess."""
    hits = client.get("/api/search", params={"q": "折半查找的时间复杂度", "k": 5}).json()["hits"]
    hit = next(h for h in hits if h["source"].endswith(TEXTBOOK) and not h["boxes"])
    r = client.get(f"/api/source/{hit['doc_id']}/page/{hit['pages'][0]}.png", params={"chunk": hit["chunk_id"]})
    assert r.headers["x-highlight"] == "none" and _yellow(_png(r)) == 0
    info = client.get(f"/api/source/{hit['doc_id']}", params={"chunk": hit["chunk_id"]}).json()
    assert info["highlight"]["method"] == "none" and info["highlight"]["reason"] and info["open_page"] == hit["pages"][0]


@pytest.fixture
def boxed_index(sample_data, tmp_path):
    """A copy of the sample whose catalog rows carry `boxes`, as an index built by parse-boxes does."""
    data = tmp_path / "data"
    shutil.copytree(sample_data, data)
    gen = json.loads((data / "index" / "current.json").read_text())["generation"]
    return data, data / "index" / gen / "chunks.sqlite"


def _set_boxes(catalog: Path, chunk_id: str, boxes) -> None:
    db = sqlite3.connect(catalog)
    body = json.loads(db.execute("SELECT body FROM chunks WHERE chunk_id=?", (chunk_id,)).fetchone()[0])
    body["boxes"] = boxes
    db.execute("UPDATE chunks SET body=? WHERE chunk_id=?", (json.dumps(body, ensure_ascii=False), chunk_id))
    db.commit()
    db.close()


def test_boxes_from_the_index_are_drawn_and_an_empty_list_means_unmarked(boxed_index):
    data, catalog = boxed_index
    db = sqlite3.connect(catalog)
    rows = {json.loads(b)["source"]: json.loads(b) for (b,) in db.execute("SELECT body FROM chunks")}
    db.close()
    scanned = rows[f"data/raw/{SCANNED}"]
    textbook = next(c for c in rows.values() if c["source"].endswith(TEXTBOOK) and c["pages"])
    page = scanned["pages"][0]
    _set_boxes(catalog, scanned["chunk_id"], [{"doc_id": scanned["doc_id"], "page": page, "x0": 100, "y0": 200, "x1": 400, "y1": 230},
                                             {"doc_id": "someotherdoc0000", "page": page, "x0": 0, "y0": 0, "x1": 50, "y1": 50}])
    _set_boxes(catalog, textbook["chunk_id"], [])  # the indexer could not place it: trust that
    app, _ = make_app(data)
    with TestClient(app, base_url="http://127.0.0.1") as c:
        r = c.get(f"/api/source/{scanned['doc_id']}/page/{page}.png", params={"chunk": scanned["chunk_id"]})
        assert r.headers["x-highlight"] == "boxes" and r.headers["x-highlight-boxes"] == "1"
        img = _png(r)
        assert _yellow(img, (150, 300, 600, 345)) > 0.5 * 450 * 45  # the box, × zoom 1.5
        assert _yellow(img, (0, 0, 75, 75)) == 0  # the other document's box is not drawn here
        other = c.get(f"/api/source/{scanned['doc_id']}/page/{page}.png", params={"chunk": scanned["chunk_id"], "zoom": 1})
        assert _png(other).size[0] < img.size[0]
        t = c.get(f"/api/source/{textbook['doc_id']}/page/{textbook['pages'][0]}.png", params={"chunk": textbook["chunk_id"]})
        assert t.headers["x-highlight"] == "none" and _yellow(_png(t)) == 0
        _set_boxes(catalog, scanned["chunk_id"], [{"page": page, "x0": 100, "y0": 200, "x1": 4000, "y1": 230}])
    app, _ = make_app(data)  # a box off the page: nothing is drawn rather than something wrong
    with TestClient(app, base_url="http://127.0.0.1") as c:
        r = c.get(f"/api/source/{scanned['doc_id']}/page/{page}.png", params={"chunk": scanned["chunk_id"]})
        assert r.headers["x-highlight"] == "none" and _yellow(_png(r)) == 0


def test_a_note_section_has_the_passage_marked(client):
    hit = client.get("/api/search", params={"q": "进程和线程的区别"}).json()["hits"][0]
    sec = client.get(f"/api/source/{hit['doc_id']}/section", params={"chunk": hit["chunk_id"]}).json()
    assert sec["context"] == "section" and sec["chapter_path"] == hit["chapter_path"]
    assert sec["text"][sec["mark"]["start"]:sec["mark"]["end"]] == hit["text"]
    info = client.get(f"/api/source/{hit['doc_id']}", params={"chunk": hit["chunk_id"]}).json()
    assert info["paged"] is False


def test_a_question_section_opens_its_textbook_passages(client):
    q = next(q for q in client.get("/api/questions").json() if q["chapter_paths"])
    r = client.get("/api/section", params={"path": " › ".join(q["chapter_paths"][0])})
    assert r.status_code == 200 and r.json()["chunks"] and r.json()["chunks"][0]["chapter_path"] == q["chapter_paths"][0]
    assert client.get("/api/section", params={"path": "没有这一节"}).status_code == 404


# ---------------------------------------------------------------------------- offline page and docs
def _local_refs(html: str) -> list[str]:
    import re

    return re.findall(r'(?:src|href)=["\']([^"\']+)["\']', html)


def test_the_page_and_the_docs_load_nothing_from_the_network(client):
    page = client.get("/practice")
    assert page.status_code == 200 and "default-src 'self'" in page.headers["content-security-policy"]
    docs = client.get("/docs")
    assert docs.status_code == 200 and "swagger-ui" in docs.text
    for html in (page.text, docs.text):
        refs = _local_refs(html)
        assert refs and all(r.startswith("/") and not r.startswith("//") for r in refs), refs
        for ref in refs:
            assert client.get(ref).status_code == 200, ref
    js = client.get("/static/app.js").text + client.get("/static/app.css").text
    assert "http://" not in js and "https://" not in js and "@import" not in js
    spec = client.get("/openapi.json").json()
    assert {"/api/search", "/api/ask", "/api/chapters", "/api/questions", "/api/status",
            "/api/source/{doc_id}/page/{n}.png", "/api/source/{doc_id}/section"} <= set(spec["paths"])


def test_the_server_answers_while_an_ingest_holds_the_data_dir(client, sample_data):
    from pipeline.store import Store

    with Store(sample_data).lock():  # what `cli.py ingest` holds while it runs
        assert client.get("/api/search", params={"q": "B树"}).status_code == 200
        assert client.get("/api/status").status_code == 200
        assert [k for k, _ in events_of(client.post("/api/ask", json={"question": "B树和B+树的区别"}))][-1] == "answer"


@pytest.mark.parametrize("question", ["B树和B+树的区别是什么", "2024年第41题", "2022年世界杯冠军是哪个国家"])
def test_an_ask_retrieves_once(sample_data, question):
    """Generated, answered from its record, or refused: one retrieval per /api/ask (there were two: a
    quick check before the queue, then the answer's own)."""
    app, _ = make_app(sample_data, llm=FakeLlm(lambda system, user: copied_reply(user)))
    retriever = app.state.service.retriever()
    searches = []
    real = retriever.search
    retriever.search = lambda *a, **k: searches.append(a) or real(*a, **k)
    with TestClient(app, base_url="http://127.0.0.1") as c:
        events = events_of(c.post("/api/ask", json={"question": question}))
    # a contrast's sides are searched on their own too (BM25, for its table): not a second retrieval
    assert events[-1][0] == "answer" and [s for s in searches if s[0] == question] == [(question,)], (events[-1], searches)
