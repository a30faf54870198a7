"""A small JPEG of the upright photo, optionally with the detections drawn, as a data URI."""

from __future__ import annotations

import base64
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

#: BGR colours by the role a reader may give a detection (hand when it gives none)
ROLE_COLORS: dict[str, tuple[int, int, int]] = {
    "hand": (60, 190, 60),
    "win": (40, 40, 230),
    "meld": (230, 140, 20),
    "dora": (200, 40, 200),
    "nuki": (0, 190, 240),
    "other": (150, 150, 150),
}


@dataclass(frozen=True)
class Preview:
    data_uri: str
    width: int
    height: int
    scale: float  # preview pixels per photo pixel (boxes are in photo pixels)


def make_preview(
    bgr: np.ndarray,
    photo_size: tuple[int, int],
    detections: Sequence[dict[str, Any]] | None,
    max_side: int = 1024,
    quality: int = 80,
) -> Preview:
    """Shrink ``bgr`` to ``max_side`` and draw ``detections`` (boxes in ``photo_size`` pixels) when given.

    >>> img = np.zeros((300, 2000, 3), np.uint8)
    >>> p = make_preview(img, (4000, 600), [{"class": "5m", "box": [100, 100, 300, 400]}], max_side=500)
    >>> (p.width, p.height, p.scale, p.data_uri[:23])
    (500, 75, 0.125, 'data:image/jpeg;base64,')
    """
    h, w = bgr.shape[:2]
    f = min(1.0, max_side / max(h, w))
    size = (max(1, round(w * f)), max(1, round(h * f)))
    img = cv2.resize(bgr, size, interpolation=cv2.INTER_AREA) if f < 1 else bgr.copy()
    scale = img.shape[1] / photo_size[0] if photo_size[0] else 1.0
    if detections:
        thick = max(1, round(max(img.shape[:2]) / 500))
        font = 0.45 * thick
        for det in detections:
            box = det.get("box") or []
            if len(box) != 4:
                continue
            x1, y1, x2, y2 = (round(float(v) * scale) for v in box)
            color = ROLE_COLORS.get(str(det.get("role", "hand")), ROLE_COLORS["other"])
            cv2.rectangle(img, (x1, y1), (x2, y2), color, thick, cv2.LINE_AA)
            label = str(det.get("class", ""))
            (tw, th), base = cv2.getTextSize(label, cv2.FONT_HERSHEY_SIMPLEX, font, thick)
            ty = y1 - 2 if y1 - th - base - 2 >= 0 else y2 + th + 2
            cv2.rectangle(img, (x1, ty - th - base), (x1 + tw + 2, ty + base - 1), color, -1)
            cv2.putText(
                img, label, (x1 + 1, ty - 1), cv2.FONT_HERSHEY_SIMPLEX, font, (255, 255, 255), thick, cv2.LINE_AA
            )
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:  # pragma: no cover - encoding a valid uint8 image does not fail
        raise ValueError("JPEG encoding failed")
    uri = "data:image/jpeg;base64," + base64.b64encode(buf.tobytes()).decode("ascii")
    return Preview(uri, img.shape[1], img.shape[0], scale)
