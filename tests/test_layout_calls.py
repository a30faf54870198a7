"""paiscan.vision.layout: call marks (sideways tiles judged by face and box, unsure judgements read
reversed), stacked tiles and added kans, from the models' output on renders (``as_read`` tables)."""

from __future__ import annotations

from dataclasses import replace

import pytest
from test_layout_helpers import as_read, hand_row, layout_boxes, render_dets

from paiscan.scoring.tiles import parse_tiles
from paiscan.vision import reading
from paiscan.vision.detection import Detection
from paiscan.vision.reading import read_hand

#: the models' reading of held-out classic render 990001/198: the 6z pair, a chi of 678p and pons
#: of 1p, 5z and 2m, all called; the called 1p's and 5z's faces are round or blank (their sideways
#: judgements guessed, equally unsure), the called 5z's box plainly sideways
ALL_CALLED_ROUND_FACES = [
    (548, 539, 622, 630, -11, False, 0.88, "8p:0.94", 0.89),
    (180, 610, 268, 707, 5, False, 0.89, "6z:0.95 5m:0.01", 0.99),
    (486, 552, 558, 644, -5, False, 0.91, "6p:0.98", 1.00),
    (761, 496, 839, 584, -18, False, 0.81, "1p:0.87 4p:0.01 0s:0.01 8s:0.01 8p:0.01", 0.57),
    (701, 508, 779, 597, -15, False, 0.85, "1p:0.91 0s:0.01 4p:0.01 8s:0.01", 0.71),
    (400, 576, 495, 662, -101, False, 0.92, "7p:1.00", 1.00),
    (1084, 433, 1174, 513, -32, False, 0.90, "2m:0.98", 1.00),
    (628, 530, 718, 612, -100, False, 0.85, "1p:0.92", 0.34),
    (890, 471, 972, 556, -26, False, 0.81, "5z:0.88 3m:0.01 2m:0.01 0m:0.01 1z:0.01", 0.97),
    (255, 596, 335, 694, 3, False, 0.88, "6z:0.95 5m:0.01", 1.00),
    (949, 468, 1043, 542, -32, True, 0.85, "5z:0.94", 0.69),
    (1134, 422, 1228, 500, -37, True, 0.87, "2m:0.97 4m:0.01", 1.00),
    (1025, 452, 1124, 525, -102, True, 0.89, "2m:0.98", 1.00),
    (831, 480, 912, 568, -21, False, 0.75, "5z:0.83 2m:0.01 6m:0.01 3m:0.01 1z:0.01", 0.92),
    (156, 471, 237, 555, 8, False, 0.86, "9p:0.96 0s:0.01", 0.74),
]


def test_of_equally_unsure_sideways_judgements_those_the_box_contradicts_are_read_reversed_first() -> None:
    # six guessed judgements tied; the three nearest the row's start were tried reversed and the
    # called 5z, read upright, was not: no reading made a winning hand, and a called 7p was then
    # taken as upright
    dets = as_read(ALL_CALLED_ROUND_FACES)
    hand = read_hand(dets).hand_dict()
    assert hand is not None and hand["hand"] == "6z" and hand["win_tile"] == "6z"
    assert sorted((m["type"], m["tiles"]) for m in hand["melds"]) == [
        ("chi", "678p"),
        ("pon", "111p"),
        ("pon", "222m"),
        ("pon", "555z"),
    ]


@pytest.mark.parametrize(
    ("spec", "kinds"),
    [
        ("123m456p789s1z 1z ~0.8 ?2'2z?", ["closed_kan"]),  # a face between backs reads turned
        ("123m1z 1z ~0.8 ?2'2z? ?3'3z? 5'55p", ["closed_kan", "closed_kan", "call"]),  # ... a pon's mark stays
    ],
)
def test_a_face_between_backs_that_reads_sideways_is_no_call_mark(spec: str, kinds: list[str]) -> None:
    # as in a fresh render (seed 990015, image 916): a closed kan's face, seen steeply, read as
    # lying sideways, and no reading of the row was left. A called meld shows three face-up tiles
    # in a row; between backs fewer are a closed kan's (or a dead wall's)
    dets = layout_boxes(spec)
    hr = hand_row(dets)
    assert hr.structures and [m.kind for m in hr.structures[0].melds] == kinds


