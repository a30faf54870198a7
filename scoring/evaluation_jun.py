"""純麻雀 game evaluation: the 16-hand game, its final ranks and marks, and the figures of a series.

Spec rules/jun.md §1 and §4; seed 004 第2, 4, 9, 16, 17, 27条. The game-record feature calls:

* :func:`deal` / :func:`deals` — the 16 hands (East, South, West, North rounds of four; the deal
  always rotates, so hand ``n`` is dealt by seat ``(n - 1) % 4``);
* :func:`win_deltas` and :func:`final_scores` — a Jun Score turned into each player's change, and
  the final scores from 30 000 each;
* :func:`evaluate_game` (a finished game) and :func:`evaluate_abandoned` (第17条) → a frozen
  :class:`GameResult`: ranks with ties sharing a rank, the win/loss marks, plus or not;
* :func:`series_figures` / :func:`player_figures` → :class:`SeriesFigures`: 勝率, グレード (順位率)
  and プラス率 with the seed's ``rate@games`` display.

Players are whatever hashable ids the record uses, given in seat order from the first dealer.

>>> r = evaluate_game({"A": 40000, "B": 40000, "C": 25000, "D": 15000})
>>> r.pattern, r.legend, r.wins
('1134', '○○××', ('A', 'B'))
>>> series_figures([Placing.of(1, True), Placing.of(3, False)]).display()
{'win_rate': '0.500@2', 'grade': '2000@2', 'plus_rate': '0.500@2'}
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction
from typing import Any, Generic, Protocol, TypeVar

from paiscan.scoring.errors import HandError
from paiscan.scoring.options import opt, parse_options
from paiscan.scoring.score import Score, Step
from paiscan.scoring.tiles import WINDS

P = TypeVar("P", bound=Hashable)

START_POINTS = 30_000  # 第2条: 計三万点
PLAYERS = 4  # 第4条: 競技者4人
HANDS_PER_ROUND = 4
HANDS_PER_GAME = 16  # 第4条 四風16局戦, 第16条: the game ends after the North round
WEST_ROUND_FIRST_HAND = 2 * HANDS_PER_ROUND + 1  # 第17条: 西風戦入局
#: 第17条 個人的理由: the others +10000 each, the offender −30000, ranks 1114
PERSONAL_REASON_BONUS = 10_000
PERSONAL_REASON_PENALTY = 30_000

WIN, LOSS, DRAW = "win", "loss", "draw"
#: 第27条(4) 勝敗凡例 (the seed prints × as X)
GLYPHS: Mapping[str, str] = {WIN: "○", LOSS: "×", DRAW: "△"}

COMPLETE, OVERRUN, SHORTENED, PERSONAL, NO_GAME = (
    "complete",
    "too_many_hands",
    "external_reason",
    "personal_reason",
    "no_game",
)
ABANDON_REASONS = (OVERRUN, SHORTENED, PERSONAL)


@dataclass(frozen=True)
class EvaluationOptions:
    """The spec's [assumed] readings of 第27条 (rules/jun.md §8, items 10 and 11)."""

    start_points: int = opt(START_POINTS, "原点: each player's starting score (第2条)")
    plus_at_start: bool = opt(False, "a final score exactly at the start counts as plus (false: plus means above it)")
    all_tied_rank: int = opt(
        0, "rank recorded for everyone when all four finish equal (the seed's legend prints 0000)", choices=(0, 1)
    )


def _options(options: Mapping[str, Any] | None) -> EvaluationOptions:
    opts: EvaluationOptions = parse_options(EvaluationOptions, options)
    return opts


# ------------------------------------------------------------------ the 16 hands
@dataclass(frozen=True)
class Deal:
    """One hand of the game: its number 1..16, round wind and dealer seat (0 = the first dealer)."""

    number: int
    round_wind: str
    dealer: int

    def seat_wind(self, seat: int) -> str:
        """The seat wind of seat ``seat`` (0..3 in turn order from the first dealer)."""
        if not 0 <= seat < PLAYERS:
            raise HandError("bad_field", f"seat must be 0..3, not {seat}", "seat")
        return WINDS[(seat - self.dealer) % PLAYERS]


