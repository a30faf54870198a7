"""Game records (paiscan.scoring.game_record): the game-level vectors of ../shared/rules replayed as sheets,
the format (schema, round trips), disputed and forbidden hands, the dealer rotation of each ruleset,
invalid records with the field named, the ``paiscan game`` command and ``POST /v1/games``."""

from __future__ import annotations

import copy
import csv
import io
import json
import re
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from spec_vectors import game_vectors
from typer.testing import CliRunner

from paiscan.scoring.errors import HandError
from paiscan.scoring.evaluation_jun import evaluate_game
from paiscan.scoring.game_record import (
    AFTER_END,
    DEAL_DIFFERS,
    FORBIDDEN_WIN,
    POINTS_DIFFER,
    SCORES_DIFFER,
    GameReplay,
    dump_record,
    parse_record,
    replay,
)
from paiscan.scoring.game_totenko import noten_payments
from paiscan.scoring.settlement_boo import settle, settlement_rules
from paiscan.service.cli import app as cli_app

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = sorted((ROOT / "examples").glob("game_*.json"))
SCHEMA = json.loads((ROOT / "scoring" / "game_record_schema.json").read_text(encoding="utf-8"))
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)
RUNNER = CliRunner()
SEATS = ["east", "south", "west", "north"]


BOO_VECTORS = game_vectors("boo") + game_vectors("kansai_boo")
SETTLEMENTS = [v for v in BOO_VECTORS if "final" in v]
WINS = [v for v in BOO_VECTORS if "before" in v]
NOTEN = [v for v in game_vectors("totenko_balance") if "tenpai" in v]
JUN = game_vectors("jun")
JUN_FINALS = [v for v in JUN if "final" in v]


def run_game(record: dict[str, Any]) -> GameReplay:
    return replay(parse_record(record))


