"""Lines of tiles: found one after another, cut where tiles lie far apart, joined where a short line
continues a longer one, and oriented (which end is the player's right)."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from paiscan.vision.layout.dead_wall import DEAD_WALL_BACKS, _closed_kans_in, _split_dead_wall
from paiscan.vision.layout.geometry import ROW_REFINE_TOL, _canonical, _face_top, _Geo, _Line, _principal
from paiscan.vision.layout.results import HAND_MIN_TILES, MIN_ROW_TILES, Row, RowTile, _flip_tiles, _split_gap
from paiscan.vision.layout.sideways import _line_runs, _row_tiles
from paiscan.vision.layout.stacked import _attach_stacked, _detach_stacked

#: half-width of a row band, in tile sizes (sqrt of box area): sideways tiles sit ~0.15 off
#: the centre line of upright ones, a stacked tile or an indicator above the row ~1 away
ROW_TOL = 0.3
#: the line search's step between directions, in degrees
ANGLE_STEP_DEG = 1.0
#: the faces' vote (sum of certainty × cos of the angle to the row's normal) decides which side of
#: the row the player sits when it is at least this large and this share of the voters
FACES_MIN_VOTE = 1.5
#: ... and at least this share of the voters (sum of certainty per upright face)
FACES_MIN_SHARE = 0.3
#: a line is cut where neighbours lie more than this many tile widths apart
FAR_GAP = 3.0
#: a lone tile at least this many tile widths apart at a row end is not the winning tile (an indicator)
EXCLUDE_GAP = 1.0
#: a short line or a lone tile continuing a longer line at its end (a hand row bent by perspective,
#: or a meld sitting lower than the concealed tiles): centres within ``MERGE_V_TOL`` of their size
#: from the longer line, and at most ``MERGE_GAP`` tile sizes beyond its end
MERGE_V_TOL = 0.6
#: ... and at most this many tile sizes beyond its end
MERGE_GAP = 1.5
#: ... measured from the whole line, or from the line through its tiles within this many tile sizes of that end
MERGE_END_UNITS = 4.0
#: detections the line search takes at most (the most confident)
MAX_DETECTIONS = 200
#: the line search's working arrays hold this many (tile, tile, angle) cells at a time (float32
#: and bool: 320 KiB, within a core's cache)
LINE_SEARCH_CELLS = 1 << 16
#: a gap under the split of at least this many tile widths, ``WEAK_GAP_OVER`` wider than every other, sets a tile
#: apart
WEAK_GAP_MIN = 0.1
#: ... this many tile widths wider than every other gap ...
WEAK_GAP_OVER = 0.1
#: ... among at least this many other gaps
WEAK_GAP_MIN_GAPS = 4


def _band_counts(v: np.ndarray, tol: np.ndarray) -> np.ndarray:
    """``[anchor, angle]``: how many tiles lie within the band through the anchor at that angle,
    from each tile's offset across every angle ``v`` ``(n, A)`` and each pair's band half-width
    ``tol`` ``(n, n)`` (float32 both). Some angles at a time (``LINE_SEARCH_CELLS``), in place: the
    n² comparisons per angle are what the line search costs."""
    n, n_angles = v.shape
    step = max(1, min(n_angles, LINE_SEARCH_CELLS // max(1, n * n)))
    counts = np.empty((n, n_angles), dtype=np.intp)
    across, inside = np.empty((step, n, n), dtype=np.float32), np.empty((step, n, n), dtype=bool)
    by_angle = np.ascontiguousarray(v.T)
    for a0 in range(0, n_angles, step):
        va = by_angle[a0 : a0 + step]
        k = len(va)
        np.subtract(va[:, :, None], va[:, None, :], out=across[:k])
        np.less_equal(np.abs(across[:k], out=across[:k]), tol, out=inside[:k])
        counts[:, a0 : a0 + k] = np.count_nonzero(inside[:k], axis=1).T
    return counts


def _best_line(pts: np.ndarray, size: np.ndarray, pool: list[int]) -> _Line | None:
    idx = np.array(pool)
    p, s = pts[idx], size[idx]
    n = len(idx)
    if n < MIN_ROW_TILES:
        return None
    angles = np.deg2rad(np.arange(0.0, 180.0, ANGLE_STEP_DEG))
    normals = np.stack([-np.sin(angles), np.cos(angles)], axis=1)
    v = (p @ normals.T).astype(np.float32)  # (n, A)
    tol = (ROW_TOL * np.maximum(s[:, None], s[None, :])).astype(np.float32)  # (n, n)
    counts = _band_counts(v, tol)
    best = int(counts.max())
    if best < MIN_ROW_TILES:
        return None
    # of the (anchor, angle) bands holding the most tiles, the one whose members lie closest to
    # their own mean line (in tile sizes); all ties at once, the first on equal spread
    anchors, ang = np.nonzero(counts == best)
    vk = v[:, ang].T  # (K, n): every tile across each tied angle
    inband = np.abs(vk - vk[np.arange(len(ang)), anchors][:, None]) <= tol[:, anchors].T
    mean = np.where(inband, vk, 0.0).sum(axis=1) / inband.sum(axis=1)
    spread = np.where(inband, ((vk - mean[:, None]) / s[None, :]) ** 2, 0.0).sum(axis=1)
    k = int(np.argmin(spread))
    best_angle = int(ang[k])
    members = np.nonzero(inband[k])[0]
    d = np.array([math.cos(angles[best_angle]), math.sin(angles[best_angle])])
    centre = p[members].mean(axis=0)
    for _ in range(3):  # refine: principal axis of the members, members within the refined band
        if len(members) >= 3:
            d, centre = _principal(p[members])
        normal = np.array([-d[1], d[0]])
        dist = np.abs((p - centre) @ normal)
        new = np.nonzero(dist <= ROW_REFINE_TOL * s)[0]
        if len(new) < MIN_ROW_TILES or set(new.tolist()) == set(members.tolist()):
            break
        members = new
    return _Line([int(idx[i]) for i in members], _canonical(d), centre, {})


def _release_far(g: _Geo, line: _Line) -> list[int]:
    """Cut the line at gaps wider than ``FAR_GAP``; keep the largest part (and meld-like parts
    next to it); return the detections let go."""
    clusters = _line_runs(g, line, lambda gap: gap > FAR_GAP)
    if len(clusters) == 1:
        return []
    main = max(range(len(clusters)), key=lambda i: len(clusters[i]))
    keep = {main}
    for step in (-1, 1):
        i = main + step
        while 0 <= i < len(clusters) and len(clusters[i]) >= 3 and any(t.marked for t in clusters[i]):
            keep.add(i)
            i += step
    released: list[int] = []
    for i, cl in enumerate(clusters):
        if i in keep:
            continue
        for t in cl:
            line.members.remove(t.det)
            released.append(t.det)
            if t.stacked is not None:
                released.append(line.stacked.pop(t.det))
    return released


def _release_doubtful_backs(g: _Geo, line: _Line) -> list[int]:
    """Let go of the line's face-down tiles read with under ``DOUBTFUL_END_CONF`` when without them,
    and not with them, every face-down tile of the line belongs to a closed kan (and some do): a
    faint box on the felt between the winning tile and two closed kans made them a dead wall, whose
    faces were read as indicators."""
    tiles = _row_tiles(g, line)[0]
    weak = [t.det for t in tiles if t.back and t.doubtful]
    rest = [t for t in tiles if not (t.back and t.doubtful)]
    if not weak or _closed_kans_in(tiles) or not any(t.back for t in rest) or not _closed_kans_in(rest):
        return []
    for j in weak:
        line.members.remove(j)
    return weak


def _extract_lines(g: _Geo, skip: set[int], aside: Sequence[bool] = ()) -> tuple[list[_Line], list[int]]:
    pool = [i for i in range(len(g.dets)) if i not in skip]
    if len(pool) > MAX_DETECTIONS:  # keep the most confident
        pool = sorted(sorted(pool, key=lambda i: -g.dets[i].confidence)[:MAX_DETECTIONS])
    lines: list[_Line] = []
    loose: list[int] = []
    while len(pool) >= MIN_ROW_TILES:
        line = _best_line(g.pts, g.size, pool)
        if line is None:
            break
        pool_before = list(pool)
        released = _settle(g, line, pool, skip)
        walls = _split_dead_wall(g, line, aside)
        lines.extend(walls)
        if walls:  # the line found again without the wall (see _found_again)
            walled = {j for w in walls for j in w.members}
            unwalled = [
                j for j in pool_before if j not in walled and j not in line.stacked.values() and j not in released
            ]
            again = _found_again(g, line, unwalled)
            if again is not None:  # its tiles, along the first line's direction (measured on more tiles)
                pool[:] = unwalled
                line = _Line(again.members, line.direction, again.point, dict(line.stacked))
                released += _settle(g, line, pool, skip)
        loose.extend(released)
        lines.append(line)
    rest = sorted(loose + pool)
    lines, rest = _merge_continuations(g, lines, rest)
    return lines, rest


def _settle(g: _Geo, line: _Line, pool: list[int], skip: set[int]) -> list[int]:
    """Take ``line``'s tiles out of ``pool`` and its stacked tiles onto it (from ``pool`` or the
    duplicates ``skip``); return the tiles it lets go (far apart, or faint backs)."""
    for m in line.members:
        pool.remove(m)
    _detach_stacked(g, line)
    _attach_stacked(g, line, pool, skip)
    return _release_far(g, line) + _release_doubtful_backs(g, line)


def _found_again(g: _Geo, line: _Line, pool: list[int]) -> _Line | None:
    """The best line in ``pool`` (the tiles before ``line`` was taken, less the dead wall cut off
    its end, its stacked tiles and the tiles it let go) where it holds every tile ``line`` kept
    and more, else ``None``: the wall bent the line it was found in, which missed tiles of the
    hand. The line found again
    keeps the first one's direction, and one with no more tiles is not taken: measured on fewer
    tiles, its direction closed the winning tile's gap and a stacked tile joined
    the row."""
    again = _best_line(g.pts, g.size, pool)
    return again if again is not None and set(again.members) > set(line.members) else None


@dataclass(frozen=True)
class _Along:
    """A line's tiles measured along it (from its point, in pixels), and their median size: what
    :func:`_joins` measures other tiles against, taken once for each state of the line."""

    members: np.ndarray
    u: np.ndarray
    unit: float

    @classmethod
    def of(cls, g: _Geo, line: _Line) -> _Along:
        members = np.array(line.members)
        return cls(members, (g.pts[members] - line.point) @ line.direction, float(np.median(g.size[members])))

    def end_line(self, g: _Geo, end: float) -> tuple[np.ndarray, np.ndarray] | None:
        """The line through the tiles within ``MERGE_END_UNITS`` of the end at ``end`` (direction,
        point), or None with fewer than three of them."""
        near = self.members[np.abs(self.u - end) <= MERGE_END_UNITS * self.unit]
        return _principal(g.pts[near]) if len(near) >= 3 else None


def _joins(g: _Geo, line: _Line, dets: Sequence[int], along: _Along | None = None) -> bool:
    """``dets`` either continue ``line`` just beyond one of its ends, within ``MERGE_V_TOL`` across
    it or across the line through its end (``MERGE_END_UNITS``), or fill a hole between its tiles,
    within ``MERGE_V_TOL`` across it (within its span, none of its tiles within half a tile along
    it: tiles a slightly bent row lost to another line), or both: some fill holes near an end and the rest go
    on past it (a pon's called tile
    the first line skipped, and the kan beyond). ``along``: the line's :class:`_Along`, if at hand."""
    d = line.direction
    al = along if along is not None else _Along.of(g, line)
    u_line, unit = al.u, al.unit
    idx = np.array(dets)
    u = (g.pts[idx] - line.point) @ d
    inside = (u > u_line.min()) & (u < u_line.max())
    clear = np.abs(u[:, None] - u_line[None, :]).min(axis=1) > 0.5 * unit
    if inside.any() and not inside.all():  # some fill holes near an end, the rest go on past it
        return (
            _across_within(g, idx[inside], d, line.point)
            and bool(np.all(clear[inside]))
            and _joins(g, line, [int(j) for j in idx[~inside]], al)
        )
    on_line = _across_within(g, idx, d, line.point)
    beyond = max(float(u.min() - u_line.max()), float(u_line.min() - u.max()))
    if 0.0 < beyond <= MERGE_GAP * unit + unit:
        if on_line:
            return True
        end_line = al.end_line(g, u_line.max() if u.min() > u_line.max() else u_line.min())
        return end_line is not None and _across_within(g, idx, *end_line)
    return on_line and bool(np.all(inside & clear))


