"""The one interface every LLM backend implements, and the one error they raise."""

from __future__ import annotations

from typing import Callable, Optional, Protocol, runtime_checkable

from pipeline.errors import one_line


class LlmError(Exception):
    """Any failure of an LLM backend.

    The message is always one line naming the backend and the cause, e.g.
    ``LLM endpoint http://127.0.0.1:11434/v1 unreachable: connection refused``,
    so a CLI can print ``str(err)`` as is.
    """

    def __init__(self, message: str) -> None:
        super().__init__(one_line(message))


TokenCallback = Callable[[str], None]


def chat_messages(system: str, user: str) -> list[dict[str, str]]:
    """OpenAI-style messages for one turn. An empty system prompt is left out rather than sent
    empty, so the model's chat template applies its own default system turn."""
    messages = [{"role": "system", "content": system}] if system else []
    messages.append({"role": "user", "content": user})
    return messages


@runtime_checkable
class Llm(Protocol):
    """A chat model: one system prompt, one user prompt, one text answer."""

    backend: str  # "local", "openai", "fake"
    model_id: str  # stable name of the model (file stem, or endpoint model name)

    def complete(
        self,
        system: str,
        user: str,
        *,
        max_tokens: int = 512,
        temperature: float = 0.1,
        on_token: Optional[TokenCallback] = None,
        json_schema: Optional[dict] = None,
    ) -> str:
        """Return the full answer. When ``on_token`` is given, each piece of text is
        passed to it as soon as it is generated (the full text is still returned).
        With ``json_schema`` the answer is JSON following it: a local model is held to it by a
        grammar, an endpoint is asked for it (``response_format``); small models lose the
        format of free-text templates, a grammar cannot be lost.
        Raises :class:`LlmError` on any failure."""
        ...
