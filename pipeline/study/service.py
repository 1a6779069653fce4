"""The study service: practice that records, the 错题本, FSRS review, cards, export and progress.

The CLI calls it, and the web server will: every method that reads or writes a student's data
takes the :class:`Profile` it acts for (the server gets it from ``authenticate(token)``), and the
store filters every such query by it. An admin profile gets class aggregates only
(:meth:`class_nodes`); the per-student methods refuse it.

Questions are read from the live index (the query service's catalog) each time, so a re-ingest is
seen at once; what a student did is kept apart, in the study database, with a snapshot of each item
practised (the 错题本 still shows a question the material no longer has).
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Optional

from pipeline.ask.retrieve import ChapterNotFound
from pipeline.ask.service import QueryService
from pipeline.index.catalog import current_generation
from pipeline.models import PATH_SEP, Chunk
from pipeline.settings import Settings
from pipeline.study import users
from pipeline.study.cards import llm_cards, section_cards, source_sha
from pipeline.study.items import grade_choice, item_id, letters, parse_item_id, question_item, section_link
from pipeline.study.models import (AttemptResult, CardItem, CardsReport, ClassNode, DueItem, Item, Link, Mistake,
                                   Profile, Progress, QuestionItem)
from pipeline.study.nodes import Node, ancestors, joined, under
from pipeline.study.on_map import MapMastery, map_mastery
from pipeline.study.progress import next_review, node_progress
from pipeline.study.schedule import parse_rating, rating_for
from pipeline.study.store import Attempt, StudyStore

__all__ = ["StudyService", "StudyError", "ItemNotFound", "NotAllowed", "ChapterNotFound"]
CHECKED = "cards_checked_generation"  # meta key: the index generation the cards were last checked against


class StudyError(ValueError):
    """A request the service cannot do, in one line (unknown item, missing rating, admin profile…)."""


class ItemNotFound(StudyError):
    pass


class NotAllowed(StudyError):
    """The profile may not do this: the admin asking for a student's data, a student for the class's."""


class StudyService:
    def __init__(self, settings: Settings, query: Optional[QueryService] = None, *, llm=None):
        self.settings = settings
        self.cfg = settings.study
        self.query = query or QueryService(settings, llm=llm)
        self.store = StudyStore(self.db_path, self.cfg)
        self._records_cache: Optional[tuple[Optional[str], list[Chunk]]] = None

    @property
    def db_path(self) -> Path:
        return Path(self.cfg.db) if self.cfg.db else Path(self.settings.data_dir) / "study.sqlite"

    def now(self) -> datetime:
        return self.cfg.now.astimezone(timezone.utc) if self.cfg.now else datetime.now(timezone.utc)

    def day(self, now: Optional[datetime] = None) -> tuple[datetime, datetime]:
        """(start, end) of the study day holding ``now``: local time, starting at ``day_starts_at``."""
        local = (now or self.now()).astimezone()
        start = local.replace(hour=self.cfg.day_starts_at, minute=0, second=0, microsecond=0)
        if local < start:
            start -= timedelta(days=1)
        return start, start + timedelta(days=1)

    # ------------------------------------------------------------------ profiles and tokens
    def profile(self, name: str = "default") -> Profile:
        """The profile called ``name``, created on first use. Raises StudyError for a bad name."""
        try:
            return users.ensure(self.store.db(), name, self.now())
        except users.ProfileError as exc:
            raise StudyError(str(exc)) from None

    def add_user(self, name: str, *, admin: bool = False, rotate: bool = False) -> tuple[Profile, str]:
        """(profile, token): the token is shown once and only its hash is kept."""
        try:
            return users.issue_token(self.store.db(), name, self.now(), admin=admin, rotate=rotate)
        except users.ProfileError as exc:
            raise StudyError(str(exc)) from None

    def authenticate(self, token: str) -> Optional[Profile]:
        """The profile a bearer token acts as; None for any token that is not live."""
        return users.authenticate(self.store.db(), token)

    def users(self) -> list[dict]:
        return users.listing(self.store.db())

    @staticmethod
    def _student(profile: Profile) -> Profile:
        if profile.role != "student":
            raise NotAllowed(f"{profile.name!r} is the admin: it sees class aggregates only, not a student's data")
        return profile

    # ------------------------------------------------------------------ questions
    def _catalog(self):
        return self.query.retriever().catalog

    def _records(self) -> list[Chunk]:
        """One record chunk per question id (the one with the most text, if ever two), read once per
        index generation (every answer looks its question up)."""
        retriever = self.query.retriever()
        generation = retriever.meta.get("generation")
        cached = self._records_cache
        if cached is not None and cached[0] == generation:
            return cached[1]
        best: dict[str, Chunk] = {}
        for c in retriever.catalog.all_questions():
            if c.number is not None and (item_id(c) not in best or len(c.text) > len(best[item_id(c)].text)):
                best[item_id(c)] = c
        records = list(best.values())
        self._records_cache = (generation, records)  # one assignment: safe for the server's threads
        return records

    def _depth(self) -> int:
        return self.cfg.node_depth

    def question(self, qid: str) -> QuestionItem:
        """The practice item of ``2024-41`` (or ``2024年第41题``) from the live index."""
        key = parse_item_id(qid)
        records = self._records()
        found = [c for c in records if key and (c.year, c.number) == key]
        if not found:
            raise ItemNotFound(f"no past-paper question {qid!r} in the material (ids look like 2024-41; "
                               "`python cli.py questions` lists them)")
        return question_item(found[0], self._catalog(), records, self._depth())

    def practice_set(self, profile: Profile, *, chapter: Optional[str] = None, year: Optional[int] = None,
                     qtype: Optional[str] = None, limit: Optional[int] = None,
                     ids: Optional[list[str]] = None) -> list[QuestionItem]:
        """The questions to practise: those never attempted first (in paper order), then the ones
        attempted longest ago. ``chapter`` selects as ``questions --chapter`` does."""
        self._student(profile)
        if ids:
            return [self.question(i) for i in ids]
        records = self._records()
        chosen = records
        if chapter:
            keys = {(r["year"], r["number"]) for r in self.query.questions(chapter)}
            chosen = [c for c in chosen if (c.year, c.number) in keys]
        chosen = [c for c in chosen if (year is None or c.year == year) and (qtype is None or c.qtype == qtype)]
        if not chosen:
            what = ", ".join(f"{k} {v}" for k, v in (("chapter", chapter), ("year", year), ("type", qtype)) if v)
            raise StudyError(f"no past-paper question matches {what or 'the material'}")
        last = {a["item_id"]: a["at"] for a in reversed(self.store.attempts(profile))}
        chosen.sort(key=lambda c: (item_id(c) in last, last.get(item_id(c), ""), c.year or 0, c.number))
        catalog = self._catalog()
        return [question_item(c, catalog, records, self._depth()) for c in chosen[:limit]]

    def item(self, iid: str) -> Item:
        """A question from the live index (or its snapshot, when the material lost it) or a card."""
        if parse_item_id(iid):
            try:
                return self.question(iid)
            except ItemNotFound:
                stored = self.store.item(iid)
                if stored is None:
                    raise
                return stored
        card = self.store.item(iid)
        if card is None:
            raise ItemNotFound(f"no item {iid!r}: question ids look like 2024-41, card ids like c-1a2b…")
        return card

    # ------------------------------------------------------------------ attempts
    def answer(self, profile: Profile, iid: str, answer: str = "", *, rating: Optional[int | str] = None,
               seconds: Optional[float] = None, mode: str = "practice", client_key: Optional[str] = None) -> AttemptResult:
        """Grade and store one attempt (one transaction): a choice against the booklet (right =
        Good, wrong = Again; ``rating`` ignored); a comprehensive question, or a choice the booklet
        gives no letter for, and a card by the student's own ``rating`` (1-4 or again/hard/good/easy).
        The same ``client_key`` twice stores it once."""
        self._student(profile)
        item = self.item(iid)
        value = parse_rating(str(rating)) if rating is not None else None
        if rating is not None and value is None:
            raise StudyError(f"rating {rating!r}: use 1-4 or again, hard, good, easy")
        verdict = "self"
        if isinstance(item, CardItem):
            if item.flag:
                raise StudyError(f"card {item.item_id} is held back: {item.flag}")
        elif item.qtype == "choice" and grade_choice(item, "") is not None:
            if not letters(answer):
                raise StudyError(f"{iid}: answer with an option letter ({'/'.join(item.options) or 'A-D'})")
            verdict = grade_choice(item, answer)
            value = rating_for(verdict)
        if value is None:
            raise StudyError(f"{iid}: grade yourself with a rating (1 again, 2 hard, 3 good, 4 easy)")
        return self.store.record(profile, Attempt(item=item, answer=answer, verdict=verdict, rating=value, at=self.now(),
                                                  mode=mode, seconds=seconds, client_key=client_key))

    def attempts(self, profile: Profile, item_id: Optional[str] = None, limit: Optional[int] = 50) -> list[dict]:
        return self.store.attempts(self._student(profile), item_id, limit)

    def mistakes(self, profile: Profile, node: Optional[str] = None, *, include_fixed: bool = True) -> list[Mistake]:
        """The 错题本, open entries first; ``node`` keeps entries on a node whose heading (or joined
        path) contains it. ``changed`` marks a question whose record changed since."""
        entries = self.store.mistakes(self._student(profile))
        if node:
            entries = [e for e in entries if any(under(tuple(n), node) for n in e.item.nodes)]
        if not include_fixed:
            entries = [e for e in entries if not e.fixed]
        try:
            current = {item_id(c): c.chunk_id for c in self._records()}
        except Exception:  # no index (yet, or any more): the snapshots still show
            current = {}
        for e in entries:
            if isinstance(e.item, QuestionItem) and current:
                e.changed = current.get(e.item.item_id) != e.item.chunk_id
        return entries

    # ------------------------------------------------------------------ review
    def due(self, profile: Profile, until: Optional[datetime] = None) -> list[DueItem]:
        """Today's review: items due before the study day ends (or ``until``), then new cards up to
        the day's allowance. Cards whose source changed are held back (see check_cards)."""
        self._student(profile)
        self.check_cards()
        start, end = self.day()
        rows = self.store.due(profile, until or end, start)
        return [DueItem(item=item, due=due, new=due is None, state=state) for item, due, state in rows]

    def review(self, profile: Profile, iid: str, answer: str = "", **kw) -> AttemptResult:
        return self.answer(profile, iid, answer, mode="review", **kw)

    # ------------------------------------------------------------------ cards
    def check_cards(self) -> list[CardItem]:
        """After a re-ingest, every card whose source chunk's text is no longer in the index, at the
        card's section, is flagged (held back from review and export, listed by ``cards --flagged``);
        one whose text is there under a new chunk id (another part of its file changed) is re-linked
        to it. Runs once per index generation; returns the newly flagged."""
        meta = current_generation(self.query.store.index_dir)
        if meta is None or self.store.meta(CHECKED) == meta.get("generation"):
            return []
        catalog = self._catalog()
        cards = [c for c in self.store.cards() if not c.flag]
        ids = list({c.chunk_id for c in cards})
        present: set[str] = set()
        for i in range(0, len(ids), 500):
            present |= set(catalog.by_ids(ids[i:i + 500]))
        relinked, gone = [], []
        sections: dict[str, list[Chunk]] = {}
        for c in cards:
            if c.chunk_id in present:
                continue
            joined_path = PATH_SEP.join(c.chapter_path)
            if joined_path not in sections:
                sections[joined_path] = catalog.chunks_in([joined_path])
            same = next((k for k in sections[joined_path] if source_sha(k) == c.source_sha), None)
            if same is not None:
                relinked.append(c.model_copy(update={"chunk_id": same.chunk_id, "citation": same.citation()}))
            else:
                gone.append(c)
        now = self.now()
        if relinked:
            self.store.put_cards(relinked, now)
        self.store.flag({c.item_id: f"source changed: its text in the material is no longer what it was quoted from; "
                         f'`python cli.py cards --chapter "{c.chapter_path[-1] if c.chapter_path else ""}"` makes it '
                         "again from the current text" for c in gone}, now)
        self.store.set_meta(CHECKED, meta.get("generation", ""))
        return [c.model_copy(update={"flag": "source changed"}) for c in gone]

    def make_cards(self, chapter: str, *, use_llm: bool = False) -> CardsReport:
        """Cards from the sections under ``chapter`` (ChapterNotFound when none matches): extractive,
        plus model-written ones that pass the claim check when ``use_llm``."""
        self.check_cards()
        retriever = self.query.retriever()
        chapters = retriever.resolve_chapter(chapter)
        chunks = [c for c in retriever.catalog.chunks_in(chapters) if c.kind not in ("question", "paper")]
        by_section: dict[str, list[Chunk]] = {}
        for c in chunks:
            by_section.setdefault(c.chapter, []).append(c)
        made: list[CardItem] = []
        for section in by_section.values():
            made += section_cards(section, retriever.bm25.vocab, self.cfg.cards_per_section, self._depth())
        rejected: list[dict] = []
        if use_llm:
            llm = self.query.llm()
            if llm is None:
                raise StudyError(f"model-written cards need the LLM: {self.query.llm_error}")
            for c in chunks:
                kept, bad = llm_cards(c, lambda s, u: llm.complete(s, u, max_tokens=self.settings.llm.max_tokens),
                                      depth=self._depth())
                made += kept
                rejected += bad
        stored = {c.item_id: c for c in self.store.cards()}
        unique = list({c.item_id: c for c in made}.values())
        self.store.put_cards(unique, self.now())
        return CardsReport(chapter=chapter, made=[c for c in unique if c.item_id not in stored],
                           kept=[c for c in unique if c.item_id in stored and not stored[c.item_id].flag],
                           confirmed=[c for c in unique if c.item_id in stored and stored[c.item_id].flag],
                           rejected=rejected)

    def cards(self, chapter: Optional[str] = None, *, flagged: Optional[bool] = None) -> list[CardItem]:
        """Stored cards (under ``chapter``: its sections in the index, and stored cards whose headings
        match it, so a card whose section left the material is still listed, flagged)."""
        self.check_cards()
        chapters = None
        if chapter:
            stored = {PATH_SEP.join(c.chapter_path) for c in self.store.cards() if any(chapter in h for h in c.chapter_path)}
            try:
                chapters = sorted(set(self.query.retriever().resolve_chapter(chapter)) | stored)
            except ChapterNotFound:
                if not stored:
                    raise
                chapters = sorted(stored)
        return [c for c in self.store.cards(chapters) if flagged is None or bool(c.flag) == flagged]

    # ------------------------------------------------------------------ export
    def export_anki(self, path: Path, *, chapter: Optional[str] = None, deck: Optional[str] = None) -> dict:
        """An Anki deck (.apkg) of the past-paper questions and the cards under ``chapter`` (all
        without): stable GUIDs, so importing a re-export updates the notes."""
        from pipeline.study.anki import write_deck

        self.check_cards()
        if chapter:
            keys = {(r["year"], r["number"]) for r in self.query.questions(chapter)}
            records = [c for c in self._records() if (c.year, c.number) in keys]
            self.query.retriever().resolve_chapter(chapter)  # ChapterNotFound for a chapter the index lacks
        else:
            records = self._records()
        all_records = self._records()
        catalog = self._catalog()
        questions = [question_item(c, catalog, all_records, self._depth()) for c in records]
        cards = [c for c in self.cards(chapter) if not c.flag]
        return write_deck(Path(path), questions, cards, deck_name=deck or f"examrag {chapter or '408'}",
                          store=self.query.store)

    # ------------------------------------------------------------------ progress
    def progress(self, profile: Profile, *, top: int = 5) -> Progress:
        """Mastery per node and 下一步复习 (see progress.py)."""
        self._student(profile)
        self.check_cards()
        catalog = self._catalog()
        questions = [question_item(c, None, (), self._depth()) for c in self._records()]
        cards = [c for c in self.store.cards() if not c.flag]
        chapters = [c for c, _ in catalog.chapters()]

        def material(node: Node) -> list[Link]:
            under_node = [c for c in chapters if tuple(c.split(PATH_SEP))[: len(node)] == node]
            return [section_link(c.split(PATH_SEP), catalog) for c in under_node[:3]]

        nodes = node_progress(questions, cards, self.store.states(profile), self.store.scheduler, self.now(),
                              self.cfg.mastery_horizon_days, self.cfg.mistake_max_rating, material)
        counts = self.store.counts(profile)
        return Progress(profile=profile.name, nodes=nodes, next=next_review(nodes, top), **counts)

    def map_mastery(self, profile: Profile) -> Optional[dict[str, MapMastery]]:
        """Mastery per syllabus node id (the /map page's colours; see on_map.py); None without a map."""
        self._student(profile)
        self.check_cards()
        cards = [c for c in self.store.cards() if not c.flag]
        return map_mastery(Path(self.settings.data_dir), cards, self.store.states(profile), self.store.scheduler,
                           self.now(), self.cfg.mastery_horizon_days, self.cfg.mistake_max_rating)

    def class_nodes(self, admin: Profile) -> list[ClassNode]:
        """Which nodes the class gets wrong: per node, how many students attempted its questions and
        how many got one wrong, attempts and wrong attempts; counts only, never who. Admin only."""
        if admin.role != "admin":
            raise NotAllowed("class aggregates are for the admin token")
        stats: dict[Node, dict] = {}
        for r in self.store.class_rows():
            for n in json.loads(r["nodes"]):
                for a in ancestors(tuple(n)):
                    s = stats.setdefault(a, {"students": set(), "wrong_students": set(), "attempts": 0, "wrong": 0})
                    s["students"].add(r["profile_id"])
                    s["attempts"] += r["n"]
                    s["wrong"] += r["wrong"]
                    if r["wrong"]:
                        s["wrong_students"].add(r["profile_id"])
        out = [ClassNode(path=list(n), node=joined(n), students=len(s["students"]), students_wrong=len(s["wrong_students"]),
                         attempts=s["attempts"], wrong=s["wrong"], wrong_rate=round(s["wrong"] / s["attempts"], 4))
               for n, s in stats.items()]
        return sorted(out, key=lambda c: (-c.wrong_rate, -c.wrong, c.node))
