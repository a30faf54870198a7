"""The detections' geometry: centres, sizes, face angles, boxes de-rotated along a row, distances, and one
tile's second box (duplicates)."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from paiscan.scoring.tiles import BACK, kind
from paiscan.vision.detection import Detection
from paiscan.vision.layout.results import SHORT_OVER_LONG, Row, RowTile

#: half-width of a row band when refined on its members' principal axis, in tile sizes
ROW_REFINE_TOL = 0.35
#: |cos 2θ| below this (θ within ~7° of 45°): box sides cannot be de-rotated
DEGENERATE_COS2 = 0.25
#: a tile apart or a stacked tile is this many times the hand's tile size (min, max)
SIZE_RATIO = (0.6, 1.7)
#: faces that look alike upside down in common tile art: the classifier's certainty of their top counts less
SAME_UPSIDE_DOWN = frozenset({9, 10, 11, 12, 13, 16, 17, 19, 21, 25, 26, 31, 35})
#: the share of the classifier's certainty of a face's top that counts for ``TOP_DOUBTED`` faces
SAME_UPSIDE_DOWN_SURE = 0.5
#: faces whose top the classifier's certainty counts only ``SAME_UPSIDE_DOWN_SURE`` of: those and the 6 of bamboos
TOP_DOUBTED = SAME_UPSIDE_DOWN | {23}
#: tiles apart whose centres are this many tile widths apart touch (side by side ~1.05, one above
#: the other ~1.35)
CLUSTER_UNITS = 1.6
#: two boxes overlapping by this IoU or more are one tile detected twice (the less confident is dropped)
DUPLICATE_IOU = 0.4
#: ... or lies in it by this share of the smaller box: a second, shifted box on one tile of a
#: closed kan (IoU 0.42, 0.67 of it inside) broke the kan; neighbours on a 45° row overlap far less
DUPLICATE_INSIDE = 0.65
#: ... such a box on the hand's line, up to this many tile widths past its ends, is taken as a
#: tile after all when the row's count fits no hand (:func:`row_duplicates`)
READMIT_BEYOND = 1.5
#: ... and one read as the row tile it overlaps is a tile too when it lies in a hole of the row:
#: its neighbours this many pitches apart, it this share of one from the nearer
READMIT_HOLE = 1.3
#: ... and at least this share of a pitch from the nearer neighbour (or past an end)
READMIT_OFFSET = 0.25


@dataclass
class _Line:
    members: list[int]
    direction: np.ndarray
    point: np.ndarray
    stacked: dict[int, int]


def _principal(pts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    centre = pts.mean(axis=0)
    if len(pts) < 2:
        return np.array([1.0, 0.0]), centre
    cov = np.cov((pts - centre).T)
    w, vec = np.linalg.eigh(cov)
    d = vec[:, int(np.argmax(w))]
    return d / np.linalg.norm(d), centre


def _canonical(d: np.ndarray) -> np.ndarray:
    """The sign of a direction with x > 0 (or y > 0 for a vertical one)."""
    if d[0] < -1e-6 or (abs(d[0]) <= 1e-6 and d[1] < 0):
        return -d
    return d


def _extents(w: np.ndarray, h: np.ndarray, d: np.ndarray) -> tuple[np.ndarray, np.ndarray, bool]:
    """Tile extents along and across the direction ``d`` from axis-aligned box sides.

    A ``a × b`` rectangle turned by θ has a box ``W = a|cos| + b|sin|``, ``H = a|sin| + b|cos|``.
    """
    c, s = abs(float(d[0])), abs(float(d[1]))
    det = c * c - s * s
    if abs(det) < DEGENERATE_COS2:  # near 45°: assume an upright 3:4 tile, (a + b)² = 2·W·H
        g = np.sqrt(2.0 * w * h) / (1.0 + 1.0 / SHORT_OVER_LONG)
        return g, g / SHORT_OVER_LONG, True
    along = (c * w - s * h) / det
    across = (c * h - s * w) / det
    floor = 0.15 * np.maximum(w, h)
    return np.maximum(along, floor), np.maximum(across, floor), False


def _percentile(values: Sequence[float], q: float) -> float:
    """``np.percentile`` (linear) for a short list, without numpy's per-call overhead."""
    xs = sorted(values)
    pos = (len(xs) - 1) * q / 100.0
    lo = int(pos)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


