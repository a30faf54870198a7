"""paiscan.vision.layout: rows, sideways tiles, gaps, melds, winning-tile candidates, tiles apart.

Hands are laid out with ``layout_boxes`` (tests/test_layout_helpers.py): ``'`` marks a sideways
tile, ``"`` a sideways tile with a second one stacked on it, ``?`` a face-down tile. Dead walls and
ponds are tested in test_layout_ponds.py, rows bent or cut and the tiles touching them in
test_layout_bent_rows.py, call marks and stacked tiles read from the models' output in
test_layout_calls.py.
"""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from test_layout_helpers import hand_row, layout_boxes, names, render_dets, shuffled, totenko

from paiscan.vision import layout
from paiscan.vision.detection import Detection
from paiscan.vision.layout import HandRow, Layout, analyse_layout, set_aside_kinds
from paiscan.vision.reading import read_hand

PON_HAND = "123m456p78s11z 9s ~0.8 5'55z"  # 10 concealed, 9s apart, pon of 5z from the left


def row_names(dets: list[Detection], hr: HandRow) -> str:
    return " ".join(names(dets, hr.row.dets))


def test_detection_helpers_and_round_trip() -> None:
    d = Detection(35, 0.8, (10.0, 10.0, 40.0, 50.0), True, ((35, 0.8), (13, 0.15)))
    assert d.centre == (25.0, 30.0) and d.width == 30.0 and d.height == 40.0 and d.name == "0p"
    assert Detection.from_dict(d.to_dict()) == d
    assert Detection.from_dict(json.loads(json.dumps(d.to_dict()))) == d
    assert Detection(4, 0.6, (0, 0, 1, 1)).candidates() == ((4, 0.6),)  # no top-k: its confidence


@pytest.mark.parametrize(
    "bad",
    [
        {"cls": 38, "box": (0.0, 0.0, 1.0, 1.0)},
        {"cls": 3, "box": (5.0, 0.0, 1.0, 1.0)},
    ],
)
def test_detection_rejects_impossible_values(bad: dict) -> None:
    with pytest.raises(ValueError):
        Detection(bad["cls"], 0.9, bad["box"])


def test_row_is_found_whatever_the_detection_order() -> None:
    dets = layout_boxes(PON_HAND)
    for seed in range(4):
        mixed = shuffled(dets, seed)
        hr = hand_row(mixed)
        assert row_names(mixed, hr) == "1m 2m 3m 4p 5p 6p 7s 8s 1z 1z 9s 5z 5z 5z"


@pytest.mark.parametrize("angle", [-30.0, -15.0, 0.0, 10.0, 30.0, 90.0, -90.0, 180.0])
def test_row_direction_and_orientation_follow_a_rotated_photo(angle: float) -> None:
    dets = layout_boxes(PON_HAND, angle=angle)
    hr = hand_row(dets)
    assert list(hr.row.dets) == list(range(14))  # the player's left to right
    assert hr.row.oriented_by == "melds"
    assert [t.det for t in hr.row.tiles if t.sideways] == [11]
    assert [len(g) for g in hr.row.groups] == [10, 1, 3]
    assert (hr.row.angle_deg + angle + 180) % 360 - 180 == pytest.approx(0, abs=2)


@pytest.mark.parametrize(("perspective", "depth", "angle"), [(0.3, 0.0, 0.0), (0.3, 0.3, -20.0), (0.5, 0.4, 25.0)])
def test_sideways_and_gaps_survive_perspective(perspective: float, depth: float, angle: float) -> None:
    dets = layout_boxes(PON_HAND, perspective=perspective, depth=depth, angle=angle)
    hr = hand_row(dets)
    assert [t.det for t in hr.row.tiles if t.sideways] == [11]
    assert [len(g) for g in hr.row.groups] == [10, 1, 3]


@pytest.mark.parametrize("unit", [20.0, 40.0, 90.0])
def test_gaps_are_in_tile_widths(unit: float) -> None:
    hr = hand_row(layout_boxes("1234567m ~0.5 123p ~1.2 4567s", unit=unit))
    gaps = [t.gap_before for t in hr.row.tiles[1:]]
    assert gaps[6] == pytest.approx(0.5, abs=0.02) and gaps[9] == pytest.approx(1.2, abs=0.02)
    assert max(gaps[:6]) < 0.05


