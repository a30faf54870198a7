"""Draw what was read on the photo: a box per tile with its class, coloured by its role."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import cv2
import numpy as np

ROLE_COLORS = {"hand": (60, 200, 60), "win": (0, 0, 255), "meld": (255, 140, 0), "dora": (255, 0, 255),
               "nuki": (0, 200, 255), "other": (160, 160, 160)}


def annotate(bgr: np.ndarray, result: dict[str, Any], max_side: int = 1600) -> np.ndarray:
    """A copy of the image (shrunk to ``max_side``) with boxes, classes and roles drawn.

    ``result`` is a ``paiscan read`` dict; a detection's role comes from its ``role`` key when the
    reader set one.
    """
    h, w = bgr.shape[:2]
    scale = min(1.0, max_side / max(h, w))
    img = cv2.resize(bgr, (round(w * scale), round(h * scale))) if scale < 1 else bgr.copy()
    thick = max(1, round(max(img.shape[:2]) / 600))
    for det in result.get("detections", []):
        x1, y1, x2, y2 = (int(v * scale) for v in det["box"])
        color = ROLE_COLORS.get(det.get("role", "hand"), ROLE_COLORS["other"])
        cv2.rectangle(img, (x1, y1), (x2, y2), color, thick)
        label = det["class"]
        cv2.putText(img, label, (x1, max(10, y1 - 3)), cv2.FONT_HERSHEY_SIMPLEX, 0.4 * thick, color, thick,
                    cv2.LINE_AA)
    hand = result.get("hand") or {}
    summary = f"hand {hand.get('hand', '')}  win {hand.get('win_tile', '')}  dora {hand.get('dora_indicators', '')}"
    cv2.putText(img, summary, (8, img.shape[0] - 10), cv2.FONT_HERSHEY_SIMPLEX, 0.5 * thick, (255, 255, 255),
                thick + 1, cv2.LINE_AA)
    cv2.putText(img, summary, (8, img.shape[0] - 10), cv2.FONT_HERSHEY_SIMPLEX, 0.5 * thick, (0, 0, 0), thick,
                cv2.LINE_AA)
    return img


def annotate_file(photo: Path, result: dict[str, Any], out: Path) -> None:
    from vision.image import read_image_file

    decoded = read_image_file(str(photo))
    cv2.imwrite(str(out), annotate(decoded.bgr, result))
