"""Typed artifacts passed between stages. Every artifact written to disk carries
``schema_version`` so a reader can refuse what it does not understand."""

from __future__ import annotations

from enum import StrEnum
from typing import Literal, Optional, Union

from pydantic import BaseModel, Field, SerializerFunctionWrapHandler, model_serializer

SCHEMA_VERSION = 1
PATH_SEP = " › "


class Status(StrEnum):
    """How one document went in one stage (a StrEnum: prints and compares as its value, ``"success"``)."""

    SUCCESS = "success"
    PARTIAL = "partial"
    FAILED = "failed"
    SKIPPED = "skipped"


class InputFormat(StrEnum):
    """What kind of file a document was read from (``ParsedDoc.format``); pipeline/parse/formats.py
    maps file suffixes to it and picks the reader."""

    PDF = "pdf"
    IMAGE = "image"
    MARKDOWN = "md"
    TEXT = "txt"
    OFFICE = "office"  # docx/pptx/xlsx/html/epub, through MarkItDown


class ErrorItem(BaseModel):
    """One problem with one input, printable as a single line."""

    file: str
    stage: str
    message: str
    page: Optional[int] = None

    def line(self) -> str:
        where = f"{self.file}" + (f" (第{self.page}页)" if self.page else "")
        return f"{where}: {self.stage}: {self.message}"


class Table(BaseModel):
    caption: str = ""
    header: list[str] = Field(default_factory=list)
    rows: list[list[str]] = Field(default_factory=list)


class OcrLine(BaseModel):
    text: str
    box: list[float]  # x0, y0, x1, y1 in image pixels
    confidence: float


class PageInfo(BaseModel):
    """What the parser decided for one page: the text layer was used, or OCR."""

    number: int  # 1-based
    verdict: Literal["good", "missing", "garbled", "image"] = "good"
    method: Literal["text", "ocr", "none"] = "text"
    chars: int = 0
    ocr_confidence: Optional[float] = None


class TextLine(BaseModel):
    """One line of a block and where it sits: for a PDF in points on its page, origin top-left, y down
    (PyMuPDF's coordinates, OCR boxes included); for an image file in pixels on page 1."""

    text: str
    page: int  # 1-based
    x0: float
    y0: float
    x1: float
    y1: float


class Block(BaseModel):
    kind: Literal["heading", "text", "table", "code"] = "text"
    text: str
    page: Optional[int] = None  # 1-based; None for non-paged sources
    chapter_path: list[str] = Field(default_factory=list)
    level: Optional[int] = None  # heading level, 1 = outermost
    table: Optional[Table] = None
    band: Literal["top", "body", "bottom"] = "body"  # where on the page; helps header/footer rules
    lines: list[TextLine] = Field(default_factory=list)  # PDFs and images: one per text line (none for tables)


DocKind = Literal["textbook", "paper", "note"]
_CLOSING = ("status", "errors")  # where StageArtifact's own fields stand in every artifact on disk


class StageArtifact(BaseModel):
    """What every per-document stage artifact carries: which document (id and the path it was read
    from), the schema it is written in, and how its stage went (the runner reads ``status`` and
    ``errors`` back, and never records success while errors are listed).

    On disk ``status`` and ``errors`` close the object, after the stage's own fields, as they did
    before this base existed: the artifacts stay byte for byte what they were, and so do the
    downstream input hashes computed from them."""

    schema_version: int = SCHEMA_VERSION
    doc_id: str
    source: str  # path as given to ingest
    status: Status = Status.SUCCESS
    errors: list[ErrorItem] = Field(default_factory=list)

    @model_serializer(mode="wrap")
    def _status_last(self, handler: SerializerFunctionWrapHandler) -> dict:
        data = handler(self)
        for key in _CLOSING:
            if key in data:
                data[key] = data.pop(key)
        return data


class ParsedDoc(StageArtifact):
    format: InputFormat
    kind: DocKind = "note"
    title: str = ""
    pages: list[PageInfo] = Field(default_factory=list)
    blocks: list[Block] = Field(default_factory=list)


