"""The Hand: what a player shows when winning, as the contract's JSON describes it.

:func:`parse_hand` turns the contract's JSON object into a frozen :class:`Hand`, checking every
field's type and shape (one :class:`~paiscan.scoring.errors.HandError` naming the field otherwise).
Checks that depend on the ruleset (tile set, red fives, options) are done by
:func:`paiscan.scoring.engine.validate`, which every ruleset runs before scoring.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import FrozenInstanceError, dataclass
from typing import Any, Final, Literal

from paiscan.scoring.errors import HandError
from paiscan.scoring.tiles import (
    BACK,
    TILE_BY_NAME,
    WINDS,
    format_tiles,
    is_honor,
    kind,
    parse_tiles,
    suit,
    wind_index,
)

MeldType = Literal["chi", "pon", "kan"]
CONTRACT_FLAGS: Final = frozenset(
    {
        "riichi",
        "double_riichi",
        "open_riichi",
        "ippatsu",
        "haitei",
        "houtei",
        "rinshan",
        "chankan",
        "tenhou",
        "chiihou",
        "renhou",
        "nagashi_mangan",
    }
)
#: Flags the rule specs add to the contract's list (../shared/rules/README.md §3).
EXTENSION_FLAGS: Final = frozenset(
    {
        "dealer_first_discard_ron",
        "rinshan_after_daiminkan",
        "open_riichi_forced_deal_in",
        "discarded_five",
        "ron_paid_as_tsumo",
    }
)
KNOWN_FLAGS: Final = CONTRACT_FLAGS | EXTENSION_FLAGS
HAND_FIELDS: Final = frozenset(
    {
        "rules",
        "options",
        "hand",
        "melds",
        "win_tile",
        "win",
        "seat_wind",
        "round_wind",
        "dealer",
        "honba",
        "dora_indicators",
        "ura_indicators",
        "nuki",
        "flags",
        "riichi_sticks",
    }
)
#: a wind's name → its index 0..3
_WIND_OF: Final[dict[str, int]] = {name: i for i, name in enumerate(WINDS)}
MELD_FIELDS: Final = frozenset({"type", "tiles", "open", "added", "from"})
FROM_VALUES: Final = ("left", "across", "right")


@dataclass(frozen=True, slots=True)
class Meld:
    """A called or declared set shown face up (a closed kan is shown too, but keeps the hand closed)."""

    type: MeldType
    tiles: tuple[int, ...]
    open: bool = True
    added: bool = False
    from_: str | None = None

    @property
    def kind(self) -> int:
        """The kind of the lowest tile (the set's identity)."""
        return min(map(kind, self.tiles))

    @property
    def is_kan(self) -> bool:
        return self.type == "kan"

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.type, "tiles": format_tiles(self.tiles)}
        if self.type == "kan":
            out["open"] = self.open
            if self.added:
                out["added"] = True
        if self.from_ is not None:
            out["from"] = self.from_
        return out


#: the fields of a Hand in the order of its ``__init__``
HAND_ATTRS: Final = (
    "rules",
    "concealed",
    "win_tile",
    "melds",
    "options",
    "tsumo",
    "seat_wind",
    "round_wind",
    "is_dealer",
    "honba",
    "dora_indicators",
    "ura_indicators",
    "nuki",
    "flags",
    "riichi_sticks",
    "honba_given",
)


