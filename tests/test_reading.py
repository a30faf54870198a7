"""paiscan.vision.reading: layouts read as hands, with the scoring core as arbiter.

Table-driven: each case lays a hand out with ``layout_boxes`` (tests/test_layout_helpers.py) and
states the hand structure the reader must print.
"""

from __future__ import annotations

import json
import random
from dataclasses import replace
from typing import Any

import pytest
from test_layout_helpers import layout_boxes, shuffled, with_topk

from paiscan.scoring import score_hand
from paiscan.scoring.errors import HandError
from paiscan.scoring.generate import random_hand
from paiscan.scoring.registry import available, get_ruleset
from paiscan.scoring.tiles import BACK, format_tiles, kind, parse_tiles, tile_name
from paiscan.vision import reading
from paiscan.vision.detection import Detection
from paiscan.vision.layout import set_aside_kinds
from paiscan.vision.reading import MAX_READINGS, Candidate, Reading, read_hand


def shape(
    hand: str, win: str, melds: list[dict[str, Any]] | None = None, dora: list[str] | None = None, nuki: str = ""
) -> dict[str, Any]:
    return {"hand": hand, "melds": melds or [], "win_tile": win, "dora_indicators": dora or [], "nuki": nuki}


def meld(type_: str, tiles: str, from_: str | None = None, open_: bool = True, added: bool = False) -> dict[str, Any]:
    out: dict[str, Any] = {"type": type_, "tiles": tiles, "open": open_, "added": added}
    if from_ is not None:
        out["from"] = from_
    return out


def read(dets: list[Detection], rules: str = "riichi", context: dict[str, Any] | None = None) -> Reading:
    r = read_hand(shuffled(dets, 7), rules, context)
    json.dumps(r.to_dict())  # always serialisable
    return r


def kinds(r: Reading) -> set[str]:
    return {a.kind for a in r.ambiguities}


# ---------------------------------------------------------------------------------- the table
CLOSED = "123m456p789s1122z"
CASES: list[tuple[str, str, dict[str, Any], dict[str, Any]]] = [
    ("closed hand, gap before the winning tile", "123m456p789s1122z 2z", {}, shape("123m456p789s1122z", "2z")),
    ("pinfu hand", "234m678p34567s99s 2s", {}, shape("234m678p3456799s", "2s")),
    (
        "chi from the left",
        "123m456p1z 1z ~0.8 7'89s 5'55z",
        {},
        shape("123m456p1z", "1z", [meld("chi", "789s", "left"), meld("pon", "555z", "left")]),
    ),
    (
        "pon from across",
        "123m456p78s11z 9s ~0.8 55'5z",
        {},
        shape("123m456p78s11z", "9s", [meld("pon", "555z", "across")]),
    ),
    (
        "pon from the right",
        "123m456p78s11z 9s ~0.8 555'z",
        {},
        shape("123m456p78s11z", "9s", [meld("pon", "555z", "right")]),
    ),
    (
        "open kan from the left",
        "123m456p78s11z 9s ~0.8 7'777z",
        {},
        shape("123m456p78s11z", "9s", [meld("kan", "7777z", "left")]),
    ),
    (
        "open kan from across",
        "123m456p78s11z 9s ~0.8 77'77z",
        {},
        shape("123m456p78s11z", "9s", [meld("kan", "7777z", "across")]),
    ),
    (
        "open kan from the right",
        "123m456p78s11z 9s ~0.8 7777'z",
        {},
        shape("123m456p78s11z", "9s", [meld("kan", "7777z", "right")]),
    ),
    (
        "closed kan back-face-face-back",
        "123m456p78s11z 9s ~0.8 ?77z?",
        {},
        shape("123m456p78s11z", "9s", [meld("kan", "7777z", None, open_=False)]),
    ),
    (
        "added kan, stacked",
        '123m456p78s11z 9s ~0.8 8"88p',
        {},
        shape("123m456p78s11z", "9s", [meld("kan", "8888p", "left", added=True)]),
    ),
    (
        "added kan, beside",
        "123m456p78s11z 9s ~0.8 88'8'8p",
        {},
        shape("123m456p78s11z", "9s", [meld("kan", "8888p", "across", added=True)]),
    ),
    (
        "two melds touching, win tile after them",
        "123m456p1z ~0.8 7'89s55'5z 1z",
        {},
        shape("123m456p1z", "1z", [meld("chi", "789s", "left"), meld("pon", "555z", "across")]),
    ),
    (
        "melds touching the concealed tiles",
        "123m456p78s11z 9s5'55z",
        {},
        shape("123m456p78s11z", "9s", [meld("pon", "555z", "left")]),
    ),
    (
        "dora indicator above the row",
        "123m456p789s1122z 2z",
        {"extras": [("3p", 4.0, 3.2)]},
        shape(CLOSED, "2z", dora=["3p"]),
    ),
    (
        "two dora indicators above",
        "123m456p789s1122z 2z",
        {"extras": [("3p", 4.0, 3.2), ("9m", 5.05, 3.2)]},
        shape(CLOSED, "2z", dora=["9m", "3p"]),
    ),
    (
        "dora indicator to the right on the row line",
        "123m456p789s1122z 2z ~1.5 3p",
        {},
        shape(CLOSED, "2z", dora=["3p"]),
    ),
    ("dora indicator to the left on the row line", "3p ~2 123m456p789s1122z 2z", {}, shape(CLOSED, "2z", dora=["3p"])),
    ("dora indicator far out on the row line", "123m456p789s1122z 2z ~5 3p", {}, shape(CLOSED, "2z", dora=["3p"])),
    ("red five", "123m406p789s1122z 2z", {}, shape("123m406p789s1122z", "2z")),
]
TRANSFORMS: list[tuple[str, dict[str, Any]]] = [
    ("flat", {}),
    ("skewed +30", {"angle": 30.0}),
    ("skewed -30", {"angle": -30.0}),
    ("photo rotated 90", {"angle": 90.0}),
    ("photo rotated -90", {"angle": -90.0}),
    ("upside down", {"angle": 180.0}),
    ("perspective", {"perspective": 0.35, "depth": 0.3}),
    ("perspective and skew", {"perspective": 0.3, "depth": 0.25, "angle": -20.0}),
]


@pytest.mark.parametrize(("name", "spec", "kw", "expected"), CASES, ids=[c[0] for c in CASES])
@pytest.mark.parametrize("transform", TRANSFORMS, ids=[t[0] for t in TRANSFORMS])
def test_reading_table(
    name: str, spec: str, kw: dict[str, Any], expected: dict[str, Any], transform: tuple[str, dict[str, Any]]
) -> None:
    r = read(layout_boxes(spec, **kw, **transform[1]))
    assert r.problems == ()
    assert r.valid
    got = r.to_dict()["hand"]
    assert {**got, "dora_indicators": sorted(got["dora_indicators"])} == {
        **expected,
        "dora_indicators": sorted(expected["dora_indicators"]),
    }
    assert r.ambiguities == ()
    hand = r.hand_dict()
    assert hand is not None and hand["rules"] == "riichi"
    if r.best is not None and r.best.status == "scored":
        assert r.best.score_total == score_hand(hand).total


# ---------------------------------------------------------------------------------- winning tile
def test_no_gap_reports_the_winning_tile_as_ambiguous() -> None:
    r = read(layout_boxes("123m456p789s1122z2z"))
    assert r.valid and r.best is not None
    amb = next(a for a in r.ambiguities if a.kind == "win_tile")
    assert amb.candidates[0] == "2z"  # the rightmost tile, where a drawn tile is put
    assert set(amb.candidates) == {"1m", "2m", "3m", "4p", "5p", "6p", "7s", "8s", "9s", "1z", "2z"}
    assert len(amb.indices) == len(amb.candidates)

    def tiles(c: Candidate) -> list[int]:
        return sorted([*c.concealed, *([c.win_tile] if c.win_tile is not None else [])])

    assert all(tiles(c) == tiles(r.best) for c in r.alternatives)  # the same tiles, another winning tile
    assert any("guess" in n for n in r.notes)
    # the hands the answers lead to (what ``paiscan eval`` checks the truth against)
    offered = r.offered_hands()
    assert len(offered) == len(r.alternatives) and {h["win_tile"] for h in offered} == set(amb.candidates) - {"2z"}


def test_no_gap_prefers_a_winning_tile_that_makes_a_yaku() -> None:
    # 234m 678p 234s 567s 99s: only a two-sided wait (2m, 4m, 6p, 8p, 2s, 4s, 5s, 7s) gives pinfu
    r = read(layout_boxes("234m678p34567s99s2s"))
    assert r.best is not None and r.best.status == "scored"
    assert r.best.win_tile is not None
    amb = next(a for a in r.ambiguities if a.kind == "win_tile")
    assert "2s" in amb.candidates and len(amb.candidates) > 3
    no_yaku = [c for c in r.alternatives if c.status == "no_yaku"]
    assert all(c.cost > r.best.cost for c in no_yaku)


def test_each_winning_tile_candidate_carries_its_score() -> None:
    # pinfu only with a two-sided wait: the answer decides between a score and no yaku
    r = read(layout_boxes("234m678p34567s99s2s"))
    assert r.best is not None
    amb = next(a for a in r.ambiguities if a.kind == "win_tile")
    assert len(amb.scores) == len(amb.candidates) and amb.scores[0] == r.best.score_total
    first = {}
    for c in (r.best, *r.alternatives):  # likeliest first, as the ambiguity takes them
        first.setdefault(tile_name(c.win_tile), c.score_total)
    assert all(first[name] == total for name, total in zip(amb.candidates, amb.scores, strict=True) if name in first)
    assert None in amb.scores and any(t is not None for t in amb.scores)
    hand = r.hand_dict()
    assert hand is not None and amb.scores[0] == score_hand(hand).total
    # with riichi every reading scores, and the scores follow the context given
    ctx = read(layout_boxes("234m678p34567s99s2s"), context={"flags": ["riichi"]})
    amb2 = next(a for a in ctx.ambiguities if a.kind == "win_tile")
    assert None not in amb2.scores and amb2.to_dict()["scores"] == list(amb2.scores)


