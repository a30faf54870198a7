"""Draw what was read on the photo: a box per tile with its class, coloured by its role."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import cv2
import numpy as np

ROLE_COLORS = {
    "hand": (60, 200, 60),
    "win": (0, 0, 255),
    "meld": (255, 140, 0),
    "dora": (255, 0, 255),
    "nuki": (0, 200, 255),
    "other": (160, 160, 160),
}


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
        cv2.putText(img, label, (x1, max(10, y1 - 3)), cv2.FONT_HERSHEY_SIMPLEX, 0.4 * thick, color, thick, cv2.LINE_AA)
    summary = summary_line(result.get("hand") or {})
    cv2.putText(
        img,
        summary,
        (8, img.shape[0] - 10),
        cv2.FONT_HERSHEY_SIMPLEX,
        0.5 * thick,
        (255, 255, 255),
        thick + 1,
        cv2.LINE_AA,
    )
    cv2.putText(
        img, summary, (8, img.shape[0] - 10), cv2.FONT_HERSHEY_SIMPLEX, 0.5 * thick, (0, 0, 0), thick, cv2.LINE_AA
    )
    return img


def summary_line(hand: dict[str, Any]) -> str:
    """The structure found, in one line of the characters OpenCV's Hershey font draws (no brackets
    or quotes: a Python list's repr drew as boxes): concealed tiles, melds, winning tile,
    indicators and tiles set aside; a dash for none.

    >>> summary_line({"hand": "123m456p789s1z", "melds": [{"type": "kan", "tiles": "5555z", "open": False}],
    ...               "win_tile": "1z", "dora_indicators": ["3p", "0s"], "nuki": ""})
    'hand 123m456p789s1z  melds 5555z(closed)  win 1z  dora 3p 0s'
    >>> summary_line({})
    'hand -  win -  dora -'
    """
    melds = " ".join(m.get("tiles", "") + ("" if m.get("open", True) else "(closed)") for m in hand.get("melds") or [])
    parts = [
        f"hand {hand.get('hand') or '-'}",
        *([f"melds {melds}"] if melds else []),
        f"win {hand.get('win_tile') or '-'}",
        f"dora {' '.join(hand.get('dora_indicators') or []) or '-'}",
        *([f"nuki {hand['nuki']}"] if hand.get("nuki") else []),
    ]
    return "  ".join(parts)


#: the endings an annotated photo may be written under (OpenCV encodes by the name's ending)
ANNOTATE_SUFFIXES = (".jpg", ".jpeg", ".png", ".webp")


def wrong_ending(out: Path) -> str | None:
    """Why ``out`` cannot be an annotated photo's name (an ending OpenCV does not write), or None."""
    if out.suffix.lower() in ANNOTATE_SUFFIXES:
        return None
    return f"{out.name}: an annotated photo is written as {', '.join(ANNOTATE_SUFFIXES)}"


def annotate_file(photo: Path, result: dict[str, Any], out: Path) -> None:
    """Draw ``result`` on ``photo`` into ``out``, whole or not at all (a temporary file renamed).

    Raises ``ValueError`` for an ending OpenCV cannot write and ``OSError`` when ``out`` cannot be
    written; an existing ``out`` is then left as it was.
    """
    from paiscan.vision.image import read_image_file

    suffix = out.suffix.lower()
    wrong = wrong_ending(out)
    if wrong:
        raise ValueError(wrong)
    decoded = read_image_file(str(photo))
    ok, encoded = cv2.imencode(suffix, annotate(decoded.bgr, result))
    if not ok:
        raise ValueError(f"{out.name}: OpenCV could not encode the annotated photo")
    tmp = out.with_name(f".{out.name}.tmp")
    try:
        tmp.write_bytes(encoded.tobytes())
        tmp.replace(out)
    finally:
        tmp.unlink(missing_ok=True)
