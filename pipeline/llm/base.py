"""The one interface every LLM backend implements, and the one error they raise."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Callable, Optional

from pipeline.errors import one_line


class LlmError(Exception):
    """Any failure of an LLM backend.

    The message is always one line naming the backend and the cause, e.g.
    ``LLM endpoint http://127.0.0.1:11434/v1 unreachable: connection refused``,
    so a CLI can print ``str(err)`` as is.
    """

    def __init__(self, message: str) -> None:
        super().__init__(one_line(message))


class Cancelled(LlmError):
    """The caller's ``cancel`` event was set (a web client went away) before the answer was done."""


TokenCallback = Callable[[str], None]


def chat_messages(system: str, user: str) -> list[dict[str, str]]:
    """OpenAI-style messages for one turn. An empty system prompt is left out rather than sent
    empty, so the model's chat template applies its own default system turn."""
    messages = [{"role": "system", "content": system}] if system else []
    messages.append({"role": "user", "content": user})
    return messages


@dataclass(frozen=True)
class Request:
    """One call's inputs, as a backend receives them."""

    system: str
    user: str
    max_tokens: int = 512
    temperature: float = 0.1
    json_schema: Optional[dict] = None
    cancel: Optional[threading.Event] = None

    @property
    def messages(self) -> list[dict[str, str]]:
        return chat_messages(self.system, self.user)

    def cancelled(self) -> bool:
        return self.cancel is not None and self.cancel.is_set()


class Llm:
    """A chat model: one system prompt, one user prompt, one text answer.

    Backends subclass it and implement :meth:`_run`; the public signature lives here only."""

    backend: str = ""  # "local", "openai", "fake"
    model_id: str = ""  # stable name of the model (file stem, or endpoint model name)

    def complete(self, system: str, user: str, *, max_tokens: int = 512, temperature: float = 0.1,
                 on_token: Optional[TokenCallback] = None, json_schema: Optional[dict] = None,
                 cancel: Optional[threading.Event] = None) -> str:
        """Return the full answer. When ``on_token`` is given, each piece of text is
        passed to it as soon as it is generated (the full text is still returned).
        With ``json_schema`` the answer is JSON following it: a local model is held to it by a
        grammar, an endpoint is asked for it (``response_format``); small models lose the
        format of free-text templates, a grammar cannot be lost.
        Setting ``cancel`` stops the call as soon as the backend can (also while the prompt is
        read, before any token) and raises :class:`Cancelled`.
        Raises :class:`LlmError` on any failure."""
        request = Request(system, user, max_tokens, temperature, json_schema, cancel)
        if request.cancelled():
            raise Cancelled(f"{self.backend} LLM {self.model_id}: cancelled")
        return self._run(request, on_token)

    def _run(self, request: Request, on_token: Optional[TokenCallback]) -> str:
        raise NotImplementedError
