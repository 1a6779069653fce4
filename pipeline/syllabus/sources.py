"""Find the syllabus among what was ingested, and read it into a :class:`Syllabus`.

Where a syllabus comes from, first found wins:

1. the ``syllabus_file`` setting (a ``.yaml``/``.yml``, ``.md`` or ``.txt`` the user wrote);
2. a ``syllabus*.yaml`` file in the ingested folder (the parse stage skips YAML; the syllabus step reads it);
3. an ingested document recognised as one (a 考试大纲 PDF, notes): its file name or first lines say so
   (``file_patterns``/``title_patterns``), and reading its *parsed* lines gives at least ``min_chapters``
   chapters. Parsed rather than cleaned lines: cleaning joins lines into paragraphs, and numbered
   items would lose their line starts.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Optional

import yaml

from pipeline.hashing import sha256_text
from pipeline.models import ParsedDoc
from pipeline.store import Manifest, Store
from pipeline.syllabus.models import Syllabus, SyllabusNode
from pipeline.syllabus.outline import assign_ids, normalise, read_outline
from pipeline.syllabus.rules import SyllabusRules

YAML_SUFFIXES = (".yaml", ".yml")
TEXT_FORMATS = ("md", "txt")
_YAML_NAME = re.compile(r"(?i)(syllabus|考试大纲|考纲|大纲)[^/]*\.ya?ml$")


class SyllabusError(ValueError):
    """A syllabus file that cannot be read; one line naming the file and the cause."""


def parsed_lines(doc: ParsedDoc) -> list[str]:
    """A parsed document's lines in reading order; notes' headings keep their ``#`` level, so a
    syllabus written as Markdown headings reads as a tree."""
    out: list[str] = []
    for b in doc.blocks:
        if b.kind == "heading" and doc.format in TEXT_FORMATS and b.level:
            out.append("#" * b.level + " " + b.text.strip())
        elif b.lines:
            out.extend(ln.text for ln in b.lines)
        else:
            out.extend(b.text.splitlines())
    return out


def tree_hash(subjects: list[SyllabusNode]) -> str:
    """What placement depends on: every node's level, heading and notes, in order (ids follow from titles)."""
    payload = json.dumps([s.model_dump(exclude={"node_id"}) for s in subjects], ensure_ascii=False, sort_keys=True)
    return sha256_text(payload)


def make_syllabus(subjects: list[SyllabusNode], source: str, fmt: str, doc_id: Optional[str] = None) -> Syllabus:
    return Syllabus(source=source, doc_id=doc_id, format=fmt, content_hash=tree_hash(subjects), subjects=subjects)


# ---------------------------------------------------------------- user-written files
def read_yaml_tree(data, rules: SyllabusRules) -> list[SyllabusNode]:
    """A YAML syllabus: subject → chapters → sections → points, as nested mappings and lists::

        数据结构:
          五、查找:
            - (二)顺序查找法
            - (四)折半查找法: [判定树, 平均查找长度]

    A mapping key or list string is an item (numbering optional); a ``notes`` key holds its notes.
    The top level may be wrapped in ``syllabus:``."""
    if isinstance(data, dict) and set(data) == {"syllabus"}:
        data = data["syllabus"]
    if not isinstance(data, dict) or not data:
        raise SyllabusError("expected a mapping of subjects to their chapters")

    def items(value, level: int) -> list[SyllabusNode]:
        if value is None:
            return []
        if isinstance(value, (str, int, float)):
            value = [value]
        if isinstance(value, dict):
            value = [{k: v} for k, v in value.items()]
        out = []
        for entry in value:
            if isinstance(entry, dict):
                for key, sub in entry.items():
                    if key == "notes":
                        continue
                    out.append(_yaml_node(str(key), level, sub, items, rules))
            else:
                out.append(_yaml_node(str(entry), level, None, items, rules))
        return out

    subjects = []
    for name, chapters in data.items():
        title = rules.compiled.aliases.get(normalise(str(name)).lower(), normalise(str(name)))
        node = SyllabusNode(node_id="", level=0, heading=title, title=title)
        if isinstance(chapters, dict) and "notes" in chapters:
            node.notes = str(chapters["notes"])
        node.children = items(chapters, 1)
        subjects.append(node)
    assign_ids(subjects)
    return subjects


