"""A line's tiles measured in row coordinates and judged upright or sideways (a call mark): by the face's
angle against its neighbours', else by the box against an upright reference."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from paiscan.vision.detection import ROUND_FACES
from paiscan.vision.layout.geometry import _axis_gap, _extents, _Geo, _Line, _percentile
from paiscan.vision.layout.results import UNSURE_MARGIN, RowTile, _with_gaps

#: a box is sideways when its along/across ratio is this many times its upright reference ...
SIDEWAYS_RATIO = 1.35
#: ... and at least this (along/across)
SIDEWAYS_MIN_RATIO = 0.6
#: from this many times the reference up to ``SIDEWAYS_RATIO``, the detector's rotated flag decides
SIDEWAYS_FLAG_BAND = 1.15
#: a face's sideways margin is its axis's angle to its neighbours' (or, with fewer than
#: ``MIN_FACE_NEIGHBOURS`` faces near, to the row's normal) less 45°, over this: faces within 15°
#: of 45° are unsure, as box margins within ``UNSURE_MARGIN`` are
FACE_MARGIN_DEG = 60.0
#: ... but a face at least this many degrees off whose box says sideways is sideways, unsurely (steep cameras)
SIDEWAYS_BOX_OFF_DEG = 25.0
#: a face read upright whose box says sideways by more than this (log-margin) is upright only unsurely
BOX_SAYS_SIDEWAYS = 0.3
#: the sideways margin of a judgement resting on a guess (a cut tile, a round face, no angle near 45°): unsure
GUESSED_MARGIN = 0.9 * UNSURE_MARGIN
#: faces with an angle near a tile needed to judge its face against theirs (else against the row's normal)
MIN_FACE_NEIGHBOURS = 3
#: neighbours' axes within this of each other share one (see :func:`_local_axis_offsets`)
AXIS_CLUSTER_DEG = 30.0
#: ... and the face's own vote there: over one, so that a tie goes to the face's own axis (a face
#: standing at the row's end beside flat melds has one standing neighbour against two flat ones)
SELF_VOTE = 1.5
#: a row tile read with under this confidence (localizer × classifier) is doubtful: felt, a rack's edge
DOUBTFUL_END_CONF = 0.3


def _local_refs(ratio: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Each tile's upright reference ratio: the 35th percentile of its neighbours' (four each side
    along the row), so a size or foreshortening gradient along the row cancels out."""
    n = len(ratio)
    order = np.argsort(u)
    refs = np.empty(n)
    for rank, i in enumerate(order):
        neigh = [order[k] for k in range(max(0, rank - 4), min(n, rank + 5)) if k != rank]
        if len(neigh) < 4:
            neigh = [j for j in range(n) if j != i] or [int(i)]
        refs[i] = _percentile([float(ratio[j]) for j in neigh], 35)
    return refs


def _neighbour_ranks(n: int) -> np.ndarray:
    """``[n, 8]``: the ranks of each rank's neighbours, four each side, -1 past the row's ends."""
    r = np.arange(n)[:, None] + np.array([-4, -3, -2, -1, 1, 2, 3, 4])[None, :]
    return np.where((r >= 0) & (r < n), r, -1)


