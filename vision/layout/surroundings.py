"""What lies around the hand: someone's discards, the indicators and the tiles set aside (gari), and
which clusters apart are which."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import lru_cache

import numpy as np

from paiscan.scoring.engine import Ruleset
from paiscan.scoring.errors import HandError
from paiscan.scoring.registry import get_ruleset
from paiscan.scoring.tiles import BACK, kind
from paiscan.vision.detection import Detection, iou
from paiscan.vision.layout.geometry import (
    CLUSTER_UNITS,
    DUPLICATE_IOU,
    _axis_gap,
    _clusters,
    _face_top,
    _Geo,
    _Line,
    _line_spread,
    _mean_top,
    _nearest,
    _principal,
    _take_near,
)
from paiscan.vision.layout.results import Row, RowTile
from paiscan.vision.layout.sideways import _line_runs

#: another line with this many tiles is background (discards), not indicators
BACKGROUND_ROW_TILES = 6
#: a background line's runs apart by more than this (tile widths) are judged each on its own ...
BACKGROUND_GAP = 1.0
#: ... and only runs with this many face-up tiles are background
BACKGROUND_RUN_TILES = 4
#: a face at a discards' row end whose axis lies this far off the row's (degrees, min and max) is no discard of it
POND_ODD_AXIS = (25.0, 65.0)
#: tiles apart from the hand (indicators, set-aside tiles) lie within this many tile widths of it
NEAR_UNITS = 5.5
#: a cluster apart cut by the near zone's edge is taken whole with this many tiles inside and ``EDGE_CUT_MAX`` in all
EDGE_CUT_INSIDE = 2
#: (see ``EDGE_CUT_INSIDE``) tiles such a cluster has at most
EDGE_CUT_MAX = 3
#: a cluster apart most of whose faces are turned from the hand's (sideways to it, or upside down
#: with this certainty) is someone's pond, not indicators: players lay indicators facing them
TURNED_SURE = 0.5
#: ... but a lone tile's top counts upside down only from this certainty (the classifier misreads tops)
LONE_TURNED_SURE = 0.85
#: a cluster of at most this many tiles is judged as a lone tile (``LONE_TURNED_SURE``)
LONE_TURNED_MAX = 1
#: ... sideways to them: its top over this many degrees off the row's normal
TURNED_AXIS_DEG = 65.0
#: the sine of ``TURNED_AXIS_DEG``
TURNED_AXIS_SIN = math.sin(math.radians(TURNED_AXIS_DEG))
#: upright faces at most peeled off a cluster of turned ones as indicators (:func:`_peel_upright`)
PEEL_MAX = 2
#: ... and only those not touching a turned one (side by side ~1.05 tile widths, one above the other ~1.35)
PEEL_MIN_GAP = 1.45
#: indicators before a pond (:func:`_near_line`): within this many tile sizes across the hand's line of the nearest
#: ...
NEAR_LINE_BAND = 0.5
#: ... when they are at most this many ...
NEAR_LINE_MAX = 3
#: ... and the rest lies at least this many tile sizes further
NEAR_LINE_BEYOND = 0.9
#: a cluster apart whose tiles stray from one line by more than this share of a tile's size lies in
#: rows (a pond); so does one touching a background line (``CLUSTER_UNITS``)
POND_ROW_SPREAD = 0.5
#: a cluster farther from a pond than this many times the pond's row pitch is not its next row (felt between)
POND_PITCH_OVER = 1.4
#: a pond's row pitch is measured within this many degrees of the way to the cluster
POND_STEP_DEG = 30.0
#: ... to tiles at least this share of a tile's size off
POND_ROW_MIN = 0.2
#: set-aside tiles in a run join within ``CLUSTER_UNITS`` of this share of their size (a steep row's unit is short)
#: ...
GARI_JOIN_SIZE = 0.85
#: ... and stray from one line by at most this many tile sizes
GARI_JOIN_SPREAD = 0.25
#: a background line whose mean face top (unit vectors) is shorter than this looks no way at all
FACES_DISAGREE = 0.4
#: a tile apart read with less confidence than this (localizer × classifier) is no indicator nor set aside (felt,
#: wood)
APART_MIN_CONF = 0.15
#: a box off the hand's line lying this share of its area or more over one of its tiles is that tile's second box
APART_OVER_ROW_TILE = 0.45
#: ... nor one the classifier more likely takes for no tile at all (:attr:`Detection.tile_share` under this)
APART_MIN_TILE_SHARE = 0.5
#: the nearest cluster apart may show one indicator over the rules' allowance only while it has at most this many
#: faces
OVER_LIMIT_MAX_FACES = 4


def set_aside_kinds(rules: Ruleset | str) -> frozenset[int]:
    """Tile kinds the ruleset (or the ruleset of that id; none for an unknown id) sets aside when
    shown (Totenko: 1m 5m 9m): its ``set_aside_kinds``."""
    if isinstance(rules, Ruleset):
        return rules.set_aside_kinds
    try:
        return get_ruleset(rules).set_aside_kinds
    except HandError:
        return frozenset()


@lru_cache(maxsize=64)
def max_indicators(rules: Ruleset | str, kans: int) -> int:
    """The most dora indicators the ruleset's table shows for a hand with ``kans`` kans (Boo: one;
    riichi: the dora and ura-dora ones, one more of each per kan), so that a cluster of someone's
    discards is not read as indicators the table cannot show. Cached: every reading a photo's
    enumeration builds asks.

    >>> max_indicators("kansai_boo", 2), max_indicators("totenko_balance", 1)
    (1, 4)
    """
    if isinstance(rules, Ruleset):
        return rules.max_indicators(kans)
    try:
        return get_ruleset(rules).max_indicators(kans)
    except HandError:
        return Ruleset().max_indicators(kans)  # the base ruleset's table


def _pond_run(g: _Geo, run: list[RowTile]) -> list[RowTile]:
    """``run`` (a row of someone's discards) less a tile at either end whose face is turned from the
    run's (the median of its faces' axes) by ``POND_ODD_AXIS`` degrees, read surely
    (``TURNED_SURE``): a pond's discards share an axis, or lie sideways (a riichi discard); a tile
    turned otherwise at its end was laid there, an indicator."""
    known = [float(g.angles[r.det]) for r in run if not r.back and not np.isnan(g.angles[r.det])]
    if len(known) < BACKGROUND_RUN_TILES:
        return run
    doubled = np.radians(2.0 * np.array(known))
    axis = float(np.degrees(np.arctan2(np.median(np.sin(doubled)), np.median(np.cos(doubled)))) / 2.0)

    def odd(r: RowTile) -> bool:
        a = float(g.angles[r.det])
        return (
            not r.back
            and not np.isnan(a)
            and bool(g.sure[r.det] >= TURNED_SURE)
            and POND_ODD_AXIS[0] <= float(_axis_gap(a, axis)) <= POND_ODD_AXIS[1]
        )

    a, b = 0, len(run)
    if odd(run[0]):
        a = 1
    if b - a > 1 and odd(run[-1]):
        b -= 1
    return run[a:b]


def _join_set_aside(
    g: _Geo, groups: Sequence[tuple[int, ...]], is_aside: Sequence[bool], unit: float
) -> list[tuple[int, ...]]:
    """``groups`` with the clusters of set-aside tiles only that touch within ``unit`` joined,
    where the joined ones lie in one line (``GARI_JOIN_SPREAD``)."""
    aside = [grp for grp in groups if all(is_aside[j] for j in grp)]
    if len(aside) < 2:
        return list(groups)
    joined: list[tuple[int, ...]] = []
    for cl in _clusters(g, [j for grp in aside for j in grp], unit):
        parts = [grp for grp in aside if grp[0] in cl]
        if _line_spread(g, cl) > GARI_JOIN_SPREAD or _off_the_run(g, cl, max(parts, key=len)):
            joined += parts
        else:
            joined.append(cl)
    return [*(grp for grp in groups if grp not in aside), *joined]


def _off_the_run(g: _Geo, cl: Sequence[int], run: Sequence[int]) -> bool:
    """A tile of ``cl`` lies off the line through ``run`` (two tiles or more) by over
    ``GARI_JOIN_SPREAD`` of its size: a best line through them all may still pass near each, when
    one tile at an end strays."""
    if len(run) < 2 or len(run) == len(cl):
        return False
    d, centre = _principal(g.pts[list(run)])
    normal = np.array([-d[1], d[0]])
    size = float(np.median(g.size[list(cl)]))
    return any(abs(float((g.pts[j] - centre) @ normal)) > GARI_JOIN_SPREAD * size for j in cl if j not in run)


def _one_set(max_indicators: int) -> int:
    """One set of indicators in an allowance of ``max_indicators`` (dora and ura-dora, one more of
    each per kan): the dora ones, or the ura-dora ones."""
    return max(1, max_indicators // 2)


def split_apart(
    groups: Iterable[Sequence[int]],
    cls_of: Mapping[int, int],
    aside_kinds: frozenset[int],
    max_indicators: int | None = None,
    walled: frozenset[int] = frozenset(),
    along: Mapping[int, float] | None = None,
    indicator_shown: bool = True,
    hand_middle: float | None = None,
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Tiles apart as (dora indicators, set-aside tiles), by cluster, nearest cluster first: a
    cluster of set-aside kinds only (Totenko's manzu) is set aside, unless it lies in a dead wall
    (``walled``: players flip the indicator in place); in a cluster with any other tile they are
    indicators too. Face-down tiles are neither. The nearest cluster of indicators
    is taken whole (up to ``max_indicators`` faces, one more while at most
    ``OVER_LIMIT_MAX_FACES``, fewer than a background row); a further
    cluster only while the indicators stay within ``max_indicators`` and it holds no more than one
    set of indicators (half ``max_indicators``: the dora or the ura-dora ones): past that it is
    someone's discards (a short line of them beyond a lone indicator read as five more).

    A photo shows the dora indicator (the conventions ask for it; unless ``indicator_shown`` is
    false), so when no cluster is one and several clusters are set aside, the leftmost ``along``
    the hand (the nearest, without positions) is it, if it has no more tiles than the dora
    indicators alone (half ``max_indicators``: one, and one per kan): gari are laid by the melds,
    at the hand's right. One set-aside cluster alone is the indicator too when it lies left of
    ``hand_middle`` (the middle of the span ``along`` it of the concealed tiles and melds), else
    it stays set aside: the indicator may be out of the picture.

    >>> split_apart([(1, 2), (3,), (4, 5, 6)], {1: 0, 2: 9, 3: 8, 4: 1, 5: 2, 6: 3}, frozenset({0, 8}), 2)
    ((1, 2), (3,))
    >>> split_apart([(1, 2), (3,)], {1: 0, 2: 8, 3: 8}, frozenset({0, 8}), 2, along={1: 9.0, 2: 10.0, 3: 2.0})
    ((3,), (1, 2))
    >>> split_apart([(1, 2), (3,)], {1: 0, 2: 8, 3: 8}, frozenset({0, 8}), 2, along={1: 9.0, 2: 10.0, 3: 2.0},
    ...             indicator_shown=False)
    ((), (1, 2, 3))
    >>> split_apart([(1,), (2, 3, 4, 5)], {1: 27, 2: 30, 3: 7, 4: 12, 5: 20}, frozenset(), 6)
    ((1,), ())
    >>> split_apart([(3,)], {3: 8}, frozenset({0, 8}), 2)
    ((), (3,))
    >>> split_apart([(3,)], {3: 8}, frozenset({0, 8}), 2, along={3: 2.0}, hand_middle=5.0)
    ((3,), ())
    """
    dora: list[int] = []
    aside: list[list[int]] = []
    clusters = 0
    for grp in groups:
        faces = [d for d in grp if cls_of[d] != BACK]
        if not faces:
            continue
        if all(kind(cls_of[d]) in aside_kinds for d in faces) and not any(d in walled for d in faces):
            aside.append(faces)
            continue
        if clusters == 0:  # one more than the rules allow still reads as indicators (and is seen)
            fits = len(faces) < BACKGROUND_ROW_TILES and (
                max_indicators is None
                or len(faces) <= max_indicators
                or (len(faces) == max_indicators + 1 and len(faces) <= OVER_LIMIT_MAX_FACES)
            )
        else:  # ... and a further one no larger than one set of indicators
            fits = max_indicators is None or (
                len(dora) + len(faces) <= max_indicators and len(faces) <= _one_set(max_indicators)
            )
        if fits:
            dora.extend(faces)
            clusters += 1

    def mean_along(grp: Sequence[int]) -> float:
        return float(np.mean([(along or {}).get(d, 0.0) for d in grp]))

    if not dora and aside and indicator_shown:
        first = min(aside, key=mean_along)
        lone_left = (
            len(aside) == 1
            and along is not None
            and hand_middle is not None
            and (all(d in along for d in first) and mean_along(first) < hand_middle)
        )
        if (len(aside) > 1 or lone_left) and (max_indicators is None or len(first) <= _one_set(max_indicators)):
            dora = first
            aside.remove(first)
    return tuple(dora), tuple(d for grp in aside for d in grp)


