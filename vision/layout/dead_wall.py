"""The dead wall: cut off the end of the hand's line when laid in line with it, and found among the
lines of tiles (its face-up tiles are the indicators). Both uses of the dead wall's shape live here."""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from paiscan.vision.detection import Detection
from paiscan.vision.layout.geometry import _Geo, _Line
from paiscan.vision.layout.results import HAND_MIN_TILES, RowTile
from paiscan.vision.layout.sideways import _line_runs

#: a run of a line's tiles with gaps under this many tile widths, holding at least
#: ``DEAD_WALL_BACKS`` face-down tiles, is a dead wall: its face-up tiles are the indicators
DEAD_WALL_GAP = 1.0
#: face-down tiles a dead wall's run holds at least
DEAD_WALL_BACKS = 2
#: ... but face-up tiles at its ends a gap this wide beyond its outermost face-down tiles are not
#: the wall's (see :func:`_wall_part`)
WALL_FACE_GAP = 0.4
#: a cut box whose short side is under this share of its long one is a sliver, no dead-wall tile (:func:`_sliver`)
SLIVER_SHARE = 0.4
#: ... unless this many face-up tiles or more lead the run from the hand's side (the concealed tiles against their
#: wall)
WALL_LEAD_FACES = 3
#: which tiles of a closed kan are face down, as players show one: back–face–face–back or
#: face–back–back–face
CLOSED_KAN_BACKS = ([True, False, False, True], [False, True, True, False])
#: ... and a dead wall laid touching the hand has at least this many tiles in view
DEAD_WALL_MIN_TILES = 5
#: face-up tiles in a row a called meld shows at least: a sideways tile among fewer is no call mark (an indicator
#: askew)
MELD_MIN_FACES = 3
#: a dead wall goes on through tiles touching it: the next centre within these pitches along it (min, max) ...
WALL_STEP_ALONG = (0.5, 1.6)
#: ... and within this many tile sizes across it
WALL_STEP_ACROSS = 0.35
#: tiles a dead wall goes on through at most, at each end
WALL_STEP_MAX = 6
#: face-up tiles a dead wall shows at most (the dora indicator and one per kan)
DEAD_WALL_MAX_FACES = 5


def _closed_kans_only(run: Sequence[RowTile]) -> bool:
    """The run splits into closed kans (back–face–face–back or face–back–back–face)."""
    if not run or len(run) % 4:
        return False
    return all([t.back for t in run[k : k + 4]] in CLOSED_KAN_BACKS for k in range(0, len(run), 4))


def _wall_like(run: Sequence[RowTile]) -> bool:
    """``run`` can be a dead wall: over ``DEAD_WALL_BACKS`` face-down tiles, two of them side by
    side, no stacked tile, no call mark (a sideways tile among ``MELD_MIN_FACES`` face-up ones),
    and not a split into closed kans."""
    backs = [t.back for t in run]
    return (
        sum(backs) > DEAD_WALL_BACKS
        and any(a and b for a, b in itertools.pairwise(backs))
        and not any(t.stacked is not None for t in run)
        and not _closed_kans_only(run)
        and not any(_surely_sideways(t) and _face_up_run(backs, k) >= MELD_MIN_FACES for k, t in enumerate(run))
    )


def _face_up_run(backs: Sequence[bool], k: int) -> int:
    """How many face-up tiles in a row (``backs`` false) hold position ``k``."""
    if backs[k]:
        return 0
    a = k
    while a > 0 and not backs[a - 1]:
        a -= 1
    b = k
    while b + 1 < len(backs) and not backs[b + 1]:
        b += 1
    return b - a + 1


def _between_backs(backs: Sequence[bool], k: int) -> bool:
    """A face-down tile lies on each side of position ``k`` (not necessarily next to it)."""
    return any(backs[:k]) and any(backs[k + 1 :])


def _surely_sideways(t: RowTile) -> bool:
    """Sideways beyond ``UNSURE_MARGIN``: a call mark, where a tile barely sideways may be a dead
    wall's indicator seen askew."""
    return t.sideways and not t.side_unsure


