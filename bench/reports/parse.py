"""Per-PDF parse report and gold-passage findability, from a data dir's parsed artifacts.

    .venv/bin/python -m bench reports.parse --data-dir /tmp/corpus_parse
    .venv/bin/python -m bench reports.parse --data-dir /tmp/corpus_parse --json out.json --pages

Reads ``<data-dir>/parsed/*.json`` only (no parsing). For every PDF: pages, OCR pages, pages with
at least ``--min-cjk`` CJK characters in the parsed text, mean OCR confidence, and, when the PDF is
listed in ``--inventory`` (../shared/eval/PDF_INVENTORY.md), whether the OCR decision matches it
(a PDF whose text layer "needs OCR" should be OCR'd on every page, any other PDF on none, except
pages whose text layer is empty but carry a scanned image). Then the share of ``--dev`` gold
passages (``gold[].contains``) found in the parsed text of their gold file: compared with
whitespace and markdown/table markup removed (NFKC); a table passage counts when every cell is
found; on OCR'd pages a passage also counts with a small edit distance (≤ 10 %, at least 1).

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

CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
MARKUP = re.compile(r"[\s*`$|#^~_>\\]+")


def norm(text: str) -> str:
    """NFKC, then whitespace and markdown/table markup removed."""
    return MARKUP.sub("", unicodedata.normalize("NFKC", text))


def page_texts(doc: dict) -> dict[int, str]:
    """Parsed text per page (block text plus table cells)."""
    out: dict[int, list[str]] = defaultdict(list)
    for b in doc["blocks"]:
        parts = [b.get("text") or ""]
        table = b.get("table")
        if table:
            parts += table.get("header", []) + [c for row in table.get("rows", []) for c in row]
        out[b.get("page") or 0].append("\n".join(p for p in parts if p))
    return {k: "\n".join(v) for k, v in out.items()}


def read_inventory(path: Path) -> dict[str, str]:
    """file (relative to the corpus' pdf dir root) → status column of PDF_INVENTORY.md."""
    inv: dict[str, str] = {}
    if not path.is_file():
        return inv
    for line in path.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 10 and cells[0].endswith(".pdf"):
            inv[cells[0]] = cells[8]
    return inv


def inventory_status(source: str, inv: dict[str, str]) -> str | None:
    for name, status in inv.items():
        if source.endswith("/" + name):
            return status
    return None


def within_edits(needle: str, hay: str, max_edits: int) -> bool:
    """Approximate substring match (Sellers): some substring of ``hay`` is within ``max_edits``
    edits of ``needle``."""
    if not needle:
        return True
    if needle in hay:
        return True
    m = len(needle)
    prev = list(range(m + 1))
    for ch in hay:
        cur = [0]
        for i in range(1, m + 1):
            cost = 0 if needle[i - 1] == ch else 1
            cur.append(min(prev[i - 1] + cost, prev[i] + 1, cur[i - 1] + 1))
        if cur[m] <= max_edits:
            return True
        prev = cur
    return False


def passage_found(contains: str, full: str, ocr_text: str) -> str:
    """'exact', 'fuzzy' (only on OCR'd text) or '' for one gold passage."""
    if "|" in contains.strip().strip("|"):
        cells = [norm(c) for c in contains.split("|")]
        cells = [c for c in cells if c and not re.fullmatch(r"[-:]+", c)]
    else:
        cells = [norm(contains)]
    how = "exact"
    for cell in cells:
        if cell in full:
            continue
        if ocr_text and within_edits(cell, ocr_text, max(1, len(cell) // 10)):
            how = "fuzzy"
            continue
        return ""
    return how


def load_docs(data_dir: Path) -> list[dict]:
    docs = []
    for f in sorted((data_dir / "parsed").glob("*.json")):
        with open(f, encoding="utf-8") as fh:
            docs.append(json.load(fh))
    return docs


def pdf_rows(docs: list[dict], inv: dict[str, str], min_cjk: int) -> list[dict]:
    rows = []
    for d in docs:
        if d.get("format") != "pdf":
            continue
        texts = page_texts(d)
        pages = d["pages"]
        ocr = [p for p in pages if p["method"] == "ocr"]
        confs = [p["ocr_confidence"] for p in ocr if p.get("ocr_confidence")]
        cjk_per_page = {p["number"]: len(CJK.findall(texts.get(p["number"], ""))) for p in pages}
        status = inventory_status(d["source"], inv)
        needs_ocr = status is not None and "needs OCR" in status
        part = re.search(r"on (\d+)/(\d+) pages", status or "")
        blank = [p["number"] for p in pages if p["method"] == "text" and not p.get("chars")
                 and not texts.get(p["number"], "").strip()]
        rows.append({
            "file": d["source"].split("/corpus/")[-1],
            "pages": len(pages),
            "ocr_pages": len(ocr),
            "ocr_page_numbers": [p["number"] for p in ocr],
            "none_pages": [p["number"] for p in pages if p["method"] == "none"],
            "verdicts": {v: sum(p["verdict"] == v for p in pages) for v in ("good", "missing", "garbled")},
            "blank_pages": blank,
            "not_ok_in_inventory": int(part.group(2)) - int(part.group(1)) if part else 0,
            "cjk_pages": sum(c >= min_cjk for c in cjk_per_page.values()),
            "low_cjk_pages": [n for n, c in cjk_per_page.items() if c < min_cjk],
            "cjk_per_page": cjk_per_page,
            "mean_ocr_conf": round(sum(confs) / len(confs), 3) if confs else None,
            "inventory": status,
            "expect_ocr": None if status is None else needs_ocr,
        })
    rows.sort(key=lambda r: r["file"])
    return rows


def gold_findability(docs: list[dict], dev: Path) -> dict:
    by_file: dict[str, dict] = {}
    for d in docs:
        rel = d["source"].split("/corpus/")[-1]
        by_file[rel] = d
    cache: dict[str, tuple[str, str]] = {}
    results = []
    for line in dev.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        q = json.loads(line)
        for g in q["gold"]:
            d = by_file.get(g["file"])
            if d is None:
                results.append({"id": q["id"], "file": g["file"], "found": "", "why": "file not parsed"})
                continue
            if g["file"] not in cache:
                texts = page_texts(d)
                ocr_nums = {p["number"] for p in d.get("pages", []) if p["method"] == "ocr"}
                cache[g["file"]] = (norm("\n".join(texts.values())),
                                    norm("\n".join(t for n, t in texts.items() if n in ocr_nums)))
            full, ocr_text = cache[g["file"]]
            results.append({"id": q["id"], "file": g["file"], "contains": g["contains"],
                            "found": passage_found(g["contains"], full, ocr_text),
                            "pdf": g["file"].endswith(".pdf")})
    def share(rs):
        return (sum(bool(r["found"]) for r in rs), len(rs))
    pdf = [r for r in results if r.get("pdf")]
    notes = [r for r in results if "pdf" in r and not r["pdf"]]
    return {"all": share(results), "pdf": share(pdf), "notes": share(notes),
            "fuzzy": sum(r["found"] == "fuzzy" for r in results), "passages": results}


def print_table(rows: list[dict], min_cjk: int, show_pages: bool) -> None:
    head = (f"{'file':<58} {'pages':>5} {'blank':>5} {'ocr':>4} {'cjk≥' + str(min_cjk):>7} {'share':>6} "
            f"{'conf':>5}  check")
    print(head)
    print("-" * len(head))
    bad = 0
    for r in rows:
        inked = r["pages"] - len(r["blank_pages"])
        share = r["cjk_pages"] / inked if inked else 0
        if r["expect_ocr"] is None:
            check = "?"
        elif r["expect_ocr"]:
            missing = sorted(set(range(1, r["pages"] + 1)) - set(r["ocr_page_numbers"]) - set(r["blank_pages"]))
            check = "ok" if not missing else f"OCR missing on {missing}"
        elif not r["ocr_pages"]:
            check = "ok"
        elif r["ocr_pages"] <= r["not_ok_in_inventory"]:
            check = f"ok (OCR on p{r['ocr_page_numbers']}, inventory: {r['not_ok_in_inventory']} page(s) not OK)"
        else:
            check = f"OCR on {r['ocr_page_numbers']}"
        if share < 0.95:
            check += f"; low CJK p{r['low_cjk_pages']}"
        bad += not check.startswith("ok") or "low CJK" in check
        conf = f"{r['mean_ocr_conf']:.3f}" if r["mean_ocr_conf"] else "-"
        print(f"{r['file'][-58:]:<58} {r['pages']:>5} {len(r['blank_pages']):>5} {r['ocr_pages']:>4} "
              f"{r['cjk_pages']:>7} {share:>6.0%} {conf:>5}  {check}")
        if show_pages:
            print("      CJK/page:", " ".join(f"{n}:{c}" for n, c in sorted(r["cjk_per_page"].items())))
    tot_p = sum(r["pages"] for r in rows)
    tot_o = sum(r["ocr_pages"] for r in rows)
    tot_c = sum(r["cjk_pages"] for r in rows)
    tot_b = sum(len(r["blank_pages"]) for r in rows)
    n95 = sum(r["cjk_pages"] >= 0.95 * (r["pages"] - len(r["blank_pages"])) for r in rows)
    print("-" * len(head))
    print(f"{len(rows)} PDFs, {tot_p} pages ({tot_b} blank), {tot_o} OCR'd, {tot_c} with ≥{min_cjk} CJK chars; "
          f"{n95}/{len(rows)} PDFs with CJK text on ≥95% of their non-blank pages; {bad} rows flagged")
    print("share = pages with ≥N CJK chars / non-blank pages; blank = no text layer, no image, no drawn glyphs; "
          "conf = mean OCR box confidence")


def main(argv=None) -> int:
    here = ROOT
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data-dir", type=Path, default=Path("data"))
    ap.add_argument("--inventory", type=Path, default=here.parent / "shared/eval/PDF_INVENTORY.md")
    ap.add_argument("--dev", type=Path, default=here.parent / "shared/eval/dev.jsonl")
    ap.add_argument("--min-cjk", type=int, default=20, help="a page 'has Chinese text' with this many CJK chars")
    ap.add_argument("--pages", action="store_true", help="also print CJK chars per page")
    ap.add_argument("--missed", action="store_true", help="list gold passages not found")
    ap.add_argument("--json", type=Path, help="write the report as JSON here")
    a = ap.parse_args(argv)
    docs = load_docs(a.data_dir)
    if not docs:
        print(f"no parsed artifacts under {a.data_dir / 'parsed'}", file=sys.stderr)
        return 0
    rows = pdf_rows(docs, read_inventory(a.inventory), a.min_cjk)
    print_table(rows, a.min_cjk, a.pages)
    report = {"pdfs": rows}
    if a.dev.is_file():
        gold = gold_findability(docs, a.dev)
        report["gold"] = gold
        for key in ("all", "pdf", "notes"):
            k, n = gold[key]
            print(f"gold passages found ({key}): {k}/{n} = {k / n:.1%}" if n else f"gold ({key}): none")
        print(f"  of which matched only approximately on OCR'd pages: {gold['fuzzy']}")
        if a.missed:
            for r in gold["passages"]:
                if not r["found"]:
                    print(f"  MISSED {r['id']} {r['file'][-45:]}: {r.get('contains', r.get('why'))!r:.90}")
    if a.json:
        a.json.write_text(json.dumps(report, ensure_ascii=False, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