#: selection render 990014/252 as the models read it (Kansai Boo; see :func:`as_read`): the
#: concealed tiles, 3s apart, chi 345s and an added kan of 6m; a dead wall far off in line with the
#: concealed tiles
KAN_AFTER_A_BENT_ROW = [
    (766, 420, 818, 485, -9, False, 0.88, "6m:0.96", 1.00),
    (912, 327, 967, 390, None, False, 0.89, "?:0.97", 0.00),
    (404, 482, 458, 550, -3, False, 0.81, "4z:0.90 1z:0.01", 1.00),
    (449, 474, 504, 542, -7, False, 0.89, "3s:0.98", 1.00),
    (180, 519, 241, 587, -8, False, 0.87, "4p:0.96", 0.84),
    (955, 317, 1011, 380, None, False, 0.88, "?:0.97", 0.00),
    (316, 497, 373, 564, -9, False, 0.76, "4z:0.84 4p:0.01", 1.00),
    (722, 430, 775, 494, -11, False, 0.87, "6m:0.97", 1.00),
    (271, 505, 329, 572, -7, False, 0.84, "3s:0.94", 1.00),
    (617, 444, 672, 511, -11, False, 0.87, "5s:0.97", 0.79),
    (1039, 303, 1101, 369, None, False, 0.86, "?:0.96", 0.00),
    (998, 310, 1054, 376, -11, False, 0.83, "3m:0.94", 1.00),
    (227, 512, 286, 578, -5, False, 0.67, "5p:0.76 9p:0.05 5s:0.02 3p:0.01 7z:0.01", 0.56),
    (362, 490, 417, 557, -8, False, 0.64, "4z:0.72 4p:0.02 7s:0.02 9m:0.01 2z:0.01", 1.00),
    (574, 452, 630, 521, -9, False, 0.85, "3s:0.96", 1.00),
    (1083, 295, 1146, 363, None, False, 0.84, "?:0.95", 0.00),
    (1171, 280, 1234, 347, None, False, 0.84, "?:0.96", 0.00),
    (134, 525, 198, 593, -3, False, 0.85, "3p:0.97", 0.24),
    (522, 477, 586, 528, -102, True, 0.84, "4s:0.97", 0.97),
    (669, 445, 731, 504, -98, False, 0.85, "6m:0.98", 0.97),
    (1125, 288, 1190, 354, None, False, 0.81, "?:0.95", 0.00),
    (660, 408, 722, 458, -101, True, 0.75, "6m:0.96", 1.00),
]


def test_a_stacked_tile_is_found_on_a_tile_that_joined_the_row_late() -> None:
    # the first line ran through the concealed tiles, the kan's stacked 6m and the far dead wall;
    # the stacked 6m took the kan's called 6m onto it, and both were let go as far; the melds made
    # a line of their own, the stacked 6m rejoined it alone and the kan read as a pon
    dets = as_read(KAN_AFTER_A_BENT_ROW)
    hand = read_hand(dets, "kansai_boo").hand_dict()
    assert hand is not None
    assert sorted((m["tiles"], m["added"]) for m in hand["melds"]) == [("345s", False), ("6666m", True)]