def test_loosely_laid_row_raises_the_split_threshold() -> None:
    spec = " ".join(f"{i}m" for i in range(1, 10)) + " ~1.0 1p"
    hr = hand_row(layout_boxes(spec, gap=0.25))
    assert hr.row.split_gap == pytest.approx(0.45, abs=0.03)
    assert [len(g) for g in hr.row.groups] == [9, 1]


def test_few_detections_make_no_layout() -> None:
    lay = analyse_layout(layout_boxes("12m"))
    assert lay.candidates == () and lay.hand is None


def test_second_row_of_discards_is_background() -> None:
    hand = layout_boxes("123m456p789s1122z 2z", origin=(100, 600))
    discards = layout_boxes("159m19p19s1234567z", origin=(130, 250), unit=28)
    dets = shuffled(hand + discards)
    lay = analyse_layout(dets)
    assert len(lay.rows) == 2
    hr = lay.hand
    assert hr is not None
    assert sorted(names(dets, hr.row.dets)) == sorted(names(hand, range(14)))
    assert hr.apart == () and len(hr.unused) == 14


def test_tile_far_out_on_the_row_line_is_apart() -> None:
    dets = layout_boxes("123m456p789s1122z 2z ~4 3p")
    hr = hand_row(dets)
    assert hr.n_tiles == 14 and names(dets, hr.apart) == ["3p"]


@pytest.mark.parametrize(
    ("meld", "kind", "from_"),
    [
        ("3'45s", "call", "left"),
        ("5'55z", "call", "left"),
        ("55'5z", "call", "across"),
        ("555'z", "call", "right"),
        ("7'777p", "open_kan", "left"),
        ("77'77p", "open_kan", "across"),
        ("7777'p", "open_kan", "right"),
        ('2"22p', "added_kan", "left"),
        ('22"2p', "added_kan", "across"),
        ('222"p', "added_kan", "right"),
        ("2'2'22p", "added_kan", "left"),
        ("22'2'2p", "added_kan", "across"),
        ("222'2'p", "added_kan", "right"),
        ("?77z?", "closed_kan", None),
    ],
)
def test_meld_shapes(meld: str, kind: str, from_: str | None) -> None:
    dets = layout_boxes(f"23m456p11z 4m ~0.8 {meld} 6'78s")
    hr = hand_row(dets)
    assert hr.structures, "a count-consistent structure"
    s = hr.structures[0]
    assert names(dets, s.concealed) == ["2m", "3m", "4p", "5p", "6p", "1z", "1z"]
    assert names(dets, [s.win]) == ["4m"]
    first, second = s.melds
    assert (first.kind, first.from_) == (kind, from_)
    assert len(first.dets) == (3 if kind == "call" else 4)
    assert (second.kind, second.from_) == ("call", "left")
    assert s.cost == 0.0


def test_stacked_tile_rides_on_its_base() -> None:
    dets = layout_boxes('123m456p789s1z 1z ~0.8 5"55s', angle=20)
    hr = hand_row(dets)
    assert hr.row.stacked == (12,)  # spec order: the stacked copy follows its base (11)
    assert next(t for t in hr.row.tiles if t.det == 11).stacked == 12
    assert hr.structures[0].melds[0].dets == (11, 13, 14, 12)
    assert hr.apart == ()


def test_a_tile_of_another_kind_beyond_a_called_tile_is_not_stacked_on_it() -> None:
    # as in a render (seed 990011, image 473): someone's discard lay just beyond a called 4m, where
    # an added kan's stacked tile lies; taken for one, it made every reading an invalid kan
    dets = layout_boxes('123m456p789s1z 1z ~0.8 5"55s')
    other = replace(dets[12], cls=11, topk=((11, 0.8), (10, 0.1)))  # 3p: no kind in common with 5s
    hr = hand_row([*dets[:12], other, *dets[13:]])
    assert hr.row.stacked == ()
    assert [m.kind for m in hr.structures[0].melds] == ["call"]
    assert 12 not in {d for m in hr.structures[0].melds for d in m.dets}
    # a red five on a five is its kind: still stacked
    red = replace(dets[12], cls=36, topk=((36, 0.7), (22, 0.3)))
    assert hand_row([*dets[:12], red, *dets[13:]]).row.stacked == (12,)


