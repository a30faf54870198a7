"""Game-level rules of the Boo family (``boo``, ``kansai_boo``): what a hand does to the game.

Boo is decided by *who floats*, not by how much: after the game only the players below the origin
(原点, 2000; Osaka option ``start_points`` 4000) pay a fixed amount to the top, and the top pays
the table fee. Because a player's score reaching 0 (or twice the origin) ends the game at once,
some wins are forbidden or frowned upon; this module says which, naming the rule.

Pure functions over frozen dataclasses; players are whatever hashable ids the game record uses
(seat winds, names), given as a mapping ``player → score`` in seat (turn) order.

* :func:`settlement_rules` — the Boo-family settings from a ruleset's options (validated);
* :func:`pays_from_score` — a scored hand's payments as ``payer → amount`` by seat;
* :func:`apply_pays` — the new scores;
* :func:`game_end` — whether (and why) the game ends;
* :func:`standing` — the top, the top type (A/B/C, gentsuu), losers and neutral players;
* :func:`settle` — each player's settlement, with the table fee;
* :func:`check_win` — whether a win is allowed, with a :class:`RuleWarning` per rule it touches;
* :func:`play_hand` — all of the above for one winning hand.

>>> before = {"east": 3000, "south": 1500, "west": 300, "north": 3200}
>>> check = check_win(before, "south", {"west": 400})
>>> check.allowed, check.reason
(False, 'bust_without_floating')
>>> s = settle({"east": 4000, "south": 1500, "west": 1500, "north": 1000})
>>> s.standing.top, s.standing.type, s.net
('east', 'A', {'east': 3, 'south': -1, 'west': -1, 'north': -1})
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from paiscan.scoring.errors import HandError
from paiscan.scoring.registry import get_ruleset
from paiscan.scoring.rulesets.boo import check_amounts
from paiscan.scoring.score import Score, Step

TOP_TYPES = ("A", "B", "C")
#: top type by the number of floating players (一人浮き A, 二人浮き B, 一人沈み C)
TYPE_BY_FLOATERS = {1: "A", 2: "B", 3: "C"}
TYPE_NAMES = {
    "A": "Aトップ/マルエー (one floats)",
    "B": "Bトップ/マルビー (two float)",
    "C": "Cトップ/マルシー (one sinks)",
}
#: Osaka ``bust_partial_payment``: a payer is left at the smallest positive score [assumed]
PARTIAL_PAYMENT_FLOOR = 10
#: Kansai's origin (満貫相当の原点): not an option there
KANSAI_ORIGIN = 2000
#: severities of a :class:`RuleWarning`
FORBIDDEN, FROWNED_UPON, HOUSE_RULE, VALID_ALL_LAST, PARTIAL = (
    "forbidden",
    "frowned_upon",
    "house_rule_off",
    "valid_in_all_last",
    "partial_payment",
)

#: the rulesets this module settles
BOO_FAMILY = ("boo", "kansai_boo")
#: Kansai's restrictions, all enforced (the game refuses the win) [seed ブー麻雀の和了に於ける制限]
KANSAI_RESTRICTIONS = ("maru_c_ending", "sinking_winner_must_float", "floating_winner_must_top")


@dataclass(frozen=True)
class SettlementRules:
    """The Boo-family settings that act at game level (from a ruleset's options).

    ``restrictions`` maps each win restriction this ruleset has to its severity under the options;
    ``loser_payment`` and ``table_fee`` are per top type.
    """

    rules: str
    origin: int
    loser_payment: Mapping[str, int]
    table_fee: Mapping[str, int]
    table_fee_gentsuu: int | None
    yakuman_effect: str | None
    restrictions: Mapping[str, str]
    forbidden_valid_all_last: bool = False
    bust_partial_payment: bool = False
    top_is_next_start_dealer: bool = True

    @property
    def end_at(self) -> int:
        """原点の2倍: a score at or above this ends the game."""
        return 2 * self.origin


def settlement_rules(rules: str = "boo", options: Mapping[str, Any] | None = None) -> SettlementRules:
    """The settings of ``rules`` (``boo`` or ``kansai_boo``) under ``options`` (a Hand's
    ``options``: unknown or bad values are the usual ``unknown_option`` / ``bad_option``).

    >>> settlement_rules("kansai_boo").loser_payment
    {'A': 10, 'B': 5, 'C': 3}
    """
    if rules not in BOO_FAMILY:
        raise HandError("unknown_ruleset", f"settlement_boo settles boo and kansai_boo, not {rules!r}", "rules")
    opts = get_ruleset(rules).parse_options(options)
    check_amounts(opts)
    if rules == "kansai_boo":
        return SettlementRules(
            rules,
            KANSAI_ORIGIN,
            {t: int(v) for t, v in opts.settlement_points.items()},
            dict.fromkeys(TOP_TYPES, opts.table_fee),
            None,
            None if opts.yakuman_bonus == "none" else opts.yakuman_bonus,
            dict.fromkeys(KANSAI_RESTRICTIONS, FORBIDDEN),
            top_is_next_start_dealer=False,
        )
    mode = opts.aotenjou_yakuman if opts.aotenjou else opts.yakuman_mode
    return SettlementRules(
        rules,
        opts.start_points,
        dict(opts.loser_payment),
        dict(opts.table_fee),
        opts.table_fee_gentsuu or None,
        "a_top" if mode == "a_top" else None,
        {
            "bust_without_floating": FORBIDDEN,
            "sink_without_floating": FROWNED_UPON,
            "bust_without_top": FORBIDDEN if opts.bust_requires_top else HOUSE_RULE,
            "c_top_ending": FORBIDDEN if opts.c_top_banned else FROWNED_UPON,
        },
        forbidden_valid_all_last=opts.forbidden_valid_all_last,
        bust_partial_payment=opts.bust_partial_payment,
    )


# ------------------------------------------------------------------ scores and the end
def _check_scores(scores: Mapping[Any, int], name: str = "scores") -> list[Any]:
    players = list(scores)
    if len(players) != 4:
        raise HandError("bad_field", f"{name}: the Boo family has four players, not {len(players)}", name)
    for p, v in scores.items():
        if isinstance(v, bool) or not isinstance(v, int):
            raise HandError("bad_field", f"{name}: the score of {p!r} must be a whole number, not {v!r}", name)
    return players


def _check_player(p: Any, players: Sequence[Any], name: str) -> None:
    if p not in players:
        raise HandError("bad_field", f"{name} {p!r} is not one of the players ({', '.join(map(str, players))})", name)


def apply_pays(scores: Mapping[Any, int], winner: Any, pays: Mapping[Any, int]) -> dict[Any, int]:
    """The scores after ``winner`` receives ``pays`` (payer → amount).

    >>> apply_pays({"a": 2000, "b": 2000, "c": 2000, "d": 2000}, "a", {"b": 500, "c": 500})
    {'a': 3000, 'b': 1500, 'c': 1500, 'd': 2000}
    """
    players = _check_scores(scores)
    _check_player(winner, players, "winner")
    out = dict(scores)
    for payer, amount in pays.items():
        _check_player(payer, players, "pays")
        if payer == winner:
            raise HandError("bad_field", f"the winner {winner!r} cannot pay himself", "pays")
        if isinstance(amount, bool) or not isinstance(amount, int) or amount < 0:
            raise HandError("bad_field", f"pays: {payer!r} must pay a whole number >= 0, not {amount!r}", "pays")
        out[payer] -= amount
        out[winner] += amount
    return out


def pays_from_score(
    score: Score, winner: Any, dealer: Any, players: Sequence[Any], discarder: Any | None = None
) -> dict[Any, int]:
    """Who pays what of a Boo-family Score (``players`` in seat order): a ron (and an Osaka
    rinshan after an open kan, paid as a ron) is paid by ``discarder``; a tsumo by the others,
    the dealer paying the ``dealer`` payment."""
    _check_player(winner, players, "winner")
    _check_player(dealer, players, "dealer")
    others = [p for p in players if p != winner]
    by_from: dict[str, list[int]] = {}
    for pay in score.payments:
        by_from.setdefault(pay.from_, []).append(pay.amount)
    if "discarder" in by_from:
        if discarder is None or discarder == winner:
            raise HandError("bad_field", "a ron needs the discarder: one of the other players", "discarder")
        _check_player(discarder, players, "discarder")
        return {discarder: sum(by_from["discarder"])}
    if discarder is not None:
        raise HandError("bad_field", "a tsumo has no discarder", "discarder")
    out: dict[Any, int] = {}
    for p in others:
        label = "dealer" if p == dealer else "non_dealer"
        if not by_from.get(label):
            raise HandError(
                "bad_field",
                f"the Score has no {label} payment for {p!r}: was it "
                f"scored with {winner!r} as the winner and {dealer!r} as the dealer?",
                "winner",
            )
        out[p] = by_from[label].pop()
    return out


def game_end(
    scores: Mapping[Any, int],
    rules: SettlementRules | None = None,
    *,
    all_last: bool = False,
    winner: Any | None = None,
    dealer: Any | None = None,
) -> str | None:
    """Why the game ends after these scores, or None.

    ``bust`` (a score at or below 0, ドボン/箱点), ``double`` (a score at twice the origin), or
    ``all_last`` (South 4: an exhaustive draw, ``winner`` None, or a non-dealer win; a dealer win
    there repeats the deal [assumed]).

    >>> game_end({"a": 4000, "b": 1500, "c": 1500, "d": 1000})
    'double'
    """
    rules = rules or settlement_rules()
    _check_scores(scores)
    if any(v <= 0 for v in scores.values()):
        return "bust"
    if any(v >= rules.end_at for v in scores.values()):
        return "double"
    if all_last:
        if winner is None:
            return "all_last"
        if dealer is None:
            raise HandError(
                "bad_field",
                "in South 4 the dealer is needed: a dealer win repeats the deal, a non-dealer win ends the game",
                "dealer",
            )
        return None if winner == dealer else "all_last"
    return None


# ------------------------------------------------------------------ standing and settlement
@dataclass(frozen=True)
class Standing:
    """The result of final scores: the top, the top type and who pays (``losers`` and
    ``neutral``, the floating players who are not top, in seat order).

    ``type`` is None when nobody sinks (everyone exactly at the origin: no settlement).
    ``order`` ranks every player (ties: seat order from the starting dealer [assumed]).
    """

    top: Any
    type: str | None
    gentsuu: bool
    losers: tuple[Any, ...]
    neutral: tuple[Any, ...]
    order: tuple[Any, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "top": self.top,
            "type": self.type,
            "gentsuu": self.gentsuu,
            "losers": list(self.losers),
            "neutral": list(self.neutral),
            "order": list(self.order),
        }


def ranking(scores: Mapping[Any, int], start_dealer: Any | None = None) -> tuple[Any, ...]:
    """Players by score, ties by seat order from ``start_dealer`` (default: the first seat)."""
    players = _check_scores(scores)
    if start_dealer is not None:
        _check_player(start_dealer, players, "start_dealer")
    start = players.index(start_dealer) if start_dealer is not None else 0
    seat = {p: (i - start) % 4 for i, p in enumerate(players)}
    return tuple(sorted(players, key=lambda p: (-scores[p], seat[p])))


def standing(
    final: Mapping[Any, int],
    rules: SettlementRules | None = None,
    start_dealer: Any | None = None,
    yakuman_winner: Any | None = None,
) -> Standing:
    """Top type by the floaters (浮き: at or above the origin, 原点持ちは「浮き」): one → A, two →
    B, three → C; gentsuu (ゲンツー) is a B-top whose second is exactly at the origin.
    ``yakuman_winner``: a yakuman under ``yakuman_mode a_top`` / ``yakuman_bonus maru_a``
    makes its winner an A-top whatever the scores."""
    rules = rules or settlement_rules()
    order = ranking(final, start_dealer)
    if yakuman_winner is not None:
        if rules.yakuman_effect is None:
            raise HandError(
                "bad_field",
                f"yakuman_winner: a yakuman has no game effect under these {rules.rules} options",
                "yakuman_winner",
            )
        _check_player(yakuman_winner, order, "yakuman_winner")
        losers = tuple(p for p in final if p != yakuman_winner)
        return Standing(yakuman_winner, "A", False, losers, (), (yakuman_winner, *losers))
    top = order[0]
    seats = list(final)
    floaters = [p for p in seats if final[p] >= rules.origin]
    losers = tuple(p for p in seats if final[p] < rules.origin)
    neutral = tuple(p for p in floaters if p != top)
    if not losers:
        return Standing(top, None, False, (), neutral, order)
    kind = TYPE_BY_FLOATERS[len(floaters)]
    gentsuu = kind == "B" and final[order[1]] == rules.origin
    return Standing(top, kind, gentsuu, losers, neutral, order)


@dataclass(frozen=True)
class Settlement:
    """Each player's settlement (``net``), from the standing: every loser pays the top
    ``per_loser``; the top receives ``top_receives`` and pays ``table_fee``."""

    standing: Standing
    per_loser: int
    top_receives: int
    table_fee: int
    net: dict[Any, int]
    next_start_dealer: Any | None
    steps: tuple[Step, ...] = field(default=())

    def to_dict(self) -> dict[str, Any]:
        return {
            **self.standing.to_dict(),
            "per_loser": self.per_loser,
            "top_receives": self.top_receives,
            "table_fee": self.table_fee,
            "net": dict(self.net),
            "next_start_dealer": self.next_start_dealer,
            "explanation": [s.to_dict() for s in self.steps],
        }


def settle(
    final: Mapping[Any, int],
    rules: SettlementRules | None = None,
    start_dealer: Any | None = None,
    yakuman_winner: Any | None = None,
) -> Settlement:
    """The end-of-game settlement: only sinking players pay, only the top receives, the top pays
    the table fee (Osaka: ``loser_payment`` / ``table_fee`` per type, ``table_fee_gentsuu``;
    Kansai: 10 / 5 / 3 points minus 3). The top starts the next game (Osaka)."""
    rules = rules or settlement_rules()
    st = standing(final, rules, start_dealer, yakuman_winner)
    net = dict.fromkeys(final, 0)
    if st.type is None:
        step = Step("settlement", f"nobody is below the origin {rules.origin}: no settlement")
        nxt = st.top if rules.top_is_next_start_dealer else None
        return Settlement(st, 0, 0, 0, net, nxt, (step,))
    per_loser = rules.loser_payment[st.type]
    fee = rules.table_fee[st.type]
    steps = [
        Step(
            "top",
            f"{st.top} is top, {TYPE_NAMES[st.type]}"
            + (" (ゲンツー: the second is exactly at the origin)" if st.gentsuu else ""),
        )
    ]
    if yakuman_winner is not None:
        steps[0] = Step("top", f"{st.top} won a yakuman: {rules.yakuman_effect}, whatever the scores")
        if rules.yakuman_effect == "double_maru_a":
            per_loser *= 2
    if st.gentsuu and rules.table_fee_gentsuu is not None:
        fee = rules.table_fee_gentsuu
    receives = per_loser * len(st.losers)
    for p in st.losers:
        net[p] = -per_loser
    net[st.top] = receives - fee
    steps.append(
        Step(
            "losers",
            f"{', '.join(map(str, st.losers))} below {rules.origin}: {per_loser} each to {st.top} = {receives}",
        )
    )
    steps.append(Step("table_fee", f"{st.top} pays the table fee {fee}: net {receives - fee}"))
    if st.neutral:
        steps.append(Step("neutral", f"{', '.join(map(str, st.neutral))} float but are not top: 0"))
    nxt = st.top if rules.top_is_next_start_dealer else None
    if nxt is not None:
        steps.append(Step("next", f"トップ者が次回の起家: {nxt} starts the next game"))
    return Settlement(st, per_loser, receives, fee, net, nxt, tuple(steps))


# ------------------------------------------------------------------ forbidden wins
@dataclass(frozen=True)
class RuleWarning:
    """A win restriction the win touches: the rule id, how the house treats it (``forbidden``,
    ``frowned_upon``, ``house_rule_off``: some houses forbid it, this one does not,
    ``valid_in_all_last``, ``partial_payment``), the seed's wording and what happened."""

    rule: str
    severity: str
    seed: str
    message: str

    def __str__(self) -> str:
        return f"{self.rule} ({self.severity}): {self.message} — {self.seed}"


#: the seed's wording of each restriction
RESTRICTIONS: dict[str, str] = {
    "bust_without_floating": "自分が浮かないのに、他人をドボンさせる和了り …絶対に禁止",
    "sink_without_floating": "自分が浮かないのに、他人を沈める和了り …嫌われます",
    "bust_without_top": "トップでもないのに、他人をドボンさせる和了り …雀荘によっては禁止",
    "c_top_ending": "Cトップとなる和了り …嫌われます (Cトップを禁止している雀荘もあります)",
    "maru_c_ending": "マルシーで終わってしまうような和了は出来ません",
    "sinking_winner_must_float": "沈んでいる者は、和了で浮くようにしなければなりません",
    "floating_winner_must_top": "浮いていてトップでない者は、和了でトップを獲らなければなりません",
}


@dataclass(frozen=True)
class WinCheck:
    """Whether a win is allowed. ``reason`` is the first rule that forbids it; ``warnings`` names
    every restriction the win touches, forbidden or not (never dropped). ``pays`` are what is
    exchanged (Osaka ``bust_partial_payment`` may lower them), ``after`` the scores they give,
    ``ends`` why the game would end (or None) and ``standing`` its result then."""

    allowed: bool
    reason: str | None
    warnings: tuple[RuleWarning, ...]
    pays: dict[Any, int]
    after: dict[Any, int]
    ends: str | None
    standing: Standing | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "allowed": self.allowed,
            "reason": self.reason,
            "warnings": [
                {"rule": w.rule, "severity": w.severity, "seed": w.seed, "message": w.message} for w in self.warnings
            ],
            "pays": dict(self.pays),
            "after": dict(self.after),
            "ends": self.ends,
            "standing": self.standing.to_dict() if self.standing else None,
        }


