"""The geometry of a shown hand: rows, groups, melds, the winning tile and the tiles apart.

:func:`analyse_layout` turns detections into a :class:`Layout` without judging tile identities
beyond what the ruleset sets aside (that is :mod:`paiscan.vision.reading`'s job, with the scoring core as
arbiter). Everything is measured in *row coordinates* and *tile widths*, so the rules hold for a
skewed or rotated photo and under mild perspective:

1. **Rows.** A Hough-style search over directions (1° steps) finds the line through the most tile
   centres (a tile belongs when its centre is within ``ROW_TOL`` of its own size from the line),
   refined by a principal-axis fit of the members; lines are taken out one after another. A line
   is cut where two neighbours are more than ``FAR_GAP`` tile widths apart (a tile far out on the
   same line is not part of the hand).
2. **Row coordinates.** ``u`` along the row, ``v`` across it (positive = away from the player).
   Box sides are de-rotated into the tile's extent along and across the row (exact for a rotated
   rectangle; impossible near 45°, where the rotated flag decides instead).
3. **Sideways tiles** (a call): where the classifier gave the face's angle, a face whose axis
   is turned more than 45° from its neighbours' (most of them upright) is sideways; near 45° the
   judgement is unsure (``FACE_MARGIN_DEG``). Otherwise, from the box: along/across is ``SIDEWAYS_RATIO``
   times the upright reference
   (the 35th percentile of the four neighbours on each side: most tiles of a hand stand upright,
   and a local reference follows perspective) and at least ``SIDEWAYS_MIN_RATIO``; in the band
   just below, the detector's rotated flag (taken relative to the majority of the row, so a photo
   rotated by 90° does not flip every tile) decides. Up to ``MAX_UNSURE`` judgements close to the
   threshold are unsure: the row is also read with them reversed, at a cost.
4. **Stacked tiles** (an added kan): a sideways tile off the row, over a sideways tile of the row.
5. **Gaps** in local tile widths (the mean upright width of the two neighbours, so perspective
   cancels); a gap of ``SPLIT_GAP`` (or the row's median gap + 0.2 when the row is loosely laid)
   splits groups.
6. **Orientation** (which end is the player's right): the faces' tops point away from the
   player (a vote of the upright faces, weighted by the classifier's certainty); else a stacked
   tile lies on the far side of its base; else the concealed tiles (the longer run without call
   marks) are on the left; else
   the end with a lone tile a little apart (the winning tile) is the right; else the side the
   tiles apart lie on is "up"; else left to right in the image (top to bottom for an upright
   row). Every row is also read from the other end, at a cost by cue (``FLIP_COST``).
7. **Structures**: every partition of the row into concealed tiles, the winning tile and melds
   of 3 or 4 tiles with a call mark each (one sideways tile: chi/pon/open kan, its position gives
   ``from``; a stacked or doubled sideways pair: added kan; back–face–face–back: closed kan), whose
   tile count fits (``13 - 3·melds`` concealed), each with a geometric cost (see ``*_COST``).

>>> from paiscan.vision.detection import Detection
>>> dets = [Detection(c, 0.99, (i * 30.0, 0.0, i * 30.0 + 28.0, 40.0)) for i, c in enumerate(range(3))]
>>> lay = analyse_layout(dets)
>>> [t.det for t in lay.rows[0].tiles], lay.rows[0].oriented_by
([0, 1, 2], 'default')
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cache, lru_cache
from typing import Any, Literal

import numpy as np

from paiscan.scoring.engine import Ruleset
from paiscan.scoring.errors import HandError
from paiscan.scoring.registry import get_ruleset
from paiscan.scoring.tiles import BACK, kind
from paiscan.vision.detection import ROUND_FACES, Detection, iou

# ---------------------------------------------------------------------------------- thresholds
#: half-width of a row band, in tile sizes (sqrt of box area): sideways tiles sit ~0.15 off
#: the centre line of upright ones, a stacked tile or an indicator above the row ~1 away
ROW_TOL = 0.3
ROW_REFINE_TOL = 0.35
ANGLE_STEP_DEG = 1.0
MIN_ROW_TILES = 3
#: a hand row (without stacked tiles) has 14 + kans tiles, 13 with one missing
HAND_MIN_TILES, HAND_MAX_TILES = 8, 24
#: another line with this many tiles is background (discards), not indicators
BACKGROUND_ROW_TILES = 6
#: a background line's runs apart by more than this (tile widths) are judged each on its own ...
BACKGROUND_GAP = 1.0
#: ... and only runs with this many face-up tiles are background
BACKGROUND_RUN_TILES = 4
#: a face at a discards' row end whose axis lies this far off the row's (degrees) is no discard of
#: it (:func:`_pond_run`): the row's own faces share an axis, or lie sideways (riichi). 35–55 read
#: alike; 15–75 lost fresh render 990015/482
POND_ODD_AXIS = (25.0, 65.0)
#: short side / long side of a tile face, to turn a sideways tile's length into a tile width
SHORT_OVER_LONG = 0.75
SIDEWAYS_RATIO = 1.35
SIDEWAYS_MIN_RATIO = 0.6
SIDEWAYS_FLAG_BAND = 1.15
#: sideways judgements within this log-margin of the threshold are unsure: the row is also read
#: with up to ``MAX_UNSURE`` of them reversed, at ``UNSURE_FLIP_COST + UNSURE_MARGIN_COST · margin``
UNSURE_MARGIN = 0.25
MAX_UNSURE = 3
UNSURE_FLIP_COST = 0.5
UNSURE_MARGIN_COST = 3.0
#: a face's sideways margin is its axis's angle to its neighbours' (or, with fewer than
#: ``MIN_FACE_NEIGHBOURS`` faces near, to the row's normal) less 45°, over this: faces within 15°
#: of 45° are unsure, as box margins within ``UNSURE_MARGIN`` are
FACE_MARGIN_DEG = 60.0
#: ... but a face at least this far off whose box says sideways (wider along the row than its
#: neighbours', or turned by the crop) is sideways, unsurely: under a steep camera a called tile's
#: face lies only ~50° off its neighbours' in the image, and the classifier's angle for a turned
#: face is ~25° rougher (fresh render 990015/776: 26° off). On 4,600 selection and fresh renders
#: 7 more read exactly and none fewer; 22° lost one, 30° gained 4
SIDEWAYS_BOX_OFF_DEG = 25.0
#: ... and a face read upright whose box says sideways by more than this (log-margin) is upright
#: only unsurely (within ``GUESSED_MARGIN``), so the row is also read with it sideways: a called
#: tile whose face the classifier reads upright (selection 990011/865, fresh 990017/254: the meld's
#: tiles read as concealed). On the 4,600 selection and fresh renders +1 and +1 at 0.25–0.3, none
#: fewer; 0.15 lost one; 0.4 gained only the first
BOX_SAYS_SIDEWAYS = 0.3
#: a tile whose sideways judgement rests on a guess is sideways or upright only unsurely: its margin
#: is kept within this, inside ``UNSURE_MARGIN``, so the row is also read with it reversed. Three
#: such tiles:
#: - one the frame cuts (``Detection.cut``): its box and its face's angle are measured on part of
#:   it (fresh render 990017/94: a cut 2p's face read 98° off made a call mark, and the concealed
#:   tiles a meld). On 4,600 selection and fresh renders 5 more read exactly and none fewer (half
#:   of ``UNSURE_MARGIN`` alike); two refused before read wrong, each through a tile read under
#:   0.15 likely, which the reading now asks about (``paiscan.vision.reading.UNLIKELY_CLASS_P``);
#: - a face whose axis the classifier often guesses (``ROUND_FACES``: a blank white dragon, a one
#:   of circles): 4 more read exactly, none fewer, and one refused before read silently wrong
#:   (selection 990011/851: an added kan of white dragons, its stacked tile missed, read as a pon);
#: - in a row near 45° (its boxes say nothing), a face with no angle, judged by the rotated flag
#:   where ``MIN_FACE_NEIGHBOURS`` faces or more judge the others: a sure verdict there read a
#:   called white dragon upright (1 more read exactly, none fewer)
GUESSED_MARGIN = 0.9 * UNSURE_MARGIN
MIN_FACE_NEIGHBOURS = 3
#: neighbours' axes within this of each other share one (see :func:`_local_axis_offsets`)
AXIS_CLUSTER_DEG = 30.0
#: ... and the face's own vote there: over one, so that a tie goes to the face's own axis (a face
#: standing at the row's end beside flat melds has one standing neighbour against two flat ones)
SELF_VOTE = 1.5
#: the faces' vote (sum of certainty × cos of the angle to the row's normal) decides which side of
#: the row the player sits when it is at least this large and this share of the voters
FACES_MIN_VOTE = 1.5
FACES_MIN_SHARE = 0.3
#: |cos 2θ| below this (θ within ~7° of 45°): box sides cannot be de-rotated
DEGENERATE_COS2 = 0.25
#: gaps in tile widths
SPLIT_GAP = 0.3
FAR_GAP = 3.0
EXCLUDE_GAP = 1.0
#: an end group (up to ``MAX_EXCLUDED`` tiles) this far out may be read as left out of the hand (an option
#: at ``EXCLUDE_COST``, tried when the row does not make a hand whole)
EXCLUDE_OPTION_GAP = 0.6
#: at most this many tiles (no call marks among them) at a row end: indicators laid in line
MAX_EXCLUDED = 3
#: ... and a shorter gap will do when it stands out from the row's gaps (split gap + this), at a
#: cost growing as the gap shrinks below ``EXCLUDE_OPTION_GAP``
EXCLUDE_MIN_GAP = 0.4
EXCLUDE_GAP_OVER_SPLIT = 0.15
EXCLUDE_SHORT_GAP_COST = 2.0  # per tile width short of EXCLUDE_OPTION_GAP
#: when no reading fits the count, end tiles with no gap at all may be left out too, at this cost
#: more: face-down ones too (a back at a row end that makes no closed kan is, on real rack photos,
#: mostly the green felt beside the last tile), and sideways ones read with under
#: ``DOUBTFUL_END_CONF`` (the rack's edge). On the 37 real hand photos the row's tiles are exactly
#: the labelled ones in 19 against 9 before; the selection renders read the same
LOOSE_EXCLUDE_COST = 1.0
DOUBTFUL_END_CONF = 0.3
#: ... and end tiles all read with under ``DOUBTFUL_END_CONF`` are left out at this cost only (not
#: an indicator's): on a real rack photo a sliver of felt at one end (0.01 sure) stayed in the hand
#: while a sure white dragon at the other end was left out as an indicator, at the same cost
DOUBTFUL_EXCLUDE_COST = 0.2
#: a stacked tile: along-row offset within this share of the base tile's length, across-row
#: centre distance between ``STACK_V_MIN`` and ``STACK_V_MAX`` base widths (the localizer draws
#: a stacked pair's boxes closer than they are: 0.25 read 419 selection renders of 500 exactly,
#: 0.5 415)
STACK_U_TOL = 0.4
STACK_V_MIN = 0.25
STACK_V_MAX = 1.6
#: ... but a box set aside as a second box of the base (``DUPLICATE_IOU``) may lie from this share
#: of its width on, where it is no larger than ``STACK_SECOND_SIZE`` times the base: the localizer
#: draws a stacked pair's boxes closer still (fresh renders 990015/616 and 990019/105: 0.20 and
#: 0.21 of the base apart, their sizes the base's, read as pons), while a second box of the base
#: itself is looser (selection renders 990012/193 and /372: 0.18 and 0.19 apart, 1.22 and 1.37
#: times the base). Fresh +2 exact, selection the same; 0.1–0.2 and 1.1–1.2 alike, 1.3 lost one
STACK_V_MIN_SECOND = 0.15
#: a face-up tile whose face's axis lies this near a sideways neighbour's may be its stacked tile
#: (:func:`_turned_as_next`)
STACK_AXIS_DEG = 15.0
#: ... and two tiles overlapping along the row by this share of a width may be one on the other
#: (:func:`_overlapping_pairs`): 0.3–0.6 read alike (selection 990012/908 and 990014/172, fresh
#: 990018/175 exactly), 0.75 the first alone
STACK_OVERLAP = 0.5
STACK_SECOND_SIZE = 1.15
#: ... and is of the base's kind, some kind among the likeliest this many classes of each in
#: common: a pond's tile beyond a called tile was taken for its stacked one (on the 2,600 selection
#: renders, all 125 true stacked tiles share their base's top class; 28 of 87 false ones share no
#: kind among the top 3)
STACK_TOPK = 3
#: a stacked tile lies from its base along the table's depth, which under a steep camera runs askew
#: to the row's normal in the image: it is the way the faces of the ``STACK_DEPTH_NEAR`` upright
#: tiles nearest the base point (flat meld tiles), where that leans at least ``STACK_DEPTH_MIN_UP``
#: towards the normal, and ``STACK_U_TOL`` is measured across it (fresh render 990016/174: 0.40 of
#: the base along the row's normal, 0.1 along the depth). On 4,600 selection and fresh renders 2
#: more read exactly, none fewer (``STACK_U_TOL`` 0.5 instead gained one and lost one)
STACK_DEPTH_NEAR = 2
STACK_DEPTH_MIN_UP = 0.4
#: tiles apart from the hand (indicators, set-aside tiles) are within this many tile widths of it
#: and of a similar size. 6 until localizer stage 17, which finds more of the far tiles: with it,
#: 5.5 read 2,398 selection renders exactly against 2,396 (silently wrong 18 against 19) and 1,841
#: fresh ones against 1,839 (20 against 21); 4.5 read 2,391, the held-out 500 the same from 5 to 6
NEAR_UNITS = 5.5
#: a cluster of tiles apart that the near zone's edge cuts is taken whole when this many of its tiles
#: lie within, and it has at most ``EDGE_CUT_MAX`` in all (one set of indicators): its far tile, left
#: out, touched the rest and made them someone's discards (:func:`_touches`). One tile within that
#: runs on beyond stays the near end of a pond. The selection renders read 2,414 exactly against
#: 2,412, the true detections 2,552 against 2,550, the fresh renders the same (taking every such
#: cluster whole read 2,415 but fails that pond)
EDGE_CUT_INSIDE = 2
EDGE_CUT_MAX = 3
SIZE_RATIO = (0.6, 1.7)
#: a short line or a lone tile continuing a longer line at its end (a hand row bent by perspective,
#: or a meld sitting lower than the concealed tiles): centres within ``MERGE_V_TOL`` of their size
#: from the longer line, and at most ``MERGE_GAP`` tile sizes beyond its end
MERGE_V_TOL = 0.6
MERGE_GAP = 1.5
#: ... measured from the whole line, or from the line through its tiles within this many tile sizes
#: of the end they continue (at least three): a line found across two rows (the hand's far end and
#: a dead wall beside it, one tile higher) keeps a direction that none of its tiles follow once the
#: wall is cut off, and a row bent by perspective turns along its length. On the selection renders
#: 2,406 read exactly against 2,398 (refused 61 against 70), the fresh ones 1,845 against 1,841,
#: the true detections 2,546 against 2,539; 3 and 6 tile sizes read 2,405 and 2,406
MERGE_END_UNITS = 4.0
#: a run of a line's tiles with gaps under this many tile widths, holding at least
#: ``DEAD_WALL_BACKS`` face-down tiles, is a dead wall: its face-up tiles are the indicators
DEAD_WALL_GAP = 1.0
DEAD_WALL_BACKS = 2
#: ... but face-up tiles at its ends a gap this wide beyond its outermost face-down tiles are not
#: the wall's (see :func:`_wall_part`)
WALL_FACE_GAP = 0.4
#: a line of tiles the photo's edge cuts to strips is no dead wall (:func:`_sliver`; fresh render
#: 990015/192: strips a fifth of a tile's height; 0.35–0.5 alike, 0.25 not enough)
SLIVER_SHARE = 0.4
#: ... unless this many face-up tiles or more lead the run from the hand's side before a wall laid
#: touching them (:func:`_wall_tail`): the concealed tiles against their dead wall, the melds a gap
#: beyond. A dead wall shows its indicators from the third stack in; taken whole, such a run lost
#: the hand (the selection renders read 2,409 exactly against 2,406, the fresh ones 1,848 against
#: 1,845, the true detections 2,550 against 2,546; 2 read the same)
WALL_LEAD_FACES = 3
#: which tiles of a closed kan are face down, as players show one: back–face–face–back or
#: face–back–back–face
CLOSED_KAN_BACKS = ([True, False, False, True], [False, True, True, False])
#: ... and a dead wall laid touching the hand has at least this many tiles in view
DEAD_WALL_MIN_TILES = 5
#: a called meld shows this many face-up tiles in a row or more: a sideways tile among fewer (between
#: a wall's backs) is no call mark but an indicator seen askew or misread, and does not keep a dead
#: wall in the hand's row (selection renders 990011/780 and 990012/184, refused before; the fresh
#: and held-out renders read the same); nor does it break a closed kan (:func:`_sideways_variants`)
MELD_MIN_FACES = 3
#: a dead wall goes on past its line's run through tiles that touch it in its own direction (the
#: next centre within these pitches along it and ``WALL_STEP_ACROSS`` tile sizes across), to its
#: last face-down tile: the face-up tiles between are indicators too. Lines found among someone's
#: discards laid beside the wall cut it into pieces, and the pieces' faces were lost to the pond
#: (held-out render 990001/189: back, back, 6s, 2z, 6s, back, back in three lines)
WALL_STEP_ALONG = (0.5, 1.6)
WALL_STEP_ACROSS = 0.35
WALL_STEP_MAX = 6
#: a dead wall shows at most this many face-up tiles (the dora indicator and one per kan): a line
#: from a wall's first backs on into someone's discards is no wall (held-out render 990001/412: two
#: backs and seven discards, whose "indicators" were too many to read, so the real one was lost)
DEAD_WALL_MAX_FACES = 5
#: a cluster apart most of whose faces are turned from the hand's (sideways to it, or upside down
#: with this certainty) is someone's pond, not indicators: players lay indicators facing them
TURNED_SURE = 0.5
#: ... but a lone tile apart only from this certainty: one face's top read upside down is all that
#: tells it from an indicator, and the classifier misreads tops (selection renders 990011/220 and
#: /312: lone indicators read upside down 0.77 and 0.68 sure, taken for someone's discard). On the
#: 2,600 selection renders 0.8 to 0.95 read both exactly (0.7 one), the 2,000 fresh ones and the
#: rack photos read the same; never counting a lone tile's top (1.01) lost 2 fresh renders, one
#: silently. A cluster of two or more keeps ``TURNED_SURE`` (pairs judged as lone tiles read the same)
LONE_TURNED_SURE = 0.85
LONE_TURNED_MAX = 1
#: ... sideways to them: its top over this many degrees off the row's normal. A tile turned on the
#: table lies along the row (90°), but an upright one is not seen square to the row either: roll and
#: perspective skew the table's axes in the photo, and a flat indicator beside a standing hand (whose
#: faces point up the photo) showed tops 50-55° off the normal. 45° took such indicators for
#: someone's pond; from 65° to 75° the 2,600 selection renders read alike (exact 2,297 against 2,290,
#: silently wrong 48 against 50)
TURNED_AXIS_DEG = 65.0
TURNED_AXIS_SIN = math.sin(math.radians(TURNED_AXIS_DEG))
#: faces that look alike upside down in common tile art (1-5, 8, 9 of circles with the red five,
#: 2, 4, 8, 9 of bamboos, the white dragon: under 20 of 255 mean difference from their half-turn in
#: the CC0 art at 60×80 px; the other faces differ by 23 or more). Only the tile's body (its thick
#: side, its shadow) tells their top, so the classifier's certainty of it counts this much
SAME_UPSIDE_DOWN = frozenset({9, 10, 11, 12, 13, 16, 17, 19, 21, 25, 26, 31, 35})
SAME_UPSIDE_DOWN_SURE = 0.5
#: ... and the 6 of bamboos, by what the classifier does: of the flat tiles whose top it is sure
#: of (0.5) on the 4,600 selection and fresh renders, it reads 1.1 % upside down (2s 1.9, 4s 0.9;
#: the faces left out at most 0.5, but 5s 2.1 and 7z 1.4). Fresh render 990015/930: a 6s of
#: someone's pond read facing the player was taken for an indicator; +1, none fewer (5s as well:
#: one fewer)
TOP_DOUBTED = SAME_UPSIDE_DOWN | {23}
#: upright faces at most peeled off a cluster of turned ones as indicators (:func:`_peel_upright`)
PEEL_MAX = 2
#: ... and only those not touching a turned one (side by side ~1.05 tile widths, one above the other ~1.35)
PEEL_MIN_GAP = 1.45
#: :func:`_near_line`. A pond's rows lie about 1.2 tile sizes apart, so its own rows part at 1.2;
#: at 1.0 an indicator laid diagonally off a pond's near corner parts too (selection renders
#: 990011/844, 990012/695, fresh 990015/749, 990019/121 read exactly; none read otherwise; 0.85
#: lost one). A short row that is a pond's own nearest the hand faces away from it (someone
#: across fills rows towards the player, turned from the hand's faces) and stays the pond's.
#: 0.9 since :func:`_split_near_line` also asks for felt between (:func:`_past_row_pitch`): in a
#: steep photo a pond's rows lie closer (selection render 990011/882: three indicators 0.96 of a
#: tile's size before a pond's row, and fresh 990017/016, read exactly; 0.8 alike, 0.7 lost one)
NEAR_LINE_BAND = 0.5
NEAR_LINE_MAX = 3
NEAR_LINE_BEYOND = 0.9
#: a cluster apart whose tiles stray from one line by more than this share of a tile's size lies in
#: rows (a pond); so does one touching a background line (``CLUSTER_UNITS``)
POND_ROW_SPREAD = 0.5
#: a cluster apart touching a background line (``CLUSTER_UNITS``) is that pond's next row unless it
#: lies farther from it than this many times the pond's pitch that way (:func:`_past_row_pitch`):
#: indicators laid before someone's discards, with felt between (selection render 990012/450).
#: Selection renders 3 more exact (990011/421, 990012/277 and /450 had their indicators dropped;
#: 990012/378's misread one is now at least asked about), fresh 1 (990018/24, silently wrong
#: before), none fewer; 1.3 alike, 1.5–1.6 not the fresh one, 1.2 lost a fresh render (990018/43)
POND_PITCH_OVER = 1.4
POND_STEP_DEG = 30.0
POND_ROW_MIN = 0.2
#: tiles apart whose centres are this many tile widths apart touch (side by side ~1.05, one above
#: the other ~1.35)
CLUSTER_UNITS = 1.6
#: set-aside tiles apart (Totenko's gari) laid in a run are one cluster when their centres lie within
#: ``CLUSTER_UNITS`` of this share of the tiles' size (the row's unit, a tile's extent along the
#: row, shrinks on a steep diagonal row: 31 px for tiles 75 px in size on selection render
#: 990013/30, whose three gari in a line, 57 px apart, were three clusters and the first read as
#: the indicator) and stray from one line by at most ``GARI_JOIN_SPREAD`` sizes (an indicator of
#: a set-aside kind laid diagonally off the run stays apart: fresh render 990016/145). On 4,600
#: selection and fresh renders 2 more read exactly and none fewer (0.85–1.2 alike; a larger unit
#: for every cluster apart lost 2 to 18)
GARI_JOIN_SIZE = 0.85
GARI_JOIN_SPREAD = 0.25
#: a background line whose faces' tops, averaged (unit vectors), fall shorter than this looks no
#: way at all: half its faces read one way and half the other, as a far pond's do, and so it says
#: nothing of which way the cluster beside it faces (:func:`_beside_background`). Fresh render
#: 990015/561: two of a pond's tiles read as indicators as its line's mean top was 0.02 long and a
#: hair the other way. On 4,600 selection and fresh renders 3 more read exactly and none fewer
#: (0.3–0.5 alike; 0.6 lost one)
FACES_DISAGREE = 0.4
#: two boxes overlapping this much are one tile detected twice (the less confident is dropped):
#: neighbours in a row overlap far less, even on a diagonal (about 0.2); on the selection renders
#: 0.45 read 0.645 of the hands exactly against 0.615 at 0.6 (0.35-0.45 all alike). Localizer
#: stage 11 draws more second boxes shifted a quarter tile along the row (IoU 0.35-0.6): 0.4 read
#: 2,276 of the 2,600 fresh selection renders against 2,270 at 0.45, with 52 silently wrong
#: against 57 (stage 8: 2,299 against 2,295); the rack photos read the same
DUPLICATE_IOU = 0.4
#: ... or lies in it by this share of the smaller box: a second, shifted box on one tile of a
#: closed kan (IoU 0.42, 0.67 of it inside) broke the kan; neighbours on a 45° row overlap far less
DUPLICATE_INSIDE = 0.65
#: ... such a box on the hand's line, up to this many tile widths past its ends, is taken as a
#: tile after all when the row's count fits no hand (:func:`row_duplicates`)
READMIT_BEYOND = 1.5
#: ... and one read as the row tile it overlaps is a tile too when it lies in a hole of the row:
#: its neighbours this many pitches apart, it this share of one from the nearer
READMIT_HOLE = 1.3
READMIT_OFFSET = 0.25
#: a tile apart from the hand read with less confidence than this (localizer × classifier) is not
#: taken as an indicator or set aside: on real photos the localizer finds "tiles" on bare felt and
#: floorboards, which became indicators. On the real holdout, of the tiles apart read under 0.15
#: none (of 11) matches a labelled tile, from 0.15 to 0.3 5 of 19 do; on 750 selection renders
#: (riichi, totenko, kansai_boo) 0.15 reads one hand fewer than no gate, 0.3 three fewer
APART_MIN_CONF = 0.15
#: a box off the hand's line lying this share of its area or more over one of its tiles is a second,
#: looser box on that tile (too little inside it for ``DUPLICATE_INSIDE``): for that hand it counts
#: as a duplicate, neither a tile apart nor a stray. One read 0.17 sure joined three indicators
#: beside the hand and made them a pond. The selection renders read 2,412 exactly against 2,409
#: (0.3 and 0.6 alike), the fresh ones 1,849 against 1,848; lowering ``DUPLICATE_INSIDE`` itself to
#: 0.5 read 2,406
APART_OVER_ROW_TILE = 0.45
#: ... nor one the classifier more likely takes for no tile at all (:attr:`Detection.tile_share`;
#: with classifier stage 20, on the 37 real rack photos the false indicators fell from 23 to 20,
#: the selection renders read the same; 0.7 would leave 13 but lose 2 of 500 and 4 of 250 renders)
APART_MIN_TILE_SHARE = 0.5
#: the nearest cluster apart may show one indicator more than the rules allow (still read, so the
#: excess is seen) only while it has at most this many faces: five in a line with one kan made is
#: a row of discards (a render, seed 990004, image 6), not four indicators and a stray
OVER_LIMIT_MAX_FACES = 4
MAX_STRUCTURES = 96
MAX_DETECTIONS = 200

# geometric costs (comparable to classifier costs, which are ln(p_top / p))
NO_GAP_LAST_COST = 0.3  # no visible gap: the winning tile is the rightmost concealed tile
NO_GAP_OTHER_COST = 0.6  # ... or any other concealed tile (the player sorted it in)
WIN_AGAINST_GAP_COST = 1.5  # a winning tile other than the one a visible gap shows
#: a gap before the last concealed tile too narrow to split the row (``split_gap``) still sets the
#: winning tile apart when it is at least ``WEAK_GAP_MIN`` tile widths and ``WEAK_GAP_OVER`` wider
#: than every other gap among at least ``WEAK_GAP_MIN_GAPS`` concealed tiles: a player's "a little
#: apart". On renders whose winning tile lies 4-16 mm apart, 46 % of the gaps the split missed are
#: such; on renders with no gap, 0.6 % of the rows show one (``split_gap`` alone: 2.5 %). Another
#: winning tile then costs ``WIN_AGAINST_WEAK_GAP_COST``, past the reading's question band, and so
#: does every tile of the row read from the other end (where that tile comes first)
WEAK_GAP_MIN = 0.1
WEAK_GAP_OVER = 0.1
WEAK_GAP_MIN_GAPS = 4
WIN_AGAINST_WEAK_GAP_COST = 1.0
WIN_AFTER_MELDS_COST = 0.2  # a lone tile after the melds
SPLIT_IN_MELD_COST = 1.5  # a visible gap inside one meld
MELD_TOUCH_COST = 0.1  # two melds touching (common)
HAND_TOUCHES_MELD_COST = 0.3  # no gap between the concealed tiles and the first meld
#: a gap inside the concealed tiles (past the first tile and before the winning tile's place)
#: ``INNER_GAP_OVER`` tile widths wider than the row's split gap: players keep the concealed tiles
#: together, so such a gap more likely ends them (the first meld's sideways tile unseen, as a
#: white dragon's often is: its blank face gives no angle). On the 4,600 selection and fresh renders
#: 5 more read exactly (selection 990014/151: 8p apart, a pon of white dragons 0.46 wide of it,
#: read as three concealed dragons), none fewer; one asked before about melds none of which was
#: right (fresh 990018/127, an added kan a stacked tile too many) is now read silently wrong. With
#: no margin over the split gap a thirteen orphans laid loosely (gaps ~0.2, one 0.44) was lost
INNER_GAP_COST = 1.0
INNER_GAP_OVER = 0.1
FACE_UP_CLOSED_KAN_COST = 1.0  # four equal upright tiles shown apart, read as a closed kan
CLOSED_KAN_INNER_BACKS_COST = 0.3  # face–back–back–face
EXCLUDE_COST = 1.0  # a lone group at a row end is an indicator, not part of the hand
END_GROUPS_EXCLUDED = 2  # ... and the next group in too (indicators, then gari beyond them)
#: a row read from the end its orientation cue did not choose, by cue
FLIP_COST = {
    "faces": 2.0,
    "stacked": 1.5,
    "melds": 1.5,
    "melds_weak": 0.3,
    "win_gap": 0.8,
    "weak_gap": 0.3,
    "apart": 0.1,
    "default": 0.1,
    "flipped": 0.1,
}
MARKED_EXCLUDE_COST = 0.5  # ... and it lies sideways
SET_ASIDE_EXCLUDE_COST = 0.1  # a group of set-aside tiles (gari) at a row end

FROM3 = ("left", "across", "right")
FROM4 = ("left", "across", "across", "right")
MeldKind = Literal["call", "open_kan", "added_kan", "closed_kan"]


# ---------------------------------------------------------------------------------- results
@dataclass(frozen=True)
class RowTile:
    """A tile of a row, in row coordinates (pixels; ``v`` positive away from the player)."""

    det: int
    u: float
    v: float
    along: float
    across: float
    sideways: bool
    back: bool
    stacked: int | None = None
    #: the gap to the previous tile in tile widths (``inf`` for the first tile)
    gap_before: float = math.inf
    #: along/across of an upright tile here (from the neighbours), for the sideways test
    ref_ratio: float = 0.75
    #: how far the sideways judgement is from its threshold (positive: sideways; in the units of
    #: ``UNSURE_MARGIN``)
    side_margin: float = -math.inf
    #: read with under ``DOUBTFUL_END_CONF`` confidence (localizer × classifier)
    doubtful: bool = False

    @property
    def width(self) -> float:
        """The tile's short side in pixels (a sideways tile's length times 3/4)."""
        return self.along * SHORT_OVER_LONG if self.sideways else self.along

    @property
    def side_unsure(self) -> bool:
        """The sideways judgement lies within ``UNSURE_MARGIN`` of its threshold."""
        return abs(self.side_margin) < UNSURE_MARGIN

    @property
    def marked(self) -> bool:
        """A call mark: sideways, face down, or carrying a stacked tile."""
        return self.sideways or self.back or self.stacked is not None


@dataclass(frozen=True)
class Row:
    """A line of tiles, left to right as the player sees them."""

    tiles: tuple[RowTile, ...]
    #: unit vector of ``u`` in image pixels (x right, y down)
    direction: tuple[float, float]
    #: median tile width in pixels
    unit: float
    #: the gap (tile widths) from which neighbours are in different groups
    split_gap: float
    #: what decided left and right: stacked, melds, melds_weak, win_gap, weak_gap, apart, default (flipped:
    #: the other reading of a row)
    oriented_by: str = "default"
    #: box sides could not be de-rotated (row near 45°): sideways tiles from the rotated flag only
    degenerate: bool = False

    @property
    def dets(self) -> tuple[int, ...]:
        return tuple(t.det for t in self.tiles)

    @property
    def stacked(self) -> tuple[int, ...]:
        return tuple(t.stacked for t in self.tiles if t.stacked is not None)

    @property
    def doubtful(self) -> frozenset[int]:
        """The row's tiles read with under ``DOUBTFUL_END_CONF`` confidence (felt, a rack's edge)."""
        return frozenset(t.det for t in self.tiles if t.doubtful)

    @property
    def angle_deg(self) -> float:
        return math.degrees(math.atan2(self.direction[1], self.direction[0]))

    def flipped(self) -> Row:
        """The same row read from the other end."""
        d = self.direction
        return replace(self, tiles=tuple(_flip_tiles(self.tiles)), direction=(-d[0], -d[1]), oriented_by="flipped")

    def split_after(self, pos: int) -> bool:
        return pos + 1 < len(self.tiles) and self.tiles[pos + 1].gap_before >= self.split_gap

    @property
    def groups(self) -> tuple[tuple[int, ...], ...]:
        """Positions (indices into ``tiles``) of the touching groups."""
        out: list[list[int]] = []
        for i in range(len(self.tiles)):
            if i == 0 or self.split_after(i - 1):
                out.append([])
            out[-1].append(i)
        return tuple(tuple(g) for g in out)

    def to_dict(self) -> dict[str, Any]:
        return {
            "angle_deg": round(self.angle_deg, 1),
            "tiles": list(self.dets),
            "groups": [[self.tiles[p].det for p in g] for g in self.groups],
            "sideways": [t.det for t in self.tiles if t.sideways],
            "stacked": list(self.stacked),
            "gaps": [round(t.gap_before, 2) for t in self.tiles[1:]],
            "unit_px": round(self.unit, 1),
            "oriented_by": self.oriented_by,
        }


@dataclass(frozen=True)
class MeldShape:
    """The geometry of one meld: its detections in row order (a stacked tile last)."""

    dets: tuple[int, ...]
    kind: MeldKind
    #: position of the (first) sideways tile among the meld's row tiles
    called: int | None = None
    from_: str | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"dets": list(self.dets), "kind": self.kind}
        if self.from_ is not None:
            out["from"] = self.from_
        return out


@dataclass(frozen=True)
class Structure:
    """One way to read the row: concealed tiles, the winning tile and melds (detection indices)."""

    concealed: tuple[int, ...]
    win: int | None
    melds: tuple[MeldShape, ...] = ()
    #: row tiles left out of the hand (they join the tiles apart: indicators or set aside)
    excluded: tuple[int, ...] = ()
    cost: float = 0.0
    #: how the winning tile was found: gap, weak_gap, after_melds, no_gap, against_gap,
    #: against_weak_gap, guess
    win_rule: str = ""
    #: the tile count fits a complete hand (false: a best-effort reading, never scored)
    count_ok: bool = True

    @property
    def key(self) -> tuple[Any, ...]:
        return (tuple(sorted(self.concealed)), self.win, self.melds, tuple(sorted(self.excluded)))

    def to_dict(self) -> dict[str, Any]:
        return {
            "concealed": list(self.concealed),
            "win": self.win,
            "melds": [m.to_dict() for m in self.melds],
            "excluded": list(self.excluded),
            "cost": round(self.cost, 3),
            "win_rule": self.win_rule,
            "count_ok": self.count_ok,
        }


@dataclass(frozen=True)
class HandRow:
    """A row that may be the hand, with every structure it can be read as."""

    row: Row
    #: count-consistent structures, cheapest first (at most ``MAX_STRUCTURES``)
    structures: tuple[Structure, ...]
    #: the most plausible split even when the count is wrong
    best_effort: Structure
    #: detections apart from the hand, near it and of its size: indicators or set-aside tiles
    apart: tuple[int, ...]
    #: everything else (background rows, far tiles, face-down tiles apart)
    unused: tuple[int, ...]
    #: geometric plausibility (tile size, count): larger first
    prior: float
    #: ``apart`` in clusters of touching tiles, the nearest the hand first
    apart_groups: tuple[tuple[int, ...], ...] = ()
    #: set-aside (by the top class) among ``apart``
    set_aside: tuple[int, ...] = ()
    #: tiles of ``apart`` in a dead wall (indicators, whatever their kind)
    walled: frozenset[int] = frozenset()
    #: (detection, pixels along the row's direction) for the row's tiles and ``apart``: where
    #: things lie left to right
    along: tuple[tuple[int, float], ...] = ()
    #: the row's tiles of set-aside kinds (by the top class), in row order
    top_aside: tuple[bool, ...] = ()
    #: ``structures`` come from the last-resort pass already (see :func:`loose_structures`)
    loose: bool = False

    @property
    def n_tiles(self) -> int:
        return len(self.row.tiles)

    @property
    def indicators(self) -> tuple[int, ...]:
        """Tiles apart that are not set aside: dora indicators (by the top class)."""
        return tuple(d for d in self.apart if d not in self.set_aside)

    @property
    def win_candidates(self) -> tuple[int, ...]:
        """Detections that may be the winning tile, most plausible first."""
        out: list[int] = []
        for s in self.structures or (self.best_effort,):
            if s.win is not None and s.win not in out:
                out.append(s.win)
        return tuple(out)

    @property
    def meld_groups(self) -> tuple[MeldShape, ...]:
        s = self.structures[0] if self.structures else self.best_effort
        return s.melds

    def to_dict(self) -> dict[str, Any]:
        return {
            "row": self.row.to_dict(),
            "n_structures": len(self.structures),
            "structure": (self.structures[0] if self.structures else self.best_effort).to_dict(),
            "apart": list(self.apart),
            "set_aside": list(self.set_aside),
            "unused": list(self.unused),
            "prior": round(self.prior, 2),
        }


@dataclass(frozen=True)
class Layout:
    """Everything the geometry says about a photo of a hand."""

    detections: tuple[Detection, ...]
    rules: str
    #: every line of tiles found (3 or more tiles), oriented
    rows: tuple[Row, ...]
    #: rows that may be the hand, most plausible first
    candidates: tuple[HandRow, ...]
    #: tile kinds the ruleset sets aside (three-player gari)
    set_aside_kinds: frozenset[int] = frozenset()

    @property
    def hand(self) -> HandRow | None:
        return self.candidates[0] if self.candidates else None

    def to_dict(self) -> dict[str, Any]:
        return {
            "rows": [r.to_dict() for r in self.rows],
            "candidates": [c.to_dict() for c in self.candidates],
            "set_aside_kinds": sorted(self.set_aside_kinds),
        }


# ---------------------------------------------------------------------------------- ruleset facts
def set_aside_kinds(rules: str) -> frozenset[int]:
    """Tile kinds the ruleset sets aside when shown (Totenko: 1m 5m 9m): its ``set_aside_kinds``."""
    try:
        return get_ruleset(rules).set_aside_kinds
    except HandError:
        return frozenset()


@lru_cache(maxsize=64)
def max_indicators(rules: str, kans: int) -> int:
    """The most dora indicators the ruleset's table shows for a hand with ``kans`` kans (Boo: one;
    riichi: the dora and ura-dora ones, one more of each per kan), so that a cluster of someone's
    discards is not read as indicators the table cannot show. Cached: every reading a photo's
    enumeration builds asks.

    >>> max_indicators("kansai_boo", 2), max_indicators("totenko_balance", 1)
    (1, 4)
    """
    try:
        return get_ruleset(rules).max_indicators(kans)
    except HandError:
        return Ruleset().max_indicators(kans)  # the base ruleset's table


# ---------------------------------------------------------------------------------- line search
@dataclass
class _Line:
    members: list[int]
    direction: np.ndarray
    point: np.ndarray
    stacked: dict[int, int]


def _principal(pts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    centre = pts.mean(axis=0)
    if len(pts) < 2:
        return np.array([1.0, 0.0]), centre
    cov = np.cov((pts - centre).T)
    w, vec = np.linalg.eigh(cov)
    d = vec[:, int(np.argmax(w))]
    return d / np.linalg.norm(d), centre


def _canonical(d: np.ndarray) -> np.ndarray:
    """The sign of a direction with x > 0 (or y > 0 for a vertical one)."""
    if d[0] < -1e-6 or (abs(d[0]) <= 1e-6 and d[1] < 0):
        return -d
    return d


def _best_line(pts: np.ndarray, size: np.ndarray, pool: list[int]) -> _Line | None:
    idx = np.array(pool)
    p, s = pts[idx], size[idx]
    n = len(idx)
    if n < MIN_ROW_TILES:
        return None
    angles = np.deg2rad(np.arange(0.0, 180.0, ANGLE_STEP_DEG))
    normals = np.stack([-np.sin(angles), np.cos(angles)], axis=1)
    v = (p @ normals.T).astype(np.float32)  # (n, A)
    tol = (ROW_TOL * np.maximum(s[:, None], s[None, :])).astype(np.float32)  # (n, n)

    def inside(a0: int, a1: int) -> np.ndarray:  # member, anchor, angle: within the band
        va = v[:, a0:a1]
        return np.abs(va[:, None, :] - va[None, :, :]) <= tol[:, :, None]

    step = 30  # angles at a time: memory n² · step
    counts = np.concatenate([inside(a, a + step).sum(axis=0) for a in range(0, len(angles), step)], axis=1)
    best = int(counts.max())
    if best < MIN_ROW_TILES:
        return None
    # of the (anchor, angle) bands holding the most tiles, the one whose members lie closest to
    # their own mean line (in tile sizes); all ties at once, the first on equal spread
    anchors, ang = np.nonzero(counts == best)
    vk = v[:, ang].T  # (K, n): every tile across each tied angle
    inband = np.abs(vk - vk[np.arange(len(ang)), anchors][:, None]) <= tol[:, anchors].T
    mean = np.where(inband, vk, 0.0).sum(axis=1) / inband.sum(axis=1)
    spread = np.where(inband, ((vk - mean[:, None]) / s[None, :]) ** 2, 0.0).sum(axis=1)
    k = int(np.argmin(spread))
    best_angle = int(ang[k])
    members = np.nonzero(inband[k])[0]
    d = np.array([math.cos(angles[best_angle]), math.sin(angles[best_angle])])
    centre = p[members].mean(axis=0)
    for _ in range(3):  # refine: principal axis of the members, members within the refined band
        if len(members) >= 3:
            d, centre = _principal(p[members])
        normal = np.array([-d[1], d[0]])
        dist = np.abs((p - centre) @ normal)
        new = np.nonzero(dist <= ROW_REFINE_TOL * s)[0]
        if len(new) < MIN_ROW_TILES or set(new.tolist()) == set(members.tolist()):
            break
        members = new
    return _Line([int(idx[i]) for i in members], _canonical(d), centre, {})


def _extents(w: np.ndarray, h: np.ndarray, d: np.ndarray) -> tuple[np.ndarray, np.ndarray, bool]:
    """Tile extents along and across the direction ``d`` from axis-aligned box sides.

    A ``a × b`` rectangle turned by θ has a box ``W = a|cos| + b|sin|``, ``H = a|sin| + b|cos|``.
    """
    c, s = abs(float(d[0])), abs(float(d[1]))
    det = c * c - s * s
    if abs(det) < DEGENERATE_COS2:  # near 45°: assume an upright 3:4 tile, (a + b)² = 2·W·H
        g = np.sqrt(2.0 * w * h) / (1.0 + 1.0 / SHORT_OVER_LONG)
        return g, g / SHORT_OVER_LONG, True
    along = (c * w - s * h) / det
    across = (c * h - s * w) / det
    floor = 0.15 * np.maximum(w, h)
    return np.maximum(along, floor), np.maximum(across, floor), False


def _percentile(values: Sequence[float], q: float) -> float:
    """``np.percentile`` (linear) for a short list, without numpy's per-call overhead."""
    xs = sorted(values)
    pos = (len(xs) - 1) * q / 100.0
    lo = int(pos)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