def _wall_tail(run: Sequence[RowTile]) -> int:
    """Where a dead wall laid touching the hand starts in ``run`` (ordered from the hand outward),
    or 0 for none: at a face-down tile that does not open a closed kan, after tiles that split
    into face-up tiles and closed kans, leaving a wall (:func:`_wall_like`) of at least
    ``DEAD_WALL_MIN_TILES``. Among several such places, the widest gap."""
    best, best_gap = 0, -math.inf
    for k in range(1, len(run) - DEAD_WALL_MIN_TILES + 1):
        if not run[k].back or not _wall_like(run[k:]) or not _closed_kans_in(run[:k]):
            continue
        if len(run) - k >= 4 and [x.back for x in run[k : k + 4]] == CLOSED_KAN_BACKS[0]:
            continue  # a closed kan (back–face–face–back) starts here
        gap = run[k].gap_before
        if gap > best_gap:
            best, best_gap = k, gap
    return best


def _closed_kans_in(run: Sequence[RowTile]) -> bool:
    """``run`` splits into face-up tiles and closed kans (back–face–face–back or
    face–back–back–face): every face-down tile of it belongs to a closed kan."""
    backs = [t.back for t in run]
    ok = [True] + [False] * len(run)  # ok[k]: the first k tiles split so
    for k in range(1, len(run) + 1):
        ok[k] = (ok[k - 1] and not backs[k - 1]) or (k >= 4 and ok[k - 4] and backs[k - 4 : k] in CLOSED_KAN_BACKS)
    return ok[-1]


def _split_dead_wall(g: _Geo, line: _Line, aside: Sequence[bool] = ()) -> list[_Line]:
    """Cut a dead wall laid in line with the hand off its end, as a line of its own.

    A dead wall is at an end of the line, with at least ``DEAD_WALL_BACKS + 1`` face-down tiles,
    two of them side by side, no call marks and no split into closed kans (:func:`_wall_like`):
    either a whole run (gaps under ``DEAD_WALL_GAP``) a gap away from the rest, or the end of a
    run when it was laid touching the hand (:func:`_wall_tail`; also where the run a gap parts is
    led by ``WALL_LEAD_FACES`` face-up tiles, or by closed kans). What stays must still be able to
    hold a hand. Runs of tiles set aside (``aside``, per detection: Totenko's gari) at an end are
    passed over and stay in the line: gari laid past the wall hid it from the end.
    """
    runs = _line_runs(g, line, lambda gap: gap >= DEAD_WALL_GAP)
    out: list[_Line] = []
    for end in (0, 1):
        if end and len(runs) == 1 and out:
            break
        inward = runs[::-1] if end else runs  # the runs from this end of the line inward
        # tiles set aside (``aside``, per detection) laid past the wall stay in the line
        while len(inward) > 1 and aside and all(aside[t.det] for t in inward[0]):
            inward = inward[1:]
        # a wall's end stacks may lie a little apart: face-down runs at the end join the next run in
        k = 0
        while k + 1 < len(inward) and all(t.back for t in inward[k]):
            k += 1
        # the end's tiles from the hand outward
        ordered = [t for r in reversed(inward[: k + 1]) for t in (r if end else r[::-1])]
        start = _wall_tail(ordered)
        led = start > 0 and not any(t.back for t in ordered[:WALL_LEAD_FACES])
        parted = k + 1 < len(inward) and _wall_like(ordered) and not led  # a gap parts them from the rest
        if parted and start and _closed_kans_only(ordered[:start]):
            # closed kans under DEAD_WALL_GAP from the wall beyond them are the hand's
            parted = False
        wall = ordered if parted else ordered[start:] if start else []
        if not wall or len(line.members) - len(wall) < HAND_MIN_TILES:
            continue
        members = [t.det for t in wall]
        for m in members:
            line.members.remove(m)
        out.append(_Line(members, line.direction.copy(), g.pts[members].mean(axis=0), {}))
    return out


@dataclass(frozen=True)
class _DeadWall:
    """A dead wall in view: its face-up tiles (the indicators) and all its tiles."""

    faces: frozenset[int]
    tiles: tuple[int, ...]


