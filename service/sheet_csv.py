"""A paper score sheet as CSV: the columns a club's sheet has, read into a game record and written back.

A spreadsheet is how many clubs type a stack of paper sheets in; this module turns one into the
``paiscan-game/1`` record (:mod:`paiscan.scoring.game_record`) and back. The layout (documented with an
example in ``docs/game_records.md`` and ``examples/sheet_boo.csv``):

* first, one row per game field: ``rules``, ``players`` (the names in the following cells, seat order
  from the first dealer), and optionally ``title``, ``date``, ``notes``, ``options``, ``game_options``,
  ``start`` (the last three as JSON in one cell);
* then a header row (it starts with ``no`` or ``result``) and one row per hand. Columns, any order:
  ``no`` (ignored), ``result``, ``winner``, ``from`` (who dealt in; a chombo's offender), ``points``
  (a total, or the split ``Aki:320 Ben:320 Chie:440``), ``tenpai``, ``riichi`` (names separated by
  spaces), ``dealer``, ``honba``, one column per player (the running score as written, checked by the
  replay), the tiles ``hand``, ``win_tile``, ``melds`` (``pon:777p chi:345s kan:5555m ankan:5555m
  kakan:5555m``), ``dora``, ``ura``, ``nuki``, ``flags`` (space separated), and ``note``.

Every problem is a :class:`HandError` naming the line and column (``line 9: points``); the record built
is then checked by ``parse_record``, whose errors name the record path and the line.

>>> rec = read_sheet_csv("rules,boo\\nplayers,A,B,C,D\\n\\nresult,winner,from,points\\nron,B,C,1000\\n")
>>> rec["players"], rec["hands"]
(['A', 'B', 'C', 'D'], [{'result': 'ron', 'winner': 'B', 'discarder': 'C', 'points': 1000}])
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from paiscan.scoring.errors import HandError

#: game-level rows before the hands; the JSON ones hold an object in one cell
INFO_ROWS = ("title", "date", "notes")
JSON_ROWS = ("options", "game_options", "start")
#: hand columns other than the players' running scores, in the order written
HAND_COLUMNS = (
    "no",
    "result",
    "winner",
    "from",
    "points",
    "tenpai",
    "riichi",
    "dealer",
    "honba",
    "hand",
    "win_tile",
    "melds",
    "dora",
    "ura",
    "nuki",
    "flags",
    "note",
)
#: meld words of the ``melds`` cell → the Hand's meld fields
MELD_WORDS: Mapping[str, dict[str, Any]] = {
    "chi": {"type": "chi"},
    "pon": {"type": "pon"},
    "kan": {"type": "kan", "open": True},
    "ankan": {"type": "kan", "open": False},
    "kakan": {"type": "kan", "open": True, "added": True},
}
_SPLIT = re.compile(r"^\s*([^:]+?)\s*:\s*(-?\d+)\s*$")


def _err(line: int, column: str | None, message: str) -> HandError:
    where = f"line {line}" + (f": {column}" if column else "")
    return HandError("bad_field", f"{where}: {message}", where)


def _names(cell: str) -> list[str]:
    return [n for n in re.split(r"[\s,;]+", cell.strip()) if n]


def _int(cell: str, line: int, column: str) -> int:
    try:
        return int(cell.strip().replace("_", ""))
    except ValueError:
        raise _err(line, column, f"{cell!r} is not a whole number") from None


def _points(cell: str, line: int) -> int | dict[str, int]:
    text = cell.strip()
    if re.fullmatch(r"-?\d+", text):
        return int(text)
    out: dict[str, int] = {}
    for part in re.split(r"[\s,;]+(?=[^\s,;:]+\s*:)", text):
        m = _SPLIT.match(part)
        if m is None:
            raise _err(line, "points", f"{cell!r}: write a total (4000) or what each paid (Aki:2000 Ben:1000 …)")
        out[m.group(1)] = int(m.group(2))
    return out


def _melds(cell: str, line: int) -> list[dict[str, Any]]:
    out = []
    for word in cell.split():
        kind, _, tiles = word.partition(":")
        if kind.lower() not in MELD_WORDS or not tiles:
            raise _err(
                line, "melds", f"{word!r}: write each meld as kind:tiles ({', '.join(MELD_WORDS)}), e.g. pon:777p"
            )
        out.append({**MELD_WORDS[kind.lower()], "tiles": tiles})
    return out


def _json_cell(cell: str, line: int, key: str) -> dict[str, Any]:
    try:
        value = json.loads(cell)
    except json.JSONDecodeError as exc:
        raise _err(line, key, f"not valid JSON: {exc.msg} (column {exc.colno} of the cell)") from None
    if not isinstance(value, dict):
        raise _err(line, key, "must be a JSON object")
    return value


#: rulesets whose draws pay noten: an empty tenpai cell there means nobody was tenpai
NOTEN_RULES = ("riichi", "totenko_balance")


def _hand_row(row: Mapping[str, str], line: int, players: Sequence[str], rules: str) -> dict[str, Any]:
    result = row.get("result", "").strip().lower()
    out: dict[str, Any] = {"result": result}
    if winner := row.get("winner", "").strip():
        out["winner"] = winner
    if frm := row.get("from", "").strip():
        out["player" if result == "chombo" else "discarder"] = frm
    if pts := row.get("points", "").strip():
        out["points"] = _points(pts, line)
    if row.get("tenpai", "").strip() or (result == "draw" and rules in NOTEN_RULES):
        out["tenpai"] = _names(row["tenpai"])
    if riichi := row.get("riichi", "").strip():
        out["riichi"] = _names(riichi)
    if dealer := row.get("dealer", "").strip():
        out["dealer"] = dealer
    if honba := row.get("honba", "").strip():
        out["honba"] = _int(honba, line, "honba")
    if tiles := row.get("hand", "").strip():
        hand: dict[str, Any] = {"hand": tiles}
        if win_tile := row.get("win_tile", "").strip():
            hand["win_tile"] = win_tile
        if melds := row.get("melds", "").strip():
            hand["melds"] = _melds(melds, line)
        for column, key in (("dora", "dora_indicators"), ("ura", "ura_indicators")):
            if value := row.get(column, "").strip():
                hand[key] = value.split()
        if nuki := row.get("nuki", "").strip():
            hand["nuki"] = nuki
        if flags := row.get("flags", "").strip():
            hand["flags"] = _names(flags)
        out["hand"] = hand
    else:
        for column in ("win_tile", "melds", "dora", "ura", "nuki", "flags"):
            if row.get(column, "").strip():
                raise _err(line, column, "belongs to a hand whose tiles are given: fill in the hand column too")
    scores = {p: _int(row[p], line, p) for p in players if row.get(p, "").strip()}
    if scores:
        out["scores_after"] = scores
    if note := row.get("note", "").strip():
        out["note"] = note
    return out


def read_sheet_csv(text: str) -> dict[str, Any]:
    """The game record (JSON, not yet checked by ``parse_record``) a CSV sheet describes."""
    if text.startswith("\ufeff"):
        text = text[1:]
    try:
        rows = list(csv.reader(io.StringIO(text)))
    except csv.Error as exc:
        raise HandError("bad_csv", f"not a readable CSV: {exc}", None) from None
    record: dict[str, Any] = {}
    header: list[str] | None = None
    hands: list[dict[str, Any]] = []
    lines: list[int] = []
    for n, raw in enumerate(rows, start=1):
        row = [c.strip() for c in raw]
        if not any(row):
            continue
        key = row[0].lower()
        if header is None:
            if key in ("no", "result"):
                header = [c.lower() if c.lower() in HAND_COLUMNS else c for c in row]
                players = record.get("players") or []
                for c in header:
                    if c and c not in HAND_COLUMNS and c not in players:
                        raise _err(n, c, f"unknown column (known: {', '.join(HAND_COLUMNS)} and the players' names)")
                continue
            if key == "players":
                record["players"] = [c for c in row[1:] if c]
            elif key == "rules":
                record["rules"] = row[1] if len(row) > 1 else ""
            elif key in INFO_ROWS:
                record[key] = raw[1] if len(raw) > 1 else ""
            elif key in JSON_ROWS:
                record[key] = _json_cell(raw[1] if len(raw) > 1 else "", n, key)
            else:
                raise _err(
                    n, row[0], "unknown game row (rules, players, title, date, notes, options, game_options, start)"
                )
            continue
        if len(row) > len(header) and any(row[len(header) :]):
            raise _err(n, None, f"{len(row)} cells but the header has {len(header)} columns")
        cells = dict(zip(header, row, strict=False))
        hands.append(_hand_row(cells, n, record.get("players") or [], str(record.get("rules", ""))))
        lines.append(n)
    if "rules" not in record or "players" not in record:
        raise HandError("bad_field", "a CSV sheet starts with a rules row and a players row", "rules")
    if header is None:
        raise HandError("bad_field", "a CSV sheet needs a header row starting with result (or no)", "hands")
    record["hands"] = hands
    return record


def sheet_line(text: str, field: str | None) -> str | None:
    """The CSV line of a record path (``hands[3].points`` → ``line 9``) for an error message."""
    m = re.match(r"hands\[(\d+)\]", field or "")
    if m is None:
        return None
    index = int(m.group(1))
    seen = -1
    header = False
    for n, raw in enumerate(csv.reader(io.StringIO(text.lstrip("\ufeff"))), start=1):
        if not any(c.strip() for c in raw):
            continue
        if not header:
            header = raw[0].strip().lower() in ("no", "result")
            continue
        seen += 1
        if seen == index:
            return f"line {n}"
    return None


def _names_cell(names: Sequence[str] | None) -> str:
    return " ".join(names or ())


def write_sheet_csv(record: Mapping[str, Any]) -> str:
    """A record (canonical JSON, ``dump_record``) as a CSV sheet: ``read_sheet_csv`` of it gives it back
    (a Hand field the columns cannot hold, such as a hand's own ``options``, goes into a JSON ``hand``
    cell)."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    players = list(record["players"])
    w.writerow(["rules", record["rules"]])
    w.writerow(["players", *players])
    for key in INFO_ROWS:
        if key in record:
            w.writerow([key, record[key]])
    for key in JSON_ROWS:
        if record.get(key):
            w.writerow([key, json.dumps(record[key], ensure_ascii=False)])
    w.writerow([])
    w.writerow([*HAND_COLUMNS[:9], *players, *HAND_COLUMNS[9:]])
    for no, h in enumerate(record["hands"], start=1):
        pts = h.get("points")
        hand = dict(h.get("hand") or {})
        extra = set(hand) - {"hand", "win_tile", "melds", "dora_indicators", "ura_indicators", "nuki", "flags"}
        if extra:
            raise HandError(
                "bad_field",
                f"hands[{no - 1}].hand: {', '.join(sorted(extra))} has no CSV column",
                f"hands[{no - 1}].hand",
            )
        melds = " ".join(f"{_meld_word(m)}:{m['tiles']}" for m in hand.get("melds") or [])
        dora = hand.get("dora_indicators") or []
        ura = hand.get("ura_indicators") or []
        scores = h.get("scores_after") or {}
        w.writerow(
            [
                no,
                h["result"],
                h.get("winner", ""),
                h.get("discarder", h.get("player", "")),
                " ".join(f"{p}:{a}" for p, a in pts.items())
                if isinstance(pts, Mapping)
                else ("" if pts is None else pts),
                _names_cell(h.get("tenpai")) if "tenpai" in h else "",
                _names_cell(h.get("riichi")),
                h.get("dealer", ""),
                h.get("honba", ""),
                *(scores.get(p, "") for p in players),
                hand.get("hand", ""),
                hand.get("win_tile", ""),
                melds,
                " ".join(dora) if isinstance(dora, list) else dora,
                " ".join(ura) if isinstance(ura, list) else ura,
                "".join(hand.get("nuki") or ""),
                " ".join(hand.get("flags") or []),
                h.get("note", ""),
            ]
        )
    return buf.getvalue()


def _meld_word(meld: Mapping[str, Any]) -> str:
    if meld.get("type") != "kan":
        return str(meld.get("type"))
    if meld.get("added"):
        return "kakan"
    return "kan" if meld.get("open", True) else "ankan"
