"""The study loop as a new student walks it, in a real browser (Debian's chromium + chromium-driver via
selenium) against `python cli.py serve` on the ingested shipped sample: practise 5 choice questions
on /practice and get 2 wrong, find those 2 in /mistakes (and only one when filtered by a node), see
them due in /review and review one, and see the progress API's mastery change.

Screenshots (palette PNGs, a few tens of KB) go to bench/results/study_walkthrough/. The study
database is the test's own and the clock is fixed (EXAMRAG_STUDY_NOW), so "due today" is stable.
"""

from __future__ import annotations

import io
import time
from pathlib import Path

import httpx
import pytest
from PIL import Image
from serve_helpers import ServeProcess, chromium_driver, require_chromium

ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / "bench" / "results" / "study_walkthrough"
NOW = "2026-03-02T08:00:00+00:00"
PICKS = {"2024-1": "A", "2024-2": "C", "2024-3": "A", "2024-4": "D", "2024-5": "B"}  # 2024-1 and 2024-4 wrong

require_chromium()


@pytest.fixture
def server(sample_data, tmp_path):
    env = {"EXAMRAG_LLM_BACKEND": "none", "EXAMRAG_STUDY_DB": str(tmp_path / "study.sqlite"), "EXAMRAG_STUDY_NOW": NOW}
    with ServeProcess(sample_data, tmp_path / "serve.log", env=env) as served:
        yield served


@pytest.fixture
def browser(tmp_path):
    with chromium_driver(tmp_path / "chromium-profile", window="1100,900") as driver:
        yield driver


def _until(driver, cond, timeout=60, what=""):
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, timeout, poll_frequency=0.05).until(lambda d: cond(d), message=what)


def _shot(driver, name: str) -> None:
    """A small screenshot: the page as the student sees it, as a 64-colour palette PNG."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    img = Image.open(io.BytesIO(driver.get_screenshot_as_png())).convert("RGB")
    img.quantize(colors=64).save(SHOTS / name, optimize=True)


def _items(d, css):
    from selenium.webdriver.common.by import By

    return {e.get_attribute("data-item"): e for e in d.find_elements(By.CSS_SELECTOR, css)}


def test_practise_five_two_wrong_see_them_in_mistakes_and_due_in_review(server, browser):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    d = browser
    before = httpx.get(server.url + "/api/progress", timeout=60).json()
    assert before["attempts"] == 0

    # /map before: no node carries a mastery mark
    d.get(server.url + "/map")
    _until(d, lambda d: d.find_elements(By.CSS_SELECTOR, "#map-heat tr[data-node]"), what="map rendered")
    time.sleep(0.5)  # the progress request of the mastery hook
    assert not d.find_elements(By.CSS_SELECTOR, "#map-heat tr[data-mastery]")

    # /practice: five choice questions, never attempted first; pick, submit, graded against the booklet
    d.get(server.url + "/practice")
    _until(d, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#practice-chapter option")) > 3, what="chapters loaded")
    Select(d.find_element(By.ID, "practice-type")).select_by_value("choice")
    limit = d.find_element(By.ID, "practice-limit")
    limit.clear()
    limit.send_keys("5")
    d.find_element(By.CSS_SELECTOR, "#practice-form button[type=submit]").click()
    _until(d, lambda d: len(_items(d, "#practice-list .study-item")) == 5, what="five questions listed")
    cards = _items(d, "#practice-list .study-item")
    assert list(cards) == list(PICKS)
    _shot(d, "1-practice.png")
    for item, pick in PICKS.items():
        card = cards[item]
        d.execute_script("arguments[0].scrollIntoView({block: 'center'})", card)
        card.find_element(By.CSS_SELECTOR, f"input[type=radio][value={pick}]").click()
        card.find_element(By.CSS_SELECTOR, "button.submit").click()
        _until(d, lambda d: card.get_attribute("data-verdict"), what=f"{item} graded")
    verdicts = {item: cards[item].get_attribute("data-verdict") for item in PICKS}
    assert [i for i, v in verdicts.items() if v == "wrong"] == ["2024-1", "2024-4"], verdicts
    wrong = cards["2024-1"].find_element(By.CSS_SELECTOR, ".q-result")
    assert "答错了" in wrong.text and "正确答案" in wrong.text and "已加入错题本" in wrong.text
    assert "已做 5 · 错 2" in d.find_element(By.ID, "practice-status").text
    d.execute_script("arguments[0].scrollIntoView({block: 'center'})", cards["2024-4"])
    _shot(d, "2-practice-graded.png")

    # /mistakes: the two wrong ones, with the booklet's answer; a node filter keeps the one on it
    d.find_element(By.CSS_SELECTOR, "nav a[data-view=mistakes]").click()
    _until(d, lambda d: len(_items(d, "#mistakes-list .mistake")) == 2, what="two mistakes")
    assert set(_items(d, "#mistakes-list .mistake")) == {"2024-1", "2024-4"}
    assert all(e.find_element(By.CSS_SELECTOR, ".q-answer").text.startswith("答案")
               for e in _items(d, "#mistakes-list .mistake").values())
    _shot(d, "3-mistakes.png")
    d.find_element(By.ID, "mistakes-node").send_keys("树表的查找")
    d.find_element(By.CSS_SELECTOR, "#mistakes-form button[type=submit]").click()
    _until(d, lambda d: set(_items(d, "#mistakes-list .mistake")) == {"2024-4"}, what="filtered by node")

    # /review: both due today; review 2024-1 right now
    d.find_element(By.CSS_SELECTOR, "nav a[data-view=review]").click()
    _until(d, lambda d: {"2024-1", "2024-4"} <= set(_items(d, "#review-list .due")), what="due in review")
    assert "今天待复习" in d.find_element(By.ID, "review-status").text
    assert d.find_elements(By.CSS_SELECTOR, "#review-next li"), "下一步复习 listed"
    _shot(d, "4-review.png")
    due = _items(d, "#review-list .due")["2024-1"]
    due.find_element(By.CSS_SELECTOR, "input[type=radio][value=B]").click()
    due.find_element(By.CSS_SELECTOR, "button.submit").click()
    _until(d, lambda d: due.get_attribute("data-verdict") == "right", what="review graded")
    _shot(d, "5-reviewed.png")

    after = httpx.get(server.url + "/api/progress", timeout=60).json()
    assert after["attempts"] == 6 and after["wrong"] == 2
    assert any(n["mastery"] > 0 for n in after["nodes"]) and not any(n["mastery"] > 0 for n in before["nodes"])
    tested = [n for n in (after["by_node_id"] or {}).values() if n["attempted"]]
    assert tested and any(n["mastery"] and n["mastery"] > 0 for n in tested)

    # /map after: exactly the attempted nodes are marked, with the API's mastery
    d.find_element(By.CSS_SELECTOR, "nav a[data-view=map]").click()
    marked_ids = {n["node_id"] for n in tested if n["mastery"] is not None}
    _until(d, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#map-heat tr[data-mastery]")) == len(marked_ids),
           what="mastery on the map")
    rows = d.find_elements(By.CSS_SELECTOR, "#map-heat tr[data-mastery]")
    assert {r.get_attribute("data-node") for r in rows} == marked_ids
    assert all("掌握" in r.find_element(By.CSS_SELECTOR, "th.node").get_attribute("textContent") for r in rows)  # collapsed rows too
    _shot(d, "6-map-mastery.png")
    assert len(list(SHOTS.glob("*.png"))) >= 6 and all(p.stat().st_size < 200_000 for p in SHOTS.glob("*.png"))