def _pulled_towards(d: Detection, base: Detection, share: float) -> Detection:
    """``d`` moved ``share`` of the way towards ``base`` (its size kept)."""
    dx, dy = (base.centre[0] - d.centre[0]) * share, (base.centre[1] - d.centre[1]) * share
    x1, y1, x2, y2 = d.box
    return replace(d, box=(x1 + dx, y1 + dy, x2 + dx, y2 + dy))


@pytest.mark.parametrize("angle", [0.0, 25.0])
def test_stacked_tile_drawn_overlapping_its_base_is_still_stacked(angle: float) -> None:
    # the localizer draws a stacked pair's boxes closer than they are: overlapping as much as a
    # duplicate box of one tile would, a third of a tile's width apart across the row
    from paiscan.datasets.evaluate import iou
    from paiscan.vision.layout import DUPLICATE_IOU

    dets = layout_boxes('123m456p789s1z 1z ~0.8 5"55s', angle=angle)
    dets[12] = _pulled_towards(dets[12], dets[11], 0.65)
    assert iou(dets[11].box, dets[12].box) >= DUPLICATE_IOU
    hr = hand_row(dets)
    assert hr.row.stacked == (12,)
    assert hr.structures[0].melds[0].dets == (11, 13, 14, 12)


@pytest.mark.parametrize("angle", [0.0, 25.0])
@pytest.mark.parametrize(("grow", "stacked"), [(1.0, True), (1.3, False)])
def test_a_stacked_tile_drawn_closer_still_is_stacked_unless_its_box_is_looser(
    angle: float, grow: float, stacked: bool
) -> None:
    # as in fresh renders (seed 990015, image 616; 990019, image 105): the stacked tile's box drawn
    # a fifth of the base's width across the row from it, its size the base's; a second, looser
    # box of the base itself (selection renders 990012/193 and /372: 1.2-1.4 times its size) lies
    # as close but is no tile
    dets = layout_boxes('123m456p789s1z 1z ~0.8 5"55s', angle=angle)
    d = _pulled_towards(dets[12], dets[11], 0.8)
    (x1, y1, x2, y2), (cx, cy) = d.box, d.centre
    w, h = (x2 - x1) * grow, (y2 - y1) * grow
    dets[12] = replace(d, box=(cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2))
    assert hand_row(dets).row.stacked == ((12,) if stacked else ())


@pytest.mark.parametrize(("kind", "stacked"), [("z", True), ("s", False)])
def test_a_stacked_white_dragon_read_upright_is_stacked_by_its_box(kind: str, stacked: bool) -> None:
    # as in a render (seed 990011, image 851): an added kan of white dragons, its stacked tile's
    # blank face read upright (a round face's axis is a guess), so it was no stacked tile and the
    # kan was scored as a pon in silence; a five of bamboos read upright is believed
    dets = layout_boxes(f'123m456p789s1z 1z ~0.8 5"55{kind}', faces=True)
    dets[12] = replace(dets[12], face_angle=dets[13].face_angle)  # read as upright as its neighbours
    assert hand_row(dets).row.stacked == ((12,) if stacked else ())


def test_a_duplicate_box_of_a_sideways_tile_is_not_a_stacked_tile() -> None:
    dets = layout_boxes("123m456p789s1z 1z ~0.8 5'55s")
    base = dets[11]
    x1, y1, x2, y2 = base.box
    twin = replace(
        base,
        confidence=base.confidence * 0.8,
        box=(x1 + 0.12 * (x2 - x1), y1 - 0.1 * (y2 - y1), x2 + 0.12 * (x2 - x1), y2 - 0.1 * (y2 - y1)),
    )
    hr = hand_row([*dets, twin])
    assert hr.row.stacked == ()
    assert [m.kind for m in hr.structures[0].melds] == ["call"]


def test_melds_touching_the_hand_still_split() -> None:
    dets = layout_boxes("123m456p789s1z1z5'55z")  # no gap anywhere
    hr = hand_row(dets)
    s = hr.structures[0]
    assert [m.from_ for m in s.melds] == ["left"]
    assert names(dets, s.melds[0].dets) == ["5z", "5z", "5z"]


def test_melds_on_the_left_of_the_image_mean_the_photo_is_upside_down() -> None:
    dets = layout_boxes(PON_HAND, angle=180)
    hr = hand_row(dets)
    s = hr.structures[0]
    assert names(dets, [s.win]) == ["9s"] and s.melds[0].from_ == "left"