def _touched(
    rules: SettlementRules,
    before: Mapping[Any, int],
    after: Mapping[Any, int],
    winner: Any,
    ends: str | None,
    st: Standing,
    start_dealer: Any | None,
) -> list[tuple[str, str]]:
    """(rule, what happened) for every restriction of ``rules`` this win touches."""
    origin = rules.origin
    busted = [p for p in after if after[p] <= 0]
    floats = after[winner] >= origin
    out: list[tuple[str, str]] = []
    ws = f"{winner} {before[winner]} → {after[winner]}"
    for rule in rules.restrictions:
        if rule == "bust_without_floating" and busted and not floats:
            out.append((rule, f"{ws} still below {origin} while {_list(busted, after)} busts"))
        elif rule == "sink_without_floating" and not floats:
            sunk = [p for p in after if p != winner and before[p] >= origin > after[p]]
            if sunk:
                out.append((rule, f"{ws} still below {origin} while {_list(sunk, after)} sinks"))
        elif rule == "bust_without_top" and busted and st.top != winner:
            out.append((rule, f"{_list(busted, after)} busts but {winner} is not top ({st.top} is)"))
        elif rule in ("c_top_ending", "maru_c_ending") and ends and st.type == "C":
            out.append((rule, f"the game ends ({ends}) with one loser: {_list(st.losers, after)}"))
        elif rule == "sinking_winner_must_float" and ends and before[winner] < origin and not floats:
            out.append((rule, f"the game ends ({ends}) and {ws} is still below {origin}"))
        elif rule == "floating_winner_must_top" and ends and before[winner] >= origin:
            top_before = ranking(before, start_dealer)[0]
            if top_before != winner and st.top != winner:
                out.append((rule, f"the game ends ({ends}) and {ws} is not first ({st.top} {after[st.top]} is)"))
    return out


