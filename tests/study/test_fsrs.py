"""Review scheduling is the fsrs package's: a scripted sequence of attempts stored through the study
store gives the intervals the package computes itself for the same ratings at the same times."""

from __future__ import annotations

import random
from datetime import timedelta

import fsrs
import pytest
from study_helpers import T0, card, choice

from pipeline.settings import StudySettings
from pipeline.study import users
from pipeline.study.store import Attempt, StudyStore

# (minutes after T0, verdict, rating): a choice question's verdict sets its rating (wrong → Again,
# right → Good); a card's rating is the student's own
CHOICE_SCRIPT = [(0, "wrong", 1), (10, "right", 3), (3 * 1440, "right", 3), (11 * 1440, "wrong", 1),
                 (11 * 1440 + 10, "right", 3), (30 * 1440, "right", 3), (90 * 1440, "right", 3)]
CARD_SCRIPT = [(0, "self", 2), (15, "self", 3), (2 * 1440, "self", 4), (20 * 1440, "self", 2),
               (50 * 1440, "self", 1), (50 * 1440 + 10, "self", 3), (120 * 1440, "self", 4)]


def package_run(script, scheduler: fsrs.Scheduler, card_id: int):
    """What the package itself schedules for the script (its Card and Scheduler, nothing of ours)."""
    c = fsrs.Card(card_id=card_id, due=T0)
    out = []
    for minutes, _, rating in script:
        c, _ = scheduler.review_card(c, fsrs.Rating(rating), review_datetime=T0 + timedelta(minutes=minutes))
        out.append((c.due, c.state, round(c.stability, 9), round(c.difficulty, 9)))
    return out


def store_run(store: StudyStore, script, item):
    me = users.ensure(store.db(), "s", T0)
    out = []
    for minutes, verdict, rating in script:
        res = store.record(me, Attempt(item=item, answer="B" if verdict == "right" else "A", verdict=verdict,
                                       rating=rating, at=T0 + timedelta(minutes=minutes)))
        c, _ = store.states(me)[item.item_id]
        assert res.due == c.due
        out.append((c.due, c.state, round(c.stability, 9), round(c.difficulty, 9)))
    return out


@pytest.mark.parametrize("script,item", [(CHOICE_SCRIPT, choice(1)), (CARD_SCRIPT, card(1))], ids=["choice", "card"])
def test_intervals_match_the_package(tmp_path, script, item):
    store = StudyStore(tmp_path / "s.sqlite", StudySettings(fuzz=False))
    ours = store_run(store, script, item)
    theirs = package_run(script, fsrs.Scheduler(desired_retention=0.9, learning_steps=(timedelta(minutes=10),),
                                                relearning_steps=(timedelta(minutes=10),), enable_fuzzing=False),
                         card_id=store.states(users.get(store.db(), "s"))[item.item_id][0].card_id)
    assert ours == theirs
    intervals = [due - (T0 + timedelta(minutes=m)) for (due, *_), (m, _, _) in zip(ours, script)]
    assert intervals[0] in (timedelta(minutes=10), timedelta(minutes=15))  # a first Again (Hard: ×1.5) waits one step
    assert max(intervals) > timedelta(days=20)  # graduated items go out by weeks
    store.close()


def test_with_fuzz_the_package_draws_the_same_intervals(tmp_path):
    """Fuzz is the package's random spread; with the same seed it is the same spread."""
    store = StudyStore(tmp_path / "s.sqlite", StudySettings(fuzz=True))
    random.seed(7)
    ours = store_run(store, CHOICE_SCRIPT, choice(1))
    random.seed(7)
    theirs = package_run(CHOICE_SCRIPT, fsrs.Scheduler(learning_steps=(timedelta(minutes=10),),
                                                       relearning_steps=(timedelta(minutes=10),), enable_fuzzing=True),
                         card_id=0)
    assert ours == theirs
    store.close()


def test_the_settings_reach_the_scheduler(tmp_path):
    low = StudyStore(tmp_path / "a.sqlite", StudySettings(fuzz=False, desired_retention=0.8))
    high = StudyStore(tmp_path / "b.sqlite", StudySettings(fuzz=False, desired_retention=0.97))
    a, b = store_run(low, CHOICE_SCRIPT, choice(1)), store_run(high, CHOICE_SCRIPT, choice(1))
    assert a[-1][0] > b[-1][0]  # a lower retention target waits longer
    low.close()
    high.close()