def _local_refs(ratio: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Each tile's upright reference ratio: the 35th percentile of its neighbours' (four each side
    along the row), so a size or foreshortening gradient along the row cancels out."""
    n = len(ratio)
    order = np.argsort(u)
    refs = np.empty(n)
    for rank, i in enumerate(order):
        neigh = [order[k] for k in range(max(0, rank - 4), min(n, rank + 5)) if k != rank]
        if len(neigh) < 4:
            neigh = [j for j in range(n) if j != i] or [int(i)]
        refs[i] = _percentile([float(ratio[j]) for j in neigh], 35)
    return refs


def _face_top(angle_deg: float) -> np.ndarray:
    """The unit vector (image x right, y down) a face's top points along, from its angle (0 = up,
    clockwise)."""
    a = math.radians(angle_deg)
    return np.array([math.sin(a), -math.cos(a)])


def _neighbour_ranks(n: int) -> np.ndarray:
    """``[n, 8]``: the ranks of each rank's neighbours, four each side, -1 past the row's ends."""
    r = np.arange(n)[:, None] + np.array([-4, -3, -2, -1, 1, 2, 3, 4])[None, :]
    return np.where((r >= 0) & (r < n), r, -1)


def _axis_gap(a: Any, b: Any) -> Any:
    """The angle between two axes (degrees in, 0..90 out; numbers or arrays): a face and its
    upside-down are one axis."""
    return np.abs(((a - b + 90.0) % 180.0) - 90.0)


def _local_axis_offsets(angles: np.ndarray, u: np.ndarray, normal_offsets: np.ndarray) -> np.ndarray:
    """Each face's axis against its neighbours' (up to four each side along the row), in degrees
    0..90; NaN where fewer than ``MIN_FACE_NEIGHBOURS`` neighbours show a face angle.

    The neighbours' upright axis is the one most of them share (within ``AXIS_CLUSTER_DEG``),
    averaged over those that share it: among melds a third of the faces or more lie sideways, and a
    plain mean of the axes (doubled angles) is pulled off by them, even past 45° (a face then read
    sideways against it splits a meld). The face itself votes too, with ``SELF_VOTE``: between two
    clusters equal but for it, a face is taken to share its own; between clusters still equal the
    one nearer the row's normal (``normal_offsets``: each face's axis against the normal) is upright.

    Perspective squeezes projected angles and a standing face points up the photo whatever the
    row's direction, so neighbours, not the row's normal, say what upright looks like here.
    """
    order = np.argsort(u)
    a = angles[order]
    to_normal = normal_offsets[order]
    ranks = _neighbour_ranks(len(a))
    idx = np.clip(ranks, 0, None)
    neigh = np.where(ranks >= 0, a[idx], np.nan)  # [tile, neighbour]
    known = ~np.isnan(neigh)
    near = _axis_gap(neigh[:, :, None], neigh[:, None, :]) <= AXIS_CLUSTER_DEG  # [tile, candidate, neighbour]
    near &= known[:, :, None] & known[:, None, :]
    support = near.sum(2) + SELF_VOTE * (_axis_gap(neigh, a[:, None]) <= AXIS_CLUSTER_DEG) - 1e-3 * to_normal[idx]
    members = near[np.arange(len(a)), np.argmax(np.where(known, support, -np.inf), axis=1)]
    doubled = np.radians(2.0 * np.nan_to_num(neigh))
    ref = (
        np.degrees(
            np.arctan2(np.where(members, np.sin(doubled), 0.0).sum(1), np.where(members, np.cos(doubled), 0.0).sum(1))
        )
        / 2.0
    )
    out = np.full(len(a), np.nan)
    enough = ~np.isnan(a) & (known.sum(1) >= MIN_FACE_NEIGHBOURS)
    out[order] = np.where(enough, _axis_gap(np.nan_to_num(a), ref), np.nan)
    return out


def _side_margins(
    along: np.ndarray,
    across: np.ndarray,
    flags: np.ndarray,
    degenerate: bool,
    refs: np.ndarray,
    angles: np.ndarray,
    direction: np.ndarray,
    u: np.ndarray | None = None,
) -> np.ndarray:
    """How sideways each tile is (positive: sideways), against its upright reference ratio
    ``refs`` from the box, or from the face's angle (degrees, NaN: unknown) where it is known:
    against its neighbours' faces along the row (``u``), else against the row's normal; a face
    ``SIDEWAYS_BOX_OFF_DEG`` off whose box says sideways is sideways by a hair (unsure), and a face
    read upright whose box says sideways by ``BOX_SAYS_SIDEWAYS`` is upright only unsurely."""
    ratio = along / across
    flags_rel = flags != (flags.mean() > 0.5) if len(flags) else flags
    if degenerate:  # the box cannot say: the rotated flag, as a sure judgement
        margin = np.where(flags_rel, math.inf, -math.inf)
        if (~np.isnan(angles)).sum() >= MIN_FACE_NEIGHBOURS:  # ... but faces judge the rest: unsure
            margin = np.where(flags_rel, GUESSED_MARGIN, -GUESSED_MARGIN)
    else:
        margin = np.log(np.maximum(ratio, 1e-6) / refs) - math.log(SIDEWAYS_RATIO)
        maybe = (ratio > SIDEWAYS_FLAG_BAND * refs) & flags_rel
        margin = np.where(
            (margin <= 0) & maybe, np.maximum(margin + math.log(SIDEWAYS_RATIO / SIDEWAYS_FLAG_BAND), 1e-3), margin
        )
        margin = np.where(ratio > SIDEWAYS_MIN_RATIO, margin, np.minimum(margin, -1e-3))
    known = ~np.isnan(angles)
    if known.any():
        a = np.radians(np.where(known, angles, 0.0))
        along_cos = np.abs(np.sin(a) * direction[0] - np.cos(a) * direction[1])  # |face top · row direction|
        off = np.degrees(np.arcsin(np.clip(along_cos, 0.0, 1.0)))  # off the row's normal: 0 upright, 90 sideways
        if u is not None:
            off = np.where(np.isnan(local := _local_axis_offsets(angles, u, off)), off, local)
        box = np.full(len(margin), -math.inf) if degenerate else np.asarray(margin)  # what the box says, if anything
        by_face = (off - 45.0) / FACE_MARGIN_DEG
        by_face = np.where((box > 0) & (off > SIDEWAYS_BOX_OFF_DEG), np.maximum(by_face, 1e-3), by_face)
        by_face = np.where((box > BOX_SAYS_SIDEWAYS) & (by_face < 0), np.maximum(by_face, -GUESSED_MARGIN), by_face)
        margin = np.where(known, by_face, margin)
    return np.asarray(margin, dtype=float)


def _sideways(margins: np.ndarray) -> np.ndarray:
    return np.asarray(margins > 0, dtype=bool)


# ---------------------------------------------------------------------------------- analysis
@dataclass
class _Geo:
    dets: tuple[Detection, ...]
    pts: np.ndarray
    w: np.ndarray
    h: np.ndarray
    size: np.ndarray
    flags: np.ndarray
    backs: np.ndarray
    #: the face's angle (degrees, NaN: unknown) and the certainty of its top
    angles: np.ndarray
    sure: np.ndarray
    #: :func:`_row_tiles` of each line seen, with and without gaps (lines are measured again and again as they are cut)
    rows_seen: dict[tuple[Any, ...], tuple[list[RowTile], float, bool]] = field(default_factory=dict)


def _geo(dets: Sequence[Detection]) -> _Geo:
    boxes = np.array([d.box for d in dets], dtype=float).reshape(-1, 4)
    w, h = boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1]
    pts = np.stack([(boxes[:, 0] + boxes[:, 2]) / 2, (boxes[:, 1] + boxes[:, 3]) / 2], axis=1)
    angles = np.array([np.nan if d.face_angle is None or d.cls == BACK else d.face_angle for d in dets], dtype=float)
    return _Geo(
        tuple(dets),
        pts,
        w,
        h,
        np.sqrt(w * h),
        np.array([d.rotated for d in dets], dtype=bool),
        np.array([d.cls == BACK for d in dets], dtype=bool),
        angles,
        np.array([d.face_sure * (SAME_UPSIDE_DOWN_SURE if d.cls in TOP_DOUBTED else 1.0) for d in dets], dtype=float),
    )


def _line_key(line: _Line) -> tuple[Any, ...]:
    """What a line's measured tiles depend on (its members change as it is cut)."""
    return tuple(line.members), tuple(sorted(line.stacked.items())), line.direction.tobytes(), line.point.tobytes()