def _local_axis_offsets(angles: np.ndarray, u: np.ndarray, normal_offsets: np.ndarray) -> np.ndarray:
    """Each face's axis against its neighbours' (up to four each side along the row), in degrees
    0..90; NaN where fewer than ``MIN_FACE_NEIGHBOURS`` neighbours show a face angle.

    The neighbours' upright axis is the one most of them share (within ``AXIS_CLUSTER_DEG``),
    averaged over those that share it: among melds a third of the faces or more lie sideways, and a
    plain mean of the axes (doubled angles) is pulled off by them, even past 45° (a face then read
    sideways against it splits a meld). The face itself votes too, with ``SELF_VOTE``: between two
    clusters equal but for it, a face is taken to share its own; between clusters still equal the
    one nearer the row's normal (``normal_offsets``: each face's axis against the normal) is upright.

    Perspective squeezes projected angles and a standing face points up the photo whatever the
    row's direction, so neighbours, not the row's normal, say what upright looks like here.
    """
    order = np.argsort(u)
    a = angles[order]
    to_normal = normal_offsets[order]
    ranks = _neighbour_ranks(len(a))
    idx = np.clip(ranks, 0, None)
    neigh = np.where(ranks >= 0, a[idx], np.nan)  # [tile, neighbour]
    known = ~np.isnan(neigh)
    near = _axis_gap(neigh[:, :, None], neigh[:, None, :]) <= AXIS_CLUSTER_DEG  # [tile, candidate, neighbour]
    near &= known[:, :, None] & known[:, None, :]
    support = near.sum(2) + SELF_VOTE * (_axis_gap(neigh, a[:, None]) <= AXIS_CLUSTER_DEG) - 1e-3 * to_normal[idx]
    members = near[np.arange(len(a)), np.argmax(np.where(known, support, -np.inf), axis=1)]
    doubled = np.radians(2.0 * np.nan_to_num(neigh))
    ref = (
        np.degrees(
            np.arctan2(np.where(members, np.sin(doubled), 0.0).sum(1), np.where(members, np.cos(doubled), 0.0).sum(1))
        )
        / 2.0
    )
    out = np.full(len(a), np.nan)
    enough = ~np.isnan(a) & (known.sum(1) >= MIN_FACE_NEIGHBOURS)
    out[order] = np.where(enough, _axis_gap(np.nan_to_num(a), ref), np.nan)
    return out


def box_margin(ratio: Any, ref: Any) -> Any:
    """How sideways a box says a tile is: the log of its along/across ``ratio`` over ``SIDEWAYS_RATIO``
    times its upright reference ``ref`` (positive: sideways); numbers or arrays alike."""
    return np.log(np.maximum(ratio, 1e-6) / ref) - math.log(SIDEWAYS_RATIO)


def _side_margins(
    along: np.ndarray,
    across: np.ndarray,
    flags: np.ndarray,
    degenerate: bool,
    refs: np.ndarray,
    angles: np.ndarray,
    direction: np.ndarray,
    u: np.ndarray | None = None,
) -> np.ndarray:
    """How sideways each tile is (positive: sideways), against its upright reference ratio
    ``refs`` from the box, or from the face's angle (degrees, NaN: unknown) where it is known:
    against its neighbours' faces along the row (``u``), else against the row's normal; a face
    ``SIDEWAYS_BOX_OFF_DEG`` off whose box says sideways is sideways by a hair (unsure), and a face
    read upright whose box says sideways by ``BOX_SAYS_SIDEWAYS`` is upright only unsurely."""
    ratio = along / across
    flags_rel = flags != (flags.mean() > 0.5) if len(flags) else flags
    if degenerate:  # the box cannot say: the rotated flag, as a sure judgement
        margin = np.where(flags_rel, math.inf, -math.inf)
        if (~np.isnan(angles)).sum() >= MIN_FACE_NEIGHBOURS:  # ... but faces judge the rest: unsure
            margin = np.where(flags_rel, GUESSED_MARGIN, -GUESSED_MARGIN)
    else:
        margin = box_margin(ratio, refs)
        maybe = (ratio > SIDEWAYS_FLAG_BAND * refs) & flags_rel
        margin = np.where(
            (margin <= 0) & maybe, np.maximum(margin + math.log(SIDEWAYS_RATIO / SIDEWAYS_FLAG_BAND), 1e-3), margin
        )
        margin = np.where(ratio > SIDEWAYS_MIN_RATIO, margin, np.minimum(margin, -1e-3))
    known = ~np.isnan(angles)
    if known.any():
        a = np.radians(np.where(known, angles, 0.0))
        along_cos = np.abs(np.sin(a) * direction[0] - np.cos(a) * direction[1])  # |face top · row direction|
        off = np.degrees(np.arcsin(np.clip(along_cos, 0.0, 1.0)))  # off the row's normal: 0 upright, 90 sideways
        if u is not None:
            off = np.where(np.isnan(local := _local_axis_offsets(angles, u, off)), off, local)
        box = np.full(len(margin), -math.inf) if degenerate else np.asarray(margin)  # what the box says, if anything
        by_face = (off - 45.0) / FACE_MARGIN_DEG
        by_face = np.where((box > 0) & (off > SIDEWAYS_BOX_OFF_DEG), np.maximum(by_face, 1e-3), by_face)
        by_face = np.where((box > BOX_SAYS_SIDEWAYS) & (by_face < 0), np.maximum(by_face, -GUESSED_MARGIN), by_face)
        margin = np.where(known, by_face, margin)
    return np.asarray(margin, dtype=float)


