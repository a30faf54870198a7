"""Jun mahjong (純麻雀): every hand vector of rules/jun.md with its variants, the price table and
the yaku marks checked against the seed's own text, option and flag behaviour, and properties over
random hands."""

from __future__ import annotations

import random
import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from spec_vectors import compare, hand_vectors, shared_dir

from paiscan.scoring import score_hand
from paiscan.scoring.errors import HandError
from paiscan.scoring.generate import random_hand
from paiscan.scoring.registry import get_ruleset
from paiscan.scoring.rulesets.jun import (
    BASE_TABLE,
    CLOSED_ONLY,
    DAI_YAKUMAN,
    HAN_ROWS,
    KUISAGARI,
    SEED_YAKU,
    SEED_YAKUMAN,
    YAKUMAN_KAN,
    YAKUMAN_ROWS,
    han_row,
    yakuman_row,
)
from paiscan.scoring.tiles import format_tiles, kind, parse_tiles

VECTORS = hand_vectors("jun")
SEED = (shared_dir() / "seeds" / "004_87d07c458dcf343b.txt").read_text(encoding="utf-8")
VARIANT_KEYS_IGNORED = ("options", "flags", "why")


def run(data: dict[str, Any]) -> dict[str, Any]:
    return score_hand({"rules": "jun", **data}).to_dict()


# ------------------------------------------------------------------ the spec's hand vectors
def test_vectors_found() -> None:
    assert [v["id"] for v in VECTORS] == [f"JUN-{i:02d}" for i in range(1, 18)]


@pytest.mark.parametrize("vec", VECTORS, ids=[v["id"] for v in VECTORS])
def test_hand_vector(vec: dict[str, Any]) -> None:
    expect = vec["expect"]
    if "error" in expect:
        with pytest.raises(HandError) as err:
            score_hand(vec["input"])
        assert err.value.code == expect["error"]
        return
    got = score_hand(vec["input"]).to_dict()
    assert compare(got, expect) == []
    assert got["fu"] == 0 and got["fu_details"] == []  # Jun has no fu
    assert sum(p["amount"] for p in got["payments"]) == got["total"]


_OORU = re.compile(r"= (\d+) \((\d+) オール\)")


def variant_expect(variant: dict[str, Any]) -> dict[str, Any]:
    """The variant's stated result: its keys, or the ``= total (each オール)`` of its why."""
    expect = {k: v for k, v in variant.items() if k not in VARIANT_KEYS_IGNORED}
    m = _OORU.search(str(variant.get("why", "")))
    if m:
        expect.setdefault("total", int(m.group(1)))
        expect["_each"] = int(m.group(2))
    return expect


VARIANTS = [(v, i, var) for v in VECTORS for i, var in enumerate(v.get("variants", []))]


@pytest.mark.parametrize(("vec", "index", "variant"), VARIANTS, ids=[f"{v['id']}-v{i}" for v, i, _ in VARIANTS])
def test_variant(vec: dict[str, Any], index: int, variant: dict[str, Any]) -> None:
    data = dict(vec["input"])
    data["options"] = {**(data.get("options") or {}), **variant.get("options", {})}
    if "flags" in variant:
        data["flags"] = variant["flags"]
    expect = variant_expect(variant)
    each = expect.pop("_each", None)
    assert expect, f"variant {index} of {vec['id']} states no result"
    got = score_hand(data).to_dict()
    assert compare(got, expect) == []
    if each is not None:
        assert {p["amount"] for p in got["payments"]} == {each}


# ------------------------------------------------------------------ the seed's own tables
def seed_score_table() -> dict[str, tuple[int, int]]:
    """第25条 (1) 点数表: row label → (ron, tsumo オール), read from the seed text."""
    part = SEED.split("(1)点数表")[1].split("(2)公示")[0]
    rows: dict[str, tuple[int, int]] = {}
    cell = r"(\d+)\((\d+)オール\)"
    for m in re.finditer(cell + r"\s*(\S+)\s+(\S+)\s+" + cell, part):
        rows[m.group(3)] = (int(m.group(1)), int(m.group(2)))
        rows[m.group(4)] = (int(m.group(5)), int(m.group(6)))
    return rows


