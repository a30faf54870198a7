"""The two ONNX models and the arithmetic around them (no torch here).

* **Localizer**: an ultralytics YOLO detector exported to ONNX with two classes, face-up tile (0)
  and face-down tile (1). Input ``[1, 3, S, S]`` RGB in 0..1, letterboxed; output
  ``[1, 4 + 2, N]`` (cx, cy, w, h, class scores) in input pixels.
* **Classifier**: a small CNN over tile crops, input ``[B, 3, H, W]`` RGB in 0..1, output logits
  ``[B, C]`` over the contract ids its ``classes`` metadata lists: 0..36 (34 kinds + red 0m 0p
  0s) and, in newer models, 37, the back, so that the full-resolution crop rather than the
  localizer's small input decides which tiles are face down. Models that have it give a second
  output ``orientation`` ``[B, 4]``: ``sin a, cos a, sin 2a, cos 2a`` of the angle ``a`` the face's
  top points to in the crop (0 = up, clockwise positive). The doubled angle gives the face's axis
  even for faces that look the same upside down; the layout uses it to tell sideways tiles and
  which way the row faces.

Each model is one ``onnxruntime.InferenceSession`` created once and reused; the intra-op thread
count is a setting.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from paiscan.models import MODELS_DIR
from paiscan.scoring.tiles import BACK, N_CLASSES, RED_OF_FIVE

__all__ = ["MODELS_DIR"]
N_FACE_CLASSES = 37
#: the classifier's output for a crop that shows no tile (felt, a rack's edge, a floorboard), in
#: models that have it (their ``classes`` metadata lists it): never a contract id. Its share is
#: left out of the probabilities the runtime returns, so such a "tile" comes out doubtful
NOT_A_TILE = N_CLASSES


@dataclass(frozen=True, slots=True)
class Letterbox:
    """How an image was fitted into the model's square input: ``x_in = x * scale + pad_x``."""

    scale: float
    pad_x: float
    pad_y: float
    size: int

    def to_image(self, boxes: np.ndarray) -> np.ndarray:
        """Map ``[N, 4]`` x1 y1 x2 y2 boxes from model input pixels back to image pixels."""
        out = boxes.astype(np.float32).copy()
        out[:, [0, 2]] = (out[:, [0, 2]] - self.pad_x) / self.scale
        out[:, [1, 3]] = (out[:, [1, 3]] - self.pad_y) / self.scale
        return out


def letterbox(bgr: np.ndarray, size: int, fill: int = 114) -> tuple[np.ndarray, Letterbox]:
    """Resize keeping the aspect ratio and pad to ``size × size``; returns the NCHW float input.

    >>> x, lb = letterbox(np.zeros((100, 200, 3), np.uint8), 64)
    >>> x.shape, lb.scale, lb.pad_y
    ((1, 3, 64, 64), 0.32, 16.0)
    """
    h, w = bgr.shape[:2]
    scale = min(size / w, size / h)
    nw, nh = max(1, round(w * scale)), max(1, round(h * scale))
    resized = cv2.resize(bgr, (nw, nh), interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR)
    pad_x, pad_y = (size - nw) // 2, (size - nh) // 2
    canvas = np.full((size, size, 3), fill, np.uint8)
    canvas[pad_y : pad_y + nh, pad_x : pad_x + nw] = resized
    x = cv2.dnn.blobFromImage(canvas, 1.0 / 255.0, swapRB=True)  # NCHW RGB float32, one pass
    return x, Letterbox(scale, float(pad_x), float(pad_y), size)


def nms(boxes: np.ndarray, scores: np.ndarray, iou_threshold: float) -> list[int]:
    """Greedy non-maximum suppression over x1 y1 x2 y2 boxes; indices kept, best first.

    >>> nms(np.array([[0, 0, 10, 10], [1, 1, 11, 11], [20, 20, 30, 30]], float), np.array([.9, .8, .7]), .5)
    [0, 2]
    """
    order = np.argsort(-scores)
    keep: list[int] = []
    areas = (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])
    while order.size:
        i = int(order[0])
        keep.append(i)
        rest = order[1:]
        xx1 = np.maximum(boxes[i, 0], boxes[rest, 0])
        yy1 = np.maximum(boxes[i, 1], boxes[rest, 1])
        xx2 = np.minimum(boxes[i, 2], boxes[rest, 2])
        yy2 = np.minimum(boxes[i, 3], boxes[rest, 3])
        inter = np.clip(xx2 - xx1, 0, None) * np.clip(yy2 - yy1, 0, None)
        iou = inter / (areas[i] + areas[rest] - inter + 1e-9)
        order = rest[iou <= iou_threshold]
    return keep


