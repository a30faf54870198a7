"""The boo ruleset against every hand vector of ../shared/rules/boo.md and their variants, the
options the spec names, and properties of the price (payments, tsumo splits, the mangan cap).

Variants re-run the vector's input with the variant's input keys replaced; a variant's
``options`` *replace* the input's (BOO-05 and BOO-11 write ``options: {}`` for "the defaults")."""

from __future__ import annotations

import copy
import random
import re
from collections import Counter
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from spec_vectors import check_expect, hand_vectors

from paiscan.scoring import score_hand
from paiscan.scoring.errors import HandError
from paiscan.scoring.generate import random_hand
from paiscan.scoring.registry import get_ruleset
from paiscan.scoring.settlement_boo import settle, settlement_rules

VECTORS = hand_vectors("boo")
#: keys of a variant that change the input; the rest (but ``why``) is expected output
INPUT_KEYS = (
    "options",
    "flags",
    "honba",
    "seat_wind",
    "round_wind",
    "win",
    "win_tile",
    "hand",
    "melds",
    "dora_indicators",
)
#: what a variant's ``result`` sentence names → the Score's ``game_effect``
EFFECTS = (("double マルエー", "double_maru_a"), ("マルエー", "maru_a"), ("A-top", "a_top"))


def run(inp: dict[str, Any]) -> dict[str, Any]:
    """Score a Hand; an invalid hand comes back as ``{"error": code}``."""
    try:
        return score_hand(inp).to_dict()
    except HandError as exc:
        return {"error": exc.code, "message": exc.message, "field": exc.field}


def check_result(score: dict[str, Any], result: str, rules: str, options: dict[str, Any]) -> list[str]:
    """A ``result`` sentence: the game effect the Score announces, and the settlement it gives
    (``top +27, others -10``) when the sentence states one."""
    want = next(effect for words, effect in EFFECTS if words in result)
    if score.get("game_effect") != want:
        return [f"game_effect: got {score.get('game_effect')}, want {want}"]
    final = {"east": 2000, "south": 2000, "west": 2000, "north": 2000}  # "whatever the scores"
    s = settle(final, settlement_rules(rules, options), yakuman_winner="south")
    if s.standing.top != "south" or s.standing.type != "A" or len(s.standing.losers) != 3:
        return [f"settlement: {s.standing}"]
    m = re.search(r"top \+(\d+), others -(\d+)", result)
    if m and (s.net["south"], s.net["east"]) != (int(m.group(1)), -int(m.group(2))):
        return [f"net: got {s.net}, want top +{m.group(1)}, others -{m.group(2)}"]
    return []


def check(
    score: dict[str, Any], expect: dict[str, Any], rules: str = "boo", options: dict[str, Any] | None = None
) -> list[str]:
    """:func:`check_expect` plus the ``result`` sentences of the game-effect variants."""
    expect = dict(expect)
    problems = []
    if "result" in expect and "error" not in score:
        problems += check_result(score, expect.pop("result"), rules, options or {})
    return problems + check_expect(score, expect)


def variant_input(vec: dict[str, Any], variant: dict[str, Any]) -> dict[str, Any]:
    inp = copy.deepcopy(vec["input"])
    for key in INPUT_KEYS:
        if key in variant:
            inp[key] = copy.deepcopy(variant[key])
    return inp


def variant_params(vectors: list[dict[str, Any]]) -> list[Any]:
    return [
        pytest.param(v, var, id=f"{v['id']}-v{i + 1}") for v in vectors for i, var in enumerate(v.get("variants") or [])
    ]


@pytest.mark.parametrize("vec", VECTORS, ids=[v["id"] for v in VECTORS])
def test_vector(vec: dict[str, Any]) -> None:
    assert check(run(vec["input"]), vec["expect"]) == [], vec.get("why")


@pytest.mark.parametrize(("vec", "variant"), variant_params(VECTORS))
def test_variant(vec: dict[str, Any], variant: dict[str, Any]) -> None:
    inp = variant_input(vec, variant)
    expect = {k: v for k, v in variant.items() if k not in INPUT_KEYS}
    assert check(run(inp), expect, "boo", inp.get("options")) == [], variant.get("why")


def test_every_vector_is_exercised() -> None:
    ids = [v["id"] for v in VECTORS]
    assert ids[:8] == ["BOO-S1", "BOO-S2", "BOO-S3", "BOO-C1", "BOO-C2", "BOO-C3", "BOO-C4", "BOO-C5"]
    assert {f"BOO-{i:02d}" for i in range(1, 15)} <= set(ids)
    assert len(variant_params(VECTORS)) == 15