def _list(players: Sequence[Any], scores: Mapping[Any, int]) -> str:
    return ", ".join(f"{p} {scores[p]}" for p in players)


def check_win(
    before: Mapping[Any, int],
    winner: Any,
    pays: Mapping[Any, int],
    rules: SettlementRules | None = None,
    *,
    dealer: Any | None = None,
    all_last: bool = False,
    start_dealer: Any | None = None,
    yakuman: bool = False,
) -> WinCheck:
    """Judge a win on the scores after its payments (和了りの制限): Osaka §6 (one rule forbidden,
    two frowned upon, one a house setting) or Kansai's three enforced restrictions.

    ``all_last``: the hand is South 4 (Osaka ``forbidden_valid_all_last``; both rulesets end the
    game on a non-dealer win there). ``yakuman``: the hand is a yakuman; under ``a_top`` /
    ``maru_a`` it ends the game with the winner A-top, which no restriction concerns.
    """
    rules = rules or settlement_rules()
    _check_scores(before, "before")
    after = apply_pays(before, winner, pays)
    pays = dict(pays)
    if yakuman and rules.yakuman_effect is not None:
        st = standing(after, rules, start_dealer, yakuman_winner=winner)
        return WinCheck(True, None, (), pays, after, "yakuman", st)
    ends = game_end(after, rules, all_last=all_last, winner=winner, dealer=dealer)
    st = standing(after, rules, start_dealer)
    touched = _touched(rules, before, after, winner, ends, st, start_dealer)
    warnings: list[RuleWarning] = []
    bust_forbidden = any(r == "bust_without_floating" for r, _ in touched)
    valid_all_last = all_last and rules.forbidden_valid_all_last
    if bust_forbidden and rules.bust_partial_payment and not valid_all_last:
        capped = {p: min(a, max(0, before[p] - PARTIAL_PAYMENT_FLOOR)) for p, a in pays.items()}
        lowered = ", ".join(f"{p} pays {capped[p]} instead of {pays[p]}" for p in pays if capped[p] != pays[p])
        rule = "bust_without_floating"
        warnings.append(
            RuleWarning(
                rule,
                PARTIAL,
                RESTRICTIONS[rule],
                (
                    f"{dict(touched)[rule]}: only what leaves each payer at {PARTIAL_PAYMENT_FLOOR} is "
                    f"paid, {lowered} (bust_partial_payment)"
                ),
            )
        )
        pays = capped
        after = apply_pays(before, winner, pays)
        ends = game_end(after, rules, all_last=all_last, winner=winner, dealer=dealer)
        st = standing(after, rules, start_dealer)
        touched = _touched(rules, before, after, winner, ends, st, start_dealer)
    reason = None
    for rule, message in touched:
        severity = rules.restrictions[rule]
        if severity == FORBIDDEN and valid_all_last:
            severity = VALID_ALL_LAST
            message += " (forbidden_valid_all_last: allowed in South 4)"
        elif severity == FORBIDDEN and reason is None:
            reason = rule
        warnings.append(RuleWarning(rule, severity, RESTRICTIONS[rule], message))
    return WinCheck(reason is None, reason, tuple(warnings), pays, after, ends, st if ends else None)