def test_win_tile_apart_is_the_only_candidate_without_a_penalty() -> None:
    dets = layout_boxes("123m456p789s1122z 2z")
    hr = hand_row(dets)
    assert [s.cost for s in hr.structures][:2] == [0.0, pytest.approx(1.5)]
    assert hr.win_candidates[0] == 13 and hr.structures[0].win_rule == "gap"


def test_no_gap_makes_every_tile_a_candidate_rightmost_first() -> None:
    dets = layout_boxes("123m456p789s1122z2z")
    hr = hand_row(dets)
    assert hr.win_candidates[0] == 13
    assert sorted(hr.win_candidates) == list(range(14))
    assert {s.win_rule for s in hr.structures} == {"no_gap"}


def test_a_narrow_gap_plainly_the_widest_still_sets_the_winning_tile_apart() -> None:
    dets = layout_boxes("123m456p789s1122z ~0.2 2z")  # under the split (0.3), but no other gap near it
    hr = hand_row(dets)
    assert hr.row.split_gap > 0.2 and hr.structures[0].win_rule == "weak_gap"
    assert hr.win_candidates[0] == 13 and hr.structures[0].cost == 0.0
    assert {s.win_rule for s in hr.structures[1:]} == {"against_weak_gap"}
    assert hr.structures[1].cost == pytest.approx(layout.WIN_AGAINST_WEAK_GAP_COST)
    r = read_hand(dets)
    assert r.valid and r.hand_dict()["win_tile"] == "2z"
    assert not [a for a in r.ambiguities if a.kind == "win_tile"]  # the player showed it: not asked


def test_a_narrow_gap_at_the_left_end_turns_the_row_round() -> None:
    dets = layout_boxes("2z ~0.2 123m456p789s1122z")  # no melds, no face angles: only the gap tells
    hr = hand_row(dets)
    assert hr.row.oriented_by == "weak_gap" and names(dets, [hr.structures[0].win]) == ["2z"]
    r = read_hand(dets)
    assert r.hand_dict()["win_tile"] == "2z" and not any("a guess" in n for n in r.notes)


@pytest.mark.parametrize(
    "spec",
    [
        "123m456p ~0.15 789s1122z ~0.2 2z",  # another gap inside the hand nearly as wide
        "123m456p789s1122z ~0.05 2z",  # too narrow to see
        "11z22z ~0.2 2z ~0.8 5'55z 6'66z 7'77z",  # too few other gaps to compare with
    ],
)
def test_a_narrow_gap_that_is_not_plainly_the_widest_leaves_the_winning_tile_open(spec: str) -> None:
    hr = hand_row(layout_boxes(spec))
    assert hr.structures[0].win_rule == "no_gap"


def test_win_tile_after_the_melds() -> None:
    dets = layout_boxes("123m456p789s1z ~0.8 5'55z 1z")
    s = hand_row(dets).structures[0]
    assert names(dets, [s.win]) == ["1z"] and s.win_rule == "after_melds"


def test_row_without_melds_is_read_from_both_ends() -> None:
    dets = layout_boxes("2z ~1.2 123m456p789s1122z")  # the winning tile well apart, on the left
    hr = hand_row(dets)
    assert hr.row.oriented_by == "default"
    s = hr.structures[0]
    assert names(dets, [s.win]) == ["2z"] and s.cost == pytest.approx(0.1)


@pytest.mark.parametrize(
    "extras",
    [
        [("3p", 4.0, 3.2)],  # above the row
        [("3p", 4.0, 3.2), ("7z", 5.05, 3.2)],  # two indicators side by side
        [("3p", 16.0, -3.0)],  # below, to the right
    ],
)
def test_indicators_apart(extras: list[tuple[str, float, float]]) -> None:
    dets = layout_boxes("123m456p789s1122z 2z", extras=extras)
    hr = hand_row(dets)
    assert hr.n_tiles == 14
    assert names(dets, hr.indicators) == [name for name, _, _ in extras]


@pytest.mark.parametrize("spec", ["3p ~2 123m456p789s1122z 2z", "123m456p789s1122z 2z ~1.5 3p"])
def test_indicator_on_the_row_line_is_left_out_of_the_hand(spec: str) -> None:
    dets = layout_boxes(spec)
    hr = hand_row(dets)
    assert hr.n_tiles == 15
    s = hr.structures[0]
    assert names(dets, s.excluded) == ["3p"] and names(dets, [s.win]) == ["2z"]
    assert s.cost == pytest.approx(1.0)


