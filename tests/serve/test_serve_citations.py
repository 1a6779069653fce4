"""The page viewer's routes open a merged record's booklet part: its pages are the part's there, and the
booklet is a document the record may be shown from even where the index could not place the part."""

from serve_helpers import events_of

from pipeline.serve.sources import cited_pages


def test_a_record_opens_in_its_booklet_on_the_solution_pages(client):
    answer = next(d for k, d in events_of(
        client.post("/api/ask", json={"question": "2024年第41题", "use_llm": False})) if k == "answer")
    target = answer["citations"][answer["record"]["citation"]]
    assert target["role"] == "solution" and target["doc_id"] != answer["hits"][0]["doc_id"]
    info = client.get(f"/api/source/{target['doc_id']}", params={"chunk": target["chunk_id"]}).json()
    assert info["cited_pages"] == target["pages"] and info["open_page"] in target["pages"]
    assert {b["page"] for b in info["highlight"]["boxes"]} <= set(target["pages"]) and info["highlight"]["boxes"]
    page = client.get(f"/api/source/{target['doc_id']}/page/{info['open_page']}.png", params={"chunk": target["chunk_id"]})
    assert page.status_code == 200 and int(page.headers["X-Highlight-Boxes"]) >= 1


def test_cited_pages_of_a_part_that_could_not_be_placed():
    chunk = {"doc_id": "paper", "pages": [4], "boxes": [],
             "parts": [{"role": "stem", "doc_id": "paper", "pages": [4]}, {"role": "solution", "doc_id": "booklet", "pages": [7, 8]}]}
    assert cited_pages(chunk, "paper") == [4] and cited_pages(chunk, "booklet") == [7, 8] and cited_pages(chunk, "other") == []