# ------------------------------------------------------------------ one hand
@dataclass(frozen=True)
class HandOutcome:
    """What one winning hand does to the game. ``scores`` are the new scores — the scores before
    when the win is forbidden (the game refuses it; ``check.after`` shows what it would have
    given). ``settlement`` is set when the game ends. ``next_honba`` follows Boo §1."""

    check: WinCheck
    scores: dict[Any, int]
    ends: str | None
    settlement: Settlement | None
    next_honba: int | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "check": self.check.to_dict(),
            "scores": dict(self.scores),
            "ends": self.ends,
            "settlement": self.settlement.to_dict() if self.settlement else None,
            "next_honba": self.next_honba,
        }


def play_hand(
    before: Mapping[Any, int],
    score: Score,
    winner: Any,
    dealer: Any,
    *,
    discarder: Any | None = None,
    all_last: bool = False,
    start_dealer: Any | None = None,
    options: Mapping[str, Any] | None = None,
) -> HandOutcome:
    """A scored Boo-family hand applied to the game: who pays (:func:`pays_from_score`), whether
    the win is allowed (:func:`check_win`), the new scores, whether the game ends and, if so, the
    settlement. ``options`` are the Hand's options (they hold the game-level settings too)."""
    rules = settlement_rules(score.rules, options)
    players = _check_scores(before, "before")
    pays = pays_from_score(score, winner, dealer, players, discarder)
    check = check_win(
        before,
        winner,
        pays,
        rules,
        dealer=dealer,
        all_last=all_last,
        start_dealer=start_dealer,
        yakuman=bool(score.extra.get("yakuman")),
    )
    if not check.allowed:
        return HandOutcome(check, dict(before), None, None, None)
    settlement = None
    if check.ends:
        settlement = settle(
            check.after, rules, start_dealer, yakuman_winner=winner if check.ends == "yakuman" else None
        )
    return HandOutcome(check, check.after, check.ends, settlement, score.extra.get("next_honba"))


__all__ = [
    "HandOutcome",
    "RuleWarning",
    "Settlement",
    "SettlementRules",
    "Standing",
    "WinCheck",
    "apply_pays",
    "check_win",
    "game_end",
    "pays_from_score",
    "play_hand",
    "ranking",
    "settle",
    "settlement_rules",
    "standing",
]
