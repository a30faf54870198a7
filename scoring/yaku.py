"""Yaku and patterns as data: a :class:`Yaku` is a value (id, names, closed/open value, what it
supersedes) plus a checker, a small predicate over a :class:`Context`.

Each ruleset keeps one table (a tuple of Yaku) built from the shared definitions here with its own
values and exclusions (:func:`revalue`), so rulesets share what they share.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from paiscan.scoring.decompose import KAN, PAIR, SEQUENCE, TRIPLET, Group, Interpretation
from paiscan.scoring.hand import Hand
from paiscan.scoring.score import YakuHit
from paiscan.scoring.tiles import (
    DRAGONS,
    GREEN_TILES,
    RED_5M,
    RED_5S,
    WIND_TILES,
    YAOCHUU,
    dora_from_indicator,
    kind,
)


@dataclass(slots=True)
class Facts:
    """What is true of the whole hand, whatever its reading (computed once per hand)."""

    counts: list[int]  # 34 kinds over every tile of the complete hand (kans count 4)
    closed: bool
    tsumo: bool
    dealer: bool
    seat_wind: int  # tile kind 27..30
    round_wind: int
    flags: frozenset[str]
    reds: tuple[int, int, int]  # red fives by suit m, p, s in the hand (not indicators)
    n_kans: int
    has_honors: bool
    number_suits: frozenset[int]
    all_yaochuu: bool
    no_yaochuu: bool

    @classmethod
    def of(cls, hand: Hand) -> Facts:
        counts = [0] * 34
        reds = [0, 0, 0]
        for t in hand.all_tiles:
            counts[kind(t)] += 1
            if RED_5M <= t <= RED_5S:
                reds[t - RED_5M] += 1
        present = [k for k in range(34) if counts[k]]
        return cls(
            counts=counts,
            closed=hand.is_closed,
            tsumo=hand.tsumo,
            dealer=hand.is_dealer,
            seat_wind=WIND_TILES[hand.seat_wind],
            round_wind=WIND_TILES[hand.round_wind],
            flags=hand.flags,
            reds=(reds[0], reds[1], reds[2]),
            n_kans=sum(1 for m in hand.melds if m.is_kan),
            has_honors=any(k >= 27 for k in present),
            number_suits=frozenset(k // 9 for k in present if k < 27),
            all_yaochuu=all(k in YAOCHUU for k in present),
            no_yaochuu=not any(k in YAOCHUU for k in present),
        )

    def dora_count(self, indicators: Iterable[int], three_player: bool = False) -> int:
        """How many tiles of the hand are dora for these indicators (each indicator counts)."""
        return sum(self.counts[dora_from_indicator(i, three_player)] for i in indicators)


@dataclass(slots=True)
class Context:
    """One interpretation of one hand under one ruleset's options: what checkers look at."""

    hand: Hand
    facts: Facts
    interp: Interpretation
    opts: Any
    seqs: list[int]  # start kinds of every sequence (chi included)
    trips: list[int]  # kinds of every triplet and kan
    pair: int | None
    concealed_trips: int  # concealed triplets and closed kans (rules README §4.3)

    @classmethod
    def of(cls, hand: Hand, facts: Facts, interp: Interpretation, opts: Any) -> Context:
        seqs: list[int] = []
        trips: list[int] = []
        pair = None
        ankou = 0
        for g in interp.groups:
            if g.shape == SEQUENCE:
                seqs.append(g.tile)
            elif g.shape == PAIR:
                pair = g.tile
            else:
                trips.append(g.tile)
                if g.concealed and not g.called:
                    ankou += 1
        return cls(hand, facts, interp, opts, seqs, trips, pair, ankou)

    @property
    def groups(self) -> tuple[Group, ...]:
        return self.interp.groups

    @property
    def standard(self) -> bool:
        return self.interp.form == "standard"

    def is_value_wind_trip(self, wind: int) -> bool:
        return wind in self.trips


Checker = Callable[[Context], int]


@dataclass(frozen=True, slots=True)
class Yaku:
    """A yaku/pattern: its identity, its value closed and open (``None``: closed only), its unit,
    the ids it supersedes when both are present, and the checker that says how many times it
    counts (0: absent)."""

    id: str
    name: str
    name_ja: str
    closed: int
    open: int | None
    check: Checker
    unit: str = "han"
    excludes: tuple[str, ...] = ()
    series: str | None = None

    def value(self, closed: bool) -> int | None:
        return self.closed if closed else self.open


