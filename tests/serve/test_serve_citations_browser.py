"""Every citation chip an answer shows opens its page with the passage boxed, in a real browser (Debian's
chromium through selenium) against `python cli.py serve` on the ingested shipped sample: a past-paper
question answered by its record (whose answer is cited in the answer booklet, a document no hit is
from) and a question the fake LLM endpoint answers (原文要点, the checked sentences, 原文补充), both with
复习建议 (延伸问题 cite passages that are not among the hits), and the passages' own chips.

What a chip must open is read from the index itself, not from the page or the answer: the chunk or the
record part whose citation it is, its document and pages, and whether the index placed it (boxes).
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from PIL import Image
from serve_helpers import chromium_driver, require_chromium, serve_with_fake_endpoint

from pipeline.ask.service import QueryService
from pipeline.settings import load_settings

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts" / "browser"
WAIT = 30  # seconds for any one thing the page does

require_chromium()


@pytest.fixture
def served(sample_data, tmp_path):
    with serve_with_fake_endpoint(sample_data, tmp_path, delay=0.0, piece=8) as (server, _):
        yield server.url


@pytest.fixture
def browser(tmp_path):
    with chromium_driver(tmp_path / "chromium-profile", window="1400,1000") as driver:
        yield driver


def _cited_places(data_dir: Path) -> dict[str, list[dict]]:
    """Citation text → where it may open, from the live index: {doc_id, pages, placed, paged} per chunk
    (or merged-record part) that carries it."""
    catalog = QueryService(load_settings(data_dir=data_dir, llm_backend="none")).retriever().catalog
    places: dict[str, list[dict]] = {}
    for c in catalog.all_chunks():
        cited = [(p.citation, p.doc_id, p.pages) for p in c.parts] + [(c.citation(), c.doc_id, c.pages)]
        for text, doc, pages in dict.fromkeys((t, d, tuple(p)) for t, d, p in cited):
            places.setdefault(text, []).append({"doc_id": doc, "pages": list(pages), "paged": bool(pages),
                                                "placed": any(b.doc_id == doc and b.page in pages for b in c.boxes)})
    return places


def _yellow(png: bytes) -> int:
    img = Image.open(io.BytesIO(png)).convert("RGB")
    return sum(1 for r, g, b in img.getdata() if r > 220 and g > 150 and b < 200 and r - b > 50)


def _until(driver, cond, what: str, timeout: float = WAIT):
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, timeout, poll_frequency=0.05).until(lambda d: cond(d), message=what)


def _ask(d, url: str, question: str):
    from selenium.webdriver.common.by import By

    d.get(url + "/")
    _until(d, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#chapter option")) > 3, "chapter tree loaded")
    extras = d.find_element(By.ID, "want-extras")
    if not extras.is_selected():
        extras.click()
    d.find_element(By.ID, "follow-up").click()  # each question on its own, not as a follow-up
    d.find_element(By.ID, "question").send_keys(question)
    d.find_element(By.ID, "ask-button").click()
    answer = d.find_element(By.ID, "answer")
    _until(d, lambda d: answer.get_attribute("data-state") in ("done", "error"), "answer event", timeout=90)
    assert answer.get_attribute("data-state") == "done", d.find_element(By.ID, "ask-status").text
    claims = d.find_element(By.ID, "claims-box")
    if claims.is_displayed():
        claims.find_element(By.TAG_NAME, "summary").click()  # the checked sentences' chips
    return answer


def _open_every_chip(d, places: dict[str, list[dict]], name: str) -> dict[str, dict]:
    """Click every chip of the answer, the checks, the extras and the passages; each must open where the
    index says its citation is: the page with a box drawn when the index placed it. The opened place per
    area and citation."""
    from selenium.webdriver.common.by import By

    assert not d.find_elements(By.CSS_SELECTOR, ".chip.unmatched"), \
        [c.get_attribute("data-citation") for c in d.find_elements(By.CSS_SELECTOR, ".chip.unmatched")]
    img = d.find_element(By.ID, "page-image")
    opened: dict[str, dict] = {}
    for area in ("answer", "claims", "extras", "hits"):
        for i, chip in enumerate(d.find_elements(By.CSS_SELECTOR, f"#{area} button.chip")):
            citation = chip.get_attribute("data-citation")
            assert citation in places, citation
            d.execute_script("for (const k of ['doc', 'page', 'highlight', 'boxes']) delete arguments[0].dataset[k];"
                             "document.getElementById('section-text').textContent = '';", img)
            d.execute_script("arguments[0].scrollIntoView({block: 'center'})", chip)
            chip.click()
            if not any(p["paged"] for p in places[citation]):  # a note: its section, the passage marked
                _until(d, lambda d: d.find_elements(By.CSS_SELECTOR, "#section-text mark"), f"{citation}: section")
                assert not img.is_displayed()
                opened[f"{area}:{citation}"] = {"doc_id": None}
                continue
            _until(d, lambda d: img.get_attribute("data-doc") and img.is_displayed() and d.execute_script(
                "return arguments[0].complete && arguments[0].naturalWidth > 0", img), f"{citation}: page shown")
            doc, page = img.get_attribute("data-doc"), int(img.get_attribute("data-page"))
            where = [p for p in places[citation] if p["doc_id"] == doc and page in p["pages"]]
            assert where, (citation, doc, page, places[citation])
            assert d.find_element(By.ID, "source-title").text == citation[4:-1].strip()
            if where[0]["placed"]:
                assert img.get_attribute("data-highlight") == "boxes" and int(img.get_attribute("data-boxes")) >= 1, citation
                d.execute_script("arguments[0].scrollIntoView()", img)
                png = img.screenshot_as_png
                assert _yellow(png) > 300, citation  # the box is there in what the student sees
                if i == 0:
                    (ARTIFACTS / f"chips-{name}-{area}.png").write_bytes(png)
            else:  # the index could not place it (a table rewritten as 字段：值): shown unmarked, and said so
                assert img.get_attribute("data-highlight") == "none" and "未能可靠定位" in d.find_element(By.ID, "highlight-note").text
            opened[f"{area}:{citation}"] = {"doc_id": doc, "page": page, "placed": where[0]["placed"]}
    return opened


@pytest.mark.timeout(400)
def test_every_citation_chip_opens_its_page_with_the_passage_boxed(served, browser, sample_data):
    from selenium.webdriver.common.by import By

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    places = _cited_places(sample_data)
    d = browser

    # a past-paper question answered by its record: the answer is cited in the booklet, which no hit is from
    answer = _ask(d, served, "2024年第41题")
    assert answer.get_attribute("data-source") == "record"
    d.save_screenshot(str(ARTIFACTS / "chips-record-answer.png"))
    record_chips = answer.find_elements(By.CSS_SELECTOR, "button.chip")
    booklet = [c.get_attribute("data-citation") for c in record_chips if "参考答案" in c.get_attribute("data-citation")]
    assert booklet, answer.get_attribute("innerHTML")
    opened = _open_every_chip(d, places, "record")
    booklet_doc = opened[f"answer:{booklet[0]}"]
    hit_docs = {o["doc_id"] for k, o in opened.items() if k.startswith("hits:")}
    assert booklet_doc["placed"] and booklet_doc["doc_id"] not in hit_docs
    assert any(k.startswith("extras:") for k in opened)  # 延伸问题: passages outside the hits
    d.save_screenshot(str(ARTIFACTS / "chips-record-booklet-page.png"))

    # a generated answer: 原文要点, the checked sentences and 原文补充, each chip on its page
    answer = _ask(d, served, "二叉排序树的查找效率取决于什么？")
    assert answer.get_attribute("data-source") == "llm"
    opened = _open_every_chip(d, places, "generated")
    in_answer = [o for k, o in opened.items() if k.startswith("answer:")]
    assert in_answer and all(o["placed"] for o in in_answer)
    assert any(k.startswith("claims:") for k in opened) and any(k.startswith("extras:") for k in opened)
    assert any(not o.get("placed", True) or o["doc_id"] is None for k, o in opened.items() if k.startswith("hits:")), \
        "the sample's hits include an unplaced table passage and a note: both must open too"
