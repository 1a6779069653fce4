"""Default OCR engine: rapidocr 3.10 with the PP-OCRv6 small det/rec models bundled in its wheel.

Nothing is downloaded: the model files are passed by path, so rapidocr never consults its
download table. The detector settings are the ones measured best in MODELS.md ("OCR").
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Optional

import numpy as np

from pipeline.models import OcrLine

from .base import OcrError, quad_to_box, to_bgr

# File names inside rapidocr/models/ of the rapidocr==3.10.0 wheel.
BUNDLED_MODELS = {
    "Det": "PP-OCRv6_det_small.onnx",
    "Rec": "PP-OCRv6_rec_small.onnx",
    "Cls": "ch_ppocr_mobile_v2.0_cls_mobile.onnx",
}

# Tuned detector settings (MODELS.md: accuracy 1.000 on clean and degraded A4 pages, faster than defaults).
DET_PARAMS = {
    "Det.mean": [0.485, 0.456, 0.406],
    "Det.std": [0.229, 0.224, 0.225],
    "Det.limit_type": "max",
    "Det.limit_side_len": 960,
}


def bundled_model_paths() -> dict[str, Path]:
    """Paths of the ONNX files shipped inside the installed rapidocr package (without importing it)."""
    import importlib.util

    spec = importlib.util.find_spec("rapidocr")
    if spec is None or not spec.submodule_search_locations:
        raise OcrError("rapidocr is not installed: pip install -r requirements/base.txt")
    models = Path(list(spec.submodule_search_locations)[0]) / "models"
    paths = {task: models / fname for task, fname in BUNDLED_MODELS.items()}
    missing = [p.name for p in paths.values() if not p.is_file()]
    if missing:
        raise OcrError(f"rapidocr's bundled models are missing ({', '.join(missing)}): "
                       "reinstall rapidocr==3.10.0")
    return paths


class RapidOcrEngine:
    """rapidocr + onnxruntime on the packaged PP-OCRv6 small models.

    ``threads``: onnxruntime intra-op threads per session (None = onnxruntime's default, one per
    physical core). ``use_cls``: run rapidocr's 0/180° text-line classifier. Off by default: on
    real 408 pages it turned code lines such as ``p->next->prev=p->next;`` upside down (garbage
    text) and lost a question stem, and it only helps with upside-down scans.
    ``text_score``: boxes recognised with a lower confidence are dropped.
    """

    name = "rapidocr"

    def __init__(self, threads: Optional[int] = None, use_cls: bool = False, text_score: float = 0.5):
        logging.getLogger("RapidOCR").setLevel(logging.ERROR)
        try:
            from rapidocr import RapidOCR
        except ImportError as exc:
            raise OcrError(f"rapidocr cannot be imported ({exc}): pip install -r requirements/base.txt") from exc
        paths = bundled_model_paths()
        params: dict = {
            "Global.log_level": "error",
            "Global.use_cls": use_cls,
            "Global.text_score": text_score,
            "Det.model_path": str(paths["Det"]),
            "Rec.model_path": str(paths["Rec"]),
            "Cls.model_path": str(paths["Cls"]),
            **DET_PARAMS,
        }
        if threads is not None:
            params["EngineConfig.onnxruntime.intra_op_num_threads"] = int(threads)
        try:
            self._ocr = RapidOCR(params=params)
            # rapidocr loads each model on first use; load them now so errors and cost show up here.
            for step in ("det", "rec") + (("cls",) if use_cls else ()):
                load = getattr(self._ocr, f"_load_{step}_model", None)
                if load is not None:
                    load()
        except Exception as exc:  # noqa: BLE001 - any setup failure becomes one readable line
            raise OcrError(f"rapidocr failed to load its bundled models: {exc}") from exc
        self.threads = threads

    def recognize(self, image: np.ndarray) -> list[OcrLine]:
        bgr = to_bgr(image)
        if bgr.shape[0] < 2 or bgr.shape[1] < 2:
            return []
        try:
            result = self._ocr(bgr)
        except Exception as exc:  # noqa: BLE001
            raise OcrError(f"rapidocr failed on a {bgr.shape[1]}x{bgr.shape[0]} image: {exc}") from exc
        boxes = getattr(result, "boxes", None)
        txts = getattr(result, "txts", None)
        scores = getattr(result, "scores", None)
        if boxes is None or txts is None or scores is None:
            return []
        lines: list[OcrLine] = []
        for quad, text, score in zip(boxes, txts, scores):
            text = str(text).strip()
            if text:
                lines.append(OcrLine(text=text, box=quad_to_box(quad), confidence=float(score)))
        return lines
