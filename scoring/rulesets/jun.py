"""純麻雀 Jun mahjong (浅見了, rules as of 2003-06-16): a competition rule without chance.

No dora, no red fives (a red five is a plain five), no honba, no chance yaku (ippatsu, haitei,
rinshan, tenhou ...), no fu: a hand's price depends only on its han (第25条), the same for the
dealer and a non-dealer. A hand may win with 0 han (600 / 200 オール). Spec: rules/jun.md; seed
004_87d07c458dcf343b.txt.

The yaku table is the seed's 第26条 transcribed as data: each entry's han and its mark, ▽
(門前役, closed only) or ▼ (一翻食い下がり, one han less when open); yakuman carry their class,
役満貫 or 大役満.

>>> from scoring import score_hand
>>> s = score_hand({"rules": "jun", "hand": "234m567p34s678s55s", "win_tile": "2s",
...                 "win": "tsumo", "flags": ["riichi"]})
>>> s.han, s.total, [(p.from_, p.amount) for p in s.payments]
(4, 9000, [('non_dealer', 3000), ('non_dealer', 3000), ('non_dealer', 3000)])
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, ClassVar

from paiscan.scoring.decompose import Interpretation, interpretations
from paiscan.scoring.engine import RIICHI_FLAGS
from paiscan.scoring.errors import HandError
from paiscan.scoring.hand import Hand
from paiscan.scoring.options import opt
from paiscan.scoring.rulesets.riichi import HanFuRuleset, sorted_labels
from paiscan.scoring.score import Item, Payment, Score, Step, YakuHit
from paiscan.scoring.tiles import RED_5M, RED_5S, YAOCHUU, tile_name
from paiscan.scoring.yaku import (
    STANDARD_YAKU,
    Context,
    Yaku,
    by_id,
    evaluate,
    isshoku_sanjun,
    revalue,
    ryuuiisou_with_hatsu,
    sanpuukou,
    sanrenkou,
)


@dataclass(frozen=True)
class JunOptions:
    """House options: the spec's §5 settings and its [assumed] readings that change a price."""

    yakuman_stacking: bool = opt(
        False,
        "each yakuman adds its own 27000 / 30000 unit (false, the seed's table: the hand "
        "takes the highest class present; 30000 is the table's maximum)",
    )
    ryuuiisou_requires_hatsu: bool = opt(False, "緑一色 needs the green dragon 發")
    honor_yaku_add_yakuhai: bool = opt(
        True,
        "小三元 / 三風刻 add the 翻牌 of the value sets they use (open 小三元 = 2 + 1 + 1); "
        "false: they are 2 han and those 翻牌 (and 連風牌) are not added",
    )
    chanta_requires_sequence: bool = opt(
        True, "全帯幺九 needs at least one sequence (混老頭 covers the all-triplet case)"
    )
    isshoku_sanjun_replaces_iipeikou: bool = opt(
        True, "同三順 (three identical sequences) replaces 一平行 (false: both count)"
    )
    seven_pairs_duplicates: bool = opt(
        False, "七対子 may use four of a kind as two pairs (false: seven distinct pairs)"
    )


# ------------------------------------------------------------------ 第25条 点数表 (exact)
#: han → (ron, tsumo オール: what each of the three others pays); 10 han and more use the last row
HAN_ROWS: tuple[tuple[int, int], ...] = (
    (600, 200),
    (1500, 500),
    (3000, 1000),
    (6000, 2000),
    (9000, 3000),
    (12000, 4000),
    (15000, 5000),
    (18000, 6000),
    (21000, 7000),
    (24000, 8000),
    (27000, 9000),
)
YAKUMAN_KAN, DAI_YAKUMAN = 1, 2
#: yakuman class (the yaku's value in unit "yakuman") → (limit name, Japanese, ron, tsumo オール)
YAKUMAN_ROWS: Mapping[int, tuple[str, str, int, int]] = {
    YAKUMAN_KAN: ("yakuman", "役満貫", 27000, 9000),
    DAI_YAKUMAN: ("daiyakuman", "大役満", 30000, 10000),
}
HAN_CAP = len(HAN_ROWS) - 1  # "10-役満": 10 han or more


