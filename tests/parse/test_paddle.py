"""PaddleOCR for real, offline, on model directories built from rapidocr's packaged ONNX models.

PaddleOCR is an optional install (``bash scripts/setup.sh --paddle``, which CI runs: .ci/run). These
tests are skipped only where it was never installed: once setup.sh --paddle has left its stamp in the
venv, a paddleocr that does not import fails them instead. The model dirs are built into a temp dir
here, so no EXAMRAG_PADDLE_* variable is needed.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import sys
import unicodedata
from pathlib import Path

import numpy as np
import pymupdf as fitz
import pytest

SET_UP = any(Path(sys.prefix).glob(".examrag-paddle-*"))  # the stamp of scripts/setup.sh --paddle
pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("paddleocr") is None and not SET_UP,
    reason="paddleocr is not installed (optional engine: bash scripts/setup.sh --paddle)")

QUESTION = "1. 折半查找的时间复杂度是（ ）"
BODY = ["第九章 查找", QUESTION, "折半查找要求线性表采用顺序存储结构，", "且表中元素按关键字有序排列。"]


def squash(s: str) -> str:
    return "".join(unicodedata.normalize("NFKC", s).split())


def _page_image() -> np.ndarray:
    doc = fitz.open()
    page = doc.new_page(width=595, height=842)
    page.insert_font(fontname="cjk", fontbuffer=fitz.Font("cjk").buffer)
    for i, line in enumerate(BODY):
        page.insert_text((72, 80 + 30 * i), line, fontname="cjk", fontsize=16 if i == 0 else 11)
    pix = page.get_pixmap(dpi=150)
    return np.frombuffer(pix.samples, dtype=np.uint8).reshape(pix.height, pix.width, pix.n)[:, :, :3].copy()


@pytest.fixture(scope="module")
def model_dirs(tmp_path_factory):
    from pipeline.parse.ocr.paddle import build_model_dirs_from_rapidocr

    return build_model_dirs_from_rapidocr(tmp_path_factory.mktemp("paddle_models"))


@pytest.fixture(scope="module")
def paddle_engine(model_dirs):
    from pipeline.parse.ocr import make_engine

    return make_engine("paddleocr", det_dir=model_dirs[0], rec_dir=model_dirs[1], threads=1)


def test_single_opencv_distribution():
    """requirements/paddle.txt keeps rapidocr's OpenCV as the only one (no opencv-contrib-python)."""
    names = {d.metadata["Name"].lower() for d in importlib.metadata.distributions()
             if d.metadata["Name"] and d.metadata["Name"].lower().startswith("opencv")}
    assert len(names) == 1, names


def test_paddleocr_reads_a_rendered_page_like_rapidocr(paddle_engine, model_dirs):
    from pipeline.parse.ocr import make_engine, ocr_image

    img = _page_image()
    lines, conf = ocr_image(paddle_engine, img)
    flat = [squash(t) for t in lines]
    assert flat == [squash(t) for t in BODY], lines
    assert 0.8 < conf <= 1.0
    rapid_lines, _ = ocr_image(make_engine("rapidocr", threads=1), img)
    assert [squash(t) for t in rapid_lines] == flat  # same models, same post-processing


def test_paddle_engine_end_to_end_through_parse(tmp_path, model_dirs):
    """EXAMRAG_OCR_ENGINE=paddleocr: an image-only PDF page parsed through the parse stage."""
    from pipeline.parse.formats import parse_file
    from pipeline.parse.ocr_runner import OcrRunner
    from pipeline.settings import Settings

    doc = fitz.open()
    page = doc.new_page(width=595, height=842)
    arr = _page_image()
    pix = fitz.Pixmap(fitz.csRGB, arr.shape[1], arr.shape[0], arr.tobytes(), False)
    page.insert_image(page.rect, pixmap=pix)
    path = tmp_path / "scan.pdf"
    doc.save(path)
    settings = Settings.from_flat(data_dir=tmp_path, ocr_engine="paddleocr", ocr_workers=1,
                        paddle_det_dir=str(model_dirs[0]), paddle_rec_dir=str(model_dirs[1]))
    runner = OcrRunner(settings)
    try:
        parsed = parse_file(path, str(path), "p" * 16, settings, runner)
    finally:
        runner.close()
    assert [(p.verdict, p.method) for p in parsed.pages] == [("missing", "ocr")]
    text = squash("".join(b.text for b in parsed.blocks))
    assert squash(QUESTION) in text and "折半查找要求线性表采用顺序存储结构" in text
    assert not parsed.errors


def test_doctor_reports_the_paddle_engine(model_dirs, tmp_path):
    """Selected with its dirs; installed but not selected, on the dirs setup.sh --paddle builds under the
    models dir; and those dirs missing is a failure whose fix is the set-up step."""
    from pipeline.doctor import check_paddleocr
    from pipeline.settings import Settings

    det, rec = model_dirs
    selected = check_paddleocr(Settings.from_flat(data_dir=tmp_path, ocr_engine="paddleocr", paddle_det_dir=str(det),
                                        paddle_rec_dir=str(rec)))
    assert selected.ok and "read the test image" in selected.detail and "(models" in selected.detail
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "paddle").symlink_to(det.parent)
    installed = check_paddleocr(Settings(data_dir=tmp_path, models_dir=tmp_path / "models"))
    assert installed.ok and "installed, not selected" in installed.detail
    missing = check_paddleocr(Settings(data_dir=tmp_path, models_dir=tmp_path / "nothing"))
    assert not missing.ok and missing.fix.startswith("bash scripts/setup.sh --paddle")