def _dead_walls(g: _Geo, lines: Sequence[_Line], is_aside: Sequence[bool]) -> list[_DeadWall]:
    """Each dead wall in view: a run of a line's touching tiles with at least ``DEAD_WALL_BACKS``
    face-down tiles and a face-up one. Players flip the indicators in place, so its face-up tiles
    are the indicators, all of them or none, and a pond beyond them is not (nor the tiles set
    aside beyond its last back: ``is_aside``, see :func:`_wall_part`)."""
    out: list[_DeadWall] = []
    for line in lines:
        for run in _line_runs(g, line, lambda gap: gap >= DEAD_WALL_GAP):
            run = _wall_part(run, [is_aside[r.det] for r in run])
            faces = frozenset(r.det for r in run if not r.back)
            if all(_sliver(g.dets[r.det]) for r in run):
                continue
            if sum(r.back for r in run) >= DEAD_WALL_BACKS and 0 < len(faces) <= DEAD_WALL_MAX_FACES:
                out.append(_DeadWall(faces, tuple(r.det for r in run)))
    return out


def _sliver(d: Detection) -> bool:
    """A box the photo's edge cuts to a strip (its short side under ``SLIVER_SHARE`` of its long):
    a tile's edge or side, whose face cannot be read."""
    return d.cut and min(d.width, d.height) < SLIVER_SHARE * max(d.width, d.height)


def _wall_part(run: list[RowTile], aside: Sequence[bool]) -> list[RowTile]:
    """``run`` less the face-up tiles at either end that lie ``WALL_FACE_GAP`` or more beyond its
    outermost face-down tiles: a wall's stacks touch, and its indicators are flipped in place
    between them, so a tile laid a gap beyond is not one of them (Totenko's gari beside the wall: one read a 9m
    set aside as a fourth indicator). Nor are end tiles
    past its outermost face-down ones that are all of a kind set aside (``aside``, per tile), gap
    or none: gari laid on against the wall."""
    backs = [k for k, r in enumerate(run) if r.back]
    if not backs:
        return run
    end = next(
        (k for k in range(backs[-1] + 1, len(run)) if run[k].gap_before >= WALL_FACE_GAP or all(aside[k:])), len(run)
    )
    start = next((k for k in range(backs[0], 0, -1) if run[k].gap_before >= WALL_FACE_GAP or all(aside[:k])), 0)
    return run[start:end]


def _extend_wall(g: _Geo, wall: _DeadWall, skip: set[int]) -> _DeadWall:
    """``wall`` taken on at both ends through the tiles touching it in its direction (see
    ``WALL_STEP_ALONG``), up to the last face-down tile reached; ``skip``: detections not to take."""
    idx = list(wall.tiles)
    pts = g.pts[idx]
    d = pts[-1] - pts[0]
    length = float(np.hypot(*d))
    if len(idx) < 2 or length <= 0:
        return wall
    d = d / length
    normal = np.array([-d[1], d[0]])
    pitch = float(np.median(np.hypot(*np.diff(pts, axis=0).T)))
    size = float(np.median(g.size[idx]))
    taken = set(idx) | skip
    faces, tiles = set(wall.faces), list(idx)
    for end, step in ((idx[-1], d), (idx[0], -d)):
        chain: list[int] = []
        at = end
        while len(chain) < WALL_STEP_MAX:
            rel = g.pts - g.pts[at]
            along, across = rel @ step, np.abs(rel @ normal)
            ok = (
                (along >= WALL_STEP_ALONG[0] * pitch)
                & (along <= WALL_STEP_ALONG[1] * pitch)
                & (across <= WALL_STEP_ACROSS * size)
            )
            nxt = [j for j in np.flatnonzero(ok).tolist() if j not in taken and j not in chain]
            if not nxt:
                break
            at = min(nxt, key=lambda j: float(along[j]))
            chain.append(at)
        backs = [k for k, j in enumerate(chain) if g.backs[j]]
        if backs:
            chain = chain[: backs[-1] + 1]
            faces |= {j for j in chain if not g.backs[j]}
            tiles += chain
            taken |= set(chain)
    return _DeadWall(frozenset(faces), tuple(tiles)) if len(tiles) > len(idx) else wall


def walls_in_view(g: _Geo, lines: Sequence[_Line], is_aside: Sequence[bool], skip: set[int]) -> list[_DeadWall]:
    """Each dead wall in view (:func:`_dead_walls`), taken on through the tiles touching it
    (:func:`_extend_wall`; ``skip``: detections not to take)."""
    return [_extend_wall(g, wall, skip) for wall in _dead_walls(g, lines, is_aside)]