@dataclass(frozen=True)
class TableRow:
    """One row of the price table: what a ron and what each tsumo payer pays, and its label."""

    ron: int
    each: int
    label: str
    limit: str | None = None


def han_row(han: int) -> TableRow:
    """The 第25条 row of a regular hand (0 han included; 10 or more: the 10-役満 row)."""
    if han < 0:
        raise ValueError(f"han must be >= 0, not {han}")
    ron, each = HAN_ROWS[min(han, HAN_CAP)]
    if han >= HAN_CAP:
        return TableRow(ron, each, f"{han}翻 (10翻以上 = 10-役満の行)", "yakuman")
    return TableRow(ron, each, f"{han}翻")


def yakuman_row(level: int) -> TableRow:
    """The row of a yakuman class: 役満貫 27000 / 9000 オール, 大役満 30000 / 10000 オール."""
    name, name_ja, ron, each = YAKUMAN_ROWS[level]
    return TableRow(ron, each, name_ja, name)


# ------------------------------------------------------------------ checkers that differ
def riichi(ctx: Context) -> int:
    """立直: any riichi declaration (Jun has no double or open riichi: such a declaration is a
    riichi, worth its 1 han, never nothing)."""
    return int(bool(ctx.facts.flags & RIICHI_FLAGS))


def pinfu(ctx: Context) -> int:
    """平和 "数牌のみの1雀頭4順子。アガリ方不問": four sequences and a number-tile pair, any wait
    (kanchan, penchan, tanki too), ron or tsumo."""
    return int(ctx.standard and len(ctx.seqs) == 4 and ctx.pair is not None and ctx.pair < 27)


def renpuuhai(ctx: Context) -> int:
    """連風牌: a triplet/kan of the wind that is both the seat and the round wind."""
    f = ctx.facts
    return int(f.seat_wind == f.round_wind and f.seat_wind in ctx.trips)


def _every_group_has(ctx: Context, tiles: frozenset[int]) -> bool:
    return all(any(t in tiles for t in g.tiles()) for g in ctx.groups)


def chanta_any(ctx: Context) -> int:
    """全帯幺九 without the sequence requirement (option chanta_requires_sequence false): every set
    and the pair hold a yaochuu tile, and some honor (without honors it is 純全帯 or 清老頭)."""
    return int(ctx.standard and ctx.facts.has_honors and _every_group_has(ctx, YAOCHUU))


# ------------------------------------------------------------------ 第26条 和了役 as data
CLOSED_ONLY, KUISAGARI, SAME = "▽", "▼", ""


def marked(han: int, mark: str) -> tuple[int, int | None]:
    """(closed value, open value) of a seed entry: ▽ closed only, ▼ one han less when open."""
    if mark == CLOSED_ONLY:
        return han, None
    if mark == KUISAGARI:
        return han, han - 1
    return han, han


_NEW: dict[str, Yaku] = {
    y.id: y
    for y in (
        Yaku("sanrenkou", "Three consecutive triplets", "三連刻", 1, 1, sanrenkou),
        Yaku("isshoku_sanjun", "Three identical sequences", "同三順", 2, 1, isshoku_sanjun, excludes=("iipeikou",)),
        Yaku("sanpuukou", "Three wind triplets", "三風刻", 2, 2, sanpuukou),
        Yaku(
            "renpuuhai", "Double wind", "連風牌", 2, 2, renpuuhai, excludes=("yakuhai_seat_wind", "yakuhai_round_wind")
        ),
    )
}
_STD = by_id(STANDARD_YAKU)
#: every definition the table draws on: the standard ones, Jun's 立直 and 平和, and the new ones
_DEFS: dict[str, Yaku] = {
    **_STD,
    **_NEW,
    "riichi": replace(_STD["riichi"], check=riichi),
    "pinfu": replace(_STD["pinfu"], check=pinfu),
}

