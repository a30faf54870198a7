"""Yaku and patterns as data: a :class:`Yaku` is a value (id, names, closed/open value, what it
supersedes) plus a checker, a small predicate over a :class:`Context`.

Each ruleset keeps one table (a tuple of Yaku) built from the shared definitions here with its own
values and exclusions (:func:`revalue`), so rulesets share what they share.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cache
from typing import Any, Final, NamedTuple

from paiscan.scoring.decompose import KAN, PAIR, SEQUENCE, TRIPLET, Group, Interpretation
from paiscan.scoring.hand import KNOWN_FLAGS, Hand
from paiscan.scoring.score import YakuHit
from paiscan.scoring.tiles import (
    DRAGONS,
    GREEN_TILES,
    RED_5M,
    WIND_TILES,
    YAOCHUU,
    dora_from_indicator,
    kind,
)

#: Gates: cheap facts of the whole hand, one bit each. A checker marked with :func:`gated` can only
#: count when every bit of its gate is set, so :func:`evaluate` skips it otherwise (a necessary
#: condition, never a sufficient one: the checker still decides).
G_FLAGS: Final = 1 << 0  # some flag is set
G_TSUMO: Final = 1 << 1  # won by tsumo
G_NO_YAOCHUU: Final = 1 << 2  # no terminal or honor anywhere
G_ALL_YAOCHUU: Final = 1 << 3  # only terminals and honors
G_NO_MIDDLE: Final = 1 << 4  # no 4, 5 or 6 of a suit (every set and the pair can hold a yaochuu tile)
G_ONE_SUIT: Final = 1 << 5  # tiles of exactly one number suit
G_NO_NUMBERS: Final = 1 << 6  # honors only
G_THREE_SUITS: Final = 1 << 7  # tiles of all three number suits
G_ITTSU_TILES: Final = 1 << 8  # some suit holds each of 1..9
G_TRIPS3: Final = 1 << 9  # at least three kinds held three or four times
G_TRIPS4: Final = 1 << 10  # at least four kinds held three or four times
G_HONOR_TRIP: Final = 1 << 11  # some honor held three or four times
G_DRAGONS8: Final = 1 << 12  # at least eight dragon tiles
G_WINDS11: Final = 1 << 13  # at least eleven wind tiles
G_ALL_GREEN: Final = 1 << 14  # only green tiles
G_KANS3: Final = 1 << 15  # three kans
G_KANS4: Final = 1 << 16  # four kans
G_ANKOU3: Final = 1 << 17  # room for three concealed triplets or closed kans (triplet kinds less open sets)
G_ANKOU4: Final = 1 << 18  # room for four
G_PAIRS: Final = 1 << 19  # every kind held an even number of times
G_SEAT_TRIP: Final = 1 << 20  # the seat wind held three or four times
G_ROUND_TRIP: Final = 1 << 21  # the round wind held three or four times
#: honor kind 27..33 → its bit: set when the hand holds that honor three or four times
G_TRIP_OF: Final[dict[int, int]] = {k: 1 << (22 + k - 27) for k in range(27, 34)}
#: one bit per flag the contract and the rule specs know: set when the hand has that flag
G_FLAG: Final[dict[str, int]] = {name: 1 << (29 + i) for i, name in enumerate(sorted(KNOWN_FLAGS))}

_MIDDLES: Final = frozenset(k for k in range(27) if k % 9 in (3, 4, 5))
_SUIT_KINDS: Final = tuple(frozenset(range(s * 9, s * 9 + 9)) for s in range(3))
_HONORS: Final = frozenset(range(27, 34))
#: bits of the number suits present (1 m, 2 p, 4 s) → their set
_SUITS_OF_BITS: Final = tuple(frozenset(s for s in (0, 1, 2) if bits >> s & 1) for bits in range(8))
#: tile id (0..36) → kind (0..33); red fives are fives
_KIND_OF: Final[tuple[int, ...]] = tuple(kind(t) for t in range(37))
#: indicator tile id (0..36) → the dora kind it points at (four players)
_DORA_OF: Final[tuple[int, ...]] = tuple(dora_from_indicator(t) for t in range(37))


_GREEN_SET: Final = frozenset(GREEN_TILES)
_YAOCHUU_SET: Final = frozenset(YAOCHUU)


class _SuitSummary(NamedTuple):
    """What the gates need of one suit's counts (4 bits a kind), computed once per suit shape."""

    counts: tuple[int, ...]  # the suit's counts, kind by kind (9, or 7 honors)
    kinds: int  # kinds present
    yaochuu: bool  # some terminal or honor
    only_yaochuu: bool  # every kind present a terminal or honor
    middle: bool  # some 4, 5 or 6
    full: bool  # each of 1..9
    trips: int  # kinds held three or four times
    singles: int  # kinds held once
    threes: int  # kinds held three times
    green: bool  # only green tiles
    bits: int  # the G_* bits of honors held three times (G_TRIP_OF, G_HONOR_TRIP) and G_DRAGONS8 / G_WINDS11


