"""The study loop over HTTP (issue 24): practice that records, the 错题本, FSRS review, progress, and
the class aggregates for the admin. Each route is one call of
:class:`~pipeline.study.service.StudyService`, which returns the models of ``cli.py … --json``.

Whose data: the profile comes from the request's token only (auth.py's Guard puts it in
``request.state.profile``); on a loopback server without tokens it is ``default``, the CLI's. No
parameter, body field or URL segment names a profile, and every per-student read is filtered by
it in SQL (store.py), so one student's ids in another's URLs find nothing. The admin token gets 403
on every per-student route and is the only one that gets ``/api/class/nodes``.
"""

from __future__ import annotations

from typing import Annotated, Literal, Optional, Union

from fastapi import APIRouter, Depends, Path, Query, Request
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, StringConstraints

from pipeline.serve.auth import caller
from pipeline.serve.context import Ctx
from pipeline.serve.errors import errors
from pipeline.serve.limits import MAX_CHAPTER, MAX_NAME
from pipeline.serve.views.answers import Text, _whole_number
from pipeline.study.models import AttemptResult, ClassNode, DueItem, Mistake, Profile, Progress, QuestionItem
from pipeline.study.on_map import MapMastery
from pipeline.study.service import ItemNotFound, NotAllowed, StudyError, StudyService

router = APIRouter()
MAX_ANSWER = 2000  # characters of a written answer: every one JSON-escaped (12 bytes) still under the body limit
ItemId = Annotated[str, StringConstraints(min_length=1, max_length=MAX_NAME, pattern=r"^[\w\-]+$")]
ClientKey = Annotated[str, StringConstraints(min_length=1, max_length=MAX_NAME, pattern=r"^[\w\-]+$")]
RatingName = Literal["again", "hard", "good", "easy"]
RatingNumber = Annotated[int, Field(strict=False, ge=1, le=4), BeforeValidator(_whole_number)]  # 3 or 3.0, as JSON Schema


class Me(BaseModel):
    profile: str
    role: Literal["student", "admin"]
    token: bool  # the request carried a token (else: the loopback owner, profile default)


class AttemptRequest(BaseModel):
    model_config = ConfigDict(strict=True, regex_engine="python-re")

    item_id: ItemId = Field(description="A question (2024-41) or a card (c-…) id.")
    answer: Text = Field("", max_length=MAX_ANSWER, description="An option letter for a choice question; "
                                                                "the written answer for a comprehensive one.")
    rating: Optional[Union[RatingNumber, RatingName]] = Field(
        None, description="Self-grade (1 again, 2 hard, 3 good, 4 easy): needed for a comprehensive question "
                          "and a card; a choice question is graded against the booklet (right = good, wrong = again).")
    seconds: Optional[float] = Field(None, ge=0, le=86400, description="Time taken.", allow_inf_nan=False)
    client_key: Optional[ClientKey] = Field(None, description="A fresh UUID per attempt: a retried POST is stored once.")


class Attempt(BaseModel):
    id: int
    item_id: str
    mode: str
    answer: str
    verdict: str
    rating: int
    seconds: Optional[float] = None
    at: str
    chunk_id: Optional[str] = None


class StudyProgress(Progress):
    by_node_id: Optional[dict[str, MapMastery]] = Field(
        None, description="Mastery per syllabus node id (the /map page's colours); null without a syllabus map.")


def study(request: Request) -> StudyService:
    return request.app.state.study


Study = Annotated[StudyService, Depends(study)]


def me(request: Request, svc: Study) -> Profile:
    """The profile this request acts as (see the module docstring)."""
    return caller(request) or svc.profile("default")


@router.get("/api/me", summary="Who the token acts as", response_model=Me, responses=errors(503))
async def whoami(request: Request, ctx: Ctx):
    profile = caller(request)
    name, role = (profile.name, profile.role) if profile else ("default", "student")
    return ctx.json({"profile": name, "role": role, "token": profile is not None})


@router.get("/api/practice", summary="A practice set (= `practice --json`): never-attempted first",
            response_model=list[QuestionItem], responses=errors(403, 404, 422, 503))
async def practice(ctx: Ctx, svc: Study, request: Request,
                   chapter: Annotated[Optional[str], Query(max_length=MAX_CHAPTER, description="As `questions --chapter`.")] = None,
                   year: Annotated[Optional[int], Query(ge=1900, le=2100)] = None,
                   type: Annotated[Optional[Literal["choice", "comprehensive"]], Query(description="Question type.")] = None,
                   limit: Annotated[Optional[int], Query(ge=1, le=500)] = None):
    def run():
        try:
            return svc.practice_set(me(request, svc), chapter=chapter or None, year=year, qtype=type, limit=limit)
        except StudyError as exc:
            if isinstance(exc, NotAllowed):
                raise
            return []  # no question matches: an empty set (an unknown chapter is still chapter_not_found)

    return ctx.json([q.model_dump(mode="json") for q in await ctx.in_thread(run)])


