"""Reading the hand: the layout's structures and the classifier's alternatives, arbitrated by
the scoring core.

:func:`read_hand` takes every way the geometry allows to read the hand row
(:func:`paiscan.vision.layout.analyse_layout`) and every plausible class of each tile (its top-k), and
looks at the combinations best first. A combination's **cost** adds the geometry's cost (a
winning tile without a visible gap, melds touching, ...) and, per tile read as another class than
the top one, ``ln(p_top / p_alt)``. Each distinct hand is handed to :func:`paiscan.scoring.score_hand`
with the caller's context (win, winds, flags ...):

* it is **valid** when the scoring succeeds, or fails only with ``no_yaku``: the photo shows the
  tiles, not the situation (riichi, tsumo, haitei ... are yaku the tiles cannot show), so a
  complete hand without a yaku of its own is still a right reading. It costs ``NO_YAKU_COST``
  more, though: the player won, so a reading with a yaku of its own is likelier;
* any other error (not a complete hand, five of a kind, a tile outside the ruleset's set, a chi
  of unequal suits, a manzu in a Totenko hand ...) rules the combination out.

The ruleset decides the tile set (class alternatives outside it are not tried) and what is set
aside (:func:`paiscan.vision.layout.split_apart`). Up to ``MAX_ROWS`` candidate rows are tried, most
plausible first (larger tiles, a hand-like count); the first with a valid reading is the hand.

The best valid reading is the answer; valid readings within ``DELTA`` of its cost are the
alternatives, and what differs between them is reported as ambiguities for the user to settle
(``win_tile``, ``tile``, ``meld_split``, ``meld``, ``role``). The search is bounded: at most
``MAX_READINGS`` hands are scored per candidate row and ``MAX_STATES`` combinations looked at
(``capped`` says when the bound was hit). A five of a kind, a wrong tile count or no valid reading
is reported in ``problems`` and never scored.
"""

from __future__ import annotations

import heapq
import math
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence, Set
from dataclasses import dataclass, field, replace
from statistics import fmean, median
from typing import Any

from paiscan.scoring import score_hand
from paiscan.scoring.errors import HandError
from paiscan.scoring.registry import get_ruleset
from paiscan.scoring.tiles import BACK, RED_5M, format_tiles, is_honor, kind, suit, tile_name
from paiscan.vision.detection import Detection, iou
from paiscan.vision.layout import (
    SIZE_RATIO,
    HandRow,
    Layout,
    Structure,
    analyse_layout,
    loose_structures,
    max_indicators,
    row_duplicates,
    second_boxes_on,
    split_apart,
)

