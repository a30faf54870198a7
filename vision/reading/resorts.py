"""The last resorts when the hand reads as no winning hand: the layout read again with boxes taken as
tiles or for no tile, faces judged otherwise; and kans from a pon tile's second box."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import replace
from typing import Any

from paiscan.scoring.engine import Ruleset
from paiscan.vision.detection import Detection
from paiscan.vision.layout import (
    analyse_layout,
    row_duplicates,
    second_boxes_on,
)
from paiscan.vision.reading.arbitrate import MAX_ROWS, _read_rows, _RowResult
from paiscan.vision.reading.results import Candidate


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


#: the last resort: up to this many of the row's tiles read sideways by their faces are, one at a time, read upright
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


#: the last resort after the face-down boxes: the least sure box inside the row read under this is taken for no tile
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
    rules: Ruleset,
    ctx: dict[str, Any],
    allowed: frozenset[int] | None,
    max_readings: int,
) -> tuple[list[Candidate], int]:
    """The hand read again with a box taken for a pon tile's second box (:func:`second_boxes_on`)
    read as a tile, where that makes the pon a kan: seen steeply, a kan's neighbouring tiles overlap
    as one tile's two boxes do, and the kan then reads silently as a pon. Asked about, never
    preferred (a tile seen twice overlaps too). Returns those readings and the hands scored finding
    them."""
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
            again = analyse_layout(seen, rules, readmit=frozenset({j}), max_candidates=MAX_ROWS)
            read = _read_rows(again, rules, ctx, allowed, max_readings)
            if read is None:
                continue
            res, _i, evaluated, _capped = read
            scored += evaluated
            cand = res.best
            if cand is not None and cand.valid and any(m.type == "kan" and j in m.dets for m in cand.melds):
                out.append(cand)
    return out, scored