def deal(number: int) -> Deal:
    """Hand ``number`` (1..16): the rounds are East, South, West, North of four hands each, and the
    deal passes to the next seat after every hand, won or drawn (第9条 輪荘; no repeats, no honba).

    >>> deal(1), deal(6)
    (Deal(number=1, round_wind='east', dealer=0), Deal(number=6, round_wind='south', dealer=1))
    """
    if isinstance(number, bool) or not isinstance(number, int) or not 1 <= number <= HANDS_PER_GAME:
        raise HandError("bad_field", f"a Jun game has hands 1..{HANDS_PER_GAME}, not {number!r}", "hand_number")
    return Deal(number, WINDS[(number - 1) // HANDS_PER_ROUND], (number - 1) % PLAYERS)


def deals() -> tuple[Deal, ...]:
    """The 16 hands of a game in order."""
    return tuple(deal(n) for n in range(1, HANDS_PER_GAME + 1))


def _check_players(players: Sequence[Any], field: str = "players") -> None:
    if len(players) != PLAYERS or len(set(players)) != PLAYERS:
        raise HandError("bad_field", f"{field}: a Jun game has four different players, not {list(players)!r}", field)


def win_deltas(
    score: Score, players: Sequence[P], hand_number: int, winner: P, discarder: P | None = None
) -> dict[P, int]:
    """Each player's change from a winning hand's Jun Score.

    ``players`` are in seat order from the first dealer; ``hand_number`` (1..16) gives the
    dealer. Ron: the discarder pays the ``discarder`` payment. Tsumo: the dealer pays the
    ``dealer`` payment and each non-dealer a ``non_dealer`` one (equal amounts in Jun). There is
    no honba and no deposit to add.
    """
    _check_players(players)
    if score.rules != "jun":
        raise HandError("bad_field", f"a Jun game settles Jun scores, not {score.rules!r}", "score")
    if winner not in players:
        raise HandError("bad_field", f"winner {winner!r} is not a player", "winner")
    dealer = players[deal(hand_number).dealer]
    by_from: dict[str, list[int]] = {}
    for pay in score.payments:
        by_from.setdefault(pay.from_, []).append(pay.amount)
    payers: dict[P, int] = {}
    if "discarder" in by_from:
        if discarder is None or discarder == winner or discarder not in players:
            raise HandError("bad_field", "a ron needs the discarder: one of the other three players", "discarder")
        payers[discarder] = sum(by_from["discarder"])
    else:
        if discarder is not None:
            raise HandError("bad_field", "a tsumo has no discarder", "discarder")
        for p in players:
            if p == winner:
                continue
            label = "dealer" if p == dealer else "non_dealer"
            if not by_from.get(label):
                raise HandError(
                    "bad_field",
                    f"the Score has no {label} payment for {p!r}: was it "
                    f"scored with {winner!r}'s seat wind in hand {hand_number}?",
                    "winner",
                )
            payers[p] = by_from[label].pop()
        if any(by_from.values()):
            raise HandError("bad_field", "the Score has more tsumo payments than payers", "score")
    deltas: dict[P, int] = {p: 0 for p in players}
    for p, amount in payers.items():
        deltas[p] -= amount
        deltas[winner] += amount
    return deltas


def final_scores(
    players: Sequence[P], hand_deltas: Iterable[Mapping[P, int]], start: int = START_POINTS
) -> dict[P, int]:
    """The scores after the given hands, from ``start`` each (no bust: scores may go below 0)."""
    _check_players(players)
    scores: dict[P, int] = {p: start for p in players}
    for i, deltas in enumerate(hand_deltas):
        for p, change in deltas.items():
            if p not in scores:
                raise HandError("bad_field", f"hand {i + 1}: {p!r} is not a player", f"hand_deltas[{i}]")
            scores[p] += change
    return scores


# ------------------------------------------------------------------ one game
def rank_scores(scores: Mapping[P, int]) -> dict[P, int]:
    """Competition ranks: 1 + how many finished strictly higher (ties share a rank: 1134, 1224).

    >>> rank_scores({"A": 50000, "B": 30000, "C": 20000, "D": 20000})
    {'A': 1, 'B': 2, 'C': 3, 'D': 3}
    """
    return {p: 1 + sum(1 for other in scores.values() if other > s) for p, s in scores.items()}


class Placed(Protocol):
    """What a series needs of one game of one player."""

    @property
    def rank(self) -> int: ...

    @property
    def mark(self) -> str: ...

    @property
    def plus(self) -> bool: ...


@dataclass(frozen=True)
class Placing:
    """One player's outcome of one game, without the score (enough for the series figures)."""

    rank: int
    mark: str
    plus: bool

    @classmethod
    def of(cls, rank: int, plus: bool) -> Placing:
        """The default reading of a rank: 1 a win, 0 (all four equal) a draw, else a loss."""
        return cls(rank, WIN if rank == 1 else DRAW if rank == 0 else LOSS, plus)


@dataclass(frozen=True)
class PlayerResult(Generic[P]):
    """One player's game: final score, points against the start (浮き +, 沈み −), rank, mark and
    plus."""

    player: P
    score: int
    points: int
    rank: int
    mark: str
    plus: bool

    @property
    def glyph(self) -> str:
        return GLYPHS[self.mark]

    def to_dict(self) -> dict[str, Any]:
        return {
            "player": self.player,
            "score": self.score,
            "points": self.points,
            "rank": self.rank,
            "mark": self.mark,
            "glyph": self.glyph,
            "plus": self.plus,
        }


@dataclass(frozen=True)
class GameResult(Generic[P]):
    """The evaluation of one game: a result per player (in the order given) and why.

    ``counted`` is false for a game that does not count (第17条 ノーゲーム); it then has no
    results."""

    results: tuple[PlayerResult[P], ...]
    status: str = COMPLETE
    counted: bool = True
    steps: tuple[Step, ...] = ()
    warnings: tuple[str, ...] = ()

    @property
    def ranks(self) -> dict[P, int]:
        return {r.player: r.rank for r in self.results}

    @property
    def marks(self) -> dict[P, str]:
        return {r.player: r.mark for r in self.results}

    @property
    def pattern(self) -> str:
        """The ranks as the seed's legend writes them, lowest first: ``1134``, ``0000``."""
        return "".join(str(r.rank) for r in sorted(self.results, key=lambda r: r.rank))

    @property
    def legend(self) -> str:
        """The marks in the same order: ``○○××``, ``△△△△``."""
        return "".join(r.glyph for r in sorted(self.results, key=lambda r: r.rank))

    def _with(self, mark: str) -> tuple[P, ...]:
        return tuple(r.player for r in self.results if r.mark == mark)

    @property
    def wins(self) -> tuple[P, ...]:
        return self._with(WIN)

    @property
    def losses(self) -> tuple[P, ...]:
        return self._with(LOSS)

    @property
    def draws(self) -> tuple[P, ...]:
        return self._with(DRAW)

    @property
    def plus(self) -> tuple[P, ...]:
        return tuple(r.player for r in self.results if r.plus)

    def result(self, player: P) -> PlayerResult[P]:
        for r in self.results:
            if r.player == player:
                return r
        raise HandError("bad_field", f"{player!r} did not play this game", "player")

    def to_dict(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "counted": self.counted,
            "ranks": self.pattern,
            "legend": self.legend,
            "players": [r.to_dict() for r in self.results],
            "explanation": [s.to_dict() for s in self.steps],
            "warnings": list(self.warnings),
        }


def _check_scores(final: Mapping[Any, int]) -> None:
    _check_players(list(final), "final")
    for p, s in final.items():
        if isinstance(s, bool) or not isinstance(s, int):
            raise HandError("bad_field", f"final score of {p!r} must be a whole number, not {s!r}", "final")


def evaluate_game(
    final: Mapping[P, int],
    options: Mapping[str, Any] | None = None,
    status: str = COMPLETE,
    marks: Mapping[P, str] | None = None,
) -> GameResult[P]:
    """Ranks, marks and plus of a game from its final scores (第27条).

    * rank: competition ranking on score, ties sharing a rank (1134, 1133, 1114, 1222, 1224,
      1233); all four equal: 0000 (option ``all_tied_rank``);
    * mark: every rank-1 player wins (○), the others lose (×); all four equal: △ for all;
    * plus: above the start (option ``plus_at_start``).

    ``marks`` overrides the marks (第17条 personal reason). A total other than 4 × start is
    evaluated as it is (第2条(1): 過不足 … 現状を有効として進行) with a warning.
    """
    opts = _options(options)
    _check_scores(final)
    start = opts.start_points
    all_tied = len(set(final.values())) == 1
    ranks = {p: opts.all_tied_rank for p in final} if all_tied else rank_scores(final)
    steps = [
        Step(
            "ranks",
            ", ".join(f"{p} {s} → {ranks[p]}" for p, s in final.items()) + (" (all four equal)" if all_tied else ""),
        )
    ]
    if marks is None:
        marks = {p: DRAW if all_tied else WIN if ranks[p] == 1 else LOSS for p in final}
        steps.append(
            Step("marks", "all four equal: △ for everyone" if all_tied else "every rank-1 player ○, the others ×")
        )
    plus = {p: s > start or (opts.plus_at_start and s == start) for p, s in final.items()}
    steps.append(
        Step(
            "plus",
            f"plus = final score {'>=' if opts.plus_at_start else '>'} {start}: "
            + (", ".join(str(p) for p in final if plus[p]) or "nobody"),
        )
    )
    warnings: list[str] = []
    total = sum(final.values())
    if total != PLAYERS * start:
        warnings.append(f"final scores total {total}, not {PLAYERS * start}: evaluated as they are (第2条(1))")
    results = tuple(PlayerResult(p, s, s - start, ranks[p], marks[p], plus[p]) for p, s in final.items())
    return GameResult(results, status, True, tuple(steps), tuple(warnings))


def evaluate_abandoned(
    reason: str,
    players: Sequence[P],
    final: Mapping[P, int] | None = None,
    hands_started: int | None = None,
    offender: P | None = None,
    options: Mapping[str, Any] | None = None,
) -> GameResult[P]:
    """A game that did not end after the 16th hand (第17条).

    * ``too_many_hands`` (超過): stopped at once; evaluated on the ``final`` scores then;
    * ``external_reason`` (停電等): ``hands_started`` is how many hands had begun, the interrupted
      one included; before the West round (hand 9) the game does not count (ノーゲーム), otherwise
      it is evaluated on the ``final`` scores then;
    * ``personal_reason`` (急な疾病・所用等): whenever it happens, each other player 1 win, the
      ``offender`` 1 loss, ranks 1114, the others +10000 and the offender −30000 against the
      start [assumed: the final scores are start ± these points, so the others are plus].
    """
    opts = _options(options)
    _check_players(players)
    if reason == PERSONAL:
        if offender not in players:
            raise HandError("bad_field", f"offender must be one of the players, not {offender!r}", "offender")
        start = opts.start_points
        scores = {
            p: start - PERSONAL_REASON_PENALTY if p == offender else start + PERSONAL_REASON_BONUS for p in players
        }
        marks = {p: LOSS if p == offender else WIN for p in players}
        r = evaluate_game(scores, options, PERSONAL, marks)
        why = Step(
            "abandoned",
            f"personal reason of {offender}: the others "
            f"+{PERSONAL_REASON_BONUS} and 1 win each, {offender} "
            f"−{PERSONAL_REASON_PENALTY} and 1 loss (第17条)",
        )
        return GameResult(r.results, PERSONAL, True, (why, *r.steps), r.warnings)
    if reason == SHORTENED:
        if (
            isinstance(hands_started, bool)
            or not isinstance(hands_started, int)
            or not 1 <= hands_started <= HANDS_PER_GAME
        ):
            raise HandError(
                "bad_field", f"hands_started must be 1..{HANDS_PER_GAME}, not {hands_started!r}", "hands_started"
            )
        if hands_started < WEST_ROUND_FIRST_HAND:
            why = Step(
                "abandoned",
                f"stopped in hand {hands_started}, before the West round "
                f"(hand {WEST_ROUND_FIRST_HAND}): no game (第17条)",
            )
            return GameResult((), NO_GAME, False, (why,))
        head = Step(
            "abandoned",
            f"stopped in hand {hands_started}, in or after the West round: evaluated on the scores then (第17条)",
        )
    elif reason == OVERRUN:
        head = Step("abandoned", "too many hands: stopped at once and evaluated on the scores then (第17条)")
    else:
        raise HandError("bad_field", f"reason must be one of {', '.join(ABANDON_REASONS)}, not {reason!r}", "reason")
    if final is None or set(final) != set(players):
        raise HandError("bad_field", "final must give the score of each of the four players", "final")
    r = evaluate_game({p: final[p] for p in players}, options, reason)
    return GameResult(r.results, reason, True, (head, *r.steps), r.warnings)


# ------------------------------------------------------------------ a series of games
def _half_up(value: Fraction, places: int) -> Decimal:
    exact = Decimal(value.numerator) / Decimal(value.denominator)
    return exact.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)


@dataclass(frozen=True)
class SeriesFigures:
    """第27条 over ``games`` (規定ゲーム数): 勝率 (main), グレード 順位率 (sub) and プラス率
    (reference)."""

    games: int
    wins: int
    rank_sum: int
    plus_count: int

    @property
    def win_rate(self) -> Fraction:
        """勝率 = トップの和 / 規定ゲーム数."""
        return Fraction(self.wins, self.games)

    @property
    def grade(self) -> Fraction:
        """グレード (順位率) = 順位の和 / 規定ゲーム数 × 1000 (lower is better)."""
        return Fraction(self.rank_sum * 1000, self.games)

    @property
    def plus_rate(self) -> Fraction:
        """プラス率 = プラス数の和 / 規定ゲーム数."""
        return Fraction(self.plus_count, self.games)

    def display(self) -> dict[str, str]:
        """The seed's display forms ``勝率@ゲーム数``: rates to three places, the grade whole
        (both rounded half up)."""
        return {
            "win_rate": f"{_half_up(self.win_rate, 3)}@{self.games}",
            "grade": f"{_half_up(self.grade, 0)}@{self.games}",
            "plus_rate": f"{_half_up(self.plus_rate, 3)}@{self.games}",
        }

    def to_dict(self) -> dict[str, Any]:
        return {
            "games": self.games,
            "wins": self.wins,
            "rank_sum": self.rank_sum,
            "plus_count": self.plus_count,
            **self.display(),
        }


def series_figures(placings: Iterable[Placed], games: int | None = None) -> SeriesFigures:
    """The figures of one player's games. ``games`` is the regulation number of games (規定ゲーム
    数), by default the number of games given; it cannot be fewer."""
    played = list(placings)
    n = len(played) if games is None else games
    if isinstance(n, bool) or not isinstance(n, int) or n < max(1, len(played)):
        raise HandError(
            "bad_field",
            f"games must be a whole number >= the games played ({len(played)}) and >= 1, not {n!r}",
            "games",
        )
    for i, p in enumerate(played):
        if p.mark not in GLYPHS or not 0 <= p.rank <= PLAYERS:
            raise HandError(
                "bad_field", f"game {i + 1}: rank {p.rank!r} / mark {p.mark!r} is not a Jun placing", f"placings[{i}]"
            )
    return SeriesFigures(
        games=n,
        wins=sum(1 for p in played if p.mark == WIN),
        rank_sum=sum(p.rank for p in played),
        plus_count=sum(1 for p in played if p.plus),
    )


def player_figures(results: Iterable[GameResult[P]], player: P, games: int | None = None) -> SeriesFigures:
    """One player's figures over evaluated games (games that do not count, or that the player
    did not play, are skipped)."""
    placings = [r.result(player) for r in results if r.counted and any(x.player == player for x in r.results)]
    return series_figures(placings, games)


__all__ = [
    "DRAW",
    "GLYPHS",
    "HANDS_PER_GAME",
    "LOSS",
    "START_POINTS",
    "WIN",
    "Deal",
    "EvaluationOptions",
    "GameResult",
    "Placed",
    "Placing",
    "PlayerResult",
    "SeriesFigures",
    "deal",
    "deals",
    "evaluate_abandoned",
    "evaluate_game",
    "final_scores",
    "player_figures",
    "rank_scores",
    "series_figures",
    "win_deltas",
]
