"""Game records, the sheet: the record's format (``game_record_schema.json``), its parsing and checks, and dump.

A record keeps what the paper sheet says; this module checks its shape against the schema and what a schema
cannot (names are players, the ruleset's options, the deal) and builds the frozen :class:`GameRecord`,
every problem a :class:`HandError` naming the field. The replay is :mod:`paiscan.scoring.game_record`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

from paiscan.scoring.errors import HandError
from paiscan.scoring.evaluation_jun import PERSONAL, START_POINTS
from paiscan.scoring.hand import HAND_FIELDS
from paiscan.scoring.registry import get_ruleset
from paiscan.scoring.settlement_boo import settlement_rules
from paiscan.scoring.tiles import WINDS

#: are written. This module reads them from it and checks what a schema cannot (names are players, the
#: ruleset's options, the deal); the service documents the schema as its request body.
SCHEMA: Mapping[str, Any] = json.loads(
    resources.files("paiscan.scoring").joinpath("game_record_schema.json").read_text(encoding="utf-8")
)
_PROPS: Mapping[str, Any] = SCHEMA["properties"]
_DEFS: Mapping[str, Any] = SCHEMA["$defs"]
_ENTRY: Mapping[str, Any] = _DEFS["hand_entry"]["properties"]
_START: Mapping[str, Any] = _DEFS["start"]["properties"]
FORMAT: str = _PROPS["format"]["const"]
RECORD_FIELDS = tuple(_PROPS)
ENTRY_FIELDS = tuple(_ENTRY)
START_FIELDS = tuple(_START)
ABANDONED_FIELDS = tuple(_PROPS["abandoned"]["properties"])
#: the record's free-text fields (title, date, notes)
INFO_FIELDS = tuple(k for k, v in _PROPS.items() if v.get("type") == "string")
RESULTS: tuple[str, ...] = tuple(_ENTRY["result"]["enum"])
#: the fields of a hand's Hand; the others of the contract's Hand are set by the replay from the deal
RECORD_HAND_FIELDS = frozenset(_DEFS["hand"]["properties"])
REPLAY_SET_FIELDS = tuple(sorted(HAND_FIELDS - RECORD_HAND_FIELDS))
#: Jun 第17条's reasons for stopping a game early
ABANDON_REASONS: tuple[str, ...] = tuple(_PROPS["abandoned"]["properties"]["reason"]["enum"])
MAX_HANDS: int = _PROPS["hands"]["maxItems"]
MAX_NAME: int = _DEFS["name"]["maxLength"]
MAX_TEXT: int = _PROPS["notes"]["maxLength"]
_SEATS: Mapping[str, Any] = SCHEMA["allOf"][0]  # players: "then" under the "if" ruleset, "else" otherwise


def _player_count(rules: str) -> int:
    branch = "then" if rules == _SEATS["if"]["properties"]["rules"]["const"] else "else"
    count: int = _SEATS[branch]["properties"]["players"]["minItems"]
    return count


#: the rulesets a game can be replayed under (the schema's ``rules``), with their number of players
PLAYERS_BY_RULES: Mapping[str, int] = {r: _player_count(r) for r in _PROPS["rules"]["enum"]}
BOO_FAMILY = ("boo", "kansai_boo")

#: error codes of game records, beyond the Hand's (paiscan.scoring.errors.ERROR_CODES)
GAME_ERROR_CODES: Mapping[str, str] = {
    "unknown_player": "a name that is not one of the record's players",
    "winner_is_discarder": "a ron whose discarder is the winner",
    "missing_points": "a hand whose points are neither written nor computable (no Hand, no house rule)",
    "ambiguous_points": "a written total that cannot be split among the payers: write what each paid",
    "unsupported_ruleset": "a ruleset whose game frame (rotation, end, settlement) paiscan does not replay",
}


def _choices(name: str) -> tuple[Any, ...] | None:
    """A game option's allowed values from the schema (None: any whole number >= 0)."""
    spec = _DEFS["game_options"]["properties"][name]
    if "enum" in spec:
        return tuple(spec["enum"])
    return (True, False) if spec["type"] == "boolean" else None


def _options(defaults: Mapping[str, Any]) -> Mapping[str, tuple[Any, tuple[Any, ...] | None]]:
    return {name: (default, _choices(name)) for name, default in defaults.items()}