def _face_turned(g: _Geo, j: int, row: Row, min_sure: float = TURNED_SURE) -> bool | None:
    """Whether tile ``j``'s face is turned from the way the hand's faces look: sideways to them
    (``TURNED_AXIS_DEG``), or (at least ``min_sure`` of its top) upside down; ``None`` where its
    angle is unknown."""
    a = g.angles[j]
    if np.isnan(a):
        return None
    d = np.array(row.direction)
    up = np.array([d[1], -d[0]])
    return _face_across(g, j, row) or (bool(g.sure[j] >= min_sure) and float(_face_top(a) @ up) < -0.5)


def _face_across(g: _Geo, j: int, row: Row) -> bool:
    """Tile ``j``'s face lies sideways to the hand's faces (its axis ``TURNED_AXIS_DEG`` or more off
    the row's normal), whichever way its top points; false where its angle is unknown."""
    a = g.angles[j]
    return not np.isnan(a) and abs(float(_face_top(a) @ np.array(row.direction))) > TURNED_AXIS_SIN


def _turned_away(g: _Geo, group: Sequence[int], row: Row) -> bool:
    """Most faces of ``group`` (with known angles) turned from the way the hand's faces look (a
    lone tile's top counts upside down only from ``LONE_TURNED_SURE``)."""
    min_sure = LONE_TURNED_SURE if len(group) <= LONE_TURNED_MAX else TURNED_SURE
    turned = [t for j in group if (t := _face_turned(g, j, row, min_sure)) is not None]
    return bool(turned) and len(turned) == len(group) and 2 * sum(turned) > len(turned)


