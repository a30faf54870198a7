"""A stand-in photo reader that reads every photo as the same hand, laid out across the picture.

It lets the web page and the API be tried, tested and load-tested without the trained models:
``PAISCAN_READER=paiscan.service.demo:DemoReader paiscan serve``. Nothing in it looks at the pixels.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from paiscan.scoring.tiles import parse_tiles, tile_name
from paiscan.vision.image import DecodedImage

#: 234m 456p 678s 22s 45s, winning on 6s (ron: tanyao + pinfu); the 5p might be a red five.
DEMO_HAND = "234m456p678s2245s"
DEMO_WIN = "6s"
UNSURE_INDEX = 4  # the 5p
UNSURE_TOPK = [["5p", 0.58], ["0p", 0.39], ["6p", 0.02], ["3p", 0.01]]


@dataclass
class DemoResult:
    width: int
    height: int
    rules: str
    timings_ms: dict[str, float] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        tiles = [tile_name(t) for t in parse_tiles(DEMO_HAND)] + [DEMO_WIN]
        n = len(tiles)
        margin = 0.05 * self.width
        gap = 0.25  # in tile widths, before the winning tile
        tw = (self.width - 2 * margin) / (n + gap)
        th = min(tw * 1.35, 0.8 * self.height)
        y1 = (self.height - th) / 2
        detections = []
        for i, face in enumerate(tiles):
            x1 = margin + (i + (gap if i == n - 1 else 0)) * tw
            topk = UNSURE_TOPK if i == UNSURE_INDEX else [[face, 0.97], [_neighbour(face), 0.02]]
            detections.append(
                {
                    "class": face,
                    "class_id": parse_tiles(face)[0],
                    "confidence": topk[0][1],
                    "box": [round(x1 + 1, 1), round(y1, 1), round(x1 + tw - 1, 1), round(y1 + th, 1)],
                    "rotated": False,
                    "topk": topk,
                    "role": "win" if i == n - 1 else "hand",
                }
            )
        return {
            "detections": detections,
            "hand": {"hand": DEMO_HAND, "melds": [], "win_tile": DEMO_WIN, "dora_indicators": [], "nuki": ""},
            "alternatives": [],
            "ambiguities": [{"kind": "tile", "index": UNSURE_INDEX, "candidates": ["5p", "0p"]}],
            "problems": [],
            "timings_ms": dict(self.timings_ms),
            "image": {"width": self.width, "height": self.height},
            "reader": "demo",
        }


def _neighbour(face: str) -> str:
    n, s = face[0], face[1]
    if s == "z" or n == "0":
        return face
    return f"{int(n) % 9 + 1}{s}"


class DemoReader:
    """The :class:`paiscan.service.inference.Reader` shape, without models."""

    def __init__(self, settings: Any = None) -> None:
        self.settings = settings

    def warm(self) -> None:
        return None

    def read(self, image: DecodedImage, rules: str = "riichi", context: dict[str, Any] | None = None) -> DemoResult:
        h, w = image.bgr.shape[:2]
        ow, oh = image.original_size
        return DemoResult(ow or w, oh or h, rules, {"localize": 0.0, "classify": 0.0, "layout": 0.0})


def demo_photo(width: int = 1600, height: int = 1000, fmt: str = ".jpg") -> bytes:
    """A picture of the demo hand on a green table, drawn where :class:`DemoReader` puts its boxes."""
    import cv2
    import numpy as np

    rng = np.random.default_rng(0)
    yy, xx = np.mgrid[0:height, 0:width]
    shade = (1.0 - 0.25 * ((xx / width - 0.5) ** 2 + (yy / height - 0.5) ** 2)).astype(np.float32)
    img = np.empty((height, width, 3), np.float32)
    for c, v in enumerate((60, 120, 40)):  # BGR felt
        img[:, :, c] = v * shade
    img += rng.normal(0, 4, img.shape).astype(np.float32)
    out = np.clip(img, 0, 255).astype(np.uint8)
    result = DemoResult(width, height, "riichi").to_dict()
    for det in result["detections"]:
        x1, y1, x2, y2 = (round(v) for v in det["box"])
        side = max(2, (y2 - y1) // 10)
        cv2.rectangle(out, (x1, y1 + side), (x2, y2 + side), (70, 150, 200), -1)  # the tile's body
        cv2.rectangle(out, (x1, y1), (x2, y2), (225, 240, 245), -1)  # its face
        face = det["class"]
        color = {"m": (30, 30, 160), "p": (150, 70, 20), "s": (40, 120, 30)}.get(face[1], (20, 20, 20))
        scale = (x2 - x1) / 55
        (tw, th), _ = cv2.getTextSize(face, cv2.FONT_HERSHEY_SIMPLEX, scale, max(1, round(scale * 2)))
        cv2.putText(
            out,
            face,
            ((x1 + x2 - tw) // 2, (y1 + y2 + th) // 2),
            cv2.FONT_HERSHEY_SIMPLEX,
            scale,
            color,
            max(1, round(scale * 2)),
            cv2.LINE_AA,
        )
    ok, buf = cv2.imencode(fmt, out)
    if not ok:  # pragma: no cover
        raise ValueError(f"cannot encode {fmt}")
    return buf.tobytes()
