"""Second looks at the best reading of a row: other roles for tiles apart (indicator or gari), doubtful
or dropped indicators, kans read as pons, a missing or cut indicator; each a competing reading to ask about."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence, Set
from dataclasses import replace
from statistics import median
from typing import Any

from paiscan.scoring.engine import Ruleset
from paiscan.scoring.tiles import BACK, kind, suit
from paiscan.vision.detection import Detection
from paiscan.vision.layout import (
    HandRow,
)
from paiscan.vision.reading.build import MAX_ALT_COST, _build, _score
from paiscan.vision.reading.questions import MISSING_INDICATOR_UNITS, _cut_left_out, _from_hand
from paiscan.vision.reading.results import Candidate, ReadMeld

#: manzu apart read in their less likely role, gari or indicator (offered, not preferred; see
#: :func:`_gari_or_indicator`)
GARI_OR_INDICATOR_COST = 0.3
#: a dora indicator or set-aside tile read less likely than this for its best class is asked about
DOUBTFUL_INDICATOR_P = 0.8
#: ... and so is one whose detection (localizer × best class) is less sure than this
DOUBTFUL_INDICATOR_CONF = 0.4
#: a doubtful end tile the reading leaves out of the row (see ``_build``) whose best class is at
#: least this likely is offered as an indicator too, and asked about
DROPPED_INDICATOR_P = 0.2
#: a doubtful indicator the photo's edge cuts, whose top-k classes are at least this much of one
#: suit, is asked about with every face of that suit (:func:`_cut_suit_options`)
CUT_SUIT_P = 0.5
#: a pon whose called tile's box reaches this much further across the row than its neighbours' may be an added kan
MERGED_KAN_ACROSS = 1.05
#: the near upright tiles that measure it
MERGED_KAN_NEIGHBOURS = 4
#: (see ``MISSING_INDICATOR_UNITS``) the least confidence of such a tile
MISSING_INDICATOR_CONF = 0.3


def _gari_or_indicator(
    results: Mapping[tuple[Any, ...], Candidate],
    hrow: HandRow,
    rules: Ruleset,
    ctx: Mapping[str, Any],
    aside: frozenset[int],
    top: Mapping[int, int],
) -> Candidate | None:
    """The best reading again with the other role for manzu apart, when no other tile is an indicator.

    In three-player Totenko a manzu tile apart is a gari or, when the photo shows no other
    indicator, perhaps the indicator itself (1m, 5m and 9m can be turned up): :func:`split_apart`
    reads a lone one by where it lies (by the hand's left half the indicator, else a gari) and of
    several clusters the leftmost as the indicator; the other role is offered. Either way the user is
    asked (a ``role`` ambiguity) rather than misread; a tile in a dead wall is the indicator.
    """
    if not aside or "dora_indicators" in ctx:
        return None
    valid = [c for c in results.values() if c.valid]
    if not valid:
        return None
    best = min(valid, key=lambda c: c.cost)
    dora_dets = frozenset(d for d, r in best.roles if r == "dora")
    nuki_dets = [d for d, r in best.roles if r == "nuki"]
    choice = {**top, **dict(best.classes)}
    cost = best.cost + GARI_OR_INDICATOR_COST
    if dora_dets:
        if dora_dets & hrow.walled or any(kind(t) not in aside for t in best.dora_indicators):
            return None
        return _score(rules, ctx, _build(rules, best.structure, hrow, choice, aside, cost, as_nuki=dora_dets))
    if len(nuki_dets) != 1 or not any(tuple(g) == (nuki_dets[0],) for g in hrow.apart_groups):
        return None
    return _score(rules, ctx, _build(rules, best.structure, hrow, choice, aside, cost, as_dora=frozenset(nuki_dets)))


def _doubtful_indicators(
    best: Candidate,
    competitive: Sequence[Candidate],
    hrow: HandRow,
    rules: Ruleset,
    ctx: Mapping[str, Any],
    aside: frozenset[int],
    top: Mapping[int, int],
    options: Mapping[int, Sequence[tuple[int, float]]],
    dets: Sequence[Detection],
    allowed: frozenset[int] | None = None,
) -> list[Candidate]:
    """The best reading again with each doubtful dora indicator or set-aside tile (best class under
    ``DOUBTFUL_INDICATOR_P``, or detection under ``DOUBTFUL_INDICATOR_CONF``) read as each of its
    other classes (:func:`_class_options`), where no competitive reading already offers another
    class for it: so it is asked about (a ``tile`` ambiguity), never silently trusted. Every class
    is offered, not the next alone: nothing in the hand checks an indicator, so the question must
    hold the right answer where the classifier does, and an indicator whose next class made five of a kind was
    not asked at all. One the photo's edge cuts is read as every other face of the suit its
    classes lean to as well (:func:`_cut_suit_options`), competitive readings or not. Tiles apart
    that the reading gave no role (a cluster past the indicators' limit) keep their top class
    (``top``): the reading is built again from all of them."""
    out: list[Candidate] = []
    choice = {**top, **dict(best.classes)}
    for d, role in best.roles:
        if role not in ("dora", "nuki") or (
            dets[d].candidates()[0][1] >= DOUBTFUL_INDICATOR_P and dets[d].confidence >= DOUBTFUL_INDICATOR_CONF
        ):
            continue
        others = {c.class_of(d) for c in competitive} - {None, choice[d]}
        opts = [] if others else list(options.get(d, ()))
        for c, cost in [*opts, *_cut_suit_options(dets[d], {choice[d], *others, *(c for c, _ in opts)}, allowed)]:
            if c == choice[d]:
                continue
            cand = _score(rules, ctx, _build(rules, best.structure, hrow, {**choice, d: c}, aside, best.cost + cost))
            if cand.valid:
                out.append(cand)
    return out


def _cut_suit_options(d: Detection, have: Set[int | None], allowed: frozenset[int] | None) -> list[tuple[int, float]]:
    """For a face the photo's edge cuts whose classes lean to one suit (at least ``CUT_SUIT_P`` of
    its top-k): every face of that suit the ruleset has and ``have`` lacks, at the largest
    alternative's cost. The edge may have cut what tells the suit's faces apart (a character's
    numeral), so the question
    must offer them all.

    >>> cut = Detection(0, 0.2, (0.0, 0.0, 1.0, 1.0), topk=((0, 0.3), (6, 0.2), (7, 0.1), (12, 0.1)), cut=True)
    >>> [c for c, _ in _cut_suit_options(cut, {0, 6}, None)]
    [1, 2, 3, 4, 5, 7, 8, 34]
    >>> _cut_suit_options(replace(cut, cut=False), set(), None)
    []
    """
    cands = [(c, p) for c, p in d.candidates() if c != BACK]
    if not d.cut or not cands:
        return []
    lean = suit(cands[0][0])
    if sum(p for c, p in cands if suit(c) == lean) < CUT_SUIT_P:
        return []
    return [
        (c, MAX_ALT_COST)
        for c in range(BACK)  # the face classes
        if suit(c) == lean and c not in have and (allowed is None or kind(c) in allowed)
    ]


def _dropped_indicators(
    best: Candidate,
    hrow: HandRow,
    rules: Ruleset,
    ctx: Mapping[str, Any],
    aside: frozenset[int],
    top: Mapping[int, int],
    dets: Sequence[Detection],
) -> list[Candidate]:
    """The best reading again with a doubtful end tile it left out (felt, the rack's edge, or a
    badly lit indicator laid in line with the row) read as an indicator (one of a kind the ruleset
    sets aside as a gari too), when its best class is at least ``DROPPED_INDICATOR_P`` likely: so
    it is asked about (a ``role`` ambiguity), not dropped in silence.

    Where the frame cuts that tile, the reading with it as an indicator (the first such) is put
    first (:func:`_arbitrate`), and the one without it asked: a box the frame cuts is doubtful for
    being cut, not for being felt, and a whole tile in line past the complete hand is an indicator."""
    out: list[Candidate] = []
    choice = {**top, **dict(best.classes)}
    has = dict(best.roles)
    for d in best.structure.excluded:  # a doubtful one has no role unless in a run (see _build)
        if d not in hrow.row.doubtful or dets[d].candidates()[0][1] < DROPPED_INDICATOR_P:
            continue
        for role in ("nuki", "dora") if kind(choice[d]) in aside else ("dora",):
            if has.get(d) == role:
                continue
            cand = _with_role(best, hrow, rules, ctx, aside, choice, d, role)
            if cand.valid:
                out.append(cand)
    return out


def _with_role(
    best: Candidate,
    hrow: HandRow,
    rules: Ruleset,
    ctx: Mapping[str, Any],
    aside: frozenset[int],
    choice: Mapping[int, int],
    d: int,
    role: str,
) -> Candidate:
    """``best``'s structure read again with the classes ``choice`` and detection ``d`` as a dora
    indicator (``role`` "dora") or a tile set aside ("nuki"), scored."""
    one = frozenset({d})
    return _score(
        rules,
        ctx,
        _build(
            rules,
            best.structure,
            hrow,
            choice,
            aside,
            best.cost,
            as_dora=one if role == "dora" else frozenset(),
            as_nuki=one if role == "nuki" else frozenset(),
        ),
    )


def _merged_kans(best: Candidate, hrow: HandRow, rules: Ruleset, ctx: Mapping[str, Any]) -> list[Candidate]:
    """The best reading again with each pon whose called tile looks two tiles deep (its box
    reaching :data:`MERGED_KAN_ACROSS` times as far across the row as the upright tiles near it)
    read as an added kan: the stacked fourth tile may be merged into the called tile's box, or
    missed. Asked about (a ``meld`` ambiguity), not preferred: a pon's box alone sometimes reaches
    that far. The fourth tile is the plain kind (a red five would show)."""
    tiles = {t.det: t for t in hrow.row.tiles}
    upright = [t for t in hrow.row.tiles if not t.sideways and not t.back]
    out: list[Candidate] = []
    for k, m in enumerate(best.melds):
        if m.type != "pon" or len(m.dets) != 3:
            continue
        called = [tiles[d] for d in m.dets if d in tiles and tiles[d].sideways]
        if len(called) != 1 or called[0].stacked is not None:
            continue
        near = sorted(upright, key=lambda t: abs(t.u - called[0].u))[:MERGED_KAN_NEIGHBOURS]
        if len(near) < 2 or called[0].across < MERGED_KAN_ACROSS * median(t.across for t in near):
            continue
        kan = ReadMeld("kan", (*m.tiles, kind(m.tiles[0])), True, True, m.from_, m.dets)
        cand = _with_meld(best, k, kan, rules, ctx)
        if cand.valid:
            out.append(cand)
    return out


def _with_meld(best: Candidate, k: int, meld: ReadMeld, rules: Ruleset, ctx: Mapping[str, Any]) -> Candidate:
    """``best`` with its ``k``-th meld read as ``meld``, scored again."""
    melds = (*best.melds[:k], meld, *best.melds[k + 1 :])
    return _score(
        rules, ctx, replace(best, melds=melds, status="unscored", score_total=None, error_code=None, error_message=None)
    )


def _face_up_kans(best: Candidate, rules: Ruleset, ctx: Mapping[str, Any]) -> list[Candidate]:
    """The best reading again with each closed kan it read from four face-up tiles (no backs: a
    player who shows a closed kan face up) read as an open kan whose sideways tile was not seen (a
    white dragon's blank face gives no angle): asked about (a ``meld`` question), not preferred. Where it was
    called from is not
    known."""
    classes = dict(best.classes)
    out: list[Candidate] = []
    for k, m in enumerate(best.melds):
        if m.type != "kan" or m.open or any(classes.get(d) == BACK for d in m.dets):
            continue
        cand = _with_meld(best, k, ReadMeld("kan", m.tiles, True, False, None, m.dets), rules, ctx)
        if cand.valid:
            out.append(cand)
    return out


def _missing_indicator(
    best: Candidate,
    hrow: HandRow,
    rules: Ruleset,
    ctx: Mapping[str, Any],
    aside: frozenset[int],
    top: Mapping[int, int],
    dets: Sequence[Detection],
) -> list[Candidate]:
    """The best reading again with the nearest face-up tile left out taken as the dora indicator,
    when the best reading has none and nothing lies apart from the hand (see
    :data:`MISSING_INDICATOR_UNITS`): asked about (a ``role`` ambiguity), never preferred; not
    under a ruleset that counts no dora (WSOM, Jun). Asked even where this tile's dora is not in
    the hand: the photo's record of the indicators is wrong without it."""
    members = [t.det for t in hrow.row.tiles]
    if best.dora_indicators or hrow.apart or not members or not rules.counts_dora:
        return []
    size = median(dets[d].size for d in members)
    nearest, nearest_dist = None, math.inf
    for j in hrow.unused:
        d = dets[j]
        if d.cls == BACK or d.confidence < MISSING_INDICATOR_CONF:
            continue
        dist = _from_hand(d, dets, members, size)
        if dist < nearest_dist:
            nearest, nearest_dist = j, dist
    if nearest is None or nearest_dist > MISSING_INDICATOR_UNITS:
        return []
    choice = {**top, **dict(best.classes), nearest: dets[nearest].cls}
    cand = _with_role(best, hrow, rules, ctx, aside, choice, nearest, "dora")
    return [cand] if cand.valid else []


def _cut_indicators(
    best: Candidate,
    hrow: HandRow,
    rules: Ruleset,
    ctx: Mapping[str, Any],
    aside: frozenset[int],
    top: Mapping[int, int],
    dets: Sequence[Detection],
) -> list[Candidate]:
    """The best reading again with each face-up tile the photo's edge cuts that it left out, by the
    hand (:func:`_cut_left_out`), taken as a dora indicator (or, of a kind the ruleset sets aside, a
    gari too): asked about (a ``role`` ambiguity), never preferred. Such a tile is read from part
    of its face, so the localizer and the classifier are often unsure of it, and a reading that
    drops it is silently short of a dora or a gari. Not where the context gives the role's tiles or the ruleset
    counts no dora."""
    counts_dora = rules.counts_dora and "dora_indicators" not in ctx
    choice = {**top, **dict(best.classes)}
    out: list[Candidate] = []
    for d in _cut_left_out(dict(best.roles), dets):
        as_gari = kind(dets[d].cls) in aside and "nuki" not in ctx
        for role in [r for r, ok in (("dora", counts_dora), ("nuki", as_gari)) if ok]:
            cand = _with_role(best, hrow, rules, ctx, aside, {**choice, d: dets[d].cls}, d, role)
            if cand.valid:
                out.append(cand)
    return out