#: game options by ruleset: name → (default, allowed values or None for any whole number ≥ 0); the
#: names and values are the schema's ``game_options``, the defaults and which ruleset reads which are here
COMMON_GAME_OPTIONS = _options({"prefer_points": "recomputed"})
GAME_OPTIONS: Mapping[str, Mapping[str, tuple[Any, tuple[Any, ...] | None]]] = {
    "boo": _options({"forbidden_wins": "refuse"}),
    "kansai_boo": _options({"forbidden_wins": "refuse"}),
    "totenko_balance": _options({"start_points": 0, "dealer_win_adds_honba": True}),
    "jun": _options({"start_points": START_POINTS, "plus_at_start": False, "all_tied_rank": 0}),
    "riichi": _options({"start_points": 25_000, "rounds": 2, "noten_total": 3000, "leftover_pot": "top"}),
}

#: チョンボ: the basic points of the penalty, paid like a tsumo in reverse (offender dealer: 2 × basic
#: to each; non-dealer: 2 × basic to the dealer, basic to each other) — Osaka 半満貫 (1000 / 1500)
#: [seed 000 §8; the split is assumed], riichi a mangan [standard]. Others: points must be written.
CHOMBO_BASIC: Mapping[str, int] = {"boo": 250, "riichi": 2000}


def _err(code: str, message: str, field_name: str | None) -> HandError:
    return HandError(code, message, field_name)


# ------------------------------------------------------------------ the record
@dataclass(frozen=True)
class HandEntry:
    """One line of the sheet: a win (``ron``/``tsumo``), an exhaustive ``draw`` or a ``chombo``.

    ``hand`` is the Hand (contract JSON, without what the replay sets) when the tiles are known;
    ``points`` what the sheet says: an int (a win: everything the winner received; a chombo:
    everything the offender paid) or ``{player: amount}`` (a win: what each payer paid; a chombo:
    what each player received). ``dealer``, ``honba`` and ``scores_after`` are the sheet's own
    notes, checked against the replay.
    """

    result: str
    winner: str | None = None
    discarder: str | None = None
    player: str | None = None
    hand: Mapping[str, Any] | None = None
    points: int | Mapping[str, int] | None = None
    tenpai: tuple[str, ...] | None = None
    riichi: tuple[str, ...] = ()
    dealer: str | None = None
    honba: int | None = None
    scores_after: Mapping[str, int] | None = None
    note: str | None = None


@dataclass(frozen=True)
class Start:
    """Where the sheet starts when it continues a game (or a test starts mid-game): scores, the deal
    (``round`` + ``number`` for four players, ``dealer`` for Totenko), honba and riichi deposits."""

    scores: Mapping[str, int] | None = None
    round: str | None = None
    number: int | None = None
    honba: int | None = None
    dealer: str | None = None
    pot: int | None = None


@dataclass(frozen=True)
class Abandoned:
    """Jun 第17条: a game stopped early (``too_many_hands``, ``external_reason``, ``personal_reason``)."""

    reason: str
    offender: str | None = None


@dataclass(frozen=True)
class GameRecord:
    """A game as written on the sheet. ``players`` are in seat order from the first dealer (起家)."""

    rules: str
    players: tuple[str, ...]
    hands: tuple[HandEntry, ...]
    options: Mapping[str, Any] = field(default_factory=dict)
    game_options: Mapping[str, Any] = field(default_factory=dict)
    start: Start | None = None
    abandoned: Abandoned | None = None
    info: Mapping[str, str] = field(default_factory=dict)


def _object(value: Any, name: str | None, allowed: Sequence[str]) -> Mapping[str, Any]:
    """A JSON object with only ``allowed`` keys, nulls left out (``name`` None: the record itself)."""
    if not isinstance(value, Mapping):
        if name is None:
            raise _err("bad_json", "a game record must be a JSON object", None)
        raise _err("bad_field", f"{name} must be a JSON object", name)
    for key in value:
        if key not in allowed:
            where = f"{name}.{key}" if name else str(key)
            raise _err("unknown_field", f"{where!r} is not a field here (known: {', '.join(allowed)})", where)
    return {k: v for k, v in value.items() if v is not None}  # a null is a field left out


def _int(value: Any, name: str, minimum: int | None = 0, maximum: int | None = None) -> int:
    if (
        isinstance(value, bool)
        or not isinstance(value, int)
        or (minimum is not None and value < minimum)
        or (maximum is not None and value > maximum)
    ):
        more = f" >= {minimum}" if minimum is not None else ""
        if maximum is not None:
            more = f" from {minimum} to {maximum}"
        raise _err("bad_field", f"{name} must be a whole number{more}, not {value!r}", name)
    return value


