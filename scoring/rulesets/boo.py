"""ブー麻雀 Boo mahjong, Osaka style (spec ../shared/rules/boo.md, seed 000_c8277fb0d8814b24.txt).

fu × han with a mangan cap, on a 10-point scale: ``basic = fu × 2^(han + bazoro)``, capped at 500
(mangan: 2000 non-dealer / 3000 dealer ron). No yaku is needed to win (0 han is a 30-fu hand at
least), a red five is a 1-han *yaku*, and the dora, the menzen bonus and the honba are flat
add-ons, paid per payer on top of the hand points (得点 = 役の点数 + 門前点 + ドラ点 + 本場の点).

The seed lost the han column of its yaku table: the values used are the spec's reconstruction
(§4) and every one is the option ``yaku_han``. Everything the seed leaves to the house is a named
option (§10, §13): see ``paiscan rules boo``.

>>> from scoring import score_hand
>>> s = score_hand({"rules": "boo", "hand": "123m222p3357s", "melds": [{"type": "pon",
...                 "tiles": "777p"}], "win_tile": "6s", "seat_wind": "south", "honba": 2,
...                 "dora_indicators": ["1p"]})
>>> s.total, s.fu, s.han, [(i.id, i.value) for i in s.items]
(1020, 30, 0, [('hand', 120), ('dora', 300), ('honba', 600)])
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, ClassVar

from paiscan.scoring.decompose import Interpretation
from paiscan.scoring.errors import HandError
from paiscan.scoring.fu import FuRules, compute_fu, describe_fu
from paiscan.scoring.hand import Hand
from paiscan.scoring.options import opt
from paiscan.scoring.rulesets.riichi import HanFuRuleset, sorted_labels
from paiscan.scoring.score import FuPart, Item, Payment, Score, Step, YakuHit, round_up
from paiscan.scoring.tiles import EAST, NORTH, SOUTH, WEST, YAOCHUU, dora_from_indicator, tile_name
from paiscan.scoring.yaku import (
    STANDARD_YAKU,
    Checker,
    Context,
    Yaku,
    by_id,
    daisuushii,
    evaluate,
    flag,
    ryuuiisou_with_hatsu,
    shousuushii,
)
from paiscan.scoring.yaku import pinfu as standard_pinfu

#: 満貫: the cap of the hand points, as basic points (2000 non-dealer / 3000 dealer ron)
MANGAN_BASIC = 500
#: 役満は倍満扱い (散家4000/荘家6000) [seed §8]
BAIMAN_BASIC = 1000
#: aotenjou_yakuman thirteen_han: a yakuman is priced as 13 han with no cap [assumed]
AOTENJOU_YAKUMAN_HAN = 13
#: kokushi has no sets; under aotenjou thirteen_han it takes 20 + (10 closed ron | 2 tsumo) → 30
KOKUSHI_FU_PARTS = 20, 10, 2
#: the spec's reconstructed han values (§4, §13.1): the default of option ``yaku_han``
DEFAULT_YAKU_HAN: dict[str, int] = {
    "honitsu": 2,
    "toitoi": 2,
    "ittsu": 2,
    "chanta": 2,
    "sanankou": 2,
    "shousangen": 4,
    "menzen_tsumo": 1,
    "riichi": 1,
    "yakuhai": 1,
    "haitei": 1,
    "rinshan": 1,
    "chankan": 1,
    "tanyao": 1,
    "pinfu": 1,
    "iipeikou": 1,
    "sanshoku_closed": 2,
    "sanshoku_open": 1,
}
#: 清一色 is a mangan yaku [seed §3]; 6 han is always over the cap (20 fu × 2^6 = 1280 ≥ 500)
#: and is what it counts under aotenjou [assumed, spec §6.3]
CHINITSU_HAN = 6
RIICHI_FLAGS = frozenset({"riichi", "double_riichi"})
#: the flag that is 地和 under each ``chiihou_meaning``
CHIIHOU_FLAGS = {"first_draw_tsumo": "chiihou", "dealer_first_discard_ron": "dealer_first_discard_ron"}
RINSHAN_FLAGS = frozenset({"rinshan", "rinshan_after_daiminkan"})
ITEM_LABELS = {
    "hand": "役の点数 hand points",
    "menzen": "門前点 menzen bonus",
    "dora": "ドラ点 dora",
    "honba": "本場の点 honba",
}


@dataclass(frozen=True)
class BooOptions:
    """House options of Osaka Boo (spec §10); every default is the seed's basic rule or the
    spec's stated choice."""

    start_points: int = opt(
        2000,
        "starting score (原点): the float line; the game ends at twice it (does not set bazoro)",
        choices=(2000, 4000),
    )
    bazoro: str = opt(
        "none",
        "場ゾロ: 1 han added to every hand's exponent (not a yaku): never, always, or in the South round only",
        choices=("none", "always", "south_only"),
    )
    yakuman_mode: str = opt(
        "baiman",
        "a yakuman: priced as a baiman (4000 / 6000 ron, basic 1000), or the game ends "
        "with the winner A-top whatever the scores (a_top)",
        choices=("baiman", "a_top"),
    )
    chiihou_meaning: str = opt(
        "first_draw_tsumo",
        "地和: a non-dealer's tsumo on the first draw (flag chiihou), or the "
        "older meaning, a ron on the dealer's first discard (flag dealer_first_discard_ron)",
        choices=("first_draw_tsumo", "dealer_first_discard_ron"),
    )
    aotenjou_yakuman: str = opt(
        "thirteen_han",
        "with aotenjou: a yakuman is 13 han uncapped (fu × 2^13), a baiman, or an A-top",
        choices=("thirteen_han", "baiman", "a_top"),
    )
    red_fives: Mapping[str, int] = opt(
        {"m": 1, "p": 1, "s": 1},
        "red fives of each suit in the set (0-4); each in the hand is a "
        "1-han yaku, more in a hand than the set holds is an error",
    )
    closed_ron_fu: int = opt(
        10,
        "門前加符 of a closed hand won by ron: 10, inferred from the seed's chants "
        "シロク/ゴヨウ (0: a closed pinfu ron is 20 fu, a closed no-yaku ron 30)",
        choices=(10, 0),
    )
    ryanmen_tsumo_fu: int = opt(
        2, "tsumo fu when the wait is ryanmen (some parlours: 4); other waits keep 2 + their wait fu", choices=(2, 4)
    )
    double_wind_pair_fu: int = opt(4, "fu of a pair of the wind that is both seat and round wind", choices=(2, 4))
    chanta_requires_sequence: bool = opt(
        True, "チャンタ needs at least one sequence (false: all-yaochuu triplets are chanta too; Boo has no 混老頭)"
    )
    yaku_han: Mapping[str, int] = opt(
        DEFAULT_YAKU_HAN,
        "han of each basic yaku: the seed's han column is blank, these are the "
        "spec's reconstruction (yakuhai is per value triplet)",
        bounds=(0, 13),
    )
    enable_iipeikou: bool = opt(False, "adopt 一盃口 (closed only)")
    enable_chiitoitsu: bool = opt(
        False,
        "adopt 七対子 (1 han, fixed 50 fu); when off, a hand "
        "complete only as seven pairs is the error yaku_not_adopted",
    )
    enable_sanshoku: bool = opt(False, "adopt 三色同順 (yaku_han sanshoku_closed / sanshoku_open)")
    enable_ryuuiisou: bool = opt(False, "adopt 緑一色 (yakuman, open or closed)")
    ryuuiisou_requires_hatsu: bool = opt(False, "緑一色 needs the green dragon 發")
    extra_value_winds: str = opt(
        "none",
        "West and North as value winds (1 han a triplet, 2 fu a pair, no pinfu): never, "
        "always for everyone, or West in the East round and North in the South round",
        choices=("none", "west_north_always", "west_in_east_north_in_south"),
    )
    aotenjou: bool = opt(
        False, "青天井: no mangan cap (the caller sets it for South-4 hands only); 清一色 then counts 6 han"
    )
    min_stick: int = opt(
        10, "smallest stick: with 20 every payment is rounded up to a multiple of 20 (30/60 → 40/60)", choices=(10, 20)
    )
    dora_value: str = opt(
        "flat_100",
        "points per dora (per payer on tsumo): 100, or 200 for a closed hand and 100 for an open one",
        choices=("flat_100", "closed_200"),
    )
    honba_ron_value: int = opt(300, "points per honba on ron (tsumo: 100 from each payer)", choices=(300, 100))
    honba_requires_han: bool = opt(
        False, "a 0-han win collects no honba and the next hand has one more (red fives count as han, bazoro does not)"
    )
    loser_payment: Mapping[str, int] = opt(
        {"A": 1, "B": 1, "C": 1}, "settlement: what each sinking player pays the top, by top type (house units)"
    )
    table_fee: Mapping[str, int] = opt(
        {"A": 0, "B": 0, "C": 0}, "settlement: table fee (場代) the top pays, by top type"
    )
    table_fee_gentsuu: int = opt(
        0, "settlement: table fee of a ゲンツー B-top (second exactly at the start); 0 = the B fee"
    )
    c_top_banned: bool = opt(
        False, "a win that ends the game as a C-top is forbidden (default: allowed with a warning, 嫌われます)"
    )
    bust_requires_top: bool = opt(
        False, "a win that busts someone is forbidden unless the winner ends up top (雀荘によっては禁止)"
    )
    forbidden_valid_all_last: bool = opt(
        False, "in South 4, forbidden wins are allowed (禁止された和了りでも南場4局に限り有効)"
    )
    bust_partial_payment: bool = opt(
        False,
        "instead of forbidding a bust by a winner still sinking, each payer pays only what "
        "leaves him at 10 (ドボンしない点数分だけのやり取り)",
    )