#: hands scored per candidate row (one ``score_hand`` call each, ~0.2–1 ms)
MAX_READINGS = 256
#: combinations (structure × classes) looked at per candidate row, duplicates included
MAX_STATES = 5000
#: candidate rows tried, most plausible first, until one reads as a valid hand
MAX_ROWS = 3
#: readings within this cost of the best are alternatives (a class alternative at half the top
#: probability costs ln 2 ≈ 0.69)
DELTA = 0.7
#: class alternatives: at most this many per tile, at least this probability, at most this cost
MAX_ALTS_PER_TILE = 4
MIN_ALT_P = 0.01
MAX_ALT_COST = math.log(100.0)
MAX_ALTERNATIVES = 12
#: a tile the best reading gives a class less likely than this, not its likeliest, is asked about
#: (:func:`_unlikely_classes`). Of the 4,600 selection and fresh renders, 24 read with such a tile
#: and no question: 6 of them wrong (a cut tile read 0.16 as 2s made a chi 345s of 456s). Asked,
#: the silently wrong fell from 11 to 7 and 6 to 4, for 13 more questions on each set; exact
#: readings unchanged (0.1: 8 and 5; 0.2: no fewer than 0.15, more questions)
UNLIKELY_CLASS_P = 0.15
#: ... and so is a tile whose likeliest class, the one the reading took, is itself under this likely:
#: the classifier found no class likely, and only the hand's validity backs the one taken (fresh
#: render 990015/164: a 1m read 0.28 as 5z, the hand valid with it). Of the 4,600 selection and
#: fresh renders, silently wrong 8 → 6 and 4 → 3, for 8 and 2 more questions on hands read right;
#: exact readings unchanged. One of the three is then asked about its wrong tile; in the other two
#: another tile read under 0.3 marks a hand read wrong elsewhere (0.25: 7 and 4; 0.4: 5 and 3).
#: 0.4 since the range after `3d9e8ef`: silently wrong 8 → 7 on the selection renders (a closed
#: kan's faces read 0.37 as east, 990014/011) and 5 → 4 on the fresh (two 1m read 0.31 and 0.51 as
#: 2m, 990015/052), for 7 more questions on hands read right in each; exact readings unchanged
#: (0.35: 8 and 4, for 3 and 5 more)
NO_LIKELY_CLASS_P = 0.4
#: Hand fields the photo decides (the context's are ignored); dora_indicators and nuki from the
#: context replace the photo's
PHOTO_FIELDS = frozenset({"hand", "melds", "win_tile", "rules"})
#: errors that leave a reading valid, and what they add to its cost: a player shows a hand that
#: won, so a reading with a yaku of its own is likelier (riichi, tsumo ... may be the yaku instead);
#: less than the geometry's preference for the last tile as the winning one (0.3), since a hand
#: with no yaku the tiles show is common (0.5 lost 3 of 200 selection renders to it)
VALID_ERRORS = frozenset({"no_yaku"})
#: a complete hand in a shape the ruleset's options switch off (Boo's seven pairs without
#: ``enable_chiitoitsu``): when no reading wins, such a reading within ``DELTA`` of the likeliest
#: is shown, so the structure is right and the problem names the option that would score it
COMPLETE_BUT_REFUSED = frozenset({"yaku_not_adopted"})
NO_YAKU_COST = 0.2
#: manzu apart read in their less likely role, gari or indicator (offered, not preferred; see
#: :func:`_gari_or_indicator`)
GARI_OR_INDICATOR_COST = 0.3
#: a dora indicator read with less probability than this for its best class is asked about (its
#: next class offered as an alternative, however unlikely): nothing in the hand can check an
#: indicator, and a wrong one changes the score silently. On 2,000 selection renders (seeds 990011,
#: 990012) the indicators read wrong and not asked about fell from 11 to 6; of the 2,577 read
#: right, 32 are asked about (12 were before). So is a set-aside tile (Totenko's gari, each worth
#: a bonus): on the 2,600 selection renders two gari read wrong in silence are asked about, and two
#: read right. 0.5 until localizer stage 17; with it, 0.6 read 17 selection renders silently wrong
#: against 18 and 18 fresh ones (seeds 990015-19) against 20, for 7 and 15 more questions (0.7: 17
#: and 16, for 11 and 28 more); exact readings and the held-out 500's silent ones unchanged. 0.8
#: from classifier stage 31, which is surer of what it reads: 14 selection renders silently wrong
#: against 18 at 0.6 (0.75: 17) and 14 fresh ones against 22 (0.75: 15), for 42 and 55 more
#: questions; exact readings and the held-out 500's silent ones unchanged
DOUBTFUL_INDICATOR_P = 0.8
#: ... and so is one whose detection (the localizer's confidence times its best class's
#: probability) is less sure than this: half the false indicators on the real rack photos (a box
#: over half a tile's face, felt, a flower tile) were read under it. On the 2,600 selection renders
#: the wrong indicators asked about went from 37 to 39 (right ones asked: 36 to 37)
DOUBTFUL_INDICATOR_CONF = 0.4
#: a doubtful end tile the reading leaves out of the row (see ``_build``) whose best class is at
#: least this likely is offered as an indicator too, and asked about
DROPPED_INDICATOR_P = 0.2
#: a doubtful indicator the photo's edge cuts, whose top-k classes are at least this much of one
#: suit, is asked about with every face of that suit (:func:`_cut_suit_options`)
CUT_SUIT_P = 0.5
#: a pon whose called tile's box reaches at least this much further across the row than the
#: upright tiles beside it (their median) may be an added kan whose fourth tile, stacked on the
#: called one, the localizer merged into its box: it is asked about (see :func:`_merged_kans`).
#: On the 2,600 selection renders, of 1,111 pons read where the truth has a pon, 15 reach that far
#: (the 99th percentile: 1.07); of 17 added kans read as pons, 11 do
MERGED_KAN_ACROSS = 1.05
#: the near upright tiles that measure it
MERGED_KAN_NEIGHBOURS = 4
#: a reading with no dora indicator, and nothing apart from the hand, asks whether the nearest
#: face-up tile left out (within this many tile sizes of a hand tile, of the hand's size, read at
#: least ``MISSING_INDICATOR_CONF`` sure) is one: an indicator laid against someone's discards is
#: taken for one of them, and the score is then silently short of its dora. On the 2,600 selection
#: renders 8 of the 32 silently wrong become questions, at the price of 37 questions on readings
#: that were right (the truth shows no indicator in a sixth of the renders)
MISSING_INDICATOR_UNITS = 2.5
MISSING_INDICATOR_CONF = 0.3
#: what the tiles the photo's edge cuts are called in the note that says so (:func:`cut_note`), by
#: role (one, several), in a hand's order
CUT_ROLE_NAMES = {
    "hand": ("a tile of the hand", "{n} tiles of the hand"),
    "win": ("the winning tile", "{n} winning tiles"),
    "meld": ("a tile of a meld", "{n} tiles of melds"),
    "dora": ("a dora indicator", "{n} dora indicators"),
    "nuki": ("a tile set aside", "{n} tiles set aside"),
}
CUT_NOTE = (
    "the photo's edge cuts {what}: read from part of {faces}, so check {it} (a photo with the whole hand "
    "inside reads {it} surely)"
)
#: ... a box overlapping a tile with a role this much is a second box on it, not a tile left out
CUT_DUPLICATE_IOU = 0.3
CUT_LEFT_OUT_NOTE = (
    "a tile by the hand that the photo's edge cuts was left out: if it is a dora indicator or a "
    "tile of the hand, add it"
)


# ---------------------------------------------------------------------------------- results
@dataclass(frozen=True)
class ReadMeld:
    """A meld as read: tiles (contract ids), the detections it was read from."""

    type: str
    tiles: tuple[int, ...]
    open: bool = True
    added: bool = False
    from_: str | None = None
    dets: tuple[int, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "type": self.type,
            "tiles": format_tiles(self.tiles),
            "open": self.open,
            "added": self.added,
        }
        if self.from_ is not None:
            out["from"] = self.from_
        return out

    @property
    def key(self) -> tuple[Any, ...]:
        return (self.type, tuple(sorted(self.tiles)), self.open, self.added, self.from_)


@dataclass(frozen=True)
class Candidate:
    """One reading of the photo: a hand (tiles as contract ids) and how it fared."""

    concealed: tuple[int, ...]
    win_tile: int | None
    melds: tuple[ReadMeld, ...]
    dora_indicators: tuple[int, ...]
    nuki: tuple[int, ...]
    #: (detection, class read) for every detection the reading uses
    classes: tuple[tuple[int, int], ...]
    #: (detection, role): hand, win, meld, dora, nuki
    roles: tuple[tuple[int, str], ...]
    structure: Structure
    cost: float
    #: scored, no_yaku (valid), invalid, unscored (the count does not fit: never scored)
    status: str = "unscored"
    score_total: int | None = None
    error_code: str | None = None
    error_message: str | None = None

    @property
    def valid(self) -> bool:
        return self.status in ("scored", "no_yaku")

    @property
    def key(self) -> tuple[Any, ...]:
        return (
            tuple(sorted(self.concealed)),
            self.win_tile,
            tuple(sorted(m.key for m in self.melds)),
            tuple(sorted(self.dora_indicators)),
            tuple(sorted(self.nuki)),
        )

    def class_of(self, det: int) -> int | None:
        return dict(self.classes).get(det)

    def shape(self) -> dict[str, Any]:
        """The hand structure as the contract writes it (``hand``, ``melds``, ``win_tile``,
        ``dora_indicators``, ``nuki``)."""
        return {
            "hand": format_tiles(self.concealed),
            "melds": [m.to_dict() for m in self.melds],
            "win_tile": tile_name(self.win_tile) if self.win_tile is not None else None,
            "dora_indicators": [tile_name(t) for t in self.dora_indicators],
            "nuki": format_tiles(self.nuki),
        }

    def to_dict(self) -> dict[str, Any]:
        out = self.shape()
        out["score_total"] = self.score_total
        out["status"] = self.status
        out["cost"] = round(self.cost, 3)
        if self.error_code:
            out["error"] = {"code": self.error_code, "message": self.error_message}
        return out


