"""Riichi hands whose value is known by hand (each line's arithmetic in its comment)."""

from typing import Any

import pytest

from paiscan.scoring import HandError, score_hand

CASES: list[tuple[str, dict[str, Any], dict[str, Any]]] = [
    # pinfu tsumo: 20 fu, 2 han (tsumo, pinfu); non-dealer: 20*2^4=320 -> 400/700 ... dealer pays 700
    (
        "pinfu tsumo 20 fu",
        {"hand": "234m567p23s678s88s", "win_tile": "1s", "win": "tsumo", "seat_wind": "south"},
        {"han": 2, "fu": 20, "total": 1500, "payments": [("dealer", 700), ("non_dealer", 400), ("non_dealer", 400)]},
    ),
    # open pinfu shape ron: 20 fu raised to 30; tanyao 1 han: 30*8=240 -> 4x=960 -> 1000
    (
        "open pinfu ron 30 fu",
        {"hand": "234m567p23s88s", "win_tile": "4s", "seat_wind": "south", "melds": [{"type": "chi", "tiles": "678s"}]},
        {"han": 1, "fu": 30, "total": 1000},
    ),
    # seven pairs: 25 fu, riichi + chiitoitsu = 3 han: 25*32=800 -> 3200
    (
        "seven pairs 25 fu",
        {"hand": "1133m4477p2299s5z", "win_tile": "5z", "seat_wind": "west", "flags": ["riichi"]},
        {"han": 3, "fu": 25, "total": 3200},
    ),
    # dealer, riichi tanyao pinfu dora: 4 han 30 fu = 30*64=1920 -> 6x = 11520 -> 11600
    (
        "4 han 30 fu dealer",
        {"hand": "234m567p23456s88s", "win_tile": "7s", "flags": ["riichi"], "melds": [], "dora_indicators": ["1m"]},
        {"han": 4, "fu": 30, "total": 11600, "limit": None},
    ),
    # the same with kiriage: mangan 12000
    (
        "4 han 30 fu kiriage",
        {
            "hand": "234m567p23456s88s",
            "win_tile": "7s",
            "flags": ["riichi"],
            "dora_indicators": ["1m"],
            "options": {"kiriage": True},
        },
        {"han": 4, "fu": 30, "total": 12000, "limit": "mangan"},
    ),
    # riichi only, 20+10+4 (222z by ron)+2 (east pair, round wind) = 36 -> 40 fu: 40*8*4 = 1280 -> 1300;
    # honba 2*300 from the discarder, and 2 riichi sticks * 1000 to the winner
    (
        "honba and deposits",
        {
            "hand": "123m456p789s1122z",
            "win_tile": "2z",
            "seat_wind": "west",
            "honba": 2,
            "riichi_sticks": 2,
            "flags": ["riichi"],
        },
        {"han": 1, "fu": 40, "total": 1300 + 600 + 2000, "payments": [("discarder", 1900)]},
    ),
    # suuankou tanki is a double yakuman by default ...
    (
        "suuankou tanki",
        {"hand": "111m222p333s4445z", "win_tile": "5z", "seat_wind": "south"},
        {"total": 64000, "limit": "double_yakuman"},
    ),
    # ... and a single one without double yakuman
    (
        "suuankou tanki single",
        {"hand": "111m222p333s4445z", "win_tile": "5z", "seat_wind": "south", "options": {"double_yakuman": False}},
        {"total": 32000, "limit": "yakuman"},
    ),
    # kazoe: riichi 1 + tsumo 1 + pinfu 1 + iipeikou 1 + ittsu 2 + chinitsu 6 + dora 3 (9p) = 15 han
    (
        "kazoe yakuman",
        {
            "hand": "1122334567899p",
            "win_tile": "9p",
            "win": "tsumo",
            "seat_wind": "south",
            "flags": ["riichi"],
            "dora_indicators": ["8p"],
        },
        {"han": 15, "limit": "yakuman", "total": 32000},
    ),
    (
        "kazoe capped at sanbaiman",
        {
            "hand": "1122334567899p",
            "win_tile": "9p",
            "win": "tsumo",
            "seat_wind": "south",
            "flags": ["riichi"],
            "dora_indicators": ["8p"],
            "options": {"kazoe": "sanbaiman"},
        },
        {"han": 15, "limit": "sanbaiman", "total": 24000},
    ),
    # shanpon ron makes the triplet exposed: 20 + 10 + 8 (111m concealed) + 4 (999p by ron)
    # + 2 (east pair, round wind) = 44 -> 50 fu
    (
        "ron shanpon triplet exposed",
        {
            "hand": "111m99p234567s11z",
            "win_tile": "9p",
            "seat_wind": "south",
            "round_wind": "east",
            "flags": ["riichi"],
        },
        {"han": 1, "fu": 50},
    ),
    # red five is aka dora: riichi + tanyao + aka = 3 han 40 fu (kanchan): 40*32=1280*4=5120 -> 5200
    (
        "aka dora",
        {"hand": "234m406p678s2246s", "win_tile": "5s", "seat_wind": "south", "flags": ["riichi"]},
        {"han": 3, "fu": 40, "total": 5200},
    ),
    # aka off (preset no_aka) rejects a red five
    (
        "no aka preset",
        {
            "hand": "234m406p678s2246s",
            "win_tile": "5s",
            "seat_wind": "south",
            "flags": ["riichi"],
            "options": {"preset": "no_aka"},
        },
        {"error": "too_many_red_fives"},
    ),
]


