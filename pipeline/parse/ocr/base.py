"""The OCR engine interface: an image in, text boxes (``OcrLine``) out."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np

from pipeline.models import OcrLine


class OcrError(Exception):
    """An OCR engine could not be set up or run. The message is one line a user can act on."""


@runtime_checkable
class OcrEngine(Protocol):
    """Anything that turns a page image into text boxes.

    ``image`` is HxWx3 uint8 RGB or HxW uint8 gray. Boxes are axis-aligned ``x0, y0, x1, y1`` in
    image pixels; the order of the returned lines is unspecified (see ``order.order_lines``).
    """

    name: str

    def recognize(self, image: np.ndarray) -> list[OcrLine]: ...


def to_bgr(image: np.ndarray) -> np.ndarray:
    """Validate an RGB or gray page image and return it in the BGR layout OpenCV-based engines expect."""
    if not isinstance(image, np.ndarray):
        raise OcrError(f"OCR expects a numpy image, got {type(image).__name__}")
    if image.dtype != np.uint8:
        raise OcrError(f"OCR expects a uint8 image, got dtype {image.dtype}")
    if image.ndim == 3 and image.shape[2] == 1:
        image = image[:, :, 0]
    if image.ndim == 2:
        return np.ascontiguousarray(np.repeat(image[:, :, None], 3, axis=2))
    if image.ndim == 3 and image.shape[2] in (3, 4):
        return np.ascontiguousarray(image[:, :, 2::-1])  # RGB(A) → BGR, alpha dropped
    raise OcrError(f"OCR expects an HxWx3 RGB or HxW gray image, got shape {image.shape}")


def quad_to_box(points) -> list[float]:
    """Axis-aligned ``[x0, y0, x1, y1]`` around a polygon given as ``[[x, y], ...]``."""
    arr = np.asarray(points, dtype=float).reshape(-1, 2)
    x0, y0 = arr.min(axis=0)
    x1, y1 = arr.max(axis=0)
    return [round(float(x0), 1), round(float(y0), 1), round(float(x1), 1), round(float(y1), 1)]