def _first_joining(g: _Geo, line: _Line, dets: Sequence[int], along: _Along) -> int | None:
    """The first of ``dets`` that joins ``line`` alone (:func:`_joins` of ``[j]``), all measured at once."""
    if not dets:
        return None
    d, u_line, unit = line.direction, along.u, along.unit
    idx = np.array(dets)
    u = (g.pts[idx] - line.point) @ d
    lo, hi = u_line.min(), u_line.max()
    inside = (u > lo) & (u < hi)
    clear = np.abs(u[:, None] - u_line[None, :]).min(axis=1) > 0.5 * unit
    on_line = _within_across(g, idx, d, line.point)
    beyond = np.maximum(u - hi, lo - u)
    past_end = (beyond > 0.0) & (beyond <= MERGE_GAP * unit + unit)
    joins = np.where(past_end, on_line, on_line & inside & clear)
    for side, at_end in ((u > hi, hi), (u <= hi, lo)):  # off the line past an end: across the end's own line
        ask = past_end & ~on_line & side
        if ask.any():
            end_line = along.end_line(g, at_end)
            if end_line is not None:
                joins[ask] = _within_across(g, idx[ask], *end_line)
    first = np.flatnonzero(joins)
    return int(first[0]) if len(first) else None


def _within_across(g: _Geo, idx: np.ndarray, direction: np.ndarray, point: np.ndarray) -> np.ndarray:
    """Which tiles of ``idx`` lie within ``MERGE_V_TOL`` of their size across the line."""
    normal = np.array([-direction[1], direction[0]])
    return np.abs((g.pts[idx] - point) @ normal) <= MERGE_V_TOL * g.size[idx]


