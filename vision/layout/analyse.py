"""The layout stage's entry point: :func:`analyse_layout` runs the stages on a photo's detections.

The lines of tiles (:mod:`.rows`), the dead walls and discards around them (:mod:`.dead_wall`,
:mod:`.surroundings`), then, for each line long enough to be the hand, its tiles apart (indicators,
set-aside tiles), its orientation and its structures (:mod:`.structures`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from paiscan.scoring.engine import Ruleset
from paiscan.scoring.registry import get_ruleset
from paiscan.scoring.tiles import BACK, kind
from paiscan.vision.detection import Detection, shares_inside
from paiscan.vision.layout.dead_wall import _DeadWall, walls_in_view
from paiscan.vision.layout.geometry import (
    SIZE_RATIO,
    _clusters,
    _duplicates,
    _Geo,
    _geo,
    _least_distances,
    _Line,
    _nearest,
    _take_near,
)
from paiscan.vision.layout.results import HAND_MAX_TILES, HAND_MIN_TILES, MIN_ROW_TILES, HandRow, Layout, Row
from paiscan.vision.layout.rows import _extract_lines, _make_row
from paiscan.vision.layout.sideways import _row_tiles
from paiscan.vision.layout.structures import _best_effort, _merge, _row_structures
from paiscan.vision.layout.surroundings import (
    APART_OVER_ROW_TILE,
    GARI_JOIN_SIZE,
    NEAR_UNITS,
    _cut_by_the_edge,
    _doubtful,
    _join_set_aside,
    _near_line,
    _peel_upright,
    _pond_like,
    _split_near_line,
    _touches,
    background_lines,
    split_apart,
)


@dataclass(frozen=True)
class _Scene:
    """What every candidate row shares: the detections' geometry, the boxes taken for no tile, the
    tiles of set-aside kinds, someone's discards (``background``) and the dead walls in view."""

    g: _Geo
    duplicates: set[int]
    is_aside: list[bool]
    background: list[set[int]]
    walls: list[_DeadWall]
    walled: set[int]


@dataclass(frozen=True)
class _NearHand:
    """One candidate hand line and the zone around it where tiles apart may lie."""

    scene: _Scene
    line: _Line
    #: the line's tiles and their stacked tiles
    mine: set[int]
    #: boxes that are no tile apart for this line: duplicates, and boxes lying over one of its tiles
    dups: set[int]
    #: the median size of the line's tiles (pixels)
    med_size: float
    #: the line's tile width before orientation (pixels)
    unit: float
    #: how far from the line tiles apart may lie (pixels)
    near: float
    #: each detection's distance from the line's nearest tile (pixels)
    distances: np.ndarray
    #: the tiles of the other lines of discards (background lines holding none of ``mine``)
    discarded: frozenset[int]

    def distance(self, j: int) -> float:
        """Detection ``j``'s distance from the line's nearest tile (pixels)."""
        return float(self.distances[j])

    def may_lie_apart(self, j: int) -> bool:
        """A face-up tile of the hand's size, sure enough, in no other line of discards."""
        g = self.scene.g
        return (
            g.dets[j].cls != BACK
            and j not in self.dups
            and not _doubtful(g.dets[j])
            and j not in self.discarded
            and SIZE_RATIO[0] <= g.size[j] / self.med_size <= SIZE_RATIO[1]
        )


@dataclass(frozen=True)
class _Gari:
    """Admits a set-aside tile near the hand that touches none of ``discards``."""

    hand: _NearHand
    discards: set[int]

    def __call__(self, j: int) -> bool:
        hand = self.hand
        return (
            hand.scene.is_aside[j]
            and hand.may_lie_apart(j)
            and not _touches(hand.scene.g, (j,), self.discards, hand.unit)
        )


