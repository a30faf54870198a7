"""Game records, the replay's result: the deal, each hand as replayed, disputes, standings, and their JSON and CSV.

The frames (:mod:`paiscan.scoring.game_record_frame`) build these; :func:`paiscan.scoring.game_record.replay`
returns the :class:`GameReplay`.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from paiscan.scoring.evaluation_jun import HANDS_PER_ROUND
from paiscan.scoring.game_record_sheet import FORMAT
from paiscan.scoring.score import Score

#: dispute kinds: where the sheet and the rules disagree
POINTS_DIFFER, SCORES_DIFFER, DEAL_DIFFERS, FORBIDDEN_WIN, AFTER_END, RIICHI_DIFFERS = (
    "points_differ",
    "scores_differ",
    "deal_differs",
    "forbidden_win",
    "after_end",
    "riichi_differs",
)
#: hand status in the replay
APPLIED, REFUSED, NOT_APPLIED = "applied", "refused", "after_end"

#: why a game ended, by the reason a frame gives
END_MESSAGES: Mapping[str, str] = {
    "bust": "a score at or below 0 (ドボン)",
    "double": "a score at twice the origin",
    "all_last": "the last hand (オーラス) is over",
    "yakuman": "a yakuman ends the game with its winner A-top",
    "sixteen_hands": "the 16th hand is over",
}


@dataclass(frozen=True)
class DealState:
    """The deal before a hand: dealer (index into the players), honba, and for four players the round
    (wind index) and the hand of the round; ``pot`` holds riichi deposits not yet won."""

    dealer: int
    honba: int = 0
    round: int = 0
    number: int = 1
    pot: int = 0

    @property
    def jun_number(self) -> int:
        """Jun's hand 1..16."""
        return self.round * HANDS_PER_ROUND + self.number


@dataclass(frozen=True)
class Dispute:
    """Where the sheet and the rules disagree: the hand (``no``, 1-based; ``field`` names it in the
    record), the kind, what the sheet says and what the replay finds, and why."""

    no: int
    field: str
    kind: str
    message: str
    written: Any = None
    recomputed: Any = None
    explanation: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "no": self.no,
            "field": self.field,
            "kind": self.kind,
            "message": self.message,
            "written": self.written,
            "recomputed": self.recomputed,
            "explanation": list(self.explanation),
        }


@dataclass(frozen=True)
class HandReplay:
    """One hand as replayed: the deal it was played in, what the sheet says (``written``), the
    recomputed price (``recomputed``: total, who pays, han/fu, explanation), which one was applied,
    each player's change and score after it, and anything to look at (warnings, disputes)."""

    no: int
    label: str
    dealer: str
    honba: int
    result: str
    status: str
    deltas: Mapping[str, int]
    scores: Mapping[str, int]
    winner: str | None = None
    discarder: str | None = None
    player: str | None = None
    written: Any = None
    recomputed: Mapping[str, Any] | None = None
    applied: str | None = None
    ends: str | None = None
    warnings: tuple[str, ...] = ()
    disputes: tuple[Dispute, ...] = ()
    notes: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "no": self.no,
            "label": self.label,
            "dealer": self.dealer,
            "honba": self.honba,
            "result": self.result,
            "winner": self.winner,
            "discarder": self.discarder,
            "player": self.player,
            "status": self.status,
            "written": dict(self.written) if isinstance(self.written, Mapping) else self.written,
            "recomputed": dict(self.recomputed) if self.recomputed is not None else None,
            "applied": self.applied,
            "deltas": dict(self.deltas),
            "scores": dict(self.scores),
            "ends": self.ends,
            "warnings": list(self.warnings),
            "disputes": [d.to_dict() for d in self.disputes],
            "notes": list(self.notes),
        }


@dataclass(frozen=True)
class Standing:
    """One player's line of the result: final score, the settlement's figure (``net``), rank and result."""

    player: str
    final: int
    net: int
    rank: int
    result: str

    def to_dict(self) -> dict[str, Any]:
        return {"player": self.player, "final": self.final, "net": self.net, "rank": self.rank, "result": self.result}


