"""Every way to read a row as concealed tiles, the winning tile and melds, with a geometric cost each
(the table of costs below: comparable to the classifier's ``ln(p_top / p)``)."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import replace
from functools import cache
from typing import Any

from paiscan.vision.layout.dead_wall import MELD_MIN_FACES, _between_backs, _face_up_run
from paiscan.vision.layout.results import (
    FROM3,
    FROM4,
    HAND_MIN_TILES,
    HandRow,
    MeldShape,
    Row,
    RowTile,
    Structure,
    _split_gap,
    _with_gaps,
)
from paiscan.vision.layout.rows import EXCLUDE_GAP, _plainly_wider
from paiscan.vision.layout.sideways import box_margin

#: unsure sideways judgements read reversed at most, per row
MAX_UNSURE = 3
#: an end group (up to ``MAX_EXCLUDED`` tiles) this many tile widths out may be left out of the hand
EXCLUDE_OPTION_GAP = 0.6
#: tiles at a row end (no call marks among them) left out at most: indicators laid in line
MAX_EXCLUDED = 3
#: ... and a shorter gap (tile widths) will do, down to this, when it stands out from the row's gaps ...
EXCLUDE_MIN_GAP = 0.4
#: ... by this many tile widths over the row's split gap
EXCLUDE_GAP_OVER_SPLIT = 0.15
#: groups at a row end that may be left out in turn (indicators, then gari beyond them)
END_GROUPS_EXCLUDED = 2
#: a gap in the concealed tiles this many tile widths over the split gap likely ends them (``INNER_GAP_COST``)
INNER_GAP_OVER = 0.1
#: structures kept per row at most, cheapest first
MAX_STRUCTURES = 96

# ---------------------------------------------------------------------------------- the table of costs
# Geometric costs of a structure, comparable to the classifier's (ln(p_top / p)): a structure's cost is
# the sum of the costs of what it assumes.
NO_GAP_LAST_COST = 0.3  # no visible gap: the winning tile is the rightmost concealed tile
NO_GAP_OTHER_COST = 0.6  # ... or any other concealed tile (the player sorted it in)
WIN_AGAINST_GAP_COST = 1.5  # a winning tile other than the one a visible gap shows
WIN_AGAINST_WEAK_GAP_COST = 1.0  # a winning tile other than the one a weak gap (``WEAK_GAP_MIN``) sets apart
WIN_AFTER_MELDS_COST = 0.2  # a lone tile after the melds
SPLIT_IN_MELD_COST = 1.5  # a visible gap inside one meld
MELD_TOUCH_COST = 0.1  # two melds touching (common)
HAND_TOUCHES_MELD_COST = 0.3  # no gap between the concealed tiles and the first meld
INNER_GAP_COST = 1.0  # per gap in the concealed tiles ``INNER_GAP_OVER`` over the split gap
FACE_UP_CLOSED_KAN_COST = 1.0  # four equal upright tiles shown apart, read as a closed kan
CLOSED_KAN_INNER_BACKS_COST = 0.3  # a closed kan shown face–back–back–face
EXCLUDE_COST = 1.0  # a group at a row end left out of the hand (an indicator)
EXCLUDE_SHORT_GAP_COST = 2.0  # ... plus this per tile width its gap is short of EXCLUDE_OPTION_GAP
MARKED_EXCLUDE_COST = 0.5  # ... plus this when it is a lone sideways tile
SET_ASIDE_EXCLUDE_COST = 0.1  # a group of set-aside tiles (gari) at a row end left out
LOOSE_EXCLUDE_COST = 1.0  # ... end tiles with no gap left out, more (only when no reading fits the count)
DOUBTFUL_EXCLUDE_COST = 0.2  # end tiles all read under ``DOUBTFUL_END_CONF`` left out (felt, a rack's edge)
UNSURE_FLIP_COST = 0.5  # an unsure sideways judgement read reversed ...
UNSURE_MARGIN_COST = 3.0  # ... plus this per unit of its margin
#: a row read from the end its orientation cue did not choose, by cue
FLIP_COST = {
    "faces": 2.0,
    "stacked": 1.5,
    "melds": 1.5,
    "melds_weak": 0.3,
    "win_gap": 0.8,
    "weak_gap": 0.3,
    "apart": 0.1,
    "default": 0.1,
    "flipped": 0.1,
}


def _chunk(row: Row, p: int, q: int) -> tuple[MeldShape, float] | None:
    """The meld formed by row positions ``p..q-1``, with its cost, or ``None``."""
    ts = row.tiles[p:q]
    n = q - p
    side = [i for i, t in enumerate(ts) if t.sideways]
    back = [i for i, t in enumerate(ts) if t.back]
    stacked = [i for i, t in enumerate(ts) if t.stacked is not None]
    cost = SPLIT_IN_MELD_COST * sum(row.split_after(p + i) for i in range(n - 1))
    dets = tuple(t.det for t in ts)
    if n == 3:
        if back or len(side) != 1:
            return None
        c = side[0]
        st = ts[c].stacked
        if stacked == [c] and st is not None:
            return MeldShape((*dets, st), "added_kan", c, FROM3[c]), cost
        if stacked:
            return None
        return MeldShape(dets, "call", c, FROM3[c]), cost
    if n != 4 or stacked:
        return None
    if not side:
        if back == [0, 3]:
            return MeldShape(dets, "closed_kan"), cost
        if back == [1, 2]:
            return MeldShape(dets, "closed_kan"), cost + CLOSED_KAN_INNER_BACKS_COST
        apart_before = p > 0 and row.split_after(p - 1)
        apart_after = q == len(row.tiles) or row.split_after(q - 1)
        if not back and apart_before and apart_after:  # four equal tiles shown face up, apart
            return MeldShape(dets, "closed_kan"), cost + FACE_UP_CLOSED_KAN_COST
        return None
    if back:
        return None
    if len(side) == 1:
        return MeldShape(dets, "open_kan", side[0], FROM4[side[0]]), cost
    if len(side) == 2 and side[1] == side[0] + 1:
        return MeldShape(dets, "added_kan", side[0], ("left", "across", "right")[side[0]]), cost
    return None


def _partitions(row: Row, start: int, end: int) -> list[tuple[tuple[MeldShape, ...], float]]:
    """Every split of positions ``start..end-1`` into melds."""

    @cache
    def part(p: int) -> tuple[tuple[tuple[MeldShape, ...], float], ...]:
        if p == end:
            return (((), 0.0),)
        out: list[tuple[tuple[MeldShape, ...], float]] = []
        for n in (3, 4):
            q = p + n
            if q > end:
                continue
            ch = _chunk(row, p, q)
            if ch is None:
                continue
            shape, c = ch
            boundary = 0.0 if q == end or row.split_after(q - 1) else MELD_TOUCH_COST
            for rest, rc in part(q):
                out.append(((shape, *rest), c + boundary + rc))
        return tuple(out)

    return list(part(start))


def _end_options(row: Row, top_aside: Sequence[bool], left: bool, loose: bool = False) -> list[tuple[int, float]]:
    """How many tiles at one end may be left out of the hand, with the cost (``loose``: also
    up to ``MAX_EXCLUDED`` tiles with no gap before them, none carrying a stacked tile nor
    sideways unless doubtful; see ``LOOSE_EXCLUDE_COST``). End tiles all read doubtfully may be
    left out at ``DOUBTFUL_EXCLUDE_COST`` either way: not only when nothing else reads."""
    groups = row.groups
    opts: list[tuple[int, float]] = [(0, 0.0)]
    ends = row.tiles if left else row.tiles[::-1]
    if not loose:  # end tiles read doubtfully (a cut indicator, felt) may always be left out
        k = 0
        while k < MAX_EXCLUDED and len(row.tiles) - k > HAND_MIN_TILES and ends[k].doubtful and ends[k].stacked is None:
            k += 1
            opts.append((k, DOUBTFUL_EXCLUDE_COST))
    if loose:
        for k in range(1, MAX_EXCLUDED + 1):
            if len(row.tiles) - k < HAND_MIN_TILES or any(
                t.stacked is not None or (t.sideways and not t.doubtful) for t in ends[:k]
            ):
                break
            doubtful = all(t.doubtful for t in ends[:k])
            opts.append((k, DOUBTFUL_EXCLUDE_COST if doubtful else EXCLUDE_COST + LOOSE_EXCLUDE_COST))
    found: list[tuple[int, float]] = []
    # the outermost group, then (indicators laid inside gari) the next one in, each apart
    taken, cost = 0, 0.0
    for depth in range(min(END_GROUPS_EXCLUDED, len(groups) - 1)):
        c = _end_group_cost(row, top_aside, groups, depth, left)
        if c is None:
            break
        taken += len(groups[depth] if left else groups[-1 - depth])
        cost += c
        found.append((taken, cost))
    best = dict(opts)
    for k, c in found:
        best[k] = min(c, best.get(k, math.inf))
    return sorted(best.items())


def _end_group_cost(
    row: Row, top_aside: Sequence[bool], groups: Sequence[Sequence[int]], depth: int, left: bool
) -> float | None:
    """The cost of leaving the group ``depth`` groups in from one end out of the hand (its gap is
    the one on its hand side), or ``None`` when it cannot be left out."""
    g = groups[depth] if left else groups[-1 - depth]
    gap = row.tiles[groups[depth + 1][0]].gap_before if left else row.tiles[g[0]].gap_before
    tiles = [row.tiles[p] for p in g]
    if any(t.marked for t in tiles):
        # a lone sideways tile far out is no meld (a meld has three or four tiles): an indicator
        if len(g) == 1 and gap >= EXCLUDE_GAP and tiles[0].stacked is None:
            return EXCLUDE_COST + MARKED_EXCLUDE_COST
        return None
    if all(top_aside[p] for p in g):
        return SET_ASIDE_EXCLUDE_COST
    if len(g) <= MAX_EXCLUDED and gap >= min(
        EXCLUDE_OPTION_GAP, max(EXCLUDE_MIN_GAP, row.split_gap + EXCLUDE_GAP_OVER_SPLIT)
    ):
        return EXCLUDE_COST + EXCLUDE_SHORT_GAP_COST * max(0.0, EXCLUDE_OPTION_GAP - gap)
    return None


def _structures(row: Row, top_aside: Sequence[bool], loose: bool = False) -> list[Structure]:
    n = len(row.tiles)
    det = [t.det for t in row.tiles]
    found: dict[tuple[Any, ...], Structure] = {}

    def add(s: Structure) -> None:
        old = found.get(s.key)
        if old is None or s.cost < old.cost:
            found[s.key] = s

    for a, ca in _end_options(row, top_aside, left=True, loose=loose):
        for cut, cb in _end_options(row, top_aside, left=False, loose=loose):
            b = n - cut
            if b - a < 2:
                continue
            excluded = (*det[:a], *det[b:])
            marks = [i for i in range(a, b) if row.tiles[i].marked]
            ends = [(b, False)]
            last = row.tiles[b - 1]
            if marks and marks[-1] < b - 1 and not last.marked and row.split_after(b - 2):
                ends.append((b - 1, True))
            for e, win_after in ends:
                mk = [i for i in marks if i < e]
                if mk:
                    f = mk[0]
                    starts = {f - 3, f - 2, f - 1, f}
                    starts |= {f - k for k in (4, 8) if f - k > a and row.split_after(f - k - 1)}
                else:
                    starts = {e} | {e - k for k in (4, 8) if e - k > a and row.split_after(e - k - 1)}
                for m in sorted(starts):
                    if m <= a:
                        continue
                    prefix = det[a:m]
                    touch = HAND_TOUCHES_MELD_COST if m < e and m > a and not row.split_after(m - 1) else 0.0
                    touch += INNER_GAP_COST * sum(
                        1 for q in range(a + 1, m - 2) if row.tiles[q + 1].gap_before >= row.split_gap + INNER_GAP_OVER
                    )
                    for melds, pc in _partitions(row, m, e):
                        k = len(melds)
                        base = ca + cb + pc + touch
                        if win_after:
                            if len(prefix) == 13 - 3 * k and k:
                                add(
                                    Structure(
                                        tuple(prefix),
                                        det[e],
                                        melds,
                                        excluded,
                                        base + WIN_AFTER_MELDS_COST,
                                        "after_melds",
                                    )
                                )
                            continue
                        if len(prefix) != 14 - 3 * k:
                            continue
                        gap_win = len(prefix) >= 2 and row.split_after(m - 2)
                        weak_win = not gap_win and _plainly_widest(row, m - 1, range(a + 1, m - 1))
                        # a lone tile apart at the start: this row is likely read from the wrong end
                        lone_first = len(prefix) >= 2 and row.split_after(a)
                        weak_first = not lone_first and _plainly_widest(row, a + 1, range(a + 2, m))
                        for i in range(a, m):
                            rest = tuple(det[j] for j in range(a, m) if j != i)
                            if gap_win and i == m - 1:
                                add(Structure(rest, det[i], melds, excluded, base, "gap"))
                            elif gap_win:
                                add(
                                    Structure(rest, det[i], melds, excluded, base + WIN_AGAINST_GAP_COST, "against_gap")
                                )
                            elif weak_win and i == m - 1:
                                add(Structure(rest, det[i], melds, excluded, base, "weak_gap"))
                            elif weak_win:
                                add(
                                    Structure(
                                        rest,
                                        det[i],
                                        melds,
                                        excluded,
                                        base + WIN_AGAINST_WEAK_GAP_COST,
                                        "against_weak_gap",
                                    )
                                )
                            else:
                                c = NO_GAP_LAST_COST if i == m - 1 else NO_GAP_OTHER_COST
                                c += WIN_AGAINST_GAP_COST if lone_first else 0.0
                                c += WIN_AGAINST_WEAK_GAP_COST if weak_first else 0.0
                                add(Structure(rest, det[i], melds, excluded, base + c, "no_gap"))
    return _merge(found.values())


def _plainly_widest(row: Row, at: int, others: range) -> bool:
    """Whether the gap before the tile at ``at`` sets it a little apart from the tiles at
    ``others`` (:func:`_plainly_wider`)."""
    return _plainly_wider(row.tiles[at].gap_before, [row.tiles[q].gap_before for q in others])


def _sideways_variants(row: Row) -> list[tuple[Row, float]]:
    """The row as judged (a sideways face between backs, with too few face-up tiles for a meld,
    taken upright), and with its least certain sideways judgements reversed (at most
    ``MAX_UNSURE`` tiles within ``UNSURE_MARGIN`` of the threshold), each with its cost."""
    # a sideways face among fewer than MELD_MIN_FACES face-up tiles, backs on both sides, marks no
    # call: a closed kan's face seen steeply. At the
    # row's end it may still be a call whose other tiles were missed: it stays as judged
    backs = [t.back for t in row.tiles]
    lone = [
        p
        for p, t in enumerate(row.tiles)
        if t.sideways and _between_backs(backs, p) and _face_up_run(backs, p) < MELD_MIN_FACES
    ]
    if lone:
        row = _retiled(row, [replace(t, sideways=False) if p in lone else t for p, t in enumerate(row.tiles)])
    # least sure first; of equal margins (guessed ones: round faces, cut tiles) first those whose
    # box most says otherwise
    unsure = sorted(
        (abs(t.side_margin), -_box_disagrees(t), p)
        for p, t in enumerate(row.tiles)
        if not t.back and t.stacked is None and t.side_unsure
    )[:MAX_UNSURE]
    out: list[tuple[Row, float]] = [(row, 0.0)]
    for mask in range(1, 1 << len(unsure)):
        tiles = list(row.tiles)
        cost = 0.0
        for bit, (margin, _, p) in enumerate(unsure):
            if mask >> bit & 1:
                tiles[p] = replace(tiles[p], sideways=not tiles[p].sideways)
                cost += UNSURE_FLIP_COST + UNSURE_MARGIN_COST * margin
        out.append((_retiled(row, tiles), cost))
    return out


def _box_disagrees(t: RowTile) -> float:
    """How far the tile's box says the other way from its sideways judgement (:func:`box_margin`;
    negative: the box agrees)."""
    box = float(box_margin(t.along / t.across, t.ref_ratio))
    return -box if t.sideways else box


def _retiled(row: Row, tiles: Sequence[RowTile]) -> Row:
    """``row`` holding ``tiles`` instead, their gaps and the split gap measured again."""
    gapped = _with_gaps(list(tiles))
    return replace(row, tiles=tuple(gapped), split_gap=_split_gap(gapped))


def _merge(*parts: Iterable[Structure]) -> list[Structure]:
    found: dict[tuple[Any, ...], Structure] = {}
    for part in parts:
        for st in part:
            old = found.get(st.key)
            if old is None or st.cost < old.cost:
                found[st.key] = st
    return sorted(found.values(), key=lambda st: st.cost)[:MAX_STRUCTURES]


def _row_structures(row: Row, top_aside: Sequence[bool], loose: bool) -> list[Structure]:
    """Every structure of the row (and of the row less a doubtful box inside it:
    :func:`_inner_doubtful_variants`) and of its sideways variants, read from either end (the
    other end at a cost that says how sure the orientation cue was)."""
    found: list[Structure] = []
    for kept, kcost, dropped, kept_aside in _inner_doubtful_variants(row, top_aside):
        for variant, vcost in _sideways_variants(kept):
            for oriented, ocost in ((variant, 0.0), (variant.flipped(), FLIP_COST[row.oriented_by])):
                aside = kept_aside if ocost == 0.0 else kept_aside[::-1]
                found.extend(
                    replace(st, cost=st.cost + kcost + vcost + ocost, excluded=(*st.excluded, *dropped))
                    for st in _structures(oriented, aside, loose)
                )
    return found


def _inner_doubtful_variants(
    row: Row, top_aside: Sequence[bool]
) -> list[tuple[Row, float, tuple[int, ...], Sequence[bool]]]:
    """The row, and the row without its doubtful face-up tile that overlaps a neighbour inside it
    (the first, if several) at ``DOUBTFUL_EXCLUDE_COST``: a box on the felt squeezed
    between two groups. Each with its cost, the
    detections left out and the set-aside flags of its tiles."""
    tiles = row.tiles
    inner = [
        p
        for p in range(1, len(tiles) - 1)
        if tiles[p].doubtful
        and not tiles[p].back
        and tiles[p].stacked is None
        and not tiles[p].sideways
        and (tiles[p].gap_before < 0 or tiles[p + 1].gap_before < 0)
    ]
    out: list[tuple[Row, float, tuple[int, ...], Sequence[bool]]] = [(row, 0.0, (), top_aside)]
    if inner and len(tiles) > HAND_MIN_TILES:
        p = inner[0]
        out.append(
            (
                _retiled(row, [t for q, t in enumerate(tiles) if q != p]),
                DOUBTFUL_EXCLUDE_COST,
                (tiles[p].det,),
                [a for q, a in enumerate(top_aside) if q != p],
            )
        )
    return out


def loose_structures(hrow: HandRow) -> tuple[Structure, ...]:
    """The row's structures with the last resort too: up to ``MAX_EXCLUDED`` end tiles with no gap
    before them left out (an indicator touching a meld's end makes it look like a kan). For the
    reader to try when no structure of the first pass makes a winning hand; empty when the
    structures came from that pass already."""
    if hrow.loose or not hrow.top_aside:
        return ()
    known = {st.key for st in hrow.structures}
    return tuple(st for st in _merge(_row_structures(hrow.row, hrow.top_aside, True)) if st.key not in known)


def _best_effort(row: Row) -> Structure:
    """A reading of a row whose count does not fit: groups with call marks as melds, the lone
    tile (or the last tile) before them as the winning tile."""
    groups = row.groups
    det = [t.det for t in row.tiles]
    marked = [any(row.tiles[p].marked for p in g) for g in groups]
    first = next((i for i, m in enumerate(marked) if m), len(groups))
    last = max((i for i, m in enumerate(marked) if m), default=-1)
    melds: list[MeldShape] = []
    leftovers: list[int] = []
    for gi in range(first, last + 1):
        g = list(groups[gi])
        while len(g) >= 3:
            took = False
            for n in (4, 3):
                if len(g) >= n:
                    ch = _chunk(row, g[0], g[0] + n)
                    if ch is not None:
                        melds.append(ch[0])
                        g = g[n:]
                        took = True
                        break
            if not took:
                leftovers.append(det[g.pop(0)])
        leftovers.extend(det[p] for p in g)
    prefix = [det[p] for g in groups[:first] for p in g]
    after = [det[p] for g in groups[last + 1 :] for p in g] if last >= 0 else []
    win: int | None = None
    rule = "guess"
    if last >= 0 and len(groups) > last + 1 and len(groups[last + 1]) == 1:
        win, rule = after.pop(0), "after_melds"
    elif first >= 1 and len(groups[first - 1]) == 1 and first >= 2:
        win, rule = prefix.pop(), "gap"
    elif prefix:
        win = prefix.pop()
    concealed = tuple(prefix + leftovers + after)
    return Structure(concealed, win, tuple(melds), (), 0.0, rule, count_ok=False)
