"""The parse stage's own error: raised by every reader (PDF, image, text, Office) and by file discovery."""

from __future__ import annotations


class ParseError(Exception):
    """One-line, user-facing reason a file could not be parsed."""