def test_context_is_used_to_score_and_included_in_the_hand() -> None:
    dets = layout_boxes("123m456p789s1122z 2z")
    plain = read(dets)
    assert plain.best is not None and plain.best.status == "no_yaku"
    ctx = {"win": "tsumo", "seat_wind": "south", "flags": ["riichi"], "hand": "ignored", "rules": "ignored"}
    r = read(dets, context=ctx)
    assert r.best is not None and r.best.status == "scored"
    hand = r.hand_dict()
    assert hand is not None
    assert hand["win"] == "tsumo" and hand["flags"] == ["riichi"] and hand["hand"] == CLOSED
    assert hand["rules"] == "riichi"
    assert r.best.score_total == score_hand(hand).total
    assert read(dets).hand_dict() == {"rules": "riichi", **shape(CLOSED, "2z")} | {"melds": []}


def test_context_indicators_replace_the_photos() -> None:
    dets = layout_boxes("123m456p789s1122z 2z", extras=[("3p", 4.0, 3.2)])
    hand = read(dets, context={"dora_indicators": ["1z"]}).hand_dict()
    assert hand is not None and hand["dora_indicators"] == ["1z"]


# ---------------------------------------------------------------------------------- arbitration
def test_low_confidence_tile_resolved_by_its_alternatives() -> None:
    dets = layout_boxes("123m456p789s1122z 2z")
    dets = with_topk(dets, 1, [("3m", 0.46), ("2m", 0.41), ("8m", 0.08)])  # the 2m misread as 3m
    r = read(dets)
    assert r.valid and r.best is not None
    assert r.to_dict()["hand"]["hand"] == CLOSED
    assert r.ambiguities == ()
    (fix,) = r.corrections()
    assert (fix["read"], fix["as"]) == ("3m", "2m")


def test_low_confidence_tile_with_two_valid_readings_is_ambiguous() -> None:
    dets = layout_boxes("123m456p789s2233z 2z")
    dets = with_topk(dets, 13, [("2z", 0.5), ("3z", 0.45)])  # the winning tile: 2z or 3z both win
    r = read_hand(dets)
    assert r.valid
    amb = [a.to_dict() for a in r.ambiguities]
    assert {"kind": "tile", "index": 13, "candidates": ["2z", "3z"]} in amb
    # neither scores without a yaku from the context: a dora-less no-yaku hand either way
    assert {"kind": "win_tile", "indices": [13, 13], "candidates": ["2z", "3z"], "scores": [None, None]} in amb
    assert [c.win_tile for c in r.alternatives] == [29]  # 3z


def test_a_reading_with_a_yaku_beats_a_slightly_likelier_one_without() -> None:
    dets = layout_boxes("123m456p789s1122z 2z")
    dets = with_topk(dets, 13, [("2z", 0.5), ("1z", 0.45)])  # 1z: east, a value tile for the dealer
    r = read_hand(dets)
    assert r.best is not None and r.best.win_tile == 27 and r.best.status == "scored"
    assert "tile" in kinds(r)


def test_confident_misread_is_not_corrected_against_the_odds() -> None:
    dets = layout_boxes("123m456p789s1122z 2z")
    dets = with_topk(dets, 1, [("3m", 0.995), ("2m", 0.004)])  # below MIN_ALT_P: not an option
    r = read(dets)
    assert not r.valid and [p.code for p in r.problems] == ["no_valid_reading"]
    assert r.best is not None and r.best.score_total is None


@pytest.mark.parametrize(("gap", "pon_found"), [(0.5, True), (0.05, False)])
def test_a_gap_inside_the_concealed_tiles_ends_them(gap: float, pon_found: bool) -> None:
    """As in selection render 990014/151: a pon of white dragons whose called tile's blank face
    was read upright lies a gap apart from the concealed tiles; read as three concealed dragons,
    the concealed tiles would have a gap inside them, which players do not leave. With no gap
    there the tiles read as they lie (the call mark unseen, the winning tile asked)."""
    dets = layout_boxes(f"79p33z8p ~{gap} 555'z ~0.05 3'12m ~0.05 6'45p", faces=True)
    assert dets[7].name == "5z"
    dets[7] = replace(dets[7], face_angle=dets[6].face_angle)  # the called dragon's face read upright
    hand = read(dets, "kansai_boo").to_dict()["hand"]
    melds = [m["tiles"] for m in hand["melds"]]
    if pon_found:
        assert (hand["hand"], hand["win_tile"], melds) == ("79p33z", "8p", ["555z", "123m", "456p"])
    else:
        assert "555z" not in melds


@pytest.mark.parametrize(("grow", "pon_found"), [(0.1, True), (0.0, False)])
def test_a_face_read_upright_whose_box_says_sideways_is_upright_only_unsurely(
    grow: float,
    pon_found: bool,
) -> None:
    """As in selection render 990011/865: a pon's called tile whose face the classifier reads
    upright, its box plainly sideways (a tenth wider than a sideways tile's here): the row is also
    read with it sideways, and the pon is found. A box only as wide as a sideways tile's leaves the
    face's word standing (the tiles are then read as concealed, the winning tile asked)."""
    dets = layout_boxes("123m456p78s11z 9s ~0.8 6'66p", faces=True)
    assert dets[11].rotated and dets[11].name == "6p"
    x1, y1, x2, y2 = dets[11].box
    dets[11] = replace(dets[11], face_angle=dets[12].face_angle, box=(x1, y1, x2 + (x2 - x1) * grow, y2))
    hand = read(dets).to_dict()["hand"]
    assert ([m["tiles"] for m in hand["melds"]] == ["666p"]) is pon_found


def test_unclear_meld_split_is_settled_by_the_tiles() -> None:
    # sideways tiles at the 2nd and 5th of 7 meld tiles: 3+4 (pon, kan) or 4+3 (kan, pon)
    dets = layout_boxes("123m456p1z 1z ~0.8 55'577'77z")
    r = read(dets)
    assert r.valid and r.ambiguities == ()
    assert r.to_dict()["hand"]["melds"] == [meld("pon", "555z", "across"), meld("kan", "7777z", "across")]


def test_meld_split_left_open_by_a_low_confidence_tile() -> None:
    dets = layout_boxes("123m456p1z 1z ~0.8 55'577'77z")
    dets = with_topk(dets, 11, [("7z", 0.5), ("5z", 0.45)])  # the 4th meld tile: 7z or 5z
    r = read(dets)
    assert r.valid
    assert {"meld_split", "tile"} <= kinds(r)
    split = next(a for a in r.ambiguities if a.kind == "meld_split")
    assert set(split.candidates) == {("555z", "7777z"), ("5555z", "777z")}


def test_readings_are_bounded() -> None:
    dets = layout_boxes("123m456p789s1122z2z")  # no gap: 14 positions
    for i in range(0, 13, 2):
        dets = with_topk(dets, i, [(dets[i].name, 0.5), ("9p", 0.3), ("8p", 0.2)])
    r = read_hand(dets, max_readings=5)
    assert r.evaluated <= 5 and r.capped
    assert any("capped" in n for n in r.notes)
    assert MAX_READINGS >= 100


def test_a_search_bound_that_scores_nothing_answers_a_refused_reading() -> None:
    """With no reading scored (``max_readings=0``) the answer is a refused reading naming why, not a failure."""
    r = read_hand(layout_boxes("123m456p789s1122z 2z"), max_readings=0)
    assert not r.valid and r.capped and r.evaluated == 0
    assert "no_reading_scored" in [p.code for p in r.problems]


def test_a_last_resort_that_leaves_no_row_keeps_the_reading_refused() -> None:
    """Three tiles in a row, the middle one a doubtful box: the last resort takes it for no tile, which leaves
    no row of tiles at all. The reading stays the refused one, with the row's problem (an assert failed there,
    and ``paiscan read`` answered ``reading_failed``)."""
    dets = [
        Detection(c, conf, (i * 30.0, 0.0, i * 30.0 + 28.0, 40.0))
        for i, (c, conf) in enumerate([(0, 0.9), (1, 0.3), (2, 0.9)])
    ]
    r = read_hand(dets)
    assert not r.valid and r.best is not None
    assert [p.code for p in r.problems] == ["wrong_tile_count"]
    assert r.row is not None and sorted(r.row.row.dets) == [0, 1, 2]


# ---------------------------------------------------------------------------------- problems
def test_missing_tile_is_a_wrong_tile_count() -> None:
    r = read(layout_boxes("123m456p789s122z 2z"))
    assert [p.code for p in r.problems] == ["wrong_tile_count"]
    assert r.problems[0].to_dict()["found"] == 13 and r.problems[0].to_dict()["expected"] == 14
    assert not r.valid and r.best is not None and r.best.status == "unscored" and r.best.score_total is None
    assert r.to_dict()["hand"]["hand"] == "123m456p789s122z"  # best effort, for the user to correct


def test_missing_meld_tile_is_a_wrong_tile_count() -> None:
    r = read(layout_boxes("123m456p78s11z 9s ~0.8 5'5z"))
    assert [p.code for p in r.problems] == ["wrong_tile_count"]