# ---------------------------------------------------------------- options and the rules command
#: §10's settings table, every one a named option (§13's ambiguities are all among them)
SPEC_OPTIONS = {
    "start_points",
    "bazoro",
    "yakuman_mode",
    "chiihou_meaning",
    "aotenjou_yakuman",
    "red_fives",
    "ryanmen_tsumo_fu",
    "double_wind_pair_fu",
    "chanta_requires_sequence",
    "yaku_han",
    "enable_iipeikou",
    "enable_chiitoitsu",
    "enable_sanshoku",
    "enable_ryuuiisou",
    "ryuuiisou_requires_hatsu",
    "extra_value_winds",
    "aotenjou",
    "min_stick",
    "dora_value",
    "honba_ron_value",
    "honba_requires_han",
    "loser_payment",
    "table_fee",
    "table_fee_gentsuu",
    "c_top_banned",
    "bust_requires_top",
    "forbidden_valid_all_last",
    "bust_partial_payment",
}


def test_describe_lists_every_option() -> None:
    d = get_ruleset("boo").describe()
    options = {o["name"]: o for o in d["options"]}
    # §13.2 states "Default: +10" for the closed-ron fu, which §10 does not list: closed_ron_fu
    assert set(options) == SPEC_OPTIONS | {"closed_ron_fu"}
    assert all(len(o["meaning"]) > 20 for o in options.values())
    assert options["start_points"]["default"] == 2000 and options["bazoro"]["choices"] == [
        "none",
        "always",
        "south_only",
    ]
    assert options["yaku_han"]["type"] == "object" and options["yaku_han"]["default"]["shousangen"] == 4
    assert options["loser_payment"]["default"] == {"A": 1, "B": 1, "C": 1}
    yaku = {y["id"]: y for y in d["yaku"]}
    assert yaku["pinfu"]["open"] == 1 and yaku["riichi"]["open"] is None
    assert "iipeikou" not in yaku and "houtei" not in yaku and yaku["suushii"]["unit"] == "yakuman"


@pytest.mark.parametrize("rid", ["boo", "kansai_boo"])
def test_paiscan_rules_command(rid: str) -> None:
    """``paiscan rules ID --json`` prints what describe() says: every option with its type,
    default and meaning."""
    import importlib
    import json

    from typer.testing import CliRunner

    # loaded by name: the CLI imports the vision and dataset packages, which are not this test's
    app = importlib.import_module("paiscan.service.cli").app
    result = CliRunner().invoke(app, ["rules", rid, "--json"])
    assert result.exit_code == 0
    printed = json.loads(result.stdout)
    assert printed["id"] == rid and printed["options"] == json.loads(
        json.dumps(get_ruleset(rid).describe()["options"], ensure_ascii=False)
    )
    table = CliRunner().invoke(app, ["rules", rid])
    assert table.exit_code == 0
    assert ("start_points" if rid == "boo" else "red_5p_count") in table.stdout


BASE = {"rules": "boo", "hand": "234m567p34s678s55s", "win_tile": "2s", "win": "ron", "seat_wind": "south"}


def ids(score: dict[str, Any]) -> list[str]:
    return [y["id"] for y in score["yaku"]]


def items(score: dict[str, Any]) -> Counter[str]:
    got: Counter[str] = Counter()
    for item in score["items"]:
        got[item["id"]] += item["value"]
    return got


@pytest.mark.parametrize(
    ("change", "code", "field"),
    [
        ({"options": {"no_such": 1}}, "unknown_option", "options.no_such"),
        ({"options": {"bazoro": "sometimes"}}, "bad_option", "options.bazoro"),
        ({"options": {"start_points": 3000}}, "bad_option", "options.start_points"),
        ({"options": {"red_fives": {"p": 5}}}, "bad_option", "options.red_fives.p"),
        ({"options": {"yaku_han": {"pinfu": -1}}}, "bad_option", "options.yaku_han.pinfu"),
        ({"options": {"yaku_han": {"dora": 1}}}, "bad_option", "options.yaku_han.dora"),
        ({"options": {"loser_payment": {"A": -3}}}, "bad_option", "options.loser_payment.A"),
        ({"nuki": "4z"}, "bad_nuki", "nuki"),
        ({"hand": "234m067p34s678s55s", "dora_indicators": ["0p"]}, "too_many_red_fives", "dora_indicators"),
        (
            {
                "win": "tsumo",
                "flags": ["rinshan_after_daiminkan"],
                "melds": [{"type": "kan", "tiles": "6666p", "open": True, "added": True}],
                "hand": "234m34s678s55s",
            },
            "rinshan_without_kan",
            "flags",
        ),
        ({"hand": "11m4477p2288s336z", "win_tile": "6z"}, "yaku_not_adopted", "hand"),
        ({"hand": "11m4477p2288s335z", "win_tile": "6z"}, "not_a_winning_hand", "hand"),
    ],
)
def test_validation(change: dict[str, Any], code: str, field: str) -> None:
    s = run({**BASE, **change})
    assert (s.get("error"), s.get("field")) == (code, field), s