@dataclass(frozen=True)
class Ambiguity:
    """Something the photo leaves open: ``win_tile``, ``tile`` (one detection's class),
    ``meld_split`` (how a run of meld tiles splits), ``meld`` (which set meld ``index`` of the
    best reading is: a pon or an added kan; candidates are melds as the hand writes them) or
    ``role`` (hand tile or indicator)."""

    kind: str
    candidates: tuple[Any, ...]
    index: int | None = None
    indices: tuple[int, ...] = ()
    #: ``win_tile``: per candidate, the total of the likeliest reading with it, scored with the
    #: context given (``None``: no yaku); the answer matters to the score only where they differ
    scores: tuple[int | None, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind}
        if self.index is not None:
            out["index"] = self.index
        if self.indices:
            out["indices"] = list(self.indices)
        out["candidates"] = [list(c) if isinstance(c, tuple) else c for c in self.candidates]
        if self.scores:
            out["scores"] = list(self.scores)
        return out


@dataclass(frozen=True)
class Problem:
    """Why the photo cannot be scored as read (``code`` is stable, ``message`` for people)."""

    code: str
    message: str
    details: tuple[tuple[str, Any], ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"code": self.code, "message": self.message, **dict(self.details)}


@dataclass(frozen=True)
class Reading:
    """What :func:`read_hand` makes of a photo's detections."""

    rules: str
    detections: tuple[Detection, ...]
    layout: Layout
    best: Candidate | None
    alternatives: tuple[Candidate, ...] = ()
    ambiguities: tuple[Ambiguity, ...] = ()
    problems: tuple[Problem, ...] = ()
    context: tuple[tuple[str, Any], ...] = ()
    #: index into ``layout.candidates`` of the row read as the hand
    hand_row: int | None = None
    #: hands scored, and whether a search bound was hit (ambiguities may then be incomplete)
    evaluated: int = 0
    capped: bool = False
    notes: tuple[str, ...] = field(default=())

    @property
    def valid(self) -> bool:
        """A reading that may be scored: a valid best reading and no problems."""
        return self.best is not None and self.best.valid and not self.problems

    @property
    def row(self) -> HandRow | None:
        return self.layout.candidates[self.hand_row] if self.hand_row is not None else None

    def hand_dict(self) -> dict[str, Any] | None:
        """The best reading as a contract Hand (with the context's fields when one was given);
        ``None`` when no hand row was found. Check :attr:`valid` before scoring it."""
        if self.best is None:
            return None
        return _hand_dict(self.rules, dict(self.context), self.best)

    def offered_hands(self) -> tuple[dict[str, Any], ...]:
        """The alternatives as contract Hands: the readings the ambiguities' answers lead to."""
        ctx = dict(self.context)
        return tuple(_hand_dict(self.rules, ctx, c) for c in self.alternatives)

    def roles(self) -> tuple[str, ...]:
        """Per detection: hand, win, meld, dora, nuki or other (for drawing)."""
        roles = dict(self.best.roles) if self.best else {}
        return tuple(roles.get(i, "other") for i in range(len(self.detections)))

    def corrections(self) -> list[dict[str, Any]]:
        """Detections the best reading reads as another class than the classifier's top one."""
        if self.best is None:
            return []
        out = []
        for det, cls in self.best.classes:
            d = self.detections[det]
            if cls != d.cls and not (d.cls == BACK or cls == BACK):
                p = dict(d.topk).get(cls)
                out.append(
                    {
                        "index": det,
                        "read": tile_name(d.cls),
                        "as": tile_name(cls),
                        "probability": round(p, 4) if p is not None else None,
                    }
                )
        return out

    def to_dict(self) -> dict[str, Any]:
        roles = self.roles()
        row = self.row
        out: dict[str, Any] = {
            "detections": [{**d.to_dict(), "role": roles[i]} for i, d in enumerate(self.detections)],
            "hand": self.best.shape() if self.best else None,
            "score_total": self.best.score_total if self.best else None,
            "status": self.best.status if self.best else "none",
            "alternatives": [{**c.to_dict()} for c in self.alternatives],
            "ambiguities": [a.to_dict() for a in self.ambiguities],
            "problems": [p.to_dict() for p in self.problems],
            "corrections": self.corrections(),
            "layout": {
                "rules": self.rules,
                "row_angle_deg": round(row.row.angle_deg, 1) if row else None,
                "row_tiles": row.n_tiles if row else 0,
                "oriented_by": row.row.oriented_by if row else None,
                "readings_scored": self.evaluated,
                "capped": self.capped,
            },
        }
        if self.notes:
            out["notes"] = list(self.notes)
        return out


# ---------------------------------------------------------------------------------- building
def _hand_dict(rules: str, ctx: Mapping[str, Any], cand: Candidate) -> dict[str, Any]:
    out: dict[str, Any] = {"rules": rules}
    out.update({k: v for k, v in ctx.items() if k not in PHOTO_FIELDS})
    out["hand"] = format_tiles(cand.concealed)
    out["melds"] = [m.to_dict() for m in cand.melds]
    if cand.win_tile is not None:
        out["win_tile"] = tile_name(cand.win_tile)
    if "dora_indicators" not in ctx:
        out["dora_indicators"] = [tile_name(t) for t in cand.dora_indicators]
    if "nuki" not in ctx:
        out["nuki"] = format_tiles(cand.nuki)
    return out


def _is_chi(tiles: Sequence[int]) -> bool:
    ks = sorted(kind(t) for t in tiles)
    return (
        len(ks) == 3
        and not is_honor(ks[0])
        and not is_honor(ks[2])
        and suit(ks[0]) == suit(ks[2])
        and ks == [ks[0], ks[0] + 1, ks[0] + 2]
    )


def _excluded_groups(hrow: HandRow, excluded: Sequence[int]) -> tuple[tuple[int, ...], ...]:
    """The row's end tiles left out of the hand in clusters (runs without a group gap), the
    nearest the kept tiles first."""
    tiles = hrow.row.tiles
    left_out = set(excluded)
    pos = [i for i, t in enumerate(tiles) if t.det in left_out]
    kept = [i for i, t in enumerate(tiles) if t.det not in left_out]
    runs: list[list[int]] = []
    for i in pos:
        if not runs or i != runs[-1][-1] + 1 or hrow.row.split_after(i - 1):
            runs.append([])
        runs[-1].append(i)
    runs.sort(key=lambda run: min((abs(i - k) for i in run for k in kept), default=0))
    return tuple(tuple(tiles[i].det for i in run) for run in runs)


