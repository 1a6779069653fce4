"""Typed objects of the study service. Their ``model_dump(mode="json")`` is the CLI's ``--json`` shape
and what the web API will return, so page, API and CLI never drift apart."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Literal, Optional, Union

from pydantic import BaseModel, Field

from pipeline.models import PageRect

RATING_NAMES = {1: "again", 2: "hard", 3: "good", 4: "easy"}  # the FSRS ratings, by number
Verdict = Literal["right", "wrong", "self"]


class Profile(BaseModel):
    """A student (or the class admin). Every read and write of study data names one."""

    id: int
    name: str
    role: Literal["student", "admin"] = "student"
    created_at: datetime


class Link(BaseModel):
    """A section of the material: its heading path, and its first chunk to open and cite."""

    path: list[str]
    chapter: str  # the joined path, what `--chapter` and the web pickers take
    chunk_id: Optional[str] = None
    citation: Optional[str] = None


class Figure(PageRect):
    """Where a question's figure is printed: the crop of its page that an export embeds, in PDF
    points (origin top-left); ``x1``/``y1`` of -1 run to the page's right or bottom edge."""


class QuestionItem(BaseModel):
    """A past-paper question as practised: the record's stem and options, the booklet's answer,
    explanation and 评分说明, and the sections it tests."""

    kind: Literal["question"] = "question"
    item_id: str  # "2024-41": year and number, the record's identity across re-ingests
    year: Optional[int] = None
    number: int
    qtype: Optional[str] = None  # choice | comprehensive | other
    stem: str
    options: dict[str, str] = Field(default_factory=dict)
    answer: Optional[str] = None
    analysis: Optional[str] = None
    scoring: Optional[str] = None  # 评分说明 of a comprehensive question, when the booklet gives one
    citation: str  # where the stem was read
    solution_citation: Optional[str] = None  # where the answer was read (the booklet)
    chunk_id: str  # the record as it was when this snapshot was taken
    source: str = ""
    pages: list[int] = Field(default_factory=list)
    nodes: list[list[str]] = Field(default_factory=list)  # where it sits on the map (see nodes.py)
    sections: list[Link] = Field(default_factory=list)  # the textbook sections it tests
    figure: Optional[Figure] = None


class CardItem(BaseModel):
    """A review card made from one sentence of the material, quoted and cited."""

    kind: Literal["card"] = "card"
    item_id: str  # "c-<hash of type, front, back>": the same card made again keeps its reviews
    card_type: Literal["definition", "cloze", "qa"]  # qa: model-written (opt-in), passed the claim check
    front: str  # a definition card's question; a cloze card's sentence with {{c1::…}}
    back: str  # the answer; for a cloze card the hidden words
    sentence: str  # the source sentence, verbatim
    citation: str
    chunk_id: str  # the source chunk in the index it was made from
    source_sha: str = ""  # sha256 of that chunk's text: a re-ingest that keeps the text (a new chunk id
    # because another part of its file changed) re-links the card; one that changes it flags the card
    chapter_path: list[str] = Field(default_factory=list)
    nodes: list[list[str]] = Field(default_factory=list)
    origin: Literal["extractive", "llm"] = "extractive"
    flag: Optional[str] = None  # why it is held back (its source changed), or None

    def prompt(self) -> str:
        """What the student sees first: the front, a cloze's hidden words as ［____］."""
        return re.sub(r"\{\{c\d+::(.*?)\}\}", "［____］", self.front)


Item = Union[QuestionItem, CardItem]


class AttemptResult(BaseModel):
    """One stored attempt and what it changed: the verdict, the schedule, the 错题本."""

    attempt_id: int
    item_id: str
    profile: str
    mode: Literal["practice", "review"]
    answer: str
    verdict: Verdict
    rating: int  # 1 Again, 2 Hard, 3 Good, 4 Easy
    rating_name: str
    seconds: Optional[float] = None
    at: datetime
    due: datetime  # when FSRS brings the item back
    in_mistakes: bool  # the item is in the 错题本 (and not fixed since)
    duplicate: bool = False  # the same client_key was stored before: nothing was written again
    correct_answer: Optional[str] = None
    analysis: Optional[str] = None
    scoring: Optional[str] = None


class Mistake(BaseModel):
    """A 错题本 entry: the item as it was when last got wrong, with the explanation and the sections
    it tests; ``fixed`` once answered right since."""

    item: Item = Field(discriminator="kind")
    wrong_count: int
    first_at: datetime
    last_at: datetime
    last_answer: str
    fixed: bool
    fixed_at: Optional[datetime] = None
    changed: bool = False  # the record or card's source changed in the material since


class DueItem(BaseModel):
    item: Item = Field(discriminator="kind")
    due: Optional[datetime] = None  # None: a new card, never reviewed
    new: bool = False
    state: str = "new"  # learning | review | relearning | new


class NodeProgress(BaseModel):
    """One node of the map (a syllabus node, or a heading path until the map exists)."""

    path: list[str]
    node: str  # joined path
    questions: int  # past-paper questions placed on it: how often the exam tests it
    cards: int  # cards made from it
    attempted: int  # of its items, those this student has attempted or reviewed
    mastery: float  # 0..1, mean over its questions and its reviewed cards (see progress.py)
    priority: float  # questions × (1 − mastery): 下一步复习 ranks by it
    leaf: bool = False  # no node below it (the finest level); 下一步复习 ranks these
    question_ids: list[str] = Field(default_factory=list)
    material: list[Link] = Field(default_factory=list)
    commands: list[str] = Field(default_factory=list)  # what to run next for it


class Progress(BaseModel):
    profile: str
    attempts: int
    right: int
    wrong: int
    nodes: list[NodeProgress]  # map order: every level, parents before children
    next: list[NodeProgress]  # 下一步复习: the finest nodes by priority, highest first


class ClassNode(BaseModel):
    """What the class gets wrong on one node: counts only, never who."""

    path: list[str]
    node: str
    students: int  # students who attempted its questions
    students_wrong: int  # … and got at least one wrong
    attempts: int
    wrong: int
    wrong_rate: float


class CardsReport(BaseModel):
    chapter: str
    made: list[CardItem]  # new cards
    kept: list[CardItem]  # already stored, the same source still in the material
    confirmed: list[CardItem]  # flagged before, made again from the current material: unflagged
    rejected: list[dict] = Field(default_factory=list)  # model-written cards the claim check refused
