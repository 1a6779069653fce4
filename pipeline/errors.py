"""Error text for people: every message shown to a user is one line."""

from __future__ import annotations


def one_line(obj: object, limit: int = 300) -> str:
    """``obj`` as one line of at most ``limit`` characters. Never fails.

    An exception gives its first non-empty line (what follows is usually detail or a traceback);
    one without a message gives its class name, and a builtin one is prefixed with its class
    (``KeyError: 'x'`` says more than ``'x'``). Any other object is its text with every run of
    whitespace, newlines included, collapsed to one space."""
    if isinstance(obj, BaseException):
        text = next((ln.strip() for ln in str(obj).splitlines() if ln.strip()), "")
        if not text:
            text = obj.__class__.__name__
        elif type(obj).__module__ == "builtins" and not isinstance(obj, OSError):
            text = f"{obj.__class__.__name__}: {text}"
    else:
        text = str(obj)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