def _along_hand(s: Structure, hrow: HandRow) -> dict[int, float] | None:
    """Positions along the hand, left to right as the reading ``s`` has it: its melds (or a
    winning tile shown apart) lie at the right, whichever way the row was first oriented."""
    u = dict(hrow.along)
    if not u:
        return None
    ref = [u[d] for m in s.melds for d in m.dets if d in u]
    if not ref and s.win is not None and s.win_rule in ("gap", "weak_gap") and s.win in u:
        ref = [u[s.win]]
    conc = [u[d] for d in s.concealed if d in u]
    if ref and conc and fmean(ref) < fmean(conc):
        return {d: -v for d, v in u.items()}
    return u


def _build(
    rules: str,
    s: Structure,
    hrow: HandRow,
    choice: Mapping[int, int],
    aside: frozenset[int],
    cost: float,
    as_dora: frozenset[int] = frozenset(),
    as_nuki: frozenset[int] = frozenset(),
) -> Candidate:
    roles: dict[int, str] = {}
    concealed = tuple(choice[d] for d in s.concealed)
    roles.update({d: "hand" for d in s.concealed})
    win = choice[s.win] if s.win is not None else None
    if s.win is not None:
        roles[s.win] = "win"
    melds: list[ReadMeld] = []
    for m in s.melds:
        tiles = [choice[d] for d in m.dets]
        roles.update({d: "meld" for d in m.dets})
        faces = [t for t in tiles if t != BACK]
        if faces and len(faces) < len(tiles):  # a closed kan's backs are the faces' kind (plain)
            tiles = [kind(faces[0]) if t == BACK else t for t in tiles]
        if len(tiles) == 4:
            closed = m.kind == "closed_kan"
            melds.append(
                ReadMeld("kan", tuple(tiles), not closed, m.kind == "added_kan", None if closed else m.from_, m.dets)
            )
        elif _is_chi(tiles):
            melds.append(ReadMeld("chi", tuple(tiles), True, False, "left", m.dets))
        else:
            melds.append(ReadMeld("pon", tuple(tiles), True, False, m.from_, m.dets))
    # end tiles left out of the row: indicators laid in line, unless doubtful (felt, the rack's edge)
    excluded = [d for d in s.excluded if d not in hrow.row.doubtful or _in_a_run_left_out(d, s, hrow, choice, aside)]
    groups = _excluded_groups(hrow, excluded) + hrow.apart_groups
    groups = tuple(g for g in (tuple(d for d in grp if d not in as_dora | as_nuki) for grp in groups) if g)
    kans = sum(len(m.dets) == 4 for m in s.melds)
    along = _along_hand(s, hrow)
    shown = [along[d] for d in (*s.concealed, *(d for m in s.melds for d in m.dets)) if along and d in along]
    dora_dets, nuki_dets = split_apart(
        groups,
        choice,
        aside,
        max_indicators(rules, kans),
        hrow.walled,
        along,
        indicator_shown=not as_nuki,
        hand_middle=(min(shown) + max(shown)) / 2 if shown else None,
    )
    dora_dets = tuple(sorted((*dora_dets, *as_dora)))
    nuki_dets = tuple(sorted((*nuki_dets, *as_nuki)))
    roles.update({d: "dora" for d in dora_dets})
    roles.update({d: "nuki" for d in nuki_dets})
    dora = [choice[d] for d in dora_dets]
    nuki = [choice[d] for d in nuki_dets]
    used = sorted(roles)
    return Candidate(
        concealed,
        win,
        tuple(melds),
        tuple(dora),
        tuple(nuki),
        tuple((d, choice[d]) for d in used),
        tuple((d, roles[d]) for d in used),
        s,
        cost,
    )


def _in_a_run_left_out(d: int, s: Structure, hrow: HandRow, choice: Mapping[int, int], aside: frozenset[int]) -> bool:
    """A doubtful end tile ``d`` that is no felt or rack's edge, as it lies in a run of tiles left
    out of the row: between two sure ones (an indicator among others, read unsurely; fresh render
    990015/181 was scored silently a dora short), or beside a sure one of a kind the ruleset sets
    aside, itself of such a kind (a gari laid in line with the others, Totenko: selection renders
    990013/067, /191 and /232 each lost one gari so)."""
    pos = {t.det: k for k, t in enumerate(hrow.row.tiles)}
    beside = [hrow.row.tiles[k].det for k in (pos[d] - 1, pos[d] + 1) if 0 <= k < len(hrow.row.tiles)]
    sure = [e for e in beside if e in s.excluded and e not in hrow.row.doubtful]
    if len(sure) == 2:
        return True
    return kind(choice[d]) in aside and any(kind(choice[e]) in aside for e in sure)


def _score(rules: str, ctx: Mapping[str, Any], cand: Candidate) -> Candidate:
    try:
        sc = score_hand(_hand_dict(rules, ctx, cand))
    except HandError as exc:
        if exc.code in VALID_ERRORS:
            return replace(
                cand, status="no_yaku", cost=cand.cost + NO_YAKU_COST, error_code=exc.code, error_message=exc.message
            )
        return replace(cand, status="invalid", error_code=exc.code, error_message=exc.message)
    return replace(cand, status="scored", score_total=int(sc.total))


def _class_options(d: Detection, allowed: frozenset[int] | None) -> list[tuple[int, float]]:
    """The classes a detection may be read as, with their costs, cheapest first."""
    if d.cls == BACK:
        return [(BACK, 0.0)]
    top_p = d.candidates()[0][1]
    out: list[tuple[int, float]] = []
    for c, p in d.candidates():
        if c == BACK or any(c == o for o, _ in out):
            continue
        cost = 0.0 if c == d.cls else max(0.0, math.log(max(top_p, 1e-9) / max(p, 1e-9)))
        if c != d.cls and (p < MIN_ALT_P or cost > MAX_ALT_COST):
            continue
        if allowed is not None and kind(c) not in allowed:
            continue
        out.append((c, cost))
    if not out:
        out = [(d.cls, 0.0)]
    out.sort(key=lambda cc: cc[1])
    return out[: 1 + MAX_ALTS_PER_TILE]


