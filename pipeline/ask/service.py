"""The one query service: search, ask, chapters, questions, status and eval over the published index.

The CLI, the benchmarks and the web server all call it, so every answer, JSON shape and eval number
comes from one place. It reads the last published index generation and follows a new one when an
ingest publishes it (checked on every call: one small file read), so a long-running server never
needs a restart. It never takes the data-dir lock: reading works while an ingest runs.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, Optional

from pipeline.ask import attributes
from pipeline.ask import session as sessions
from pipeline.ask.answer import AnswerConfig, render
from pipeline.ask.answer import answer as compose_answer
from pipeline.ask.citations import targets as citation_targets
from pipeline.ask.claims import load_rules as load_claim_rules
from pipeline.ask.contrast import SIDE_HITS, side_queries
from pipeline.ask.evaluate import MRR_DEPTH, first_hit_rank, read_questions, run_answers, summarise
from pipeline.ask.extras import study_extras
from pipeline.ask.records import to_record
from pipeline.ask.retrieve import ChapterNotFound, IndexMissing, Retrieval, Retriever, to_hit
from pipeline.errors import one_line
from pipeline.index.catalog import current_generation
from pipeline.index.stage import collect
from pipeline.llm.from_settings import make_llm_from_settings
from pipeline.models import PATH_SEP, Answer, Chunk
from pipeline.settings import Settings
from pipeline.store import Store
from pipeline.syllabus.models import MAP, syllabus_dir
from pipeline.syllabus.summary import MATERIAL_KINDS
from pipeline.syllabus.view import Resolution, SyllabusMissing, SyllabusView, missing_message

__all__ = ["QueryService", "Retrieved", "IndexMissing", "ChapterNotFound", "NotFound", "SessionError",
           "SyllabusMissing", "answer_json", "chapter_tree", "render"]
SessionError = sessions.SessionError
NO_GENERATION = ("record", "refusal")  # answer sources decided before the LLM would speak
SIDE_DEPTH = 8  # passages of a contrast side's search looked at beyond the answer's (records and repeats skipped)


class _ModelNeeded(Exception):
    pass


class _Unloaded:
    """Stands for the configured but not yet loaded LLM while an answer is composed: present (so a refusal
    reads as one), and a call to it means the model is needed after all."""

    model_id = None
    slots = 1

    def complete(self, *args, **kwargs):
        raise _ModelNeeded()


# the keys of a hit in `ask --json` (and in the web API): what a student or a script needs
HIT_KEYS = ("rank", "chunk_id", "doc_id", "source", "chapter_path", "chunk_position", "pages", "score", "text",
            "kind", "year", "number", "citation", "chapter_paths", "sources", "boxes", "parts")


def answer_json(a: Answer) -> dict:
    """The ``ask --json`` object (the web API returns the same): the answer, what it rests on (the
    record, the quoted key sentences, each generated sentence with its check), the hits, and where each
    citation it shows opens (``citations``: text → document, pages, boxes)."""
    out = a.model_dump(include={"question", "answer", "refused", "source", "kind"})
    out["text"] = render(a)  # what the CLI prints: 原文要点 (when shown) and the answer
    if a.standalone_question:
        out["standalone_question"] = a.standalone_question
    if a.record is not None:
        out["record"] = a.record.model_dump(include={"year", "number", "answer", "analysis", "chunk_id", "citation", "figure_pages",
                                                     "match", "strong"})
    out["key_sentences"] = [k.model_dump(include={"text", "chunk_id", "citation"}) for k in a.key_sentences]
    out["claims"] = [c.model_dump(include={"text", "supported", "reason", "citation"}) for c in a.claims]
    if a.extras is not None:
        out["extras"] = a.extras.model_dump()
    out["hits"] = [{k: d[k] for k in HIT_KEYS} for d in (h.model_dump() for h in a.hits)]
    # every citation shown → the document, pages and boxes it opens (a record's booklet citation included)
    out["citations"] = {c: t.model_dump() for c, t in (a.citations or citation_targets(a)).items()}
    if a.note:
        out["note"] = a.note
    out["timings"] = a.timings
    if a.conflicts:
        out["conflicts"] = a.conflicts
    if a.program is not None:
        out["program"] = a.program.model_dump(include={"steps", "result", "inputs"})
    if a.chapter is not None:
        out["chapter"] = a.chapter
    return out


class NotFound(LookupError):
    """A past-paper question or a passage the index does not hold (one line saying how to find one)."""


def chapter_tree(rows: Iterable[tuple[str, int]]) -> list[dict]:
    """Nested nodes {"title", "chunks" (own + descendants), "children"} from joined chapter paths."""
    roots: list[dict] = []
    for joined, n in rows:
        level = roots
        for title in joined.split(PATH_SEP):
            node = next((c for c in level if c["title"] == title), None)
            if node is None:
                node = {"title": title, "chunks": 0, "children": []}
                level.append(node)
            node["chunks"] += n
            level = node["children"]
    return roots


def _in_index_order(catalog, ids: Iterable[str], batch: int = 500) -> list[Chunk]:
    """The chunks with these ids in the index's order (batched: SQLite caps the parameters of one query)."""
    ids, found = list(ids), []
    for i in range(0, len(ids), batch):
        part = ids[i:i + batch]
        found += catalog.db.execute(f"SELECT pos, body FROM chunks WHERE chunk_id IN ({','.join('?' * len(part))})", part).fetchall()
    return [Chunk.model_validate_json(body) for _, body in sorted(found)]