def test_far_away_tiles_are_unused() -> None:
    dets = layout_boxes("123m456p789s1122z 2z", extras=[("3p", 8.0, 14.0)])
    hr = hand_row(dets)
    assert hr.apart == () and names(dets, hr.unused) == ["3p"]


def test_a_lone_tile_seven_and_a_half_tile_widths_off_is_a_discard_not_an_indicator() -> None:
    # indicators lie beside the hand; a lone tile that far is someone's discard (a hand shown with
    # no indicator had one scored from a pond's tile)
    far = layout_boxes("123m456p789s1122z 2z", extras=[("3p", 4.0, 7.5)])
    hr = hand_row(far)
    assert hr.indicators == () and names(far, hr.unused) == ["3p"]
    near = layout_boxes("123m456p789s1122z 2z", extras=[("3p", 4.0, 6.5)])
    assert names(near, hand_row(near).indicators) == ["3p"]


def test_face_down_tiles_apart_are_unused() -> None:
    dets = layout_boxes("123m456p789s1122z 2z", extras=[("3p", 4.0, 3.2)])
    dets.append(layout_boxes("?", origin=(100 + 5 * 40, 600 - 3.2 * 40))[0])
    hr = hand_row(dets)
    assert names(dets, hr.indicators) == ["3p"] and names(dets, hr.unused) == ["?"]


@totenko
def test_totenko_sets_manzu_aside() -> None:
    assert set_aside_kinds("totenko_balance") == frozenset({0, 4, 8})
    assert set_aside_kinds("riichi") == frozenset() and set_aside_kinds("nope") == frozenset()
    dets = layout_boxes("340s567s234p67p99p 8p", extras=[("1m", 2, 3.2), ("9m", 3.05, 3.2), ("3s", 6, 3.2)])
    hr = hand_row(dets, "totenko_balance")
    assert names(dets, hr.set_aside) == ["1m", "9m"] and names(dets, hr.indicators) == ["3s"]


@totenko
def test_totenko_gari_at_the_row_end_may_be_left_out() -> None:
    dets = layout_boxes("340s567s234p67p99p 8p 0m9m")
    hr = hand_row(dets, "totenko_balance")
    s = hr.structures[0]
    assert names(dets, s.excluded) == ["0m", "9m"] and s.cost == pytest.approx(0.1)


@totenko
def test_totenko_manzu_at_the_edge_of_someones_discards_is_no_gari() -> None:
    # as in renders (seed 990013, images 83 and 277): a 9m ends a short line of discards near the
    # indicator; it was taken for gari, and the hand scored with a nuki it does not have
    pond = [("2s", 10.0, 8.0), ("4p", 11.0, 8.0), ("6p", 12.0, 8.0), ("9m", 13.0, 8.0)]
    dets = layout_boxes("340s567s234p67p99p 8p", extras=[("3s", 9.0, 4.0), *pond])
    hr = hand_row(dets, "totenko_balance")
    assert names(dets, hr.indicators) == ["3s"] and hr.set_aside == ()
    hand = read_hand(dets, "totenko_balance").hand_dict()
    assert hand is not None and not hand.get("nuki") and hand["dora_indicators"] == ["3s"]
    # the same 9m alone, as far from the indicator, is set aside
    alone = layout_boxes("340s567s234p67p99p 8p", extras=[("3s", 9.0, 4.0), ("9m", 13.0, 8.0)])
    assert names(alone, hand_row(alone, "totenko_balance").set_aside) == ["9m"]


def test_a_further_line_of_discards_is_no_more_indicators() -> None:
    # as in a render (seed 990012, image 297): two kans allow six indicators (dora and ura-dora,
    # one more of each per kan); the lone indicator is one, and a line of five discards beyond it
    # made up the rest, silently adding dora
    discards = [("1m", 8.0, 6.0), ("5p", 9.0, 6.0), ("9s", 10.0, 6.0), ("4z", 11.0, 6.0), ("6z", 12.0, 6.0)]
    dets = layout_boxes("123m456p7p 7p ~0.8 1'111z 2'222z", extras=[("3s", 4.0, 3.0), *discards])
    hand = read_hand(dets).hand_dict()
    assert hand is not None and hand["dora_indicators"] == ["3s"]
    # a further pair (an ura-dora indicator and its kan's) still counts
    pair = layout_boxes(
        "123m456p7p 7p ~0.8 1'111z 2'222z", extras=[("3s", 4.0, 3.0), ("1m", 8.0, 6.0), ("5p", 9.0, 6.0)]
    )
    hand = read_hand(pair).hand_dict()
    assert hand is not None and sorted(hand["dora_indicators"]) == ["1m", "3s", "5p"]