def example(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((ROOT / "examples" / f"game_{name}.json").read_text(encoding="utf-8"))
    return data


def test_game_vectors_found() -> None:
    assert len(SETTLEMENTS) == 9 and len(WINS) == 13 and len(VARIANTS) == 2
    assert [v["id"] for v in NOTEN] == ["TOT-N1", "TOT-N2", "TOT-N3"]
    assert [v["id"] for v in JUN_FINALS] == ["JUN-R1", "JUN-R2", "JUN-R3", "JUN-R4", "JUN-R5"]


# ------------------------------------------------------------------ Boo family settlements (G)
@pytest.mark.parametrize("vec", SETTLEMENTS, ids=[v["id"] for v in SETTLEMENTS])
def test_settlement_vector_at_the_end_of_a_sheet(vec: dict[str, Any]) -> None:
    """A sheet that reaches the vector's final scores in South 4 and ends with a draw is settled as the
    vector says, and as settlement_boo.settle does."""
    players = list(vec["final"])
    record = {
        "rules": vec["spec"],
        "options": vec.get("options", {}),
        "players": players,
        "start": {"round": "south", "number": 4, "scores": vec["final"]},
        "hands": [{"result": "draw"}],
    }
    r = run_game(record)
    assert r.finished and r.end is not None and r.end["after"] == 1
    s = r.settlement
    expect = vec["expect"]
    for key in ("top", "type", "losers", "neutral", "gentsuu", "net", "next_start_dealer"):
        if key in expect:
            assert s[key] == expect[key], (key, s, expect.get("why"))
    module = settle(vec["final"], settlement_rules(vec["spec"], vec.get("options")), players[0])
    assert s["net"] == module.net and s["type"] == module.standing.type
    assert {x.player: x.net for x in r.standings} == module.net


def test_boo_g1_played_out() -> None:
    """BOO-G1 reached by play: the dealer's mangan-sized tsumo doubles his origin and ends the game."""
    r = run_game(
        {
            "rules": "boo",
            "players": SEATS,
            "hands": [
                {"result": "tsumo", "winner": "east", "points": {"south": 500, "west": 500, "north": 1000}},
                {"result": "draw"},
            ],
        }
    )
    assert r.final == {"east": 4000, "south": 1500, "west": 1500, "north": 1000}
    assert r.end == {"reason": "double", "after": 1, "message": "a score at twice the origin"}
    assert (r.settlement["top"], r.settlement["type"], r.settlement["top_receives"]) == ("east", "A", 3)
    assert r.hands[1].status == "after_end" and r.hands[1].disputes[0].kind == AFTER_END


# ------------------------------------------------------------------ forbidden wins (F)
def win_record(vec: dict[str, Any], options: dict[str, Any]) -> dict[str, Any]:
    before = vec["before"]
    players = list(before)
    rnd, number = vec.get("round", "east"), vec.get("hand_no", 1)
    if vec.get("all_last"):
        rnd, number = "south", 4
    pays = vec["pays"]
    if len(pays) == 1:
        hand = {
            "result": "ron",
            "winner": vec["winner"],
            "discarder": next(iter(pays)),
            "points": next(iter(pays.values())),
        }
    else:
        hand = {"result": "tsumo", "winner": vec["winner"], "points": pays}
    return {
        "rules": vec["spec"],
        "options": options,
        "players": players,
        "start": {"round": rnd, "number": number, "scores": before},
        "hands": [hand],
    }


def check_win_vector(
    vec: dict[str, Any],
    options: dict[str, Any],
    allowed: bool,
    reason: str | None,
    warned: list[str],
    top_type: str | None,
) -> None:
    r = run_game(win_record(vec, options))
    h = r.hands[0]
    if "dealer" in vec:
        assert h.dealer == vec["dealer"]
    assert h.status == ("applied" if allowed else "refused"), h
    forbidden = [d for d in h.disputes if d.kind == FORBIDDEN_WIN]
    if allowed:
        assert not forbidden
        assert h.scores == {
            p: vec["before"][p] - vec["pays"].get(p, 0) + (sum(vec["pays"].values()) if p == vec["winner"] else 0)
            for p in vec["before"]
        }
    else:
        assert forbidden and f"({reason})" in forbidden[0].message
        assert h.scores == vec["before"] and r.final == vec["before"]
    for rule in warned:
        assert any(w.startswith(rule) for w in h.warnings), (rule, h.warnings)
    if top_type is not None:
        assert r.end is not None and r.settlement["type"] == top_type


@pytest.mark.parametrize("vec", WINS, ids=[v["id"] for v in WINS])
def test_forbidden_win_vector(vec: dict[str, Any]) -> None:
    e = vec["expect"]
    check_win_vector(
        vec,
        vec.get("options", {}),
        e["allowed"],
        e.get("reason"),
        list(e.get("warnings", [])) + ([e["reason"]] if e.get("reason") else []),
        e.get("type"),
    )


VARIANTS = [(v, var) for v in WINS for var in v.get("variants", [])]


@pytest.mark.parametrize(("vec", "variant"), VARIANTS, ids=[f"{v['id']}-{i}" for i, (v, _) in enumerate(VARIANTS)])
def test_forbidden_win_variant(vec: dict[str, Any], variant: dict[str, Any]) -> None:
    check_win_vector(
        vec,
        variant["options"],
        variant["allowed"],
        variant.get("reason"),
        [variant["reason"]] if variant.get("reason") else [],
        None,
    )


def test_forbidden_win_can_be_applied_anyway() -> None:
    vec = next(v for v in WINS if v["id"] == "KAN-F1")
    record = win_record(vec, {})
    record["game_options"] = {"forbidden_wins": "apply"}
    r = run_game(record)
    h = r.hands[0]
    assert h.status == "applied" and h.disputes[0].kind == FORBIDDEN_WIN
    assert r.final == {"A": 2000, "B": 4000, "C": 0, "D": 2000}
    assert r.end is not None and r.settlement["type"] == "C"


# ------------------------------------------------------------------ Totenko noten (N), Jun ranks (R)
@pytest.mark.parametrize("vec", NOTEN, ids=[v["id"] for v in NOTEN])
def test_noten_vector_on_a_draw(vec: dict[str, Any]) -> None:
    r = run_game(
        {
            "rules": "totenko_balance",
            "players": ["east", "south", "west"],
            "hands": [{"result": "draw", "tenpai": vec["tenpai"]}],
        }
    )
    assert {p: r.hands[0].deltas.get(p, 0) for p in ["east", "south", "west"]} == vec["expect"]
    assert dict(r.final) == vec["expect"]
    assert dict(r.hands[0].deltas) == {k: v for k, v in noten_payments(vec["tenpai"]).deltas.items() if v}
    assert r.hands[1:] == () and r.finished and r.end is None
    assert r.hands[0].label == "east deals, 1 honba"


@pytest.mark.parametrize("vec", JUN_FINALS, ids=[v["id"] for v in JUN_FINALS])
def test_jun_rank_vector_after_sixteen_hands(vec: dict[str, Any]) -> None:
    r = run_game(
        {
            "rules": "jun",
            "players": list(vec["final"]),
            "start": {"round": "north", "number": 4, "scores": vec["final"]},
            "hands": [{"result": "draw"}],
        }
    )
    assert r.end is not None and r.end["reason"] == "sixteen_hands"
    s, e = r.settlement, vec["expect"]
    assert s["ranks"] == e["ranks"]
    for key in ("wins", "losses", "draws", "plus"):
        if key in e:
            assert s[key] == e[key], key
    assert s["ranks"] == evaluate_game(vec["final"]).pattern


def test_jun_r7_personal_reason() -> None:
    vec = next(v for v in JUN if v["id"] == "JUN-R7")
    r = run_game(
        {
            "rules": "jun",
            "players": ["A", "B", "C", "D"],
            "hands": [{"result": "draw"}],
            "abandoned": {"reason": vec["abandoned"], "offender": vec["offender"]},
        }
    )
    s, e = r.settlement, vec["expect"]
    assert (s["ranks"], s["wins"], s["losses"]) == (e["ranks"], e["wins"], e["losses"])
    assert {x.player: x.net for x in r.standings} == e["points"]
    assert r.end is not None and r.end["reason"] == "abandoned"


def test_jun_abandoned_before_the_west_round_is_no_game() -> None:
    r = run_game(
        {
            "rules": "jun",
            "players": ["A", "B", "C", "D"],
            "hands": [{"result": "draw"}] * 3,
            "abandoned": {"reason": "external_reason"},
        }
    )
    assert r.settlement["counted"] is False and {s.result for s in r.standings} == {"no game"}


# ------------------------------------------------------------------ the format
@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_examples_validate_replay_and_round_trip(path: Path) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))
    VALIDATOR.validate(data)
    rec = parse_record(data)
    dumped = dump_record(rec)
    VALIDATOR.validate(dumped)
    assert parse_record(dumped) == rec
    assert dump_record(parse_record(json.loads(json.dumps(dumped)))) == dumped
    out = replay(rec).to_dict()
    assert len(out["hands"]) == len(data["hands"]) and set(out["final"]) == set(data["players"])
    json.dumps(out)  # plain JSON


