"""Reading the hand: the layout's structures and the classifier's alternatives, arbitrated by
the scoring core.

:func:`read_hand` takes every way the geometry allows to read the hand row
(:func:`paiscan.vision.layout.analyse_layout`) and every plausible class of each tile (its top-k), and
looks at the combinations best first. A combination's **cost** adds the geometry's cost (a
winning tile without a visible gap, melds touching, ...) and, per tile read as another class than
the top one, ``ln(p_top / p_alt)``. Each distinct hand is handed to :func:`paiscan.scoring.score_hand`
with the caller's context (win, winds, flags ...):

* it is **valid** when the scoring succeeds, or fails only with ``no_yaku``: the photo shows the
  tiles, not the situation (riichi, tsumo, haitei ... are yaku the tiles cannot show), so a
  complete hand without a yaku of its own is still a right reading. It costs ``NO_YAKU_COST``
  more, though: the player won, so a reading with a yaku of its own is likelier;
* any other error (not a complete hand, five of a kind, a tile outside the ruleset's set, a chi
  of unequal suits, a manzu in a Totenko hand ...) rules the combination out.

The ruleset decides the tile set (class alternatives outside it are not tried) and what is set
aside (:func:`paiscan.vision.layout.split_apart`). Up to ``MAX_ROWS`` candidate rows are tried, most
plausible first (larger tiles, a hand-like count); the first with a valid reading is the hand.

The best valid reading is the answer; valid readings within ``DELTA`` of its cost are the
alternatives, and what differs between them is reported as ambiguities for the user to settle
(``win_tile``, ``tile``, ``meld_split``, ``meld``, ``role``). The search is bounded: at most
``MAX_READINGS`` hands are scored per candidate row and ``MAX_STATES`` combinations looked at
(``capped`` says when the bound was hit). A five of a kind, a wrong tile count or no valid reading
is reported in ``problems`` and never scored.
"""

from paiscan.vision.reading.arbitrate import (
    DELTA,
    MAX_READINGS,
    MAX_ROWS,
    MAX_STATES,
)
from paiscan.vision.reading.build import (
    COMPLETE_BUT_REFUSED,
    MAX_ALT_COST,
    MAX_ALTS_PER_TILE,
    MIN_ALT_P,
    NO_YAKU_COST,
    VALID_ERRORS,
)
from paiscan.vision.reading.questions import (
    CUT_DUPLICATE_IOU,
    CUT_LEFT_OUT_NOTE,
    CUT_NOTE,
    CUT_ROLE_NAMES,
    MISSING_INDICATOR_UNITS,
    NO_LIKELY_CLASS_P,
    UNLIKELY_CLASS_P,
    cut_note,
)
from paiscan.vision.reading.read import (
    MAX_ALTERNATIVES,
    read_hand,
    ruleset_of,
)
from paiscan.vision.reading.resorts import (
    DOUBTFUL_INNER_CONF,
    TURN_TRIES,
)
from paiscan.vision.reading.results import (
    PHOTO_FIELDS,
    Ambiguity,
    Candidate,
    Problem,
    Reading,
    ReadMeld,
)
from paiscan.vision.reading.second_looks import (
    CUT_SUIT_P,
    DOUBTFUL_INDICATOR_CONF,
    DOUBTFUL_INDICATOR_P,
    DROPPED_INDICATOR_P,
    GARI_OR_INDICATOR_COST,
    MERGED_KAN_ACROSS,
    MERGED_KAN_NEIGHBOURS,
    MISSING_INDICATOR_CONF,
)

__all__ = [
    "COMPLETE_BUT_REFUSED",
    "CUT_DUPLICATE_IOU",
    "CUT_LEFT_OUT_NOTE",
    "CUT_NOTE",
    "CUT_ROLE_NAMES",
    "CUT_SUIT_P",
    "DELTA",
    "DOUBTFUL_INDICATOR_CONF",
    "DOUBTFUL_INDICATOR_P",
    "DOUBTFUL_INNER_CONF",
    "DROPPED_INDICATOR_P",
    "GARI_OR_INDICATOR_COST",
    "MAX_ALTERNATIVES",
    "MAX_ALTS_PER_TILE",
    "MAX_ALT_COST",
    "MAX_READINGS",
    "MAX_ROWS",
    "MAX_STATES",
    "MERGED_KAN_ACROSS",
    "MERGED_KAN_NEIGHBOURS",
    "MIN_ALT_P",
    "MISSING_INDICATOR_CONF",
    "MISSING_INDICATOR_UNITS",
    "NO_LIKELY_CLASS_P",
    "NO_YAKU_COST",
    "PHOTO_FIELDS",
    "TURN_TRIES",
    "UNLIKELY_CLASS_P",
    "VALID_ERRORS",
    "Ambiguity",
    "Candidate",
    "Problem",
    "ReadMeld",
    "Reading",
    "cut_note",
    "read_hand",
    "ruleset_of",
]
