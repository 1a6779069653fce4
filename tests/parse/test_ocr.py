"""OCR: reading order (pure, synthetic boxes), the real packaged rapidocr engine on a rendered
page, and the PaddleOCR path's validation and model-directory builder (no real Paddle run)."""

from __future__ import annotations

import difflib
import random
import socket
import sys
import unicodedata

import numpy as np
import pytest
import yaml

from pipeline.models import OcrLine
from pipeline.parse.ocr import OcrError, make_engine, ocr_image, ocr_image_lines
from pipeline.parse.ocr.order import group_rows, lines_to_text, order_lines, row_text
from pipeline.parse.ocr.paddle import (DET_DIR_SETTING, NOT_INSTALLED, REC_DIR_SETTING,
                                       build_model_dirs_from_rapidocr, check_model_dir)

W = 1240.0  # A4 width at 150 dpi


def L(text: str, x0: float, y0: float, x1: float, y1: float, conf: float = 0.9) -> OcrLine:
    return OcrLine(text=text, box=[x0, y0, x1, y1], confidence=conf)


def texts(rows) -> list[str]:
    return lines_to_text(rows)


def squash(s: str) -> str:
    return "".join(unicodedata.normalize("NFKC", s).split())


# ---------------------------------------------------------------- order.py (synthetic boxes)

def test_single_column_keeps_top_to_bottom_order_whatever_the_input_order():
    lines = [L(f"第{i}行正文内容", 100, 100 + 40 * i, 1000 - (i % 3) * 50, 124 + 40 * i) for i in range(8)]
    shuffled = lines[:]
    random.Random(3).shuffle(shuffled)
    assert texts(order_lines(shuffled, W)) == [f"第{i}行正文内容" for i in range(8)]


def test_option_row_of_four_boxes_is_one_row_left_to_right():
    stem = L("1. 下列查找方法中，平均查找长度与表长无关的是（ ）", 100, 100, 1000, 126)
    opts = [L("C. 散列查找", 640, 151, 800, 175), L("A. 顺序查找", 120, 150, 280, 174),
            L("D. 分块查找", 900, 152, 1060, 176), L("B. 折半查找", 380, 150, 540, 175)]
    rows = order_lines([opts[0], stem, opts[2], opts[1], opts[3]], W)
    assert len(rows) == 2
    assert texts(rows)[1] == "A. 顺序查找 B. 折半查找 C. 散列查找 D. 分块查找"


def test_slightly_skewed_rows_stay_whole():
    # a scan rotated ~0.5°: each box of a row sits 4 px lower than its left neighbour
    lines = []
    for r in range(6):
        for c in range(4):
            y = 100 + 42 * r + 4 * c
            lines.append(L(f"r{r}c{c}", 100 + 260 * c, y, 300 + 260 * c, y + 26))
    rows = order_lines(lines, W)
    assert [[m.text for m in row] for row in rows] == [[f"r{r}c{c}" for c in range(4)] for r in range(6)]


def two_column_page(offset: float = 0.0) -> list[OcrLine]:
    lines = [L("第三章 查找", 420, 40, 820, 80)]  # title across the gutter
    for i in range(10):
        y = 120 + 38 * i
        end = 590 if i not in (4, 9) else 400  # justified text, short last line of a paragraph
        lines.append(L(f"左{i}", 80, y, end, y + 24))
        yr = y + offset
        end_r = 1160 if i not in (6,) else 900
        lines.append(L(f"右{i}", 650, yr, end_r, yr + 24))
    lines.append(L("— 12 —", 560, 1650, 680, 1674))  # page number, below both columns
    return lines


@pytest.mark.parametrize("offset", [0.0, 17.0])
def test_two_columns_read_left_column_then_right_column(offset):
    lines = two_column_page(offset)
    random.Random(7).shuffle(lines)
    got = texts(order_lines(lines, W))
    assert got == ["第三章 查找"] + [f"左{i}" for i in range(10)] + [f"右{i}" for i in range(10)] + ["— 12 —"]


