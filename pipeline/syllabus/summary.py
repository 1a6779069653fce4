"""The map (考纲地图): per syllabus node, the past-paper questions placed on it or below (by year, with
points) and the material that covers it (chunks per file); and the two gap lists. Computed once at
placement time, so ``cli.py map`` reads one file."""

from __future__ import annotations

from collections import Counter

from pipeline.syllabus.models import MapNode, MapQuestion, PlacementSet, Syllabus, SyllabusMap, placement_name

MATERIAL_KINDS = ("textbook", "note")
GAP_LEVELS = (1, 2)  # placement reaches chapters and sections


def build_map(syllabus: Syllabus, placement: PlacementSet, key: str) -> SyllabusMap:
    questions: dict[str, dict[str, MapQuestion]] = {}  # node id -> chunk id -> question
    chunks: dict[str, Counter] = {}  # node id -> source -> chunks
    ancestors: dict[str, list[str]] = {}
    for node, path in syllabus.walk():
        ancestors[node.node_id] = [n.node_id for n in path]
    placed_q = placed_c = 0
    for cp in placement.chunks:
        if not cp.places:
            continue
        under = {a for p in cp.places for a in ancestors.get(p.node_id, [])}
        if cp.kind == "question":
            placed_q += 1
            for nid in under:
                conf = max((p.confidence for p in cp.places if nid in ancestors.get(p.node_id, [])), default=0.0)
                questions.setdefault(nid, {})[cp.chunk_id] = MapQuestion(
                    year=cp.year, number=cp.number, qtype=cp.qtype, points=cp.points, confidence=conf,
                    chunk_id=cp.chunk_id)
        elif cp.kind in MATERIAL_KINDS:
            placed_c += 1
            for nid in under:
                chunks.setdefault(nid, Counter())[cp.source] += 1
    nodes: list[MapNode] = []
    years: set[int] = set()
    for node, path in syllabus.walk():
        qs = sorted(questions.get(node.node_id, {}).values(), key=lambda q: (q.year or 0, q.number or 0))
        by_year: Counter = Counter()
        points: Counter = Counter()
        for q in qs:
            if q.year is not None:
                years.add(q.year)
                by_year[str(q.year)] += 1
                points[str(q.year)] += q.points or 0
        src = chunks.get(node.node_id, Counter())
        nodes.append(MapNode(node_id=node.node_id, level=node.level, heading=node.heading, title=node.title,
                             path=[n.heading for n in path], parent=path[-2].node_id if len(path) > 1 else None,
                             questions=qs, by_year=dict(sorted(by_year.items())),
                             points_by_year={k: round(v, 1) for k, v in sorted(points.items())},
                             chunks=sum(src.values()), sources=dict(src.most_common()),
                             tested=bool(qs), covered=bool(src)))
    gap_nodes = [n for n in nodes if n.level in GAP_LEVELS]
    counts = {**syllabus.counts(), "questions_placed": placed_q, "chunks_placed": placed_c,
              "questions": sum(1 for c in placement.chunks if c.kind == "question")}
    return SyllabusMap(key=key, placement=placement_name(key), source=syllabus.source, counts=counts, years=sorted(years), nodes=nodes,
                       gaps_uncovered=[n.node_id for n in gap_nodes if n.tested and not n.covered],
                       gaps_untested=[n.node_id for n in gap_nodes if not n.tested])
