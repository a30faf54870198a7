"""The single error type of the scoring core.

Every bad input is rejected with a :class:`HandError` that names a stable ``code`` (what went
wrong), a human ``message`` (why) and the input ``field`` it concerns, so the CLI and the HTTP
service can turn it into the contract's ``{"error": {...}}`` object without guessing.
"""

from __future__ import annotations

import json
from typing import Any, Final

#: a string as JSON, as ``json.dumps(..., ensure_ascii=False)`` writes it
_json_str: Final[Any] = json.encoder.encode_basestring


class HandError(ValueError):
    """An invalid hand, option or request.

    >>> err = HandError("bad_tile", "'x' is not a tile", field="hand")
    >>> err.to_dict()
    {'error': {'code': 'bad_tile', 'message': "'x' is not a tile", 'field': 'hand'}}
    """

    def __init__(self, code: str, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.field = field

    def to_dict(self) -> dict[str, Any]:
        return {"error": {"code": self.code, "message": self.message, "field": self.field}}

    def to_json(self) -> str:
        """``json.dumps(self.to_dict(), ensure_ascii=False)``, written directly (the JSON path's errors).

        >>> print(HandError("bad_tile", "'x' is not a tile", field="hand").to_json())
        {"error": {"code": "bad_tile", "message": "'x' is not a tile", "field": "hand"}}
        """
        code, message = _json_str(self.code), _json_str(self.message)
        field = "null" if self.field is None else _json_str(self.field)
        return f'{{"error": {{"code": {code}, "message": {message}, "field": {field}}}}}'

    def __repr__(self) -> str:
        return f"HandError({self.code!r}, {self.message!r}, field={self.field!r})"


#: Every error code the core raises, with its meaning (documented in the README).
ERROR_CODES: Final[dict[str, str]] = {
    "bad_json": "the input is not valid JSON or not a JSON object",
    "bad_field": "a field has the wrong type or an impossible value",
    "unknown_field": "a field the Hand format does not define (a typo would silently change the score)",
    "bad_tile": "a tile that is not MPSZ notation",
    "face_down_tile": "a face-down tile '?' where its face is needed to score",
    "tile_not_in_ruleset": "a tile the ruleset's tile set does not have",
    "too_many_of_kind": "more than four tiles of one kind (red fives and visible indicators count)",
    "too_many_red_fives": "more red fives of a suit than the ruleset's set holds",
    "wrong_tile_count": "the number of concealed tiles does not fit the melds",
    "bad_meld": "an impossible meld (chi across suits or with honors, pon of unequal tiles, ...)",
    "unknown_flag": "a flag the contract does not define",
    "unknown_option": "an option the ruleset does not have",
    "bad_option": "an option value of the wrong type or outside its allowed values",
    "unknown_ruleset": "a ruleset id paiscan does not know",
    "riichi_open_hand": "riichi (or double riichi) declared with an open hand",
    "ippatsu_open_hand": "ippatsu with an open hand",
    "ippatsu_without_riichi": "ippatsu without riichi",
    "tenhou_not_dealer": "tenhou for a non-dealer",
    "chiihou_dealer": "chiihou or renhou for the dealer",
    "first_turn_with_meld": "a first-turn win (tenhou, chiihou, renhou) with a called meld",
    "tenhou_on_ron": "tenhou or chiihou won by ron",
    "renhou_on_tsumo": "renhou won by tsumo",
    "haitei_on_ron": "haitei (last tile) won by ron",
    "houtei_on_tsumo": "houtei (last discard) won by tsumo",
    "rinshan_on_ron": "rinshan won by ron",
    "rinshan_without_kan": "rinshan without any kan",
    "chankan_on_tsumo": "chankan won by tsumo",
    "conflicting_flags": "two flags that cannot both happen (haitei with rinshan, houtei with chankan)",
    "not_a_winning_hand": "the tiles do not form a complete hand",
    "no_yaku": "a complete hand with no yaku, which the ruleset does not let win",
    "manzu_in_hand": "three-player Totenko: a manzu tile in the hand instead of set aside as gari",
    "bad_nuki": "a tile set aside as gari/nuki that the ruleset does not set aside",
    "yaku_not_adopted": "a hand complete only in a shape the chosen options switch off",
}