def _row_tiles(g: _Geo, line: _Line, gaps: bool = False) -> tuple[list[RowTile], float, bool]:
    """Row tiles sorted along ``line.direction`` (not yet oriented), the unit, degeneracy; with
    ``gaps``, each tile's gap before it (:func:`_with_gaps`). Kept per line in ``g.rows_seen``."""
    key = (*_line_key(line), gaps)
    if key not in g.rows_seen:
        if gaps:
            tiles, unit, degenerate = _row_tiles(g, line)
            g.rows_seen[key] = (_with_gaps(tiles), unit, degenerate)
        else:
            g.rows_seen[key] = _measure_row(g, line)
    tiles, unit, degenerate = g.rows_seen[key]
    return list(tiles), unit, degenerate


def _measure_row(g: _Geo, line: _Line) -> tuple[list[RowTile], float, bool]:
    d = line.direction
    up = np.array([d[1], -d[0]])
    idx = np.array(line.members)
    rel = g.pts[idx] - line.point
    u, v = rel @ d, rel @ up
    along, across, degenerate = _extents(g.w[idx], g.h[idx], d)
    refs = _local_refs(along / across, u)
    margins = np.where(
        g.backs[idx], -math.inf, _side_margins(along, across, g.flags[idx], degenerate, refs, g.angles[idx], d, u)
    )
    unsure = np.array([g.dets[j].cut or g.dets[j].cls in ROUND_FACES for j in idx], dtype=bool)
    margins = np.where(unsure & np.isfinite(margins), np.clip(margins, -GUESSED_MARGIN, GUESSED_MARGIN), margins)
    side = _sideways(margins)
    order = np.argsort(u)
    tiles = [
        RowTile(
            int(idx[i]),
            float(u[i]),
            float(v[i]),
            float(along[i]),
            float(across[i]),
            bool(side[i]),
            bool(g.backs[idx[i]]),
            line.stacked.get(int(idx[i])),
            ref_ratio=float(refs[i]),
            side_margin=float(margins[i]),
            doubtful=g.dets[idx[i]].confidence < DOUBTFUL_END_CONF,
        )
        for i in order
    ]
    widths = [t.width for t in tiles]
    return tiles, float(np.median(widths)) if widths else 1.0, degenerate


