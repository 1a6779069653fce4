"""load_rules / rules_hash and the shipped rules.yaml defaults."""

from __future__ import annotations

import re

import pytest
import yaml

from pipeline.clean.core import DEFAULT_RULES_FILE, load_rules, rules_hash
from pipeline.clean.rules.base import full_match, search_any


def test_default_is_shipped_file(rules):
    assert load_rules(None) == load_rules(DEFAULT_RULES_FILE) == rules


def test_user_file_replaces_default(tmp_path):
    data = yaml.safe_load(DEFAULT_RULES_FILE.read_text(encoding="utf-8"))
    data["ad_patterns"] = ["只有这一条"]
    data["watermarks"] = ["王道考研"]
    path = tmp_path / "my_rules.yaml"
    path.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    mine = load_rules(path)
    assert mine.ad_patterns == ["只有这一条"]
    assert mine.watermarks == ["王道考研"]
    assert rules_hash(mine) != rules_hash(load_rules(None))


def test_older_user_file_without_newer_keys_loads_with_them_off(tmp_path):
    data = yaml.safe_load(DEFAULT_RULES_FILE.read_text(encoding="utf-8"))
    del data["markup_replacements"]
    for key in ("paper_start_pattern", "number_expected_pattern", "number_first_pattern", "not_paper_pattern"):
        del data["questions"][key]
    path = tmp_path / "old_rules.yaml"
    path.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    old = load_rules(path)
    assert old.markup_replacements == [] and not re.match(old.questions.not_paper_pattern, "考试大纲")
    assert not re.match(old.questions.paper_start_pattern, "2010 年全国硕士研究生入学统一考试")


@pytest.mark.parametrize("change, message", [
    (lambda d: d.pop("ad_patterns"), "ad_patterns"),
    (lambda d: d.update(unknown_key=[]), "unknown_key"),
    (lambda d: d.update(ad_patterns=["(未闭合"]), "未闭合"),
    (lambda d: d["questions"].update(number_pattern="[x"), "number_pattern"),
])
def test_bad_user_file_names_file_and_problem(tmp_path, change, message):
    data = yaml.safe_load(DEFAULT_RULES_FILE.read_text(encoding="utf-8"))
    change(data)
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    with pytest.raises(ValueError) as err:
        load_rules(path)
    assert str(path) in str(err.value) and message in str(err.value)


def test_rules_hash_is_stable_sha256(rules):
    h = rules_hash(rules)
    assert re.fullmatch(r"[0-9a-f]{64}", h)
    assert h == rules_hash(load_rules(None))
    changed = rules.model_copy(update={"watermarks": ["x"]})
    assert rules_hash(changed) != h


@pytest.mark.parametrize("line", ["淘宝店铺：【考研党之家】408全套资料", "更多资料请关注微信公众号：xx",
                                  "王道论坛 www.cskaoyan.com", "加入考研党之家QQ群 123"])
def test_default_ads(rules, line):
    assert search_any(rules.ad_patterns, line)


@pytest.mark.parametrize("line", ["第 3 页", "第3页", "第3页 共12页", "第 3 页，共 12 页", "- 12 -", "— 7 —", "Page 3 of 9",
                                  "2021年计算机408统考真题第 9 页，共9 页 · 009·", "• 003 •"])
def test_default_page_numbers(rules, line):
    assert full_match(rules.page_number_patterns, line)


@pytest.mark.parametrize("line", ["第3页是重点", "12", "- 列表项"])
def test_default_page_numbers_need_whole_line(rules, line):
    assert not full_match(rules.page_number_patterns, line)


@pytest.mark.parametrize("title, qtype", [
    ("一、单项选择题", "choice"), ("一、选择题：第1～40小题", "choice"), ("二、综合应用题", "comprehensive"),
    ("二、综合题", "comprehensive"), ("选择题", "choice"), ("综合应用题（共70分）", "comprehensive"),
    ("二、简答题", "comprehensive")])
def test_default_section_titles(rules, title, qtype):
    matches = [st for st in rules.questions.section_titles if re.match(st.pattern, title)]
    assert matches and matches[0].qtype == qtype


def test_default_question_patterns(rules):
    q = rules.questions
    assert re.match(q.number_pattern, "12．下列").group(1) == "12"
    assert re.match(q.number_pattern, " 3、若").group(1) == "3"
    assert not re.match(q.number_pattern, "1.5倍")
    assert re.match(q.subpart_pattern, "（1）给出")
    letters = [next(g for g in m.groups() if g) for m in re.finditer(q.option_pattern, "A. x B．y C、z (D) w")]
    assert letters == ["A", "B", "C", "D"]
    ocr = [next(g for g in m.groups() if g) for m in re.finditer(q.option_pattern, "A．栈 B．队列c. 树 D．图")]
    assert ocr == ["A", "B", "c", "D"]  # OCR's lower-case c (option_letter upper-cases it)
    for marker in ("【答案】C", "答案：C", "参考答案：C"):
        assert search_any(q.answer_markers, marker)
    for marker in ("【解析】略", "解析：略"):
        assert search_any(q.analysis_markers, marker)
    assert full_match(q.answer_section_titles, "参考答案")
    assert full_match(q.answer_section_titles, "2019年408真题参考答案及解析")
    assert full_match(q.answer_section_titles, "参考答案(2016年)")
    assert full_match(q.answer_section_titles, "计算机学科专业基础综合试题——选择题部分解析")
    assert not full_match(q.answer_section_titles, "参考答案：C")
    assert re.match(q.number_pattern, "0 1 . 已知").group(1) == "0 1"  # OCR spaces; read as 1
    assert not re.match(q.number_pattern, "6．5 个字符") and re.match(q.number_expected_pattern, "6．5 个字符")
    assert re.match(q.number_expected_pattern, "47(9分)某网络") and re.match(q.number_first_pattern, "1若栈S1")
    assert re.match(q.paper_start_pattern, "2010 年全国硕士研究生入学统一考试").group(1) == "2010"
    assert re.match(q.paper_start_pattern, "2022全国硕士研究生招生考试计算机学科专业基础试题参考答案")
    assert not re.match(q.paper_start_pattern, "2009年408真题答案解析")
    assert re.search(q.not_paper_pattern, "408计算机学科专业基础综合考试大纲.pdf")


def test_default_header_footer_only_short_lines(rules):
    assert full_match(rules.header_footer_patterns, "王道考研 版权所有 侵权必究")
    assert full_match(rules.header_footer_patterns, "绝密★启用前")
    assert not full_match(rules.header_footer_patterns, "以下解法仅供参考。")
    assert not full_match(rules.header_footer_patterns,
                          "软件著作权属于作者，版权所有者可以许可他人使用该软件，这一点在本章的例题中多次出现。")
