"""Game-level Totenko rules: noten payments (the spec's TOT-N vectors), the dealer/honba rule,
seat winds, and a winning Score turned into each seat's change."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from spec_vectors import game_vectors

from paiscan.scoring import score_hand
from paiscan.scoring.errors import HandError
from paiscan.scoring.game_totenko import next_deal, noten_payments, seat_winds, win_deltas

SEATS = ("east", "south", "west")


def noten_vectors() -> list[dict[str, Any]]:
    """The spec's game-level draw vectors (TOT-N*)."""
    return [v for v in game_vectors("totenko_balance") if "tenpai" in v]


NOTEN = noten_vectors()


def test_noten_vectors_found() -> None:
    assert [v["id"] for v in NOTEN] == ["TOT-N1", "TOT-N2", "TOT-N3"]


@pytest.mark.parametrize("vec", NOTEN, ids=[v["id"] for v in NOTEN])
def test_noten_vector(vec: dict[str, Any]) -> None:
    result = noten_payments(vec["tenpai"], vec["noten"])
    assert result.deltas == vec["expect"]
    assert sum(result.deltas.values()) == 0
    assert sum(t.amount for t in result.transfers) == (1000 if result.transfers else 0)


def test_noten_options_and_default_noten() -> None:
    assert noten_payments(["south"]).deltas == {"east": -500, "south": 1000, "west": -500}
    r = noten_payments(["south"], options={"noten_penalty_total": 20, "point_value": 1})
    assert r.deltas == {"east": -10, "south": 20, "west": -10}
    names = noten_payments(["ann", "bo"], ["cy"], players=["ann", "bo", "cy"])
    assert names.deltas == {"ann": 500, "bo": 500, "cy": -1000}
    assert names.to_dict()["transfers"] == [
        {"from": "cy", "to": "ann", "amount": 500},
        {"from": "cy", "to": "bo", "amount": 500},
    ]


@pytest.mark.parametrize(
    ("tenpai", "noten", "options", "code"),
    [
        (["north"], ["south", "west"], None, "bad_field"),
        (["east"], ["east", "south", "west"], None, "bad_field"),
        (["east"], ["south"], None, "bad_field"),
        (["east", "east"], ["south", "west"], None, "bad_field"),
        (["east"], ["south", "west"], {"noten_penalty_total": 7}, "bad_option"),
        (["east"], ["south", "west"], {"noten_total": 10}, "unknown_option"),
    ],
)
def test_noten_rejects(tenpai: list[str], noten: list[str], options: dict[str, Any] | None, code: str) -> None:
    with pytest.raises(HandError) as err:
        noten_payments(tenpai, noten, options=options)
    assert err.value.code == code


@given(st.lists(st.sampled_from(SEATS), unique=True, max_size=3))
def test_noten_zero_sum(tenpai: list[str]) -> None:
    """Whatever the split, 10 points change hands (or none), and only noten players pay."""
    d = noten_payments(tenpai).deltas
    assert sum(d.values()) == 0
    assert all(d[s] >= 0 for s in tenpai) and all(d[s] <= 0 for s in SEATS if s not in tenpai)
    assert sum(v for v in d.values() if v > 0) == (1000 if 0 < len(tenpai) < 3 else 0)


# ---------------------------------------------------------------- dealer and honba
@pytest.mark.parametrize(
    ("dealer", "honba", "winner", "kw", "expect"),
    [
        ("east", 1, None, {}, ("east", 2)),  # 流局: 親権移動なし、本場を追加
        ("east", 7, None, {}, ("east", 8)),
        ("east", 3, "south", {}, ("south", 1)),  # アガった人が親; 1本場からスタート
        ("south", 12, "west", {}, ("west", 1)),
        ("east", 1, "east", {}, ("east", 2)),  # the dealer wins: deal stays (honba [assumed])
        ("east", 1, "east", {"dealer_win_adds_honba": False}, ("east", 1)),
    ],
)
def test_next_deal(dealer: str, honba: int, winner: str | None, kw: dict[str, Any], expect: tuple[str, int]) -> None:
    assert next_deal(dealer, honba, winner, **kw) == expect


def test_next_deal_rejects_bad_honba() -> None:
    with pytest.raises(HandError):
        next_deal("east", -1, None)


def test_seat_winds() -> None:
    assert seat_winds(["a", "b", "c"], "b") == {"b": "east", "c": "south", "a": "west"}
    with pytest.raises(HandError):
        seat_winds(["a", "b", "c"], "d")
    with pytest.raises(HandError):
        seat_winds(["a", "b"], "a")


# ---------------------------------------------------------------- a Score into seat changes
TOT07 = {
    "rules": "totenko_balance",
    "hand": "234p678p23s678s55p",
    "win_tile": "4s",
    "win": "ron",
    "seat_wind": "east",
    "honba": 5,
    "flags": ["riichi"],
    "dora_indicators": ["1p"],
}


def test_win_deltas_ron_with_kenshoba() -> None:
    score = score_hand(TOT07)
    assert win_deltas(score, "east", discarder="west") == {"east": 4400, "south": -1000, "west": -3400}


def test_win_deltas_tsumo() -> None:
    score = score_hand({**TOT07, "win": "tsumo", "seat_wind": "south"})
    d = win_deltas(score, "south")
    assert sum(d.values()) == 0 and d["east"] == d["west"] == -score.payments[0].amount
    with pytest.raises(HandError):
        win_deltas(score, "south", discarder="east")
    with pytest.raises(HandError):
        win_deltas(score_hand(TOT07), "east")  # ron without a discarder
