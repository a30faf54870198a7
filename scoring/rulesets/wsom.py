"""World Series of Mahjong (WSOM, 中庸麻雀): additive pattern points with series rules and a cap.

Spec: ``shared/rules/wsom.md``; seed: ``shared/seeds/003_57ed14ba7f60ca44.txt``. Every pattern (役)
of the seed's table is a :class:`~paiscan.scoring.yaku.Yaku` value in :data:`PATTERNS` whose ``series``
is the seed's 系列 number (``"4.2.3"``: category 4, series 4.2). A hand's patterns are priced in
three data-driven passes, each drop recorded with its reason:

1. the seed's "never combines" notes (``Yaku.excludes``: 10.x drop 1.2, 10.1 drops 8.1.3);
2. the series rule: of the patterns of one series only the highest counts — except 3.1 翻牌,
   which counts once per set (異なる分類・系列の役は複合できる / 系列まで同じ役は複合出来ない);
3. the limit: a single pattern worth the cap (320) or more is a limit pattern (役満貫) and the
   highest one alone is the base; otherwise base = min(sum, 320). No pattern at all: 1 point.

Payment: tsumo (or a ron paid as tsumo under same-turn immunity) — each of the three others pays
the base; ron — the same when base <= 25, else each non-discarder pays 25 and the discarder the
rest (base + 2 × (base − 25)). No dora, honba, riichi or dealer premium.

>>> from scoring import score_hand
>>> s = score_hand({"rules": "wsom", "hand": "222s55s88s", "win_tile": "8s", "seat_wind": "south",
...                 "melds": [{"type": "pon", "tiles": "111z"}, {"type": "pon", "tiles": "333z"}]})
>>> [(y.id, y.value) for y in s.yaku], s.extra["base"], [p.amount for p in s.payments], s.total
([('mixed_one_suit', 40), ('all_triplets', 30)], 70, [160, 25, 25], 210)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, ClassVar

from paiscan.scoring import yaku as std
from paiscan.scoring.decompose import SEQUENCE, interpretations
from paiscan.scoring.engine import Ruleset
from paiscan.scoring.errors import HandError
from paiscan.scoring.hand import Hand
from paiscan.scoring.options import opt
from paiscan.scoring.rulesets.riichi import sorted_labels
from paiscan.scoring.score import Payment, Score, Step, YakuHit
from paiscan.scoring.tiles import DRAGONS, WIND_TILES, YAOCHUU
from paiscan.scoring.yaku import Checker, Context, Yaku, evaluate, flag

_TERMINALS = frozenset(k for k in YAOCHUU if k < 27)
_HONOR_NAMES = {
    27: ("東", "east wind"),
    28: ("南", "south wind"),
    29: ("西", "west wind"),
    30: ("北", "north wind"),
    31: ("白", "white dragon"),
    32: ("發", "green dragon"),
    33: ("中", "red dragon"),
}

#: The seed's categories (分類, first digit of 系列).
CATEGORIES: dict[str, str] = {
    "1": "門断平",
    "2": "一色類",
    "3": "字牌類",
    "4": "刻槓類",
    "5": "一色同順類",
    "6": "三色類",
    "7": "連続類",
    "8": "幺九類",
    "9": "偶然類",
    "10": "特殊和了形",
}
#: 3.1 翻牌 counts once per set: the one series whose pattern may repeat (例外として、翻牌は一組ごとに有効).
PER_SET_SERIES = "3.1"


def series_key(number: str) -> str:
    """The series of a pattern number: its first two parts (``"4.2.3"`` → ``"4.2"``)."""
    return ".".join(number.split(".")[:2])


# ---------------------------------------------------------------- checkers the standard table lacks
def all_sequences(ctx: Context) -> int:
    """1.1 平和: four sequences; open allowed, pair and wait do not matter."""
    return int(ctx.standard and len(ctx.seqs) == 4)


def concealed_hand(ctx: Context) -> int:
    """1.2 門前清: no claimed set (a closed kan keeps the hand concealed); ron allowed."""
    return int(ctx.facts.closed)


def value_honor(ctx: Context) -> int:
    """3.1 翻牌: one per triplet/kan of the seat wind or of a dragon (no round wind in WSOM)."""
    return len(_value_honor_sets(ctx))


def _value_honor_sets(ctx: Context) -> list[int]:
    return [k for k in ctx.trips if k in DRAGONS or k == ctx.facts.seat_wind]


def _wind_trips(ctx: Context) -> int:
    return sum(1 for w in WIND_TILES if w in ctx.trips)


def small_three_winds(ctx: Context) -> int:
    """3.3.1 小三風: (at least) two wind triplets and a wind pair."""
    return int(_wind_trips(ctx) >= 2 and ctx.pair in WIND_TILES)


def concealed_triplets(n: int) -> Checker:
    """4.2.x: at least ``n`` concealed triplets (rules README §4.3); the series keeps the highest."""

    def check(ctx: Context) -> int:
        return int(ctx.concealed_trips >= n)

    check.__name__ = f"concealed_triplets_{n}"
    return check


def kongs(n: int) -> Checker:
    """4.3.x: at least ``n`` kans, open or closed (closed only with ``kongs_concealed_only``)."""

    def check(ctx: Context) -> int:
        only_closed = getattr(ctx.opts, "kongs_concealed_only", False)
        count = sum(1 for m in ctx.hand.melds if m.is_kan and not (only_closed and m.open))
        return int(count >= n)

    check.__name__ = f"kongs_{n}"
    return check


def identical_sequences(pairs: int = 0, same: int = 0) -> Checker:
    """5.1.x: at least ``pairs`` pairs of identical sequences, or ``same`` identical sequences."""

    def check(ctx: Context) -> int:
        counts = [ctx.seqs.count(s) for s in set(ctx.seqs)]
        if pairs:
            return int(sum(c // 2 for c in counts) >= pairs)
        return int(max(counts, default=0) >= same)

    check.__name__ = f"identical_sequences_{pairs or same}"
    return check


def small_three_similar_triplets(ctx: Context) -> int:
    """6.2.1 三色小同刻: same-number triplets in two suits, a pair of that number in the third."""
    trips = set(ctx.trips)
    for n in range(9):
        suits = [s for s in range(3) if n + 9 * s in trips]
        if len(suits) == 2 and ctx.pair is not None and ctx.pair == n + 9 * (3 - sum(suits)):
            return 1
    return 0


def four_consecutive_triplets(ctx: Context) -> int:
    """7.2.2 四連刻: four triplets of consecutive numbers in one suit."""
    s = set(ctx.trips)
    return int(any(k < 27 and k % 9 <= 5 and {k + 1, k + 2, k + 3} <= s for k in s))


def _every_group_has(ctx: Context, tiles: frozenset[int]) -> bool:
    for g in ctx.groups:
        inside = (g.tile, g.tile + 2) if g.shape == SEQUENCE else (g.tile,)
        if not any(t in tiles for t in inside):
            return False
    return True


def lesser_terminals(tiles: frozenset[int]) -> Checker:
    """8.1.1 / 8.1.2: every set and the pair of a standard hand hold one of ``tiles``."""

    def check(ctx: Context) -> int:
        return int(ctx.standard and _every_group_has(ctx, tiles))

    return check


def mixed_greater_terminals(ctx: Context) -> int:
    """8.1.3 混幺九: only terminals and honors (a thirteen-orphans hand too: dropped by 10.1's note)."""
    return int(ctx.facts.all_yaochuu)


def any_flag(*names: str) -> Checker:
    def check(ctx: Context) -> int:
        return int(bool(ctx.facts.flags & set(names)))

    return check


# ---------------------------------------------------------------- the pattern table (役表)
def _pattern(
    number: str,
    pid: str,
    name: str,
    name_ja: str,
    points: int,
    check: Checker,
    closed_only: bool = False,
    excludes: tuple[str, ...] = (),
) -> Yaku:
    """A WSOM pattern: points, open value equal to closed unless the pattern must be concealed."""
    return Yaku(
        pid,
        name,
        name_ja,
        points,
        None if closed_only else points,
        check,
        unit="points",
        excludes=excludes,
        series=number,
    )


#: The seed's 役表 in its order (系列, id, names, seed points, checker).
PATTERNS: tuple[Yaku, ...] = (
    _pattern("1.1", "all_sequences", "All sequences", "平和", 5, all_sequences),
    _pattern("1.2", "concealed_hand", "Concealed hand", "門前清", 5, concealed_hand, closed_only=True),
    _pattern("1.3", "no_terminals", "No terminals", "断幺九", 5, std.tanyao),
    _pattern("2.1.1", "mixed_one_suit", "Mixed one-suit", "混一色", 40, std.honitsu),
    _pattern("2.1.2", "pure_one_suit", "Pure one-suit", "清一色", 90, std.chinitsu),
    _pattern("2.2", "nine_gates", "Nine gates", "九蓮宝灯", 480, std.junsei_chuuren, closed_only=True),
    _pattern("3.1", "value_honor", "Value honor", "翻牌", 10, value_honor),
    _pattern("3.2.1", "small_three_dragons", "Small three dragons", "小三元", 40, std.shousangen),
    _pattern("3.2.2", "big_three_dragons", "Big three dragons", "大三元", 130, std.daisangen),
    _pattern("3.3.1", "small_three_winds", "Small three winds", "小三風", 30, small_three_winds),
    _pattern("3.3.2", "big_three_winds", "Big three winds", "大三風", 120, std.sanpuukou),
    _pattern("3.3.3", "small_four_winds", "Small four winds", "小四喜", 320, std.shousuushii),
    _pattern("3.3.4", "big_four_winds", "Big four winds", "大四喜", 400, std.daisuushii),
    _pattern("3.4", "all_honors", "All honors", "字一色", 320, std.tsuuiisou),
    _pattern("4.1", "all_triplets", "All triplets", "対々和", 30, std.toitoi),
    _pattern("4.2.1", "two_concealed_triplets", "Two concealed triplets", "二暗刻", 5, concealed_triplets(2)),
    _pattern("4.2.2", "three_concealed_triplets", "Three concealed triplets", "三暗刻", 30, concealed_triplets(3)),
    _pattern("4.2.3", "four_concealed_triplets", "Four concealed triplets", "四暗刻", 125, concealed_triplets(4)),
    _pattern("4.3.1", "one_kong", "One kong", "一槓子", 5, kongs(1)),
    _pattern("4.3.2", "two_kongs", "Two kongs", "二槓子", 20, kongs(2)),
    _pattern("4.3.3", "three_kongs", "Three kongs", "三槓子", 120, kongs(3)),
    _pattern("4.3.4", "four_kongs", "Four kongs", "四槓子", 480, kongs(4)),
    _pattern("5.1.1", "two_identical_sequences", "Two identical sequences", "一般高", 10, identical_sequences(pairs=1)),
    _pattern(
        "5.1.2",
        "two_identical_sequences_twice",
        "Two identical sequences twice",
        "両般高",
        60,
        identical_sequences(pairs=2),
    ),
    _pattern(
        "5.1.3",
        "three_identical_sequences",
        "Three identical sequences",
        "一色三同順",
        120,
        identical_sequences(same=3),
    ),
    _pattern(
        "5.1.4", "four_identical_sequences", "Four identical sequences", "一色四同順", 480, identical_sequences(same=4)
    ),
    _pattern("6.1", "three_similar_sequences", "Three similar sequences", "三色同順", 35, std.sanshoku),
    _pattern(
        "6.2.1",
        "small_three_similar_triplets",
        "Small three similar triplets",
        "三色小同刻",
        30,
        small_three_similar_triplets,
    ),
    _pattern("6.2.2", "three_similar_triplets", "Three similar triplets", "三色同刻", 120, std.sanshoku_doukou),
    _pattern("7.1", "nine_tile_straight", "Nine-tile straight", "一気通貫", 40, std.ittsu),
    _pattern("7.2.1", "three_consecutive_triplets", "Three consecutive triplets", "三連刻", 100, std.sanrenkou),
    _pattern(
        "7.2.2", "four_consecutive_triplets", "Four consecutive triplets", "四連刻", 200, four_consecutive_triplets
    ),
    _pattern("8.1.1", "mixed_lesser_terminals", "Mixed lesser terminals", "混全帯幺", 40, lesser_terminals(YAOCHUU)),
    _pattern("8.1.2", "pure_lesser_terminals", "Pure lesser terminals", "純全帯幺", 50, lesser_terminals(_TERMINALS)),
    _pattern("8.1.3", "mixed_greater_terminals", "Mixed greater terminals", "混幺九", 100, mixed_greater_terminals),
    _pattern("8.1.4", "pure_greater_terminals", "Pure greater terminals", "清幺九", 400, std.chinroutou),
    _pattern("9.1.1", "final_draw", "Final draw", "海底撈月", 10, flag("haitei")),
    _pattern("9.1.2", "final_discard", "Final discard", "河底撈魚", 10, flag("houtei")),
    _pattern("9.2", "win_on_kong", "Win on kong", "嶺上開花", 10, any_flag("rinshan", "rinshan_after_daiminkan")),
    _pattern("9.3", "robbing_kong", "Robbing a kong", "搶槓", 10, flag("chankan")),
    _pattern("9.4.1", "blessing_of_heaven", "Blessing of heaven", "天和", 155, flag("tenhou")),
    _pattern("9.4.2", "blessing_of_earth", "Blessing of earth", "地和", 155, flag("dealer_first_discard_ron")),
    _pattern(
        "10.1",
        "thirteen_terminals",
        "Thirteen terminals",
        "十三幺九",
        160,
        std.kokushi,
        closed_only=True,
        excludes=("concealed_hand", "mixed_greater_terminals"),
    ),
    _pattern(
        "10.2",
        "seven_pairs",
        "Seven pairs",
        "七対子",
        30,
        std.chiitoitsu,
        closed_only=True,
        excludes=("concealed_hand",),
    ),
)
#: 役なし: a hand with no pattern wins with a base of 1 point (基本点1点).
CHICKEN_HAND = Yaku("chicken_hand", "Chicken hand", "役なし", 1, 1, lambda ctx: 0, unit="points")
SEED_VALUES: dict[str, int] = {y.id: y.closed for y in (*PATTERNS, CHICKEN_HAND)}


@dataclass(frozen=True)
class WsomOptions:
    """WSOM settings (spec §5); defaults are the seed's."""

    pattern_values: Mapping[str, int] = opt(
        SEED_VALUES,
        "points of each pattern by id (spec §7.1: published versions differ, e.g. "
        "pure_one_suit 80 or 100; the seed's values by default)",
    )
    limit: int = opt(
        320,
        "the cap (満貫); a single pattern worth this much or more is a limit pattern "
        "(役満貫) and the highest one alone is the base",
    )
    par: int = opt(25, "ron split threshold: above it each non-discarder pays this much and the discarder the rest")
    seven_pairs_identical_pairs: bool = opt(True, "seven pairs may use four of a kind as two pairs (セット七対子あり)")
    kongs_concealed_only: bool = opt(
        False, "one/two/three/four kongs count only closed kans (手の内 read as 'concealed')"
    )


@dataclass(frozen=True, slots=True)
class Dropped:
    """A pattern the hand has that does not count, and why."""

    hit: YakuHit
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.hit.id,
            "name": self.hit.name,
            "name_ja": self.hit.name_ja,
            "series": self.hit.series,
            "value": self.hit.value,
            "reason": self.reason,
        }


