"""OCR for pages whose text layer is missing or garbled.

``make_engine("rapidocr")`` (default; models bundled in the rapidocr wheel) or
``make_engine("paddleocr", det_dir=..., rec_dir=...)``; then ``ocr_image(engine, rgb_array)``
gives the page's text lines in reading order and the mean box confidence. Engines are imported
lazily, so importing this package is cheap.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pipeline.parse.layout import BBox, LineBox, OcrPage

from .base import OcrEngine, OcrError
from .order import lines_to_text, order_lines, row_box, row_text

ENGINES = ("rapidocr", "paddleocr")
_ALIASES = {"rapidocr": "rapidocr", "rapid": "rapidocr", "paddleocr": "paddleocr", "paddle": "paddleocr"}

__all__ = ["ENGINES", "OcrEngine", "OcrError", "check_engine", "make_engine", "ocr_image", "ocr_image_lines",
           "order_lines", "lines_to_text"]


def make_engine(name: str = "rapidocr", **kw: Any) -> OcrEngine:
    """Build an OCR engine by name. ``kw`` goes to the engine's constructor
    (rapidocr: ``threads``, ``use_cls``, ``text_score``; paddleocr: ``det_dir``, ``rec_dir``)."""
    kind = _ALIASES.get((name or "rapidocr").strip().lower())
    if kind == "rapidocr":
        from .rapid import RapidOcrEngine

        return RapidOcrEngine(**kw)
    if kind == "paddleocr":
        from .paddle import PaddleOcrEngine

        return PaddleOcrEngine(**kw)
    raise OcrError(f"unknown OCR engine {name!r}: choose one of {', '.join(ENGINES)}")


def check_engine(name: str = "rapidocr", **kw: Any) -> None:
    """Cheap set-up check (no model loaded): raises ``OcrError`` with the reason the engine could
    not be built, e.g. before starting worker processes that would each fail."""
    import importlib.util

    kind = _ALIASES.get((name or "rapidocr").strip().lower())
    if kind == "rapidocr":
        from .rapid import bundled_model_paths

        bundled_model_paths()
    elif kind == "paddleocr":
        from .paddle import DET_DIR_SETTING, NOT_INSTALLED, REC_DIR_SETTING, check_model_dir

        check_model_dir(kw.get("det_dir"), DET_DIR_SETTING)
        check_model_dir(kw.get("rec_dir"), REC_DIR_SETTING)
        if importlib.util.find_spec("paddleocr") is None:
            raise OcrError(NOT_INSTALLED)
    else:
        raise OcrError(f"unknown OCR engine {name!r}: choose one of {', '.join(ENGINES)}")


def _mean_confidence(lines) -> float:
    return float(sum(ln.confidence for ln in lines) / len(lines)) if lines else 0.0


def ocr_image(engine: OcrEngine, image: np.ndarray) -> tuple[list[str], float]:
    """Text lines of a page image in reading order, and the mean confidence of the boxes
    (0.0 when nothing was recognised)."""
    lines = engine.recognize(image)
    rows = order_lines(lines, page_width=float(image.shape[1]))
    return lines_to_text(rows), _mean_confidence(lines)


def ocr_image_lines(engine: OcrEngine, image: np.ndarray) -> OcrPage:
    """Like ``ocr_image`` but each row keeps its box (the union of the row's boxes, in image
    pixels), for callers that map rows back onto the page."""
    lines = engine.recognize(image)
    rows = order_lines(lines, page_width=float(image.shape[1]))
    out = [LineBox(row_text(r), BBox(*row_box(r))) for r in rows]
    return OcrPage([r for r in out if r.text], _mean_confidence(lines))