def _bounded(value: Any, name: str, spec: Mapping[str, Any]) -> int:
    """A whole number within the schema's ``minimum``/``maximum`` for it."""
    return _int(value, name, spec.get("minimum"), spec.get("maximum"))


def _str(value: Any, name: str, max_len: int = MAX_TEXT) -> str:
    if not isinstance(value, str) or len(value) > max_len:
        raise _err("bad_field", f"{name} must be a string of at most {max_len} characters", name)
    return value


def _player(value: Any, players: Sequence[str], name: str) -> str:
    if not isinstance(value, str):
        raise _err("bad_field", f"{name} must be a player's name (a string), not {value!r}", name)
    if value not in players:
        raise _err("unknown_player", f"{name}: {value!r} is not one of the players ({', '.join(players)})", name)
    return value


def _player_list(value: Any, players: Sequence[str], name: str) -> tuple[str, ...]:
    if not isinstance(value, list):
        raise _err("bad_field", f"{name} must be a list of player names", name)
    out = tuple(_player(v, players, f"{name}[{i}]") for i, v in enumerate(value))
    if len(set(out)) != len(out):
        raise _err("bad_field", f"{name} names a player twice", name)
    return out


def _score_map(value: Any, players: Sequence[str], name: str, minimum: int | None) -> dict[str, int]:
    if not isinstance(value, Mapping):
        raise _err("bad_field", f"{name} must be an object {{player: amount}}", name)
    return {_player(p, players, f"{name}.{p}"): _int(v, f"{name}.{p}", minimum) for p, v in value.items()}


def _parse_players(value: Any, rules: str) -> tuple[str, ...]:
    n = PLAYERS_BY_RULES[rules]
    if not isinstance(value, list) or len(value) != n:
        raise _err(
            "bad_field",
            f"players: {rules} is played by {n} players; list their names in seat order from the first dealer",
            "players",
        )
    for i, p in enumerate(value):
        if not isinstance(p, str) or not p.strip() or len(p) > MAX_NAME:
            raise _err(
                "bad_field", f"players[{i}] must be a non-empty name of at most {MAX_NAME} characters", f"players[{i}]"
            )
    if len(set(value)) != n:
        raise _err("bad_field", "players: every player needs a different name", "players")
    return tuple(value)


def _parse_rules(value: Any) -> str:
    if not isinstance(value, str):
        raise _err("bad_field", "rules must be a ruleset id (a string)", "rules")
    get_ruleset(value)  # unknown_ruleset, field "rules"
    if value not in PLAYERS_BY_RULES:
        raise _err(
            "unsupported_ruleset",
            f"games under {value!r} cannot be replayed yet (its seed gives no game "
            f"frame); replayable: {', '.join(PLAYERS_BY_RULES)}",
            "rules",
        )
    return value


def parse_game_options(rules: str, raw: Any) -> dict[str, Any]:
    """The replay's own settings for ``rules`` (defaults filled), ``unknown_option``/``bad_option`` naming
    ``game_options.<name>`` otherwise.

    >>> parse_game_options("jun", {"plus_at_start": True})["start_points"]
    30000
    """
    spec = {**COMMON_GAME_OPTIONS, **GAME_OPTIONS[rules]}
    if raw is None:
        raw = {}
    if not isinstance(raw, Mapping):
        raise _err("bad_field", "game_options must be an object", "game_options")
    out = {k: default for k, (default, _) in spec.items()}
    for key, value in raw.items():
        name = f"game_options.{key}"
        if key not in spec:
            raise _err("unknown_option", f"unknown game option {key!r} for {rules} (known: {', '.join(spec)})", name)
        default, choices = spec[key]
        if choices is None:
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise _err("bad_option", f"game option {key} must be a whole number >= 0, not {value!r}", name)
        elif value not in choices or type(value) is not type(default):
            raise _err(
                "bad_option", f"game option {key} must be one of {', '.join(map(str, choices))}, not {value!r}", name
            )
        out[key] = value
    return out


