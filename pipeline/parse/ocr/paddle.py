"""Optional OCR engine: PaddleOCR 3.7 on local model directories (never downloads).

Each model directory holds ``inference.yml`` (PaddleX model config: ``Global.model_name``,
``PreProcess``, ``PostProcess``) and either ``inference.onnx`` (run with onnxruntime) or Paddle's
``inference.pdiparams`` + ``inference.json``/``inference.pdmodel`` (run with Paddle).
``build_model_dirs_from_rapidocr`` writes such directories from the PP-OCRv6 small ONNX files
bundled in the rapidocr wheel, so the Paddle path works offline without any download.

PaddleOCR is not in the base environment: paddlex[ocr-core] pins opencv-contrib-python, which
clashes with rapidocr's opencv-python-headless (both are ``cv2``). requirements/paddle.txt installs
it next to rapidocr with a single OpenCV (its deps, then paddlex/paddleocr with ``--no-deps``);
``_OpenCvAlias`` lets paddlex's dependency check accept that OpenCV. Detector settings match the
rapidocr engine, so both engines give the same text on the same page (tests/parse/test_paddle.py).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from typing import Optional, Union

import numpy as np

from pipeline.models import OcrLine

from .base import OcrError, quad_to_box, to_bgr

DET_DIR_SETTING = "EXAMRAG_PADDLE_DET_DIR"
REC_DIR_SETTING = "EXAMRAG_PADDLE_REC_DIR"
NOT_INSTALLED = "PaddleOCR is not installed: see requirements/paddle.txt (two pip commands)"

DET_MODEL_NAME = "PP-OCRv6_small_det"
REC_MODEL_NAME = "PP-OCRv6_small_rec"
DET_LIMIT_SIDE_LEN = 960  # same tuned detector input as the rapidocr engine (MODELS.md)
# rapidocr 3.10's detector post-processing and score cut-off. PaddleOCR's own defaults (box 0.6,
# unclip 1.5, no dilation) dropped whole lines of real scanned exam pages (e.g. 3 of 55 lines).
DET_THRESH, DET_BOX_THRESH, DET_UNCLIP_RATIO = 0.3, 0.5, 1.6
REC_SCORE_THRESH = 0.5

PathLike = Union[str, Path]


def _det_yml(model_name: str = DET_MODEL_NAME) -> dict:
    return {
        "Global": {"model_name": model_name},
        "PreProcess": {"transform_ops": [
            {"DecodeImage": {"channel_first": False, "img_mode": "BGR"}},
            {"DetLabelEncode": None},
            {"DetResizeForTest": {"limit_side_len": DET_LIMIT_SIDE_LEN, "limit_type": "max"}},
            {"NormalizeImage": {"mean": [0.485, 0.456, 0.406], "std": [0.229, 0.224, 0.225],
                                "scale": "1./255.", "order": "hwc"}},
            {"ToCHWImage": None},
            {"KeepKeys": {"keep_keys": ["image", "shape", "polys", "ignore_tags"]}},
        ]},
        "PostProcess": {"name": "DBPostProcess", "thresh": DET_THRESH, "box_thresh": DET_BOX_THRESH,
                        "max_candidates": 1000, "unclip_ratio": DET_UNCLIP_RATIO, "use_dilation": True},
    }


def _rec_yml(characters: list[str], model_name: str = REC_MODEL_NAME) -> dict:
    return {
        "Global": {"model_name": model_name},
        "PreProcess": {"transform_ops": [
            {"DecodeImage": {"channel_first": False, "img_mode": "BGR"}},
            {"MultiLabelEncode": {"gtc_encode": "NRTRLabelEncode"}},
            {"RecResizeImg": {"image_shape": [3, 48, 320]}},
            {"KeepKeys": {"keep_keys": ["image", "label_ctc", "label_gtc", "length", "valid_ratio"]}},
        ]},
        "PostProcess": {"name": "CTCLabelDecode", "character_dict": characters},
    }


def _onnx_characters(model: Path) -> list[str]:
    """The recognizer's character list, stored by PaddleOCR's exporter in the ONNX metadata."""
    import onnxruntime

    opts = onnxruntime.SessionOptions()
    opts.log_severity_level = 4
    sess = onnxruntime.InferenceSession(str(model), sess_options=opts, providers=["CPUExecutionProvider"])
    meta = sess.get_modelmeta().custom_metadata_map
    if "character" not in meta:
        raise OcrError(f"{model.name} carries no character list in its ONNX metadata")
    return meta["character"].splitlines()


def _replace_with(dst: Path, write) -> None:
    """Write ``dst`` through a temp file of its own in the same directory, then rename: two setups
    building the same shared model directory at once (two CI runs on one machine) never take each
    other's temp file (a fixed ``inference.yml.tmp`` had one rename fail)."""
    fd, tmp = tempfile.mkstemp(dir=dst.parent, prefix=f".{dst.name}.", suffix=".tmp")
    os.close(fd)
    try:
        write(Path(tmp))
        os.replace(tmp, dst)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _copy_if_changed(src: Path, dst: Path) -> None:
    if dst.is_file() and dst.stat().st_size == src.stat().st_size:
        return
    _replace_with(dst, lambda tmp: shutil.copyfile(src, tmp))