@dataclass(frozen=True, slots=True)
class TileBox:
    """One localized tile in image pixels: face-down or not, with the localizer's confidence."""

    box: tuple[float, float, float, float]
    confidence: float
    face_down: bool


def scaled_tiles(tiles: Sequence[TileBox], r: float) -> list[TileBox]:
    """The boxes in a photo decoded ``r`` times as large."""
    return [replace(t, box=(t.box[0] * r, t.box[1] * r, t.box[2] * r, t.box[3] * r)) for t in tiles]


def readable(tiles: Sequence[TileBox], min_side: float) -> list[TileBox]:
    """The boxes whose short side is ``min_side`` pixels or more (a smaller one cannot be read).

    >>> [t.box for t in readable([TileBox((0, 0, 10, 14), 0.9, False), TileBox((0, 0, 20, 28), 0.9, False)], 16)]
    [(0, 0, 20, 28)]
    """
    return [t for t in tiles if min(t.box[2] - t.box[0], t.box[3] - t.box[1]) >= min_side]


#: the least width and height, in image pixels, of a box kept from the localizer
MIN_BOX_PX = 1.0


def decode_yolo(
    output: np.ndarray,
    lb: Letterbox,
    conf: float = 0.25,
    iou: float = 0.6,
    image_size: tuple[int, int] | None = None,
    max_det: int = 300,
) -> list[TileBox]:
    """Turn a YOLO (v8/11 export) output ``[1, 4 + C, N]`` into tiles in image pixels."""
    pred = output[0].T  # [N, 4 + C]
    scores = pred[:, 4:]
    cls = scores.argmax(1)
    best = scores[np.arange(len(pred)), cls]
    mask = best >= conf
    if not mask.any():
        return []
    pred, cls, best = pred[mask], cls[mask], best[mask]
    xyxy = np.stack(
        [
            pred[:, 0] - pred[:, 2] / 2,
            pred[:, 1] - pred[:, 3] / 2,
            pred[:, 0] + pred[:, 2] / 2,
            pred[:, 1] + pred[:, 3] / 2,
        ],
        1,
    )
    keep = nms(xyxy, best, iou)[:max_det]  # class-agnostic: a tile is face up or down, not both
    boxes = lb.to_image(xyxy[keep])
    if image_size is not None:
        w, h = image_size
        boxes[:, [0, 2]] = boxes[:, [0, 2]].clip(0, w)
        boxes[:, [1, 3]] = boxes[:, [1, 3]].clip(0, h)
    # a box found in the letterbox's padding is empty once clipped to the photo: no tile
    seen = (boxes[:, 2] - boxes[:, 0] >= MIN_BOX_PX) & (boxes[:, 3] - boxes[:, 1] >= MIN_BOX_PX)
    return [
        TileBox((float(b[0]), float(b[1]), float(b[2]), float(b[3])), float(best[k]), bool(cls[k] == 1))
        for b, k, ok in zip(boxes, keep, seen, strict=True)
        if ok
    ]


Window = tuple[int, int, int, int]


def zoom_windows(
    boxes: np.ndarray,
    image_size: tuple[int, int],
    input_size: int,
    min_px: float,
    target_px: float,
    max_windows: int = 8,
    min_gain: float = 1.25,
    margin: float = 1.0,
) -> list[Window]:
    """Square windows (``x1, y1, x2, y2`` in image pixels) to localize again, closer, when the
    tiles found look smaller than ``min_px`` (median short side) in the localizer's input; none
    when they do not, or when the windows would not enlarge them by ``min_gain``.

    The windows cover the tiles (and ``margin`` tile lengths around them) in a grid, overlapping by two
    tile lengths so that every tile lies whole in one of them, each sized so that a median tile
    comes out ``target_px`` in the input, and at most ``max_windows`` of them (larger then).

    >>> wide_row = np.array([[100.0 + 20 * i, 500.0, 116.0 + 20 * i, 522.0] for i in range(14)])
    >>> zoom_windows(wide_row, (1280, 960), 384, 18.0, 28.0)  # 16 px tiles: 4.8 px in the input
    [(78, 478, 297, 697), (178, 478, 398, 697)]
    >>> near = np.array([[100.0 + 70 * i, 300.0, 164.0 + 70 * i, 386.0] for i in range(14)])
    >>> zoom_windows(near, (1280, 960), 384, 18.0, 28.0)  # 64 px tiles: 19.2 px, large enough
    []
    """
    if not len(boxes):
        return []
    w, h = image_size
    r = input_size / max(w, h)
    sides = np.stack([boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1]], axis=1)
    short, tile = float(np.median(sides.min(1))), float(np.median(sides.max(1)))
    if short * r >= min_px:
        return []
    pad = margin * tile
    x0, y0 = max(0.0, float(boxes[:, 0].min()) - pad), max(0.0, float(boxes[:, 1].min()) - pad)
    x1, y1 = min(float(w), float(boxes[:, 2].max()) + pad), min(float(h), float(boxes[:, 3].max()) + pad)
    overlap = 2.0 * tile
    side = max(input_size * short / target_px, 2.5 * overlap)

    def grid(side: float) -> tuple[int, int]:
        step = side - overlap
        return (max(1, math.ceil((x1 - x0 - overlap) / step)), max(1, math.ceil((y1 - y0 - overlap) / step)))

    nx, ny = grid(side)
    while nx * ny > max_windows:
        side *= 1.15
        nx, ny = grid(side)
    if max(w, h) / side < min_gain:
        return []
    xs = np.linspace(x0, max(x0, x1 - side), nx) if nx > 1 else np.array([x0])
    ys = np.linspace(y0, max(y0, y1 - side), ny) if ny > 1 else np.array([y0])
    return [(int(xa), int(ya), int(min(w, xa + side)), int(min(h, ya + side))) for ya in ys for xa in xs]