#: 第26条 in the seed's order: (id, han, mark, the seed's name). 翻牌 is one entry of the seed,
#: scored per set under the shared yakuhai ids.
SEED_YAKU: tuple[tuple[str, int, str, str], ...] = (
    # 一翻
    ("menzen_tsumo", 1, CLOSED_ONLY, "自摸和"),
    ("pinfu", 1, CLOSED_ONLY, "平和"),
    ("iipeikou", 1, CLOSED_ONLY, "一平行"),
    ("chiitoitsu", 1, CLOSED_ONLY, "七対子"),
    ("riichi", 1, CLOSED_ONLY, "立直"),
    ("tanyao", 1, SAME, "断幺九"),
    ("sanrenkou", 1, SAME, "三連刻"),
    ("yakuhai_haku", 1, SAME, "翻牌 白"),
    ("yakuhai_hatsu", 1, SAME, "翻牌 發"),
    ("yakuhai_chun", 1, SAME, "翻牌 中"),
    ("yakuhai_seat_wind", 1, SAME, "翻牌 自風"),
    ("yakuhai_round_wind", 1, SAME, "翻牌 場風"),
    # 二翻
    ("ittsu", 2, KUISAGARI, "一通"),
    ("sanshoku", 2, KUISAGARI, "三色同順"),
    ("chanta", 2, KUISAGARI, "全帯幺九"),
    ("isshoku_sanjun", 2, KUISAGARI, "同三順"),
    ("shousangen", 2, SAME, "小三元"),
    ("toitoi", 2, SAME, "対々和"),
    ("sanankou", 2, SAME, "三暗刻"),
    ("sanpuukou", 2, SAME, "三風刻"),
    ("sanshoku_doukou", 2, SAME, "三同刻"),
    ("renpuuhai", 2, SAME, "連風牌"),
    # 三翻
    ("junchan", 3, KUISAGARI, "純全帯"),
    ("honitsu", 3, KUISAGARI, "混一色"),
    ("ryanpeikou", 3, KUISAGARI, "両平行"),  # ▼ as printed: it exists open (two identical chi)
    ("honroutou", 3, SAME, "混老頭"),
    # 六翻
    ("chinitsu", 6, KUISAGARI, "清一色"),
)
#: 役満貫 and 大役満: (id, class, the seed's name). Open where the hand can be open.
SEED_YAKUMAN: tuple[tuple[str, int, str], ...] = (
    ("daisangen", YAKUMAN_KAN, "大三元"),
    ("suuankou", YAKUMAN_KAN, "四暗刻"),
    ("shousuushii", YAKUMAN_KAN, "小四喜"),
    ("ryuuiisou", YAKUMAN_KAN, "緑一色"),
    ("tsuuiisou", DAI_YAKUMAN, "字一色"),
    ("daisuushii", DAI_YAKUMAN, "大四喜"),
    ("chinroutou", DAI_YAKUMAN, "清老頭"),
    ("chuuren", DAI_YAKUMAN, "九蓮宝灯"),  # 九門張でなくても可: any wait (the standard checker)
    ("kokushi", DAI_YAKUMAN, "国士無双"),
)


def _regular(yid: str, han: int, mark: str, name_ja: str) -> Yaku:
    closed, open_ = marked(han, mark)
    return replace(_DEFS[yid], closed=closed, open=open_, name_ja=name_ja)


def _yakuman(yid: str, level: int, name_ja: str) -> Yaku:
    std = _DEFS[yid]
    return replace(std, closed=level, open=None if std.open is None else level, name_ja=name_ja, excludes=())


#: The Jun table with the default options.
BASE_TABLE: tuple[Yaku, ...] = (
    *(_regular(*entry) for entry in SEED_YAKU),
    *(_yakuman(*entry) for entry in SEED_YAKUMAN),
)
_DRAGON_YAKUHAI = ("yakuhai_haku", "yakuhai_hatsu", "yakuhai_chun")
_WIND_YAKUHAI = ("yakuhai_seat_wind", "yakuhai_round_wind", "renpuuhai")