# ------------------------------------------------------------------ checkers that differ
def riichi(ctx: Context) -> int:
    """リーチ: Boo has no double riichi, so a double-riichi declaration is a riichi (1 han)."""
    return int(bool(ctx.facts.flags & RIICHI_FLAGS))


def rinshan(ctx: Context) -> int:
    """嶺上開花, after any kan (after an open kan it is paid as a ron)."""
    return int(bool(ctx.facts.flags & RINSHAN_FLAGS))


def extra_value_winds(round_wind: int, mode: str) -> tuple[int, ...]:
    """The winds option ``extra_value_winds`` adds for this round (§4.4)."""
    if mode == "west_north_always":
        return (WEST, NORTH)
    if mode == "west_in_east_north_in_south":
        return (WEST,) if round_wind == EAST else (NORTH,) if round_wind == SOUTH else ()
    return ()


def extra_wind_trips(ctx: Context) -> int:
    """役牌 西/北 under ``extra_value_winds``: one per triplet, stacking with a seat wind."""
    winds = extra_value_winds(ctx.facts.round_wind, ctx.opts.extra_value_winds)
    return sum(1 for w in winds if w in ctx.trips)


def pinfu_ron(ctx: Context) -> int:
    """平和 (副露も可/ツモは不可): the standard shape (four sequences, a pair that is not a value
    tile, a ryanmen reading), open allowed, won by ron only."""
    return int(not ctx.facts.tsumo and bool(standard_pinfu(ctx)))


