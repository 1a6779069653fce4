"""The study service over the shipped sample's index: practice sets, grading, the 错题本 with its
links, review, cards, progress, class aggregates, and one student never seeing another's data."""

from __future__ import annotations

from datetime import timedelta

import pytest
from study_helpers import T0

from pipeline.ask.service import ChapterNotFound
from pipeline.study.service import ItemNotFound, NotAllowed, StudyError


def test_practice_sets_follow_the_filters(study):
    me = study.profile("alice")
    every = [q.item_id for q in study.practice_set(me)]
    assert every == ["2024-1", "2024-2", "2024-3", "2024-4", "2024-5", "2024-6", "2024-41", "2024-42"]
    assert [q.item_id for q in study.practice_set(me, qtype="comprehensive")] == ["2024-41", "2024-42"]
    assert [q.item_id for q in study.practice_set(me, chapter="查找")] == ["2024-1", "2024-4", "2024-41"]
    assert study.practice_set(me, chapter="查找", qtype="choice", limit=1)[0].item_id == "2024-1"
    with pytest.raises(StudyError, match="no past-paper question matches year 2009"):
        study.practice_set(me, year=2009)
    study.answer(me, "2024-1", "B")
    assert [q.item_id for q in study.practice_set(me, chapter="查找")] == ["2024-4", "2024-41", "2024-1"]  # done last


def test_a_wrong_choice_lands_in_the_mistakes_with_its_explanation_and_sections(study):
    me = study.profile("bob")
    res = study.answer(me, "2024-1", "a", seconds=12.5)
    assert (res.verdict, res.rating_name, res.correct_answer, res.seconds) == ("wrong", "again", "B", 12.5)
    assert res.in_mistakes and res.due == T0 + timedelta(minutes=10)
    [entry] = study.mistakes(me)
    q = entry.item
    assert q.item_id == "2024-1" and "判定树" in q.analysis and q.solution_citation.startswith("[来源: 2024年计算机专业基础综合模拟卷_参考答案")
    assert q.sections[0].chapter == "第七章 查找 › 7.2 折半查找"
    assert q.sections[0].chunk_id and q.sections[0].citation.startswith("[来源: 第七章 查找 › 7.2 折半查找|")
    assert study.mistakes(me, "折半查找") and study.mistakes(me, "排序") == []
    assert not entry.changed


def test_what_cannot_be_graded_needs_a_rating(study):
    me = study.profile("carol")
    with pytest.raises(StudyError, match="grade yourself"):
        study.answer(me, "2024-41", "判定树的根是37")
    with pytest.raises(StudyError, match="rating 'perfect'"):
        study.answer(me, "2024-41", "…", rating="perfect")
    with pytest.raises(StudyError, match="option letter"):
        study.answer(me, "2024-1", "四次")
    with pytest.raises(ItemNotFound, match="2023-1"):
        study.answer(me, "2023-1", "A")
    res = study.answer(me, "2024-41", "判定树的根是37", rating="hard")
    assert res.verdict == "self" and res.in_mistakes and res.correct_answer.startswith("（1）判定树的根")
    assert study.answer(me, "2024-42", "LRU……", rating=3).in_mistakes is False


def test_review_brings_back_today_what_was_wrong(study):
    me = study.profile("dave")
    study.answer(me, "2024-1", "A")
    study.answer(me, "2024-2", "C")  # right: Good graduates it to days
    due = study.due(me)
    assert [d.item.item_id for d in due] == ["2024-1"] and due[0].state == "learning"
    study.cfg.now = T0 + timedelta(minutes=11)
    res = study.review(me, "2024-1", "B")
    assert res.mode == "review" and res.verdict == "right" and not res.in_mistakes
    assert study.due(me) == []
    study.cfg.now = T0 + timedelta(days=30)
    assert {d.item.item_id for d in study.due(me)} == {"2024-1", "2024-2"}


def test_cards_are_made_once_and_reviewed(study):
    me = study.profile("erin")
    first = study.make_cards("查找")
    assert len(first.made) >= 5 and not first.kept
    assert all(c.citation.startswith("[来源: 第七章 查找") and c.sentence for c in first.made)
    types = {c.card_type for c in first.made}
    assert types == {"definition", "cloze"}
    again = study.make_cards("查找")
    assert not again.made and {c.item_id for c in again.kept} == {c.item_id for c in first.made}
    new = [d for d in study.due(me) if d.new]
    assert len(new) == len(first.made)
    res = study.review(me, new[0].item.item_id, rating="good")
    assert res.verdict == "self" and res.correct_answer == new[0].item.back and not res.in_mistakes
    assert study.mistakes(me) == []  # the 错题本 holds questions only
    with pytest.raises(ChapterNotFound):
        study.make_cards("不存在的章节")


