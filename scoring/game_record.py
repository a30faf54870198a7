"""Game records: a paper score sheet as JSON, replayed hand by hand and settled.

A club writes down each hand of a game — who won, from whom, how much — and settles at the end.
Mistakes on paper are common (a wrong fu count, a honba forgotten, a win the house forbids), so a
record keeps what the sheet says (``points`` as written) and, where the tiles are known, the Hand
itself; the replay recomputes every Hand, applies the ruleset's dealer rotation, honba, draw and
end-of-game rules, and flags each hand where the sheet and the rules disagree, with both numbers.

The format is documented in ``docs/game_records.md`` and ``scoring/game_record_schema.json``.
Game-level rules are not re-implemented here: the Boo family uses :mod:`paiscan.scoring.settlement_boo`,
Totenko :mod:`paiscan.scoring.game_totenko`, Jun :mod:`paiscan.scoring.evaluation_jun`; riichi's standard rotation
is the only one written here.

* :func:`parse_record` — JSON → a frozen :class:`GameRecord` (a :class:`HandError` naming the field
  otherwise); :func:`dump_record` — back to canonical JSON (``parse(dump(r)) == r``);
* :func:`replay` — the :class:`GameReplay`: every hand with the deal, the points, the running scores,
  warnings and disputes, the end of the game and the settlement; ``to_dict`` / ``csv_text``.

>>> rec = parse_record({"rules": "boo", "players": ["A", "B", "C", "D"], "hands": [
...     {"result": "ron", "winner": "B", "discarder": "C", "points": 1000},
...     {"result": "draw"}]})
>>> r = replay(rec)
>>> [h.label for h in r.hands], r.final
(['East 1, 0 honba', 'East 2, 0 honba'], {'A': 2000, 'B': 3000, 'C': 1000, 'D': 2000})
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from importlib import resources
from typing import Any

from paiscan.scoring.errors import HandError
from paiscan.scoring.evaluation_jun import (
    HANDS_PER_GAME,
    HANDS_PER_ROUND,
    PERSONAL,
    SHORTENED,
    START_POINTS,
    GameResult,
    deal,
    evaluate_abandoned,
    evaluate_game,
    player_figures,
)
from paiscan.scoring.evaluation_jun import win_deltas as jun_win_deltas
from paiscan.scoring.game_totenko import FIRST_HONBA, next_deal, noten_payments, seat_winds
from paiscan.scoring.game_totenko import win_deltas as totenko_win_deltas
from paiscan.scoring.hand import HAND_FIELDS
from paiscan.scoring.registry import get_ruleset
from paiscan.scoring.rulesets.boo import next_honba as boo_next_honba
from paiscan.scoring.score import Score
from paiscan.scoring.settlement_boo import (
    FORBIDDEN,
    SettlementRules,
    check_win,
    game_end,
    pays_from_score,
    settle,
    settlement_rules,
)
from paiscan.scoring.tiles import WINDS

#: The format's JSON Schema (``game_record_schema.json``): the one place its field names, enums and limits
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

#: dispute kinds: where the sheet and the rules disagree
POINTS_DIFFER, SCORES_DIFFER, DEAL_DIFFERS, FORBIDDEN_WIN, AFTER_END, RIICHI_DIFFERS = (
    "points_differ",
    "scores_differ",
    "deal_differs",
    "forbidden_win",
    "after_end",
    "riichi_differs",
)
#: hand status in the replay
APPLIED, REFUSED, NOT_APPLIED = "applied", "refused", "after_end"


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
RIICHI_DEPOSIT = 1000


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


# ------------------------------------------------------------------ the replay
@dataclass(frozen=True)
class DealState:
    """The deal before a hand: dealer (index into the players), honba, and for four players the round
    (wind index) and the hand of the round; ``pot`` holds riichi deposits not yet won."""

    dealer: int
    honba: int = 0
    round: int = 0
    number: int = 1
    pot: int = 0

    @property
    def jun_number(self) -> int:
        """Jun's hand 1..16."""
        return self.round * HANDS_PER_ROUND + self.number


@dataclass(frozen=True)
class Dispute:
    """Where the sheet and the rules disagree: the hand (``no``, 1-based; ``field`` names it in the
    record), the kind, what the sheet says and what the replay finds, and why."""

    no: int
    field: str
    kind: str
    message: str
    written: Any = None
    recomputed: Any = None
    explanation: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "no": self.no,
            "field": self.field,
            "kind": self.kind,
            "message": self.message,
            "written": self.written,
            "recomputed": self.recomputed,
            "explanation": list(self.explanation),
        }


@dataclass(frozen=True)
class HandReplay:
    """One hand as replayed: the deal it was played in, what the sheet says (``written``), the
    recomputed price (``recomputed``: total, who pays, han/fu, explanation), which one was applied,
    each player's change and score after it, and anything to look at (warnings, disputes)."""

    no: int
    label: str
    dealer: str
    honba: int
    result: str
    status: str
    deltas: Mapping[str, int]
    scores: Mapping[str, int]
    winner: str | None = None
    discarder: str | None = None
    player: str | None = None
    written: Any = None
    recomputed: Mapping[str, Any] | None = None
    applied: str | None = None
    ends: str | None = None
    warnings: tuple[str, ...] = ()
    disputes: tuple[Dispute, ...] = ()
    notes: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "no": self.no,
            "label": self.label,
            "dealer": self.dealer,
            "honba": self.honba,
            "result": self.result,
            "winner": self.winner,
            "discarder": self.discarder,
            "player": self.player,
            "status": self.status,
            "written": dict(self.written) if isinstance(self.written, Mapping) else self.written,
            "recomputed": dict(self.recomputed) if self.recomputed is not None else None,
            "applied": self.applied,
            "deltas": dict(self.deltas),
            "scores": dict(self.scores),
            "ends": self.ends,
            "warnings": list(self.warnings),
            "disputes": [d.to_dict() for d in self.disputes],
            "notes": list(self.notes),
        }


