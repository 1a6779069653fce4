"""POST /api/ask: retrieve once, then answer at once when no generation is needed (a past-paper
record, a refusal, passages only), else take a place in the generation queue."""

from __future__ import annotations

from typing import Annotated, Literal, Optional

from fastapi import APIRouter, Request
from fastapi.responses import StreamingResponse
from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, StringConstraints

from pipeline.ask.session import DEFAULT_PROFILE
from pipeline.serve.auth import SERVER_ADMIN, caller
from pipeline.serve.context import Ctx
from pipeline.serve.errors import errors
from pipeline.serve.limits import MAX_CHAPTER, MAX_NAME, MAX_QUESTION
from pipeline.serve.queue import QueueFull
from pipeline.serve.streaming import EventStream, Job, answer_events, direct_events

router = APIRouter()
Mode = Literal["bm25", "hybrid", "vector"]

EVENT = {"type": "object", "required": ["event", "data"], "properties": {
    "event": {"type": "string", "enum": ["queued", "token", "answer", "error"]},
    "data": {"type": "string", "contentMediaType": "application/json", "description": "The event's JSON object."}}}
EVENTS = ("One event at a time (`schema` describes each): `queued` {position, slots, running, waiting, queue_size} while waiting for a generation slot; "
          "`token` {text} pieces; then one `answer` (the `ask --json` object) or one `error` {error, detail}.")


def _unicode(text: str) -> str:
    """JSON may escape half a surrogate pair (\\ud800): no text the material, a file name or a reply can hold."""
    if any("\ud800" <= ch <= "\udfff" for ch in text):
        raise ValueError("not valid Unicode (a lone surrogate)")
    return text


def _whole_number(value):
    """An integer as JSON Schema has it (40 or 40.0), not a string or a boolean."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError("must be a whole number")
    return value


SESSION_NAME = r"^([\w\-][\w.\-]{0,63}|\.[\w\-][\w.\-]{0,62}|\.\.[\w.\-]{1,62})$"  # session.py's rule: letters of any script, digits, _ - . ; not "." or ".."
Text = Annotated[str, AfterValidator(_unicode)]
# constraints inside the type, not on Field: on an Optional[Annotated[…]] pydantic drops a Field pattern from the schema
SessionName = Annotated[str, StringConstraints(min_length=1, max_length=MAX_NAME, pattern=SESSION_NAME), AfterValidator(_unicode)]
TopK = Annotated[int, BeforeValidator(_whole_number), Field(strict=False)]


class AskRequest(BaseModel):
    # JSON types as declared (0 is not false, "5" is not 5); patterns as Python's re reads them
    model_config = ConfigDict(strict=True, regex_engine="python-re")

    question: Text = Field(min_length=1, max_length=MAX_QUESTION, description=f"The question (at most {MAX_QUESTION} characters).")
    chapter: Optional[Text] = Field(None, max_length=MAX_CHAPTER, description="Only passages under a heading containing this (as `ask --chapter`).")
    session: Optional[SessionName] = Field(None, description="Conversation name (as `ask --session`): its last 3 turns make a follow-up stand alone.")
    extras: bool = Field(False, description="Add 复习建议 and 延伸问题 (as `ask --extras`).")
    top_k: TopK = Field(5, ge=1, le=50, description="Passages retrieved (as `ask --top-k`).")
    mode: Optional[Mode] = Field(None, description="Retrieval mode (as `ask --mode`).")
    use_llm: bool = Field(True, description="False: passages and the grounded core only (as `ask --no-llm`); never queued.")


@router.post("/api/ask", summary="Stream an answer as server-sent events", response_class=StreamingResponse,
             responses={200: {"content": {"text/event-stream": {"schema": EVENT}}, "description": EVENTS},
                        **errors(404, 408, 413, 422, 503)})
async def ask(body: AskRequest, ctx: Ctx, request: Request):
    profile = caller(request)  # a session belongs to the token's profile; the server token's and the owner's: default
    owner = profile.name if profile is not None and profile is not SERVER_ADMIN else DEFAULT_PROFILE

    def retrieve():  # the errors a student can fix (unknown chapter, bad session) come before the stream
        found = ctx.service.retrieve(body.question, chapter=body.chapter or None, top_k=body.top_k,
                                     mode=body.mode, session=body.session, profile=owner)
        return found, body.use_llm and ctx.service.needs_llm(found)

    found, generate = await ctx.in_thread(retrieve)
    kwargs = {"extras": True} if body.extras else {}
    if not generate:  # milliseconds of work: never behind other students' generations
        return EventStream(direct_events(ctx, found, use_llm=body.use_llm, **kwargs))
    try:
        ticket = ctx.queue.admit()
    except QueueFull as exc:
        raise ctx.busy("busy", f"the answer queue is full: {exc}; try again shortly") from None
    job = Job(ticket, ctx.queue)
    return EventStream(answer_events(ctx, found, job, **kwargs), job.close)