def test_yaku_not_adopted_names_the_option() -> None:
    s = run({**BASE, "hand": "11m4477p2288s336z", "win_tile": "6z"})
    assert "enable_chiitoitsu" in s["message"]
    # a hand that is also a standard hand is simply scored on that reading
    s = run({**BASE, "hand": "223344m556677p8s", "win_tile": "8s"})
    assert s["form"] == "standard" and ids(s) == ["tanyao"] and s["wait"] == "tanki"


def test_yaku_han_overrides_a_value() -> None:
    s = run({**BASE, "options": {"yaku_han": {"pinfu": 2}}})
    assert s["han"] == 3 and {y["id"]: y["value"] for y in s["yaku"]}["pinfu"] == 2


def test_no_kuisagari_and_closed_only() -> None:
    """Every §3 yaku is worth the same open; riichi and menzen tsumo need a closed hand."""
    closed = run({"rules": "boo", "hand": "123p456p789p11z22p", "win_tile": "2p", "seat_wind": "south"})
    opened = run(
        {
            "rules": "boo",
            "hand": "456p789p11z22p",
            "win_tile": "2p",
            "seat_wind": "south",
            "melds": [{"type": "chi", "tiles": "123p"}],
        }
    )
    assert {y["id"]: y["value"] for y in closed["yaku"]} == {"honitsu": 2, "ittsu": 2}
    assert {y["id"]: y["value"] for y in opened["yaku"]} == {"honitsu": 2, "ittsu": 2}


def test_chinitsu_is_mangan_whatever_else() -> None:
    s = run(
        {
            "rules": "boo",
            "hand": "2s",
            "win_tile": "2s",
            "seat_wind": "south",
            "melds": [
                {"type": "chi", "tiles": "123s"},
                {"type": "chi", "tiles": "456s"},
                {"type": "chi", "tiles": "789s"},
                {"type": "chi", "tiles": "345s"},
            ],
        }
    )
    assert s["limit"] == "mangan" and s["total"] == 2000 and "chinitsu" in ids(s)
    aotenjou = run(
        {
            "rules": "boo",
            "hand": "2s",
            "win_tile": "2s",
            "seat_wind": "south",
            "options": {"aotenjou": True},
            "melds": [
                {"type": "chi", "tiles": "123s"},
                {"type": "chi", "tiles": "456s"},
                {"type": "chi", "tiles": "789s"},
                {"type": "chi", "tiles": "345s"},
            ],
        }
    )
    # 6 han chinitsu + 2 han ittsu, 20 fu + 2 tanki = 22 → 30 fu: 30 × 2^8 × 4
    assert aotenjou["limit"] is None and aotenjou["han"] == 8 and aotenjou["total"] == 30 * 256 * 4


def test_pinfu_never_on_tsumo_and_open_pinfu_is_20_fu() -> None:
    s = run({**BASE, "win": "tsumo"})
    assert "pinfu" not in ids(s) and s["fu"] == 30
    s = run({**BASE, "hand": "234m567p34s55s", "melds": [{"type": "chi", "tiles": "678s"}]})
    assert ids(s) == ["tanyao", "pinfu"] and s["fu"] == 20 and s["total"] == 320


def test_closed_ron_fu_option() -> None:
    """Without the inferred +10 the seed's chant シロク (460) would be 420 (spec §5)."""
    c2 = next(v for v in VECTORS if v["id"] == "BOO-C2")["input"]
    assert run(c2)["total"] == 460
    s = run({**c2, "options": {"closed_ron_fu": 0}})
    assert (s["fu"], s["total"]) == (30, 420)


