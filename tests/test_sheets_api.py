"""Stored game sheets (paiscan.service.sheets, /v1/sheets, the CSV sheet): create from JSON and CSV, list,
read, replace and add a hand under versions (409 on a stale write), delete, a bad record stores nothing,
and everything survives a restart (a new app and store on the same folder) and a killed process."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from paiscan.scoring.game_record import dump_record, parse_record, replay
from paiscan.service.demo import DemoReader
from paiscan.service.settings import ServiceSettings
from paiscan.service.sheet_csv import read_sheet_csv, write_sheet_csv
from paiscan.service.sheets import DB_NAME, SCHEMA_VERSION, SheetStore, VersionConflict

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

from paiscan.service.app import create_app

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = sorted((ROOT / "examples").glob("game_*.json"))


def example(name: str) -> dict[str, Any]:
    return json.loads((ROOT / "examples" / f"game_{name}.json").read_text(encoding="utf-8"))


def make_client(data_dir: Path) -> TestClient:
    settings = ServiceSettings(_env_file=None, workers=1, queue_size=4, data_dir=data_dir)  # type: ignore[call-arg]
    return TestClient(create_app(settings, reader=DemoReader()))


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with make_client(tmp_path) as c:
        yield c


def test_create_list_get_and_the_replay(client: TestClient) -> None:
    r = client.post("/v1/sheets", json=example("boo"))
    assert r.status_code == 201, r.text
    body = r.json()
    assert set(body) >= {"id", "record", "replay"} and r.headers["etag"] == '"v1"'
    assert r.headers["location"] == f"/v1/sheets/{body['id']}"
    assert body["record"] == dump_record(parse_record(example("boo")))
    assert body["replay"] == replay(parse_record(example("boo"))).to_dict()
    listed = client.get("/v1/sheets").json()["sheets"]
    assert [(s["id"], s["title"], s["date"], s["rules"], s["players"], s["hands"]) for s in listed] == [
        (body["id"], "Thursday club, table 2", "2024-05-16", "boo", ["Aki", "Ben", "Chie", "Dai"], 6)
    ]
    assert listed[0]["updated"]
    got = client.get(f"/v1/sheets/{body['id']}")
    assert got.status_code == 200 and got.json() == body


def test_a_bad_record_names_the_field_and_stores_nothing(client: TestClient) -> None:
    bad = example("boo")
    bad["hands"][0]["discarder"] = "Ben"
    r = client.post("/v1/sheets", json=bad)
    assert r.status_code == 422 and r.json()["error"]["field"] == "hands[0].discarder"
    broken = client.post(
        "/v1/sheets", content=b'{"rules": "boo",\n  "players": [}', headers={"content-type": "application/json"}
    )
    err = broken.json()["error"]
    assert broken.status_code == 422 and err["code"] == "bad_json" and "line 2, column 15" in err["message"]  # the "}"
    r = client.post("/v1/sheets", content=b"rules: boo", headers={"content-type": "text/plain"})
    assert r.status_code == 415
    assert client.get("/v1/sheets").json()["sheets"] == []


def test_versions_keep_two_tabs_from_losing_a_hand(client: TestClient) -> None:
    sid = client.post("/v1/sheets", json={"rules": "boo", "players": list("ABCD"), "hands": []}).json()["id"]
    tab1 = tab2 = '"v1"'
    r1 = client.post(
        f"/v1/sheets/{sid}/hands",
        json={"result": "ron", "winner": "B", "discarder": "C", "points": 1000},
        headers={"If-Match": tab1},
    )
    assert r1.status_code == 200 and r1.headers["etag"] == '"v2"'
    # the second tab still shows version 1: its replace would drop the first tab's hand
    stale = client.put(
        f"/v1/sheets/{sid}",
        json={"rules": "boo", "players": list("ABCD"), "hands": [{"result": "draw"}]},
        headers={"If-Match": tab2},
    )
    assert (
        stale.status_code == 409
        and stale.json()["error"]["code"] == "version_conflict"
        and stale.json()["version"] == 2
    )
    stale_add = client.post(f"/v1/sheets/{sid}/hands", json={"result": "draw"}, headers={"If-Match": tab2})
    assert stale_add.status_code == 409
    assert (
        client.put(f"/v1/sheets/{sid}", json={"rules": "boo", "players": list("ABCD"), "hands": []}).status_code == 428
    )
    now = client.get(f"/v1/sheets/{sid}").json()
    assert now["version"] == 2 and len(now["record"]["hands"]) == 1
    # appends without If-Match keep both hands
    client.post(f"/v1/sheets/{sid}/hands", json={"result": "draw"})
    client.post(f"/v1/sheets/{sid}/hands", json={"result": "draw"})
    assert len(client.get(f"/v1/sheets/{sid}").json()["record"]["hands"]) == 3
    bad = client.post(f"/v1/sheets/{sid}/hands", json={"result": "ron", "winner": "Z", "discarder": "C", "points": 1})
    assert bad.status_code == 422 and bad.json()["error"]["field"] == "hands[3].winner"
    assert client.get(f"/v1/sheets/{sid}").json()["version"] == 4
    ok = client.put(f"/v1/sheets/{sid}", json=example("boo"), headers={"If-Match": '"v4"'})
    assert ok.status_code == 200 and ok.json()["version"] == 5 and ok.json()["record"]["title"]
    assert client.delete(f"/v1/sheets/{sid}", headers={"If-Match": '"v4"'}).status_code == 409
    assert client.delete(f"/v1/sheets/{sid}", headers={"If-Match": '"v5"'}).status_code == 204
    assert client.get(f"/v1/sheets/{sid}").status_code == 404
    assert client.get("/v1/sheets/..%2Fetc").status_code == 404


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_csv_sheet_round_trip(client: TestClient, path: Path) -> None:
    record = dump_record(parse_record(json.loads(path.read_text(encoding="utf-8"))))
    text = write_sheet_csv(record)
    assert read_sheet_csv(text) == record or dump_record(parse_record(read_sheet_csv(text))) == record
    r = client.post("/v1/sheets", content=text.encode(), headers={"content-type": "text/csv"})
    assert r.status_code == 201, r.text
    assert r.json()["record"] == record
    exported = client.get(f"/v1/sheets/{r.json()['id']}/csv")
    assert exported.headers["content-type"].startswith("text/csv") and exported.text == text
    replayed = client.get(f"/v1/sheets/{r.json()['id']}/csv?replayed=true")
    assert replayed.text == replay(parse_record(record)).csv_text()


def test_the_csv_example_and_csv_errors_name_the_line(client: TestClient) -> None:
    text = (ROOT / "examples" / "sheet_boo.csv").read_text(encoding="utf-8")
    r = client.post("/v1/sheets", content=text.encode(), headers={"content-type": "text/csv"})
    assert r.status_code == 201, r.text
    rep = r.json()["replay"]
    assert len(rep["hands"]) == 6 and rep["disputes"] and rep["settlement"]["kind"] == "boo_family"
    bad = text.replace("ron,Ben,Chie,", "ron,Ben,Ben,", 1)
    err = client.post("/v1/sheets", content=bad.encode(), headers={"content-type": "text/csv"}).json()["error"]
    line = next(n for n, ln in enumerate(bad.splitlines(), 1) if ",ron,Ben,Ben," in ln)
    assert err["code"] == "winner_is_discarder" and err["message"].startswith(f"line {line} of the CSV")
    err = client.post(
        "/v1/sheets",
        content=b"rules,boo\nplayers,A,B,C,D\nresult,winner,colour\n",
        headers={"content-type": "text/csv"},
    ).json()["error"]
    assert err["field"] == "line 3: colour"
    err = client.post(
        "/v1/sheets",
        content=b"rules,boo\nplayers,A,B,C,D\nresult,winner,points\ntsumo,B,lots\n",
        headers={"content-type": "text/csv"},
    ).json()["error"]
    assert err["field"] == "line 4: points"
    assert (
        client.get("/v1/sheets").json()["sheets"][0]["hands"] == 6
        and len(client.get("/v1/sheets").json()["sheets"]) == 1
    )


def test_sheets_survive_a_restart(tmp_path: Path) -> None:
    with make_client(tmp_path) as c:
        sid = c.post("/v1/sheets", json=example("riichi")).json()["id"]
        c.post(f"/v1/sheets/{sid}/hands", json={"result": "draw", "tenpai": []}, headers={"If-Match": '"v1"'})
        before = c.get(f"/v1/sheets/{sid}").json()
    with make_client(tmp_path) as c:  # a new app: a new store on the same folder
        after = c.get(f"/v1/sheets/{sid}").json()
        assert after == before and after["version"] == 2
        assert [s["id"] for s in c.get("/v1/sheets").json()["sheets"]] == [sid]


#: a process that stores a sheet, says its id and dies without any clean shutdown
WRITE_THEN_DIE = """
import json, os, sys
from pathlib import Path
from paiscan.service.sheets import SheetStore
sheet = SheetStore(Path(sys.argv[1])).create(json.loads(sys.stdin.read()))
sys.stdout.write(sheet.id)
sys.stdout.flush()
os._exit(0)
"""


def test_a_returned_write_survives_a_killed_process(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", WRITE_THEN_DIE, str(tmp_path)],
        input=json.dumps(example("jun")),
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    assert SheetStore(tmp_path).get(done.stdout.strip()).record == dump_record(parse_record(example("jun")))


def test_layout_version_and_migrations(tmp_path: Path) -> None:
    store = SheetStore(tmp_path)
    assert store.schema_version() == SCHEMA_VERSION
    conn = sqlite3.connect(tmp_path / DB_NAME)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.close()
    with pytest.raises(RuntimeError, match="newer"):
        SheetStore(tmp_path)


def test_a_conflict_changes_nothing(tmp_path: Path) -> None:
    store = SheetStore(tmp_path)
    s = store.create({"rules": "jun", "players": list("ABCD"), "hands": []})
    store.append_hand(s.id, {"result": "draw"}, expected=1)
    with pytest.raises(VersionConflict):
        store.append_hand(s.id, {"result": "draw"}, expected=1)
    assert store.get(s.id).version == 2 and len(store.get(s.id).record["hands"]) == 1


def test_cli_sheets_import_a_folder(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from paiscan.service.cli import app as cli_app

    folder = tmp_path / "stack"
    folder.mkdir()
    for p in [*EXAMPLES, ROOT / "examples" / "sheet_boo.csv"]:
        (folder / p.name).write_bytes(p.read_bytes())
    (folder / "broken.json").write_text('{"rules": "boo",\n "players": ]', encoding="utf-8")
    (folder / "notes.txt").write_text("not a sheet", encoding="utf-8")
    result = CliRunner().invoke(cli_app, ["sheets", "import", str(folder), "--data-dir", str(tmp_path / "db")])
    assert result.exit_code == 1, result.output
    out = json.loads(result.stdout.strip().splitlines()[-1])
    assert (out["files"], out["stored"]) == (len(EXAMPLES) + 2, len(EXAMPLES) + 1)
    broken = next(s for s in out["sheets"] if s["file"] == "broken.json")
    assert broken["error"]["code"] == "bad_json" and "line 2" in broken["error"]["message"]
    expected: dict[str, int] = {}
    for p in EXAMPLES:
        for d in replay(parse_record(json.loads(p.read_text(encoding="utf-8")))).disputes:
            expected[d.kind] = expected.get(d.kind, 0) + 1
    expected["points_differ"] += 1  # sheet_boo.csv: hand 4 and the hand after the end
    expected["after_end"] += 1
    assert out["flags"] == expected
    stored = SheetStore(tmp_path / "db").list()
    assert len(stored) == len(EXAMPLES) + 1 and sum(s["hands"] for s in stored) == out["hands"]


def test_sheets_take_json_as_strictly_as_every_route(client: TestClient) -> None:
    """A key given twice is refused (duplicate_key), not read as its last value, and nothing is stored."""
    text = json.dumps(example("boo"))[:-1] + ', "rules": "riichi"}'
    r = client.post("/v1/sheets", content=text.encode(), headers={"content-type": "application/json"})
    assert (
        r.status_code == 422 and r.json()["error"]["code"] == "duplicate_key" and r.json()["error"]["field"] == "rules"
    )
    assert client.get("/v1/sheets").json()["sheets"] == []