def _sideways(margins: np.ndarray) -> np.ndarray:
    return np.asarray(margins > 0, dtype=bool)


def _line_key(line: _Line) -> tuple[Any, ...]:
    """What a line's measured tiles depend on (its members change as it is cut)."""
    return tuple(line.members), tuple(sorted(line.stacked.items())), line.direction.tobytes(), line.point.tobytes()


def _row_tiles(g: _Geo, line: _Line, gaps: bool = False) -> tuple[list[RowTile], float, bool]:
    """Row tiles sorted along ``line.direction`` (not yet oriented), the unit, degeneracy; with
    ``gaps``, each tile's gap before it (:func:`_with_gaps`). Kept per line in ``g.rows_seen``."""
    key = (*_line_key(line), gaps)
    if key not in g.rows_seen:
        if gaps:
            tiles, unit, degenerate = _row_tiles(g, line)
            g.rows_seen[key] = (_with_gaps(tiles), unit, degenerate)
        else:
            g.rows_seen[key] = _measure_row(g, line)
    tiles, unit, degenerate = g.rows_seen[key]
    return list(tiles), unit, degenerate


def _measure_row(g: _Geo, line: _Line) -> tuple[list[RowTile], float, bool]:
    d = line.direction
    up = np.array([d[1], -d[0]])
    idx = np.array(line.members)
    rel = g.pts[idx] - line.point
    u, v = rel @ d, rel @ up
    along, across, degenerate = _extents(g.w[idx], g.h[idx], d)
    refs = _local_refs(along / across, u)
    margins = np.where(
        g.backs[idx], -math.inf, _side_margins(along, across, g.flags[idx], degenerate, refs, g.angles[idx], d, u)
    )
    unsure = np.array([g.dets[j].cut or g.dets[j].cls in ROUND_FACES for j in idx], dtype=bool)
    margins = np.where(unsure & np.isfinite(margins), np.clip(margins, -GUESSED_MARGIN, GUESSED_MARGIN), margins)
    side = _sideways(margins)
    order = np.argsort(u)
    tiles = [
        RowTile(
            int(idx[i]),
            float(u[i]),
            float(v[i]),
            float(along[i]),
            float(across[i]),
            bool(side[i]),
            bool(g.backs[idx[i]]),
            line.stacked.get(int(idx[i])),
            ref_ratio=float(refs[i]),
            side_margin=float(margins[i]),
            doubtful=g.dets[idx[i]].confidence < DOUBTFUL_END_CONF,
        )
        for i in order
    ]
    widths = [t.width for t in tiles]
    return tiles, float(np.median(widths)) if widths else 1.0, degenerate


def _line_runs(g: _Geo, line: _Line, cuts: Callable[[float], bool]) -> list[list[RowTile]]:
    """The line's tiles in order along it, in runs: a new run after each gap (tile widths) that
    ``cuts`` says splits."""
    runs: list[list[RowTile]] = []
    for t in _row_tiles(g, line, gaps=True)[0]:
        if not runs or cuts(t.gap_before):
            runs.append([])
        runs[-1].append(t)
    return runs
