"""Follow-up questions: the last turns of a named session, and the rewrite of a follow-up
("那它和LRU有什么区别") into a question that stands alone before it is retrieved.

The rewrite is rules, not the LLM: it must be instant, the same every time, and testable, and the
small packaged model rewrites unreliably. A follow-up names its subject with a pronoun (它, 这种算法,
这道题…), which is replaced by the previous question's subject; or it leaves the subject out
("时间复杂度呢？", "那怎么预防？"), and the subject is put in front. A question that names its own
subject is left as it is.

Turns live in ``<data_dir>/sessions/<name>.json`` (atomic writes), the last ``KEEP_TURNS`` of them;
a session of another profile than ``default`` (``ask --profile``) in
``<data_dir>/sessions/profiles/<profile>/<name>.json``, so one student never continues another's.
"""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Optional

from pydantic import BaseModel, Field

from pipeline.store import atomic_write_text

KEEP_TURNS = 3
DEFAULT_PROFILE = "default"  # its sessions stay where they were before profiles existed
NAME = re.compile(r"^[\w\-.]{1,64}$")  # letters (any script), digits, _ - . ; never a path

# a pronoun, optionally with the generic noun it stands for ("这种算法" → the subject as a whole)
_GENERIC = r"(?:算法|协议|结构|方法|方式|过程|问题|概念|机制|策略|技术|设备|指令|部件|方案|操作|情况|东西)"
_PRONOUN = re.compile(rf"(?:这道题|这题|该题|此题|它们|它|(?:这|那|该|此)(?:个|种|类|些)?{_GENERIC}|这个|那个|这种|那种|这些|那些)")
_LEAD = re.compile(r"^(?:那么|那|还有|另外|再问一下|再问|然后|所以)[，,\s]*")
# phrases that ask rather than name: stripped from a question to find its subject
_ASK_HEAD = re.compile(r"^(?:请问|请|能不能|能否|可以)?(?:解释一下|解释|说说|讲讲|介绍一下|介绍|什么是|何为|谈谈)?")
_ASK_TAIL = re.compile(r"(?:是什么|是指什么|指什么|是啥|有哪些|有什么(?:区别|不同|特点|作用|用|优点|缺点)?|怎么样|怎样|如何|"
                       r"吗|呢|的区别|的特点|的作用|的原理|的定义)?[？?。！!\s]*$")
_PREDICATE = re.compile(r"的|是(?!否)")
_ELLIPTIC_MAX = 12  # a follow-up this short that names no subject of its own borrows the previous one


class Turn(BaseModel):
    question: str  # as asked
    standalone: str  # as retrieved
    answer: str = ""  # the start of what was answered (for people reading the file)
    at: float = Field(default_factory=time.time)


class Session(BaseModel):
    schema_version: int = 1
    name: str
    turns: list[Turn] = Field(default_factory=list)


class SessionError(ValueError):
    pass


def check_name(name: str, what: str = "session") -> str:
    if not NAME.match(name or "") or name in (".", ".."):
        raise SessionError(f"{what} name {name!r} is not allowed: use up to 64 letters, digits, '_', '-' or '.'")
    return name


def session_path(data_dir: Path, name: str, profile: str = DEFAULT_PROFILE) -> Path:
    root = Path(data_dir) / "sessions"
    if check_name(profile, "profile") != DEFAULT_PROFILE:
        root = root / "profiles" / profile
    return root / f"{check_name(name)}.json"


def load(data_dir: Path, name: str, profile: str = DEFAULT_PROFILE) -> Session:
    path = session_path(data_dir, name, profile)
    if not path.exists():
        return Session(name=name)
    try:
        return Session.model_validate_json(path.read_text("utf-8"))
    except ValueError:  # a damaged session file starts a fresh session rather than failing the question
        return Session(name=name)


def save_turn(data_dir: Path, session: Session, turn: Turn, profile: str = DEFAULT_PROFILE) -> None:
    session.turns = (session.turns + [turn])[-KEEP_TURNS:]
    atomic_write_text(session_path(data_dir, session.name, profile), session.model_dump_json(indent=1))


def subject_of(question: str) -> str:
    """What a question is about: its asking phrases and punctuation taken off, then what stands before
    the first 的 or 是 ("折半查找的时间复杂度是多少" is about 折半查找; a follow-up's 它 means that)."""
    q = question.strip()
    q = _LEAD.sub("", q)
    q = _ASK_HEAD.sub("", q, count=1)
    prev = None
    while prev != q:  # "…的区别是什么？" loses both tails
        prev, q = q, _ASK_TAIL.sub("", q, count=1).strip()
    head = _PREDICATE.split(q, maxsplit=1)[0]
    return (head if len(head) >= 2 else q).strip("，,：: ")


def _names_a_subject(question: str, vocab) -> bool:
    """True when the question carries an indexed word of 2+ characters besides its asking words."""
    body = _ASK_TAIL.sub("", _ASK_HEAD.sub("", _LEAD.sub("", question.strip()), count=1))
    return any(body[i:j] in vocab for i in range(len(body)) for j in range(i + 2, min(len(body), i + 8) + 1))


def rewrite(question: str, history: list[Turn], vocab=frozenset()) -> str:
    """``question`` as a standalone question, given the earlier turns (most recent last).

    ``vocab`` (the BM25 vocabulary) tells whether an elliptical follow-up names a subject of its own."""
    if not history:
        return question
    subject = subject_of(history[-1].standalone)
    if not subject:
        return question
    q = question.strip()
    if _PRONOUN.search(q):
        return _LEAD.sub("", _PRONOUN.sub(subject, q, count=1))
    if len(q) <= _ELLIPTIC_MAX and (_LEAD.match(q) or q.rstrip("？?").endswith("呢") or not _names_a_subject(q, vocab)):
        rest = _LEAD.sub("", q)
        return f"{subject}{'' if rest.startswith('的') else '的'}{rest}"
    return question


def latest_answer(text: Optional[str], limit: int = 200) -> str:
    return " ".join((text or "").split())[:limit]

