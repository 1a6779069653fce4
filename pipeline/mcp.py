"""The MCP server (official ``mcp`` SDK): examrag's query service as tools an agent calls.

Over stdio (what a desktop assistant starts: ``cli.py mcp``) or streamable HTTP on 127.0.0.1
(``cli.py mcp --http``), behind the same rules as ``cli.py serve``: loopback only unless
EXAMRAG_API_TOKEN is set, and with a token every request carries ``Authorization: Bearer``.

Every tool calls :class:`~pipeline.ask.service.QueryService`, so a tool's structured result is the
CLI's ``--json`` object (``search`` = ``ask --json --no-llm``, ``ask`` = ``ask --json``, ``status`` =
``status --json``, ``practice_questions`` = ``questions --json``). A failure the student can fix (no
index yet, unknown chapter, no such question) is a tool error whose text is the CLI's one-line cause.
The SDK and the index are imported when a server is built, never by ``cli.py --help``.
"""

from __future__ import annotations

import json
import sys
import threading
from typing import Annotated, Any, Optional

from pydantic import BaseModel, ConfigDict, Field

from pipeline import __version__
from pipeline.ask.service import IndexMissing, NotFound, QueryService, answer_json
from pipeline.errors import one_line
from pipeline.models import Box, Hit, Part
from pipeline.settings import Settings

HTTP_PATH = "/api/mcp"  # under /api/, where `serve`'s token rule applies
DEFAULT_PORT = 8409  # next to serve's 8408
CITE = ("Quote the answer with its citations exactly as given ([来源: 章节路径|片段位置]), and add nothing the "
        "passages do not say.")
REFUSAL = "在现有资料中没有找到相关内容"
INSTRUCTIONS = (
    "examrag answers questions about the student's own 408 exam material (数据结构, 计算机组成原理, 操作系统, "
    "计算机网络: their textbooks, notes and past papers), offline, from that material only. Use it whenever the "
    "student asks about their material, a topic of it, or a past-paper question; prefer it over general "
    f"knowledge for those. {CITE} When a result is refused (text {REFUSAL}), the material does not cover the "
    "question: tell the student so, and if you then answer from general knowledge, say that it is not from "
    "their material.")

ASK_HELP = (
    "The checked answer to a question about the student's 408 material: a past-paper record's booklet answer, "
    "or a generated answer whose every sentence was checked against the passages (`claims`), or the quoted key "
    f"sentences (`key_sentences`); with the cited passages (`hits`). {CITE} `refused: true` ({REFUSAL}) means "
    "the material does not cover it. Generating can take tens of seconds on a laptop; `search` is instant.")
Chapter = Annotated[Optional[str], Field(description="Only passages under a heading containing this text, e.g. 查找 "
                                                     "or 第三章 (as `cli.py ask --chapter`).")]


class _Out(BaseModel):
    """Tool results keep any key the service adds later (the CLI's JSON shapes grow; schemas do not cut them)."""

    model_config = ConfigDict(extra="allow")


class KeySentenceOut(_Out):
    text: str
    chunk_id: str
    citation: str


class ClaimOut(_Out):
    text: str
    supported: bool = Field(description="Whether the passages back this sentence.")
    reason: str = ""
    citation: Optional[str] = None


class RecordOut(_Out):
    year: Optional[int] = None
    number: Optional[int] = None
    answer: Optional[str] = Field(None, description="The answer booklet's 答案, verbatim.")
    analysis: Optional[str] = Field(None, description="The answer booklet's 解析, verbatim.")
    chunk_id: str
    citation: str
    match: str
    strong: bool