def _face_top(angle_deg: float) -> np.ndarray:
    """The unit vector (image x right, y down) a face's top points along, from its angle (0 = up,
    clockwise)."""
    a = math.radians(angle_deg)
    return np.array([math.sin(a), -math.cos(a)])


def _axis_gap(a: Any, b: Any) -> Any:
    """The angle between two axes (degrees in, 0..90 out; numbers or arrays): a face and its
    upside-down are one axis."""
    return np.abs(((a - b + 90.0) % 180.0) - 90.0)


@dataclass
class _Geo:
    dets: tuple[Detection, ...]
    pts: np.ndarray
    w: np.ndarray
    h: np.ndarray
    size: np.ndarray
    flags: np.ndarray
    backs: np.ndarray
    #: the face's angle (degrees, NaN: unknown) and the certainty of its top
    angles: np.ndarray
    sure: np.ndarray
    #: :func:`_row_tiles` of each line seen, with and without gaps (lines are measured again and again as they are cut)
    rows_seen: dict[tuple[Any, ...], tuple[list[RowTile], float, bool]] = field(default_factory=dict)


def _geo(dets: Sequence[Detection]) -> _Geo:
    boxes = np.array([d.box for d in dets], dtype=float).reshape(-1, 4)
    w, h = boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1]
    pts = np.stack([(boxes[:, 0] + boxes[:, 2]) / 2, (boxes[:, 1] + boxes[:, 3]) / 2], axis=1)
    angles = np.array([np.nan if d.face_angle is None or d.cls == BACK else d.face_angle for d in dets], dtype=float)
    return _Geo(
        tuple(dets),
        pts,
        w,
        h,
        np.sqrt(w * h),
        np.array([d.rotated for d in dets], dtype=bool),
        np.array([d.cls == BACK for d in dets], dtype=bool),
        angles,
        np.array([d.face_sure * (SAME_UPSIDE_DOWN_SURE if d.cls in TOP_DOUBTED else 1.0) for d in dets], dtype=float),
    )


def _duplicates(dets: Sequence[Detection]) -> set[int]:
    """Boxes overlapping a more confident one by ``DUPLICATE_IOU``, or lying in it by
    ``DUPLICATE_INSIDE`` of the smaller box (one tile detected twice): the most confident first, a
    box already taken for a duplicate taking no other."""
    order = sorted(range(len(dets)), key=lambda i: -dets[i].confidence)
    if len(order) < 2:
        return set()
    x1, y1, x2, y2 = np.array([dets[i].box for i in order], dtype=float).T
    iw = np.minimum(x2[:, None], x2[None, :]) - np.maximum(x1[:, None], x1[None, :])
    ih = np.minimum(y2[:, None], y2[None, :]) - np.maximum(y1[:, None], y1[None, :])
    area = (x2 - x1) * (y2 - y1)
    inter = iw * ih
    meet = (iw > 0) & (ih > 0)
    with np.errstate(divide="ignore", invalid="ignore"):  # only pairs that meet are read, whose areas are > 0
        iou = inter / (area[:, None] + area[None, :] - inter)
        share = inter / np.minimum(area[:, None], area[None, :])
    # covers[k, m]: the k-th most confident box takes the m-th (m after k) for its second box
    covers = np.triu(meet & ((iou >= DUPLICATE_IOU) | (share >= DUPLICATE_INSIDE)), 1)
    taken = np.zeros(len(order), dtype=bool)
    for k in np.nonzero(covers.any(axis=1))[0]:
        if not taken[k]:
            taken |= covers[k]
    return {order[k] for k in np.nonzero(taken)[0]}


