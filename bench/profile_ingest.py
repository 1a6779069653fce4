"""Profile the slowest ingest stage with py-spy (sampling, worker processes included).

    .venv/bin/python -m bench profile_ingest                 # the slowest stage in results/ingest.json
    .venv/bin/python -m bench profile_ingest --stage index   # or parse | clean | enrich | index

parse: ingests, into a fresh data dir, a subset of the corpus PDFs (symlinked into a temporary raw dir):
OCR'd PDFs, slowest per page first, up to ``--ocr-pages`` OCR pages, plus the fastest OCR'd PDF and the
biggest text-layer PDF (~2-3 min). Other stages: a copy of the ingested data dir
re-runs that stage with ``--force`` (index: with an emptied Chroma store, so every chunk is embedded).
Writes bench/results/profile_<stage>.txt (top functions by own time and by inclusive time, summed over
processes) and profile_<stage>.svg (flame graph), and profile_<stage>.json.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

from bench.lib import common as C

PYSPY = str(Path(C.PY).parent / "py-spy")


def slowest_stage() -> str:
    res = json.loads((C.RESULTS / "ingest.json").read_text())
    st = {k: v["wall_s"] for k, v in res["stages"].items() if k != "discover"}
    return max(st, key=st.get)


def ocr_subset(data_dir: Path, raw: Path, budget: int) -> list[str]:
    """Symlink into ``raw``: OCR'd PDFs, slowest per OCR page first (from results/ingest.json), until
    ``budget`` OCR pages, plus the fastest OCR'd PDF and the biggest text-layer PDF for contrast."""
    per_doc = json.loads((C.RESULTS / "ingest.json").read_text())["per_doc"]
    ocr, text = [], []
    for f in (data_dir / "parsed").glob("*.json"):
        d = json.loads(f.read_text("utf-8"))
        if d["format"] != "pdf":
            continue
        n_ocr = sum(p["method"] == "ocr" for p in d["pages"])
        sec = per_doc.get(d["doc_id"], {}).get("parse", 0.0)
        if n_ocr:
            ocr.append((sec / n_ocr, n_ocr, d["source"]))
        else:
            text.append((len(d["pages"]), 0, d["source"]))
    ocr.sort(reverse=True)
    picked, pages = [], 0
    for spp, n, src in ocr:
        if pages + n <= budget:
            picked.append(src)
            pages += n
    if ocr and ocr[-1][2] not in picked:
        picked.append(ocr[-1][2])
    if text:
        picked.append(max(text)[2])
    shutil.rmtree(raw, ignore_errors=True)
    raw.mkdir(parents=True)
    for i, src in enumerate(picked):
        (raw / f"{i:02d}_{Path(src).name}").symlink_to(Path(src).resolve())
    return picked


CATEGORIES = [  # first match on the stack wins
    ("OCR text recognition (rapidocr rec model, onnxruntime)", "TextRecognizer.__call__"),
    ("OCR text detection (rapidocr det model, onnxruntime)", "TextDetector.__call__"),
    ("OCR angle classifier", "TextClassifier.__call__"),
    ("OCR other (rapidocr pre/post-processing)", "RapidOCR.__call__"),
    ("page render for OCR (pymupdf get_pixmap)", "get_pixmap"),
    ("OCR worker start-up (imports, model load)", "_init_worker"),
    ("parse: PDF text layer, verdicts, headings, tables", "parse_pdf"),
    ("parse: markdown / text", "parse_markdown"),
    ("index: USE embedding", "embed_documents"),
    ("index: Chroma", "chromadb"),
    ("index: tokenize (jieba)", "tokenize"),
    ("enrich", "pipeline/enrich"),
    ("clean", "pipeline/clean"),
    ("imports", "_find_and_load"),
]