def _parse_hand_obj(value: Any, name: str) -> dict[str, Any]:
    if not isinstance(value, Mapping):
        raise _err("bad_field", f"{name} must be a Hand object (contract JSON)", name)
    for key in value:
        if key in REPLAY_SET_FIELDS:
            raise _err(
                "bad_field",
                f"{name}.{key}: the replay sets {key} from the game (rules, deal, honba, "
                "result); leave it out of the Hand",
                f"{name}.{key}",
            )
        if key not in RECORD_HAND_FIELDS:
            raise _err("unknown_field", f"{name}.{key} is not a Hand field", f"{name}.{key}")
    return dict(value)


def _parse_entry(raw: Any, i: int, rules: str, players: Sequence[str]) -> HandEntry:
    f = f"hands[{i}]"
    data = _object(raw, f, ENTRY_FIELDS)
    result = data.get("result")
    if result not in RESULTS:
        raise _err("bad_field", f"{f}.result must be one of {', '.join(RESULTS)}, not {result!r}", f"{f}.result")

    def forbid(*keys: str) -> None:
        for key in keys:
            if key in data:
                raise _err("bad_field", f"{f}.{key} does not belong to a {result}", f"{f}.{key}")

    winner = discarder = player = None
    hand = None
    points: int | dict[str, int] | None = None
    tenpai: tuple[str, ...] | None = None
    if result in ("ron", "tsumo"):
        forbid("player", "tenpai")
        if "winner" not in data:
            raise _err("bad_field", f"{f}.winner is required for a {result}", f"{f}.winner")
        winner = _player(data["winner"], players, f"{f}.winner")
        if "hand" in data:
            hand = _parse_hand_obj(data["hand"], f"{f}.hand")
        if result == "ron":
            if "discarder" not in data:
                raise _err("bad_field", f"{f}.discarder is required for a ron: who dealt in", f"{f}.discarder")
            discarder = _player(data["discarder"], players, f"{f}.discarder")
            if discarder == winner:
                raise _err(
                    "winner_is_discarder", f"{f}: {winner} cannot win by ron on his own discard", f"{f}.discarder"
                )
        elif "discarder" in data:
            flags = (hand or {}).get("flags") or []
            if not isinstance(flags, list) or "rinshan_after_daiminkan" not in flags:
                raise _err(
                    "bad_field",
                    f"{f}.discarder: a tsumo has no discarder (only Osaka's rinshan after an "
                    "open kan, flag rinshan_after_daiminkan, is paid by the kan-tile discarder)",
                    f"{f}.discarder",
                )
            discarder = _player(data["discarder"], players, f"{f}.discarder")
            if discarder == winner:
                raise _err("winner_is_discarder", f"{f}: the winner cannot pay himself", f"{f}.discarder")
        if "points" in data:
            points = _parse_points(data["points"], f"{f}.points", players, exclude=winner)
        elif hand is None:
            raise _err("missing_points", f"{f}: give the Hand (to be scored) or the points as written", f"{f}.points")
    elif result == "draw":
        forbid("winner", "discarder", "player", "hand", "points")
        if "tenpai" in data:
            tenpai = _player_list(data["tenpai"], players, f"{f}.tenpai")
        elif rules in ("totenko_balance", "riichi"):
            raise _err(
                "bad_field",
                f"{f}.tenpai: {rules} pays noten on a draw; list the tenpai players ([] for none)",
                f"{f}.tenpai",
            )
    else:
        forbid("winner", "discarder", "hand", "tenpai")
        if "player" not in data:
            raise _err("bad_field", f"{f}.player is required for a chombo: who made it", f"{f}.player")
        player = _player(data["player"], players, f"{f}.player")
        if "points" in data:
            points = _parse_points(data["points"], f"{f}.points", players, exclude=player)
        elif rules not in CHOMBO_BASIC and rules != "jun":
            raise _err(
                "missing_points", f"{f}.points: {rules} states no chombo penalty; write what was paid", f"{f}.points"
            )
    riichi: tuple[str, ...] = ()
    if "riichi" in data:
        if rules != "riichi":
            raise _err("bad_field", f"{f}.riichi: riichi deposits exist only in the riichi ruleset", f"{f}.riichi")
        if result == "chombo":
            raise _err(
                "bad_field", f"{f}.riichi: deposits of a chombo hand are returned; leave them out", f"{f}.riichi"
            )
        riichi = _player_list(data["riichi"], players, f"{f}.riichi")
    return HandEntry(
        result=result,
        winner=winner,
        discarder=discarder,
        player=player,
        hand=hand,
        points=points,
        tenpai=tenpai,
        riichi=riichi,
        dealer=_player(data["dealer"], players, f"{f}.dealer") if "dealer" in data else None,
        honba=_bounded(data["honba"], f"{f}.honba", _ENTRY["honba"]) if "honba" in data else None,
        scores_after=_score_map(data["scores_after"], players, f"{f}.scores_after", None)
        if "scores_after" in data
        else None,
        note=_str(data["note"], f"{f}.note") if "note" in data else None,
    )