def _with_gaps(tiles: list[RowTile]) -> list[RowTile]:
    out: list[RowTile] = []
    for k, t in enumerate(tiles):
        if k == 0:
            out.append(replace(t, gap_before=math.inf))
            continue
        a = tiles[k - 1]
        raw = (t.u - t.along / 2) - (a.u + a.along / 2)
        out.append(replace(t, gap_before=raw / ((a.width + t.width) / 2)))
    return out


def _split_gap(tiles: Sequence[RowTile]) -> float:
    gaps = [t.gap_before for t in tiles[1:]]
    return max(SPLIT_GAP, float(np.median(gaps)) + 0.2) if gaps else SPLIT_GAP


def _attach_stacked(g: _Geo, line: _Line, pool: list[int], spare: set[int] | None = None) -> None:
    """Move sideways tiles lying on a sideways tile of the line from the pool onto it. ``spare``:
    boxes set aside as duplicates, which may be a stacked tile after all (the localizer draws a
    stacked pair's boxes closer than they are, overlapping as a duplicate's would: one of the
    base's size may lie as close as ``STACK_V_MIN_SECOND``); one taken is removed from it. A round
    face (``ROUND_FACES``) is sideways where its box says so, whatever its face's angle: selection
    renders 990011/851 (an added kan of white dragons, scored as a pon in silence) and 990013/130
    read exactly, nothing else changed on 4,600."""
    spare = spare if spare is not None else set()
    if not pool and not spare:
        return
    tiles, _, degenerate = _row_tiles(g, line)
    bases = [t for t in tiles if t.sideways]
    idx = np.array([*pool, *sorted(spare)], dtype=int)
    if not bases or (degenerate and np.isnan(g.angles[idx]).all()):
        return
    d = line.direction
    up = np.array([d[1], -d[0]])
    rel = g.pts[idx] - line.point
    u, v = rel @ d, rel @ up
    along, across, _ = _extents(g.w[idx], g.h[idx], d)
    round_faces = np.array([g.dets[j].cls in ROUND_FACES for j in idx], dtype=bool)
    for base in bases:
        refs = np.full(len(idx), base.ref_ratio)
        side = _sideways(_side_margins(along, across, g.flags[idx], degenerate, refs, g.angles[idx], d))
        if not degenerate and round_faces.any():  # a round face's axis is a guess: its box may say sideways
            by_box = _sideways(
                _side_margins(along, across, g.flags[idx], degenerate, refs, np.full(len(idx), np.nan), d)
            )
            side |= by_box & round_faces
        depth = _depth_near(g, tiles, base, up)
        best, best_dist = None, math.inf
        for j in range(len(idx)):
            if not side[j] or g.backs[idx[j]] or int(idx[j]) in line.stacked.values():
                continue
            dv = abs(v[j] - base.v)
            second = int(idx[j]) in spare and g.size[idx[j]] <= STACK_SECOND_SIZE * g.size[base.det]
            v_min = STACK_V_MIN_SECOND if second else STACK_V_MIN
            if not _lies_on(g, base, int(idx[j]), abs(u[j] - base.u), dv, d, depth, v_min):
                continue
            if dv < best_dist:
                best, best_dist = int(idx[j]), dv
        if best is not None:
            line.stacked[base.det] = best
            if best in spare:
                spare.discard(best)
            else:
                pool.remove(best)


def _detach_stacked(g: _Geo, line: _Line) -> None:
    """Take a stacked tile the line took in off it, onto its base: of two sideways tiles side by
    side that lie one on the other (``STACK_U_TOL`` along the table's depth, ``STACK_V_MIN`` to
    ``STACK_V_MAX`` across), the one further off the line. Under a steep camera a stacked tile's
    centre lies within the line's band (fresh render 990019/97: a pon and an added kan read as
    five 4z). On 4,600 selection and fresh renders 4 more read exactly and none fewer."""
    tiles, _, _ = _row_tiles(g, line, gaps=True)
    paired = _overlapping_pairs(g, tiles)
    side = [
        t for k, t in enumerate(tiles) if not t.back and (t.sideways or k in paired or _turned_as_next(g, tiles, k))
    ]
    if len(side) < 2:
        return
    d = line.direction
    up = np.array([d[1], -d[0]])
    ref_v = float(np.median([t.v for t in tiles]))
    in_side = {t.det for t in side}
    upright = [t for t in tiles if t.det not in in_side]  # (a stacked tile's face says nothing of the depth)
    taken: set[int] = set()
    for a, b in itertools.pairwise(side):
        if a.det in taken or b.det in taken:
            continue
        base, top = sorted((a, b), key=lambda t: abs(t.v - ref_v))
        if not _lies_on(
            g, base, top.det, abs(top.u - base.u), abs(top.v - base.v), d, _depth_near(g, upright, base, up)
        ):
            continue
        line.members.remove(top.det)
        line.stacked[base.det] = top.det
        taken |= {base.det, top.det}


def _overlapping_pairs(g: _Geo, tiles: Sequence[RowTile]) -> set[int]:
    """Positions of face-up tiles side by side in ``tiles`` (in order along the row, with their
    gaps) that overlap along it by ``STACK_OVERLAP`` of a width or more, their faces' axes within
    ``STACK_AXIS_DEG``: one tile stacked on another, however each was judged (selection render
    990012/908: an added kan at the row's end, its pair judged upright against the called tiles'
    axes beside it)."""
    out: set[int] = set()
    for k in range(1, len(tiles)):
        a, b = tiles[k - 1], tiles[k]
        if a.back or b.back or b.gap_before > -STACK_OVERLAP:
            continue
        if _same_axis(g, a.det, b.det):
            out |= {k - 1, k}
    return out


def _same_axis(g: _Geo, i: int, j: int) -> bool:
    """Detections ``i`` and ``j`` show faces whose axes lie within ``STACK_AXIS_DEG`` (both known)."""
    a, b = g.angles[i], g.angles[j]
    return not (math.isnan(a) or math.isnan(b)) and bool(_axis_gap(a, b) <= STACK_AXIS_DEG)


def _turned_as_next(g: _Geo, tiles: Sequence[RowTile], k: int) -> bool:
    """Tile ``k``'s face lies within ``STACK_AXIS_DEG`` of the axis of a sideways face-up tile next
    to it in the row: a stacked tile turned as its base, whatever its own sideways judgement (a
    tile among several sideways ones is judged against their axis: fresh render 990015/267)."""
    return any(
        0 <= n < len(tiles) and tiles[n].sideways and not tiles[n].back and _same_axis(g, tiles[k].det, tiles[n].det)
        for n in (k - 1, k + 1)
    )


def _lies_on(
    g: _Geo,
    base: RowTile,
    j: int,
    du: float,
    dv: float,
    direction: np.ndarray,
    depth: np.ndarray | None,
    v_min: float = STACK_V_MIN,
) -> bool:
    """Tile ``j`` lies stacked on ``base``: ``du`` along the row (measured across the table's
    ``depth`` where known, see ``STACK_DEPTH_NEAR``) within ``STACK_U_TOL`` of the base, ``dv``
    across it ``v_min`` to ``STACK_V_MAX``, of a size and a kind that may match."""
    if depth is not None:
        off = g.pts[j] - g.pts[base.det]
        du = abs(float(np.linalg.solve(np.column_stack([direction, depth]), off)[0]))
    return (
        du <= STACK_U_TOL * base.along
        and v_min * base.across <= dv <= STACK_V_MAX * base.across
        and SIZE_RATIO[0] <= g.size[j] / g.size[base.det] <= SIZE_RATIO[1]
        and _may_match(g.dets[base.det], g.dets[j])
    )


def _depth_near(g: _Geo, tiles: Sequence[RowTile], base: RowTile, up: np.ndarray) -> np.ndarray | None:
    """The table's depth near ``base`` in the image (a unit vector on ``up``'s side), from the faces
    of the upright tiles nearest it (``STACK_DEPTH_NEAR``); None where they do not say."""
    near = sorted(
        (t for t in tiles if not t.sideways and not t.back and not np.isnan(g.angles[t.det])),
        key=lambda t: abs(t.u - base.u),
    )[:STACK_DEPTH_NEAR]
    if len(near) < 2:
        return None
    top = np.mean([_face_top(float(g.angles[t.det])) for t in near], axis=0)
    n = float(np.linalg.norm(top))
    if n < 0.5:
        return None
    top = top / n
    if float(top @ up) < 0:
        top = -top
    if float(top @ up) < STACK_DEPTH_MIN_UP:
        return None
    return np.asarray(top)


def _may_match(a: Detection, b: Detection) -> bool:
    """Whether two tiles may be one kind (an added kan's stacked tile is its base's kind): some
    kind among the ``STACK_TOPK`` likeliest classes of each in common.

    >>> one = Detection(4, 0.9, (0, 0, 10, 14), topk=((4, 0.6), (34, 0.3)))
    >>> red, other = Detection(34, 0.9, (0, 0, 10, 14)), Detection(13, 0.9, (0, 0, 10, 14))
    >>> _may_match(one, red), _may_match(one, other)
    (True, False)
    """
    return bool(
        {kind(c) for c, _ in a.candidates()[:STACK_TOPK] if c != BACK}
        & {kind(c) for c, _ in b.candidates()[:STACK_TOPK] if c != BACK}
    )


def _closed_kans_only(run: Sequence[RowTile]) -> bool:
    """The run splits into closed kans (back–face–face–back or face–back–back–face)."""
    if not run or len(run) % 4:
        return False
    return all([t.back for t in run[k : k + 4]] in CLOSED_KAN_BACKS for k in range(0, len(run), 4))


def _wall_like(run: Sequence[RowTile]) -> bool:
    """``run`` can be a dead wall: over ``DEAD_WALL_BACKS`` face-down tiles, two of them side by
    side, no stacked tile, no call mark (a sideways tile among ``MELD_MIN_FACES`` face-up ones),
    and not a split into closed kans."""
    backs = [t.back for t in run]
    return (
        sum(backs) > DEAD_WALL_BACKS
        and any(a and b for a, b in itertools.pairwise(backs))
        and not any(t.stacked is not None for t in run)
        and not _closed_kans_only(run)
        and not any(_surely_sideways(t) and _face_up_run(backs, k) >= MELD_MIN_FACES for k, t in enumerate(run))
    )


def _face_up_run(backs: Sequence[bool], k: int) -> int:
    """How many face-up tiles in a row (``backs`` false) hold position ``k``."""
    if backs[k]:
        return 0
    a = k
    while a > 0 and not backs[a - 1]:
        a -= 1
    b = k
    while b + 1 < len(backs) and not backs[b + 1]:
        b += 1
    return b - a + 1


def _between_backs(backs: Sequence[bool], k: int) -> bool:
    """A face-down tile lies on each side of position ``k`` (not necessarily next to it)."""
    return any(backs[:k]) and any(backs[k + 1 :])


def _surely_sideways(t: RowTile) -> bool:
    """Sideways beyond ``UNSURE_MARGIN``: a call mark, where a tile barely sideways may be a dead
    wall's indicator seen askew."""
    return t.sideways and not t.side_unsure


def _wall_tail(run: Sequence[RowTile]) -> int:
    """Where a dead wall laid touching the hand starts in ``run`` (ordered from the hand outward),
    or 0 for none: at a face-down tile that does not open a closed kan, after tiles that split
    into face-up tiles and closed kans, leaving a wall (:func:`_wall_like`) of at least
    ``DEAD_WALL_MIN_TILES``. Among several such places, the widest gap."""
    best, best_gap = 0, -math.inf
    for k in range(1, len(run) - DEAD_WALL_MIN_TILES + 1):
        if not run[k].back or not _wall_like(run[k:]) or not _closed_kans_in(run[:k]):
            continue
        if len(run) - k >= 4 and [x.back for x in run[k : k + 4]] == CLOSED_KAN_BACKS[0]:
            continue  # a closed kan (back–face–face–back) starts here
        gap = run[k].gap_before
        if gap > best_gap:
            best, best_gap = k, gap
    return best


def _closed_kans_in(run: Sequence[RowTile]) -> bool:
    """``run`` splits into face-up tiles and closed kans (back–face–face–back or
    face–back–back–face): every face-down tile of it belongs to a closed kan."""
    backs = [t.back for t in run]
    ok = [True] + [False] * len(run)  # ok[k]: the first k tiles split so
    for k in range(1, len(run) + 1):
        ok[k] = (ok[k - 1] and not backs[k - 1]) or (k >= 4 and ok[k - 4] and backs[k - 4 : k] in CLOSED_KAN_BACKS)
    return ok[-1]


def _split_dead_wall(g: _Geo, line: _Line, aside: Sequence[bool] = ()) -> list[_Line]:
    """Cut a dead wall laid in line with the hand off its end, as a line of its own.

    A dead wall is at an end of the line, with at least ``DEAD_WALL_BACKS + 1`` face-down tiles,
    two of them side by side, no call marks and no split into closed kans (:func:`_wall_like`):
    either a whole run (gaps under ``DEAD_WALL_GAP``) a gap away from the rest, or the end of a
    run when it was laid touching the hand (:func:`_wall_tail`; also where the run a gap parts is
    led by ``WALL_LEAD_FACES`` face-up tiles, or by closed kans). What stays must still be able to
    hold a hand. Runs of tiles set aside (``aside``, per detection: Totenko's gari) at an end are
    passed over and stay in the line: gari laid past the wall hid it from the end (fresh render
    990016/032 and selection 990013/104, refused, read exactly; nothing else moved on 4,600).
    """
    runs = _line_runs(g, line, lambda gap: gap >= DEAD_WALL_GAP)
    out: list[_Line] = []
    for end in (0, 1):
        if end and len(runs) == 1 and out:
            break
        inward = runs[::-1] if end else runs  # the runs from this end of the line inward
        # tiles set aside (``aside``, per detection) laid past the wall stay in the line
        while len(inward) > 1 and aside and all(aside[t.det] for t in inward[0]):
            inward = inward[1:]
        # a wall's end stacks may lie a little apart: face-down runs at the end join the next run in
        k = 0
        while k + 1 < len(inward) and all(t.back for t in inward[k]):
            k += 1
        # the end's tiles from the hand outward
        ordered = [t for r in reversed(inward[: k + 1]) for t in (r if end else r[::-1])]
        start = _wall_tail(ordered)
        led = start > 0 and not any(t.back for t in ordered[:WALL_LEAD_FACES])
        parted = k + 1 < len(inward) and _wall_like(ordered) and not led  # a gap parts them from the rest
        if parted and start and _closed_kans_only(ordered[:start]):
            # closed kans under DEAD_WALL_GAP from the wall beyond them are the hand's (fresh render
            # 990015/287: the kan went with the wall, its faces read as indicators)
            parted = False
        wall = ordered if parted else ordered[start:] if start else []
        if not wall or len(line.members) - len(wall) < HAND_MIN_TILES:
            continue
        members = [t.det for t in wall]
        for m in members:
            line.members.remove(m)
        out.append(_Line(members, line.direction.copy(), g.pts[members].mean(axis=0), {}))
    return out


def _pond_run(g: _Geo, run: list[RowTile]) -> list[RowTile]:
    """``run`` (a row of someone's discards) less a tile at either end whose face is turned from the
    run's (the median of its faces' axes) by ``POND_ODD_AXIS`` degrees, read surely
    (``TURNED_SURE``): a pond's discards share an axis, or lie sideways (a riichi discard); a tile
    turned otherwise at its end was laid there, an indicator (fresh render 990015/445: a 7z 37°
    off a pond's row, in line with it)."""
    known = [float(g.angles[r.det]) for r in run if not r.back and not np.isnan(g.angles[r.det])]
    if len(known) < BACKGROUND_RUN_TILES:
        return run
    doubled = np.radians(2.0 * np.array(known))
    axis = float(np.degrees(np.arctan2(np.median(np.sin(doubled)), np.median(np.cos(doubled)))) / 2.0)

    def odd(r: RowTile) -> bool:
        a = float(g.angles[r.det])
        return (
            not r.back
            and not np.isnan(a)
            and bool(g.sure[r.det] >= TURNED_SURE)
            and POND_ODD_AXIS[0] <= float(_axis_gap(a, axis)) <= POND_ODD_AXIS[1]
        )

    a, b = 0, len(run)
    if odd(run[0]):
        a = 1
    if b - a > 1 and odd(run[-1]):
        b -= 1
    return run[a:b]


