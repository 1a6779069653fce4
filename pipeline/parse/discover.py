"""File discovery: a raw folder → the manifest's documents, one per distinct content.

Document ids are the first 16 hex digits of the sha256 of the raw bytes: the same file under two
names is one document with two sources; a changed file is a new document.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from pipeline.hashing import sha256_file
from pipeline.models import DocReport, ErrorItem, Status
from pipeline.parse.errors import ParseError
from pipeline.parse.formats import SUPPORTED
from pipeline.store import DocEntry, Manifest, Store


def discover(raw_dir: Path, store: Store, manifest: Manifest) -> tuple[list[str], list[DocReport]]:
    """Scan ``raw_dir``; add new documents, attach extra names, drop sources that disappeared.

    Symlinked folders are followed, each real folder once (a link back up the tree is not walked
    again). Hidden files are ignored. Unsupported files and Office lock files (``~$x.docx``) are
    reported as skipped; files that cannot be read (empty, not a regular file, a symlink loop or a
    broken link, no permission) as failed, one line each, and both are recorded in the manifest.
    Returns (doc ids found under raw_dir, reports for the skipped and failed files)."""
    root = os.path.normpath(str(raw_dir))
    prefix = root.rstrip("/") + "/"
    found: dict[str, list[str]] = {}
    problems: list[DocReport] = []
    manifest.failures = {s: m for s, m in manifest.failures.items() if not s.startswith(prefix)}
    manifest.skipped = {s: m for s, m in manifest.skipped.items() if not s.startswith(prefix)}
    for path in _walk(Path(root)):
        source = str(path)
        reason = _skip_reason(path)
        if reason:
            manifest.skipped[source] = reason
            problems.append(DocReport(doc_id="", source=source, status=Status.SKIPPED, detail=reason))
            continue
        try:
            digest = _digest(path)
        except ParseError as exc:
            manifest.failures[source] = str(exc)
            problems.append(DocReport(doc_id="", source=source, status=Status.FAILED,
                                      errors=[ErrorItem(file=source, stage="parse", message=str(exc))]))
            continue
        doc_id = digest[:16]
        found.setdefault(doc_id, []).append(source)
        entry = manifest.documents.get(doc_id)
        if entry is None:
            manifest.documents[doc_id] = DocEntry(doc_id=doc_id, sources=[source], raw_hash=digest)
        elif source not in entry.sources:
            entry.sources.append(source)
    for doc_id, entry in list(manifest.documents.items()):
        entry.sources = [s for s in entry.sources if not s.startswith(prefix) or doc_id in found and s in found[doc_id]]
        if not entry.sources:
            del manifest.documents[doc_id]
            store.remove_doc(doc_id)
    return sorted(found), problems


def _walk(root: Path):
    seen: set[str] = set()
    for dirpath, dirnames, filenames in os.walk(root, followlinks=True):
        real = os.path.realpath(dirpath)
        if real in seen:  # a symlink loop (or a second link to a folder already walked)
            dirnames[:] = []
            continue
        seen.add(real)
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for name in sorted(filenames):
            if not name.startswith("."):
                yield Path(dirpath) / name


def _skip_reason(path: Path) -> str:
    if path.name.startswith("~$"):
        return "Office lock file (the document is open in Word/PowerPoint), not a document"
    if path.suffix.lower() not in SUPPORTED:
        return f"unsupported file type ({path.suffix.lower() or 'no extension'})"
    return ""


def _digest(path: Path) -> str:
    """sha256 of a readable, non-empty regular file, else ParseError with a one-line reason."""
    try:
        st = path.stat()
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise ParseError("symlink loop (following the link leads back to it), nothing to read") from None
        if path.is_symlink():
            raise ParseError(f"broken symlink (its target {os.readlink(path)} does not exist)") from None
        if exc.errno == errno.ENOENT:
            raise ParseError("file disappeared while ingest was scanning the folder") from None
        raise ParseError(f"cannot read ({exc.strerror or exc})") from None
    if not stat.S_ISREG(st.st_mode):
        kind = "a FIFO" if stat.S_ISFIFO(st.st_mode) else "a socket" if stat.S_ISSOCK(st.st_mode) else "a device"
        raise ParseError(f"not a regular file ({kind}), cannot be read")
    if st.st_size == 0:
        raise ParseError("empty file (0 bytes)")
    try:
        return sha256_file(path)
    except OSError as exc:
        raise ParseError(f"cannot read ({exc.strerror or exc})") from None