#: per suit: the code of its counts → its summary, made on first use
_SUMMARIES: Final[tuple[dict[int, _SuitSummary], ...]] = ({}, {}, {}, {})
#: tile id (0..36) → (suit, its count's unit in the suit's code: 16 ** (number - 1))
_UNIT: Final[tuple[tuple[int, int], ...]] = tuple((k // 9, 16 ** (k % 9)) for k in (*range(34), 4, 13, 22))


def _summary(s: int, code: int) -> _SuitSummary:
    found = _SUMMARIES[s].get(code)
    if found is not None:
        return found
    n = 7 if s == 3 else 9
    counts = tuple((code >> (4 * i)) & 15 for i in range(n))
    present = [s * 9 + i for i in range(n) if counts[i]]
    bits = 0
    if s == 3:
        for i, c in enumerate(counts):
            if c >= 3:
                bits |= G_TRIP_OF[27 + i] | G_HONOR_TRIP
        if counts[4] + counts[5] + counts[6] >= 8:
            bits |= G_DRAGONS8
        if counts[0] + counts[1] + counts[2] + counts[3] >= 11:
            bits |= G_WINDS11
    found = _SuitSummary(
        counts,
        len(present),
        any(k in _YAOCHUU_SET for k in present),
        all(k in _YAOCHUU_SET for k in present),
        any(k in _MIDDLES for k in present),
        s < 3 and len(present) == 9,
        sum(c == 3 or c == 4 for c in counts),
        counts.count(1),
        counts.count(3),
        all(k in _GREEN_SET for k in present),
        bits,
    )
    if len(_SUMMARIES[s]) < 1 << 16:
        _SUMMARIES[s][code] = found
    return found


class Facts:
    """What is true of the whole hand, whatever its reading (computed once per hand).

    A class with its own ``__init__`` rather than a dataclass: a compiled build (mypyc) makes its
    construction native, where a dataclass's generated ``__init__`` would stay interpreted.
    """

    __slots__ = (
        "all_yaochuu",
        "closed",
        "counts",
        "dealer",
        "flags",
        "gates",
        "has_honors",
        "n_kans",
        "no_yaochuu",
        "number_suits",
        "reds",
        "round_wind",
        "seat_wind",
        "tsumo",
    )

    def __init__(
        self,
        counts: list[int],
        closed: bool,
        tsumo: bool,
        dealer: bool,
        seat_wind: int,
        round_wind: int,
        flags: frozenset[str],
        reds: tuple[int, int, int],
        n_kans: int,
        has_honors: bool,
        number_suits: frozenset[int],
        all_yaochuu: bool,
        no_yaochuu: bool,
        gates: int,
    ) -> None:
        self.counts = counts  # 34 kinds over every tile of the complete hand (kans count 4)
        self.closed = closed
        self.tsumo = tsumo
        self.dealer = dealer
        self.seat_wind = seat_wind  # tile kind 27..30
        self.round_wind = round_wind
        self.flags = flags
        self.reds = reds  # red fives by suit m, p, s in the hand (not indicators)
        self.n_kans = n_kans
        self.has_honors = has_honors
        self.number_suits = number_suits
        self.all_yaochuu = all_yaochuu
        self.no_yaochuu = no_yaochuu
        self.gates = gates  # the G_* bits that hold (see :func:`gated`)

    @classmethod
    def of(cls, hand: Hand) -> Facts:
        codes = [0, 0, 0, 0]
        unit = _UNIT
        tiles = [*hand.concealed, hand.win_tile]
        n_kans = open_trips = 0
        closed = True
        for m in hand.melds:
            tiles += m.tiles
            if m.type == "kan":
                n_kans += 1
            if m.open:
                closed = False
                if m.type != "chi":
                    open_trips += 1
        for t in tiles:
            s, u = unit[t]
            codes[s] += u
        reds = [0, 0, 0]
        if max(tiles) >= RED_5M:
            for t in tiles:
                if t >= RED_5M:
                    reds[t - RED_5M] += 1
        sm = _SUMMARIES
        c0, c1, c2, c3 = codes
        man = sm[0].get(c0) or _summary(0, c0)
        pin = sm[1].get(c1) or _summary(1, c1)
        sou = sm[2].get(c2) or _summary(2, c2)
        hon = sm[3].get(c3) or _summary(3, c3)
        counts = [*man.counts, *pin.counts, *sou.counts, *hon.counts]
        suits = _SUITS_OF_BITS[(c0 != 0) | (c1 != 0) << 1 | (c2 != 0) << 2]
        flags = hand.flags
        # the gates (G_* bits) of the whole hand, suit by suit
        g = hon.bits
        if flags:
            g |= G_FLAGS
            for name in flags:
                g |= G_FLAG.get(name, 0)
        if n_kans >= 3:
            g |= G_KANS3 if n_kans == 3 else G_KANS4
        if hand.tsumo:
            g |= G_TSUMO
        no_yaochuu = not (man.yaochuu or pin.yaochuu or sou.yaochuu or hon.kinds)
        all_yaochuu = man.only_yaochuu and pin.only_yaochuu and sou.only_yaochuu
        if no_yaochuu:
            g |= G_NO_YAOCHUU
        elif all_yaochuu:
            g |= G_ALL_YAOCHUU
        if not (man.middle or pin.middle or sou.middle):
            g |= G_NO_MIDDLE
        n_suits = len(suits)
        if n_suits == 1:
            g |= G_ONE_SUIT
        elif n_suits == 0:
            g |= G_NO_NUMBERS
        elif n_suits == 3:
            g |= G_THREE_SUITS
        if man.full or pin.full or sou.full:
            g |= G_ITTSU_TILES
        trips = man.trips + pin.trips + sou.trips + hon.trips
        if trips >= 3:
            g |= G_TRIPS3
            if trips >= 4:
                g |= G_TRIPS4
            if trips - open_trips >= 3:
                g |= G_ANKOU3
                if trips - open_trips >= 4:
                    g |= G_ANKOU4
        if not (man.singles or pin.singles or sou.singles or hon.singles) and not (
            man.threes or pin.threes or sou.threes or hon.threes
        ):
            g |= G_PAIRS
        seat, rnd = WIND_TILES[hand.seat_wind], WIND_TILES[hand.round_wind]
        if hon.bits & G_HONOR_TRIP:
            if counts[seat] >= 3:
                g |= G_SEAT_TRIP
            if counts[rnd] >= 3:
                g |= G_ROUND_TRIP
        if man.green and pin.green and sou.green and hon.green:
            g |= G_ALL_GREEN
        return cls(
            counts,
            closed,
            hand.tsumo,
            hand.is_dealer,
            seat,
            rnd,
            flags,
            (reds[0], reds[1], reds[2]),
            n_kans,
            hon.kinds > 0,
            suits,
            all_yaochuu and (hon.kinds > 0 or n_suits > 0),
            no_yaochuu,
            g,
        )

    def dora_count(self, indicators: Iterable[int], three_player: bool = False) -> int:
        """How many tiles of the hand are dora for these indicators (each indicator counts)."""
        counts = self.counts
        if three_player:
            return sum(counts[dora_from_indicator(i, True)] for i in indicators)
        dora = _DORA_OF
        n = 0
        for i in indicators:
            n += counts[dora[i]]
        return n


class Context:
    """One interpretation of one hand under one ruleset's options: what checkers look at (a class
    with its own ``__init__``, as :class:`Facts`)."""

    __slots__ = ("concealed_trips", "facts", "hand", "interp", "opts", "pair", "seqs", "trips")

    def __init__(
        self,
        hand: Hand,
        facts: Facts,
        interp: Interpretation,
        opts: Any,
        seqs: list[int],
        trips: list[int],
        pair: int | None,
        concealed_trips: int,
    ) -> None:
        self.hand = hand
        self.facts = facts
        self.interp = interp
        self.opts = opts
        self.seqs = seqs  # start kinds of every sequence (chi included)
        self.trips = trips  # kinds of every triplet and kan
        self.pair = pair
        self.concealed_trips = concealed_trips  # concealed triplets and closed kans (rules README §4.3)

    @classmethod
    def of(cls, hand: Hand, facts: Facts, interp: Interpretation, opts: Any) -> Context:
        seqs: list[int] = []
        trips: list[int] = []
        pair = None
        ankou = 0
        for shape, tile, called, concealed, _ in interp.groups:
            if shape == SEQUENCE:
                seqs.append(tile)
            elif shape == PAIR:
                pair = tile
            else:
                trips.append(tile)
                if concealed and not called:
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


#: checker → its gate (see :func:`gated`): a table beside the checkers, which a compiled build
#: (mypyc) cannot give attributes
_GATES: Final[dict[Checker, int]] = {}


def gated(gate: int) -> Callable[[Checker], Checker]:
    """Mark a checker as one that can only count when the hand has every bit of ``gate`` (G_* bits).

    The gate belongs to the checker, so a ruleset that swaps a yaku's checker (``replace(y,
    check=...)``) drops the gate with it; a checker with no gate always runs.
    """

    def mark(check: Checker) -> Checker:
        _GATES[check] = gate
        return check

    return mark


#: one row of a table's yaku that may count for a hand: (checker, yaku, value per count, hits by count)
_Row = tuple[Checker, Yaku, int, dict[int, YakuHit]]
#: id(table) → (the table, {closed and gate bits: the rows worth checking}); the entry keeps the
#: table alive, so an id is never reused while its entry is here
_ACTIVE: Final[dict[int, tuple[Sequence[Yaku], dict[int, tuple[_Row, ...]]]]] = {}


def _active(table: Sequence[Yaku], closed: bool, gates: int) -> tuple[_Row, ...]:
    """The yaku of ``table`` with a value for a closed/open hand whose checker's gate holds."""
    entry = _ACTIVE.get(id(table))
    if entry is None or entry[0] is not table:
        if len(_ACTIVE) >= 256:  # tables built per call (none today) would otherwise pile up
            _ACTIVE.clear()
        entry = _ACTIVE[id(table)] = (table, {})
    key = gates << 1 | closed
    rows = entry[1].get(key)
    if rows is None:
        if len(entry[1]) >= 1 << 14:  # gate combinations seen: a bounded table
            entry[1].clear()
        picked: list[_Row] = []
        for y in table:
            value = y.closed if closed else y.open
            if value is None or (value == 0 and y.unit != "points"):
                continue
            gate = _GATES.get(y.check, 0)
            if gate & gates == gate:
                picked.append((y.check, y, value, {}))
        rows = entry[1][key] = tuple(picked)
    return rows


def evaluate(table: Sequence[Yaku], ctx: Context) -> list[YakuHit]:
    """The yaku of ``table`` that the interpretation has, after exclusions, in table order.

    Only the yaku whose checker's gate the hand meets are checked (:func:`gated`); a hit of a
    yaku counted ``n`` times is made once and shared (a :class:`YakuHit` is immutable).
    """
    facts = ctx.facts
    found: list[tuple[Yaku, int, int, dict[int, YakuHit]]] = []
    for check, y, value, hits in _active(table, facts.closed, facts.gates):
        n = check(ctx)
        if n:
            found.append((y, n, value, hits))
    if not found:
        return []
    dropped = {x for f in found for x in f[0].excludes} if len(found) > 1 else ()
    out: list[YakuHit] = []
    for y, n, value, hits in found:
        if dropped and y.id in dropped:
            continue
        hit = hits.get(n)
        if hit is None:
            hit = hits[n] = YakuHit(y.id, y.name, y.name_ja, value * n, y.unit, n, y.series)
        out.append(hit)
    return out


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
@cache
def flag(name: str) -> Checker:
    """The checker of flag ``name`` (one per name: rulesets that build their tables per hand share it)."""

    def check(ctx: Context) -> int:
        return int(name in ctx.facts.flags)

    check.__name__ = f"flag_{name}"
    return gated(G_FLAG.get(name, G_FLAGS))(check)


@gated(G_TSUMO)
def menzen_tsumo(ctx: Context) -> int:
    return int(ctx.facts.tsumo and ctx.facts.closed)


@gated(G_FLAG["riichi"])
def riichi(ctx: Context) -> int:
    f = ctx.facts.flags
    return int("riichi" in f and "double_riichi" not in f)


@gated(G_NO_YAOCHUU)
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

    return gated(G_TRIP_OF[tile])(check)


@gated(G_SEAT_TRIP)
def seat_wind_trip(ctx: Context) -> int:
    return int(ctx.facts.seat_wind in ctx.trips)


@gated(G_ROUND_TRIP)
def round_wind_trip(ctx: Context) -> int:
    return int(ctx.facts.round_wind in ctx.trips)


def _identical_sequence_pairs(ctx: Context) -> int:
    if len(set(ctx.seqs)) == len(ctx.seqs):  # no two sequences alike (the common case)
        return 0
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


@gated(G_THREE_SUITS)
def sanshoku(ctx: Context) -> int:
    s = set(ctx.seqs)
    for n in s:
        if n < 9 and n + 9 in s and n + 18 in s:
            return 1
    return 0


@gated(G_ITTSU_TILES)
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


_TERMINALS: Final = frozenset(k for k in YAOCHUU if k < 27)


@gated(G_NO_MIDDLE)
def chanta(ctx: Context) -> int:
    """Every set and the pair hold a yaochuu tile, some honor, and at least one sequence."""
    return int(ctx.standard and bool(ctx.seqs) and ctx.facts.has_honors and _all_groups_have(ctx, YAOCHUU))


@gated(G_NO_MIDDLE)
def junchan(ctx: Context) -> int:
    return int(ctx.standard and bool(ctx.seqs) and not ctx.facts.has_honors and _all_groups_have(ctx, _TERMINALS))


@gated(G_TRIPS4)
def toitoi(ctx: Context) -> int:
    return int(ctx.standard and len(ctx.trips) == 4)


@gated(G_ANKOU3)
def sanankou(ctx: Context) -> int:
    return int(ctx.concealed_trips == 3)


@gated(G_ANKOU4)
def suuankou(ctx: Context) -> int:
    return int(ctx.concealed_trips == 4)


@gated(G_ANKOU4)
def suuankou_tanki(ctx: Context) -> int:
    return int(ctx.concealed_trips == 4 and ctx.interp.wait == "tanki")


@gated(G_KANS3)
def sankantsu(ctx: Context) -> int:
    return int(ctx.facts.n_kans == 3)


@gated(G_KANS4)
def suukantsu(ctx: Context) -> int:
    return int(ctx.facts.n_kans == 4)


@gated(G_TRIPS3 | G_THREE_SUITS)
def sanshoku_doukou(ctx: Context) -> int:
    s = set(ctx.trips)
    for n in s:
        if n < 9 and n + 9 in s and n + 18 in s:
            return 1
    return 0


@gated(G_DRAGONS8)
def shousangen(ctx: Context) -> int:
    return int(sum(1 for d in DRAGONS if d in ctx.trips) == 2 and ctx.pair in DRAGONS)


@gated(G_DRAGONS8)
def daisangen(ctx: Context) -> int:
    return int(all(d in ctx.trips for d in DRAGONS))


@gated(G_WINDS11)
def shousuushii(ctx: Context) -> int:
    return int(sum(1 for w in WIND_TILES if w in ctx.trips) == 3 and ctx.pair in WIND_TILES)


@gated(G_WINDS11)
def daisuushii(ctx: Context) -> int:
    return int(all(w in ctx.trips for w in WIND_TILES))


@gated(G_ALL_YAOCHUU)
def honroutou(ctx: Context) -> int:
    return int(ctx.facts.all_yaochuu and ctx.interp.form != "kokushi" and not ctx.seqs)


@gated(G_PAIRS)
def chiitoitsu(ctx: Context) -> int:
    return int(ctx.interp.form == "chiitoitsu")


@gated(G_ONE_SUIT)
def honitsu(ctx: Context) -> int:
    return int(len(ctx.facts.number_suits) == 1 and ctx.facts.has_honors)


@gated(G_ONE_SUIT)
def chinitsu(ctx: Context) -> int:
    return int(len(ctx.facts.number_suits) == 1 and not ctx.facts.has_honors)


@gated(G_NO_NUMBERS)
def tsuuiisou(ctx: Context) -> int:
    return int(not ctx.facts.number_suits)


@gated(G_ALL_YAOCHUU)
def chinroutou(ctx: Context) -> int:
    return int(ctx.facts.all_yaochuu and not ctx.facts.has_honors)


@gated(G_ALL_GREEN)
def ryuuiisou(ctx: Context) -> int:
    return int(all(ctx.facts.counts[k] == 0 for k in range(34) if k not in GREEN_TILES))


@gated(G_ALL_GREEN)
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


@gated(G_ONE_SUIT)
def chuuren(ctx: Context) -> int:
    return int(ctx.interp.form == "standard" and _chuuren_suit(ctx) is not None)


@gated(G_ONE_SUIT)
def junsei_chuuren(ctx: Context) -> int:
    """Nine-sided chuuren: the 13 tiles before the win were exactly 1112345678999."""
    base = _chuuren_suit(ctx) if ctx.interp.form == "standard" else None
    if base is None:
        return 0
    win = kind(ctx.hand.win_tile)
    return int(ctx.facts.counts[win] in (2, 4))


@gated(G_ALL_YAOCHUU)
def kokushi(ctx: Context) -> int:
    return int(ctx.interp.form == "kokushi")


@gated(G_ALL_YAOCHUU)
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
STANDARD_YAKU: Final[tuple[Yaku, ...]] = (
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
