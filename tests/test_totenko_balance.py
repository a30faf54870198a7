"""The totenko_balance ruleset against every hand vector of ../shared/rules/totenko_balance.md,
their variants, and properties of the point count (tsumo/ron payments, honba, gari)."""

from __future__ import annotations

import copy
from collections import Counter
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from spec_vectors import check_expect as check
from spec_vectors import hand_vectors

from paiscan.scoring import score_hand
from paiscan.scoring.errors import HandError
from paiscan.scoring.registry import get_ruleset

VECTORS = hand_vectors("totenko_balance")
#: keys of a variant that change the input; everything else (but ``why``) is expected output
INPUT_KEYS = (
    "options",
    "flags",
    "honba",
    "seat_wind",
    "win",
    "win_tile",
    "hand",
    "melds",
    "nuki",
    "dora_indicators",
    "ura_indicators",
)


def run(inp: dict[str, Any]) -> dict[str, Any]:
    """Score a Hand; an invalid hand comes back as ``{"error": code}``."""
    try:
        return score_hand(inp).to_dict()
    except HandError as exc:
        return {"error": exc.code, "message": exc.message, "field": exc.field}


@pytest.mark.parametrize("vec", VECTORS, ids=[v["id"] for v in VECTORS])
def test_vector(vec: dict[str, Any]) -> None:
    score = run(vec["input"])
    assert check(score, vec["expect"]) == [], vec.get("why")


VARIANTS = [
    pytest.param(v, var, id=f"{v['id']}-v{i + 1}") for v in VECTORS for i, var in enumerate(v.get("variants") or [])
]


@pytest.mark.parametrize(("vec", "variant"), VARIANTS)
def test_variant(vec: dict[str, Any], variant: dict[str, Any]) -> None:
    inp = copy.deepcopy(vec["input"])
    for key in INPUT_KEYS:
        if key not in variant:
            continue
        if key == "options":
            inp["options"] = {**(inp.get("options") or {}), **variant["options"]}
        else:
            inp[key] = variant[key]
    expect = {k: v for k, v in variant.items() if k not in INPUT_KEYS}
    assert check(run(inp), expect) == [], variant.get("why")


def test_every_vector_is_exercised() -> None:
    ids = {v["id"] for v in VECTORS}
    assert {"TOT-S1", "TOT-S5", "TOT-08", "TOT-15", "TOT-22"} <= ids
    assert len(VECTORS) >= 22 and len(VARIANTS) >= 14


def test_nagashi_vector_without_win_tile() -> None:
    vec = next(v for v in VECTORS if v["id"] == "TOT-15")
    assert check(run(vec["input"]), vec["expect"]) == []


# ---------------------------------------------------------------- targeted rules
BASE = {
    "rules": "totenko_balance",
    "hand": "234p678p789s99s23s",
    "win_tile": "4s",
    "win": "ron",
    "seat_wind": "south",
    "honba": 1,
    "nuki": "9m",
}


def items_of(score: dict[str, Any]) -> Counter[str]:
    got: Counter[str] = Counter()
    for item in score["items"]:
        got[item["id"]] += item["value"]
    return got


def test_missing_honba_reads_as_one() -> None:
    hand = {k: v for k, v in BASE.items() if k != "honba"}
    s = run(hand)
    assert items_of(s)["honba"] == 1 and s["points"] == run(BASE)["points"]
    assert not any("honba_below_one" in w for w in s["warnings"])


@pytest.mark.parametrize(
    ("change", "code", "field"),
    [
        ({"hand": "234p678p789s99s2s", "win_tile": "3m"}, "tile_not_in_ruleset", "win_tile"),
        ({"nuki": "7m"}, "tile_not_in_ruleset", "nuki"),
        ({"ura_indicators": ["2m"]}, "tile_not_in_ruleset", "ura_indicators"),
        ({"hand": "234p678p789s99s2s", "win_tile": "9m"}, "manzu_in_hand", "win_tile"),
        ({"melds": [{"type": "pon", "tiles": "111m"}], "hand": "234p678p99s23s"}, "manzu_in_hand", "melds[0].tiles"),
        ({"nuki": "9m4z", "hand": "234p678p789s99s23s"}, "bad_nuki", "nuki"),
        ({"nuki": "0m0m0m"}, "too_many_red_fives", "nuki"),
        ({"nuki": "9m", "dora_indicators": ["0p", "0p"], "hand": "234p678p789s99s23s"}, "ok", None),
        ({"nuki": "9m", "dora_indicators": ["0p", "0p", "0p"]}, "too_many_red_fives", "dora_indicators"),
        ({"seat_wind": "north"}, "bad_field", "seat_wind"),
        ({"seat_wind": "south", "dealer": True}, "bad_field", "dealer"),
        ({"options": {"red_fives": {"m": 5}}}, "bad_option", "options.red_fives.m"),
        ({"options": {"yakuman_mode": "capped"}}, "bad_option", "options.yakuman_mode"),
        ({"options": {"open_shousangen_total": 7}}, "bad_option", "options.open_shousangen_total"),
        ({"options": {"kensho": {"dealer": -1}}}, "bad_option", "options.kensho.dealer"),
        ({"options": {"no_such": 1}}, "unknown_option", "options.no_such"),
        ({"flags": ["open_riichi_forced_deal_in"]}, "conflicting_flags", "flags"),
        (
            {"flags": ["riichi", "open_riichi", "open_riichi_forced_deal_in"], "win": "tsumo"},
            "conflicting_flags",
            "flags",
        ),
        ({"flags": ["rinshan"], "win": "tsumo"}, "ok", None),
        ({"flags": ["rinshan"], "win": "tsumo", "nuki": ""}, "rinshan_without_kan", "flags"),
    ],
)
def test_validation(change: dict[str, Any], code: str, field: str | None) -> None:
    s = run({**BASE, **change})
    if code == "ok":
        assert "error" not in s, s
    else:
        assert (s.get("error"), s.get("field")) == (code, field), s


