"""Stacked tiles (an added kan): a sideways tile lying on a sideways tile of the row."""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

import numpy as np

from paiscan.scoring.tiles import BACK, kind
from paiscan.vision.detection import ROUND_FACES, Detection
from paiscan.vision.layout.geometry import SIZE_RATIO, _axis_gap, _extents, _face_top, _Geo, _Line
from paiscan.vision.layout.results import RowTile
from paiscan.vision.layout.sideways import _row_tiles, _side_margins, _sideways

#: a stacked tile lies within this share of its base's length along the row, ``STACK_V_MIN`` to ``STACK_V_MAX`` base
#: widths across
STACK_U_TOL = 0.4
#: (see ``STACK_U_TOL``) the least across-row distance, in base widths
STACK_V_MIN = 0.25
#: (see ``STACK_U_TOL``) the most across-row distance, in base widths
STACK_V_MAX = 1.6
#: ... from this share of its width on for a box set aside as the base's second box, up to ``STACK_SECOND_SIZE``
STACK_V_MIN_SECOND = 0.15
#: a face-up tile whose face's axis lies this near a sideways neighbour's may be its stacked tile
#: (:func:`_turned_as_next`)
STACK_AXIS_DEG = 15.0
#: two tiles overlapping along the row by this share of a width or more may be one on the other
STACK_OVERLAP = 0.5
#: a second box of the base taken as its stacked tile is at most this many times the base's size
STACK_SECOND_SIZE = 1.15
#: a stacked tile and its base share a kind among the likeliest this many classes of each
STACK_TOPK = 3
#: the upright tiles nearest a base whose faces give the table's depth there (``STACK_U_TOL`` is measured across it)
#: ...
STACK_DEPTH_NEAR = 2
#: ... where that depth leans at least this much (cosine) towards the row's normal
STACK_DEPTH_MIN_UP = 0.4


def _attach_stacked(g: _Geo, line: _Line, pool: list[int], spare: set[int] | None = None) -> None:
    """Move sideways tiles lying on a sideways tile of the line from the pool onto it. ``spare``:
    boxes set aside as duplicates, which may be a stacked tile after all (the localizer draws a
    stacked pair's boxes closer than they are, overlapping as a duplicate's would: one of the
    base's size may lie as close as ``STACK_V_MIN_SECOND``); one taken is removed from it. A round
    face (``ROUND_FACES``) is sideways where its box says so, whatever its face's angle."""
    spare = spare if spare is not None else set()
    if not pool and not spare:
        return
    tiles, _, degenerate = _row_tiles(g, line)
    bases = [t for t in tiles if t.sideways]
    idx = np.array([*pool, *sorted(spare)], dtype=int)
    if not bases or (degenerate and np.isnan(g.angles[idx]).all()):
        return
    d = line.direction
    up = np.array([d[1], -d[0]])
    rel = g.pts[idx] - line.point
    u, v = rel @ d, rel @ up
    along, across, _ = _extents(g.w[idx], g.h[idx], d)
    round_faces = np.array([g.dets[j].cls in ROUND_FACES for j in idx], dtype=bool)
    for base in bases:
        refs = np.full(len(idx), base.ref_ratio)
        side = _sideways(_side_margins(along, across, g.flags[idx], degenerate, refs, g.angles[idx], d))
        if not degenerate and round_faces.any():  # a round face's axis is a guess: its box may say sideways
            by_box = _sideways(
                _side_margins(along, across, g.flags[idx], degenerate, refs, np.full(len(idx), np.nan), d)
            )
            side |= by_box & round_faces
        depth = _depth_near(g, tiles, base, up)
        best, best_dist = None, math.inf
        for j in range(len(idx)):
            if not side[j] or g.backs[idx[j]] or int(idx[j]) in line.stacked.values():
                continue
            dv = abs(v[j] - base.v)
            second = int(idx[j]) in spare and g.size[idx[j]] <= STACK_SECOND_SIZE * g.size[base.det]
            v_min = STACK_V_MIN_SECOND if second else STACK_V_MIN
            if not _lies_on(g, base, int(idx[j]), abs(u[j] - base.u), dv, d, depth, v_min):
                continue
            if dv < best_dist:
                best, best_dist = int(idx[j]), dv
        if best is not None:
            line.stacked[base.det] = best
            if best in spare:
                spare.discard(best)
            else:
                pool.remove(best)


def _detach_stacked(g: _Geo, line: _Line) -> None:
    """Take a stacked tile the line took in off it, onto its base: of two sideways tiles side by
    side that lie one on the other (``STACK_U_TOL`` along the table's depth, ``STACK_V_MIN`` to
    ``STACK_V_MAX`` across), the one further off the line. Under a steep camera a stacked tile's
    centre lies within the line's band."""
    tiles, _, _ = _row_tiles(g, line, gaps=True)
    paired = _overlapping_pairs(g, tiles)
    side = [
        t for k, t in enumerate(tiles) if not t.back and (t.sideways or k in paired or _turned_as_next(g, tiles, k))
    ]
    if len(side) < 2:
        return
    d = line.direction
    up = np.array([d[1], -d[0]])
    ref_v = float(np.median([t.v for t in tiles]))
    in_side = {t.det for t in side}
    upright = [t for t in tiles if t.det not in in_side]  # (a stacked tile's face says nothing of the depth)
    taken: set[int] = set()
    for a, b in itertools.pairwise(side):
        if a.det in taken or b.det in taken:
            continue
        base, top = sorted((a, b), key=lambda t: abs(t.v - ref_v))
        if not _lies_on(
            g, base, top.det, abs(top.u - base.u), abs(top.v - base.v), d, _depth_near(g, upright, base, up)
        ):
            continue
        line.members.remove(top.det)
        line.stacked[base.det] = top.det
        taken |= {base.det, top.det}