def test_score_table_is_the_seeds() -> None:
    seed = seed_score_table()
    assert len(seed) == 12
    for han in range(10):
        assert seed[f"{han}翻"] == HAN_ROWS[han] == (han_row(han).ron, han_row(han).each)
    assert seed["10-役満"] == HAN_ROWS[10] == YAKUMAN_ROWS[YAKUMAN_KAN][2:]
    assert seed["大役満"] == YAKUMAN_ROWS[DAI_YAKUMAN][2:]
    for ron, each in seed.values():
        assert ron == 3 * each  # one column: a tsumo costs the three others the ron amount


@pytest.mark.parametrize("han", range(16))
def test_han_rows(han: int) -> None:
    row = han_row(han)
    assert (row.ron, row.each) == HAN_ROWS[min(han, 10)]
    assert row.limit == ("yakuman" if han >= 10 else None)


def seed_yaku_marks() -> dict[str, tuple[str, str]]:
    """第26条: the seed's yaku name → (section, mark), section being 一 翻 … 大役満."""
    part = SEED.split("第26条")[1].split("第八章")[0]
    out: dict[str, tuple[str, str]] = {}
    section = ""
    for line in part.splitlines():
        head = line.strip().replace(" ", "")
        if head in ("一翻", "二翻", "三翻", "六翻", "役満貫", "大役満"):
            section = head
            continue
        for m in re.finditer(r"([▽▼]?)\((\d+)\)([^\s(]+)", line):
            out[m.group(3)] = (section, m.group(1))
    return out


SECTION_HAN = {"一翻": 1, "二翻": 2, "三翻": 3, "六翻": 6}


def test_yaku_table_is_the_seeds() -> None:
    seed = seed_yaku_marks()
    assert len(seed) == 8 + 10 + 4 + 1 + 4 + 5
    ours: dict[str, tuple[str, str]] = {}
    for _yid, han, mark, name_ja in SEED_YAKU:
        section = next(s for s, h in SECTION_HAN.items() if h == han)
        ours[name_ja.split()[0]] = (section, mark)  # 翻牌 白 … are the seed's one 翻牌
    for _yid, level, name_ja in SEED_YAKUMAN:
        ours[name_ja] = ("役満貫" if level == YAKUMAN_KAN else "大役満", "")
    assert ours == seed


@pytest.mark.parametrize("yaku", BASE_TABLE, ids=[y.id for y in BASE_TABLE])
def test_marks_are_values(yaku: Any) -> None:
    entry = {e[0]: e for e in SEED_YAKU}.get(yaku.id)
    if entry is None:  # yakuman: the class, open where the shape can be open
        assert yaku.unit == "yakuman" and yaku.closed in (YAKUMAN_KAN, DAI_YAKUMAN)
        closed_only = yaku.id in ("suuankou", "chuuren", "kokushi")
        assert (yaku.open is None) == closed_only
        return
    _, han, mark, _ = entry
    assert yaku.closed == han
    assert yaku.open == (None if mark == CLOSED_ONLY else han - 1 if mark == KUISAGARI else han)


def test_not_in_jun() -> None:
    ids = {y.id for y in get_ruleset("jun").yaku_table(get_ruleset("jun").parse_options({}))}
    for gone in (
        "ippatsu",
        "double_riichi",
        "haitei",
        "houtei",
        "rinshan",
        "chankan",
        "tenhou",
        "chiihou",
        "sankantsu",
        "suukantsu",
        "kokushi_13",
        "suuankou_tanki",
        "junsei_chuuren",
    ):
        assert gone not in ids


# ------------------------------------------------------------------ behaviour, table-driven
PINFU_TANYAO = {"hand": "234m567p34s678s55s", "win_tile": "2s", "seat_wind": "south"}
SUUANKOU = {"hand": "111222333p5559p", "win_tile": "9p", "win": "tsumo", "seat_wind": "south", "flags": ["riichi"]}
SANJUN = {"hand": "123123123m456p7s", "win_tile": "7s", "seat_wind": "south"}
HONROUTOU = {"hand": "111m999p444z99s22z", "win_tile": "9s", "seat_wind": "west"}

