"""What the layout stage answers: row tiles, rows, meld shapes, structures, hand rows and the layout."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

import numpy as np

from paiscan.vision.detection import Detection

#: tiles a line holds at least
MIN_ROW_TILES = 3
#: a hand row (without stacked tiles) has 14 + kans tiles, 13 with one missing
HAND_MIN_TILES, HAND_MAX_TILES = 8, 24
#: short side / long side of a tile face, to turn a sideways tile's length into a tile width
SHORT_OVER_LONG = 0.75
#: sideways judgements within this log-margin of the threshold are unsure: the row is also read
#: with up to ``MAX_UNSURE`` of them reversed, at ``UNSURE_FLIP_COST + UNSURE_MARGIN_COST · margin``
UNSURE_MARGIN = 0.25
#: gaps in tile widths
SPLIT_GAP = 0.3
#: who a called tile came from, by its position in a meld of three
FROM3 = ("left", "across", "right")
#: ... and in a meld of four
FROM4 = ("left", "across", "across", "right")
#: the shapes a meld's geometry shows
MeldKind = Literal["call", "open_kan", "added_kan", "closed_kan"]


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


def _flip_tiles(tiles: Sequence[RowTile]) -> list[RowTile]:
    return _with_gaps([replace(t, u=-t.u, v=-t.v) for t in reversed(tiles)])