def _overlapping_pairs(g: _Geo, tiles: Sequence[RowTile]) -> set[int]:
    """Positions of face-up tiles side by side in ``tiles`` (in order along the row, with their
    gaps) that overlap along it by ``STACK_OVERLAP`` of a width or more, their faces' axes within
    ``STACK_AXIS_DEG``: one tile stacked on another, however each was judged."""
    out: set[int] = set()
    for k in range(1, len(tiles)):
        a, b = tiles[k - 1], tiles[k]
        if a.back or b.back or b.gap_before > -STACK_OVERLAP:
            continue
        if _same_axis(g, a.det, b.det):
            out |= {k - 1, k}
    return out


def _same_axis(g: _Geo, i: int, j: int) -> bool:
    """Detections ``i`` and ``j`` show faces whose axes lie within ``STACK_AXIS_DEG`` (both known)."""
    a, b = g.angles[i], g.angles[j]
    return not (math.isnan(a) or math.isnan(b)) and bool(_axis_gap(a, b) <= STACK_AXIS_DEG)


def _turned_as_next(g: _Geo, tiles: Sequence[RowTile], k: int) -> bool:
    """Tile ``k``'s face lies within ``STACK_AXIS_DEG`` of the axis of a sideways face-up tile next
    to it in the row: a stacked tile turned as its base, whatever its own sideways judgement (a
    tile among several sideways ones is judged against their axis)."""
    return any(
        0 <= n < len(tiles) and tiles[n].sideways and not tiles[n].back and _same_axis(g, tiles[k].det, tiles[n].det)
        for n in (k - 1, k + 1)
    )


def _lies_on(
    g: _Geo,
    base: RowTile,
    j: int,
    du: float,
    dv: float,
    direction: np.ndarray,
    depth: np.ndarray | None,
    v_min: float = STACK_V_MIN,
) -> bool:
    """Tile ``j`` lies stacked on ``base``: ``du`` along the row (measured across the table's
    ``depth`` where known, see ``STACK_DEPTH_NEAR``) within ``STACK_U_TOL`` of the base, ``dv``
    across it ``v_min`` to ``STACK_V_MAX``, of a size and a kind that may match."""
    if depth is not None:
        off = g.pts[j] - g.pts[base.det]
        du = abs(float(np.linalg.solve(np.column_stack([direction, depth]), off)[0]))
    return (
        du <= STACK_U_TOL * base.along
        and v_min * base.across <= dv <= STACK_V_MAX * base.across
        and SIZE_RATIO[0] <= g.size[j] / g.size[base.det] <= SIZE_RATIO[1]
        and _may_match(g.dets[base.det], g.dets[j])
    )


def _depth_near(g: _Geo, tiles: Sequence[RowTile], base: RowTile, up: np.ndarray) -> np.ndarray | None:
    """The table's depth near ``base`` in the image (a unit vector on ``up``'s side), from the faces
    of the upright tiles nearest it (``STACK_DEPTH_NEAR``); None where they do not say."""
    near = sorted(
        (t for t in tiles if not t.sideways and not t.back and not np.isnan(g.angles[t.det])),
        key=lambda t: abs(t.u - base.u),
    )[:STACK_DEPTH_NEAR]
    if len(near) < 2:
        return None
    top = np.mean([_face_top(float(g.angles[t.det])) for t in near], axis=0)
    n = float(np.linalg.norm(top))
    if n < 0.5:
        return None
    top = top / n
    if float(top @ up) < 0:
        top = -top
    if float(top @ up) < STACK_DEPTH_MIN_UP:
        return None
    return np.asarray(top)


def _may_match(a: Detection, b: Detection) -> bool:
    """Whether two tiles may be one kind (an added kan's stacked tile is its base's kind): some
    kind among the ``STACK_TOPK`` likeliest classes of each in common.

    >>> one = Detection(4, 0.9, (0, 0, 10, 14), topk=((4, 0.6), (34, 0.3)))
    >>> red, other = Detection(34, 0.9, (0, 0, 10, 14)), Detection(13, 0.9, (0, 0, 10, 14))
    >>> _may_match(one, red), _may_match(one, other)
    (True, False)
    """
    return bool(
        {kind(c) for c, _ in a.candidates()[:STACK_TOPK] if c != BACK}
        & {kind(c) for c, _ in b.candidates()[:STACK_TOPK] if c != BACK}
    )
