"""Chunk boxes on an ingested data dir: share of chunks with boxes by kind, the cost of placing them,
and spot-check PNGs of pages with a chunk's boxes drawn.

    python -m bench reports.boxes DATA_DIR                      # coverage and timing → bench/results/boxes.json
    python -m bench reports.boxes DATA_DIR --draw 6 --out DIR   # 6 random boxed chunks → DIR/*.png
    python -m bench reports.boxes DATA_DIR --chunk ID --out DIR # one chunk

A measurement, not a test: nothing here asserts. Boxes are drawn red on the page rendered at 100 dpi.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections import Counter
from pathlib import Path

from bench.lib import common as C
from pipeline.index import stage as index_stage
from pipeline.index.boxes import LineIndex, locate
from pipeline.index.catalog import Catalog, current_generation
from pipeline.models import Chunk, ParsedDoc
from pipeline.store import Store

DRAW_DPI = 100
REPEATS = 3  # collect() is timed as the best of this many runs


def all_chunks(store: Store) -> list[Chunk]:
    gen = current_generation(store.index_dir)["generation"]
    cat = Catalog(store.index_dir / gen / "chunks.sqlite")
    return [Chunk.model_validate_json(b) for (b,) in cat.db.execute("SELECT body FROM chunks ORDER BY pos")]


def coverage(chunks: list[Chunk]) -> dict:
    total, boxed = Counter(), Counter()
    for c in chunks:
        total[c.kind] += 1
        boxed[c.kind] += bool(c.boxes)
    out = {k: {"chunks": total[k], "with_boxes": boxed[k], "share": round(boxed[k] / total[k], 3)} for k in total}
    paged = [c for c in chunks if c.pages]
    out["all_with_pages"] = {"chunks": len(paged), "with_boxes": sum(bool(c.boxes) for c in paged),
                             "share": round(sum(bool(c.boxes) for c in paged) / max(1, len(paged)), 3)}
    return out


def timing(store: Store) -> dict:
    """Per-document placement (as in the index stage's work) and the merged records' (collect)."""
    manifest = store.load_manifest()
    docs = index_stage.live_docs(store, manifest)
    t_read = t_locate = 0.0
    n = 0
    for d in docs:  # as the index stage's work() does
        t = time.perf_counter()
        lines = LineIndex.from_parsed(store.read("parse", d.doc_id, ParsedDoc))
        t_read += time.perf_counter() - t
        todo = [c for c in d.chunks if not (c.kind == "question" and c.year is not None)]
        t = time.perf_counter()
        for c in todo:
            locate(c.text, lines.on_pages(c.pages))
        t_locate += time.perf_counter() - t
        n += len(todo)
    with_boxes, chunks = _best_of(REPEATS, lambda: index_stage.collect(store, manifest)[0])
    real = index_stage.record_parts
    index_stage.record_parts = lambda q, lines_of: ([], [])  # no parsed doc is read either
    try:
        without, _ = _best_of(REPEATS, lambda: index_stage.collect(store, manifest))
    finally:
        index_stage.record_parts = real
    merged = sum(1 for c in chunks if c.kind == "question" and c.year is not None)
    return {"per_doc": {"docs": len(docs), "chunks": n, "read_parsed_s": round(t_read, 2),
                        "locate_s": round(t_locate, 2)},
            "collect": {"merged_records": merged, "with_boxes_s": round(with_boxes, 2),
                        "without_boxes_s": round(without, 2)}}


def _best_of(n: int, fn):
    """(fastest of ``n`` runs in seconds, the last result): the machine is shared, the minimum is the cost."""
    best, out = float("inf"), None
    for _ in range(n):
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return best, out


def draw(store: Store, chunk: Chunk, out: Path) -> list[Path]:
    """One PNG per (document, page) the chunk's boxes lie on."""
    import pymupdf

    manifest = store.load_manifest()
    written = []
    pages = sorted({(b.doc_id, b.page) for b in chunk.boxes})
    for doc_id, pno in pages:
        source = manifest.documents[doc_id].sources[0]
        png = out / f"{chunk.chunk_id[:10]}_{doc_id[:6]}_p{pno}.png"
        if source.lower().endswith(".pdf"):
            doc = pymupdf.open(source)
            page = doc[pno - 1]
            for b in chunk.boxes:
                if (b.doc_id, b.page) == (doc_id, pno):
                    page.draw_rect(pymupdf.Rect(b.x0, b.y0, b.x1, b.y1), color=(1, 0, 0), width=1.2)
            page.get_pixmap(dpi=DRAW_DPI).save(png)  # drawn in memory only: the file is never saved
            doc.close()
        else:  # an image file: boxes are in its pixels
            from PIL import Image, ImageDraw

            with Image.open(source) as im:
                im = im.convert("RGB")
                pen = ImageDraw.Draw(im)
                for b in chunk.boxes:
                    pen.rectangle((b.x0, b.y0, b.x1, b.y1), outline=(255, 0, 0), width=3)
                im.save(png)
        written.append(png)
    return written


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("data_dir", type=Path)
    ap.add_argument("--draw", type=int, default=0, help="draw this many random chunks that have boxes")
    ap.add_argument("--chunk", default="", help="draw this chunk (id or id prefix)")
    ap.add_argument("--kind", default="", help="draw only chunks of this kind")
    ap.add_argument("--seed", type=int, default=408)
    ap.add_argument("--out", type=Path, default=Path("/tmp/boxes_spot"))
    args = ap.parse_args()
    store = Store(args.data_dir)
    chunks = all_chunks(store)
    if args.draw or args.chunk:
        args.out.mkdir(parents=True, exist_ok=True)
        pool = [c for c in chunks if c.boxes and (not args.kind or c.kind == args.kind)]
        picked = [c for c in chunks if args.chunk and c.chunk_id.startswith(args.chunk)] or \
            random.Random(args.seed).sample(pool, min(args.draw, len(pool)))
        for c in picked:
            pngs = draw(store, c, args.out)
            print(json.dumps({"chunk_id": c.chunk_id, "kind": c.kind, "pages": c.pages, "boxes": len(c.boxes),
                              "text": c.text[:160], "png": [str(p) for p in pngs]}, ensure_ascii=False))
        return
    result = {"machine": C.machine(), "data_dir": str(args.data_dir), "coverage": coverage(chunks),
              "timing": timing(store)}
    print(json.dumps({k: result[k] for k in ("coverage", "timing")}, ensure_ascii=False, indent=1))
    C.save("boxes", result)


if __name__ == "__main__":
    main()