def _parse_points(value: Any, name: str, players: Sequence[str], exclude: str | None) -> int | dict[str, int]:
    if isinstance(value, Mapping):
        out = _score_map(value, players, name, 0)
        if exclude in out:
            raise _err("bad_field", f"{name}.{exclude}: a player does not pay himself", f"{name}.{exclude}")
        return out
    return _int(value, name)


def _parse_start(raw: Any, rules: str, players: Sequence[str]) -> Start:
    data = _object(raw, "start", START_FIELDS)
    scores = None
    if "scores" in data:
        scores = _score_map(data["scores"], players, "start.scores", None)
        if set(scores) != set(players):
            raise _err("bad_field", "start.scores must give every player's score", "start.scores")
    rnd = number = honba = pot = None
    dealer = None
    if rules == "totenko_balance":
        for key in ("round", "number", "pot"):
            if key in data:
                raise _err("bad_field", f"start.{key}: Totenko has no rounds; give start.dealer", f"start.{key}")
        if "dealer" in data:
            dealer = _player(data["dealer"], players, "start.dealer")
    else:
        if "dealer" in data:
            raise _err(
                "bad_field", "start.dealer: the dealer follows from start.round and start.number", "start.dealer"
            )
        rounds = {"jun": 4, "riichi": 2}.get(rules, 2)
        if "round" in data:
            if data["round"] not in WINDS[:rounds]:
                raise _err("bad_field", f"start.round must be one of {', '.join(WINDS[:rounds])}", "start.round")
            rnd = str(data["round"])
        if "number" in data:
            number = _bounded(data["number"], "start.number", _START["number"])
        if "pot" in data:
            if rules != "riichi":
                raise _err("bad_field", "start.pot: riichi deposits exist only in the riichi ruleset", "start.pot")
            pot = _bounded(data["pot"], "start.pot", _START["pot"])
    if "honba" in data:
        if rules == "jun":
            raise _err("bad_field", "start.honba: Jun has no honba", "start.honba")
        honba = _bounded(data["honba"], "start.honba", _START["honba"])
    return Start(scores, rnd, number, honba, dealer, pot)


def parse_record(data: Any) -> GameRecord:
    """Check a game record (JSON already decoded) and build the :class:`GameRecord`.

    Every problem is a :class:`HandError` whose ``field`` is a path into the record
    (``hands[3].discarder``, ``hands[0].hand.win_tile``, ``options.start_points`` …). Hands are
    checked for shape here and scored by :func:`replay`.
    """
    rec = _object(data, None, RECORD_FIELDS)
    if "format" in rec and rec["format"] != FORMAT:
        raise _err("bad_field", f"format must be {FORMAT!r}, not {rec['format']!r}", "format")
    if "rules" not in rec:
        raise _err("bad_field", "rules is required: the ruleset the game was played under", "rules")
    rules = _parse_rules(rec["rules"])
    options = rec.get("options") or {}
    if not isinstance(options, Mapping):
        raise _err("bad_field", "options must be an object", "options")
    get_ruleset(rules).parse_options(options)  # unknown_option / bad_option naming options.<name>
    if rules in BOO_FAMILY:
        settlement_rules(rules, options)
    game_options = parse_game_options(rules, rec.get("game_options"))
    if "players" not in rec:
        raise _err("bad_field", "players is required", "players")
    players = _parse_players(rec["players"], rules)
    hands_raw = rec.get("hands")
    if not isinstance(hands_raw, list) or len(hands_raw) > MAX_HANDS:
        raise _err("bad_field", f"hands must be a list of at most {MAX_HANDS} hands", "hands")
    hands = tuple(_parse_entry(h, i, rules, players) for i, h in enumerate(hands_raw))
    start = _parse_start(rec["start"], rules, players) if "start" in rec else None
    if (
        start is not None
        and start.round is not None
        and rules == "riichi"
        and WINDS.index(start.round) >= game_options["rounds"]
    ):
        raise _err(
            "bad_field",
            f"start.round: a game of {game_options['rounds']} round(s) has no {start.round} round",
            "start.round",
        )
    abandoned = None
    if "abandoned" in rec:
        if rules != "jun":
            raise _err("bad_field", "abandoned: only Jun (第17条) rules on abandoned games", "abandoned")
        ab = _object(rec["abandoned"], "abandoned", ABANDONED_FIELDS)
        if ab.get("reason") not in ABANDON_REASONS:
            raise _err("bad_field", f"abandoned.reason must be one of {', '.join(ABANDON_REASONS)}", "abandoned.reason")
        offender = None
        if ab.get("reason") == PERSONAL:
            offender = _player(ab.get("offender"), players, "abandoned.offender")
        elif "offender" in ab:
            raise _err("bad_field", "abandoned.offender belongs to a personal_reason only", "abandoned.offender")
        abandoned = Abandoned(str(ab["reason"]), offender)
    info = {k: _str(rec[k], k) for k in INFO_FIELDS if k in rec}
    given = {k: game_options[k] for k in rec.get("game_options") or {}}
    return GameRecord(rules, players, hands, dict(options), given, start, abandoned, info)