def _clusters(g: _Geo, idx: Sequence[int], unit: float) -> tuple[tuple[int, ...], ...]:
    """Touching tiles (centres within ``CLUSTER_UNITS`` tile widths) grouped, in input order."""
    if not idx:
        return ()
    pts = g.pts[list(idx)]
    touch = np.linalg.norm(pts[:, None, :] - pts[None, :, :], axis=2) <= CLUSTER_UNITS * unit
    group = [-1] * len(idx)
    for first in range(len(idx)):  # each tile not yet grouped starts a group: all it reaches
        if group[first] >= 0:
            continue
        group[first], todo = first, [first]
        while todo:
            for k in np.flatnonzero(touch[todo.pop()]).tolist():
                if group[k] < 0:
                    group[k] = first
                    todo.append(k)
    out: dict[int, list[int]] = {}
    for k, i in enumerate(idx):
        out.setdefault(group[k], []).append(i)
    return tuple(tuple(v) for v in out.values())


def _line_spread(g: _Geo, group: Sequence[int]) -> float:
    """How far the centres of ``group`` stray from the best line through them, in tile sizes (0
    for fewer than three)."""
    if len(group) < 3:
        return 0.0
    pts = g.pts[list(group)]
    centred = pts - pts.mean(axis=0)
    _, _, vt = np.linalg.svd(centred, full_matrices=False)
    return float(np.abs(centred @ vt[1]).max()) / float(np.median(g.size[list(group)]))


def _mean_top(g: _Geo, dets: Iterable[int], min_sure: float = 0.0) -> np.ndarray | None:
    """The mean of the face-top vectors of ``dets`` with a known angle, whose top the classifier
    is at least ``min_sure`` of (None: none known)."""
    tops = [_face_top(float(g.angles[j])) for j in dets if not np.isnan(g.angles[j]) and g.sure[j] >= min_sure]
    return np.mean(tops, axis=0) if tops else None


def _nearest(g: _Geo, a: Iterable[int], b: Iterable[int], ref_size: float | None = None) -> float:
    """The least distance between the centres of two groups of detections; with ``ref_size``, each
    pair's measured in tiles of that size (scaled by the pair's mean size: farther tiles are
    smaller, and so are the gaps between them)."""
    ia, ib = sorted(a), sorted(b)
    dist = np.linalg.norm(g.pts[ia][:, None, :] - g.pts[ib][None, :, :], axis=2)
    if ref_size is not None:
        dist = dist * (2.0 * ref_size / (g.size[ia][:, None] + g.size[ib][None, :]))
    return float(np.min(dist))


def _least_distances(g: _Geo, group: Iterable[int], to: Sequence[int] | slice) -> np.ndarray:
    """Each of the detections ``to``'s least distance from a tile of ``group`` (pixels), as
    :func:`_nearest` measures a pair."""
    return np.linalg.norm(g.pts[sorted(group)][:, None, :] - g.pts[to][None, :, :], axis=2).min(axis=0)


def _take_near(
    g: _Geo, pool: list[int], into: list[int], reach: list[int], within: float, admits: Callable[[int], bool]
) -> None:
    """Move tiles from ``pool`` to ``into`` while one lies within ``within`` pixels of ``reach``
    (which grows with them) and ``admits`` it; ``pool`` is gone through in its order, again and
    again until a pass takes none."""
    if not reach or not pool:
        return
    # each pool tile's least distance to ``reach``, kept up to date as it grows
    least = dict(zip(pool, _least_distances(g, reach, pool), strict=True))
    grew = True
    while grew:
        grew = False
        for j in list(pool):
            if float(least[j]) <= within and admits(j):
                into.append(j)
                pool.remove(j)
                if reach is not into:
                    reach.append(j)
                grew = True
                if pool:
                    from_j = np.linalg.norm(g.pts[pool] - g.pts[j], axis=1)
                    for i, d in zip(pool, from_j, strict=True):
                        least[i] = min(least[i], d)


def _share_inside(a: Detection, b: Detection) -> float:
    """The share of ``a``'s box that lies in ``b``'s."""
    iw = min(a.box[2], b.box[2]) - max(a.box[0], b.box[0])
    ih = min(a.box[3], b.box[3]) - max(a.box[1], b.box[1])
    return iw * ih / ((a.box[2] - a.box[0]) * (a.box[3] - a.box[1])) if iw > 0 and ih > 0 else 0.0


def _overlap(a: Detection, b: Detection) -> bool:
    """Whether two boxes overlap at all."""
    return _share_inside(a, b) > 0.0