def test_ryanmen_tsumo_fu_option() -> None:
    """4 fu for a ryanmen tsumo can lift a hand a fu step; a kanchan tsumo stays 2 + 2."""
    hand = {"rules": "boo", "hand": "234m567p99p111z45s", "win_tile": "6s", "win": "tsumo", "seat_wind": "south"}
    assert run(hand)["fu"] == 30  # 20 + 8 (East, concealed) + 2 (tsumo)
    assert run({**hand, "options": {"ryanmen_tsumo_fu": 4}})["fu"] == 40  # 20 + 8 + 4 = 32 → 40
    kanchan = {**hand, "hand": "234m567p99p111z46s", "win_tile": "5s"}
    assert run(kanchan)["fu"] == run({**kanchan, "options": {"ryanmen_tsumo_fu": 4}})["fu"] == 40


def test_bazoro_options() -> None:
    east = run({**BASE, "options": {"bazoro": "south_only"}})
    south = run({**BASE, "round_wind": "south", "options": {"bazoro": "south_only"}})
    always = run({**BASE, "options": {"bazoro": "always"}})
    assert east["bazoro"] == 0 and south["bazoro"] == 1 and always["bazoro"] == 1
    assert items(east)["hand"] == 480 and items(always)["hand"] == 960 and always["han"] == 2


def test_bazoro_is_not_han_for_honba() -> None:
    open_no_yaku = {
        "rules": "boo",
        "hand": "567p234s99p78s",
        "melds": [{"type": "chi", "tiles": "123m"}],
        "win_tile": "6s",
        "win": "tsumo",
        "seat_wind": "south",
        "honba": 1,
        "options": {"honba_requires_han": True, "bazoro": "always"},
    }
    s = run(open_no_yaku)
    assert items(s)["honba"] == 0 and s["next_honba"] == 2 and s["bazoro"] == 1
    red = run({**open_no_yaku, "hand": "067p234s99p78s"})
    assert ids(red) == ["red_five"] and items(red)["honba"] == 300 and red["next_honba"] == 0


def test_extra_value_winds() -> None:
    west = {"rules": "boo", "hand": "333z234m567p99s78s", "win_tile": "6s", "seat_wind": "south"}
    assert ids(run(west)) == []
    always = run({**west, "options": {"extra_value_winds": "west_north_always"}})
    assert ids(always) == ["yakuhai_extra_wind"]
    east_only = {**west, "options": {"extra_value_winds": "west_in_east_north_in_south"}}
    assert ids(run(east_only)) == ["yakuhai_extra_wind"]
    assert ids(run({**east_only, "round_wind": "south"})) == []
    stacked = run({**west, "seat_wind": "west", "options": {"extra_value_winds": "west_north_always"}})
    assert sorted(ids(stacked)) == ["yakuhai_extra_wind", "yakuhai_seat_wind"] and stacked["han"] == 2
    # a North pair: 2 fu and no pinfu once North is a value wind
    pair = {"rules": "boo", "hand": "234m567p234s67s44z", "win_tile": "8s", "seat_wind": "south"}
    assert ids(run(pair)) == ["pinfu"] and run(pair)["fu"] == 30
    valued = run({**pair, "options": {"extra_value_winds": "west_north_always"}})
    assert ids(valued) == [] and valued["fu"] == 40


def test_optional_yaku() -> None:
    ii = {"rules": "boo", "hand": "223344m567p678s5s", "win_tile": "5s", "seat_wind": "south"}
    assert "iipeikou" not in ids(run(ii))
    assert "iipeikou" in ids(run({**ii, "options": {"enable_iipeikou": True}}))
    san = {"rules": "boo", "hand": "123m123p123s55z99s", "win_tile": "9s", "seat_wind": "south"}
    assert "sanshoku" not in ids(run(san))
    s = run({**san, "options": {"enable_sanshoku": True}})
    assert {y["id"]: y["value"] for y in s["yaku"]}["sanshoku"] == 2
    ryuu = {"rules": "boo", "hand": "22334466s888s66z", "win_tile": "6z", "seat_wind": "south"}
    assert run(ryuu)["limit"] is None
    assert ids(run({**ryuu, "options": {"enable_ryuuiisou": True}})) == ["ryuuiisou"]
    no_hatsu = {**ryuu, "hand": "2223344666888s", "win_tile": "2s"}
    assert ids(run({**no_hatsu, "options": {"enable_ryuuiisou": True}})) == ["ryuuiisou"]
    s = run({**no_hatsu, "options": {"enable_ryuuiisou": True, "ryuuiisou_requires_hatsu": True}})
    assert "ryuuiisou" not in ids(s)


def test_two_yakuman_count_once() -> None:
    s = run({"rules": "boo", "hand": "111z222z333z44z55z", "win_tile": "5z", "win": "tsumo", "seat_wind": "south"})
    assert sorted(ids(s)) == ["suuankou", "suushii", "tsuuiisou"] and s["total"] == 4000 + 300


