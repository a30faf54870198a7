"""Boo-family settlement (paiscan.scoring.settlement_boo) against every game-level vector of boo.md §12
and kansai_boo.md §11 (settlements G*, forbidden wins F*), plus a scored hand applied to a game,
the house options, and properties (zero sum but the fee, restrictions never silent)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from spec_vectors import game_vectors

from paiscan.scoring import score_hand
from paiscan.scoring.errors import HandError
from paiscan.scoring.settlement_boo import (
    FORBIDDEN,
    apply_pays,
    check_win,
    game_end,
    pays_from_score,
    play_hand,
    settle,
    settlement_rules,
    standing,
)

SEATS = ("east", "south", "west", "north")


VECTORS = game_vectors("boo") + game_vectors("kansai_boo")
SETTLEMENTS = [v for v in VECTORS if "final" in v]
WINS = [v for v in VECTORS if "before" in v]


def test_every_game_vector_is_found() -> None:
    assert [v["id"] for v in SETTLEMENTS] == [
        "BOO-G1",
        "BOO-G2",
        "BOO-G3",
        "BOO-G4",
        "BOO-G5",
        "BOO-G6",
        "KAN-G1",
        "KAN-G2",
        "KAN-G3",
    ]
    assert [v["id"] for v in WINS] == [
        "BOO-F1",
        "BOO-F2",
        "BOO-F3",
        "BOO-F4",
        "BOO-F5",
        "KAN-F1",
        "KAN-F1t",
        "KAN-F2",
        "KAN-F2b",
        "KAN-F3",
        "KAN-F3b",
        "KAN-F4",
        "KAN-F5",
    ]


@pytest.mark.parametrize("vec", SETTLEMENTS, ids=[v["id"] for v in SETTLEMENTS])
def test_settlement_vector(vec: dict[str, Any]) -> None:
    rules = settlement_rules(vec["spec"], vec.get("options"))
    s = settle(vec["final"], rules, vec.get("start_dealer"))
    expect = vec["expect"]
    got = {**s.standing.to_dict(), "net": s.net, "next_start_dealer": s.next_start_dealer}
    for key in ("top", "type", "losers", "neutral", "gentsuu", "net", "next_start_dealer"):
        if key in expect:
            assert got[key] == expect[key], (key, got, expect.get("why"))
    if "top_receives" in expect:
        m = re.fullmatch(r"(\d+) x loser_payment\.([ABC])", expect["top_receives"])
        assert m is not None
        assert s.top_receives == int(m.group(1)) * rules.loser_payment[m.group(2)]
    # every settlement: the losers pay the same, the top gets it less the fee, others nothing
    assert sum(s.net.values()) == -s.table_fee
    assert {s.net[p] for p in s.standing.losers} == {-s.per_loser}


def win_args(vec: dict[str, Any], options: dict[str, Any] | None) -> dict[str, Any]:
    all_last = bool(vec.get("all_last")) or (vec.get("round"), vec.get("hand_no")) == ("south", 4)
    return {"rules": settlement_rules(vec["spec"], options), "dealer": vec.get("dealer"), "all_last": all_last}


def check_expect(vec: dict[str, Any], expect: dict[str, Any], options: dict[str, Any] | None) -> None:
    c = check_win(vec["before"], vec["winner"], vec["pays"], **win_args(vec, options))
    why = expect.get("why")
    assert c.allowed is expect["allowed"], (c, why)
    assert c.reason == expect.get("reason"), (c, why)
    if "warnings" in expect:
        assert [w.rule for w in c.warnings] == expect["warnings"], (c.warnings, why)
    if "type" in expect:
        assert c.standing is not None and c.standing.type == expect["type"], (c, why)
    if not c.allowed:
        forbidding = [w for w in c.warnings if w.rule == c.reason]
        assert forbidding and forbidding[0].severity == FORBIDDEN
        assert str(forbidding[0]).startswith(f"{c.reason} (forbidden)")


@pytest.mark.parametrize("vec", WINS, ids=[v["id"] for v in WINS])
def test_win_vector(vec: dict[str, Any]) -> None:
    check_expect(vec, vec["expect"], vec.get("options"))


WIN_VARIANTS = [
    pytest.param(v, var, id=f"{v['id']}-v{i + 1}") for v in WINS for i, var in enumerate(v.get("variants") or [])
]


@pytest.mark.parametrize(("vec", "variant"), WIN_VARIANTS)
def test_win_variant(vec: dict[str, Any], variant: dict[str, Any]) -> None:
    options = {**(vec.get("options") or {}), **variant.get("options", {})}
    check_expect(vec, {k: v for k, v in variant.items() if k != "options"}, options)


def test_touched_rules_are_never_silent() -> None:
    """BOO-F2 is allowed, but it busts west without south being top (a house rule) and ends as a
    C-top (frowned upon): both are reported."""
    vec = next(v for v in WINS if v["id"] == "BOO-F2")
    c = check_win(vec["before"], vec["winner"], vec["pays"])
    assert c.allowed and [(w.rule, w.severity) for w in c.warnings] == [
        ("bust_without_top", "house_rule_off"),
        ("c_top_ending", "frowned_upon"),
    ]
    assert "雀荘によっては禁止" in str(c.warnings[0])
    vec = next(v for v in WINS if v["id"] == "BOO-F5")
    c = check_win(vec["before"], vec["winner"], vec["pays"], **win_args(vec, vec["options"]))
    assert c.warnings[0].rule == "bust_without_floating" and c.warnings[0].severity == "valid_in_all_last"


# ---------------------------------------------------------------- a scored hand in a game
START = dict.fromkeys(SEATS, 2000)


def test_play_hand_ron_and_tsumo() -> None:
    """BOO-S1 (south's ron from west, 1020) and BOO-S2 (the same by tsumo) applied to a game."""
    hand = {
        "rules": "boo",
        "hand": "123m222p3357s",
        "melds": [{"type": "pon", "tiles": "777p"}],
        "win_tile": "6s",
        "seat_wind": "south",
        "honba": 2,
        "dora_indicators": ["1p"],
    }
    ron = play_hand(START, score_hand(hand), "south", "east", discarder="west")
    assert ron.scores == {"east": 2000, "south": 3020, "west": 980, "north": 2000}
    assert ron.check.allowed and ron.ends is None and ron.settlement is None and ron.next_honba == 0
    tsumo = play_hand(START, score_hand({**hand, "win": "tsumo"}), "south", "east")
    assert tsumo.scores == {"east": 1440, "south": 3620, "west": 1470, "north": 1470}
    assert tsumo.check.pays == {"east": 560, "west": 530, "north": 530}


def test_play_hand_kansai_mangan_ron_forbidden_but_tsumo_ends_as_maru_a() -> None:
    """KAN-F1 / KAN-F1t from a scored hand: B's mangan (KAN-08 shape, non-dealer)."""
    start = dict.fromkeys("ABCD", 2000)
    hand = {
        "rules": "kansai_boo",
        "hand": "45678s22s",
        "win_tile": "6s",
        "seat_wind": "south",
        "melds": [{"type": "chi", "tiles": "123s"}, {"type": "pon", "tiles": "999s"}],
    }
    ron = play_hand(start, score_hand(hand), "B", "A", discarder="C")
    assert not ron.check.allowed and ron.check.reason == "maru_c_ending" and ron.scores == start
    tsumo = play_hand(start, score_hand({**hand, "win": "tsumo"}), "B", "A")
    assert tsumo.check.allowed and tsumo.ends == "double" and tsumo.settlement is not None
    assert tsumo.settlement.net == {"A": -10, "B": 27, "C": -10, "D": -10}


def test_yakuman_a_top_and_maru_a() -> None:
    kokushi = {"rules": "boo", "hand": "19m19p19s1234567z", "win_tile": "1m", "seat_wind": "south"}
    plain = play_hand(START, score_hand(kokushi), "south", "east", discarder="west")
    # priced as a baiman (4300): west busts, east and north still float → a C-top, frowned upon
    assert plain.ends == "bust" and plain.scores["south"] == 6300 and plain.settlement is not None
    assert plain.settlement.standing.type == "C" and plain.check.warnings[0].rule == "c_top_ending"
    a_top = {"yakuman_mode": "a_top"}
    out = play_hand(START, score_hand({**kokushi, "options": a_top}), "south", "east", discarder="west", options=a_top)
    assert out.ends == "yakuman" and out.settlement is not None
    assert out.settlement.standing.type == "A" and out.settlement.net["south"] == 3
    double = {"yakuman_bonus": "double_maru_a"}
    kansai = {**kokushi, "rules": "kansai_boo", "options": double}
    out = play_hand(START, score_hand(kansai), "south", "east", discarder="west", options=double)
    assert out.settlement is not None and out.settlement.net == {"east": -20, "south": 57, "west": -20, "north": -20}


def test_bust_partial_payment() -> None:
    vec = next(v for v in WINS if v["id"] == "BOO-F1")
    rules = settlement_rules("boo", {"bust_partial_payment": True})
    c = check_win(vec["before"], vec["winner"], vec["pays"], rules)
    assert c.allowed and c.pays == {"west": 290} and c.after["west"] == 10 and c.ends is None
    assert c.warnings[0].severity == "partial_payment" and "bust_partial_payment" in c.warnings[0].message


def test_house_amounts_and_gentsuu_fee() -> None:
    g4 = {"east": 4000, "south": 2000, "west": 1200, "north": 800}
    rules = settlement_rules("boo", {"loser_payment": {"B": 2000}, "table_fee": {"B": 500}, "table_fee_gentsuu": 300})
    s = settle(g4, rules)
    assert s.standing.gentsuu and s.table_fee == 300 and s.net["east"] == 4000 - 300
    s = settle({**g4, "south": 2100, "north": 700}, rules)
    assert not s.standing.gentsuu and s.table_fee == 500
    peso = settle(
        {"east": 4000, "south": 1500, "west": 1500, "north": 1000},
        settlement_rules("boo", {"preset": "seed_peso_example"}),
    )
    assert peso.net == {"east": 9000, "south": -3000, "west": -3000, "north": -3000}


def test_nobody_sinks_no_settlement() -> None:
    s = settle(START)
    assert s.standing.type is None and set(s.net.values()) == {0}


def test_game_end() -> None:
    assert game_end({"a": 10, "b": 3990, "c": 2000, "d": 2000}) is None
    assert game_end({"a": 0, "b": 4000, "c": 2000, "d": 2000}) == "bust"
    assert game_end({"a": 10, "b": 7990, "c": 2000, "d": 0}, settlement_rules("boo", {"start_points": 4000})) == "bust"
    assert game_end(START, all_last=True) == "all_last"  # an exhaustive draw in South 4
    assert game_end(START, all_last=True, winner="east", dealer="east") is None  # renchan
    assert game_end(START, all_last=True, winner="south", dealer="east") == "all_last"
    with pytest.raises(HandError) as err:
        game_end(START, all_last=True, winner="south")
    assert err.value.field == "dealer"


@pytest.mark.parametrize(
    ("call", "field"),
    [
        (lambda: settle({"a": 4000, "b": 2000, "c": 2000}), "scores"),
        (lambda: apply_pays(START, "south", {"south": 100}), "pays"),
        (lambda: apply_pays(START, "south", {"west": -100}), "pays"),
        (lambda: apply_pays(START, "nobody", {"west": 100}), "winner"),
        (lambda: settlement_rules("riichi"), "rules"),
        (lambda: settlement_rules("boo", {"table_fee": {"A": -1}}), "options.table_fee.A"),
        (lambda: settlement_rules("kansai_boo", {"loser_payment": {"A": 1}}), "options.loser_payment"),
        (lambda: standing(START, yakuman_winner="east"), "yakuman_winner"),
    ],
)
def test_errors_name_the_field(call: Any, field: str) -> None:
    with pytest.raises(HandError) as err:
        call()
    assert err.value.field == field


def test_pays_from_score_needs_the_right_seats() -> None:
    s = score_hand(
        {
            "rules": "boo",
            "hand": "234m567m789p45s99s",
            "win_tile": "6s",
            "win": "tsumo",
            "seat_wind": "south",
            "flags": ["riichi"],
        }
    )
    assert pays_from_score(s, "south", "east", SEATS) == {"east": 340, "west": 220, "north": 220}
    with pytest.raises(HandError):
        pays_from_score(s, "south", "east", SEATS, discarder="west")
    with pytest.raises(HandError):
        pays_from_score(s, "east", "east", SEATS)  # scored for a non-dealer winner, not the dealer


# ---------------------------------------------------------------- properties
scores_st = st.lists(st.integers(-100, 900).map(lambda x: 10 * x), min_size=3, max_size=3).map(
    lambda xs: dict(zip(SEATS, [*xs, 8000 - sum(xs)], strict=True))
)


@settings(max_examples=200, deadline=None)
@given(scores_st, st.sampled_from(["boo", "kansai_boo"]))
def test_settlement_zero_sum_but_the_fee(final: dict[str, int], spec: str) -> None:
    rules = settlement_rules(spec)
    s = settle(final, rules)
    floaters = [p for p in SEATS if final[p] >= rules.origin]
    assert sum(s.net.values()) == -s.table_fee
    if s.standing.type is not None:
        assert s.standing.type == {1: "A", 2: "B", 3: "C"}[len(floaters)]
        assert s.standing.top == max(SEATS, key=lambda p: (final[p], -SEATS.index(p)))
        assert s.net[s.standing.top] == s.per_loser * len(s.standing.losers) - s.table_fee
        assert all(s.net[p] == 0 for p in s.standing.neutral)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.integers(1, 500).map(lambda x: 10 * x), min_size=3, max_size=3),
    st.sampled_from(SEATS),
    st.integers(0, 300).map(lambda x: 10 * x),
    st.booleans(),
    st.sampled_from(["boo", "kansai_boo"]),
)
def test_a_forbidden_win_always_names_its_rule(
    xs: list[int], payer: str, amount: int, all_last: bool, spec: str
) -> None:
    before = dict(zip(SEATS, [*xs, 8000 - sum(xs)], strict=True))
    if before["north"] <= 0 or payer == "south":
        return
    c = check_win(before, "south", {payer: amount}, settlement_rules(spec), dealer="east", all_last=all_last)
    assert sum(c.after.values()) == 8000
    if not c.allowed:
        assert c.reason in {w.rule for w in c.warnings if w.severity == FORBIDDEN}
    assert (c.standing is not None) == (c.ends is not None)
