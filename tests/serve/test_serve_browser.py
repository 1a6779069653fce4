"""The page in a real browser: Debian's chromium + chromium-driver, driven by selenium, against
`python cli.py serve` started as a subprocess on the ingested shipped sample.

The LLM is an OpenAI-compatible fake endpoint on 127.0.0.1 (tests/serve/serve_helpers.py) that streams
an answer citing the passages it was given, a few characters every 50 ms, so streaming is visible;
the answer path is the real one (`EXAMRAG_LLM_BACKEND=openai`). Screenshots go to
test-artifacts/browser/ (git-ignored). CI (`.ci/run`) installs chromium; there a missing browser fails
the test instead of skipping it.
"""

from __future__ import annotations

import io
import time
from pathlib import Path

import httpx
import pytest
from PIL import Image
from serve_helpers import GENERATED, chromium_driver, require_chromium, serve_with_fake_endpoint, wait_until

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts" / "browser"

require_chromium()


@pytest.fixture
def server(sample_data, tmp_path):
    """`cli.py serve` on a free loopback port with the fake endpoint as its LLM (the study database apart)."""
    with serve_with_fake_endpoint(sample_data, tmp_path, delay=0.05, piece=3) as (served, endpoint):
        yield served.url, endpoint


@pytest.fixture
def browser(tmp_path):
    with chromium_driver(tmp_path / "chromium-profile", window="1400,1000") as driver:
        yield driver


def _shot(driver, name: str) -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / name
    driver.save_screenshot(str(path))
    return path


def _until(driver, cond, timeout=60, what=""):
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, timeout, poll_frequency=0.05).until(lambda d: cond(d), message=what)


def _yellow(png: bytes) -> int:
    img = Image.open(io.BytesIO(png)).convert("RGB")
    return sum(1 for r, g, b in img.getdata() if r > 220 and g > 150 and b < 200 and r - b > 50)