class Section(BaseModel):
    """A run of cleaned text under one chapter_path."""

    chapter_path: list[str]
    text: str
    pages: list[int] = Field(default_factory=list)
    tables: list[Table] = Field(default_factory=list)  # originals of rows rewritten as 字段：值
    formulas: list[str] = Field(default_factory=list)  # originals of formulas rewritten as text


class QuestionSource(BaseModel):
    """One document a question record was read from, and which of its parts it gave."""

    doc_id: str = ""
    source: str = ""
    pages: list[int] = Field(default_factory=list)
    parts: list[Literal["text", "options", "answer", "analysis"]] = Field(default_factory=list)


class Question(BaseModel):
    """One past-paper question, findable by year and number."""

    year: Optional[int] = None
    number: int
    qtype: Literal["choice", "comprehensive", "other"] = "other"
    section: str = ""
    text: str
    options: dict[str, str] = Field(default_factory=dict)
    answer: Optional[str] = None
    analysis: Optional[str] = None
    pages: list[int] = Field(default_factory=list)
    chapter_path: list[str] = Field(default_factory=list)
    chapter_paths: list[list[str]] = Field(default_factory=list)  # textbook sections it tests
    keywords: list[str] = Field(default_factory=list)
    sources: list[QuestionSource] = Field(default_factory=list)  # documents it was read from (see clean.merge)


class CleanDoc(StageArtifact):
    kind: DocKind
    title: str = ""
    sections: list[Section] = Field(default_factory=list)
    questions: list[Question] = Field(default_factory=list)
    removed: dict[str, int] = Field(default_factory=dict)  # rule name -> lines removed


class Enrichment(BaseModel):
    summary: str = ""
    keywords: list[str] = Field(default_factory=list)
    backend: str = ""
    model: str = ""
    error: Optional[str] = None


class EnrichedDoc(StageArtifact):
    kind: DocKind
    sections: dict[str, Enrichment] = Field(default_factory=dict)  # joined chapter_path -> enrichment
    questions: dict[str, Enrichment] = Field(default_factory=dict)  # "year-number" -> keywords


class PageRect(BaseModel):
    """A rectangle on one page of one document, in the units of ``TextLine`` (PDF points, origin
    top-left; pixels for an image file)."""

    doc_id: str
    page: int  # 1-based
    x0: float
    y0: float
    x1: float
    y1: float


class Box(PageRect):
    """Where (part of) a chunk's text sits: one line on one page. What a page view highlights."""


def page_label(pages: list[int]) -> str:
    """"3", "3-4", "1、7、13-14": runs of consecutive pages, so a citation never spans pages it does not use."""
    runs: list[list[int]] = []
    for p in sorted(set(pages)):
        if runs and p == runs[-1][-1] + 1:
            runs[-1].append(p)
        else:
            runs.append([p])
    return "、".join(f"{r[0]}-{r[-1]}" if len(r) > 1 else str(r[0]) for r in runs)


class Part(BaseModel):
    """One document's share of a past-paper record merged across documents: the paper gives the stem,
    the answer booklet the solution, each cited with its own file and pages."""

    role: Literal["stem", "solution"]
    doc_id: str
    source: str
    pages: list[int] = Field(default_factory=list)
    citation: str = ""


class Chunk(BaseModel):
    chunk_id: str
    doc_id: str
    source: str
    kind: str
    chapter_path: list[str]
    chunk_position: int  # 1-based position within its section
    pages: list[int] = Field(default_factory=list)
    text: str  # what is shown and cited
    prefix: str = ""  # enrichment; embedded and BM25-indexed, never shown
    year: Optional[int] = None
    number: Optional[int] = None
    qtype: Optional[str] = None
    chapter_paths: list[list[str]] = Field(default_factory=list)
    sources: list[str] = Field(default_factory=list)  # every file a merged question record drew on
    boxes: list[Box] = Field(default_factory=list)  # the lines it was read from; [] when they cannot be placed
    parts: list[Part] = Field(default_factory=list)  # a past-paper record: where its stem and its solution come from

    @property
    def chapter(self) -> str:
        return PATH_SEP.join(self.chapter_path)

    @property
    def index_text(self) -> str:
        return f"{self.prefix}{self.text}" if self.prefix else self.text

    def citation(self) -> str:
        """``[来源: 章节路径|第N页·片段K]``; a past-paper record cites where its stem was read."""
        stem = next((p for p in self.parts if p.role == "stem"), None)
        if stem is not None:
            return stem.citation
        pos = f"片段{self.chunk_position}"
        if self.pages:
            pos = f"第{'-'.join(str(p) for p in sorted({self.pages[0], self.pages[-1]}))}页·" + pos
        return f"[来源: {self.chapter or self.source}|{pos}]"