@totenko
def test_a_dead_wall_in_line_with_the_hand_is_cut_off_short_of_the_gari_past_it() -> None:
    # as in fresh render 990016/032 and selection 990013/104: the hand, a closed kan, the dead wall
    # and a 1m set aside, all in one line; the wall was sought only at the line's ends, where the
    # gari lay, so it stayed in the hand's row and no reading fitted its count
    dets = layout_boxes("22s11222777z 2s ~0.5 ?88s? ~2.5 ??9m0m4z?? ~1.5 1m", faces=True)
    hr = hand_row(dets, "totenko_balance")  # (the 1m stays at the row's end, left out as set aside)
    assert names(dets, hr.indicators) == ["9m", "0m", "4z"]
    hand = read_hand(dets, "totenko_balance").hand_dict()
    assert hand is not None and hand["hand"] == "22s11222777z" and hand["nuki"] == "1m"
    assert [m["tiles"] for m in hand["melds"]] == ["8888s"]


@totenko
def test_gari_laid_on_against_a_dead_wall_are_no_indicators() -> None:
    # as in fresh render 990016/267: 1m 0m 0m set aside touching the dead wall's last back; a wall's
    # tiles touch, so they were taken for its indicators (and then dropped: too many)
    wall = [(name, 1.0 + k * 1.05, 4.0) for k, name in enumerate(["1z", "1z", "3s", "1z", "1z", "1z", "1z"])]
    gari = [(name, 1.0 + (7 + k) * 1.05, 4.0) for k, name in enumerate(["1m", "0m", "0m"])]
    dets = layout_boxes("340s567s234p67p99p 8p", extras=[*wall, *gari], faces=True)
    for k in (0, 1, 3, 4, 5, 6):  # face down
        dets[14 + k] = replace(dets[14 + k], cls=37, topk=((37, 0.97),), face_angle=None)
    hr = hand_row(dets, "totenko_balance")
    assert names(dets, hr.indicators) == ["3s"] and names(dets, hr.set_aside) == ["1m", "0m", "0m"]
    hand = read_hand(dets, "totenko_balance").hand_dict()
    assert hand is not None and hand["dora_indicators"] == ["3s"] and hand["nuki"] == "100m"


@totenko
def test_indicators_and_gari_beyond_them_in_line_with_the_hand_are_both_left_out() -> None:
    # as in a render (seed 990013, image 85): the indicators, then the gari, each apart, continue
    # the row past the pon; only the outermost group could be left out, so the count never fitted
    dets = layout_boxes("234p2344447s 7s ~1.4 8'88s ~2.7 6z9s2s ~2.5 1m9m")
    hand = read_hand(dets, "totenko_balance").hand_dict()
    assert hand is not None and hand["hand"] == "234p2344447s" and hand["win_tile"] == "7s"
    assert hand["dora_indicators"] == ["6z", "9s", "2s"] and hand["nuki"] == "19m"


#: a render (seed 990012, image 695; true boxes and faces): the hand, the winning 6p and a pon of 7p
#: run down the photo; three indicators lie in a line beside the hand's start, touching the near
#: end of four discards turned another way
INDICATORS_BY_DISCARDS = [
    ("0m", (162, 84, 263, 162), 78),
    ("5m", (199, 114, 300, 193), -103),
    ("7p", (236, 144, 339, 226), 74),
    ("8p", (275, 175, 379, 259), 72),
    ("6z", (316, 206, 419, 294), 69),
    ("6z", (357, 239, 462, 330), 66),
    ("6z", (400, 273, 505, 367), 63),
    ("7z", (444, 308, 550, 405), 60),
    ("7z", (490, 344, 597, 445), 56),
    ("7z", (537, 381, 645, 486), 52),
    ("6p", (614, 442, 723, 553), 45),
    ("7p", (717, 523, 828, 642), 36),
    ("7p", (773, 580, 898, 709), -50),
    ("7p", (852, 628, 965, 759), 23),
    ("9s", (374, 86, 458, 153), 76),
    ("1m", (409, 112, 493, 180), 73),
    ("3s", (445, 138, 530, 208), 71),
    ("3p", (522, 89, 598, 154), -53),
    ("3z", (549, 84, 623, 147), -54),
    ("1p", (569, 76, 641, 137), -56),
    ("3p", (592, 71, 661, 130), -55),
]


