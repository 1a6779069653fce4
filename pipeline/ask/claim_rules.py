"""The claim rules' shape and loader: ``claims.yaml`` read into typed, strict models (an unknown key is
an error naming the file, not a silently ignored rule). The checks themselves live in ``claims.py``
(and ``polarity.py``, ``entities.py``, ``numbers.py``…), which take a :class:`ClaimRules`."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Literal, Optional

import yaml

from pipeline.ask.entities import EntityRules
from pipeline.ask.names import NameRules
from pipeline.ask.numbers import NumberRules
from pipeline.ask.repetition import RepetitionRules
from pipeline.rulefiles import Patterns, StrictRules, one_line

DEFAULT_RULES_FILE = Path(__file__).with_name("claims.yaml")


class OverlapRules(StrictRules):
    min_passage: float
    min_with_question: float
    min_window: float = 0.0
    min_grams: int


class OptionRules(StrictRules):
    claim_patterns: Patterns
    label_pattern: str
    # words that speak of an exercise (根据题目, 本题, 题干): a sentence using them answers some exercise in
    # the material, not a student who asked none (added after version 1: off when missing)
    exercise_talk: Patterns = []


class PolarityPair(StrictRules):
    name: str
    a: Patterns
    b: Patterns
    min_subject: Optional[float] = None
    only_alone: bool = False  # checked only when no other pair occurs in the sentence (是/不是)


class PolarityRules(StrictRules):
    negators: list[str]
    yes_values: str = "√✓是有能可"
    no_values: str = "×✗否无不"
    window: int
    min_subject: float
    pairs: list[PolarityPair]


class CauseRules(StrictRules):
    """A sentence giving a cause or purpose (``claim``) is backed only by a passage that gives one
    (``passage``): facts a passage merely lists do not say why; and a reason copied from a passage
    must be given there for the same thing (``said_share``/``effect_share``: pipeline/ask/causes.py)."""

    claim: Patterns = []
    passage: Patterns = []
    said_share: float = 0.9
    effect_share: float = 0.4


class ClaimRules(StrictRules):
    version: int
    unsupported: Literal["drop", "mark"] = "drop"
    mark: str = "（资料中未找到依据）"
    overlap: OverlapRules
    numbers: NumberRules
    options: OptionRules
    polarity: PolarityRules
    entities: Optional[EntityRules] = None
    names: Optional[NameRules] = None  # added after version 1: off when missing
    repetition: RepetitionRules = RepetitionRules()  # on with its defaults when missing
    cause: CauseRules = CauseRules()  # added after version 1: off when missing


@lru_cache(maxsize=4)
def load_rules(path: Optional[Path] = None) -> ClaimRules:
    """The claim rules from ``path`` (default: ``claims.yaml`` beside this module)."""
    p = Path(path) if path else DEFAULT_RULES_FILE
    try:
        return ClaimRules.model_validate(yaml.safe_load(p.read_text("utf-8")) or {})
    except (yaml.YAMLError, ValueError) as e:  # pydantic's ValidationError is a ValueError
        raise ValueError(one_line(p, "claim rules", e)) from e