def _line_runs(g: _Geo, line: _Line, cuts: Callable[[float], bool]) -> list[list[RowTile]]:
    """The line's tiles in order along it, in runs: a new run after each gap (tile widths) that
    ``cuts`` says splits."""
    runs: list[list[RowTile]] = []
    for t in _row_tiles(g, line, gaps=True)[0]:
        if not runs or cuts(t.gap_before):
            runs.append([])
        runs[-1].append(t)
    return runs


def _release_far(g: _Geo, line: _Line) -> list[int]:
    """Cut the line at gaps wider than ``FAR_GAP``; keep the largest part (and meld-like parts
    next to it); return the detections let go."""
    clusters = _line_runs(g, line, lambda gap: gap > FAR_GAP)
    if len(clusters) == 1:
        return []
    main = max(range(len(clusters)), key=lambda i: len(clusters[i]))
    keep = {main}
    for step in (-1, 1):
        i = main + step
        while 0 <= i < len(clusters) and len(clusters[i]) >= 3 and any(t.marked for t in clusters[i]):
            keep.add(i)
            i += step
    released: list[int] = []
    for i, cl in enumerate(clusters):
        if i in keep:
            continue
        for t in cl:
            line.members.remove(t.det)
            released.append(t.det)
            if t.stacked is not None:
                released.append(line.stacked.pop(t.det))
    return released


def _release_doubtful_backs(g: _Geo, line: _Line) -> list[int]:
    """Let go of the line's face-down tiles read with under ``DOUBTFUL_END_CONF`` when without them,
    and not with them, every face-down tile of the line belongs to a closed kan (and some do): a
    faint box on the felt between the winning tile and two closed kans made them a dead wall, whose
    faces were read as indicators (selection render 990013/148)."""
    tiles = _row_tiles(g, line)[0]
    weak = [t.det for t in tiles if t.back and t.doubtful]
    rest = [t for t in tiles if not (t.back and t.doubtful)]
    if not weak or _closed_kans_in(tiles) or not any(t.back for t in rest) or not _closed_kans_in(rest):
        return []
    for j in weak:
        line.members.remove(j)
    return weak


def _duplicates(dets: Sequence[Detection]) -> set[int]:
    """Boxes overlapping a more confident one by ``DUPLICATE_IOU``, or lying in it by
    ``DUPLICATE_INSIDE`` of the smaller box (one tile detected twice)."""
    out: set[int] = set()
    order = sorted(range(len(dets)), key=lambda i: -dets[i].confidence)
    for k, i in enumerate(order):
        if i in out:
            continue
        ax1, ay1, ax2, ay2 = dets[i].box
        for j in order[k + 1 :]:
            bx1, by1, bx2, by2 = dets[j].box
            iw, ih = min(ax2, bx2) - max(ax1, bx1), min(ay2, by2) - max(ay1, by1)
            if iw <= 0 or ih <= 0:
                continue
            inter, a, b = iw * ih, (ax2 - ax1) * (ay2 - ay1), (bx2 - bx1) * (by2 - by1)
            if inter / (a + b - inter) >= DUPLICATE_IOU or inter / min(a, b) >= DUPLICATE_INSIDE:
                out.add(j)
    return out


def _extract_lines(g: _Geo, skip: set[int], aside: Sequence[bool] = ()) -> tuple[list[_Line], list[int]]:
    pool = [i for i in range(len(g.dets)) if i not in skip]
    if len(pool) > MAX_DETECTIONS:  # keep the most confident
        pool = sorted(sorted(pool, key=lambda i: -g.dets[i].confidence)[:MAX_DETECTIONS])
    lines: list[_Line] = []
    loose: list[int] = []
    while len(pool) >= MIN_ROW_TILES:
        line = _best_line(g.pts, g.size, pool)
        if line is None:
            break
        pool_before = list(pool)
        released = _settle(g, line, pool, skip)
        walls = _split_dead_wall(g, line, aside)
        lines.extend(walls)
        if walls:  # the line found again without the wall (see _found_again)
            walled = {j for w in walls for j in w.members}
            unwalled = [
                j for j in pool_before if j not in walled and j not in line.stacked.values() and j not in released
            ]
            again = _found_again(g, line, unwalled)
            if again is not None:  # its tiles, along the first line's direction (measured on more tiles)
                pool[:] = unwalled
                line = _Line(again.members, line.direction, again.point, dict(line.stacked))
                released += _settle(g, line, pool, skip)
        loose.extend(released)
        lines.append(line)
    rest = sorted(loose + pool)
    lines, rest = _merge_continuations(g, lines, rest)
    return lines, rest


def _settle(g: _Geo, line: _Line, pool: list[int], skip: set[int]) -> list[int]:
    """Take ``line``'s tiles out of ``pool`` and its stacked tiles onto it (from ``pool`` or the
    duplicates ``skip``); return the tiles it lets go (far apart, or faint backs)."""
    for m in line.members:
        pool.remove(m)
    _detach_stacked(g, line)
    _attach_stacked(g, line, pool, skip)
    return _release_far(g, line) + _release_doubtful_backs(g, line)


def _found_again(g: _Geo, line: _Line, pool: list[int]) -> _Line | None:
    """The best line in ``pool`` (the tiles before ``line`` was taken, less the dead wall cut off
    its end, its stacked tiles and the tiles it let go) where it holds every tile ``line`` kept
    and more, else ``None``: the wall bent the line it was found in, which missed tiles of the
    hand (fresh render 990015/363: its first four concealed tiles, refused). The line found again
    keeps the first one's direction, and one with no more tiles is not taken: measured on fewer
    tiles, its direction closed the winning tile's gap (990015/517) and a stacked tile joined
    the row (990015/337)."""
    again = _best_line(g.pts, g.size, pool)
    return again if again is not None and set(again.members) > set(line.members) else None


def _joins(g: _Geo, line: _Line, dets: Sequence[int]) -> bool:
    """``dets`` either continue ``line`` just beyond one of its ends, within ``MERGE_V_TOL`` across
    it or across the line through its end (``MERGE_END_UNITS``), or fill a hole between its tiles,
    within ``MERGE_V_TOL`` across it (within its span, none of its tiles within half a tile along
    it: tiles a slightly bent row lost to another line; on the selection renders 451 of 500 read
    exactly against 449, true detections 492 against 490, totenko/kansai_boo 199 of 250 against
    197), or both: some fill holes near an end and the rest go on past it (a pon's called tile
    the first line skipped, and the kan beyond: selection render 990012/124, fresh 990018/121 and
    held-out 990001/126 refused before; nothing else read otherwise)."""
    d = line.direction
    idx = np.array(dets)
    members = np.array(line.members)
    u_line = (g.pts[members] - line.point) @ d
    u = (g.pts[idx] - line.point) @ d
    unit = float(np.median(g.size[members]))
    inside = (u > u_line.min()) & (u < u_line.max())
    clear = np.abs(u[:, None] - u_line[None, :]).min(axis=1) > 0.5 * unit
    if inside.any() and not inside.all():  # some fill holes near an end, the rest go on past it
        return (
            _across_within(g, idx[inside], d, line.point)
            and bool(np.all(clear[inside]))
            and _joins(g, line, [int(j) for j in idx[~inside]])
        )
    on_line = _across_within(g, idx, d, line.point)
    beyond = max(float(u.min() - u_line.max()), float(u_line.min() - u.max()))
    if 0.0 < beyond <= MERGE_GAP * unit + unit:
        if on_line:
            return True
        end = u_line.max() if u.min() > u_line.max() else u_line.min()
        near = members[np.abs(u_line - end) <= MERGE_END_UNITS * unit]
        if len(near) < 3:
            return False
        end_d, end_point = _principal(g.pts[near])
        return _across_within(g, idx, end_d, end_point)
    return on_line and bool(np.all(inside & clear))


def _across_within(g: _Geo, idx: np.ndarray, direction: np.ndarray, point: np.ndarray) -> bool:
    """Every tile of ``idx`` lies within ``MERGE_V_TOL`` of its size across the line."""
    normal = np.array([-direction[1], direction[0]])
    return bool(np.all(np.abs((g.pts[idx] - point) @ normal) <= MERGE_V_TOL * g.size[idx]))


def _merge_continuations(g: _Geo, lines: list[_Line], rest: list[int]) -> tuple[list[_Line], list[int]]:
    """Join short lines and lone tiles that continue a line long enough to be the hand at an end
    (not dead walls: more than ``DEAD_WALL_BACKS`` face-down tiles, not all in closed kans; two closed
    kans side by side show four backs, and a line of them parted from the concealed tiles is the
    hand's end all the same). A line that grew looks again for stacked tiles among the loose ones:
    a sideways tile let go from a longer line rejoins it alone, and the tile stacked on it (or the
    one it lay on) stays loose (selection renders 990011/786 and 990014/252: added kans read as
    pons, now exactly; nothing else moved on 4,600)."""

    def walled(line: _Line) -> bool:
        return sum(g.backs[m] for m in line.members) > DEAD_WALL_BACKS and not _closed_kans_in(_row_tiles(g, line)[0])

    lines = sorted(lines, key=lambda ln: -len(ln.members))
    merged: list[_Line] = []
    taken: set[int] = set()
    for i, line in enumerate(lines):
        if i in taken:
            continue
        if len(line.members) >= HAND_MIN_TILES and not walled(line):
            changed, grown = True, False
            while changed:
                changed = False
                for j in range(i + 1, len(lines)):
                    other = lines[j]
                    if j in taken or walled(other):
                        continue
                    # (a remnant of two tiles, left when a line gave back its far ones, has no direction to speak of;
                    # a longer one's is measured on the tiles it kept: the direction it was found with may be a
                    # released tile's, as in selection render 990012/797, whose first three concealed tiles made a
                    # line at 6° with a pond tile and could not rejoin the hand at 35°)
                    if len(other.members) >= MIN_ROW_TILES and abs(
                        float(line.direction @ _principal(g.pts[other.members])[0])
                    ) < math.cos(math.radians(20)):
                        continue
                    if _joins(g, line, other.members):
                        line.members.extend(other.members)
                        line.stacked.update(other.stacked)
                        taken.add(j)
                        changed = True
                for k in list(rest):
                    if not g.backs[k] and _joins(g, line, [k]):
                        line.members.append(k)
                        rest.remove(k)
                        changed = True
                grown = grown or changed
            if grown:  # a sideways tile it took may carry a stacked tile left loose
                _attach_stacked(g, line, rest)
        merged.append(line)
    return merged, rest


def _orient(
    tiles: list[RowTile],
    direction: np.ndarray,
    cue_v: Sequence[float],
    stacked_v: Sequence[float] = (),
    faces_v: Sequence[float] = (),
) -> tuple[list[RowTile], np.ndarray, str]:
    """Flip the row so that it runs from the player's left to right; also says what decided.

    ``faces_v``: each upright face's vote, its certainty times the cosine of its top to the row's
    ``v`` direction (positive: the top points away from the player as the row now runs).
    """
    n = len(tiles)
    flip: bool | None = None
    why = "default"
    vote = float(sum(faces_v))
    if abs(vote) >= max(FACES_MIN_VOTE, FACES_MIN_SHARE * len(faces_v)):  # tops point away from the player
        flip, why = vote < 0, "faces"
    votes = [1 if v > 0 else -1 for v in stacked_v if abs(v) > 1e-9]
    if flip is None and votes and sum(votes) != 0:  # a stacked tile lies on the far side of its base
        flip, why = sum(votes) < 0, "stacked"
    marks = [i for i, t in enumerate(tiles) if t.marked]
    if flip is None and marks:  # the concealed tiles (no call marks) are on the left
        left_run, right_run = marks[0], n - 1 - marks[-1]
        if left_run != right_run:
            flip = left_run < right_run
            why = "melds" if abs(left_run - right_run) >= 3 else "melds_weak"
    if flip is None and n > 2:  # a lone tile a little apart at one end: the winning tile
        split = _split_gap(tiles)
        first_alone = split <= tiles[1].gap_before < EXCLUDE_GAP
        last_alone = split <= tiles[-1].gap_before < EXCLUDE_GAP
        if first_alone != last_alone:
            flip, why = first_alone, "win_gap"
        else:  # ... or set apart by a gap under the split, plainly the widest
            gaps = [t.gap_before for t in tiles[1:]]
            first_weak = gaps[0] < split and _plainly_wider(gaps[0], gaps[1:])
            last_weak = gaps[-1] < split and _plainly_wider(gaps[-1], gaps[:-1])
            if first_weak != last_weak:
                flip, why = first_weak, "weak_gap"
    if flip is None:  # indicators and other tiles apart lie above the row (away from the player)
        votes = [1 if v > 0 else -1 for v in cue_v if abs(v) > 1e-9]
        if votes and sum(votes) != 0:
            flip, why = sum(votes) < 0, "apart"
    if not flip:
        return tiles, direction, why
    return _flip_tiles(tiles), -direction, why


def _flip_tiles(tiles: Sequence[RowTile]) -> list[RowTile]:
    return _with_gaps([replace(t, u=-t.u, v=-t.v) for t in reversed(tiles)])


def _make_row(g: _Geo, line: _Line, cue_dets: Iterable[int], orient: bool = True) -> Row:
    tiles, unit, degenerate = _row_tiles(g, line, gaps=True)
    d = line.direction
    why = "default"
    if orient:
        up = np.array([d[1], -d[0]])
        cues = [float((g.pts[j] - line.point) @ up) for j in cue_dets]
        stacked = [float((g.pts[s] - g.pts[b]) @ up) for b, s in line.stacked.items()]
        faces = []
        for t in tiles:
            a = g.angles[t.det]
            if not t.sideways and not np.isnan(a):
                faces.append(float(g.sure[t.det]) * float(_face_top(a) @ up))
        tiles, d, why = _orient(tiles, d, cues, stacked, faces)
    return Row(tuple(tiles), (float(d[0]), float(d[1])), unit, _split_gap(tiles), why, degenerate)


# ---------------------------------------------------------------------------------- structures
def _chunk(row: Row, p: int, q: int) -> tuple[MeldShape, float] | None:
    """The meld formed by row positions ``p..q-1``, with its cost, or ``None``."""
    ts = row.tiles[p:q]
    n = q - p
    side = [i for i, t in enumerate(ts) if t.sideways]
    back = [i for i, t in enumerate(ts) if t.back]
    stacked = [i for i, t in enumerate(ts) if t.stacked is not None]
    cost = SPLIT_IN_MELD_COST * sum(row.split_after(p + i) for i in range(n - 1))
    dets = tuple(t.det for t in ts)
    if n == 3:
        if back or len(side) != 1:
            return None
        c = side[0]
        if stacked == [c]:
            st = ts[c].stacked
            assert st is not None
            return MeldShape((*dets, st), "added_kan", c, FROM3[c]), cost
        if stacked:
            return None
        return MeldShape(dets, "call", c, FROM3[c]), cost
    if n != 4 or stacked:
        return None
    if not side:
        if back == [0, 3]:
            return MeldShape(dets, "closed_kan"), cost
        if back == [1, 2]:
            return MeldShape(dets, "closed_kan"), cost + CLOSED_KAN_INNER_BACKS_COST
        apart_before = p > 0 and row.split_after(p - 1)
        apart_after = q == len(row.tiles) or row.split_after(q - 1)
        if not back and apart_before and apart_after:  # four equal tiles shown face up, apart
            return MeldShape(dets, "closed_kan"), cost + FACE_UP_CLOSED_KAN_COST
        return None
    if back:
        return None
    if len(side) == 1:
        return MeldShape(dets, "open_kan", side[0], FROM4[side[0]]), cost
    if len(side) == 2 and side[1] == side[0] + 1:
        return MeldShape(dets, "added_kan", side[0], ("left", "across", "right")[side[0]]), cost
    return None


def _partitions(row: Row, start: int, end: int) -> list[tuple[tuple[MeldShape, ...], float]]:
    """Every split of positions ``start..end-1`` into melds."""

    @cache
    def part(p: int) -> tuple[tuple[tuple[MeldShape, ...], float], ...]:
        if p == end:
            return (((), 0.0),)
        out: list[tuple[tuple[MeldShape, ...], float]] = []
        for n in (3, 4):
            q = p + n
            if q > end:
                continue
            ch = _chunk(row, p, q)
            if ch is None:
                continue
            shape, c = ch
            boundary = 0.0 if q == end or row.split_after(q - 1) else MELD_TOUCH_COST
            for rest, rc in part(q):
                out.append(((shape, *rest), c + boundary + rc))
        return tuple(out)

    return list(part(start))