@pytest.mark.parametrize(("data", "expect"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_known_hands(data: dict[str, Any], expect: dict[str, Any]) -> None:
    from paiscan.scoring import HandError

    try:
        s = score_hand({"rules": "riichi", **data})
    except HandError as e:
        assert expect.get("error") == e.code, e.message
        return
    assert "error" not in expect
    got = s.to_dict()
    for key, want in expect.items():
        if key == "payments":
            assert sorted((p["from"], p["amount"]) for p in got["payments"]) == sorted(want)
        else:
            assert got[key] == want, key


def test_pure_nine_gates_is_double_yakuman() -> None:
    data = {"rules": "riichi", "hand": "1112345678999p", "win_tile": "5p", "win": "tsumo", "seat_wind": "south"}
    s = score_hand(data)
    assert [y.id for y in s.yaku] == ["menzen_tsumo", "junsei_chuuren"][1:] and s.limit == "double_yakuman"


def test_explanation_matches_numbers() -> None:
    s = score_hand(
        {
            "rules": "riichi",
            "hand": "234m567p23s678s88s",
            "win_tile": "1s",
            "win": "tsumo",
            "seat_wind": "south",
            "honba": 1,
        }
    )
    labels = [st.label for st in s.steps]
    assert labels[:3] == ["yaku", "fu", "basic"]
    assert str(s.total) == s.steps[-1].detail
    assert sum(p.fu for p in s.fu_details) == 20
    assert sum(p.amount for p in s.payments) == s.total


def _hand(**changes: Any) -> dict[str, Any]:
    return {"rules": "riichi", "hand": "234m567p234s88s56s", "win_tile": "4s", "seat_wind": "south", **changes}


def test_what_standard_riichi_does_not_count_is_said() -> None:
    opened = score_hand(_hand(flags=["open_riichi"]))
    assert "riichi" not in [y.id for y in opened.yaku]
    assert any("open_riichi" in w for w in opened.warnings)
    ura = score_hand(_hand(ura_indicators="3s"))
    assert ura.total == score_hand(_hand()).total and any("ura_indicators" in w for w in ura.warnings)


@pytest.mark.parametrize(
    ("changes", "code", "field"),
    [
        ({"nuki": "4z"}, "bad_nuki", "nuki"),
        ({"dora_indicators": "1m2m3m4m5m6m"}, "bad_field", "dora_indicators"),
        ({"dora_indicators": "1m", "ura_indicators": "1m2m3m", "flags": ["riichi"]}, "bad_field", "ura_indicators"),
        ({"flags": ["renhou", "riichi"]}, "conflicting_flags", "flags"),
    ],
)
def test_what_no_table_shows_is_refused(changes: dict[str, Any], code: str, field: str) -> None:
    with pytest.raises(HandError) as info:
        score_hand(_hand(**changes))
    assert (info.value.code, info.value.field) == (code, field)


def test_nagashi_mangan_is_no_win_on_a_tile() -> None:
    nagashi = {"rules": "riichi", "hand": "", "win": "tsumo", "seat_wind": "south", "flags": ["nagashi_mangan"]}
    assert score_hand(nagashi).total == 8000 and not score_hand(nagashi).warnings
    with pytest.raises(HandError) as info:
        score_hand({**nagashi, "flags": ["nagashi_mangan", "chankan"], "win": "ron"})
    assert info.value.code == "conflicting_flags"
    said = score_hand({**nagashi, "win": "ron", "hand": "1111111111111m"})
    assert said.total == 8000
    assert any("like a tsumo" in w for w in said.warnings) and any("not used" in w for w in said.warnings)


# ---------------------------------------------------------------- gated yaku checkers
# A checker's gate (paiscan.scoring.yaku.gated) is a cheap whole-hand condition it needs; evaluate
# skips the checker when the gate fails. These tests hold the gates to that promise: evaluating
# every checker (no gates) finds exactly the same yaku.

#: hands of rare shapes, each with a yaku whose gate is narrow (the id it must score)
GATED_HANDS: list[tuple[str, dict[str, Any]]] = [
    ("daisangen", {"hand": "555666777z123m4p", "win_tile": "4p"}),
    ("shousangen", {"hand": "555666z77z123m45p", "win_tile": "6p"}),
    ("shousuushii", {"hand": "11122233344z12m", "win_tile": "3m", "seat_wind": "south"}),
    ("daisuushii", {"hand": "111222333444z5m", "win_tile": "5m"}),
    ("tsuuiisou", {"hand": "1112223335566z", "win_tile": "6z"}),
    ("chinroutou", {"hand": "111999m111999p9s", "win_tile": "9s"}),
    ("honroutou", {"hand": "111999m111p11z99s", "win_tile": "9s"}),
    ("ryuuiisou", {"hand": "223344666888s6z", "win_tile": "6z"}),
    ("chuuren", {"hand": "1112345678899m", "win_tile": "9m", "win": "tsumo"}),
    ("junsei_chuuren", {"hand": "1112345678999m", "win_tile": "5m"}),
    ("suuankou", {"hand": "111m222p333s44z55m", "win_tile": "4z", "win": "tsumo"}),
    ("suuankou_tanki", {"hand": "111m222p333s444z5m", "win_tile": "5m", "win": "tsumo"}),
    ("kokushi_13", {"hand": "19m19p19s1234567z", "win_tile": "1m"}),
    ("kokushi", {"hand": "119m19p19s123456z", "win_tile": "7z"}),
    (
        "suukantsu",
        {
            "hand": "5m",
            "win_tile": "5m",
            "win": "tsumo",
            "melds": [
                {"type": "kan", "tiles": "1111p", "open": False},
                {"type": "kan", "tiles": "2222s", "open": False},
                {"type": "kan", "tiles": "3333z", "open": False},
                {"type": "kan", "tiles": "8888m"},
            ],
        },
    ),
    (
        "sankantsu",
        {
            "hand": "567m5p",
            "win_tile": "5p",
            "melds": [
                {"type": "kan", "tiles": "1111p", "open": False},
                {"type": "kan", "tiles": "2222s"},
                {"type": "kan", "tiles": "3333z"},
            ],
        },
    ),
    ("toitoi", {"hand": "222m333p44s66z", "win_tile": "4s", "melds": [{"type": "pon", "tiles": "888m"}]}),
    ("sanankou", {"hand": "222m333p444s678m6z", "win_tile": "6z"}),
    ("sanshoku_doukou", {"hand": "222m222p222s678m6z", "win_tile": "6z"}),
    ("sanshoku", {"hand": "234m234p234s678m6z", "win_tile": "6z", "flags": ["riichi"]}),
    ("ittsu", {"hand": "123456789m234p6z", "win_tile": "6z", "flags": ["riichi"]}),
    ("chanta", {"hand": "123m789p111s11z99s", "win_tile": "9s", "flags": ["riichi"]}),
    ("junchan", {"hand": "123m789p111s789s9m", "win_tile": "9m", "flags": ["riichi"]}),
    ("chinitsu", {"hand": "2344567888m", "win_tile": "6m", "melds": [{"type": "chi", "tiles": "123m"}]}),
    ("honitsu", {"hand": "123456789m11z22z", "win_tile": "1z"}),
    ("tanyao", {"hand": "234m456p678s2288s", "win_tile": "8s"}),
    ("yakuhai_chun", {"hand": "777z234m456p678s1p", "win_tile": "1p"}),
    ("menzen_tsumo", {"hand": "234m456p678s2345s", "win_tile": "5s", "win": "tsumo"}),
    ("chiitoitsu", {"hand": "1133m4477p2299s5z", "win_tile": "5z"}),
    ("yakuhai_seat_wind", {"hand": "222z234m456p678s1p", "win_tile": "1p", "seat_wind": "south"}),
    ("yakuhai_round_wind", {"hand": "333z234m456p678s1p", "win_tile": "1p", "round_wind": "west"}),
    ("sanankou", {"hand": "222m333p444s6z", "win_tile": "6z", "melds": [{"type": "pon", "tiles": "777m"}]}),
]


def _ungated(table: Any, ctx: Any) -> list[str]:
    """The ids evaluate would find checking every yaku of ``table`` (no gates)."""
    from paiscan.scoring.yaku import evaluate as _evaluate

    def counts(y: Any) -> bool:
        value = y.closed if ctx.facts.closed else y.open
        return not (value is None or (value == 0 and y.unit != "points")) and bool(y.check(ctx))

    found = [y for y in table if counts(y)]
    dropped = {x for y in found for x in y.excludes}
    ids = [y.id for y in found if y.id not in dropped]
    assert ids == [h.id for h in _evaluate(table, ctx)]
    return ids


def _check_gates(data: dict[str, Any]) -> list[str]:
    """Every interpretation of ``data``: each checker that counts has its gate met, and gated
    evaluation finds what evaluating every checker finds. The ids found, over all readings."""
    from paiscan.scoring import parse_hand
    from paiscan.scoring.registry import get_ruleset
    from paiscan.scoring.yaku import Context, Facts

    hand = parse_hand(data)
    ruleset = get_ruleset(hand.rules)
    opts = ruleset.parse_options(hand.options)
    try:
        ruleset.validate(hand, opts)
    except HandError:
        return []
    facts = Facts.of(hand)
    ids: list[str] = []
    for interp in ruleset.interpretations(hand, opts):
        ctx = Context.of(hand, facts, interp, opts)
        table = ruleset.yaku_table(opts)
        for y in table:
            gate = getattr(y.check, "gate", 0)
            if gate and y.check(ctx):
                assert gate & facts.gates == gate, (y.id, data)
        ids += _ungated(table, ctx)
    return ids


@pytest.mark.parametrize(("yaku_id", "data"), GATED_HANDS, ids=[f"{y}-{i}" for i, (y, _) in enumerate(GATED_HANDS)])
def test_gated_yaku_found(yaku_id: str, data: dict[str, Any]) -> None:
    assert yaku_id in _check_gates({"rules": "riichi", **data})
    assert yaku_id in {y.id for y in score_hand({"rules": "riichi", **data}).yaku}


@pytest.mark.parametrize("rules", ["riichi", "boo", "kansai_boo", "totenko_balance", "wsom", "jun"])
def test_gates_sound_on_random_hands(rules: str) -> None:
    import random

    from paiscan.scoring.generate import random_hand

    rng = random.Random(f"gates:{rules}")
    found: set[str] = set()
    for _ in range(1500):
        found.update(_check_gates(random_hand(rng, rules)))
    assert len(found) > 10  # the hands reach many yaku, gated ones among them


@pytest.mark.parametrize("rules", ["riichi", "boo", "jun"])
def test_score_json_is_the_dicts_json(rules: str) -> None:
    """A Score's JSON (written from its priced parts for riichi) is exactly what ``json.dumps``
    writes of its dict, on random hands and after the explanation was read."""
    import json
    import random

    from paiscan.scoring.generate import random_hand

    rng = random.Random(f"json:{rules}")
    checked = 0
    for _ in range(400):
        data = random_hand(rng, rules)
        try:
            fresh, read = score_hand(data), score_hand(data)
        except HandError:
            continue
        expected = json.dumps(read.to_dict(), ensure_ascii=False)
        assert fresh.to_json() == expected
        assert read.to_json() == expected
        checked += 1
    assert checked > 200


def test_lazy_score_reads_like_a_score() -> None:
    """The explanation written on first read is the same however the Score is read: fields,
    equality, copies and ``replace``."""
    import copy
    import pickle
    from dataclasses import replace

    data = {"rules": "riichi", "hand": "234m567p223344s5s", "win_tile": "5s", "seat_wind": "south", "flags": ["riichi"]}
    a, b = score_hand(data), score_hand(data)
    assert a.steps[0].label == "yaku" and a.steps[-1].detail == str(a.total)
    assert a.decomposition == ("234m", "567p", "22s", "345s", "345s")
    assert a == b and pickle.loads(pickle.dumps(b)) == a and copy.copy(a) == a
    assert replace(a, warnings=("w",)).to_dict() == {**a.to_dict(), "warnings": ["w"]}