def _across_within(g: _Geo, idx: np.ndarray, direction: np.ndarray, point: np.ndarray) -> bool:
    """Every tile of ``idx`` lies within ``MERGE_V_TOL`` of its size across the line."""
    return bool(np.all(_within_across(g, idx, direction, point)))


def _merge_continuations(g: _Geo, lines: list[_Line], rest: list[int]) -> tuple[list[_Line], list[int]]:
    """Join short lines and lone tiles that continue a line long enough to be the hand at an end
    (not dead walls: more than ``DEAD_WALL_BACKS`` face-down tiles, not all in closed kans; two closed
    kans side by side show four backs, and a line of them parted from the concealed tiles is the
    hand's end all the same). A line that grew looks again for stacked tiles among the loose ones:
    a sideways tile let go from a longer line rejoins it alone, and the tile stacked on it (or the
    one it lay on) stays loose."""

    def walled(line: _Line) -> bool:
        return sum(g.backs[m] for m in line.members) > DEAD_WALL_BACKS and not _closed_kans_in(_row_tiles(g, line)[0])

    lines = sorted(lines, key=lambda ln: -len(ln.members))
    merged: list[_Line] = []
    taken: set[int] = set()
    for i, line in enumerate(lines):
        if i in taken:
            continue
        if len(line.members) >= HAND_MIN_TILES and not walled(line):
            changed, grown = True, False
            while changed:
                changed = False
                along = _Along.of(g, line)
                for j in range(i + 1, len(lines)):
                    other = lines[j]
                    if j in taken or walled(other):
                        continue
                    # (a remnant of two tiles, left when a line gave back its far ones, has no direction to speak of;
                    # a longer one's is measured on the tiles it kept: the direction it was found with may be a
                    # released tile's)
                    if len(other.members) >= MIN_ROW_TILES and abs(
                        float(line.direction @ _principal(g.pts[other.members])[0])
                    ) < math.cos(math.radians(20)):
                        continue
                    if _joins(g, line, other.members, along):
                        line.members.extend(other.members)
                        line.stacked.update(other.stacked)
                        taken.add(j)
                        changed = True
                        along = _Along.of(g, line)
                faces = [k for k in rest if not g.backs[k]]
                while (first := _first_joining(g, line, faces, along)) is not None:
                    k = faces[first]
                    faces = faces[first + 1 :]
                    line.members.append(k)
                    rest.remove(k)
                    changed = True
                    along = _Along.of(g, line)
                grown = grown or changed
            if grown:  # a sideways tile it took may carry a stacked tile left loose
                _attach_stacked(g, line, rest)
        merged.append(line)
    return merged, rest


