"""The 考纲地图 page (/map) in a real browser, as tests/serve/test_serve_browser.py drives the others
(Debian's chromium + chromedriver, `cli.py serve` on the ingested sample; its fixtures and helpers):
the heat map renders the API's numbers, a cell lists that node's questions of the year, a material
link opens its page with the passage boxed, and "练习" lands on practice for the node with the same
questions. Screenshots go to test-artifacts/browser/."""

from __future__ import annotations

import shutil

import httpx

from serve_helpers import ServeProcess
from test_serve_browser import _shot, _until, _yellow, browser, server  # noqa: F401  (fixtures)


def test_the_heat_map_a_cell_its_questions_and_material(server, browser):  # noqa: F811
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    url, _ = server
    expected = httpx.get(url + "/api/map", timeout=30).json()
    d = browser
    d.get(url + "/map")
    _until(d, lambda d: d.find_elements(By.CSS_SELECTOR, "#map-heat tbody tr"), what="heat map rendered")

    # one row per subject and chapter (sections folded), one column per year, cells = the API's counts
    heat = d.find_element(By.ID, "map-heat")
    years = [th.text for th in heat.find_elements(By.CSS_SELECTOR, "thead th.year")]
    assert years == [str(y) for y in expected["years"]]
    shown = [tr for tr in heat.find_elements(By.CSS_SELECTOR, "tbody tr") if tr.is_displayed()]
    assert [tr.get_attribute("data-node") for tr in shown] == [n["node_id"] for n in expected["nodes"] if n["level"] <= 1]
    for tr, n in zip(shown, (n for n in expected["nodes"] if n["level"] <= 1)):
        cells = [b.get_attribute("data-count") for b in tr.find_elements(By.CSS_SELECTOR, "td.cell button")]
        assert cells == [str(n["by_year"].get(str(y), 0)) for y in expected["years"]], n["path"]
    assert heat.find_elements(By.CSS_SELECTOR, "td.heat-5")  # the busiest cell is the darkest

    # a chapter expands to its sections
    search = next(n for n in expected["nodes"] if n["path"] == ["数据结构", "三、查找"])
    row = heat.find_element(By.CSS_SELECTOR, f'tr[data-node="{search["node_id"]}"]')
    sections = heat.find_elements(By.CSS_SELECTOR, f'tr[data-parent="{search["node_id"]}"]')
    assert sections and not any(s.is_displayed() for s in sections)
    row.find_element(By.CSS_SELECTOR, "button.toggle").click()
    assert all(s.is_displayed() for s in sections)

    # the 2024 cell of 三、查找 lists its three questions and the material placed there
    row.find_element(By.CSS_SELECTOR, 'td.cell button[data-year="2024"]').click()
    detail = d.find_element(By.ID, "map-detail")
    _until(d, lambda d: len(detail.find_elements(By.CSS_SELECTOR, "#map-questions .question")) == 3, what="cell questions")
    numbers = sorted(int(c.get_attribute("data-number")) for c in detail.find_elements(By.CSS_SELECTOR, "#map-questions .question"))
    assert numbers == sorted(q["number"] for q in search["questions"] if q["year"] == 2024)
    _until(d, lambda d: detail.find_elements(By.CSS_SELECTOR, "#map-material li .chip"), what="material listed")
    assert "数据结构复习讲义.pdf" in detail.text and "三、查找 · 2024年" in detail.text
    d.execute_script("window.scrollTo(0, 0)")
    _shot(d, "map-1-heat-and-cell.png")

    # a material link opens its page in the source panel, the passage boxed in yellow
    img = d.find_element(By.ID, "page-image")
    detail.find_element(By.CSS_SELECTOR, "#map-material li .chip").click()
    _until(d, lambda d: img.is_displayed() and d.execute_script(
        "return arguments[0].complete && arguments[0].naturalWidth", img), what="material page loaded")
    _until(d, lambda d: img.get_attribute("data-highlight") in ("boxes", "none"), what="highlight decided")
    assert img.get_attribute("data-highlight") == "boxes" and "黄色框" in d.find_element(By.ID, "highlight-note").text
    assert _yellow(img.screenshot_as_png) > 300
    _shot(d, "map-2-material.png")

    # gaps: 计算机组成原理 is never tested in the sample, and the list names it
    gaps = d.find_element(By.ID, "map-gaps")
    assert str(len(expected["gaps"]["never_tested"])) in gaps.text

    # 练习 lands on practice for the node: the syllabus picker selected, the same questions listed
    detail.find_element(By.ID, "map-practice").click()
    _until(d, lambda d: d.current_url.startswith(url + "/practice?chapter="), what="practice view")
    _until(d, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#practice-list .question")) == len(search["questions"]),
           what="practice questions")
    picker = Select(d.find_element(By.ID, "practice-chapter"))
    assert picker.first_selected_option.get_attribute("value") == "数据结构 › 三、查找"
    assert d.find_element(By.ID, "practice-chapter").get_attribute("data-tree") == "syllabus"
    # the picker is the syllabus tree (subjects, chapters, sections), not the material's headings
    options = [o.get_attribute("value") for o in picker.options][1:]
    assert options == [" › ".join(n["path"]) for n in expected["nodes"] if n["level"] <= 2]


def test_without_a_syllabus_the_pickers_show_headings_and_the_map_says_how_to_add_one(sample_data, tmp_path, browser):  # noqa: F811
    from selenium.webdriver.common.by import By

    data = tmp_path / "data"
    shutil.copytree(sample_data, data, ignore=shutil.ignore_patterns(".lock", "syllabus"))
    with ServeProcess(data, tmp_path / "serve.log", env={"EXAMRAG_LLM_BACKEND": "none"}) as served:
        d = browser
        d.get(served.url + "/practice")
        _until(d, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#practice-chapter option")) > 3, what="heading tree loaded")
        picker = d.find_element(By.ID, "practice-chapter")
        values = [o.get_attribute("value") for o in picker.find_elements(By.TAG_NAME, "option")]
        assert "第七章 查找" in values and not any(" › " in v for v in values)  # the material's headings
        assert picker.get_attribute("data-tree") != "syllabus"
        d.find_element(By.CSS_SELECTOR, "nav a[data-view=map]").click()
        _until(d, lambda d: "没有考试大纲" in d.find_element(By.ID, "view-map").text, what="no-syllabus note")
        assert not d.find_elements(By.ID, "map-heat")
