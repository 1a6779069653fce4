"""The read side of the syllabus floor: what the query service, the CLI, the web app and MCP ask of it.

:class:`SyllabusView` opens ``<data_dir>/syllabus/`` (tree, placement, map) and answers:

- :meth:`resolve` — a ``--chapter X`` to one node: the highest (outermost) node whose title or heading
  contains X, saying how many matched (``查找`` → ``数据结构 › 五、查找``, not ``(二)顺序查找法``). One pass
  over the nodes: linear in their number, whatever X is.
- :meth:`chunk_ids_under` — the chunks placed on a node or below (what a chapter filter keeps).
- :meth:`places` — a chunk's places (``syllabus_path`` and ``syllabus_confidence`` of a record).
- :meth:`map_json` — the map, whole or one node's subtree (``cli.py map``, ``/api/map``, MCP ``syllabus_map``).

Every method is cheap: the map and the tree are small JSON files; placement is read once per key.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from pipeline.models import PATH_SEP
from pipeline.syllabus.models import MAP, MapNode, Placement, PlacementSet, SyllabusMap, placement_name, syllabus_dir
from pipeline.syllabus.outline import normalise

_SEPARATORS = ("›", ">", "/")


class SyllabusMissing(RuntimeError):
    """No syllabus among the material (or it was never placed): the map cannot be shown."""


def missing_message(data_dir: Path) -> str:
    return (f"no syllabus in {data_dir}: ingest a 考试大纲 (PDF or notes) or write a syllabus.yaml (see README), "
            "then run `python cli.py place`")


@dataclass
class Resolution:
    """What ``--chapter X`` resolved to. ``node_id`` is None when the syllabus has no match (then the
    caller falls back to headings)."""

    needle: str
    node_id: Optional[str] = None
    path: list[str] = field(default_factory=list)
    level: int = 0
    matches: int = 0  # syllabus nodes X matched (the highest was taken)
    filter_node_id: Optional[str] = None  # what is filtered on: the node, or a point's section

    @property
    def joined(self) -> str:
        return PATH_SEP.join(self.path)

    def note(self) -> str:
        """One line for stderr / the text output: which node was used and why."""
        if self.node_id is None:
            return f"「{self.needle}」不在考纲中；按资料的章节标题筛选"
        more = f"（{self.matches} 个考纲条目含「{self.needle}」，取最高一级）" if self.matches > 1 else ""
        return f"按考纲筛选：{self.joined}{more}"

    def to_json(self) -> dict:
        return {"needle": self.needle, "matched": "syllabus" if self.node_id else "headings",
                "node_id": self.node_id, "path": self.path, "matches": self.matches, "note": self.note()}


class SyllabusView:
    """One data dir's syllabus map, placement and tree; None-safe: :meth:`open` gives None without a syllabus."""

    def __init__(self, directory: Path, summary: SyllabusMap):
        self.dir = directory
        self.summary = summary
        self.nodes = {n.node_id: n for n in summary.nodes}
        self._children: dict[str, list[str]] = {}
        for n in summary.nodes:
            if n.parent:
                self._children.setdefault(n.parent, []).append(n.node_id)
        self._placement: Optional[dict[str, list[Placement]]] = None

    @classmethod
    def require(cls, data_dir: Path) -> "SyllabusView":
        """:meth:`open`, raising SyllabusMissing (one line) when there is no syllabus."""
        view = cls.open(data_dir)
        if view is None:
            raise SyllabusMissing(missing_message(data_dir))
        return view

    @classmethod
    def open(cls, data_dir: Path) -> Optional["SyllabusView"]:
        path = syllabus_dir(data_dir) / MAP
        try:
            return cls(path.parent, SyllabusMap.model_validate_json(path.read_text("utf-8")))
        except FileNotFoundError:
            return None

    @property
    def key(self) -> str:
        return self.summary.key

    # ------------------------------------------------------------------ placement
    def _places(self) -> dict[str, list[Placement]]:
        """The placement this map was built from. A new run may have replaced both since this view opened
        the map: then the map is read again (once; a run in progress leaves the old pair in place)."""
        if self._placement is None:
            try:
                path = self.dir / (self.summary.placement or placement_name(self.key))
                data = PlacementSet.model_validate_json(path.read_text("utf-8"))
            except FileNotFoundError:
                fresh = SyllabusView.open(self.dir.parent)
                if fresh is None or fresh.key == self.key:
                    raise
                self.__init__(fresh.dir, fresh.summary)
                return self._places()
            self._placement = {c.chunk_id: c.places for c in data.chunks if c.places}
        return self._placement

    def places(self, chunk_id: str) -> list[Placement]:
        return self._places().get(chunk_id, [])

    def descendants(self, node_id: str) -> set[str]:
        out, stack = set(), [node_id]
        while stack:
            nid = stack.pop()
            out.add(nid)
            stack.extend(self._children.get(nid, []))
        return out

    def chunk_ids_under(self, node_id: str) -> set[str]:
        """Chunks with a place on the node or below it."""
        under = self.descendants(node_id)
        return {cid for cid, places in self._places().items() if any(p.node_id in under for p in places)}

    # ------------------------------------------------------------------ resolution
    def resolve(self, needle: str) -> Resolution:
        """The highest node whose title or heading contains ``needle`` (ties: an exact title first, then
        the syllabus's order). ``A › B`` (or ``A/B``) narrows: each part must match a node on the path."""
        text = normalise(needle)
        parts = [normalise(p) for p in _split(text)]
        best: Optional[tuple[tuple, MapNode]] = None
        matches = 0
        for order, node in enumerate(self.summary.nodes):
            if not _matches(node, parts):
                continue
            matches += 1
            exact = parts[-1].lower() in (node.title.lower(), node.heading.lower())
            rank = (node.level, not exact, order)
            if best is None or rank < best[0]:
                best = (rank, node)
        if best is None:
            return Resolution(needle=needle)
        node = best[1]
        target = node
        while target.level > 2 and target.parent:  # placement stops at sections: a point filters by its section
            target = self.nodes[target.parent]
        return Resolution(needle=needle, node_id=node.node_id, path=node.path, level=node.level, matches=matches,
                          filter_node_id=target.node_id)

    # ------------------------------------------------------------------ the map
    def map_json(self, node: Optional[str] = None) -> dict:
        """The map (``cli.py map --json``): counts, years, nodes in the syllabus's order, and the two gap
        lists as paths. With ``node`` (an id or a --chapter text), that node's subtree only."""
        nodes = self.summary.nodes
        resolution = None
        if node:
            resolution = Resolution(needle=node, node_id=node, path=self.nodes[node].path) if node in self.nodes \
                else self.resolve(node)
            if resolution.node_id is None:
                raise KeyError(node)
            keep = self.descendants(resolution.node_id)
            nodes = [n for n in nodes if n.node_id in keep]
        keep_ids = {n.node_id for n in nodes}
        out = {"source": self.summary.source, "counts": self.summary.counts, "years": self.summary.years,
               "nodes": [n.model_dump() for n in nodes],
               "gaps": {"tested_not_covered": [self.nodes[i].path for i in self.summary.gaps_uncovered if i in keep_ids],
                        "never_tested": [self.nodes[i].path for i in self.summary.gaps_untested if i in keep_ids]}}
        if resolution is not None:
            out["chapter"] = resolution.to_json()
        return out


def _split(text: str) -> list[str]:
    for sep in _SEPARATORS:
        if sep in text:
            return [p.strip() for p in text.split(sep) if p.strip()] or [text]
    return [text]


def _matches(node: MapNode, parts: list[str]) -> bool:
    """The last part is in the node's heading; earlier parts are in its ancestors', in order."""
    last = parts[-1].lower()
    if last not in node.heading.lower():
        return False
    ancestors = [h.lower() for h in node.path[:-1]]
    i = 0
    for part in parts[:-1]:
        while i < len(ancestors) and part.lower() not in ancestors[i]:
            i += 1
        if i == len(ancestors):
            return False
        i += 1
    return True