def pinfu(ctx: Context) -> int:
    """Osaka 平和: :func:`pinfu_ron`, and an extra value wind (option) is a value pair too."""
    winds = extra_value_winds(ctx.facts.round_wind, ctx.opts.extra_value_winds)
    return int(bool(pinfu_ron(ctx)) and ctx.pair not in winds)


def _groups_all_yaochuu(ctx: Context) -> bool:
    return all(any(t in YAOCHUU for t in g.tiles()) for g in ctx.groups)


def chanta(ctx: Context) -> int:
    """チャンタ (純チャン、混チャンの区別なし): every set and the pair hold a terminal or honor;
    a sequence is needed unless ``chanta_requires_sequence`` is off."""
    if not ctx.standard or not _groups_all_yaochuu(ctx):
        return 0
    return int(bool(ctx.seqs) or not ctx.opts.chanta_requires_sequence)


def iipeikou(ctx: Context) -> int:
    """一盃口: two identical sequences. Boo has no 二盃口, so a hand with two such pairs still
    counts 一盃口 once [assumed]."""
    return int(len(ctx.seqs) != len(set(ctx.seqs)))


def suushii(ctx: Context) -> int:
    """四喜和: small or big four winds, one yakuman either way."""
    return int(bool(shousuushii(ctx) or daisuushii(ctx)))


def red_five_count(ctx: Context) -> int:
    """赤牌は1飜役: each red five in the hand (concealed, melds, winning tile)."""
    return sum(ctx.facts.reds)