def evaluate(table: Sequence[Yaku], ctx: Context) -> list[YakuHit]:
    """The yaku of ``table`` that the interpretation has, after exclusions, in table order."""
    closed = ctx.facts.closed
    found: list[tuple[Yaku, int]] = []
    for y in table:
        value = y.closed if closed else y.open
        if value is None or (value == 0 and y.unit != "points"):
            continue
        n = y.check(ctx)
        if n:
            found.append((y, n))
    if not found:
        return []
    dropped = {x for y, _ in found for x in y.excludes}
    return [
        YakuHit(y.id, y.name, y.name_ja, (y.closed if closed else y.open or 0) * n, y.unit, n, y.series)
        for y, n in found
        if y.id not in dropped
    ]


def revalue(
    table: Sequence[Yaku], changes: Mapping[str, Mapping[str, Any]], drop: Iterable[str] = ()
) -> tuple[Yaku, ...]:
    """A copy of ``table`` with some fields changed per id and some ids removed (a ruleset override).

    >>> t = revalue(STANDARD_YAKU, {"tanyao": {"open": None}}, drop=["pinfu"])
    >>> by_id(t)["tanyao"].open is None, "pinfu" in by_id(t)
    (True, False)
    """
    gone = set(drop)
    unknown = (set(changes) | gone) - {y.id for y in table}
    if unknown:
        raise KeyError(f"no such yaku in table: {sorted(unknown)}")
    return tuple(replace(y, **changes[y.id]) if y.id in changes else y for y in table if y.id not in gone)


def by_id(table: Sequence[Yaku]) -> dict[str, Yaku]:
    return {y.id: y for y in table}


# ---------------------------------------------------------------- shared checkers
def flag(name: str) -> Checker:
    def check(ctx: Context) -> int:
        return int(name in ctx.facts.flags)

    check.__name__ = f"flag_{name}"
    return check


def menzen_tsumo(ctx: Context) -> int:
    return int(ctx.facts.tsumo and ctx.facts.closed)


def riichi(ctx: Context) -> int:
    f = ctx.facts.flags
    return int("riichi" in f and "double_riichi" not in f)


def tanyao(ctx: Context) -> int:
    return int(ctx.facts.no_yaochuu and ctx.interp.form != "kokushi")


def pinfu(ctx: Context) -> int:
    """Standard pinfu: four sequences, a pair that is not a value tile, a ryanmen wait."""
    if len(ctx.seqs) != 4 or ctx.interp.wait != "ryanmen":
        return 0
    p = ctx.pair
    return int(p not in DRAGONS and p != ctx.facts.seat_wind and p != ctx.facts.round_wind)


def dragon_trip(tile: int) -> Checker:
    def check(ctx: Context) -> int:
        return int(tile in ctx.trips)

    return check


def seat_wind_trip(ctx: Context) -> int:
    return int(ctx.facts.seat_wind in ctx.trips)


def round_wind_trip(ctx: Context) -> int:
    return int(ctx.facts.round_wind in ctx.trips)


def _identical_sequence_pairs(ctx: Context) -> int:
    seqs = sorted(ctx.seqs)
    pairs = 0
    i = 0
    while i < len(seqs) - 1:
        if seqs[i] == seqs[i + 1]:
            pairs += 1
            i += 2
        else:
            i += 1
    return pairs


def iipeikou(ctx: Context) -> int:
    return int(_identical_sequence_pairs(ctx) == 1)


def ryanpeikou(ctx: Context) -> int:
    return int(_identical_sequence_pairs(ctx) == 2)


def sanshoku(ctx: Context) -> int:
    s = set(ctx.seqs)
    return int(any(n in s and n + 9 in s and n + 18 in s for n in range(7)))


def ittsu(ctx: Context) -> int:
    s = set(ctx.seqs)
    return int(any(b in s and b + 3 in s and b + 6 in s for b in (0, 9, 18)))


def _all_groups_have(ctx: Context, tiles: frozenset[int]) -> bool:
    for g in ctx.interp.groups:
        if g.shape == SEQUENCE:
            if g.tile not in tiles and g.tile + 2 not in tiles:
                return False
        elif g.tile not in tiles:
            return False
    return True


_TERMINALS = frozenset(k for k in YAOCHUU if k < 27)


def chanta(ctx: Context) -> int:
    """Every set and the pair hold a yaochuu tile, some honor, and at least one sequence."""
    return int(ctx.standard and bool(ctx.seqs) and ctx.facts.has_honors and _all_groups_have(ctx, YAOCHUU))


def junchan(ctx: Context) -> int:
    return int(ctx.standard and bool(ctx.seqs) and not ctx.facts.has_honors and _all_groups_have(ctx, _TERMINALS))


def toitoi(ctx: Context) -> int:
    return int(ctx.standard and len(ctx.trips) == 4)


def sanankou(ctx: Context) -> int:
    return int(ctx.concealed_trips == 3)


def suuankou(ctx: Context) -> int:
    return int(ctx.concealed_trips == 4)


def suuankou_tanki(ctx: Context) -> int:
    return int(ctx.concealed_trips == 4 and ctx.interp.wait == "tanki")