def jun_table(opts: JunOptions) -> tuple[Yaku, ...]:
    """The yaku table under ``opts`` (the base table with the option-dependent overrides)."""
    changes: dict[str, dict[str, Any]] = {}
    if opts.ryuuiisou_requires_hatsu:
        changes["ryuuiisou"] = {"check": ryuuiisou_with_hatsu}
    if not opts.honor_yaku_add_yakuhai:
        changes["shousangen"] = {"excludes": _DRAGON_YAKUHAI}
        changes["sanpuukou"] = {"excludes": _WIND_YAKUHAI}
    if not opts.chanta_requires_sequence:
        changes["chanta"] = {"check": chanta_any}
    if not opts.isshoku_sanjun_replaces_iipeikou:
        changes["isshoku_sanjun"] = {"excludes": ()}
    return revalue(BASE_TABLE, changes)


@dataclass(frozen=True)
class JunScore(Score):
    """A Jun Score. Equal totals are common (every hand of 10 han or more pays 27000), so among
    equal totals a yakuman reading outranks a counted one, then more han."""

    @property
    def rank(self) -> tuple[int, int, int, int]:
        level = max((y.value for y in self.yaku if y.unit == "yakuman"), default=0)
        return (self.total, level, self.han, self.fu)


class Jun(HanFuRuleset):
    """純麻雀: han-only prices from the 第25条 table, no dora, no honba, no dealer premium."""

    id: ClassVar[str] = "jun"
    name: ClassVar[str] = "Jun mahjong"
    name_ja: ClassVar[str] = "純麻雀"
    Options: ClassVar[type] = JunOptions
    reds_are_plain: ClassVar[bool] = True
    counts_dora: ClassVar[bool] = False
    #: the flags Jun reads: the three riichi declarations (each is a 立直); chance flags have no effect
    used_flags: ClassVar[frozenset[str]] = RIICHI_FLAGS
    _tables: dict[JunOptions, tuple[Yaku, ...]]

    def __init__(self) -> None:
        self._tables = {}

    # ---------------------------------------------------------------- declarations
    def yaku_table(self, opts: Any) -> Sequence[Yaku]:
        table = self._tables.get(opts)
        if table is None:
            table = self._tables[opts] = jun_table(opts)
        return table

    def interpretations(self, hand: Hand, opts: Any) -> list[Interpretation]:
        return interpretations(hand, opts.seven_pairs_duplicates)

    def warnings(self, hand: Hand, opts: Any) -> list[str]:
        out = super().warnings(hand, opts)
        for name in sorted(hand.flags & (RIICHI_FLAGS - {"riichi"})):
            what = name.replace("_", " ")
            out.append(f"flag {name!r} counts as riichi (立直 1翻): Jun has no {what}")
        for name, tiles in (("dora_indicators", hand.dora_indicators), ("ura_indicators", hand.ura_indicators)):
            if tiles:
                out.append(f"{name} ignored: Jun has no dora")
        if hand.nuki:
            out.append("nuki ignored: Jun sets no tiles aside")
        reds = [t for t in hand.all_tiles if RED_5M <= t <= RED_5S]
        if reds:
            names = ", ".join(tile_name(t) for t in reds)
            out.append(f"red five ({names}) read as a plain five: Jun has no red fives")
        if hand.honba:
            out.append("honba ignored: Jun has no honba (the deal always rotates)")
        if hand.riichi_sticks:
            out.append("riichi_sticks ignored: Jun has no riichi deposit")
        return out

    # ---------------------------------------------------------------- pricing hooks
    def bonus_han(self, ctx: Context) -> list[YakuHit]:
        """No dora of any kind, no red fives (第1条: 34 kinds × 4)."""
        return []

    def basic_points(self, han: int, fu: int, yakuman: int, opts: Any) -> tuple[int, str | None, str]:
        """The ron amount of the 第25条 row (fu plays no part); ``yakuman`` is a yakuman class."""
        row = yakuman_row(yakuman) if yakuman else han_row(han)
        return row.ron, row.limit, f"{row.label}: ロン {row.ron} / ツモ {row.each}オール (第25条)"

    def payments(self, basic: int, hand: Hand, opts: Any) -> tuple[list[Payment], list[Item], list[Step]]:
        """One column for everybody: the discarder pays the ron amount; on tsumo each of the three
        others pays a third of it (the table's オール column). No honba, no deposits."""
        if not hand.tsumo:
            step = Step("payment", f"ron: the discarder pays {basic}")
            return [Payment("discarder", basic)], [], [step]
        each, rest = divmod(basic, 3)
        if rest:
            raise ValueError(f"{basic} is not three オール payments")
        who = "dealer and non-dealers alike" if not hand.is_dealer else "the three non-dealers"
        pays = [Payment("non_dealer", each) for _ in range(2 if not hand.is_dealer else 3)]
        if not hand.is_dealer:
            pays.insert(0, Payment("dealer", each))
        return pays, [], [Step("payment", f"tsumo: {each} オール from {who} (no dealer premium)")]

    def score_interpretation(self, ctx: Context) -> Score | HandError:
        """Yaku from the table (0 han is a valid win), priced by the 第25条 row alone."""
        opts: JunOptions = ctx.opts
        table = self.yaku_table(opts)
        hits = evaluate(table, ctx)
        yakuman_hits = [h for h in hits if h.unit == "yakuman"]
        limit: str | None
        if yakuman_hits:
            han = 0
            hits, ron, limit, steps = self._yakuman(yakuman_hits, opts)
        else:
            han = sum(h.value for h in hits)
            spec = by_id(table)
            parts = [_describe_hit(h, spec[h.id], ctx.facts.closed) for h in hits]
            ron, limit, why = self.basic_points(han, 0, 0, opts)
            steps = [
                Step("yaku", (" + ".join(parts) or "no yaku (0翻 may win in Jun)") + f" = {han}翻"),
                Step("row", why),
            ]
        pays, _, pay_steps = self.payments(ron, ctx.hand, opts)
        total = sum(p.amount for p in pays)
        steps += [*pay_steps, Step("total", f"{total}")]
        return JunScore(
            rules=self.id,
            total=total,
            payments=tuple(pays),
            han=han,
            fu=0,
            limit=limit,
            yaku=tuple(hits),
            decomposition=tuple(sorted_labels(ctx)),
            wait=ctx.interp.wait,
            form=ctx.interp.form,
            steps=tuple(steps),
        )

    def _yakuman(self, hits: list[YakuHit], opts: JunOptions) -> tuple[list[YakuHit], int, str, list[Step]]:
        """The yakuman that count, the ron amount, the limit name and why: the highest class
        present (no stacking), or with ``yakuman_stacking`` one table unit per yakuman."""
        top = max(h.value for h in hits)
        counted = hits if opts.yakuman_stacking else [h for h in hits if h.value == top]
        rows = [yakuman_row(h.value) for h in counted]
        steps = [Step("yaku", " + ".join(f"{h.name_ja} {h.name} ({YAKUMAN_ROWS[h.value][1]})" for h in counted))]
        if opts.yakuman_stacking:
            ron = sum(r.ron for r in rows)
            steps.append(
                Step("row", " + ".join(f"{r.label} {r.ron}" for r in rows) + f" = {ron} (option yakuman_stacking)")
            )
        else:
            row = rows[0]
            ron = row.ron
            skipped = [h.name_ja for h in hits if h.value < top]
            why = f"; {'・'.join(skipped)} not added (no stacking)" if skipped else ""
            steps.append(Step("row", f"{row.label}: ロン {row.ron} / ツモ {row.each}オール{why}"))
        return counted, ron, YAKUMAN_ROWS[top][0], steps


def _describe_hit(hit: YakuHit, yaku: Yaku, closed: bool) -> str:
    """``一通 1 (▼ open: 2−1)`` for a reduced open yaku, ``断幺九 1`` otherwise."""
    if not closed and yaku.open is not None and yaku.open < yaku.closed:
        return f"{hit.name_ja} {hit.value} (▼ open: {yaku.closed}−{yaku.closed - yaku.open})"
    return f"{hit.name_ja} {hit.value}"


__all__ = [
    "BASE_TABLE",
    "HAN_ROWS",
    "YAKUMAN_ROWS",
    "Jun",
    "JunOptions",
    "JunScore",
    "TableRow",
    "han_row",
    "jun_table",
    "marked",
    "yakuman_row",
]