def test_examples_are_in_the_docs() -> None:
    doc = (ROOT / "docs" / "game_records.md").read_text(encoding="utf-8")
    for path in EXAMPLES:
        assert f"examples/{path.name}" in doc
    shown = json.loads(re.findall(r"```json\n(.*?)```", doc, re.S)[0])
    assert shown == example("boo")


def test_wrong_hand_is_flagged_with_both_numbers() -> None:
    r = replay(parse_record(example("boo")))
    h = r.hands[3]
    assert h.disputes and h.disputes[0].kind == POINTS_DIFFER
    d = h.disputes[0]
    assert (d.written, d.recomputed, d.field) == (520, 460, "hands[3].points")
    assert "520" in d.message and "460" in d.message and "40 fu" in d.message
    assert any("fu" in line for line in d.explanation)
    assert h.applied == "recomputed" and h.deltas == {"Aki": 460, "Dai": -460}
    assert [x.no for x in r.disputes] == [4, 6]
    # the sheet's figure wins when asked to
    r2 = replay(parse_record(example("boo")), prefer_points="written")
    assert r2.hands[3].deltas == {"Aki": 520, "Dai": -520} and r2.hands[3].disputes[0].kind == POINTS_DIFFER


def test_wrong_per_payer_tsumo_and_sheet_notes_are_flagged() -> None:
    data = example("boo")
    data["hands"][2]["points"] = {"Aki": 360, "Ben": 360, "Chie": 460}
    data["hands"][1]["dealer"] = "Chie"
    data["hands"][2]["honba"] = 0
    data["hands"][2]["scores_after"]["Dai"] = 3000
    r = run_game(data)
    kinds = [(d.no, d.kind) for d in r.disputes]
    assert (2, DEAL_DIFFERS) in kinds and (3, DEAL_DIFFERS) in kinds and (3, POINTS_DIFFER) in kinds
    assert (3, SCORES_DIFFER) in kinds
    wrong = next(d for d in r.disputes if d.no == 3 and d.kind == POINTS_DIFFER)
    assert wrong.written == {"Aki": 360, "Ben": 360, "Chie": 460} and wrong.recomputed == {
        "Aki": 320,
        "Ben": 320,
        "Chie": 440,
    }


# ------------------------------------------------------------------ rotation and honba per ruleset
def labels(r: GameReplay) -> list[str]:
    return [h.label for h in r.hands]


def test_boo_rotation_and_honba() -> None:
    r = run_game(
        {
            "rules": "boo",
            "players": SEATS,
            "hands": [
                {"result": "tsumo", "winner": "east", "points": {"south": 100, "west": 100, "north": 100}},
                {"result": "draw"},
                {"result": "ron", "winner": "west", "discarder": "north", "points": 300},
                {"result": "draw"},
                {"result": "draw"},
                {"result": "draw"},
                {"result": "draw"},
                {"result": "draw"},
                {"result": "draw"},
            ],
        }
    )
    assert labels(r)[:4] == ["East 1, 0 honba", "East 1, 1 honba", "East 2, 2 honba", "East 3, 0 honba"]
    assert labels(r)[-1] == "South 4, 5 honba" and r.end is not None and r.end["reason"] == "all_last"
    # honba of a scored Hand come from the deal: 2 honba × 300 on a ron
    two = run_game(
        {
            "rules": "boo",
            "players": SEATS,
            "start": {"honba": 2},
            "hands": [
                {"result": "ron", "winner": "south", "discarder": "west", "hand": example("boo")["hands"][0]["hand"]}
            ],
        }
    )
    assert two.hands[0].recomputed is not None and two.hands[0].recomputed["total"] == 1020  # BOO-S1