# ------------------------------------------------------------------ the yaku table as data
_STD = by_id(STANDARD_YAKU)
#: the yaku of the seed's §3 table that take a ``yaku_han`` value, in the seed's order:
#: (id, yaku_han key, open allowed, the seed's name, a checker replacing the standard one)
BASIC_YAKU: tuple[tuple[str, str, bool, str, Checker | None], ...] = (
    ("menzen_tsumo", "menzen_tsumo", False, "門前清自摸", None),
    ("riichi", "riichi", False, "リーチ", riichi),
    ("yakuhai_haku", "yakuhai", True, "三元牌 白", None),
    ("yakuhai_hatsu", "yakuhai", True, "三元牌 發", None),
    ("yakuhai_chun", "yakuhai", True, "三元牌 中", None),
    ("yakuhai_seat_wind", "yakuhai", True, "自風", None),
    ("yakuhai_round_wind", "yakuhai", True, "場風", None),
    ("haitei", "haitei", True, "海底自摸", None),
    ("rinshan", "rinshan", True, "嶺上開花", rinshan),
    ("chankan", "chankan", True, "搶槓", None),
    ("tanyao", "tanyao", True, "タンヤオ", None),
    ("pinfu", "pinfu", True, "平和", pinfu),
    ("honitsu", "honitsu", True, "混一色", None),
    ("toitoi", "toitoi", True, "対対和", None),
    ("ittsu", "ittsu", True, "一気通貫", None),
    ("chanta", "chanta", True, "チャンタ", chanta),
    ("sanankou", "sanankou", True, "三暗刻", None),
    ("shousangen", "shousangen", True, "小三元", None),
)
EXTRA_WIND = Yaku("yakuhai_extra_wind", "Extra value wind", "役牌 西/北", 1, 1, extra_wind_trips)
CHINITSU = replace(_STD["chinitsu"], closed=CHINITSU_HAN, open=CHINITSU_HAN, name_ja="清一色 (満貫)")
RED_FIVE = Yaku("red_five", "Red five", "赤牌", 1, 1, red_five_count)
SUUSHII = Yaku("suushii", "Four winds", "四喜和", 1, 1, suushii, unit="yakuman")
#: yakuman of §3, one yakuman each (two in a hand still count once): (id, the seed's name)
YAKUMAN: tuple[tuple[str, str], ...] = (
    ("tenhou", "天和"),
    ("chiihou", "地和"),
    ("kokushi", "国士無双"),
    ("daisangen", "大三元"),
    ("suuankou", "四暗刻"),
    ("suushii", "四喜和"),
    ("tsuuiisou", "字一色"),
    ("chinroutou", "清老頭"),
    ("chuuren", "九蓮宝燈"),
)
_DEFS = {**_STD, "suushii": SUUSHII}


def _yakuman(yid: str, name_ja: str) -> Yaku:
    std = _DEFS[yid]
    open_ = None if std.open is None else 1
    return replace(std, closed=1, open=open_, name_ja=name_ja, excludes=())


def boo_table(opts: BooOptions) -> tuple[Yaku, ...]:
    """The Osaka table under ``opts``: §3 (values from ``yaku_han``), red fives, the adopted §4
    yaku, and the yakuman."""
    han = opts.yaku_han
    table: list[Yaku] = []
    for yid, key, open_ok, name_ja, check in BASIC_YAKU:
        y = replace(_STD[yid], closed=han[key], open=han[key] if open_ok else None, name_ja=name_ja, excludes=())
        table.append(replace(y, check=check) if check is not None else y)
        if yid == "yakuhai_round_wind" and opts.extra_value_winds != "none":
            table.append(replace(EXTRA_WIND, closed=han["yakuhai"], open=han["yakuhai"]))
    table += [CHINITSU, RED_FIVE]
    if opts.enable_iipeikou:
        table.append(replace(_STD["iipeikou"], closed=han["iipeikou"], check=iipeikou))
    if opts.enable_chiitoitsu:
        table.append(replace(_STD["chiitoitsu"], closed=1))
    if opts.enable_sanshoku:
        table.append(replace(_STD["sanshoku"], closed=han["sanshoku_closed"], open=han["sanshoku_open"]))
    table += [_yakuman(yid, name_ja) for yid, name_ja in YAKUMAN]
    chiihou = flag(CHIIHOU_FLAGS[opts.chiihou_meaning])
    table = [replace(y, check=chiihou) if y.id == "chiihou" else y for y in table]
    if opts.enable_ryuuiisou:
        ryuu = _yakuman("ryuuiisou", "緑一色")
        if opts.ryuuiisou_requires_hatsu:
            ryuu = replace(ryuu, check=ryuuiisou_with_hatsu)
        table.append(ryuu)
    return tuple(table)


def check_amounts(opts: Any) -> None:
    """Every number-valued option (han, settlement amounts, fees) is >= 0: ``bad_option``."""
    for name, value in vars(opts).items():
        values = value.items() if isinstance(value, Mapping) else [(None, value)]
        for key, n in values:
            if isinstance(n, int) and not isinstance(n, bool) and n < 0:
                where = name if key is None else f"{name}.{key}"
                raise HandError("bad_option", f"option {where} must not be negative, not {n}", f"options.{where}")


# ------------------------------------------------------------------ add-ons and honba
@dataclass(frozen=True, slots=True)
class AddOn:
    """A flat part added per payer on top of the hand points: ``units`` × ``ron`` from the
    discarder, or ``units`` × ``tsumo`` from each payer of a tsumo."""

    id: str
    units: int
    ron: int
    tsumo: int
    detail: str

    def per_payer(self, ron: bool) -> int:
        return self.units * (self.ron if ron else self.tsumo)


