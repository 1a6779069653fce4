"""What the user-edited rule files (clean ``rules.yaml``, ask ``claims.yaml``) share: strict models
(a misspelt key is an error, not a silently ignored rule) and regular expressions checked at load
time, so a bad pattern is one clear line naming it instead of a crash halfway through a run."""

from __future__ import annotations

import re

from pydantic import BaseModel, ConfigDict


class StrictRules(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def check_patterns(patterns: list[str]) -> list[str]:
    """``patterns`` unchanged if each compiles; else ValueError naming the bad one."""
    for p in patterns:
        try:
            re.compile(p)
        except re.error as e:
            raise ValueError(f"bad regular expression {p!r}: {e}") from e
    return patterns