@dataclass
class _RowResult:
    hrow: HandRow
    best: Candidate | None
    competitive: list[Candidate]
    problems: list[Problem]
    evaluated: int
    capped: bool


def _kind_excess(cand: Candidate) -> list[str]:
    tiles = [
        *cand.concealed,
        *([cand.win_tile] if cand.win_tile is not None else []),
        *(t for m in cand.melds for t in m.tiles),
        *cand.dora_indicators,
        *cand.nuki,
    ]
    counts = Counter(kind(t) for t in tiles if t != BACK)
    return [tile_name(k) for k, n in sorted(counts.items()) if n > 4]


def _layout_problems(
    rules: str, hrow: HandRow, dets: Sequence[Detection], top: Mapping[int, int], aside: frozenset[int]
) -> list[Problem]:
    """Why a row has no count-consistent structure."""
    problems: list[Problem] = []
    cand = _build(rules, hrow.best_effort, hrow, top, aside, 0.0)
    excess = _kind_excess(cand)
    if excess:
        problems.append(
            Problem("five_of_a_kind", f"more than four of {', '.join(excess)} in the photo", (("tiles", excess),))
        )
    s = hrow.best_effort
    backs = [d for d in (*s.concealed, *([s.win] if s.win is not None else [])) if dets[d].cls == BACK]
    if backs:
        problems.append(
            Problem(
                "face_down_tile",
                "a face-down tile that is not the end of a closed kan (back–face–face–back)",
                (("indices", backs),),
            )
        )
    n = hrow.n_tiles
    kans = sum(1 for m in s.melds if len(m.dets) == 4)
    expected = 14 + kans - len(hrow.row.stacked)
    if n != expected or not backs:
        code = "wrong_tile_count" if n != expected else "unreadable_layout"
        message = (
            f"the hand row shows {n} tiles where a complete hand with these melds shows {expected}"
            if n != expected
            else "the sideways and face-down tiles of the row do not split into melds of 3 or 4 tiles"
        )
        problems.append(Problem(code, message, (("found", n), ("expected", expected))))
    return problems


def _arbitrate(
    layout: Layout, hrow: HandRow, rules: str, ctx: Mapping[str, Any], allowed: frozenset[int] | None, max_readings: int
) -> _RowResult:
    dets = layout.detections
    aside = layout.set_aside_kinds
    used = sorted({*hrow.row.dets, *hrow.row.stacked, *hrow.apart})
    options = {i: _class_options(dets[i], allowed) for i in used}
    top = {i: dets[i].cls for i in used}
    problems: list[Problem] = []
    if not hrow.structures:
        return _RowResult(
            hrow,
            _build(rules, hrow.best_effort, hrow, top, aside, 0.0),
            [],
            _layout_problems(rules, hrow, dets, top, aside),
            0,
            False,
        )

    variables = [i for i in used if len(options[i]) > 1]
    fixed_cost = sum(options[i][0][1] for i in used if i not in variables)  # a top class outside the set

    def class_cost(vec: tuple[int, ...]) -> float:
        return fixed_cost + sum(options[var][vec[j]][1] for j, var in enumerate(variables))

    heap: list[tuple[float, int, tuple[int, ...]]] = []
    zero = (0,) * len(variables)
    for si, s in enumerate(hrow.structures):
        heap.append((s.cost + class_cost(zero), si, zero))
    heapq.heapify(heap)
    visited = {(si, zero) for si in range(len(hrow.structures))}
    results: dict[tuple[Any, ...], Candidate] = {}
    first: Candidate | None = None
    best_valid = math.inf
    evaluated = states = 0
    capped = False
    while heap:
        cost, si, vec = heapq.heappop(heap)
        if cost > best_valid + DELTA:
            break
        if evaluated >= max_readings or states >= MAX_STATES:
            capped = True
            break
        states += 1
        choice = {i: options[i][0][0] for i in used}
        for j, var in enumerate(variables):
            choice[var] = options[var][vec[j]][0]
        cand = _build(rules, hrow.structures[si], hrow, choice, aside, cost)
        if cand.key not in results:
            cand = _score(rules, ctx, cand)
            evaluated += 1
            results[cand.key] = cand
            first = first or cand
            if cand.valid:
                best_valid = min(best_valid, cand.cost)
        for j, var in enumerate(variables):
            if vec[j] + 1 < len(options[var]):
                nv = (*vec[:j], vec[j] + 1, *vec[j + 1 :])
                if (si, nv) not in visited:
                    visited.add((si, nv))
                    step = options[var][vec[j] + 1][1] - options[var][vec[j]][1]
                    heapq.heappush(heap, (cost + step, si, nv))

    other_role = _gari_or_indicator(results, hrow, rules, ctx, aside, top)
    if other_role is not None:
        results.setdefault(other_role.key, other_role)
        evaluated += 1
    valid = sorted(
        (c for c in results.values() if c.valid),
        key=lambda c: (round(c.cost, 6), c.status != "scored", -(c.score_total or 0)),
    )
    if valid:
        best = valid[0]
        competitive = [c for c in valid if c.cost <= best.cost + DELTA]
        asked = _doubtful_indicators(best, competitive, hrow, rules, ctx, aside, top, options, dets, allowed)
        dropped = _dropped_indicators(best, hrow, rules, ctx, aside, top, dets)
        asked += _merged_kans(best, hrow, rules, ctx)
        asked += _face_up_kans(best, rules, ctx)
        asked += _missing_indicator(best, hrow, rules, ctx, aside, top, dets)
        asked += _cut_indicators(best, hrow, rules, ctx, aside, top, dets)
        has_role = dict(best.roles)
        cut = [c for c in dropped if any(dets[d].cut and d not in has_role for d, _ in c.roles)]
        if cut:  # doubtful for being cut: taken as the indicator, and the other way asked
            best, competitive = cut[0], [cut[0], *competitive]
            dropped = [c for c in dropped if c is not best]
        asked += dropped
        # several checks may offer the same reading (a cut tile left out is dropped, missing and cut)
        offered: dict[tuple[Any, ...], Candidate] = {}
        for c in (*competitive, *asked):
            offered.setdefault(c.key, c)
        return _RowResult(hrow, best, list(offered.values()), [], evaluated + len(asked), capped)
    assert first is not None
    complete = [c for c in results.values() if c.error_code in COMPLETE_BUT_REFUSED and c.cost <= first.cost + DELTA]
    if complete:
        first = min(complete, key=lambda c: c.cost)
    excess = _kind_excess(first)
    if excess:
        problems.append(
            Problem("five_of_a_kind", f"more than four of {', '.join(excess)} in the photo", (("tiles", excess),))
        )
    else:
        errors = Counter(c.error_code for c in results.values())
        problems.append(
            Problem(
                "no_valid_reading",
                "no reading of the photo makes a winning hand"
                f" (most likely: {first.error_code}: {first.error_message})",
                (("errors", dict(errors.most_common())), ("readings_scored", evaluated)),
            )
        )
    return _RowResult(hrow, first, [], problems, evaluated, capped)