def test_boo_south_4_dealer_win_continues_and_chombo_keeps_the_deal() -> None:
    r = run_game(
        {
            "rules": "boo",
            "players": SEATS,
            "start": {"round": "south", "number": 4},
            "hands": [
                {"result": "ron", "winner": "north", "discarder": "east", "points": 300},
                {"result": "chombo", "player": "south"},
                {"result": "ron", "winner": "east", "discarder": "north", "points": 300},
            ],
        }
    )
    assert labels(r) == ["South 4, 0 honba", "South 4, 1 honba", "South 4, 1 honba"]
    assert r.hands[1].deltas == {"south": -1000, "north": 500, "east": 250, "west": 250}  # 半満貫
    assert r.end is not None and r.end["after"] == 3


def test_yakuman_ends_the_game_as_a_top() -> None:
    kokushi = {"hand": "19m19p19s1234567z", "win_tile": "1m"}
    r = run_game(
        {
            "rules": "boo",
            "options": {"yakuman_mode": "a_top"},
            "players": SEATS,
            "hands": [{"result": "ron", "winner": "south", "discarder": "west", "hand": kokushi}, {"result": "draw"}],
        }
    )
    assert r.end is not None and r.end["reason"] == "yakuman" and r.hands[1].status == "after_end"
    assert (r.settlement["top"], r.settlement["type"]) == ("south", "A")
    assert r.settlement["net"] == {"east": -1, "south": 3, "west": -1, "north": -1}


def test_kansai_chombo_needs_written_points() -> None:
    with pytest.raises(HandError) as e:
        parse_record(
            {"rules": "kansai_boo", "players": ["A", "B", "C", "D"], "hands": [{"result": "chombo", "player": "A"}]}
        )
    assert (e.value.code, e.value.field) == ("missing_points", "hands[0].points")


def test_totenko_the_winner_deals() -> None:
    r = replay(parse_record(example("totenko")))
    assert labels(r) == ["Eri deals, 1 honba", "Fumi deals, 1 honba", "Fumi deals, 2 honba", "Gou deals, 1 honba"]
    assert r.hands[2].disputes[0].written == 1800 and r.hands[2].disputes[0].recomputed == 1900
    assert r.settlement["kind"] == "totals" and sum(r.final.values()) == 0


def test_jun_sixteen_hands_and_chombo_replays_the_hand() -> None:
    data = example("jun")
    data["hands"].insert(1, {"result": "chombo", "player": "C"})
    data["hands"].append({"result": "draw"})
    r = run_game(data)
    assert labels(r)[1:3] == ["East 2 (hand 2/16)", "East 2 (hand 2/16)"]
    assert r.end is not None and r.end["after"] == 17 and r.hands[-1].status == "after_end"
    assert r.settlement["ranks"] == "1234" and r.standings[0].result.startswith("○")
    assert r.settlement["figures"]["A"]["win_rate"] == "1.000@1" and r.settlement["figures"]["B"]["grade"] == "4000@1"


def test_riichi_rotation_deposits_and_leftover_pot() -> None:
    r = replay(parse_record(example("riichi")))
    assert labels(r) == [
        "East 1, 0 honba",
        "East 2, 0 honba",
        "East 2, 1 honba",
        "East 3, 0 honba",
        "East 3, 0 honba",
        "East 3, 1 honba",
        "East 4, 2 honba",
    ]
    assert r.hands[2].deltas["A"] == 2300 + 1000  # the deposit of hand 2
    assert r.end is not None and r.end["reason"] == "all_last" and sum(r.final.values()) == 100_000
    left = run_game(
        {
            "rules": "riichi",
            "game_options": {"rounds": 1},
            "players": SEATS,
            "start": {"number": 4, "scores": dict(zip(SEATS, [30000, 25000, 25000, 19000], strict=True))},
            "hands": [{"result": "draw", "tenpai": [], "riichi": ["south"]}],
        }
    )
    assert left.settlement["pot_to"] == "east" and left.standings[0].final == 31000
    bust = run_game(
        {
            "rules": "riichi",
            "players": SEATS,
            "start": {"scores": dict.fromkeys(SEATS, 25000)},
            "hands": [{"result": "ron", "winner": "south", "discarder": "west", "points": 26000}],
        }
    )
    assert bust.end is not None and bust.end["reason"] == "bust"


def test_unfinished_sheet_is_provisional() -> None:
    r = run_game({"rules": "boo", "players": SEATS, "hands": [{"result": "draw"}]})
    assert not r.finished and r.end is None and r.settlement["provisional"] and r.warnings


