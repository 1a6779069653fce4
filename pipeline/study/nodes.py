"""Where an item sits on the map: the one place progress, 错题本 filters and class aggregates ask.

Until the syllabus map (pipeline/syllabus, issue 21) places every chunk and record, progress rolls
up to headings: a past-paper question sits at the textbook section it tests best (its first
``chapter_paths`` entry, as ``questions --chapter`` reads it), a card at its source chunk's heading
path, both cut to ``depth`` levels (2: 第七章 查找 › 7.2 折半查找). A question linked to no section
sits at ``UNPLACED``. When the map lands, :func:`nodes_of` returns the record's ``syllabus_path``
(all of them for a question placed on two chapters) and nothing else changes.
"""

from __future__ import annotations

from pipeline.models import PATH_SEP, Chunk

UNPLACED = ("未归类",)
Node = tuple[str, ...]


def nodes_of(chunk: Chunk, depth: int = 2) -> list[Node]:
    """The nodes of a question record or a material chunk, each a heading path of at most ``depth``."""
    if chunk.kind == "question":
        paths = chunk.chapter_paths[:1]
    else:
        paths = [chunk.chapter_path] if chunk.chapter_path else []
    nodes = list(dict.fromkeys(tuple(p[:depth]) for p in paths if p))
    return nodes or [UNPLACED]


def ancestors(node: Node) -> list[Node]:
    """The node and every node above it, outermost first: (第七章,), (第七章, 7.2 折半查找)."""
    return [node[:i] for i in range(1, len(node) + 1)]


def under(node: Node, query: str) -> bool:
    """A node matches a ``--node``/``--chapter`` filter when one of its headings contains the query
    or the query is its joined path."""
    return query == PATH_SEP.join(node) or any(query in h for h in node)


def joined(node: Node) -> str:
    return PATH_SEP.join(node)