class IndexedDoc(StageArtifact):
    chunks: list[Chunk] = Field(default_factory=list)
    tokens: list[list[str]] = Field(default_factory=list)  # BM25 tokens per chunk, so rebuilds never re-tokenize


class Hit(BaseModel):
    rank: int
    chunk_id: str
    doc_id: str
    source: str
    chapter_path: list[str]
    chunk_position: int
    pages: list[int]
    score: float
    text: str
    kind: str = ""
    year: Optional[int] = None
    number: Optional[int] = None
    citation: str = ""
    chapter_paths: list[list[str]] = Field(default_factory=list)
    sources: list[str] = Field(default_factory=list)
    boxes: list[Box] = Field(default_factory=list)  # lines to highlight on the cited pages (see Chunk.boxes)
    parts: list[Part] = Field(default_factory=list)  # a past-paper record's stem and solution, each with its file


class KeySentence(BaseModel):
    """A sentence quoted verbatim from a retrieved passage (原文要点)."""

    text: str
    chunk_id: str
    citation: str
    score: float = 0.0  # share of the question's content it covers, rank-discounted


class ContrastRow(BaseModel):
    """One aspect of a contrast table: the fact each side's cell quotes (None: the material does not say)."""

    aspect: str
    cells: list[Optional[KeySentence]]

    @property
    def full(self) -> bool:
        return all(c is not None for c in self.cells)


class ContrastTable(BaseModel):
    """A contrast question's table (pipeline/ask/contrast.py): the two things, one row per aspect."""

    things: list[str]
    rows: list[ContrastRow]
    # the table is the answer: "fallback" (the model's answer failed the check), "alone" (asked instead of the model),
    # "stated": the material states the difference itself (``stated``), which is the answer instead of the rows
    answers: Literal["", "fallback", "alone", "stated"] = ""
    stated: Optional[KeySentence] = None

    @property
    def full_rows(self) -> int:
        return sum(r.full for r in self.rows)


class Claim(BaseModel):
    """One sentence of a generated answer and whether the passages back it."""

    text: str
    supported: bool
    reason: str = ""  # why not (or how: "record", "computed"), e.g. "number 100分 not in the passages"
    citation: Optional[str] = None  # the passage that backs it best
    main: bool = False  # the sentence that carries the answer; if it fails, the grounded core is shown
    shown: Optional[str] = None  # the passage's own sentence shown instead (its formula's letters said there)


class RecordAnswer(BaseModel):
    """A past-paper question record the question resolved to, answered from the answer booklet."""

    year: Optional[int] = None
    number: Optional[int] = None
    qtype: Optional[str] = None
    answer: Optional[str] = None  # verbatim 答案
    analysis: Optional[str] = None  # verbatim 解析
    chunk_id: str
    citation: str
    match: Literal["reference", "stem"] = "reference"  # how it was found
    similarity: float = 1.0  # stem match strength (1.0 for a reference)
    strong: bool = True  # the question resolves to it: it answers alone; else it only leads the prompt
    figure_pages: list[int] = Field(default_factory=list)  # the solution refers to a figure: the pages it is on


class CitationTarget(BaseModel):
    """What one citation an answer shows opens: the document and pages it names (a merged record's
    solution citation names the answer booklet, not the paper the chunk's ``doc_id`` is), and the
    passage's boxes there (empty when the index could not place it)."""

    chunk_id: str
    doc_id: str
    source: str
    pages: list[int] = Field(default_factory=list)
    boxes: list[Box] = Field(default_factory=list)
    role: Optional[Literal["stem", "solution"]] = None  # the record part it cites, for a merged record