@dataclass(frozen=True)
class GameReplay:
    """The replayed game: every hand, the end (``end``: reason and the hand after which it ended, or
    None when the sheet stops first: ``finished`` false and a provisional settlement), the final
    scores, the ruleset's settlement and each player's standing, and every dispute."""

    rules: str
    players: tuple[str, ...]
    start: Mapping[str, int]
    hands: tuple[HandReplay, ...]
    final: Mapping[str, int]
    finished: bool
    end: Mapping[str, Any] | None
    settlement: Mapping[str, Any]
    standings: tuple[Standing, ...]
    warnings: tuple[str, ...] = ()

    @property
    def disputes(self) -> tuple[Dispute, ...]:
        return tuple(d for h in self.hands for d in h.disputes)

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "rules": self.rules,
            "players": list(self.players),
            "start": dict(self.start),
            "hands": [h.to_dict() for h in self.hands],
            "final": dict(self.final),
            "finished": self.finished,
            "end": dict(self.end) if self.end is not None else None,
            "settlement": dict(self.settlement),
            "standings": [s.to_dict() for s in self.standings],
            "disputes": [d.to_dict() for d in self.disputes],
            "warnings": list(self.warnings),
        }

    def csv_text(self) -> str:
        """A club spreadsheet: one row per hand (each player's change and score), then one row per
        player (final, net, rank, result)."""
        buf = io.StringIO()
        w = _SafeCsv(csv.writer(buf, lineterminator="\n"))
        w.writerow(
            [
                "no",
                "deal",
                "dealer",
                "honba",
                "result",
                "winner",
                "from",
                "written",
                "recomputed",
                "applied",
                "status",
                *(f"{p} change" for p in self.players),
                *(f"{p} score" for p in self.players),
                "disputes",
                "warnings",
            ]
        )
        for h in self.hands:
            rec_total = h.recomputed.get("total") if h.recomputed else None
            w.writerow(
                [
                    h.no,
                    h.label,
                    h.dealer,
                    h.honba,
                    h.result,
                    h.winner or "",
                    h.discarder or h.player or "",
                    cell(h.written),
                    "" if rec_total is None else rec_total,
                    h.applied or "",
                    h.status,
                    *(h.deltas.get(p, 0) for p in self.players),
                    *(h.scores[p] for p in self.players),
                    " | ".join(d.message for d in h.disputes),
                    " | ".join(h.warnings),
                ]
            )
        w.writerow([])
        w.writerow(["player", "final", "net", "rank", "result"])
        for s in self.standings:
            w.writerow([s.player, s.final, s.net, s.rank, s.result])
        return buf.getvalue()


_NUMBER = re.compile(r"[+-]?\d+(\.\d+)?")


class _SafeCsv:
    """A CSV writer whose text cells cannot run as spreadsheet formulas: a player named
    ``=HYPERLINK(…)`` is written ``'=HYPERLINK(…)`` (numbers stay numbers).

    >>> buf = io.StringIO(); _SafeCsv(csv.writer(buf)).writerow(["=1+1", "-A", -3000, "-300", "Ann"])
    >>> buf.getvalue()
    "'=1+1,'-A,-3000,-300,Ann\\r\\n"
    """

    def __init__(self, writer: Any) -> None:
        self.writer = writer

    def writerow(self, row: Sequence[Any]) -> None:
        self.writer.writerow(
            [
                f"'{c}"
                if isinstance(c, str) and c[:1] in ("=", "+", "-", "@", "\t", "\r") and not _NUMBER.fullmatch(c)
                else c
                for c in row
            ]
        )


def cell(value: Any) -> str:
    """A value as one cell of the CSV or a dispute's message: a map as ``name:amount`` pairs, None as empty."""
    if value is None:
        return ""
    if isinstance(value, Mapping):
        return " ".join(f"{k}:{v}" for k, v in value.items())
    return str(value)


def score_summary(score: Score) -> str:
    """The price in the ruleset's own unit: han and fu, or for additive rulesets (Totenko, WSOM) the
    points of each yaku and item."""
    if any(y.unit == "points" for y in score.yaku):
        item_ids = {it.id for it in score.items}
        counted = [(y.id, y.value) for y in score.yaku if y.id not in item_ids]  # items may list the yaku
        counted += [(it.id, it.value) for it in score.items]
        return f"{sum(v for _, v in counted)} points: " + ", ".join(f"{k} {v}" for k, v in counted)
    parts: list[str] = []
    if score.fu:
        parts.append(f"{score.fu} fu")
    parts.append(f"{score.han} han")
    if score.limit:
        parts.append(score.limit)
    yaku = ", ".join(y.id for y in score.yaku)
    return " ".join(parts) + (f": {yaku}" if yaku else "")