def _choice_questions(stems: list[tuple[str, float]], option_ends) -> tuple[list[OcrLine], list[str]]:
    """A page of choice questions: each stem (text, right edge) above two rows of option pairs, A B and
    C D, the left one from x=130 and the right one from x=660; ``option_ends(q)`` gives (left, right)
    option right edges. Returns the OCR lines and the rows a reader should get, in order."""
    lines, want = [], []
    y = 100
    for q, (stem, stem_end) in enumerate(stems):
        lines.append(L(stem, 100, y, stem_end, y + 26))
        want.append(stem)
        left_end, right_end = option_ends(q)
        for a, b in (("A", "B"), ("C", "D")):
            y += 38
            left, right = f"{a}. 选项{q}", f"{b}. 选项{q}"
            lines += [L(left, 130, y, left_end, y + 26), L(right, 660, y, right_end, y + 26)]
            want.append(f"{left} {right}")
        y += 50
    return lines, want


def test_option_pairs_under_full_width_stems_are_not_columns():
    stems = [(f"{q + 1}. 题干文字很长很长很长很长很长很长", 1100) for q in range(5)]
    lines, want = _choice_questions(stems, lambda q: (330, 860))
    assert texts(order_lines(lines, W)) == want


def test_option_pairs_under_short_stems_are_not_columns():
    # stems end before the page middle, so nothing crosses it; option rows are short on both sides
    stems = [(f"{q + 1}. 简短题干", 520) for q in range(6)]
    lines, want = _choice_questions(stems, lambda q: (300 + 20 * q, 820 + 30 * q))
    assert texts(order_lines(lines, W)) == want


def test_row_text_spaces_only_at_visible_gaps():
    row = [L("折半", 100, 100, 150, 124), L("查找", 152, 100, 200, 124), L("O(log2n)", 240, 100, 360, 124)]
    assert row_text(row) == "折半查找 O(log2n)"


def test_empty_and_blank_input():
    assert order_lines([], W) == []
    assert order_lines([L("   ", 0, 0, 10, 10)], W) == []
    assert group_rows([]) == []


# ---------------------------------------------------------------- real OCR with the packaged models

def _refuse(*args, **kwargs):
    raise OSError("network access attempted during an OCR test")


def _block_network(mp: pytest.MonkeyPatch) -> None:
    mp.setattr(socket.socket, "connect", _refuse)
    mp.setattr(socket, "create_connection", _refuse)


@pytest.fixture
def no_network(monkeypatch):
    _block_network(monkeypatch)


@pytest.fixture(scope="module")
def rapid_engine():
    """The packaged engine, loaded with the network blocked: the models must come from the wheel."""
    mp = pytest.MonkeyPatch()
    _block_network(mp)
    try:
        yield make_engine("rapidocr")
    finally:
        mp.undo()


QUESTION = "1. 折半查找的时间复杂度是（ ）"
OPTIONS = ["A. O(n)", "B. O(log2 n)", "C. O(n^2)", "D. O(1)"]


def render_question_page() -> np.ndarray:
    pymupdf = pytest.importorskip("pymupdf")
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)  # A4 in points
    page.insert_font(fontname="cjk", fontbuffer=pymupdf.Font("cjk").buffer)
    page.insert_text((72, 80), "第九章 查找", fontname="cjk", fontsize=16)
    page.insert_text((72, 120), QUESTION, fontname="cjk", fontsize=11)
    for i, option in enumerate(OPTIONS):  # options at tab stops, as exam papers set them
        page.insert_text((90 + 120 * i, 145), option, fontname="cjk", fontsize=11)
    pix = page.get_pixmap(dpi=150)
    img = np.frombuffer(pix.samples, dtype=np.uint8).reshape(pix.height, pix.width, pix.n)
    return img[:, :, :3].copy()


def test_rapidocr_reads_a_rendered_exam_question(rapid_engine, no_network):
    img = render_question_page()
    assert img.shape[1] == 1240 and img.shape[0] in (1754, 1755)
    raw = rapid_engine.recognize(img)
    assert len(raw) >= 5, raw  # the detector gives the options as separate boxes: ordering must join them
    lines, conf = ocr_image(rapid_engine, img)
    flat = [squash(t) for t in lines]
    assert any("第九章查找" in t for t in flat), lines
    assert any(squash(QUESTION) in t for t in flat), lines
    option_lines = [t for t in flat if "A." in t]
    assert len(option_lines) == 1, lines
    opt = option_lines[0]
    positions = [opt.find(squash(o)) for o in OPTIONS]
    assert all(p >= 0 for p in positions), (opt, positions)
    assert positions == sorted(positions), opt
    assert 0.8 < conf <= 1.0