def test_progress_moves_with_attempts(study):
    me = study.profile("frank")
    before = study.progress(me)
    node = {n.node: n for n in before.nodes}
    assert node["第七章 查找 › 7.2 折半查找"].questions == 2 and node["第七章 查找"].questions == 3
    assert all(n.mastery == 0 for n in before.nodes)
    assert before.next[0].node == "第七章 查找 › 7.2 折半查找" and before.next[0].priority == 2
    assert before.next[0].question_ids == ["2024-1", "2024-41"]
    assert before.next[0].material[0].chunk_id and any("practice --chapter" in c for c in before.next[0].commands)
    study.answer(me, "2024-1", "B")
    study.answer(me, "2024-41", "…", rating="easy")
    after = {n.node: n for n in study.progress(me).nodes}
    assert after["第七章 查找 › 7.2 折半查找"].mastery > 0.8 and after["第七章 查找"].mastery > 0.5
    assert after["第七章 查找 › 7.2 折半查找"].priority < 0.4
    assert study.progress(me).next[0].node != "第七章 查找 › 7.2 折半查找"
    study.answer(me, "2024-1", "A")  # wrong again: not mastered, whatever FSRS's long tail says
    assert {n.node: n for n in study.progress(me).nodes}["第七章 查找 › 7.2 折半查找"].mastery < 0.5


def test_students_never_see_each_other_and_the_admin_sees_counts_only(study):
    a, b = study.profile("s1"), study.profile("s2")
    study.answer(a, "2024-1", "A")
    study.answer(a, "2024-3", "A")
    study.answer(b, "2024-1", "B")
    assert [m.item.item_id for m in study.mistakes(a)] == ["2024-1"] and study.mistakes(b) == []
    assert len(study.attempts(a)) == 2 and len(study.attempts(b)) == 1
    assert study.attempts(b, "2024-3") == []
    assert [d.item.item_id for d in study.due(b)] == []
    teacher, token = study.add_user("teacher", admin=True)
    assert study.authenticate(token) == teacher
    for call in (lambda: study.mistakes(teacher), lambda: study.due(teacher), lambda: study.answer(teacher, "2024-1", "A"),
                 lambda: study.progress(teacher), lambda: study.attempts(teacher)):
        with pytest.raises(NotAllowed, match="admin"):
            call()
    with pytest.raises(NotAllowed, match="admin token"):
        study.class_nodes(a)
    rows = {c.node: c for c in study.class_nodes(teacher)}
    binary = rows["第七章 查找 › 7.2 折半查找"]
    assert (binary.students, binary.students_wrong, binary.attempts, binary.wrong) == (2, 1, 2, 1)
    assert "s1" not in str([c.model_dump() for c in rows.values()])


def test_ask_sessions_belong_to_a_profile(study):
    """(The sample's data dir is shared by the session: a session name of this test only, removed after.)"""
    import uuid

    q, name = study.query, f"t-{uuid.uuid4().hex[:8]}"
    root = study.settings.data_dir / "sessions"
    try:
        q.ask("什么是折半查找", use_llm=False, session=name, profile="alice")
        follow = q.ask("它的时间复杂度是多少", use_llm=False, session=name, profile="alice")
        assert follow.standalone_question and "折半查找" in follow.standalone_question
        other = q.ask("它的时间复杂度是多少", use_llm=False, session=name, profile="bob")
        assert other.standalone_question is None  # bob's session of that name is his own, empty one
        assert (root / "profiles" / "alice" / f"{name}.json").exists() and (root / "profiles" / "bob" / f"{name}.json").exists()
        assert not (root / f"{name}.json").exists()
        with pytest.raises(ValueError, match="profile name"):
            q.ask("x", use_llm=False, session=name, profile="../bob")
    finally:
        for p in (root / "profiles" / "alice" / f"{name}.json", root / "profiles" / "bob" / f"{name}.json"):
            p.unlink(missing_ok=True)


def test_model_written_cards_are_opt_in_and_claim_checked(sample_data, tmp_path):
    from pipeline.ask.service import QueryService
    from pipeline.llm.fake import FakeLlm
    from pipeline.settings import load_settings
    from pipeline.study.service import StudyService

    settings = load_settings(data_dir=sample_data, study_db=str(tmp_path / "s.sqlite"), study_now=T0)
    llm = FakeLlm(lambda system, user: ("问：散列查找理想情况下的时间复杂度是多少？\n答：理想情况下散列查找的时间复杂度为O(1)。\n"
                                        "问：散列表的装填因子是多少？\n答：散列表的装填因子总是0.75。"))
    svc = StudyService(settings, QueryService(settings, llm=llm))
    report = svc.make_cards("7.4 散列表", use_llm=True)
    written = [c for c in report.made if c.origin == "llm"]
    assert [c.back for c in written] == ["理想情况下散列查找的时间复杂度为O(1)。"]
    assert [r["back"] for r in report.rejected] == ["散列表的装填因子总是0.75。"] and "0.75" in report.rejected[0]["reason"]
    assert len(llm.calls) == 1  # one call per chunk of the section
    assert [c for c in report.made if c.origin == "extractive"]  # the extractive ones are made too
    none = StudyService(load_settings(data_dir=sample_data, study_db=str(tmp_path / "t.sqlite"), llm_backend="none"))
    with pytest.raises(StudyError, match="need the LLM"):
        none.make_cards("7.4 散列表", use_llm=True)
    assert none.make_cards("7.4 散列表").made  # without --llm no model is needed