def _end_options(row: Row, top_aside: Sequence[bool], left: bool, loose: bool = False) -> list[tuple[int, float]]:
    """How many tiles at one end may be left out of the hand, with the cost (``loose``: also
    up to ``MAX_EXCLUDED`` tiles with no gap before them, none carrying a stacked tile nor
    sideways unless doubtful; see ``LOOSE_EXCLUDE_COST``). End tiles all read doubtfully may be
    left out at ``DOUBTFUL_EXCLUDE_COST`` either way: not only when nothing else reads (fresh
    render 990015/434: a cut indicator 0.4 of a width past the winning tile, and white dragons
    whose guessed axes made a pon of them with it; nothing else moved on 4,600, nor on the rack
    photos)."""
    groups = row.groups
    opts: list[tuple[int, float]] = [(0, 0.0)]
    ends = row.tiles if left else row.tiles[::-1]
    if not loose:  # end tiles read doubtfully (a cut indicator, felt) may always be left out
        k = 0
        while k < MAX_EXCLUDED and len(row.tiles) - k > HAND_MIN_TILES and ends[k].doubtful and ends[k].stacked is None:
            k += 1
            opts.append((k, DOUBTFUL_EXCLUDE_COST))
    if loose:
        for k in range(1, MAX_EXCLUDED + 1):
            if len(row.tiles) - k < HAND_MIN_TILES or any(
                t.stacked is not None or (t.sideways and not t.doubtful) for t in ends[:k]
            ):
                break
            doubtful = all(t.doubtful for t in ends[:k])
            opts.append((k, DOUBTFUL_EXCLUDE_COST if doubtful else EXCLUDE_COST + LOOSE_EXCLUDE_COST))
    found: list[tuple[int, float]] = []
    # the outermost group, then (indicators laid inside gari) the next one in, each apart
    taken, cost = 0, 0.0
    for depth in range(min(END_GROUPS_EXCLUDED, len(groups) - 1)):
        c = _end_group_cost(row, top_aside, groups, depth, left)
        if c is None:
            break
        taken += len(groups[depth] if left else groups[-1 - depth])
        cost += c
        found.append((taken, cost))
    best = dict(opts)
    for k, c in found:
        best[k] = min(c, best.get(k, math.inf))
    return sorted(best.items())


def _end_group_cost(
    row: Row, top_aside: Sequence[bool], groups: Sequence[Sequence[int]], depth: int, left: bool
) -> float | None:
    """The cost of leaving the group ``depth`` groups in from one end out of the hand (its gap is
    the one on its hand side), or ``None`` when it cannot be left out."""
    g = groups[depth] if left else groups[-1 - depth]
    gap = row.tiles[groups[depth + 1][0]].gap_before if left else row.tiles[g[0]].gap_before
    tiles = [row.tiles[p] for p in g]
    if any(t.marked for t in tiles):
        # a lone sideways tile far out is no meld (a meld has three or four tiles): an indicator
        if len(g) == 1 and gap >= EXCLUDE_GAP and tiles[0].stacked is None:
            return EXCLUDE_COST + MARKED_EXCLUDE_COST
        return None
    if all(top_aside[p] for p in g):
        return SET_ASIDE_EXCLUDE_COST
    if len(g) <= MAX_EXCLUDED and gap >= min(
        EXCLUDE_OPTION_GAP, max(EXCLUDE_MIN_GAP, row.split_gap + EXCLUDE_GAP_OVER_SPLIT)
    ):
        return EXCLUDE_COST + EXCLUDE_SHORT_GAP_COST * max(0.0, EXCLUDE_OPTION_GAP - gap)
    return None


def _structures(row: Row, top_aside: Sequence[bool], loose: bool = False) -> list[Structure]:
    n = len(row.tiles)
    det = [t.det for t in row.tiles]
    found: dict[tuple[Any, ...], Structure] = {}

    def add(s: Structure) -> None:
        old = found.get(s.key)
        if old is None or s.cost < old.cost:
            found[s.key] = s

    for a, ca in _end_options(row, top_aside, left=True, loose=loose):
        for cut, cb in _end_options(row, top_aside, left=False, loose=loose):
            b = n - cut
            if b - a < 2:
                continue
            excluded = (*det[:a], *det[b:])
            marks = [i for i in range(a, b) if row.tiles[i].marked]
            ends = [(b, False)]
            last = row.tiles[b - 1]
            if marks and marks[-1] < b - 1 and not last.marked and row.split_after(b - 2):
                ends.append((b - 1, True))
            for e, win_after in ends:
                mk = [i for i in marks if i < e]
                if mk:
                    f = mk[0]
                    starts = {f - 3, f - 2, f - 1, f}
                    starts |= {f - k for k in (4, 8) if f - k > a and row.split_after(f - k - 1)}
                else:
                    starts = {e} | {e - k for k in (4, 8) if e - k > a and row.split_after(e - k - 1)}
                for m in sorted(starts):
                    if m <= a:
                        continue
                    prefix = det[a:m]
                    touch = HAND_TOUCHES_MELD_COST if m < e and m > a and not row.split_after(m - 1) else 0.0
                    touch += INNER_GAP_COST * sum(
                        1 for q in range(a + 1, m - 2) if row.tiles[q + 1].gap_before >= row.split_gap + INNER_GAP_OVER
                    )
                    for melds, pc in _partitions(row, m, e):
                        k = len(melds)
                        base = ca + cb + pc + touch
                        if win_after:
                            if len(prefix) == 13 - 3 * k and k:
                                add(
                                    Structure(
                                        tuple(prefix),
                                        det[e],
                                        melds,
                                        excluded,
                                        base + WIN_AFTER_MELDS_COST,
                                        "after_melds",
                                    )
                                )
                            continue
                        if len(prefix) != 14 - 3 * k:
                            continue
                        gap_win = len(prefix) >= 2 and row.split_after(m - 2)
                        weak_win = not gap_win and _plainly_widest(row, m - 1, range(a + 1, m - 1))
                        # a lone tile apart at the start: this row is likely read from the wrong end
                        lone_first = len(prefix) >= 2 and row.split_after(a)
                        weak_first = not lone_first and _plainly_widest(row, a + 1, range(a + 2, m))
                        for i in range(a, m):
                            rest = tuple(det[j] for j in range(a, m) if j != i)
                            if gap_win and i == m - 1:
                                add(Structure(rest, det[i], melds, excluded, base, "gap"))
                            elif gap_win:
                                add(
                                    Structure(rest, det[i], melds, excluded, base + WIN_AGAINST_GAP_COST, "against_gap")
                                )
                            elif weak_win and i == m - 1:
                                add(Structure(rest, det[i], melds, excluded, base, "weak_gap"))
                            elif weak_win:
                                add(
                                    Structure(
                                        rest,
                                        det[i],
                                        melds,
                                        excluded,
                                        base + WIN_AGAINST_WEAK_GAP_COST,
                                        "against_weak_gap",
                                    )
                                )
                            else:
                                c = NO_GAP_LAST_COST if i == m - 1 else NO_GAP_OTHER_COST
                                c += WIN_AGAINST_GAP_COST if lone_first else 0.0
                                c += WIN_AGAINST_WEAK_GAP_COST if weak_first else 0.0
                                add(Structure(rest, det[i], melds, excluded, base + c, "no_gap"))
    return _merge(found.values())


def _plainly_widest(row: Row, at: int, others: range) -> bool:
    """Whether the gap before the tile at ``at`` sets it a little apart from the tiles at
    ``others`` (:func:`_plainly_wider`)."""
    return _plainly_wider(row.tiles[at].gap_before, [row.tiles[q].gap_before for q in others])


def _plainly_wider(gap: float, others: Sequence[float]) -> bool:
    """Whether ``gap`` sets a tile a little apart: under the row's split, perhaps, but plainly
    wider (``WEAK_GAP_MIN``, ``WEAK_GAP_OVER``) than ``others``, enough of them
    (``WEAK_GAP_MIN_GAPS``) to tell.

    >>> _plainly_wider(0.2, [0.02] * 12), _plainly_wider(0.2, [0.02] * 3), _plainly_wider(0.2, [0.15] * 12)
    (True, False, False)
    """
    return len(others) >= WEAK_GAP_MIN_GAPS and gap >= WEAK_GAP_MIN and gap - max(others) >= WEAK_GAP_OVER


def _sideways_variants(row: Row) -> list[tuple[Row, float]]:
    """The row as judged (a sideways face between backs, with too few face-up tiles for a meld,
    taken upright), and with its least certain sideways judgements reversed (at most
    ``MAX_UNSURE`` tiles within ``UNSURE_MARGIN`` of the threshold), each with its cost."""
    # a sideways face among fewer than MELD_MIN_FACES face-up tiles, backs on both sides, marks no
    # call: a closed kan's face seen steeply (fresh render 990015/916 had no reading left). At the
    # row's end it may still be a call whose other tiles were missed: it stays as judged
    backs = [t.back for t in row.tiles]
    lone = [
        p
        for p, t in enumerate(row.tiles)
        if t.sideways and _between_backs(backs, p) and _face_up_run(backs, p) < MELD_MIN_FACES
    ]
    if lone:
        row = _retiled(row, [replace(t, sideways=False) if p in lone else t for p, t in enumerate(row.tiles)])
    unsure: list[tuple[float, int]] = []
    for p, t in enumerate(row.tiles):
        if t.back or t.stacked is not None:
            continue
        if t.side_unsure:
            unsure.append((abs(t.side_margin), p))
    unsure = sorted(unsure)[:MAX_UNSURE]
    out: list[tuple[Row, float]] = [(row, 0.0)]
    for mask in range(1, 1 << len(unsure)):
        tiles = list(row.tiles)
        cost = 0.0
        for bit, (margin, p) in enumerate(unsure):
            if mask >> bit & 1:
                tiles[p] = replace(tiles[p], sideways=not tiles[p].sideways)
                cost += UNSURE_FLIP_COST + UNSURE_MARGIN_COST * margin
        out.append((_retiled(row, tiles), cost))
    return out


def _retiled(row: Row, tiles: Sequence[RowTile]) -> Row:
    """``row`` holding ``tiles`` instead, their gaps and the split gap measured again."""
    gapped = _with_gaps(list(tiles))
    return replace(row, tiles=tuple(gapped), split_gap=_split_gap(gapped))


def _merge(*parts: Iterable[Structure]) -> list[Structure]:
    found: dict[tuple[Any, ...], Structure] = {}
    for part in parts:
        for st in part:
            old = found.get(st.key)
            if old is None or st.cost < old.cost:
                found[st.key] = st
    return sorted(found.values(), key=lambda st: st.cost)[:MAX_STRUCTURES]


def _row_structures(row: Row, top_aside: Sequence[bool], loose: bool) -> list[Structure]:
    """Every structure of the row (and of the row less a doubtful box inside it:
    :func:`_inner_doubtful_variants`) and of its sideways variants, read from either end (the
    other end at a cost that says how sure the orientation cue was)."""
    found: list[Structure] = []
    for kept, kcost, dropped, kept_aside in _inner_doubtful_variants(row, top_aside):
        for variant, vcost in _sideways_variants(kept):
            for oriented, ocost in ((variant, 0.0), (variant.flipped(), FLIP_COST[row.oriented_by])):
                aside = kept_aside if ocost == 0.0 else kept_aside[::-1]
                found.extend(
                    replace(st, cost=st.cost + kcost + vcost + ocost, excluded=(*st.excluded, *dropped))
                    for st in _structures(oriented, aside, loose)
                )
    return found


def _inner_doubtful_variants(
    row: Row, top_aside: Sequence[bool]
) -> list[tuple[Row, float, tuple[int, ...], Sequence[bool]]]:
    """The row, and the row without its doubtful face-up tile that overlaps a neighbour inside it
    (the first, if several) at ``DOUBTFUL_EXCLUDE_COST``: a box on the felt squeezed
    between two groups (selection render 990011/694: between the winning tile and a pon, so the
    count fitted only with a concealed tile taken for an indicator). Each with its cost, the
    detections left out and the set-aside flags of its tiles."""
    tiles = row.tiles
    inner = [
        p
        for p in range(1, len(tiles) - 1)
        if tiles[p].doubtful
        and not tiles[p].back
        and tiles[p].stacked is None
        and not tiles[p].sideways
        and (tiles[p].gap_before < 0 or tiles[p + 1].gap_before < 0)
    ]
    out: list[tuple[Row, float, tuple[int, ...], Sequence[bool]]] = [(row, 0.0, (), top_aside)]
    if inner and len(tiles) > HAND_MIN_TILES:
        p = inner[0]
        out.append(
            (
                _retiled(row, [t for q, t in enumerate(tiles) if q != p]),
                DOUBTFUL_EXCLUDE_COST,
                (tiles[p].det,),
                [a for q, a in enumerate(top_aside) if q != p],
            )
        )
    return out


def loose_structures(hrow: HandRow) -> tuple[Structure, ...]:
    """The row's structures with the last resort too: up to ``MAX_EXCLUDED`` end tiles with no gap
    before them left out (an indicator touching a meld's end makes it look like a kan). For the
    reader to try when no structure of the first pass makes a winning hand; empty when the
    structures came from that pass already."""
    if hrow.loose or not hrow.top_aside:
        return ()
    known = {st.key for st in hrow.structures}
    return tuple(st for st in _merge(_row_structures(hrow.row, hrow.top_aside, True)) if st.key not in known)


def _best_effort(row: Row) -> Structure:
    """A reading of a row whose count does not fit: groups with call marks as melds, the lone
    tile (or the last tile) before them as the winning tile."""
    groups = row.groups
    det = [t.det for t in row.tiles]
    marked = [any(row.tiles[p].marked for p in g) for g in groups]
    first = next((i for i, m in enumerate(marked) if m), len(groups))
    last = max((i for i, m in enumerate(marked) if m), default=-1)
    melds: list[MeldShape] = []
    leftovers: list[int] = []
    for gi in range(first, last + 1):
        g = list(groups[gi])
        while len(g) >= 3:
            took = False
            for n in (4, 3):
                if len(g) >= n:
                    ch = _chunk(row, g[0], g[0] + n)
                    if ch is not None:
                        melds.append(ch[0])
                        g = g[n:]
                        took = True
                        break
            if not took:
                leftovers.append(det[g.pop(0)])
        leftovers.extend(det[p] for p in g)
    prefix = [det[p] for g in groups[:first] for p in g]
    after = [det[p] for g in groups[last + 1 :] for p in g] if last >= 0 else []
    win: int | None = None
    rule = "guess"
    if last >= 0 and len(groups) > last + 1 and len(groups[last + 1]) == 1:
        win, rule = after.pop(0), "after_melds"
    elif first >= 1 and len(groups[first - 1]) == 1 and first >= 2:
        win, rule = prefix.pop(), "gap"
    elif prefix:
        win = prefix.pop()
    concealed = tuple(prefix + leftovers + after)
    return Structure(concealed, win, tuple(melds), (), 0.0, rule, count_ok=False)


def _clusters(g: _Geo, idx: Sequence[int], unit: float) -> tuple[tuple[int, ...], ...]:
    """Touching tiles (centres within ``CLUSTER_UNITS`` tile widths) grouped, in input order."""
    parent = {i: i for i in idx}

    def root(i: int) -> int:
        while parent[i] != i:
            i = parent[i]
        return i

    for a in idx:
        for b in idx:
            if a < b and float(np.linalg.norm(g.pts[a] - g.pts[b])) <= CLUSTER_UNITS * unit:
                parent[root(b)] = root(a)
    out: dict[int, list[int]] = {}
    for i in idx:
        out.setdefault(root(i), []).append(i)
    return tuple(tuple(v) for v in out.values())


def _join_set_aside(
    g: _Geo, groups: Sequence[tuple[int, ...]], is_aside: Sequence[bool], unit: float
) -> list[tuple[int, ...]]:
    """``groups`` with the clusters of set-aside tiles only that touch within ``unit`` joined,
    where the joined ones lie in one line (``GARI_JOIN_SPREAD``)."""
    aside = [grp for grp in groups if all(is_aside[j] for j in grp)]
    if len(aside) < 2:
        return list(groups)
    joined: list[tuple[int, ...]] = []
    for cl in _clusters(g, [j for grp in aside for j in grp], unit):
        parts = [grp for grp in aside if grp[0] in cl]
        if _line_spread(g, cl) > GARI_JOIN_SPREAD or _off_the_run(g, cl, max(parts, key=len)):
            joined += parts
        else:
            joined.append(cl)
    return [*(grp for grp in groups if grp not in aside), *joined]


def _off_the_run(g: _Geo, cl: Sequence[int], run: Sequence[int]) -> bool:
    """A tile of ``cl`` lies off the line through ``run`` (two tiles or more) by over
    ``GARI_JOIN_SPREAD`` of its size: a best line through them all may still pass near each, when
    one tile at an end strays (fresh render 990016/145: a manzu indicator laid off the gari's run,
    0.7 of a tile's size off its line, was read as a fourth gari)."""
    if len(run) < 2 or len(run) == len(cl):
        return False
    d, centre = _principal(g.pts[list(run)])
    normal = np.array([-d[1], d[0]])
    size = float(np.median(g.size[list(cl)]))
    return any(abs(float((g.pts[j] - centre) @ normal)) > GARI_JOIN_SPREAD * size for j in cl if j not in run)


