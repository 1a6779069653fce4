"""Syllabus placement quality and speed on an ingested corpus.

    .venv/bin/python -m bench syllabus DATA_DIR [--labels bench/data/syllabus_dev.jsonl] [--runs 3] [--json OUT]

DATA_DIR is a data dir the corpus was ingested into (`cli.py ingest ../shared/eval/corpus --data-dir DATA_DIR`).
It places the whole corpus ``--runs`` times (``--force``, median seconds), then scores the placement of the
past-paper questions against the hand labels (subject / chapter / section; section only where a label has
one), per split (dev: the years placement was developed on; holdout: years not looked at while tuning),
next to a plain TF-IDF baseline: the stem against every syllabus section's words, character 1–2-grams
(scikit-learn, requirements/bench.txt). Then times a cold ``cli.py map`` (median of ``--runs``).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from bench.lib.common import ROOT
from pipeline.index.catalog import Catalog, current_generation
from pipeline.settings import load_settings
from pipeline.store import Store
from pipeline.syllabus.models import MAP, TREE, PlacementSet, Syllabus, SyllabusMap, syllabus_dir
from pipeline.syllabus.parts import question_parts
from pipeline.syllabus.rules import load_rules
from pipeline.syllabus.stage import run as place_run


def read_labels(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]


def score(predicted: dict[tuple[int, int], list[str]], labels: list[dict]) -> dict:
    """Accuracy per level; a missing prediction counts as wrong."""
    out = {}
    for split in sorted({lab["split"] for lab in labels}) + ["all"]:
        rows = [lab for lab in labels if split in ("all", lab["split"])]
        subj = chap = sec = sec_n = 0
        misses = []
        for lab in rows:
            path = predicted.get((lab["year"], lab["number"]), [])
            s_ok = len(path) > 0 and path[0] == lab["subject"]
            c_ok = len(path) > 1 and path[1] == lab["chapter"]
            subj += s_ok
            chap += c_ok
            if lab["section"]:
                sec_n += 1
                sec += len(path) > 2 and path[2] == lab["section"]
            if not c_ok:
                misses.append(f"{lab['year']}-{lab['number']}: {' › '.join(path) or '-'} (label {lab['chapter']})")
        out[split] = {"n": len(rows), "subject": round(subj / len(rows), 3), "chapter": round(chap / len(rows), 3),
                      "section_n": sec_n, "section": round(sec / sec_n, 3) if sec_n else None, "chapter_misses": misses}
    return out


def tfidf_baseline(syllabus: Syllabus, questions, rules) -> dict[tuple[int, int], list[str]]:
    """The stem against each section's words (title, notes, its points), char 1–2-grams, cosine; the best
    section gives subject, chapter and section."""
    from sklearn.feature_extraction.text import TfidfVectorizer

    items, paths = [], []
    for node, path in syllabus.walk():
        if node.level == 2:
            words = [node.title, node.notes] + [c.title + " " + c.notes for c in node.children]
            items.append(" ".join(words))
            paths.append([n.heading for n in path])
    stems = [question_parts(q.text, rules).stem for q in questions]
    vec = TfidfVectorizer(analyzer="char", ngram_range=(1, 2)).fit(items + stems)
    sims = (vec.transform(stems) @ vec.transform(items).T).toarray()
    return {(q.year, q.number): paths[int(row.argmax())] for q, row in zip(questions, sims)}


def cold_map_seconds(data_dir: Path, runs: int) -> tuple[float, float]:
    """Median wall and CPU (user + system) seconds of a fresh `cli.py map --json` process. CPU time is
    what the process itself costs; on a busy shared machine the wall time also holds waiting for a core."""
    import resource

    walls, cpus = [], []
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t = time.perf_counter()
        r = subprocess.run([sys.executable, str(ROOT / "cli.py"), "map", "--json", "--data-dir", str(data_dir)],
                           capture_output=True, text=True, timeout=120, cwd=ROOT)
        walls.append(time.perf_counter() - t)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
        assert r.returncode == 0, r.stderr
    return round(statistics.median(walls), 3), round(statistics.median(cpus), 3)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("data_dir", type=Path)
    ap.add_argument("--labels", type=Path, default=ROOT / "bench" / "data" / "syllabus_dev.jsonl")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--json", type=Path, help="write the results here too")
    ap.add_argument("--misses", action="store_true", help="print the chapter misses")
    args = ap.parse_args()
    settings = load_settings(data_dir=args.data_dir)
    store = Store(settings.data_dir)
    seconds, cpu = [], []
    for _ in range(args.runs):
        t, c = time.perf_counter(), time.process_time()
        with store.lock():
            place_run(store, store.load_manifest(), settings, force=True)
        seconds.append(time.perf_counter() - t)
        cpu.append(time.process_time() - c)
    out = syllabus_dir(settings.data_dir)
    syllabus = Syllabus.model_validate_json((out / TREE).read_text("utf-8"))
    summary = SyllabusMap.model_validate_json((out / MAP).read_text("utf-8"))
    placement = PlacementSet.model_validate_json((out / summary.placement).read_text("utf-8"))
    labels = read_labels(args.labels)
    ours = {(c.year, c.number): c.places[0].path if c.places else [] for c in placement.chunks
            if c.kind == "question" and c.year is not None}
    gen = current_generation(store.index_dir)["generation"]
    questions = [q for q in Catalog(store.index_dir / gen / "chunks.sqlite").all_questions() if q.year is not None]
    base = tfidf_baseline(syllabus, questions, load_rules(settings.syllabus.rules_file))
    map_wall, map_cpu = cold_map_seconds(args.data_dir, args.runs)
    result = {"placement": score(ours, labels), "tfidf": score(base, labels),
              "place_seconds_median": round(statistics.median(seconds), 3), "place_seconds": [round(s, 3) for s in seconds],
              "place_cpu_seconds_median": round(statistics.median(cpu), 3),
              "chunks": len(placement.chunks), "cold_map_seconds_median": map_wall, "cold_map_cpu_seconds_median": map_cpu,
              "load_average": [round(x, 2) for x in os.getloadavg()], "tree": syllabus.counts()}
    print(f"tree: {result['tree']}; chunks {result['chunks']}; the syllabus step (whole corpus, --force) "
          f"{result['place_seconds_median']} s wall / {result['place_cpu_seconds_median']} s CPU; cold `cli.py map --json` "
          f"{map_wall} s wall / {map_cpu} s CPU (medians of {args.runs}; load average {result['load_average']})")
    print(f"{'':<10}{'split':<9}{'n':>4}{'subject':>9}{'chapter':>9}{'section':>9}  (n)")
    for name in ("placement", "tfidf"):
        for split, r in result[name].items():
            print(f"{name:<10}{split:<9}{r['n']:>4}{r['subject']:>9.3f}{r['chapter']:>9.3f}"
                  f"{(r['section'] or 0):>9.3f}  ({r['section_n']})")
    if args.misses:
        for m in result["placement"]["all"]["chapter_misses"]:
            print("  miss", m)
    if args.json:
        args.json.write_text(json.dumps(result, ensure_ascii=False, indent=1), "utf-8")


if __name__ == "__main__":
    main()