class AnswerOut(_Out):
    """The ``ask --json`` object."""

    question: str
    answer: Optional[str] = Field(description="The checked answer with its citations; null when there is none.")
    refused: bool = Field(description=f"True when the material does not cover the question ({REFUSAL}).")
    source: str = Field(description="What the answer is: record (past-paper booklet), llm, grounded (quoted key "
                                    "sentences), refusal, none (passages only).")
    kind: Optional[str] = None
    text: str = Field(description="What the CLI prints: 原文要点 when shown, then the answer.")
    record: Optional[RecordOut] = None
    key_sentences: list[KeySentenceOut] = Field(description="Sentences quoted verbatim from the passages (原文要点).")
    claims: list[ClaimOut] = Field(description="Each generated sentence and whether the passages back it.")
    hits: list[Hit] = Field(description="The ranked passages, each with its citation, pages and highlight boxes.")
    note: Optional[str] = Field(None, description="Why there is no generated answer, when there is none.")


class QuestionRow(_Out):
    year: Optional[int] = None
    number: Optional[int] = None
    qtype: Optional[str] = None
    text: str
    chapter_paths: list[list[str]] = Field(description="The textbook sections the question tests, best first.")
    source: str
    pages: list[int]


class QuestionRecord(QuestionRow):
    chunk_id: str
    citation: str = Field(description="Where the question (its stem) was read.")
    answer: Optional[str] = Field(None, description="The answer booklet's 答案, verbatim.")
    analysis: Optional[str] = Field(None, description="The answer booklet's 解析, verbatim.")
    answer_citation: str = Field(description="Where the answer and analysis were read: cite it with them.")
    sources: list[str]
    parts: list[Part] = Field(description="The stem's and the solution's files and pages.")
    boxes: list[Box]


def _tool_errors(fn):
    """Run a tool body; any failure becomes a tool error carrying the CLI's one-line cause."""
    from mcp.server.mcpserver.exceptions import ToolError

    try:
        return fn()
    except Exception as exc:  # noqa: BLE001 - IndexMissing, ChapterNotFound, NotFound, or a crash: one line
        raise ToolError(one_line(exc)) from None


def build_server(settings: Settings, service: Optional[QueryService] = None):
    """The MCP server over ``service`` (default: a new QueryService(settings))."""
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError
    from mcp_types import ToolAnnotations

    service = service or QueryService(settings)
    server = MCPServer("examrag", version=__version__, instructions=INSTRUCTIONS, log_level="WARNING")
    read_only = ToolAnnotations(read_only_hint=True, open_world_hint=False)

    @server.tool(annotations=read_only)
    def search(query: Annotated[str, Field(min_length=1, max_length=500, description="What to look for, in the "
                                                                                     "student's words.")],
               chapter: Chapter = None,
               k: Annotated[int, Field(ge=1, le=50, description="How many passages.")] = 5) -> AnswerOut:
        """Ranked passages from the student's own material, each with its citation [来源: 章节路径|片段位置],
        pages and highlight boxes, plus the past-paper record answer or the quoted key sentences when
        there are (no language model: fast). Call it to find where the material covers a topic, or to
        read the passages yourself. Quote what you use with its citation."""
        return _tool_errors(lambda: answer_json(service.search(query, chapter=chapter, top_k=k)))

    @server.tool(annotations=read_only, description=ASK_HELP)
    def ask(question: Annotated[str, Field(min_length=1, max_length=500, description="The student's question, "
                                                                                     "e.g. B树和B+树的区别是什么.")],
            chapter: Chapter = None) -> AnswerOut:
        return _tool_errors(lambda: answer_json(service.ask(question, chapter=chapter)))

    @server.tool(annotations=read_only)
    def lookup_question(year: Annotated[int, Field(ge=1900, le=2100, description="The paper's year, e.g. 2024.")],
                        number: Annotated[int, Field(ge=1, le=200, description="The question's number, e.g. 41.")]
                        ) -> QuestionRecord:
        """One past-paper question by year and number (when the student names one, e.g. 2024年第41题): its
        text, the answer booklet's 答案 and 解析 verbatim, and where each was read. Cite the answer with
        ``answer_citation`` and the question with ``citation``."""
        return _tool_errors(lambda: service.question(year, number))

    @server.tool(annotations=read_only)
    def practice_questions(chapter: Annotated[Optional[str], Field(description="Questions testing a chapter "
                                                                               "containing this text.")] = None,
                           year: Annotated[Optional[int], Field(ge=1900, le=2100, description="Only this year's "
                                                                                              "paper.")] = None
                           ) -> list[QuestionRow]:
        """Past-paper questions in the student's material to practise with, optionally those testing a
        chapter or from one year. Then use lookup_question for a question's answer."""
        return _tool_errors(lambda: service.questions(chapter, year))

    @server.tool(annotations=read_only)
    def status() -> dict[str, Any]:
        """What is ingested: documents with their per-stage state and problems, and index counts (equal when
        healthy). Call it when results look empty or stale; the student re-runs `examrag ingest DIR`."""
        return _tool_errors(service.status)

    @server.tool(annotations=read_only)
    def syllabus_map(node: Annotated[Optional[str], Field(max_length=200, description="A syllabus node: its id or "
                                                                                       "a chapter text such as 查找 "
                                                                                       "(default: the whole map).")]
                     = None) -> dict[str, Any]:
        """The exam syllabus (考试大纲) as a tree, each node with its past-paper questions by year (with
        points), how much of the student's material covers it and from which sources, and the gaps (tested
        points no material covers; points never tested). Call it for "what should I study", "how often is
        X tested" or "what does my material miss"; with ``node``, only that subtree."""
        return _tool_errors(lambda: service.syllabus_map(node))

    @server.resource("examrag://chunk/{chunk_id}", mime_type="application/json",
                     description="One source passage by a hit's chunk_id: its text, citation, pages and boxes.")
    def chunk(chunk_id: str) -> str:
        try:
            return json.dumps(service.passage(chunk_id), ensure_ascii=False)
        except NotFound as exc:
            raise ResourceNotFoundError(str(exc)) from None
        except IndexMissing as exc:
            raise ResourceError(str(exc)) from None

    return server