def _record(ctx: Ctx, svc: StudyService, request: Request, body: AttemptRequest, mode: str):
    def run():
        return svc.answer(me(request, svc), body.item_id, body.answer, rating=body.rating, seconds=body.seconds,
                          mode=mode, client_key=body.client_key)

    return ctx.in_thread(run)


@router.post("/api/attempts", summary="Record a practice attempt (= `practice --question ID --answer X`)",
             response_model=AttemptResult, responses=errors(403, 404, 408, 413, 422, 503))
async def record_attempt(body: AttemptRequest, ctx: Ctx, svc: Study, request: Request):
    return ctx.json((await _record(ctx, svc, request, body, "practice")).model_dump(mode="json"))


@router.get("/api/attempts", summary="Your attempts, newest first", response_model=list[Attempt],
            responses=errors(403, 422, 503))
async def attempts(ctx: Ctx, svc: Study, request: Request,
                   item_id: Annotated[Optional[str], Query(max_length=MAX_NAME, description="Only this item's.")] = None,
                   limit: Annotated[int, Query(ge=1, le=1000)] = 50):
    return ctx.json(await ctx.in_thread(lambda: svc.attempts(me(request, svc), item_id or None, limit)))


@router.get("/api/attempts/{attempt_id}", summary="One of your attempts", response_model=Attempt,
            responses=errors(403, 404, 422, 503))
async def attempt(ctx: Ctx, svc: Study, request: Request, attempt_id: Annotated[int, Path(ge=1, le=2**62)]):
    def run():
        found = [a for a in svc.attempts(me(request, svc), limit=None) if a["id"] == attempt_id]
        if not found:  # another student's attempt is as absent as one never made
            raise ItemNotFound(f"you have no attempt {attempt_id}")
        return found[0]

    return ctx.json(await ctx.in_thread(run))


@router.get("/api/mistakes", summary="The 错题本 (= `mistakes --json`), open entries first",
            response_model=list[Mistake], responses=errors(403, 422, 503))
async def mistakes(ctx: Ctx, svc: Study, request: Request,
                   node: Annotated[Optional[str], Query(max_length=MAX_CHAPTER, description="Only entries on a node whose heading contains this.")] = None,
                   open: Annotated[bool, Query(description="Only entries not fixed since.")] = False):
    rows = await ctx.in_thread(lambda: svc.mistakes(me(request, svc), node or None, include_fixed=not open))
    return ctx.json([m.model_dump(mode="json") for m in rows])


@router.get("/api/review", summary="Today's review (= `review --json`): due items, then new cards",
            response_model=list[DueItem], responses=errors(403, 503))
async def due(ctx: Ctx, svc: Study, request: Request):
    return ctx.json([d.model_dump(mode="json") for d in await ctx.in_thread(lambda: svc.due(me(request, svc)))])


@router.post("/api/review", summary="Record a review (= `review --item ID …`); FSRS reschedules it",
             response_model=AttemptResult, responses=errors(403, 404, 408, 413, 422, 503))
async def review(body: AttemptRequest, ctx: Ctx, svc: Study, request: Request):
    return ctx.json((await _record(ctx, svc, request, body, "review")).model_dump(mode="json"))


@router.get("/api/progress", summary="Mastery per node, 下一步复习, and mastery per syllabus node id (= `progress --json`)",
            response_model=StudyProgress, responses=errors(403, 422, 503))
async def progress(ctx: Ctx, svc: Study, request: Request, top: Annotated[int, Query(ge=1, le=100)] = 5):
    def run():
        profile = me(request, svc)
        out = svc.progress(profile, top=top).model_dump(mode="json")
        by_id = svc.map_mastery(profile)
        out["by_node_id"] = {k: v.model_dump(mode="json") for k, v in by_id.items()} if by_id is not None else None
        return out

    return ctx.json(await ctx.in_thread(run))


@router.get("/api/class/nodes", summary="Admin token only: which nodes the class gets wrong (counts, never who)",
            response_model=list[ClassNode], responses=errors(403, 503))
async def class_nodes(ctx: Ctx, svc: Study, request: Request):
    return ctx.json([c.model_dump(mode="json") for c in await ctx.in_thread(lambda: svc.class_nodes(me(request, svc)))])