CASES: list[tuple[str, dict[str, Any], dict[str, Any]]] = [
    # 1 + 1 = 2 han; the double riichi is a riichi: + 1 = 3 han = 6000 (not 2 han = 3000)
    (
        "double riichi is a riichi",
        {**PINFU_TANYAO, "flags": ["double_riichi"]},
        {"han": 3, "total": 6000, "yaku": ["pinfu", "riichi", "tanyao"], "warnings": ["counts as riichi"]},
    ),
    # chance flags: no 海底, no 一発 (both legal here) — still riichi + tsumo + pinfu + tanyao
    (
        "chance flags ignored",
        {**PINFU_TANYAO, "win": "tsumo", "flags": ["riichi", "ippatsu", "haitei"]},
        {"han": 4, "total": 9000, "warnings": ["'haitei' has no effect", "'ippatsu' has no effect"]},
    ),
    (
        "dora, ura and honba ignored",
        {
            **PINFU_TANYAO,
            "dora_indicators": ["1s"],
            "flags": ["riichi"],
            "ura_indicators": ["4m"],
            "honba": 3,
            "riichi_sticks": 1,
        },
        {
            "han": 3,
            "total": 6000,
            "payments": [{"from": "discarder", "amount": 6000}],
            "warnings": ["dora_indicators ignored", "ura_indicators ignored", "honba ignored", "riichi_sticks ignored"],
        },
    ),
    # an open 0-han tsumo by the dealer: 200 オール from the three non-dealers
    (
        "dealer 0 han tsumo",
        {"hand": "123m567s78s22z", "melds": [{"type": "pon", "tiles": "999p"}], "win_tile": "6s", "win": "tsumo"},
        {"han": 0, "total": 600, "payments": [{"from": "non_dealer", "amount": 200}] * 3},
    ),
    # 自摸和 1 + 四暗刻 reading vs 123p×3 555p 99p: 清一色 6 + 同三順 2 + 自摸和 1 + 立直 1 = 10 han:
    # both 27000; the yakuman reading is reported
    ("yakuman beats a counted 10 han", SUUANKOU, {"limit": "yakuman", "total": 27000, "yaku": ["suuankou"], "han": 0}),
    # 九蓮宝灯 on a one-sided wait (九門張でなくても可): 大役満
    (
        "chuuren any wait",
        {"hand": "1112235678999m", "win_tile": "4m", "seat_wind": "south"},
        {"limit": "daiyakuman", "total": 30000, "yaku": ["chuuren"]},
    ),
    (
        "kokushi",
        {"hand": "19m19p19s1234567z", "win_tile": "1m", "seat_wind": "south"},
        {"limit": "daiyakuman", "total": 30000, "yaku": ["kokushi"]},
    ),
    # open 大四喜 (大役満) and 字一色: no stacking, 30000 once
    (
        "two daiyakuman do not stack",
        {
            "hand": "444z5z",
            "win_tile": "5z",
            "seat_wind": "south",
            "melds": [
                {"type": "pon", "tiles": "111z"},
                {"type": "pon", "tiles": "222z"},
                {"type": "pon", "tiles": "333z"},
            ],
        },
        {"limit": "daiyakuman", "total": 30000, "yaku": ["daisuushii", "tsuuiisou"]},
    ),
    (
        "two daiyakuman stacked",
        {
            "hand": "444z5z",
            "win_tile": "5z",
            "seat_wind": "south",
            "options": {"yakuman_stacking": True},
            "melds": [
                {"type": "pon", "tiles": "111z"},
                {"type": "pon", "tiles": "222z"},
                {"type": "pon", "tiles": "333z"},
            ],
        },
        {"limit": "daiyakuman", "total": 60000},
    ),
    # 緑一色 without 發: 役満貫 by default, not with ryuuiisou_requires_hatsu (then 清一色 6 + 対々和 2
    # + 三暗刻 2 ... as counted)
    (
        "ryuuiisou without hatsu",
        {"hand": "2233444666888s", "win_tile": "4s", "seat_wind": "south", "win": "tsumo"},
        {"limit": "yakuman", "yaku": ["ryuuiisou"]},
    ),
    # 234s 234s 44s 666s 888s tsumo: 清一色 6 + 一平行 1 + 自摸和 1 + 断幺九 1 = 9 han = 24000
    # (two concealed triplets; no 平和: two triplets)
    (
        "ryuuiisou requires hatsu",
        {
            "hand": "2233444666888s",
            "win_tile": "4s",
            "seat_wind": "south",
            "win": "tsumo",
            "options": {"ryuuiisou_requires_hatsu": True},
        },
        {"limit": None, "total": 24000, "han": 9, "yaku": ["chinitsu", "iipeikou", "menzen_tsumo", "tanyao"]},
    ),
    # 123m×3 456p 77s ron: 同三順 2 + 平和 1 = 3 han = 6000 (一平行 replaced) ...
    ("isshoku sanjun replaces iipeikou", SANJUN, {"han": 3, "total": 6000}),
    # ... or 2 + 1 + 一平行 1 = 4 han = 9000 when it does not replace it
    (
        "isshoku sanjun with iipeikou",
        {**SANJUN, "options": {"isshoku_sanjun_replaces_iipeikou": False}},
        {"han": 4, "total": 9000, "yaku": ["isshoku_sanjun", "iipeikou", "pinfu"]},
    ),
    # 111m 999p 444z 999s(ron) 22z (North, South: no value for West in the East round): 混老頭 3 + 対々和 2 + 三暗刻 2 = 7 han = 18000 (no 全帯幺九: no sequence)
    ("honroutou is not chanta", HONROUTOU, {"han": 7, "total": 18000, "yaku": ["honroutou", "toitoi", "sanankou"]}),
    (
        "chanta without sequence",
        {**HONROUTOU, "options": {"chanta_requires_sequence": False}},
        {"han": 9, "total": 24000, "yaku": ["honroutou", "toitoi", "sanankou", "chanta"]},
    ),
    ("seven pairs must be distinct", {"hand": "1111m3344p5566s7z", "win_tile": "7z"}, {"error": "not_a_winning_hand"}),
    # 七対子 1 + 混一色? no (m, p, s): 1 han = 1500
    (
        "seven pairs with four of a kind",
        {"hand": "1111m3344p5566s7z", "win_tile": "7z", "options": {"seven_pairs_duplicates": True}},
        {"han": 1, "total": 1500, "yaku": ["chiitoitsu"]},
    ),
    # 小三元 closed by ron + 2 翻牌; 555z 666z 77z 234m 678m: 2 + 1 + 1 + 混一色 3 = 7 han
    (
        "closed shousangen honitsu",
        {"hand": "555666z77z234m67m", "win_tile": "8m", "seat_wind": "south"},
        {"han": 7, "total": 18000, "yaku": ["shousangen", "yakuhai_haku", "yakuhai_hatsu", "honitsu"]},
    ),
    # 連風牌 with honor_yaku_add_yakuhai false and 三風刻: East (seat and round) not added either
    (
        "sanpuukou without renpuuhai",
        {
            "hand": "111z222z234m5p",
            "win_tile": "5p",
            "melds": [{"type": "pon", "tiles": "333z"}],
            "options": {"honor_yaku_add_yakuhai": False},
        },
        {"han": 2, "total": 3000, "yaku": ["sanpuukou"]},
    ),
    (
        "sanpuukou with renpuuhai",
        {"hand": "111z222z234m5p", "win_tile": "5p", "melds": [{"type": "pon", "tiles": "333z"}]},
        {"han": 4, "total": 9000, "yaku": ["sanpuukou", "renpuuhai"]},
    ),
    # errors
    (
        "riichi with an open hand",
        {**PINFU_TANYAO, "hand": "234m567p34s55s", "melds": [{"type": "chi", "tiles": "678s"}], "flags": ["riichi"]},
        {"error": "riichi_open_hand"},
    ),
    ("the dealer is East", {**PINFU_TANYAO, "dealer": True}, {"error": "bad_field"}),
    ("not a winning hand", {**PINFU_TANYAO, "win_tile": "9s"}, {"error": "not_a_winning_hand"}),
    ("unknown option", {**PINFU_TANYAO, "options": {"dora": True}}, {"error": "unknown_option"}),
    ("bad option", {**PINFU_TANYAO, "options": {"yakuman_stacking": "yes"}}, {"error": "bad_option"}),
    (
        "five of a kind",
        {**PINFU_TANYAO, "hand": "234m567p34s678s05s", "dora_indicators": ["5s", "5s", "5s"]},
        {"error": "too_many_of_kind"},
    ),
]