def _gari_or_indicator(
    results: Mapping[tuple[Any, ...], Candidate],
    hrow: HandRow,
    rules: str,
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
    rules: str,
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
    hold the right answer where the classifier does (selection render 990012/213: a 3m read 0.06,
    fifth), and an indicator whose next class made five of a kind was not asked at all (fresh
    990015/175, /943). One the photo's edge cuts is read as every other face of the suit its
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
    numeral: selection render 990011/494, a 2m read 0.17 as 0m, then 7m and 8m), so the question
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
    rules: str,
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
    being cut, not for being felt, and a whole tile in line past the complete hand is an indicator.
    On the 4,600 selection and fresh renders 4 more read exactly (2 each), none fewer; none read
    silently wrong before or after; the real rack photos (no indicators) read the same."""
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
    rules: str,
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


def _merged_kans(best: Candidate, hrow: HandRow, rules: str, ctx: Mapping[str, Any]) -> list[Candidate]:
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


def _with_meld(best: Candidate, k: int, meld: ReadMeld, rules: str, ctx: Mapping[str, Any]) -> Candidate:
    """``best`` with its ``k``-th meld read as ``meld``, scored again."""
    melds = (*best.melds[:k], meld, *best.melds[k + 1 :])
    return _score(
        rules, ctx, replace(best, melds=melds, status="unscored", score_total=None, error_code=None, error_message=None)
    )


def _face_up_kans(best: Candidate, rules: str, ctx: Mapping[str, Any]) -> list[Candidate]:
    """The best reading again with each closed kan it read from four face-up tiles (no backs: a
    player who shows a closed kan face up) read as an open kan whose sideways tile was not seen (a
    white dragon's blank face gives no angle; fresh render 990015/126 was scored silently as a
    closed kan): asked about (a ``meld`` question), not preferred. Where it was called from is not
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
    rules: str,
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
    if best.dora_indicators or hrow.apart or not members or not get_ruleset(rules).counts_dora:
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
    rules: str,
    ctx: Mapping[str, Any],
    aside: frozenset[int],
    top: Mapping[int, int],
    dets: Sequence[Detection],
) -> list[Candidate]:
    """The best reading again with each face-up tile the photo's edge cuts that it left out, by the
    hand (:func:`_cut_left_out`), taken as a dora indicator (or, of a kind the ruleset sets aside, a
    gari too): asked about (a ``role`` ambiguity), never preferred. Such a tile is read from part
    of its face, so the localizer and the classifier are often unsure of it, and a reading that
    drops it is silently short of a dora (selection render 990011/184: a green dragon cut by a
    third, read 0.26) or a gari. Not where the context gives the role's tiles or the ruleset
    counts no dora."""
    counts_dora = get_ruleset(rules).counts_dora and "dora_indicators" not in ctx
    choice = {**top, **dict(best.classes)}
    out: list[Candidate] = []
    for d in _cut_left_out(dict(best.roles), dets):
        as_gari = kind(dets[d].cls) in aside and "nuki" not in ctx
        for role in [r for r, ok in (("dora", counts_dora), ("nuki", as_gari)) if ok]:
            cand = _with_role(best, hrow, rules, ctx, aside, {**choice, d: dets[d].cls}, d, role)
            if cand.valid:
                out.append(cand)
    return out


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


# ---------------------------------------------------------------------------------- entry point
def _read_rows(
    layout: Layout, rules: str, ctx: Mapping[str, Any], allowed: frozenset[int] | None, max_readings: int
) -> tuple[_RowResult, int, int, bool]:
    """The first of the layout's candidate rows (up to ``MAX_ROWS``) that reads as a winning hand,
    else the likeliest; with its index, the hands scored and whether a search bound was hit."""
    chosen: _RowResult | None = None
    chosen_i = 0
    evaluated = 0
    capped = False
    for i, hrow in enumerate(layout.candidates[:MAX_ROWS]):
        res = _arbitrate(layout, hrow, rules, ctx, allowed, max_readings)
        if (res.best is None or not res.best.valid) and (loose := loose_structures(hrow)):
            # no winning hand: leave end tiles out even with no gap (the last resort, at its cost)
            again = _arbitrate(layout, replace(hrow, structures=loose, loose=True), rules, ctx, allowed, max_readings)
            if again.best is not None and again.best.valid:
                res = replace(again, evaluated=res.evaluated + again.evaluated, capped=res.capped or again.capped)
            else:
                res = replace(res, evaluated=res.evaluated + again.evaluated)
        evaluated += res.evaluated
        capped |= res.capped
        if chosen is None:
            chosen, chosen_i = res, i
        if res.best is not None and res.best.valid:
            chosen, chosen_i = res, i
            break
    assert chosen is not None
    return chosen, chosen_i, evaluated, capped


def _without_reds(d: Detection, reds: frozenset[int]) -> Detection:
    """``d`` with the red fives in ``reds`` read as their plain fives, their probability added to
    the plain five's (a set without red 5m has none to show: a tile read as one is a 5m).

    >>> d = Detection(34, 0.5, (0.0, 0.0, 10.0, 14.0), topk=((34, 0.6), (4, 0.3), (33, 0.1)))
    >>> plain = _without_reds(d, frozenset({34}))
    >>> plain.name, [(tile_name(c), round(p, 2)) for c, p in plain.topk]
    ('5m', [('5m', 0.9), ('7z', 0.1)])
    """
    if d.cls not in reds and not any(c in reds for c, _ in d.topk):
        return d
    merged: dict[int, float] = {}
    for c, p in d.topk:
        plain = kind(c) if c in reds else c
        merged[plain] = merged.get(plain, 0.0) + p
    topk = tuple(sorted(merged.items(), key=lambda cp: -cp[1]))
    cls = kind(d.cls) if d.cls in reds else d.cls
    own = next((p for c, p in d.topk if c == d.cls), 0.0)
    confidence = d.confidence * merged[cls] / own if own > 0 and cls in merged else d.confidence
    return replace(d, cls=cls, topk=topk, confidence=min(confidence, 1.0))


