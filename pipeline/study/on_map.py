"""A student's mastery keyed by syllabus node id: what the /map page (issue 21) colours its nodes by.

Progress (progress.py) rolls up to the nodes of :func:`pipeline.study.nodes.nodes_of` (heading paths
until that switch moves to the map). The map page draws the syllabus tree, so this reads the map's
own placement: a node's questions are those the map placed on it or below (``MapNode.questions``),
its cards those whose source chunk the placement put on it or below. A node's mastery is the mean of
:func:`~pipeline.study.progress.item_mastery` over its questions (all: the exam tests the unseen ones
too) and its reviewed cards, as in progress.py; a node with neither has ``mastery`` None (nothing
to colour by). Without a syllabus map the answer is None.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Optional

from fsrs import Scheduler
from pydantic import BaseModel, Field

from pipeline.study.models import CardItem
from pipeline.study.progress import State, item_mastery
from pipeline.syllabus.view import SyllabusView


class MapMastery(BaseModel):
    """One syllabus node for one student."""

    node_id: str
    path: list[str]
    level: int
    questions: int  # past-paper questions the map placed here or below
    attempted: int  # of its questions and cards, those this student attempted or reviewed
    wrong: int  # of its questions, those whose last rating opened a 错题本 entry (Again/Hard)
    mastery: Optional[float] = None  # 0..1; None: nothing placed here to be mastered
    question_ids: list[str] = Field(default_factory=list)


def map_mastery(data_dir: Path, cards: list[CardItem], states: dict[str, State], sched: Scheduler, now: datetime,
                horizon_days: float, max_low: int) -> Optional[dict[str, MapMastery]]:
    """node id → its mastery for the student whose ``states`` these are; None without a syllabus map."""
    view = SyllabusView.open(data_dir)
    if view is None:
        return None
    parent = {n.node_id: n.parent for n in view.summary.nodes}
    card_scores: dict[str, list[float]] = {}
    for c in cards:
        if c.item_id not in states:
            continue
        score = item_mastery(states[c.item_id], sched, now, horizon_days, max_low)
        for place in view.places(c.chunk_id)[:1]:
            node: Optional[str] = place.node_id
            while node:
                card_scores.setdefault(node, []).append(score)
                node = parent.get(node)
    out: dict[str, MapMastery] = {}
    for n in view.summary.nodes:
        ids = list(dict.fromkeys(f"{q.year if q.year else 'x'}-{q.number}" for q in n.questions if q.number is not None))
        scores = [item_mastery(states.get(i), sched, now, horizon_days, max_low) for i in ids]
        cards_here = card_scores.get(n.node_id, [])
        scores += cards_here
        out[n.node_id] = MapMastery(
            node_id=n.node_id, path=n.path, level=n.level, questions=len(ids),
            attempted=sum(i in states for i in ids) + len(cards_here),
            wrong=sum(1 for i in ids if i in states and states[i][1] <= max_low),
            mastery=round(sum(scores) / len(scores), 4) if scores else None, question_ids=ids)
    return out
