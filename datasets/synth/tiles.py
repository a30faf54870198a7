"""Tile notation helpers: MPSZ strings <-> contract class ids.

Class ids follow the contract: 0-8 ``1m``-``9m``, 9-17 ``1p``-``9p``, 18-26 ``1s``-``9s``,
27-33 ``1z``-``7z``, 34/35/36 red ``0m``/``0p``/``0s``, 37 face-down (``?``).

>>> parse_tiles("123m406p55z")
[0, 1, 2, 12, 35, 14, 31, 31]
>>> to_mpsz([0, 1, 2, 12, 35, 14, 31, 31])
'123m406p55z'
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable, Iterable

N_CLASSES = 38
FACE_DOWN = 37
RED_IDS = {34: 4, 35: 13, 36: 22}  # red five -> its plain kind
_SUIT_BASE = {"m": 0, "p": 9, "s": 18, "z": 27}
_RED_OF_SUIT = {"m": 34, "p": 35, "s": 36}

CLASS_NAMES: list[str] = (
    [f"{d}m" for d in range(1, 10)]
    + [f"{d}p" for d in range(1, 10)]
    + [f"{d}s" for d in range(1, 10)]
    + [f"{d}z" for d in range(1, 8)]
    + ["0m", "0p", "0s", "?"]
)


def parse_tiles(text: str) -> list[int]:
    """Parse an MPSZ string (``?`` = face-down) into contract class ids, in order."""
    _scoring_parse = _scoring_parser()
    if _scoring_parse is not None:
        try:
            ids = [int(t) for t in _scoring_parse(text)]
            if all(0 <= t < N_CLASSES for t in ids):
                return ids
        except Exception:  # pragma: no cover
            pass
    return _parse_local(text)


@functools.lru_cache(maxsize=1)
def _scoring_parser() -> Callable[[str], list[int]] | None:
    """``paiscan.scoring.tiles.parse_tiles`` when the scoring package provides it."""
    try:
        mod = importlib.import_module("paiscan.scoring.tiles")
    except Exception:  # pragma: no cover - depends on the scoring package state
        return None
    fn = getattr(mod, "parse_tiles", None)
    return fn if callable(fn) else None


def _parse_local(text: str) -> list[int]:
    out: list[int] = []
    pending: list[int] = []
    for ch in text:
        if ch.isspace():
            continue
        if ch.isdigit():
            pending.append(int(ch))
        elif ch in _SUIT_BASE:
            if not pending:
                raise ValueError(f"suit letter {ch!r} without digits in {text!r}")
            for d in pending:
                if d == 0:
                    if ch == "z":
                        raise ValueError(f"0z is not a tile ({text!r})")
                    out.append(_RED_OF_SUIT[ch])
                elif ch == "z" and d > 7:
                    raise ValueError(f"{d}z is not a tile ({text!r})")
                else:
                    out.append(_SUIT_BASE[ch] + d - 1)
            pending = []
        elif ch == "?":
            if pending:
                raise ValueError(f"digits without a suit before '?' in {text!r}")
            out.append(FACE_DOWN)
        else:
            raise ValueError(f"unexpected character {ch!r} in {text!r}")
    if pending:
        raise ValueError(f"digits without a suit at the end of {text!r}")
    return out


def tile_name(cls: int) -> str:
    """The MPSZ name of one class id (``'?'`` for face-down)."""
    return CLASS_NAMES[cls]


def kind_of(cls: int) -> int:
    """The 0-33 kind of a class id (red fives map to their plain five)."""
    return RED_IDS.get(cls, cls)


def to_mpsz(ids: Iterable[int]) -> str:
    """Write class ids as a compact MPSZ string, keeping the given order."""
    out: list[str] = []
    digits: list[str] = []
    suit = ""
    for cls in ids:
        name = CLASS_NAMES[cls]
        if name == "?":
            if digits:
                out.append("".join(digits) + suit)
                digits, suit = [], ""
            out.append("?")
            continue
        d, s = name[0], name[1]
        if s != suit and digits:
            out.append("".join(digits) + suit)
            digits = []
        suit = s
        digits.append(d)
    if digits:
        out.append("".join(digits) + suit)
    return "".join(out)


def sort_key(cls: int) -> tuple[int, int]:
    """Sort order for display: suit order m, p, s, z; a red five sorts as a five."""
    k = kind_of(cls)
    return (k, 1 if cls in RED_IDS else 0)
