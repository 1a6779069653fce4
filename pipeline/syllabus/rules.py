"""The syllabus rules file (``rules.yaml`` beside this module, or the user's ``syllabus_rules_file``):
loaded into strict models, patterns compiled once, and hashed for the placement cache key."""

from __future__ import annotations

import hashlib
import json
import re
from functools import cached_property
from pathlib import Path
from typing import Optional

import yaml
from pydantic import field_validator

from pipeline.rulefiles import Patterns, StrictRules, check_patterns

DEFAULT_RULES_FILE = Path(__file__).with_name("rules.yaml")


class Subject(StrictRules):
    name: str
    aliases: list[str]
    numbers: str = ""  # "1-11, 41-42"

    def number_set(self) -> set[int]:
        out: set[int] = set()
        for part in filter(None, (p.strip() for p in self.numbers.split(","))):
            lo, _, hi = part.partition("-")
            out.update(range(int(lo), int(hi or lo) + 1))
        return out


class Numbering(StrictRules):
    style: str
    pattern: str

    @field_validator("pattern")
    @classmethod
    def _re(cls, v: str) -> str:
        check_patterns([v])
        if "(?P<title>" not in v:
            raise ValueError(f"numbering pattern {v!r} has no group (?P<title>…)")
        return v


class PlacementRules(StrictRules):
    focus_patterns: Patterns
    weight_focus: float
    weight_stem: float
    weight_options: float
    weight_analysis: float
    weight_syllabus_words: float
    weight_heading: float
    weight_mention_section: float
    section_lead: float
    min_section_share: float
    mention_coverage: float
    heading_exact: float
    weight_links: float
    weight_neighbours: float
    weight_file_subject: float
    number_prior_weight: float
    min_confidence: float
    min_evidence: float
    second_chapter_share: float
    profile_min_confidence: float
    points_pattern: str
    choice_points: float


class SyllabusRules(StrictRules):
    subjects: list[Subject]
    file_patterns: Patterns
    title_patterns: Patterns
    title_lines: int
    min_chapters: int
    subject_prefix: str
    subject_suffix: str
    skip_block_patterns: Patterns
    stop_patterns: Patterns
    footer_patterns: Patterns
    numbering: list[Numbering]
    wrap_ratio: float
    max_level: int
    name_split_pattern: str
    name_suffixes: list[str]
    generic_names: list[str]
    placement: PlacementRules

    @field_validator("name_split_pattern", mode="before")
    @classmethod
    def _one(cls, v):
        return check_patterns([v])[0] if isinstance(v, str) else v

    @cached_property
    def compiled(self) -> "Compiled":
        return Compiled(self)

    def subject_of(self, name: str) -> Optional[Subject]:
        return next((s for s in self.subjects if s.name == name), None)


class Compiled:
    """The rules' patterns compiled (a rules object is frozen; this is built once per rules object)."""

    def __init__(self, r: SyllabusRules):
        self.file = [re.compile(p) for p in r.file_patterns]
        self.title = [re.compile(p) for p in r.title_patterns]
        self.skip = [re.compile(p) for p in r.skip_block_patterns]
        self.stop = [re.compile(p) for p in r.stop_patterns]
        self.footer = [re.compile(p) for p in r.footer_patterns]
        self.numbering = [(n.style, re.compile(n.pattern)) for n in r.numbering]
        self.focus = [re.compile(p) for p in r.placement.focus_patterns]
        self.points = re.compile(r.placement.points_pattern)
        self.name_split = re.compile(r.name_split_pattern)
        self.generic = set(r.generic_names)
        self.suffixes = sorted(r.name_suffixes, key=len, reverse=True)
        self.subject_line = re.compile(r.subject_prefix + "(?P<name>.+?)" + r.subject_suffix)
        aliases = {}
        for s in r.subjects:
            for a in [s.name] + s.aliases:
                aliases[squash(a).lower()] = s.name
        self.aliases = aliases
        # in text: short Latin aliases (DS, OS) only as whole words
        parts = []
        for a in sorted(aliases, key=len, reverse=True):
            esc = re.escape(a)
            parts.append(rf"(?<![A-Za-z]){esc}(?![A-Za-z])" if a.isascii() else esc)
        self.alias_re = re.compile("|".join(parts), re.IGNORECASE) if parts else None

    def subjects_in(self, text: str) -> list[str]:
        """Subject names whose aliases occur in ``text`` (a file path, a heading), first occurrence first."""
        if self.alias_re is None:
            return []
        found = []
        for m in self.alias_re.finditer(squash(text)):
            name = self.aliases.get(m.group(0).lower())
            if name and name not in found:
                found.append(name)
        return found


def name_variants(title: str, rules: "SyllabusRules") -> list[str]:
    """A title and the parts it lists, endings that name nothing dropped (see ``name_suffixes``)."""
    c = rules.compiled

    def strip(part: str) -> str:
        part = re.sub(r"[(（][^)）]*[)）]?", "", part).strip() or part
        for suf in c.suffixes:
            if part.endswith(suf) and len(part) > len(suf) + 1:
                return part[: -len(suf)]
        return part

    out = [title]
    parts = [p.strip() for p in c.name_split.split(title) if p and p.strip()]
    for part in [strip(title)] + ([strip(p) for p in parts] if len(parts) > 1 else []):
        if part and part not in c.generic and part not in out:
            out.append(part)
    return out


def squash(text: str) -> str:
    """Spaces dropped next to non-ASCII characters; others collapsed: how aliases and lines are compared."""
    text = re.sub(r"\s+", " ", text.strip())
    return re.sub(r"(?<=[^\x00-\x7f]) | (?=[^\x00-\x7f])", "", text)


def load_rules(path: Optional[Path] = None) -> SyllabusRules:
    """The shipped rules, or a user file that replaces them; ValueError (one line, naming the file) if bad."""
    path = Path(path) if path else DEFAULT_RULES_FILE
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        return SyllabusRules.model_validate(data)
    except (OSError, yaml.YAMLError, ValueError) as e:
        raise ValueError(f"{path}: invalid syllabus rules: {' '.join(str(e).split())[:300]}") from None


def rules_hash(rules: SyllabusRules) -> str:
    canon = json.dumps(rules.model_dump(mode="json"), sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canon.encode("utf-8")).hexdigest()
