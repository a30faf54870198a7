"""関西式ブー麻雀 Kansai Boo as played in 『しらぎく麻雀』 (spec ../shared/rules/kansai_boo.md,
seed 001_34000178ca6b63a3.txt): :class:`~paiscan.scoring.rulesets.boo.Boo` plus overrides.

What differs from Osaka Boo: a permanent 1-han bazoro (場に一翻), dora and honba both worth 300 on
ron / 100 from each payer on tsumo (ドラは積み棒と同じ扱い), only red 5p (each a 1-han 翻牌),
seven pairs 25 fu 2 han, a shorter yaku list with the seed's own han values, the Kansai meanings
of 地和 / 人和, a yakuman worth the mangan, and no menzen bonus unless the option is on. The hand
price formula is [assumed] (spec §5): the seed points to a score table it does not include.

>>> from scoring import score_hand
>>> s = score_hand({"rules": "kansai_boo", "hand": "567p345s67s88p", "win_tile": "8s",
...                 "melds": [{"type": "chi", "tiles": "234m"}], "seat_wind": "south",
...                 "honba": 2, "dora_indicators": ["2m"]})
>>> s.fu, s.han, s.total, [(i.id, i.value) for i in s.items]
(20, 2, 1540, [('hand', 640), ('dora', 300), ('honba', 600)])
"""

from __future__ import annotations

import types
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, ClassVar

from paiscan.scoring.errors import HandError
from paiscan.scoring.fu import FuRules, compute_fu
from paiscan.scoring.hand import Hand
from paiscan.scoring.options import opt
from paiscan.scoring.rulesets.boo import (
    MANGAN_BASIC,
    AddOn,
    Boo,
    Price,
    pinfu_ron,
    riichi,
    rinshan,
)
from paiscan.scoring.score import Item, Step, YakuHit
from paiscan.scoring.tiles import dora_from_indicator, tile_name
from paiscan.scoring.yaku import (
    STANDARD_YAKU,
    Checker,
    Context,
    Yaku,
    by_id,
    daisuushii,
    flag,
    shousuushii,
)

#: 場に一翻が付きます: one han on every hand, in the exponent (not a yaku)
BAZORO_HAN = 1
#: 役満貫もこれと同額: a yakuman is paid as the mangan
YAKUMAN_BASIC = MANGAN_BASIC
#: the kind of 5p: with ``red_5p_count`` 4 every 5p is red whatever the detector says
FIVE_PIN = 13


@dataclass(frozen=True)
class KansaiBooOptions:
    """House options of Kansai Boo (spec §9): the seed's rule-selection screen, and the spec's
    stated defaults where the seed gives none."""

    red_fives: Mapping[str, int] = opt(
        {"m": 0, "p": 2, "s": 0},
        "red fives of each suit in the set (0-4); only red 5p score "
        "(1 han each), a house red 5m/5s is validated and scores as a plain five",
    )
    red_5p_count: int = opt(
        2, "red 5p in the set, the seed's choices (the same as red_fives.p); with 4 every 5p is red", choices=(1, 2, 4)
    )
    menzen_bonus: bool = opt(False, "門前 bonus: a closed hand adds 300 on ron, 100 from each payer on tsumo")
    dora_void_open_no_yaku: bool = opt(
        False, "an open hand with no yaku collects no dora (a red 5p is a yaku, bazoro is not)"
    )
    yakuman_bonus: str = opt(
        "none",
        "a yakuman: no bonus, or it ends the game as マルエー for its winner whatever the "
        "scores (maru_a), or with doubled points (double_maru_a)",
        choices=("none", "maru_a", "double_maru_a"),
    )
    open_pinfu_fu: int = opt(20, "fu of an open pinfu won by ron (30: as in riichi mahjong)", choices=(20, 30))
    double_wind_pair_fu: int = opt(4, "fu of a pair of the wind that is both seat and round wind", choices=(2, 4))
    same_turn_missed_ron: bool = opt(
        True, "ron on a tile passed in the same turn is allowed (legality only: it does not change a price)"
    )
    settlement_points: Mapping[str, int] = opt(
        {"A": 10, "B": 5, "C": 3},
        "settlement: points each loser (below 2000) pays the top, by top type マルエー / マルビー / マルシー",
    )
    table_fee: int = opt(3, "settlement: table fee (場代) the top pays out of the winnings")


# ------------------------------------------------------------------ checkers that differ
def red_five_pin(ctx: Context) -> int:
    """赤五筒は翻牌: each red 5p is 1 han; with 4 red 5p in the set every 5p is red."""
    if ctx.opts.red_fives["p"] >= 4:
        return ctx.facts.counts[FIVE_PIN]
    return ctx.facts.reds[1]


def suushii(ctx: Context) -> int:
    """四喜和: small or big four winds, one yakuman either way."""
    return int(bool(shousuushii(ctx) or daisuushii(ctx)))


