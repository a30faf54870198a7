"""Every way to read a complete hand: standard splits, seven pairs, thirteen orphans, and every
placement of the winning tile with its wait.

Standard splits are found suit by suit; each suit's 9 counts are split once and cached, so a hand
costs a few dictionary look-ups (the per-suit cache is the precomputed table of the issue).

>>> from paiscan.scoring.hand import parse_hand
>>> h = parse_hand({"hand": "11122233m789p55s", "win_tile": "3m"})
>>> for i in interpretations(h):
...     print(describe(i))
standard 123m 123m 123m 789p 55s wait=penchan
standard 111m 222m 333m 789p 55s wait=shanpon
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from functools import lru_cache
from typing import Final, NamedTuple

from paiscan.scoring.hand import Hand, Meld
from paiscan.scoring.tiles import YAOCHUU, format_tiles, kind

SEQUENCE, TRIPLET, KAN, PAIR = 0, 1, 2, 3
SHAPE_NAMES: Final = ("sequence", "triplet", "kan", "pair")

# Waits
RYANMEN, KANCHAN, PENCHAN, TANKI, SHANPON = "ryanmen", "kanchan", "penchan", "tanki", "shanpon"
KOKUSHI_SINGLE, KOKUSHI_13 = "kokushi_single", "kokushi_13"


class Group(NamedTuple):
    """One set or pair of an interpretation.

    ``tile`` is the kind of its lowest tile. ``called`` is true for a chi, pon, open or added kan
    (an exposed meld); ``concealed`` is true when the set counts as concealed for fu and
    "concealed triplet" yaku (rules README §4.3: a triplet completed on ron is not concealed, a
    closed kan is). ``meld`` marks every declared meld, closed kans included.
    """

    shape: int
    tile: int
    called: bool = False
    concealed: bool = True
    meld: bool = False

    def tiles(self) -> list[int]:
        if self.shape == SEQUENCE:
            return [self.tile, self.tile + 1, self.tile + 2]
        return [self.tile] * (2 if self.shape == PAIR else 3 if self.shape == TRIPLET else 4)

    def label(self) -> str:
        return group_label(self.shape, self.tile)


def group_label(shape: int, tile: int) -> str:
    """MPSZ of a set or pair: ``group_label(SEQUENCE, 0) == '123m'``."""
    try:
        return _LABELS[(shape, tile)]
    except KeyError:  # not a set a hand can hold (a sequence past 7)
        return format_tiles(Group(shape, tile).tiles())


class Interpretation:
    """One reading of the hand: its groups, which group the winning tile completed, and the wait.

    Immutable (``Final``), compared by value. A class with its own ``__init__`` rather than a
    frozen dataclass: a compiled build (mypyc) makes its construction native, where a dataclass's
    generated ``__init__`` would stay interpreted.
    """

    __slots__ = ("form", "groups", "wait", "win_index")

    def __init__(self, form: str, groups: tuple[Group, ...], win_index: int, wait: str) -> None:
        self.form: Final = form  # "standard", "chiitoitsu", "kokushi"
        self.groups: Final = groups
        self.win_index: Final = win_index
        self.wait: Final = wait

    def _key(self) -> tuple[str, tuple[Group, ...], int, str]:
        return (self.form, self.groups, self.win_index, self.wait)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Interpretation) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return f"Interpretation({self.form!r}, {self.groups!r}, {self.win_index!r}, {self.wait!r})"

    @property
    def pair(self) -> int | None:
        """The kind of the pair of a standard hand."""
        for g in self.groups:
            if g.shape == PAIR:
                return g.tile
        return None

    def labels(self) -> list[str]:
        return [g.label() for g in self.groups]


def describe(interp: Interpretation) -> str:
    return f"{interp.form} {' '.join(interp.labels())} wait={interp.wait}"


# ---------------------------------------------------------------- per-suit splitting (cached)
_Split = tuple[tuple[int, int], ...]  # ((shape, offset), ...)
_Groups = tuple["Group", ...]


def _split_suit(
    counts: list[int], allow_seq: bool, pair_used: bool, acc: list[tuple[int, int]], out: set[tuple[_Split, bool]]
) -> None:
    i = next((j for j, c in enumerate(counts) if c), -1)
    if i < 0:
        out.add((tuple(sorted(acc)), pair_used))
        return
    if counts[i] >= 3:
        counts[i] -= 3
        acc.append((TRIPLET, i))
        _split_suit(counts, allow_seq, pair_used, acc, out)
        acc.pop()
        counts[i] += 3
    if allow_seq and i <= 6 and counts[i + 1] and counts[i + 2]:
        counts[i] -= 1
        counts[i + 1] -= 1
        counts[i + 2] -= 1
        acc.append((SEQUENCE, i))
        _split_suit(counts, allow_seq, pair_used, acc, out)
        acc.pop()
        counts[i] += 1
        counts[i + 1] += 1
        counts[i + 2] += 1
    if not pair_used and counts[i] >= 2:
        counts[i] -= 2
        acc.append((PAIR, i))
        _split_suit(counts, allow_seq, True, acc, out)
        acc.pop()
        counts[i] += 2


@lru_cache(maxsize=1 << 16)
def suit_splits(counts: tuple[int, ...], honors: bool = False) -> tuple[tuple[_Split, ...], tuple[_Split, ...]]:
    """All splits of one suit's counts into sets (and at most one pair): (without pair, with pair).

    >>> suit_splits((1, 1, 1, 0, 0, 0, 0, 0, 2))
    ((), (((0, 0), (3, 8)),))
    """
    out: set[tuple[_Split, bool]] = set()
    _split_suit(list(counts), not honors, False, [], out)
    no_pair = tuple(sorted(s for s, p in out if not p))
    with_pair = tuple(sorted(s for s, p in out if p))
    return no_pair, with_pair


#: tile id (0..36) → (suit, its count's unit in the suit's code: 16 ** (number - 1))
_CODE_UNIT: Final[tuple[tuple[int, int], ...]] = tuple((k // 9, 16 ** (k % 9)) for k in (*range(34), 4, 13, 22))
#: per suit: the code of its counts (4 bits a kind) → its splits, as concealed Groups (whose
#: first two fields are shape and kind)
_SUIT_SETS: Final[tuple[dict[int, tuple[tuple[_Groups, ...], tuple[_Groups, ...]]], ...]] = ({}, {}, {}, {})


def _suit_sets(s: int, code: int) -> tuple[tuple[_Groups, ...], tuple[_Groups, ...]]:
    """:func:`suit_splits` of suit ``s`` whose counts are ``code`` (4 bits a kind), as concealed
    Groups; computed once per suit shape."""
    found = _SUIT_SETS[s].get(code)
    if found is None:
        counts = tuple((code >> (4 * i)) & 15 for i in range(7 if s == 3 else 9))
        no_pair, with_pair = suit_splits(counts, s == 3)
        base = s * 9
        found = (
            tuple(tuple(_CONCEALED_GROUP[(shape, base + off)] for shape, off in split) for split in no_pair),
            tuple(tuple(_CONCEALED_GROUP[(shape, base + off)] for shape, off in split) for split in with_pair),
        )
        if len(_SUIT_SETS[s]) < 1 << 16:
            _SUIT_SETS[s][code] = found
    return found


def _suit_codes(tiles: Sequence[int]) -> list[int]:
    codes = [0, 0, 0, 0]
    unit = _CODE_UNIT
    for t in tiles:
        s, u = unit[t]
        codes[s] += u
    return codes


def _splits_of_codes(codes: Sequence[int]) -> list[_Groups]:
    """Every standard split (sets plus exactly one pair) of the suits' codes, as concealed Groups.

    Suit by suit, the splits so far without the pair and with it grow by the suit's own (in the
    order of ``itertools.product`` over the suits, the pair's suit first)."""
    unpaired: Sequence[_Groups] | None = None  # the suits so far as sets only
    paired: Sequence[_Groups] = ()  # the suits so far as sets and the pair
    tables = _SUIT_SETS
    for s in (0, 1, 2, 3):
        code = codes[s]
        if not code:
            continue
        found = tables[s].get(code)
        no_pair, with_pair = _suit_sets(s, code) if found is None else found
        if unpaired is None:
            unpaired, paired = no_pair, with_pair
            continue
        grown: list[_Groups] = []
        if paired and no_pair:
            grown.extend([a + b for a in paired for b in no_pair])
        if unpaired and with_pair:
            grown.extend([a + b for a in unpaired for b in with_pair])
        paired = grown
        unpaired = [a + b for a in unpaired for b in no_pair] if unpaired and no_pair else ()
        if not paired and not unpaired:
            return []
    return list(paired)