def test_indicators_touching_discards_are_parted_from_them_by_the_hands_line() -> None:
    # the three and two discards made one cluster of five, too many for indicators (no kan): the
    # photo was scored with no dora at all
    dets = render_dets(INDICATORS_BY_DISCARDS)
    hand = read_hand(dets).hand_dict()
    assert hand is not None and hand["hand"] == "05m78p666777z" and hand["win_tile"] == "6p"
    assert hand["dora_indicators"] == ["9s", "1m", "3s"]


def test_a_neighbour_whose_box_overlaps_like_a_second_box_is_a_tile_when_the_count_needs_it() -> None:
    # seen steeply, a packed row's boxes overlap as much as one tile's two boxes do: the less sure
    # 1m was dropped as the 2m seen twice, and the row of 13 was refused (as in 8 of the 116
    # refused selection renders)
    dets = layout_boxes("123m456p789s1122z 2z")
    x1, y1, x2, y2 = dets[0].box
    dets[0] = replace(dets[0], box=(x1 + 0.65 * (x2 - x1), y1, x2 + 0.65 * (x2 - x1), y2), confidence=0.5)
    reading = read_hand(dets)
    hand = reading.hand_dict()
    assert reading.valid and hand is not None and hand["hand"] == "123m456p789s1122z" and hand["win_tile"] == "2z"
    # read as the tile it overlaps, it is that tile seen twice: the hand stays refused
    twice = list(dets)
    twice[0] = replace(dets[0], cls=dets[1].cls, topk=((dets[1].cls, 0.5),))
    assert [p.code for p in read_hand(twice).problems] == ["wrong_tile_count"]


def test_a_neighbour_read_as_the_tile_it_overlaps_is_a_tile_when_it_fills_a_hole_in_the_row() -> None:
    # as in renders (seed 990012, images 425 and 429): the second of two white dragons side by
    # side, its box overlapping the first's like a second box of it, was dropped, and the row of 13
    # refused; it lies where the row leaves room for a tile (its neighbours two pitches apart)
    dets = layout_boxes("123m456p789s1122z 2z")
    x1, y1, x2, y2 = dets[10].box
    shift = 0.6 * (x2 - x1)
    dets[10] = replace(dets[10], box=(x1 - shift, y1, x2 - shift, y2), confidence=0.5)
    first = analyse_layout(dets).hand
    assert first is not None and first.n_tiles == 13  # taken for the first 1z seen twice
    reading = read_hand(dets)
    hand = reading.hand_dict()
    assert reading.valid and hand is not None and hand["hand"] == "123m456p789s1122z" and hand["win_tile"] == "2z"


def test_layout_to_dict_is_json() -> None:
    lay: Layout = analyse_layout(layout_boxes(PON_HAND, extras=[("3p", 4.0, 3.2)]))
    out = json.loads(json.dumps(lay.to_dict()))
    assert out["candidates"][0]["row"]["sideways"] == [11]
    assert out["candidates"][0]["structure"]["win"] == 10


def test_row_near_the_diagonal_cannot_be_de_rotated() -> None:
    dets = layout_boxes("123m456p789s1122z 2z", angle=45.0)
    hr = hand_row(dets)
    assert hr.row.degenerate and not any(t.sideways for t in hr.row.tiles)
    s = hr.structures[0]
    assert names(dets, [s.win]) == ["2z"] and len(s.concealed) == 13


def test_unsure_sideways_judgements_are_also_read_reversed() -> None:
    # heavy box noise at a steep skew: some upright tiles look a little sideways
    dets = layout_boxes(
        "3m4m5m6m7m7m7m8m6p8p 7p ~0.8 6p6p6'p", angle=30, perspective=0.1, depth=0.2, jitter=0.04, seed=26
    )
    hr = hand_row(dets)
    assert [t.det for t in hr.row.tiles if t.sideways] == [1, 13]  # 4m looks sideways
    s = hr.structures[0]
    assert names(dets, [s.win]) == ["7p"] and [m.from_ for m in s.melds] == ["right"]
    assert 0.5 < s.cost < 1.0  # the price of overruling one unsure judgement