def _window(box: Sequence[float], margins: Sequence[float]) -> tuple[float, float, float, float]:
    """``box`` widened by ``margins`` (shares of the box: left, top, right, bottom), ``xa, ya, xb,
    yb`` with the last two a pixel on (exclusive once whole), not clipped to any image."""
    x1, y1, x2, y2 = (float(v) for v in box)
    bw, bh = x2 - x1, y2 - y1
    return x1 - bw * margins[0], y1 - bh * margins[1], x2 + bw * margins[2] + 1, y2 + bh * margins[3] + 1


def cut_window(
    box: Sequence[float],
    margins: tuple[float, float, float, float],
    image_size: tuple[int, int],
) -> tuple[int, int, int, int, bool]:
    """Where :func:`cut_tile` cuts (``xa, ya, xb, yb``, clipped to ``image_size`` = (w, h)) and
    whether it turns the crop clockwise (a landscape window)."""
    w, h = image_size
    xa_, ya_, xb_, yb_ = _window(box, margins)
    xa, ya, xb, yb = int(max(0, xa_)), int(max(0, ya_)), int(min(w, xb_)), int(min(h, yb_))
    return xa, ya, xb, yb, (xb - xa) > (yb - ya) * 1.15 and xb > xa and yb > ya


def cut_tile(
    bgr: np.ndarray, box: Sequence[float], margins: tuple[float, float, float, float] = (0.06, 0.06, 0.06, 0.06)
) -> np.ndarray:
    """The tile cut from the image at full resolution, its box widened by ``margins`` (fractions of
    the box: left, top, right, bottom), turned clockwise when the box is landscape.

    This is the one place crops are cut: the runtime and the renderer's training crops both use it,
    so the classifier trains on what it will see.
    """
    xa, ya, xb, yb, turned = cut_window(box, margins, (bgr.shape[1], bgr.shape[0]))
    crop = bgr[ya:yb, xa:xb]
    if turned:
        crop = cv2.rotate(crop, cv2.ROTATE_90_CLOCKWISE)
    return crop


def face_angles(orientation: np.ndarray, turned: Sequence[bool]) -> np.ndarray:
    """``[N, 3]``: the angle (degrees, 0 = up in the image, clockwise positive) the face's top
    points to, how sure the model is of top against bottom (0..1), and how sure it is of the
    face's axis (0..1), from the classifier's orientation output and whether each crop was turned.

    The axis comes from the doubled angle, and that estimate's length is the axis's certainty (a
    face that looks the same turned by 90°, a blank white dragon or a one of circles, regresses
    towards zero); of its two directions the one nearer the single-angle estimate is taken, and
    that estimate's length is the top's certainty (low for a face that looks the same upside down).

    >>> o = np.array([[1.0, 0.0, 0.0, -1.0]])  # top points right in the crop: a = 90°
    >>> face_angles(o, [False]).round(1).tolist(), face_angles(o, [True]).round(1).tolist()
    ([[90.0, 1.0, 1.0]], [[0.0, 1.0, 1.0]])
    """
    o = np.asarray(orientation, dtype=np.float64).reshape(-1, 4)
    axis = np.degrees(np.arctan2(o[:, 2], o[:, 3])) / 2  # in (-90, 90]
    single = np.degrees(np.arctan2(o[:, 0], o[:, 1]))
    flip = np.abs(((single - axis + 180) % 360) - 180) > 90
    angle = axis + np.where(flip, 180.0, 0.0) - np.where(np.asarray(turned, dtype=bool), 90.0, 0.0)
    angle = ((angle + 180) % 360) - 180
    sure = np.clip(np.hypot(o[:, 0], o[:, 1]), 0.0, 1.0)
    axis_sure = np.clip(np.hypot(o[:, 2], o[:, 3]), 0.0, 1.0)
    return np.stack([angle, sure, axis_sure], axis=1)