def test_flags_and_warnings() -> None:
    s = run({**BASE, "flags": ["double_riichi", "ippatsu"], "dora_indicators": ["1s", "2s"], "ura_indicators": ["3s"]})
    assert ids(s)[0] == "riichi" and s["han"] == 3  # riichi, tanyao, pinfu
    text = " ".join(s["warnings"])
    for words in (
        "double_riichi counts as riichi",
        "'ippatsu' has no effect",
        "only the first counts",
        "ura_indicators ignored",
    ):
        assert words in text
    assert items(s)["dora"] == 100  # 1s → 2s: the winning 2s; 2s → 3s (one more) is ignored


def test_chiihou_flag_follows_the_meaning() -> None:
    s = run({**BASE, "flags": ["renhou", "dealer_first_discard_ron"]})
    assert any("'dealer_first_discard_ron' has no effect" in w for w in s["warnings"])
    s = run({**BASE, "win": "tsumo", "flags": ["chiihou"], "options": {"chiihou_meaning": "dealer_first_discard_ron"}})
    assert any("'chiihou' has no effect" in w for w in s["warnings"]) and "chiihou" not in ids(s)


def test_explanation_carries_every_number() -> None:
    s = run({**BASE, "honba": 1, "dora_indicators": ["5s"], "options": {"dora_value": "closed_200"}})
    text = " ".join(step["detail"] for step in s["explanation"])
    for piece in ("30 fu", "2^(2)", "4 × 120 = 480", "300", "1 × 200 = 200", "1 × 300 = 300", "1280"):
        assert piece in text, piece
    assert sum(items(s).values()) == s["total"]


# ---------------------------------------------------------------- properties
def random_boo(seed: int, options: dict[str, Any] | None = None) -> dict[str, Any]:
    hand = random_hand(random.Random(seed), "boo")
    hand["options"] = {"enable_chiitoitsu": True, **(options or {})}
    return hand


def payer_split(score: dict[str, Any]) -> dict[str, list[int]]:
    by: dict[str, list[int]] = {}
    for p in score["payments"]:
        by.setdefault(p["from"], []).append(p["amount"])
    return by


@settings(max_examples=150, deadline=None)
@given(
    st.integers(0, 2**32 - 1),
    st.sampled_from(
        [{}, {"bazoro": "always"}, {"dora_value": "closed_200"}, {"min_stick": 20}, {"ryanmen_tsumo_fu": 4}]
    ),
)
def test_random_hands_total_split_and_cap(seed: int, options: dict[str, Any]) -> None:
    """total = sum of payments = sum of items; tsumo splits (dealer share = twice a non-dealer's
    hand points; a dealer tsumo is paid equally); the hand points never exceed the mangan (or the
    baiman of a yakuman)."""
    hand = random_boo(seed, options)
    s = run(hand)
    assert "error" not in s, s
    amounts = [p["amount"] for p in s["payments"]]
    assert sum(amounts) == s["total"] == sum(items(s).values())
    by = payer_split(s)
    basic = s["basic_points"]
    limit = 1000 if s["yakuman"] else 500
    assert basic <= limit and (s["limit"] is not None or basic < 500)
    if hand["win"] == "ron" and "rinshan_after_daiminkan" not in hand["flags"]:
        assert list(by) == ["discarder"] and items(s)["hand"] == (6 if hand["seat_wind"] == "east" else 4) * basic
    elif hand["seat_wind"] == "east":
        assert by.keys() == {"non_dealer"} and len(set(by["non_dealer"])) == 1
    else:
        addons = (s["total"] - items(s)["hand"]) // 3
        (dealer,) = by["dealer"]
        assert len(set(by["non_dealer"])) == 1
        share = by["non_dealer"][0] - addons
        assert dealer - addons == 2 * basic and share == (-(-basic // 20) * 20 if options.get("min_stick") else basic)


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_aotenjou_only_lifts_the_cap(seed: int) -> None:
    """Aotenjou never lowers a price, equals it below the cap, and alone may exceed it."""
    hand = random_boo(seed)
    capped, open_ = run(hand), run({**hand, "options": {**hand["options"], "aotenjou": True}})
    if capped["yakuman"]:
        assert open_["han"] == 13 and open_["basic_points"] == open_["fu"] * 2**13
        return
    assert open_["total"] >= capped["total"]
    if capped["limit"] is None:
        assert open_["total"] == capped["total"]
    else:
        assert open_["basic_points"] == open_["fu"] * 2 ** open_["han"] >= 500
