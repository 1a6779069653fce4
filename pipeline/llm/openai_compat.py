"""Any OpenAI-compatible chat endpoint, with the standard library only.

Examples: Ollama ``http://127.0.0.1:11434/v1`` (model e.g. ``qwen2.5:7b``), the
llama.cpp server ``http://127.0.0.1:8080/v1``, vLLM, or a hosted API with a key.
"""

from __future__ import annotations

import json
import socket
import ssl
import time
import urllib.error
import urllib.request
from typing import Any, Optional
from urllib.parse import urlsplit

from pipeline.errors import one_line

from .base import LlmError, TokenCallback, chat_messages

_LOOPBACK = {"localhost", "127.0.0.1", "::1", "[::1]"}


class _Retryable(Exception):
    """Internal: a failure worth another attempt (connection, timeout, 5xx, 429)."""


class OpenAICompat:
    """POST ``{base_url}/chat/completions``; streams SSE when ``on_token`` is given.

    Connection errors, timeouts, HTTP 5xx and 429 are retried ``retries`` times with
    exponential backoff (``backoff`` s, doubled each time); a stream is never retried
    once text has been passed to ``on_token``. Every failure raises :class:`LlmError`.
    ``timeout`` bounds connecting and each read, not the whole generation.
    Loopback endpoints bypass any ``http_proxy`` set in the environment.
    """

    backend = "openai"

    def __init__(self, base_url: str, model: str, api_key: Optional[str] = None,
                 timeout: float = 60, retries: int = 2, backoff: float = 0.5) -> None:
        base = base_url.strip().rstrip("/")
        if base.endswith("/chat/completions"):
            base = base[: -len("/chat/completions")]
        parts = urlsplit(base)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise LlmError(f"LLM endpoint {base_url!r} is not an http(s) URL "
                           f"(example: http://127.0.0.1:11434/v1)")
        if not model:
            raise LlmError(f"LLM endpoint {base}: no model name given")
        self.base_url = base
        self.url = base + "/chat/completions"
        self.model = model
        self.model_id = model
        self.api_key = api_key
        self.timeout = timeout
        self.retries = max(0, int(retries))
        self.backoff = backoff
        if (parts.hostname or "") in _LOOPBACK:
            self._opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        else:
            self._opener = urllib.request.build_opener()

    # ------------------------------------------------------------------ public

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
        body: dict[str, Any] = {"model": self.model, "messages": chat_messages(system, user),
                                "max_tokens": max_tokens, "temperature": temperature}
        if json_schema:  # OpenAI, Ollama ≥ 0.5, llama.cpp server and vLLM accept this form
            body["response_format"] = {"type": "json_schema",
                                       "json_schema": {"name": "answer", "schema": json_schema}}
        if on_token is not None:
            body["stream"] = True
        data = json.dumps(body, ensure_ascii=False).encode("utf-8")

        attempts = self.retries + 1
        for attempt in range(attempts):
            emitted = [False]
            try:
                return self._once(data, on_token, emitted)
            except _Retryable as e:
                if emitted[0] or attempt == attempts - 1:
                    tries = f" (after {attempt + 1} attempts)" if attempt else ""
                    raise LlmError(f"{e}{tries}") from None
                time.sleep(self.backoff * (2 ** attempt))
        raise AssertionError("unreachable")

    # ------------------------------------------------------------------ internals

    def _err(self, what: str) -> str:
        return f"LLM endpoint {self.base_url} {what}"

    def _once(self, data: bytes, on_token: Optional[TokenCallback], emitted: list) -> str:
        headers = {"Content-Type": "application/json",
                   "Accept": "text/event-stream" if on_token else "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        req = urllib.request.Request(self.url, data=data, headers=headers, method="POST")
        try:
            resp = self._opener.open(req, timeout=self.timeout)
        except urllib.error.HTTPError as e:
            msg = self._err(f"returned HTTP {e.code}: {_error_text(e)}")
            if e.code >= 500 or e.code == 429:
                raise _Retryable(msg) from None
            raise LlmError(msg) from None
        except urllib.error.URLError as e:
            raise _Retryable(self._err(_reason(e.reason, self.timeout))) from None
        except (TimeoutError, socket.timeout):
            raise _Retryable(self._err(f"timed out after {self.timeout:g}s")) from None
        except (ConnectionError, OSError) as e:
            raise _Retryable(self._err(_reason(e, self.timeout))) from None

        with resp:
            ctype = (resp.headers.get("Content-Type") or "").lower()
            if on_token is not None and "text/event-stream" in ctype:
                return self._read_stream(resp, on_token, emitted)
            raw = b"".join(self._reading(iter(lambda: resp.read(65536), b"")))
        text = self._parse_full(raw)
        if on_token is not None and text:  # server ignored stream=true
            on_token(text)
            emitted[0] = True
        return text

    def _reading(self, chunks):
        """Yield from a response iterator, turning read failures into _Retryable
        (and only those: errors raised by on_token propagate untouched)."""
        it = iter(chunks)
        while True:
            try:
                chunk = next(it)
            except StopIteration:
                return
            except (TimeoutError, socket.timeout):
                raise _Retryable(self._err(f"timed out after {self.timeout:g}s "
                                           f"while reading the answer")) from None
            except (ConnectionError, OSError) as e:
                raise _Retryable(self._err(f"dropped the connection: "
                                           f"{_reason(e, self.timeout)}")) from None
            yield chunk

    def _parse_full(self, raw: bytes) -> str:
        try:
            obj = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            raise LlmError(self._err(f"returned malformed JSON: {_snippet(raw)}")) from None
        if not isinstance(obj, dict):
            raise LlmError(self._err(f"returned unexpected JSON: {_snippet(raw)}"))
        if obj.get("error"):
            raise LlmError(self._err(f"returned an error: {_error_field(obj['error'])}"))
        choices = obj.get("choices")
        if not isinstance(choices, list) or not choices:
            raise LlmError(self._err(f"returned no choices: {_snippet(raw)}"))
        first = choices[0] if isinstance(choices[0], dict) else {}
        msg = first.get("message")
        if not isinstance(msg, dict):
            raise LlmError(self._err(f"returned a choice without a message: {_snippet(raw)}"))
        content = msg.get("content")
        return content if isinstance(content, str) else ""

    def _read_stream(self, resp, on_token: TokenCallback, emitted: list) -> str:
        pieces: list[str] = []
        saw_choice = False
        for raw_line in self._reading(resp):  # SSE: "data: {...}\n", blank lines between events
            line = raw_line.decode("utf-8", errors="replace").strip()
            if not line.startswith("data:"):
                continue  # comments (":"), "event:", "id:", blank lines
            payload = line[5:].strip()
            if payload == "[DONE]":
                break
            try:
                obj = json.loads(payload)
            except ValueError:
                raise LlmError(self._err(f"sent a malformed stream event: "
                                         f"{one_line(payload, 120)}")) from None
            if not isinstance(obj, dict):
                raise LlmError(self._err(f"sent an unexpected stream event: "
                                         f"{one_line(payload, 120)}"))
            if obj.get("error"):
                raise LlmError(self._err(f"returned an error: {_error_field(obj['error'])}"))
            choices = obj.get("choices")
            if not isinstance(choices, list) or not choices:
                continue  # e.g. a final usage-only event
            saw_choice = True
            first = choices[0] if isinstance(choices[0], dict) else {}
            delta = first.get("delta") or first.get("message") or {}
            text = delta.get("content") if isinstance(delta, dict) else None
            if isinstance(text, str) and text:
                pieces.append(text)
                emitted[0] = True
                on_token(text)
        if not saw_choice:
            raise LlmError(self._err("returned no choices in its stream"))
        return "".join(pieces)


# ---------------------------------------------------------------------- helpers

def _reason(reason: object, timeout: float) -> str:
    if isinstance(reason, ConnectionRefusedError):
        return "unreachable: connection refused"
    if isinstance(reason, (TimeoutError, socket.timeout)):
        return f"timed out after {timeout:g}s"
    if isinstance(reason, socket.gaierror):
        return f"unreachable: cannot resolve host ({one_line(reason.strerror or reason, 80)})"
    if isinstance(reason, ssl.SSLError):
        return f"TLS error: {one_line(reason, 120)}"
    if isinstance(reason, ConnectionResetError):
        return "unreachable: connection reset"
    if isinstance(reason, OSError) and reason.strerror:
        return f"unreachable: {reason.strerror.lower()}"
    return f"unreachable: {one_line(reason, 120)}"


def _snippet(raw: bytes, limit: int = 120) -> str:
    text = raw.decode("utf-8", errors="replace")
    return one_line(text, limit) if text.strip() else "(empty body)"


def _error_field(err: object) -> str:
    if isinstance(err, dict):
        return one_line(err.get("message") or json.dumps(err, ensure_ascii=False), 200)
    return one_line(err, 200)


def _error_text(e: urllib.error.HTTPError) -> str:
    try:
        raw = e.read()
    except Exception:  # noqa: BLE001 - best effort only
        raw = b""
    try:
        obj = json.loads(raw.decode("utf-8"))
        if isinstance(obj, dict) and obj.get("error"):
            return _error_field(obj["error"])
    except (UnicodeDecodeError, ValueError):
        pass
    return _snippet(raw, 200) if raw else one_line(e.reason or "", 120)