#: the margin the runtime cuts crops with (a share of the box on each side)
CROP_MARGIN = 0.06
#: the crops an unsure tile is read again from: (margin, shift along x, shift along y), shifts in
#: shares of the box's width and height
RECHECK_CROPS: tuple[tuple[float, float, float], ...] = (
    (0.02, 0.0, 0.0),
    (0.10, 0.0, 0.0),
    (0.06, 0.04, 0.0),
    (0.06, -0.04, 0.0),
    (0.06, 0.0, 0.04),
    (0.06, 0.0, -0.04),
)


#: a face's width over its height, to size a turned tile from its box (:func:`upright_tile`)
FACE_ASPECT = 0.75
#: the sizes an unsure tile with a known face angle is also cut upright at (:func:`upright_tile`),
#: in shares of the face's height estimated from its box: the box holds the tile's side and its
#: neighbours' corners too, so cuts a little larger than the face read best. With them, the
#: misread tiles of hands, melds, winning tiles, indicators and gari fell from 198 to 157 on the
#: 2,000 fresh renders 990015-19 (where the sizes were chosen) and from 267 to 217 on the 2,600
#: selection renders 990011-14
UPRIGHT_SCALES: tuple[float, ...] = (1.2, 1.35, 1.5)
#: a tile whose box this many others overlap lies in a heap or a pond, not in a row (two
#: neighbours): turned and cut wider, its crop holds more of the neighbours, which read worse
CROWDED_TOUCHING = 3


def _batch(tiles: Sequence[np.ndarray]) -> np.ndarray:
    """BGR crops of the classifier's size as its input ``[B, 3, H, W]``, RGB in 0..1."""
    return np.asarray(cv2.dnn.blobFromImages(tiles, 1.0 / 255.0, swapRB=True), np.float32)


def _touching(boxes: Sequence[Sequence[float]], i: int) -> int:
    """How many other boxes overlap box ``i``."""
    x1, y1, x2, y2 = boxes[i]
    return sum(
        1
        for j, (a1, b1, a2, b2) in enumerate(boxes)
        if j != i and min(x2, a2) > max(x1, a1) and min(y2, b2) > max(y1, b1)
    )


def inside_frame(box: Sequence[float], shape: tuple[int, ...], edge: float) -> bool:
    """Whether ``box`` keeps ``edge`` pixels from the frame of an image of ``shape`` (h, w, ...).

    >>> inside_frame((1.0, 5.0, 20.0, 30.0), (40, 60, 3), 1.0), inside_frame((0.5, 5.0, 20.0, 30.0), (40, 60, 3), 1.0)
    (True, False)
    """
    x1, y1, x2, y2 = box
    return x1 >= edge and y1 >= edge and x2 <= shape[1] - edge and y2 <= shape[0] - edge


def upright_tile(
    bgr: np.ndarray,
    box: Sequence[float],
    angle_deg: float,
    size: tuple[int, int],
    scale: float = 1.35,
    margin: float = CROP_MARGIN,
) -> np.ndarray:
    """The tile turned so that its face's top (``angle_deg``: 0 = up, clockwise positive) points
    up, cut at ``size`` = (width, height), the classifier's input: a tile at 45° fills its box's
    corners with felt and neighbours, and reads better turned upright.

    The face's height ``h`` comes from the box and the angle (a ``FACE_ASPECT`` face turned by
    ``a`` spans ``h (r |cos a| + |sin a|)`` by ``h (r |sin a| + |cos a|)``); the cut is
    ``scale`` times the face, plus ``margin`` each side.

    >>> img = np.zeros((100, 100, 3), np.uint8); img[45:55, 35:65] = 255  # a bar lying across
    >>> out = upright_tile(img, (30, 30, 70, 70), 90.0, (30, 40))[:, :, 0] > 128
    >>> int(out.any(axis=0).sum()) < int(out.any(axis=1).sum())  # standing: narrower than tall
    True
    """
    x1, y1, x2, y2 = box
    cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
    a = math.radians(angle_deg)
    c, s = abs(math.cos(a)), abs(math.sin(a))
    h = scale * ((x2 - x1) + (y2 - y1)) / ((FACE_ASPECT + 1) * (c + s))
    cut_w, cut_h = FACE_ASPECT * h * (1 + 2 * margin), h * (1 + 2 * margin)
    turn = cv2.getRotationMatrix2D((cx, cy), angle_deg, 1.0)  # counter-clockwise by the face's angle
    turn[0, 2] += cut_w / 2 - cx
    turn[1, 2] += cut_h / 2 - cy
    out = cv2.warpAffine(
        bgr, turn, (max(2, round(cut_w)), max(2, round(cut_h))), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
    )
    return cv2.resize(out, size, interpolation=cv2.INTER_AREA)


