"""Parse-stage throughput: text pages/s, OCR s/page, memory on a long PDF, OCR engines compared.

    .venv/bin/python -m bench parse                       # all but the PaddleOCR comparison
    .venv/bin/python -m bench parse --paddle-python /tmp/paddle-venv/bin/python

Prints a table and writes bench/results/parse.json. Measures, each in its own process where it
matters (peak RSS):
  text    the corpus PDFs whose pages all have a good text layer (--corpus; skipped if absent),
          parsed in-process with OCR disabled: pages/s, and the page-verdict step alone;
  long    a generated N-page Chinese text PDF (--pages, default 300) and one a tenth as long,
          each parsed in a fresh process: pages/s and peak RSS (flat memory = similar peaks);
  ocr     an image-only PDF (the corpus' 2016 paper if present, else a generated 6-page scan)
          through OcrRunner.pdf_pages with ocr_workers=2 and 1: s/page with and without start-up;
  engines rapidocr vs paddleocr (in --paddle-python's environment) on one generated A4 page of
          known text: s/page and accuracy (1 - CER after NFKC and whitespace removal).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import unicodedata
from pathlib import Path

from bench.lib.common import ROOT

SENTENCES = [  # our own text, not corpus text
    "线性表的顺序存储结构用一组地址连续的存储单元依次存储数据元素。",
    "折半查找仅适用于有序的顺序表，每次将给定值与中间位置的元素比较。",
    "散列函数把关键字映射为存储地址，冲突可以用开放定址法或拉链法处理。",
    "进程是资源分配的基本单位，线程是处理机调度的基本单位。",
    "页式存储管理把逻辑地址划分为页号和页内偏移两部分。",
    "传输层为运行在不同主机上的应用进程提供端到端的逻辑通信。",
    "流水线的吞吐率受最慢的那一段限制，数据相关会引起流水线阻塞。",
    "哈夫曼树是带权路径长度最短的二叉树，常用于构造前缀编码。",
]


def _write_text_pdf(path: Path, pages: int) -> None:
    import pymupdf

    doc = pymupdf.open()
    font = pymupdf.Font("cjk")
    for n in range(pages):
        page = doc.new_page(width=595, height=842)
        page.insert_font(fontname="cjk", fontbuffer=font.buffer)
        y = 70
        if n % 10 == 0:
            page.insert_text((60, y), f"第{n // 10 + 1}章 复习要点", fontname="cjk", fontsize=18)
            y += 40
        for i in range(34):
            page.insert_text((60, y + 20 * i), SENTENCES[(n + i) % len(SENTENCES)], fontname="cjk", fontsize=10.5)
        page.insert_text((280, 820), f"— {n + 1} —", fontname="cjk", fontsize=9)
    doc.save(path, garbage=3, deflate=True)


def _known_text_page() -> tuple["object", str]:
    """An A4 page at 150 dpi with 24 lines of known text: (RGB array, the text)."""
    import numpy as np
    import pymupdf

    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    page.insert_font(fontname="cjk", fontbuffer=pymupdf.Font("cjk").buffer)
    lines = [f"{i + 1}. {SENTENCES[i % len(SENTENCES)]}" for i in range(24)]
    for i, line in enumerate(lines):
        page.insert_text((50, 70 + 30 * i), line, fontname="cjk", fontsize=11)
    pix = page.get_pixmap(dpi=150)
    img = np.frombuffer(pix.samples, dtype=np.uint8).reshape(pix.height, pix.width, pix.n)[:, :, :3].copy()
    return img, "".join(lines)


def _squash(s: str) -> str:
    return "".join(unicodedata.normalize("NFKC", s).split())


def _cer(got: str, want: str) -> float:
    a, b = _squash(got), _squash(want)
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j - 1] + (ca != cb), prev[j] + 1, cur[j - 1] + 1))
        prev = cur
    return prev[-1] / max(1, len(b))


# ---------------------------------------------------------------- child-process entry points

def _child_parse(path: str) -> None:
    """Parse one PDF (no OCR expected); print pages, seconds, peak RSS in MB (VmHWM: ru_maxrss
    would include the parent's RSS at fork time), and the peak before parsing (imports only)."""
    from pipeline.parse.garble import GarbleThresholds
    from pipeline.parse.pdf import parse_pdf

    base = _vm_hwm_mb()
    t = time.perf_counter()
    result = parse_pdf(Path(path), path, password=None, th=GarbleThresholds(), ocr_pages=lambda p, n: {})
    pages, blocks = result.pages, result.blocks
    dt = time.perf_counter() - t
    print(json.dumps({"pages": len(pages), "s": dt, "blocks": len(blocks), "peak_rss_mb": _vm_hwm_mb(),
                      "rss_before_mb": base}))


def _vm_hwm_mb() -> float:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return 0.0


def _child_engine(engine: str, model_dir: str) -> None:
    """OCR the known-text page with one engine (1 thread); print load s, page s, accuracy."""
    from pipeline.parse.ocr import make_engine, ocr_image

    kw: dict = {"threads": 1}
    if engine == "paddleocr":
        from pipeline.parse.ocr.paddle import build_model_dirs_from_rapidocr

        det, rec = build_model_dirs_from_rapidocr(model_dir)
        kw.update(det_dir=det, rec_dir=rec)
    img, truth = _known_text_page()
    t = time.perf_counter()
    eng = make_engine(engine, **kw)
    load = time.perf_counter() - t
    ocr_image(eng, img)  # warm-up
    runs = []
    for _ in range(3):
        t = time.perf_counter()
        lines, conf = ocr_image(eng, img)
        runs.append(time.perf_counter() - t)
    print(json.dumps({"engine": engine, "load_s": load, "s_per_page": sorted(runs)[1],
                      "accuracy": 1 - _cer("".join(lines), truth), "confidence": conf}))


def _run_child(args: list[str], python: str = sys.executable) -> dict:
    out = subprocess.run([python, "-m", "bench.parse", *args], capture_output=True, text=True, cwd=ROOT,
                         env={**os.environ, "HF_HUB_OFFLINE": "1"})
    if out.returncode != 0:
        raise RuntimeError(out.stderr.strip().splitlines()[-1] if out.stderr.strip() else "child failed")
    return json.loads(out.stdout.strip().splitlines()[-1])


# ---------------------------------------------------------------- measurements

def bench_text_corpus(corpus: Path) -> dict:
    from pipeline.parse.garble import GarbleThresholds
    from pipeline.parse.pdf import open_pdf, page_verdicts, parse_pdf

    th = GarbleThresholds()
    pdfs, pages, t_parse, t_verdict = 0, 0, 0.0, 0.0
    for path in sorted(corpus.rglob("*.pdf")):
        t = time.perf_counter()
        doc = open_pdf(path, None)
        verdicts = page_verdicts(doc, str(path), th)
        t_v = time.perf_counter() - t
        doc.close()
        if any(info.verdict != "good" for info, _ in verdicts):
            continue
        t = time.perf_counter()
        parse_pdf(path, str(path), password=None, th=th, ocr_pages=lambda p, n: {})
        t_parse += time.perf_counter() - t
        t_verdict += t_v
        pdfs += 1
        pages += len(verdicts)
    return {"pdfs": pdfs, "pages": pages, "seconds": round(t_parse, 2),
            "pages_per_s": round(pages / t_parse, 1) if t_parse else None,
            "verdict_pages_per_s": round(pages / t_verdict, 1) if t_verdict else None}


def bench_long(n_pages: int, tmp: Path) -> dict:
    out = {}
    for n in (max(1, n_pages // 10), n_pages):
        path = tmp / f"long_{n}.pdf"
        _write_text_pdf(path, n)
        r = _run_child(["--child-parse", str(path)])
        out[str(n)] = {"pages": r["pages"], "seconds": round(r["s"], 2), "pages_per_s": round(r["pages"] / r["s"], 1),
                       "peak_rss_mb": round(r["peak_rss_mb"], 1), "rss_after_imports_mb": round(r["rss_before_mb"], 1),
                       "file_mb": round(path.stat().st_size / 2**20, 2)}
    return out


def _scan_pdf(corpus: Path, tmp: Path) -> Path:
    found = list(corpus.rglob("2016年计算机408真题及答案.pdf")) if corpus.is_dir() else []
    if found:
        return found[0]
    import pymupdf

    doc = pymupdf.open()
    img, _ = _known_text_page()
    for _ in range(6):
        page = doc.new_page(width=595, height=842)
        pix = pymupdf.Pixmap(pymupdf.csRGB, img.shape[1], img.shape[0], img.tobytes(), False)
        page.insert_image(page.rect, pixmap=pix)
    path = tmp / "scan6.pdf"
    doc.save(path)
    return path


def bench_ocr(corpus: Path, tmp: Path) -> dict:
    import pymupdf

    from pipeline.parse.ocr_runner import OcrRunner
    from pipeline.settings import Settings

    path = _scan_pdf(corpus, tmp)
    n = pymupdf.open(path).page_count
    out = {"pdf": path.name, "pages": n}
    for workers in (2, 1):
        runner = OcrRunner(Settings.from_flat(data_dir=tmp, ocr_workers=workers))
        try:
            t = time.perf_counter()
            first = runner.pdf_pages(path, list(range(1, workers + 1)))  # starts the engine(s)
            cold = time.perf_counter() - t
            t = time.perf_counter()
            rest = runner.pdf_pages(path, list(range(workers + 1, n + 1)))
            warm = time.perf_counter() - t
        finally:
            runner.close()
        failed = [k for k, v in {**first, **rest}.items() if isinstance(v, BaseException)]
        out[f"workers_{workers}"] = {"start_plus_first_s": round(cold, 1),
                                     "s_per_page_warm": round(warm / max(1, n - workers), 2),
                                     "s_per_page_overall": round((cold + warm) / n, 2), "failed_pages": failed}
    return out


def bench_engines(paddle_python: str | None, tmp: Path) -> dict:
    out = {"rapidocr": _run_child(["--child-engine", "rapidocr", str(tmp / "m")])}
    if paddle_python:
        try:
            out["paddleocr"] = _run_child(["--child-engine", "paddleocr", str(tmp / "paddle_models")], paddle_python)
        except RuntimeError as exc:
            out["paddleocr"] = {"error": str(exc)}
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", type=Path, default=ROOT.parent / "shared/eval/corpus")
    ap.add_argument("--pages", type=int, default=300)
    ap.add_argument("--paddle-python", help="python of an environment with paddleocr (requirements/paddle.txt)")
    ap.add_argument("--skip", nargs="*", default=[], choices=["text", "long", "ocr", "engines"])
    ap.add_argument("--out", type=Path, default=ROOT / "bench/results/parse.json")
    ap.add_argument("--child-parse", help=argparse.SUPPRESS)
    ap.add_argument("--child-engine", nargs=2, help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.child_parse:
        _child_parse(a.child_parse)
        return 0
    if a.child_engine:
        _child_engine(*a.child_engine)
        return 0
    res: dict = {"command": " ".join([".venv/bin/python", "-m", "bench", "parse", *(argv or sys.argv[1:])]),
                 "cpus": os.cpu_count(), "load_avg_at_start": os.getloadavg()}
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        if "text" not in a.skip and a.corpus.is_dir():
            res["text"] = bench_text_corpus(a.corpus)
        if "long" not in a.skip:
            res["long"] = bench_long(a.pages, tmp)
        if "ocr" not in a.skip:
            res["ocr"] = bench_ocr(a.corpus, tmp)
        if "engines" not in a.skip:
            res["engines"] = bench_engines(a.paddle_python, tmp)
    res["load_avg_at_end"] = os.getloadavg()
    _print(res)
    a.out.parent.mkdir(parents=True, exist_ok=True)
    a.out.write_text(json.dumps(res, ensure_ascii=False, indent=1), encoding="utf-8")
    print(f"\nwritten to {a.out}")
    return 0


def _print(res: dict) -> None:
    rows = []
    if "text" in res:
        t = res["text"]
        rows.append(("text layer, corpus", f"{t['pages']} pages / {t['pdfs']} PDFs", f"{t['pages_per_s']} pages/s",
                     f"verdicts alone {t['verdict_pages_per_s']} pages/s"))
    for n, r in res.get("long", {}).items():
        rows.append(("generated text PDF", f"{n} pages", f"{r['pages_per_s']} pages/s",
                     f"peak RSS {r['peak_rss_mb']} MB ({r['rss_after_imports_mb']} MB after imports)"))
    if "ocr" in res:
        o = res["ocr"]
        for w in (2, 1):
            r = o[f"workers_{w}"]
            rows.append((f"OCR, {w} worker(s)", f"{o['pages']} pages ({o['pdf'][:20]})", f"{r['s_per_page_warm']} s/page warm",
                         f"{r['s_per_page_overall']} s/page incl. {r['start_plus_first_s']} s start+first"))
    for name, r in res.get("engines", {}).items():
        if "error" in r:
            rows.append((f"engine {name}", "known-text A4 page", "error", r["error"][:60]))
        else:
            rows.append((f"engine {name}", "known-text A4 page", f"{r['s_per_page']:.2f} s/page",
                         f"accuracy {r['accuracy']:.3f}, load {r['load_s']:.1f} s"))
    width = [max(len(str(r[i])) for r in rows) for i in range(4)] if rows else []
    print(f"command: {res['command']}   ({res['cpus']} CPUs, load {res['load_avg_at_start'][0]:.1f} at start)")
    for r in rows:
        print("  ".join(str(c).ljust(w) for c, w in zip(r, width)))


if __name__ == "__main__":
    sys.exit(main())
