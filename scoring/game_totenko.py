"""Game-level rules of three-player Totenko (balance rule) that are not the price of one hand:
the noten payments on an exhaustive draw, the dealer and honba after each hand, the seat winds,
and who pays what of a winning hand's Score (for the game-record feature).

Players are whatever ids the game record uses (names, numbers, or the seat winds themselves).
Amounts are in sticks (points × ``point_value``), like the payments of a Score.

>>> noten_payments(["east"], ["south", "west"]).deltas
{'east': 1000, 'south': -500, 'west': -500}
>>> next_deal("east", 1, winner=None), next_deal("east", 3, winner="west")
(('east', 2), ('west', 1))
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from paiscan.scoring.errors import HandError
from paiscan.scoring.options import parse_options
from paiscan.scoring.rulesets.totenko_balance import SEATS, TotenkoOptions
from paiscan.scoring.score import Score, Step

P = TypeVar("P", bound=Hashable)

#: honba of a hand after the deal moved (親が移動したら必ず1本場からスタート) [seed]
FIRST_HONBA = 1


@dataclass(frozen=True)
class Transfer:
    """One payment between two players, in sticks."""

    payer: Any
    receiver: Any
    amount: int


@dataclass(frozen=True)
class NotenPayments:
    """The settlement of an exhaustive draw: who pays whom, each player's change, and why."""

    deltas: dict[Any, int]
    transfers: tuple[Transfer, ...]
    steps: tuple[Step, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "deltas": dict(self.deltas),
            "transfers": [{"from": t.payer, "to": t.receiver, "amount": t.amount} for t in self.transfers],
            "explanation": [s.to_dict() for s in self.steps],
        }


def _options(options: Mapping[str, Any] | None) -> TotenkoOptions:
    opts: TotenkoOptions = parse_options(TotenkoOptions, options)
    return opts


def _check_players(players: Sequence[Any], field: str) -> None:
    if len(players) != 3 or len(set(players)) != 3:
        raise HandError(
            "bad_field", f"{field}: three-player Totenko needs three different players, not {list(players)!r}", field
        )


def noten_payments(
    tenpai: Sequence[P],
    noten: Sequence[P] | None = None,
    options: Mapping[str, Any] | None = None,
    players: Sequence[P] | None = None,
) -> NotenPayments:
    """ノーテン罰符 (場に10点) on an exhaustive draw [seed]: one tenpai player receives half the
    total from each noten player; with two tenpai the noten player pays half to each; all or none
    tenpai: nothing.

    ``noten`` defaults to every other player of ``players`` (default the seats east, south, west);
    when both are given they must split the three players exactly.
    """
    opts = _options(options)
    everyone: Sequence[Any] = list(players) if players is not None else list(SEATS)
    _check_players(everyone, "players")
    tenpai_l = list(tenpai)
    noten_l = [p for p in everyone if p not in tenpai_l] if noten is None else list(noten)
    for field, group in (("tenpai", tenpai_l), ("noten", noten_l)):
        for p in group:
            if p not in everyone:
                raise HandError("bad_field", f"{field}: {p!r} is not a player ({', '.join(map(str, everyone))})", field)
        if len(set(group)) != len(group):
            raise HandError("bad_field", f"{field} names a player twice", field)
    both = set(tenpai_l) & set(noten_l)
    if both:
        raise HandError("bad_field", f"{sorted(map(str, both))[0]} is both tenpai and noten", "noten")
    if set(tenpai_l) | set(noten_l) != set(everyone):
        missing = [p for p in everyone if p not in tenpai_l and p not in noten_l]
        raise HandError("bad_field", f"{missing[0]!r} is neither tenpai nor noten", "noten")
    total = opts.noten_penalty_total
    if total < 0 or total % 2:
        raise HandError(
            "bad_option",
            "option noten_penalty_total must be an even number of points (it is split in halves)",
            "options.noten_penalty_total",
        )
    half = total // 2 * opts.point_value
    deltas: dict[Any, int] = {p: 0 for p in everyone}
    transfers: list[Transfer] = []
    if 0 < len(tenpai_l) < 3:
        for payer in noten_l:
            for receiver in tenpai_l:
                transfers.append(Transfer(payer, receiver, half))
                deltas[payer] -= half
                deltas[receiver] += half
    if not transfers:
        why = "all tenpai" if tenpai_l else "nobody tenpai"
        steps = [Step("noten", f"{why}: no noten payments")]
    else:
        steps = [
            Step(
                "noten",
                f"場に{total}点: each noten player pays {total // 2} × "
                f"{opts.point_value} = {half} to each tenpai player",
            )
        ]
        steps += [Step("transfer", f"{t.payer} → {t.receiver}: {t.amount}") for t in transfers]
    return NotenPayments(deltas, tuple(transfers), tuple(steps))