def label(hit: YakuHit) -> str:
    """``"4.2.3 四暗刻 Four concealed triplets 125"`` (series number, Japanese, English, points)."""
    return f"{hit.series or '—'} {hit.name_ja} {hit.name} {hit.value}"


def combine(hits: Sequence[YakuHit], table: Sequence[Yaku]) -> tuple[list[YakuHit], list[Dropped]]:
    """Apply the seed's "never combines" notes, then the series rule, to the patterns found."""
    by_id = {y.id: y for y in table}
    dropped: list[Dropped] = []
    # 1. "never combines" notes of the seed (10.x with 1.2, 10.1 with 8.1.3)
    present = {h.id for h in hits}
    excluded: dict[str, YakuHit] = {}
    for h in hits:
        for other in by_id[h.id].excludes:
            if other in present:
                excluded.setdefault(other, h)
    for h in hits:
        if h.id in excluded:
            by = excluded[h.id]
            dropped.append(
                Dropped(h, f"{by.series} {by.name_ja} never combines with {h.series} {h.name_ja} (seed note)")
            )
    kept = [h for h in hits if h.id not in excluded]
    # 2. series rule: one pattern per series, the highest (3.1 翻牌 counts per set)
    best: dict[str, YakuHit] = {}
    for h in kept:
        key = series_key(h.series or h.id)
        cur = best.get(key)
        if cur is None or (h.id != cur.id and h.value >= cur.value):
            best[key] = h
    survivors: list[YakuHit] = []
    for h in kept:
        key = series_key(h.series or h.id)
        if best[key].id == h.id:
            survivors.append(h)
        else:
            dropped.append(
                Dropped(
                    h,
                    f"same series {key} as {label(best[key])}: only the highest "
                    "of a series counts (系列まで同じ役は複合出来ない)",
                )
            )
    return survivors, dropped