# ------------------------------------------------------------------ the seed's list as data
_STD = by_id(STANDARD_YAKU)
#: 関西式ブー麻雀での和了役と点数, in the seed's order: (id, han, closed only, the seed's name,
#: a checker replacing the standard one). No kuisagari: the value is the same open or closed.
SEED_YAKU: tuple[tuple[str, int, bool, str, Checker | None], ...] = (
    # 一翻役
    ("menzen_tsumo", 1, True, "門前摸和", None),
    ("riichi", 1, True, "立直", riichi),
    ("pinfu", 1, False, "平和", pinfu_ron),
    ("tanyao", 1, False, "断幺九", None),
    ("yakuhai_round_wind", 1, False, "翻牌 荘風牌", None),
    ("yakuhai_seat_wind", 1, False, "翻牌 門風牌", None),
    ("yakuhai_haku", 1, False, "翻牌 三元牌 白", None),
    ("yakuhai_hatsu", 1, False, "翻牌 三元牌 發", None),
    ("yakuhai_chun", 1, False, "翻牌 三元牌 中", None),
    ("red_five", 1, False, "翻牌 赤五牌", red_five_pin),
    ("haitei", 1, False, "海底摸月", None),
    ("rinshan", 1, False, "嶺上開花", rinshan),
    ("chankan", 1, False, "搶槓和", None),
    # 両翻役
    ("chiitoitsu", 2, True, "七対子", None),
    ("ittsu", 2, False, "一気通貫", None),
    ("toitoi", 2, False, "対々和", None),
    ("sanankou", 2, False, "三暗刻", None),
    ("honitsu", 2, False, "混一色", None),
    # 四翻役
    ("honroutou", 4, False, "混老頭", None),
    ("shousangen", 4, False, "小三元", None),
    ("chinitsu", 4, False, "清一色", None),
)
#: 満貫役 (paid as the mangan): (id, the seed's name, a checker replacing the standard one).
#: 地和 / 人和 have the Kansai meanings: 地和 a ron on the dealer's first discard, 人和 a
#: non-dealer's tsumo on his first draw (flag ``chiihou``).
SEED_YAKUMAN: tuple[tuple[str, str, Checker | None], ...] = (
    ("tenhou", "天和", None),
    ("chiihou_kansai", "地和", flag("dealer_first_discard_ron")),
    ("renhou_kansai", "人和", flag("chiihou")),
    ("daisangen", "大三元", None),
    ("suushii", "四喜和", suushii),
    ("tsuuiisou", "字一色", None),
    ("chinroutou", "清老頭", None),
    ("suuankou", "四暗刻", None),
    ("kokushi", "国士無双", None),
    ("chuuren", "九蓮宝燈", None),
)
_NAMES = {
    "red_five": "Red five pin",
    "chiihou_kansai": "Blessing of earth (Kansai)",
    "renhou_kansai": "Blessing of man (Kansai)",
    "suushii": "Four winds",
}
_CLOSED_ONLY_YAKUMAN = frozenset({"tenhou", "chiihou_kansai", "renhou_kansai", "suuankou", "kokushi", "chuuren"})


def _own(yid: str, check: Checker | None) -> Checker:
    """The checker of a yaku the standard table does not define (it must come with one)."""
    if check is None:
        raise ValueError(f"{yid} is not a standard yaku: the table must give its checker")
    return check


def _regular(yid: str, han: int, closed_only: bool, name_ja: str, check: Checker | None) -> Yaku:
    base = _STD.get(yid) or Yaku(yid, _NAMES[yid], name_ja, han, han, _own(yid, check))
    y = replace(base, closed=han, open=None if closed_only else han, name_ja=name_ja)
    return replace(y, check=check) if check is not None else y


def _yakuman(yid: str, name_ja: str, check: Checker | None) -> Yaku:
    base = _STD.get(yid) or Yaku(yid, _NAMES[yid], name_ja, 1, 1, _own(yid, check))
    y = replace(
        base, closed=1, open=None if yid in _CLOSED_ONLY_YAKUMAN else 1, name_ja=name_ja, unit="yakuman", excludes=()
    )
    return replace(y, check=check) if check is not None else y


#: The Kansai table (no option changes it; red 5p reads ``red_fives`` in its checker).
KANSAI_TABLE: tuple[Yaku, ...] = (
    *(_regular(*entry) for entry in SEED_YAKU),
    *(_yakuman(*entry) for entry in SEED_YAKUMAN),
)