def test_csv_for_a_spreadsheet() -> None:
    r = replay(parse_record(example("boo")))
    rows = list(csv.reader(io.StringIO(r.csv_text())))
    assert rows[0][:5] == ["no", "deal", "dealer", "honba", "result"] and "Aki score" in rows[0]
    assert rows[4][7:9] == ["520", "460"]
    blank = rows.index([])
    assert rows[blank + 1] == ["player", "final", "net", "rank", "result"]
    assert rows[blank + 2] == ["Aki", "6640", "3", "1", "top (A)"]


# ------------------------------------------------------------------ invalid records
BASE: dict[str, Any] = {
    "rules": "boo",
    "players": ["A", "B", "C", "D"],
    "hands": [
        {
            "result": "ron",
            "winner": "B",
            "discarder": "C",
            "hand": {"hand": "123m222p3357s", "melds": [{"type": "pon", "tiles": "777p"}], "win_tile": "6s"},
        }
    ],
}


def mutate(path: str, value: Any) -> dict[str, Any]:
    data = copy.deepcopy(BASE)
    target: Any = data
    keys = re.findall(r"[^.\[\]]+", path)
    for k in keys[:-1]:
        target = target[int(k)] if k.isdigit() else target[k]
    last = keys[-1]
    if value is KeyError:
        del target[last]
    elif isinstance(target, list):
        target[int(last)] = value
    else:
        target[last] = value
    return data


INVALID = [
    ("hands.0.winner", "Eve", "unknown_player", "hands[0].winner", False),
    ("hands.0.discarder", "B", "winner_is_discarder", "hands[0].discarder", False),
    ("rules", "mahjong", "unknown_ruleset", "rules", True),
    ("rules", "wsom", "unsupported_ruleset", "rules", True),
    ("hands.0.hand.win_tile", "9x", "bad_tile", "hands[0].hand.win_tile", False),
    ("hands.0.hand.hand", "123m", "wrong_tile_count", "hands[0].hand.hand", False),
    ("hands.0.hand.seat_wind", "west", "bad_field", "hands[0].hand.seat_wind", True),
    ("hands.0.hand", KeyError, "missing_points", "hands[0].points", True),
    ("hands.0.discarder", KeyError, "bad_field", "hands[0].discarder", True),
    ("hands.0.result", "win", "bad_field", "hands[0].result", True),
    ("hands.0.colour", "red", "unknown_field", "hands[0].colour", True),
    ("players", ["A", "B", "C"], "bad_field", "players", True),
    ("players", ["A", "B", "C", "C"], "bad_field", "players", True),
    ("options", {"start_points": 3000}, "bad_option", "options.start_points", False),
    ("game_options", {"rounds": 1}, "unknown_option", "game_options.rounds", False),
    ("hands.0.points", -5, "bad_field", "hands[0].points", True),
    ("start", {"round": "west"}, "bad_field", "start.round", False),
    ("hands", [{"result": "tsumo", "winner": "B", "points": 1000}], "ambiguous_points", "hands[0].points", False),
    ("hands", [{"result": "draw", "winner": "B"}], "bad_field", "hands[0].winner", True),
]


@pytest.mark.parametrize(
    ("path", "value", "code", "field", "schema_rejects"), INVALID, ids=[f"{c}:{f}" for _, _, c, f, _ in INVALID]
)
def test_invalid_records_name_the_field(path: str, value: Any, code: str, field: str, schema_rejects: bool) -> None:
    data = mutate(path, value)
    with pytest.raises(HandError) as e:
        run_game(data)
    assert (e.value.code, e.value.field) == (code, field), e.value
    assert e.value.message
    assert (not VALIDATOR.is_valid(data)) == schema_rejects


def test_more_invalid_records() -> None:
    with pytest.raises(HandError) as e:
        parse_record(
            {
                "rules": "riichi",
                "game_options": {"rounds": 1},
                "players": SEATS,
                "start": {"round": "south"},
                "hands": [],
            }
        )
    assert (e.value.code, e.value.field) == ("bad_field", "start.round")
    with pytest.raises(HandError) as e:
        parse_record({"rules": "boo", "players": SEATS, "hands": [{"result": "draw", "riichi": ["east"]}]})
    assert (e.value.code, e.value.field) == ("bad_field", "hands[0].riichi")
    with pytest.raises(HandError) as e:
        parse_record({"rules": "totenko_balance", "players": ["A", "B", "C"], "hands": [{"result": "draw"}]})
    assert (e.value.code, e.value.field) == ("bad_field", "hands[0].tenpai")
    with pytest.raises(HandError) as e:
        parse_record([1, 2])
    assert (e.value.code, e.value.field) == ("bad_json", None)


# ------------------------------------------------------------------ CLI
def cli(args: list[str], stdin: str | None = None) -> tuple[int, str]:
    result = RUNNER.invoke(cli_app, args, input=stdin)
    return result.exit_code, result.stdout


