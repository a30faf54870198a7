"""paiscan.vision.layout: rows bent by perspective or cut by the frame, lines that rejoin the hand,
and the tiles touching it (indicators, gari, second and doubtful boxes), from laid-out hands and the
models' output on renders (``as_read`` tables)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from test_layout_helpers import as_read, hand_row, layout_boxes, names, render_dets, totenko

from paiscan.scoring.tiles import parse_tiles
from paiscan.vision.detection import Detection
from paiscan.vision.layout import TOP_DOUBTED
from paiscan.vision.reading import read_hand

#: a render (seed 990003, image 122) whose called tiles sit lower than the concealed ones: the
#: best line holds ten tiles, the last meld and a half form a line of their own
BENT_ROW = [
    ("2m", (260, 239, 314, 294), 11),
    ("3m", (297, 241, 350, 296), 11),
    ("4m", (335, 242, 387, 298), 11),
    ("0m", (377, 245, 424, 299), 4),
    ("2m", (414, 246, 464, 302), 12),
    ("3p", (493, 262, 549, 305), -88),
    ("3p", (544, 253, 587, 307), 6),
    ("3p", (582, 254, 625, 309), 6),
    ("3m", (628, 257, 669, 311), 4),
    ("3m", (666, 258, 706, 313), 4),
    ("3m", (705, 272, 756, 316), -87),
    ("3p", (761, 275, 812, 318), -87),
    ("2p", (811, 266, 850, 320), 0),
    ("4p", (848, 267, 888, 322), 1),
    # the dead wall, in line with the concealed tiles: it pulls the best line off the melds
    ("?", (931, 234, 973, 289), 0),
    ("?", (967, 236, 1010, 291), -1),
    ("4s", (1003, 238, 1048, 292), -3),
    ("?", (1038, 240, 1085, 294), -4),
    ("?", (1074, 241, 1122, 296), -5),
    ("?", (1110, 243, 1159, 298), -4),
    ("?", (1146, 245, 1196, 299), -6),
]


def test_a_row_bent_by_perspective_is_joined_again() -> None:
    dets = render_dets(BENT_ROW)
    hr = hand_row(dets)
    assert hr.n_tiles == 14 and names(dets, hr.indicators) == ["4s"]
    s = hr.structures[0]
    assert names(dets, [s.win]) == ["2m"] and len(s.melds) == 3


# a render (seed 990011, image 738): a straight hand row, and a dead wall to its left one tile higher
ROW_BESIDE_WALL = [
    ("2m", (466, 408, 515, 467), -4),
    ("3m", (510, 405, 558, 464), -4),
    ("3m", (556, 402, 603, 461), -4),
    ("3m", (602, 398, 650, 458), -4),
    ("3m", (647, 396, 694, 455), -3),
    ("4m", (691, 392, 741, 452), -5),
    ("0m", (737, 390, 786, 449), -3),
    ("5m", (780, 386, 833, 447), -6),
    ("5m", (826, 384, 879, 443), -4),
    ("4p", (870, 380, 923, 440), -5),
    ("6p", (914, 378, 968, 437), -4),
    ("4s", (960, 375, 1015, 434), -4),
    ("4s", (1004, 371, 1060, 431), -5),
    ("0p", (1059, 368, 1116, 427), -5),
    ("?", (63, 373, 120, 432), 0),
    ("?", (108, 370, 163, 429), 0),
    ("2p", (151, 367, 206, 426), -4),
    ("2m", (196, 364, 250, 423), -5),
    ("?", (240, 361, 293, 420), 0),
    ("?", (284, 358, 337, 417), 0),
    ("?", (329, 355, 380, 414), 0),
]


def test_the_hand_is_whole_when_its_first_line_ran_across_a_dead_wall_beside_it() -> None:
    # the line holding the most tiles runs from the dead wall to the hand's last nine tiles; once
    # the wall is cut off, the first five continue the hand's end but lie 0.6 tile sizes off the
    # line's direction, which no tile of the hand follows any more
    dets = render_dets(ROW_BESIDE_WALL)
    hr = hand_row(dets)
    assert hr.n_tiles == 14 and sorted(hr.row.dets) == list(range(14))
    assert names(dets, hr.indicators) == ["2p", "2m"]
    assert names(dets, [hr.structures[0].win]) == ["0p"]


# a render (seed 990011, image 278): a dead wall laid touching the five concealed tiles, the melds
# a gap beyond them
WALL_AGAINST_HAND = [
    ("7m", (490, 725, 532, 773), 11),
    ("8m", (523, 725, 564, 773), 9),
    ("5z", (558, 724, 603, 774), 16),
    ("5z", (598, 724, 636, 773), 5),
    ("6m", (645, 723, 683, 771), 5),
    ("2p", (725, 723, 760, 772), 1),
    ("2p", (760, 732, 808, 772), -91),
    ("2p", (807, 722, 844, 771), -3),
    ("?", (841, 721, 881, 771), 0),
    ("9s", (876, 720, 918, 771), -7),
    ("9s", (912, 720, 956, 771), -8),
    ("?", (948, 720, 993, 771), 0),
    ("7p", (986, 729, 1045, 770), -90),
    ("5p", (1033, 719, 1084, 770), -13),
    ("6p", (1070, 718, 1123, 770), -14),
    ("?", (231, 721, 279, 766), 0),
    ("?", (261, 721, 309, 766), 0),
    ("2p", (292, 720, 339, 766), 18),
    ("?", (322, 720, 369, 766), 0),
    ("?", (353, 719, 399, 765), 0),
    ("?", (385, 719, 430, 765), 0),
    ("?", (417, 718, 461, 765), 0),
]


def test_a_dead_wall_touching_the_concealed_tiles_is_cut_off_them_not_with_them() -> None:
    # wall and concealed tiles make one run, a gap away from the melds: the run is wall-like (six
    # backs), but five face-up tiles lead it from the hand's side, so only the wall is cut off
    dets = render_dets(WALL_AGAINST_HAND)
    hr = hand_row(dets)
    assert sorted(hr.row.dets) == list(range(15)) and names(dets, hr.indicators) == ["2p"]
    best = hr.structures[0]
    assert names(dets, [best.win]) == ["6m"] and len(best.melds) == 3


def test_a_loose_second_box_on_a_hand_tile_is_neither_an_indicator_nor_a_stray() -> None:
    # half of the box lies on the hand's third tile, too little for a duplicate (0.65), and its top
    # reaches the indicators above the row: as a tile apart it joined them as a fourth indicator;
    # as a stray face beside them it would make them a pond
    dets = layout_boxes(
        "123m456p789s1122z 2z", faces=True, extras=[("3p", 1.0, 1.9), ("4p", 2.05, 1.9), ("5p", 3.1, 1.9)]
    )
    x1, y1, x2, y2 = dets[2].box
    w, h = x2 - x1, y2 - y1
    loose = parse_tiles("2s")[0]
    dets.append(
        Detection(
            loose, 0.2, (x1 + 0.2 * w, y1 - 0.55 * h, x2 - 0.1 * w, y2 - 0.45 * h), False, ((loose, 0.6),), 0.0, 0.3
        )
    )
    hr = hand_row(dets)
    assert hr.n_tiles == 14 and names(dets, hr.indicators) == ["3p", "4p", "5p"] and hr.unused == (17,)


def test_indicators_the_near_zones_edge_cuts_are_taken_whole() -> None:
    # three indicators in a line beyond the row's start, the farthest just past the near zone:
    # left out, it touched the other two and made them someone's discards, and none was read
    dets = layout_boxes(
        "123m456p789s1122z 2z", faces=True, extras=[("3p", -1.0, 6.6), ("4p", -2.05, 6.6), ("5p", -3.1, 6.6)]
    )
    hr = hand_row(dets)
    assert names(dets, hr.indicators) == ["3p", "4p", "5p"] and hr.unused == ()


def test_indicators_touching_the_row_end_are_left_out_when_the_count_needs_it() -> None:
    dets = layout_boxes("123m456p789s1122z2z3p4p", faces=True)
    hr = hand_row(dets)
    best = hr.structures[0]
    assert sorted(names(dets, best.excluded)) == ["3p", "4p"] and best.cost >= 2.0


def test_a_second_looser_box_on_one_tile_counts_once() -> None:
    dets = layout_boxes("123m456p789s1122z 2z", faces=True)
    x1, y1, x2, y2 = dets[4].box
    w, h = x2 - x1, y2 - y1
    twin = Detection(dets[4].cls, 0.4, (x1 - 0.3 * w, y1 - 0.35 * h, x2 + 0.1 * w, y2))  # IoU 0.53
    dets.append(twin)
    hr = hand_row(dets)
    assert hr.n_tiles == 14 and 14 in hr.unused
    for angle in (0.0, 45.0):  # neighbours are never taken for one tile detected twice
        assert hand_row(layout_boxes("123m456p789s1122z2z", angle=angle, faces=True)).n_tiles == 14


#: a render (seed 990012, image 797; true boxes and face angles): a hand row at 35°, a dead wall
#: (backs, indicators 3z 3p) beyond its first tile and bending off its line, a pond to its right.
#: The first line found held the wall and the hand less its first three tiles; those three, with a
#: pond tile, made a line at 6°, which let the pond tile go and kept the stale direction, so it
#: could not rejoin the hand: two tiles short, refused even with every box and class right
WALL_BENT_FROM_ROW = [
    ("1m", (406, 355, 492, 450), 38),
    ("1m", (453, 387, 538, 481), 35),
    ("8m", (498, 417, 584, 512), 36),
    ("0s", (544, 449, 632, 544), 36),
    ("5s", (591, 481, 678, 576), 34),
    ("1z", (638, 513, 725, 607), 33),
    ("1z", (683, 544, 772, 638), 32),
    ("4z", (734, 581, 828, 674), 41),
    ("4z", (788, 616, 879, 711), 31),
    ("5z", (836, 650, 929, 743), 31),
    ("5z", (886, 685, 982, 778), 35),
    ("6z", (937, 719, 1032, 814), 29),
    ("6z", (986, 752, 1081, 848), 29),
    ("8m", (1062, 804, 1155, 901), 23),
    ("?", (85, 46, 179, 140), 0),
    ("?", (129, 75, 222, 170), 0),
    ("3z", (173, 104, 265, 199), 42),
    ("3p", (217, 134, 307, 228), 41),
    ("?", (261, 163, 350, 257), 0),
    ("?", (306, 193, 393, 287), 0),
    ("?", (351, 222, 436, 316), 0),
    ("4p", (879, 392, 973, 478), 123),
    ("4m", (906, 356, 999, 441), 122),
    ("7s", (929, 312, 1022, 398), 125),
    ("1m", (963, 272, 1045, 361), 26),
    ("9p", (979, 235, 1071, 320), 124),
    ("8p", (1002, 193, 1093, 276), 120),
    ("1s", (942, 433, 1038, 521), 126),
    ("7z", (963, 393, 1058, 480), 125),
    ("1z", (990, 354, 1084, 439), 122),
]


def test_a_short_line_rejoins_the_hand_by_the_direction_its_own_tiles_take() -> None:
    dets = render_dets(WALL_BENT_FROM_ROW)
    assert hand_row(dets).n_tiles == 14
    hand = read_hand(dets).hand_dict()
    assert hand is not None and hand["hand"] == "118m05s11445566z" and hand["win_tile"] == "8m"
    assert hand["dora_indicators"] == ["3z", "3p"]


def test_tiles_a_bent_row_lost_from_its_middle_are_taken_back() -> None:
    # as in a render (seed 990004, image 0): two concealed tiles sit a little off the line through
    # the rest (the row bends), fall out of it, and the hand came out two tiles short
    dets = layout_boxes("123m456p789s1122z 2z")
    for k in (4, 5):
        x1, y1, x2, y2 = dets[k].box
        dets[k] = replace(dets[k], box=(x1, y1 - 22.0, x2, y2 - 22.0))  # half a tile's size across
    hr = hand_row(dets)
    assert hr.n_tiles == 14 and sorted(hr.row.dets) == list(range(14))


def test_a_two_tile_remnant_continuing_the_hand_joins_it_whatever_its_direction() -> None:
    # as in a render (seed 990004, image 0): a line through a pond took the hand's first tiles and
    # gave them back as too far; the two left of them make a "line" whose direction (between two
    # centres, one a little higher) is 30° off the row's, which the merge used to refuse
    import numpy as np

    from paiscan.vision.layout.geometry import _geo, _Line
    from paiscan.vision.layout.rows import _merge_continuations

    dets = layout_boxes("123m456p789s1122z 2z")
    hand = _Line(list(range(2, 14)), np.array([1.0, 0.0]), np.array(dets[8].centre), {})
    first, second = dets[0], dets[1]
    dets[0] = replace(first, box=(first.box[0], first.box[1] + 12.0, first.box[2], first.box[3] + 12.0))
    remnant = _Line([0, 1], np.array([np.cos(np.radians(30)), np.sin(np.radians(30))]), np.array(second.centre), {})
    merged, rest = _merge_continuations(_geo(dets), [hand, remnant], [])
    assert len(merged) == 1 and sorted(merged[0].members) == list(range(14)) and rest == []


@pytest.mark.parametrize(
    ("faces", "face_sure", "pond"),
    [
        (("3s", "5s", "7s"), 0.9, True),
        (("5p", "8p", "2s"), 0.9, False),  # look alike upside down: 0.9 sure of their tops counts 0.45
        (("6s", "6s", "6s"), 0.9, False),  # ... as the classifier reads a 6s's top no better
        (("5p", "8p", "2s"), 1.0, True),
    ],
)
def test_only_sure_tops_of_faces_that_look_alike_upside_down_make_a_pond(
    faces: tuple[str, ...], face_sure: float, pond: bool
) -> None:
    cluster = [(f"{t}!", 10.0 + 1.05 * k, 3.5) for k, t in enumerate(faces)]
    dets = layout_boxes("123m456p789s1122z 2z", extras=cluster, faces=True, face_sure=face_sure)
    hr = hand_row(dets)
    assert sorted(names(dets, hr.indicators)) == ([] if pond else sorted(faces))
    assert all(t.cls in TOP_DOUBTED for t in dets[-3:]) == (faces[0] in ("5p", "6s"))


@pytest.mark.parametrize(("face_sure", "indicator"), [(0.7, True), (0.8, True), (0.9, False)])
def test_a_lone_tile_apart_is_turned_away_only_when_its_top_is_read_very_surely(
    face_sure: float, indicator: bool
) -> None:
    # as in selection renders 990011/220 and /312: the classifier read a lone indicator's top
    # upside down, 0.77 and 0.68 sure, and the reading took it for someone's discard; a cluster of
    # three turned faces is a pond from 0.5 on (the test above), one tile alone needs 0.85
    dets = layout_boxes("123m456p789s1122z 2z", extras=[("3s!", 4.0, 3.0)], faces=True)
    dets[-1] = replace(dets[-1], face_sure=face_sure)
    hr = hand_row(dets)
    assert names(dets, hr.indicators) == (["3s"] if indicator else [])


@pytest.mark.parametrize(
    ("shift", "joins"),
    [
        (0.0, True),  # the pon's called tile fills the hole it left, the kan goes on past the end
        (40.0, False),  # ... not from a tile's height across the row
    ],
)
def test_a_line_that_starts_in_a_hole_near_the_hands_end_and_runs_on_past_it_joins(shift: float, joins: bool) -> None:
    # as in a render (seed 990012, image 124): the hand's first line skipped a pon's sideways tile
    # (its box lower than the row's) and stopped before a kan; the called tile and the kan made a
    # second line that begins inside the first's span, which the merge used to refuse
    import numpy as np

    from paiscan.vision.layout.geometry import _geo, _Line
    from paiscan.vision.layout.rows import _merge_continuations

    dets = layout_boxes("1222p 3p 123m 3'33s 9999s")
    called = 8  # the sideways 3s; 11-14 the kan
    x1, y1, x2, y2 = dets[called].box
    dets[called] = replace(dets[called], box=(x1, y1 + shift, x2, y2 + shift))
    hand = _Line([t for t in range(11) if t != called], np.array([1.0, 0.0]), np.array(dets[5].centre), {})
    other = _Line([called, 11, 12, 13, 14], np.array([1.0, 0.0]), np.array(dets[12].centre), {})
    merged, _ = _merge_continuations(_geo(dets), [hand, other], [])
    assert (len(merged) == 1) == joins
    if joins:
        assert sorted(merged[0].members) == list(range(15))


@pytest.mark.parametrize(("shrink", "touches"), [(1.0, True), (0.6, False)])
def test_touching_discards_is_measured_in_their_own_size(shrink: float, touches: bool) -> None:
    # as in a selection render (seed 990012, image 279): someone's discards lie farther from the
    # camera than the indicator beside the hand, their tiles smaller and so the gaps between them:
    # a lone indicator a gap away from them touched them when measured in the hand's tile widths
    from paiscan.vision.layout.geometry import _geo
    from paiscan.vision.layout.surroundings import _touches

    strays = [(t, 1.0 + 1.05 * k, 4.45) for k, t in enumerate(["1s", "2s", "3s", "4s"])]
    dets = layout_boxes("123m456p789s1122z 2z", extras=[("3p", 2.05, 3.0), *strays], faces=True)
    for k in range(15, 19):
        x1, y1, x2, y2 = dets[k].box
        cx, cy, hw, hh = (x1 + x2) / 2, (y1 + y2) / 2, (x2 - x1) / 2 * shrink, (y2 - y1) / 2 * shrink
        dets[k] = replace(dets[k], box=(cx - hw, cy - hh, cx + hw, cy + hh))
    g = _geo(dets)
    hand_size = float(np.median(g.size[:14]))
    assert _touches(g, (14,), set(range(15, 19)), 40.0, hand_size) == touches


@pytest.mark.parametrize(("v", "indicators"), [(3.45, ["3p"]), (4.7, [])])
def test_an_indicator_laid_off_a_ponds_near_corner_is_parted_from_it(v: float, indicators: list[str]) -> None:
    # as in a selection render (seed 990011, image 844): the indicator touches the pond's first
    # tile diagonally, a little over a tile's size nearer the hand than the pond's first row; laid
    # in that row it is the pond's
    pond = [(t, 8.0 + 1.05 * k, 4.7) for k, t in enumerate(["4s", "5s", "6s", "7s"])] + [
        (t, 8.0 + 1.05 * k, 6.05) for k, t in enumerate(["8s", "9s"])
    ]
    dets = layout_boxes("123m456p789s1122z 2z", extras=[*pond, ("3p", 7.2 if v < 4 else 6.95, v)], faces=True)
    hr = hand_row(dets)
    assert names(dets, hr.indicators) == indicators
    assert {"4s", "5s", "6s", "7s", "8s", "9s"} <= set(names(dets, hr.unused))


@pytest.mark.parametrize(("cut", "indicators"), [(2, ["3p"]), (1, ["3p", "5m", "2s"])])
def test_a_cluster_running_on_into_doubtful_tiles_in_its_line_is_a_row_of_discards(
    cut: int, indicators: list[str]
) -> None:
    # as in fresh renders (seeds 990015, image 18; 990016, image 186): someone's row of discards
    # runs out of the frame; its last tiles, cut, are read doubtfully and left out, and the two
    # whole ones beside them looked like a second set of indicators. With one cut tile, three in
    # a line are no row of discards
    row = [("5m", 6.0, 3.4), ("2s", 7.05, 3.4), ("2m", 8.1, 3.4), ("8p", 9.15, 3.4)][: 2 + cut]
    dets = layout_boxes("123m456p789s1122z 2z", extras=[("3p", 1.0, 3.2), *row], faces=True)
    for k in range(17, 17 + cut):  # the frame cuts them: read with little confidence
        dets[k] = replace(dets[k], confidence=0.05)
    hr = hand_row(dets)
    assert sorted(names(dets, hr.indicators)) == sorted(indicators)


@totenko
@pytest.mark.parametrize("rules", ["totenko_balance", "riichi"])
def test_gari_laid_on_past_a_line_of_discards_are_no_discards(rules: str) -> None:
    # as in a fresh render (seed 990016, image 34): the gari lie on past someone's row of discards,
    # in its line. Totenko sets every manzu aside the moment it is drawn, so no discards hold one;
    # elsewhere a manzu is a discard like any tile
    pond = [(t, 3.0 + 1.05 * k, 3.2) for k, t in enumerate(["2s", "4p", "6p", "7s", "3z", "5p"])]
    gari = [("1m", 9.3, 3.2), ("9m", 10.35, 3.2)]
    dets = layout_boxes("340s567s234p67p99p 8p", extras=[*pond, *gari])
    hr = hand_row(dets, rules)
    assert names(dets, hr.set_aside) == (["1m", "9m"] if rules == "totenko_balance" else [])
    assert {"2s", "4p", "6p", "7s", "3z", "5p"} <= set(names(dets, hr.unused))


def test_a_closed_kan_a_little_apart_from_the_dead_wall_beyond_it_is_the_hands() -> None:
    # as in a fresh render (seed 990015, image 287): the kan, then under a tile's width further the
    # dead wall, all in the hand's line; the wall was cut off with the kan, whose faces became
    # indicators
    dets = layout_boxes("123m456p789s1z 1z ~1.03 ?66m? ~0.8 ??2z????")
    hr = hand_row(dets)
    assert names(dets, hr.indicators) == ["2z"]
    assert hr.n_tiles == 15 and [m.kind for m in hr.structures[0].melds] == ["closed_kan"]


#: selection render 990011/882 as the models read it (see :func:`as_read`): a steep photo; the
#: indicators 7m 2p 1z lie before someone's pond, 0.96 of a tile's size nearer the hand than its
#: first row (5m, 1p), touching it
INDICATORS_BEFORE_A_STEEP_POND = [
    (782, 447, 872, 555, 14, False, 0.86, "4z:0.92", 1.00),
    (144, 173, 234, 287, 1, False, 0.92, "1m:0.99", 1.00),
    (474, 314, 570, 425, 14, False, 0.90, "7z:0.97", 1.00),
    (850, 475, 940, 587, 12, False, 0.87, "4z:0.94", 1.00),
    (278, 228, 369, 341, 11, False, 0.90, "2z:0.98", 1.00),
    (79, 147, 166, 263, -4, False, 0.91, "1m:0.99", 1.00),
    (688, 424, 801, 528, -68, False, 0.91, "4z:0.99", 1.00),
    (1138, 590, 1241, 713, None, False, 0.87, "?:0.95", 0.00),
    (1068, 561, 1162, 679, 5, False, 0.88, "6z:0.97", 1.00),
    (557, 344, 652, 460, 18, False, 0.88, "7z:0.97", 1.00),
    (409, 286, 501, 398, 12, False, 0.88, "7z:0.97", 1.00),
    (211, 202, 301, 315, 6, False, 0.89, "2z:0.98", 1.00),
    (933, 507, 1021, 620, None, False, 0.84, "?:0.93", 0.00),
    (344, 257, 436, 371, 12, False, 0.87, "2z:0.97", 1.00),
    (1001, 535, 1094, 649, 3, False, 0.86, "6z:0.96", 1.00),
    (395, 180, 487, 262, 49, False, 0.87, "7m:0.98", 1.00),
    (234, 38, 315, 103, -113, True, 0.86, "5m:0.98", 0.96),
    (478, 128, 553, 197, 55, False, 0.85, "1p:0.98", 0.61),
    (289, 142, 377, 215, -116, True, 0.86, "2p:0.99", 0.11),
    (338, 159, 430, 235, 43, True, 0.81, "1z:0.95 4z:0.03", 1.00),
    (281, 57, 367, 121, None, True, 0.82, "1p:0.99", 0.00),
    (339, 70, 419, 142, -118, False, 0.82, "8m:0.98", 0.95),
    (421, 74, 498, 142, -123, False, 0.77, "1s:0.94 7p:0.04", 1.00),
    (368, 56, 446, 119, -115, True, 0.63, "9s:0.79 5s:0.07 4m:0.02 8m:0.02", 0.38),
    (385, 96, 463, 164, 66, True, 0.53, "8p:0.68 2p:0.05 2z:0.04 9p:0.02 2m:0.02", 0.78),
    (292, 24, 373, 92, -98, True, 0.64, "1p:0.82 9s:0.08 5s:0.06", 0.08),
    (424, 110, 501, 179, -132, False, 0.76, "7p:1.00", 0.95),
    (445, 84, 521, 152, -130, False, 0.51, "5m:0.75 7p:0.15 1s:0.01", 0.96),
    (337, 43, 415, 108, -115, True, 0.35, "8m:0.68 5s:0.10 2m:0.04 1m:0.02 9s:0.01", 0.89),
    (437, 103, 513, 168, -131, True, 0.46, "7p:0.94 5m:0.01", 1.00),
]


def test_indicators_a_little_less_than_a_row_before_a_pond_are_parted_from_it() -> None:
    dets = as_read(INDICATORS_BEFORE_A_STEEP_POND)
    hand = read_hand(dets).hand_dict()
    assert hand is not None and sorted(hand["dora_indicators"]) == ["1z", "2p", "7m"]


#: fresh render 990015/434 as the models read it (see :func:`as_read`): 99m 406p 678888s 55z and the
#: winning 5z, all concealed, then the indicator 4s cut by the photo's top edge, 0.4 of a width on,
#: read 0.21 sure
CUT_INDICATOR_AT_THE_END = [
    (624, 123, 690, 204, -4, False, 0.92, "7s:0.97", 1.00),
    (457, 155, 522, 238, 4, False, 0.91, "0p:0.97", 0.98),
    (514, 144, 577, 227, 0, False, 0.90, "6p:0.97", 1.00),
    (286, 187, 361, 269, 15, False, 0.90, "9m:0.97", 1.00),
    (793, 91, 860, 173, -12, False, 0.91, "8s:0.98", 0.96),
    (682, 112, 745, 194, -5, False, 0.89, "8s:0.96", 0.91),
    (1023, 47, 1099, 124, -31, False, 0.90, "5z:0.97", 0.92),
    (737, 101, 806, 184, -9, False, 0.90, "8s:0.98", 0.93),
    (568, 133, 634, 216, -1, False, 0.90, "6s:0.97", 1.00),
    (344, 176, 415, 260, 12, False, 0.90, "9m:0.97", 1.00),
    (901, 69, 972, 150, -18, False, 0.84, "5z:0.91", 0.95),
    (957, 58, 1030, 139, -26, False, 0.88, "5z:0.95", 0.89),
    (402, 166, 469, 249, 9, False, 0.90, "4p:0.98", 0.91),
    (845, 81, 915, 162, -19, False, 0.90, "8s:0.99", 0.95),
    (1108, 2, 1186, 57, -29, True, 0.21, "4s:0.23 2s:0.14 3s:0.10 8s:0.06 5s:0.04", 0.77),
]


#: selection render 990011/694 as the models read it (see :func:`as_read`): 99p 66z and the winning
#: 9p, pons of 222s and 444p and an added kan of 0555p; a faint box on the felt (0.23 sure) between
#: the winning tile and the first pon, overlapping the winning tile
FAINT_BOX_INSIDE = [
    (858, 450, 944, 537, -35, False, 0.89, "4p:0.97", 0.25),
    (809, 476, 891, 564, -30, False, 0.88, "4p:0.95", 0.42),
    (937, 411, 1028, 499, -41, False, 0.85, "2s:0.93 4s:0.02", 1.00),
    (746, 512, 840, 599, -117, False, 0.89, "4p:0.97", 0.57),
    (200, 455, 251, 511, 179, False, 0.90, "2z:0.99", 0.94),
    (668, 541, 749, 634, -26, False, 0.84, "5p:0.92", 0.70),
    (616, 568, 697, 659, -24, False, 0.87, "5p:0.96", 0.88),
    (236, 437, 285, 496, 7, False, 0.87, "2p:0.95", 0.22),
    (296, 718, 387, 809, -47, False, 0.90, "6z:0.99", 0.95),
    (306, 405, 356, 463, 174, False, 0.88, "7m:0.97", 0.97),
    (1046, 363, 1153, 450, -118, True, 0.89, "2s:1.00", 0.96),
    (244, 744, 335, 832, -47, False, 0.84, "9p:0.94", 0.49),
    (511, 461, 576, 536, -18, False, 0.85, "8s:0.95", 0.93),
    (196, 773, 284, 858, -40, False, 0.89, "9p:0.99", 0.62),
    (989, 387, 1082, 475, -39, False, 0.72, "2s:0.82 3s:0.06", 1.00),
    (425, 659, 513, 748, -42, False, 0.85, "9p:0.95", 0.14),
    (349, 691, 442, 785, -44, False, 0.88, "6z:0.99", 0.86),
    (369, 371, 420, 429, -10, False, 0.86, "8s:0.98", 0.90),
    (338, 388, 389, 446, 167, False, 0.79, "4m:0.92 5m:0.03", 0.88),
    (267, 423, 318, 480, 176, False, 0.82, "3z:0.95", 0.95),
    (553, 607, 644, 689, -116, False, 0.83, "0p:0.99", 0.94),
    (549, 571, 631, 651, -113, False, 0.81, "5p:0.96", 0.28),
    (469, 629, 535, 708, 107, False, 0.23, "5z:0.30 6z:0.05 3m:0.03 3z:0.03 8p:0.03", 0.31),
]


def test_a_doubtful_box_squeezed_inside_the_row_may_be_left_out() -> None:
    # the count fitted only with a concealed 9p left out at the row's start, read as an indicator
    dets = as_read(FAINT_BOX_INSIDE)
    assert 22 in hand_row(dets).row.dets  # in the row, between the groups
    hand = read_hand(dets).hand_dict()
    assert hand is not None and hand["hand"] == "99p66z" and hand["win_tile"] == "9p"
    assert hand["dora_indicators"] == ["8s"]


def test_a_doubtful_tile_at_the_row_end_may_be_left_out_whatever_else_reads() -> None:
    # the white dragons' axes are guesses, so a pon or kan of them read with the doubtful tile made
    # readings; leaving that tile out was tried only when nothing else read, and the hand was not
    dets = as_read(CUT_INDICATOR_AT_THE_END)
    dets[14] = replace(dets[14], cut=True)
    hand = read_hand(dets).hand_dict()
    assert hand is not None and hand["melds"] == [] and hand["win_tile"] == "5z"
    assert hand["dora_indicators"] == ["4s"]


@pytest.mark.parametrize(("face", "indicator"), [(40.0, True), (0.0, False), (90.0, False)])
def test_a_face_turned_otherwise_at_a_ponds_row_end_is_no_discard(face: float, indicator: bool) -> None:
    # as in fresh render 990015/445: a 7z laid in line with the end of someone's row of discards
    # (0.7 of a width before it: one run), its face 37° off theirs, was read as one of them and the
    # hand's one indicator was lost; a face sharing their axis, or sideways to it (a riichi
    # discard), stays theirs
    pond = [(t, 5.0 + 1.05 * k, 6.0) for k, t in enumerate(["2s", "8s", "9p", "6s", "3p", "8p"])]
    dets = layout_boxes("123m456p789s1122z 2z", extras=[("7z", 3.3, 6.0), *pond], faces=True)
    dets[14] = replace(dets[14], face_angle=face)
    hand = read_hand(dets).hand_dict()
    assert hand is not None and hand["dora_indicators"] == (["7z"] if indicator else [])


@pytest.mark.parametrize(
    ("pond_faces", "tops", "beside"),
    [
        ([0.0, 180.0, 0.0, 180.0, 10.0, 350.0], 180.0, True),  # half one way, half the other: it looks no way
        ([180.0] * 6, 0.0, False),  # it looks down the photo, the two by it up, as the hand: indicators
        ([0.0] * 6, 180.0, True),  # it looks up, the two the other way but upside down to the hand too
    ],
)
def test_a_background_line_whose_faces_disagree_says_nothing_of_the_way_beside_it(
    pond_faces: list[float], tops: float, beside: bool
) -> None:
    # as in a fresh render (seed 990015, image 561): two tiles of a pond's near row, read upside
    # down, were parted from the rest of its row, whose faces' mean top was 0.02 long and a hair
    # the other way; the two were read as dora indicators
    from paiscan.vision.layout.geometry import _geo
    from paiscan.vision.layout.surroundings import _beside_background

    pond = [(t, 6.0 + 1.05 * k, 5.0) for k, t in enumerate(["2s", "8s", "9p", "6s", "3p", "8p"])]
    dets = layout_boxes("123m456p789s1122z 2z", extras=[("5m", 3.9, 4.6), ("1p", 4.95, 4.8), *pond], faces=True)
    dets[14:16] = [replace(d, face_angle=tops, face_sure=0.9) for d in dets[14:16]]
    dets[16:] = [replace(d, face_angle=a, face_sure=0.6) for d, a in zip(dets[16:], pond_faces, strict=True)]
    assert _beside_background(_geo(dets), (14, 15), [set(range(16, 22))], hand_row(dets).row) == beside


# selection render 990013/30 as the models read it (Totenko): three gari laid in a line above
# the pon, on a steep diagonal row whose unit (a tile's extent along it) is 31 px for tiles 75 px
# in size; each gari was a cluster of its own, and the first was read as the dora indicator
GARI_BY_A_DIAGONAL_ROW = [
    ("0m", (997, 406, 1076, 488), -126),
    ("6p", (356, 157, 439, 260), 19),
    ("1m", (951, 374, 1028, 454), 31),
    ("5s", (955, 609, 1059, 726), -155),
    ("7p", (449, 227, 536, 332), 16),
    ("5s", (892, 566, 998, 679), 28),
    ("1m", (906, 344, 983, 422), 30),
    ("4p", (225, 63, 304, 162), 18),
    ("4p", (723, 434, 825, 547), 38),
    ("7p", (495, 262, 587, 370), -158),
    ("0s", (820, 524, 930, 633), -60),
    ("6s", (646, 375, 742, 487), 30),
    ("6p", (401, 190, 489, 297), 21),
    ("8p", (545, 299, 638, 407), 26),
    ("6s", (594, 337, 690, 445), 28),
    ("0p", (311, 125, 392, 227), 15),
    ("4p", (268, 93, 350, 195), 22),
]


@totenko
def test_gari_laid_in_a_line_are_one_cluster_however_short_the_rows_unit() -> None:
    dets = render_dets(GARI_BY_A_DIAGONAL_ROW)
    hr = hand_row(dets, "totenko_balance")
    assert sorted(map(sorted, hr.apart_groups)) == [[0, 2, 6]]
    hand = read_hand(dets, rules="totenko_balance").hand_dict()
    assert hand is not None and hand["dora_indicators"] == [] and hand["nuki"] == "110m"


@pytest.mark.parametrize(
    "boxes",
    [
        [(942, 238, 1004, 300), (995, 180, 1053, 240), (1032, 171, 1090, 231), (1072, 162, 1130, 222)],  # true
        [
            (937.32, 237.57, 1002.95, 300.92),
            (991.5, 182.64, 1051.12, 238.43),
            (1027.45, 172.94, 1091.76, 229.6),
            (1066.31, 164.43, 1132.16, 219.68),
        ],  # the models' (a best line through all four: 0.2498 of a size)
    ],
)
def test_an_indicator_laid_off_a_run_of_gari_stays_apart(boxes: list[tuple[float, float, float, float]]) -> None:
    # as in a fresh render (seed 990016, image 145): a 0m indicator diagonally off three gari. With
    # the models' boxes a best line through all four passed within a quarter of a size of each, so
    # the indicator was read as a fourth gari, silently: it is measured from the run's own line
    from paiscan.vision.layout import GARI_JOIN_SIZE
    from paiscan.vision.layout.geometry import _geo
    from paiscan.vision.layout.surroundings import _join_set_aside

    dets = render_dets([(name, box, 0) for name, box in zip(["0m", "1m", "0m", "9m"], boxes, strict=True)])
    g = _geo(dets)
    unit = max(45.0, GARI_JOIN_SIZE * float(np.median(g.size)))  # as the layout measures them
    joined = _join_set_aside(g, ((0,), (1, 2, 3)), [True] * 4, unit)  # the run one cluster already
    assert sorted(map(sorted, joined)) == [[0], [1, 2, 3]]


def test_a_face_looking_as_the_hands_is_not_turned_however_unsure_its_top() -> None:
    # ``_face_turned`` answers True, False or None (unknown): callers ask ``is False``, so an
    # unsure top must not make the answer a NumPy bool
    from paiscan.vision.layout.geometry import _geo
    from paiscan.vision.layout.surroundings import _face_turned

    dets = layout_boxes("123m456p789s1122z 2z", faces=True, face_sure=0.3)
    row = hand_row(dets).row
    g = _geo(dets)
    assert all(_face_turned(g, t.det, row) is False for t in row.tiles)