def _one_set(max_indicators: int) -> int:
    """One set of indicators in an allowance of ``max_indicators`` (dora and ura-dora, one more of
    each per kan): the dora ones, or the ura-dora ones."""
    return max(1, max_indicators // 2)


def split_apart(
    groups: Iterable[Sequence[int]],
    cls_of: Mapping[int, int],
    aside_kinds: frozenset[int],
    max_indicators: int | None = None,
    walled: frozenset[int] = frozenset(),
    along: Mapping[int, float] | None = None,
    indicator_shown: bool = True,
    hand_middle: float | None = None,
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Tiles apart as (dora indicators, set-aside tiles), by cluster, nearest cluster first: a
    cluster of set-aside kinds only (Totenko's manzu) is set aside, unless it lies in a dead wall
    (``walled``: players flip the indicator in place); in a cluster with any other tile they are
    indicators too. Face-down tiles are neither. The nearest cluster of indicators
    is taken whole (up to ``max_indicators`` faces, one more while at most
    ``OVER_LIMIT_MAX_FACES``, fewer than a background row); a further
    cluster only while the indicators stay within ``max_indicators`` and it holds no more than one
    set of indicators (half ``max_indicators``: the dora or the ura-dora ones): past that it is
    someone's discards (a short line of them beyond a lone indicator read as five more).

    A photo shows the dora indicator (the conventions ask for it; unless ``indicator_shown`` is
    false), so when no cluster is one and several clusters are set aside, the leftmost ``along``
    the hand (the nearest, without positions) is it, if it has no more tiles than the dora
    indicators alone (half ``max_indicators``: one, and one per kan): gari are laid by the melds,
    at the hand's right. One set-aside cluster alone is the indicator too when it lies left of
    ``hand_middle`` (the middle of the span ``along`` it of the concealed tiles and melds), else
    it stays set aside: the indicator may be out of the picture.

    >>> split_apart([(1, 2), (3,), (4, 5, 6)], {1: 0, 2: 9, 3: 8, 4: 1, 5: 2, 6: 3}, frozenset({0, 8}), 2)
    ((1, 2), (3,))
    >>> split_apart([(1, 2), (3,)], {1: 0, 2: 8, 3: 8}, frozenset({0, 8}), 2, along={1: 9.0, 2: 10.0, 3: 2.0})
    ((3,), (1, 2))
    >>> split_apart([(1, 2), (3,)], {1: 0, 2: 8, 3: 8}, frozenset({0, 8}), 2, along={1: 9.0, 2: 10.0, 3: 2.0},
    ...             indicator_shown=False)
    ((), (1, 2, 3))
    >>> split_apart([(1,), (2, 3, 4, 5)], {1: 27, 2: 30, 3: 7, 4: 12, 5: 20}, frozenset(), 6)
    ((1,), ())
    >>> split_apart([(3,)], {3: 8}, frozenset({0, 8}), 2)
    ((), (3,))
    >>> split_apart([(3,)], {3: 8}, frozenset({0, 8}), 2, along={3: 2.0}, hand_middle=5.0)
    ((3,), ())
    """
    dora: list[int] = []
    aside: list[list[int]] = []
    clusters = 0
    for grp in groups:
        faces = [d for d in grp if cls_of[d] != BACK]
        if not faces:
            continue
        if all(kind(cls_of[d]) in aside_kinds for d in faces) and not any(d in walled for d in faces):
            aside.append(faces)
            continue
        if clusters == 0:  # one more than the rules allow still reads as indicators (and is seen)
            fits = len(faces) < BACKGROUND_ROW_TILES and (
                max_indicators is None
                or len(faces) <= max_indicators
                or (len(faces) == max_indicators + 1 and len(faces) <= OVER_LIMIT_MAX_FACES)
            )
        else:  # ... and a further one no larger than one set of indicators
            fits = max_indicators is None or (
                len(dora) + len(faces) <= max_indicators and len(faces) <= _one_set(max_indicators)
            )
        if fits:
            dora.extend(faces)
            clusters += 1

    def mean_along(grp: Sequence[int]) -> float:
        return float(np.mean([(along or {}).get(d, 0.0) for d in grp]))

    if not dora and aside and indicator_shown:
        first = min(aside, key=mean_along)
        lone_left = (
            len(aside) == 1
            and along is not None
            and hand_middle is not None
            and (all(d in along for d in first) and mean_along(first) < hand_middle)
        )
        if (len(aside) > 1 or lone_left) and (max_indicators is None or len(first) <= _one_set(max_indicators)):
            dora = first
            aside.remove(first)
    return tuple(dora), tuple(d for grp in aside for d in grp)


def _face_turned(g: _Geo, j: int, row: Row, min_sure: float = TURNED_SURE) -> bool | None:
    """Whether tile ``j``'s face is turned from the way the hand's faces look: sideways to them
    (``TURNED_AXIS_DEG``), or (at least ``min_sure`` of its top) upside down; ``None`` where its
    angle is unknown."""
    a = g.angles[j]
    if np.isnan(a):
        return None
    d = np.array(row.direction)
    up = np.array([d[1], -d[0]])
    top = _face_top(a)
    return abs(float(top @ d)) > TURNED_AXIS_SIN or (bool(g.sure[j] >= min_sure) and float(top @ up) < -0.5)


def _turned_away(g: _Geo, group: Sequence[int], row: Row) -> bool:
    """Most faces of ``group`` (with known angles) turned from the way the hand's faces look (a
    lone tile's top counts upside down only from ``LONE_TURNED_SURE``)."""
    min_sure = LONE_TURNED_SURE if len(group) <= LONE_TURNED_MAX else TURNED_SURE
    turned = [t for j in group if (t := _face_turned(g, j, row, min_sure)) is not None]
    return bool(turned) and len(turned) == len(group) and 2 * sum(turned) > len(turned)


def _peel_upright(g: _Geo, group: Sequence[int], row: Row) -> list[tuple[int, ...]]:
    """A cluster of mostly turned faces (someone's discards) that an indicator touches: its
    faces upright to the hand, sure of their top (at most ``PEEL_MAX`` of them, each nearer the
    hand than the turned ones' middle and touching none of them closer than ``PEEL_MIN_GAP``), as
    clusters of their own, and the rest; else the cluster."""
    if len(group) < 3 or not _turned_away(g, group, row):
        return [tuple(group)]
    upright = [j for j in group if _face_turned(g, j, row) is False and g.sure[j] >= TURNED_SURE]
    rest = [j for j in group if j not in upright]
    if not upright or len(upright) > PEEL_MAX:
        return [tuple(group)]
    hand = list(row.dets)
    middle = np.mean(g.pts[rest], axis=0)
    gap_to_hand = float(np.min(np.linalg.norm(g.pts[hand] - middle, axis=1)))
    if any(
        _nearest(g, hand, (j,)) >= gap_to_hand or _nearest(g, rest, (j,)) < PEEL_MIN_GAP * row.unit for j in upright
    ):
        return [tuple(group)]
    return [*_clusters(g, upright, row.unit), tuple(rest)]


def _pond_like(
    g: _Geo,
    group: Sequence[int],
    row: Row,
    background: Sequence[set[int]],
    strays: set[int],
    med_size: float,
    walled: set[int],
    is_aside: Sequence[bool],
    doubtful: frozenset[int] = frozenset(),
) -> bool:
    """A cluster apart that is someone's discards, not indicators (none of it in a dead wall or set
    aside): turned away, in rows, beside a background line, touching stray tiles, or running on
    into doubtful ones in its line."""
    return not any(j in walled or is_aside[j] for j in group) and (
        _turned_away(g, group, row)
        or _in_rows(g, group)
        or _beside_background(g, group, background, row, med_size)
        or _touches(g, group, strays, row.unit, med_size)
        or _line_into_doubtful(g, group, doubtful, row.unit)
    )


def _line_into_doubtful(g: _Geo, group: Sequence[int], doubtful: frozenset[int], unit: float) -> bool:
    """``group`` runs on, in one line (``POND_ROW_SPREAD``), into ``doubtful`` tiles touching it
    to ``BACKGROUND_RUN_TILES`` tiles or more: someone's row of discards that the frame cuts, its
    cut tiles read doubtfully (a sliver even as a back) and so left out, the whole ones beside them
    looking like indicators (fresh renders 990015/18 and 990016/186 read exactly; nothing else
    read otherwise on the 5,100 renders, nor on the real rack photos, which show no indicator)."""
    if not doubtful:
        return False
    grown = list(group)
    _take_near(g, sorted(doubtful), grown, grown, CLUSTER_UNITS * unit, lambda j: True)
    return len(grown) > len(group) and len(grown) >= BACKGROUND_RUN_TILES and not _in_rows(g, grown)


def _near_line(g: _Geo, group: Sequence[int], line: _Line) -> tuple[int, ...]:
    """The tiles of a pond-like cluster nearest the hand's line (within ``NEAR_LINE_BAND`` tile
    sizes across it of the nearest), when they are few (``NEAR_LINE_MAX``) and the rest lies a row
    further (``NEAR_LINE_BEYOND``): indicators laid between the hand and someone's discards (the
    caller asks only when no other cluster shows one: a pond's short first row looks the same);
    else none."""
    if len(group) < NEAR_LINE_MAX + 2:
        return ()
    d = line.direction
    normal = np.array([-d[1], d[0]])
    idx = np.array(group)
    size = float(np.median(g.size[idx]))
    v = np.abs((g.pts[idx] - line.point) @ normal) / size
    near = v <= v.min() + NEAR_LINE_BAND
    if near.sum() > NEAR_LINE_MAX or v[~near].min() < v.min() + NEAR_LINE_BEYOND:
        return ()
    return tuple(int(j) for j in idx[near])


def _split_near_line(g: _Geo, group: tuple[int, ...], line: _Line, row: Row) -> tuple[tuple[int, ...], ...]:
    """``group`` parted into its tiles nearest the hand's line and the rest when :func:`_near_line`
    finds such a few and the rest, unlike them, is turned from the way the hand's faces look
    (:func:`_turned_away`), or lies past the rest's own row pitch (:func:`_past_row_pitch`, felt
    between: selection renders 990013/272 and /137 read exactly, nothing else changed on 4,600):
    indicators laid between the hand and someone's discards, touching them. Else whole: a pond's
    short first row, facing as the hand does, looks the same."""
    near = _near_line(g, group, line)
    rest = tuple(j for j in group if j not in near)
    if not near:
        return (group,)
    if (_turned_away(g, rest, row) and not _turned_away(g, near, row)) or _past_row_pitch(g, near, set(rest)):
        return near, rest
    return (group,)


def _in_rows(g: _Geo, group: Sequence[int]) -> bool:
    """The tiles of ``group`` lie in more than one line (their centres stray from the best line
    through them by over ``POND_ROW_SPREAD`` tile sizes): rows of discards, not indicators, which
    lie in the dead wall's one line."""
    return _line_spread(g, group) > POND_ROW_SPREAD


def _line_spread(g: _Geo, group: Sequence[int]) -> float:
    """How far the centres of ``group`` stray from the best line through them, in tile sizes (0
    for fewer than three)."""
    if len(group) < 3:
        return 0.0
    pts = g.pts[list(group)]
    centred = pts - pts.mean(axis=0)
    _, _, vt = np.linalg.svd(centred, full_matrices=False)
    return float(np.abs(centred @ vt[1]).max()) / float(np.median(g.size[list(group)]))


def _mean_top(g: _Geo, dets: Iterable[int], min_sure: float = 0.0) -> np.ndarray | None:
    """The mean of the face-top vectors of ``dets`` with a known angle, whose top the classifier
    is at least ``min_sure`` of (None: none known)."""
    tops = [_face_top(float(g.angles[j])) for j in dets if not np.isnan(g.angles[j]) and g.sure[j] >= min_sure]
    return np.mean(tops, axis=0) if tops else None


def _doubtful(d: Detection) -> bool:
    """A tile apart too doubtful to be an indicator or a set-aside tile (``APART_MIN_CONF``,
    ``APART_MIN_TILE_SHARE``): on real photos mostly felt and floorboards."""
    return d.confidence < APART_MIN_CONF or d.tile_share < APART_MIN_TILE_SHARE


def _nearest(g: _Geo, a: Iterable[int], b: Iterable[int], ref_size: float | None = None) -> float:
    """The least distance between the centres of two groups of detections; with ``ref_size``, each
    pair's measured in tiles of that size (scaled by the pair's mean size: farther tiles are
    smaller, and so are the gaps between them)."""
    ia, ib = sorted(a), sorted(b)
    dist = np.linalg.norm(g.pts[ia][:, None, :] - g.pts[ib][None, :, :], axis=2)
    if ref_size is not None:
        dist = dist * (2.0 * ref_size / (g.size[ia][:, None] + g.size[ib][None, :]))
    return float(np.min(dist))


def _beside_background(
    g: _Geo, group: Sequence[int], background: Sequence[set[int]], row: Row, ref_size: float | None = None
) -> bool:
    """A tile of ``group`` touches a background line's (``CLUSTER_UNITS``) and its faces do not
    look the other way (a line whose faces disagree, ``FACES_DISAGREE``, looks no way), or they
    do but look away from the hand's too (upside down to ``row``'s: fresh render 990015/267, a
    pond's tile laid upside down): the pond's next row (indicators may lie by someone else's pond,
    facing the player). Only the tops the classifier is sure of (``TURNED_SURE``) count: a far or
    cut tile's top is a guess.
    With ``ref_size`` (the hand's tile size) "touching" is measured in the tiles' own size: the
    pond lies farther than the hand, its tiles smaller and its gaps too (on 1,000 fresh selection
    renders 874 read exactly against 870; with the true detections 33 wrong against 36)."""
    top = _mean_top(g, group, TURNED_SURE)
    d = row.direction
    upside_down = top is not None and float(top @ np.array([d[1], -d[0]])) < -0.5
    for bg in background:
        if not bg or _nearest(g, bg, group, ref_size) > CLUSTER_UNITS * row.unit:
            continue
        if _past_row_pitch(g, group, bg):
            continue
        theirs = _mean_top(g, bg)
        if (
            top is None
            or theirs is None
            or float(np.linalg.norm(theirs)) < FACES_DISAGREE
            or float(top @ theirs) > 0
            or upside_down
        ):
            return True
    return False


def _past_row_pitch(g: _Geo, group: Sequence[int], pond: set[int]) -> bool:
    """``group`` lies farther from ``pond`` (a background line, or the rest of a cluster) than
    ``POND_PITCH_OVER`` times the pond's own pitch that way: felt between them, not the pond's next
    row, whose rows touch (in a steep photo a pond's rows lie a fraction of a tile's size apart,
    less than the gap before indicators laid by it). The step is from the pond's tile nearest
    ``group`` to the nearest tile of ``group`` (scaled to the pond's tile size); the pitch, the
    median over the pond's tiles of the way to the nearest face-up tile behind each, that way
    (within ``POND_STEP_DEG``, at least ``POND_ROW_MIN`` of its size off, not a second box of it:
    ``DUPLICATE_IOU``), the median riding over tiles the localizer missed. False where no tile lies
    behind any."""
    idx, mine = sorted(pond), list(group)
    dist = np.linalg.norm(g.pts[mine][:, None, :] - g.pts[idx][None, :, :], axis=2)
    a, b = np.unravel_index(int(np.argmin(dist)), dist.shape)
    step = g.pts[mine[a]] - g.pts[idx[b]]
    gap = float(np.linalg.norm(step))
    if gap == 0.0:
        return False
    way = step / gap
    gap *= 2.0 * g.size[idx[b]] / (g.size[idx[b]] + g.size[mine[a]])  # a larger tile's centre lies farther
    cos_min = math.cos(math.radians(POND_STEP_DEG))
    others = ~g.backs
    others[mine] = False
    pitches = []
    for p in idx:
        back = g.pts[p] - g.pts
        far = np.linalg.norm(back, axis=1)
        behind = np.flatnonzero(others & (far >= POND_ROW_MIN * g.size[p]) & (back @ way >= cos_min * far))
        steps = [float(far[q]) for q in behind if iou(g.dets[q].box, g.dets[p].box) < DUPLICATE_IOU]
        if steps:
            pitches.append(min(steps))
    return bool(pitches) and gap > POND_PITCH_OVER * float(np.median(pitches))


def _touches(g: _Geo, group: Sequence[int], strays: set[int], unit: float, ref_size: float | None = None) -> bool:
    """A tile of ``group`` touches (``CLUSTER_UNITS``) one of ``strays``: face-up tiles beyond
    the near zone (or of another size) that are no background line. A group that runs on into
    them is the near end of someone's discards; indicators lie alone or in the dead wall. On the
    selection renders: 449 of 500 read exactly against 447, totenko/kansai_boo 196 of 250 against
    195. Doubtful tiles (:func:`_doubtful`) do not count. With ``ref_size`` (the hand's tile size)
    "touching" is measured in the tiles' own size, as by :func:`_beside_background`: discards
    farther away are smaller and so are their gaps (selection render 990012/279 read exactly, no
    other reading changed on the 5,100 renders)."""
    return bool(strays) and _nearest(g, strays, group, ref_size) <= CLUSTER_UNITS * unit


def _cut_by_the_edge(
    g: _Geo, inside: list[int], outside: list[int], unit: float, admits: Callable[[int], bool]
) -> list[int]:
    """The tiles of ``outside`` (that ``admits``) completing a cluster (touching: ``CLUSTER_UNITS``)
    of ``inside`` that holds ``EDGE_CUT_INSIDE`` of them or more and ``EDGE_CUT_MAX`` tiles in all:
    a set of indicators the near zone's edge cuts."""
    grown = list(inside)
    _take_near(g, list(outside), grown, grown, CLUSTER_UNITS * unit, admits)
    out: list[int] = []
    for cluster in _clusters(g, grown, unit):
        beyond = [j for j in cluster if j not in inside]
        if beyond and len(cluster) - len(beyond) >= EDGE_CUT_INSIDE and len(cluster) <= EDGE_CUT_MAX:
            out += beyond
    return out


def _take_near(
    g: _Geo, pool: list[int], into: list[int], reach: list[int], within: float, admits: Callable[[int], bool]
) -> None:
    """Move tiles from ``pool`` to ``into`` while one lies within ``within`` pixels of ``reach``
    (which grows with them) and ``admits`` it."""
    grew = bool(reach)
    while grew:
        grew = False
        for j in list(pool):
            if admits(j) and _nearest(g, reach, (j,)) <= within:
                into.append(j)
                pool.remove(j)
                if reach is not into:
                    reach.append(j)
                grew = True


@dataclass(frozen=True)
class _DeadWall:
    """A dead wall in view: its face-up tiles (the indicators) and all its tiles."""

    faces: frozenset[int]
    tiles: tuple[int, ...]


def _dead_walls(g: _Geo, lines: Sequence[_Line], is_aside: Sequence[bool]) -> list[_DeadWall]:
    """Each dead wall in view: a run of a line's touching tiles with at least ``DEAD_WALL_BACKS``
    face-down tiles and a face-up one. Players flip the indicators in place, so its face-up tiles
    are the indicators, all of them or none, and a pond beyond them is not (nor the tiles set
    aside beyond its last back: ``is_aside``, see :func:`_wall_part`)."""
    out: list[_DeadWall] = []
    for line in lines:
        for run in _line_runs(g, line, lambda gap: gap >= DEAD_WALL_GAP):
            run = _wall_part(run, [is_aside[r.det] for r in run])
            faces = frozenset(r.det for r in run if not r.back)
            if all(_sliver(g.dets[r.det]) for r in run):
                continue
            if sum(r.back for r in run) >= DEAD_WALL_BACKS and 0 < len(faces) <= DEAD_WALL_MAX_FACES:
                out.append(_DeadWall(faces, tuple(r.det for r in run)))
    return out


def _sliver(d: Detection) -> bool:
    """A box the photo's edge cuts to a strip (its short side under ``SLIVER_SHARE`` of its long):
    a tile's edge or side, whose face cannot be read."""
    return d.cut and min(d.width, d.height) < SLIVER_SHARE * max(d.width, d.height)


def _wall_part(run: list[RowTile], aside: Sequence[bool]) -> list[RowTile]:
    """``run`` less the face-up tiles at either end that lie ``WALL_FACE_GAP`` or more beyond its
    outermost face-down tiles: a wall's stacks touch, and its indicators are flipped in place
    between them, so a tile laid a gap beyond is not one of them (Totenko's gari beside the wall:
    selection render 990013/027 read a 9m set aside as a fourth indicator). Nor are end tiles
    past its outermost face-down ones that are all of a kind set aside (``aside``, per tile), gap
    or none: gari laid on against the wall (fresh render 990016/267: 1m 0m 0m, read as
    indicators and then dropped)."""
    backs = [k for k, r in enumerate(run) if r.back]
    if not backs:
        return run
    end = next(
        (k for k in range(backs[-1] + 1, len(run)) if run[k].gap_before >= WALL_FACE_GAP or all(aside[k:])), len(run)
    )
    start = next((k for k in range(backs[0], 0, -1) if run[k].gap_before >= WALL_FACE_GAP or all(aside[:k])), 0)
    return run[start:end]


def _extend_wall(g: _Geo, wall: _DeadWall, skip: set[int]) -> _DeadWall:
    """``wall`` taken on at both ends through the tiles touching it in its direction (see
    ``WALL_STEP_ALONG``), up to the last face-down tile reached; ``skip``: detections not to take."""
    idx = list(wall.tiles)
    pts = g.pts[idx]
    d = pts[-1] - pts[0]
    length = float(np.hypot(*d))
    if len(idx) < 2 or length <= 0:
        return wall
    d = d / length
    normal = np.array([-d[1], d[0]])
    pitch = float(np.median(np.hypot(*np.diff(pts, axis=0).T)))
    size = float(np.median(g.size[idx]))
    taken = set(idx) | skip
    faces, tiles = set(wall.faces), list(idx)
    for end, step in ((idx[-1], d), (idx[0], -d)):
        chain: list[int] = []
        at = end
        while len(chain) < WALL_STEP_MAX:
            rel = g.pts - g.pts[at]
            along, across = rel @ step, np.abs(rel @ normal)
            ok = (
                (along >= WALL_STEP_ALONG[0] * pitch)
                & (along <= WALL_STEP_ALONG[1] * pitch)
                & (across <= WALL_STEP_ACROSS * size)
            )
            nxt = [j for j in np.flatnonzero(ok).tolist() if j not in taken and j not in chain]
            if not nxt:
                break
            at = min(nxt, key=lambda j: float(along[j]))
            chain.append(at)
        backs = [k for k, j in enumerate(chain) if g.backs[j]]
        if backs:
            chain = chain[: backs[-1] + 1]
            faces |= {j for j in chain if not g.backs[j]}
            tiles += chain
            taken |= set(chain)
    return _DeadWall(frozenset(faces), tuple(tiles)) if len(tiles) > len(idx) else wall


def _share_inside(a: Detection, b: Detection) -> float:
    """The share of ``a``'s box that lies in ``b``'s."""
    iw = min(a.box[2], b.box[2]) - max(a.box[0], b.box[0])
    ih = min(a.box[3], b.box[3]) - max(a.box[1], b.box[1])
    return iw * ih / ((a.box[2] - a.box[0]) * (a.box[3] - a.box[1])) if iw > 0 and ih > 0 else 0.0


def _overlap(a: Detection, b: Detection) -> bool:
    """Whether two boxes overlap at all."""
    return _share_inside(a, b) > 0.0


def second_boxes_on(dets: Sequence[Detection], tiles: Sequence[int]) -> list[int]:
    """The boxes taken for a second box of a tile (:func:`_duplicates`) that overlap one of
    ``tiles`` and read as the same kind: on a pon, the fourth tile of a kan whose boxes overlap, in
    the photo, as one tile's two boxes do (selection render 990011/460, a 3s kan at 40°)."""
    kinds = {kind(dets[i].cls) for i in tiles if dets[i].cls != BACK}
    return [
        j
        for j in sorted(_duplicates(dets))
        if j not in tiles
        and dets[j].cls != BACK
        and kind(dets[j].cls) in kinds
        and any(_overlap(dets[j], dets[i]) for i in tiles)
    ]


def row_duplicates(dets: Sequence[Detection], row: Row) -> frozenset[int]:
    """The detections taken for a second box of a tile (:func:`_duplicates`) that lie on ``row``'s
    line (within ``ROW_REFINE_TOL`` tile sizes across it, at most ``READMIT_BEYOND`` tile widths
    past its ends) and read as another tile than every row tile they overlap, or lie in a hole of
    the row (:func:`_in_a_hole`: two equal tiles side by side): seen steeply, neighbours in a
    packed row overlap in the photo as much as one tile's two boxes do, and the row then lacks a
    tile; or lie past an end of the row (:func:`_past_an_end`: a tile the frame cuts). For the
    reader's last resort when the row's count fits no hand."""
    if not row.tiles or len(dets) < 2:
        return frozenset()
    g = _geo(dets)
    inside = {t.det for t in row.tiles} | {t.stacked for t in row.tiles if t.stacked is not None}
    candidates = [j for j in sorted(_duplicates(dets)) if j not in inside and dets[j].cls != BACK]
    if not candidates:
        return frozenset()
    members = [t.det for t in row.tiles]
    d = np.array(row.direction)
    normal = np.array([-d[1], d[0]])
    point = g.pts[members].mean(axis=0)
    u = (g.pts[members] - point) @ d
    size = float(np.median(g.size[members]))
    pitch = float(np.median(np.diff(np.sort(u)))) if len(u) > 1 else row.unit
    out = set()
    for j in candidates:
        rel = g.pts[j] - point
        along = float(rel @ d)
        if (
            abs(float(rel @ normal)) <= ROW_REFINE_TOL * size
            and u.min() - READMIT_BEYOND * row.unit <= along <= u.max() + READMIT_BEYOND * row.unit
            and (
                not any(dets[i].cls == dets[j].cls and _overlap(dets[i], dets[j]) for i in inside)
                or _in_a_hole(u, along, pitch)
                or _past_an_end(u, along, pitch)
            )
        ):
            out.add(j)
    return frozenset(out)


def _past_an_end(u: np.ndarray, along: float, pitch: float) -> bool:
    """``along`` lies past an end of the row's tiles (at ``u``) by at least ``READMIT_OFFSET`` of
    a pitch: a tile the frame cuts beyond the row's last one gets a clipped box that lies mostly
    inside its neighbour's, but off its centre (a tile's second box lies on the tile).

    >>> u = np.array([0.0, 1.0, 2.0])
    >>> _past_an_end(u, -0.4, 1.0), _past_an_end(u, 2.3, 1.0), _past_an_end(u, 2.1, 1.0)
    (True, True, False)
    """
    return along <= float(u.min()) - READMIT_OFFSET * pitch or along >= float(u.max()) + READMIT_OFFSET * pitch


def _in_a_hole(u: np.ndarray, along: float, pitch: float) -> bool:
    """``along`` lies where the row's tiles (at ``u``) leave room for one more: its neighbours on
    either side at least ``READMIT_HOLE`` pitches apart, and it at least ``READMIT_OFFSET`` of one
    from the nearer (a tile's second box lies on the tile).

    >>> u = np.array([0.0, 1.0, 2.0, 3.6, 4.6])
    >>> _in_a_hole(u, 2.8, 1.0), _in_a_hole(u, 2.1, 1.0), _in_a_hole(u, 0.5, 1.0)
    (True, False, False)
    """
    left, right = u[u < along], u[u > along]
    if not len(left) or not len(right):
        return False
    lo, hi = float(left.max()), float(right.min())
    return hi - lo >= READMIT_HOLE * pitch and min(along - lo, hi - along) >= READMIT_OFFSET * pitch


# ---------------------------------------------------------------------------------- entry point
def analyse_layout(
    dets: Sequence[Detection],
    rules: str = "riichi",
    readmit: frozenset[int] = frozenset(),
    drop: frozenset[int] = frozenset(),
) -> Layout:
    """Rows, groups, melds, winning-tile candidates and tiles apart, from geometry alone.

    The ruleset only says which tile kinds are set aside (by the detections' top class).
    ``readmit``: detections to take as tiles though they overlap a surer one (see
    :func:`row_duplicates`). ``drop``: detections to take for no tile (see
    :func:`paiscan.vision.reading.read_hand`: a face-down box among the concealed tiles).
    """
    dets = tuple(dets)
    aside_kinds = set_aside_kinds(rules)
    if len(dets) < MIN_ROW_TILES:
        return Layout(dets, rules, (), (), aside_kinds)
    g = _geo(dets)
    duplicates = (_duplicates(dets) - readmit) | drop
    is_aside = [d.cls != BACK and kind(d.cls) in aside_kinds for d in dets]
    lines, _loose = _extract_lines(g, duplicates, is_aside)

    def line_dets(line: _Line) -> list[int]:
        return [*line.members, *line.stacked.values()]

    def background_part(line: _Line) -> set[int]:
        """The line's runs (cut at gaps over ``BACKGROUND_GAP``) of ``BACKGROUND_RUN_TILES`` faces or
        more: a short cluster across a gap (indicators) is no part of a row of discards."""
        out: set[int] = set()
        for run in _line_runs(g, line, lambda gap: gap > BACKGROUND_GAP):
            if sum(not r.back for r in run) >= BACKGROUND_RUN_TILES:
                run = _pond_run(g, run)
                out |= {r.det for r in run} | {r.stacked for r in run if r.stacked is not None}
        return out

    background = [  # (face-down tiles do not count: a dead wall is a line of backs with the indicators)
        part
        for line in lines
        if sum(not g.backs[i] for i in line.members) >= BACKGROUND_ROW_TILES
        and not all(is_aside[i] for i in line.members)
        and (part := background_part(line))
    ]
    walls = [_extend_wall(g, wall, duplicates) for wall in _dead_walls(g, lines, is_aside)]
    walled: set[int] = set().union(*(w.faces for w in walls))
    # no discards hold a tile the ruleset sets aside (Totenko's manzu, gari the moment they are
    # drawn): such tiles in a line of discards are gari laid on past it (fresh render 990016/34)
    background = [{j for j in bg - walled if not is_aside[j]} for bg in background]
    rows = [_make_row(g, line, (), orient=False) for line in lines]
    order = [i for i, line in enumerate(lines) if HAND_MIN_TILES <= len(line.members) <= HAND_MAX_TILES]
    if not order and lines:
        order = [max(range(len(lines)), key=lambda i: len(lines[i].members))]
    candidates: list[HandRow] = []
    for i in order:
        line = lines[i]
        mine = set(line_dets(line))
        dups = duplicates | {
            j
            for j in range(len(dets))
            if j not in mine and any(_share_inside(dets[j], dets[m]) >= APART_OVER_ROW_TILE for m in mine)
        }
        med_size = float(np.median(g.size[line.members]))
        first = _make_row(g, line, (), orient=False)
        apart: list[int] = []
        unused: list[int] = []
        near = NEAR_UNITS * first.unit + med_size

        def near_hand(j: int, members: list[int] = line.members) -> float:
            return _nearest(g, members, (j,))

        def may_lie_apart(j: int, mine: set[int] = mine, med_size: float = med_size, dups: set[int] = dups) -> bool:
            """A face-up tile of the hand's size, sure enough, in no other line of discards."""
            return (
                dets[j].cls != BACK
                and j not in dups
                and not _doubtful(dets[j])
                and not any(j in bg for bg in background if not bg & mine)
                and SIZE_RATIO[0] <= g.size[j] / med_size <= SIZE_RATIO[1]
            )

        for j in range(len(dets)):
            if j not in mine:
                (apart if may_lie_apart(j) and near_hand(j) <= near else unused).append(j)
        cut = _cut_by_the_edge(g, apart, unused, first.unit, may_lie_apart)
        apart += cut
        unused = [j for j in unused if j not in cut]
        reach = list(apart)
        for wall in walls:  # a dead wall near enough (any of its tiles) is taken whole, its far indicators too
            if not wall.faces & mine and min(near_hand(j) for j in wall.tiles) <= near:
                apart += [j for j in sorted(wall.faces) if j in unused and j not in dups]
                unused = [j for j in unused if j not in wall.faces or j in dups]
                reach += wall.tiles
        # gari lie by the melds, or beyond the indicators: set-aside tiles as near what was taken join
        # it, unless they touch other face-up tiles left out (the edge of someone's discards)
        discards = {
            j for j in unused if dets[j].cls != BACK and not is_aside[j] and j not in dups and not _doubtful(dets[j])
        }

        def gari(j: int, discards: set[int] = discards, unit: float = first.unit) -> bool:
            return is_aside[j] and may_lie_apart(j) and not _touches(g, (j,), discards, unit)

        _take_near(g, unused, apart, reach, near, gari)
        row = _make_row(g, line, apart)
        rows[i] = row
        top_aside = [is_aside[t.det] for t in row.tiles]
        # end tiles with no gap before them left out only as a last resort (see loose_structures)
        structures = _merge(_row_structures(row, top_aside, False))
        loose = not structures
        if loose:
            structures = _merge(_row_structures(row, top_aside, True))
        n = len(row.tiles)
        count_fit = 1.0 if 13 <= n <= 22 else 0.6
        parts = [
            part
            for grp in _clusters(g, apart, row.unit)
            for part in _peel_upright(g, grp, row)
            for part in _split_near_line(g, part, line, row)
        ]
        groups = tuple(
            sorted(
                _join_set_aside(g, parts, is_aside, max(row.unit, GARI_JOIN_SIZE * med_size)),
                key=lambda grp: _nearest(g, line.members, grp),
            )
        )  # nearest the hand first
        others = [bg for bg in background if not bg & mine]
        strays = {
            j
            for j in unused
            if j not in mine
            and j not in dups
            and j not in walled
            and dets[j].cls != BACK
            and not _doubtful(dets[j])
            and not any(j in bg for bg in others)
        }
        doubtful = frozenset(
            j for j in range(len(dets)) if j not in mine and j not in dups and j not in walled and _doubtful(dets[j])
        )
        ponds = [grp for grp in groups if _pond_like(g, grp, row, others, strays, med_size, walled, is_aside, doubtful)]
        if ponds and len(ponds) == len(groups):  # no indicator in view: perhaps laid against a pond
            near_parts = [
                nearest_line
                for grp in ponds
                if (nearest_line := _near_line(g, grp, line))
                and not _pond_like(g, nearest_line, row, others, strays, med_size, walled, is_aside, doubtful)
            ]
            taken = {j for part in near_parts for j in part}
            ponds = [rest for grp in ponds if (rest := tuple(j for j in grp if j not in taken))]
            groups = tuple(sorted(near_parts, key=lambda grp: _nearest(g, line.members, grp)))
        if ponds:
            unused += [j for grp in ponds for j in grp]
            groups = tuple(grp for grp in groups if grp not in ponds)
            apart = [j for j in apart if any(j in grp for grp in groups)]
        # the dead wall shows the indicators, unless every face it shows is doubtful (someone's discards
        # cut by the photo's edge look like a wall: fresh render 990015/867 lost its sure indicator)
        if any(j in walled and not _doubtful(dets[j]) for grp in groups for j in grp):
            # ... its face-up tiles, not the discards touching it, and the tiles set aside
            keep = [
                kept
                for grp in groups
                if (kept := tuple(j for j in grp if j in walled or is_aside[j]))
                and (any(j in walled for j in grp) or len(kept) == len(grp))
            ]
            kept_tiles = {j for grp in keep for j in grp}
            unused += [j for grp in groups for j in grp if j not in kept_tiles]
            apart = [j for j in apart if j in kept_tiles]
            groups = tuple(keep)
        top = {j: dets[j].cls for j in apart}
        wall_apart = frozenset(j for j in apart if j in walled)
        direction = np.array(row.direction)
        along = {j: float((g.pts[j] - line.point) @ direction) for j in (*row.dets, *apart)}
        candidates.append(
            HandRow(
                row,
                tuple(structures),
                _best_effort(row),
                tuple(apart),
                tuple(unused),
                med_size * count_fit,
                groups,
                split_apart(groups, top, aside_kinds, walled=wall_apart, along=along)[1],
                wall_apart,
                tuple(along.items()),
                tuple(top_aside),
                loose,
            )
        )
    candidates.sort(key=lambda c: -c.prior)
    return Layout(dets, rules, tuple(rows), tuple(candidates), aside_kinds)


__all__ = [
    "HandRow",
    "Layout",
    "MeldShape",
    "Row",
    "RowTile",
    "Structure",
    "analyse_layout",
    "loose_structures",
    "max_indicators",
    "row_duplicates",
    "second_boxes_on",
    "set_aside_kinds",
    "split_apart",
]
