"""The syllabus floor's typed artifacts: the tree (考纲), where every chunk sits on it, and the map.

All three are written under ``<data_dir>/syllabus/`` with a ``schema_version``; the tree carries its own
content hash, and placement and map name the tree hash and rules hash they were computed from, so a
reader can tell whether they are current.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal, Optional

from pydantic import BaseModel, Field

from pipeline.models import PATH_SEP, SCHEMA_VERSION

LEVEL_NAMES = ("subject", "chapter", "section", "point")  # 科目 › 一级 (五、查找) › 二级 ((四)折半查找法) › 三级

# where the syllabus step writes, under the data dir (see pipeline/syllabus/stage.py)
DIR = "syllabus"
TREE, MAP, RECORD = "tree.json", "map.json", "record.json"


def syllabus_dir(data_dir: Path) -> Path:
    return Path(data_dir) / DIR


def placement_name(key: str) -> str:
    """A placement's file is named by its key, and the map names the placement it was built from: a reader
    never pairs a map with another run's placement, even when a writer was killed between the two."""
    return f"placement-{key[:16]}.json"


class SyllabusNode(BaseModel):
    """One item of the syllabus. ``heading`` is the line as the syllabus writes it (spaces PyMuPDF put
    between CJK characters removed); ``title`` is the same without its numbering."""

    node_id: str  # content-addressed: hash of the titles from the subject down
    level: int  # 0 subject, 1 chapter (五、查找), 2 section ((四)折半查找法), 3 point (1.顺序存储)
    heading: str
    title: str
    notes: str = ""  # description lines under the item (吞吐量、响应时间;CPU 时钟周期…), and deeper items
    children: list["SyllabusNode"] = Field(default_factory=list)


class Syllabus(BaseModel):
    schema_version: int = SCHEMA_VERSION
    source: str  # the file it was read from
    doc_id: Optional[str] = None  # the ingested document, when it is one (its chunks are not material)
    format: Literal["pdf", "md", "txt", "yaml", "office", "image"] = "pdf"
    content_hash: str = ""  # sha256 of the tree (headings, notes, order): what placement depends on
    subjects: list[SyllabusNode] = Field(default_factory=list)
    ignored: list[str] = Field(default_factory=list)  # other syllabus candidates, and why not used

    def walk(self):
        """Every node with its path of nodes from the subject, depth first, in the syllabus's order."""
        stack = [(s, [s]) for s in reversed(self.subjects)]
        while stack:
            node, path = stack.pop()
            yield node, path
            stack.extend((c, path + [c]) for c in reversed(node.children))

    def counts(self) -> dict[str, int]:
        out = dict.fromkeys(LEVEL_NAMES, 0)
        for node, _ in self.walk():
            out[LEVEL_NAMES[min(node.level, 3)]] += 1
        return out


class Placement(BaseModel):
    """One place of a chunk on the tree: ``path`` is the headings subject › chapter (› section)."""

    node_id: str
    path: list[str]
    confidence: float  # 0..1: the share of the evidence for this place (see pipeline/syllabus/place.py)

    @property
    def joined(self) -> str:
        return PATH_SEP.join(self.path)


class ChunkPlacement(BaseModel):
    chunk_id: str
    kind: str
    source: str
    year: Optional[int] = None
    number: Optional[int] = None
    qtype: Optional[str] = None
    points: Optional[float] = None  # a past-paper question's marks (from its stem, or the rules' default)
    places: list[Placement] = Field(default_factory=list)  # best first; a comprehensive question may have two


class PlacementSet(BaseModel):
    schema_version: int = SCHEMA_VERSION
    key: str  # the cache key: tree hash + rules hash + code version + the chunk set placed
    syllabus_hash: str
    rules_hash: str
    generation: str = ""  # the index generation placed
    chunks: list[ChunkPlacement] = Field(default_factory=list)
    seconds: float = 0.0


class MapQuestion(BaseModel):
    year: Optional[int]
    number: Optional[int]
    qtype: Optional[str] = None
    points: Optional[float] = None
    confidence: float
    chunk_id: str


class MapNode(BaseModel):
    """One syllabus node on the map: what the exam asked under it, and what the material says about it
    (own + descendants' counts)."""

    node_id: str
    level: int
    heading: str
    title: str = ""
    path: list[str]
    parent: Optional[str] = None
    questions: list[MapQuestion] = Field(default_factory=list)  # placed here or below, by year then number
    by_year: dict[str, int] = Field(default_factory=dict)  # year -> questions
    points_by_year: dict[str, float] = Field(default_factory=dict)
    chunks: int = 0  # chunks of the material placed here or below
    sources: dict[str, int] = Field(default_factory=dict)  # file -> chunks
    tested: bool = False
    covered: bool = False


class SyllabusMap(BaseModel):
    """What ``cli.py map`` prints, computed at placement time so that reading it is one file."""

    schema_version: int = SCHEMA_VERSION
    key: str
    placement: str = ""  # the placement file (``placement_name(key)``) in the same folder
    source: str
    counts: dict[str, int] = Field(default_factory=dict)  # nodes per level, questions, chunks placed
    years: list[int] = Field(default_factory=list)
    nodes: list[MapNode] = Field(default_factory=list)  # in the syllabus's order
    gaps_uncovered: list[str] = Field(default_factory=list)  # node ids the exam tests that no material covers
    gaps_untested: list[str] = Field(default_factory=list)  # node ids never tested


SyllabusNode.model_rebuild()