def test_rapidocr_lines_carry_boxes_and_accept_gray(rapid_engine, no_network):
    gray = render_question_page().mean(axis=2).astype(np.uint8)
    found = ocr_image_lines(rapid_engine, gray)
    assert len(found.rows) == 3 and found.confidence > 0.8
    title, question, options = found.rows
    assert title.bbox.y0 < question.bbox.y0 < options.bbox.y0  # top to bottom
    assert all(0 <= r.bbox.x0 < r.bbox.x1 <= 1240 and 0 <= r.bbox.y0 < r.bbox.y1 <= 1755 for r in found.rows)


LEFT_TEXT = ("折半查找又称二分查找，它仅适用于有序的顺序表。首先将给定值与表中中间位置的元素比较，"
             "若相等则查找成功；否则只能在中间元素以外的前半部分或后半部分中继续查找。")
RIGHT_TEXT = ("散列表是根据关键字而直接进行访问的数据结构。散列函数把关键字映射成对应的地址，"
              "理想情况下查找的时间复杂度为O(1)。处理冲突的方法有开放定址法和拉链法。")


def test_rapidocr_two_column_page_reads_left_column_first(rapid_engine, no_network):
    pymupdf = pytest.importorskip("pymupdf")
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    page.insert_font(fontname="cjk", fontbuffer=pymupdf.Font("cjk").buffer)
    page.insert_text((230, 70), "第七章 查找", fontname="cjk", fontsize=16)
    for rect, text in (((50, 95, 285, 400), LEFT_TEXT), ((310, 95, 545, 400), RIGHT_TEXT)):
        assert page.insert_textbox(pymupdf.Rect(*rect), text * 2, fontname="cjk", fontsize=10.5,
                                   lineheight=1.6) > 0
    pix = page.get_pixmap(dpi=150)
    img = np.frombuffer(pix.samples, dtype=np.uint8).reshape(pix.height, pix.width, pix.n)[:, :, :3]
    lines, _ = ocr_image(rapid_engine, img)
    body = squash("".join(lines[1:]))
    assert squash(lines[0]) == "第七章查找"
    # each column comes back whole and in order: left column text, then right column text
    want = squash(LEFT_TEXT * 2 + RIGHT_TEXT * 2)
    assert difflib.SequenceMatcher(None, body, want).ratio() > 0.97, lines
    assert body.rfind("前半部分") < body.find("散列表"), lines


def test_blank_page_gives_no_lines_and_zero_confidence(rapid_engine, no_network):
    assert ocr_image(rapid_engine, np.full((1754, 1240, 3), 255, dtype=np.uint8)) == ([], 0.0)
    assert rapid_engine.recognize(np.zeros((1, 1), dtype=np.uint8)) == []


def test_bad_image_is_a_clear_error(rapid_engine):
    with pytest.raises(OcrError, match="uint8"):
        rapid_engine.recognize(np.zeros((10, 10, 3), dtype=np.float32))
    with pytest.raises(OcrError, match="shape"):
        rapid_engine.recognize(np.zeros((10, 10, 5), dtype=np.uint8))


def test_unknown_engine_name():
    with pytest.raises(OcrError, match="rapidocr, paddleocr"):
        make_engine("tesseract")


# ---------------------------------------------------------------- PaddleOCR path (validation + dir builder only)

@pytest.fixture
def paddle_unimportable(monkeypatch):
    """Any attempt to import paddleocr fails, so a directory error proves validation ran first."""
    monkeypatch.setitem(sys.modules, "paddleocr", None)


@pytest.fixture(scope="module")
def paddle_dirs(tmp_path_factory):
    return build_model_dirs_from_rapidocr(tmp_path_factory.mktemp("paddle_models"))


