"""The page crop of a question's figure, as PNG, for an export.

The original file is found as the server finds it (pipeline/serve/sources.py, a floor above): a path
it was ingested from, tried as given and beside the data dir, that still hashes to its document id;
an edited or missing file gives no crop rather than a wrong one. Rendering is PyMuPDF's, directly:
the server's renderer draws highlights and caches whole pages, which a crop needs neither of.
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

from pipeline.hashing import sha256_file
from pipeline.store import Store
from pipeline.study.models import Figure

DPI = 150
MARGIN = 18.0  # points left and right of the crop: the page's own margin, not the paper's edge


def original_file(store: Store, doc_id: str) -> Optional[Path]:
    entry = store.load_manifest().documents.get(doc_id)
    if entry is None:
        return None
    for source in entry.sources:
        p = Path(source)
        for cand in ([p] if p.is_absolute() else [Path.cwd() / p, store.root.resolve().parent / p]):
            if cand.is_file() and cand.suffix.lower() == ".pdf" and sha256_file(cand).startswith(doc_id):
                return cand
    return None


def render_crop(path: Path, fig: Figure, dpi: int = DPI) -> Optional[bytes]:
    """PNG bytes of the figure's region of its page, or None when the page or region does not exist."""
    import fitz  # PyMuPDF, imported only when a figure is exported

    with fitz.open(path) as doc:
        if not 1 <= fig.page <= doc.page_count:
            return None
        page = doc[fig.page - 1]
        r = page.rect
        clip = fitz.Rect(max(r.x0 + MARGIN, fig.x0), max(r.y0, fig.y0),
                         r.x1 - MARGIN if fig.x1 < 0 else min(r.x1, fig.x1), r.y1 - MARGIN if fig.y1 < 0 else min(r.y1, fig.y1))
        if clip.is_empty or clip.height < 4:
            return None
        return page.get_pixmap(clip=clip, dpi=dpi).tobytes("png")


def figure_png(store: Store, fig: Figure) -> Optional[bytes]:
    path = original_file(store, fig.doc_id)
    return render_crop(path, fig) if path else None