def _orient(
    tiles: list[RowTile],
    direction: np.ndarray,
    cue_v: Sequence[float],
    stacked_v: Sequence[float] = (),
    faces_v: Sequence[float] = (),
) -> tuple[list[RowTile], np.ndarray, str]:
    """Flip the row so that it runs from the player's left to right; also says what decided.

    ``faces_v``: each upright face's vote, its certainty times the cosine of its top to the row's
    ``v`` direction (positive: the top points away from the player as the row now runs).
    """
    n = len(tiles)
    flip: bool | None = None
    why = "default"
    vote = float(sum(faces_v))
    if abs(vote) >= max(FACES_MIN_VOTE, FACES_MIN_SHARE * len(faces_v)):  # tops point away from the player
        flip, why = vote < 0, "faces"
    votes = [1 if v > 0 else -1 for v in stacked_v if abs(v) > 1e-9]
    if flip is None and votes and sum(votes) != 0:  # a stacked tile lies on the far side of its base
        flip, why = sum(votes) < 0, "stacked"
    marks = [i for i, t in enumerate(tiles) if t.marked]
    if flip is None and marks:  # the concealed tiles (no call marks) are on the left
        left_run, right_run = marks[0], n - 1 - marks[-1]
        if left_run != right_run:
            flip = left_run < right_run
            why = "melds" if abs(left_run - right_run) >= 3 else "melds_weak"
    if flip is None and n > 2:  # a lone tile a little apart at one end: the winning tile
        split = _split_gap(tiles)
        first_alone = split <= tiles[1].gap_before < EXCLUDE_GAP
        last_alone = split <= tiles[-1].gap_before < EXCLUDE_GAP
        if first_alone != last_alone:
            flip, why = first_alone, "win_gap"
        else:  # ... or set apart by a gap under the split, plainly the widest
            gaps = [t.gap_before for t in tiles[1:]]
            first_weak = gaps[0] < split and _plainly_wider(gaps[0], gaps[1:])
            last_weak = gaps[-1] < split and _plainly_wider(gaps[-1], gaps[:-1])
            if first_weak != last_weak:
                flip, why = first_weak, "weak_gap"
    if flip is None:  # indicators and other tiles apart lie above the row (away from the player)
        votes = [1 if v > 0 else -1 for v in cue_v if abs(v) > 1e-9]
        if votes and sum(votes) != 0:
            flip, why = sum(votes) < 0, "apart"
    if not flip:
        return tiles, direction, why
    return _flip_tiles(tiles), -direction, why


