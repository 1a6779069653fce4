"""Mastery per node of the map, and 下一步复习 (what to review next).

* An item's mastery is the fsrs package's retrievability ``mastery_horizon_days`` from now: the
  chance the student would still get it right in a week. 0 for an item never attempted, and 0 for
  one whose last attempt was rated ``mistake_max_rating`` or lower (wrong, Again, Hard: what opens
  a 错题本 entry). The rating matters because FSRS-6's forgetting curve has a long tail: a week
  after a wrong first answer it still predicts ~58 % recall, which would show a node the student
  just failed as half mastered. (Right after any attempt the package's own retrievability is 1,
  since it counts whole days elapsed; a week ahead a first Good gives ~0.81, a first Easy ~0.91.)
* A node's mastery is the mean over its past-paper questions (all of them: the exam tests the
  unseen ones too) and the cards made from it that the student has reviewed (a card never
  reviewed is material not yet studied, not a failure). A node holding only unreviewed cards has
  mastery 0 and no questions, so no priority.
* Every level of the map is a node: an item on 第七章 › 7.2 counts for 第七章 too.
* 下一步复习 ranks the finest nodes (those no other node extends) by exam frequency × (1 − mastery),
  frequency being the number of past-paper questions placed on the node. A question placed on a
  node that has sub-nodes (a chapter's own introduction) counts for that node only, not for the
  ranking.
"""

from __future__ import annotations

from collections import defaultdict
from datetime import datetime
from typing import Callable, Optional

from fsrs import Card, Scheduler

from pipeline.study.models import CardItem, Link, NodeProgress, QuestionItem
from pipeline.study.nodes import Node, ancestors, joined
from pipeline.study.schedule import recall_chance


State = tuple[Card, int]  # the item's fsrs Card and its last rating


def item_mastery(state: Optional[State], sched: Scheduler, now: datetime, horizon_days: float, max_low: int) -> float:
    if state is None or state[1] <= max_low:
        return 0.0
    return recall_chance(sched, state[0], now, horizon_days)


def commands_for(node: Node, question_ids: list[str]) -> list[str]:
    head = node[-1]
    out = [f'python cli.py practice --chapter "{head}"'] if question_ids else []
    out += [f'python cli.py cards --chapter "{head}"', f'python cli.py ask --chapter "{head}" "什么是{head}"']
    return out


def node_progress(questions: list[QuestionItem], cards: list[CardItem], states: dict[str, State], sched: Scheduler,
                  now: datetime, horizon_days: float, max_low: int,
                  material: Callable[[Node], list[Link]]) -> list[NodeProgress]:
    """Every node with an item under it, in map order (parents before children, first seen first)."""
    order: list[Node] = []
    qs: dict[Node, list[str]] = defaultdict(list)
    cs: dict[Node, int] = defaultdict(int)
    scores: dict[Node, list[float]] = defaultdict(list)
    attempted: dict[Node, int] = defaultdict(int)

    def place(item_nodes: list[list[str]]):
        for n in item_nodes:
            for a in ancestors(tuple(n)):
                if a not in qs and a not in cs:
                    order.append(a)
                    qs[a], cs[a] = [], 0
                yield a

    for q in questions:
        m = item_mastery(states.get(q.item_id), sched, now, horizon_days, max_low)
        for a in set(place(q.nodes)):
            qs[a].append(q.item_id)
            scores[a].append(m)
            attempted[a] += q.item_id in states
    for c in cards:
        for a in set(place(c.nodes)):
            cs[a] += 1
            if c.item_id in states:
                scores[a].append(item_mastery(states[c.item_id], sched, now, horizon_days, max_low))
                attempted[a] += 1
    parents = {n[:-1] for n in order if len(n) > 1}
    first = {n: i for i, n in enumerate(order)}
    out = []
    for node in sorted(order, key=lambda n: (first[n[:1]], n)):
        mastery = sum(scores[node]) / len(scores[node]) if scores[node] else 0.0
        out.append(NodeProgress(path=list(node), node=joined(node), questions=len(qs[node]), cards=cs[node],
                                attempted=attempted[node], mastery=round(mastery, 4),
                                priority=round(len(qs[node]) * (1 - mastery), 4), leaf=node not in parents,
                                question_ids=qs[node], material=material(node), commands=commands_for(node, qs[node])))
    return out


def next_review(nodes: list[NodeProgress], top: int) -> list[NodeProgress]:
    """下一步复习: the finest nodes with something left to gain, highest priority first."""
    ranked = [n for n in nodes if n.leaf and n.priority > 0]
    return sorted(ranked, key=lambda n: (-n.priority, -n.questions, n.node))[:top]