def _peel_upright(g: _Geo, group: Sequence[int], row: Row) -> list[tuple[int, ...]]:
    """A cluster of mostly turned faces (someone's discards) that an indicator touches: its
    faces upright to the hand, sure of their top (at most ``PEEL_MAX`` of them, each nearer the
    hand than the turned ones' middle and touching none of them closer than ``PEEL_MIN_GAP``), as
    clusters of their own, and the rest; else the cluster. Where every turned face lies sideways
    to the hand (:func:`_face_across`), a face along the hand's axis counts as upright however
    unsure its top: it cannot be one of those discards, and an indicator that looks alike upside
    down (``TOP_DOUBTED``) is never sure of its top."""
    if len(group) < 3 or not _turned_away(g, group, row):
        return [tuple(group)]
    turned = {j: _face_turned(g, j, row) for j in group}
    across = all(_face_across(g, j, row) for j in group if turned[j])
    upright = [j for j in group if turned[j] is False and (across or g.sure[j] >= TURNED_SURE)]
    rest = [j for j in group if j not in upright]
    if not upright or len(upright) > PEEL_MAX:
        return [tuple(group)]
    hand = list(row.dets)
    middle = np.mean(g.pts[rest], axis=0)
    gap_to_hand = float(np.min(np.linalg.norm(g.pts[hand] - middle, axis=1)))
    if any(
        _nearest(g, hand, (j,)) >= gap_to_hand or _nearest(g, rest, (j,)) < PEEL_MIN_GAP * row.unit for j in upright
    ):
        return [tuple(group)]
    return [*_clusters(g, upright, row.unit), tuple(rest)]


