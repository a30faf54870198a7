"""Game records, the frame every ruleset's replay shares: the deal's winds, scoring a hand, pricing a win or a
chombo against the sheet, and the bookkeeping of each hand's changes.

A ruleset's own rules (dealer rotation, honba, draws, the end, the settlement) are its :class:`Frame`
subclass in :mod:`paiscan.scoring.game_record_rulesets`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from paiscan.scoring.errors import HandError
from paiscan.scoring.evaluation_jun import HANDS_PER_ROUND
from paiscan.scoring.game_record_result import (
    APPLIED,
    POINTS_DIFFER,
    DealState,
    Dispute,
    HandReplay,
    Standing,
    cell,
    score_summary,
)
from paiscan.scoring.game_record_sheet import CHOMBO_BASIC, GameRecord, HandEntry, Start
from paiscan.scoring.score import Score
from paiscan.scoring.settlement_boo import pays_from_score
from paiscan.scoring.tiles import WINDS


def error_within(field: str, e: HandError) -> HandError:
    """``e``, raised while reading ``field`` of the record, as an error naming the path into the record."""
    return HandError(e.code, f"{field}: {e.message}", f"{field}.{e.field}" if e.field else field)


@dataclass(frozen=True)
class Played:
    """What a frame returns for one hand."""

    hand: HandReplay
    state: DealState
    scores: dict[str, int]
    ends: str | None = None
    yakuman_winner: str | None = None


def apply_deltas(scores: Mapping[str, int], deltas: Mapping[str, int]) -> dict[str, int]:
    """Each player's score after a hand's changes."""
    return {p: v + deltas.get(p, 0) for p, v in scores.items()}


def pays_deltas(winner: str, pays: Mapping[str, int]) -> dict[str, int]:
    """A win's changes: each payer loses what he pays, the winner gains the sum."""
    deltas = {p: -a for p, a in pays.items() if a}
    deltas[winner] = sum(pays.values())
    return deltas


def nonzero(m: Mapping[str, int]) -> dict[str, int]:
    """The entries that are not zero."""
    return {k: v for k, v in m.items() if v}


def _explain(score: Score) -> tuple[str, ...]:
    return tuple(f"{s.label}: {s.detail}" for s in score.steps)


@dataclass(frozen=True)
class Priced:
    """A win's points: the recomputed Score and payers (when the Hand is known), what the sheet says,
    what is applied and from where, and the dispute if they differ."""

    score: Score | None
    recomputed: dict[str, Any] | None
    pays: dict[str, int]
    applied: str
    disputes: tuple[Dispute, ...]