def test_paddle_missing_setting_names_it(paddle_unimportable, paddle_dirs):
    with pytest.raises(OcrError, match=DET_DIR_SETTING):
        make_engine("paddleocr", det_dir=None, rec_dir=paddle_dirs[1])
    with pytest.raises(OcrError, match=REC_DIR_SETTING):
        make_engine("paddleocr", det_dir=paddle_dirs[0], rec_dir="")


def test_paddle_empty_or_missing_dir_is_checked_before_import(paddle_unimportable, paddle_dirs, tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(OcrError, match=f"{DET_DIR_SETTING}=.*empty"):
        make_engine("paddleocr", det_dir=empty, rec_dir=paddle_dirs[1])
    with pytest.raises(OcrError, match=f"{REC_DIR_SETTING}=.*not a directory"):
        make_engine("paddleocr", det_dir=paddle_dirs[0], rec_dir=tmp_path / "nowhere")
    only_onnx = tmp_path / "only_onnx"
    only_onnx.mkdir()
    (only_onnx / "inference.onnx").write_bytes(b"x")
    with pytest.raises(OcrError, match=f"{REC_DIR_SETTING}=.*inference.yml"):
        make_engine("paddleocr", det_dir=paddle_dirs[0], rec_dir=only_onnx)


def test_paddle_not_installed_message(paddle_unimportable, paddle_dirs):
    with pytest.raises(OcrError) as err:
        make_engine("paddleocr", det_dir=paddle_dirs[0], rec_dir=paddle_dirs[1])
    assert str(err.value) == NOT_INSTALLED


def test_model_dirs_built_from_rapidocr(paddle_dirs, tmp_path):
    from pipeline.parse.ocr.rapid import bundled_model_paths

    det, rec = paddle_dirs
    src = bundled_model_paths()
    assert (det / "inference.onnx").stat().st_size == src["Det"].stat().st_size
    assert (rec / "inference.onnx").stat().st_size == src["Rec"].stat().st_size
    det_cfg = yaml.safe_load((det / "inference.yml").read_text(encoding="utf-8"))
    rec_cfg = yaml.safe_load((rec / "inference.yml").read_text(encoding="utf-8"))
    assert det_cfg["Global"]["model_name"] == "PP-OCRv6_small_det"
    assert det_cfg["PostProcess"]["name"] == "DBPostProcess"
    assert any("DetResizeForTest" in op for op in det_cfg["PreProcess"]["transform_ops"])
    assert rec_cfg["Global"]["model_name"] == "PP-OCRv6_small_rec"
    chars = rec_cfg["PostProcess"]["character_dict"]
    assert rec_cfg["PostProcess"]["name"] == "CTCLabelDecode"
    assert len(chars) > 5000 and "查" in chars and "折" in chars
    assert check_model_dir(det, DET_DIR_SETTING)[1:] == ("PP-OCRv6_small_det", "onnxruntime")
    assert check_model_dir(rec, REC_DIR_SETTING)[1:] == ("PP-OCRv6_small_rec", "onnxruntime")
    # re-running over existing directories is fine and gives the same paths
    assert build_model_dirs_from_rapidocr(det.parent) == (det, rec)


@pytest.mark.timeout(60)
def test_two_setups_writing_one_model_directory_at_once_do_not_collide(tmp_path):
    """Two setups on one machine build the same shared model directory: each write goes through a temp
    file of its own (a fixed ``inference.yml.tmp`` had one rename fail in two CI runs side by side)."""
    import threading

    from pipeline.parse.ocr.paddle import _write_yml

    dst = tmp_path / "inference.yml"
    errors: list[BaseException] = []

    def writer(n: int) -> None:
        try:
            for i in range(30):
                _write_yml({"writer": n, "round": i, "chars": ["查"] * 2000}, dst)
        except BaseException as exc:  # noqa: BLE001 - collected and asserted below
            errors.append(exc)

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert errors == [] and yaml.safe_load(dst.read_text(encoding="utf-8"))["round"] == 29
    assert [p.name for p in tmp_path.iterdir()] == ["inference.yml"]  # no temp file left behind
