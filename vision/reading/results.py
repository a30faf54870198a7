"""What a reading answers: :class:`Reading`, its readings (:class:`Candidate`), melds, questions and problems."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from paiscan.scoring.tiles import BACK, format_tiles, tile_name
from paiscan.vision.detection import Detection
from paiscan.vision.layout import (
    HandRow,
    Layout,
    Structure,
)

#: Hand fields the photo decides (the context's are ignored); dora_indicators and nuki from the
#: context replace the photo's
PHOTO_FIELDS = frozenset({"hand", "melds", "win_tile", "rules"})


@dataclass(frozen=True)
class ReadMeld:
    """A meld as read: tiles (contract ids), the detections it was read from."""

    type: str
    tiles: tuple[int, ...]
    open: bool = True
    added: bool = False
    from_: str | None = None
    dets: tuple[int, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "type": self.type,
            "tiles": format_tiles(self.tiles),
            "open": self.open,
            "added": self.added,
        }
        if self.from_ is not None:
            out["from"] = self.from_
        return out

    @property
    def key(self) -> tuple[Any, ...]:
        return (self.type, tuple(sorted(self.tiles)), self.open, self.added, self.from_)


@dataclass(frozen=True)
class Candidate:
    """One reading of the photo: a hand (tiles as contract ids) and how it fared."""

    concealed: tuple[int, ...]
    win_tile: int | None
    melds: tuple[ReadMeld, ...]
    dora_indicators: tuple[int, ...]
    nuki: tuple[int, ...]
    #: (detection, class read) for every detection the reading uses
    classes: tuple[tuple[int, int], ...]
    #: (detection, role): hand, win, meld, dora, nuki
    roles: tuple[tuple[int, str], ...]
    structure: Structure
    cost: float
    #: scored, no_yaku (valid), invalid, unscored (the count does not fit: never scored)
    status: str = "unscored"
    score_total: int | None = None
    error_code: str | None = None
    error_message: str | None = None

    @property
    def valid(self) -> bool:
        return self.status in ("scored", "no_yaku")

    @property
    def key(self) -> tuple[Any, ...]:
        return (
            tuple(sorted(self.concealed)),
            self.win_tile,
            tuple(sorted(m.key for m in self.melds)),
            tuple(sorted(self.dora_indicators)),
            tuple(sorted(self.nuki)),
        )

    def class_of(self, det: int) -> int | None:
        return dict(self.classes).get(det)

    def shape(self) -> dict[str, Any]:
        """The hand structure as the contract writes it (``hand``, ``melds``, ``win_tile``,
        ``dora_indicators``, ``nuki``)."""
        return {
            "hand": format_tiles(self.concealed),
            "melds": [m.to_dict() for m in self.melds],
            "win_tile": tile_name(self.win_tile) if self.win_tile is not None else None,
            "dora_indicators": [tile_name(t) for t in self.dora_indicators],
            "nuki": format_tiles(self.nuki),
        }

    def to_dict(self) -> dict[str, Any]:
        out = self.shape()
        out["score_total"] = self.score_total
        out["status"] = self.status
        out["cost"] = round(self.cost, 3)
        if self.error_code:
            out["error"] = {"code": self.error_code, "message": self.error_message}
        return out


@dataclass(frozen=True)
class Ambiguity:
    """Something the photo leaves open: ``win_tile``, ``tile`` (one detection's class),
    ``meld_split`` (how a run of meld tiles splits), ``meld`` (which set meld ``index`` of the
    best reading is: a pon or an added kan; candidates are melds as the hand writes them) or
    ``role`` (hand tile or indicator)."""

    kind: str
    candidates: tuple[Any, ...]
    index: int | None = None
    indices: tuple[int, ...] = ()
    #: ``win_tile``: per candidate, the total of the likeliest reading with it, scored with the
    #: context given (``None``: no yaku); the answer matters to the score only where they differ
    scores: tuple[int | None, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind}
        if self.index is not None:
            out["index"] = self.index
        if self.indices:
            out["indices"] = list(self.indices)
        out["candidates"] = [list(c) if isinstance(c, tuple) else c for c in self.candidates]
        if self.scores:
            out["scores"] = list(self.scores)
        return out


@dataclass(frozen=True)
class Problem:
    """Why the photo cannot be scored as read (``code`` is stable, ``message`` for people)."""

    code: str
    message: str
    details: tuple[tuple[str, Any], ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"code": self.code, "message": self.message, **dict(self.details)}


@dataclass(frozen=True)
class Reading:
    """What :func:`read_hand` makes of a photo's detections."""

    rules: str
    detections: tuple[Detection, ...]
    layout: Layout
    best: Candidate | None
    alternatives: tuple[Candidate, ...] = ()
    ambiguities: tuple[Ambiguity, ...] = ()
    problems: tuple[Problem, ...] = ()
    context: tuple[tuple[str, Any], ...] = ()
    #: index into ``layout.candidates`` of the row read as the hand
    hand_row: int | None = None
    #: hands scored, and whether a search bound was hit (ambiguities may then be incomplete)
    evaluated: int = 0
    capped: bool = False
    notes: tuple[str, ...] = field(default=())

    @property
    def valid(self) -> bool:
        """A reading that may be scored: a valid best reading and no problems."""
        return self.best is not None and self.best.valid and not self.problems

    @property
    def row(self) -> HandRow | None:
        return self.layout.candidates[self.hand_row] if self.hand_row is not None else None

    def hand_dict(self) -> dict[str, Any] | None:
        """The best reading as a contract Hand (with the context's fields when one was given);
        ``None`` when no hand row was found. Check :attr:`valid` before scoring it."""
        if self.best is None:
            return None
        return _hand_dict(self.rules, dict(self.context), self.best)

    def offered_hands(self) -> tuple[dict[str, Any], ...]:
        """The alternatives as contract Hands: the readings the ambiguities' answers lead to."""
        ctx = dict(self.context)
        return tuple(_hand_dict(self.rules, ctx, c) for c in self.alternatives)

    def roles(self) -> tuple[str, ...]:
        """Per detection: hand, win, meld, dora, nuki or other (for drawing)."""
        roles = dict(self.best.roles) if self.best else {}
        return tuple(roles.get(i, "other") for i in range(len(self.detections)))

    def corrections(self) -> list[dict[str, Any]]:
        """Detections the best reading reads as another class than the classifier's top one."""
        if self.best is None:
            return []
        out = []
        for det, cls in self.best.classes:
            d = self.detections[det]
            if cls != d.cls and not (d.cls == BACK or cls == BACK):
                p = dict(d.topk).get(cls)
                out.append(
                    {
                        "index": det,
                        "read": tile_name(d.cls),
                        "as": tile_name(cls),
                        "probability": round(p, 4) if p is not None else None,
                    }
                )
        return out

    def to_dict(self) -> dict[str, Any]:
        roles = self.roles()
        row = self.row
        out: dict[str, Any] = {
            "detections": [{**d.to_dict(), "role": roles[i]} for i, d in enumerate(self.detections)],
            "hand": self.best.shape() if self.best else None,
            "score_total": self.best.score_total if self.best else None,
            "status": self.best.status if self.best else "none",
            "alternatives": [{**c.to_dict()} for c in self.alternatives],
            "ambiguities": [a.to_dict() for a in self.ambiguities],
            "problems": [p.to_dict() for p in self.problems],
            "corrections": self.corrections(),
            "layout": {
                "rules": self.rules,
                "row_angle_deg": round(row.row.angle_deg, 1) if row else None,
                "row_tiles": row.n_tiles if row else 0,
                "oriented_by": row.row.oriented_by if row else None,
                "readings_scored": self.evaluated,
                "capped": self.capped,
            },
        }
        if self.notes:
            out["notes"] = list(self.notes)
        return out


def _hand_dict(rules: str, ctx: Mapping[str, Any], cand: Candidate) -> dict[str, Any]:
    out: dict[str, Any] = {"rules": rules}
    out.update({k: v for k, v in ctx.items() if k not in PHOTO_FIELDS})
    out["hand"] = format_tiles(cand.concealed)
    out["melds"] = [m.to_dict() for m in cand.melds]
    if cand.win_tile is not None:
        out["win_tile"] = tile_name(cand.win_tile)
    if "dora_indicators" not in ctx:
        out["dora_indicators"] = [tile_name(t) for t in cand.dora_indicators]
    if "nuki" not in ctx:
        out["nuki"] = format_tiles(cand.nuki)
    return out