def _make_row(g: _Geo, line: _Line, cue_dets: Iterable[int], orient: bool = True) -> Row:
    tiles, unit, degenerate = _row_tiles(g, line, gaps=True)
    d = line.direction
    why = "default"
    if orient:
        up = np.array([d[1], -d[0]])
        cues = [float((g.pts[j] - line.point) @ up) for j in cue_dets]
        stacked = [float((g.pts[s] - g.pts[b]) @ up) for b, s in line.stacked.items()]
        faces = []
        for t in tiles:
            a = g.angles[t.det]
            if not t.sideways and not np.isnan(a):
                faces.append(float(g.sure[t.det]) * float(_face_top(a) @ up))
        tiles, d, why = _orient(tiles, d, cues, stacked, faces)
    return Row(tuple(tiles), (float(d[0]), float(d[1])), unit, _split_gap(tiles), why, degenerate)


def _plainly_wider(gap: float, others: Sequence[float]) -> bool:
    """Whether ``gap`` sets a tile a little apart: under the row's split, perhaps, but plainly
    wider (``WEAK_GAP_MIN``, ``WEAK_GAP_OVER``) than ``others``, enough of them
    (``WEAK_GAP_MIN_GAPS``) to tell.

    >>> _plainly_wider(0.2, [0.02] * 12), _plainly_wider(0.2, [0.02] * 3), _plainly_wider(0.2, [0.15] * 12)
    (True, False, False)
    """
    return len(others) >= WEAK_GAP_MIN_GAPS and gap >= WEAK_GAP_MIN and gap - max(others) >= WEAK_GAP_OVER
