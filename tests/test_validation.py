"""Every class of invalid input is rejected with its own error code and the field it concerns."""

from typing import Any

import pytest

from paiscan.scoring import HandError, check_context, score_hand
from paiscan.scoring.errors import ERROR_CODES

BASE: dict[str, Any] = {"rules": "riichi", "hand": "123m456p789s1122z", "win_tile": "2z", "win": "tsumo"}


def with_(**changes: Any) -> dict[str, Any]:
    return {**BASE, **changes}


CASES: list[tuple[str, dict[str, Any], str, str | None]] = [
    ("not an object", [], "bad_json", None),  # type: ignore[list-item]
    ("unknown field", with_(flag=["riichi"]), "unknown_field", "flag"),
    ("bad tile", with_(hand="123m456p789s1122x"), "bad_tile", "hand"),
    ("honor 8z", with_(win_tile="8z"), "bad_tile", "win_tile"),
    ("face-down tile", with_(hand="123m456p789s112z?"), "face_down_tile", "hand"),
    ("five of a kind", with_(hand="1111m456p789s122z", win_tile="1m"), "too_many_of_kind", "win_tile"),
    ("red five counts with fives", with_(hand="5550m456p789s112z", win_tile="5m"), "too_many_of_kind", "win_tile"),
    (
        "indicator makes a fifth",
        with_(hand="111m456p789s1122z", win_tile="2z", dora_indicators=["1m", "1m"]),
        "too_many_of_kind",
        "dora_indicators",
    ),
    ("too many red fives", with_(hand="00m456p789s11222z", win_tile="1z"), "too_many_red_fives", "hand"),
    ("tile count", with_(hand="123m456p789s112z"), "wrong_tile_count", "hand"),
    ("tile count with meld", with_(melds=[{"type": "pon", "tiles": "777p"}]), "wrong_tile_count", "hand"),
    (
        "chi across suits",
        with_(hand="123m456p1122z", melds=[{"type": "chi", "tiles": "89m1p"}]),
        "bad_meld",
        "melds[0].tiles",
    ),
    (
        "chi with honors",
        with_(hand="123m456p1122z", melds=[{"type": "chi", "tiles": "123z"}]),
        "bad_meld",
        "melds[0].tiles",
    ),
    (
        "pon of unequal tiles",
        with_(hand="123m456p1122z", melds=[{"type": "pon", "tiles": "778p"}]),
        "bad_meld",
        "melds[0].tiles",
    ),
    (
        "kan of three",
        with_(hand="123m456p1122z", melds=[{"type": "kan", "tiles": "777p"}]),
        "bad_meld",
        "melds[0].tiles",
    ),
    (
        "unknown meld type",
        with_(hand="123m456p1122z", melds=[{"type": "pung", "tiles": "777p"}]),
        "bad_meld",
        "melds[0].type",
    ),
    ("unknown flag", with_(flags=["richi"]), "unknown_flag", "flags[0]"),
    ("unknown option", with_(options={"open_tanyo": True}), "unknown_option", "options.open_tanyo"),
    ("bad option value", with_(options={"kazoe": "none"}), "bad_option", "options.kazoe"),
    ("bad option type", with_(options={"kiriage": "yes"}), "bad_option", "options.kiriage"),
    ("unknown ruleset", with_(rules="mcr"), "unknown_ruleset", "rules"),
    (
        "riichi with open hand",
        with_(hand="123m456p1122z", melds=[{"type": "pon", "tiles": "777p"}], flags=["riichi"]),
        "riichi_open_hand",
        "flags",
    ),
    (
        "ippatsu with open hand",
        with_(hand="123m456p1122z", melds=[{"type": "pon", "tiles": "777p"}], flags=["ippatsu"]),
        "ippatsu_open_hand",
        "flags",
    ),
    ("ippatsu without riichi", with_(flags=["ippatsu"]), "ippatsu_without_riichi", "flags"),
    ("tenhou for a non-dealer", with_(seat_wind="south", flags=["tenhou"]), "tenhou_not_dealer", "flags"),
    ("chiihou for the dealer", with_(flags=["chiihou"]), "chiihou_dealer", "flags"),
    ("tenhou on ron", with_(win="ron", flags=["tenhou"]), "tenhou_on_ron", "flags"),
    ("renhou on tsumo", with_(seat_wind="west", flags=["renhou"]), "renhou_on_tsumo", "flags"),
    ("haitei on ron", with_(win="ron", flags=["haitei"]), "haitei_on_ron", "flags"),
    ("houtei on tsumo", with_(flags=["houtei"]), "houtei_on_tsumo", "flags"),
    ("rinshan on ron", with_(win="ron", flags=["rinshan"]), "rinshan_on_ron", "flags"),
    ("rinshan without kan", with_(flags=["rinshan"]), "rinshan_without_kan", "flags"),
    ("chankan on tsumo", with_(flags=["chankan"]), "chankan_on_tsumo", "flags"),
    ("first-turn win after riichi", with_(flags=["tenhou", "riichi"]), "conflicting_flags", "flags"),
    (
        "renhou on the last discard",
        with_(win="ron", seat_wind="south", flags=["renhou", "houtei"]),
        "conflicting_flags",
        "flags",
    ),
    (
        "first-turn win with meld",
        with_(
            hand="123m456p1122z",
            seat_wind="south",
            melds=[{"type": "kan", "tiles": "7777p", "open": False}],
            flags=["chiihou"],
        ),
        "first_turn_with_meld",
        "flags",
    ),
    ("not a winning hand", with_(hand="123m456p789s1123z"), "not_a_winning_hand", "hand"),
    ("no yaku", with_(win="ron"), "no_yaku", "hand"),
    ("bad wind", with_(seat_wind="eastt"), "bad_field", "seat_wind"),
    ("dealer not East", with_(dealer=False), "bad_field", "dealer"),
    ("dealer's seat not East", with_(seat_wind="south", dealer=True), "bad_field", "dealer"),
    ("negative honba", with_(honba=-1), "bad_field", "honba"),
    ("honba not a number", with_(honba="2"), "bad_field", "honba"),
    ("bad win kind", with_(win="tsumo!"), "bad_field", "win"),
    ("two win tiles", with_(win_tile="2z3z"), "bad_field", "win_tile"),
    ("flags not a list", with_(flags="riichi"), "bad_field", "flags"),
    (
        "chi from across",
        with_(hand="123m456p1122z", melds=[{"type": "chi", "tiles": "789s", "from": "across"}]),
        "bad_meld",
        "melds[0].from",
    ),
]