def summarise(raw_file: Path, top: int = 25) -> dict:
    """Own and inclusive sample counts per function, and a share per category, from collapsed stacks."""
    own, incl, total = Counter(), Counter(), 0
    cats = Counter()
    for ln in raw_file.read_text(errors="replace").splitlines():
        stack, _, n = ln.rpartition(" ")
        if not n.isdigit():
            continue
        n = int(n)
        total += n
        frames = [f for f in stack.split(";") if f and not f.startswith("process ")]
        if not frames:
            continue
        own[frames[-1]] += n
        for f in set(frames):
            incl[f] += n
        joined = ";".join(frames)
        cats[next((name for name, key in CATEGORIES if key in joined), "other")] += n
    pct = lambda c: [[f, round(100 * k / total, 1)] for f, k in c.most_common(top)]  # noqa: E731
    return {"samples": total, "own_pct": pct(own), "inclusive_pct": pct(incl),
            "categories_pct": {k: round(100 * v / total, 1) for k, v in cats.most_common()}}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--stage", default=None)
    ap.add_argument("--rate", type=int, default=50, help="py-spy samples per second")
    ap.add_argument("--ocr-pages", type=int, default=24, help="parse: OCR page budget of the PDF subset")
    args = ap.parse_args()
    C.setup()
    stage = args.stage or slowest_stage()
    src = C.ingested_dir()
    work = C.WORK / f"profile_{stage}"
    shutil.rmtree(work, ignore_errors=True)
    info = C.machine()
    if stage == "parse":
        raw = C.WORK / "profile_raw"
        files = ocr_subset(src, raw, args.ocr_pages)
        cmd = ["cli.py", "ingest", str(raw), "--data-dir", str(work), "-q"]  # parse dominates this subset
    else:
        shutil.copytree(src, work)
        if stage == "index":
            shutil.rmtree(work / "index" / "chroma", ignore_errors=True)
        files = []
        cmd = ["cli.py", stage, "--force", "--data-dir", str(work), "-q"]
    raw_out = C.WORK / f"profile_{stage}.raw.txt"  # collapsed stacks (~1 MB), kept out of the repo
    svg = C.RESULTS / f"profile_{stage}.svg"
    print(f"profiling {stage}: {' '.join(cmd)}; load average {info['loadavg_at_start']}", flush=True)
    t0 = time.monotonic()
    p = subprocess.run([PYSPY, "record", "--subprocesses", "-r", str(args.rate), "-f", "raw", "-o",
                        str(raw_out), "--", C.PY, *cmd], cwd=C.ROOT, capture_output=True, text=True)
    wall = time.monotonic() - t0
    if p.returncode:
        print(p.stdout[-2000:], p.stderr[-2000:])
    summary = summarise(raw_out)
    lines = [f"py-spy profile of the {stage} stage: {' '.join(cmd)}", f"wall {wall:.1f} s, {summary['samples']} samples "
             f"at {args.rate}/s over all processes (on-CPU samples only)", "", "where the CPU goes:"]
    lines += [f"  {v:5.1f}%  {k}" for k, v in summary["categories_pct"].items()]
    lines += ["", "own time (top of stack):"]
    lines += [f"  {v:5.1f}%  {f}" for f, v in summary["own_pct"]]
    lines += ["", "inclusive time:"] + [f"  {v:5.1f}%  {f}" for f, v in summary["inclusive_pct"]]
    (C.RESULTS / f"profile_{stage}.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))
    _flamegraph(raw_out, svg)
    C.save(f"profile_{stage}", {"machine": info, "stage": stage, "command": "python -m bench profile_ingest --stage " + stage,
                                "profiled": cmd, "files": files, "wall_s": round(wall, 1), **summary})


_BOILER = ("process ", "spawn_main", "<module>", "_main (", "BaseProcess", "_process_worker", "Thread._bootstrap",
           "Typer", "TyperGroup", "Command.", "_main", "invoke", "Context.invoke", "MultiCommand", "Group.")


def _flamegraph(raw: Path, svg: Path) -> None:
    """A minimal icicle chart (matplotlib) of the collapsed stacks, process/bootstrap frames dropped:
    depth ≤ 14, boxes ≥ 0.5%."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    tree: dict = {}
    total = 0
    for ln in raw.read_text(errors="replace").splitlines():
        stack, _, n = ln.rpartition(" ")
        if not n.isdigit():
            continue
        total += int(n)
        node = tree
        frames = [f for f in stack.split(";") if not f.lstrip().startswith(_BOILER)]
        for f in frames[:14]:
            node = node.setdefault(f, {"_n": 0})
            node["_n"] += int(n)
    fig, ax = plt.subplots(figsize=(14, 7))

    def draw(node, x, depth):
        for name, child in sorted(((k, v) for k, v in node.items() if k != "_n"), key=lambda kv: -kv[1]["_n"]):
            w = child["_n"] / total
            if w >= 0.005:
                ax.add_patch(plt.Rectangle((x, -depth), w, 0.95, color=plt.cm.tab20(hash(name) % 20), ec="white"))
                if w > 0.04:
                    ax.text(x + 0.002, -depth + 0.4, name.split(" (")[0][:int(w * 160)], fontsize=6, va="center")
                draw(child, x, depth + 1)
            x += w

    draw(tree, 0, 0)
    ax.set_xlim(0, 1), ax.set_ylim(-14.2, 1), ax.axis("off")
    ax.set_title(f"{svg.stem}: icicle of py-spy samples (width = share of {total} samples)", fontsize=9)
    fig.tight_layout()
    fig.savefig(svg)
    plt.close(fig)


if __name__ == "__main__":
    main()