def next_honba(honba: int, winner_is_dealer: bool | None, collected: bool = True) -> int:
    """Honba of the next hand (§1): +1 on a dealer win or a draw (``winner_is_dealer`` None), 0
    after a non-dealer win [assumed standard] — unless the winner could not collect them
    (``honba_requires_han`` and a 0-han win): then +1 [seed §8 「次局2本場」].

    >>> next_honba(1, False), next_honba(1, True), next_honba(1, None), next_honba(1, False, False)
    (0, 2, 2, 2)
    """
    if winner_is_dealer is None or winner_is_dealer or not collected:
        return honba + 1
    return 0


@dataclass(frozen=True, slots=True)
class Price:
    """The hand points of one interpretation before payments: basic points and their reason."""

    basic: int
    limit: str | None
    han: int
    fu: int
    fu_parts: tuple[FuPart, ...]
    steps: tuple[Step, ...]


class Boo(HanFuRuleset):
    """Osaka Boo: the han × fu family with Boo's fu exceptions, the mangan cap, yaku red fives and
    flat add-ons. :class:`~paiscan.scoring.rulesets.kansai_boo.KansaiBoo` overrides the hooks marked
    *(hook)*."""

    id: ClassVar[str] = "boo"
    name: ClassVar[str] = "Boo mahjong (Osaka)"
    name_ja: ClassVar[str] = "ブー麻雀"
    Options: ClassVar[type] = BooOptions
    presets: ClassVar[Mapping[str, Mapping[str, Any]]] = {
        "basic": {},
        # the seed's §2 example: A-top losers pay 3000 pesos, B/C-top losers 2000
        "seed_peso_example": {"loser_payment": {"A": 3000, "B": 2000, "C": 2000}},
    }
    used_flags: ClassVar[frozenset[str]] = frozenset(
        {
            "riichi",
            "double_riichi",
            "haitei",
            "rinshan",
            "rinshan_after_daiminkan",
            "chankan",
            "tenhou",
            "chiihou",
            "dealer_first_discard_ron",
        }
    )
    #: one dora indicator: no ura-dora, and a kan turns up none (§2; Kansai Boo the same)
    indicator_sets: ClassVar[int] = 1
    kan_dora: ClassVar[bool] = False
    #: 十点単位: every price is a multiple of this
    unit: ClassVar[int] = 10
    _tables: dict[Any, tuple[Yaku, ...]]

    def __init__(self) -> None:
        self._tables = {}
        #: the options of the hand before (most often the shared defaults: options are immutable)
        #: with their table, and the last options whose values passed :meth:`check_situation`
        self._last_table: tuple[Any, Sequence[Yaku]] = (None, ())
        self._checked_opts: Any = None

    # ---------------------------------------------------------------- declarations
    def yaku_table(self, opts: Any) -> Sequence[Yaku]:
        last = self._last_table
        if last[0] is opts:
            return last[1]
        key = self._table_key(opts)
        table = self._tables.get(key)
        if table is None:
            table = self._tables[key] = self.build_table(opts)
        self._last_table = (opts, table)
        return table

    def _table_key(self, opts: Any) -> Any:
        return tuple((k, tuple(sorted(v.items())) if isinstance(v, Mapping) else v) for k, v in vars(opts).items())

    def build_table(self, opts: Any) -> tuple[Yaku, ...]:
        """(hook) the yaku table under ``opts``."""
        return boo_table(opts)

    def fu_rules(self, opts: Any) -> FuRules:
        """Boo fu (§5): closed ron +10 (``closed_ron_fu``), tsumo 2 (ryanmen tsumo 2 or 4), open
        pinfu ron 20, seven pairs 50."""
        return FuRules(
            menzen_ron=opts.closed_ron_fu,
            tsumo_ryanmen=opts.ryanmen_tsumo_fu,
            open_pinfu_ron=20,
            chiitoitsu=50,
            double_wind_pair=opts.double_wind_pair_fu,
        )

    def fu_rules_for(self, hand: Hand, opts: Any) -> FuRules:
        winds = extra_value_winds(27 + hand.round_wind, getattr(opts, "extra_value_winds", "none"))
        return replace(self.fu_rules(opts), extra_value_winds=winds)

    def used_flags_for(self, opts: Any) -> frozenset[str]:
        """The flags this hand's options read (地和's flag depends on ``chiihou_meaning``)."""
        chiihou = CHIIHOU_FLAGS[opts.chiihou_meaning]
        return self.used_flags - (set(CHIIHOU_FLAGS.values()) - {chiihou})

    # ---------------------------------------------------------------- validation
    def check_situation(self, hand: Hand, opts: Any) -> None:
        """Option values that can be priced."""
        super().check_situation(hand, opts)
        if opts is self._checked_opts:  # (the checks below read the options alone)
            return
        for suit_letter, n in opts.red_fives.items():
            if not 0 <= n <= 4:
                raise HandError(
                    "bad_option",
                    f"option red_fives.{suit_letter} must be 0..4, not {n}",
                    f"options.red_fives.{suit_letter}",
                )
        check_amounts(opts)
        self._checked_opts = opts

    def check_hand(self, hand: Hand, opts: Any) -> None:
        """No nuki, and an open kan for the 大明槓 rinshan."""
        if hand.nuki:
            raise HandError("bad_nuki", f"{self.name} sets no tiles aside: nuki must be empty", "nuki")
        if "rinshan_after_daiminkan" in hand.flags and not any(m.is_kan and m.open and not m.added for m in hand.melds):
            raise HandError(
                "rinshan_without_kan",
                "rinshan_after_daiminkan needs an open kan (大明槓: open and not added) among the melds",
                "flags",
            )

    def interpretations(self, hand: Hand, opts: Any) -> list[Interpretation]:
        """Seven pairs only when adopted (option ``enable_chiitoitsu``)."""
        out = super().interpretations(hand, opts)
        if self.seven_pairs_adopted(opts):
            return out
        return [i for i in out if i.form != "chiitoitsu"]

    def seven_pairs_adopted(self, opts: Any) -> bool:
        """(hook)"""
        return bool(opts.enable_chiitoitsu)

    def no_interpretation(self, hand: Hand, opts: Any) -> HandError:
        if any(i.form == "chiitoitsu" for i in super().interpretations(hand, opts)):
            return HandError(
                "yaku_not_adopted",
                "the hand is complete only as seven pairs "
                f"(七対子), which {self.name} adopts only with the option "
                "enable_chiitoitsu",
                "hand",
            )
        return super().no_interpretation(hand, opts)

    def warnings(self, hand: Hand, opts: Any) -> list[str]:
        out = [f"flag {f!r} has no effect under {self.id}" for f in sorted(hand.flags - self.used_flags_for(opts))]
        if "double_riichi" in hand.flags:
            out.append(f"double_riichi counts as riichi (1 han): {self.id} has no double riichi")
        if len(hand.dora_indicators) > 1:
            ignored = ", ".join(tile_name(t) for t in hand.dora_indicators[1:])
            out.append(f"dora_indicators: only the first counts ({self.id} has no kan-dora); ignored {ignored}")
        if hand.ura_indicators:
            out.append(f"ura_indicators ignored: {self.id} has no ura-dora")
        if hand.riichi_sticks:
            out.append(f"riichi_sticks ignored: {self.id} has no riichi deposit")
        return out

    # ---------------------------------------------------------------- the hooks of the price
    def bazoro_han(self, hand: Hand, opts: Any) -> int:
        """(hook) 場ゾロ: han added to the exponent, not a yaku (§6.3)."""
        if opts.bazoro == "always" or (opts.bazoro == "south_only" and hand.round_wind == 1):
            return 1
        return 0

    def uncapped(self, opts: Any) -> bool:
        """(hook) 青天井: no mangan cap."""
        return bool(opts.aotenjou)

    def paid_as_ron(self, hand: Hand) -> bool:
        """(hook) 嶺上開花 after an open kan is 出和了り扱い: the kan-tile discarder pays a ron,
        with ron fu [seed §3]."""
        return not hand.tsumo or "rinshan_after_daiminkan" in hand.flags

    def yakuman_effect(self, opts: Any) -> str | None:
        """(hook) What a yakuman does to the game beyond its price (``a_top``), or None."""
        mode = opts.aotenjou_yakuman if opts.aotenjou else opts.yakuman_mode
        return "a_top" if mode == "a_top" else None

    def yakuman_price(self, ctx: Context, hits: Sequence[YakuHit], ron: bool) -> Price:
        """(hook) baiman (basic 1000), or under aotenjou thirteen_han fu × 2^13, uncapped."""
        opts = ctx.opts
        names = " + ".join(f"{h.name_ja} {h.name}" for h in hits)
        once = f" (counted once: {len(hits)} yakuman are one)" if len(hits) > 1 else ""
        if opts.aotenjou and opts.aotenjou_yakuman == "thirteen_han":
            fu, parts = self._yakuman_fu(ctx, ron)
            basic = fu * 2**AOTENJOU_YAKUMAN_HAN
            return Price(
                basic,
                None,
                AOTENJOU_YAKUMAN_HAN,
                fu,
                tuple(parts),
                (
                    Step(
                        "yaku",
                        f"{names} = yakuman, priced as {AOTENJOU_YAKUMAN_HAN} han{once} "
                        "(aotenjou_yakuman thirteen_han)",
                    ),
                    Step("fu", describe_fu(fu, parts)),
                    Step("basic", f"{fu} fu × 2^{AOTENJOU_YAKUMAN_HAN} = {basic} (青天井: no cap)"),
                ),
            )
        fu, parts = compute_fu(ctx, self.fu_rules_for(ctx.hand, opts), as_ron=ron)
        return Price(
            BAIMAN_BASIC,
            "yakuman",
            0,
            fu,
            tuple(parts),
            (
                Step("yaku", f"{names} = yakuman{once}"),
                Step("basic", f"役満は倍満扱い: {BAIMAN_BASIC} basic points"),
            ),
        )

    def _yakuman_fu(self, ctx: Context, ron: bool) -> tuple[int, list[FuPart]]:
        if ctx.interp.form != "kokushi":
            return compute_fu(ctx, self.fu_rules_for(ctx.hand, ctx.opts), as_ron=ron)
        base, menzen_ron, tsumo = KOKUSHI_FU_PARTS
        parts = [FuPart(base, "base", "副底 base")]
        parts.append(
            FuPart(menzen_ron, "menzen_ron", "門前加符 closed ron") if ron else FuPart(tsumo, "tsumo", "ツモ符 tsumo")
        )
        return round_up(sum(p.fu for p in parts), 10), parts

    def hand_price(self, ctx: Context, han: int, bazoro: int, ron: bool) -> Price:
        """``fu × 2^(han + bazoro)``, capped at mangan (500) unless uncapped (§6.2)."""
        opts = ctx.opts
        fu, parts = compute_fu(ctx, self.fu_rules_for(ctx.hand, opts), is_pinfu=False, as_ron=ron)
        raw = fu * 2 ** (han + bazoro)
        exp = f"{han}+{bazoro} bazoro" if bazoro else f"{han}"
        formula = f"{fu} fu × 2^({exp}) = {raw}"
        steps = [Step("fu", describe_fu(fu, parts))]
        if self.uncapped(opts):
            steps.append(Step("basic", f"{formula} (青天井: no cap)"))
            return Price(raw, None, han, fu, tuple(parts), tuple(steps))
        if raw >= MANGAN_BASIC:
            steps.append(Step("basic", f"{formula} ≥ {MANGAN_BASIC} → 満貫 mangan = {MANGAN_BASIC}"))
            return Price(MANGAN_BASIC, "mangan", han, fu, tuple(parts), tuple(steps))
        steps.append(Step("basic", formula))
        return Price(raw, None, han, fu, tuple(parts), tuple(steps))

    def addons(self, ctx: Context, han: int) -> list[AddOn | Item]:
        """(hook) 門前点, ドラ点, 本場の点 [seed §7]; an :class:`Item` of 0 records a part that is
        not collected, and why."""
        hand, opts = ctx.hand, ctx.opts
        out: list[AddOn | Item] = []
        if hand.is_closed:
            out.append(AddOn("menzen", 1, 300, 100, "closed hand (a closed kan keeps it)"))
        dora = ctx.facts.dora_count(hand.dora_indicators[:1])
        if dora:
            per = 200 if opts.dora_value == "closed_200" and hand.is_closed else 100
            ind = hand.dora_indicators[0]
            dora_tile = tile_name(dora_from_indicator(ind))
            out.append(AddOn("dora", dora, per, per, f"{dora} × {dora_tile} (indicator {tile_name(ind)}), {per} each"))
        if hand.honba:
            if opts.honba_requires_han and han == 0:
                out.append(Item("honba", 0, f"{hand.honba} honba not collected: a 0-han win (honba_requires_han)"))
            else:
                out.append(AddOn("honba", hand.honba, opts.honba_ron_value, 100, f"{hand.honba} honba"))
        return out

    def round_share(self, share: int, opts: Any) -> int:
        """(hook) ``min_stick`` 20: each payment rounded up to a multiple of 20."""
        return round_up(share, opts.min_stick)

    def honba_collected(self, hand: Hand, opts: Any, han: int, yakuman: bool) -> bool:
        return not (getattr(opts, "honba_requires_han", False) and han == 0 and not yakuman)

    # ---------------------------------------------------------------- scoring
    def score_interpretation(self, ctx: Context) -> Score | HandError:
        opts, hand = ctx.opts, ctx.hand
        hits = evaluate(self.yaku_table(opts), ctx)
        yakuman_hits = [h for h in hits if h.unit == "yakuman"]
        ron = self.paid_as_ron(hand)
        bazoro = 0
        if yakuman_hits:
            hits = yakuman_hits
            han = 0
            price = self.yakuman_price(ctx, hits, ron)
        else:
            han = sum(h.value for h in hits)
            bazoro = self.bazoro_han(hand, opts)
            price = self.hand_price(ctx, han, bazoro, ron)
            yaku_text = " + ".join(f"{h.name_ja} {h.name} {h.value}" for h in hits) or "no yaku"
            price = replace(
                price,
                steps=(
                    Step("yaku", f"{yaku_text} = {han} han" + (f" (+{bazoro} bazoro)" if bazoro else "")),
                    *price.steps,
                ),
            )
        pays, items, pay_steps = self.pay(ctx, price.basic, ron, han)
        total = sum(p.amount for p in pays)
        steps = [*price.steps, *pay_steps, Step("total", f"{total}")]
        effect = self.yakuman_effect(opts) if yakuman_hits else None
        warnings: tuple[str, ...] = ()
        if effect is not None:
            warnings = (
                f"{effect}: the yakuman ends the game with the winner {effect} whatever "
                "the scores (settle with paiscan.scoring.settlement_boo)",
            )
            steps.append(Step("game", warnings[0]))
        collected = self.honba_collected(hand, opts, han, bool(yakuman_hits))
        extra: dict[str, Any] = {
            "basic_points": price.basic,
            "bazoro": bazoro,
            "yakuman": int(bool(yakuman_hits)),
            "next_honba": next_honba(hand.honba, hand.is_dealer, collected),
        }
        if effect is not None:
            extra["game_effect"] = effect
        return Score(
            rules=self.id,
            total=total,
            payments=tuple(pays),
            han=price.han,
            fu=price.fu,
            limit=price.limit,
            yaku=tuple(hits),
            items=tuple(items),
            decomposition=tuple(sorted_labels(ctx)),
            warnings=warnings,
            fu_details=price.fu_parts,
            wait=ctx.interp.wait,
            form=ctx.interp.form,
            steps=tuple(steps),
            extra=extra,
        )

    def pay(self, ctx: Context, basic: int, ron: bool, han: int) -> tuple[list[Payment], list[Item], list[Step]]:
        """Hand points per payer (ron 4× / 6×; tsumo 1× and 2× from the dealer, or 2× each for a
        dealer) plus every add-on per payer; ``items`` sum each part over the payers."""
        hand, opts = ctx.hand, ctx.opts
        dealer = hand.is_dealer
        if ron:
            shares = [("discarder", 6 if dealer else 4)]
            who = ("dealer" if dealer else "non-dealer") + " ron"
            if hand.tsumo:
                who += " (嶺上開花 after an open kan: paid by the kan-tile discarder as a ron)"
        elif dealer:
            shares = [("non_dealer", 2)] * 3
            who = "dealer tsumo"
        else:
            shares = [("dealer", 2), ("non_dealer", 1), ("non_dealer", 1)]
            who = "non-dealer tsumo"
        hand_parts = [(payer, self.round_share(mult * basic, opts)) for payer, mult in shares]
        text = ", ".join(
            f"{payer} {mult} × {basic} = {mult * basic}"
            + (f" → {amount} (min_stick)" if amount != mult * basic else "")
            for (payer, mult), (_, amount) in zip(shares, hand_parts, strict=True)
        )
        steps = [Step("hand", f"{who}: {text}")]
        items = [Item("hand", sum(a for _, a in hand_parts), ITEM_LABELS["hand"])]
        extra_each = 0
        for part in self.addons(ctx, han):
            if isinstance(part, Item):
                items.append(part)
                steps.append(Step(part.id, part.detail))
                continue
            each = part.per_payer(ron)
            extra_each += each
            rate = part.ron if ron else part.tsumo
            where = "from the discarder" if ron else "from each payer"
            items.append(Item(part.id, each * len(shares), f"{ITEM_LABELS.get(part.id, part.id)}: {part.detail}"))
            steps.append(
                Step(
                    part.id,
                    f"{ITEM_LABELS.get(part.id, part.id)}: {part.detail}: {part.units} × {rate} = {each} {where}",
                )
            )
        pays = [Payment(payer, amount + extra_each) for payer, amount in hand_parts]
        return pays, items, steps


__all__ = [
    "AddOn",
    "Boo",
    "BooOptions",
    "Price",
    "boo_table",
    "check_amounts",
    "next_honba",
    "pinfu_ron",
    "riichi",
    "rinshan",
]