class Hand:
    """A winning hand with its situation. Tiles are contract class ids (see :mod:`paiscan.scoring.tiles`).

    Immutable (a field is set once, by ``__init__``), compared by value; :meth:`replace` gives a
    changed copy. A class with its own ``__init__`` rather than a frozen dataclass: a compiled build
    (mypyc) makes its construction native, where a dataclass's generated ``__init__`` stays
    interpreted (a hand is built for every line the JSON path reads).
    """

    __slots__ = (
        "concealed",
        "dora_indicators",
        "flags",
        "honba",
        "honba_given",
        "is_dealer",
        "melds",
        "nuki",
        "options",
        "riichi_sticks",
        "round_wind",
        "rules",
        "seat_wind",
        "tsumo",
        "ura_indicators",
        "win_tile",
    )

    def __init__(
        self,
        rules: str,
        concealed: tuple[int, ...],
        win_tile: int,
        melds: tuple[Meld, ...] = (),
        options: Mapping[str, Any] | None = None,
        tsumo: bool = False,
        seat_wind: int = 0,
        round_wind: int = 0,
        is_dealer: bool = True,
        honba: int = 0,
        dora_indicators: tuple[int, ...] = (),
        ura_indicators: tuple[int, ...] = (),
        nuki: tuple[int, ...] = (),
        flags: frozenset[str] = frozenset(),
        riichi_sticks: int = 0,
        honba_given: bool = False,
    ) -> None:
        self.rules = rules
        self.concealed = concealed
        self.win_tile = win_tile
        self.melds = melds
        self.options: Mapping[str, Any] = {} if options is None else options
        self.tsumo = tsumo
        self.seat_wind = seat_wind
        self.round_wind = round_wind
        self.is_dealer = is_dealer
        self.honba = honba
        self.dora_indicators = dora_indicators
        self.ura_indicators = ura_indicators
        self.nuki = nuki
        self.flags = flags
        self.riichi_sticks = riichi_sticks
        self.honba_given = honba_given

    def _fields(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in HAND_ATTRS)

    def __setattr__(self, name: str, value: Any) -> None:
        if hasattr(self, name):  # (__init__ sets each field once)
            raise FrozenInstanceError(f"cannot assign to field {name!r}")
        object.__setattr__(self, name, value)

    def __delattr__(self, name: str) -> None:
        raise FrozenInstanceError(f"cannot delete field {name!r}")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Hand) and self._fields() == other._fields()

    def __hash__(self) -> int:
        return hash(self._fields())

    def __repr__(self) -> str:
        return "Hand(" + ", ".join(f"{name}={getattr(self, name)!r}" for name in HAND_ATTRS) + ")"

    def replace(self, **changes: Any) -> Hand:
        """A copy with ``changes`` (field name: value), as :func:`dataclasses.replace` gives."""
        values = {name: getattr(self, name) for name in HAND_ATTRS}
        unknown = set(changes) - set(values)
        if unknown:
            raise TypeError(f"Hand has no field {sorted(unknown)[0]!r}")
        values.update(changes)
        return Hand(**values)

    @property
    def is_closed(self) -> bool:
        """Menzen: no chi, pon, open or added kan (a closed kan keeps the hand closed)."""
        return not any(m.open for m in self.melds)

    @property
    def all_tiles(self) -> tuple[int, ...]:
        """Every tile of the complete hand: concealed, winning tile and meld tiles."""
        out = [*self.concealed, self.win_tile]
        for m in self.melds:
            out.extend(m.tiles)
        return tuple(out)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "rules": self.rules,
            "options": dict(self.options),
            "hand": format_tiles(self.concealed),
            "melds": [m.to_dict() for m in self.melds],
            "win_tile": format_tiles([self.win_tile]),
            "win": "tsumo" if self.tsumo else "ron",
            "seat_wind": WINDS[self.seat_wind],
            "round_wind": WINDS[self.round_wind],
            "honba": self.honba,
            "dora_indicators": [format_tiles([t]) for t in self.dora_indicators],
            "ura_indicators": [format_tiles([t]) for t in self.ura_indicators],
            "nuki": format_tiles(self.nuki),
            "flags": sorted(self.flags),
        }
        if self.is_dealer != (self.seat_wind == 0):
            out["dealer"] = self.is_dealer
        if self.riichi_sticks:
            out["riichi_sticks"] = self.riichi_sticks
        return out


#: the most honba or riichi sticks a hand may carry (a count)
MAX_COUNT: Final = 999


def _int_field(data: Mapping[str, Any], name: str, default: int) -> int:
    value = data.get(name, default)
    if isinstance(value, bool) or not isinstance(value, int):
        raise HandError("bad_field", f"{name} must be a whole number, not {value!r}", name)
    if value < 0 or value > MAX_COUNT:
        raise HandError("bad_field", f"{name} must be between 0 and {MAX_COUNT}, not {value}", name)
    return value


def _tile_list(value: Any, name: str) -> tuple[int, ...]:
    """Indicators may be a list of tile strings or one MPSZ string."""
    if type(value) is list:  # most often one tile a string: read by the table, else item by item
        try:
            return tuple(map(TILE_BY_NAME.__getitem__, value))
        except (KeyError, TypeError):
            pass
    if isinstance(value, str):
        return tuple(parse_tiles(value, name, allow_back=False))
    if not isinstance(value, list):
        raise HandError("bad_field", f'{name} must be a list of tiles like ["1p"]', name)
    out: list[int] = []
    for i, item in enumerate(value):
        out.extend(parse_tiles(item, f"{name}[{i}]", allow_back=False))
    return tuple(out)


#: no value of a meld field (a key of :data:`_MELDS` for a field left out)
_ABSENT: Final = object()
#: (type, tiles, open, added, from, number of fields) of a meld object → its Meld: the melds seen
#: (checked once; a Meld is immutable, so shared)
_MELDS: Final[dict[tuple[Any, ...], Meld]] = {}
#: most entries of :data:`_MELDS` (then it starts again)
_MAX_MELDS: Final = 1 << 14