def test_cli_table_json_and_csv(tmp_path: Path) -> None:
    path = str(ROOT / "examples" / "game_boo.json")
    code, out = cli(["game", path])
    assert code == 0 and "Aki" in out and "points_differ" in out and "Traceback" not in out
    code, out = cli(["game", path, "--json", "--csv", str(tmp_path / "club.csv")])
    assert code == 0
    data = json.loads(out)
    assert data["settlement"]["top"] == "Aki" and [d["no"] for d in data["disputes"]] == [4, 6]
    assert (tmp_path / "club.csv").read_text(encoding="utf-8").startswith("no,deal,dealer")
    assert cli(["game", path, "--strict", "--json"])[0] == 1
    code, out = cli(["game", "-", "--json", "--prefer", "written"], stdin=json.dumps(example("boo")))
    assert code == 0 and json.loads(out)["hands"][3]["deltas"] == {"Aki": 520, "Dai": -520}


@pytest.mark.parametrize(
    ("args", "stdin", "code", "field"),
    [
        (["game", "-"], json.dumps(mutate("hands.0.winner", "Eve")), "unknown_player", "hands[0].winner"),
        (["game", "-"], "{not json", "bad_json", None),
        (["game", "/no/such/game.json"], None, "unreadable_input", "FILE"),
        (["game", "-", "--prefer", "paper"], "{}", "bad_option", "prefer"),
    ],
)
def test_cli_errors_are_json_exit_2(args: list[str], stdin: str | None, code: str, field: str | None) -> None:
    exit_code, out = cli(args, stdin)
    assert exit_code == 2 and "Traceback" not in out
    body = json.loads(out)
    assert body["error"]["code"] == code and body["error"]["field"] == field


# ------------------------------------------------------------------ HTTP
@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    from paiscan.service.app import create_app
    from paiscan.service.demo import DemoReader
    from paiscan.service.settings import ServiceSettings

    settings = ServiceSettings(_env_file=None, workers=1, queue_size=4)  # type: ignore[call-arg]
    with TestClient(create_app(settings, reader=DemoReader())) as c:
        yield c


def test_http_replays_a_record(client: TestClient) -> None:
    r = client.post("/v1/games", json=example("boo"))
    assert r.status_code == 200, r.text
    body = r.json()
    assert body == {**replay(parse_record(example("boo"))).to_dict(), "timings_ms": body["timings_ms"]}
    assert body["hands"][3]["disputes"][0]["written"] == 520


@pytest.mark.parametrize(
    ("body", "code", "field"),
    [
        (mutate("hands.0.discarder", "B"), "winner_is_discarder", "hands[0].discarder"),
        (mutate("hands.0.hand.win_tile", "9x"), "bad_tile", "hands[0].hand.win_tile"),
        (mutate("rules", "mahjong"), "unknown_ruleset", "rules"),
        (mutate("players", "ABCD"), "bad_field", "players"),
        (mutate("hands.0.colour", 1), "unknown_field", "hands[0].colour"),
        (mutate("hands.0.points", "420"), "bad_field", "hands[0].points"),
    ],
)
def test_http_invalid_record_is_422_naming_the_field(client: TestClient, body: Any, code: str, field: str) -> None:
    r = client.post("/v1/games", json=body)
    assert r.status_code == 422, r.text
    err = r.json()["error"]
    assert (err["code"], err["field"]) == (code, field) and err["message"]


def test_a_hands_options_must_be_an_object() -> None:
    record = example("riichi")
    record["hands"][0]["hand"]["options"] = ["x"]
    with pytest.raises(HandError) as e:
        run_game(record)
    assert (e.value.code, e.value.field) == ("bad_field", "hands[0].hand.options")


def test_the_csv_runs_no_formula_and_is_written_whole(tmp_path: Path) -> None:
    """A player named like a formula is written as text; a name no encoding can write (a lone
    surrogate) is escaped rather than leaving a cut file behind."""
    record = example("riichi")
    old = record["players"][3]
    record["players"][3] = "=cmd|' /C calc'!A0"
    text = json.dumps(record).replace(json.dumps(old), json.dumps(record["players"][3]))
    code, _ = cli(["game", "-", "--json", "--csv", str(tmp_path / "club.csv")], stdin=text)
    assert code == 0
    cells = [c for row in csv.reader(io.StringIO((tmp_path / "club.csv").read_text(encoding="utf-8"))) for c in row]
    assert "'=cmd|' /C calc'!A0" in cells and "=cmd|' /C calc'!A0" not in cells
    ghost = text.replace(json.dumps(record["players"][3]), '"D\\ud800"')
    code, _ = cli(["game", "-", "--json", "--csv", str(tmp_path / "ghost.csv")], stdin=ghost)
    assert code == 0 and "D\\ud800" in (tmp_path / "ghost.csv").read_text(encoding="utf-8")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["club.csv", "ghost.csv"]