#: selection render 990012/908 as the models read it (see :func:`as_read`): 2s and the winning 2s,
#: pons of 5z, 3p and 8m, and at the row's end an added kan of 6z called from the right, its pair
#: of sideways 6z one on the other; a dead wall behind
ADDED_KAN_AMONG_CALLS = [
    (769, 293, 843, 372, -38, False, 0.90, "3p:0.97", 1.00),
    (542, 385, 627, 464, -111, False, 0.70, "8m:0.75 9m:0.12 5m:0.05 6m:0.04", 1.00),
    (655, 338, 728, 417, -38, False, 0.88, "8m:0.96", 1.00),
    (199, 423, 263, 497, None, False, 0.90, "?:0.98", 0.00),
    (824, 278, 908, 350, 70, True, 0.91, "3p:0.99", 0.18),
    (604, 357, 678, 437, -32, False, 0.87, "8m:0.95 6m:0.01", 1.00),
    (454, 415, 537, 498, -108, False, 0.89, "5z:0.97", 0.15),
    (402, 433, 474, 518, -19, False, 0.89, "5z:0.98", 0.31),
    (350, 453, 421, 539, -18, False, 0.89, "5z:0.99", 0.17),
    (719, 312, 794, 392, -37, False, 0.89, "3p:0.98", 1.00),
    (947, 224, 1025, 301, -40, False, 0.87, "6z:0.97", 0.96),
    (900, 244, 979, 319, -40, False, 0.88, "6z:0.98", 1.00),
    (183, 514, 255, 604, -1, False, 0.82, "2s:0.91", 0.95),
    (342, 369, 406, 444, None, False, 0.88, "?:0.99", 0.00),
    (295, 388, 359, 465, None, False, 0.87, "?:0.98", 0.00),
    (389, 353, 453, 428, None, False, 0.88, "?:0.99", 0.00),
    (436, 337, 500, 412, None, False, 0.87, "?:0.98", 0.00),
    (246, 408, 309, 486, -12, False, 0.80, "2m:0.90 3m:0.03 1m:0.03", 1.00),
    (260, 489, 332, 574, -9, False, 0.86, "2s:0.97", 0.96),
    (147, 441, 217, 520, None, False, 0.83, "?:0.98", 0.00),
    (996, 208, 1089, 282, -110, True, 0.81, "6z:0.97", 0.83),
    (983, 188, 1069, 252, -115, True, 0.82, "6z:0.99", 0.92),
]


def test_two_tiles_one_on_the_other_at_the_row_end_are_an_added_kan() -> None:
    # the pair's faces lie 70° off the upright 6z beside them, but of their neighbours more lie
    # sideways than upright, so each was judged upright against those; the kan's four 6z were
    # then read as concealed tiles and nothing fitted
    dets = as_read(ADDED_KAN_AMONG_CALLS)
    hand = read_hand(dets).hand_dict()
    assert hand is not None and hand["hand"] == "2s" and hand["win_tile"] == "2s"
    kans = [m for m in hand["melds"] if m["type"] == "kan"]
    assert [(m["tiles"], m["added"], m["from"]) for m in kans] == [("6666z", True, "right")]


