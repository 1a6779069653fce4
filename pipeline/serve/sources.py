"""Where a cited passage sits in its source: the page image with the passage marked, or the note's
section with the passage marked.

A chunk carries ``boxes`` (``{doc_id?, page, x0, y0, x1, y1}``: PDF points, origin top-left, as
PyMuPDF reports them; pixels for an image file) once the index was built with them; they are drawn
as they are, only when every one of them lies on the page; a chunk whose ``boxes`` is empty (the
indexer could not place it with confidence, see pipeline/index/boxes.py) is shown unmarked. A
highlight is either right or absent, never a guess.

The original file is found from the manifest (the paths it was ingested from, tried as given, then
beside the data dir) and must still hash to the document id: an edited file is refused rather than
shown with stale marks.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from pipeline.models import Chunk, CleanDoc
from pipeline.parse.formats import IMAGE_SUFFIXES
from pipeline.settings import Settings
from pipeline.hashing import sha256_file
from pipeline.store import Store

HIGHLIGHT_FILL = (1.0, 0.86, 0.0)
HIGHLIGHT_LINE = (0.85, 0.33, 0.0)


class SourceError(Exception):
    """A request about a source that cannot be answered; ``status`` is the HTTP status to give."""

    def __init__(self, status: int, error: str, detail: str):
        super().__init__(detail)
        self.status, self.error, self.detail = status, error, detail


@dataclass
class Placement:
    """Where a chunk's passage is, per page (1-based) in page coordinates."""

    method: str  # "boxes" (from the index) or "none"
    rects: dict[int, list[tuple[float, float, float, float]]] = field(default_factory=dict)
    reason: str = ""

    @property
    def pages(self) -> list[int]:
        return sorted(p for p, r in self.rects.items() if r)

    def to_json(self) -> dict:
        return {"method": self.method, "pages": self.pages, "reason": self.reason,
                "boxes": [{"page": p, "x0": r[0], "y0": r[1], "x1": r[2], "y1": r[3]}
                          for p in self.pages for r in self.rects[p]]}


def cited_pages(chunk: dict, doc_id: str) -> list[int]:
    """The pages of ``doc_id`` the chunk cites: its own, or, in another document a merged record drew on
    (the answer booklet), the pages of its part there."""
    if chunk.get("doc_id") == doc_id:
        return list(chunk.get("pages", []))
    return [p for part in chunk.get("parts") or [] if part.get("doc_id") == doc_id for p in part.get("pages", [])]


