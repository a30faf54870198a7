"""Pydantic models at the HTTP edge: what the API accepts and answers (and what ``/docs`` shows).

The Hand models check JSON types only; the scoring core (:func:`paiscan.scoring.parse_hand` and the
ruleset) does every check of meaning and names the field, so the API and the CLI reject the same
hands with the same codes.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, WithJsonSchema

from paiscan.scoring.game_record import FORMAT as GAME_FORMAT
from paiscan.scoring.game_record import SCHEMA as GAME_RECORD_SCHEMA

Wind = Literal["east", "south", "west", "north"]

HAND_EXAMPLE: dict[str, Any] = {
    "rules": "riichi",
    "hand": "123m456p789s1122z",
    "win_tile": "2z",
    "win": "tsumo",
    "seat_wind": "east",
    "round_wind": "east",
    "honba": 0,
    "dora_indicators": ["1z"],
    "flags": ["riichi"],
}


class MeldIn(BaseModel):
    """A called or declared set (contract: ``melds[]``)."""

    model_config = ConfigDict(strict=True, extra="allow", populate_by_name=True)

    type: Literal["chi", "pon", "kan"] = Field(description="chi, pon or kan")
    tiles: str = Field(description="the meld's tiles in MPSZ, e.g. 777p", max_length=64)
    open: bool | None = Field(default=None, description="kan only: true for a called kan, false for a closed kan")
    added: bool | None = Field(default=None, description="kan only: promoted from a pon")
    from_: Literal["left", "across", "right"] | None = Field(default=None, alias="from", description="who discarded it")


class HandContext(BaseModel):
    """The situation of a win: every Hand field except the tiles. The photo endpoints take it as JSON."""

    model_config = ConfigDict(
        strict=True,
        extra="allow",
        json_schema_extra={
            "example": {
                "rules": "riichi",
                "win": "ron",
                "seat_wind": "south",
                "round_wind": "east",
                "honba": 1,
                "flags": ["riichi"],
            }
        },
    )

    rules: str = Field(default="riichi", description="ruleset id (GET /v1/rulesets)", max_length=64)
    options: dict[str, Any] = Field(default_factory=dict, description="ruleset options (GET /v1/rulesets)")
    win: Literal["ron", "tsumo"] = Field(default="ron", description="ron (on a discard) or tsumo (self-drawn)")
    seat_wind: Wind = Field(default="east", description="the winner's seat wind")
    round_wind: Wind = Field(default="east", description="the round (prevailing) wind")
    dealer: bool | Wind | None = Field(
        default=None, description="whether the winner is the dealer, or the dealer's seat wind (default: seat east)"
    )
    honba: int = Field(default=0, ge=0, le=999, description="repeat counters")
    riichi_sticks: int = Field(default=0, ge=0, le=999, description="riichi deposits on the table")
    ura_indicators: list[str] | str = Field(default_factory=list, description="ura dora indicators (after riichi)")
    flags: list[str] = Field(
        default_factory=list,
        max_length=32,
        description="situational yaku and facts: riichi, ippatsu, haitei, rinshan …",
    )


class HandIn(HandContext):
    """The contract's Hand: the tiles and the situation of a win."""

    model_config = ConfigDict(strict=True, extra="allow", json_schema_extra={"example": HAND_EXAMPLE})

    hand: str = Field(description="the concealed tiles NOT counting the winning tile, in MPSZ", max_length=256)
    melds: list[MeldIn] = Field(default_factory=list, max_length=8, description="called and declared sets")
    win_tile: str | None = Field(default=None, description="the winning tile", max_length=16)
    dora_indicators: list[str] | str = Field(default_factory=list, description="dora indicators")
    nuki: str | list[str] = Field(default="", description="tiles set aside as bonus tiles (three-player gari, north)")

    def to_contract(self) -> dict[str, Any]:
        """The Hand JSON as given (fields left out stay out, so the core applies its own defaults; a null is a
        field left out, as the schema's optional fields say)."""
        return self.model_dump(exclude_unset=True, exclude_none=True, by_alias=True)


