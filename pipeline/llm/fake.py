"""A scripted LLM for offline tests (in the spirit of simonw/llm's MockModel)."""

from __future__ import annotations

from typing import Callable, Optional, Union

from .base import Cancelled, Llm, LlmError, Request, TokenCallback

Replies = Union[list[str], str, Callable[[str, str], str]]


class FakeLlm(Llm):
    """Answers from a script and records every prompt.

    ``replies`` is either a list of canned answers, used in order (running out raises
    :class:`LlmError`), a single string returned for every call, or a function
    ``(system, user) -> answer``. Every call appends ``(system, user)`` to ``.calls``
    and its keyword arguments to ``.call_kwargs``. Streaming sends the answer to
    ``on_token`` one character at a time.
    """

    backend = "fake"

    def __init__(self, replies: Replies, model_id: str = "fake") -> None:
        self.model_id = model_id
        self._fn: Optional[Callable[[str, str], str]] = None
        self._fixed: Optional[str] = None
        self._queue: list[str] = []
        if callable(replies):
            self._fn = replies
        elif isinstance(replies, str):
            self._fixed = replies
        else:
            self._queue = list(replies)
        self._given = len(self._queue)
        self.calls: list[tuple[str, str]] = []
        self.call_kwargs: list[dict] = []

    def _run(self, request: Request, on_token: Optional[TokenCallback]) -> str:
        system, user = request.system, request.user
        self.calls.append((system, user))
        self.call_kwargs.append({"max_tokens": request.max_tokens, "temperature": request.temperature,
                                 "stream": on_token is not None, "json_schema": request.json_schema})
        if self._fn is not None:
            text = self._fn(system, user)
        elif self._fixed is not None:
            text = self._fixed
        elif self._queue:
            text = self._queue.pop(0)
        else:
            raise LlmError(f"fake LLM: no canned reply left for call {len(self.calls)} "
                           f"({self._given} given)")
        if on_token is not None:
            for ch in text:
                if request.cancelled():
                    raise Cancelled("fake LLM: cancelled")
                on_token(ch)
        return text