@pytest.mark.parametrize(
    "spec, extras",
    [
        ("11111m456p789s22z 2z", []),
        ("111m456p789s1122z 1m", [("1m", 4.0, 3.2)]),  # the fifth is the dora indicator
    ],
)
def test_five_of_a_kind_is_reported_never_scored(spec: str, extras: list[tuple[str, float, float]]) -> None:
    r = read(layout_boxes(spec, extras=extras))
    assert [p.code for p in r.problems] == ["five_of_a_kind"]
    assert r.problems[0].to_dict()["tiles"] == ["1m"]
    assert not r.valid and r.best is not None and r.best.score_total is None
    assert r.alternatives == ()


def test_face_down_tile_in_the_hand() -> None:
    r = read(layout_boxes("123m456p789s11?2z 2z"))
    assert "face_down_tile" in [p.code for p in r.problems] and not r.valid


@pytest.mark.parametrize(
    ("spec", "valid"),
    [
        # as in a render (seed 990012, image 58): a box the localizer put between two tiles, read as a back
        ("123m456p7?89s1122z 2z", True),
        # backs side by side are a dead wall's or a closed kan's: never dropped
        ("123m456p7??89s1122z 2z", False),
    ],
)
def test_a_lone_back_among_the_concealed_tiles_is_no_tile(spec: str, valid: bool) -> None:
    read_without_the_box(read(layout_boxes(spec)), valid, "face-down box")


def read_without_the_box(r: Reading, valid: bool, note: str) -> None:
    """``r`` reads the hand 123m456p789s1122z with a box of its row taken for no tile and a note
    (``note`` in it) saying so, when ``valid``; else it is refused."""
    assert r.valid is valid
    if valid:
        assert r.best is not None and format_tiles(r.best.concealed) == "123m456p789s1122z"
        assert any(note in n and "taken for no tile" in n for n in r.notes)
    else:
        assert r.problems


@pytest.mark.parametrize(
    ("confidence", "valid"),
    [
        # as in a render (seed 990012, image 813): a box on a gap in the row, read as a white dragon 0.07
        (0.07, True),
        (0.41, True),  # ... and 990019/56: on the gap before a closed kan, 0.9 a white dragon, its box 0.45
        (0.6, False),  # a tile read surely is a tile: the count is wrong, refused
    ],
)
def test_a_doubtful_box_inside_the_row_is_no_tile_when_nothing_reads_with_it(confidence: float, valid: bool) -> None:
    dets = layout_boxes("123m456p5z789s1122z 2z")
    assert dets[6].name == "5z"
    dets[6] = replace(dets[6], confidence=confidence)
    read_without_the_box(read(dets), valid, "no likely tile")
    whole = read(layout_boxes("123m456p789s1122z 2z"))  # nothing to drop: read as it is, no note
    assert whole.valid and not whole.notes


@pytest.mark.parametrize(
    ("offset", "readmitted"),
    [
        (0.3, True),  # a clipped box off its neighbour's centre, past the row's end: the tile the frame cuts
        (0.05, False),  # ... on the neighbour's centre: its second box, no tile
    ],
)
def test_a_tile_the_frame_cuts_at_the_rows_end_is_readmitted(offset: float, readmitted: bool) -> None:
    """The first tile, cut by the frame, gets a clipped box lying mostly inside its neighbour's and
    read as it: when the count lacks a tile, the box is a tile after all, read from its top-k."""
    dets = layout_boxes("123m456p789s1122z 2z")
    x1, y1, x2, y2 = dets[1].box
    w = x2 - x1
    centre = x1 + w / 2 - offset * w
    dets[0] = Detection(1, 0.4, (centre - 0.25 * w, y1, centre + 0.25 * w, y2), False, ((1, 0.5), (0, 0.3)))
    r = read(dets)
    assert r.valid is readmitted
    if readmitted:
        assert r.to_dict()["hand"] == shape(CLOSED, "2z")


@pytest.mark.parametrize(
    ("spec", "read_by_boxes"),
    [
        ("123m456p789s11222z", True),  # no gap before the winning tile: read, and the winning tile asked
        ("123m456p789s1122z 2z", False),  # ... with one, there is nothing to ask: not taken from the boxes
    ],
)
def test_a_face_angle_that_breaks_the_hand_gives_way_to_the_boxes(spec: str, read_by_boxes: bool) -> None:
    """A concealed tile whose face angle reads sideways (a call mark no meld can use) leaves no
    winning hand; the boxes alone read one, taken only with a question to ask. Else that one face
    is taken as upright (its neighbour's angle), with a note."""
    dets = layout_boxes(spec, faces=True)
    dets[4] = replace(dets[4], face_angle=90.0, face_sure=0.95)
    r = read(dets)
    assert r.valid
    assert any("boxes alone" in n for n in r.notes) is read_by_boxes
    assert any("taken as upright" in n for n in r.notes) is not read_by_boxes
    assert r.to_dict()["hand"]["hand"] == "123m456p789s1122z"
    if read_by_boxes:
        assert r.ambiguities
    assert read(layout_boxes(spec, faces=True)).valid  # the faces agreeing with the boxes read it
    lone = read(layout_boxes(spec, faces=True)[:4] + dets[4:5])  # no row to read: nothing turned
    assert not any("taken as upright" in n for n in lone.notes)