def _write_yml(data: dict, dst: Path) -> None:
    import yaml

    def write(tmp: Path) -> None:
        with open(tmp, "w", encoding="utf-8") as fh:
            yaml.safe_dump(data, fh, allow_unicode=True, sort_keys=False)

    _replace_with(dst, write)


def build_model_dirs_from_rapidocr(dest: PathLike) -> tuple[Path, Path]:
    """Write PaddleX model directories (``inference.onnx`` + ``inference.yml``) for the PP-OCRv6
    small detector and recognizer bundled in rapidocr, under ``dest``. Returns (det_dir, rec_dir);
    point ``EXAMRAG_PADDLE_DET_DIR`` / ``EXAMRAG_PADDLE_REC_DIR`` at them. Re-running is cheap."""
    from .rapid import bundled_model_paths

    src = bundled_model_paths()
    dest = Path(dest).expanduser()
    det_dir, rec_dir = dest / DET_MODEL_NAME, dest / REC_MODEL_NAME
    det_dir.mkdir(parents=True, exist_ok=True)
    rec_dir.mkdir(parents=True, exist_ok=True)
    _copy_if_changed(src["Det"], det_dir / "inference.onnx")
    _copy_if_changed(src["Rec"], rec_dir / "inference.onnx")
    _write_yml(_det_yml(), det_dir / "inference.yml")
    _write_yml(_rec_yml(_onnx_characters(src["Rec"])), rec_dir / "inference.yml")
    return det_dir, rec_dir


def check_model_dir(path: Optional[PathLike], setting: str) -> tuple[Path, str, Optional[str]]:
    """Validate one model directory; return (dir, PaddleX model name, engine or None for Paddle's default)."""
    if path is None or str(path).strip() == "":
        raise OcrError(f"PaddleOCR needs a local model directory: set {setting} "
                       "(build_model_dirs_from_rapidocr writes one from the packaged models)")
    d = Path(path).expanduser()
    if not d.is_dir():
        raise OcrError(f"{setting}={d} is not a directory")
    if not any(d.iterdir()):
        raise OcrError(f"{setting}={d} is empty: it must hold inference.yml and inference.onnx")
    yml = d / "inference.yml"
    if not yml.is_file():
        raise OcrError(f"{setting}={d} has no inference.yml (PaddleX model config)")
    if (d / "inference.onnx").is_file():
        engine: Optional[str] = "onnxruntime"
    elif (d / "inference.pdiparams").is_file():
        engine = None
    else:
        raise OcrError(f"{setting}={d} has no model file (inference.onnx or inference.pdiparams)")
    import yaml

    try:
        with open(yml, encoding="utf-8") as fh:
            name = (yaml.safe_load(fh) or {}).get("Global", {}).get("model_name")
    except (OSError, yaml.YAMLError, AttributeError) as exc:
        raise OcrError(f"{setting}={d}: inference.yml is unreadable ({exc})") from exc
    if not name:
        raise OcrError(f"{setting}={d}: inference.yml lacks Global.model_name")
    return d, str(name), engine


class _OpenCvAlias:
    """``sys.meta_path`` entry that answers ``importlib.metadata`` lookups for
    ``opencv-contrib-python`` with the OpenCV distribution actually installed.

    paddlex decides whether its OCR pipeline may run by looking up the *distribution* named
    ``opencv-contrib-python`` (pinned by paddlex[ocr-core]), although all it uses is the ``cv2``
    module, which rapidocr's ``opencv-python-headless`` provides too (the OCR path uses no contrib
    module). requirements/paddle.txt keeps that single OpenCV; this alias makes paddlex accept it.
    It is installed only when no real opencv-contrib-python distribution exists."""

    NAME = "opencv-contrib-python"

    def __init__(self, provider: str):
        import importlib.metadata as md

        self._real = md.distribution(provider)

    def find_spec(self, *args, **kwargs):  # not an import finder
        return None

    def find_distributions(self, context=None):
        import importlib.metadata as md
        import re as _re

        name = getattr(context, "name", None)
        if name is None or _re.sub(r"[-_.]+", "-", name).lower() != self.NAME:
            return iter(())
        real = self._real

        class _Alias(md.Distribution):
            def read_text(self, filename):
                if filename == "METADATA":
                    return f"Metadata-Version: 2.1\nName: {_OpenCvAlias.NAME}\nVersion: {real.version}\n"
                return None

            def locate_file(self, path):
                return real.locate_file(path)

        return iter([_Alias()])