@pytest.mark.parametrize(("data", "code", "field"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_invalid_input(data: Any, code: str, field: str | None) -> None:
    with pytest.raises(HandError) as info:
        score_hand(data)
    assert (info.value.code, info.value.field) == (code, field), info.value.message
    assert info.value.code in ERROR_CODES
    assert info.value.message


def test_every_core_code_is_exercised() -> None:
    exercised = {c[2] for c in CASES}
    ruleset_specific = {"tile_not_in_ruleset", "yaku_not_adopted", "conflicting_flags", "manzu_in_hand", "bad_nuki"}
    assert set(ERROR_CODES) - exercised - ruleset_specific == set()


def test_conflicting_flags() -> None:
    data = with_(
        hand="123m456p789s1z",
        win_tile="1z",
        melds=[{"type": "kan", "tiles": "2222z", "open": False}],
        flags=["haitei", "rinshan"],
    )
    with pytest.raises(HandError) as info:
        score_hand(data)
    assert info.value.code == "conflicting_flags"


def test_valid_base_hand_scores() -> None:
    assert score_hand(BASE).total > 0


#: what a photo does not show: the fields of a Hand but its tiles
TILE_FIELDS = ("hand", "melds", "win_tile", "dora_indicators", "nuki")
#: the cases whose error needs the tiles (so a situation alone passes)
NEEDS_TILES = {
    "bad_tile",
    "face_down_tile",
    "too_many_of_kind",
    "too_many_red_fives",
    "wrong_tile_count",
    "bad_meld",
    "riichi_open_hand",
    "ippatsu_open_hand",
    "rinshan_without_kan",
    "first_turn_with_meld",
    "not_a_winning_hand",
    "no_yaku",
}


@pytest.mark.parametrize(
    ("data", "code", "field"),
    [c[1:] for c in CASES if isinstance(c[1], dict)],
    ids=[c[0] for c in CASES if isinstance(c[1], dict)],
)
def test_check_context_finds_what_needs_no_tiles(data: dict[str, Any], code: str, field: str | None) -> None:
    """``check_context`` on a case's situation (its tile fields left out) raises the case's own error
    exactly when that error needs no tiles, so ``paiscan score`` can refuse before reading a photo."""
    situation = {k: v for k, v in data.items() if k not in TILE_FIELDS}
    if code in NEEDS_TILES or str(field).split(".")[0].split("[")[0] in TILE_FIELDS:
        try:
            check_context(situation)
        except HandError as err:  # the situation alone may be faulty too, but not in this way
            assert err.code != code
        return
    with pytest.raises(HandError) as info:
        check_context(situation)
    assert (info.value.code, info.value.field) == (code, field)


@pytest.mark.parametrize(
    ("rules", "situation", "code", "field"),
    [
        ("totenko_balance", {"seat_wind": "north"}, "bad_field", "seat_wind"),
        ("totenko_balance", {"flags": ["open_riichi_forced_deal_in"]}, "conflicting_flags", "flags"),
        ("jun", {"seat_wind": "south", "dealer": True}, "bad_field", "dealer"),
        ("boo", {"options": {"red_fives": {"m": 5}}}, "bad_option", "options.red_fives.m"),
        ("wsom", {"options": {"limit": 0}}, "bad_option", "options.limit"),
    ],
)
def test_check_context_runs_each_rulesets_own_checks(
    rules: str, situation: dict[str, Any], code: str, field: str
) -> None:
    with pytest.raises(HandError) as info:
        check_context({"rules": rules, **situation})
    assert (info.value.code, info.value.field) == (code, field)
    check_context({"rules": rules})


def test_chankan_needs_the_robbed_kind_unheld() -> None:
    """A robbed kan held the other three of its kind: a winner holding one more robbed none."""
    robbed = with_(hand="123m456p789s1133z", win_tile="2z", win="ron", flags=["chankan"])
    with pytest.raises(HandError) as info:
        score_hand(with_(win="ron", flags=["chankan"]))  # the pair is 2z, and 2z is the winning tile
    assert (info.value.code, info.value.field) == ("conflicting_flags", "flags")
    with pytest.raises(HandError) as info:  # a tanki wait on 2z: fine, had the pair's mate been robbed
        score_hand({**robbed, "hand": "123m456p789s1112z"})
    assert info.value.code == "conflicting_flags"
    assert score_hand({**robbed, "hand": "34m456p123789s11z", "win_tile": "5m"}).total > 0  # 5m only as the win
    check_context({"flags": ["chankan"], "win": "ron"})  # the situation alone is fine


@pytest.mark.parametrize(
    ("rules", "options", "field"),
    [
        ("boo", {"yaku_han": {"riichi": 20000}}, "options.yaku_han.riichi"),  # 2^20000 stalled a worker
        ("riichi", {"red_fives": {"m": -3}}, "options.red_fives.m"),
        ("totenko_balance", {"point_value": 10**12}, "options.point_value"),
        ("riichi", {"preset": []}, "options.preset"),
        ("boo", {"preset": {}}, "options.preset"),
    ],
)
def test_option_values_out_of_range_are_refused(rules: str, options: dict[str, Any], field: str) -> None:
    with pytest.raises(HandError) as info:
        score_hand(with_(rules=rules, options=options, seat_wind="south", flags=["riichi"]))
    assert (info.value.code, info.value.field) == ("bad_option", field)


def test_options_given_twice_must_be_an_object() -> None:
    """``--option`` merged into a file's ``options`` that is no object is that field's error."""
    with pytest.raises(HandError) as info:
        score_hand(with_(options="x"), options={"kiriage": True})
    assert (info.value.code, info.value.field) == ("bad_field", "options")


def test_an_empty_ruleset_id_is_unknown_not_the_files() -> None:
    with pytest.raises(HandError) as info:
        score_hand(BASE, rules="")
    assert info.value.code == "unknown_ruleset"


def test_a_meld_read_before_does_not_excuse_a_bad_one() -> None:
    """Melds are read once per spelling and shared; a meld that differs only in a value's type
    (1 for true) or an extra field still gets its own error, and its own field path."""
    pon = {"type": "kan", "tiles": "7777p", "open": True}
    hand = with_(hand="123m456p555z1s", melds=[pon], win_tile="1s")
    assert score_hand(hand).total > 0
    for meld, code, field in (
        ({**pon, "open": 1}, "bad_field", "melds[1].open"),
        ({**pon, "added": 0}, "bad_field", "melds[1].added"),
        ({**pon, "colour": "red"}, "unknown_field", "melds[1].colour"),
        ({**pon, "from": 3}, "bad_field", "melds[1].from"),
    ):
        bad = with_(hand="123m456s1z", melds=[{"type": "chi", "tiles": "789s"}, meld], win_tile="1z")
        with pytest.raises(HandError) as err:
            score_hand(bad)
        assert (err.value.code, err.value.field) == (code, field)


def test_indicators_as_lists_read_as_before() -> None:
    """A list of single tiles is read by a table; anything else still tile by tile, naming the item."""
    for bad, field in ((["1m", "8z"], "dora_indicators[1]"), (["1m", ["2m"]], "dora_indicators[1]")):
        with pytest.raises(HandError) as err:
            score_hand(with_(dora_indicators=bad))
        assert err.value.field == field
    assert score_hand(with_(dora_indicators=["1m", "12p"])).total == score_hand(with_(dora_indicators="1m12p")).total


def test_no_winning_tile_with_flags_not_a_list() -> None:
    """Found by comparing a compiled build's answers on damaged hands (#53): flags that are not a
    list, on a hand without a winning tile, were a TypeError ("scoring_failed")."""
    for flags in (-1, "nagashi_mangan", {"nagashi_mangan": True}):
        with pytest.raises(HandError) as err:
            score_hand({"rules": "riichi", "hand": "456m789p6677788s", "flags": flags})
        assert (err.value.code, err.value.field) == ("bad_field", "win_tile")