def _pond_like(
    g: _Geo,
    group: Sequence[int],
    row: Row,
    background: Sequence[set[int]],
    strays: set[int],
    med_size: float,
    walled: set[int],
    is_aside: Sequence[bool],
    doubtful: frozenset[int] = frozenset(),
) -> bool:
    """A cluster apart that is someone's discards, not indicators (none of it in a dead wall or set
    aside): turned away, in rows, beside a background line, touching stray tiles, or running on
    into doubtful ones in its line."""
    return not any(j in walled or is_aside[j] for j in group) and (
        _turned_away(g, group, row)
        or _in_rows(g, group)
        or _beside_background(g, group, background, row, med_size)
        or _touches(g, group, strays, row.unit, med_size)
        or _line_into_doubtful(g, group, doubtful, row.unit)
    )


def _line_into_doubtful(g: _Geo, group: Sequence[int], doubtful: frozenset[int], unit: float) -> bool:
    """``group`` runs on, in one line (``POND_ROW_SPREAD``), into ``doubtful`` tiles touching it
    to ``BACKGROUND_RUN_TILES`` tiles or more: someone's row of discards that the frame cuts, its
    cut tiles read doubtfully (a sliver even as a back) and so left out, the whole ones beside them
    looking like indicators."""
    if not doubtful:
        return False
    grown = list(group)
    _take_near(g, sorted(doubtful), grown, grown, CLUSTER_UNITS * unit, lambda j: True)
    return len(grown) > len(group) and len(grown) >= BACKGROUND_RUN_TILES and not _in_rows(g, grown)