class KansaiBoo(Boo):
    """関西式ブー麻雀: Boo with the Kansai table, bazoro, add-on rates and yakuman price."""

    id: ClassVar[str] = "kansai_boo"
    name: ClassVar[str] = "Kansai Boo mahjong (Shiragiku)"
    name_ja: ClassVar[str] = "関西式ブー麻雀"
    Options: ClassVar[type] = KansaiBooOptions
    presets: ClassVar[Mapping[str, Mapping[str, Any]]] = {}

    # ---------------------------------------------------------------- declarations
    def parse_options(self, raw: Mapping[str, Any] | None) -> Any:
        """``red_5p_count`` is ``red_fives.p`` under its seed name: whichever is given sets both
        (both given and different: ``bad_option``)."""
        opts: KansaiBooOptions = super().parse_options(raw)
        raw = raw or {}
        reds = raw.get("red_fives")
        p_given = isinstance(reds, Mapping) and "p" in reds
        if "red_5p_count" in raw:
            if p_given and opts.red_fives["p"] != opts.red_5p_count:
                raise HandError(
                    "bad_option",
                    f"options red_5p_count ({opts.red_5p_count}) and "
                    f"red_fives.p ({opts.red_fives['p']}) disagree: they are the same "
                    "setting",
                    "options.red_5p_count",
                )
            reds_p = types.MappingProxyType({**opts.red_fives, "p": opts.red_5p_count})
            return replace(opts, red_fives=reds_p)
        if p_given:
            return replace(opts, red_5p_count=opts.red_fives["p"])
        return opts

    def build_table(self, opts: Any) -> tuple[Yaku, ...]:
        return KANSAI_TABLE

    def _table_key(self, opts: Any) -> Any:
        return ()

    def fu_rules(self, opts: Any) -> FuRules:
        """リーチ麻雀同様 (closed ron +10, tsumo 2), open pinfu ron ``open_pinfu_fu``, seven pairs
        25 (一応、25符両翻)."""
        return FuRules(open_pinfu_ron=opts.open_pinfu_fu, chiitoitsu=25, double_wind_pair=opts.double_wind_pair_fu)

    def used_flags_for(self, opts: Any) -> frozenset[str]:
        return self.used_flags

    def seven_pairs_adopted(self, opts: Any) -> bool:
        return True

    def warnings(self, hand: Hand, opts: Any) -> list[str]:
        out = super().warnings(hand, opts)
        if "rinshan_after_daiminkan" in hand.flags:
            out.append(
                "rinshan_after_daiminkan: a normal tsumo under kansai_boo (the Osaka ron treatment is not in this rule)"
            )
        return out

    # ---------------------------------------------------------------- the price
    def bazoro_han(self, hand: Hand, opts: Any) -> int:
        return BAZORO_HAN

    def uncapped(self, opts: Any) -> bool:
        return False

    def paid_as_ron(self, hand: Hand) -> bool:
        return not hand.tsumo

    def yakuman_effect(self, opts: Any) -> str | None:
        return None if opts.yakuman_bonus == "none" else str(opts.yakuman_bonus)

    def yakuman_price(self, ctx: Context, hits: Sequence[YakuHit], ron: bool) -> Price:
        """役満貫もこれと同額: the mangan, 2000 / 3000 ron; several yakuman count once."""
        fu, parts = compute_fu(ctx, self.fu_rules_for(ctx.hand, ctx.opts), as_ron=ron)
        names = " + ".join(f"{h.name_ja} {h.name}" for h in hits)
        once = f" (counted once: {len(hits)} yakuman are one)" if len(hits) > 1 else ""
        return Price(
            YAKUMAN_BASIC,
            "yakuman",
            0,
            fu,
            tuple(parts),
            (
                Step("yaku", f"{names} = 満貫役{once}"),
                Step("basic", f"役満貫もこれと同額: {YAKUMAN_BASIC} basic points (the mangan)"),
            ),
        )

    def addons(self, ctx: Context, han: int) -> list[AddOn | Item]:
        """Menzen bonus (option), dora and honba: 300 on ron, 100 from each payer on tsumo."""
        hand, opts = ctx.hand, ctx.opts
        out: list[AddOn | Item] = []
        if opts.menzen_bonus and hand.is_closed:
            out.append(AddOn("menzen", 1, 300, 100, "closed hand (option menzen_bonus)"))
        dora = ctx.facts.dora_count(hand.dora_indicators[:1])
        if dora:
            ind = hand.dora_indicators[0]
            what = f"{dora} × {tile_name(dora_from_indicator(ind))} (indicator {tile_name(ind)})"
            if opts.dora_void_open_no_yaku and not hand.is_closed and han == 0:
                out.append(Item("dora", 0, f"{what} void: an open hand without yaku (dora_void_open_no_yaku)"))
            else:
                out.append(AddOn("dora", dora, 300, 100, f"{what}, like honba sticks"))
        if hand.honba:
            out.append(AddOn("honba", hand.honba, 300, 100, f"{hand.honba} honba"))
        return out

    def round_share(self, share: int, opts: Any) -> int:
        """最終的な点数は十点単位なので切上げはありません."""
        return share


__all__ = ["KANSAI_TABLE", "KansaiBoo", "KansaiBooOptions"]
