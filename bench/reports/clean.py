"""Clean-stage report: past-paper questions per year and document, gold findability before/after
cleaning, and leftover noise, from a data dir's parsed and cleaned artifacts.

    .venv/bin/python -m bench reports.clean --data-dir /tmp/corpus_clean
    .venv/bin/python -m bench reports.clean --data-dir /tmp/corpus_clean --missed --json out.json

Reads ``<data-dir>/manifest.json``, ``parsed/*.json`` and ``cleaned/*.json`` only (run ``cli.py clean``
first). Sections:

* questions: for each year 2009–2023 the numbers 1…47 found after ``merge_questions`` over every
  document (how many have an answer / an analysis), then per document the numbers found and, for the
  missing ones, why (no line of the parsed text starts with that number — e.g. a page without a usable
  text layer that was not OCR'd —, or the line is there but was not taken as a question);
* findability: the share of ``--dev`` questions (and of gold passages) whose ``gold[].contains``
  passage is in the text of its gold file, before cleaning (the parsed blocks and table cells) and
  after (sections, questions with options, answer and analysis). Both sides are compared after NFKC,
  LaTeX → text (as the clean stage writes formulas) and with whitespace and markdown/table markup
  removed; a table passage ``a|b`` counts when its cells appear in order on one line (as does a
  passage of several lines, a PDF table's cells, whose cells became one ``字段：值`` row); in documents
  with OCR'd pages a passage also counts within a small edit distance (≤ 10 %, at least 1);
* noise: the seller ad (淘宝店铺/考研党之家), 王道论坛, page-number lines (``第 N 页``, ``第3页，共9页``),
  the configured watermarks, base64 image data and markdown images / HTML tags, before and after
  cleaning; non-paper documents whose kind changed or that hold question records.

Exit code 0 always; this is a report, not a test.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import unicodedata
from collections import defaultdict
from pathlib import Path

from bench.lib.common import ROOT
from pipeline.clean.core import load_rules
from pipeline.index.merge import merge_questions
from pipeline.clean.rules.base import full_match
from pipeline.clean.rules.formulas_to_text import convert_formulas
from pipeline.models import CleanDoc, ParsedDoc, Question

YEARS = range(2009, 2024)
NUMBERS = range(1, 48)
MARKUP = re.compile(r"[\s*`$|#^~_>\\]+")
CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")
NOISE = {
    "ad": re.compile(r"淘宝店铺|考研党之家"),
    "wangdao": re.compile(r"王道论坛"),
    "page_of": re.compile(r"第\s*\d{1,4}\s*页\s*[,，、/]?\s*共\s*\d{1,4}\s*页"),
    "base64": re.compile(r"data:image/[a-z+]+;base64|[A-Za-z0-9+/]{120,}={0,2}"),
    "img_html": re.compile(r"!\[[^\]]*\]\([^)]*\)|</?(?:img|div|span|font|br|sup|sub)\b[^>]*>"),
}


# ------------------------------------------------------------------------------------------ loading
def load(data_dir: Path) -> list[tuple[ParsedDoc, CleanDoc]]:
    manifest = json.loads((data_dir / "manifest.json").read_text(encoding="utf-8"))
    docs = []
    for doc_id in sorted(manifest["documents"]):
        p, c = data_dir / "parsed" / f"{doc_id}.json", data_dir / "cleaned" / f"{doc_id}.json"
        if p.exists() and c.exists():
            docs.append((ParsedDoc.model_validate_json(p.read_text("utf-8")),
                         CleanDoc.model_validate_json(c.read_text("utf-8"))))
    return docs


def rel(source: str) -> str:
    return source.split("/corpus/")[-1]


def parsed_text(doc: ParsedDoc) -> str:
    parts = []
    for b in doc.blocks:
        parts.append(b.text)
        if b.table:
            parts += [b.table.caption, " ".join(b.table.header)] + [" ".join(r) for r in b.table.rows]
    return "\n".join(p for p in parts if p)


def question_text(q: Question) -> str:
    """A question as the index shows it: stem, ``A. …`` options, answer, analysis."""
    return "\n".join([q.text, *(f"{k}. {v}" for k, v in q.options.items()), q.answer or "", q.analysis or ""])


def cleaned_text(doc: CleanDoc) -> str:
    return "\n".join([s.text for s in doc.sections] + [question_text(q) for q in doc.questions])


# ------------------------------------------------------------------------------------------ findability
def norm(text: str) -> str:
    """NFKC, LaTeX → text, whitespace and markdown/table markup removed."""
    return MARKUP.sub("", unicodedata.normalize("NFKC", convert_formulas(text)[0]))


def within_edits(needle: str, hay: str, max_edits: int) -> bool:
    """Some substring of ``hay`` is within ``max_edits`` edits of ``needle`` (Sellers)."""
    if needle in hay:
        return True
    prev = list(range(len(needle) + 1))
    for ch in hay:
        cur = [0]
        for i in range(1, len(needle) + 1):
            cur.append(min(prev[i - 1] + (needle[i - 1] != ch), prev[i] + 1, cur[i - 1] + 1))
        if cur[-1] <= max_edits:
            return True
        prev = cur
    return False


class Haystack:
    """One document's text, normalised whole and line by line (for table rows)."""

    def __init__(self, text: str, ocr: bool):
        self.lines = [norm(s) for s in text.split("\n")]
        self.full = norm(text)
        self.ocr = ocr

    def find(self, contains: str) -> str:
        """'exact', 'fuzzy' or '' for one gold passage."""
        table = "|" in contains.strip().strip("|")
        if table or "\n" in contains.strip():  # table cells (a PDF table's cells come one per line)
            cells = [norm(c) for c in re.split(r"[|\n]", contains)]
            cells = [c for c in cells if c and not re.fullmatch(r"[-:]+", c)]
            if any(_in_order(cells, line) for line in self.lines):
                return "exact"
            if table:
                return ""
        needle = norm(contains)
        if needle in self.full:
            return "exact"
        if self.ocr and within_edits(needle, self.full, max(1, len(needle) // 10)):
            return "fuzzy"
        return ""


def _in_order(cells: list[str], line: str) -> bool:
    at = 0
    for c in cells:
        at = line.find(c, at)
        if at < 0:
            return False
        at += len(c)
    return True


def findability(docs: list[tuple[ParsedDoc, CleanDoc]], dev: Path) -> dict:
    by_file = {rel(p.source): (p, c) for p, c in docs}
    stacks: dict[tuple[str, str], Haystack] = {}

    def stack(file: str, side: str) -> Haystack | None:
        if file not in by_file:
            return None
        if (file, side) not in stacks:
            p, c = by_file[file]
            ocr = any(pg.method == "ocr" for pg in p.pages)
            stacks[(file, side)] = Haystack(parsed_text(p) if side == "before" else cleaned_text(c), ocr)
        return stacks[(file, side)]

    rows = []
    for line in dev.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        q = json.loads(line)
        found = {side: [(stack(g["file"], side).find(g["contains"]) if stack(g["file"], side) else "")
                        for g in q["gold"]] for side in ("before", "after")}
        rows.append({"id": q["id"], "kind": q["kind"], "gold": q["gold"], **found})
    out = {"questions": len(rows), "passages": sum(len(r["gold"]) for r in rows), "rows": rows}
    for side in ("before", "after"):
        out[side] = {"any": sum(any(r[side]) for r in rows), "all": sum(all(r[side]) for r in rows),
                     "passages": sum(bool(f) for r in rows for f in r[side]),
                     "fuzzy": sum(f == "fuzzy" for r in rows for f in r[side])}
    return out


# ------------------------------------------------------------------------------------------ questions
def _num_line(n: int) -> re.Pattern:
    digits = r"\s?".join(f"{n:02d}" if n < 10 else str(n))
    one = r"\s?".join(str(n))
    return re.compile(rf"(?m)^\s*(?:{digits}|{one})\s*(?:[.．、]|(?=[（(]\s*\d+\s*分))")


def empty_pages(doc: ParsedDoc) -> list[int]:
    """Pages whose parsed text has fewer than 20 CJK characters (no usable text, not OCR'd)."""
    per: dict[int, str] = defaultdict(str)
    for b in doc.blocks:
        per[b.page or 0] += b.text
    return [pg.number for pg in doc.pages if len(CJK.findall(per.get(pg.number, ""))) < 20]


def why_missing(doc: ParsedDoc, numbers: list[int]) -> list[tuple[str, str]]:
    """(numbers as ranges, reason) for numbers a document's questions lack."""
    text = parsed_text(doc)
    blank = empty_pages(doc)
    reasons = []
    for n in numbers:
        inner = re.search(rf"(?m)^([^\w\s]{{1,3}}\s*)(?:{n}|0{n})\s*[.．、]", text)
        if _num_line(n).search(text):
            reasons.append((n, "a line starts with this number but was not taken as a question"))
        elif inner:
            reasons.append((n, f"the number is not at the start of its line ({inner.group(0).strip()!r})"))
        elif blank:
            reasons.append((n, f"no line starts with this number; pages {blank} have no usable text"
                               " (text layer without the body, not OCR'd)"))
        else:
            reasons.append((n, "no line starts with this number in the parsed text (lost or misread)"))
    grouped: list[tuple[list[int], str]] = []
    for n, why in reasons:
        if grouped and grouped[-1][1] == why and grouped[-1][0][-1] == n - 1:
            grouped[-1][0].append(n)
        else:
            grouped.append(([n], why))
    return [(f"{g[0]}" if len(g) == 1 else f"{g[0]}–{g[-1]}", why) for g, why in grouped]


def question_table(docs: list[tuple[ParsedDoc, CleanDoc]]) -> dict:
    years: dict[int, dict] = {}
    for year in YEARS:
        records, per_doc = [], []
        for p, c in docs:
            mine = [q for q in c.questions if q.year == year]
            named = p.kind == "paper" and not c.questions and re.search(rf"(?<!\d){year}(?!\d)", Path(c.source).name)
            if not mine and not named:
                continue
            records += mine
            have = {q.number for q in mine}
            missing = [n for n in NUMBERS if n not in have]
            if not mine:
                why = [("1–47", f"no question found; pages {empty_pages(p)} have no usable text")]
            else:
                why = why_missing(p, missing) if missing else []
            per_doc.append({"file": rel(c.source), "found": len(have & set(NUMBERS)),
                            "extra": sorted(have - set(NUMBERS)),
                            "answers": sum(bool(q.answer) for q in mine),
                            "analyses": sum(bool(q.analysis) for q in mine),
                            "stems": sum(bool(q.text) for q in mine), "missing": why})
        merged = [q for q in merge_questions(records) if q.number in NUMBERS]
        numbers = {q.number for q in merged}
        years[year] = {"found": len(numbers), "missing": [n for n in NUMBERS if n not in numbers],
                       "stems": sum(bool(q.text) for q in merged),
                       "answers": sum(bool(q.answer) for q in merged),
                       "analyses": sum(bool(q.analysis) for q in merged),
                       "choice_analyses": sum(bool(q.analysis) for q in merged if q.number <= 40),
                       "docs": per_doc}
    return years


# ------------------------------------------------------------------------------------------ noise
def noise(docs: list[tuple[ParsedDoc, CleanDoc]], rules) -> dict:
    out = {}
    for side in ("before", "after"):
        counts = {k: 0 for k in list(NOISE) + ["page_line", "watermark"]}
        where: dict[str, list[str]] = defaultdict(list)
        for p, c in docs:
            text = parsed_text(p) if side == "before" else cleaned_text(c)
            for k, pat in NOISE.items():
                n = len(pat.findall(text))
                counts[k] += n
                if n and side == "after":
                    where[k].append(rel(c.source))
            lines = sum(1 for s in text.split("\n") if s.strip() and full_match(rules.page_number_patterns, s))
            counts["page_line"] += lines
            marks = sum(text.count(w) for w in rules.watermarks if w)
            counts["watermark"] += marks
            if side == "after" and lines:
                where["page_line"].append(rel(c.source))
            if side == "after" and marks:
                where["watermark"].append(rel(c.source))
        out[side] = counts
        if side == "after":
            out["where"] = dict(where)
    notes = [(p, c) for p, c in docs if p.kind != "paper"]
    out["notes"] = {"docs": len(notes), "kind_changed": [rel(c.source) for p, c in notes if c.kind != p.kind],
                    "with_questions": [rel(c.source) for p, c in notes if c.questions]}
    return out


# ------------------------------------------------------------------------------------------ printing
def print_report(years: dict, gold: dict | None, noise_: dict, missed: bool) -> None:
    print("Past-paper questions per year (after merge_questions over all documents)")
    print(f"{'year':<6}{'found':>6}{'stems':>6}{'answer':>7}{'analys':>7}  missing")
    for year, y in years.items():
        print(f"{year:<6}{y['found']:>6}{y['stems']:>6}{y['answers']:>7}{y['analyses']:>7}  {y['missing'] or '-'}")
    print("\nPer document: found/47 (stems, answers, analyses); missing and why")
    for year, y in years.items():
        for d in y["docs"]:
            print(f"  {year} {d['file'][-52:]:<52} {d['found']:>2}/47 (s{d['stems']} a{d['answers']} z{d['analyses']})")
            for nums, why in d["missing"]:
                print(f"       missing {nums}: {why}")
    if gold:
        n = gold["questions"]
        print(f"\nGold findability ({n} questions, {gold['passages']} passages)")
        for side in ("before", "after"):
            g = gold[side]
            print(f"  {side:<6}: any passage {g['any']}/{n} = {g['any'] / n:.1%}; every passage {g['all']}/{n}; "
                  f"passages {g['passages']}/{gold['passages']} (fuzzy on OCR'd docs: {g['fuzzy']})")
        lost = [r["id"] for r in gold["rows"] if any(r["before"]) and not any(r["after"])]
        won = [r["id"] for r in gold["rows"] if any(r["after"]) and not any(r["before"])]
        print(f"  lost by cleaning: {lost or '-'}; found only after cleaning: {won or '-'}")
        if missed:
            for r in gold["rows"]:
                for g, b, a in zip(r["gold"], r["before"], r["after"]):
                    if not a:
                        print(f"  MISSED after{' (also before)' if not b else ''} {r['id']} "
                              f"{g['file'][-40:]}: {g['contains']!r:.80}")
    print("\nNoise (before → after cleaning)")
    for k in noise_["before"]:
        print(f"  {k:<10} {noise_['before'][k]:>5} → {noise_['after'][k]}"
              + (f"   in {noise_['where'][k]}" if noise_["where"].get(k) else ""))
    nt = noise_["notes"]
    print(f"  non-paper documents: {nt['docs']}; kind changed: {nt['kind_changed'] or '-'}; "
          f"with questions: {nt['with_questions'] or '-'}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data-dir", type=Path, default=Path("data"))
    ap.add_argument("--dev", type=Path, default=ROOT.parent / "shared/eval/dev.jsonl")
    ap.add_argument("--rules", type=Path, default=None, help="rules file (default: the shipped rules.yaml)")
    ap.add_argument("--missed", action="store_true", help="list gold passages not found after cleaning")
    ap.add_argument("--json", type=Path, help="write the report as JSON here")
    a = ap.parse_args(argv)
    if not (a.data_dir / "manifest.json").exists():
        print(f"no manifest.json in {a.data_dir}", file=sys.stderr)
        return 0
    docs = load(a.data_dir)
    years = question_table(docs)
    gold = findability(docs, a.dev) if a.dev.is_file() else None
    noise_ = noise(docs, load_rules(a.rules))
    print_report(years, gold, noise_, a.missed)
    if a.json:
        report = {"years": years, "gold": gold, "noise": noise_}
        a.json.write_text(json.dumps(report, ensure_ascii=False, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