#: how many of a cut tile's nearest whole neighbours give the tile's shape (:func:`whole_tile_box`)
WHOLE_NEIGHBOURS = 4


def whole_tile_box(
    boxes: Sequence[Sequence[float]],
    i: int,
    image_size: tuple[int, int],
    edge: float,
) -> tuple[float, float, float, float] | None:
    """The box tile ``i`` would have whole, when the frame (``image_size`` = (w, h)) cuts it on
    one side only (its box within ``edge`` pixels of that side): the cut side lengthened beyond
    the frame to the long-to-short ratio of its nearest whole neighbours. A tile the frame cuts
    short stands upright when what is left is longer than a lying tile, else lies as its nearest
    neighbour lies. ``None`` for a tile not cut, cut on two sides, or with no whole neighbour.

    >>> row = [(10.0 + 40 * k, 100.0, 46.0 + 40 * k, 148.0) for k in range(4)]  # 36×48 tiles
    >>> whole_tile_box([*row, (170.0, 0.0, 206.0, 30.0)], 4, (400, 300), 2.0)  # its top 18 px cut
    (170.0, -18.0, 206.0, 30.0)
    """
    w, h = image_size
    x1, y1, x2, y2 = (float(v) for v in boxes[i])
    cut_x = x1 < edge or x2 > w - edge  # as :func:`inside_frame` judges, side by side
    cut_y = y1 < edge or y2 > h - edge
    if cut_x == cut_y:
        return None
    cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
    whole = [b for j, b in enumerate(boxes) if j != i and inside_frame(b, (h, w), edge)]
    if not whole:
        return None
    whole.sort(key=lambda b: ((b[0] + b[2]) / 2 - cx) ** 2 + ((b[1] + b[3]) / 2 - cy) ** 2)
    near = whole[:WHOLE_NEIGHBOURS]
    ratio = float(np.median([max(b[2] - b[0], b[3] - b[1]) / max(1e-6, min(b[2] - b[0], b[3] - b[1])) for b in near]))
    near_lies = (near[0][2] - near[0][0]) > (near[0][3] - near[0][1]) * 1.15
    bw, bh = x2 - x1, y2 - y1
    if cut_x:  # its height is whole: the width it would have standing, or lying
        stands, lies = bh / ratio, bh * ratio
        full = lies if bw > stands * 1.05 or near_lies else stands
        if full <= bw:
            return None
        return (x2 - full, y1, x2, y2) if x1 < edge else (x1, y1, x1 + full, y2)
    stands, lies = bw * ratio, bw / ratio
    full = stands if bh > lies * 1.05 or not near_lies else lies
    if full <= bh:
        return None
    return (x1, y2 - full, x2, y2) if y1 < edge else (x1, y1, x2, y1 + full)


def cut_beyond(bgr: np.ndarray, box: Sequence[float], margin: float = CROP_MARGIN) -> np.ndarray:
    """:func:`cut_tile` for a box reaching beyond the frame: the part outside filled with the
    frame's edge pixels (repeated), so the tile keeps its shape and its face its place."""
    xa, ya, xb, yb = (math.floor(v) for v in _window(box, (margin,) * 4))
    h, w = bgr.shape[:2]
    inner = bgr[max(0, ya) : min(h, yb), max(0, xa) : min(w, xb)]
    if inner.size == 0:
        return inner
    crop = cv2.copyMakeBorder(inner, max(0, -ya), max(0, yb - h), max(0, -xa), max(0, xb - w), cv2.BORDER_REPLICATE)
    if (xb - xa) > (yb - ya) * 1.15:
        crop = cv2.rotate(crop, cv2.ROTATE_90_CLOCKWISE)
    return crop