def next_deal(dealer: P, honba: int, winner: P | None, dealer_win_adds_honba: bool = True) -> tuple[P, int]:
    """The dealer and honba of the next hand.

    * the winner becomes dealer (アガった人が親になります) and, when the deal moves, honba restarts
      at 1 (親が移動したら必ず1本場からスタート) [seed];
    * a draw (``winner`` None) keeps the dealer and adds a honba (流局した場合は親権移動なし、本場を
      追加) [seed];
    * the dealer winning again keeps the deal; ``dealer_win_adds_honba`` (default true) adds a honba
      as in standard Japanese practice [assumed: the seed only says the deal does not move; its
      "10本場の親" / "15本場…親" examples fit honba that also grow on dealer wins].
    """
    if isinstance(honba, bool) or not isinstance(honba, int) or honba < 0:
        raise HandError("bad_field", f"honba must be a whole number >= 0, not {honba!r}", "honba")
    if winner is None:
        return dealer, honba + 1
    if winner == dealer:
        return dealer, honba + 1 if dealer_win_adds_honba else honba
    return winner, FIRST_HONBA


def seat_winds(order: Sequence[P], dealer: P) -> dict[P, str]:
    """Seat winds for players in turn order (counter-clockwise): the dealer is East, the next
    South, the last West."""
    _check_players(order, "order")
    if dealer not in order:
        raise HandError("bad_field", f"dealer {dealer!r} is not one of the players", "dealer")
    start = list(order).index(dealer)
    return {order[(start + i) % 3]: SEATS[i] for i in range(3)}


def win_deltas(score: Score, winner: str, discarder: str | None = None) -> dict[str, int]:
    """Each seat's change from a winning hand's Score (seats east, south, west; East deals).

    Tsumo: each opponent pays its payment. Ron: ``discarder`` pays the ``discarder`` payment, the
    third seat the ``other`` one (the kenshoba), if any.
    """
    if winner not in SEATS:
        raise HandError("bad_field", f"winner must be one of {', '.join(SEATS)}", "winner")
    others = [s for s in SEATS if s != winner]
    deltas = {s: 0 for s in SEATS}
    by_from: dict[str, list[int]] = {}
    for p in score.payments:
        by_from.setdefault(p.from_, []).append(p.amount)
    if "discarder" in by_from:
        if discarder not in others:
            raise HandError("bad_field", "a ron needs the discarder: one of the other two seats", "discarder")
        payers = {discarder: by_from["discarder"][0]}
        bystander = next(s for s in others if s != discarder)
        payers[bystander] = sum(by_from.get("other", []))
    else:
        if discarder is not None:
            raise HandError("bad_field", "a tsumo has no discarder", "discarder")
        payers = {}
        for s in others:
            label = "dealer" if s == "east" else "non_dealer"
            if not by_from.get(label):
                raise HandError(
                    "bad_field",
                    f"the Score has no {label} payment for {s}: was it scored with {winner} as the winner?",
                    "winner",
                )
            payers[s] = by_from[label].pop()
    for seat, amount in payers.items():
        deltas[seat] -= amount
        deltas[winner] += amount
    return deltas


__all__ = ["NotenPayments", "Transfer", "next_deal", "noten_payments", "seat_winds", "win_deltas"]