def _near_line(g: _Geo, group: Sequence[int], line: _Line) -> tuple[int, ...]:
    """The tiles of a pond-like cluster nearest the hand's line (within ``NEAR_LINE_BAND`` tile
    sizes across it of the nearest), when they are few (``NEAR_LINE_MAX``) and the rest lies a row
    further (``NEAR_LINE_BEYOND``): indicators laid between the hand and someone's discards (the
    caller asks only when no other cluster shows one: a pond's short first row looks the same);
    else none."""
    if len(group) < NEAR_LINE_MAX + 2:
        return ()
    d = line.direction
    normal = np.array([-d[1], d[0]])
    idx = np.array(group)
    size = float(np.median(g.size[idx]))
    v = np.abs((g.pts[idx] - line.point) @ normal) / size
    near = v <= v.min() + NEAR_LINE_BAND
    if near.sum() > NEAR_LINE_MAX or v[~near].min() < v.min() + NEAR_LINE_BEYOND:
        return ()
    return tuple(int(j) for j in idx[near])


def _split_near_line(g: _Geo, group: tuple[int, ...], line: _Line, row: Row) -> tuple[tuple[int, ...], ...]:
    """``group`` parted into its tiles nearest the hand's line and the rest when :func:`_near_line`
    finds such a few and the rest, unlike them, is turned from the way the hand's faces look
    (:func:`_turned_away`), or lies past the rest's own row pitch (:func:`_past_row_pitch`, felt
    between):
    indicators laid between the hand and someone's discards, touching them. Else whole: a pond's
    short first row, facing as the hand does, looks the same."""
    near = _near_line(g, group, line)
    rest = tuple(j for j in group if j not in near)
    if not near:
        return (group,)
    if (_turned_away(g, rest, row) and not _turned_away(g, near, row)) or _past_row_pitch(g, near, set(rest)):
        return near, rest
    return (group,)


