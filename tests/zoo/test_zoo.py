"""Every bad-input case of the zoo, ingested together: the exact status line, error line, exit code and
what reaches the index; then the whole zoo again, which must change nothing (idempotent)."""

from __future__ import annotations

import re

import pytest
from harness import assert_whole, by_source, disk_chunks, ingest, manifest, status
from zoo import MARKERS, PASSWORD, encrypted_pdf, make_zoo

pytestmark = pytest.mark.timeout(300)  # the module fixture ingests the zoo: 33 s (2 busy cores)

LOOP = "symlink loop (following the link leads back to it), nothing to read"
# case -> (status line suffix after the path, error line after "<path>: " on stderr, or None)
EXPECT = {
    "empty": ("failed", "", "parse: empty file (0 bytes)"),
    "truncated": ("partial", "", "parse: PDF is truncated (no %%EOF at its end: an incomplete download or copy?); "
                  "kept what could be read, the rest of the file is missing"),
    "broken_xref": ("success", "", None),
    "encrypted": ("failed", "", "parse: PDF is encrypted; set EXAMRAG_PDF_PASSWORD to its password"),
    "zero_pages": ("failed", "", "parse: PDF has no pages"),
    "blank_image": ("failed", "", "parse: no text found in the file (all pages unreadable)"),
    "huge_image": ("success", "", None),
    "junk_md": ("failed", "", "parse: binary file, not text"),
    "one_line": ("success", "", None),
    "gbk": ("success", "", None),
    "gb18030": ("success", "", None),
    "utf16": ("success", "", None),
    "utf8_bom": ("success", "", None),
    "symlink_loop": ("failed", "", "parse: " + LOOP),
    "fifo": ("failed", "", "parse: not a regular file (a FIFO), cannot be read"),
    "dup_a": ("success", " (also as: {dup_b})", None),
    "names": ("success", "", None),
    "unsupported": ("skipped", ": unsupported file type (.doc)", None),
    "office_lock": ("skipped", ": Office lock file (the document is open in Word/PowerPoint), not a document", None),
}
TEXT_CASES = ("broken_xref", "truncated", "huge_image", "gbk", "gb18030", "utf16", "utf8_bom", "names", "dup_a")


class Run:
    """One ingest of the zoo and what it left: stdout/stderr lines, manifest, status, chunks."""

    def __init__(self, raw, data):
        r = ingest(raw, data)
        self.rc, self.out, self.err = r.returncode, r.stdout.splitlines(), [ln.strip() for ln in r.stderr.splitlines()]
        self.manifest, self.status, self.chunks = manifest(data), status(data), disk_chunks(data)

    def doc(self, source) -> dict | None:
        return next((d for d in self.manifest["documents"].values() if str(source) in d["sources"]), None)

    def chunks_of(self, source) -> list[dict]:
        doc = self.doc(source)
        return [c for c in self.chunks if doc and c["doc_id"] == doc["doc_id"]]


@pytest.fixture(scope="module")
def zoo(tmp_path_factory):
    """The zoo ingested twice into one data dir: (case -> path, data dir, first run, second run)."""
    root = tmp_path_factory.mktemp("zoo")
    paths = make_zoo(root / "raw")
    data = root / "data"
    first = Run(root / "raw", data)
    second = Run(root / "raw", data)
    return paths, data, first, second


def test_exit_code_and_summary(zoo):
    _, _, first, _ = zoo
    assert first.rc == 1, first.out + first.err
    # 21 lines: dup copy.md is shown as "also as", loop_b.md is the other end of the loop, sub/up a folder
    assert re.match(r"21 file\(s\): 9 success, 2 partial, 2 skipped, 8 failed; chunks \d+ \(vectors \d+, "
                    r"newly embedded \d+, removed 0\); [\d.]+s$", first.out[-1]), first.out[-1]


@pytest.mark.parametrize("case", sorted(EXPECT))
def test_case_status_and_message(zoo, case):
    paths, _, first, _ = zoo
    st, suffix, error = EXPECT[case]
    path = paths[case]
    line = f"{st:<8} {path}{suffix.format(**{k: str(v) for k, v in paths.items()})}"
    assert line in first.out, f"{line!r} not in {first.out}"
    assert [ln for ln in first.err if ln.startswith(f"{path}:")] == ([f"{path}: {error}"] if error else [])
    chunks = first.chunks_of(path)
    if st in ("failed", "skipped"):
        assert chunks == [] and all(c["source"] != str(path) for c in first.chunks)
    else:
        assert chunks and all(c["source"] == str(path) for c in chunks)
    if st == "skipped":
        assert first.manifest["skipped"][str(path)] == suffix.removeprefix(": ")
    elif st == "failed":  # a file that is not even a document (scan failure), or a document whose parse failed
        doc = first.doc(path)
        if doc is None:
            assert first.manifest["failures"][str(path)] == error.removeprefix("parse: ")
        else:
            assert doc["stages"]["parse"]["errors"] == [f"{path}: {error}"] and set(doc["stages"]) == {"parse"}