def _scene(g: _Geo, lines: list[_Line], duplicates: set[int], is_aside: list[bool]) -> _Scene:
    """The background lines (less the dead walls' and set-aside tiles) and the dead walls in view."""
    walls = walls_in_view(g, lines, is_aside, duplicates)
    walled: set[int] = set().union(*(w.faces for w in walls))
    # no discards hold a tile the ruleset sets aside: such tiles in a line of discards are gari laid on past it
    background = [{j for j in bg - walled if not is_aside[j]} for bg in background_lines(g, lines, is_aside)]
    return _Scene(g, duplicates, is_aside, background, walls, walled)


def _hand_lines(g: _Geo, lines: Sequence[_Line], most: int | None = None) -> list[int]:
    """The lines that may be the hand (by tile count), else the longest; in their order, and only
    the ``most`` likeliest by :func:`hand_prior` (ties: the earlier) when more may be."""
    order = [i for i, line in enumerate(lines) if HAND_MIN_TILES <= len(line.members) <= HAND_MAX_TILES]
    if not order and lines:
        order = [max(range(len(lines)), key=lambda i: len(lines[i].members))]
    if most is not None and len(order) > most:
        prior = {i: _line_prior(g, lines[i]) for i in order}
        order = sorted(sorted(order, key=lambda i: -prior[i])[:most])
    return order


def hand_prior(med_size: float, n_tiles: int) -> float:
    """How likely a line is the hand before it is read (:attr:`HandRow.prior`): the nearer the
    camera (its median tile size, pixels) the likelier, and less so for a count of tiles a hand
    seldom shows (outside 13 to 22)."""
    return med_size * (1.0 if 13 <= n_tiles <= 22 else 0.6)


def _line_prior(g: _Geo, line: _Line) -> float:
    """:func:`hand_prior` of a line, from what reading it as the hand would take as its row: the
    candidates' prior and the choice of which lines to read (:func:`_hand_lines`) are this one value."""
    return hand_prior(float(np.median(g.size[line.members])), len(_row_tiles(g, line, gaps=True)[0]))


def _near_hand(scene: _Scene, line: _Line) -> _NearHand:
    g = scene.g
    mine = {*line.members, *line.stacked.values()}
    over = shares_inside(g.dets, sorted(mine)) >= APART_OVER_ROW_TILE  # [j, m]: j lies over m
    dups = scene.duplicates | {j for j in np.flatnonzero(over.any(axis=1)).tolist() if j not in mine}
    med_size = float(np.median(g.size[line.members]))
    unit = _make_row(g, line, (), orient=False).unit
    distances = _least_distances(g, line.members, slice(None))
    discarded = frozenset().union(*(bg for bg in scene.background if not bg & mine))
    return _NearHand(scene, line, mine, dups, med_size, unit, NEAR_UNITS * unit + med_size, distances, discarded)


def _tiles_apart(hand: _NearHand) -> tuple[list[int], list[int]]:
    """The detections apart from the hand near it (a set of indicators the zone's edge cuts whole,
    a dead wall near enough whole, gari near what was taken), and every other one not the line's."""
    scene, g = hand.scene, hand.scene.g
    apart: list[int] = []
    unused: list[int] = []
    for j in range(len(g.dets)):
        if j not in hand.mine:
            (apart if hand.may_lie_apart(j) and hand.distance(j) <= hand.near else unused).append(j)
    cut = _cut_by_the_edge(g, apart, unused, hand.unit, hand.may_lie_apart)
    apart += cut
    unused = [j for j in unused if j not in cut]
    reach = list(apart)
    for wall in scene.walls:  # a dead wall near enough (any of its tiles) is taken whole, its far indicators too
        if not wall.faces & hand.mine and min(hand.distance(j) for j in wall.tiles) <= hand.near:
            apart += [j for j in sorted(wall.faces) if j in unused and j not in hand.dups]
            unused = [j for j in unused if j not in wall.faces or j in hand.dups]
            reach += wall.tiles
    # gari lie by the melds, or beyond the indicators: set-aside tiles as near what was taken join it,
    # unless they touch other face-up tiles left out (the edge of someone's discards)
    discards = {
        j
        for j in unused
        if g.dets[j].cls != BACK and not scene.is_aside[j] and j not in hand.dups and not _doubtful(g.dets[j])
    }
    _take_near(g, unused, apart, reach, hand.near, _Gari(hand, discards))
    return apart, unused