class Sources:
    """Finds documents and chunks for the server, places passages and renders pages (cached)."""

    def __init__(self, settings: Settings, service):
        self.settings = settings
        self.service = service
        self.store = Store(settings.data_dir)
        self._lock = threading.Lock()
        self._mupdf = threading.Lock()  # PyMuPDF is not thread-safe: one document operation at a time
        self._hash_cache: dict[tuple, str] = {}  # (path, size, mtime_ns) -> sha256
        self._placements: OrderedDict[tuple, Placement] = OrderedDict()
        self._pngs: OrderedDict[tuple, tuple[bytes, Placement]] = OrderedDict()

    # ------------------------------------------------------------------ lookups
    def chunk(self, chunk_id: str) -> dict:
        """The chunk record as stored in the live generation's catalog (extra fields such as ``boxes``
        kept), or 404."""
        catalog = self.service.retriever().catalog
        row = catalog.db.execute("SELECT body FROM chunks WHERE chunk_id=?", (chunk_id,)).fetchone()
        if row is None:
            raise SourceError(404, "chunk_not_found", f"no chunk {chunk_id!r} in the current index "
                                                      "(it may have been re-ingested: ask again)")
        return json.loads(row[0])

    def chapter_chunks(self, joined_path: str) -> list[dict]:
        catalog = self.service.retriever().catalog
        rows = catalog.db.execute("SELECT body FROM chunks WHERE chapter=? ORDER BY pos", (joined_path,)).fetchall()
        if not rows:
            raise SourceError(404, "chapter_not_found", f"no section {joined_path!r} in the current index")
        return [json.loads(b) for (b,) in rows]

    def document(self, doc_id: str):
        entry = self.store.load_manifest().documents.get(doc_id)
        if entry is None:
            raise SourceError(404, "document_not_found", f"no document {doc_id!r} in {self.settings.data_dir}")
        return entry

    def file_of(self, doc_id: str) -> Path:
        """The original file of ``doc_id``: a path it was ingested from that still holds its bytes."""
        entry = self.document(doc_id)
        tried: list[str] = []
        changed = []
        for source in entry.sources:
            for cand in self._candidates(source):
                if str(cand) in tried:
                    continue
                tried.append(str(cand))
                if not cand.is_file():
                    continue
                if self._sha256(cand).startswith(doc_id):
                    return cand
                changed.append(str(cand))
        if changed:
            raise SourceError(404, "source_changed", f"{changed[0]} has changed since it was ingested; "
                                                     "run ingest again to see its pages")
        raise SourceError(404, "source_missing", f"the original file of {doc_id} is not where it was ingested "
                                                 f"from (looked at {', '.join(tried)})")

    def _candidates(self, source: str) -> list[Path]:
        p = Path(source)
        if p.is_absolute():
            return [p]
        return [Path.cwd() / p, Path(self.settings.data_dir).resolve().parent / p]

    def _sha256(self, path: Path) -> str:
        st = path.stat()
        key = (str(path.resolve()), st.st_size, st.st_mtime_ns)
        with self._lock:
            if key in self._hash_cache:
                return self._hash_cache[key]
        digest = sha256_file(path)
        with self._lock:
            self._hash_cache[key] = digest
        return digest

    @staticmethod
    def paged(path: Path) -> bool:
        return path.suffix.lower() == ".pdf" or path.suffix.lower() in IMAGE_SUFFIXES

    # ------------------------------------------------------------------ pages
    def open_pdf(self, path: Path):
        """(PyMuPDF PDF document, page points per box unit). An image file becomes a one-page PDF and
        its boxes (pixels) are scaled to points. Raises SourceError."""
        import pymupdf as fitz

        try:
            if path.suffix.lower() == ".pdf":
                doc = fitz.open(path, filetype="pdf")
                if doc.needs_pass and not doc.authenticate(self.settings.parse.pdf_password or ""):
                    raise SourceError(404, "source_encrypted", f"{path.name} is password-protected "
                                                              "(set pdf_password to view its pages)")
                return doc, 1.0
            doc = fitz.open("pdf", fitz.open(path).convert_to_pdf())
            return doc, doc[0].rect.width / max(1, fitz.Pixmap(str(path)).width)
        except SourceError:
            raise
        except Exception as exc:  # damaged file: one line, not a traceback
            raise SourceError(404, "source_unreadable", f"{path.name} cannot be opened: {exc}") from None

    def page_info(self, doc_id: str, chunk_id: Optional[str]) -> dict:
        """Where a chunk's passage is in its document: the page to open first and the marks."""
        path = self.file_of(doc_id)
        chunk = self._chunk_for(doc_id, chunk_id) if chunk_id else None
        if not self.paged(path):
            return {"doc_id": doc_id, "source": self.document(doc_id).sources[0], "paged": False, "page_count": 0, "open_page": None,
                    "highlight": Placement("none", reason="a text note has no pages: see its section").to_json()}
        with self._mupdf:
            return self._page_info(doc_id, path, chunk)

    def _page_info(self, doc_id: str, path: Path, chunk: Optional[dict]) -> dict:
        doc, scale = self.open_pdf(path)
        try:
            placement = self.placement(doc_id, chunk, doc, scale) if chunk else Placement("none", reason="no chunk given")
            cited = [p for p in cited_pages(chunk, doc_id) if 1 <= p <= doc.page_count] if chunk else []
            open_page = (placement.pages or cited or [1])[0]
            return {"doc_id": doc_id, "source": self.document(doc_id).sources[0], "paged": True, "page_count": doc.page_count,
                    "open_page": open_page, "cited_pages": cited, "highlight": placement.to_json()}
        finally:
            doc.close()

    def _chunk_for(self, doc_id: str, chunk_id: str) -> dict:
        chunk = self.chunk(chunk_id)
        docs = {chunk.get("doc_id")} | {b.get("doc_id") for b in chunk.get("boxes") or [] if b.get("doc_id")}
        docs |= {part.get("doc_id") for part in chunk.get("parts") or []}  # a booklet part that could not be placed
        if doc_id not in docs:
            raise SourceError(400, "chunk_not_in_document", f"chunk {chunk_id} is from document "
                                                            f"{chunk.get('doc_id')}, not {doc_id}")
        return chunk

    def placement(self, doc_id: str, chunk: dict, doc, scale: float = 1.0) -> Placement:
        key = (self._generation(), doc_id, chunk["chunk_id"])
        with self._lock:
            if key in self._placements:
                self._placements.move_to_end(key)
                return self._placements[key]
        placement = self._place_boxes(doc_id, chunk.get("boxes") or [], doc, scale)
        with self._lock:
            self._placements[key] = placement
            while len(self._placements) > 512:
                self._placements.popitem(last=False)
        return placement

    def _generation(self) -> str:
        return str(self.service.retriever().meta.get("generation"))

    def _place_boxes(self, doc_id: str, boxes: list[dict], doc, scale: float) -> Placement:
        mine = [b for b in boxes if b.get("doc_id", doc_id) == doc_id]
        if not mine:
            return Placement("none", reason="the index could not place this passage on its pages")
        rects: dict[int, list[tuple]] = {}
        for b in mine:
            page_no = int(b["page"])
            if not 1 <= page_no <= doc.page_count:
                return Placement("none", reason=f"a box lies on page {page_no}, outside the document")
            page = doc[page_no - 1]
            if page.rotation:
                return Placement("none", reason="rotated page: boxes not drawn")
            r = tuple(float(b[k]) * scale for k in ("x0", "y0", "x1", "y1"))
            w, h = page.rect.width, page.rect.height
            if not (r[0] < r[2] and r[1] < r[3] and r[0] >= -2 and r[1] >= -2 and r[2] <= w + 2 and r[3] <= h + 2):
                return Placement("none", reason=f"a box lies outside page {page_no}")
            rects.setdefault(page_no, []).append(r)
        return Placement("boxes", rects)

    def render(self, doc_id: str, page_no: int, chunk_id: Optional[str], zoom: float) -> tuple[bytes, Placement]:
        """PNG of one page with the chunk's passage marked (when it can be placed)."""
        key = (self._generation(), doc_id, page_no, chunk_id, round(zoom, 2))
        with self._lock:
            if key in self._pngs:
                self._pngs.move_to_end(key)
                return self._pngs[key]
        path = self.file_of(doc_id)
        if not self.paged(path):
            raise SourceError(400, "not_paged", f"{path.name} is a text note without pages: use "
                                                f"/api/source/{doc_id}/section?chunk=…")
        chunk = self._chunk_for(doc_id, chunk_id) if chunk_id else None
        with self._mupdf:
            png, placement = self._render(doc_id, path, page_no, chunk, zoom)
        with self._lock:
            self._pngs[key] = (png, placement)
            while len(self._pngs) > 48:
                self._pngs.popitem(last=False)
        return png, placement

    def _render(self, doc_id: str, path: Path, page_no: int, chunk: Optional[dict], zoom: float):
        import pymupdf as fitz

        doc, scale = self.open_pdf(path)
        try:
            if not 1 <= page_no <= doc.page_count:
                raise SourceError(404, "page_not_found", f"{path.name} has pages 1-{doc.page_count}, not {page_no}")
            placement = self.placement(doc_id, chunk, doc, scale) if chunk else Placement("none", reason="no chunk given")
            page = doc[page_no - 1]
            for r in placement.rects.get(page_no, []):
                rect = fitz.Rect(r[0] - 1, r[1] - 1, r[2] + 1, r[3] + 1)
                page.draw_rect(rect, color=HIGHLIGHT_LINE, fill=HIGHLIGHT_FILL, fill_opacity=0.35, width=1.2,
                               overlay=True)
            return page.get_pixmap(matrix=fitz.Matrix(zoom, zoom), alpha=False).tobytes("png"), placement
        finally:
            doc.close()

    # ------------------------------------------------------------------ sections
    def section(self, doc_id: str, chunk_id: str) -> dict:
        """The cleaned section the chunk was cut from, with the chunk's span marked."""
        self.document(doc_id)
        chunk = self._chunk_for(doc_id, chunk_id)
        base = {"doc_id": doc_id, "source": chunk.get("source"), "chapter_path": chunk.get("chapter_path", []),
                "citation": Chunk.model_validate(chunk).citation(), "chunk_id": chunk_id}
        try:
            clean = self.store.read("clean", doc_id, CleanDoc)
        except (OSError, ValueError):
            clean = None
        if clean is not None and chunk.get("doc_id") == doc_id:
            text = chunk.get("text", "")
            for sec in clean.sections:
                body = sec.text.strip()
                if sec.chapter_path == chunk.get("chapter_path") and text and text in body:
                    start = body.find(text)
                    return {**base, "context": "section", "text": body, "mark": {"start": start, "end": start + len(text)},
                            "pages": sec.pages}
        # a past-paper record is its own section: the whole record is the passage
        text = chunk.get("text", "")
        return {**base, "context": "chunk", "text": text, "mark": {"start": 0, "end": len(text)} if text else None,
                "pages": chunk.get("pages", [])}