@pytest.mark.parametrize("cut", [False, True])
def test_a_tile_the_frame_cuts_marks_a_call_only_unsurely(cut: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    # as in a fresh render (seed 990017, image 94): the frame cuts the row's first tile, whose
    # face, read on part of it, looked 98° off its neighbours'; as a sure call mark it made the
    # concealed tiles a meld, and no reading fitted (the reading's last resort, a sideways face
    # turned upright, would now read it too: it is off here)
    monkeypatch.setattr(reading.resorts, "TURN_TRIES", 0)
    dets = layout_boxes("22p55z 5z 2'22z 4'44m 3'33z", faces=True)
    x1, y1, x2, y2 = dets[0].box
    dets[0] = replace(dets[0], box=(x1 + (x2 - x1) * 0.3, y1, x2, y2), face_angle=-98.0, face_sure=0.46, cut=cut)
    hand = read_hand(dets).hand_dict()
    assert hand is not None
    read_right = hand["hand"] == "22p55z" and sorted(m["tiles"] for m in hand["melds"]) == ["222z", "333z", "444m"]
    assert read_right == cut


# fresh render 990016/174 as the models read it (Totenko): an added kan of 8p at the row's end
# under a steep camera; the stacked 8p (the last box) lies a little along the row from its base,
# as the table's depth runs askew to the row's normal in the image
STEEP_ADDED_KAN = [
    ("8s", (209, 772, 332, 916), -27),
    ("8s", (275, 719, 398, 858), -33),
    ("8s", (339, 670, 460, 803), -31),
    ("2z", (404, 619, 521, 748), -36),
    ("2z", (466, 566, 584, 692), -42),
    ("2z", (526, 519, 644, 643), -44),
    ("3z", (583, 473, 701, 592), -45),
    ("3z", (655, 413, 771, 533), -50),
    ("?", (755, 336, 871, 446), 0),
    ("7z", (805, 294, 918, 405), -48),
    ("7z", (855, 252, 969, 360), -57),
    ("?", (906, 211, 1022, 317), 0),
    ("8p", (972, 155, 1090, 253), -57),
    ("8p", (1041, 112, 1150, 211), 59),
    ("8p", (1084, 70, 1197, 159), -64),
    ("8p", (988, 90, 1097, 185), 64),
    ("1m", (144, 492, 244, 598), -25),
]


def test_a_stacked_tile_is_sought_along_the_tables_depth_not_the_rows_normal() -> None:
    # measured along the row's normal it lay 0.40 of its base's width along the row, past
    # STACK_U_TOL; along the neighbours' faces (the table's depth) 0.1: the kan read as a pon
    dets = render_dets(STEEP_ADDED_KAN)
    row = hand_row(dets, "totenko_balance").row
    assert {t.det: t.stacked for t in row.tiles if t.stacked is not None} == {13: 15}
    hand = read_hand(dets, rules="totenko_balance").hand_dict()
    assert hand is not None and hand["hand"] == "888s2223z" and hand["dora_indicators"] == ["1m"]
    assert sorted((m["tiles"], m["added"]) for m in hand["melds"]) == [("7777z", False), ("8888p", True)]


# fresh render 990019/97 as the models read it: an added kan of 4z whose stacked tile (the 4z
# at (560, 515)) lies so near its base under a steep camera that the hand's line takes it in, and
# a third box (the last) on the pair
STACKED_IN_THE_LINE = [
    ("6p", (221, 659, 281, 734), 1),
    ("6p", (268, 641, 332, 719), -1),
    ("7z", (803, 445, 872, 518), -34),
    ("8m", (319, 621, 386, 698), -1),
    ("8m", (119, 692, 182, 771), 10),
    ("4z", (666, 497, 734, 571), -25),
    ("6p", (169, 675, 231, 756), 8),
    ("?", (711, 480, 777, 551), 0),
    ("7z", (759, 462, 825, 535), -32),
    ("3z", (452, 575, 516, 650), 164),
    ("3z", (408, 590, 470, 665), -18),
    ("2m", (933, 359, 1005, 425), -43),
    ("?", (848, 429, 923, 501), 0),
    ("3z", (502, 561, 574, 631), 68),
    ("4z", (619, 514, 684, 588), -29),
    ("4z", (562, 541, 630, 609), 68),
    ("4z", (560, 515, 628, 578), 72),
    ("4z", (575, 522, 655, 596), 86),
]


def test_a_stacked_tile_the_hands_line_took_in_is_taken_off_it_onto_its_base() -> None:
    # both sideways 4z were row tiles side by side: a call of 3z, 4z, 4z read as five 4z in all
    dets = render_dets(STACKED_IN_THE_LINE)
    row = hand_row(dets).row
    assert 16 not in row.dets and {t.det: t.stacked for t in row.tiles}.get(15) == 16
    hand = read_hand(dets).hand_dict()
    assert hand is not None and hand["hand"] == "8m666p" and hand["win_tile"] == "8m"
    assert sorted((m["tiles"], m["added"]) for m in hand["melds"]) == [
        ("333z", False),
        ("4444z", True),
        ("7777z", False),
    ]


# selection render 990011/937 as the models read it: a row near 45° (the boxes cannot be turned),
# the 1p of a chi with no face angle (a round face has no axis) and the rotated flag as its only
# mark; judged surely from the flag, no reading made a winning hand
DIAGONAL_ROUND_CALL = [
    ("6s", (340, 611, 431, 705), -40, False),
    ("7s", (387, 572, 479, 665), -55, False),
    ("8s", (479, 496, 571, 584), -50, False),
    ("8s", (546, 440, 639, 527), -41, False),
    ("4m", (109, 733, 202, 828), -29, False),
    ("3p", (918, 142, 1003, 221), 42, False),
    ("8s", (432, 531, 523, 624), -56, False),
    ("4m", (776, 257, 863, 340), -127, False),
    ("2p", (991, 79, 1080, 149), -64, True),
    ("3m", (858, 188, 949, 264), -61, True),
    ("8m", (712, 307, 800, 390), -56, False),
    ("6m", (623, 383, 716, 470), -133, False),
    ("7m", (668, 340, 757, 424), -60, False),
    ("2m", (819, 215, 909, 297), -59, False),
    ("1p", (955, 104, 1044, 180), None, True),
]


def test_in_a_row_near_45_degrees_a_face_without_an_angle_is_judged_unsurely() -> None:
    dets = [
        Detection(c := parse_tiles(n)[0], 0.9, tuple(map(float, box)), rot, ((c, 0.9),), face, 0.8)
        for n, box, face, rot in DIAGONAL_ROUND_CALL
    ]
    row = hand_row(dets).row
    assert row.degenerate and abs({t.det: t.side_margin for t in row.tiles}[14]) < 0.25
    hand = read_hand(dets).hand_dict()
    assert hand is not None and hand["hand"] == "6788s" and hand["dora_indicators"] == ["4m"]
    assert sorted(m["tiles"] for m in hand["melds"]) == ["123p", "234m", "678m"]


# selection render 990011/299 as the models read it: a pon of white dragons called from the left
# at the row's end, its called tile's face read upright (-70°, with its neighbours): a blank face
# has no axis to read, and the guess is often wrong; judged surely, no reading made a winning hand
WHITE_DRAGON_CALL = [
    ("4s", (247, 341, 321, 420), -37, False),
    ("6p", (203, 373, 282, 455), -36, False),
    ("3p", (198, 683, 307, 786), -91, False),
    ("3p", (309, 586, 414, 684), -60, False),
    ("1z", (689, 241, 784, 326), -62, False),
    ("6s", (255, 633, 364, 732), -56, False),
    ("6s", (441, 469, 535, 568), -35, False),
    ("7z", (551, 361, 647, 454), -61, False),
    ("7z", (613, 257, 703, 340), 40, False),
    ("1z", (778, 164, 867, 242), -72, True),
    ("6s", (365, 537, 465, 635), -46, False),
    ("7z", (597, 326, 691, 417), -61, False),
    ("1z", (741, 204, 833, 287), -140, False),
    ("5z", (887, 55, 986, 132), -62, True),
    ("7z", (652, 284, 746, 372), -136, False),
    ("5z", (820, 134, 909, 207), -70, True),
    ("5z", (855, 89, 948, 168), -68, True),
]


def test_a_blank_faces_guessed_axis_marks_a_call_only_unsurely() -> None:
    dets = [
        Detection(c := parse_tiles(n)[0], 0.9, tuple(map(float, box)), rot, ((c, 0.9),), face, 0.8)
        for n, box, face, rot in WHITE_DRAGON_CALL
    ]
    margins = {t.det: t.side_margin for t in hand_row(dets).row.tiles}
    assert all(abs(margins[j]) < 0.25 for j in (13, 15, 16))  # the white dragons
    hand = read_hand(dets).hand_dict()
    assert hand is not None and hand["hand"] == "33p66s" and hand["win_tile"] == "6s"
    assert sorted((m["tiles"], m["added"]) for m in hand["melds"]) == [
        ("111z", False),
        ("555z", False),
        ("7777z", True),
    ]