def test_validation_order_removed_tile_first() -> None:
    """A 2m–8m is reported before a manzu in the hand, a bad nuki or too many red fives."""
    s = run({**BASE, "hand": "234p678p789s99s5m", "win_tile": "4s", "nuki": "4z000m", "dora_indicators": ["8m"]})
    assert s["error"] == "tile_not_in_ruleset"
    s = run({**BASE, "hand": "234p678p789s99s5m", "nuki": "4z000m"})
    assert s["error"] == "manzu_in_hand"
    s = run({**BASE, "nuki": "4z000m"})
    assert s["error"] == "bad_nuki"


def test_5m_is_in_the_set() -> None:
    """'2m–8m are removed' means 2 3 4 6 7 8m: 5m (and its reds) stay, as gari and indicators."""
    s = run({**BASE, "nuki": "50m", "dora_indicators": ["1m"]})  # 1m → 5m: both gari are dora
    assert items_of(s)["gari"] == 6 and items_of(s)["dora"] == 2


@pytest.mark.parametrize(("indicator", "dora_gari"), [("1m", "5m"), ("5m", "9m"), ("9m", "1m")])
def test_manzu_dora_cycle(indicator: str, dora_gari: str) -> None:
    s = run({**BASE, "nuki": dora_gari, "dora_indicators": [indicator]})
    assert items_of(s)["dora"] == 1


def test_kokushi_keeps_1m_9m_in_hand() -> None:
    hand = {
        "rules": "totenko_balance",
        "hand": "19m19p19s1234567z",
        "win_tile": "1z",
        "win": "ron",
        "seat_wind": "south",
        "honba": 1,
        "nuki": "5m",
    }
    s = run(hand)
    assert [y["id"] for y in s["yaku"]] == ["kokushi"]
    assert items_of(s) == Counter({"yakuman": 50, "honba": 1, "bazoro": 2, "gari": 2})
    assert s["points"] == 55 and s["limit"] == "yakuman"
    s = run({**hand, "options": {"yakuman_mode": "fixed"}})
    assert s["points"] == 50
    assert run({**hand, "hand": "15m19p19s1234567z", "win_tile": "9m"})["error"] == "manzu_in_hand"


def test_yakuman_stack() -> None:
    """役満 ※複合あり: 字一色 + 四暗刻 + 大三元 = 3 × 50."""
    hand = {
        "rules": "totenko_balance",
        "hand": "555z666z777z111z2z",
        "win_tile": "2z",
        "win": "tsumo",
        "seat_wind": "south",
        "honba": 1,
        "nuki": "1m",
    }
    s = run(hand)
    assert {y["id"] for y in s["yaku"]} == {"tsuuiisou", "suuankou", "daisangen"}
    assert items_of(s)["yakuman"] == 150 and s["points"] == 150 + 1 + 2 + 2


def test_pinfu_tsumo_and_value_pair() -> None:
    s = run({**BASE, "win": "tsumo", "flags": []})
    assert {"pinfu", "menzen_tsumo"} <= {y["id"] for y in s["yaku"]}
    # a North pair is a value pair for everybody: no pinfu
    s = run({**BASE, "hand": "234p678p789s44z23s"})
    assert "error" in s or "pinfu" not in {y["id"] for y in s["yaku"]}
    # West is not a value wind for South: pinfu stands
    s = run({**BASE, "hand": "234p678p789s33z23s"})
    assert "pinfu" in {y["id"] for y in s["yaku"]}


