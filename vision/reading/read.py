"""The reading's entry point: :func:`read_hand` reads the hand a photo's detections show."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from paiscan.scoring.engine import Ruleset
from paiscan.scoring.errors import HandError
from paiscan.scoring.registry import get_ruleset
from paiscan.scoring.tiles import BACK, RED_5M, kind
from paiscan.vision.deadline import spent
from paiscan.vision.detection import Detection
from paiscan.vision.layout import (
    Layout,
    analyse_layout,
)
from paiscan.vision.reading.arbitrate import MAX_READINGS, MAX_ROWS, MAX_STATES, _read_rows
from paiscan.vision.reading.questions import _ambiguities, _cut_notes, _unlikely_classes
from paiscan.vision.reading.resorts import _kans_from_second_boxes, _last_resorts
from paiscan.vision.reading.results import Problem, Reading

#: alternative readings a reading reports at most
MAX_ALTERNATIVES = 12
#: said when the search stopped early (its bounds, or the time for the photo): the readings offered
#: are the likeliest found, and there may be others
CAPPED_NOTE = (
    f"enumeration capped (at most {MAX_READINGS} readings scored per row, {MAX_STATES} combinations looked at, "
    "or the time for the photo spent): ambiguities may be incomplete"
)


def _without_reds(d: Detection, reds: frozenset[int]) -> Detection:
    """``d`` with the red fives in ``reds`` read as their plain fives, their probability added to
    the plain five's (a set without red 5m has none to show: a tile read as one is a 5m).

    >>> from paiscan.scoring.tiles import tile_name
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


def ruleset_of(rules: Ruleset | str) -> Ruleset | str:
    """``rules`` as a :class:`Ruleset`, looked up once at the edge; an unknown id as it is, for
    :func:`read_hand` to answer with an ``unknown_ruleset`` problem.

    >>> ruleset_of("riichi").id, ruleset_of("nope")
    ('riichi', 'nope')
    """
    if isinstance(rules, Ruleset):
        return rules
    try:
        return get_ruleset(rules)
    except HandError:
        return rules


def read_hand(
    dets: Sequence[Detection],
    rules: Ruleset | str = "riichi",
    context: Mapping[str, Any] | None = None,
    max_readings: int = MAX_READINGS,
) -> Reading:
    """Read the hand a photo's detections show, under ``rules`` (a ruleset, or its id: an unknown id
    is answered with an ``unknown_ruleset`` problem).

    ``context`` holds the rest of a Hand (``win``, winds, ``honba``, ``flags``, ``options``,
    ``ura_indicators``; ``dora_indicators`` and ``nuki`` replace the photo's); it is used when
    scoring candidate readings and included in :meth:`Reading.hand_dict`. Tile fields and
    ``rules`` in it are ignored: the photo and the ``rules`` argument decide them.
    """
    dets = tuple(dets)
    ctx: dict[str, Any] = dict(context or {})
    ctx_items = tuple(ctx.items())
    if isinstance(rules, Ruleset):
        rs = rules
    else:
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
    layout = analyse_layout(seen, rs, max_candidates=MAX_ROWS)
    read = _read_rows(layout, rs, ctx, allowed, max_readings)
    if read is None:
        return Reading(
            rs.id,
            dets,
            layout,
            None,
            problems=(Problem("no_hand_row", f"no row of tiles found among {len(dets)} detections"),),
            context=ctx_items,
        )
    chosen, chosen_i, evaluated, capped = read
    taken: str | None = None  # the note of the last resort taken, if one was
    if chosen.best is None or not chosen.best.valid:
        for resort, looked_at, kw, note in _last_resorts(chosen, seen, dets):
            if spent():  # the time for this photo is spent: no more last resorts
                capped = True
                break
            again = analyse_layout(looked_at, rs, max_candidates=MAX_ROWS, **kw)
            read_again = _read_rows(again, rs, ctx, allowed, max_readings)
            if read_again is None:  # the resort left no row of tiles (a box dropped from a short row)
                continue
            res, res_i, more, more_capped = read_again
            evaluated += more
            # ... a reading from the boxes alone is taken only with a question to ask: never silently
            if res.best is not None and res.best.valid and (resort != "boxes" or _ambiguities(res.competitive)):
                layout, chosen, chosen_i, capped = again, res, res_i, capped or more_capped
                taken = note
                break
    notes: list[str] = [taken] if taken else []
    if capped:
        notes.append(CAPPED_NOTE)
    row = chosen.hrow.row
    if row.oriented_by == "default" and chosen.hrow.structures:
        notes.append("left and right of the row are a guess (no melds, no gap before the winning tile)")
    if row.degenerate:
        notes.append("the row runs near 45°: sideways tiles judged from the rotated flag only")
    competitive = list(chosen.competitive)
    best = chosen.best if chosen.best is not None and chosen.best.valid else None
    if best is not None:
        kans, scored = _kans_from_second_boxes(best, seen, rs, ctx, allowed, max_readings)
        competitive += kans
        evaluated += scored
    alternatives = tuple(c for c in competitive if c is not chosen.best)[:MAX_ALTERNATIVES]
    asked = _ambiguities(competitive)
    if best is not None:
        asked += _unlikely_classes(best, dets, asked)
    if chosen.best is not None:  # a refused reading's tiles too: a cut one may be why
        notes += _cut_notes(dict(chosen.best.roles), dets)
    return Reading(
        rs.id,
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