def _warm(service: QueryService) -> None:
    """Open the index and load the LLM in the background, so the first call does not pay for it
    (a failure here is reported by the call that needs the part)."""
    def run():
        try:
            service.retriever()
            service.llm()
        except Exception:  # noqa: BLE001 - IndexMissing etc.: the tools say it
            pass

    threading.Thread(target=run, name="examrag-mcp-warm", daemon=True).start()


def run_stdio(settings: Settings) -> None:
    """Serve over stdin/stdout until the client closes them (the SDK points fd 1 at stderr meanwhile,
    so stray output cannot corrupt the protocol)."""
    service = QueryService(settings)
    _warm(service)
    build_server(settings, service).run("stdio")


def http_app(settings: Settings, host: str, service: Optional[QueryService] = None):
    """The streamable HTTP app at :data:`HTTP_PATH` behind ``serve``'s Guard (Host check on loopback,
    bearer token when EXAMRAG_API_TOKEN is set)."""
    from pipeline.serve.auth import Guard, is_loopback

    app = build_server(settings, service).streamable_http_app(streamable_http_path=HTTP_PATH, host=host)
    return Guard(app, token=settings.serve.api_token, loopback_only=is_loopback(host))


def run_http(settings: Settings, host: str, port: int) -> None:
    """Serve streamable HTTP until Ctrl-C. Raises BindRefused (beyond loopback without a token) and
    BindFailed before anything is served, as ``serve`` does."""
    import uvicorn

    from pipeline.serve.run import bind, check_bind

    token = settings.serve.api_token
    check_bind(host, token)
    sock = bind(host, port)
    sock.listen(128)  # connections made once the address is printed wait for uvicorn instead of being refused
    service = QueryService(settings)
    app = http_app(settings, host, service)
    _warm(service)
    shown = f"[{host}]" if ":" in host else host
    print(f"examrag mcp: streamable HTTP on http://{shown}:{sock.getsockname()[1]}{HTTP_PATH} "
          f"({'Authorization: Bearer <EXAMRAG_API_TOKEN> required' if token else 'loopback only, no token'}); "
          "Ctrl-C to stop", file=sys.stderr, flush=True)
    config = uvicorn.Config(app, log_level="warning", access_log=False, timeout_graceful_shutdown=3,
                            server_header=False)
    uvicorn.Server(config).run(sockets=[sock])