def test_seat_value_winds() -> None:
    """South: 南 and 東 and 北 are value; 西 is not (南家は西以外)."""
    hand = {
        "rules": "totenko_balance",
        "hand": "333z234p99s23s",
        "melds": [{"type": "pon", "tiles": "666p"}],
        "win_tile": "4s",
        "seat_wind": "south",
        "honba": 1,
    }
    assert run(hand)["error"] == "no_yaku"
    s = run({**hand, "seat_wind": "west"})
    assert [y["id"] for y in s["yaku"]] == ["yakuhai_seat_wind"]
    s = run({**hand, "hand": "222z234p99s23s", "seat_wind": "east"})
    assert s["error"] == "no_yaku"  # 親の場合は南と西がオタ風


def test_riichi_family_values() -> None:
    """ダブリー 4 (リーチ込み6), オープン 2 + リーチ 2, 一発 2."""

    def pts(flags: list[str]) -> Counter[str]:
        return items_of(run({**BASE, "flags": flags}))

    assert pts(["double_riichi"])["riichi"] == 2 and pts(["double_riichi"])["double_riichi"] == 4
    got = pts(["riichi", "open_riichi", "ippatsu"])
    assert (got["riichi"], got["open_riichi"], got["ippatsu"]) == (2, 2, 2)


def test_ura_dora_only_with_riichi() -> None:
    s = run({**BASE, "ura_indicators": ["8s"]})
    assert items_of(s)["ura_dora"] == 0 and any("ura" in w for w in s["warnings"])
    s = run({**BASE, "ura_indicators": ["8s"], "flags": ["riichi"]})
    assert items_of(s)["ura_dora"] == 3


def test_open_values() -> None:
    """Each yaku's closed and open value exactly as the seed's table."""
    yaku = get_ruleset("totenko_balance").describe()["yaku"]
    table = {y["id"]: (y["closed"], y["open"]) for y in yaku}
    want = {
        "menzen_tsumo": (1, None),
        "riichi": (2, None),
        "ippatsu": (2, None),
        "tanyao": (2, 1),
        "pinfu": (2, None),
        "iipeikou": (2, 1),
        "yakuhai_haku": (1, 1),
        "chankan": (1, 1),
        "rinshan": (1, 1),
        "haitei": (1, 1),
        "houtei": (1, 1),
        "double_riichi": (4, None),
        "open_riichi": (2, None),
        "ankan": (2, 2),
        "minkan": (1, 1),
        "chiitoitsu": (4, None),
        "toitoi": (6, 4),
        "sanankou": (6, 4),
        "ittsu": (4, 2),
        "chanta": (8, 6),
        "shousangen": (6, 4),
        "sankantsu": (6, 4),
        "honitsu": (6, 4),
        "junchan": (12, 10),
        "ryanpeikou": (8, None),
        "chinitsu": (12, 10),
        "chiitoitsu_4": (6, None),
        "chiitoitsu_8": (8, None),
        "chiitoitsu_12": (1, None),
        "sanrenkou": (6, 4),
    }
    assert {k: table[k] for k in want} == want
    for gone in ("sanshoku", "sanshoku_doukou", "honroutou", "renhou"):
        assert gone not in table


def test_open_iipeikou_and_sanrenkou() -> None:
    s = run(
        {
            "rules": "totenko_balance",
            "hand": "234p678s99s23s",
            "win_tile": "4s",
            "melds": [{"type": "chi", "tiles": "234p"}],
            "seat_wind": "south",
            "honba": 1,
            "nuki": "1m",
        }
    )
    assert [y["id"] for y in s["yaku"]] == ["iipeikou"] and items_of(s)["iipeikou"] == 1
    s = run(
        {
            "rules": "totenko_balance",
            "hand": "555p666p77p99s",
            "win_tile": "9s",
            "melds": [{"type": "pon", "tiles": "444p"}],
            "seat_wind": "south",
            "honba": 1,
            "nuki": "1m",
        }
    )
    got = items_of(s)
    assert got["sanrenkou"] == 4 and got["toitoi"] == 4 and got["fives"] == 6


def test_eight_tile_seven_pairs_and_kan_points() -> None:
    s = run(
        {
            "rules": "totenko_balance",
            "hand": "3333p6666p22s88s7z",
            "win_tile": "7z",
            "seat_wind": "south",
            "honba": 1,
            "nuki": "1m",
        }
    )
    assert [y["id"] for y in s["yaku"]] == ["chiitoitsu_8"] and items_of(s)["chiitoitsu_8"] == 8
    kans = {
        "rules": "totenko_balance",
        "hand": "234p99s23s",
        "win_tile": "4s",
        "seat_wind": "south",
        "honba": 1,
        "nuki": "1m",
        "melds": [{"type": "kan", "tiles": "8888s", "open": False}, {"type": "kan", "tiles": "1111z", "open": True}],
    }
    got = items_of(run(kans))
    assert (got["ankan"], got["minkan"]) == (2, 1)
    got = items_of(run({**kans, "options": {"kan_points_require_menzen": True}}))
    assert (got["ankan"], got["minkan"]) == (0, 1)