class ErrorDetail(BaseModel):
    code: str = Field(description="a stable code: bad_tile, wrong_tile_count, not_an_image, busy …")
    message: str = Field(description="what is wrong, for a person")
    field: str | None = Field(default=None, description="the input field concerned (melds[0].tiles, file, hand.win …)")


class ErrorResponse(BaseModel):
    """Every error answer: ``{"error": {"code", "message", "field"}}`` (photo-score may add ``recognised``)."""

    model_config = ConfigDict(extra="allow")

    error: ErrorDetail


class YakuOut(BaseModel):
    model_config = ConfigDict(extra="allow")

    id: str
    name: str
    name_ja: str | None = None
    value: int
    unit: str


class ScoreOut(BaseModel):
    """The contract's Score plus the explanation (``fu_details``, ``explanation`` …)."""

    model_config = ConfigDict(extra="allow")

    rules: str
    total: int
    payments: list[dict[str, Any]]
    han: int
    fu: int
    limit: str | None
    yaku: list[YakuOut]
    items: list[dict[str, Any]]
    decomposition: list[str]
    warnings: list[str]
    fu_details: list[dict[str, Any]] = Field(default_factory=list)
    explanation: list[dict[str, Any]] = Field(default_factory=list)
    timings_ms: dict[str, float] = Field(default_factory=dict, description="server time per stage")


class Detection(BaseModel):
    model_config = ConfigDict(extra="allow")

    class_: str = Field(alias="class", description="MPSZ face, ? for a face-down tile")
    class_id: int
    confidence: float
    box: list[float] = Field(description="x1, y1, x2, y2 in the upright photo's pixels")
    rotated: bool = False
    topk: list[list[Any]] = Field(default_factory=list, description="[[face, probability], …], best first")
    face_angle: float | None = Field(
        default=None, description="where the face's top points, degrees (0 = up, clockwise); absent for face-down tiles"
    )
    face_sure: float | None = Field(default=None, description="how sure the top is the top (0..1)")
    cut: bool = Field(
        default=False,
        description="the box touches the photo's frame: the tile may be cut, its "
        "box and face measured on part of it (present only when true)",
    )


class ReadOut(BaseModel):
    """What ``paiscan read`` prints, plus an annotated preview and timings."""

    model_config = ConfigDict(extra="allow")

    detections: list[Detection]
    hand: dict[str, Any] | None = Field(default=None, description="hand, melds, win_tile, dora_indicators, nuki")
    alternatives: list[Any] = Field(default_factory=list)
    ambiguities: list[dict[str, Any]] = Field(default_factory=list)
    problems: list[dict[str, Any]] = Field(default_factory=list)
    notes: list[str] = Field(
        default_factory=list,
        description="what the reader assumed to read the photo (a face "
        "taken as upright, a box taken for no tile, sideways tiles judged from the boxes): "
        "check those parts; empty when none",
    )
    image: dict[str, int] = Field(default_factory=dict, description="the upright photo's width and height")
    preview: str | None = Field(default=None, description="data:image/jpeg;base64,… of the photo (≤ 1024 px)")
    preview_size: dict[str, int] | None = None
    timings_ms: dict[str, float] = Field(default_factory=dict)


class PhotoScoreOut(ScoreOut):
    recognised: ReadOut


class OptionOut(BaseModel):
    model_config = ConfigDict(extra="allow")

    name: str
    type: str
    default: Any
    meaning: str
    choices: list[Any] | None = None


class RulesetOut(BaseModel):
    model_config = ConfigDict(extra="allow")

    id: str
    name: str
    name_ja: str
    players: int
    options: list[OptionOut]
    presets: dict[str, dict[str, Any]] = Field(default_factory=dict)
    flags: list[str] = Field(default_factory=list, description="the flags this ruleset reads")
    yaku: list[dict[str, Any]] = Field(default_factory=list)


