"""One detected tile: what the detector saw, before any reading of the hand.

A :class:`Detection` is the localizer's box plus the classifier's verdict, in image pixels, with
classes numbered as the contract's detection classes (``0..37``, equal to :mod:`paiscan.scoring.tiles`
tile ids: ``37`` is a face-down tile).

>>> d = Detection(4, 0.9, (10.0, 20.0, 40.0, 60.0), topk=((4, 0.9), (34, 0.08)))
>>> d.centre, d.width, d.height, d.name
((25.0, 40.0), 30.0, 40.0, '5m')
>>> d.candidates()
((4, 0.9), (34, 0.08))
>>> d.to_dict()["topk"]
[['5m', 0.9], ['0m', 0.08]]
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from paiscan.scoring.tiles import BACK, N_CLASSES, parse_tiles, tile_name

Box = tuple[float, float, float, float]


def iou(a: Sequence[float], b: Sequence[float]) -> float:
    """Intersection over union of two ``x1, y1, x2, y2`` boxes.

    >>> iou((0, 0, 10, 10), (5, 0, 15, 10)), iou((0, 0, 10, 10), (20, 20, 30, 30))
    (0.3333333333333333, 0.0)
    """
    ix = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = ix * iy
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


#: faces that look alike turned by 90° (the one of circles, the blank white dragon): the
#: classifier's axis for them is a guess far more often (see ``VisionSettings.min_axis_sure_round``)
ROUND_FACES = frozenset(parse_tiles("1p5z"))


@dataclass(frozen=True)
class Detection:
    """A tile in the photo.

    * ``cls``: the class id (contract order), ``confidence``: the detector's confidence in it.
    * ``box``: axis-aligned ``x1, y1, x2, y2`` in pixels, enclosing the visible tile.
    * ``rotated``: the detector's hint that the tile lies sideways (long side along the row). The
      layout does not trust it blindly: it decides sideways-ness from box proportions relative to
      the row direction and to the other tiles of the row, and uses the flag only where the
      proportions are inconclusive (a photo rotated by 90° makes every tile look "rotated").
    * ``topk``: the classifier's best classes with their probabilities, best first (may be empty).
    * ``face_angle``: where the face's top points in the image, in degrees (0 = up, clockwise
      positive), from the classifier (``None``: not known). Its axis tells a sideways tile however
      the box looks; its direction tells which side of the row the player sits.
    * ``face_sure``: how sure the classifier is of top against bottom (0..1; a face that looks the
      same upside down gets a low value, its axis is still good).
    * ``cut``: the box touches the photo's frame, so the tile may be cut: its box's proportions and
      its face's angle are measured on part of it.
    """

    cls: int
    confidence: float
    box: Box
    rotated: bool = False
    topk: tuple[tuple[int, float], ...] = ()
    face_angle: float | None = None
    face_sure: float = 0.0
    cut: bool = False

    def __post_init__(self) -> None:
        if not 0 <= self.cls < N_CLASSES:
            raise ValueError(f"class id {self.cls} is outside 0..{N_CLASSES - 1}")
        x1, y1, x2, y2 = self.box
        if not (x2 > x1 and y2 > y1):
            raise ValueError(f"box {self.box} is empty (x2 > x1 and y2 > y1 expected)")

    @property
    def share(self) -> float:
        """The classifier's probability of the best class (the detector's confidence without top-k)."""
        return self.topk[0][1] if self.topk else self.confidence

    # ------------------------------------------------------------------ geometry
    @property
    def centre(self) -> tuple[float, float]:
        x1, y1, x2, y2 = self.box
        return ((x1 + x2) / 2, (y1 + y2) / 2)

    @property
    def width(self) -> float:
        return self.box[2] - self.box[0]

    @property
    def height(self) -> float:
        return self.box[3] - self.box[1]

    @property
    def size(self) -> float:
        """A rotation-tolerant scale of the tile: the geometric mean of the box sides."""
        return math.sqrt(self.width * self.height)

    # ------------------------------------------------------------------ classes
    @property
    def is_back(self) -> bool:
        return self.cls == BACK

    @property
    def name(self) -> str:
        return tile_name(self.cls)

    @property
    def tile_share(self) -> float:
        """How likely the crop shows a tile at all: the sum of the top-k probabilities (1.0 without
        a top-k). A classifier with the not-a-tile output leaves its share out of them, so under
        one half the crop more likely shows felt or a rack's edge than a tile.

        >>> Detection(3, 0.2, (0, 0, 10, 14), topk=((3, 0.25), (4, 0.05))).tile_share
        0.3
        """
        return sum(p for _, p in self.topk) if self.topk else 1.0

    def candidates(self) -> tuple[tuple[int, float], ...]:
        """The classes this tile may be, best first: its class, then the other top-k classes.

        The class's own probability is its top-k entry when there is one, else ``confidence``.
        """
        own = next((p for c, p in self.topk if c == self.cls), self.confidence)
        rest = sorted(((c, p) for c, p in self.topk if c != self.cls), key=lambda cp: -cp[1])
        return ((self.cls, own), *rest)

    # ------------------------------------------------------------------ (de)serialisation
    def to_dict(self) -> dict[str, Any]:
        """The contract's detection entry (``paiscan read``), with ``face_angle`` and ``face_sure``
        when known."""
        out: dict[str, Any] = {
            "class": tile_name(self.cls),
            "class_id": self.cls,
            "confidence": round(float(self.confidence), 4),
            "box": [round(float(v), 1) for v in self.box],
            "rotated": self.rotated,
            "topk": [[tile_name(c), round(float(p), 4)] for c, p in self.topk],
        }
        if self.face_angle is not None:
            out["face_angle"] = round(float(self.face_angle), 1)
            out["face_sure"] = round(float(self.face_sure), 3)
        if self.cut:
            out["cut"] = True
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Detection:
        """Inverse of :meth:`to_dict` (``class_id`` wins over ``class``; topk names or ids)."""

        def tile_id(value: Any) -> int:
            return int(value) if isinstance(value, int) else parse_tiles(str(value))[0]

        cid = tile_id(data["class_id"] if "class_id" in data else data["class"])
        x1, y1, x2, y2 = (float(v) for v in data["box"])
        topk = tuple((tile_id(c), float(p)) for c, p in data.get("topk", []))
        angle = data.get("face_angle")
        return cls(
            cid,
            float(data.get("confidence", 1.0)),
            (x1, y1, x2, y2),
            bool(data.get("rotated", False)),
            topk,
            None if angle is None else float(angle),
            float(data.get("face_sure", 0.0)),
            bool(data.get("cut", False)),
        )


def shares_inside(dets: Sequence[Detection], of: Sequence[int]) -> np.ndarray:
    """``[j, k]``: the share (0..1) of detection ``j``'s box that lies in detection ``of[k]``'s box."""
    boxes = np.array([d.box for d in dets], dtype=float).reshape(-1, 4)
    x1, y1, x2, y2 = boxes.T
    ox1, oy1, ox2, oy2 = boxes[list(of)].reshape(-1, 4).T
    iw = np.minimum(x2[:, None], ox2[None, :]) - np.maximum(x1[:, None], ox1[None, :])
    ih = np.minimum(y2[:, None], oy2[None, :]) - np.maximum(y1[:, None], oy1[None, :])
    meet = (iw > 0) & (ih > 0)
    with np.errstate(divide="ignore", invalid="ignore"):  # a box that meets another has an area > 0
        share = iw * ih / ((x2 - x1) * (y2 - y1))[:, None]
    return np.where(meet, share, 0.0)


__all__ = ["ROUND_FACES", "Box", "Detection", "shares_inside"]