def crop_tile(bgr: np.ndarray, box: Sequence[float], size: tuple[int, int], margin: float = CROP_MARGIN) -> np.ndarray:
    """:func:`cut_tile` resized to ``size`` = (width, height), the classifier's input."""
    crop = cut_tile(bgr, box, (margin,) * 4)
    if crop.size == 0:
        return np.zeros((size[1], size[0], 3), np.uint8)
    return cv2.resize(crop, size, interpolation=cv2.INTER_AREA)


#: the share of a five's probability its other colour keeps once :func:`settle_red_fives` decided it:
#: a second choice for the reading (a set holds few red fives), not a rival
OTHER_COLOUR_SHARE = 0.05


def settle_red_fives(probs: np.ndarray, min_share: float) -> int:
    """Decide each five's colour apart from its kind, in ``probs`` (in place, ``[N, >= 37]``): a
    tile whose best class is a five, red or plain, is its red five when the red holds at least
    ``min_share`` of the two's probability, else its plain five (a plain five read as red adds a
    han silently: a set whose plain 5m has a red 萬 and a dark red 伍). The chosen colour takes the
    two's probability but :data:`OTHER_COLOUR_SHARE` of it, left to the other: how sure the tile is
    of its kind is not lessened by doubt about its colour. How many were read red by the
    classifier and plain here. ``min_share`` 0 leaves ``probs`` as they are.

    >>> p = np.zeros((3, 38)); p[0, [4, 34]] = 0.3, 0.7; p[1, [13, 35]] = 0.05, 0.95; p[2, [22, 36]] = 0.8, 0.2
    >>> settle_red_fives(p, 0.85), p[0, [4, 34]].tolist(), p[1, [13, 35]].tolist(), p[2, [22, 36]].tolist()
    (1, [0.95, 0.05], [0.05, 0.95], [0.95, 0.05])
    """
    if not len(probs) or min_share <= 0:
        return 0
    best = probs.argmax(1)
    to_plain = 0
    for plain, red in RED_OF_FIVE.items():
        rows = np.flatnonzero((best == red) | (best == plain))
        if not len(rows):
            continue
        pair = probs[rows, red] + probs[rows, plain]
        is_red = probs[rows, red] >= min_share * pair
        to_plain += int(((best[rows] == red) & ~is_red).sum())
        other = pair * OTHER_COLOUR_SHARE
        probs[rows, red] = np.where(is_red, pair - other, other)
        probs[rows, plain] = np.where(is_red, other, pair - other)
    return to_plain


