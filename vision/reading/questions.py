"""What a reading asks the user (ambiguities between competitive readings, unlikely classes) and
notes about tiles the photo's frame cuts."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from statistics import median
from typing import Any

from paiscan.scoring.tiles import BACK, format_tiles, tile_name
from paiscan.vision.detection import Detection, iou
from paiscan.vision.layout import (
    SIZE_RATIO,
)
from paiscan.vision.reading.results import Ambiguity, Candidate

#: a tile the best reading gives a class less likely than this, not its likeliest, is asked about
UNLIKELY_CLASS_P = 0.15
#: ... and so is a tile whose likeliest class, the one taken, is itself under this likely
NO_LIKELY_CLASS_P = 0.4
#: a face-up tile left out within this many tile sizes of the hand may be its missing dora indicator (asked about)
MISSING_INDICATOR_UNITS = 2.5
#: what the tiles the photo's edge cuts are called in the note that says so (:func:`cut_note`), by
#: role (one, several), in a hand's order
CUT_ROLE_NAMES = {
    "hand": ("a tile of the hand", "{n} tiles of the hand"),
    "win": ("the winning tile", "{n} winning tiles"),
    "meld": ("a tile of a meld", "{n} tiles of melds"),
    "dora": ("a dora indicator", "{n} dora indicators"),
    "nuki": ("a tile set aside", "{n} tiles set aside"),
}
#: the note naming the tiles the frame cuts, by role
CUT_NOTE = (
    "the photo's edge cuts {what}: read from part of {faces}, so check {it} (a photo with the whole hand "
    "inside reads {it} surely)"
)
#: ... a box overlapping a tile with a role this much is a second box on it, not a tile left out
CUT_DUPLICATE_IOU = 0.3
#: the note for a cut tile left out of the hand
CUT_LEFT_OUT_NOTE = (
    "a tile by the hand that the photo's edge cuts was left out: if it is a dora indicator or a "
    "tile of the hand, add it"
)


def _cut_notes(roles: Mapping[int, str], dets: Sequence[Detection]) -> list[str]:
    """What the user is told of the tiles the photo's edge cuts (:attr:`Detection.cut`): those the
    best reading gives a role (``roles``: detection to role), by role, and a face-up one of the
    hand's size left out within ``MISSING_INDICATOR_UNITS`` tile sizes of the hand (not a second box
    on one of its tiles: ``CUT_DUPLICATE_IOU``). Such a tile is read from part of its face, a
    character's numeral perhaps cut away, however sure the classifier is.

    >>> hand = [Detection(0, 0.9, (20.0 * k, 0.0, 20.0 * k + 18.0, 26.0)) for k in range(1, 4)]
    >>> edge = Detection(9, 0.2, (0.0, 30.0, 18.0, 56.0), cut=True)
    >>> _cut_notes({0: "hand", 1: "hand", 2: "win", 3: "dora"}, [*hand, edge])[0][:39]
    "the photo's edge cuts a dora indicator:"
    >>> _cut_notes({0: "hand", 1: "hand", 2: "win"}, [*hand, edge]) == [CUT_LEFT_OUT_NOTE]
    True
    """
    cut = Counter(r for d, r in roles.items() if dets[d].cut and r in CUT_ROLE_NAMES)
    notes = [cut_note(cut)] if cut else []
    if _cut_left_out(roles, dets):
        notes.append(CUT_LEFT_OUT_NOTE)
    return notes


def _cut_left_out(roles: Mapping[int, str], dets: Sequence[Detection]) -> list[int]:
    """The face-up tiles the photo's edge cuts that a reading (``roles``: detection to role) left
    out, of the hand's size and within ``MISSING_INDICATOR_UNITS`` tile sizes of its tiles (not a
    second box on a tile with a role: ``CUT_DUPLICATE_IOU``), nearest first.

    >>> hand = [Detection(0, 0.9, (20.0 * k, 0.0, 20.0 * k + 18.0, 26.0)) for k in range(1, 4)]
    >>> edge, far = (Detection(9, 0.2, (x, 30.0, x + 18.0, 56.0), cut=True) for x in (0.0, 200.0))
    >>> _cut_left_out({0: "hand", 1: "hand", 2: "win"}, [*hand, far, edge])
    [4]
    """
    members = [d for d, r in roles.items() if r in ("hand", "win", "meld")]
    if not members:
        return []
    size = median(dets[d].size for d in members)
    near = {
        j: _from_hand(d, dets, members, size)
        for j, d in enumerate(dets)
        if j not in roles
        and d.cut
        and d.cls != BACK
        and not any(iou(d.box, dets[m].box) > CUT_DUPLICATE_IOU for m in roles)
    }
    return sorted((j for j, dist in near.items() if dist <= MISSING_INDICATOR_UNITS), key=near.__getitem__)


def cut_note(cut: Mapping[str, int]) -> str:
    """The note on the tiles the photo's edge cuts, ``cut``: how many of each role.

    >>> cut_note({"dora": 1}).split(",")[0]
    "the photo's edge cuts a dora indicator: read from part of its face"
    >>> cut_note({"hand": 2, "win": 1}).split(",")[0]
    "the photo's edge cuts 2 tiles of the hand and the winning tile: read from part of their faces"
    """
    parts = [
        CUT_ROLE_NAMES[r][0] if cut[r] == 1 else CUT_ROLE_NAMES[r][1].format(n=cut[r])
        for r in CUT_ROLE_NAMES
        if cut.get(r)
    ]
    what = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
    one = sum(cut.values()) == 1
    return CUT_NOTE.format(what=what, faces="its face" if one else "their faces", it="it" if one else "them")


def _from_hand(d: Detection, dets: Sequence[Detection], members: Sequence[int], size: float) -> float:
    """How far ``d`` lies from the nearest of the hand's tiles ``members``, in tiles of the hand's
    size ``size``; infinite for a box not of the hand's size (``SIZE_RATIO``): no tile of this set."""
    if not SIZE_RATIO[0] <= d.size / size <= SIZE_RATIO[1]:
        return math.inf
    return min(math.dist(d.centre, dets[m].centre) for m in members) / size