def sankantsu(ctx: Context) -> int:
    return int(ctx.facts.n_kans == 3)


def suukantsu(ctx: Context) -> int:
    return int(ctx.facts.n_kans == 4)


def sanshoku_doukou(ctx: Context) -> int:
    s = set(ctx.trips)
    return int(any(n in s and n + 9 in s and n + 18 in s for n in range(9)))


def shousangen(ctx: Context) -> int:
    return int(sum(1 for d in DRAGONS if d in ctx.trips) == 2 and ctx.pair in DRAGONS)


def daisangen(ctx: Context) -> int:
    return int(all(d in ctx.trips for d in DRAGONS))


def shousuushii(ctx: Context) -> int:
    return int(sum(1 for w in WIND_TILES if w in ctx.trips) == 3 and ctx.pair in WIND_TILES)


def daisuushii(ctx: Context) -> int:
    return int(all(w in ctx.trips for w in WIND_TILES))


def honroutou(ctx: Context) -> int:
    return int(ctx.facts.all_yaochuu and ctx.interp.form != "kokushi" and not ctx.seqs)


def chiitoitsu(ctx: Context) -> int:
    return int(ctx.interp.form == "chiitoitsu")


def honitsu(ctx: Context) -> int:
    return int(len(ctx.facts.number_suits) == 1 and ctx.facts.has_honors)


def chinitsu(ctx: Context) -> int:
    return int(len(ctx.facts.number_suits) == 1 and not ctx.facts.has_honors)


def tsuuiisou(ctx: Context) -> int:
    return int(not ctx.facts.number_suits)


def chinroutou(ctx: Context) -> int:
    return int(ctx.facts.all_yaochuu and not ctx.facts.has_honors)


def ryuuiisou(ctx: Context) -> int:
    return int(all(ctx.facts.counts[k] == 0 for k in range(34) if k not in GREEN_TILES))


def ryuuiisou_with_hatsu(ctx: Context) -> int:
    return int(ryuuiisou(ctx) and ctx.facts.counts[32] > 0)


def _chuuren_suit(ctx: Context) -> int | None:
    if ctx.hand.melds or len(ctx.facts.number_suits) != 1 or ctx.facts.has_honors:
        return None
    base = next(iter(ctx.facts.number_suits)) * 9
    c = ctx.facts.counts[base : base + 9]
    need = (3, 1, 1, 1, 1, 1, 1, 1, 3)
    if all(c[i] >= need[i] for i in range(9)):
        return base
    return None


def chuuren(ctx: Context) -> int:
    return int(ctx.interp.form == "standard" and _chuuren_suit(ctx) is not None)


def junsei_chuuren(ctx: Context) -> int:
    """Nine-sided chuuren: the 13 tiles before the win were exactly 1112345678999."""
    base = _chuuren_suit(ctx) if ctx.interp.form == "standard" else None
    if base is None:
        return 0
    win = kind(ctx.hand.win_tile)
    return int(ctx.facts.counts[win] in (2, 4))


def kokushi(ctx: Context) -> int:
    return int(ctx.interp.form == "kokushi")


def kokushi_13(ctx: Context) -> int:
    return int(ctx.interp.wait == "kokushi_13")


def sanrenkou(ctx: Context) -> int:
    s = set(ctx.trips)
    return int(any(k < 27 and k % 9 <= 6 and k + 1 in s and k + 2 in s for k in s))


def sanpuukou(ctx: Context) -> int:
    return int(sum(1 for w in WIND_TILES if w in ctx.trips) >= 3)


def isshoku_sanjun(ctx: Context) -> int:
    return int(any(ctx.seqs.count(s) >= 3 for s in set(ctx.seqs)))


def red_five_count(ctx: Context) -> int:
    return sum(ctx.facts.reds)


def _kind_trip(ctx: Context, k: int) -> bool:
    return k in ctx.trips


def groups_of_shape(ctx: Context, *shapes: int) -> list[Group]:
    return [g for g in ctx.interp.groups if g.shape in shapes]