class Answer(BaseModel):
    question: str
    answer: Optional[str]
    refused: bool
    hits: list[Hit]
    note: Optional[str] = None  # why there is no generated answer, when there is none
    generation_failed: bool = False  # an answer was wanted but the LLM was unavailable or failed
    kind: Optional[str] = None  # choice | calculation | concept | reason | other
    key_sentences: list[KeySentence] = Field(default_factory=list)
    core_shown: bool = False  # the key sentences are shown as 原文要点 (they are about the question)
    claims: list[Claim] = Field(default_factory=list)
    record: Optional[RecordAnswer] = None
    source: Literal["record", "llm", "program", "grounded", "refusal", "none"] = "none"  # what the answer text is
    prompt_version: Optional[str] = None
    generated: Optional[str] = None  # the model's own text, before the claim check (for eval and debugging)
    # seconds: "total", "first_token", "llm", "llm_first_token"; with a model call also its figures
    # (answer.LLM_FIGURES): prompt_tokens, prompt_cached_tokens, prompt_evaluated_tokens, completion_tokens,
    # prefill_tok_s, gen_tok_s
    timings: dict[str, float] = Field(default_factory=dict)
    standalone_question: Optional[str] = None  # a session's follow-up rewritten to stand alone (what was retrieved)
    extras: Optional["Extras"] = None  # --extras: 复习建议 and 延伸问题
    chapter: Optional[dict] = None  # how --chapter was resolved: a syllabus node, or headings (pipeline/syllabus/view.py)
    conflicts: list[str] = Field(default_factory=list)  # the passages' different numbers for the asked quantity, disclosed
    citations: dict[str, CitationTarget] = Field(default_factory=dict)  # every citation shown → where it opens (ask/citations.py)
    program: Optional["ProgramResult"] = None  # source "program": the calculation's run (ask/calculate.py)
    contrast: Optional[ContrastTable] = None  # a contrast question's table, shown after the answer or as it


ProgramValue = Union[bool, int, float, str, list[Union[bool, int, float, str]]]


class ProgramStep(BaseModel):
    """One named quantity of a calculation program (pipeline/ask/program.py)."""

    name: str  # "_" for a program's bare final expression
    expression: str  # source of its last executed assignment: "addr % page"; "x + 1" for x += 1
    value: ProgramValue  # its value when the program ended
    shown: str  # value for display: 8644, 0.333333, [7, 0, 1]


class ProgramResult(BaseModel):
    """What ``run_program`` gives back: the steps, or a one-line reason it did not run or stopped."""

    ok: bool
    error: Optional[str] = None  # "line 3: attribute access is not allowed", "line 2: stopped: ..."
    steps: list[ProgramStep] = Field(default_factory=list)  # one per name, in first-assignment order
    result: Optional[ProgramStep] = None  # what the last statement assigned or computed
    inputs: list[ProgramStep] = Field(default_factory=list)  # names given a number literal, once, at top level
    elapsed_ms: float = 0.0  # wall time of the whole run, the child process included


class DocReport(BaseModel):
    doc_id: str
    source: str
    status: Status
    errors: list[ErrorItem] = Field(default_factory=list)
    detail: str = ""  # e.g. "reused", "12 chunks", skip reason


class StageReport(BaseModel):
    stage: str
    docs: list[DocReport] = Field(default_factory=list)
    seconds: float = 0.0
    counts: dict[str, int] = Field(default_factory=dict)  # stage-specific totals, e.g. index chunks, LLM calls

    @property
    def failed(self) -> list[DocReport]:
        return [d for d in self.docs if d.status == Status.FAILED]


class FurtherQuestion(BaseModel):
    """A question the material answers, with the passage that answers it."""

    question: str
    chunk_id: str
    citation: str


class Extras(BaseModel):
    """``ask --extras``: 复习建议 and 延伸问题, from the material only (pipeline/ask/extras.py)."""

    review: str = ""
    questions: list[FurtherQuestion] = Field(default_factory=list)


Answer.model_rebuild()