def _within(
    dets: tuple[Detection, ...], allowed: frozenset[int] | None, reds: frozenset[int] = frozenset()
) -> tuple[Detection, ...]:
    """The detections as the layout should see them: one read as a kind the ruleset does not play
    (Totenko has no 2m–8m) is its likeliest class the ruleset plays, among its top-k. The layout
    sorts set-aside tiles by class: a third 1m of the gari read as 3m would be left out. Red fives
    the ruleset's set does not hold (``reds``) are read as plain fives (:func:`_without_reds`).

    >>> d = Detection(2, 0.9, (0.0, 0.0, 10.0, 14.0), topk=((2, 0.6), (0, 0.3)))
    >>> [x.name for x in _within((d,), frozenset({0, 8}))], [x.name for x in _within((d,), None)]
    (['1m'], ['3m'])
    """
    if reds:
        dets = tuple(_without_reds(d, reds) for d in dets)
    if allowed is None:
        return dets
    out = list(dets)
    for i, d in enumerate(dets):
        if d.cls != BACK and kind(d.cls) not in allowed:
            better = next((c for c, _ in d.candidates() if c != BACK and kind(c) in allowed), None)
            if better is not None:
                out[i] = replace(d, cls=better)
    return tuple(out)


def _lone_backs(res: _RowResult) -> frozenset[int]:
    """The face-down tiles among a row's concealed tiles that no closed kan explains (the
    ``face_down_tile`` problem's) with face-up tiles on both sides, two tiles or more from either
    end of the row: a box the localizer put on the gap between two tiles, read as a back, breaks
    the count. Backs side by side are a dead wall's; one by the row's last tile may be felt
    beside the row: not dropped."""
    tiles = res.hrow.row.tiles
    at = {t.det: k for k, t in enumerate(tiles)}
    named = {
        i
        for p in res.problems
        if p.code == "face_down_tile"
        for key, value in p.details
        if key == "indices"
        for i in value
    }
    return frozenset(
        i
        for i in named
        if i in at and 2 <= at[i] <= len(tiles) - 3 and not tiles[at[i] - 1].back and not tiles[at[i] + 1].back
    )


#: the last resort, when even the boxes read no winning hand: up to this many of the row's tiles
#: read sideways by their faces are, one at a time, read upright. The classifier sometimes reads a
#: called meld's second tile ~60° off (selection render 990013/214: a chi's 0p), and two sideways
#: tiles side by side split into no melds; where the row runs near 45° the boxes cannot say. On the
#: 4,600 selection and fresh renders 2 more read exactly (refused before), none fewer, no more
#: silently wrong. Taken without a question: the scoring core must accept the whole hand, and a
#: note says which face was turned
TURN_TRIES = 3


def _turned_faces(res: _RowResult, seen: tuple[Detection, ...]) -> list[tuple[int, float | None]]:
    """For each tile of the row read sideways by its face's angle, least surely sideways first:
    its index, and its nearest upright neighbour's face angle."""
    tiles = res.hrow.row.tiles
    upright = [u for u in tiles if not u.sideways and not u.back and seen[u.det].face_angle is not None]
    if not upright:
        return []
    side = sorted(
        (t for t in tiles if t.sideways and not t.back and t.stacked is None and seen[t.det].face_angle is not None),
        key=lambda t: t.side_margin,
    )
    return [(t.det, seen[min(upright, key=lambda u: abs(u.u - t.u)).det].face_angle) for t in side]


#: the last resort after the face-down boxes: the least sure box inside the row read under this
#: (localizer × classifier) is taken for no tile when no winning hand reads with it. False boxes
#: on a gap read as a blank white dragon (0.41, fresh render 990019/56), a tile's second box read
#: 0.4 (fresh 990018/18), a box on a pond's edge behind the row read 0.07 (selection 990012/813).
#: On the 4,600 selection and fresh renders: 4 more read exactly at 0.45, 2 at 0.4, 1 at 0.1–0.3;
#: at 0.5 one selection render is lost, read silently wrong (at 0.6 dropping every such box at
#: once lost two, the least sure alone one). The real rack photos read the same
DOUBTFUL_INNER_CONF = 0.45


def _doubtful_inner(res: _RowResult, dets: Sequence[Detection]) -> frozenset[int]:
    """The least sure face-up tile between two others of the row, when read under
    ``DOUBTFUL_INNER_CONF``: a box on the gap between two tiles, a tile's second box, or one on
    the edge of a pond behind the row."""
    inner = [t.det for t in res.hrow.row.tiles[1:-1] if not t.back and dets[t.det].confidence < DOUBTFUL_INNER_CONF]
    return frozenset(sorted(inner, key=lambda i: dets[i].confidence)[:1])


def _last_resorts(
    chosen: _RowResult,
    seen: tuple[Detection, ...],
    dets: Sequence[Detection],
) -> Iterator[tuple[str, tuple[Detection, ...], dict[str, frozenset[int]], str | None]]:
    """What :func:`read_hand` tries in turn while the hand reads as no winning hand, each as the
    detections and layout arguments to read again and the note to give if that reading is taken:
    boxes taken for a tile's second one on the hand's line read as tiles; a lone face-down box among
    the concealed tiles, then the least sure box inside the row, taken for no tile; the sideways
    tiles judged from the boxes alone; one face read sideways taken as upright (``TURN_TRIES``)."""
    if any(p.code == "wrong_tile_count" for p in chosen.problems):
        readmit = row_duplicates(dets, chosen.hrow.row)
        if readmit:
            yield "readmit", seen, {"readmit": readmit}, None
    for resort, drop, what in (
        ("drop", _lone_backs(chosen), "face-down box(es) {} among the concealed tiles"),
        ("doubtful", _doubtful_inner(chosen, seen), "box {} in the hand's row, read as no likely tile,"),
    ):
        if drop:
            yield (
                resort,
                seen,
                {"drop": drop},
                (what.format(", ".join(map(str, sorted(drop)))) + " taken for no tile (the count fits without)"),
            )
    if any(d.face_angle is not None for d in seen):
        yield (
            "boxes",
            tuple(replace(d, face_angle=None, face_sure=0.0) for d in seen),
            {},
            (
                "sideways tiles judged from the boxes alone (with the faces' angles no reading made a winning "
                "hand): check the melds"
            ),
        )
    for j, angle in _turned_faces(chosen, seen)[:TURN_TRIES]:
        turned = tuple(replace(d, face_angle=angle) if i == j else d for i, d in enumerate(seen))
        yield (
            "turn",
            turned,
            {},
            (
                f"tile {j}'s face, read sideways, taken as upright (as read no reading made "
                "a winning hand): check the melds"
            ),
        )