def second_boxes_on(dets: Sequence[Detection], tiles: Sequence[int]) -> list[int]:
    """The boxes taken for a second box of a tile (:func:`_duplicates`) that overlap one of
    ``tiles`` and read as the same kind: on a pon, the fourth tile of a kan whose boxes overlap, in
    the photo, as one tile's two boxes do."""
    kinds = {kind(dets[i].cls) for i in tiles if dets[i].cls != BACK}
    return [
        j
        for j in sorted(_duplicates(dets))
        if j not in tiles
        and dets[j].cls != BACK
        and kind(dets[j].cls) in kinds
        and any(_overlap(dets[j], dets[i]) for i in tiles)
    ]


def row_duplicates(dets: Sequence[Detection], row: Row) -> frozenset[int]:
    """The detections taken for a second box of a tile (:func:`_duplicates`) that lie on ``row``'s
    line (within ``ROW_REFINE_TOL`` tile sizes across it, at most ``READMIT_BEYOND`` tile widths
    past its ends) and read as another tile than every row tile they overlap, or lie in a hole of
    the row (:func:`_in_a_hole`: two equal tiles side by side): seen steeply, neighbours in a
    packed row overlap in the photo as much as one tile's two boxes do, and the row then lacks a
    tile; or lie past an end of the row (:func:`_past_an_end`: a tile the frame cuts). For the
    reader's last resort when the row's count fits no hand."""
    if not row.tiles or len(dets) < 2:
        return frozenset()
    g = _geo(dets)
    inside = {t.det for t in row.tiles} | {t.stacked for t in row.tiles if t.stacked is not None}
    candidates = [j for j in sorted(_duplicates(dets)) if j not in inside and dets[j].cls != BACK]
    if not candidates:
        return frozenset()
    members = [t.det for t in row.tiles]
    d = np.array(row.direction)
    normal = np.array([-d[1], d[0]])
    point = g.pts[members].mean(axis=0)
    u = (g.pts[members] - point) @ d
    size = float(np.median(g.size[members]))
    pitch = float(np.median(np.diff(np.sort(u)))) if len(u) > 1 else row.unit
    out = set()
    for j in candidates:
        rel = g.pts[j] - point
        along = float(rel @ d)
        if (
            abs(float(rel @ normal)) <= ROW_REFINE_TOL * size
            and u.min() - READMIT_BEYOND * row.unit <= along <= u.max() + READMIT_BEYOND * row.unit
            and (
                not any(dets[i].cls == dets[j].cls and _overlap(dets[i], dets[j]) for i in inside)
                or _in_a_hole(u, along, pitch)
                or _past_an_end(u, along, pitch)
            )
        ):
            out.add(j)
    return frozenset(out)


def _past_an_end(u: np.ndarray, along: float, pitch: float) -> bool:
    """``along`` lies past an end of the row's tiles (at ``u``) by at least ``READMIT_OFFSET`` of
    a pitch: a tile the frame cuts beyond the row's last one gets a clipped box that lies mostly
    inside its neighbour's, but off its centre (a tile's second box lies on the tile).

    >>> u = np.array([0.0, 1.0, 2.0])
    >>> _past_an_end(u, -0.4, 1.0), _past_an_end(u, 2.3, 1.0), _past_an_end(u, 2.1, 1.0)
    (True, True, False)
    """
    return along <= float(u.min()) - READMIT_OFFSET * pitch or along >= float(u.max()) + READMIT_OFFSET * pitch


def _in_a_hole(u: np.ndarray, along: float, pitch: float) -> bool:
    """``along`` lies where the row's tiles (at ``u``) leave room for one more: its neighbours on
    either side at least ``READMIT_HOLE`` pitches apart, and it at least ``READMIT_OFFSET`` of one
    from the nearer (a tile's second box lies on the tile).

    >>> u = np.array([0.0, 1.0, 2.0, 3.6, 4.6])
    >>> _in_a_hole(u, 2.8, 1.0), _in_a_hole(u, 2.1, 1.0), _in_a_hole(u, 0.5, 1.0)
    (True, False, False)
    """
    left, right = u[u < along], u[u > along]
    if not len(left) or not len(right):
        return False
    lo, hi = float(left.max()), float(right.min())
    return hi - lo >= READMIT_HOLE * pitch and min(along - lo, hi - along) >= READMIT_OFFSET * pitch