def json_error_message(exc: json.JSONDecodeError) -> str:
    """What is wrong with a JSON text and where, as every entry point (CLI, ``/v1/games``, sheets) says it.

    >>> json_error_message(json.JSONDecodeError("Expecting value", '{"a": }', 6))
    'not valid JSON: Expecting value (line 1, column 7)'
    """
    return f"not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})"


def load_json_text(text: str, loads: Callable[[str], Any] = json.loads) -> Any:
    """Decode a record's JSON text with ``loads`` (the service's is strict); ``bad_json`` saying what and
    where (line and column) otherwise.

    >>> try:
    ...     load_json_text('{"rules": "boo", "players": [1,}')
    ... except HandError as e:
    ...     print(e.message)
    not valid JSON: Expecting value (line 1, column 32)
    """
    if text.startswith("\ufeff"):  # a byte-order mark some editors write
        text = text[1:]
    try:
        return loads(text)
    except json.JSONDecodeError as exc:
        raise _err("bad_json", json_error_message(exc), None) from None
    except RecursionError:
        raise _err("bad_json", "the input is nested too deeply", None) from None
    except ValueError:  # whole numbers of thousands of digits
        raise _err("bad_json", "not valid JSON: a number has more digits than any field can hold", None) from None


def parse_record_text(text: str) -> GameRecord:
    """:func:`parse_record` of JSON text (``bad_json`` with line and column when it is not JSON)."""
    return parse_record(load_json_text(text))


def dump_record(rec: GameRecord) -> dict[str, Any]:
    """The record as canonical JSON (fields at their defaults left out): ``parse_record`` of it is ``rec``."""
    out: dict[str, Any] = {"format": FORMAT, **dict(rec.info), "rules": rec.rules}
    if rec.options:
        out["options"] = dict(rec.options)
    if rec.game_options:
        out["game_options"] = dict(rec.game_options)
    out["players"] = list(rec.players)
    if rec.start is not None:
        s = rec.start
        out["start"] = {
            k: (dict(v) if isinstance(v, Mapping) else v)
            for k, v in (
                ("scores", s.scores),
                ("round", s.round),
                ("number", s.number),
                ("honba", s.honba),
                ("dealer", s.dealer),
                ("pot", s.pot),
            )
            if v is not None
        }
    hands = []
    for h in rec.hands:
        d: dict[str, Any] = {"result": h.result}
        for key in ("winner", "discarder", "player"):
            if getattr(h, key) is not None:
                d[key] = getattr(h, key)
        if h.hand is not None:
            d["hand"] = dict(h.hand)
        if h.points is not None:
            d["points"] = dict(h.points) if isinstance(h.points, Mapping) else h.points
        if h.tenpai is not None:
            d["tenpai"] = list(h.tenpai)
        if h.riichi:
            d["riichi"] = list(h.riichi)
        for key in ("dealer", "honba"):
            if getattr(h, key) is not None:
                d[key] = getattr(h, key)
        if h.scores_after is not None:
            d["scores_after"] = dict(h.scores_after)
        if h.note is not None:
            d["note"] = h.note
        hands.append(d)
    out["hands"] = hands
    if rec.abandoned is not None:
        out["abandoned"] = {
            "reason": rec.abandoned.reason,
            **({"offender": rec.abandoned.offender} if rec.abandoned.offender is not None else {}),
        }
    return out