def _ambiguities(competitive: Sequence[Candidate]) -> list[Ambiguity]:
    if len(competitive) < 2:
        return []
    out: list[Ambiguity] = []
    wins: list[str] = []
    win_dets: list[int] = []
    win_scores: list[int | None] = []
    for c in competitive:  # likeliest first
        if c.win_tile is None:
            continue
        name = tile_name(c.win_tile)
        if name not in wins:
            wins.append(name)
            win_dets.append(c.structure.win if c.structure.win is not None else -1)
            win_scores.append(c.score_total)
    if len(wins) > 1:
        out.append(Ambiguity("win_tile", tuple(wins), indices=tuple(win_dets), scores=tuple(win_scores)))
    splits: list[tuple[tuple[int, ...], ...]] = []
    split_names: list[tuple[str, ...]] = []
    for c in competitive:
        sp = tuple(m.dets for m in c.melds)
        if sp not in splits:
            splits.append(sp)
            split_names.append(tuple(format_tiles(m.tiles) for m in c.melds))
    meld_dets = {d for c in competitive for m in c.melds for d in m.dets}
    if len(splits) > 1:
        out.append(Ambiguity("meld_split", tuple(split_names)))
    for k, first in enumerate(competitive[0].melds):  # the same tiles as another set: a pon or a kan, open or not
        sets: dict[tuple[str, bool, bool, int], dict[str, Any]] = {}
        for c in competitive:
            for m in c.melds:
                if m.dets == first.dets:
                    sets.setdefault((m.type, m.open, m.added, len(m.tiles)), m.to_dict())
        if len(sets) > 1:
            out.append(Ambiguity("meld", tuple(sets.values()), index=k))
    dets = sorted({d for c in competitive for d, _ in c.classes})
    for d in dets:
        names: list[str] = []
        for c in competitive:
            cls = c.class_of(d)
            if cls is not None and tile_name(cls) not in names:
                names.append(tile_name(cls))
        if len(names) > 1:
            out.append(Ambiguity("tile", tuple(names), index=d))
    for d in dets:
        if d in meld_dets:
            continue
        roles: list[str] = []
        for c in competitive:
            r = dict(c.roles).get(d, "other")
            r = "hand" if r == "win" else r
            if r not in roles:
                roles.append(r)
        if len(roles) > 1:
            out.append(Ambiguity("role", tuple(roles), index=d))
    return out


def _unlikely_classes(best: Candidate, dets: Sequence[Detection], asked: Sequence[Ambiguity]) -> list[Ambiguity]:
    """A ``tile`` question for each tile the best reading gives a class under ``UNLIKELY_CLASS_P``
    likely, not its likeliest, unless already asked about: the scoring core picked it because it
    makes a winning hand, and nothing else backs it (the reading's class first, then the likeliest,
    whether or not that one makes a winning hand). Likewise a face whose likeliest class, taken,
    is under ``NO_LIKELY_CLASS_P`` (then its next likeliest face is offered)."""
    seen = {a.index for a in asked if a.kind == "tile"}
    out: list[Ambiguity] = []
    for d, cls in best.classes:
        cands = dets[d].candidates()
        if d in seen or not cands:
            continue
        p = dict(cands).get(cls, 0.0)
        other: int | None = None
        if cands[0][0] != cls and p < UNLIKELY_CLASS_P:
            other = cands[0][0]
        elif cands[0][0] == cls != BACK and p < NO_LIKELY_CLASS_P:
            other = next((c for c, _ in cands[1:] if c != BACK), None)
        if other is not None:
            out.append(Ambiguity("tile", (tile_name(cls), tile_name(other)), index=d))
    return out