def _in_rows(g: _Geo, group: Sequence[int]) -> bool:
    """The tiles of ``group`` lie in more than one line (their centres stray from the best line
    through them by over ``POND_ROW_SPREAD`` tile sizes): rows of discards, not indicators, which
    lie in the dead wall's one line."""
    return _line_spread(g, group) > POND_ROW_SPREAD


def _doubtful(d: Detection) -> bool:
    """A tile apart too doubtful to be an indicator or a set-aside tile (``APART_MIN_CONF``,
    ``APART_MIN_TILE_SHARE``): on real photos mostly felt and floorboards."""
    return d.confidence < APART_MIN_CONF or d.tile_share < APART_MIN_TILE_SHARE


def _beside_background(
    g: _Geo, group: Sequence[int], background: Sequence[set[int]], row: Row, ref_size: float | None = None
) -> bool:
    """A tile of ``group`` touches a background line's (``CLUSTER_UNITS``) and its faces do not
    look the other way (a line whose faces disagree, ``FACES_DISAGREE``, looks no way), or they
    do but look away from the hand's too (upside down to ``row``'s, a pond's tile laid upside down): the pond's
    next row (indicators may lie by someone else's pond,
    facing the player). Only the tops the classifier is sure of (``TURNED_SURE``) count: a far or
    cut tile's top is a guess.
    With ``ref_size`` (the hand's tile size) "touching" is measured in the tiles' own size: the
    pond lies farther than the hand, its tiles smaller and its gaps too."""
    top = _mean_top(g, group, TURNED_SURE)
    d = row.direction
    upside_down = top is not None and float(top @ np.array([d[1], -d[0]])) < -0.5
    for bg in background:
        if not bg or _nearest(g, bg, group, ref_size) > CLUSTER_UNITS * row.unit:
            continue
        if _past_row_pitch(g, group, bg):
            continue
        theirs = _mean_top(g, bg)
        if (
            top is None
            or theirs is None
            or float(np.linalg.norm(theirs)) < FACES_DISAGREE
            or float(top @ theirs) > 0
            or upside_down
        ):
            return True
    return False


def _past_row_pitch(g: _Geo, group: Sequence[int], pond: set[int]) -> bool:
    """``group`` lies farther from ``pond`` (a background line, or the rest of a cluster) than
    ``POND_PITCH_OVER`` times the pond's own pitch that way: felt between them, not the pond's next
    row, whose rows touch (in a steep photo a pond's rows lie a fraction of a tile's size apart,
    less than the gap before indicators laid by it). The step is from the pond's tile nearest
    ``group`` to the nearest tile of ``group`` (scaled to the pond's tile size); the pitch, the
    median over the pond's tiles of the way to the nearest face-up tile behind each, that way
    (within ``POND_STEP_DEG``, at least ``POND_ROW_MIN`` of its size off, not a second box of it:
    ``DUPLICATE_IOU``), the median riding over tiles the localizer missed. False where no tile lies
    behind any."""
    idx, mine = sorted(pond), list(group)
    dist = np.linalg.norm(g.pts[mine][:, None, :] - g.pts[idx][None, :, :], axis=2)
    a, b = np.unravel_index(int(np.argmin(dist)), dist.shape)
    step = g.pts[mine[a]] - g.pts[idx[b]]
    gap = float(np.linalg.norm(step))
    if gap == 0.0:
        return False
    way = step / gap
    gap *= 2.0 * g.size[idx[b]] / (g.size[idx[b]] + g.size[mine[a]])  # a larger tile's centre lies farther
    cos_min = math.cos(math.radians(POND_STEP_DEG))
    others = ~g.backs
    others[mine] = False
    pitches = []
    for p in idx:
        back = g.pts[p] - g.pts
        far = np.linalg.norm(back, axis=1)
        behind = np.flatnonzero(others & (far >= POND_ROW_MIN * g.size[p]) & (back @ way >= cos_min * far))
        steps = [float(far[q]) for q in behind if iou(g.dets[q].box, g.dets[p].box) < DUPLICATE_IOU]
        if steps:
            pitches.append(min(steps))
    return bool(pitches) and gap > POND_PITCH_OVER * float(np.median(pitches))


