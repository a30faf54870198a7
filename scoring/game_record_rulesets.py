"""Game records, each ruleset's game frame: the dealer rotation, honba, draws and deposits, the end of the game
and the settlement, for the Boo family, riichi, Totenko and Jun.

Game-level rules are not re-implemented here: the Boo family uses :mod:`paiscan.scoring.settlement_boo`,
Totenko :mod:`paiscan.scoring.game_totenko`, Jun :mod:`paiscan.scoring.evaluation_jun`; riichi's standard
rotation is the only one written here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, ClassVar

from paiscan.scoring.errors import HandError
from paiscan.scoring.evaluation_jun import (
    HANDS_PER_GAME,
    HANDS_PER_ROUND,
    SHORTENED,
    GameResult,
    deal,
    evaluate_abandoned,
    evaluate_game,
    player_figures,
)
from paiscan.scoring.evaluation_jun import win_deltas as jun_win_deltas
from paiscan.scoring.game_record_frame import (
    Frame,
    Played,
    apply_deltas,
    error_within,
    order_by_score,
    pass_deal,
    pays_deltas,
)
from paiscan.scoring.game_record_result import (
    FORBIDDEN_WIN,
    REFUSED,
    RIICHI_DIFFERS,
    DealState,
    Dispute,
    Standing,
)
from paiscan.scoring.game_record_sheet import BOO_FAMILY, GameRecord, HandEntry, Start, parse_game_options
from paiscan.scoring.game_totenko import FIRST_HONBA, next_deal, noten_payments, seat_winds
from paiscan.scoring.game_totenko import win_deltas as totenko_win_deltas
from paiscan.scoring.rulesets.boo import next_honba as boo_next_honba
from paiscan.scoring.score import Score
from paiscan.scoring.settlement_boo import FORBIDDEN, SettlementRules, check_win, game_end, settle, settlement_rules
from paiscan.scoring.tiles import WINDS

#: a riichi deposit, in points
RIICHI_DEPOSIT = 1000


# ------------------------------------------------------------------ Boo family
@dataclass(frozen=True)
class _BooFrame(Frame):
    """ブー麻雀 / 関西式: East-South; a dealer win repeats (honba +1), every draw passes the deal (honba
    +1), a non-dealer win passes it (honba 0); the game ends at a score ≤ 0, at twice the origin, or after
    South 4 (a dealer win there repeats); wins are judged by :func:`paiscan.scoring.settlement_boo.check_win`."""

    srules: SettlementRules
    chombo_note: ClassVar[str] = "チョンボ: the offender pays, the same dealer deals again with the same honba"

    def start_points(self) -> int:
        return self.srules.origin

    def all_last(self, st: DealState) -> bool:
        return st.round == 1 and st.number == HANDS_PER_ROUND

    def chombo_ends(self, st: DealState, after: Mapping[str, int]) -> str | None:
        return game_end(after, self.srules)

    def play(self, i: int, entry: HandEntry, st: DealState, scores: dict[str, int]) -> Played:
        dealer = self.players[st.dealer]
        all_last = self.all_last(st)
        if entry.result == "draw":
            ends = game_end(scores, self.srules, all_last=all_last, winner=None)
            notes = ("every draw passes the deal (いかなる流局も親流れ), honba + 1; no noten payments",)
            h = self.hand_replay(i, entry, st, {}, scores, applied="rule", ends=ends, notes=notes)
            return Played(h, pass_deal(st, 4, st.honba + 1), scores, ends)
        if entry.result == "chombo":
            return self.play_chombo(i, entry, st, scores)
        assert entry.winner is not None
        score, priced = self.priced_win(i, entry, st)
        yakuman = bool(score is not None and score.extra.get("yakuman"))
        check = check_win(
            scores,
            entry.winner,
            priced.pays,
            self.srules,
            dealer=dealer,
            all_last=all_last,
            start_dealer=self.players[0],
            yakuman=yakuman,
        )
        warnings = tuple(str(w) for w in check.warnings)
        disputes: list[Dispute] = list(priced.disputes)
        if not check.allowed:
            disputes.append(
                Dispute(
                    i + 1,
                    f"hands[{i}]",
                    FORBIDDEN_WIN,
                    f"hand {i + 1}: {entry.winner}'s win is forbidden "
                    f"({check.reason}): " + "; ".join(w.message for w in check.warnings if w.severity == FORBIDDEN),
                    explanation=warnings,
                )
            )
            if self.gopts["forbidden_wins"] == "refuse":
                h = self.hand_replay(
                    i,
                    entry,
                    st,
                    {},
                    scores,
                    priced,
                    status=REFUSED,
                    warnings=warnings,
                    disputes=tuple(disputes),
                    notes=(
                        "the win is refused: no payment, the same deal is played again "
                        "(game_options.forbidden_wins: apply to count it)",
                    ),
                )
                return Played(h, st, scores)
        after = check.after
        deltas = pays_deltas(entry.winner, check.pays)
        ends = check.ends
        if not check.allowed:  # applied anyway (forbidden_wins: apply)
            ends = game_end(after, self.srules, all_last=all_last, winner=entry.winner, dealer=dealer)
        if score is not None and "next_honba" in score.extra:
            honba = int(score.extra["next_honba"])
        else:
            honba = boo_next_honba(st.honba, entry.winner == dealer)
        nxt = replace(st, honba=honba) if entry.winner == dealer else pass_deal(st, 4, honba)
        h = self.hand_replay(
            i, entry, st, deltas, after, priced, ends=ends, warnings=warnings, disputes=tuple(disputes)
        )
        return Played(h, nxt, after, ends, entry.winner if ends == "yakuman" else None)

    def settlement(
        self, final: Mapping[str, int], st: DealState, end: Mapping[str, Any] | None, yakuman_winner: str | None
    ) -> tuple[dict[str, Any], tuple[Standing, ...]]:
        s = settle(final, self.srules, self.players[0], yakuman_winner)
        out = {"kind": "boo_family", "provisional": end is None, **s.to_dict()}
        st_ = s.standing
        rank = {p: k + 1 for k, p in enumerate(st_.order)}

        def result(p: str) -> str:
            if st_.type is None:
                return "no settlement"
            if p == st_.top:
                return f"top ({st_.type})" + (" gentsuu" if st_.gentsuu else "")
            return "loses" if p in st_.losers else "neutral"

        return out, tuple(Standing(p, final[p], s.net[p], rank[p], result(p)) for p in self.players)


# ------------------------------------------------------------------ riichi
@dataclass(frozen=True)
class _RiichiFrame(Frame):
    """Standard riichi [assumed, common practice]: the dealer repeats on a win or on being tenpai at a
    draw (honba +1 either way), a non-dealer win passes the deal and resets honba; noten payments total
    3000; riichi deposits (1000) go to the next winner; the game ends after the last round's 4th hand
    or when a player is below 0."""

    chombo_note: ClassVar[str] = "chombo: a mangan paid like a reversed tsumo; the hand is replayed"

    def start_points(self) -> int:
        return int(self.gopts["start_points"])

    def chombo_ends(self, st: DealState, after: Mapping[str, int]) -> str | None:
        return self.ended(st, after, passes=False)

    def ended(self, st: DealState, after: Mapping[str, int], passes: bool) -> str | None:
        if any(v < 0 for v in after.values()):
            return "bust"
        if passes and st.round == self.gopts["rounds"] - 1 and st.number == HANDS_PER_ROUND:
            return "all_last"
        return None

    def play(self, i: int, entry: HandEntry, st: DealState, scores: dict[str, int]) -> Played:
        dealer = self.players[st.dealer]
        if entry.result == "chombo":
            return self.play_chombo(i, entry, st, scores)
        deltas = {p: -RIICHI_DEPOSIT for p in entry.riichi}
        pot = st.pot + len(entry.riichi)
        notes: list[str] = []
        if entry.riichi:
            notes.append(f"riichi deposits: {', '.join(entry.riichi)} (1000 each)")
        if entry.result == "draw":
            tenpai = entry.tenpai or ()
            noten = [p for p in self.players if p not in tenpai]
            total = int(self.gopts["noten_total"])
            if tenpai and noten:
                for p in tenpai:
                    deltas[p] = deltas.get(p, 0) + total // len(tenpai)
                for p in noten:
                    deltas[p] = deltas.get(p, 0) - total // len(noten)
                notes.append(f"noten payments: {total} from {', '.join(noten)} to {', '.join(tenpai)}")
            after = apply_deltas(scores, deltas)
            repeat = dealer in tenpai
            ends = self.ended(st, after, passes=not repeat)
            notes.append("dealer tenpai: the dealer repeats" if repeat else "dealer noten: the deal passes")
            nxt = (
                replace(st, honba=st.honba + 1, pot=pot) if repeat else pass_deal(replace(st, pot=pot), 4, st.honba + 1)
            )
            h = self.hand_replay(i, entry, st, deltas, after, applied="rule", ends=ends, notes=tuple(notes))
            return Played(h, nxt, after, ends)
        assert entry.winner is not None
        score, priced = self.priced_win(i, entry, st)
        disputes: list[Dispute] = list(priced.disputes)
        if score is not None and entry.hand is not None:
            flagged = bool({"riichi", "double_riichi"} & set(entry.hand.get("flags") or []))
            if flagged != (entry.winner in entry.riichi) and (entry.riichi or flagged):
                disputes.append(
                    Dispute(
                        i + 1,
                        f"hands[{i}].riichi",
                        RIICHI_DIFFERS,
                        f"hand {i + 1}: the Hand "
                        f"{'has' if flagged else 'has no'} riichi but {entry.winner} is "
                        f"{'not ' if flagged else ''}listed in riichi",
                    )
                )
        for p, a in pays_deltas(entry.winner, priced.pays).items():
            deltas[p] = deltas.get(p, 0) + a
        if pot:
            deltas[entry.winner] = deltas.get(entry.winner, 0) + pot * RIICHI_DEPOSIT
            notes.append(f"{entry.winner} takes {pot} riichi deposit(s): {pot * RIICHI_DEPOSIT}")
        after = apply_deltas(scores, deltas)
        repeat = entry.winner == dealer
        ends = self.ended(st, after, passes=not repeat)
        nxt = replace(st, honba=st.honba + 1, pot=0) if repeat else pass_deal(replace(st, pot=0), 4, 0)
        h = self.hand_replay(
            i, entry, st, deltas, after, priced, ends=ends, disputes=tuple(disputes), notes=tuple(notes)
        )
        return Played(h, nxt, after, ends)

    def settlement(
        self, final: Mapping[str, int], st: DealState, end: Mapping[str, Any] | None, yakuman_winner: str | None
    ) -> tuple[dict[str, Any], tuple[Standing, ...]]:
        order = order_by_score(final, self.players)
        pot = st.pot * RIICHI_DEPOSIT
        scores = dict(final)
        to_top = bool(pot and self.gopts["leftover_pot"] == "top" and end is not None)
        if to_top:
            scores[order[0]] += pot
        out = {
            "kind": "placement",
            "provisional": end is None,
            "order": order,
            "leftover_pot": pot,
            "pot_to": order[0] if to_top else None,
            "final": scores,
        }
        return out, self.placements(scores, order)


# ------------------------------------------------------------------ Totenko
@dataclass(frozen=True)
class _TotenkoFrame(Frame):
    """三人麻雀 東天紅: the winner deals next (honba back to 1), a draw keeps the dealer and adds a honba
    (:func:`paiscan.scoring.game_totenko.next_deal`), noten payments on a draw; no end and no settlement beyond
    the totals."""

    chombo_note: ClassVar[str] = "chombo: the same dealer deals again with the same honba"

    def start_points(self) -> int:
        return int(self.gopts["start_points"])

    def initial_state(self) -> DealState:
        s = self.rec.start or Start()
        dealer = self.players.index(s.dealer) if s.dealer else 0
        return DealState(dealer=dealer, honba=FIRST_HONBA if s.honba is None else s.honba)

    def label(self, st: DealState) -> str:
        return f"{self.players[st.dealer]} deals, {st.honba} honba"

    def seat_wind(self, st: DealState, player: str) -> str:
        return seat_winds(self.players, self.players[st.dealer])[player]

    def round_wind(self, st: DealState) -> str:
        return "east"

    def equal_tsumo(self, st: DealState, winner: str) -> bool:
        return True

    def score_pays(self, score: Score, st: DealState, winner: str, discarder: str | None, field: str) -> dict[str, int]:
        winds = seat_winds(self.players, self.players[st.dealer])
        by_wind = {w: p for p, w in winds.items()}
        try:
            deltas = totenko_win_deltas(score, winds[winner], winds[discarder] if discarder else None)
        except HandError as e:
            raise error_within(field, e) from None
        return {by_wind[w]: -d for w, d in deltas.items() if d < 0}

    def play(self, i: int, entry: HandEntry, st: DealState, scores: dict[str, int]) -> Played:
        dealer = self.players[st.dealer]
        if entry.result == "draw":
            noten = noten_payments(list(entry.tenpai or ()), options=self.rec.options, players=list(self.players))
            after = apply_deltas(scores, noten.deltas)
            _, honba = next_deal(dealer, st.honba, None)
            notes = (*(f"{s.label}: {s.detail}" for s in noten.steps), "the dealer stays, honba + 1")
            h = self.hand_replay(i, entry, st, noten.deltas, after, applied="rule", notes=notes)
            return Played(h, replace(st, honba=honba), after)
        if entry.result == "chombo":
            return self.play_chombo(i, entry, st, scores)
        assert entry.winner is not None
        _, priced = self.priced_win(i, entry, st)
        deltas = pays_deltas(entry.winner, priced.pays)
        after = apply_deltas(scores, deltas)
        new_dealer, honba = next_deal(dealer, st.honba, entry.winner, bool(self.gopts["dealer_win_adds_honba"]))
        nxt = DealState(dealer=self.players.index(new_dealer), honba=honba)
        h = self.hand_replay(
            i,
            entry,
            st,
            deltas,
            after,
            priced,
            disputes=priced.disputes,
            notes=("the winner deals next (アガった人が親)",),
        )
        return Played(h, nxt, after)

    def settlement(
        self, final: Mapping[str, int], st: DealState, end: Mapping[str, Any] | None, yakuman_winner: str | None
    ) -> tuple[dict[str, Any], tuple[Standing, ...]]:
        order = order_by_score(final, self.players)
        start = self.start_points()
        net = {p: final[p] - start for p in self.players}
        out = {
            "kind": "totals",
            "provisional": False,
            "totals": dict(final),
            "net": net,
            "order": order,
            "note": "Totenko has no end-of-game settlement: the totals are what changes hands",
        }
        return out, self.placements(final, order)


# ------------------------------------------------------------------ Jun
@dataclass(frozen=True)
class _JunFrame(Frame):
    """純麻雀: 16 hands (East … North rounds), the deal always rotates (:func:`paiscan.scoring.evaluation_jun.deal`),
    no honba, no draw payments; a chombo (錯和) replays the hand with no payment (第9条); the game is
    evaluated by :func:`paiscan.scoring.evaluation_jun.evaluate_game` (ranks, marks, plus)."""

    chombo_note: ClassVar[str] = "錯和: no payment in the seed; the hand is played again (第9条 再ゲーム)"

    def start_points(self) -> int:
        return int(self.gopts["start_points"])

    def chombo(
        self, i: int, entry: HandEntry, st: DealState, scores: Mapping[str, int]
    ) -> tuple[dict[str, int], dict[str, int], str, tuple[Dispute, ...]]:
        """第9条: no payment, unless the sheet writes one."""
        if entry.points is None:
            return {}, dict(scores), "rule", ()
        return super().chombo(i, entry, st, scores)

    def label(self, st: DealState) -> str:
        return f"{WINDS[st.round].capitalize()} {st.number} (hand {st.jun_number}/{HANDS_PER_GAME})"

    def seat_wind(self, st: DealState, player: str) -> str:
        return deal(st.jun_number).seat_wind(self.players.index(player))

    def round_wind(self, st: DealState) -> str:
        return deal(st.jun_number).round_wind

    def equal_tsumo(self, st: DealState, winner: str) -> bool:
        return True

    def score_pays(self, score: Score, st: DealState, winner: str, discarder: str | None, field: str) -> dict[str, int]:
        try:
            deltas = jun_win_deltas(score, self.players, st.jun_number, winner, discarder)
        except HandError as e:
            raise error_within(field, e) from None
        return {p: -d for p, d in deltas.items() if d < 0}

    def play(self, i: int, entry: HandEntry, st: DealState, scores: dict[str, int]) -> Played:
        last = st.jun_number == HANDS_PER_GAME
        ends = "sixteen_hands" if last else None
        if entry.result == "chombo":
            return self.play_chombo(i, entry, st, scores)
        nxt = pass_deal(st, 4, 0)
        if entry.result == "draw":
            h = self.hand_replay(
                i,
                entry,
                st,
                {},
                scores,
                applied="rule",
                ends=ends,
                notes=("draw: the deal rotates (輪荘), no payments",),
            )
            return Played(h, nxt, scores, ends)
        assert entry.winner is not None
        _, priced = self.priced_win(i, entry, st)
        deltas = pays_deltas(entry.winner, priced.pays)
        after = apply_deltas(scores, deltas)
        h = self.hand_replay(i, entry, st, deltas, after, priced, ends=ends, disputes=priced.disputes)
        return Played(h, nxt, after, ends)

    def settlement(
        self, final: Mapping[str, int], st: DealState, end: Mapping[str, Any] | None, yakuman_winner: str | None
    ) -> tuple[dict[str, Any], tuple[Standing, ...]]:
        eval_opts = {k: self.gopts[k] for k in ("start_points", "plus_at_start", "all_tied_rank")}
        ab = self.rec.abandoned
        result: GameResult[str]
        if ab is not None:
            hands_started = min(st.jun_number, HANDS_PER_GAME) if ab.reason == SHORTENED else None
            result = evaluate_abandoned(ab.reason, self.players, final, hands_started, ab.offender, eval_opts)
        else:
            result = evaluate_game(final, eval_opts)
        figures = {p: player_figures([result], p).to_dict() for p in self.players} if result.counted else {}
        out = {
            "kind": "jun",
            "provisional": end is None and ab is None,
            **result.to_dict(),
            "wins": list(result.wins),
            "losses": list(result.losses),
            "draws": list(result.draws),
            "plus": list(result.plus),
            "figures": figures,
        }
        by = {r.player: r for r in result.results}
        return out, tuple(
            Standing(
                p,
                by[p].score if p in by else final[p],
                by[p].points if p in by else 0,
                by[p].rank if p in by else 0,
                f"{by[p].glyph} {by[p].mark}" + (" plus" if by[p].plus else "") if p in by else "no game",
            )
            for p in self.players
        )


def frame_for(rec: GameRecord) -> Frame:
    gopts = parse_game_options(rec.rules, rec.game_options)
    if rec.rules in BOO_FAMILY:
        return _BooFrame(rec, gopts, settlement_rules(rec.rules, rec.options))
    if rec.rules == "totenko_balance":
        return _TotenkoFrame(rec, gopts)
    if rec.rules == "jun":
        return _JunFrame(rec, gopts)
    return _RiichiFrame(rec, gopts)