def test_leftover_deposits_are_in_every_final() -> None:
    """Issue #51: East-only, a dealer-noten draw ends the game with two sticks on the table (leftover_pot
    top): the top-level ``final`` gave the top 28500 while the settlement and standings gave 30500."""
    r = run_game(
        {
            "rules": "riichi",
            "game_options": {"rounds": 1, "leftover_pot": "top"},
            "players": SEATS,
            "start": {"number": 4, "scores": dict(zip(SEATS, [29000, 25000, 25000, 21000], strict=True))},
            "hands": [{"result": "draw", "tenpai": ["east"], "riichi": ["east", "south"]}],
        }
    )
    assert r.end is not None and r.end["reason"] == "all_last" and r.settlement["leftover_pot"] == 2000
    top = r.settlement["order"][0]
    assert top == "east"
    out = r.to_dict()
    assert out["final"] == out["settlement"]["final"] == {s["player"]: s["final"] for s in out["standings"]}
    assert out["final"]["east"] == 29000 - 1000 + 3000 + 2000 and sum(out["final"].values()) == 100_000
    table = run_game(
        {
            "rules": "riichi",
            "game_options": {"rounds": 1, "leftover_pot": "table"},
            "players": SEATS,
            "start": {"number": 4},
            "hands": [{"result": "draw", "tenpai": ["east"], "riichi": ["east", "south"]}],
        }
    )
    assert sum(table.final.values()) == 98_000 and table.final == table.settlement["final"]


@pytest.mark.parametrize(("winner", "dealer"), [("B", "A"), ("A", "B")])
def test_ambiguous_points_names_this_hands_payers(winner: str, dealer: str) -> None:
    """Issue #51: the suggestion was always {"B":500,"C":500,"D":1000}, even when B was the winner."""
    hands: list[dict[str, Any]] = []
    if dealer == "B":  # A's non-dealer ron passes the deal to B
        hands.append({"result": "ron", "winner": "C", "discarder": "D", "points": 1000})
    hands.append({"result": "tsumo", "winner": winner, "points": 4000})
    with pytest.raises(HandError) as exc:
        run_game({"rules": "riichi", "players": ["A", "B", "C", "D"], "hands": hands})
    assert exc.value.code == "ambiguous_points" and exc.value.field == f"hands[{len(hands) - 1}].points"
    example_map = json.loads(exc.value.message.split("e.g. ", 1)[1])
    assert set(example_map) == {"A", "B", "C", "D"} - {winner}
    assert example_map[dealer] == 2 * min(example_map.values()) and sum(example_map.values()) == 4000


def test_totenko_points_differ_counts_points_not_han() -> None:
    """Issue #51: a Totenko dispute said "0 han: yakuhai_chun"; Totenko counts points."""
    r = replay(parse_record(example("totenko")))
    msg = next(d.message for d in r.disputes if d.kind == POINTS_DIFFER)
    assert " han" not in msg
    found = re.search(r"\((\d+) points: (.*)\)$", msg)
    assert found is not None
    parts = dict(p.rsplit(" ", 1) for p in found.group(2).split(", "))
    assert sum(int(v) for v in parts.values()) == int(found.group(1)) and "chiitoitsu" in parts
    assert int(found.group(1)) * 100 == r.hands[2].recomputed["total"]  # type: ignore[index]


def test_bad_json_text_names_line_and_column() -> None:
    from paiscan.scoring.game_record import parse_record_text

    with pytest.raises(HandError) as exc:
        parse_record_text('{"rules": "boo",\n  "players": ["A", "B",, "C"]}')
    assert exc.value.code == "bad_json" and "line 2, column 24" in exc.value.message  # the second comma
    assert parse_record_text("\ufeff" + json.dumps(example("boo"))) == parse_record(example("boo"))


# ------------------------------------------------------------------ one definition of the format
SCHEMA_OBJECTS = [
    ("", SCHEMA["properties"]),
    ("hands.0.", SCHEMA["$defs"]["hand_entry"]["properties"]),
    ("hands.0.hand.", SCHEMA["$defs"]["hand"]["properties"]),
    ("start.", SCHEMA["$defs"]["start"]["properties"]),
    ("abandoned.", SCHEMA["properties"]["abandoned"]["properties"]),
]


def _bare(prefix: str) -> dict[str, Any]:
    """BASE with the object at ``prefix`` present (start and abandoned are not in BASE)."""
    data = copy.deepcopy(BASE)
    if prefix == "start.":
        data["start"] = {}
    if prefix == "abandoned.":
        data.update(rules="jun", abandoned={"reason": "external_reason"})
    return data