def _touches(g: _Geo, group: Sequence[int], strays: set[int], unit: float, ref_size: float | None = None) -> bool:
    """A tile of ``group`` touches (``CLUSTER_UNITS``) one of ``strays``: face-up tiles beyond
    the near zone (or of another size) that are no background line. A group that runs on into
    them is the near end of someone's discards; indicators lie alone or in the dead wall. Doubtful tiles
    (:func:`_doubtful`) do not count. With ``ref_size`` (the hand's tile size)
    "touching" is measured in the tiles' own size, as by :func:`_beside_background`: discards
    farther away are smaller and so are their gaps."""
    return bool(strays) and _nearest(g, strays, group, ref_size) <= CLUSTER_UNITS * unit


def _cut_by_the_edge(
    g: _Geo, inside: list[int], outside: list[int], unit: float, admits: Callable[[int], bool]
) -> list[int]:
    """The tiles of ``outside`` (that ``admits``) completing a cluster (touching: ``CLUSTER_UNITS``)
    of ``inside`` that holds ``EDGE_CUT_INSIDE`` of them or more and ``EDGE_CUT_MAX`` tiles in all:
    a set of indicators the near zone's edge cuts."""
    grown = list(inside)
    _take_near(g, list(outside), grown, grown, CLUSTER_UNITS * unit, admits)
    out: list[int] = []
    for cluster in _clusters(g, grown, unit):
        beyond = [j for j in cluster if j not in inside]
        if beyond and len(cluster) - len(beyond) >= EDGE_CUT_INSIDE and len(cluster) <= EDGE_CUT_MAX:
            out += beyond
    return out


def _background_part(g: _Geo, line: _Line) -> set[int]:
    """The line's runs (cut at gaps over ``BACKGROUND_GAP``) of ``BACKGROUND_RUN_TILES`` faces or
    more, less a tile at an end turned otherwise (:func:`_pond_run`): a short cluster across a gap
    (indicators) is no part of a row of discards."""
    out: set[int] = set()
    for run in _line_runs(g, line, lambda gap: gap > BACKGROUND_GAP):
        if sum(not r.back for r in run) >= BACKGROUND_RUN_TILES:
            run = _pond_run(g, run)
            out |= {r.det for r in run} | {r.stacked for r in run if r.stacked is not None}
    return out


def background_lines(g: _Geo, lines: Sequence[_Line], is_aside: Sequence[bool]) -> list[set[int]]:
    """Someone's discards: the runs of faces (:func:`_background_part`) of each line with
    ``BACKGROUND_ROW_TILES`` face-up tiles or more (face-down tiles do not count: a dead wall is a
    line of backs with the indicators), not all of set-aside kinds."""
    return [
        part
        for line in lines
        if sum(not g.backs[i] for i in line.members) >= BACKGROUND_ROW_TILES
        and not all(is_aside[i] for i in line.members)
        and (part := _background_part(g, line))
    ]