@dataclass(frozen=True)
class Standing:
    """One player's line of the result: final score, the settlement's figure (``net``), rank and result."""

    player: str
    final: int
    net: int
    rank: int
    result: str

    def to_dict(self) -> dict[str, Any]:
        return {"player": self.player, "final": self.final, "net": self.net, "rank": self.rank, "result": self.result}


@dataclass(frozen=True)
class GameReplay:
    """The replayed game: every hand, the end (``end``: reason and the hand after which it ended, or
    None when the sheet stops first: ``finished`` false and a provisional settlement), the final
    scores, the ruleset's settlement and each player's standing, and every dispute."""

    rules: str
    players: tuple[str, ...]
    start: Mapping[str, int]
    hands: tuple[HandReplay, ...]
    final: Mapping[str, int]
    finished: bool
    end: Mapping[str, Any] | None
    settlement: Mapping[str, Any]
    standings: tuple[Standing, ...]
    warnings: tuple[str, ...] = ()

    @property
    def disputes(self) -> tuple[Dispute, ...]:
        return tuple(d for h in self.hands for d in h.disputes)

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "rules": self.rules,
            "players": list(self.players),
            "start": dict(self.start),
            "hands": [h.to_dict() for h in self.hands],
            "final": dict(self.final),
            "finished": self.finished,
            "end": dict(self.end) if self.end is not None else None,
            "settlement": dict(self.settlement),
            "standings": [s.to_dict() for s in self.standings],
            "disputes": [d.to_dict() for d in self.disputes],
            "warnings": list(self.warnings),
        }

    def csv_text(self) -> str:
        """A club spreadsheet: one row per hand (each player's change and score), then one row per
        player (final, net, rank, result)."""
        buf = io.StringIO()
        w = _SafeCsv(csv.writer(buf, lineterminator="\n"))
        w.writerow(
            [
                "no",
                "deal",
                "dealer",
                "honba",
                "result",
                "winner",
                "from",
                "written",
                "recomputed",
                "applied",
                "status",
                *(f"{p} change" for p in self.players),
                *(f"{p} score" for p in self.players),
                "disputes",
                "warnings",
            ]
        )
        for h in self.hands:
            rec_total = h.recomputed.get("total") if h.recomputed else None
            w.writerow(
                [
                    h.no,
                    h.label,
                    h.dealer,
                    h.honba,
                    h.result,
                    h.winner or "",
                    h.discarder or h.player or "",
                    _cell(h.written),
                    "" if rec_total is None else rec_total,
                    h.applied or "",
                    h.status,
                    *(h.deltas.get(p, 0) for p in self.players),
                    *(h.scores[p] for p in self.players),
                    " | ".join(d.message for d in h.disputes),
                    " | ".join(h.warnings),
                ]
            )
        w.writerow([])
        w.writerow(["player", "final", "net", "rank", "result"])
        for s in self.standings:
            w.writerow([s.player, s.final, s.net, s.rank, s.result])
        return buf.getvalue()


_NUMBER = re.compile(r"[+-]?\d+(\.\d+)?")


class _SafeCsv:
    """A CSV writer whose text cells cannot run as spreadsheet formulas: a player named
    ``=HYPERLINK(…)`` is written ``'=HYPERLINK(…)`` (numbers stay numbers).

    >>> buf = io.StringIO(); _SafeCsv(csv.writer(buf)).writerow(["=1+1", "-A", -3000, "-300", "Ann"])
    >>> buf.getvalue()
    "'=1+1,'-A,-3000,-300,Ann\\r\\n"
    """

    def __init__(self, writer: Any) -> None:
        self.writer = writer

    def writerow(self, row: Sequence[Any]) -> None:
        self.writer.writerow(
            [
                f"'{c}"
                if isinstance(c, str) and c[:1] in ("=", "+", "-", "@", "\t", "\r") and not _NUMBER.fullmatch(c)
                else c
                for c in row
            ]
        )


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, Mapping):
        return " ".join(f"{k}:{v}" for k, v in value.items())
    return str(value)


@dataclass(frozen=True)
class _Played:
    """What a frame returns for one hand."""

    hand: HandReplay
    state: DealState
    scores: dict[str, int]
    ends: str | None = None
    yakuman_winner: str | None = None


def _apply(scores: Mapping[str, int], deltas: Mapping[str, int]) -> dict[str, int]:
    return {p: v + deltas.get(p, 0) for p, v in scores.items()}


def _pays_deltas(winner: str, pays: Mapping[str, int]) -> dict[str, int]:
    deltas = {p: -a for p, a in pays.items() if a}
    deltas[winner] = sum(pays.values())
    return deltas


def _nonzero(m: Mapping[str, int]) -> dict[str, int]:
    return {k: v for k, v in m.items() if v}


def _explain(score: Score) -> tuple[str, ...]:
    return tuple(f"{s.label}: {s.detail}" for s in score.steps)


@dataclass(frozen=True)
class _Priced:
    """A win's points: the recomputed Score and payers (when the Hand is known), what the sheet says,
    what is applied and from where, and the dispute if they differ."""

    score: Score | None
    recomputed: dict[str, Any] | None
    pays: dict[str, int]
    applied: str
    disputes: tuple[Dispute, ...]


