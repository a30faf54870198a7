"""Tiles and MPSZ notation.

A tile is a small int equal to its class id in the interface contract, so detections, labels and
scoring share one numbering:

* ``0..8`` 1m-9m, ``9..17`` 1p-9p, ``18..26`` 1s-9s, ``27..33`` 1z-7z (E S W N, white green red)
* ``34, 35, 36`` red 5m, 5p, 5s (``0m 0p 0s``); ``37`` a face-down tile (``?``).

A tile's *kind* (``0..33``) forgets redness; scoring works on kinds and counts red fives apart.

>>> parse_tiles("123m406p55z")
[0, 1, 2, 12, 35, 14, 31, 31]
>>> format_tiles(parse_tiles("55z 406p 321m"))
'123m406p55z'
>>> [tile_name(t) for t in parse_tiles("0s7z?")]
['0s', '7z', '?']
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Final

from paiscan.scoring.errors import HandError

N_KINDS: Final = 34
RED_5M, RED_5P, RED_5S = 34, 35, 36
BACK: Final = 37
N_CLASSES: Final = 38

SUITS: Final = "mpsz"
EAST, SOUTH, WEST, NORTH, WHITE, GREEN, RED = 27, 28, 29, 30, 31, 32, 33
WINDS: Final = ("east", "south", "west", "north")
WIND_TILES: Final = (EAST, SOUTH, WEST, NORTH)
DRAGONS: Final = (WHITE, GREEN, RED)

_KIND: Final[tuple[int, ...]] = (*range(N_KINDS), 4, 13, 22, BACK)
_RED_OF_SUIT: Final = {0: RED_5M, 1: RED_5P, 2: RED_5S}


def kind(tile: int) -> int:
    """The kind 0..33 of a tile (a red five is a five).

    >>> kind(RED_5P)
    13
    """
    return _KIND[tile]


def is_red(tile: int) -> bool:
    return RED_5M <= tile <= RED_5S


#: each five's kind → its red five (5m 5p 5s → 0m 0p 0s)
RED_OF_FIVE: Final[dict[int, int]] = {kind(red): red for red in (RED_5M, RED_5P, RED_5S)}


def suit(k: int) -> int:
    """0 manzu, 1 pinzu, 2 souzu, 3 honors (of a kind or tile)."""
    return _KIND[k] // 9 if k < N_CLASSES else 3


def number(k: int) -> int:
    """The face number 1..9 of a number tile kind, 1..7 of an honor."""
    k = _KIND[k]
    return k % 9 + 1 if k < 27 else k - 26


def is_honor(k: int) -> bool:
    return 27 <= k < N_KINDS


def is_terminal(k: int) -> bool:
    return k < 27 and k % 9 in (0, 8)


YAOCHUU: Final[frozenset[int]] = frozenset(k for k in range(N_KINDS) if is_honor(k) or is_terminal(k))
SIMPLES: Final[frozenset[int]] = frozenset(range(N_KINDS)) - YAOCHUU
GREEN_TILES: Final[frozenset[int]] = frozenset({19, 20, 21, 23, 25, GREEN})


def is_yaochuu(k: int) -> bool:
    return k in YAOCHUU


def red_of_suit(s: int) -> int:
    return _RED_OF_SUIT[s]


def tile_name(tile: int) -> str:
    """MPSZ name of one tile: ``'5m'``, ``'0p'`` (red), ``'7z'``, ``'?'``."""
    if tile == BACK:
        return "?"
    if is_red(tile):
        return "0" + SUITS[tile - RED_5M]
    return f"{number(tile)}{SUITS[suit(tile)]}"


#: MPSZ without spaces or face-down tiles: runs of digits, each closed by a suit letter
_PLAIN_MPSZ: Final = re.compile(r"(?:[0-9]+[mpsz])*")
#: one run of digits and its suit letter, as one string ("456m")
_RUN_TEXT: Final = re.compile(r"[0-9]+[mpsz]")
#: a run's text → its tiles: the spellings of one suit's tiles seen (a bounded table, made on first use)
_RUN_TILES: Final[dict[str, tuple[int, ...]]] = {}
#: most entries of :data:`_RUN_TILES` (then it starts again)
_MAX_RUNS: Final = 1 << 14
#: suit letter → {digit: tile id} (honors 1z-7z only; 0 is the red five of a number suit)
_DIGIT_TILE: Final[dict[str, dict[str, int]]] = {
    letter: (
        {str(n): 26 + n for n in range(1, 8)}
        if letter == "z"
        else {str(n): (s * 9 + n - 1 if n else RED_5M + s) for n in range(10)}
    )
    for s, letter in enumerate(SUITS)
}

#: the spelling of one tile ("5m", "0p", "7z") → its id
_ONE_TILE: Final[dict[str, int]] = {d + letter: t for letter, table in _DIGIT_TILE.items() for d, t in table.items()}
#: the same table for readers of lists of single tiles (a tile not in it is read by :func:`parse_tiles`)
TILE_BY_NAME: Final[dict[str, int]] = _ONE_TILE


def parse_tiles(text: object, field: str = "tiles", allow_back: bool = True) -> list[int]:
    """Parse MPSZ notation into tiles, keeping the written order.

    Raises :class:`HandError` (``bad_tile``) naming ``field`` on anything that is not a tile.
    """
    if not isinstance(text, str):
        raise HandError("bad_field", f"{field} must be a string of tiles in MPSZ notation", field)
    one = _ONE_TILE.get(text)
    if one is not None:
        return [one]
    if _PLAIN_MPSZ.fullmatch(text):  # the common spelling, read run by run; anything else char by char
        tiles: list[int] = []
        runs = _RUN_TILES
        for run in _RUN_TEXT.findall(text):
            found = runs.get(run)
            if found is None:
                try:
                    found = tuple(map(_DIGIT_TILE[run[-1]].__getitem__, run[:-1]))
                except KeyError:  # 0z, 8z, 9z: the walk below says which
                    return _parse_tiles_walk(text, field, allow_back)
                if len(runs) >= _MAX_RUNS:
                    runs.clear()
                runs[run] = found
            tiles += found
        return tiles
    return _parse_tiles_walk(text, field, allow_back)


def _parse_tiles_walk(text: str, field: str, allow_back: bool) -> list[int]:
    """:func:`parse_tiles` char by char, naming the first thing that is not a tile."""
    tiles: list[int] = []
    pending: list[str] = []
    for ch in text:
        if ch.isspace():
            continue
        if ch in "0123456789":
            pending.append(ch)
        elif ch == "?":
            if pending:
                raise HandError("bad_tile", f"digits {''.join(pending)!r} before '?' have no suit letter", field)
            if not allow_back:
                raise HandError("face_down_tile", "a face-down tile '?' cannot be scored", field)
            tiles.append(BACK)
        elif ch in SUITS:
            if not pending:
                raise HandError("bad_tile", f"suit letter {ch!r} has no digits before it", field)
            s = SUITS.index(ch)
            for d in pending:
                n = int(d)
                if s == 3:
                    if not 1 <= n <= 7:
                        raise HandError("bad_tile", f"'{d}z' is not a tile (honors are 1z-7z)", field)
                    tiles.append(26 + n)
                elif n == 0:
                    tiles.append(_RED_OF_SUIT[s])
                else:
                    tiles.append(s * 9 + n - 1)
            pending = []
        else:
            raise HandError("bad_tile", f"{ch!r} is not part of MPSZ tile notation", field)
    if pending:
        raise HandError("bad_tile", f"digits {''.join(pending)!r} have no suit letter", field)
    return tiles


def _sort_key(tile: int) -> tuple[int, float]:
    if tile == BACK:
        return (4, 0.0)
    k = kind(tile)
    return (suit(k), number(k) - (0.5 if is_red(tile) else 0.0))


def format_tiles(tiles: Iterable[int], sort: bool = True) -> str:
    """Compact MPSZ for tiles: sorted by suit and number unless ``sort`` is false."""
    seq: Sequence[int] = sorted(tiles, key=_sort_key) if sort else list(tiles)
    out: list[str] = []
    run_suit = ""
    for t in seq:
        name = tile_name(t)
        if name == "?":
            if run_suit:
                out.append(run_suit)
                run_suit = ""
            out.append("?")
            continue
        d, s = name[0], name[1]
        if run_suit and s != run_suit:
            out.append(run_suit)
        out.append(d)
        run_suit = s
    if run_suit:
        out.append(run_suit)
    return "".join(out)


def dora_from_indicator(indicator: int, three_player: bool = False) -> int:
    """The dora kind an indicator points at (the *next* tile of its group).

    >>> tile_name(dora_from_indicator(parse_tiles("9p")[0]))
    '1p'
    >>> tile_name(dora_from_indicator(WEST)), tile_name(dora_from_indicator(RED))
    ('4z', '5z')
    >>> tile_name(dora_from_indicator(parse_tiles("1m")[0], three_player=True))
    '5m'
    """
    k = kind(indicator)
    if k < 27:
        if three_player and k < 9:
            return {0: 4, 4: 8, 8: 0}.get(k, (k + 1) % 9)
        return k - k % 9 + (k % 9 + 1) % 9
    if k <= NORTH:
        return EAST + (k - EAST + 1) % 4
    return WHITE + (k - WHITE + 1) % 3


def wind_index(name: object, field: str) -> int:
    """0..3 for ``east|south|west|north``; a clear error otherwise."""
    if name not in WINDS:
        raise HandError("bad_field", f"{field} must be one of {', '.join(WINDS)}, not {name!r}", field)
    return WINDS.index(name)