def parse_meld(data: Any, where: str) -> Meld:
    """Parse and check one meld object; ``where`` is its field path for errors."""
    if type(data) is dict:
        get = data.get
        mtype, tiles_raw, is_open, added, src = (
            get("type"),
            get("tiles", _ABSENT),
            get("open", _ABSENT),
            get("added", _ABSENT),
            get("from", _ABSENT),
        )
        if (
            type(mtype) is str
            and type(tiles_raw) is str
            and (is_open is _ABSENT or type(is_open) is bool)
            and (added is _ABSENT or type(added) is bool)
            and (src is _ABSENT or type(src) is str)
        ):
            key = (mtype, tiles_raw, is_open, added, src, len(data))
            meld = _MELDS.get(key)
            if meld is None:
                meld = _parse_meld(data, where)
                if len(_MELDS) >= _MAX_MELDS:
                    _MELDS.clear()
                _MELDS[key] = meld
            return meld
    return _parse_meld(data, where)


def _parse_meld(data: Any, where: str) -> Meld:
    """:func:`parse_meld` of any value: every check in order, the first failing one raised."""
    if type(data) is not dict and not isinstance(data, Mapping):
        raise HandError("bad_field", f"{where} must be an object with type and tiles", where)
    if not MELD_FIELDS.issuperset(data):
        name = sorted(set(data) - MELD_FIELDS)[0]
        raise HandError("unknown_field", f"{where} has an unknown field {name!r}", f"{where}.{name}")
    mtype = data.get("type")
    if mtype not in ("chi", "pon", "kan"):
        raise HandError("bad_meld", f"{where}.type must be chi, pon or kan, not {mtype!r}", f"{where}.type")
    tiles = tuple(parse_tiles(data.get("tiles", ""), f"{where}.tiles", allow_back=False))
    for flag_name in ("open", "added"):
        if flag_name in data and not isinstance(data[flag_name], bool):
            raise HandError("bad_field", f"{where}.{flag_name} must be true or false", f"{where}.{flag_name}")
    added = bool(data.get("added", False))
    is_open = bool(data.get("open", True))
    src = data.get("from")
    if src is not None and src not in FROM_VALUES:
        raise HandError("bad_field", f"{where}.from must be left, across or right, not {src!r}", f"{where}.from")
    kinds = sorted(map(kind, tiles))
    if mtype == "chi":
        if len(tiles) != 3:
            label = format_tiles(tiles)
            raise HandError("bad_meld", f"a chi has 3 tiles, {label!r} has {len(tiles)}", f"{where}.tiles")
        if is_honor(kinds[0]) or is_honor(kinds[2]):
            raise HandError("bad_meld", f"a chi cannot contain honors ({format_tiles(tiles)})", f"{where}.tiles")
        if len({suit(k) for k in kinds}) != 1 or kinds != [kinds[0], kinds[0] + 1, kinds[0] + 2]:
            label = format_tiles(tiles)
            raise HandError("bad_meld", f"{label} is not three consecutive tiles of one suit", f"{where}.tiles")
        if data.get("open") is False or added:
            raise HandError("bad_meld", "a chi is always open and never added", f"{where}.open")
        if src not in (None, "left"):
            raise HandError("bad_meld", "a chi can only be called from the player on the left", f"{where}.from")
    elif mtype == "pon":
        if len(tiles) != 3 or len(set(kinds)) != 1:
            raise HandError("bad_meld", f"a pon is three equal tiles, not {format_tiles(tiles)!r}", f"{where}.tiles")
        if data.get("open") is False or added:
            raise HandError(
                "bad_meld", "a pon is always open (an added kan is a kan with added: true)", f"{where}.open"
            )
    else:
        if len(tiles) != 4 or len(set(kinds)) != 1:
            raise HandError("bad_meld", f"a kan is four equal tiles, not {format_tiles(tiles)!r}", f"{where}.tiles")
        if added and not is_open:
            raise HandError("bad_meld", "an added kan is open (it was a pon)", f"{where}.added")
        if not is_open and src is not None:
            raise HandError("bad_meld", "a closed kan is not called from anybody", f"{where}.from")
    return Meld(mtype, tiles, open=is_open, added=added, from_=src)


#: the field path of each meld (a Hand has four at most)
_MELD_PATHS: Final = tuple(f"melds[{i}]" for i in range(4))


