"""The kansai_boo ruleset against every hand vector of ../shared/rules/kansai_boo.md and their
variants, the Kansai overrides of Boo, and properties of the price (payments, tsumo splits, the
cap). Variants follow test_boo's conventions (options replace the input's)."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from spec_vectors import hand_vectors
from test_boo import INPUT_KEYS, check, ids, items, run, variant_input, variant_params

from paiscan.scoring.generate import random_hand
from paiscan.scoring.registry import get_ruleset

VECTORS = hand_vectors("kansai_boo")


@pytest.mark.parametrize("vec", VECTORS, ids=[v["id"] for v in VECTORS])
def test_vector(vec: dict[str, Any]) -> None:
    assert check(run(vec["input"]), vec["expect"], "kansai_boo") == [], vec.get("why")


@pytest.mark.parametrize(("vec", "variant"), variant_params(VECTORS))
def test_variant(vec: dict[str, Any], variant: dict[str, Any]) -> None:
    inp = variant_input(vec, variant)
    expect = {k: v for k, v in variant.items() if k not in INPUT_KEYS}
    assert check(run(inp), expect, "kansai_boo", inp.get("options")) == [], variant.get("why")


def test_every_vector_is_exercised() -> None:
    ids_ = [v["id"] for v in VECTORS]
    assert ids_[:2] == ["KAN-S1", "KAN-T1"] and {f"KAN-{i:02d}" for i in range(1, 15)} <= set(ids_)
    assert len(variant_params(VECTORS)) == 13


# ---------------------------------------------------------------- options and overrides
SPEC_OPTIONS = {
    "red_fives",
    "red_5p_count",
    "menzen_bonus",
    "dora_void_open_no_yaku",
    "yakuman_bonus",
    "open_pinfu_fu",
    "double_wind_pair_fu",
    "same_turn_missed_ron",
    "settlement_points",
    "table_fee",
}


def test_describe_lists_every_option() -> None:
    d = get_ruleset("kansai_boo").describe()
    options = {o["name"]: o for o in d["options"]}
    assert set(options) == SPEC_OPTIONS and all(len(o["meaning"]) > 20 for o in options.values())
    assert options["red_fives"]["default"] == {"m": 0, "p": 2, "s": 0}
    assert options["settlement_points"]["default"] == {"A": 10, "B": 5, "C": 3}
    yaku = {y["id"]: y for y in d["yaku"]}
    assert {"chanta", "iipeikou", "sanshoku", "ryuuiisou", "houtei", "ippatsu"}.isdisjoint(yaku)
    assert yaku["chiitoitsu"]["closed"] == 2 and yaku["honroutou"]["open"] == 4
    assert yaku["chinitsu"]["open"] == 4 and yaku["renhou_kansai"]["unit"] == "yakuman"


BASE = {"rules": "kansai_boo", "hand": "234m567p34s678s55s", "win_tile": "2s", "seat_wind": "south"}


@pytest.mark.parametrize(
    ("change", "code", "field"),
    [
        ({"options": {"red_5p_count": 3}}, "bad_option", "options.red_5p_count"),
        ({"options": {"red_5p_count": 1, "red_fives": {"p": 2}}}, "bad_option", "options.red_5p_count"),
        ({"options": {"aotenjou": True}}, "unknown_option", "options.aotenjou"),
        ({"options": {"table_fee": -3}}, "bad_option", "options.table_fee"),
        (
            {"hand": "234m067p34s678s55s", "options": {"red_5p_count": 1}, "dora_indicators": ["0p"]},
            "too_many_red_fives",
            "dora_indicators",
        ),
        ({"hand": "234m567p34s678s50s"}, "too_many_red_fives", "hand"),
        ({"nuki": "4z"}, "bad_nuki", "nuki"),
    ],
)
def test_validation(change: dict[str, Any], code: str, field: str) -> None:
    s = run({**BASE, **change})
    assert (s.get("error"), s.get("field")) == (code, field), s


def test_red_5p_count_is_red_fives_p() -> None:
    hand = {**BASE, "hand": "234m067p34s678s55s"}
    assert ids(run({**hand, "options": {"red_fives": {"p": 1}}})) == ["pinfu", "tanyao", "red_five"]
    assert (
        run({**hand, "hand": "234m006p34s678s55s", "win_tile": "2s", "options": {"red_fives": {"p": 1}}})["error"]
        == "too_many_red_fives"
    )
    # with 4 red 5p every 5p is red, whatever the input says
    s = run({**hand, "hand": "234m567p34s678s55s", "options": {"red_5p_count": 4}})
    assert [y["value"] for y in s["yaku"] if y["id"] == "red_five"] == [1]


def test_open_pinfu_fu_option() -> None:
    hand = {
        "rules": "kansai_boo",
        "hand": "567p345s67s88p",
        "win_tile": "8s",
        "seat_wind": "south",
        "melds": [{"type": "chi", "tiles": "234m"}],
    }
    assert run(hand)["fu"] == 20
    s = run({**hand, "options": {"open_pinfu_fu": 30}})
    assert s["fu"] == 30 and "pinfu" in ids(s) and any(p["reason"] == "open_pinfu" for p in s["fu_details"])


def test_seven_pairs_always_and_no_chanta() -> None:
    s = run({**BASE, "hand": "11m4477p2288s336z", "win_tile": "6z"})
    assert ids(s) == ["chiitoitsu"] and s["fu"] == 25
    chanta = run({"rules": "kansai_boo", "hand": "123m789p99s44z789s", "win_tile": "4z", "seat_wind": "south"})
    assert ids(chanta) == [] and chanta["total"] == 4 * 40 * 2  # 全帯幺 does not exist: 0 han + bazoro


def test_honroutou_stacks_with_toitoi() -> None:
    s = run(
        {
            "rules": "kansai_boo",
            "hand": "111m999p11s44z",
            "win_tile": "4z",
            "seat_wind": "south",
            "melds": [{"type": "pon", "tiles": "999s"}],
        }
    )
    assert sorted(ids(s)) == ["honroutou", "toitoi"] and s["han"] == 6 and s["limit"] == "mangan"


def test_dora_void_open_no_yaku_keeps_the_reason() -> None:
    vec = {
        "rules": "kansai_boo",
        "hand": "123m222p33s57s",
        "melds": [{"type": "pon", "tiles": "777p"}],
        "win_tile": "6s",
        "seat_wind": "south",
        "dora_indicators": ["1p"],
        "options": {"dora_void_open_no_yaku": True},
    }
    s = run(vec)
    void = [i for i in s["items"] if i["id"] == "dora"]
    assert void[0]["value"] == 0 and "dora_void_open_no_yaku" in void[0]["detail"]
    closed = run({**vec, "hand": "123m222p777p33s57s", "melds": []})  # closed: dora counted
    assert items(closed)["dora"] == 900


def test_rinshan_after_open_kan_is_a_normal_tsumo() -> None:
    hand = {
        "rules": "kansai_boo",
        "hand": "234m567p34s88p",
        "win_tile": "5s",
        "win": "tsumo",
        "seat_wind": "south",
        "melds": [{"type": "kan", "tiles": "7777s", "open": True}],
        "flags": ["rinshan", "rinshan_after_daiminkan"],
    }
    s = run(hand)
    assert Counter(p["from"] for p in s["payments"]) == Counter({"non_dealer": 2, "dealer": 1})
    assert ids(s) == ["tanyao", "rinshan"] and any("normal tsumo" in w for w in s["warnings"])
    boo = run({**hand, "rules": "boo"})
    assert [p["from"] for p in boo["payments"]] == ["discarder"]


def test_yakuman_is_the_mangan_and_first_turn_meanings() -> None:
    tsumo = {**BASE, "win": "tsumo", "flags": ["chiihou"]}
    assert ids(run(tsumo)) == ["renhou_kansai"] and run(tsumo)["total"] == 2000
    dealer = run({**BASE, "seat_wind": "east", "win": "tsumo", "flags": ["tenhou"]})
    assert ids(dealer) == ["tenhou"] and dealer["total"] == 3000 and dealer["limit"] == "yakuman"
    plain = run({**BASE, "flags": ["renhou"]})
    assert "renhou_kansai" not in ids(plain) and any("'renhou' has no effect" in w for w in plain["warnings"])


def test_menzen_bonus_counts_a_closed_kan_as_closed() -> None:
    hand = {
        "rules": "kansai_boo",
        "hand": "234m678s55p34s",
        "win_tile": "2s",
        "seat_wind": "south",
        "melds": [{"type": "kan", "tiles": "9999p", "open": False}],
        "options": {"menzen_bonus": True},
    }
    assert items(run(hand))["menzen"] == 300


# ---------------------------------------------------------------- properties
def payer_split(score: dict[str, Any]) -> dict[str, list[int]]:
    by: dict[str, list[int]] = {}
    for p in score["payments"]:
        by.setdefault(p["from"], []).append(p["amount"])
    return by


@settings(max_examples=150, deadline=None)
@given(
    st.integers(0, 2**32 - 1),
    st.sampled_from([{}, {"menzen_bonus": True}, {"open_pinfu_fu": 30}, {"dora_void_open_no_yaku": True}]),
)
def test_random_hands_total_split_and_cap(seed: int, options: dict[str, Any]) -> None:
    """total = sum of payments = sum of items; the hand points are fu × 2^(han + 1) capped at 500
    (a yakuman is 500); tsumo: the dealer pays twice a non-dealer's hand points, a dealer tsumo is
    paid equally; the add-ons are the same for every payer."""
    hand = random_hand(random.Random(seed), "kansai_boo")
    hand["options"] = options
    s = run(hand)
    assert "error" not in s, s
    assert sum(p["amount"] for p in s["payments"]) == s["total"] == sum(items(s).values())
    basic = s["basic_points"]
    assert basic <= 500
    if not s["yakuman"]:
        assert basic == min(500, s["fu"] * 2 ** (s["han"] + 1)) and s["bazoro"] == 1
    by = payer_split(s)
    if hand["win"] == "ron":
        assert items(s)["hand"] == (6 if hand["seat_wind"] == "east" else 4) * basic
    elif hand["seat_wind"] == "east":
        assert by.keys() == {"non_dealer"} and len(set(by["non_dealer"])) == 1
    else:
        addons = (s["total"] - items(s)["hand"]) // 3
        assert by["dealer"] == [2 * basic + addons] and by["non_dealer"] == [basic + addons] * 2
