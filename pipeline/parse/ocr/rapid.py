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

# sha256 of those files in the rapidocr==3.10.0 wheel: a model file is used only when it matches, so a
# cluster worker with another rapidocr (or a damaged install) fails loudly instead of OCRing differently.
BUNDLED_SHA256 = {
    "Det": "090f04abcd9d9a7498bc4ebf677e4cb9bdce1fe4197ddb7e529f1ef44e1ff94f",
    "Rec": "6f327246b50388f3c176ae304bd95767ea6dc0c9ae92153ef8cbe210b3c14884",
    "Cls": "e47acedf663230f8863ff1ab0e64dd2d82b838fceb5957146dab185a89d6215c",
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


_VERIFIED: set[str] = set()


def verify_bundled_models(paths: dict[str, Path]) -> None:
    """Check each model file against :data:`BUNDLED_SHA256` (once per process; ~0.1 s for the three)."""
    import hashlib

    for task, path in paths.items():
        if str(path) in _VERIFIED:
            continue
        h = hashlib.sha256()
        with open(path, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                h.update(block)
        if h.hexdigest() != BUNDLED_SHA256[task]:
            raise OcrError(f"rapidocr model {path} has sha256 {h.hexdigest()[:16]}…, expected "
                           f"{BUNDLED_SHA256[task][:16]}… (rapidocr==3.10.0): reinstall rapidocr==3.10.0")
        _VERIFIED.add(str(path))


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
        verify_bundled_models(paths)
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