@pytest.mark.parametrize(("prefix", "props"), SCHEMA_OBJECTS, ids=[p or "record" for p, _ in SCHEMA_OBJECTS])
def test_the_parser_reads_the_schemas_fields(prefix: str, props: dict[str, Any]) -> None:
    """The schema is the one list of fields: the parser knows each of them (a wrong value is refused
    naming that field, never as unknown) and no other."""
    for key in props:
        data = _bare(prefix)
        target: Any = data
        for k in prefix.split(".")[:-1]:
            target = target[int(k)] if k.isdigit() else target[k]
        target[key] = [[]]
        with pytest.raises(HandError) as e:
            run_game(data)
        assert e.value.code != "unknown_field", (key, e.value)
        assert not VALIDATOR.is_valid(data), key
    data = _bare(prefix)
    target = data
    for k in prefix.split(".")[:-1]:
        target = target[int(k)] if k.isdigit() else target[k]
    target["colour"] = "red"
    with pytest.raises(HandError) as e:
        run_game(data)
    assert e.value.code == "unknown_field" and e.value.field == (prefix.replace(".0.", "[0].") + "colour")
    assert not VALIDATOR.is_valid(data)


def test_the_game_options_and_reasons_are_the_schemas() -> None:
    from paiscan.scoring import evaluation_jun
    from paiscan.scoring.game_record import ABANDON_REASONS, COMMON_GAME_OPTIONS, GAME_OPTIONS, PLAYERS_BY_RULES

    read = set(COMMON_GAME_OPTIONS).union(*GAME_OPTIONS.values())
    assert read == set(SCHEMA["$defs"]["game_options"]["properties"])
    assert set(GAME_OPTIONS) == set(PLAYERS_BY_RULES) == set(SCHEMA["properties"]["rules"]["enum"])
    assert ABANDON_REASONS == evaluation_jun.ABANDON_REASONS
    for rules, count in PLAYERS_BY_RULES.items():
        names = [f"P{i}" for i in range(count)]
        assert VALIDATOR.is_valid({"rules": rules, "players": names, "hands": []})
        assert not VALIDATOR.is_valid({"rules": rules, "players": [*names, "X"], "hands": []})
        assert parse_record({"rules": rules, "players": names, "hands": []}).players == tuple(names)


@pytest.mark.parametrize(
    ("path", "value", "field"),
    [
        ("hands.0.honba", 1000, "hands[0].honba"),
        ("start", {"pot": 1000}, "start.pot"),
        ("start", {"number": 5}, "start.number"),
        ("hands.0.note", "x" * 4001, "hands[0].note"),
        ("players", ["A", "B", "C", "D" * 65], "players[3]"),
    ],
)
def test_the_schemas_limits_bound_the_parser(path: str, value: Any, field: str) -> None:
    data = mutate(path, value)
    with pytest.raises(HandError) as e:
        run_game(data)
    assert (e.value.code, e.value.field) == ("bad_field", field)
    assert not VALIDATOR.is_valid(data)


def test_a_null_is_a_field_left_out() -> None:
    """As POST /v1/games has always taken it, so do ``paiscan game`` and the sheets: one parser."""
    with_nulls = {**BASE, "start": None, "title": None, "hands": [{**BASE["hands"][0], "note": None, "points": None}]}
    assert parse_record(with_nulls) == parse_record(BASE)


def test_the_services_body_is_the_schema() -> None:
    """POST /v1/games documents the file's schema (made self-contained): it accepts and refuses what the
    file does."""
    from paiscan.service.app import create_app
    from paiscan.service.demo import DemoReader
    from paiscan.service.settings import ServiceSettings

    settings = ServiceSettings(_env_file=None, workers=1, queue_size=4)  # type: ignore[call-arg]
    openapi = create_app(settings, reader=DemoReader()).openapi()
    body = openapi["paths"]["/v1/games"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    assert "$ref" not in json.dumps(body) and body["properties"].keys() == SCHEMA["properties"].keys()
    served = jsonschema.Draft202012Validator(body)
    cases = [mutate(p, v) for p, v, *_ in INVALID] + [example(p.stem.removeprefix("game_")) for p in EXAMPLES]
    for case in cases:
        assert served.is_valid(case) == VALIDATOR.is_valid(case), case
    for sample in body["examples"]:
        served.validate(sample)
        parse_record(sample)


def test_http_bad_json_names_line_and_column(client: TestClient) -> None:
    """FastAPI parses the body before the record is read; the answer still says where, as the CLI does."""
    from paiscan.scoring.game_record import parse_record_text

    text = '{"rules": "boo",\n  "players": ["A", "B",, "C"]}'
    r = client.post("/v1/games", content=text.encode(), headers={"content-type": "application/json"})
    assert r.status_code == 422
    with pytest.raises(HandError) as e:
        parse_record_text(text)
    assert r.json()["error"] == {"code": "bad_json", "message": e.value.message, "field": None}
    assert "line 2, column 24" in e.value.message