def parse_hand(data: Any, rules_override: str | None = None) -> Hand:
    """Parse the contract's Hand JSON object (already decoded) into a :class:`Hand`.

    >>> h = parse_hand({"rules": "riichi", "hand": "123m456p789s1122z", "win_tile": "2z"})
    >>> (h.rules, len(h.concealed), h.tsumo, h.is_dealer)
    ('riichi', 13, False, True)
    """
    if type(data) is not dict and not isinstance(data, Mapping):
        raise HandError("bad_json", "a Hand must be a JSON object", None)
    if not HAND_FIELDS.issuperset(data):
        name = sorted(set(data) - HAND_FIELDS)[0]
        raise HandError("unknown_field", f"{name!r} is not a field of a Hand", name)
    rules = rules_override if rules_override is not None else data.get("rules", "riichi")
    if not isinstance(rules, str):
        raise HandError("bad_field", "rules must be a ruleset id string", "rules")
    options = data.get("options", {})
    if options is None:
        options = {}
    if type(options) is not dict and not isinstance(options, Mapping):
        raise HandError("bad_field", "options must be an object of name: value", "options")
    if "hand" not in data:
        raise HandError("bad_field", "hand (the concealed tiles) is required", "hand")
    concealed = tuple(parse_tiles(data["hand"], "hand", allow_back=False))
    win_raw = data.get("win_tile")
    one = TILE_BY_NAME.get(win_raw) if type(win_raw) is str else None
    if one is not None:
        win = [one]
    elif "win_tile" not in data:
        given_flags = data.get("flags")
        if not isinstance(given_flags, list) or "nagashi_mangan" not in given_flags:
            raise HandError("bad_field", "win_tile is required", "win_tile")
        win = [BACK]  # nagashi mangan is not a win on a tile
    else:
        win = parse_tiles(data["win_tile"], "win_tile", allow_back=False)
    if len(win) != 1:
        raise HandError("bad_field", f"win_tile must be exactly one tile, not {len(win)}", "win_tile")
    melds_raw = data.get("melds", [])
    if melds_raw is None:
        melds_raw = []
    if not isinstance(melds_raw, list):
        raise HandError("bad_field", "melds must be a list of meld objects", "melds")
    if len(melds_raw) > 4:
        raise HandError("wrong_tile_count", f"a hand has at most 4 melds, not {len(melds_raw)}", "melds")
    melds = tuple([parse_meld(m, _MELD_PATHS[i]) for i, m in enumerate(melds_raw)]) if melds_raw else ()
    win_kind = data.get("win", "ron")
    if win_kind not in ("ron", "tsumo"):
        raise HandError("bad_field", f"win must be ron or tsumo, not {win_kind!r}", "win")
    seat_name = data.get("seat_wind", "east")
    seat = _WIND_OF.get(seat_name, -1) if type(seat_name) is str else -1
    if seat < 0:
        seat = wind_index(seat_name, "seat_wind")
    round_name = data.get("round_wind", "east")
    rnd = _WIND_OF.get(round_name, -1) if type(round_name) is str else -1
    if rnd < 0:
        rnd = wind_index(round_name, "round_wind")
    dealer_raw = data.get("dealer")
    if dealer_raw is None:
        is_dealer = seat == 0
    elif isinstance(dealer_raw, bool):
        is_dealer = dealer_raw
    elif isinstance(dealer_raw, str):
        is_dealer = wind_index(dealer_raw, "dealer") == seat
    else:
        raise HandError("bad_field", "dealer must be true/false or the dealer's seat wind", "dealer")
    flags_raw = data.get("flags", [])
    if flags_raw is None:
        flags_raw = []
    if not isinstance(flags_raw, list) or (flags_raw and not all(isinstance(f, str) for f in flags_raw)):
        raise HandError("bad_field", "flags must be a list of flag names", "flags")
    if flags_raw and not KNOWN_FLAGS.issuperset(flags_raw):
        for i, f in enumerate(flags_raw):
            if f not in KNOWN_FLAGS:
                raise HandError("unknown_flag", f"{f!r} is not a known flag", f"flags[{i}]")
    nuki = data.get("nuki", "")
    if nuki is None:
        nuki = ""
    dora = data.get("dora_indicators")
    ura = data.get("ura_indicators")
    honba = data.get("honba", 0)
    if type(honba) is not int or not 0 <= honba <= MAX_COUNT:  # (a bool is not an int here)
        honba = _int_field(data, "honba", 0)
    dora_tiles = _tile_list(dora, "dora_indicators") if dora else ()
    ura_tiles = _tile_list(ura, "ura_indicators") if ura else ()
    nuki_tiles = (
        ()
        if nuki == ""
        else tuple(parse_tiles(nuki, "nuki", allow_back=False))
        if isinstance(nuki, str)
        else _tile_list(nuki, "nuki")
    )
    sticks = data.get("riichi_sticks", 0)
    if type(sticks) is not int or not 0 <= sticks <= MAX_COUNT:
        sticks = _int_field(data, "riichi_sticks", 0)
    return Hand(  # (the fields in order: a positional call is the cheaper one)
        rules,
        concealed,
        win[0],
        melds,
        dict(options),
        win_kind == "tsumo",
        seat,
        rnd,
        is_dealer,
        honba,
        dora_tiles,
        ura_tiles,
        nuki_tiles,
        frozenset(flags_raw),
        sticks,
        "honba" in data,
    )