def _yaml_node(text: str, level: int, sub, items, rules: SyllabusRules) -> SyllabusNode:
    heading = normalise(text)
    title = heading
    for _, pattern in rules.compiled.numbering:
        m = pattern.match(heading)
        if m:
            title = m.group("title").strip()
            heading = heading[:m.start("title")].rstrip() + title
            break
    node = SyllabusNode(node_id="", level=level, heading=heading, title=title)
    if isinstance(sub, dict) and "notes" in sub:
        node.notes = str(sub["notes"])
    if level >= rules.max_level:
        deeper = [n.heading for n in items(sub, level + 1)]
        node.notes = "\n".join(filter(None, [node.notes] + deeper))
    else:
        node.children = items(sub, level + 1)
    return node


def read_file(path: Path, rules: SyllabusRules) -> Syllabus:
    """A syllabus the user wrote (YAML, Markdown or text). Raises SyllabusError (one line)."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise SyllabusError(f"{path}: cannot read the syllabus ({exc.__class__.__name__}: {exc})") from None
    if path.suffix.lower() in YAML_SUFFIXES:
        try:
            subjects = read_yaml_tree(yaml.safe_load(text), rules)
        except (yaml.YAMLError, SyllabusError) as exc:
            raise SyllabusError(f"{path}: not a syllabus YAML: {' '.join(str(exc).split())[:200]}") from None
        fmt = "yaml"
    else:
        subjects = read_outline(text.splitlines(), rules)
        fmt = "md" if path.suffix.lower() in (".md", ".markdown") else "txt"
    if not any(s.children for s in subjects):
        raise SyllabusError(f"{path}: no subject with chapters found (subjects are lines such as 数据结构; "
                            "see pipeline/syllabus/rules.yaml)")
    return make_syllabus(subjects, str(path), fmt)


# ---------------------------------------------------------------- among the ingested documents
def _looks_like_syllabus(source: str, first_lines: list[str], rules: SyllabusRules) -> bool:
    c = rules.compiled
    name = Path(source).name
    return any(p.search(name) for p in c.file) or any(p.search(normalise(ln)) for ln in first_lines
                                                       for p in c.title)


def yaml_candidates(manifest: Manifest) -> list[Path]:
    """``syllabus*.yaml`` files the ingest saw (and the parse stage skipped)."""
    return [Path(s) for s in sorted(manifest.skipped) if _YAML_NAME.search(s) and Path(s).is_file()]


def find_syllabus(store: Store, manifest: Manifest, rules: SyllabusRules,
                  explicit: Optional[Path] = None) -> tuple[Optional[Syllabus], list[str]]:
    """The syllabus to place on, or None; and one line per problem (a bad file, an ignored candidate)."""
    problems: list[str] = []
    for path in ([explicit] if explicit else []) + yaml_candidates(manifest):
        try:
            return read_file(path, rules), problems
        except SyllabusError as exc:
            problems.append(str(exc))
    found: list[Syllabus] = []
    for doc_id in sorted(manifest.documents):
        entry = manifest.documents[doc_id]
        rec = entry.stages.get("parse")
        path = store.stage_path("parse", doc_id)
        if rec is None or rec.status == "failed" or not path.exists():
            continue
        data = json.loads(path.read_text("utf-8"))
        first = [data.get("title", "")] + [b.get("text", "") for b in data.get("blocks", [])[: rules.title_lines]]
        if not any(_looks_like_syllabus(s, first, rules) for s in entry.sources):
            continue
        doc = ParsedDoc.model_validate(data)
        subjects = read_outline(parsed_lines(doc), rules)
        chapters = sum(len(s.children) for s in subjects)
        if chapters < rules.min_chapters:
            problems.append(f"{entry.sources[0]}: named like a syllabus but only {chapters} chapter(s) read; not used")
            continue
        found.append(make_syllabus(subjects, entry.sources[0], doc.format if doc.format in
                                   ("pdf", "md", "txt", "office", "image") else "pdf", doc_id))
    if not found:
        return None, problems
    found.sort(key=lambda s: (-sum(len(x.children) for x in s.subjects), s.source))
    best = found[0]
    best.ignored = [f"{s.source}: another syllabus with fewer chapters" for s in found[1:]]
    return best, problems
