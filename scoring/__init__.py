"""paiscan's scoring core: tiles, hands, decompositions, fu, and one module per ruleset.

>>> s = score_hand({"rules": "riichi", "hand": "123m456p789s1122z", "win_tile": "2z", "win": "tsumo"})
>>> s.total, s.han, s.fu
(2100, 1, 40)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from paiscan.scoring import native  # noqa: F401  (first: it chooses compiled modules or their sources)
from paiscan.scoring.errors import HandError
from paiscan.scoring.hand import Hand, Meld, parse_hand
from paiscan.scoring.registry import get_ruleset
from paiscan.scoring.score import Score


def score(hand: Hand) -> Score:
    """Price a parsed hand under its ruleset."""
    return get_ruleset(hand.rules).score(hand)


def score_hand(data: Any, rules: str | None = None, options: dict[str, Any] | None = None) -> Score:
    """Parse the contract's Hand JSON object and price it. ``rules``/``options`` override the file."""
    if options:
        if not isinstance(data, dict):
            raise HandError("bad_json", "a Hand must be a JSON object", None)
        given = data.get("options") or {}
        if not isinstance(given, Mapping):
            raise HandError("bad_field", "options must be an object of name: value", "options")
        merged = dict(given)
        merged.update(options)
        data = {**data, "options": merged}
    hand = parse_hand(data, rules_override=rules)
    return score(hand)


def check_context(data: Any) -> None:
    """Check every field of a Hand that a photo does not give (rules, options, win, winds, dealer,
    honba, flags, ura indicators) before the photo is read: a situation no hand could have is the
    caller's error, named by its field, not a photo without a valid reading. Tile fields given
    are checked as notation; the tiles themselves are judged with the hand.

    >>> try:
    ...     check_context({"rules": "riichi", "flags": ["ippatsu"]})
    ... except HandError as err:
    ...     print(err.code, err.field)
    ippatsu_without_riichi flags
    >>> check_context({"rules": "riichi", "seat_wind": "south", "flags": ["riichi", "ippatsu"]})
    """
    if not isinstance(data, Mapping):
        raise HandError("bad_json", "a Hand must be a JSON object", None)
    placeholder = {"hand": "", "win_tile": "1z", **data}
    hand = parse_hand(placeholder)
    ruleset = get_ruleset(hand.rules)
    ruleset.check_situation(hand, ruleset.parse_options(hand.options))


def field_root(field: str) -> str:
    """The Hand field a field path lies in.

    >>> field_root("melds[0].tiles"), field_root("options.kiriage"), field_root("flags")
    ('melds', 'options', 'flags')
    """
    return field.split(".", 1)[0].split("[", 1)[0]


def context_fault(tiles: Mapping[str, Any], context: Mapping[str, Any]) -> HandError | None:
    """Score ``tiles`` (a hand read from a photo) in ``context`` (what the user gave besides); the
    error when it lies in a field the user gave (riichi declared, the photo showing chi), else None:
    then the user's field is to blame, not the photo.

    >>> err = context_fault({"hand": "123m456p789s1z", "melds": [{"type": "pon", "tiles": "777p"}],
    ...                      "win_tile": "1z"}, {"flags": ["riichi"]})
    >>> err.code, err.field
    ('riichi_open_hand', 'flags')
    """
    try:
        score_hand({**tiles, **context})
    except HandError as err:
        return err if err.field and field_root(err.field) in context else None
    except Exception:  # a failure of the scoring itself is not the user's
        return None
    return None


__all__ = [
    "Hand",
    "HandError",
    "Meld",
    "Score",
    "check_context",
    "context_fault",
    "field_root",
    "parse_hand",
    "score",
    "score_hand",
]