@dataclass(frozen=True)
class _Frame:
    """A ruleset's game frame; subclasses implement the rules, this class the common bookkeeping."""

    rec: GameRecord
    gopts: Mapping[str, Any]

    @property
    def players(self) -> tuple[str, ...]:
        return self.rec.players

    # ---- hooks
    def start_points(self) -> int:
        raise NotImplementedError

    def initial_state(self) -> DealState:
        s = self.rec.start or Start()
        rnd = WINDS.index(s.round) if s.round else 0
        number = s.number or 1
        return DealState(
            dealer=(number - 1) % len(self.players), honba=s.honba or 0, round=rnd, number=number, pot=s.pot or 0
        )

    def label(self, st: DealState) -> str:
        return f"{WINDS[st.round].capitalize()} {st.number}, {st.honba} honba"

    def seat_wind(self, st: DealState, player: str) -> str:
        return WINDS[(self.players.index(player) - st.dealer) % len(self.players)]

    def round_wind(self, st: DealState) -> str:
        return WINDS[st.round]

    def equal_tsumo(self, st: DealState, winner: str) -> bool:
        """Whether every payer of a tsumo pays the same (a written total can then be split)."""
        return self.players[st.dealer] == winner

    def score_pays(self, score: Score, st: DealState, winner: str, discarder: str | None, field: str) -> dict[str, int]:
        try:
            return pays_from_score(score, winner, self.players[st.dealer], self.players, discarder)
        except HandError as e:
            raise _err(e.code, f"{field}: {e.message}", f"{field}.{e.field}" if e.field else field) from None

    def play(self, i: int, entry: HandEntry, st: DealState, scores: dict[str, int]) -> _Played:
        raise NotImplementedError

    def settlement(
        self, final: Mapping[str, int], st: DealState, end: Mapping[str, Any] | None, yakuman_winner: str | None
    ) -> tuple[dict[str, Any], tuple[Standing, ...]]:
        raise NotImplementedError

    # ---- common parts
    def hand_json(self, entry: HandEntry, st: DealState) -> dict[str, Any]:
        assert entry.hand is not None and entry.winner is not None
        data = dict(entry.hand)
        own = data.pop("options", None) or {}
        if not isinstance(own, Mapping):  # (the caller names the hand: hands[i].hand.options)
            raise HandError("bad_field", "options must be an object of name: value", "options")
        options = {**self.rec.options, **own}
        return {
            **data,
            "rules": self.rec.rules,
            "options": options,
            "win": entry.result,
            "seat_wind": self.seat_wind(st, entry.winner),
            "round_wind": self.round_wind(st),
            "honba": st.honba,
        }

    def score(self, i: int, entry: HandEntry, st: DealState) -> Score:
        from paiscan.scoring import score_hand

        f = f"hands[{i}].hand"
        try:
            return score_hand(self.hand_json(entry, st))
        except HandError as e:
            raise _err(e.code, f"{f}: {e.message}", f"{f}.{e.field}" if e.field else f) from None

    def written_pays(self, i: int, entry: HandEntry, st: DealState) -> dict[str, int] | None:
        """The sheet's points as payer → amount, or None when a total cannot be split."""
        assert entry.winner is not None
        if isinstance(entry.points, Mapping):
            return dict(entry.points)
        if entry.points is None:
            return None
        if entry.result == "ron" or entry.discarder is not None:
            assert entry.discarder is not None
            return {entry.discarder: entry.points}
        payers = [p for p in self.players if p != entry.winner]
        if self.equal_tsumo(st, entry.winner) and entry.points % len(payers) == 0:
            return dict.fromkeys(payers, entry.points // len(payers))
        return None

    def price(self, i: int, entry: HandEntry, st: DealState, score: Score | None) -> _Priced:
        """Recomputed vs written points, and which are applied (the Hand's unless ``prefer_points``
        is ``written``); a difference is a :data:`POINTS_DIFFER` dispute with both numbers."""
        assert entry.winner is not None
        f = f"hands[{i}]"
        written = self.written_pays(i, entry, st)
        recomputed = None
        rec_pays: dict[str, int] | None = None
        disputes: list[Dispute] = []
        if score is not None:
            rec_pays = _nonzero(self.score_pays(score, st, entry.winner, entry.discarder, f))
            total = sum(rec_pays.values())
            recomputed = {
                "total": total,
                "pays": rec_pays,
                "han": score.han,
                "fu": score.fu,
                "limit": score.limit,
                "yaku": [{"id": y.id, "value": y.value, "unit": y.unit} for y in score.yaku],
                "warnings": list(score.warnings),
                "explanation": list(_explain(score)),
            }
            if entry.points is not None:
                if isinstance(entry.points, Mapping):
                    same = _nonzero(entry.points) == rec_pays
                    shown_w: Any = dict(entry.points)
                    shown_r: Any = rec_pays
                else:
                    same = entry.points == total
                    shown_w, shown_r = entry.points, total
                if not same:
                    disputes.append(
                        Dispute(
                            i + 1,
                            f"{f}.points",
                            POINTS_DIFFER,
                            f"hand {i + 1}: the sheet says {_cell(shown_w)}, the Hand is worth {_cell(shown_r)} "
                            f"({_summary(score)})",
                            shown_w,
                            shown_r,
                            _explain(score),
                        )
                    )
        use_written = entry.points is not None and (rec_pays is None or self.gopts["prefer_points"] == "written")
        if use_written and written is not None:
            return _Priced(score, recomputed, written, "written", tuple(disputes))
        if rec_pays is not None:
            return _Priced(score, recomputed, rec_pays, "recomputed", tuple(disputes))
        raise _err(
            "ambiguous_points",
            f"{f}.points: a tsumo total of {entry.points} cannot be split among the payers under this ruleset "
            f"(the dealer pays more); write what each paid, e.g. {self.split_example(entry.winner, st, entry.points)}",
            f"{f}.points",
        )

    def split_example(self, winner: str, st: DealState, total: Any) -> str:
        """A per-payer map for an ambiguous tsumo total, with this hand's payers: the dealer's share
        twice each other's (riichi's and Boo's ratio before per-payer extras), in hundreds."""
        dealer = self.players[st.dealer]
        payers = [p for p in self.players if p != winner]
        unit = 100 * max(1, round(total / (100 * (len(payers) + 1)))) if isinstance(total, int) else 1000
        example = {p: 2 * unit if p == dealer else unit for p in payers}
        return json.dumps(example, ensure_ascii=False)

    def hand_replay(
        self,
        i: int,
        entry: HandEntry,
        st: DealState,
        status: str,
        deltas: Mapping[str, int],
        scores: Mapping[str, int],
        **kw: Any,
    ) -> HandReplay:
        return HandReplay(
            no=i + 1,
            label=self.label(st),
            dealer=self.players[st.dealer],
            honba=st.honba,
            result=entry.result,
            status=status,
            deltas=_nonzero(deltas),
            scores=dict(scores),
            winner=entry.winner,
            discarder=entry.discarder,
            player=entry.player,
            written=entry.points,
            **kw,
        )

    def chombo_pays(self, i: int, entry: HandEntry, st: DealState) -> tuple[dict[str, int], str, tuple[Dispute, ...]]:
        """What the offender pays each player: the house rule (:data:`CHOMBO_BASIC`, a reversed tsumo)
        unless the sheet's amounts are preferred or the rule has none."""
        assert entry.player is not None
        f = f"hands[{i}].points"
        others = [p for p in self.players if p != entry.player]
        dealer = self.players[st.dealer]
        basic = CHOMBO_BASIC.get(self.rec.rules)
        rule = None
        if basic is not None:
            rule = {p: 2 * basic if entry.player == dealer or p == dealer else basic for p in others}
        written: dict[str, int] | None = None
        if isinstance(entry.points, Mapping):
            written = dict(entry.points)
        elif entry.points is not None:
            if entry.points % len(others):
                raise _err(
                    "ambiguous_points",
                    f"{f}: {entry.points} cannot be split evenly; write what each player received",
                    f,
                )
            written = dict.fromkeys(others, entry.points // len(others))
        disputes: tuple[Dispute, ...] = ()
        if rule is not None and written is not None and _nonzero(written) != rule:
            disputes = (
                Dispute(
                    i + 1,
                    f,
                    POINTS_DIFFER,
                    f"hand {i + 1}: the sheet says the chombo paid {_cell(written)}, the house rule is {_cell(rule)}",
                    written,
                    rule,
                ),
            )
        if rule is not None and (written is None or self.gopts["prefer_points"] == "recomputed"):
            return rule, "rule", disputes
        assert written is not None
        return written, "written", disputes


def _summary(score: Score) -> str:
    """The price in the ruleset's own unit: han and fu, or for additive rulesets (Totenko, WSOM) the
    points of each yaku and item."""
    if any(y.unit == "points" for y in score.yaku):
        item_ids = {it.id for it in score.items}
        counted = [(y.id, y.value) for y in score.yaku if y.id not in item_ids]  # items may list the yaku
        counted += [(it.id, it.value) for it in score.items]
        return f"{sum(v for _, v in counted)} points: " + ", ".join(f"{k} {v}" for k, v in counted)
    parts: list[str] = []
    if score.fu:
        parts.append(f"{score.fu} fu")
    parts.append(f"{score.han} han")
    if score.limit:
        parts.append(score.limit)
    yaku = ", ".join(y.id for y in score.yaku)
    return " ".join(parts) + (f": {yaku}" if yaku else "")


def _pass_deal(st: DealState, players: int, honba: int) -> DealState:
    """The deal moves to the next seat; after the 4th hand of a round the next round starts."""
    number, rnd = st.number + 1, st.round
    if number > HANDS_PER_ROUND:
        number, rnd = 1, rnd + 1
    return DealState(dealer=(st.dealer + 1) % players, honba=honba, round=rnd, number=number, pot=st.pot)


def _order(final: Mapping[str, int], players: Sequence[str], first: int = 0) -> list[str]:
    """Players by score, ties by seat order from ``players[first]``."""
    seat = {p: (i - first) % len(players) for i, p in enumerate(players)}
    return sorted(players, key=lambda p: (-final[p], seat[p]))


# ------------------------------------------------------------------ Boo family
@dataclass(frozen=True)
class _BooFrame(_Frame):
    """ブー麻雀 / 関西式: East-South; a dealer win repeats (honba +1), every draw passes the deal (honba
    +1), a non-dealer win passes it (honba 0); the game ends at a score ≤ 0, at twice the origin, or after
    South 4 (a dealer win there repeats); wins are judged by :func:`paiscan.scoring.settlement_boo.check_win`."""

    srules: SettlementRules

    def start_points(self) -> int:
        return self.srules.origin

    def all_last(self, st: DealState) -> bool:
        return st.round == 1 and st.number == HANDS_PER_ROUND

    def play(self, i: int, entry: HandEntry, st: DealState, scores: dict[str, int]) -> _Played:
        dealer = self.players[st.dealer]
        all_last = self.all_last(st)
        if entry.result == "draw":
            ends = game_end(scores, self.srules, all_last=all_last, winner=None)
            notes = ("every draw passes the deal (いかなる流局も親流れ), honba + 1; no noten payments",)
            h = self.hand_replay(i, entry, st, APPLIED, {}, scores, applied="rule", ends=ends, notes=notes)
            return _Played(h, _pass_deal(st, 4, st.honba + 1), scores, ends)
        if entry.result == "chombo":
            pays, applied, penalty_disputes = self.chombo_pays(i, entry, st)
            deltas = dict(pays)
            deltas[entry.player or ""] = -sum(pays.values())
            after = _apply(scores, deltas)
            ends = game_end(after, self.srules)
            notes = ("チョンボ: the offender pays, the same dealer deals again with the same honba",)
            h = self.hand_replay(
                i, entry, st, APPLIED, deltas, after, applied=applied, ends=ends, disputes=penalty_disputes, notes=notes
            )
            return _Played(h, st, after, ends)
        assert entry.winner is not None
        score = self.score(i, entry, st) if entry.hand is not None else None
        priced = self.price(i, entry, st, score)
        yakuman = bool(score is not None and score.extra.get("yakuman"))
        check = check_win(
            scores,
            entry.winner,
            priced.pays,
            self.srules,
            dealer=dealer,
            all_last=all_last,
            start_dealer=self.players[0],
            yakuman=yakuman,
        )
        warnings = tuple(str(w) for w in check.warnings)
        disputes: list[Dispute] = list(priced.disputes)
        if not check.allowed:
            disputes.append(
                Dispute(
                    i + 1,
                    f"hands[{i}]",
                    FORBIDDEN_WIN,
                    f"hand {i + 1}: {entry.winner}'s win is forbidden "
                    f"({check.reason}): " + "; ".join(w.message for w in check.warnings if w.severity == FORBIDDEN),
                    explanation=warnings,
                )
            )
            if self.gopts["forbidden_wins"] == "refuse":
                h = self.hand_replay(
                    i,
                    entry,
                    st,
                    REFUSED,
                    {},
                    scores,
                    recomputed=priced.recomputed,
                    applied=priced.applied,
                    warnings=warnings,
                    disputes=tuple(disputes),
                    notes=(
                        "the win is refused: no payment, the same deal is played again "
                        "(game_options.forbidden_wins: apply to count it)",
                    ),
                )
                return _Played(h, st, scores)
        after = check.after
        deltas = _pays_deltas(entry.winner, check.pays)
        ends = check.ends
        if not check.allowed:  # applied anyway (forbidden_wins: apply)
            ends = game_end(after, self.srules, all_last=all_last, winner=entry.winner, dealer=dealer)
        if score is not None and "next_honba" in score.extra:
            honba = int(score.extra["next_honba"])
        else:
            honba = boo_next_honba(st.honba, entry.winner == dealer)
        nxt = replace(st, honba=honba) if entry.winner == dealer else _pass_deal(st, 4, honba)
        h = self.hand_replay(
            i,
            entry,
            st,
            APPLIED,
            deltas,
            after,
            recomputed=priced.recomputed,
            applied=priced.applied,
            ends=ends,
            warnings=warnings,
            disputes=tuple(disputes),
        )
        return _Played(h, nxt, after, ends, entry.winner if ends == "yakuman" else None)

    def settlement(
        self, final: Mapping[str, int], st: DealState, end: Mapping[str, Any] | None, yakuman_winner: str | None
    ) -> tuple[dict[str, Any], tuple[Standing, ...]]:
        s = settle(final, self.srules, self.players[0], yakuman_winner)
        out = {"kind": "boo_family", "provisional": end is None, **s.to_dict()}
        st_ = s.standing
        rank = {p: k + 1 for k, p in enumerate(st_.order)}

        def result(p: str) -> str:
            if st_.type is None:
                return "no settlement"
            if p == st_.top:
                return f"top ({st_.type})" + (" gentsuu" if st_.gentsuu else "")
            return "loses" if p in st_.losers else "neutral"

        return out, tuple(Standing(p, final[p], s.net[p], rank[p], result(p)) for p in self.players)


# ------------------------------------------------------------------ riichi
@dataclass(frozen=True)
class _RiichiFrame(_Frame):
    """Standard riichi [assumed, common practice]: the dealer repeats on a win or on being tenpai at a
    draw (honba +1 either way), a non-dealer win passes the deal and resets honba; noten payments total
    3000; riichi deposits (1000) go to the next winner; the game ends after the last round's 4th hand
    or when a player is below 0."""

    def start_points(self) -> int:
        return int(self.gopts["start_points"])

    def ended(self, st: DealState, after: Mapping[str, int], passes: bool) -> str | None:
        if any(v < 0 for v in after.values()):
            return "bust"
        if passes and st.round == self.gopts["rounds"] - 1 and st.number == HANDS_PER_ROUND:
            return "all_last"
        return None

    def play(self, i: int, entry: HandEntry, st: DealState, scores: dict[str, int]) -> _Played:
        dealer = self.players[st.dealer]
        if entry.result == "chombo":
            pays, applied, penalty_disputes = self.chombo_pays(i, entry, st)
            deltas = dict(pays)
            deltas[entry.player or ""] = -sum(pays.values())
            after = _apply(scores, deltas)
            ends = self.ended(st, after, passes=False)
            h = self.hand_replay(
                i,
                entry,
                st,
                APPLIED,
                deltas,
                after,
                applied=applied,
                ends=ends,
                disputes=penalty_disputes,
                notes=("chombo: a mangan paid like a reversed tsumo; the hand is replayed",),
            )
            return _Played(h, st, after, ends)
        deltas = {p: -RIICHI_DEPOSIT for p in entry.riichi}
        pot = st.pot + len(entry.riichi)
        notes: list[str] = []
        if entry.riichi:
            notes.append(f"riichi deposits: {', '.join(entry.riichi)} (1000 each)")
        if entry.result == "draw":
            tenpai = entry.tenpai or ()
            noten = [p for p in self.players if p not in tenpai]
            total = int(self.gopts["noten_total"])
            if tenpai and noten:
                for p in tenpai:
                    deltas[p] = deltas.get(p, 0) + total // len(tenpai)
                for p in noten:
                    deltas[p] = deltas.get(p, 0) - total // len(noten)
                notes.append(f"noten payments: {total} from {', '.join(noten)} to {', '.join(tenpai)}")
            after = _apply(scores, deltas)
            repeat = dealer in tenpai
            ends = self.ended(st, after, passes=not repeat)
            notes.append("dealer tenpai: the dealer repeats" if repeat else "dealer noten: the deal passes")
            nxt = (
                replace(st, honba=st.honba + 1, pot=pot)
                if repeat
                else _pass_deal(replace(st, pot=pot), 4, st.honba + 1)
            )
            h = self.hand_replay(i, entry, st, APPLIED, deltas, after, applied="rule", ends=ends, notes=tuple(notes))
            return _Played(h, nxt, after, ends)
        assert entry.winner is not None
        score = self.score(i, entry, st) if entry.hand is not None else None
        priced = self.price(i, entry, st, score)
        disputes: list[Dispute] = list(priced.disputes)
        if score is not None and entry.hand is not None:
            flagged = bool({"riichi", "double_riichi"} & set(entry.hand.get("flags") or []))
            if flagged != (entry.winner in entry.riichi) and (entry.riichi or flagged):
                disputes.append(
                    Dispute(
                        i + 1,
                        f"hands[{i}].riichi",
                        RIICHI_DIFFERS,
                        f"hand {i + 1}: the Hand "
                        f"{'has' if flagged else 'has no'} riichi but {entry.winner} is "
                        f"{'not ' if flagged else ''}listed in riichi",
                    )
                )
        for p, a in _pays_deltas(entry.winner, priced.pays).items():
            deltas[p] = deltas.get(p, 0) + a
        if pot:
            deltas[entry.winner] = deltas.get(entry.winner, 0) + pot * RIICHI_DEPOSIT
            notes.append(f"{entry.winner} takes {pot} riichi deposit(s): {pot * RIICHI_DEPOSIT}")
        after = _apply(scores, deltas)
        repeat = entry.winner == dealer
        ends = self.ended(st, after, passes=not repeat)
        nxt = replace(st, honba=st.honba + 1, pot=0) if repeat else _pass_deal(replace(st, pot=0), 4, 0)
        h = self.hand_replay(
            i,
            entry,
            st,
            APPLIED,
            deltas,
            after,
            recomputed=priced.recomputed,
            applied=priced.applied,
            ends=ends,
            disputes=tuple(disputes),
            notes=tuple(notes),
        )
        return _Played(h, nxt, after, ends)

    def settlement(
        self, final: Mapping[str, int], st: DealState, end: Mapping[str, Any] | None, yakuman_winner: str | None
    ) -> tuple[dict[str, Any], tuple[Standing, ...]]:
        order = _order(final, self.players)
        pot = st.pot * RIICHI_DEPOSIT
        scores = dict(final)
        if pot and self.gopts["leftover_pot"] == "top" and end is not None:
            scores[order[0]] += pot
        start = self.start_points()
        out = {
            "kind": "placement",
            "provisional": end is None,
            "order": order,
            "leftover_pot": pot,
            "pot_to": order[0] if pot and self.gopts["leftover_pot"] == "top" and end is not None else None,
            "final": scores,
        }
        return out, tuple(Standing(p, scores[p], scores[p] - start, order.index(p) + 1, "") for p in self.players)


# ------------------------------------------------------------------ Totenko
@dataclass(frozen=True)
class _TotenkoFrame(_Frame):
    """三人麻雀 東天紅: the winner deals next (honba back to 1), a draw keeps the dealer and adds a honba
    (:func:`paiscan.scoring.game_totenko.next_deal`), noten payments on a draw; no end and no settlement beyond
    the totals."""

    def start_points(self) -> int:
        return int(self.gopts["start_points"])

    def initial_state(self) -> DealState:
        s = self.rec.start or Start()
        dealer = self.players.index(s.dealer) if s.dealer else 0
        return DealState(dealer=dealer, honba=FIRST_HONBA if s.honba is None else s.honba)

    def label(self, st: DealState) -> str:
        return f"{self.players[st.dealer]} deals, {st.honba} honba"

    def seat_wind(self, st: DealState, player: str) -> str:
        return seat_winds(self.players, self.players[st.dealer])[player]

    def round_wind(self, st: DealState) -> str:
        return "east"

    def equal_tsumo(self, st: DealState, winner: str) -> bool:
        return True

    def score_pays(self, score: Score, st: DealState, winner: str, discarder: str | None, field: str) -> dict[str, int]:
        winds = seat_winds(self.players, self.players[st.dealer])
        by_wind = {w: p for p, w in winds.items()}
        try:
            deltas = totenko_win_deltas(score, winds[winner], winds[discarder] if discarder else None)
        except HandError as e:
            raise _err(e.code, f"{field}: {e.message}", f"{field}.{e.field}" if e.field else field) from None
        return {by_wind[w]: -d for w, d in deltas.items() if d < 0}

    def play(self, i: int, entry: HandEntry, st: DealState, scores: dict[str, int]) -> _Played:
        dealer = self.players[st.dealer]
        if entry.result == "draw":
            noten = noten_payments(list(entry.tenpai or ()), options=self.rec.options, players=list(self.players))
            after = _apply(scores, noten.deltas)
            _, honba = next_deal(dealer, st.honba, None)
            notes = (*(f"{s.label}: {s.detail}" for s in noten.steps), "the dealer stays, honba + 1")
            h = self.hand_replay(i, entry, st, APPLIED, noten.deltas, after, applied="rule", notes=notes)
            return _Played(h, replace(st, honba=honba), after)
        if entry.result == "chombo":
            pays, applied, disputes = self.chombo_pays(i, entry, st)
            deltas = dict(pays)
            deltas[entry.player or ""] = -sum(pays.values())
            after = _apply(scores, deltas)
            h = self.hand_replay(
                i,
                entry,
                st,
                APPLIED,
                deltas,
                after,
                applied=applied,
                disputes=disputes,
                notes=("chombo: the same dealer deals again with the same honba",),
            )
            return _Played(h, st, after)
        assert entry.winner is not None
        score = self.score(i, entry, st) if entry.hand is not None else None
        priced = self.price(i, entry, st, score)
        deltas = _pays_deltas(entry.winner, priced.pays)
        after = _apply(scores, deltas)
        new_dealer, honba = next_deal(dealer, st.honba, entry.winner, bool(self.gopts["dealer_win_adds_honba"]))
        nxt = DealState(dealer=self.players.index(new_dealer), honba=honba)
        h = self.hand_replay(
            i,
            entry,
            st,
            APPLIED,
            deltas,
            after,
            recomputed=priced.recomputed,
            applied=priced.applied,
            disputes=priced.disputes,
            notes=("the winner deals next (アガった人が親)",),
        )
        return _Played(h, nxt, after)

    def settlement(
        self, final: Mapping[str, int], st: DealState, end: Mapping[str, Any] | None, yakuman_winner: str | None
    ) -> tuple[dict[str, Any], tuple[Standing, ...]]:
        order = _order(final, self.players)
        start = self.start_points()
        net = {p: final[p] - start for p in self.players}
        out = {
            "kind": "totals",
            "provisional": False,
            "totals": dict(final),
            "net": net,
            "order": order,
            "note": "Totenko has no end-of-game settlement: the totals are what changes hands",
        }
        return out, tuple(Standing(p, final[p], net[p], order.index(p) + 1, "") for p in self.players)


# ------------------------------------------------------------------ Jun
@dataclass(frozen=True)
class _JunFrame(_Frame):
    """純麻雀: 16 hands (East … North rounds), the deal always rotates (:func:`paiscan.scoring.evaluation_jun.deal`),
    no honba, no draw payments; a chombo (錯和) replays the hand with no payment (第9条); the game is
    evaluated by :func:`paiscan.scoring.evaluation_jun.evaluate_game` (ranks, marks, plus)."""

    def start_points(self) -> int:
        return int(self.gopts["start_points"])

    def label(self, st: DealState) -> str:
        return f"{WINDS[st.round].capitalize()} {st.number} (hand {st.jun_number}/{HANDS_PER_GAME})"

    def seat_wind(self, st: DealState, player: str) -> str:
        return deal(st.jun_number).seat_wind(self.players.index(player))

    def round_wind(self, st: DealState) -> str:
        return deal(st.jun_number).round_wind

    def equal_tsumo(self, st: DealState, winner: str) -> bool:
        return True

    def score_pays(self, score: Score, st: DealState, winner: str, discarder: str | None, field: str) -> dict[str, int]:
        try:
            deltas = jun_win_deltas(score, self.players, st.jun_number, winner, discarder)
        except HandError as e:
            raise _err(e.code, f"{field}: {e.message}", f"{field}.{e.field}" if e.field else field) from None
        return {p: -d for p, d in deltas.items() if d < 0}

    def play(self, i: int, entry: HandEntry, st: DealState, scores: dict[str, int]) -> _Played:
        last = st.jun_number == HANDS_PER_GAME
        ends = "sixteen_hands" if last else None
        if entry.result == "chombo":
            deltas: dict[str, int] = {}
            applied, disputes = "rule", tuple[Dispute, ...]()
            if entry.points is not None:
                pays, applied, disputes = self.chombo_pays(i, entry, st)
                deltas = dict(pays)
                deltas[entry.player or ""] = -sum(pays.values())
            after = _apply(scores, deltas)
            h = self.hand_replay(
                i,
                entry,
                st,
                APPLIED,
                deltas,
                after,
                applied=applied,
                disputes=disputes,
                notes=("錯和: no payment in the seed; the hand is played again (第9条 再ゲーム)",),
            )
            return _Played(h, st, after)
        nxt = _pass_deal(st, 4, 0)
        if entry.result == "draw":
            h = self.hand_replay(
                i,
                entry,
                st,
                APPLIED,
                {},
                scores,
                applied="rule",
                ends=ends,
                notes=("draw: the deal rotates (輪荘), no payments",),
            )
            return _Played(h, nxt, scores, ends)
        assert entry.winner is not None
        score = self.score(i, entry, st) if entry.hand is not None else None
        priced = self.price(i, entry, st, score)
        deltas = _pays_deltas(entry.winner, priced.pays)
        after = _apply(scores, deltas)
        h = self.hand_replay(
            i,
            entry,
            st,
            APPLIED,
            deltas,
            after,
            recomputed=priced.recomputed,
            applied=priced.applied,
            ends=ends,
            disputes=priced.disputes,
        )
        return _Played(h, nxt, after, ends)

    def settlement(
        self, final: Mapping[str, int], st: DealState, end: Mapping[str, Any] | None, yakuman_winner: str | None
    ) -> tuple[dict[str, Any], tuple[Standing, ...]]:
        eval_opts = {k: self.gopts[k] for k in ("start_points", "plus_at_start", "all_tied_rank")}
        ab = self.rec.abandoned
        result: GameResult[str]
        if ab is not None:
            hands_started = min(st.jun_number, HANDS_PER_GAME) if ab.reason == SHORTENED else None
            result = evaluate_abandoned(ab.reason, self.players, final, hands_started, ab.offender, eval_opts)
        else:
            result = evaluate_game(final, eval_opts)
        figures = {p: player_figures([result], p).to_dict() for p in self.players} if result.counted else {}
        out = {
            "kind": "jun",
            "provisional": end is None and ab is None,
            **result.to_dict(),
            "wins": list(result.wins),
            "losses": list(result.losses),
            "draws": list(result.draws),
            "plus": list(result.plus),
            "figures": figures,
        }
        by = {r.player: r for r in result.results}
        return out, tuple(
            Standing(
                p,
                by[p].score if p in by else final[p],
                by[p].points if p in by else 0,
                by[p].rank if p in by else 0,
                f"{by[p].glyph} {by[p].mark}" + (" plus" if by[p].plus else "") if p in by else "no game",
            )
            for p in self.players
        )


def _frame(rec: GameRecord) -> _Frame:
    gopts = parse_game_options(rec.rules, rec.game_options)
    if rec.rules in BOO_FAMILY:
        return _BooFrame(rec, gopts, settlement_rules(rec.rules, rec.options))
    if rec.rules == "totenko_balance":
        return _TotenkoFrame(rec, gopts)
    if rec.rules == "jun":
        return _JunFrame(rec, gopts)
    return _RiichiFrame(rec, gopts)


END_MESSAGES: Mapping[str, str] = {
    "bust": "a score at or below 0 (ドボン)",
    "double": "a score at twice the origin",
    "all_last": "the last hand (オーラス) is over",
    "yakuman": "a yakuman ends the game with its winner A-top",
    "sixteen_hands": "the 16th hand is over",
}


def replay(rec: GameRecord, prefer_points: str | None = None) -> GameReplay:
    """Replay the record: each hand in the deal the ruleset gives it, the points applied (the Hand's,
    else the sheet's), the running scores, the end of the game and the settlement. Hands after the end
    are kept and flagged (:data:`AFTER_END`), never applied. ``prefer_points`` overrides the record's
    ``game_options.prefer_points``."""
    if prefer_points is not None:
        rec = replace(rec, game_options={**rec.game_options, "prefer_points": prefer_points})
    frame = _frame(rec)
    players = rec.players
    start = dict(rec.start.scores) if rec.start and rec.start.scores else dict.fromkeys(players, frame.start_points())
    scores = dict(start)
    st = frame.initial_state()
    hands: list[HandReplay] = []
    end: dict[str, Any] | None = None
    yakuman_winner = None
    for i, entry in enumerate(rec.hands):
        if end is not None:
            msg = (
                f"hand {i + 1} is after the end of the game (after hand {end['after']}: {end['message']}): not applied"
            )
            hands.append(
                HandReplay(
                    i + 1,
                    "after the end",
                    "",
                    0,
                    entry.result,
                    NOT_APPLIED,
                    {},
                    dict(scores),
                    entry.winner,
                    entry.discarder,
                    entry.player,
                    entry.points,
                    disputes=(Dispute(i + 1, f"hands[{i}]", AFTER_END, msg),),
                )
            )
            continue
        played = frame.play(i, entry, st, scores)
        extra = list(_sheet_checks(i, entry, st, played, players))
        h = played.hand
        if extra:
            h = replace(h, disputes=(*h.disputes, *extra))
        hands.append(h)
        scores, st = played.scores, played.state
        if played.ends is not None:
            end = {"reason": played.ends, "after": i + 1, "message": END_MESSAGES.get(played.ends, played.ends)}
            yakuman_winner = played.yakuman_winner
    warnings: list[str] = []
    if rec.abandoned is not None:
        end = end or {
            "reason": "abandoned",
            "after": len(rec.hands),
            "message": f"abandoned ({rec.abandoned.reason}, 第17条)",
        }
    elif end is None and rec.rules != "totenko_balance":
        warnings.append("the sheet stops before the end of the game: the settlement is provisional")
    settlement, standings = frame.settlement(scores, st, end, yakuman_winner)
    finished = end is not None or rec.rules == "totenko_balance"
    # the settlement may move points after the last hand (riichi deposits left on the table go to the
    # top): every field named "final" gives the standings' figure
    final = {s.player: s.final for s in standings}
    return GameReplay(
        rec.rules, players, start, tuple(hands), final, finished, end, settlement, standings, tuple(warnings)
    )


def _sheet_checks(i: int, entry: HandEntry, st: DealState, played: _Played, players: Sequence[str]) -> list[Dispute]:
    """The sheet's own notes (dealer, honba, running scores) against the replay."""
    out: list[Dispute] = []
    f = f"hands[{i}]"
    dealer = players[st.dealer]
    if entry.dealer is not None and entry.dealer != dealer:
        out.append(
            Dispute(
                i + 1,
                f"{f}.dealer",
                DEAL_DIFFERS,
                f"hand {i + 1}: the sheet says {entry.dealer} dealt, the rotation gives {dealer}",
                entry.dealer,
                dealer,
            )
        )
    if entry.honba is not None and entry.honba != st.honba:
        out.append(
            Dispute(
                i + 1,
                f"{f}.honba",
                DEAL_DIFFERS,
                f"hand {i + 1}: the sheet says {entry.honba} honba, the replay has {st.honba}",
                entry.honba,
                st.honba,
            )
        )
    if entry.scores_after is not None:
        wrong = {p: v for p, v in entry.scores_after.items() if played.scores[p] != v}
        if wrong:
            out.append(
                Dispute(
                    i + 1,
                    f"{f}.scores_after",
                    SCORES_DIFFER,
                    f"hand {i + 1}: the sheet's scores "
                    + ", ".join(f"{p} {v} (replay {played.scores[p]})" for p, v in wrong.items()),
                    wrong,
                    {p: played.scores[p] for p in wrong},
                )
            )
    return out


def replay_json(data: Any, prefer_points: str | None = None) -> dict[str, Any]:
    """Parse and replay a record given as decoded JSON; the replay as JSON (a HandError otherwise)."""
    return replay(parse_record(data), prefer_points).to_dict()


__all__ = [
    "FORMAT",
    "GAME_ERROR_CODES",
    "Abandoned",
    "DealState",
    "Dispute",
    "GameRecord",
    "GameReplay",
    "HandEntry",
    "HandReplay",
    "Standing",
    "Start",
    "dump_record",
    "load_json_text",
    "parse_game_options",
    "parse_record",
    "parse_record_text",
    "replay",
    "replay_json",
]
