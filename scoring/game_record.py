"""Game records: a paper score sheet as JSON, replayed hand by hand and settled.

A club writes down each hand of a game — who won, from whom, how much — and settles at the end.
Mistakes on paper are common (a wrong fu count, a honba forgotten, a win the house forbids), so a
record keeps what the sheet says (``points`` as written) and, where the tiles are known, the Hand
itself; the replay recomputes every Hand, applies the ruleset's dealer rotation, honba, draw and
end-of-game rules, and flags each hand where the sheet and the rules disagree, with both numbers.

The format is documented in ``docs/game_records.md`` and ``scoring/game_record_schema.json``.
This module drives the replay and re-exports the parts, one stage each:
:mod:`~paiscan.scoring.game_record_sheet` (the format: parsing, checks, dump),
:mod:`~paiscan.scoring.game_record_frame` (what every ruleset's replay shares: scoring and pricing a hand),
:mod:`~paiscan.scoring.game_record_rulesets` (each ruleset's rotation, end and settlement) and
:mod:`~paiscan.scoring.game_record_result` (the replay's result, its JSON and CSV).

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

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from paiscan.scoring.game_record_frame import Played
from paiscan.scoring.game_record_result import AFTER_END as AFTER_END
from paiscan.scoring.game_record_result import APPLIED as APPLIED
from paiscan.scoring.game_record_result import DEAL_DIFFERS as DEAL_DIFFERS
from paiscan.scoring.game_record_result import END_MESSAGES as END_MESSAGES
from paiscan.scoring.game_record_result import FORBIDDEN_WIN as FORBIDDEN_WIN
from paiscan.scoring.game_record_result import NOT_APPLIED as NOT_APPLIED
from paiscan.scoring.game_record_result import POINTS_DIFFER as POINTS_DIFFER
from paiscan.scoring.game_record_result import REFUSED as REFUSED
from paiscan.scoring.game_record_result import RIICHI_DIFFERS as RIICHI_DIFFERS
from paiscan.scoring.game_record_result import SCORES_DIFFER as SCORES_DIFFER
from paiscan.scoring.game_record_result import DealState as DealState
from paiscan.scoring.game_record_result import Dispute as Dispute
from paiscan.scoring.game_record_result import GameReplay as GameReplay
from paiscan.scoring.game_record_result import HandReplay as HandReplay
from paiscan.scoring.game_record_result import Standing as Standing
from paiscan.scoring.game_record_rulesets import RIICHI_DEPOSIT as RIICHI_DEPOSIT
from paiscan.scoring.game_record_rulesets import frame_for
from paiscan.scoring.game_record_sheet import ABANDON_REASONS as ABANDON_REASONS
from paiscan.scoring.game_record_sheet import ABANDONED_FIELDS as ABANDONED_FIELDS
from paiscan.scoring.game_record_sheet import BOO_FAMILY as BOO_FAMILY
from paiscan.scoring.game_record_sheet import CHOMBO_BASIC as CHOMBO_BASIC
from paiscan.scoring.game_record_sheet import COMMON_GAME_OPTIONS as COMMON_GAME_OPTIONS
from paiscan.scoring.game_record_sheet import ENTRY_FIELDS as ENTRY_FIELDS
from paiscan.scoring.game_record_sheet import FORMAT as FORMAT
from paiscan.scoring.game_record_sheet import GAME_ERROR_CODES as GAME_ERROR_CODES
from paiscan.scoring.game_record_sheet import GAME_OPTIONS as GAME_OPTIONS
from paiscan.scoring.game_record_sheet import INFO_FIELDS as INFO_FIELDS
from paiscan.scoring.game_record_sheet import MAX_HANDS as MAX_HANDS
from paiscan.scoring.game_record_sheet import MAX_NAME as MAX_NAME
from paiscan.scoring.game_record_sheet import MAX_TEXT as MAX_TEXT
from paiscan.scoring.game_record_sheet import PLAYERS_BY_RULES as PLAYERS_BY_RULES
from paiscan.scoring.game_record_sheet import RECORD_FIELDS as RECORD_FIELDS
from paiscan.scoring.game_record_sheet import RECORD_HAND_FIELDS as RECORD_HAND_FIELDS
from paiscan.scoring.game_record_sheet import REPLAY_SET_FIELDS as REPLAY_SET_FIELDS
from paiscan.scoring.game_record_sheet import RESULTS as RESULTS
from paiscan.scoring.game_record_sheet import SCHEMA as SCHEMA
from paiscan.scoring.game_record_sheet import START_FIELDS as START_FIELDS
from paiscan.scoring.game_record_sheet import Abandoned as Abandoned
from paiscan.scoring.game_record_sheet import GameRecord as GameRecord
from paiscan.scoring.game_record_sheet import HandEntry as HandEntry
from paiscan.scoring.game_record_sheet import Start as Start
from paiscan.scoring.game_record_sheet import dump_record as dump_record
from paiscan.scoring.game_record_sheet import json_error_message as json_error_message
from paiscan.scoring.game_record_sheet import load_json_text as load_json_text
from paiscan.scoring.game_record_sheet import parse_game_options as parse_game_options
from paiscan.scoring.game_record_sheet import parse_record as parse_record
from paiscan.scoring.game_record_sheet import parse_record_text as parse_record_text


def replay(rec: GameRecord, prefer_points: str | None = None) -> GameReplay:
    """Replay the record: each hand in the deal the ruleset gives it, the points applied (the Hand's,
    else the sheet's), the running scores, the end of the game and the settlement. Hands after the end
    are kept and flagged (:data:`AFTER_END`), never applied. ``prefer_points`` overrides the record's
    ``game_options.prefer_points``."""
    if prefer_points is not None:
        rec = replace(rec, game_options={**rec.game_options, "prefer_points": prefer_points})
    frame = frame_for(rec)
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


def _sheet_checks(i: int, entry: HandEntry, st: DealState, played: Played, players: Sequence[str]) -> list[Dispute]:
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