def test_second_symlink_of_the_loop_and_the_folder_loop(zoo):
    paths, _, first, _ = zoo
    loop_b = paths["symlink_loop"].with_name("loop_b.md")
    assert f"failed   {loop_b}" in first.out
    assert f"{loop_b}: parse: {LOOP}" in first.err
    assert not any("/up/" in ln for ln in first.out + first.err)  # sub/up -> .. is not walked into


def test_partial_pdf_names_the_unreadable_page(zoo):
    paths, _, first, _ = zoo
    path = paths["partial_scan"]
    assert f"partial  {path}" in first.out
    assert [ln for ln in first.err if ln.startswith(str(path))] == [
        f"{path} (第2页): parse: no readable text on this page (text layer missing, OCR found nothing)"]
    assert any(MARKERS["partial_scan"] in c["text"] for c in first.chunks_of(path))
    stages = first.doc(path)["stages"]
    assert {k: v["status"] for k, v in stages.items()} == {"parse": "partial", "clean": "success",
                                                          "enrich": "success", "index": "success"}


@pytest.mark.parametrize("case", TEXT_CASES)
def test_text_survives_intact(zoo, case):
    """Encodings decoded right, repaired, truncated and OCR'd PDFs readable: the marker is in a chunk."""
    paths, _, first, _ = zoo
    marker = MARKERS["dup" if case == "dup_a" else case]
    assert marker in "".join(c["text"] for c in first.chunks_of(paths[case])).replace("\n", "")


def test_one_line_megabyte_is_split_into_bounded_chunks(zoo):
    paths, _, first, _ = zoo
    chunks = first.chunks_of(paths["one_line"])
    assert len(chunks) > 500
    assert max(len(c["text"]) for c in chunks) <= 700
    assert "第1条：" in chunks[0]["text"]


def test_same_bytes_twice_is_one_document_with_both_names(zoo):
    paths, _, first, _ = zoo
    docs = [d for d in first.status["documents"] if str(paths["dup_a"]) in d["sources"]]
    assert len(docs) == 1 and docs[0]["sources"] == [str(paths["dup_a"]), str(paths["dup_b"])]
    assert {c["source"] for c in first.chunks_of(paths["dup_a"])} == {str(paths["dup_a"])}


def test_odd_file_names_round_trip(zoo):
    paths, _, first, _ = zoo
    assert "📚" in str(paths["names"]) and str(paths["names"]) in by_source(first.status)


def test_whole_zoo_twice_is_idempotent(zoo):
    _, data, first, second = zoo
    assert second.rc == 1
    assert second.out[:-1] == first.out[:-1]
    assert second.err == first.err
    assert re.search(r"newly embedded 0, removed 0\)", second.out[-1])
    assert second.status == first.status

    def stages(run):
        return {d: {k: (v["status"], v["output_hash"]) for k, v in e["stages"].items()}
                for d, e in run.manifest["documents"].items()}

    assert stages(second) == stages(first)
    assert assert_whole(data) == first.status["counts"]


def test_encrypted_pdf_with_password(tmp_path):
    raw = tmp_path / "raw"
    raw.mkdir()
    (raw / "encrypted.pdf").write_bytes(encrypted_pdf())
    data = tmp_path / "data"
    wrong = ingest(raw, data, env={"EXAMRAG_PDF_PASSWORD": "wrong"})
    assert wrong.returncode == 1
    assert f"{raw / 'encrypted.pdf'}: parse: PDF is encrypted and EXAMRAG_PDF_PASSWORD does not open it" in wrong.stderr
    right = ingest(raw, data, env={"EXAMRAG_PDF_PASSWORD": PASSWORD})
    assert right.returncode == 0, right.stderr
    assert f"success  {raw / 'encrypted.pdf'}" in right.stdout.splitlines()
    assert MARKERS["encrypted"] in "".join(c["text"] for c in disk_chunks(data))
    assert assert_whole(data)["manifest_chunks"] >= 1