def apply_limit(hits: Sequence[YakuHit], limit: int) -> tuple[list[YakuHit], list[Dropped]]:
    """役満貫: if a single pattern is worth ``limit`` or more, the highest such one alone counts."""
    limits = [h for h in hits if h.value >= limit]
    if not limits:
        return list(hits), []
    top = max(limits, key=lambda h: h.value)
    why = (
        f"{label(top)} is a limit pattern (役満貫, a single pattern worth {limit} or more): "
        "the highest limit pattern alone counts"
    )
    lower = f"a lower limit pattern than {label(top)}: only the highest 役満貫 counts"
    return [top], [Dropped(h, lower if h.value >= limit else why) for h in hits if h is not top]


def per_set(hits: Sequence[YakuHit], ctx: Context) -> list[YakuHit]:
    """Split the per-set 翻牌 hit into one hit per set, naming its tile."""
    out: list[YakuHit] = []
    for h in hits:
        if h.series != PER_SET_SERIES:
            out.append(h)
            continue
        each = h.value // h.count
        for k in _value_honor_sets(ctx):
            ja, en = _HONOR_NAMES[k]
            out.append(replace(h, name=f"{h.name} ({en})", name_ja=f"{h.name_ja} {ja}", value=each, count=1))
    return out


class Wsom(Ruleset):
    """World Series of Mahjong: the additive pattern ruleset."""

    id: ClassVar[str] = "wsom"
    name: ClassVar[str] = "World Series of Mahjong"
    name_ja: ClassVar[str] = "ワールドシリーズオブまーじゃん"
    Options: ClassVar[type] = WsomOptions
    seven_pairs_duplicates: ClassVar[bool] = True
    reds_are_plain: ClassVar[bool] = True
    counts_dora: ClassVar[bool] = False
    used_flags: ClassVar[frozenset[str]] = frozenset(
        {
            "haitei",
            "houtei",
            "rinshan",
            "rinshan_after_daiminkan",
            "chankan",
            "tenhou",
            "renhou",
            "dealer_first_discard_ron",
            "ron_paid_as_tsumo",
        }
    )
    _tables: dict[tuple[tuple[str, int], ...], tuple[Yaku, ...]]
    _unexcluded: dict[int, tuple[Yaku, ...]]

    def __init__(self) -> None:
        self._tables = {}
        self._unexcluded = {}

    # ---------------------------------------------------------------- declarations
    def yaku_table(self, opts: Any) -> tuple[Yaku, ...]:
        """The pattern table with the option's values (cached per value set)."""
        values = opts.pattern_values
        key = tuple(sorted(values.items()))
        table = self._tables.get(key)
        if table is None:
            table = tuple(
                replace(y, closed=values[y.id], open=None if y.open is None else values[y.id]) for y in PATTERNS
            )
            self._tables[key] = table
        return table

    def describe(self) -> dict[str, Any]:
        out = super().describe()
        out["yaku"].append(
            {
                "id": CHICKEN_HAND.id,
                "name": CHICKEN_HAND.name,
                "name_ja": CHICKEN_HAND.name_ja,
                "closed": 1,
                "open": 1,
                "unit": "points",
            }
        )
        return out

    def check_situation(self, hand: Hand, opts: Any) -> None:
        """Option values the price cannot use: a pattern, the cap or par below its range."""
        super().check_situation(hand, opts)
        for pid, value in opts.pattern_values.items():
            if value < 1:
                raise HandError(
                    "bad_option",
                    f"option pattern_values.{pid} must be at least 1, not {value}",
                    f"options.pattern_values.{pid}",
                )
        if opts.limit < 1:
            raise HandError("bad_option", f"option limit must be at least 1, not {opts.limit}", "options.limit")
        if opts.par < 0:
            raise HandError("bad_option", f"option par must be 0 or more, not {opts.par}", "options.par")

    def interpretations(self, hand: Hand, opts: Any) -> list[Any]:
        return interpretations(hand, opts.seven_pairs_identical_pairs)

    def no_interpretation(self, hand: Hand, opts: Any) -> HandError:
        if not opts.seven_pairs_identical_pairs and interpretations(hand, True):
            return HandError(
                "not_a_winning_hand",
                "the tiles form seven pairs only by using four of a "
                "kind as two pairs, which option seven_pairs_identical_pairs=false forbids",
                "hand",
            )
        return super().no_interpretation(hand, opts)

    def warnings(self, hand: Hand, opts: Any) -> list[str]:
        """Inputs WSOM has no use for: said out loud, never silently priced."""
        f = hand.flags
        out = []
        for name in sorted(f - self.used_flags):
            if name == "chiihou":
                out.append(
                    "flag 'chiihou' has no effect under wsom: Japanese 地和 (first-draw tsumo) "
                    "does not exist; WSOM's 地和 is flag dealer_first_discard_ron"
                )
            elif name in ("riichi", "double_riichi", "open_riichi", "ippatsu"):
                out.append(f"flag {name!r} has no effect under wsom: WSOM has no riichi")
            else:
                out.append(f"flag {name!r} has no effect under wsom")
        if "renhou" in f and "dealer_first_discard_ron" not in f:
            out.append(
                "flag 'renhou' has no effect under wsom: only a ron on the dealer's first "
                "discard is 地和 (flag dealer_first_discard_ron)"
            )
        if "ron_paid_as_tsumo" in f and hand.tsumo:
            out.append("flag 'ron_paid_as_tsumo' has no effect on a tsumo win")
        for field_name, present in (
            ("dora_indicators", hand.dora_indicators),
            ("ura_indicators", hand.ura_indicators),
            ("nuki", hand.nuki),
        ):
            if present:
                out.append(f"{field_name} ignored: WSOM has no dora and no bonus tiles")
        if hand.honba:
            out.append("honba ignored: WSOM has no dealer repeats and no honba")
        if hand.riichi_sticks:
            out.append("riichi_sticks ignored: WSOM has no riichi")
        return out

    # ---------------------------------------------------------------- pricing
    def payments(self, base: int, hand: Hand, opts: Any) -> tuple[list[Payment], list[Step]]:
        """Who pays what for a base (spec §4)."""
        par = opts.par
        if hand.tsumo:
            if hand.is_dealer:
                pays = [Payment("non_dealer", base)] * 3
            else:
                pays = [Payment("dealer", base), *[Payment("non_dealer", base)] * 2]
            return pays, [Step("payment", f"self-draw: each of the three others pays {base}")]
        if "ron_paid_as_tsumo" in hand.flags:
            pays = [Payment("discarder", base), *[Payment("other", base)] * 2]
            why = (
                f"same-turn immunity (the winner's last discard was the winning tile's kind): "
                f"paid as a self-draw, each of the three others pays {base}"
            )
            return pays, [Step("payment", why)]
        if base <= par:
            pays = [Payment("discarder", base), *[Payment("other", base)] * 2]
            return pays, [Step("payment", f"ron, base {base} <= {par}: each of the three others pays {base}")]
        rest = base + 2 * (base - par)
        pays = [Payment("discarder", rest), *[Payment("other", par)] * 2]
        why = (
            f"ron, base {base} > {par}: the two other players pay {par} each; the discarder pays "
            f"{base} + 2 × ({base} − {par}) = {rest}"
        )
        return pays, [Step("payment", why)]

    def score_interpretation(self, ctx: Context) -> Score | HandError:
        opts = ctx.opts
        table = self.yaku_table(opts)
        found = per_set(evaluate(self._without_excludes(table), ctx), ctx)
        kept, dropped = combine(found, table)
        hits, over = apply_limit(kept, opts.limit)
        dropped += over
        steps = [Step("arrangement", f"{ctx.interp.form}: {' '.join(sorted_labels(ctx))} (wait {ctx.interp.wait})")]
        if not kept:
            value = opts.pattern_values[CHICKEN_HAND.id]
            hits = kept = [YakuHit(CHICKEN_HAND.id, CHICKEN_HAND.name, CHICKEN_HAND.name_ja, value, "points")]
        for h in hits:
            cat = (h.series or "").split(".")[0]
            where = f" [category {cat} {CATEGORIES[cat]}]" if cat in CATEGORIES else ""
            steps.append(Step("pattern", label(h) + where))
        steps.extend(Step("dropped", f"{label(d.hit)}: {d.reason}") for d in dropped)
        points = sum(h.value for h in kept)
        if any(h.value >= opts.limit for h in kept):
            base, limit_name = hits[0].value, "limit_pattern"
            steps.append(
                Step(
                    "base",
                    f"limit pattern (役満貫) {hits[0].name_ja} {hits[0].name} alone: "
                    f"base {base} (the patterns would sum to {points})",
                )
            )
        elif points >= opts.limit:
            base, limit_name = opts.limit, "mangan"
            steps.append(
                Step("base", f"{self._sum(hits)} = {points} >= {opts.limit}: capped at {opts.limit} (満貫打ち止め)")
            )
        else:
            base, limit_name = points, None
            sentence = "no pattern: 基本点1点" if hits[0].id == CHICKEN_HAND.id else self._sum(hits)
            steps.append(Step("base", f"{sentence} = {points}"))
        pays, pay_steps = self.payments(base, ctx.hand, opts)
        steps.extend(pay_steps)
        total = sum(p.amount for p in pays)
        steps.append(Step("total", " + ".join(str(p.amount) for p in pays) + f" = {total}"))
        return Score(
            rules=self.id,
            total=total,
            payments=tuple(pays),
            limit=limit_name,
            yaku=tuple(hits),
            decomposition=tuple(sorted_labels(ctx)),
            wait=ctx.interp.wait,
            form=ctx.interp.form,
            steps=tuple(steps),
            extra={"points": points, "base": base, "dropped": [d.to_dict() for d in dropped]},
        )

    def _without_excludes(self, table: tuple[Yaku, ...]) -> tuple[Yaku, ...]:
        """The table for finding every pattern present; :func:`combine` applies the exclusions
        itself so that it can report them."""
        plain = self._unexcluded.get(id(table))
        if plain is None:
            plain = self._unexcluded[id(table)] = tuple(replace(y, excludes=()) for y in table)
        return plain

    @staticmethod
    def _sum(hits: Sequence[YakuHit]) -> str:
        return " + ".join(str(h.value) for h in hits)


__all__ = ["CATEGORIES", "PATTERNS", "SEED_VALUES", "Wsom", "WsomOptions", "apply_limit", "combine", "series_key"]