class RulesetsOut(BaseModel):
    rulesets: list[RulesetOut]


class Health(BaseModel):
    status: str


class Ready(BaseModel):
    model_config = ConfigDict(extra="allow")

    status: str
    reader: str
    workers: int
    queue_size: int


class Info(BaseModel):
    version: str
    photo_reading: bool = Field(description="whether photos can be read now")
    photo_reading_message: str | None = Field(default=None, description="why not, when they cannot")
    max_upload_bytes: int
    max_pixels: int
    preview_max_side: int


# ------------------------------------------------------------------ game records
def _inline(node: Any, defs: dict[str, Any]) -> Any:
    """``node`` with every ``{"$ref": "#/$defs/x"}`` replaced by the definition (an OpenAPI document
    resolves ``#/...`` against itself, not against the schema embedded in it)."""
    if isinstance(node, list):
        return [_inline(v, defs) for v in node]
    if not isinstance(node, dict):
        return node
    out = {k: _inline(v, defs) for k, v in node.items() if k not in ("$ref", "$defs", "$schema", "$id")}
    ref = node.get("$ref")
    if isinstance(ref, str):
        return {**_inline(defs[ref.removeprefix("#/$defs/")], defs), **out}
    return out


def game_record_schema(part: str | None = None) -> dict[str, Any]:
    """The game record's JSON Schema (scoring/game_record_schema.json, the format's one definition) or one
    of its ``$defs`` (``hand_entry``), self-contained for the OpenAPI document."""
    defs = dict(GAME_RECORD_SCHEMA["$defs"])
    if part is not None:
        return dict(_inline(defs[part], defs))
    return {**_inline(dict(GAME_RECORD_SCHEMA), defs), "examples": [GAME_EXAMPLE]}


GAME_EXAMPLE: dict[str, Any] = {
    "format": GAME_FORMAT,
    "rules": "boo",
    "players": ["Aki", "Ben", "Chie", "Dai"],
    "hands": [
        {
            "result": "ron",
            "winner": "Ben",
            "discarder": "Chie",
            "points": 420,
            "hand": {
                "hand": "123m222p3357s",
                "melds": [{"type": "pon", "tiles": "777p"}],
                "win_tile": "6s",
                "dora_indicators": ["1p"],
            },
        },
        {"result": "draw"},
        {"result": "ron", "winner": "Aki", "discarder": "Dai", "points": 1000},
    ],
}

#: ``POST /v1/games``'s body: any JSON object, documented by the format's schema; the scoring core checks
#: it (:func:`paiscan.scoring.game_record.parse_record`) and names the field, as ``paiscan game`` does
GameIn = Annotated[dict[str, Any], WithJsonSchema(game_record_schema())]


class GameOut(BaseModel):
    """The replay: hands, final scores, the end, the settlement, standings and disputes."""

    model_config = ConfigDict(extra="allow")

    rules: str
    players: list[str]
    hands: list[dict[str, Any]]
    final: dict[str, int]
    finished: bool
    end: dict[str, Any] | None
    settlement: dict[str, Any]
    standings: list[dict[str, Any]]
    disputes: list[dict[str, Any]]
    warnings: list[str]
    timings_ms: dict[str, float] = Field(default_factory=dict, description="server time per stage")


class SheetOut(BaseModel):
    """A stored sheet: its id, its version (the ETag ``"v<version>"``), the record and its replay."""

    id: str
    version: int
    record: dict[str, Any] = Field(description="the record, canonical (paiscan-game/1)")
    replay: dict[str, Any] = Field(description="the replay, as POST /v1/games answers it")


class SheetSummary(BaseModel):
    id: str
    title: str | None
    date: str | None
    rules: str
    players: list[str]
    hands: int
    version: int
    updated: str


class SheetsOut(BaseModel):
    sheets: list[SheetSummary] = Field(description="newest first")
