"""One reading built from a structure and a class per tile, and scored by the scoring core."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import replace
from statistics import fmean
from typing import Any

from paiscan.scoring import score_hand
from paiscan.scoring.engine import Ruleset
from paiscan.scoring.errors import HandError
from paiscan.scoring.tiles import BACK, is_honor, kind, suit, tile_name
from paiscan.vision.detection import Detection
from paiscan.vision.layout import (
    HandRow,
    Structure,
    split_apart,
)
from paiscan.vision.reading.results import Candidate, Problem, ReadMeld, _hand_dict

#: class alternatives: at most this many per tile, at least this probability, at most this cost
MAX_ALTS_PER_TILE = 4
#: a class alternative is at least this likely ...
MIN_ALT_P = 0.01
#: ... and costs at most this (ln of p_top / p)
MAX_ALT_COST = math.log(100.0)
#: errors that leave a reading valid (the photo cannot show riichi, tsumo ...), at ``NO_YAKU_COST`` more
VALID_ERRORS = frozenset({"no_yaku"})
#: a complete hand in a shape the ruleset's options switch off (Boo's seven pairs without
#: ``enable_chiitoitsu``): when no reading wins, such a reading within ``DELTA`` of the likeliest
#: is shown, so the structure is right and the problem names the option that would score it
COMPLETE_BUT_REFUSED = frozenset({"yaku_not_adopted"})
#: the cost of a reading valid only without a yaku of its own
NO_YAKU_COST = 0.2


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
    rules: Ruleset,
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
        rules.max_indicators(kans),
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
    out of the row: between two sure ones (an indicator among others, read unsurely), or beside a sure one of a
    kind the ruleset sets
    aside, itself of such a kind (a gari laid in line with the others, Totenko)."""
    pos = {t.det: k for k, t in enumerate(hrow.row.tiles)}
    beside = [hrow.row.tiles[k].det for k in (pos[d] - 1, pos[d] + 1) if 0 <= k < len(hrow.row.tiles)]
    sure = [e for e in beside if e in s.excluded and e not in hrow.row.doubtful]
    if len(sure) == 2:
        return True
    return kind(choice[d]) in aside and any(kind(choice[e]) in aside for e in sure)


def _score(rules: Ruleset, ctx: Mapping[str, Any], cand: Candidate) -> Candidate:
    try:
        sc = score_hand(_hand_dict(rules.id, ctx, cand))
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
    rules: Ruleset, hrow: HandRow, dets: Sequence[Detection], top: Mapping[int, int], aside: frozenset[int]
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
