"""Review scheduling with the maintained ``fsrs`` package (py-fsrs, FSRS-6). Nothing here computes an
interval: this module only builds the package's Scheduler from the settings, stores its Card as
JSON, maps verdicts to ratings and reads retrievability for mastery.

A choice answered right is Good and a wrong one Again (issue 24); a self-graded comprehensive
question or a card takes the student's own rating (1 Again, 2 Hard, 3 Good, 4 Easy).
"""

from __future__ import annotations

import hashlib
from datetime import datetime, timedelta, timezone
from typing import Optional

from fsrs import Card, Rating, Scheduler, State

from pipeline.settings import StudySettings

RATINGS = {"again": 1, "hard": 2, "good": 3, "easy": 4, "1": 1, "2": 2, "3": 3, "4": 4}


def scheduler(cfg: StudySettings) -> Scheduler:
    return Scheduler(desired_retention=cfg.desired_retention,
                     learning_steps=tuple(timedelta(minutes=m) for m in cfg.learning_steps),
                     relearning_steps=tuple(timedelta(minutes=m) for m in cfg.relearning_steps),
                     maximum_interval=cfg.maximum_interval, enable_fuzzing=cfg.fuzz)


def utc(at: datetime) -> datetime:
    """The package takes UTC datetimes only (tzinfo exactly timezone.utc); a naive one is local time."""
    return at.astimezone(timezone.utc)


def new_card(item_id: str, at: datetime) -> Card:
    """A card never reviewed. Its id is derived from the item (the package's default, the creation
    time in ms, sleeps 1 ms per card to stay unique)."""
    return Card(card_id=int(hashlib.sha256(item_id.encode()).hexdigest()[:12], 16), due=utc(at))


def load(card_json: Optional[str], item_id: str, at: datetime) -> Card:
    return Card.from_json(card_json) if card_json else new_card(item_id, at)


def review(sched: Scheduler, card: Card, rating: int, at: datetime, seconds: Optional[float]) -> Card:
    """The card after one review, as the package schedules it."""
    ms = int(seconds * 1000) if seconds is not None else None
    reviewed, _ = sched.review_card(card, Rating(rating), review_datetime=utc(at), review_duration=ms)
    return reviewed


def parse_rating(text: str) -> Optional[int]:
    """1-4 or again/hard/good/easy (any case); None otherwise."""
    return RATINGS.get(str(text).strip().lower())


def rating_for(verdict: str) -> int:
    """A graded choice: right → Good, wrong → Again."""
    return int(Rating.Good) if verdict == "right" else int(Rating.Again)


def state_name(card: Card) -> str:
    return {State.Learning: "learning", State.Review: "review", State.Relearning: "relearning"}[card.state]


def is_lapse(before: Card, rating: int) -> bool:
    """Forgetting a graduated item (Again in the Review state) is a lapse."""
    return before.state == State.Review and rating == int(Rating.Again)


def recall_chance(sched: Scheduler, card: Card, at: datetime, horizon_days: float) -> float:
    """The package's retrievability ``horizon_days`` after ``at``: how likely the student still
    recalls the item then (mastery, see progress.py)."""
    return float(sched.get_card_retrievability(card, current_datetime=utc(at) + timedelta(days=horizon_days)))