def _clusters_apart(hand: _NearHand, row: Row, apart: list[int]) -> tuple[tuple[int, ...], ...]:
    """The tiles apart in clusters (upright faces peeled off someone's discards, indicators parted
    from a pond behind them, gari in a run joined), the nearest the hand first."""
    g, line = hand.scene.g, hand.line
    parts = [
        part
        for grp in _clusters(g, apart, row.unit)
        for part in _peel_upright(g, grp, row)
        for part in _split_near_line(g, part, line, row)
    ]
    return tuple(
        sorted(
            _join_set_aside(g, parts, hand.scene.is_aside, max(row.unit, GARI_JOIN_SIZE * hand.med_size)),
            key=lambda grp: _nearest(g, line.members, grp),
        )
    )


def _without_ponds(
    hand: _NearHand, row: Row, groups: tuple[tuple[int, ...], ...], apart: list[int], unused: list[int]
) -> tuple[tuple[tuple[int, ...], ...], list[int], list[int]]:
    """``groups``, ``apart`` and ``unused`` with the clusters that are someone's discards moved to
    ``unused`` (where every cluster is, the few tiles of each nearest the hand's line stay apart)."""
    scene, g, line, mine, dups = hand.scene, hand.scene.g, hand.line, hand.mine, hand.dups
    dets, walled = g.dets, scene.walled
    others = [bg for bg in scene.background if not bg & mine]
    strays = {
        j
        for j in unused
        if j not in mine
        and j not in dups
        and j not in walled
        and dets[j].cls != BACK
        and not _doubtful(dets[j])
        and not any(j in bg for bg in others)
    }
    doubtful = frozenset(
        j for j in range(len(dets)) if j not in mine and j not in dups and j not in walled and _doubtful(dets[j])
    )
    ponds = [
        grp
        for grp in groups
        if _pond_like(g, grp, row, others, strays, hand.med_size, walled, scene.is_aside, doubtful)
    ]
    if ponds and len(ponds) == len(groups):  # no indicator in view: perhaps laid against a pond
        near_parts = [
            nearest_line
            for grp in ponds
            if (nearest_line := _near_line(g, grp, line))
            and not _pond_like(g, nearest_line, row, others, strays, hand.med_size, walled, scene.is_aside, doubtful)
        ]
        taken = {j for part in near_parts for j in part}
        ponds = [rest for grp in ponds if (rest := tuple(j for j in grp if j not in taken))]
        groups = tuple(sorted(near_parts, key=lambda grp: _nearest(g, line.members, grp)))
    if ponds:
        unused += [j for grp in ponds for j in grp]
        groups = tuple(grp for grp in groups if grp not in ponds)
        apart = [j for j in apart if any(j in grp for grp in groups)]
    return groups, apart, unused


def _wall_indicators(
    hand: _NearHand, groups: tuple[tuple[int, ...], ...], apart: list[int], unused: list[int]
) -> tuple[tuple[tuple[int, ...], ...], list[int], list[int]]:
    """Where a dead wall shows a face not doubtful, its face-up tiles are the indicators: of the
    clusters apart only its faces and the set-aside tiles stay (someone's discards cut by the
    photo's edge look like a wall: their faces are doubtful)."""
    scene, dets = hand.scene, hand.scene.g.dets
    walled, is_aside = scene.walled, scene.is_aside
    if not any(j in walled and not _doubtful(dets[j]) for grp in groups for j in grp):
        return groups, apart, unused
    keep = [
        kept
        for grp in groups
        if (kept := tuple(j for j in grp if j in walled or is_aside[j]))
        and (any(j in walled for j in grp) or len(kept) == len(grp))
    ]
    kept_tiles = {j for grp in keep for j in grp}
    unused += [j for grp in groups for j in grp if j not in kept_tiles]
    apart = [j for j in apart if j in kept_tiles]
    return tuple(keep), apart, unused