def _standard_splits(counts34: Sequence[int]) -> list[_Split]:
    """Every standard split (sets plus exactly one pair), as tuples of (shape, kind)."""
    codes = [0, 0, 0, 0]
    for k, c in enumerate(counts34):
        if c:
            codes[k // 9] += c * 16 ** (k % 9)
    return [tuple((g.shape, g.tile) for g in split) for split in _splits_of_codes(codes)]


def standard_splits(counts34: Sequence[int]) -> list[list[tuple[int, int]]]:
    """Every standard split (sets plus exactly one pair) of concealed counts over 34 kinds."""
    return [list(split) for split in _standard_splits(counts34)]


def counts_of(tiles: Sequence[int]) -> list[int]:
    c = [0] * 34
    for t in tiles:
        c[kind(t)] += 1
    return c


def _sequence_wait(start: int, win: int) -> str:
    off = win - start
    if off == 1:
        return KANCHAN
    if off == 0:
        return PENCHAN if start % 9 == 6 else RYANMEN
    return PENCHAN if start % 9 == 0 else RYANMEN


#: tile id (0..36) → kind (0..33)
_KIND_OF: Final[tuple[int, ...]] = tuple(kind(t) for t in range(37))
#: (shape, kind) → the concealed Group (one shared value per set; a Group is an immutable tuple)
_CONCEALED_GROUP: Final[dict[tuple[int, int], Group]] = {
    (shape, k): Group(shape, k, False, True, False) for shape in (SEQUENCE, TRIPLET, KAN, PAIR) for k in range(34)
}
_YAOCHUU_SET: Final = frozenset(YAOCHUU)
#: (shape, kind) → the MPSZ of that set or pair (sequences start at 1..7 of a suit)
_LABELS: Final[dict[tuple[int, int], str]] = {
    (shape, k): format_tiles(Group(shape, k).tiles())
    for shape in (SEQUENCE, TRIPLET, KAN, PAIR)
    for k in range(34)
    if shape != SEQUENCE or (k < 27 and k % 9 <= 6)
}


#: the low bit of each count in a suit's code (4 bits a kind): set where a kind is held an odd number of times
_ODD_NIBBLES: Final = 0x111111111
#: the counts of the numbers 2..8 in a suit's code
_MIDDLE_NIBBLES: Final = 0x0FFFFFFF0


#: (meld type, tiles, open) → its Group, made on first use (a table of the melds seen)
_MELD_GROUPS: Final[dict[tuple[str, tuple[int, ...], bool], Group]] = {}


def _meld_group(m: Meld) -> Group:
    key = (m.type, m.tiles, m.open)
    group = _MELD_GROUPS.get(key)
    if group is None:
        if m.type == "chi":
            group = Group(SEQUENCE, m.kind, True, False, True)
        elif m.type == "pon":
            group = Group(TRIPLET, m.kind, True, False, True)
        else:
            group = Group(KAN, m.kind, m.open, not m.open, True)
        if len(_MELD_GROUPS) < 1 << 14:
            _MELD_GROUPS[key] = group
    return group


def interpretations(hand: Hand, seven_pairs_duplicates: bool = False) -> list[Interpretation]:
    """Every reading of the complete hand with every placement of the winning tile.

    ``seven_pairs_duplicates`` lets seven pairs use four of a kind as two pairs (Totenko, WSOM).
    """
    win = _KIND_OF[hand.win_tile]
    tiles = [*hand.concealed, hand.win_tile]
    meld_groups = [_meld_group(m) for m in hand.melds] if hand.melds else []
    out: list[Interpretation] = []
    n_melds = len(meld_groups)
    n_groups = 5 - n_melds
    ron = not hand.tsumo
    closed_group = _CONCEALED_GROUP
    codes = _suit_codes(tiles)
    for split in _splits_of_codes(codes):
        if len(split) != n_groups:
            continue
        for idx, group in enumerate(split):
            shape, tile = group[0], group[1]
            if not (tile == win or (shape == SEQUENCE and tile <= win <= tile + 2)):
                continue
            if idx and group in split[:idx]:  # the same set twice: one placement
                continue
            groups = (*meld_groups, *split) if n_melds else split
            win_index = n_melds + idx
            if shape == PAIR:
                wait = TANKI
            elif shape == TRIPLET:
                wait = SHANPON
                if ron:  # a triplet completed on ron is not concealed
                    as_ron = list(groups)
                    as_ron[win_index] = Group(TRIPLET, tile, False, False, False)
                    groups = tuple(as_ron)
            else:
                wait = _sequence_wait(tile, win)
            out.append(Interpretation("standard", groups, win_index, wait))
    c0, c1, c2, c3 = codes
    if (
        not meld_groups
        and len(tiles) == 14
        and (
            not ((c0 | c1 | c2 | c3) & _ODD_NIBBLES)  # every kind even: seven pairs, maybe
            or not ((c0 | c1 | c2) & _MIDDLE_NIBBLES)  # no 2..8: the thirteen orphans, maybe
        )
    ):
        counts = [0] * 34
        for t in tiles:
            counts[_KIND_OF[t]] += 1
        if (
            not counts.count(1)
            and not counts.count(3)
            and max(counts) <= 4
            and (seven_pairs_duplicates or not counts.count(4))
        ):
            pairs: list[Group] = []
            for k, c in enumerate(counts):
                if c:
                    pairs.extend([closed_group[(PAIR, k)]] * (c // 2))
            out.append(Interpretation("chiitoitsu", tuple(pairs), pairs.index(Group(PAIR, win)), TANKI))
        if (
            counts.count(0) == 21  # thirteen kinds: the thirteen orphans, if any
            and all(counts[k] for k in YAOCHUU)
            and not any(counts[k] for k in range(34) if k not in _YAOCHUU_SET)
        ):
            wait = KOKUSHI_13 if counts[win] == 2 else KOKUSHI_SINGLE
            out.append(Interpretation("kokushi", (), -1, wait))
    return out


def iter_group_tiles(groups: Sequence[Group]) -> Iterator[int]:
    for g in groups:
        yield from g.tiles()
