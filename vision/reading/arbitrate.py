"""The search: a row's structures and every plausible class of each tile, best first, arbitrated by the
scoring core; the layout's candidate rows tried in turn."""

from __future__ import annotations

import heapq
import math
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from paiscan.scoring.engine import Ruleset
from paiscan.vision.deadline import check, spent
from paiscan.vision.layout import (
    HandRow,
    Layout,
    loose_structures,
)
from paiscan.vision.reading.build import (
    COMPLETE_BUT_REFUSED,
    _build,
    _class_options,
    _kind_excess,
    _layout_problems,
    _score,
)
from paiscan.vision.reading.results import Candidate, Problem
from paiscan.vision.reading.second_looks import (
    _cut_indicators,
    _doubtful_indicators,
    _dropped_indicators,
    _face_up_kans,
    _gari_or_indicator,
    _merged_kans,
    _missing_indicator,
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


@dataclass
class _RowResult:
    hrow: HandRow
    best: Candidate | None
    competitive: list[Candidate]
    problems: list[Problem]
    evaluated: int
    capped: bool


def _arbitrate(
    layout: Layout,
    hrow: HandRow,
    rules: Ruleset,
    ctx: Mapping[str, Any],
    allowed: frozenset[int] | None,
    max_readings: int,
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
        check()  # the photo's time limit, if the caller set one
        if spent() and results:  # the time for this photo is spent: answer from the readings scored
            capped = True
            break
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
    if first is None:  # the bounds let no reading be scored: the best effort, refused
        return _RowResult(
            hrow,
            _build(rules, hrow.best_effort, hrow, top, aside, 0.0),
            [],
            [Problem("no_reading_scored", f"the search bound ({max_readings} readings scored) let none be scored")],
            0,
            True,
        )
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


def _read_rows(
    layout: Layout, rules: Ruleset, ctx: Mapping[str, Any], allowed: frozenset[int] | None, max_readings: int
) -> tuple[_RowResult, int, int, bool] | None:
    """The first of the layout's candidate rows (up to ``MAX_ROWS``) that reads as a winning hand,
    else the likeliest; with its index, the hands scored and whether a search bound was hit. ``None``
    when the layout has no candidate row."""
    chosen: _RowResult | None = None
    chosen_i = 0
    evaluated = 0
    capped = False
    for i, hrow in enumerate(layout.candidates[:MAX_ROWS]):
        check()
        if chosen is not None and spent():
            capped = True
            break
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
    if chosen is None:
        return None
    return chosen, chosen_i, evaluated, capped