def test_karasu_voided_by_each_condition() -> None:
    base = next(v for v in VECTORS if v["id"] == "TOT-06")["input"]
    assert run(base)["karasu"] is True
    for change in (
        {"nuki": "1m"},
        {"dora_indicators": ["2p"]},
        {"seat_wind": "east"},
        {"hand": "234p678s11p23s", "win_tile": "4s", "flags": ["discarded_five"]},
        {"hand": "345p678s11p23s"},
    ):
        s = run({**base, **change})
        expect_karasu = change == {"seat_wind": "east"}  # 親の場合は5点で完成
        assert s["karasu"] is expect_karasu, (change, s["items"])


def test_items_sum_to_what_one_payer_owes() -> None:
    for vec in VECTORS:
        s = run(vec["input"])
        if "error" in s:
            continue
        owed = sum(i["value"] for i in s["items"])
        assert owed == s["points"] + s["kensho_per_payer"], vec["id"]
        assert max(p["amount"] for p in s["payments"]) == owed * 100, vec["id"]
        assert s["explanation"][-1]["label"] == "total"


# ---------------------------------------------------------------- properties
HANDS = [v["input"] for v in VECTORS if "error" not in v["expect"] and v["input"].get("hand")]


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(HANDS), st.integers(1, 40), st.booleans())
def test_payments_follow_points(inp: dict[str, Any], honba: int, tsumo: bool) -> None:
    """Tsumo: both opponents pay P + K; ron: the discarder P + K, the bystander K."""
    s = run(
        {
            **inp,
            "honba": honba,
            "win": "tsumo" if tsumo else "ron",
            "flags": [f for f in inp.get("flags", []) if f != "open_riichi_forced_deal_in"]
            if tsumo
            else inp.get("flags", []),
        }
    )
    if "error" in s:
        assume_error = s["error"] in ("no_yaku",)
        assert assume_error, s
        return
    p, k = s["points"], s["kensho_per_payer"]
    assert k == (0 if honba < 4 else 10 if inp.get("seat_wind", "east") == "east" else 5)
    amounts = sorted(x["amount"] for x in s["payments"])
    if tsumo:
        assert amounts == [(p + k) * 100] * 2
    else:
        assert amounts == sorted([(p + k) * 100, *([k * 100] if k else [])])
    assert s["total"] == sum(amounts)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(HANDS), st.integers(1, 30))
def test_each_honba_adds_one_point(inp: dict[str, Any], honba: int) -> None:
    """Outside karasu and fixed-mode yakuman, one more honba is one more point."""
    a, b = run({**inp, "honba": honba}), run({**inp, "honba": honba + 1})
    if a["karasu"] or b["karasu"]:
        assert a["points"] == b["points"] == 30
    else:
        assert b["points"] - a["points"] == 1


GARI = st.lists(st.sampled_from(["1m", "5m", "0m", "9m"]), max_size=12).filter(
    lambda ts: all(sum(t in grp for t in ts) <= 4 for grp in ({"1m"}, {"5m", "0m"}, {"9m"})) and ts.count("0m") <= 2
)


@settings(max_examples=80, deadline=None)
@given(GARI)
def test_gari_count(gari: list[str]) -> None:
    """2 per gari, red 5m 4, a kind with all four doubled — counted independently per tile."""
    s = run({**BASE, "nuki": "".join(gari)})
    expect = 0
    for grp in ({"1m"}, {"5m", "0m"}, {"9m"}):
        tiles = [t for t in gari if t in grp]
        value = sum(4 if t == "0m" else 2 for t in tiles)
        expect += value * (2 if len(tiles) == 4 else 1)
    assert items_of(s)["gari"] == expect
    assert items_of(s)["no_gari"] == (0 if gari else 5)


def test_chanta_without_sequence_option() -> None:
    """No honroutou here: all-yaochuu triplets are chanta unless chanta_requires_sequence."""
    hand = {
        "rules": "totenko_balance",
        "hand": "111p999s555z22z99p",
        "win_tile": "9p",
        "seat_wind": "south",
        "honba": 1,
        "nuki": "1m",
    }
    assert items_of(run(hand))["chanta"] == 8
    s = run({**hand, "options": {"chanta_requires_sequence": True}})
    assert "chanta" not in items_of(s) and items_of(s)["toitoi"] == 6


def test_kensho_and_point_value_options() -> None:
    s = run({**BASE, "honba": 2, "options": {"kensho_min_honba": 2, "kensho": {"non_dealer": 7}, "point_value": 1000}})
    p = s["points"]
    assert s["kensho_per_payer"] == 7
    assert sorted(x["amount"] for x in s["payments"]) == [7000, (p + 7) * 1000]