@dataclass(frozen=True)
class Frame:
    """A ruleset's game frame; subclasses implement the rules, this class the common bookkeeping."""

    rec: GameRecord
    gopts: Mapping[str, Any]
    #: the note on a chombo hand: what the ruleset does after one
    chombo_note: ClassVar[str]

    @property
    def players(self) -> tuple[str, ...]:
        return self.rec.players

    # ---- hooks
    def start_points(self) -> int:
        raise NotImplementedError

    def initial_state(self) -> DealState:
        s = self.rec.start or Start()
        rnd = WINDS.index(s.round) if s.round else 0
        number = s.number or 1
        return DealState(
            dealer=(number - 1) % len(self.players), honba=s.honba or 0, round=rnd, number=number, pot=s.pot or 0
        )

    def label(self, st: DealState) -> str:
        return f"{WINDS[st.round].capitalize()} {st.number}, {st.honba} honba"

    def seat_wind(self, st: DealState, player: str) -> str:
        return WINDS[(self.players.index(player) - st.dealer) % len(self.players)]

    def round_wind(self, st: DealState) -> str:
        return WINDS[st.round]

    def equal_tsumo(self, st: DealState, winner: str) -> bool:
        """Whether every payer of a tsumo pays the same (a written total can then be split)."""
        return self.players[st.dealer] == winner

    def score_pays(self, score: Score, st: DealState, winner: str, discarder: str | None, field: str) -> dict[str, int]:
        try:
            return pays_from_score(score, winner, self.players[st.dealer], self.players, discarder)
        except HandError as e:
            raise error_within(field, e) from None

    def play(self, i: int, entry: HandEntry, st: DealState, scores: dict[str, int]) -> Played:
        raise NotImplementedError

    def settlement(
        self, final: Mapping[str, int], st: DealState, end: Mapping[str, Any] | None, yakuman_winner: str | None
    ) -> tuple[dict[str, Any], tuple[Standing, ...]]:
        raise NotImplementedError

    # ---- common parts
    def hand_json(self, entry: HandEntry, st: DealState) -> dict[str, Any]:
        assert entry.hand is not None and entry.winner is not None
        data = dict(entry.hand)
        own = data.pop("options", None) or {}
        if not isinstance(own, Mapping):  # (the caller names the hand: hands[i].hand.options)
            raise HandError("bad_field", "options must be an object of name: value", "options")
        options = {**self.rec.options, **own}
        return {
            **data,
            "rules": self.rec.rules,
            "options": options,
            "win": entry.result,
            "seat_wind": self.seat_wind(st, entry.winner),
            "round_wind": self.round_wind(st),
            "honba": st.honba,
        }

    def score(self, i: int, entry: HandEntry, st: DealState) -> Score:
        from paiscan.scoring import score_hand

        f = f"hands[{i}].hand"
        try:
            return score_hand(self.hand_json(entry, st))
        except HandError as e:
            raise error_within(f, e) from None

    def written_pays(self, i: int, entry: HandEntry, st: DealState) -> dict[str, int] | None:
        """The sheet's points as payer → amount, or None when a total cannot be split."""
        assert entry.winner is not None
        if isinstance(entry.points, Mapping):
            return dict(entry.points)
        if entry.points is None:
            return None
        if entry.result == "ron" or entry.discarder is not None:
            assert entry.discarder is not None
            return {entry.discarder: entry.points}
        payers = [p for p in self.players if p != entry.winner]
        if self.equal_tsumo(st, entry.winner) and entry.points % len(payers) == 0:
            return dict.fromkeys(payers, entry.points // len(payers))
        return None

    def price(self, i: int, entry: HandEntry, st: DealState, score: Score | None) -> Priced:
        """Recomputed vs written points, and which are applied (the Hand's unless ``prefer_points``
        is ``written``); a difference is a :data:`POINTS_DIFFER` dispute with both numbers."""
        assert entry.winner is not None
        f = f"hands[{i}]"
        written = self.written_pays(i, entry, st)
        recomputed = None
        rec_pays: dict[str, int] | None = None
        disputes: list[Dispute] = []
        if score is not None:
            rec_pays = nonzero(self.score_pays(score, st, entry.winner, entry.discarder, f))
            total = sum(rec_pays.values())
            recomputed = {
                "total": total,
                "pays": rec_pays,
                "han": score.han,
                "fu": score.fu,
                "limit": score.limit,
                "yaku": [{"id": y.id, "value": y.value, "unit": y.unit} for y in score.yaku],
                "warnings": list(score.warnings),
                "explanation": list(_explain(score)),
            }
            if entry.points is not None:
                if isinstance(entry.points, Mapping):
                    same = nonzero(entry.points) == rec_pays
                    shown_w: Any = dict(entry.points)
                    shown_r: Any = rec_pays
                else:
                    same = entry.points == total
                    shown_w, shown_r = entry.points, total
                if not same:
                    disputes.append(
                        Dispute(
                            i + 1,
                            f"{f}.points",
                            POINTS_DIFFER,
                            f"hand {i + 1}: the sheet says {cell(shown_w)}, the Hand is worth {cell(shown_r)} "
                            f"({score_summary(score)})",
                            shown_w,
                            shown_r,
                            _explain(score),
                        )
                    )
        use_written = entry.points is not None and (rec_pays is None or self.gopts["prefer_points"] == "written")
        if use_written and written is not None:
            return Priced(score, recomputed, written, "written", tuple(disputes))
        if rec_pays is not None:
            return Priced(score, recomputed, rec_pays, "recomputed", tuple(disputes))
        raise HandError(
            "ambiguous_points",
            f"{f}.points: a tsumo total of {entry.points} cannot be split among the payers under this ruleset "
            f"(the dealer pays more); write what each paid, e.g. {self.split_example(entry.winner, st, entry.points)}",
            f"{f}.points",
        )

    def split_example(self, winner: str, st: DealState, total: Any) -> str:
        """A per-payer map for an ambiguous tsumo total, with this hand's payers: the dealer's share
        twice each other's (riichi's and Boo's ratio before per-payer extras), in hundreds."""
        dealer = self.players[st.dealer]
        payers = [p for p in self.players if p != winner]
        unit = 100 * max(1, round(total / (100 * (len(payers) + 1)))) if isinstance(total, int) else 1000
        example = {p: 2 * unit if p == dealer else unit for p in payers}
        return json.dumps(example, ensure_ascii=False)

    def hand_replay(
        self,
        i: int,
        entry: HandEntry,
        st: DealState,
        deltas: Mapping[str, int],
        scores: Mapping[str, int],
        priced: Priced | None = None,
        status: str = APPLIED,
        **kw: Any,
    ) -> HandReplay:
        """The hand as replayed in the deal ``st``: each player's change and score after it; a win's ``priced``
        points give what was recomputed and applied."""
        if priced is not None:
            kw = {"recomputed": priced.recomputed, "applied": priced.applied, **kw}
        return HandReplay(
            no=i + 1,
            label=self.label(st),
            dealer=self.players[st.dealer],
            honba=st.honba,
            result=entry.result,
            status=status,
            deltas=nonzero(deltas),
            scores=dict(scores),
            winner=entry.winner,
            discarder=entry.discarder,
            player=entry.player,
            written=entry.points,
            **kw,
        )

    def priced_win(self, i: int, entry: HandEntry, st: DealState) -> tuple[Score | None, Priced]:
        """A win's Score (when the sheet gives the Hand) and its points (:meth:`price`)."""
        score = self.score(i, entry, st) if entry.hand is not None else None
        return score, self.price(i, entry, st, score)

    def chombo(
        self, i: int, entry: HandEntry, st: DealState, scores: Mapping[str, int]
    ) -> tuple[dict[str, int], dict[str, int], str, tuple[Dispute, ...]]:
        """A chombo's changes (the offender pays :meth:`chombo_pays`), the scores after it, where the amounts
        come from (``rule`` or ``written``) and the dispute if the sheet and the house rule differ."""
        pays, applied, disputes = self.chombo_pays(i, entry, st)
        deltas = dict(pays)
        deltas[entry.player or ""] = -sum(pays.values())
        return deltas, apply_deltas(scores, deltas), applied, disputes

    def chombo_ends(self, st: DealState, after: Mapping[str, int]) -> str | None:
        """Whether the scores after a chombo end the game, and why (None: the same deal is played again)."""
        return None

    def play_chombo(self, i: int, entry: HandEntry, st: DealState, scores: Mapping[str, int]) -> Played:
        """A chombo: the offender pays (:meth:`chombo`) and the same deal, honba included, is played again."""
        deltas, after, applied, disputes = self.chombo(i, entry, st, scores)
        ends = self.chombo_ends(st, after)
        notes = (self.chombo_note,)
        h = self.hand_replay(i, entry, st, deltas, after, applied=applied, ends=ends, disputes=disputes, notes=notes)
        return Played(h, st, after, ends)

    def placements(self, final: Mapping[str, int], order: Sequence[str]) -> tuple[Standing, ...]:
        """Each player's standing by place in ``order``, net of the start points, with no result word."""
        start = self.start_points()
        return tuple(Standing(p, final[p], final[p] - start, order.index(p) + 1, "") for p in self.players)

    def chombo_pays(self, i: int, entry: HandEntry, st: DealState) -> tuple[dict[str, int], str, tuple[Dispute, ...]]:
        """What the offender pays each player: the house rule (:data:`CHOMBO_BASIC`, a reversed tsumo)
        unless the sheet's amounts are preferred or the rule has none."""
        assert entry.player is not None
        f = f"hands[{i}].points"
        others = [p for p in self.players if p != entry.player]
        dealer = self.players[st.dealer]
        basic = CHOMBO_BASIC.get(self.rec.rules)
        rule = None
        if basic is not None:
            rule = {p: 2 * basic if entry.player == dealer or p == dealer else basic for p in others}
        written: dict[str, int] | None = None
        if isinstance(entry.points, Mapping):
            written = dict(entry.points)
        elif entry.points is not None:
            if entry.points % len(others):
                raise HandError(
                    "ambiguous_points",
                    f"{f}: {entry.points} cannot be split evenly; write what each player received",
                    f,
                )
            written = dict.fromkeys(others, entry.points // len(others))
        disputes: tuple[Dispute, ...] = ()
        if rule is not None and written is not None and nonzero(written) != rule:
            disputes = (
                Dispute(
                    i + 1,
                    f,
                    POINTS_DIFFER,
                    f"hand {i + 1}: the sheet says the chombo paid {cell(written)}, the house rule is {cell(rule)}",
                    written,
                    rule,
                ),
            )
        if rule is not None and (written is None or self.gopts["prefer_points"] == "recomputed"):
            return rule, "rule", disputes
        assert written is not None
        return written, "written", disputes


def pass_deal(st: DealState, players: int, honba: int) -> DealState:
    """The deal moves to the next seat; after the 4th hand of a round the next round starts."""
    number, rnd = st.number + 1, st.round
    if number > HANDS_PER_ROUND:
        number, rnd = 1, rnd + 1
    return DealState(dealer=(st.dealer + 1) % players, honba=honba, round=rnd, number=number, pot=st.pot)


def order_by_score(final: Mapping[str, int], players: Sequence[str], first: int = 0) -> list[str]:
    """Players by score, ties by seat order from ``players[first]``."""
    seat = {p: (i - first) % len(players) for i, p in enumerate(players)}
    return sorted(players, key=lambda p: (-final[p], seat[p]))