def question_row(q: Chunk, syllabus: Optional[SyllabusView] = None) -> dict:
    """A past-paper record as ``questions --json`` (and the web API) show it; ``syllabus_path`` is its best
    place on the syllabus (None without a syllabus, or unplaced), ``syllabus_paths`` every place."""
    places = syllabus.places(q.chunk_id) if syllabus is not None else []
    return {"year": q.year, "number": q.number, "qtype": q.qtype, "text": q.text, "chapter_paths": q.chapter_paths,
            "source": q.source, "pages": q.pages, "syllabus_path": places[0].path if places else None,
            "syllabus_confidence": places[0].confidence if places else None,
            "syllabus_paths": [p.path for p in places]}


@dataclass
class Retrieved:
    """One question's retrieval (:meth:`QueryService.retrieve`): what an answer is composed from."""

    question: str
    standalone: str  # the question made standalone from its session's turns (else the question)
    retrieval: Retrieval
    retriever: Retriever
    turns: Optional[sessions.Session] = None
    profile: str = sessions.DEFAULT_PROFILE  # whose session the turn is saved to
    resolution: Optional[Resolution] = None  # what --chapter resolved to (a syllabus node, or headings)


class QueryService:
    """Everything a reader of the index can ask. Thread-safe; the LLM is built on first use."""

    def __init__(self, settings: Settings, *, llm=None, embedder=None):
        self.settings = settings
        self.store = Store(settings.data_dir)
        self._llm = llm
        self._llm_error: Optional[str] = None
        self._embedder = embedder
        self._retriever: Optional[Retriever] = None
        self._syllabus: Optional[SyllabusView] = None
        self._syllabus_stamp: Optional[tuple[int, int]] = None
        self._lock = threading.Lock()

    # ------------------------------------------------------------------ index
    def retriever(self) -> Retriever:
        """The retriever of the live generation, reopened when a newer one was published.
        Raises IndexMissing when nothing was ever indexed."""
        meta = current_generation(self.store.index_dir)
        if meta is None:
            raise IndexMissing(f"no index in {self.settings.data_dir}: run `python cli.py ingest DIR` first")
        with self._lock:
            if self._retriever is None or self._retriever.meta.get("generation") != meta.get("generation"):
                self._retriever = self._open_retriever()
            return self._retriever

    def _open_retriever(self) -> Retriever:
        """Open the live generation. A generation can be removed between reading current.json and
        opening its files (an ingest published twice within generation_grace, or a writer with grace 0):
        then current.json already names a newer one, so read it again instead of failing the request."""
        for attempt in range(5):
            try:
                return Retriever(self.settings.data_dir, self.settings, embedder=self._embedder)
            except (FileNotFoundError, sqlite3.OperationalError):
                if attempt == 4:
                    raise
                time.sleep(0.05 * (attempt + 1))
        raise AssertionError("unreachable")

    # ------------------------------------------------------------------ llm
    def llm(self):
        """The configured LLM, built once; None with an explanation in :attr:`llm_error` when unavailable."""
        with self._lock:
            if self._llm is None and self._llm_error is None:
                if self.settings.llm.backend == "none":
                    self._llm_error = "EXAMRAG_LLM_BACKEND=none"
                else:
                    try:
                        self._llm = make_llm_from_settings(self.settings)
                    except Exception as exc:  # missing model, runtime, endpoint: passages are still shown
                        self._llm_error = one_line(exc)
            return self._llm

    @property
    def llm_error(self) -> Optional[str]:
        return self._llm_error

    @property
    def llm_model_id(self) -> Optional[str]:
        """The model id of the LLM once built (None before, or when there is none); never builds it."""
        return getattr(self._llm, "model_id", None)

    # ------------------------------------------------------------------ queries
    def answer_config(self) -> AnswerConfig:
        a, g = self.settings.ask, self.settings.llm
        return AnswerConfig(min_coverage=a.refuse_min_coverage, min_bm25=a.refuse_min_bm25,
                            min_passage=a.refuse_min_passage_coverage,
                            min_passage_weak=a.refuse_min_passage_coverage_weak, max_tokens=g.max_tokens,
                            max_context_chars=a.max_context_chars, key_sentences=a.key_sentences,
                            record_answers=a.record_answers, calc_programs=a.calc_programs, calc_model_programs=a.calc_model_programs, calc_formulas=a.calc_formulas, contrast_sides=a.contrast_sides, contrast_table_first=a.contrast_table_first, unsupported=a.unsupported,
                            rules_file=Path(a.claims_file) if a.claims_file else None)

    def search(self, question: str, *, chapter: Optional[str] = None, top_k: int = 5,
               mode: Optional[str] = None) -> Answer:
        """Ranked, cited passages, the record answer and the grounded core, without the LLM (``ask --no-llm``)."""
        return self.ask(question, chapter=chapter, top_k=top_k, mode=mode, use_llm=False)

    def ask(self, question: str, *, chapter: Optional[str] = None, top_k: int = 5, mode: Optional[str] = None,
            use_llm: bool = True, on_token: Optional[Callable[[str], None]] = None, session: Optional[str] = None,
            extras: bool = False, cancel: Optional[threading.Event] = None, profile: str = sessions.DEFAULT_PROFILE) -> Answer:
        """Answer from the material. Raises ChapterNotFound for an unknown ``chapter``, IndexMissing,
        SessionError for a bad session name.

        ``session`` names a conversation: its last turns turn a follow-up into a standalone question
        before retrieval, and this turn is added to them; sessions belong to ``profile`` (one student
        never continues another's). ``extras`` adds 复习建议 and 延伸问题.
        When the LLM is wanted but unavailable, or fails mid-answer, the passages (and the grounded
        core) are still returned, with ``note`` saying why and ``generation_failed`` set."""
        found = self.retrieve(question, chapter=chapter, top_k=top_k, mode=mode, session=session, profile=profile)
        return self.answer(found, use_llm=use_llm, on_token=on_token, extras=extras, cancel=cancel)

    def retrieve(self, question: str, *, chapter: Optional[str] = None, top_k: int = 5, mode: Optional[str] = None,
                 session: Optional[str] = None, profile: str = sessions.DEFAULT_PROFILE) -> Retrieved:
        """The first half of :meth:`ask`: the follow-up made standalone, ``chapter`` resolved (a syllabus
        node first, else headings) and the passages retrieved, once. The web server looks at it
        (:meth:`needs_llm`) before it queues, then answers from it."""
        retriever = self.retriever()
        turns = sessions.load(self.settings.data_dir, session, profile) if session else None
        standalone = sessions.rewrite(question, turns.turns, retriever.bm25.vocab) if turns else question
        resolution, within = self._chapter_filter(chapter)
        retrieval = retriever.search(standalone, top_k=top_k, chapter=None if within is not None else chapter,
                                     within=within, mode=mode)
        retrieval.side_hits = self._side_hits(standalone, retriever, retrieval, None if within is not None else chapter,
                                              within)
        return Retrieved(question, standalone, retrieval, retriever, turns, profile, resolution)

    def _side_hits(self, question: str, retriever: Retriever, retrieval: Retrieval, chapter: Optional[str],
                   within: Optional[set[str]]) -> list:
        """A contrast question's passages on each side alone and on the two compared (``contrast.side_queries``;
        BM25 only, ~10 ms each), ``contrast.SIDE_HITS`` of each search that the answer's hits do not hold:
        its top passages often speak of one side only."""
        if not self.settings.ask.contrast_sides or not retrieval.hits or retrieval.exact_question:
            return []
        rules = load_claim_rules(Path(self.settings.ask.claims_file) if self.settings.ask.claims_file else None)
        have = {h.chunk_id for h in retrieval.hits}
        out = []
        for query in side_queries(retrieval.asked or question, rules, retriever.bm25.vocab):
            found = retriever.search(query, top_k=SIDE_DEPTH + len(have), chapter=chapter, within=within, mode="bm25")
            new = [h for h in found.hits if h.chunk_id not in have and h.kind != "question"][:SIDE_HITS]
            have.update(h.chunk_id for h in new)
            out += new
        return out

    def needs_llm(self, found: Retrieved) -> bool:
        """Whether answering ``found`` would call the LLM: not when none is available, nor for an answer
        decided before the model would speak (:meth:`_decided_without_model`: a past-paper record, a
        refusal, a calculation computed by rule, a contrast table that answers alone). The server asks
        this before an answer takes a place in the generation queue."""
        if self.llm() is None:
            return False
        return self._decided_without_model(found) is None

    def _decided_without_model(self, found: Retrieved, on_token: Optional[Callable[[str], None]] = None
                               ) -> Optional[Answer]:
        """The answer composed with the model standing by (:class:`_Unloaded`) when it never calls it; None
        when it would. Tokens are held back until the answer is known, so a run that turns out to need
        the model shows nothing twice."""
        held: list[str] = []
        try:
            result = compose_answer(found.standalone, found.retrieval, _Unloaded(), cfg=self.answer_config(),
                                    vocab=found.retriever.bm25.vocab, on_token=held.append)
        except _ModelNeeded:
            return None
        alone = (result.contrast is not None and result.contrast.answers in ("alone", "stated")  # no model asked
                 or result.note == attributes.NOTE)  # a thing's column of a table
        if result.source not in NO_GENERATION + ("program",) and not alone:  # a program by rule: no model call
            return None
        for piece in held:
            if on_token:
                on_token(piece)
        return result

    def _without_loading(self, found: Retrieved, on_token: Optional[Callable[[str], None]]) -> Optional[Answer]:
        """The answer when it is decided before the model would speak (:meth:`_decided_without_model`),
        made without loading the model: a 2 GB load took a record answer from 0.7 s to 2.2 s. None when
        the model is needed (or is already loaded, or cannot be: then :meth:`answer` goes the usual way)."""
        with self._lock:
            if self._llm is not None or self._llm_error is not None or self.settings.llm.backend == "none":
                return None
        return self._decided_without_model(found, on_token)

    def answer(self, found: Retrieved, *, use_llm: bool = True, on_token: Optional[Callable[[str], None]] = None,
               extras: bool = False, cancel: Optional[threading.Event] = None) -> Answer:
        """The second half of :meth:`ask`: the answer composed from a retrieval already made (see there)."""
        question, standalone, retrieval, retriever = found.question, found.standalone, found.retrieval, found.retriever
        result = self._without_loading(found, on_token) if use_llm else None
        llm = self.llm() if use_llm and result is None else None
        note = f"no generated answer: {self.llm_error}" if use_llm and result is None and llm is None else None
        try:
            if result is None:
                result = compose_answer(standalone, retrieval, llm, cfg=self.answer_config(), vocab=retriever.bm25.vocab,
                                        on_token=on_token, cancel=cancel)
        except Exception as exc:  # endpoint down mid-answer, model crash, cancelled: what was built still counts
            result = getattr(exc, "partial_answer", None) or Answer(question=standalone, answer=None, refused=False,
                                                                    hits=retrieval.hits)
            note = f"no generated answer: {one_line(exc)}"
        result.question = question
        if found.resolution is not None:
            result.chapter = found.resolution.to_json()
        if standalone != question:
            result.standalone_question = standalone
        result.note = result.note or note
        result.generation_failed = note is not None
        if extras:
            result.extras = study_extras(result.hits, retriever.catalog)
        result.citations = citation_targets(result, retriever.catalog.by_ids)
        if found.turns is not None:
            sessions.save_turn(self.settings.data_dir, found.turns,
                               sessions.Turn(question=question, standalone=standalone,
                                             answer=sessions.latest_answer(result.answer)), found.profile)
        return result

    def chapters(self) -> list[dict]:
        return chapter_tree(self.retriever().catalog.chapters())

    def questions(self, chapter: Optional[str] = None, year: Optional[int] = None) -> list[dict]:
        """Past-paper questions; with ``chapter``, those placed under the syllabus node it resolves to
        (:meth:`resolve_chapter`), or without a syllabus those whose best-linked section (or own path) is
        under a heading containing it; with ``year``, that year's."""
        qs = self.retriever().catalog.all_questions()
        resolution, within = self._chapter_filter(chapter)
        if within is not None:
            qs = [q for q in qs if q.chunk_id in within]
        elif chapter:
            qs = [q for q in qs if any(chapter in h for p in q.chapter_paths[:1] + [q.chapter_path] for h in p)]
        if year is not None:
            qs = [q for q in qs if q.year == year]
        view = self.syllabus()
        return [question_row(q, view) for q in qs]

    # ------------------------------------------------------------------ syllabus
    def syllabus(self) -> Optional[SyllabusView]:
        """The syllabus map of the data dir, reopened when a placement run rewrote it; None without one."""
        try:
            st = (syllabus_dir(self.settings.data_dir) / MAP).stat()
        except FileNotFoundError:
            return None
        stamp = (st.st_mtime_ns, st.st_size)
        with self._lock:
            if self._syllabus is None or self._syllabus_stamp != stamp:
                self._syllabus, self._syllabus_stamp = SyllabusView.open(self.settings.data_dir), stamp
            return self._syllabus

    def resolve_chapter(self, chapter: str) -> Resolution:
        """``--chapter X`` → the highest syllabus node containing X (``node_id`` None: no syllabus, or no
        node matches, and filters fall back to headings). ``note()`` says which node was used."""
        view = self.syllabus()
        return view.resolve(chapter) if view is not None else Resolution(needle=chapter)

    def _chapter_filter(self, chapter: Optional[str]) -> tuple[Optional[Resolution], Optional[set[str]]]:
        """The resolution of ``chapter`` and, when it is a syllabus node, the chunk ids placed under it."""
        if not chapter:
            return None, None
        resolution = self.resolve_chapter(chapter)
        view = self.syllabus()
        if resolution.node_id is None or view is None:
            return resolution, None
        return resolution, view.chunk_ids_under(resolution.filter_node_id)

    def syllabus_map(self, node: Optional[str] = None) -> dict:
        """The syllabus map (``cli.py map --json``): per node its questions by year with points, the material
        covering it by source, and the gaps; with ``node`` (an id or a --chapter text) that subtree.
        Raises SyllabusMissing without a syllabus, KeyError for a node that matches nothing."""
        view = self.syllabus()
        if view is None:
            raise SyllabusMissing(missing_message(self.settings.data_dir))
        return view.map_json(node)

    def syllabus_material(self, node: str, limit: int = 200) -> dict:
        """The material placed on a syllabus node or below (``node``: an id or a --chapter text), in the hit
        shape with each chunk's placement confidence there: what the /map page opens. In reading order: the
        files with the most chunks on the node first (the notes on that topic, not a passing mention), each
        in index order. At most ``limit`` chunks; ``total`` says how many there are. Raises SyllabusMissing,
        KeyError."""
        view = self.syllabus()
        if view is None:
            raise SyllabusMissing(missing_message(self.settings.data_dir))
        node_id = node if node in view.nodes else view.resolve(node).node_id
        if node_id is None:
            raise KeyError(node)
        under = view.descendants(node_id)
        chunks = [c for c in _in_index_order(self.retriever().catalog, view.chunk_ids_under(node_id))
                  if c.kind in MATERIAL_KINDS]
        per_file: dict[str, int] = {}
        for c in chunks:
            per_file[c.source] = per_file.get(c.source, 0) + 1
        files = {src: rank for rank, src in enumerate(sorted(per_file, key=lambda f: (-per_file[f], f)))}
        chunks.sort(key=lambda c: files[c.source])  # stable: index order within a file

        def confidence(c: Chunk) -> float:
            return max((p.confidence for p in view.places(c.chunk_id) if p.node_id in under), default=0.0)

        rows = [{**{k: v for k, v in to_hit(c, i, 0.0).model_dump().items() if k in HIT_KEYS and k not in ("rank", "score")},
                 "syllabus_confidence": round(confidence(c), 3)} for i, c in enumerate(chunks[:limit], 1)]
        return {"node_id": node_id, "path": view.nodes[node_id].path, "total": len(chunks), "chunks": rows}

    def question(self, year: int, number: int) -> dict:
        """One past-paper record by year and number: its row, the booklet's 答案 and 解析 verbatim with their
        citation (what ``ask "2024年第2题"`` answers with), and where its stem and solution were read.
        Raises NotFound."""
        found = self.retriever().catalog.questions(year, number)
        if not found:
            raise NotFound(f"no question {year}年第{number}题 in the material; `cli.py questions` lists those there are")
        hit = to_hit(found[0], 1, 1.0)
        record = to_record(hit, "reference", 1.0)
        return {**question_row(found[0], self.syllabus()), "chunk_id": hit.chunk_id, "citation": hit.citation, "answer": record.answer,
                "analysis": record.analysis, "answer_citation": record.citation, "sources": hit.sources,
                "parts": [p.model_dump() for p in hit.parts], "boxes": [b.model_dump() for b in hit.boxes]}

    def passage(self, chunk_id: str) -> dict:
        """One indexed passage by chunk id (a hit's ``chunk_id``), in the hit shape without rank and score.
        Raises NotFound."""
        chunk = self.retriever().catalog.by_ids([chunk_id]).get(chunk_id)
        if chunk is None:
            raise NotFound(f"no passage {chunk_id} in the index (ids come from a search hit's chunk_id; "
                           "a re-ingest that changed its text gives it a new id)")
        return {k: v for k, v in to_hit(chunk, 1, 0.0).model_dump().items() if k in HIT_KEYS and k not in ("rank", "score")}

    def status(self) -> dict:
        """Documents with their per-stage status and error lines, failures, and index counts (equal when healthy)."""
        manifest = self.store.load_manifest()
        docs = [{"doc_id": d.doc_id, "sources": d.sources, "stages": {k: v.status for k, v in d.stages.items()},
                 "errors": list(dict.fromkeys(e for v in d.stages.values() for e in v.errors))}
                for d in manifest.documents.values()]
        counts: dict = {"documents": len(docs), "failures": manifest.failures}
        meta = current_generation(self.store.index_dir)
        if meta:
            counts["manifest_chunks"] = self._manifest_chunks(manifest)
            r = self.retriever()
            counts["bm25_chunks"] = len(r.bm25)
            counts["catalog_chunks"] = len(r.catalog)
            counts["vector_chunks"] = r.vectors.count()
            counts["embed_model"] = meta.get("embed_model")
        return {"documents": docs, "counts": counts}

    def _manifest_chunks(self, manifest) -> int:
        """Chunks the manifest's documents give. An ingest running meanwhile may replace or remove an
        artifact between the manifest read and the artifact read: then read both again."""
        for attempt in range(3):
            try:
                return len(collect(self.store, manifest)[0])
            except FileNotFoundError:
                if attempt == 2:
                    raise
                manifest = self.store.load_manifest()
        raise AssertionError("unreachable")

    def evaluate(self, qa_file: Path, *, mode: Optional[str] = None, chapter_aware: bool = False,
                 on_row: Optional[Callable[[dict], None]] = None) -> dict:
        """Retrieval quality on a QA file: hit@1/3/5 and MRR, overall and per kind.

        ``on_row`` receives each question's {id, question, rank, hits} as it is scored. Raises
        ValueError (one line naming file and line) for a malformed file."""
        questions = list(read_questions(qa_file))
        retriever = self.retriever()
        rows = []
        for q in questions:
            chapter = q.get("chapter") if chapter_aware else None
            try:
                hits = retriever.search(q["question"], top_k=MRR_DEPTH, chapter=chapter, mode=mode).hits
            except ChapterNotFound:
                hits = []
            rank = first_hit_rank(hits, q.get("gold", []))
            rows.append({"id": q.get("id"), "kind": q.get("kind", "all"), "rank": rank})
            if on_row is not None:
                on_row({"id": q.get("id"), "question": q["question"], "rank": rank,
                        "hits": [h.model_dump() for h in hits]})
        summary = summarise(rows)
        summary["mode"] = mode or self.settings.ask.retrieval_mode
        return summary

    def evaluate_answers(self, qa_file: Path, *, use_llm: bool = True, mode: Optional[str] = None,
                         on_row: Optional[Callable[[dict], None]] = None) -> dict:
        """Answer every question of a QA file and judge each against its reference ``answer``:
        right / wrong / refused, unsupported claims, time per answer (``eval --answers``)."""
        questions = list(read_questions(qa_file))
        self.retriever()  # IndexMissing before the first question, not inside the loop
        _, summary = run_answers(questions, lambda q: self.ask(q, mode=mode, use_llm=use_llm), on_row=on_row)
        summary["llm"] = (self.llm().model_id if use_llm and self.llm() is not None else None)
        return summary