def _kans_from_second_boxes(
    best: Candidate,
    seen: tuple[Detection, ...],
    rules: str,
    ctx: dict[str, Any],
    allowed: frozenset[int] | None,
    max_readings: int,
) -> tuple[list[Candidate], int]:
    """The hand read again with a box taken for a pon tile's second box (:func:`second_boxes_on`)
    read as a tile, where that makes the pon a kan: seen steeply, a kan's neighbouring tiles overlap
    as one tile's two boxes do, and the kan then reads silently as a pon. Asked about, never
    preferred (a tile seen twice overlaps too). On the 2,600 selection and 2,000 fresh renders such
    a box lay on 18 pons read, 5 of them kans: 3 hands read silently wrong and 1 asked with no
    right answer are now asked with it, for 4 questions on hands read right; exact readings
    unchanged. Returns those readings and the hands scored finding them."""
    out: list[Candidate] = []
    scored = 0
    tried: set[int] = set()  # a box between two pons is read as a tile once
    for meld in best.melds:
        if meld.type != "pon":
            continue
        for j in second_boxes_on(seen, meld.dets):
            if j in tried:
                continue
            tried.add(j)
            again = analyse_layout(seen, rules, readmit=frozenset({j}))
            if not again.candidates:
                continue
            res, _i, evaluated, _capped = _read_rows(again, rules, ctx, allowed, max_readings)
            scored += evaluated
            cand = res.best
            if cand is not None and cand.valid and any(m.type == "kan" and j in m.dets for m in cand.melds):
                out.append(cand)
    return out, scored


def read_hand(
    dets: Sequence[Detection],
    rules: str = "riichi",
    context: Mapping[str, Any] | None = None,
    max_readings: int = MAX_READINGS,
) -> Reading:
    """Read the hand a photo's detections show, under ``rules``.

    ``context`` holds the rest of a Hand (``win``, winds, ``honba``, ``flags``, ``options``,
    ``ura_indicators``; ``dora_indicators`` and ``nuki`` replace the photo's); it is used when
    scoring candidate readings and included in :meth:`Reading.hand_dict`. Tile fields and
    ``rules`` in it are ignored: the photo and the ``rules`` argument decide them.
    """
    dets = tuple(dets)
    ctx: dict[str, Any] = dict(context or {})
    ctx_items = tuple(ctx.items())
    try:
        rs = get_ruleset(rules)
    except HandError as exc:
        layout = Layout(dets, rules, (), ())
        return Reading(rules, dets, layout, None, problems=(Problem(exc.code, exc.message),), context=ctx_items)
    try:
        opts = rs.parse_options(ctx.get("options"))
    except HandError:
        opts = rs.parse_options({})
    allowed = rs.allowed_kinds(opts)
    # the red fives the set does not hold (WSOM and Jun play plain sets; Kansai Boo has red 5p only)
    limits = (0, 0, 0) if rs.reds_are_plain else rs.red_five_limits(opts)
    seen = _within(dets, allowed, frozenset(RED_5M + i for i, n in enumerate(limits) if n == 0))
    layout = analyse_layout(seen, rules)
    if not layout.candidates:
        return Reading(
            rules,
            dets,
            layout,
            None,
            problems=(Problem("no_hand_row", f"no row of tiles found among {len(dets)} detections"),),
            context=ctx_items,
        )
    chosen, chosen_i, evaluated, capped = _read_rows(layout, rules, ctx, allowed, max_readings)
    taken: str | None = None  # the note of the last resort taken, if one was
    if chosen.best is None or not chosen.best.valid:
        for resort, looked_at, kw, note in _last_resorts(chosen, seen, dets):
            again = analyse_layout(looked_at, rules, **kw)
            res, res_i, more, more_capped = _read_rows(again, rules, ctx, allowed, max_readings)
            evaluated += more
            # ... a reading from the boxes alone is taken only with a question to ask: never silently
            if res.best is not None and res.best.valid and (resort != "boxes" or _ambiguities(res.competitive)):
                layout, chosen, chosen_i, capped = again, res, res_i, capped or more_capped
                taken = note
                break
    notes: list[str] = [taken] if taken else []
    if capped:
        notes.append(
            f"enumeration capped (at most {max_readings} readings scored per row, {MAX_STATES} "
            "combinations looked at): ambiguities may be incomplete"
        )
    row = chosen.hrow.row
    if row.oriented_by == "default" and chosen.hrow.structures:
        notes.append("left and right of the row are a guess (no melds, no gap before the winning tile)")
    if row.degenerate:
        notes.append("the row runs near 45°: sideways tiles judged from the rotated flag only")
    competitive = list(chosen.competitive)
    best = chosen.best if chosen.best is not None and chosen.best.valid else None
    if best is not None:
        kans, scored = _kans_from_second_boxes(best, seen, rules, ctx, allowed, max_readings)
        competitive += kans
        evaluated += scored
    alternatives = tuple(c for c in competitive if c is not chosen.best)[:MAX_ALTERNATIVES]
    asked = _ambiguities(competitive)
    if best is not None:
        asked += _unlikely_classes(best, dets, asked)
    if chosen.best is not None:  # a refused reading's tiles too: a cut one may be why
        notes += _cut_notes(dict(chosen.best.roles), dets)
    return Reading(
        rules,
        dets,
        layout,
        chosen.best,
        alternatives,
        tuple(asked),
        tuple(chosen.problems),
        ctx_items,
        chosen_i,
        evaluated,
        capped,
        tuple(notes),
    )


__all__ = ["Ambiguity", "Candidate", "Problem", "ReadMeld", "Reading", "cut_note", "read_hand"]