def softmax(logits: np.ndarray) -> np.ndarray:
    z = logits - logits.max(1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(1, keepdims=True)


def make_session(path: Path, threads: int = 1) -> Any:
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = 1
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    # Idle workers sleep instead of spinning: each session has its own pool, and on a 2-core
    # machine the localizer's spinning worker took the core the classifier's needed (two threads
    # read a 12 MP photo in 110-122 ms spinning, 82 ms not; one thread: 93 ms either way)
    opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return ort.InferenceSession(str(path), sess_options=opts, providers=["CPUExecutionProvider"])


class Localizer:
    """The tile localizer: one reused session; ``size`` is read from the model's input shape."""

    def __init__(self, path: Path, threads: int = 1, conf: float = 0.3, iou: float = 0.6) -> None:
        self.session = make_session(path, threads)
        inp = self.session.get_inputs()[0]
        self.input_name = inp.name
        self.size = int(inp.shape[2]) if isinstance(inp.shape[2], int) else 416
        #: whether the model takes several images at once (a symbolic batch dimension): the zoom's
        #: windows then go through in one run (two threads: two windows 23 ms against 28 ms one by
        #: one, four 51 against 64; in the whole pipeline the zoom's median fell about 2 ms)
        self.batched = not isinstance(inp.shape[0], int)
        self.conf, self.iou = conf, iou

    def __call__(self, bgr: np.ndarray, floor: float | None = None) -> list[TileBox]:
        return self.each([bgr], floor)[0]

    def each(self, images: Sequence[np.ndarray], floor: float | None = None) -> list[list[TileBox]]:
        """The tiles of each image: in one run when the model is :attr:`batched`, else one by one.
        ``floor``: keep boxes down to this confidence (under :attr:`conf` too; the caller tells them
        apart). The boxes at :attr:`conf` or more are the same either way: a weaker box suppresses
        none of them."""
        inputs = [letterbox(bgr, self.size) for bgr in images]
        if self.batched and len(inputs) > 1:
            (out,) = self.session.run(None, {self.input_name: np.concatenate([x for x, _ in inputs])})
            outs = [out[i : i + 1] for i in range(len(inputs))]
        else:
            outs = [self.session.run(None, {self.input_name: x})[0] for x, _ in inputs]
        conf = self.conf if floor is None else min(floor, self.conf)
        return [
            decode_yolo(o, lb, conf, self.iou, image_size=(bgr.shape[1], bgr.shape[0]))
            for o, (_, lb), bgr in zip(outs, inputs, images, strict=True)
        ]

    def in_windows(
        self, bgr: np.ndarray, windows: Sequence[Window], edge: float = 2.0, floor: float | None = None
    ) -> list[TileBox]:
        """The tiles of ``bgr`` found window by window (see :func:`zoom_windows`), in image pixels.
        A box touching a window's edge inside the photo is a cut tile and is dropped (the overlap
        shows it whole in a neighbour); the rest are merged by non-maximum suppression."""
        h, w = bgr.shape[:2]
        found: list[TileBox] = []
        seen = self.each([bgr[ya:yb, xa:xb] for xa, ya, xb, yb in windows], floor)
        for (xa, ya, xb, yb), tiles in zip(windows, seen, strict=True):
            for t in tiles:
                bx = t.box
                if (
                    (bx[0] <= edge and xa > 0)
                    or (bx[1] <= edge and ya > 0)
                    or (bx[2] >= xb - xa - edge and xb < w)
                    or (bx[3] >= yb - ya - edge and yb < h)
                ):
                    continue
                found.append(TileBox((bx[0] + xa, bx[1] + ya, bx[2] + xa, bx[3] + ya), t.confidence, t.face_down))
        if not found:
            return []
        keep = nms(np.array([t.box for t in found]), np.array([t.confidence for t in found]), self.iou)
        return [found[k] for k in keep]


class Classifier:
    """The face classifier over upright crops; returns class probabilities ``[N, 38]`` (contract
    ids; the back's column stays 0 for a model without it, see :attr:`has_back`)."""

    def __init__(self, path: Path, threads: int = 1, batch: int = 32) -> None:
        self.session = make_session(path, threads)
        inp = self.session.get_inputs()[0]
        self.input_name = inp.name
        self.height, self.width = int(inp.shape[2]), int(inp.shape[3])
        self.batch = batch
        meta = self.session.get_modelmeta().custom_metadata_map
        self.classes: list[int] = json.loads(meta["classes"]) if "classes" in meta else list(range(N_FACE_CLASSES))

    def crops(
        self, bgr: np.ndarray, boxes: Sequence[Sequence[float]], margins: Sequence[float] | None = None
    ) -> np.ndarray:
        if not boxes:
            return np.zeros((0, 3, self.height, self.width), np.float32)
        ms = margins if margins is not None else [CROP_MARGIN] * len(boxes)
        tiles = [crop_tile(bgr, b, (self.width, self.height), m) for b, m in zip(boxes, ms, strict=True)]
        return _batch(tiles)

    def _logits(self, x: np.ndarray) -> list[list[np.ndarray]]:
        return [self.session.run(None, {self.input_name: x[i : i + self.batch]}) for i in range(0, len(x), self.batch)]

    def recheck(
        self,
        bgr: np.ndarray,
        boxes: Sequence[Sequence[float]],
        probs: np.ndarray,
        below: float,
        limit: int = 12,
        angles: Sequence[float] | np.ndarray | None = None,
    ) -> int:
        """Read again, from :data:`RECHECK_CROPS` (the crop a little wider, tighter and shifted,
        as the training's crops were jittered), the tiles whose best class is under ``below`` (the
        ``limit`` least sure of them: a tray of unfamiliar tiles must not cost seconds), and
        average their probabilities in ``probs`` (in place); how many were read again.

        Given the faces' ``angles`` (degrees, as :func:`face_angles`), each such tile is also cut
        upright at :data:`UPRIGHT_SCALES` (:func:`upright_tile`), and the mean of those readings
        counts as much as the box's crops together; not a tile the frame cuts, nor one in a heap
        (:data:`CROWDED_TOUCHING`)."""
        best = probs.max(1)
        low = sorted((i for i in range(len(boxes)) if best[i] < below), key=lambda i: float(best[i]))[:limit]
        if not low:
            return 0
        shifted, margins = [], []
        for i in low:
            x1, y1, x2, y2 = boxes[i]
            w, h = x2 - x1, y2 - y1
            for m, dx, dy in RECHECK_CROPS:
                shifted.append((x1 + dx * w, y1 + dy * h, x2 + dx * w, y2 + dy * h))
                margins.append(m)
        x = self.crops(bgr, shifted, margins)
        # a tile the frame cuts is not turned: its box is not the tile's, and the cut would fill
        # the missing part with the edge's pixels
        inside = (
            []
            if angles is None
            else [i for i in low if inside_frame(boxes[i], bgr.shape, 1.0) and _touching(boxes, i) < CROWDED_TOUCHING]
        )
        if angles is not None and inside:
            turned = [
                upright_tile(bgr, boxes[i], float(angles[i]), (self.width, self.height), scale)
                for i in inside
                for scale in UPRIGHT_SCALES
            ]
            x = np.concatenate([x, _batch(turned)])
        p = softmax(np.concatenate([r[0] for r in self._logits(x)]))
        boxed = p[: len(shifted)].reshape(len(low), len(RECHECK_CROPS), p.shape[1])
        upright = dict(
            zip(inside, p[len(shifted) :].reshape(len(inside), len(UPRIGHT_SCALES), p.shape[1]), strict=True)
        )
        for n, i in enumerate(low):
            mean = (probs[i, self.classes] + boxed[n].sum(0)) / (1 + len(RECHECK_CROPS))
            probs[i, self.classes] = (mean + upright[i].mean(0)) / 2 if i in upright else mean
        return len(low)

    def __call__(self, bgr: np.ndarray, boxes: Sequence[Sequence[float]]) -> np.ndarray:
        return self.classify(bgr, boxes)[0]

    @property
    def reads_not_a_tile(self) -> bool:
        """Whether the model has the :data:`NOT_A_TILE` output."""
        return NOT_A_TILE in self.classes

    @property
    def has_back(self) -> bool:
        """Whether the model reads face-down tiles too (then it, not the localizer, decides them)."""
        return BACK in self.classes

    @property
    def has_orientation(self) -> bool:
        return len(self.session.get_outputs()) > 1

    def classify(
        self,
        bgr: np.ndarray,
        boxes: Sequence[Sequence[float]],
        recheck_below: float = 0.0,
        recheck_limit: int = 12,
        whole: Sequence[Sequence[float] | None] | None = None,
    ) -> tuple[np.ndarray, np.ndarray | None]:
        """Class probabilities ``[N, 38]`` by contract id and, when the model has the output, the
        faces' angles ``[N, 3]`` (see :func:`face_angles`), else ``None``. Up to ``recheck_limit``
        tiles read with less than ``recheck_below`` are read again from more crops (:meth:`recheck`).
        ``whole``: per box, the box the tile would have whole where the frame cuts it (see
        :func:`whole_tile_box`), else ``None``; such a tile is read too from a crop of its whole
        size (:meth:`read_whole`). A row sums to one less the share the model gives
        :data:`NOT_A_TILE`."""
        x = self.crops(bgr, boxes)
        if not len(x):
            return np.zeros((0, N_CLASSES), np.float32), (np.zeros((0, 3)) if self.has_orientation else None)
        runs = self._logits(x)
        probs = np.zeros((len(x), max(N_CLASSES, max(self.classes) + 1)), np.float32)
        probs[:, self.classes] = softmax(np.concatenate([r[0] for r in runs]))
        angles = None
        if self.has_orientation:
            size = (bgr.shape[1], bgr.shape[0])
            turned = [cut_window(b, (CROP_MARGIN,) * 4, size)[4] for b in boxes]
            angles = face_angles(np.concatenate([r[1] for r in runs]), turned)
        if recheck_below > 0:
            self.recheck(bgr, boxes, probs, recheck_below, recheck_limit, None if angles is None else angles[:, 0])
        if whole is not None:
            self.read_whole(bgr, whole, probs)
        return np.ascontiguousarray(probs[:, :N_CLASSES]), angles

    def read_whole(self, bgr: np.ndarray, whole: Sequence[Sequence[float] | None], probs: np.ndarray) -> int:
        """Read each tile the frame cuts from a crop of its ``whole`` box too (:func:`cut_beyond`),
        and keep in ``probs`` (in place) the surer of its two readings; how many were read so.

        A cut tile's crop is its visible part stretched to a whole tile's shape, which moves and
        squeezes what is left of the face; cut at its whole size, the face keeps its shape and
        place, and reads surer where enough of it shows."""
        cut = [(i, c) for i, b in enumerate(whole) if b is not None and (c := cut_beyond(bgr, b)).size]
        if not cut:
            return 0
        x = _batch([cv2.resize(c, (self.width, self.height), interpolation=cv2.INTER_AREA) for _, c in cut])
        p = softmax(np.concatenate([r[0] for r in self._logits(x)]))
        for (i, _), row in zip(cut, p, strict=True):
            if row.max() > probs[i, self.classes].max():
                probs[i, self.classes] = row
        return len(cut)