@pytest.mark.parametrize("off", [90.0, 65.0])
def test_a_meld_tile_whose_face_reads_sideways_is_taken_as_upright(
    off: float,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Two tiles of a chi read sideways (the second one's face misread, as on selection render
    990013/214) split into no melds, and the boxes alone have nothing to ask; one of them is read
    upright."""
    dets = layout_boxes("123m456p1z 1z ~0.8 7'89s 4'44z", faces=True)
    assert dets[9].name == "8s" and dets[9].face_angle is not None
    dets[9] = replace(dets[9], face_angle=dets[9].face_angle + off)
    r = read(dets)
    assert r.valid and any("taken as upright" in n for n in r.notes)
    assert [m["tiles"] for m in r.to_dict()["hand"]["melds"]] == ["789s", "444z"]
    monkeypatch.setattr(reading.resorts, "TURN_TRIES", 0)
    assert not read(dets).valid


@pytest.mark.parametrize(
    ("rules", "options", "hand", "plain"),
    [
        ("riichi", None, "340m406p789s1122z", []),  # one red five of each suit in the set
        ("riichi", {"red_fives": {"m": 0, "p": 0, "s": 0}}, "345m456p789s1122z", ["0m", "0p"]),  # a set without
        ("kansai_boo", None, "345m406p789s1122z", ["0m"]),  # red 5p only
        ("wsom", None, "345m456p789s1122z", ["0m", "0p"]),  # plain sets
        ("jun", None, "345m456p789s1122z", ["0m", "0p"]),
    ],
)
def test_red_fives_the_set_does_not_hold_are_read_as_plain_fives(
    rules: str, options: dict[str, Any] | None, hand: str, plain: list[str]
) -> None:
    """The ruleset decides the tile set: a tile read as a red five its set does not hold is its
    plain five (as in fresh render 990018/9, WSOM), and the correction says so."""
    r = read(layout_boxes("340m406p789s1122z 2z"), rules, {"options": options} if options else None)
    assert r.valid and r.to_dict()["hand"]["hand"] == hand
    assert sorted((c["read"], c["as"]) for c in r.corrections()) == [(red, "5" + red[1]) for red in plain]


def test_not_a_winning_hand() -> None:
    r = read(layout_boxes("135m456p789s1122z 2z"))
    (p,) = r.problems
    assert p.code == "no_valid_reading" and "not_a_winning_hand" in p.to_dict()["errors"]


def test_seven_pairs_at_a_boo_table_are_shown_with_the_option_that_scores_them() -> None:
    # Boo adopts seven pairs only with enable_chiitoitsu: no reading wins; the winning tile read
    # a little likelier as 2s (no complete hand) than 4s (seven pairs) is shown as the 4s
    dets = with_topk(layout_boxes("33m3344p1146699s 4s"), 13, [("2s", 0.43), ("4s", 0.38)])
    r = read(dets, "boo")
    (p,) = r.problems
    assert p.code == "no_valid_reading" and "enable_chiitoitsu" in p.message
    assert r.hand_dict() is not None and r.hand_dict()["win_tile"] == "4s"
    with_option = read(dets, "boo", {"options": {"enable_chiitoitsu": True}})
    assert with_option.valid and with_option.hand_dict()["win_tile"] == "4s"
    # far less likely, it is not put ahead of the tiles as read
    unlikely = with_topk(layout_boxes("33m3344p1146699s 4s"), 13, [("2s", 0.8), ("4s", 0.15)])
    assert read(unlikely, "boo").hand_dict()["win_tile"] == "2s"


def test_unknown_ruleset_and_no_row() -> None:
    r = read_hand(layout_boxes("123m456p789s1122z 2z"), rules="nope")
    assert [p.code for p in r.problems] == ["unknown_ruleset"] and r.hand_dict() is None
    r = read_hand(layout_boxes("12m"))
    assert [p.code for p in r.problems] == ["no_hand_row"] and r.to_dict()["hand"] is None


# ---------------------------------------------------------------------------------- rows
def test_background_discards_are_not_the_hand() -> None:
    hand = layout_boxes("123m456p789s1122z 2z", origin=(100, 600))
    discards = layout_boxes("159m19p19s1234567z", origin=(130, 250), unit=28)
    r = read(hand + discards)
    assert r.valid and r.to_dict()["hand"] == shape(CLOSED, "2z")


CTX_TSUMO = {"win": "tsumo"}


def test_a_short_discard_row_near_the_hand_is_not_indicators() -> None:
    """Four loose tiles above a hand without kans: no table shows four indicators without a kan."""
    pond = [("6s", 3.0, 3.0), ("3m", 4.05, 3.0), ("8m", 5.1, 3.0), ("6z", 6.15, 3.0)]
    r = read(layout_boxes("123m456p789s1122z 2z", extras=pond), "riichi", CTX_TSUMO)
    assert r.valid and r.to_dict()["hand"] == shape(CLOSED, "2z")
    assert [d["role"] for d in r.to_dict()["detections"]].count("other") == 4


def test_indicators_first_then_discards_beyond_the_budget() -> None:
    near = [("3p", 2.0, 2.6)]
    far = [("6s", 2.0, 5.5), ("3m", 3.05, 5.5), ("8m", 4.1, 5.5)]
    r = read(layout_boxes("123m456p789s1122z 2z", extras=near + far), "riichi", CTX_TSUMO)
    assert r.valid and r.to_dict()["hand"] == shape(CLOSED, "2z", dora=["3p"])


@pytest.mark.parametrize(
    ("n_apart", "indicators"),
    [
        (4, True),  # one kan: dora, kan dora and their ura, all four turned up beside the hand
        (5, False),  # five in a line, past the four one kan allows: a row of discards
    ],
)
def test_one_over_the_indicator_limit_only_for_a_small_cluster(n_apart: int, indicators: bool) -> None:
    apart = [(t, 2.0 + 1.05 * k, 3.0) for k, t in enumerate(["3p", "9m", "6s", "2z", "8p"][:n_apart])]
    r = read(layout_boxes("123m456p78s11z 9s ~0.8 7'777z", extras=apart), "riichi", CTX_TSUMO)
    assert r.valid and [m["type"] for m in r.to_dict()["hand"]["melds"]] == ["kan"]
    expected = [t for t, _, _ in apart] if indicators else []
    assert sorted(r.to_dict()["hand"]["dora_indicators"]) == sorted(expected)


@pytest.mark.parametrize(
    ("rules", "n_apart", "indicators"),
    [
        ("riichi", 4, True),  # one kan: four indicators
        ("boo", 4, False),  # Boo turns up one indicator, kan or not: four tiles are someone's discards
        ("kansai_boo", 4, False),
        ("boo", 2, True),  # one over Boo's one is still read, so the scorer can say only the first counts
        ("kansai_boo", 1, True),
    ],
)
def test_the_indicator_limit_is_the_rulesets(rules: str, n_apart: int, indicators: bool) -> None:
    apart = [(t, 2.0 + 1.05 * k, 3.0) for k, t in enumerate(["3p", "9m", "6s", "2z"][:n_apart])]
    r = read(layout_boxes("123m456p78s11z 9s ~0.8 7'777z", extras=apart), rules, CTX_TSUMO)
    assert r.valid and [m["type"] for m in r.to_dict()["hand"]["melds"]] == ["kan"]
    expected = [t for t, _, _ in apart] if indicators else []
    assert sorted(r.to_dict()["hand"]["dora_indicators"]) == sorted(expected)


def test_three_indicators_without_a_kan_are_still_read() -> None:
    """One more than a hand without kans allows (dora and ura): read, so the extra one is shown."""
    apart = [("3p", 2.0, 3.0), ("9m", 3.05, 3.0), ("6s", 4.1, 3.0)]
    r = read(layout_boxes("123m456p789s1122z 2z", extras=apart), "riichi", CTX_TSUMO)
    assert r.valid and sorted(r.to_dict()["hand"]["dora_indicators"]) == ["3p", "6s", "9m"]


@pytest.mark.parametrize(
    ("end", "conf", "left_out"),
    [
        ("?", 0.97, 1),  # a back touching the row's end that makes no closed kan: felt beside the last tile
        ("?3'p", 0.2, 2),  # ... and beyond it a doubtful sideways tile: the rack's edge (a real photo)
        ("?3'p", 0.9, 0),  # a sure sideways tile is a call mark, not something to drop
    ],
)
def test_stray_end_tiles_are_left_out_when_the_count_needs_it(end: str, conf: float, left_out: int) -> None:
    dets = layout_boxes(f"123m456p789s1122z2z{end}")
    dets[-1] = Detection(dets[-1].cls, conf, dets[-1].box, dets[-1].rotated, ((dets[-1].cls, conf),))
    r = read_hand(dets, "riichi", CTX_TSUMO)
    stray_roles = r.roles()[14:]
    if left_out:
        assert (
            r.valid and r.to_dict()["hand"]["hand"] == "123m456p789s1122z" and r.to_dict()["hand"]["win_tile"] == "2z"
        )
        assert stray_roles == ("other",) * left_out
    else:
        assert not r.valid and "other" not in stray_roles


@pytest.mark.parametrize(("p", "asked"), [(0.3, True), (0.1, False)])
def test_a_doubtful_end_tile_left_out_is_asked_about_as_an_indicator(p: float, asked: bool) -> None:
    """An indicator laid in line with the row and read doubtfully is left out of the hand like
    felt would be; when its class is at least DROPPED_INDICATOR_P likely, the reading with it as
    the indicator is offered and a ``role`` question asked, rather than dropping it in silence."""
    dets = layout_boxes("123m456p789s1122z2z3p")
    dets[-1] = Detection(dets[-1].cls, 0.2, dets[-1].box, dets[-1].rotated, ((dets[-1].cls, p),))
    r = read_hand(dets, "riichi", CTX_TSUMO)
    assert (
        r.valid and r.to_dict()["hand"]["hand"] == "123m456p789s1122z" and r.to_dict()["hand"]["dora_indicators"] == []
    )
    roles = [a.to_dict() for a in r.ambiguities if a.kind == "role"]
    assert roles == ([{"kind": "role", "index": 14, "candidates": ["other", "dora"]}] if asked else [])
    if asked:
        assert [parse_tiles("3p")[0]] in [list(c.dora_indicators) for c in r.alternatives]


@pytest.mark.parametrize("cut", [True, False])
def test_a_doubtful_end_tile_the_frame_cuts_is_read_as_the_indicator_first(cut: bool) -> None:
    """The same tile cut by the frame (as in fresh render 990017/288): it is doubtful for being
    cut, so the reading with it as the indicator comes first, and the other way is asked."""
    dets = layout_boxes("123m456p789s1122z2z3p")
    dets[-1] = Detection(dets[-1].cls, 0.2, dets[-1].box, dets[-1].rotated, ((dets[-1].cls, 0.3),), cut=cut)
    r = read_hand(dets, "riichi", CTX_TSUMO)
    assert r.valid and r.to_dict()["hand"]["hand"] == "123m456p789s1122z"
    assert r.to_dict()["hand"]["dora_indicators"] == (["3p"] if cut else [])
    roles = [a.to_dict() for a in r.ambiguities if a.kind == "role"]
    assert roles == [{"kind": "role", "index": 14, "candidates": ["dora", "other"] if cut else ["other", "dora"]}]


@pytest.mark.parametrize(
    ("cut", "role", "notes"),
    [
        ("indicator", "dora", [reading.cut_note({"dora": 1})]),
        ("winning tile", "win", [reading.cut_note({"win": 1})]),
        ("nothing", None, []),
        ("left out", None, [reading.CUT_LEFT_OUT_NOTE]),  # a sliver, too doubtful for any role
    ],
)
def test_a_tile_of_the_hand_the_frame_cuts_is_named_in_a_note(cut: str, role: str | None, notes: list[str]) -> None:
    """Selection renders whose indicator the frame cuts by a quarter, its numeral gone: a reading
    with it, however sure, or without it (990011/955: a 9m read 0.13 as 2m, left out, the score
    silently short of its dora) tells the user so."""
    dets = layout_boxes("123m456p789s1122z 2z", extras=[("3p", 4.0, 3.0)])
    index = {"indicator": 14, "winning tile": 13, "left out": 14}.get(cut)
    if index is not None:
        d = dets[index]
        dets[index] = replace(
            d, cut=True, **({"confidence": 0.05, "topk": ((d.cls, 0.05),)} if cut == "left out" else {})
        )
    r = read_hand(dets, "riichi", CTX_TSUMO)
    assert r.valid and r.roles()[14] == ("other" if cut == "left out" else "dora")
    if role is not None:
        assert r.roles()[index] == role
    assert [n for n in r.notes if "edge cuts" in n] == notes


@pytest.mark.parametrize(
    ("cut", "rules", "ctx", "asked"),
    [
        (True, "riichi", {}, True),
        (False, "riichi", {}, False),  # a sliver inside the frame: felt, as likely as a tile
        (True, "wsom", {}, False),  # a ruleset with no dora has no indicator to miss
        (True, "riichi", {"dora_indicators": ["1p"]}, False),  # the context gives the indicators
    ],
)
def test_a_tile_the_frame_cuts_left_out_by_the_hand_is_asked_about_as_an_indicator(
    cut: bool, rules: str, ctx: dict[str, Any], asked: bool
) -> None:
    """Selection render 990011/184: a green dragon indicator cut by a third, read 0.26 and left out
    beside a sure one, the score silently a dora short. The reading keeps it out, but offers it as
    an indicator (a ``role`` question), with the class read."""
    dets = layout_boxes("123m456p789s1122z 2z", extras=[("3p", 4.0, 3.0), ("6z", 5.05, 3.0)])
    dets[15] = replace(dets[15], confidence=0.05, topk=((dets[15].cls, 0.26),), cut=cut)
    r = read_hand(dets, rules, {**CTX_TSUMO, **ctx})
    assert r.valid and r.roles()[15] == "other"
    roles = [a.to_dict() for a in r.ambiguities if a.kind == "role"]
    assert roles == ([{"kind": "role", "index": 15, "candidates": ["other", "dora"]}] if asked else [])
    offered = [sorted(h["dora_indicators"]) for h in r.offered_hands()]
    assert (["3p", "6z"] in offered) == asked


@pytest.mark.parametrize(
    ("cut", "topk", "offered"),
    [
        (True, [("7m", 0.3), ("8m", 0.2), ("1m", 0.1)], ["7m", "8m", "1m", "2m", "3m", "4m", "5m", "6m", "9m", "0m"]),
        (False, [("7m", 0.3), ("8m", 0.2), ("1m", 0.1)], ["7m", "8m"]),  # the readings within reach alone
        (True, [("7m", 0.3), ("8s", 0.2), ("1p", 0.1)], ["7m", "8s"]),  # no suit leads: likewise
    ],
)
def test_a_doubtful_indicator_the_frame_cuts_is_asked_about_with_its_whole_suit(
    cut: bool, topk: list[tuple[str, float]], offered: list[str]
) -> None:
    """Selection render 990011/494: a 2m indicator cut by a quarter, its numeral gone, read 0.17 as
    0m, then 7m, 8m, 1m, 9m: the question held no right answer. A cut face whose classes lean to one
    suit is offered with every face of that suit."""
    dets = layout_boxes("123m456p789s1122z 2z", extras=[("7m", 4.0, 3.0)])
    dets[14] = replace(dets[14], confidence=0.2, topk=tuple((parse_tiles(t)[0], p) for t, p in topk), cut=cut)
    r = read_hand(dets, "riichi", CTX_TSUMO)
    assert r.valid and r.to_dict()["hand"]["dora_indicators"] == ["7m"]
    tiles = [a.to_dict() for a in r.ambiguities if a.kind == "tile"]
    assert tiles == [{"kind": "tile", "index": 14, "candidates": offered}]


def test_a_reading_two_checks_offer_is_offered_once() -> None:
    """A cut tile left out by a hand with no indicator is both the missing indicator and a cut one:
    its reading is one alternative, not two (the page would list it twice)."""
    dets = layout_boxes("123m456p789s1122z 2z", extras=[("6z", 4.0, 3.0)])
    dets[14] = replace(dets[14], confidence=0.35, topk=((dets[14].cls, 0.26),), cut=True)
    r = read_hand(dets, "riichi", CTX_TSUMO)
    assert r.valid and r.roles()[14] == "other" and r.best is not None
    keys = [r.best.key, *(c.key for c in r.alternatives)]
    assert len(keys) == len(set(keys))
    assert [h["dora_indicators"] for h in r.offered_hands()].count(["6z"]) == 1


def test_a_manzu_terminal_the_frame_cuts_is_offered_as_a_gari_too() -> None:
    """Totenko sets a 1m or 9m aside as a gari (fresh render 990016/187: a 1m cut by the frame,
    left out, the score silently short of its bonus): both roles are offered."""
    dets = layout_boxes("111p456p789s1122z 2z", extras=[("3p", 4.0, 3.0), ("1m", 5.05, 3.0)])
    dets[15] = replace(dets[15], confidence=0.05, topk=((dets[15].cls, 0.3),), cut=True)
    r = read_hand(dets, "totenko_balance", CTX_TSUMO)
    assert r.valid and r.roles()[15] == "other"
    offered = {(tuple(h["dora_indicators"]), h.get("nuki", "")) for h in r.offered_hands()}
    assert {(("3p", "1m"), ""), (("3p",), "1m")} <= offered


def test_doubtful_tiles_at_both_ends_are_left_out_before_a_sure_one() -> None:
    """A real rack photo: a sliver at the left end read as a white dragon 0.01 sure, a doubtful
    box at the right end, all touching. Both ways make a hand (the sliver completes the dragons'
    set); leaving out the two doubtful ends, not the right end's last two (a sure white dragon and
    the doubtful box, the dragon then an indicator), is the cheaper reading."""
    dets = layout_boxes("5z222m333m55m678m555z1z")
    for i in (0, len(dets) - 1):
        dets[i] = Detection(dets[i].cls, 0.02, dets[i].box, dets[i].rotated, ((dets[i].cls, 0.05),))
    r = read_hand(dets, "riichi", CTX_TSUMO)
    assert r.valid
    hand = r.to_dict()["hand"]
    assert sorted(parse_tiles(hand["hand"] + hand["win_tile"])) == sorted(parse_tiles("22233355678m555z"))
    assert hand["dora_indicators"] == []
    assert r.roles()[0] == "other" and r.roles()[-1] == "other"


@pytest.mark.parametrize("tiles", ["5555z", "3333p"])
def test_four_equal_tiles_face_up_apart_are_a_closed_kan_asked_about(tiles: str) -> None:
    """Four equal upright tiles apart read as a closed kan shown face up, but may be an open kan
    whose sideways tile was not seen (fresh render 990015/126: four white dragons, the called
    one's blank face giving no angle, scored silently as a closed kan): the open kan is asked
    about (a ``meld`` question whose candidates differ only in being open)."""
    r = read(layout_boxes(f"123m456p789s1z 1z ~0.8 {tiles}"), "riichi", {"win": "ron"})
    assert r.valid and r.to_dict()["hand"]["melds"] == [{"type": "kan", "tiles": tiles, "open": False, "added": False}]
    melds = [a for a in r.ambiguities if a.kind == "meld"]
    assert len(melds) == 1 and melds[0].index == 0
    assert [(m["type"], m["tiles"], m["open"]) for m in melds[0].candidates] == [
        ("kan", tiles, False),
        ("kan", tiles, True),
    ]


@pytest.mark.parametrize(
    ("spec", "from_"), [("123m456p789s1z 1z ~0.8 5'55z3p", "left"), ("123m456p789s1z 1z ~0.8 55'5z3p", "across")]
)
def test_an_indicator_touching_the_last_meld_is_no_kan(spec: str, from_: str) -> None:
    """A pon and an indicator laid against its end look like an open kan; no reading with that
    kan wins, so the last resort (end tiles left out with no gap) is tried."""
    r = read(layout_boxes(spec), "riichi", {"win": "ron"})
    assert r.valid and r.to_dict()["hand"] == shape(
        "123m456p789s1z", "1z", melds=[meld("pon", "555z", from_)], dora=["3p"]
    )


def test_indicators_in_line_with_a_row_of_discards_across_a_gap() -> None:
    """Two indicators, then a tile's width further on the same line six discards: one line of
    eight faces, but only the discards are background."""
    dora = [("9p", 2.0, 3.2), ("0p", 3.05, 3.2)]
    pond = [(t, 5.3 + 1.05 * k, 3.2) for k, t in enumerate(["1z", "7s", "2m", "4p", "9s", "6m"])]
    r = read(layout_boxes("123m456p789s1122z 2z", extras=dora + pond), "riichi", {"win": "tsumo", "flags": ["riichi"]})
    hand = r.to_dict()["hand"]
    assert r.valid and {**hand, "dora_indicators": sorted(hand["dora_indicators"])} == shape(
        CLOSED, "2z", dora=["0p", "9p"]
    )


@pytest.mark.parametrize(("gap", "dora"), [(48, []), (58, ["3p"]), (80, ["3p"])])
def test_an_indicator_by_a_far_pond_is_measured_in_the_ponds_tiles(gap: float, dora: list[str]) -> None:
    """A pond of smaller (farther) tiles ``gap`` pixels above an indicator of the hand's size: in the
    hand's tiles 58 px is touching (1.6 widths of 40 px), in the pond's its next row is farther."""
    hand = layout_boxes("123m456p789s1122z 2z", extras=[("3p", 3.0, 3.2)])
    x1, y1, x2, y2 = hand[-1].box
    cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
    pond = []
    for k, c in enumerate(parse_tiles("1s7s2m4p9s6m8m1p5z6s3m7p")):
        row, col = divmod(k, 6)
        px, py = cx - 12 + col * 25, cy - gap - row * 33
        pond.append(Detection(c, 0.95, (px - 12, py - 16, px + 12, py + 16), False, ((c, 0.95),)))
    r = read(hand + pond, "riichi", {"win": "tsumo", "flags": ["riichi"]})
    assert r.valid and r.to_dict()["hand"] == shape(CLOSED, "2z", dora=dora)


def test_a_dead_wall_line_of_backs_keeps_its_indicators() -> None:
    """Seven dead-wall slots in a line, two face up: a line of seven, but not a background row."""
    wall = (
        [("?", 1.0 + 1.05 * k, 3.0) for k in range(2)]
        + [("3p", 3.1, 3.0), ("5s", 4.15, 3.0)]
        + [("?", 5.2 + 1.05 * k, 3.0) for k in range(3)]
    )
    r = read(layout_boxes("123m456p789s1122z 2z", extras=wall), "riichi", {"win": "tsumo", "flags": ["riichi"]})
    assert r.valid and r.to_dict()["hand"] == shape(CLOSED, "2z", dora=["3p", "5s"])


def test_a_tile_set_aside_a_gap_beyond_a_dead_wall_is_no_indicator() -> None:
    """Selection render 990013/027: a dead wall (backs, indicators, backs) and Totenko's 9m laid
    0.7 widths beyond its last stack, on its line: the wall's run took the 9m as one more
    indicator. A wall's stacks touch, so a face a gap beyond its face-down ends is not the wall's:
    it is set aside, a gari."""
    wall = (
        [("?", 1.0 + 1.05 * k, 3.0) for k in range(2)]
        + [("3p", 3.1, 3.0), ("5s", 4.15, 3.0)]
        + [("?", 5.2 + 1.05 * k, 3.0) for k in range(3)]
        + [("9m", 9.0, 3.0)]
    )
    r = read(layout_boxes("111p456p789s1122z 2z", extras=wall), "totenko_balance", {"win": "tsumo"})
    hand = r.to_dict()["hand"]
    assert r.valid and sorted(hand["dora_indicators"]) == ["3p", "5s"] and hand["nuki"] == "9m"


@pytest.mark.parametrize(
    ("spec", "dora"),
    [
        ("123m456p789s1122z 2z ~0.8 5s5p", ["5s", "5p"]),  # two indicators in line, a short gap out
        ("123m456p789s1122z 2z ~1.5 3'p", ["3p"]),  # a lone sideways tile far out: no meld
        ("123m456p789s1122z 2z ~0.8 5s5p1z", ["5s", "5p", "1z"]),  # three in line (one more than allowed: seen)
    ],
)
def test_indicators_in_line_with_the_hand(spec: str, dora: list[str]) -> None:
    r = read(layout_boxes(spec), "riichi", CTX_TSUMO)
    assert r.valid and r.to_dict()["hand"] == shape(CLOSED, "2z", dora=dora)


def test_of_two_valid_rows_the_nearer_larger_one_is_the_hand() -> None:
    hand = layout_boxes("123m456p789s1122z 2z", origin=(100, 600))
    other = layout_boxes("234m567p789s3344z 4z", origin=(130, 250), unit=28)
    for dets in (hand + other, other + hand):
        r = read(dets)
        assert r.to_dict()["hand"] == shape(CLOSED, "2z")


def test_a_valid_row_wins_over_a_larger_invalid_one() -> None:
    junk = layout_boxes("135m258p369s1357z 4z", origin=(100, 600))
    hand = layout_boxes("123m456p789s1122z 2z", origin=(130, 250), unit=34)
    r = read(junk + hand)
    assert r.valid and r.to_dict()["hand"] == shape(CLOSED, "2z")


@pytest.mark.parametrize(("p_3m", "asked"), [(0.08, True), (0.3, False)])
def test_a_class_the_scoring_core_picks_against_the_classifier_is_asked_about(p_3m: float, asked: bool) -> None:
    # as in a selection render (seed 990011, image 770): a tile the frame cuts, read 0.16 as 2s,
    # made a winning hand only as a class far down its list, and was scored so with no question
    dets = layout_boxes(f"{CLOSED} 2z")
    dets[2] = replace(dets[2], cls=31, topk=((31, 0.6), (2, p_3m)))  # looks like 5z; only 3m wins
    r = read(dets)
    assert r.valid and r.to_dict()["hand"] == shape(CLOSED, "2z")
    questions = [a for a in r.ambiguities if a.kind == "tile"]
    assert bool(questions) == asked
    if asked:
        assert questions[0].candidates == ("3m", "5z") and r.detections[questions[0].index].box == dets[2].box


@pytest.mark.parametrize(
    ("indicators", "dora", "asked"),
    [
        ("2p2m9p", ["2p", "2m", "9p"], "tile"),  # between two sure indicators: one of them, its class asked
        ("2p2m", ["2p"], "role"),  # at the end: perhaps felt, offered as an indicator and asked about
    ],
)
def test_a_doubtful_tile_between_two_indicators_in_line_is_one(indicators: str, dora: list[str], asked: str) -> None:
    # as in a fresh render (seed 990015, image 181): three indicators laid in line past the melds,
    # the middle one read under DOUBTFUL_END_CONF; a doubtful end tile has no role (felt, a
    # rack's edge), and the hand was scored a dora short with no question
    dets = layout_boxes(f"123m456p1z 1z 7'77z ?22s? ~1.5 {indicators}")
    dets[16] = replace(dets[16], confidence=0.18, topk=((1, 0.2), (0, 0.18)))
    r = read(dets)
    assert r.valid and sorted(r.to_dict()["hand"]["dora_indicators"]) == sorted(dora)
    assert [a.kind for a in r.ambiguities] == [asked]


# ---------------------------------------------------------------------------------- three-player
totenko = pytest.mark.skipif("totenko_balance" not in available(), reason="the totenko_balance ruleset is not built")
TOTENKO_CTX = {"win": "tsumo", "seat_wind": "south", "flags": ["riichi"]}


@totenko
@pytest.mark.parametrize(
    ("spec", "extras"),
    [
        ("340s567s234p67p99p 8p", [("1m", 2.0, 3.2), ("9m", 3.05, 3.2)]),  # set aside above the row
        ("340s567s234p67p99p 8p 1m9m", []),  # set aside at the end of the row
        ("340s567s234p67p99p 8p ~1.5 1m9m", []),
    ],
)
def test_totenko_gari_are_nuki(spec: str, extras: list[tuple[str, float, float]]) -> None:
    r = read(layout_boxes(spec, extras=extras), "totenko_balance", TOTENKO_CTX)
    assert r.valid
    assert r.to_dict()["hand"] == shape("2346799p340567s", "8p", nuki="19m")
    assert r.best is not None and r.best.score_total == 3600  # the ruleset's own doctest example


@totenko
def test_totenko_gari_read_as_a_manzu_the_ruleset_lacks_is_gari() -> None:
    # as in renders (seed 990013, images 191 and 232): Totenko plays no 2m–8m, so a gari tile read
    # as 3m is its likeliest class the ruleset plays (here 9m); the layout sorts gari by class, and
    # took gari beyond the dead wall as none, the score silently two gari short
    wall = (
        [("?", 18.0 + 1.05 * k, 0.0) for k in range(2)]
        + [("3s", 20.1, 0.0)]
        + [("?", 21.15 + 1.05 * k, 0.0) for k in range(4)]
    )
    dets = layout_boxes("340s567s234p67p99p 8p", extras=[*wall, ("1m", 29.0, 2.5), ("9m", 30.05, 2.5)])
    dets[-1] = replace(dets[-1], cls=2, topk=((2, 0.55), (8, 0.4), (3, 0.05)))  # 3m, then 9m
    r = read(dets, "totenko_balance", TOTENKO_CTX)
    assert r.valid and r.to_dict()["hand"] == shape("2346799p340567s", "8p", dora=["3s"], nuki="19m")


@totenko
def test_totenko_doubtful_gari_is_asked_about() -> None:
    # each gari is worth a bonus and nothing in the hand can check it: read under 0.5 (a 1m that
    # may be a red 5m), it is asked about as an indicator is
    dets = layout_boxes("340s567s234p67p99p 8p", extras=[("1m", 2.0, 3.2), ("9m", 3.05, 3.2)])
    dets[-2] = replace(dets[-2], topk=((0, 0.45), (34, 0.1), (8, 0.05)))  # 0m too unlikely to compete
    r = read(dets, "totenko_balance", TOTENKO_CTX)
    assert r.valid and r.to_dict()["hand"]["nuki"] == "19m"
    assert [a.candidates for a in r.ambiguities if a.kind == "tile"] == [("1m", "0m", "9m")]  # each class it may be
    sure = list(dets)
    sure[-2] = replace(dets[-2], topk=((0, 0.9), (34, 0.05)))
    assert not read(sure, "totenko_balance", TOTENKO_CTX).ambiguities


@totenko
@pytest.mark.parametrize(("last", "nuki"), [("9m", "119m"), ("3s", "11m")])
def test_totenko_unsure_gari_in_line_beside_sure_ones_is_gari(last: str, nuki: str) -> None:
    # as in selection renders (seed 990013, images 67, 191 and 232): three gari laid in line past
    # the hand, the last read under DOUBTFUL_END_CONF; a doubtful end tile has no role (felt, a
    # rack's edge), and the score was one gari short. A doubtful tile of another kind stays none
    dets = layout_boxes(f"340s567s234p67p99p 8p 11m{last}")
    dets[-1] = replace(dets[-1], confidence=0.25)
    r = read(dets, "totenko_balance", TOTENKO_CTX)
    assert r.valid and r.to_dict()["hand"]["nuki"] == nuki


@totenko
def test_totenko_a_doubtful_manzu_at_the_row_end_is_offered_as_a_gari_too() -> None:
    # a tile the ruleset sets aside, left out as doubtful: it may be a gari as well as the indicator
    dets = layout_boxes("340s567s234p67p99p 8p 9m")
    dets[-1] = replace(dets[-1], confidence=0.25, topk=((8, 0.5), (4, 0.1)))
    r = read(dets, "totenko_balance", TOTENKO_CTX)
    assert r.valid and r.to_dict()["hand"]["nuki"] == ""
    assert [set(a.candidates) for a in r.ambiguities if a.kind == "role"] == [{"other", "nuki", "dora"}]


@totenko
def test_totenko_indicator_and_gari_apart() -> None:
    dets = layout_boxes("340s567s234p67p99p 8p", extras=[("1m", 2.0, 3.2), ("9m", 3.05, 3.2), ("3s", 7.0, 3.2)])
    r = read(dets, "totenko_balance", TOTENKO_CTX)
    assert r.to_dict()["hand"] == shape("2346799p340567s", "8p", dora=["3s"], nuki="19m")


@totenko
@pytest.mark.parametrize(
    ("extras", "dora", "nuki", "all_gari"),
    [
        # the indicator left, gari by the melds at the right: the leftmost set-aside cluster is it
        ([("9m", 2.0, 3.2), ("0m", 9.0, 3.2), ("9m", 10.05, 3.2)], ["9m"], "09m", "099m"),
        ([("1m", 3.0, 3.2), ("9m", 11.0, 3.2)], ["1m"], "9m", "19m"),
        # the leftmost more than the dora indicators alone (one, no kan): gari all
        ([("1m", 2.0, 3.2), ("1m", 3.05, 3.2), ("9m", 9.0, 3.2)], [], "119m", ""),
    ],
)
def test_totenko_indicator_among_gari(
    extras: list[tuple[str, float, float]], dora: list[str], nuki: str, all_gari: str
) -> None:
    r = read(layout_boxes("340s567s234p67p99p 8p", extras=extras), "totenko_balance", TOTENKO_CTX)
    assert r.valid and r.to_dict()["hand"] == shape("2346799p340567s", "8p", dora=dora, nuki=nuki)
    if all_gari:  # ... and all of them set aside is offered and asked about
        assert shape("2346799p340567s", "8p", nuki=all_gari) in [c.shape() for c in r.alternatives]
        assert [a.candidates for a in r.ambiguities if a.kind == "role"] == [("dora", "nuki")]


@totenko
def test_totenko_manzu_in_a_dead_wall_is_the_indicator() -> None:
    """Players flip the indicator in place: a 9m among the dead wall's backs is no gari, unasked."""
    wall = (
        [("?", 1.0 + 1.05 * k, 3.0) for k in range(2)]
        + [("9m", 3.1, 3.0)]
        + [("?", 4.15 + 1.05 * k, 3.0) for k in range(4)]
    )
    r = read(layout_boxes("340s567s234p67p99p 8p", extras=[*wall, ("1m", 11.0, 3.2)]), "totenko_balance", TOTENKO_CTX)
    assert r.valid and r.to_dict()["hand"] == shape("2346799p340567s", "8p", dora=["9m"], nuki="1m")
    assert not [a for a in r.ambiguities if a.kind == "role"]


@totenko
@pytest.mark.parametrize(("gari_at", "nuki"), [(27.0, "19m"), (29.0, "19m"), (36.0, "")])
def test_totenko_gari_beyond_the_dead_wall(gari_at: float, nuki: str) -> None:
    """A dead wall past the row's end and gari beyond it, too far from the hand itself: taken as
    near the wall (gari reach from what was taken), but not from across the table."""
    wall = (
        [("?", 18.0 + 1.05 * k, 0.0) for k in range(2)]
        + [("3s", 20.1, 0.0)]
        + [("?", 21.15 + 1.05 * k, 0.0) for k in range(4)]
    )
    dets = layout_boxes("340s567s234p67p99p 8p", extras=[*wall, ("1m", gari_at, 2.5), ("9m", gari_at + 1.05, 2.5)])
    r = read(dets, "totenko_balance", TOTENKO_CTX)
    assert r.valid and r.to_dict()["hand"] == shape("2346799p340567s", "8p", dora=["3s"], nuki=nuki)


@totenko
def test_totenko_end_tiles_left_out_split_by_their_gaps() -> None:
    """Indicators in line with the hand, then a gari a tile's width further: two clusters."""
    r = read(layout_boxes("340s567s234p67p99p 8p ~0.8 7p5z ~1.2 1m"), "totenko_balance", TOTENKO_CTX)
    assert r.valid and r.to_dict()["hand"] == shape("2346799p340567s", "8p", dora=["7p", "5z"], nuki="1m")


@totenko
@pytest.mark.parametrize(("at", "read_as", "other"), [(11.0, "nuki", "dora"), (2.0, "dora", "nuki")])
def test_totenko_lone_manzu_apart_is_asked_about(at: float, read_as: str, other: str) -> None:
    """A lone 9m apart, and no other indicator: a gari or the dora indicator, asked. Where it lies
    leans the reading: over the hand's right half (by the melds, where gari go) a gari, over its
    left half the indicator."""
    dets = layout_boxes("340s567s234p67p99p 8p", extras=[("9m", at, 3.2)])
    r = read(dets, "totenko_balance", TOTENKO_CTX)
    as_gari = shape("2346799p340567s", "8p", nuki="9m")
    as_dora = shape("2346799p340567s", "8p", dora=["9m"])
    assert r.valid and r.to_dict()["hand"] == (as_gari if read_as == "nuki" else as_dora)
    nine = next(i for i, d in enumerate(r.detections) if tile_name(d.cls) == "9m")
    role = [a.to_dict() for a in r.ambiguities if a.kind == "role"]
    assert role == [{"kind": "role", "index": nine, "candidates": [read_as, other]}]
    alt = [c.shape() for c in r.alternatives]
    assert (as_dora if read_as == "nuki" else as_gari) in alt
    # with another indicator in the photo, or the indicators given, the lone manzu is a gari, unasked
    with_ind = layout_boxes("340s567s234p67p99p 8p", extras=[("9m", 2.0, 3.2), ("3s", 7.0, 3.2)])
    r2 = read(with_ind, "totenko_balance", TOTENKO_CTX)
    assert not [a for a in r2.ambiguities if a.kind == "role"]
    r3 = read(dets, "totenko_balance", {**TOTENKO_CTX, "dora_indicators": ["3s"]})
    assert not [a for a in r3.ambiguities if a.kind == "role"]
    # riichi sets nothing aside: a lone 9m apart is the indicator
    r4 = read(layout_boxes("123m456p789s11z23p 4p", extras=[("9m", 2.0, 3.2)]), "riichi", {"win": "tsumo"})
    assert r4.to_dict()["hand"]["dora_indicators"] == ["9m"] and not r4.ambiguities


@totenko
def test_totenko_tile_set_steers_the_alternatives() -> None:
    dets = layout_boxes("340s567s234p67p99p 8p", extras=[("1m", 11.0, 3.2)])  # by the melds: a gari
    dets = with_topk(dets, 14, [("2m", 0.5), ("1m", 0.3)])  # 2m is not in the Totenko set
    r = read(dets, "totenko_balance", TOTENKO_CTX)
    assert r.valid and r.to_dict()["hand"]["nuki"] == "1m"


# ---------------------------------------------------------------------------------- pon or added kan
@pytest.mark.parametrize(("deeper", "asked"), [(0.0, False), (0.6, True)])
def test_a_pon_whose_called_tile_looks_two_deep_may_be_an_added_kan(deeper: float, asked: bool) -> None:
    # as in renders (seed 990011, images 143 and 895): an added kan's stacked tile merged into the
    # called tile's box, its box reaching further across the row than a lone sideways tile's
    dets = layout_boxes("123m456p78s11z 9s ~0.8 5'55z", faces=True)  # the face tells it sideways
    called = dets[11]
    x1, y1, x2, y2 = called.box
    dets[11] = replace(called, box=(x1, y1 - deeper * (y2 - y1), x2, y2))  # the stacked tile lies beyond
    r = read(dets)
    pon, kan = meld("pon", "555z", "left"), meld("kan", "5555z", "left", added=True)
    assert r.valid and r.to_dict()["hand"] == shape("123m456p78s11z", "9s", [pon])  # the pon stays the best
    melds = [a for a in r.ambiguities if a.kind == "meld"]
    if asked:
        assert [(a.index, list(a.candidates)) for a in melds] == [(0, [pon, kan])]
        assert shape("123m456p78s11z", "9s", [kan]) in [c.shape() for c in r.alternatives]
        assert json.loads(json.dumps(r.to_dict()))["ambiguities"][-1]["candidates"] == [pon, kan]
    else:
        assert not melds


@pytest.mark.parametrize(("overlap", "asked"), [(0.0, False), (0.6, True)])
def test_a_kan_tile_taken_for_a_second_box_is_asked_about(overlap: float, asked: bool) -> None:
    # as in renders (seed 990011, image 460; seed 990019, image 105): seen steeply, the open kan's
    # last tile overlaps the one before it as that tile's second box would, is dropped as one, and
    # the kan read silently as a pon
    dets = layout_boxes("123m456p78s11z 9s ~0.8 7'777z")
    x1, y1, x2, y2 = dets[-1].box
    shift = overlap * (x2 - x1)
    dets[-1] = replace(dets[-1], box=(x1 - shift, y1, x2 - shift, y2), confidence=0.7)
    r = read(dets)
    pon, kan = meld("pon", "777z", "left"), meld("kan", "7777z", "left")
    hand = r.to_dict()["hand"]
    if not asked:  # apart, the fourth tile is a tile: the kan is read
        assert r.valid and hand == shape("123m456p78s11z", "9s", [kan]) and not r.ambiguities
        return
    assert r.valid and hand == shape("123m456p78s11z", "9s", [pon])  # the pon stays the best
    assert [list(a.candidates) for a in r.ambiguities if a.kind == "meld_split"] == [[("777z",), ("7777z",)]]
    assert shape("123m456p78s11z", "9s", [kan]) in [c.shape() for c in r.alternatives]


# ---------------------------------------------------------------------------------- no indicator found
@pytest.mark.parametrize(("rules", "asked"), [("riichi", True), ("wsom", False)])
def test_an_indicator_taken_for_a_discard_is_asked_about(rules: str, asked: bool) -> None:
    # as in renders (seed 990011, image 220; seed 990012, images 80 and 378): the indicator lies
    # against someone's discards and is taken for one of them; with none read, the nearest tile
    # left out is offered as the indicator (WSOM counts no dora: nothing to ask)
    pond = [(name, 1.0 + 1.02 * k, 3.6) for k, name in enumerate(["3s", "7p", "9m", "1s", "4z", "8p"])]
    dets = layout_boxes("123m456p789s1122z 2z", extras=[*pond, ("1z", 1.0, 2.3)])
    r = read(dets, rules, {"win": "tsumo"})
    assert r.valid and r.to_dict()["hand"]["dora_indicators"] == []  # the best reading is unchanged
    roles = [a for a in r.ambiguities if a.kind == "role"]
    if asked:
        assert [(r.detections[a.index].name, a.candidates) for a in roles] == [("1z", ("other", "dora"))]
        assert [c.shape()["dora_indicators"] for c in r.alternatives] == [["1z"]]
    else:
        assert not roles and not r.alternatives


@pytest.mark.parametrize("rules", sorted(available()))
def test_a_ruleset_counts_dora_as_it_says(rules: str) -> None:
    """``counts_dora`` (whether the reader asks about a missing indicator) agrees with the scoring:
    an indicator whose dora is in the hand changes the score exactly where dora count."""
    hand = "123p456p789s1122z" if rules == "totenko_balance" else "123m456p789s1122z"
    base = {"rules": rules, "hand": hand, "win_tile": "2z", "win": "tsumo", "flags": ["riichi"]}
    plain, with_dora = score_hand(base).total, score_hand({**base, "dora_indicators": ["1z"]}).total
    assert (plain != with_dora) == get_ruleset(rules).counts_dora


# ---------------------------------------------------------------------------------- output
def test_output_shape() -> None:
    dets = layout_boxes("123m456p78s11z 9s ~0.8 5'55z", extras=[("3p", 4.0, 3.2)])
    r = read_hand(dets)
    out = json.loads(json.dumps(r.to_dict()))
    assert set(out) >= {"detections", "hand", "alternatives", "ambiguities", "problems", "score_total"}
    assert out["detections"][0] == {**dets[0].to_dict(), "role": "hand"}
    roles = [d["role"] for d in out["detections"]]
    assert roles == ["hand"] * 10 + ["win"] + ["meld"] * 3 + ["dora"]
    assert out["hand"] == shape("123m456p78s11z", "9s", [meld("pon", "555z", "left")], dora=["3p"])
    assert out["score_total"] == score_hand({"rules": "riichi", **out["hand"]}).total
    assert out["layout"]["oriented_by"] == "melds"


# ---------------------------------------------------------------------------------- round trip
SIDEWAYS_AT = {
    ("pon", "left"): 0,
    ("pon", "across"): 1,
    ("pon", "right"): 2,
    ("kan", "left"): 0,
    ("kan", "across"): 1,
    ("kan", "right"): 3,
}


def lay_out_hand(hand: dict[str, Any], rng: random.Random) -> tuple[str, list[tuple[str, float, float]]]:
    """A layout spec for a contract Hand, as a player would show it."""

    def spec(tiles: list[int], marks: dict[int, str] | None = None) -> str:
        marks = marks or {}
        out = []
        for i, t in enumerate(tiles):
            name = tile_name(t)
            out.append("?" if t == BACK else name[0] + marks.get(i, "") + name[1])
        return "".join(out)

    concealed = parse_tiles(hand["hand"])
    if rng.random() < 0.3:
        rng.shuffle(concealed)
    parts = [spec(concealed), spec(parse_tiles(hand["win_tile"]))]
    for i, m in enumerate(hand.get("melds", [])):
        tiles = parse_tiles(m["tiles"])
        gap = "~0.8" if i == 0 else rng.choice(["~0.5", "~0.02"])
        if m["type"] == "chi":
            body = spec(tiles, {0: "'"})
        elif m["type"] == "kan" and m.get("open") is False:
            faces = sorted(tiles, key=lambda t: -t)[:2]  # a red five, if any, shows
            body = spec([BACK, *faces, BACK])
        elif m.get("added"):  # the stacked copy is drawn as its base: keep both plain (a red stays in the row)
            at = SIDEWAYS_AT[("pon", m.get("from", "left"))]
            row = sorted(tiles)[1:]  # one plain tile is the stacked copy
            row.insert(at, row.pop(0))
            body = spec(row, {at: '"'})
        else:
            body = spec(tiles, {SIDEWAYS_AT[(m["type"], m.get("from", "left"))]: "'"})
        parts += [gap, body]
    extras = [(name, 2.0 + 1.05 * i, 3.3) for i, name in enumerate(hand.get("dora_indicators", []))]
    extras += [(tile_name(t), 9.0 + 1.05 * i, 3.3) for i, t in enumerate(parse_tiles(hand.get("nuki", "")))]
    return " ".join(parts), extras


def same(truth: dict[str, Any], read: dict[str, Any]) -> bool:
    def tiles(v: Any) -> list[int]:
        return sorted(t for s in (v if isinstance(v, list) else [v or ""]) for t in parse_tiles(s))

    def melds(h: dict[str, Any]) -> list[tuple[str, list[int], bool]]:
        return sorted((m["type"], tiles(m["tiles"]), m.get("open", True)) for m in h.get("melds", []))

    return all(
        tiles(truth.get(k, "")) == tiles(read.get(k, "")) for k in ("hand", "win_tile", "dora_indicators", "nuki")
    ) and melds(truth) == melds(read)


ROUND_TRIP = [("riichi", seed) for seed in range(40)] + [("totenko_balance", seed) for seed in range(15)]


@pytest.mark.parametrize(("rules", "seed"), ROUND_TRIP)
def test_random_hands_round_trip(rules: str, seed: int) -> None:
    if rules not in available():
        pytest.skip(f"the {rules} ruleset is not built")
    rng = random.Random(seed)
    truth = random_hand(rng, rules)
    spec, extras = lay_out_hand(truth, rng)
    angle = rng.choice([rng.uniform(-30, 30), 90.0, -90.0, 180.0])
    dets = layout_boxes(
        spec,
        extras=extras,
        angle=angle,
        perspective=rng.uniform(0, 0.3),
        depth=rng.uniform(0, 0.3),
        jitter=0.015,
        seed=seed,
    )
    context = {k: v for k, v in truth.items() if k not in ("hand", "melds", "win_tile", "dora_indicators", "nuki")}
    r = read(dets, rules, context)
    got = r.hand_dict()
    assert got is not None and r.valid, (spec, [p.to_dict() for p in r.problems])
    expected = dict(truth)
    indicators = parse_tiles("".join(truth["dora_indicators"]))
    kans = sum(len(parse_tiles(m["tiles"])) == 4 for m in truth["melds"])
    if (
        indicators
        and all(kind(t) in set_aside_kinds(rules) for t in indicators)
        and (not truth.get("nuki") or len(indicators) > 1 + kans)
    ):
        # indicators that all are gari kinds, apart on their own, read as set aside (a known limit:
        # beside gari, the leftmost cluster is the indicator if no more than the dora indicators)
        expected["nuki"] = truth.get("nuki", "") + format_tiles(indicators)
        expected["dora_indicators"] = []
    assert same(expected, got), (spec, r.to_dict()["hand"], expected)
    assert r.best is not None
    try:
        assert r.best.score_total == score_hand(expected).total
    except HandError as exc:
        assert exc.code == "no_yaku" and r.best.status == "no_yaku"


def test_row_near_the_diagonal_is_noted() -> None:
    r = read(layout_boxes("123m456p789s1122z 2z", angle=45.0))
    assert r.to_dict()["hand"] == shape(CLOSED, "2z")
    assert any("45°" in n for n in r.notes)


@pytest.mark.parametrize(
    ("best_p", "box_conf", "asked", "beyond"),
    [
        (0.4, None, True, False),
        (0.75, None, True, False),
        (0.85, None, False, False),
        (0.4, None, True, True),
        (0.9, 0.3, True, False),
        (0.9, 0.45, False, False),
    ],
)
def test_a_doubtful_dora_indicator_is_asked_about(
    best_p: float, box_conf: float | None, asked: bool, beyond: bool
) -> None:
    """Nothing in the hand checks an indicator: one read under DOUBTFUL_INDICATOR_P, or whose
    detection (box and class together) is less sure than DOUBTFUL_INDICATOR_CONF, is offered as its
    next class too, however unlikely (here a quarter as likely: beyond DELTA), and asked; also
    beside a further cluster past the indicators' limit, which takes no role."""
    far = [("7s", 9.0, 3.6), ("8s", 10.05, 3.6)] if beyond else []
    dets = layout_boxes("123m456p789s1122z 2z", extras=[("3p", 2.0, 2.6 if beyond else 3.2), *far])
    dets = with_topk(dets, 14, [("3p", best_p), ("5p", 0.1)])
    if box_conf is not None:
        dets[14] = replace(dets[14], confidence=box_conf)
    r = read(dets, "riichi", {"win": "tsumo"})
    assert r.valid and r.to_dict()["hand"]["dora_indicators"] == ["3p"]
    three = next(i for i, d in enumerate(r.detections) if tile_name(d.cls) == "3p")
    tile_asks = [a.to_dict() for a in r.ambiguities if a.kind == "tile"]
    assert tile_asks == ([{"kind": "tile", "index": three, "candidates": ["3p", "5p"]}] if asked else [])
    if asked:
        assert [parse_tiles("5p")[0]] in [list(c.dora_indicators) for c in r.alternatives]


@pytest.mark.parametrize(("p", "asked"), [(0.28, True), (0.38, True), (0.42, False), (0.9, False)])
def test_a_face_no_class_of_which_is_likely_is_asked_about_though_the_hand_is_valid(p: float, asked: bool) -> None:
    """The reading takes a face's likeliest class, and the hand is valid with it: but read under
    NO_LIKELY_CLASS_P, nothing but the hand's validity backs it, so its next class is offered."""
    dets = layout_boxes("123m456p789s1122z 2z")
    four = next(i for i, d in enumerate(dets) if tile_name(d.cls) == "4p")
    dets = with_topk(dets, four, [("4p", p), ("1p", 0.2), ("7p", 0.1)])
    r = read(dets, "riichi", {"win": "tsumo"})
    assert r.valid and r.to_dict()["hand"]["hand"] == "123m456p789s1122z"
    index = next(i for i, d in enumerate(r.detections) if d.box == dets[four].box)
    tile_asks = [a.to_dict() for a in r.ambiguities if a.kind == "tile"]
    assert tile_asks == ([{"kind": "tile", "index": index, "candidates": ["4p", "1p"]}] if asked else [])