def test_a_tile_detected_twice_counts_once() -> None:
    dets = layout_boxes("123m456p789s1122z 2z")
    x1, y1, x2, y2 = dets[4].box
    twin = Detection(dets[4].cls, 0.5, (x1 + 1, y1 + 1, x2 + 1, y2 - 1))
    dets.append(twin)
    hr = hand_row(dets)
    assert hr.n_tiles == 14 and 14 in hr.unused and hr.structures[0].cost == 0.0


def test_a_smaller_box_lying_mostly_inside_a_tile_counts_once() -> None:
    # as in a render (seed 990004, image 23): a second box shifted onto a closed kan's face,
    # read as a back; IoU 0.42 with the face's box, yet two thirds of it inside
    dets = layout_boxes("1067s222666z 1s ?55z?")
    x1, y1, x2, y2 = dets[12].box  # the first 5z: IoU 0.41, 0.67 of the smaller box inside
    w, h = x2 - x1, y2 - y1
    twin = Detection(37, 0.29, (x1 - 0.25 * w, y1 - 0.05 * h, x2 - 0.4 * w, y2 - 0.15 * h), False, ((37, 0.5),))
    hr = hand_row([*dets, twin])
    assert len(dets) in hr.unused
    assert [m.kind for m in hr.structures[0].melds] == ["closed_kan"]


def test_face_angle_round_trips_and_is_optional() -> None:
    d = Detection(5, 0.9, (0.0, 0.0, 30.0, 40.0), False, ((5, 0.9),), -87.5, 0.8)
    assert d.to_dict()["face_angle"] == -87.5 and d.to_dict()["face_sure"] == 0.8
    assert Detection.from_dict(d.to_dict()) == d
    assert "face_angle" not in Detection(5, 0.9, (0.0, 0.0, 30.0, 40.0)).to_dict()


def test_a_cut_tile_round_trips_and_only_cut_tiles_say_so() -> None:
    d = Detection(5, 0.9, (0.0, 0.0, 30.0, 40.0), cut=True)
    assert d.to_dict()["cut"] is True and Detection.from_dict(d.to_dict()) == d
    assert "cut" not in replace(d, cut=False).to_dict()


@pytest.mark.parametrize("angle", [0.0, 30.0, 45.0, -45.0, 180.0])
def test_face_angles_find_the_sideways_tile_whatever_the_boxes(angle: float) -> None:
    # 45°: the boxes cannot be de-rotated, so without faces the call mark is invisible
    dets = layout_boxes(PON_HAND, angle=angle, faces=True)
    hr = hand_row(dets)
    assert [t.det for t in hr.row.tiles if t.sideways] == [11]
    assert list(hr.row.dets) == list(range(14)) and hr.row.oriented_by == "faces"
    s = hr.structures[0]
    assert names(dets, [s.win]) == ["9s"] and [m.from_ for m in s.melds] == ["left"]


def test_face_angle_overrules_a_box_that_looks_sideways() -> None:
    # the last tile's box is cut by the photo's edge and looks landscape; its face stands upright
    dets = layout_boxes("123m456p789s1122z 2z", faces=True)
    x1, y1, x2, y2 = dets[-1].box
    dets[-1] = replace(dets[-1], box=(x1, y1 + (y2 - y1) * 0.5, x2, y2))
    assert not any(t.sideways for t in hand_row([replace(d) for d in dets]).row.tiles)
    no_faces = [replace(d, face_angle=None) for d in dets]
    assert any(t.sideways for t in hand_row(no_faces).row.tiles)


def test_faces_say_which_side_the_player_sits() -> None:
    # no melds and no gap: only the faces tell that the photo is upside down
    dets = layout_boxes("123m456p789s1122z2z", angle=180.0, faces=True)
    hr = hand_row(dets)
    assert hr.row.oriented_by == "faces" and list(hr.row.dets) == list(range(14))
    assert names(dets, [hr.structures[0].win]) == ["2z"]
    guess = hand_row([replace(d, face_angle=None) for d in dets]).row
    assert guess.oriented_by == "default" and list(guess.dets) == list(range(14))[::-1]