_Y = Yaku
#: The standard Japanese yaku with riichi values (rules README §6); rulesets revalue this table.
STANDARD_YAKU: tuple[Yaku, ...] = (
    _Y("menzen_tsumo", "Fully concealed hand", "門前清自摸和", 1, None, menzen_tsumo),
    _Y("riichi", "Riichi", "立直", 1, None, riichi),
    _Y("double_riichi", "Double riichi", "ダブル立直", 2, None, flag("double_riichi")),
    _Y("ippatsu", "Ippatsu", "一発", 1, None, flag("ippatsu")),
    _Y("pinfu", "Pinfu", "平和", 1, None, pinfu),
    _Y("tanyao", "All simples", "断幺九", 1, 1, tanyao),
    _Y("iipeikou", "Pure double sequence", "一盃口", 1, None, iipeikou),
    _Y("yakuhai_haku", "White dragon", "役牌 白", 1, 1, dragon_trip(31)),
    _Y("yakuhai_hatsu", "Green dragon", "役牌 發", 1, 1, dragon_trip(32)),
    _Y("yakuhai_chun", "Red dragon", "役牌 中", 1, 1, dragon_trip(33)),
    _Y("yakuhai_seat_wind", "Seat wind", "自風牌", 1, 1, seat_wind_trip),
    _Y("yakuhai_round_wind", "Round wind", "場風牌", 1, 1, round_wind_trip),
    _Y("rinshan", "After a kan", "嶺上開花", 1, 1, flag("rinshan")),
    _Y("chankan", "Robbing a kan", "搶槓", 1, 1, flag("chankan")),
    _Y("haitei", "Under the sea", "海底摸月", 1, 1, flag("haitei")),
    _Y("houtei", "Under the river", "河底撈魚", 1, 1, flag("houtei")),
    _Y("sanshoku", "Mixed triple sequence", "三色同順", 2, 1, sanshoku),
    _Y("ittsu", "Pure straight", "一気通貫", 2, 1, ittsu),
    _Y("chanta", "Half outside hand", "混全帯幺九", 2, 1, chanta),
    _Y("chiitoitsu", "Seven pairs", "七対子", 2, None, chiitoitsu),
    _Y("toitoi", "All triplets", "対々和", 2, 2, toitoi),
    _Y("sanankou", "Three concealed triplets", "三暗刻", 2, 2, sanankou),
    _Y("sanshoku_doukou", "Triple triplets", "三色同刻", 2, 2, sanshoku_doukou),
    _Y("sankantsu", "Three kans", "三槓子", 2, 2, sankantsu),
    _Y("shousangen", "Little three dragons", "小三元", 2, 2, shousangen),
    _Y("honroutou", "All terminals and honors", "混老頭", 2, 2, honroutou),
    _Y("ryanpeikou", "Twice pure double sequence", "二盃口", 3, None, ryanpeikou, excludes=("iipeikou",)),
    _Y("junchan", "Fully outside hand", "純全帯幺九", 3, 2, junchan, excludes=("chanta",)),
    _Y("honitsu", "Half flush", "混一色", 3, 2, honitsu),
    _Y("chinitsu", "Full flush", "清一色", 6, 5, chinitsu, excludes=("honitsu",)),
    # yakuman (value = multiples of a yakuman)
    _Y("kokushi", "Thirteen orphans", "国士無双", 1, None, kokushi, unit="yakuman"),
    _Y(
        "kokushi_13",
        "Thirteen orphans, 13-sided wait",
        "国士無双十三面待ち",
        2,
        None,
        kokushi_13,
        unit="yakuman",
        excludes=("kokushi",),
    ),
    _Y("suuankou", "Four concealed triplets", "四暗刻", 1, None, suuankou, unit="yakuman"),
    _Y(
        "suuankou_tanki",
        "Four concealed triplets, single wait",
        "四暗刻単騎",
        2,
        None,
        suuankou_tanki,
        unit="yakuman",
        excludes=("suuankou",),
    ),
    _Y("daisangen", "Big three dragons", "大三元", 1, 1, daisangen, unit="yakuman"),
    _Y("shousuushii", "Little four winds", "小四喜", 1, 1, shousuushii, unit="yakuman"),
    _Y("daisuushii", "Big four winds", "大四喜", 2, 2, daisuushii, unit="yakuman"),
    _Y("tsuuiisou", "All honors", "字一色", 1, 1, tsuuiisou, unit="yakuman"),
    _Y("chinroutou", "All terminals", "清老頭", 1, 1, chinroutou, unit="yakuman"),
    _Y("ryuuiisou", "All green", "緑一色", 1, 1, ryuuiisou, unit="yakuman"),
    _Y("chuuren", "Nine gates", "九蓮宝燈", 1, None, chuuren, unit="yakuman"),
    _Y(
        "junsei_chuuren",
        "Pure nine gates",
        "純正九蓮宝燈",
        2,
        None,
        junsei_chuuren,
        unit="yakuman",
        excludes=("chuuren",),
    ),
    _Y("suukantsu", "Four kans", "四槓子", 1, 1, suukantsu, unit="yakuman"),
    _Y("tenhou", "Blessing of heaven", "天和", 1, None, flag("tenhou"), unit="yakuman"),
    _Y("chiihou", "Blessing of earth", "地和", 1, None, flag("chiihou"), unit="yakuman"),
)
__all__ = ["KAN", "PAIR", "SEQUENCE", "STANDARD_YAKU", "TRIPLET", "Context", "Facts", "Yaku", "evaluate"]