@pytest.mark.parametrize(("data", "expect"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_case(data: dict[str, Any], expect: dict[str, Any]) -> None:
    if "error" in expect:
        with pytest.raises(HandError) as err:
            run(data)
        assert err.value.code == expect["error"], err.value.message
        return
    assert compare(run(data), expect) == []


def test_red_five_reads_plain() -> None:
    red = run({**PINFU_TANYAO, "hand": "234m067p34s678s55s"})
    plain = run(PINFU_TANYAO)
    assert red["total"] == plain["total"] == 3000
    assert red["yaku"] == plain["yaku"]
    assert any("plain five" in w for w in red["warnings"]) and not plain["warnings"]
    # three red 5s of a suit are no error either (Jun has none; they are plain fives)
    assert run({**PINFU_TANYAO, "hand": "234m567p34s678s00s"})["total"] == 3000


def test_no_dealer_premium() -> None:
    """The same hand pays the same to the dealer (East) and to a non-dealer (West)."""
    for win in ("ron", "tsumo"):
        east = run({**PINFU_TANYAO, "seat_wind": "east", "win": win})
        west = run({**PINFU_TANYAO, "seat_wind": "west", "win": win})
        assert east["total"] == west["total"]
        assert sorted(p["amount"] for p in east["payments"]) == sorted(p["amount"] for p in west["payments"])


def test_explanation_from_the_numbers() -> None:
    s = score_hand(
        {
            "rules": "jun",
            "hand": "456p789p3s",
            "win_tile": "3s",
            "seat_wind": "south",
            "melds": [{"type": "chi", "tiles": "123p"}, {"type": "pon", "tiles": "555z"}],
        }
    )
    labels = [st.label for st in s.steps]
    assert labels == ["yaku", "row", "payment", "total"]
    assert "一通 1 (▼ open: 2−1)" in s.steps[0].detail and s.steps[0].detail.endswith("= 2翻")
    assert "3000" in s.steps[1].detail and s.steps[-1].detail == str(s.total)


def test_ruleset_describes_itself() -> None:
    d = get_ruleset("jun").describe()
    assert d["id"] == "jun" and d["name_ja"] == "純麻雀"
    assert {o["name"] for o in d["options"]} >= {
        "yakuman_stacking",
        "ryuuiisou_requires_hatsu",
        "honor_yaku_add_yakuhai",
    }
    assert set(d["flags"]) == {"riichi", "double_riichi", "open_riichi"}


# ------------------------------------------------------------------ properties
PRICES = {ron for ron, _ in HAN_ROWS} | {yakuman_row(YAKUMAN_KAN).ron, yakuman_row(DAI_YAKUMAN).ron}


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_random_hands_priced_by_the_table(seed: int) -> None:
    """Any winning hand has a price (0 han wins too), from the table, paid in one column."""
    hand = random_hand(random.Random(seed), "jun")
    got = run(hand)
    assert got["total"] in PRICES
    if got["limit"] is None:
        assert got["total"] == han_row(got["han"]).ron and got["han"] < 10
    amounts = [p["amount"] for p in got["payments"]]
    assert sum(amounts) == got["total"]
    assert len(amounts) == (3 if hand["win"] == "tsumo" else 1) and len(set(amounts)) == 1


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_chance_is_worth_nothing(seed: int) -> None:
    """Dora indicators, honba and red fives never change a Jun price."""
    hand = random_hand(random.Random(seed), "jun")
    base = run({**hand, "dora_indicators": [], "ura_indicators": []})
    tiles = parse_tiles(hand["hand"])
    fives = [i for i, t in enumerate(tiles) if t < 27 and kind(t) % 9 == 4]
    if fives:
        tiles[fives[0]] = 34 + kind(tiles[fives[0]]) // 9  # the red five of that suit
    noisy = run({**hand, "hand": format_tiles(tiles), "honba": 4})
    for key in ("total", "han", "limit", "payments", "yaku"):
        assert noisy[key] == base[key]