def test_ask_stream_click_a_citation_see_the_marked_page_practice_and_status(server, browser):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    url, endpoint = server
    d = browser
    d.get(url + "/")
    _until(d, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#chapter option")) > 3, what="chapter tree loaded")
    d.find_element(By.ID, "question").send_keys("二叉排序树的查找效率取决于什么？")
    d.find_element(By.ID, "ask-button").click()

    # the answer streams in: several token events arrive before the answer event
    answer = d.find_element(By.ID, "answer")
    _until(d, lambda d: answer.get_attribute("data-state") == "streaming", what="streaming started")
    _shot(d, "1-streaming.png")
    partial = answer.text
    _until(d, lambda d: answer.get_attribute("data-state") == "done", what="answer event")
    # the grounded core comes first, then the generated answer, checked sentence by sentence
    assert int(answer.get_attribute("data-tokens")) >= 2 and len(answer.text) > len(partial) > 0
    assert answer.get_attribute("data-source") == "llm"
    chips = answer.find_elements(By.CSS_SELECTOR, "button.chip")
    assert chips, answer.get_attribute("innerHTML")
    assert not answer.find_elements(By.CSS_SELECTOR, ".chip.unmatched")
    assert len(d.find_elements(By.CSS_SELECTOR, "#hits li")) == 5
    _shot(d, "2-answer-with-citation-chips.png")

    # a chip opens the source panel on the cited page, with the passage marked (a textbook chip: the
    # scanned paper's pages have no text layer to place a passage on, so they show unmarked)
    textbook = [c for c in chips if "数据结构复习讲义.pdf" in c.get_attribute("title")]
    assert textbook, [c.get_attribute("title") for c in chips]
    img = d.find_element(By.ID, "page-image")
    for chip in textbook:  # a passage the index could not place (a table rewritten as 字段：值) opens unmarked
        chip.click()
        _until(d, lambda d: img.is_displayed() and d.execute_script(
            "return arguments[0].complete && arguments[0].naturalWidth", img), what="page image loaded")
        _until(d, lambda d: img.get_attribute("data-highlight") in ("boxes", "none"), what="highlight decided")
        if img.get_attribute("data-highlight") == "boxes":
            break
    assert img.get_attribute("data-highlight") == "boxes"
    assert int(img.get_attribute("data-boxes")) >= 1
    assert "黄色框" in d.find_element(By.ID, "highlight-note").text
    d.execute_script("arguments[0].scrollIntoView()", img)
    page_png = img.screenshot_as_png
    (ARTIFACTS / "3-cited-page.png").write_bytes(page_png)
    assert _yellow(page_png) > 300  # the highlight box is visible in what the student sees
    _shot(d, "3-source-panel.png")
    assert d.find_element(By.CSS_SELECTOR, "#section-text mark").get_attribute("textContent")

    # past-paper practice: a chapter's comprehensive questions, reveal, a link to the textbook section tested
    # (recording attempts: test_serve_study_browser.py)
    d.find_element(By.CSS_SELECTOR, "nav a[data-view=practice]").click()
    Select(d.find_element(By.ID, "practice-chapter")).select_by_value("数据结构 › 三、查找")  # the syllabus tree
    Select(d.find_element(By.ID, "practice-type")).select_by_value("comprehensive")
    d.find_element(By.CSS_SELECTOR, "#practice-form button[type=submit]").click()
    _until(d, lambda d: d.find_elements(By.CSS_SELECTOR, ".question"), what="questions listed")
    card = d.find_elements(By.CSS_SELECTOR, ".question")[0]
    assert card.get_attribute("data-item").startswith("2024-")
    card.find_element(By.CSS_SELECTOR, "textarea").send_keys("B")
    card.find_element(By.CSS_SELECTOR, "button.reveal").click()
    assert card.find_element(By.CSS_SELECTOR, ".q-answer").is_displayed()
    card.find_element(By.CSS_SELECTOR, ".q-links button").click()
    _until(d, lambda d: img.is_displayed() and "7." in d.find_element(By.ID, "source-title").text,
           what="textbook section opened")
    _shot(d, "4-practice.png")

    # status: every document with its stages
    d.find_element(By.CSS_SELECTOR, "nav a[data-view=status]").click()
    docs = len(list((ROOT / "data" / "raw").iterdir()))
    _until(d, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#status-docs tbody tr")) == docs, what="status table")
    assert "success" in d.find_element(By.ID, "status-docs").text
    _shot(d, "5-status.png")
    assert endpoint.srv.completed >= 1


def _ask(d, url: str, question: str, state: str):
    """Open the page, ask ``question`` and wait until the answer box is in ``state``; the box."""
    from selenium.webdriver.common.by import By

    d.get(url + "/")
    d.find_element(By.ID, "question").send_keys(question)
    d.find_element(By.ID, "ask-button").click()
    answer = d.find_element(By.ID, "answer")
    _until(d, lambda d: answer.get_attribute("data-state") == state, what=state)
    return answer


def test_the_stop_button_cancels_the_stream(server, browser):
    from selenium.webdriver.common.by import By

    url, endpoint = server
    endpoint.srv.delay = 0.5  # slow enough to stop mid-answer
    d = browser
    answer = _ask(d, url, GENERATED, "streaming")
    assert wait_until(lambda: endpoint.srv.active == 1, timeout=20)  # the grounded core came first: now the model speaks
    d.find_element(By.ID, "stop-button").click()
    _until(d, lambda d: answer.get_attribute("data-state") == "stopped", what="stopped")
    # the server noticed the closed stream and stopped reading from the LLM endpoint
    assert wait_until(lambda: endpoint.srv.aborted == 1 and endpoint.srv.active == 0, timeout=20), \
        (endpoint.srv.aborted, endpoint.srv.active)
    time.sleep(0.2)
    assert endpoint.srv.completed == 0


def test_the_page_shows_its_place_in_the_queue(server, browser):
    import threading

    from selenium.webdriver.common.by import By

    url, endpoint = server
    endpoint.srv.delay = 0.25  # another student's answer holds the only slot for a few seconds
    first = threading.Thread(target=lambda: httpx.post(url + "/api/ask", json={"question": "进程和线程的区别"}, timeout=60))
    first.start()
    try:
        assert wait_until(lambda: httpx.get(url + "/api/health", timeout=5).json()["queue"]["running"] == 1, timeout=20)
        d = browser
        answer = _ask(d, url, GENERATED, "queued")
        status = d.find_element(By.ID, "ask-status").text
        assert "排队中" in status and "前面还有 0 人" in status and "1/1" in status, status
        _shot(d, "6-queued.png")
        _until(d, lambda d: answer.get_attribute("data-state") == "done", timeout=90, what="answered after the wait")
        assert answer.find_elements(By.CSS_SELECTOR, "button.chip")
    finally:
        first.join(60)