def _hand_row(scene: _Scene, line: _Line, rules: Ruleset) -> HandRow:
    """The line read as the hand: its tiles apart in clusters, its row oriented, its structures."""
    g = scene.g
    hand = _near_hand(scene, line)
    apart, unused = _tiles_apart(hand)
    row = _make_row(g, line, apart)
    top_aside = [scene.is_aside[t.det] for t in row.tiles]
    # end tiles with no gap before them left out only as a last resort (see loose_structures)
    structures = _merge(_row_structures(row, top_aside, False))
    loose = not structures
    if loose:
        structures = _merge(_row_structures(row, top_aside, True))
    groups = _clusters_apart(hand, row, apart)
    groups, apart, unused = _without_ponds(hand, row, groups, apart, unused)
    groups, apart, unused = _wall_indicators(hand, groups, apart, unused)
    wall_apart = frozenset(j for j in apart if j in scene.walled)
    direction = np.array(row.direction)
    along = {j: float((g.pts[j] - line.point) @ direction) for j in (*row.dets, *apart)}
    top = {j: g.dets[j].cls for j in apart}
    return HandRow(
        row,
        tuple(structures),
        _best_effort(row),
        tuple(apart),
        tuple(unused),
        _line_prior(g, line),
        groups,
        split_apart(groups, top, rules.set_aside_kinds, walled=wall_apart, along=along)[1],
        wall_apart,
        tuple(along.items()),
        tuple(top_aside),
        loose,
    )


def analyse_layout(
    dets: Sequence[Detection],
    rules: Ruleset | None = None,
    readmit: frozenset[int] = frozenset(),
    drop: frozenset[int] = frozenset(),
    max_candidates: int | None = None,
) -> Layout:
    """Rows, groups, melds, winning-tile candidates and tiles apart, from geometry alone.

    The ruleset (riichi by default) only says which tile kinds are set aside (by the detections'
    top class). ``readmit``: detections to take as tiles though they overlap a surer one (see
    :func:`row_duplicates`). ``drop``: detections to take for no tile (see
    :func:`paiscan.vision.reading.read_hand`: a face-down box among the concealed tiles).
    ``max_candidates``: read as the hand only that many lines, the likeliest (:func:`hand_prior`),
    which are the first that many candidates of the whole layout: a photo of a tray or a table
    holds dozens of lines long enough to be a hand, and reading each as one costs milliseconds.

    >>> dets = [Detection(c, 0.99, (i * 30.0, 0.0, i * 30.0 + 28.0, 40.0)) for i, c in enumerate(range(3))]
    >>> lay = analyse_layout(dets)
    >>> [t.det for t in lay.rows[0].tiles], lay.rows[0].oriented_by
    ([0, 1, 2], 'default')
    """
    rules = rules if rules is not None else get_ruleset("riichi")
    dets = tuple(dets)
    aside_kinds = rules.set_aside_kinds
    if len(dets) < MIN_ROW_TILES:
        return Layout(dets, rules.id, (), (), aside_kinds)
    g = _geo(dets)
    duplicates = (_duplicates(dets) - readmit) | drop
    is_aside = [d.cls != BACK and kind(d.cls) in aside_kinds for d in dets]
    lines, _loose = _extract_lines(g, duplicates, is_aside)
    scene = _scene(g, lines, duplicates, is_aside)
    rows: list[Row] = [_make_row(g, line, (), orient=False) for line in lines]
    candidates: list[HandRow] = []
    for i in _hand_lines(g, lines, max_candidates):
        candidates.append(_hand_row(scene, lines[i], rules))
        rows[i] = candidates[-1].row
    candidates.sort(key=lambda c: -c.prior)
    return Layout(dets, rules.id, tuple(rows), tuple(candidates), aside_kinds)
