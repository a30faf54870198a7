"""Three-player Totenko, "balance rule" (東天紅 ばらんすルール): additive points, 1 point = 100.

There is no fu, no han and no table (spec ../shared/rules/totenko_balance.md, seed
002_6761c9b3f8d909ca.txt). Every part of the hand is worth points and the points are added, in
the order a player counts them at the table: honba, bazoro, dealer, each yaku, dora, ura-dora,
the 5p/5s, the gari (every manzu, set aside in ``nuki``), and the no-gari bonus. A minimal hand is
a karasu, fixed at 30; yakuman are 50 each and stack. From 4 honba a kenshoba is paid by each
opponent. A tsumo is paid by both opponents, a ron by the discarder.

``items`` lists every counted part in points *per payer*: their sum is what one full payer owes
(``points`` + ``kensho_per_payer``); ``payments`` are in sticks (points × ``point_value``).

>>> from scoring import score_hand
>>> s = score_hand({"rules": "totenko_balance", "hand": "340s567s234p67p99p", "win_tile": "8p",
...                 "win": "tsumo", "seat_wind": "south", "flags": ["riichi"], "nuki": "19m"})
>>> s.extra["points"], s.total, [(i.id, i.value) for i in s.items][:3]
(18, 3600, [('honba', 1), ('bazoro', 2), ('menzen_tsumo', 1)])
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, ClassVar

from paiscan.scoring.decompose import counts_of
from paiscan.scoring.engine import RIICHI_FLAGS, Ruleset
from paiscan.scoring.errors import HandError
from paiscan.scoring.hand import CONTRACT_FLAGS, Hand
from paiscan.scoring.options import opt
from paiscan.scoring.rulesets.riichi import sorted_labels
from paiscan.scoring.score import Item, Payment, Score, Step, YakuHit
from paiscan.scoring.tiles import (
    DRAGONS,
    EAST,
    NORTH,
    RED_5P,
    RED_5S,
    WINDS,
    YAOCHUU,
    dora_from_indicator,
    is_red,
    kind,
    tile_name,
)
from paiscan.scoring.yaku import (
    STANDARD_YAKU,
    Checker,
    Context,
    Facts,
    Yaku,
    by_id,
    evaluate,
    flag,
    revalue,
    sanrenkou,
)

# ------------------------------------------------ the tile set [seed 使用する牌の種類]
#: kinds of 2m 3m 4m 6m 7m 8m: removed from the 112-tile set (manzu are only 一 伍 九)
REMOVED_KINDS: frozenset[int] = frozenset({1, 2, 3, 5, 6, 7})
ALLOWED_KINDS: frozenset[int] = frozenset(range(34)) - REMOVED_KINDS
#: every manzu in the set is a gari: 1m, 5m, 9m
GARI_KINDS: tuple[int, ...] = (0, 4, 8)
SEATS: tuple[str, ...] = ("east", "south", "west")

# ------------------------------------------------ point values [seed その他点数アップするもの]
HONBA_POINTS = 1  # per honba
BAZORO_POINTS = 2  # 場ゾロ, always
DEALER_POINTS = 1  # 親
GARI_POINTS, GARI_RED_POINTS = 2, 4  # ガリ, ガリ赤伍
GARI_SET_FACTOR = 2  # ガリセット: all four of a kind count double
FIVE_POINTS, FIVE_RED_POINTS = 2, 4  # ピンズ5・ソウズ5, 赤5
DORA_POINTS = 1  # ドラ・裏ドラ, per tile
NO_GARI_POINTS = 5  # カラス (ノーガリ), first kind
KARASU_POINTS = 30  # カラス, second kind: fixed
NAGASHI_POINTS = 30  # 流し満貫 30点固定
YAKUMAN_POINTS = 50  # 役満, each (複合あり)

ITEM_LABELS: dict[str, str] = {
    "honba": "本場 honba",
    "bazoro": "場ゾロ bazoro",
    "dealer": "親 dealer",
    "dora": "ドラ dora",
    "ura_dora": "裏ドラ ura-dora",
    "fives": "ピンズ5・ソウズ5 fives",
    "gari": "ガリ gari",
    "no_gari": "カラス(ノーガリ) no gari",
    "karasu": "カラス karasu (fixed)",
    "yakuman": "役満 yakuman",
    "kenshoba": "懸賞場 kenshoba",
    "ankan": "アンカン closed kan",
    "minkan": "ミンカン open kan",
}


@dataclass(frozen=True)
class TotenkoOptions:
    """House options of the balance rule (spec §7); defaults as the spec chose them."""

    require_yaku: bool = opt(
        True,
        "a win needs at least one yaku entry (アンカン/ミンカン count); dora, fives, gari, "
        "honba, bazoro and dealer are not yaku",
    )
    yakuman_mode: str = opt(
        "plus_items",
        "a yakuman hand: 50 per yakuman plus the non-yaku items (plus_items) or 50 per yakuman only (fixed)",
        choices=("plus_items", "fixed"),
    )
    chanta_requires_sequence: bool = opt(
        False, "chanta needs a sequence (false: there is no honroutou here, so all-yaochuu triplets are chanta)"
    )
    double_wind: bool = opt(
        False, "a wind that is both seat and round wind (the dealer's East, every seat's North) counts 2 instead of 1"
    )
    kan_points_are_yaku: bool = opt(
        True,
        "アンカン/ミンカン are yaku entries (satisfy the yaku requirement, ミンカン is a "
        "karasu 1点役); false: plain items",
    )
    kan_points_require_menzen: bool = opt(
        False, "アンカン's 2 points only when the rest of the hand is closed (the seed's '–' read literally)"
    )
    open_shousangen_total: int = opt(
        6, "open 小三元 in total with its two dragon 役牌 (6: 4 + 1 + 1; 8: 6 + 1 + 1 as closed)", choices=(6, 8)
    )
    nagashi_kensho: bool = opt(
        True, "nagashi mangan gets the kenshoba at >= kensho_min_honba, like a karasu (false: 30 flat)"
    )
    red_fives: Mapping[str, int] = opt({"m": 2, "p": 2, "s": 2}, "red fives of each suit in the set (validation only)")
    manzu_dora_cycle: str = opt("1-5-9", "dora after a manzu indicator: 1m→5m→9m→1m", choices=("1-5-9",))
    kensho_min_honba: int = opt(4, "honba from which the kenshoba is paid")
    kensho: Mapping[str, int] = opt(
        {"dealer": 10, "non_dealer": 5}, "kenshoba points each opponent pays a dealer / non-dealer winner"
    )
    noten_penalty_total: int = opt(10, "points the noten players pay on an exhaustive draw (in total)")
    point_value: int = opt(100, "sticks per point (18 points = 1800)")


# ------------------------------------------------ checkers that differ from the standard
def value_winds(seat: int) -> frozenset[int]:
    """The winds that are 役 for this seat: East (the round), North (everyone's), the own seat."""
    return frozenset({EAST, NORTH, seat})


def pinfu(ctx: Context) -> int:
    """Four sequences, ryanmen, the pair not a value tile for this seat; tsumo allowed
    (the seed's メンピン一発ツモ)."""
    if len(ctx.seqs) != 4 or ctx.interp.wait != "ryanmen":
        return 0
    return int(ctx.pair not in DRAGONS and ctx.pair not in value_winds(ctx.facts.seat_wind))


def riichi(ctx: Context) -> int:
    """Riichi's 2 points come with double and open riichi too (リーチ込み)."""
    return int(bool(ctx.facts.flags & RIICHI_FLAGS))


def rinshan(ctx: Context) -> int:
    return int(bool(ctx.facts.flags & {"rinshan", "rinshan_after_daiminkan"}))


def east_set(ctx: Context) -> int:
    """東 is the round wind for everybody (常に東、北場)."""
    return int(EAST in ctx.trips)


def north_set(ctx: Context) -> int:
    """北 is everyone's value wind (北は全員の風牌)."""
    return int(NORTH in ctx.trips)


def seat_wind_set(ctx: Context) -> int:
    """南/西 for their own seat; with ``double_wind`` also the second point of the dealer's 東
    and of 北 (both a seat wind and a round wind)."""
    seat = ctx.facts.seat_wind
    n = int(seat != EAST and seat in ctx.trips)
    if ctx.opts.double_wind:
        n += int(seat == EAST and EAST in ctx.trips) + int(NORTH in ctx.trips)
    return n


def _groups_all_have(ctx: Context, tiles: frozenset[int]) -> bool:
    return all((g.tile in tiles or g.tile + 2 in tiles) if g.shape == 0 else g.tile in tiles for g in ctx.interp.groups)


def chanta(ctx: Context) -> int:
    """Every set and the pair hold a yaochuu, some honor; a sequence only if the option says so."""
    if not ctx.standard or not ctx.facts.has_honors or not _groups_all_have(ctx, YAOCHUU):
        return 0
    return int(bool(ctx.seqs) or not ctx.opts.chanta_requires_sequence)


def closed_kans(ctx: Context) -> int:
    return sum(1 for m in ctx.hand.melds if m.is_kan and not m.open)


def open_kans(ctx: Context) -> int:
    return sum(1 for m in ctx.hand.melds if m.is_kan and m.open)


def quads_in_pairs(n: int) -> Checker:
    """Seven pairs using exactly ``n`` four-of-a-kinds as two pairs each (4/8/12枚七対子)."""

    def check(ctx: Context) -> int:
        return int(ctx.interp.form == "chiitoitsu" and sum(c == 4 for c in ctx.facts.counts) == n)

    check.__name__ = f"chiitoitsu_{4 * n}"
    return check


def forced_deal_in(ctx: Context) -> int:
    """手詰まりで放銃: the discarder had to deal into this open riichi (the caller says so)."""
    return int("open_riichi_forced_deal_in" in ctx.facts.flags)


# ------------------------------------------------ the yaku table [seed 役と点数, 特殊役]
_STD = by_id(
    revalue(
        STANDARD_YAKU,
        {
            "riichi": {"check": riichi},
            "pinfu": {"check": pinfu},
            "rinshan": {"check": rinshan},
            "chanta": {"check": chanta},
            "yakuhai_seat_wind": {"check": seat_wind_set},
            "yakuhai_round_wind": {"check": east_set},
            "daisuushii": {"closed": 1, "open": 1},
        },
    )
)


def _pts(yid: str, closed: int, open_: int | None, name_ja: str, **kw: Any) -> Yaku:
    return replace(_STD[yid], closed=closed, open=open_, unit="points", name_ja=name_ja, **kw)


def _yakuman(yid: str) -> Yaku:
    return replace(_STD[yid], closed=1, excludes=())


_P = "points"
#: the 役と点数 and 特殊役 tables in the seed's order (closed, open; None = closed only)
BASE_TABLE: tuple[Yaku, ...] = (
    _pts("menzen_tsumo", 1, None, "ツモ"),
    _pts("riichi", 2, None, "リーチ"),
    _pts("ippatsu", 2, None, "一発"),
    _pts("tanyao", 2, 1, "タンヤオ"),
    _pts("pinfu", 2, None, "ピンフ"),
    _pts("iipeikou", 2, 1, "イーペーコー"),
    _pts("yakuhai_haku", 1, 1, "役牌 白"),
    _pts("yakuhai_hatsu", 1, 1, "役牌 發"),
    _pts("yakuhai_chun", 1, 1, "役牌 中"),
    _pts("yakuhai_round_wind", 1, 1, "役牌 東 (場風)"),
    Yaku("yakuhai_extra_wind", "North (everyone's wind)", "役牌 北", 1, 1, north_set, _P),
    _pts("yakuhai_seat_wind", 1, 1, "役牌 自風"),
    _pts("chankan", 1, 1, "チャンカン"),
    _pts("rinshan", 1, 1, "嶺上開花"),
    _pts("haitei", 1, 1, "海底"),
    _pts("houtei", 1, 1, "河底"),
    _pts("double_riichi", 4, None, "ダブリー"),
    Yaku("open_riichi", "Open riichi", "オープンリーチ", 2, None, flag("open_riichi"), _P),
    _pts("chiitoitsu", 4, None, "七対子"),
    _pts("toitoi", 6, 4, "トイトイ"),
    _pts("sanankou", 6, 4, "三暗刻"),
    _pts("ittsu", 4, 2, "一気通貫"),
    _pts("chanta", 8, 6, "チャンタ"),
    _pts("shousangen", 6, 4, "小三元"),
    _pts("sankantsu", 6, 4, "三槓子"),
    _pts("honitsu", 6, 4, "ホンイツ"),
    _pts("junchan", 12, 10, "純チャン"),
    _pts("ryanpeikou", 8, None, "リャンペーコー"),
    _pts("chinitsu", 12, 10, "チンイツ"),
    Yaku(
        "chiitoitsu_4",
        "Seven pairs with one four-of-a-kind",
        "4枚七対子",
        6,
        None,
        quads_in_pairs(1),
        _P,
        excludes=("chiitoitsu",),
    ),
    Yaku(
        "chiitoitsu_8",
        "Seven pairs with two four-of-a-kinds",
        "8枚七対子",
        8,
        None,
        quads_in_pairs(2),
        _P,
        excludes=("chiitoitsu",),
    ),
    Yaku("sanrenkou", "Three consecutive triplets", "三連刻", 6, 4, sanrenkou, _P),
    # yakuman: value = how many yakuman (50 points each, stacking: 役満 ※複合あり)
    _yakuman("kokushi"),
    _yakuman("suuankou"),
    _yakuman("daisangen"),
    _yakuman("shousuushii"),
    _yakuman("daisuushii"),
    _yakuman("tsuuiisou"),
    _yakuman("ryuuiisou"),
    _yakuman("chinroutou"),
    _yakuman("chuuren"),
    _yakuman("suukantsu"),
    _yakuman("tenhou"),
    _yakuman("chiihou"),
    Yaku(
        "chiitoitsu_12", "Seven pairs with three four-of-a-kinds", "12枚七対子", 1, None, quads_in_pairs(3), "yakuman"
    ),
    Yaku(
        "yakuman_open_riichi_deal_in",
        "Forced deal-in to an open riichi",
        "オープンリーチへの手詰まり放銃",
        1,
        None,
        forced_deal_in,
        "yakuman",
    ),
)
#: アンカン 2 per closed kan, ミンカン 1 per open or added kan (note K: rows of the 役と点数 table)
KAN_TABLE: tuple[Yaku, ...] = (
    Yaku("ankan", "Closed kan", "アンカン", 2, 2, closed_kans, _P),
    Yaku("minkan", "Open kan", "ミンカン", 1, 1, open_kans, _P),
)
NAGASHI = Yaku("nagashi_mangan", "Nagashi mangan", "流し満貫", NAGASHI_POINTS, None, flag("nagashi_mangan"), _P)


def effective_honba(hand: Hand) -> int:
    """A missing honba is 1: every Totenko hand starts at 1本場 (親が移動したら必ず1本場から)."""
    return hand.honba if hand.honba_given else 1


def kensho_points(opts: TotenkoOptions, dealer: bool, honba: int) -> int:
    """懸賞場: from ``kensho_min_honba`` honba each opponent pays 10 (dealer winner) or 5."""
    if honba < opts.kensho_min_honba:
        return 0
    return int(opts.kensho["dealer" if dealer else "non_dealer"])


def gari_items(nuki: Sequence[int]) -> list[Item]:
    """One item per gari kind: 2 per tile, red 5m 4, doubled with all four (ガリセット)."""
    out = []
    for k in GARI_KINDS:
        tiles = [t for t in nuki if kind(t) == k]
        if not tiles:
            continue
        parts = sorted(GARI_RED_POINTS if is_red(t) else GARI_POINTS for t in tiles)
        value = sum(parts)
        name = tile_name(k)
        reds = sum(1 for t in tiles if is_red(t))
        red_note = f" ({reds} red)" if reds else ""
        if len(tiles) == 4:
            detail = f"{name} × 4{red_note}, all four (ガリセット): ({' + '.join(map(str, parts))}) × {GARI_SET_FACTOR}"
            value *= GARI_SET_FACTOR
        else:
            detail = f"{name} × {len(tiles)}{red_note}: {' + '.join(map(str, parts))}"
        out.append(Item("gari", value, detail))
    return out


def fives_item(facts: Facts) -> Item | None:
    """2 per 5p/5s in the hand, a red one 4 instead."""
    parts = []
    value = 0
    for suit, k, red in ((1, 13, RED_5P), (2, 22, RED_5S)):
        reds = facts.reds[suit]
        plain = facts.counts[k] - reds
        letter = "ps"[suit - 1]
        if plain:
            parts.append(f"5{letter} × {plain} = {FIVE_POINTS * plain}")
            value += FIVE_POINTS * plain
        if reds:
            parts.append(f"{tile_name(red)} (red) × {reds} = {FIVE_RED_POINTS * reds}")
            value += FIVE_RED_POINTS * reds
    return Item("fives", value, ", ".join(parts)) if value else None


def dora_item(item_id: str, indicators: Sequence[int], facts: Facts, nuki: Sequence[int]) -> Item | None:
    """1 per tile of the hand (and per gari) that is a dora; manzu indicators cycle 1m→5m→9m."""
    hand_n = gari_n = 0
    names = []
    for ind in indicators:
        d = dora_from_indicator(ind, three_player=True)
        hand_n += facts.counts[d]
        gari_n += sum(1 for t in nuki if kind(t) == d)
        names.append(f"{tile_name(ind)}→{tile_name(d)}")
    n = hand_n + gari_n
    if not n:
        return None
    detail = f"{', '.join(names)}: {hand_n} in the hand" + (f" + {gari_n} gari" if gari_n else "")
    return Item(item_id, DORA_POINTS * n, detail)


class TotenkoBalance(Ruleset):
    """東天紅 ばらんすルール: 112 tiles, three seats, every part of the hand adds points."""

    id: ClassVar[str] = "totenko_balance"
    name: ClassVar[str] = "Three-player Totenko (balance rule)"
    name_ja: ClassVar[str] = "三人麻雀 東天紅 ばらんすルール"
    Options: ClassVar[type] = TotenkoOptions
    players: ClassVar[int] = 3
    seven_pairs_duplicates: ClassVar[bool] = True
    set_aside_kinds: ClassVar[frozenset[int]] = frozenset(GARI_KINDS)
    used_flags: ClassVar[frozenset[str]] = (CONTRACT_FLAGS - {"renhou"}) | {
        "rinshan_after_daiminkan",
        "open_riichi_forced_deal_in",
        "discarded_five",
    }
    _tables: dict[tuple[int, bool, bool], tuple[Yaku, ...]]

    def __init__(self) -> None:
        self._tables = {}

    # ---------------------------------------------------------------- declarations
    def allowed_kinds(self, opts: Any) -> frozenset[int]:
        return ALLOWED_KINDS

    def yaku_table(self, opts: Any) -> Sequence[Yaku]:
        """The seed's table with the option-dependent values (open 小三元, kan entries)."""
        key = (opts.open_shousangen_total, opts.kan_points_require_menzen, opts.kan_points_are_yaku)
        table = self._tables.get(key)
        if table is None:
            changes: dict[str, dict[str, Any]] = {
                # the two dragon 役牌 (1 + 1) are counted apart: 6 in total → 4, 8 → 6
                "shousangen": {"open": opts.open_shousangen_total - 2},
            }
            table = revalue(BASE_TABLE, changes)
            if opts.kan_points_are_yaku:  # printed after オープンリーチ in the seed's table
                at = next(i for i, y in enumerate(table) if y.id == "open_riichi") + 1
                table = (*table[:at], *self.kan_table(opts), *table[at:])
            self._tables[key] = table
        return table

    def kan_table(self, opts: Any) -> tuple[Yaku, ...]:
        if opts.kan_points_require_menzen:
            return revalue(KAN_TABLE, {"ankan": {"open": None}})
        return KAN_TABLE

    # ---------------------------------------------------------------- validation
    def check_tiles(self, hand: Hand, opts: Any) -> None:
        """In the spec's order: a removed tile, a manzu outside nuki, a non-manzu nuki, then the
        core checks (tile count, five of a kind, red fives)."""
        sources: list[tuple[str, Sequence[int]]] = [
            ("hand", hand.concealed),
            ("win_tile", (hand.win_tile,)),
            *((f"melds[{i}].tiles", m.tiles) for i, m in enumerate(hand.melds)),
            ("dora_indicators", hand.dora_indicators),
            ("ura_indicators", hand.ura_indicators),
            ("nuki", hand.nuki),
        ]
        for field_name, tiles in sources:
            for t in tiles:
                if kind(t) in REMOVED_KINDS:
                    raise HandError(
                        "tile_not_in_ruleset",
                        f"{tile_name(t)} is not in the Totenko 112-tile set (manzu are only 1m, 5m, 9m)",
                        field_name,
                    )
        kokushi = _kokushi_shape(hand)
        for field_name, tiles in sources[:-3]:
            for t in tiles:
                if kind(t) in GARI_KINDS and not (kokushi and kind(t) != 4):
                    raise HandError(
                        "manzu_in_hand",
                        f"{tile_name(t)} is a gari: every manzu is set aside "
                        "(field nuki); only a thirteen-orphans hand keeps 1m/9m",
                        field_name,
                    )
        for t in hand.nuki:
            if kind(t) not in GARI_KINDS:
                raise HandError(
                    "bad_nuki",
                    f"{tile_name(t)} cannot be set aside: only manzu (1m, 5m, 9m) are "
                    "gari; North is an ordinary tile here",
                    "nuki",
                )
        super().check_tiles(hand, opts)

    def check_situation(self, hand: Hand, opts: Any) -> None:
        """Open riichi's forced deal-in, three seats (East deals), and option values."""
        super().check_situation(hand, opts)
        if "open_riichi_forced_deal_in" in hand.flags:
            if "open_riichi" not in hand.flags:
                raise HandError(
                    "conflicting_flags", "open_riichi_forced_deal_in needs the winner's open_riichi", "flags"
                )
            if hand.tsumo:
                raise HandError(
                    "conflicting_flags", "open_riichi_forced_deal_in is a deal-in (ron), not a tsumo", "flags"
                )
        self.check_seats_and_options(hand, opts)

    def check_seats_and_options(self, hand: Hand, opts: Any) -> None:
        """Three seats, and option values that can be priced."""
        if WINDS[hand.seat_wind] not in SEATS:
            raise HandError(
                "bad_field",
                "three-player Totenko has the seats east, south and west (North is everyone's value wind, not a seat)",
                "seat_wind",
            )
        for suit_letter, n in opts.red_fives.items():
            if not 0 <= n <= 4:
                raise HandError(
                    "bad_option",
                    f"option red_fives.{suit_letter} must be 0..4, not {n}",
                    f"options.red_fives.{suit_letter}",
                )
        for name in ("kensho_min_honba", "noten_penalty_total"):
            if getattr(opts, name) < 0:
                raise HandError("bad_option", f"option {name} must not be negative", f"options.{name}")
        for who, n in opts.kensho.items():
            if n < 0:
                raise HandError("bad_option", f"option kensho.{who} must not be negative", f"options.kensho.{who}")
        if opts.point_value <= 0:
            raise HandError("bad_option", "option point_value must be positive", "options.point_value")

    def rinshan_without_kan_ok(self, hand: Hand) -> bool:
        """ガリを抜いても嶺上扱い: setting a gari aside also draws a replacement tile."""
        return bool(hand.nuki)

    def warnings(self, hand: Hand, opts: Any) -> list[str]:
        out = super().warnings(hand, opts)
        if hand.honba_given and hand.honba < 1:
            out.append(
                "honba_below_one: every Totenko hand is at least 1本場 (a missing honba "
                "reads as 1); scored with honba 0 as given"
            )
        if WINDS[hand.round_wind] not in ("east", "north"):
            out.append("round_wind ignored: Totenko's round is always East and North")
        if hand.ura_indicators and not hand.flags & RIICHI_FLAGS:
            out.append("ura_indicators ignored: ura-dora count only for a riichi winner")
        if hand.riichi_sticks:
            out.append("riichi_sticks has no effect under totenko_balance")
        return out

    # ---------------------------------------------------------------- scoring
    def score(self, hand: Hand) -> Score:
        if "nagashi_mangan" in hand.flags:
            return self._nagashi(hand)
        return super().score(hand)

    def score_interpretation(self, ctx: Context) -> Score | HandError:
        opts: TotenkoOptions = ctx.opts
        hand = ctx.hand
        hits = evaluate(self.yaku_table(opts), ctx)
        yakuman_hits = [h for h in hits if h.unit == "yakuman"]
        kan_items = (
            []
            if opts.kan_points_are_yaku
            else [Item(h.id, h.value, _hit_detail(h)) for h in evaluate(self.kan_table(opts), ctx)]
        )
        if yakuman_hits:
            hits = yakuman_hits
        elif not hits and opts.require_yaku:
            return HandError(
                "no_yaku",
                "the hand is complete but has no yaku (dora, fives, gari, honba, bazoro "
                "and the dealer point are not yaku; option require_yaku)",
                "hand",
            )
        honba = effective_honba(hand)
        base = self._table_items(hand, honba)
        extras = self._bonus_items(ctx)
        karasu = False
        if yakuman_hits:
            n = sum(h.value for h in hits)
            items = [
                Item("yakuman", YAKUMAN_POINTS * n, " + ".join(f"{h.name_ja} {YAKUMAN_POINTS * h.value}" for h in hits))
            ]
            if opts.yakuman_mode == "plus_items":
                items = [*base, *items, *extras]  # the §3.2 items; kan points are yaku-like
        else:
            yaku_items = [Item(h.id, h.value, _hit_detail(h)) for h in hits]
            counted = [*base, *yaku_items, *kan_items, *extras]
            karasu = self._is_karasu(hand, hits, [*kan_items, *extras])
            if karasu:
                minimal = [*base, *yaku_items]
                parts = " + ".join(f"{i.id} {i.value}" for i in minimal)
                items = [
                    Item(
                        "karasu",
                        KARASU_POINTS,
                        (
                            f"{parts} = {sum(i.value for i in minimal)}: one 1点役, no gari, no dora, "
                            f"no 5p/5s, no discarded five → fixed {KARASU_POINTS}"
                        ),
                    )
                ]
            else:
                items = counted
        points = sum(i.value for i in items)
        return self._priced(
            hand, opts, hits, items, points, honba, karasu, ctx, yakuman=sum(h.value for h in yakuman_hits)
        )

    def _table_items(self, hand: Hand, honba: int) -> list[Item]:
        """What is counted first (一本場ブンブン, 親): honba, bazoro, dealer."""
        out = []
        if honba:
            out.append(Item("honba", HONBA_POINTS * honba, f"{honba}本場 × {HONBA_POINTS}"))
        out.append(Item("bazoro", BAZORO_POINTS, "場ゾロ, every hand"))
        if hand.is_dealer:
            out.append(Item("dealer", DEALER_POINTS, "the winner is the dealer"))
        return out

    def _bonus_items(self, ctx: Context) -> list[Item]:
        """After the yaku: dora, ura-dora, fives, gari (per kind), and +5 without any gari."""
        hand, facts = ctx.hand, ctx.facts
        out: list[Item | None] = [dora_item("dora", hand.dora_indicators, facts, hand.nuki)]
        if hand.flags & RIICHI_FLAGS:
            out.append(dora_item("ura_dora", hand.ura_indicators, facts, hand.nuki))
        out.append(fives_item(facts))
        out.extend(gari_items(hand.nuki))
        if not hand.nuki:
            out.append(Item("no_gari", NO_GARI_POINTS, "no gari at all: +5 after the yaku"))
        return [i for i in out if i is not None]

    def _is_karasu(self, hand: Hand, hits: Sequence[YakuHit], others: Sequence[Item]) -> bool:
        """カラス: one 1点役 only, no gari, nothing else scoring (dora, fives, kan items), and no
        5p/5s among the winner's discards. More honba do not void it (何本場であっても30点固定)."""
        if hand.nuki or "discarded_five" in hand.flags:
            return False
        if len(hits) != 1 or hits[0].value != 1:
            return False
        return all(i.id == "no_gari" for i in others)

    def _priced(
        self,
        hand: Hand,
        opts: TotenkoOptions,
        hits: Sequence[YakuHit],
        items: list[Item],
        points: int,
        honba: int,
        karasu: bool,
        ctx: Context | None,
        yakuman: int = 0,
        kensho: int | None = None,
    ) -> Score:
        """Kenshoba, payments, steps and the Score, from the counted items."""
        k = kensho_points(opts, hand.is_dealer, honba) if kensho is None else kensho
        steps = [Step(i.id, f"{ITEM_LABELS.get(i.id, i.id)}: {i.detail} → {i.value}") for i in items]
        steps.append(Step("points", " + ".join(str(i.value) for i in items) + f" = {points} points"))
        if k:
            items = [
                *items,
                Item(
                    "kenshoba",
                    k,
                    f"{honba}本場 ≥ {opts.kensho_min_honba}: "
                    f"{'dealer' if hand.is_dealer else 'non-dealer'} winner, "
                    f"{k} from each opponent",
                ),
            ]
            steps.append(Step("kenshoba", items[-1].detail))
        pays, pay_steps = _payments(hand, points, k, opts.point_value)
        steps.extend(pay_steps)
        total = sum(p.amount for p in pays)
        sums = " + ".join(str(p.amount) for p in pays)
        steps.append(Step("total", f"{sums} = {total}" if len(pays) > 1 else str(total)))
        return Score(
            rules=self.id,
            total=total,
            payments=tuple(pays),
            limit="yakuman" if yakuman else None,
            yaku=tuple(hits),
            items=tuple(items),
            decomposition=tuple(sorted_labels(ctx)) if ctx else (),
            wait=ctx.interp.wait if ctx else None,
            form=ctx.interp.form if ctx else "nagashi",
            steps=tuple(steps),
            extra={
                "points": points,
                "kensho_per_payer": k,
                "karasu": karasu,
                "yakuman": yakuman,
                "honba": honba,
                "point_value": opts.point_value,
            },
        )

    def _nagashi(self, hand: Hand) -> Score:
        """流し満貫: 30 fixed from each opponent, no dealer or honba points; kenshoba as for a
        karasu (option nagashi_kensho)."""
        opts = self.parse_options(hand.options)
        self.check_dealer(hand)
        self.check_seats_and_options(hand, opts)
        honba = effective_honba(hand)
        k = kensho_points(opts, hand.is_dealer, honba) if opts.nagashi_kensho else 0
        hit = YakuHit(NAGASHI.id, NAGASHI.name, NAGASHI.name_ja, NAGASHI_POINTS, _P)
        items = [Item(NAGASHI.id, NAGASHI_POINTS, "流し満貫 30点固定, paid like a tsumo")]
        score = self._priced(
            hand.replace(tsumo=True), opts, (hit,), items, NAGASHI_POINTS, honba, False, None, kensho=k
        )
        warns = self.warnings(hand, opts)
        if hand.concealed or hand.melds:
            warns.append("the hand's tiles are not used for nagashi mangan")
        return replace(score, warnings=tuple(warns))


def _hit_detail(h: YakuHit) -> str:
    return f"{h.name_ja} {h.name}" + (f" × {h.count}" if h.count != 1 else "")


def _kokushi_shape(hand: Hand) -> bool:
    """Thirteen orphans, the only hand that keeps manzu (1m, 9m) instead of setting them aside."""
    if hand.melds:
        return False
    c = counts_of([*hand.concealed, hand.win_tile])
    return sum(c) == 14 and all(c[k] for k in YAOCHUU) and not any(c[k] for k in range(34) if k not in YAOCHUU)


def _payments(hand: Hand, points: int, kensho: int, point_value: int) -> tuple[list[Payment], list[Step]]:
    """Tsumo: each opponent pays P + K. Ron: the discarder P + K, the bystander K. In sticks."""
    each = (points + kensho) * point_value
    if hand.tsumo:
        payers = ("non_dealer", "non_dealer") if hand.is_dealer else ("dealer", "non_dealer")
        owed = f"({points} + {kensho})" if kensho else f"{points}"
        step = Step("payment", f"tsumo: each opponent pays {owed} × {point_value} = {each}")
        return [Payment(p, each) for p in payers], [step]
    pays = [Payment("discarder", each)]
    owed = f"({points} + {kensho})" if kensho else f"{points}"
    text = f"ron: the discarder pays {owed} × {point_value} = {each}"
    if kensho:
        pays.append(Payment("other", kensho * point_value))
        text += f"; the uninvolved player pays the kenshoba {kensho} × {point_value} = {kensho * point_value}"
    return pays, [Step("payment", text)]


__all__ = ["TotenkoBalance", "TotenkoOptions", "effective_honba", "kensho_points"]
