"""paiscan.vision.layout: dead walls and someone's discards (ponds) around the hand, and the
indicators and gari among them; many cases are the models' output on a render or a photo
(``as_read`` tables)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from test_layout_helpers import as_read, hand_row, layout_boxes, names, render_dets

from paiscan.scoring.tiles import parse_tiles
from paiscan.vision.detection import Detection
from paiscan.vision.layout import RowTile
from paiscan.vision.reading import read_hand


def test_dead_wall_in_line_with_the_hand_is_cut_off_and_shows_the_indicator() -> None:
    dets = layout_boxes("??5p???? ~2 123m456p789s1122z 2z", faces=True)
    hr = hand_row(dets)
    assert hr.n_tiles == 14 and names(dets, hr.indicators) == ["5p"]
    assert names(dets, [hr.structures[0].win]) == ["2z"]


def test_a_dead_wall_whose_indicator_looks_sideways_is_still_cut_off() -> None:
    # as in renders (seed 990012, images 109 and 195): seen askew, the wall's indicator reads a
    # few degrees past 45° from the hand's faces; and (selection render 990011/780) a misread
    # indicator's face may read turned outright. Between backs it is no call mark: a called meld
    # shows three or four face-up tiles in a row
    dets = layout_boxes("??5p???? ~2 123m456p789s1122z 2z", faces=True)
    five = next(i for i, d in enumerate(dets) if d.name == "5p")
    for angle in (50.0, 90.0):
        askew = list(dets)
        askew[five] = replace(dets[five], face_angle=angle)
        hr = hand_row(askew)
        assert hr.n_tiles == 14 and names(askew, hr.indicators) == ["5p"]


def test_a_sure_call_mark_among_three_faces_keeps_a_run_of_backs_in_the_hand() -> None:
    # closed kans and a pon a gap beyond the concealed tiles: the pon's sideways tile says melds
    from paiscan.vision.layout.dead_wall import _wall_like

    def run(backs: str, sideways: int | None) -> list[RowTile]:
        return [
            RowTile(k, float(k), 0.0, 1.0, 0.75, k == sideways, c == "?", side_margin=3.0 if k == sideways else -3.0)
            for k, c in enumerate(backs)
        ]

    assert _wall_like(run("??x???", 2))  # an indicator turned, between backs
    assert not _wall_like(run("?xx??xxx", 5))  # face–back–back–face... then a pon, called from the left
    assert not _wall_like(run("??xxx?", 2))


def test_a_pond_beyond_a_dead_wall_is_not_indicators() -> None:
    wall = [(name, 2.0 + k * 1.02, 3.2) for k, name in enumerate(["1z", "1z", "7p", "1z", "1z"])]
    dets = layout_boxes("123m456p789s1122z 2z", extras=[*wall, ("3s", 12.0, 3.2)], faces=True)
    for k in (0, 1, 3, 4):  # face down
        dets[14 + k] = replace(dets[14 + k], cls=37, topk=((37, 0.97),), face_angle=None)
    hr = hand_row(dets)
    assert names(dets, hr.indicators) == ["7p"] and "3s" in names(dets, hr.unused)


def test_a_dead_wall_reaching_beyond_the_near_zone_gives_all_its_indicators() -> None:
    # as in a render (seed 990003, image 80): the dead wall lies far from the hand, only its first
    # indicator within the distance that counts as near the hand; players flip the indicators in
    # place, so the wall's faces are all indicators or none
    wall = [(name, -3.0 - 1.02 * k, 5.0) for k, name in enumerate(["1z", "1z", "6z", "4s", "8p", "1z", "1z"])]
    dets = layout_boxes("22333m24789p666z 3p", extras=wall, faces=True)
    for k in (14, 15, 19, 20):  # face down
        dets[k] = replace(dets[k], cls=37, topk=((37, 0.97),), face_angle=None)
    hr = hand_row(dets)
    assert hr.n_tiles == 14
    assert sorted(names(dets, hr.indicators)) == ["4s", "6z", "8p"]


def test_a_dead_wall_touching_the_hand_is_cut_off() -> None:
    # as in a render (seed 990004, image 232): the dead wall laid on from the winning tile, with
    # less than a tile's width between them
    dets = layout_boxes("123m456p789s1122z 2z ~0.3 ??3m5z2m??", faces=True)
    hr = hand_row(dets)
    assert hr.n_tiles == 14 and names(dets, hr.indicators) == ["3m", "5z", "2m"]
    assert names(dets, [hr.structures[0].win]) == ["2z"]


def test_closed_kans_at_the_row_end_are_no_dead_wall() -> None:
    # face-down tiles of closed kans side by side ("?99p? ?55z?") look like a wall's; every
    # face-down tile here belongs to a kan, so nothing is cut off
    dets = layout_boxes("5557m 7m ~0.1 ?44z? ~0.1 ?99p? ~0.1 ?55z? 8p", faces=True)
    hr = hand_row(dets)
    s = hr.structures[0]
    assert hr.n_tiles == 18 and len(s.melds) == 3 and names(dets, s.excluded) == ["8p"]


#: a render (seed 990011, image 129; its true boxes and face angles): eight concealed tiles, then
#: across a gap two closed kans side by side and the indicator just past them, a line of nine
KANS_APART = [
    ("3z", (331, 614, 387, 677), 7),
    ("3z", (375, 615, 431, 677), 7),
    ("4z", (420, 615, 473, 678), 6),
    ("4z", (464, 616, 516, 678), 5),
    ("4z", (508, 617, 558, 679), 3),
    ("6z", (552, 617, 601, 679), 3),
    ("6z", (597, 618, 643, 680), 2),
    ("3z", (648, 619, 693, 681), 2),
    ("?", (741, 620, 785, 682), 0),
    ("7z", (783, 621, 829, 682), -2),
    ("7z", (825, 621, 871, 683), -1),
    ("?", (867, 622, 914, 683), 0),
    ("?", (909, 622, 957, 684), 0),
    ("5z", (950, 623, 1000, 684), -3),
    ("5z", (991, 624, 1043, 685), -5),
    ("?", (1033, 624, 1086, 685), 0),
    ("4s", (1108, 638, 1164, 699), -6),
]


def test_closed_kans_in_a_longer_line_than_the_concealed_tiles_join_them() -> None:
    # the kans' line holds four backs, but all in closed kans: no dead wall, so it joins the hand
    # (before, the hand row held the eight concealed tiles alone: a wrong tile count, never scored)
    dets = render_dets(KANS_APART)
    assert hand_row(dets).n_tiles == 17
    hand = read_hand(dets).hand_dict()
    assert hand is not None and hand["hand"] == "3344466z" and hand["dora_indicators"] == ["4s"]
    assert sorted(m["tiles"] for m in hand["melds"] if not m["open"]) == ["5555z", "7777z"]


#: fresh render 990015/363 as the models read it: a dead wall (1s among six backs) laid in line with
#: the hand, left of it; 8p 8p 2s 2s 2s 0s 5s, the winning 8p, pons of 4z and 3z; a pond beyond
WALL_IN_LINE = [
    ("5s", (786, 335, 841, 401), 159),
    ("8p", (543, 397, 598, 464), -18),
    ("2s", (625, 376, 682, 443), -13),
    ("3z", (1143, 244, 1208, 308), -24),
    ("0s", (746, 345, 801, 412), -17),
    ("2s", (706, 355, 761, 423), -15),
    ("2s", (667, 365, 722, 433), -13),
    ("?", (269, 409, 323, 477), 0),
    ("8p", (584, 387, 638, 455), -17),
    ("4z", (976, 296, 1040, 353), 81),
    ("4z", (932, 298, 990, 363), -22),
    ("1s", (183, 430, 239, 498), -2),
    ("3z", (1106, 253, 1169, 317), -25),
    ("4z", (1020, 275, 1080, 340), -25),
    ("?", (139, 441, 196, 509), 0),
    ("8p", (843, 321, 899, 387), -21),
    ("?", (311, 398, 363, 466), 0),
    ("?", (351, 387, 406, 455), 0),
    ("?", (97, 451, 153, 520), 0),
    ("?", (227, 419, 281, 487), 0),
    ("3z", (1063, 273, 1128, 330), 81),
    ("4p", (611, 217, 672, 271), -100),
    ("6z", (514, 89, 572, 142), 76),
    ("2p", (557, 231, 616, 286), -101),
    ("7s", (605, 188, 665, 243), 74),
    ("4m", (525, 117, 585, 172), 71),
    ("5p", (539, 171, 600, 229), 75),
    ("3p", (546, 199, 611, 251), -103),
    ("4m", (528, 143, 590, 195), 76),
]


def test_the_hand_is_found_again_without_a_dead_wall_in_its_line() -> None:
    # the longest line ran through the wall, the hand's right end and the pons, missing the first
    # four concealed tiles; without the wall the line through the hand holds them
    dets = render_dets(WALL_IN_LINE)
    hr = hand_row(dets)
    assert hr.n_tiles == 14 and names(dets, hr.indicators) == ["1s"]
    hand = read_hand(dets).hand_dict()
    assert hand is not None and hand["hand"] == "88p22205s" and hand["win_tile"] == "8p"


def test_a_faint_back_by_closed_kans_does_not_make_them_a_dead_wall() -> None:
    # as in selection render 990013/148: a faint face-down box on the felt between the concealed
    # tiles and the kans (0.17 sure) gave the kans' line a fifth back that no kan holds; it was cut
    # off as a dead wall and the kans' faces read as indicators
    faint = Detection(37, 0.17, (690.0, 619.0, 745.0, 681.0), False, ((37, 0.27), (31, 0.11)), None, 0.9)
    dets = [*render_dets(KANS_APART), faint]
    hr = hand_row(dets)
    assert hr.n_tiles == 17 and len(dets) - 1 not in hr.row.dets
    hand = read_hand(dets).hand_dict()
    assert hand is not None and hand["hand"] == "3344466z" and hand["dora_indicators"] == ["4s"]
    assert sorted(m["tiles"] for m in hand["melds"] if not m["open"]) == ["5555z", "7777z"]


#: a render (seed 990011, image 163; its hand's true boxes and face angles, the sideways tiles' last):
#: 6s and the winning 6s, then pon 888s, chi 678m, chi 678m and an open kan of 2s, seen from 40°
#: with the faces' axes turning 75° along the row; four of the melds' thirteen tiles lie sideways
MANY_CALLS = [
    ("6s", (138, 655, 227, 732), -43),
    ("6s", (208, 640, 293, 717), -40),
    ("8s", (330, 610, 397, 694), 4),
    ("8s", (387, 607, 469, 682), 78),
    ("8s", (460, 581, 524, 666), -3),
    ("7m", (523, 576, 607, 653), 76),
    ("6m", (594, 551, 661, 636), -8),
    ("8m", (649, 539, 717, 624), -11),
    ("6m", (715, 534, 800, 610), 78),
    ("7m", (786, 508, 857, 593), -18),
    ("8m", (842, 495, 914, 580), -19),
    ("2s", (925, 486, 1014, 563), 77),
    ("2s", (994, 461, 1074, 546), -26),
    ("2s", (1051, 448, 1135, 533), -29),
    ("2s", (1108, 434, 1196, 520), -32),
]


def test_an_upright_face_among_many_sideways_ones_stays_upright() -> None:
    # the 8m between two sideways tiles: of its eight neighbours four lie sideways, and the mean of
    # their axes fell 45° off the upright ones, so it was read sideways and the melds split wrong
    dets = render_dets(MANY_CALLS)
    hr = hand_row(dets)
    assert [t.det for t in hr.row.tiles if t.sideways] == [3, 5, 8, 11]
    hand = read_hand(dets).hand_dict()
    assert hand is not None and hand["hand"] == "6s" and hand["win_tile"] == "6s"
    assert sorted(m["tiles"] for m in hand["melds"]) == ["2222s", "678m", "678m", "888s"]


# fresh render 990015/776 as the models read it: a pon of 3z at the row's end, its called tile's
# face measured 26° off its neighbours' (truly 50°, the camera tilted 60°); its box, wider along the
# row and turned by the crop, says sideways
STEEP_PON = [
    ("5p", (81, 528, 200, 627), 54.0, True),
    ("6p", (165, 544, 271, 643), 31.0, False),
    ("7p", (243, 561, 344, 660), 27.0, False),
    ("8p", (322, 576, 416, 675), 24.0, False),
    ("6s", (398, 589, 489, 691), 19.0, False),
    ("6s", (475, 608, 562, 706), 14.0, False),
    ("7s", (547, 622, 632, 722), 12.0, False),
    ("7s", (622, 637, 706, 738), 7.0, False),
    ("8s", (690, 652, 775, 752), -9.0, False),
    ("8s", (761, 666, 846, 768), -12.0, False),
    ("0p", (865, 691, 958, 789), -41.0, False),
    ("3z", (979, 729, 1098, 818), -50.0, True),
    ("3z", (1063, 740, 1167, 832), -24.0, False),
    ("3z", (1127, 756, 1233, 849), -29.0, False),
]


def test_a_box_that_looks_sideways_tips_a_face_read_a_little_turned() -> None:
    dets = [
        Detection(parse_tiles(n)[0], 0.9, tuple(map(float, box)), rot, ((parse_tiles(n)[0], 0.9),), face, 0.8)
        for n, box, face, rot in STEEP_PON
    ]
    # (the first tile's box and face lean the same way, unsurely: the reading weighs it and keeps it)
    assert [t.det for t in hand_row(dets).row.tiles if t.sideways] == [0, 11]
    hand = read_hand(dets).hand_dict()
    assert hand is not None and hand["win_tile"] == "0p" and [m["tiles"] for m in hand["melds"]] == ["333z"]
    assert hand["hand"] == "5678p667788s"
    # the same face read upright (its box square too) is no call mark: the hand then has no meld
    upright = [
        *dets[:11],
        replace(dets[11], box=(1000.0, 729.0, 1090.0, 818.0), rotated=False, face_angle=-30.0),
        *dets[12:],
    ]
    assert [t.det for t in hand_row(upright).row.tiles if t.sideways] == [0]


#: fresh render 990015/267 as the models read it (box, face angle, rotated, confidence, top-k
#: classes, face's top sure): 1s and the winning 1s; pon 777s, added kan 1111p, pon 055m and an
#: added kan of 6p, whose stacked 6p is read upright among the sideways faces near it; the
#: indicators 3z 7s 2p by someone's pond (a 5s of it upside down, touching it)
KANS_BY_A_POND = [
    (725, 587, 804, 677, 22, False, 0.92, "5m:0.98", 1.00),
    (257, 372, 337, 442, 57, False, 0.92, "7s:0.99", 0.94),
    (674, 562, 751, 651, 25, False, 0.88, "5m:0.96", 1.00),
    (362, 420, 442, 494, 46, False, 0.90, "7s:0.99", 1.00),
    (472, 470, 552, 549, 44, False, 0.89, "1p:0.98", 0.85),
    (301, 399, 388, 471, -66, True, 0.89, "7s:0.98", 1.00),
    (936, 683, 1015, 782, 1, False, 0.90, "6p:0.99", 1.00),
    (876, 656, 950, 752, 10, False, 0.86, "6p:0.95", 1.00),
    (601, 539, 695, 625, -63, False, 0.84, "0m:0.92 0p:0.02", 1.00),
    (424, 447, 504, 525, 44, False, 0.89, "1p:0.99", 0.90),
    (390, 327, 458, 385, 61, True, 0.88, "3z:0.97", 0.93),
    (170, 331, 252, 398, 68, True, 0.90, "1s:1.00", 0.89),
    (465, 361, 531, 419, 49, False, 0.89, "2p:0.99", 0.78),
    (128, 312, 210, 377, 67, True, 0.84, "1s:0.94 6z:0.01 7s:0.01", 0.91),
    (426, 345, 495, 403, 51, True, 0.80, "7s:0.90 5s:0.02 4s:0.01", 0.96),
    (800, 638, 892, 724, -67, False, 0.83, "6p:0.95 7p:0.01", 1.00),
    (423, 271, 482, 322, 63, True, 0.86, "7m:0.99", 0.93),
    (363, 247, 420, 294, 69, True, 0.79, "7m:0.92 9m:0.02 5m:0.01", 0.89),
    (523, 316, 586, 366, -127, True, 0.82, "5z:0.96", 0.46),
    (391, 257, 450, 305, 63, True, 0.35, "0s:0.41 0p:0.12 7p:0.05 7z:0.04 5z:0.03", 0.36),
    (519, 499, 613, 581, -71, False, 0.83, "1p:0.98", 0.10),
    (449, 259, 505, 308, 70, False, 0.33, "5z:0.40 7m:0.16 9p:0.10 3z:0.03 1z:0.02", 0.72),
    (457, 288, 519, 339, 51, True, 0.68, "9p:0.82 1p:0.05 6p:0.03 7p:0.02", 0.80),
    (491, 305, 554, 355, 68, True, 0.27, "2m:0.32 1m:0.32 3m:0.13 8m:0.05 5m:0.03", 0.90),
    (538, 480, 625, 552, -57, True, 0.83, "1p:1.00", 0.36),
    (483, 276, 540, 327, 44, False, 0.56, "1m:0.70 8m:0.15 2m:0.09 3m:0.02", 1.00),
    (532, 308, 598, 358, -107, True, 0.72, "5z:0.90 4p:0.06", 0.27),
    (410, 230, 470, 277, -109, True, 0.72, "5s:0.91 7s:0.03 3s:0.01", 0.51),
    (810, 606, 896, 679, -67, True, 0.76, "6p:0.99", 0.88),
    (507, 286, 568, 337, 54, True, 0.34, "6p:0.47 5z:0.12 9p:0.07 7p:0.06 3m:0.05", 0.93),
    (544, 302, 601, 347, None, True, 0.57, "4p:0.86 5z:0.10", 0.00),
    (415, 257, 475, 306, 71, True, 0.35, "7m:0.72 9m:0.04 5m:0.03 3m:0.02 6m:0.01", 0.90),
]


def test_a_stacked_tile_turned_as_its_base_is_stacked_whatever_its_own_judgement() -> None:
    # the stacked 6p's face lies 0.3° off its base's, but among four sideways neighbours it was
    # judged upright: it stayed in the row, a pon of 6p and a fourth 6p apart read as an indicator
    dets = as_read(KANS_BY_A_POND)
    hr = hand_row(dets)
    assert hr.row.stacked == (24, 28) and 28 not in hr.row.dets
    hand = read_hand(dets).hand_dict()
    assert hand is not None
    assert sorted((m["tiles"], m["added"]) for m in hand["melds"]) == [
        ("055m", False),
        ("1111p", True),
        ("6666p", True),
        ("777s", False),
    ]


def test_a_lone_tile_upside_down_to_the_hand_by_a_pond_is_the_ponds() -> None:
    # a 5s touching the pond's line, its top away from the pond's faces; players lay indicators
    # facing them, and it looks away from the hand's faces too: laid upside down in the pond
    dets = as_read(KANS_BY_A_POND)
    assert sorted(names(dets, hand_row(dets).indicators)) == ["2p", "3z", "7s"]
    hand = read_hand(dets).hand_dict()
    assert hand is not None and sorted(hand["dora_indicators"]) == ["2p", "3z", "7s"]


#: the models' reading of held-out classic render 990001/74: a hand, and left of it the indicators 8p
#: 7m beside someone's pond turned sideways to the hand (four of its tiles found), touching it
INDICATORS_BY_A_SIDEWAYS_POND = [
    (353, 421, 452, 520, 19, False, 0.92, "6p:0.97 0p:0.01", 1.00),
    (511, 423, 598, 522, 9, False, 0.88, "8p:0.93 0m:0.01", 0.83),
    (670, 423, 754, 525, -1, False, 0.91, "7s:0.97 0s:0.01", 1.00),
    (276, 420, 383, 519, 29, False, 0.87, "5m:0.92 0m:0.05", 1.00),
    (431, 422, 525, 521, 16, False, 0.90, "6p:0.96", 1.00),
    (591, 423, 674, 524, 5, False, 0.90, "8p:0.96", 0.77),
    (749, 425, 838, 525, -7, False, 0.90, "6z:0.97", 1.00),
    (201, 419, 311, 518, 31, False, 0.86, "0m:0.93 5m:0.05", 1.00),
    (900, 426, 1007, 528, -14, False, 0.82, "7z:0.88 1z:0.01 4s:0.01 4p:0.01", 0.97),
    (126, 420, 241, 515, -147, True, 0.89, "3m:0.97 5m:0.02", 0.85),
    (826, 425, 920, 526, -16, False, 0.88, "6z:0.96", 1.00),
    (1086, 425, 1211, 531, -32, True, 0.88, "7s:0.97 0s:0.01", 1.00),
    (49, 419, 170, 514, 35, True, 0.89, "3m:0.97 2m:0.01 0m:0.01", 0.98),
    (975, 427, 1088, 528, -24, False, 0.85, "7z:0.94", 1.00),
    (121, 297, 214, 370, 40, True, 0.87, "8p:0.97 2p:0.01", 0.95),
    (179, 299, 269, 370, 27, True, 0.87, "7m:0.97 6m:0.02", 1.00),
    (327, 242, 411, 301, -96, True, 0.80, "4p:0.93 3z:0.01 4z:0.01 5p:0.01 1s:0.01", 0.07),
    (400, 240, 488, 302, 88, True, 0.74, "2s:0.86 1m:0.05", 0.81),
    (383, 166, 458, 215, -109, True, 0.33, "6m:0.39 4s:0.11 6z:0.04 7s:0.04 4p:0.03", 0.46),
    (422, 206, 496, 266, 91, True, 0.25, "7m:0.33 1s:0.14 8s:0.07 6z:0.05 1z:0.05", 0.82),
]


def test_indicators_beside_a_sideways_pond_are_parted_from_it_though_one_looks_alike_upside_down() -> None:
    # the 8p's top counts only half as sure (it looks alike upside down), so only the 7m was peeled
    # off the pond and the pair, one cluster with it, was read as discards: no dora at all
    dets = as_read(INDICATORS_BY_A_SIDEWAYS_POND)
    assert sorted(names(dets, hand_row(dets).indicators)) == ["7m", "8p"]
    hand = read_hand(dets).hand_dict()
    assert hand is not None and sorted(hand["dora_indicators"]) == ["7m", "8p"]


@pytest.mark.parametrize(
    ("angles", "sideways"),
    [
        # MANY_CALLS' faces: the 8m (7) between two sideways tiles has four sideways neighbours of
        # eight, which pulled the mean of their axes 45° off; the axis most of them share stays upright
        ([-43, -40, 4, 78, -3, 76, -8, -11, 78, -18, -19, 77, -26, -29, -32], [3, 5, 8, 11]),
        # a standing face at the row's end (0°) beside two flat ones (50°, nearer the row's normal) and
        # a sideways one: one neighbour shares its axis, two another; the tie goes to its own
        ([0, 0, 50, 50, -40], [4]),
    ],
)
def test_a_faces_upright_reference_is_the_axis_its_neighbours_share(angles: list[float], sideways: list[int]) -> None:
    from paiscan.vision.layout.sideways import _local_axis_offsets

    a = np.array(angles, dtype=float)
    to_normal = np.where(np.abs(a - 50) < 30, 0.0, 60.0)  # only the flat faces' axis is off the normal
    offsets = _local_axis_offsets(a, np.arange(len(a), dtype=float), to_normal)
    assert [i for i, off in enumerate(offsets) if off > 45] == sideways
    assert all(off < 15 or off > 75 for off in offsets)  # each face near one of the two axes


def test_a_dead_wall_after_a_closed_kan_is_cut_off_after_the_kan() -> None:
    # as in a render (seed 990004, image 185): the wall touches the closed kan that ends the row
    dets = layout_boxes("46m678888p11s 0m ?99p? ~0.1 ???5z4p???", faces=True)
    hr = hand_row(dets)
    assert hr.n_tiles == 15 and names(dets, hr.indicators) == ["5z", "4p"]


def test_a_dead_wall_whose_end_stacks_lie_apart_is_one_wall() -> None:
    # as in a render (seed 990004, image 157): the wall's last stacks a little apart from it
    dets = layout_boxes("33666p33340s 3s ?66s? ~1.3 ??1p2s? ~1.3 ? ~1.3 ?", faces=True)
    hr = hand_row(dets)
    assert hr.n_tiles == 15 and names(dets, hr.indicators) == ["1p", "2s"]


def test_a_dead_wall_near_the_hand_gives_its_indicators_however_far_they_lie() -> None:
    # as in a render (seed 990004, image 129): the wall's nearest tile is near the hand, its one
    # indicator beyond the distance that counts as near
    wall = [(name, -2.5 - 1.02 * k, 0.0) for k, name in enumerate(["1z", "1z", "1z", "1z", "1z", "2m", "1z"])]
    dets = layout_boxes("22z 567p 567m 2'22m 1111s", extras=wall, faces=True, gap=0.3)
    for k in (15, 16, 17, 18, 19, 21):  # face down
        dets[k] = replace(dets[k], cls=37, topk=((37, 0.97),), face_angle=None)
    hr = hand_row(dets)
    assert names(dets, hr.indicators) == ["2m"]


def test_a_wall_of_doubtful_faces_does_not_hide_a_sure_indicator() -> None:
    # as in a fresh render (seed 990015, image 867): someone's discards cut by the photo's top edge
    # show slivers read as backs and doubtful faces, in a line like a dead wall's; the true
    # indicator, read surely, lay apart from it and was dropped (a dead wall shows the indicators)
    wall = [(name, 6.0 + 1.02 * k, 4.0) for k, name in enumerate(["1z", "4s", "1z", "5s", "1z", "6s"])]
    dets = layout_boxes("123m456p789s1122z 2z", extras=[("3p", 1.0, 2.6), *wall], faces=True)
    for k in range(len(dets) - 6, len(dets)):
        d = dets[k]
        dets[k] = (
            replace(d, cls=37, topk=((37, 0.4),), face_angle=None, confidence=0.3, cut=True)
            if d.cls == 27
            else replace(d, confidence=0.08, topk=((d.cls, 0.2),), cut=True)
        )
    hr = hand_row(dets)
    assert "3p" in names(dets, hr.indicators)


def test_a_line_of_strips_at_the_photo_s_edge_is_no_dead_wall() -> None:
    # as in a fresh render (seed 990015, image 192): the photo's top edge cuts a line of tiles to
    # strips a fifth of their height, read as backs and one doubtful face: taken for a dead wall,
    # its face was read as an indicator no one can see
    wall = [(name, 6.0 + 1.02 * k, 4.0) for k, name in enumerate(["1z", "1z", "4s", "1z"])]
    dets = layout_boxes("123m456p789s1122z 2z", extras=wall, faces=True)
    for k in range(len(dets) - 4, len(dets)):
        d = dets[k]
        strip = (d.box[0], d.box[1], d.box[2], d.box[1] + 0.25 * d.height)
        dets[k] = (
            replace(d, box=strip, cls=37, topk=((37, 0.6),), face_angle=None, cut=True)
            if d.cls == 27
            else replace(d, box=strip, confidence=0.1, topk=((d.cls, 0.2),), cut=True)
        )
    hr = hand_row(dets)
    assert hr.n_tiles == 14 and names(dets, hr.indicators) == []


def test_a_doubtful_tile_apart_is_no_indicator() -> None:
    # as on a real photo (hand_010 of the supplement): "tiles" found on bare felt, read 0.13 and 0.14
    dets = layout_boxes("123m456p789s1122z 2z", extras=[("3p", 2.0, 3.2), ("8s", 6.0, 3.4)], faces=True)
    dets[-1] = replace(dets[-1], confidence=0.13, topk=((dets[-1].cls, 0.17),))
    hr = hand_row(dets)
    assert names(dets, hr.indicators) == ["3p"] and "8s" in names(dets, hr.unused)


@pytest.mark.parametrize(("share", "indicator"), [(0.45, False), (0.55, True)])
def test_a_tile_apart_the_classifier_more_likely_takes_for_no_tile_is_no_indicator(
    share: float, indicator: bool
) -> None:
    # felt above a real rack read as 6s with a sure box (0.6), but most of the classifier's
    # probability on "not a tile": its top-k sums to under one half
    dets = layout_boxes("123m456p789s1122z 2z", extras=[("3p", 2.0, 3.2), ("6s", 6.0, 3.4)], faces=True)
    dets[-1] = replace(dets[-1], confidence=0.6 * share, topk=((dets[-1].cls, share - 0.05), (22, 0.05)))
    hr = hand_row(dets)
    assert names(dets, hr.indicators) == (["3p", "6s"] if indicator else ["3p"])


def test_discards_touching_the_dead_wall_are_no_indicators() -> None:
    # as in a render (seed 990003, image 131): a short row of discards lies against the dead wall;
    # the wall's face-up tile is the indicator, the discards are not
    wall = [(name, 2.0 + k * 1.02, 3.2) for k, name in enumerate(["1z", "1z", "2p", "1z", "1z", "1z", "1z"])]
    pond = [(t, 3.6 + 1.05 * k, 4.6) for k, t in enumerate(["4z", "6m", "7m"])]
    dets = layout_boxes("0577p99s2235577z 3z", extras=[*wall, *pond], faces=True)
    for k in (14, 15, 17, 18, 19, 20):  # face down
        dets[k] = replace(dets[k], cls=37, topk=((37, 0.97),), face_angle=None)
    hr = hand_row(dets)
    assert names(dets, hr.indicators) == ["2p"]
    assert {"4z", "6m", "7m"} <= set(names(dets, hr.unused))


@pytest.mark.parametrize(
    ("wall_names", "found", "indicators"),
    [
        # as in a held-out render (seed 990001, image 189): lines through someone's discards beside
        # the wall cut it in three; the piece found first holds one of its three indicators
        (["1z", "1z", "6s", "2z", "6s", "1z", "1z"], 3, ["2z", "6s", "6s"]),
        # discards laid on past the wall's last stack are no indicators
        (["1z", "1z", "6s", "1z", "1z", "4z", "6m"], 3, ["6s"]),
    ],
)
def test_a_dead_wall_goes_on_through_the_tiles_touching_it_to_its_last_back(
    wall_names: list[str], found: int, indicators: list[str]
) -> None:
    from paiscan.vision.layout.dead_wall import _DeadWall, _extend_wall
    from paiscan.vision.layout.geometry import _geo

    wall = [(name, 2.0 + k * 1.02, 3.2) for k, name in enumerate(wall_names)]
    dets = layout_boxes("123m456p789s1122z 2z", extras=wall, faces=True)
    for k, name in enumerate(wall_names):
        if name == "1z":  # face down
            dets[14 + k] = replace(dets[14 + k], cls=37, topk=((37, 0.97),), face_angle=None)
    piece = _DeadWall(frozenset({14 + found - 1}), tuple(range(14, 14 + found)))
    whole = _extend_wall(_geo(dets), piece, set())
    assert sorted(names(dets, whole.faces)) == indicators
    assert "4z" not in names(dets, whole.tiles)


@pytest.mark.parametrize(
    ("faces", "wall"),
    [
        (["4s", "6m", "5z", "8m", "7m"], True),  # the dora indicator and four for kans: the most there are
        (["4s", "6m", "5z", "8m", "7m", "8m"], False),  # held-out render 990001/412: backs on into discards
    ],
)
def test_a_dead_wall_shows_at_most_five_faces(faces: list[str], wall: bool) -> None:
    from paiscan.vision.layout.dead_wall import _dead_walls
    from paiscan.vision.layout.geometry import _geo, _Line

    tiles = [(name, 2.0 + k * 1.02, 3.2) for k, name in enumerate(["1z", "1z", *faces])]
    dets = layout_boxes("123m456p789s1122z 2z", extras=tiles, faces=True)
    for k in (14, 15):  # face down
        dets[k] = replace(dets[k], cls=37, topk=((37, 0.97),), face_angle=None)
    members = list(range(14, len(dets)))
    line = _Line(members, np.array([1.0, 0.0]), np.array(dets[14].centre), {})
    assert len(_dead_walls(_geo(dets), [line], [False] * len(dets))) == int(wall)


def test_a_cluster_in_two_rows_is_a_pond() -> None:
    # indicators lie in the dead wall's one line; discards lie in rows of six
    pond = [(t, 8.0 + 1.05 * k, 4.0) for k, t in enumerate(["4s", "5s", "6s"])] + [
        (t, 8.0 + 1.05 * k, 5.4) for k, t in enumerate(["7s", "8s"])
    ]
    dets = layout_boxes("123m456p789s1122z 2z", extras=[("3p", 2.0, 3.2), *pond], faces=True)
    hr = hand_row(dets)
    assert names(dets, hr.indicators) == ["3p"] and names(dets, sorted(hr.unused)) == ["4s", "5s", "6s", "7s", "8s"]


def test_a_tile_touching_a_row_of_discards_is_the_next_row_of_the_pond() -> None:
    # as in a render (seed 990003, image 181): a full pond row, and one tile of its second row
    pond = [(t, 6.0 + 1.05 * k, 4.5) for k, t in enumerate(["1s", "2s", "3s", "4s", "5s", "6s"])]
    dets = layout_boxes("123m456p789s1122z 2z", extras=[("3p", 1.0, 3.2), *pond, ("7m", 6.0, 5.9)], faces=True)
    hr = hand_row(dets)
    assert names(dets, hr.indicators) == ["3p"] and "7m" in names(dets, hr.unused)


def test_a_tile_by_a_pond_whose_top_is_a_guess_is_the_pond_s_too() -> None:
    # as in a render (seed 990004, image 198): a pond tile cut by the photo's edge, its top read
    # the other way round with no certainty (face_sure 0.02)
    pond = [(t, 6.0 + 1.05 * k, 4.5) for k, t in enumerate(["1s", "2s", "3s", "4s", "5s", "6s"])]
    dets = layout_boxes("123m456p789s1122z 2z", extras=[("3p", 1.0, 3.2), *pond, ("7m", 6.0, 5.9)], faces=True)
    guess = replace(dets[-1], face_angle=-150.0, face_sure=0.02)
    hr = hand_row([*dets[:-1], guess])
    assert names(dets, hr.indicators) == ["3p"] and "7m" in names(dets, hr.unused)


def test_indicators_beside_someone_elses_pond_stay_indicators() -> None:
    # as in a render (seed 990003, image 7): the pond across faces its owner, the indicators below
    # it face the player
    pond = [(t + "!", 6.0 + 1.05 * k, 5.0) for k, t in enumerate(["1s", "2s", "3s", "4s", "5s", "6s"])]
    indicators = [(t, 6.0 + 1.05 * k, 3.6) for k, t in enumerate(["3p", "2m", "3s"])]
    dets = layout_boxes("123m456p789s1122z 2z", extras=[*pond, *indicators], faces=True)
    hr = hand_row(dets)
    assert names(dets, hr.indicators) == ["3p", "2m", "3s"]


@pytest.mark.parametrize(("u", "v", "indicator"), [(9.0, 3.3, True), (11.15, 4.8, False)])
def test_an_upright_tile_by_a_turned_pond_is_peeled_off_only_apart_from_it(u: float, v: float, indicator: bool) -> None:
    # as in a render (seed 990011, image 105): the indicator lies by the pond across (its tiles
    # upside down), near enough to cluster with it but not touching it; an upright face within the
    # pond's rows (a round face whose top the classifier guessed) stays the pond's
    pond = [(t + "!", 8.0 + 1.05 * k, 4.8) for k, t in enumerate(["4s", "5s", "6s"])] + [
        (t + "!", 8.0 + 1.05 * k, 6.15) for k, t in enumerate(["7s", "8s"])
    ]
    dets = layout_boxes("123m456p789s1122z 2z", extras=[*pond, ("3p", u, v)], faces=True)
    hr = hand_row(dets)
    assert names(dets, hr.indicators) == (["3p"] if indicator else [])
    assert {"4s", "5s", "6s", "7s", "8s"} <= set(names(dets, hr.unused))


@pytest.mark.parametrize(("near", "indicators"), [(["3p", "2m"], ["3p", "2m"]), (["3p", "2m", "7p", "1z"], [])])
def test_indicators_between_the_hand_and_a_pond_touching_them_stay_indicators(
    near: list[str], indicators: list[str]
) -> None:
    # as in renders (seed 990012, images 253, 336): the indicators touch the discards beyond them,
    # and the cluster lies in rows; the few tiles nearest the hand, a row short of the rest, are
    # the indicators. Four there are the pond's first row.
    pond = [(t, 8.0 + 1.05 * k, 4.7) for k, t in enumerate(["4s", "5s", "6s", "7s"])] + [
        (t, 8.0 + 1.05 * k, 6.05) for k, t in enumerate(["8s", "9s"])
    ]
    dets = layout_boxes(
        "123m456p789s1122z 2z", extras=[*pond, *((t, 8.0 + 1.05 * k, 3.2) for k, t in enumerate(near))], faces=True
    )
    hr = hand_row(dets)
    assert names(dets, hr.indicators) == indicators
    assert {"4s", "5s", "6s", "7s", "8s", "9s"} <= set(names(dets, hr.unused))


INDICATORS_BEFORE_A_POND = [
    ("4s", (798, 334, 869, 426), 6),
    ("0s", (710, 337, 803, 418), 89),
    ("6s", (862, 342, 936, 435), 4),
    ("6z", (465, 289, 541, 385), -3),
    ("8m", (1061, 364, 1152, 459), -8),
    ("8m", (997, 356, 1077, 451), -5),
    ("6z", (554, 299, 629, 397), 0),
    ("6z", (405, 284, 483, 378), -6),
    ("?", (929, 348, 1004, 444), 0),
    ("?", (1134, 372, 1232, 472), 0),
    ("2s", (288, 270, 370, 365), -12),
    ("1p", (132, 258, 218, 344), -17),
    ("2s", (342, 275, 427, 371), -9),
    ("4m", (368, 163, 433, 220), 43),
    ("7z", (306, 100, 367, 149), 76),
    ("3p", (234, 265, 321, 360), -12),
    ("2p", (184, 261, 269, 350), -10),
    ("8s", (453, 107, 518, 161), 57),
    ("5z", (494, 110, 557, 163), 0),
    ("6p", (413, 103, 472, 159), 40),
    ("4z", (377, 103, 434, 155), 43),
    ("3z", (340, 101, 397, 154), 46),
    ("4s", (503, 93, 566, 152), 33),
    ("7m", (472, 90, 532, 144), 41),
    ("3z", (344, 75, 404, 126), 68),
    ("3s", (412, 166, 481, 224), 41),
    ("5p", (394, 66, 454, 116), 34),
    ("1s", (433, 74, 492, 125), 54),
    ("7s", (352, 66, 409, 116), 44),
]


def test_indicators_before_a_pond_with_felt_between_are_not_its_next_row() -> None:
    # as in a render (seed 990012, image 450; the models' boxes): a steep photo, the player's own
    # pond in rows a third of a tile's size apart, the two indicators laid before it a gap of felt
    # (over twice that) away, touching its front row by the centres: they were read as its next
    # row, and the hand scored with no dora
    dets = render_dets(INDICATORS_BEFORE_A_POND)
    hr = hand_row(dets)
    assert names(dets, hr.indicators) == ["4m", "3s"]
    assert {"3z", "4z", "6p", "8s", "5z", "7s"} <= set(names(dets, hr.unused))


INDICATOR_BEFORE_A_LOOSE_POND = [
    ("4s", (585, 323, 636, 392), -5),
    ("4s", (441, 336, 496, 405), -7),
    ("2s", (632, 318, 684, 387), -2),
    ("9m", (347, 258, 396, 312), 10),
    ("2s", (393, 339, 447, 409), -7),
    ("4s", (677, 314, 731, 382), -3),
    ("?", (927, 298, 987, 359), 0),
    ("7p", (342, 344, 401, 414), -12),
    ("2s", (736, 310, 789, 378), 4),
    ("7p", (292, 349, 356, 419), -12),
    ("4s", (538, 327, 590, 396), -6),
    ("7p", (242, 352, 306, 424), -14),
    ("8p", (884, 302, 945, 362), -21),
    ("3s", (489, 330, 543, 400), -9),
    ("9m", (1077, 268, 1143, 323), -30),
    ("8p", (840, 306, 901, 366), -20),
    ("1p", (544, 178, 586, 225), 0),
    ("?", (800, 310, 857, 370), 0),
    ("0m", (1039, 272, 1105, 327), -24),
    ("2z", (368, 145, 410, 188), 4),
    ("5z", (400, 189, 441, 237), 4),
    ("7z", (545, 153, 583, 195), 2),
    ("9p", (404, 142, 442, 183), 3),
    ("1p", (437, 187, 476, 234), 4),
    ("4p", (359, 195, 404, 240), 11),
    ("2p", (473, 182, 511, 230), 179),
    ("1s", (506, 181, 545, 227), 3),
    ("7s", (401, 164, 442, 209), 5),
    ("6s", (506, 159, 545, 204), -6),
    ("1s", (440, 139, 479, 182), -3),
    ("6z", (474, 138, 512, 177), -5),
    ("0s", (362, 171, 403, 212), 6),
    ("7z", (439, 164, 476, 207), 1),
    ("3p", (471, 159, 509, 205), 168),
]


def test_an_indicator_before_a_pond_in_short_rows_is_parted_from_it_by_the_felt() -> None:
    # as in a render (seed 990013, image 272; the models' boxes): Totenko's manzu indicator laid
    # a tile in front of a pond whose short rows make no background line, so the two made one
    # cluster apart, in rows; the pond faces as the hand does, and the hand was scored with no dora
    dets = render_dets(INDICATOR_BEFORE_A_LOOSE_POND)
    hr = hand_row(dets, "totenko_balance")
    assert names(dets, sorted(hr.apart)) == ["9m"]


def test_a_cluster_turned_away_from_the_hand_is_a_pond() -> None:
    pond = [("3s!", 10.0, 3.5), ("5s!", 11.05, 3.5), ("7s!", 12.1, 3.5)]
    dets = layout_boxes("123m456p789s1122z 2z", extras=[("3p", 2.0, 3.2), *pond], faces=True)
    hr = hand_row(dets)
    assert names(dets, hr.indicators) == ["3p"] and names(dets, sorted(hr.unused)) == ["3s", "5s", "7s"]


@pytest.mark.parametrize(
    ("skew", "indicators"), [(55.0, ["4s", "5s", "6s"]), (-55.0, ["4s", "5s", "6s"]), (80.0, []), (-85.0, [])]
)
def test_faces_skewed_by_perspective_are_not_turned_but_faces_along_the_row_are(
    skew: float, indicators: list[str]
) -> None:
    # as in renders (seed 990011, images 220 and 519; 990013, image 15): flat indicators by a
    # standing hand, the camera rolled, their tops 50-55° off the row's normal; a pond turned
    # sideways on the table shows its tops along the row (80-90° off)
    extras = [("4s", 10.0, 3.5), ("5s", 11.05, 3.5), ("6s", 12.1, 3.5)]
    dets = layout_boxes("123m456p789s1122z 2z", extras=extras, faces=True)
    dets[-3:] = [replace(d, face_angle=skew) for d in dets[-3:]]
    hr = hand_row(dets)
    assert names(dets, hr.indicators) == indicators


@pytest.mark.parametrize(
    ("beyond", "indicators"),
    [
        (None, ["3p"]),  # alone near the hand: the indicator
        (0.97, []),  # running on into a tile beyond the near zone: the near end of someone's discards
        (0.1, ["3p"]),  # ... unless that tile is doubtful (on real photos mostly felt)
    ],
)
def test_a_group_running_on_beyond_the_near_zone_is_a_pond(beyond: float | None, indicators: list[str]) -> None:
    extras = [("3p", 4.0, 7.0)] + ([("6s", 4.0, 8.4)] if beyond is not None else [])
    dets = layout_boxes("123m456p789s1122z 2z", extras=extras)
    if beyond is not None:
        dets[-1] = replace(dets[-1], confidence=beyond)
    hr = hand_row(dets)
    assert names(dets, hr.indicators) == indicators
    if beyond is not None:
        assert "6s" not in names(dets, hr.apart)  # beyond the near zone whatever it is