def _alias_opencv_for_paddlex() -> None:
    import importlib.metadata as md
    import sys

    if any(isinstance(f, _OpenCvAlias) for f in sys.meta_path):
        return
    try:
        md.distribution(_OpenCvAlias.NAME)
        return  # the real one is installed
    except md.PackageNotFoundError:
        pass
    for provider in ("opencv-python-headless", "opencv-python", "opencv-contrib-python-headless"):
        try:
            sys.meta_path.append(_OpenCvAlias(provider))
            return
        except md.PackageNotFoundError:
            continue


def _as_list(value) -> list:
    return [] if value is None else list(value)


class PaddleOcrEngine:
    """PaddleOCR 3.7 OCR pipeline on local det/rec model directories, CPU only.

    Document orientation, unwarping and text-line orientation are off (they would need further
    models, i.e. downloads). Validation of both directories happens before paddleocr is imported.
    """

    name = "paddleocr"

    def __init__(self, det_dir: Optional[PathLike], rec_dir: Optional[PathLike], threads: Optional[int] = None):
        det, det_name, det_engine = check_model_dir(det_dir, DET_DIR_SETTING)
        rec, rec_name, rec_engine = check_model_dir(rec_dir, REC_DIR_SETTING)
        if det_engine != rec_engine:
            raise OcrError(f"{DET_DIR_SETTING} and {REC_DIR_SETTING} must both hold ONNX models "
                           "or both Paddle models")
        # Skip PaddleX's "which hosting platform can I download from" probe: we never download.
        os.environ.setdefault("PADDLE_PDX_DISABLE_MODEL_SOURCE_CHECK", "True")
        # paddlex makes cache/lock folders when imported: under our cache, not ~/.paddlex
        os.environ.setdefault("PADDLE_PDX_CACHE_HOME", str(Path.home() / ".cache" / "examrag" / "paddlex"))
        _alias_opencv_for_paddlex()
        try:
            from paddleocr import PaddleOCR
        except ModuleNotFoundError as exc:
            raise OcrError(NOT_INSTALLED) from exc
        except ImportError as exc:
            raise OcrError(f"{NOT_INSTALLED} (import failed: {exc})") from exc
        kwargs = dict(
            text_detection_model_name=det_name, text_detection_model_dir=str(det),
            text_recognition_model_name=rec_name, text_recognition_model_dir=str(rec),
            use_doc_orientation_classify=False, use_doc_unwarping=False, use_textline_orientation=False,
            text_det_limit_type="max", text_det_limit_side_len=DET_LIMIT_SIDE_LEN,
            text_det_thresh=DET_THRESH, text_det_box_thresh=DET_BOX_THRESH,
            text_det_unclip_ratio=DET_UNCLIP_RATIO, text_rec_score_thresh=REC_SCORE_THRESH,
            device="cpu",
        )
        if det_engine is not None:
            kwargs["engine"] = det_engine
            if threads is not None:
                kwargs["engine_config"] = {"intra_op_num_threads": int(threads)}
        elif threads is not None:
            kwargs["cpu_threads"] = int(threads)
        import logging

        logging.getLogger("paddlex").setLevel(logging.WARNING)  # no "Creating model" lines
        try:
            self._ocr = PaddleOCR(**kwargs)
        except Exception as exc:  # noqa: BLE001 - any setup failure becomes one readable line
            raise OcrError(f"PaddleOCR failed to load {det} and {rec}: {exc}") from exc
        self.det_dir, self.rec_dir = det, rec

    def recognize(self, image: np.ndarray) -> list[OcrLine]:
        bgr = to_bgr(image)
        try:
            results = self._ocr.predict(bgr)
        except Exception as exc:  # noqa: BLE001
            raise OcrError(f"PaddleOCR failed on a {bgr.shape[1]}x{bgr.shape[0]} image: {exc}") from exc
        lines: list[OcrLine] = []
        for res in results or []:
            texts = _as_list(res.get("rec_texts"))
            scores = _as_list(res.get("rec_scores"))
            polys = res.get("rec_polys")
            if polys is None or len(polys) != len(texts):
                polys = res.get("rec_boxes")
            if polys is None:
                continue
            for text, score, poly in zip(texts, scores, polys):
                text = str(text).strip()
                if text:
                    lines.append(OcrLine(text=text, box=quad_to_box(poly), confidence=float(score)))
        return lines
