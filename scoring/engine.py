"""The ruleset interface and the pipeline every ruleset shares.

A :class:`Ruleset` declares its tile set, options (a frozen dataclass), yaku table and how one
interpretation is priced; :meth:`Ruleset.score` validates the hand, enumerates every
interpretation (:mod:`paiscan.scoring.decompose`) and reports the one that pays the winner most
(rules README §4.2). New rulesets plug in by subclassing and registering in
:mod:`paiscan.scoring.registry`; the core does not change.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Final

from paiscan.scoring.decompose import Interpretation, interpretations
from paiscan.scoring.errors import HandError
from paiscan.scoring.hand import CONTRACT_FLAGS, Hand
from paiscan.scoring.options import option_schema, parse_options
from paiscan.scoring.score import Score
from paiscan.scoring.tiles import BACK, RED_5M, RED_5S, SUITS, kind, tile_name
from paiscan.scoring.yaku import Context, Facts, Yaku

try:  # marks for a compiled build (mypyc, see the README); plain Python ignores them
    from mypy_extensions import mypyc_attr
except ImportError:  # (mypy_extensions comes with mypy: a plain install may lack it)

    def mypyc_attr(*attrs: str, **kwattrs: object) -> Any:  # type: ignore[misc]
        return lambda cls: cls


_RINSHAN_FLAGS: Final = ("rinshan", "rinshan_after_daiminkan")
#: the declarations of riichi (each needs a closed hand; ippatsu needs one of them)
RIICHI_FLAGS: Final = frozenset({"riichi", "double_riichi", "open_riichi"})
#: wins in the first go-around, before any discard of the winner's
FIRST_TURN_FLAGS: Final = frozenset({"tenhou", "chiihou", "renhou", "dealer_first_discard_ron"})


@mypyc_attr(allow_interpreted_subclasses=True)  # (the rulesets subclass it)
class Ruleset:
    """Base of every ruleset. Subclasses set the class attributes and implement
    :meth:`score_interpretation`; everything else has a sensible default."""

    id: ClassVar[str] = ""
    name: ClassVar[str] = ""
    name_ja: ClassVar[str] = ""
    Options: ClassVar[type] = object
    presets: ClassVar[Mapping[str, Mapping[str, Any]]] = {}
    players: ClassVar[int] = 4
    #: seven pairs may use four of a kind as two pairs (Totenko, WSOM)
    seven_pairs_duplicates: ClassVar[bool] = False
    #: flags this ruleset reads; others are accepted but produce a "has no effect" warning
    used_flags: ClassVar[frozenset[str]] = CONTRACT_FLAGS
    #: the set has no red fives: a red five reads as a plain five (WSOM, Jun)
    reds_are_plain: ClassVar[bool] = False
    #: dora indicators count (WSOM and Jun have no dora: theirs are ignored, with a warning)
    counts_dora: ClassVar[bool] = True
    #: sets of indicators a table turns up: the dora and, for a riichi winner, the ura-dora
    #: (Boo has no ura-dora: one set)
    indicator_sets: ClassVar[int] = 2
    #: each kan turns up one more indicator of each set (Boo: カンでドラは増えません)
    kan_dora: ClassVar[bool] = True
    #: tile kinds (0..33) a player sets aside when drawn and shows apart from the hand (Totenko's
    #: gari, 1m 5m 9m): a photo reader reads such tiles laid by the melds as ``nuki``
    set_aside_kinds: ClassVar[frozenset[int]] = frozenset()

    def max_indicators(self, kans: int = 0) -> int:
        """The most dora indicators the table shows for a hand with ``kans`` kans: what a photo
        reader takes apart from the hand as indicators, and what the renderer lays out.

        >>> from paiscan.scoring.registry import get_ruleset
        >>> get_ruleset("riichi").max_indicators(1), get_ruleset("boo").max_indicators(1)
        (4, 1)
        """
        return self.indicator_sets * (1 + kans if self.kan_dora else 1)

    # ---------------------------------------------------------------- declarations
    def parse_options(self, raw: Mapping[str, Any] | None) -> Any:
        return parse_options(self.Options, raw, self.presets)

    def option_schema(self) -> list[dict[str, Any]]:
        return option_schema(self.Options)

    def red_five_limits(self, opts: Any) -> tuple[int, int, int]:
        """How many red fives of m, p, s the set holds (more in a hand is an error)."""
        reds = getattr(opts, "red_fives", None)
        if reds is None:
            return (0, 0, 0)
        return (int(reds["m"]), int(reds["p"]), int(reds["s"]))

    def allowed_kinds(self, opts: Any) -> frozenset[int] | None:
        """The tile kinds of the set; ``None``: all 34."""
        return None

    def yaku_table(self, opts: Any) -> Sequence[Yaku]:
        return ()

    def describe(self) -> dict[str, Any]:
        """What ``GET /v1/rulesets`` and ``paiscan rules`` show."""
        return {
            "id": self.id,
            "name": self.name,
            "name_ja": self.name_ja,
            "players": self.players,
            "options": self.option_schema(),
            "presets": {k: dict(v) for k, v in self.presets.items()},
            "flags": sorted(self.used_flags),
            "yaku": [
                {
                    "id": y.id,
                    "name": y.name,
                    "name_ja": y.name_ja,
                    "closed": y.closed,
                    "open": y.open,
                    "unit": y.unit,
                    **({"series": y.series} if y.series else {}),
                }
                for y in self.yaku_table(self.parse_options({}))
            ],
        }

    # ---------------------------------------------------------------- validation
    def validate(self, hand: Hand, opts: Any) -> None:
        """Every check that does not need a decomposition; raises :class:`HandError`."""
        if hand.win_tile == BACK:
            raise HandError(
                "bad_field",
                f"win_tile is required ({self.name} does not score nagashi mangan without a winning tile)",
                "win_tile",
            )
        self.check_tiles(hand, opts)
        self.check_flags(hand, opts)
        self.check_situation(hand, opts)
        self.check_hand(hand, opts)

    def check_tiles(self, hand: Hand, opts: Any) -> None:
        expected = 13 - 3 * len(hand.melds)
        if len(hand.concealed) != expected:
            n = len(hand.melds)
            raise HandError(
                "wrong_tile_count",
                f"with {n} meld{'s' if n != 1 else ''} the concealed hand (without the winning tile) "
                f"has {expected} tiles, not {len(hand.concealed)}",
                "hand",
            )
        allowed = self.allowed_kinds(opts)
        if self._tiles_fine(hand, opts, allowed):
            return
        sources: list[tuple[str, Sequence[int]]] = [
            ("hand", hand.concealed),
            ("win_tile", (hand.win_tile,)),
            *((f"melds[{i}].tiles", m.tiles) for i, m in enumerate(hand.melds)),
            ("dora_indicators", hand.dora_indicators),
            ("ura_indicators", hand.ura_indicators),
            ("nuki", hand.nuki),
        ]
        counts = [0] * 34
        reds = [0, 0, 0]
        for field_name, tiles in sources:
            for t in tiles:
                k = kind(t)
                if allowed is not None and k not in allowed:
                    raise HandError(
                        "tile_not_in_ruleset", f"{tile_name(t)} is not in the {self.name} tile set", field_name
                    )
                counts[k] += 1
                if counts[k] > 4:
                    raise HandError(
                        "too_many_of_kind",
                        f"more than four {tile_name(k)} (hand, melds, winning tile and visible indicators together)",
                        field_name,
                    )
                if RED_5M <= t <= RED_5S and not self.reds_are_plain:
                    s = t - RED_5M
                    reds[s] += 1
                    limit = self.red_five_limits(opts)[s]
                    if reds[s] > limit:
                        raise HandError(
                            "too_many_red_fives",
                            f"{reds[s]} red 5{SUITS[s]} but the {self.name} set has {limit} (option red_fives)",
                            field_name,
                        )

    def _tiles_fine(self, hand: Hand, opts: Any, allowed: frozenset[int] | None) -> bool:
        """Whether every tile check of :meth:`check_tiles` passes, counted in one pass; when one
        fails, :meth:`check_tiles` walks the tiles in order to name the first offending field."""
        tiles = [*hand.concealed, hand.win_tile]
        for m in hand.melds:
            tiles += m.tiles
        tiles += hand.dora_indicators
        tiles += hand.ura_indicators
        tiles += hand.nuki
        counts = [0] * (BACK + 1)
        for t in tiles:
            counts[t] += 1
        if counts[BACK]:
            return False
        reds = counts[RED_5M : RED_5S + 1]
        if reds[0] or reds[1] or reds[2]:
            counts[4] += reds[0]
            counts[13] += reds[1]
            counts[22] += reds[2]
            if not self.reds_are_plain:
                limits = self.red_five_limits(opts)
                if reds[0] > limits[0] or reds[1] > limits[1] or reds[2] > limits[2]:
                    return False
        del counts[RED_5M:]
        if max(counts) > 4:
            return False
        return allowed is None or allowed.issuperset(map(kind, tiles))

    def check_flags(self, hand: Hand, opts: Any) -> None:
        """The flags that need the tiles: a closed hand for riichi, a kan for rinshan, no meld on
        the first turn."""
        f = hand.flags
        if not f:
            return
        closed = hand.is_closed
        riichi = f & RIICHI_FLAGS
        if riichi and not closed:
            raise HandError(
                "riichi_open_hand", f"{sorted(riichi)[0]} needs a closed hand (no chi, pon or open kan)", "flags"
            )
        if "ippatsu" in f and not closed:
            raise HandError("ippatsu_open_hand", "ippatsu needs a closed hand", "flags")
        first_turn = f & FIRST_TURN_FLAGS
        if first_turn and hand.melds:
            raise HandError("first_turn_with_meld", f"{sorted(first_turn)[0]} cannot have a meld", "flags")
        if (
            f & set(_RINSHAN_FLAGS)
            and hand.tsumo
            and not any(m.is_kan for m in hand.melds)
            and not self.rinshan_without_kan_ok(hand)
        ):
            raise HandError("rinshan_without_kan", "rinshan needs a kan in the hand", "flags")
        if "chankan" in f and not hand.tsumo and self.players == 4:  # (on tsumo: chankan_on_tsumo)
            robbed = kind(hand.win_tile)
            held = sum(kind(t) == robbed for t in hand.concealed) + sum(
                kind(t) == robbed for m in hand.melds for t in m.tiles
            )
            if held:
                raise HandError(
                    "conflicting_flags",
                    f"chankan robs the fourth {tile_name(robbed)} of a kan: the winner cannot hold another",
                    "flags",
                )

    def check_situation(self, hand: Hand, opts: Any) -> None:
        """The checks that need no tiles: flags against the win, the dealer and each other, and
        option values (rulesets add theirs). :func:`paiscan.scoring.check_context` runs them alone, so a
        photo is not read for a situation that no hand could have."""
        self.check_dealer(hand)
        f = hand.flags
        if not f:
            return
        riichi = f & RIICHI_FLAGS
        if "ippatsu" in f and not riichi:
            raise HandError("ippatsu_without_riichi", "ippatsu needs riichi", "flags")
        first_turn = sorted(f & FIRST_TURN_FLAGS)
        late = sorted(f & (RIICHI_FLAGS | {"ippatsu", "haitei", "houtei", "chankan"}))
        if first_turn and late:
            raise HandError(
                "conflicting_flags", f"{first_turn[0]} is a win in the first go-around, before any {late[0]}", "flags"
            )
        if "tenhou" in f and not hand.is_dealer:
            raise HandError(
                "tenhou_not_dealer", "tenhou is the dealer's first-draw win; this player is not the dealer", "flags"
            )
        for name in ("chiihou", "renhou", "dealer_first_discard_ron"):
            if name in f and hand.is_dealer:
                raise HandError("chiihou_dealer", f"{name} is a non-dealer's first-turn win", "flags")
        if f & {"tenhou", "chiihou"} and not hand.tsumo:
            raise HandError("tenhou_on_ron", "tenhou and chiihou are won by tsumo", "flags")
        if f & {"renhou", "dealer_first_discard_ron"} and hand.tsumo:
            raise HandError("renhou_on_tsumo", "renhou is won by ron", "flags")
        if "haitei" in f and not hand.tsumo:
            raise HandError("haitei_on_ron", "haitei is a tsumo on the last tile; use houtei for ron", "flags")
        if "houtei" in f and hand.tsumo:
            raise HandError("houtei_on_tsumo", "houtei is a ron on the last discard; use haitei for tsumo", "flags")
        if f & set(_RINSHAN_FLAGS) and not hand.tsumo:
            raise HandError("rinshan_on_ron", "rinshan is won on a replacement tile (tsumo)", "flags")
        if "chankan" in f and hand.tsumo:
            raise HandError("chankan_on_tsumo", "chankan robs another player's kan (ron)", "flags")
        if "haitei" in f and f & set(_RINSHAN_FLAGS):
            raise HandError("conflicting_flags", "haitei and rinshan cannot both happen", "flags")
        if "houtei" in f and "chankan" in f:
            raise HandError("conflicting_flags", "houtei and chankan cannot both happen", "flags")

    def check_dealer(self, hand: Hand) -> None:
        """The dealer is the player whose seat wind is East (rule specs §2.2), in every ruleset."""
        if hand.is_dealer != (hand.seat_wind == 0):
            raise HandError(
                "bad_field",
                "the dealer (親) is the player whose seat wind is East: dealer contradicts seat_wind",
                "dealer",
            )

    def rinshan_without_kan_ok(self, hand: Hand) -> bool:
        """Totenko also draws a replacement after setting a gari aside."""
        return False

    def check_hand(self, hand: Hand, opts: Any) -> None:
        """Ruleset-specific checks (override)."""

    # ---------------------------------------------------------------- scoring
    def interpretations(self, hand: Hand, opts: Any) -> list[Interpretation]:
        return interpretations(hand, self.seven_pairs_duplicates)

    def no_interpretation(self, hand: Hand, opts: Any) -> HandError:
        """The error for tiles that form no hand this ruleset accepts."""
        return HandError(
            "not_a_winning_hand",
            "these tiles do not form a complete hand (four sets and a pair, seven pairs or thirteen orphans)",
            "hand",
        )

    def score_interpretation(self, ctx: Context) -> Score | HandError:
        raise NotImplementedError

    def price_interpretation(self, ctx: Context) -> tuple[tuple[int, ...], Any] | HandError:
        """What one interpretation is worth: its rank (as :attr:`Score.rank` orders readings) and
        whatever :meth:`build_score` needs to write its Score. A ruleset that can price a reading
        without writing its explanation overrides both; by default the Score is the price."""
        result = self.score_interpretation(ctx)
        if isinstance(result, HandError):
            return result
        return result.rank, result

    def build_score(self, ctx: Context, priced: Any) -> Score:
        """The Score of the reading that :meth:`price_interpretation` priced as ``priced``."""
        assert isinstance(priced, Score)
        return priced

    def warnings(self, hand: Hand, opts: Any) -> list[str]:
        if not hand.flags:
            return []
        unused = sorted(hand.flags - self.used_flags)
        return [f"flag {f!r} has no effect under {self.id}" for f in unused]

    def score(self, hand: Hand) -> Score:
        """Validate, read every interpretation, and return the best one's Score."""
        opts = self.parse_options(hand.options)
        self.validate(hand, opts)
        interps = self.interpretations(hand, opts)
        if not interps:
            raise self.no_interpretation(hand, opts)
        facts = Facts.of(hand)
        best: tuple[tuple[int, ...], Context, Any] | None = None
        first_error: HandError | None = None
        for interp in interps:
            ctx = Context.of(hand, facts, interp, opts)
            priced = self.price_interpretation(ctx)
            if isinstance(priced, HandError):
                first_error = first_error or priced
                continue
            if best is None or priced[0] > best[0]:
                best = (priced[0], ctx, priced[1])
        if best is None:
            assert first_error is not None
            raise first_error
        best_score = self.build_score(best[1], best[2])
        extra_warnings = self.warnings(hand, opts)
        if extra_warnings:
            from dataclasses import replace

            best_score = replace(best_score, warnings=(*best_score.warnings, *extra_warnings))
        return best_score
