"""WSOM (World Series of Mahjong): every spec vector and variant, the pattern table against the
seed's 役表, the options, and properties of random hands (series rule, cap, payments)."""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from spec_vectors import compare, hand_vectors, shared_dir, yaku_id, yaku_value

from paiscan.scoring import HandError, score_hand
from paiscan.scoring.registry import get_ruleset
from paiscan.scoring.rulesets.wsom import PATTERNS, series_key
from paiscan.scoring.tiles import YAOCHUU, format_tiles

SPEC = "wsom"
VECTORS = hand_vectors(SPEC)
#: Hand fields a variant may change; its other keys (except ``why``) are expectations.
INPUT_KEYS = {"options", "flags", "win", "win_tile", "hand", "melds", "seat_wind", "dealer", "honba"}


def merge_repeats(expect: dict[str, Any]) -> dict[str, Any]:
    """A vector lists a per-set pattern once per set (``value_honor (10)`` × 3); ``compare`` sums
    the values of an id, so sum the listed values of a repeated id the same way."""
    if "yaku" not in expect:
        return expect
    ids = [yaku_id(w) for w in expect["yaku"]]
    total: Counter[str] = Counter()
    has_value: set[str] = set()
    for w in expect["yaku"]:
        v = yaku_value(w)
        if v is not None:
            total[yaku_id(w)] += v
            has_value.add(yaku_id(w))
    merged = [f"{i} ({total[i]})" if i in has_value else i for i in dict.fromkeys(ids)]
    return {**expect, "yaku": merged}


def check_counts(score: dict[str, Any], expect: dict[str, Any]) -> list[str]:
    """How many hits of each id the vector lists (per-set patterns appear once per set)."""
    if "yaku" not in expect:
        return []
    want = Counter(yaku_id(w) for w in expect["yaku"])
    got = Counter(y["id"] for y in score["yaku"])
    return [] if want == got else [f"yaku counts: got {dict(got)}, want {dict(want)}"]


def parse_payments(text: str) -> tuple[list[int], int | None]:
    """Informal variant payments: ``"70 / 70 / 70"`` or ``"discarder 145, others 25 + 25"`` →
    (amounts, the discarder's amount when named)."""
    amounts = [int(n) for n in re.findall(r"\d+", text)]
    named = re.search(r"discarder\s+(\d+)", text)
    return amounts, int(named.group(1)) if named else None


def check(score: dict[str, Any], expect: dict[str, Any]) -> list[str]:
    """``compare`` plus the per-set counts and the informal payment strings of variants."""
    expect = {k: v for k, v in expect.items() if k != "why"}
    problems: list[str] = []
    pays = expect.pop("payments", None)
    if isinstance(pays, str):
        amounts, discarder = parse_payments(pays)
        got = sorted(p["amount"] for p in score["payments"])
        if got != sorted(amounts):
            problems.append(f"payments: got {got}, want {sorted(amounts)}")
        if discarder is not None and [p["amount"] for p in score["payments"] if p["from"] == "discarder"] != [
            discarder
        ]:
            problems.append(f"discarder pays {score['payments']}, want {discarder}")
    elif pays is not None:
        expect["payments"] = pays
    return problems + compare(score, merge_repeats(expect)) + check_counts(score, expect)


def run(data: dict[str, Any]) -> dict[str, Any]:
    try:
        return score_hand(data).to_dict()
    except HandError as err:
        return {"error": err.code, "message": err.message}


@pytest.mark.parametrize("vector", VECTORS, ids=[v["id"] for v in VECTORS])
def test_vector(vector: dict[str, Any]) -> None:
    got = run(vector["input"])
    want = vector["expect"]
    if "error" in want:
        assert got.get("error") == want["error"], got
        return
    assert "error" not in got, got
    assert check(got, want) == []


VARIANTS = [(v, i, var) for v in VECTORS for i, var in enumerate(v.get("variants") or [])]


@pytest.mark.parametrize(("vector", "index", "variant"), VARIANTS, ids=[f"{v['id']}-v{i}" for v, i, _ in VARIANTS])
def test_variant(vector: dict[str, Any], index: int, variant: dict[str, Any]) -> None:
    data = dict(vector["input"])
    for key in INPUT_KEYS & set(variant):
        data[key] = {**data.get("options", {}), **variant[key]} if key == "options" else variant[key]
    want = {k: v for k, v in variant.items() if k not in INPUT_KEYS}
    got = run(data)
    if "error" in want:
        assert got.get("error") == want["error"], got
        return
    assert "error" not in got, got
    assert check(got, want) == []


def test_every_vector_ran() -> None:
    assert len(VECTORS) == 16
    assert len(VARIANTS) == 4


# ---------------------------------------------------------------- the table is the seed's
def seed_table() -> dict[str, tuple[str, int]]:
    """系列 → (name, points) from the seed's 役表 lines such as ``4.2.3 四暗刻 125 ...``."""
    text = (shared_dir() / "seeds" / "003_57ed14ba7f60ca44.txt").read_text(encoding="utf-8")
    return {m[1]: (m[2], int(m[3])) for m in re.finditer(r"^(\d+\.\d+(?:\.\d+)?) (\S+) (\d+)", text, re.M)}


def test_pattern_table_matches_seed() -> None:
    seed = seed_table()
    ours = {y.series: (y.name_ja, y.closed) for y in PATTERNS}
    assert ours == seed
    assert all(y.unit == "points" for y in PATTERNS)
    assert len({y.id for y in PATTERNS}) == len(PATTERNS)


def test_closed_only_patterns() -> None:
    closed_only = {y.id for y in PATTERNS if y.open is None}
    assert closed_only == {"concealed_hand", "nine_gates", "thirteen_terminals", "seven_pairs"}


def test_describe_lists_patterns_with_series() -> None:
    info = get_ruleset("wsom").describe()
    series = {y["id"]: y.get("series") for y in info["yaku"]}
    assert series["four_concealed_triplets"] == "4.2.3"
    assert "chicken_hand" in series
    names = {o["name"] for o in info["options"]}
    assert names == {"pattern_values", "limit", "par", "seven_pairs_identical_pairs", "kongs_concealed_only"}


# ---------------------------------------------------------------- patterns the vectors do not reach
def _h(hand: str, win_tile: str, win: str = "ron", melds: str = "", **extra: Any) -> dict[str, Any]:
    """A south-seat hand; ``melds`` like ``"pon 111z, kan 2222m, ankan 3333p, chi 123s"``."""
    out: list[dict[str, Any]] = []
    for part in filter(None, (m.strip() for m in melds.split(","))):
        kind_, tiles = part.split()
        if kind_ == "ankan":
            out.append({"type": "kan", "tiles": tiles, "open": False})
        else:
            out.append({"type": kind_, "tiles": tiles})
    return {
        "rules": "wsom",
        "hand": hand,
        "win_tile": win_tile,
        "win": win,
        "melds": out,
        "seat_wind": extra.pop("seat_wind", "south"),
        **extra,
    }


# (case, hand, counted patterns with points, base, limit, total) — arithmetic in the comments
PATTERN_CASES = [
    # 5 + 5 + 40 = 50 > 25: discarder 50 + 2 × 25 = 100
    (
        "nine_tile_straight",
        _h("123456789m234p5s", "5s"),
        {"all_sequences": 5, "concealed_hand": 5, "nine_tile_straight": 40},
        50,
        None,
        150,
    ),
    # 90 + 5 + 5 + 40 = 140: discarder 140 + 2 × 115 = 370
    (
        "pure_one_suit",
        _h("123456789m2345m", "5m"),
        {"pure_one_suit": 90, "all_sequences": 5, "concealed_hand": 5, "nine_tile_straight": 40},
        140,
        None,
        420,
    ),
    # 100 + 5 (555s 666s concealed) = 105: discarder 105 + 2 × 80 = 265
    (
        "three_consecutive_triplets",
        _h("555666s789m1z", "1z", melds="pon 444s"),
        {"three_consecutive_triplets": 100, "two_concealed_triplets": 5},
        105,
        None,
        315,
    ),
    # 200 + 30 + 5 = 235: discarder 235 + 2 × 210 = 655
    (
        "four_consecutive_triplets",
        _h("444555p9s", "9s", melds="pon 222p, pon 333p"),
        {"four_consecutive_triplets": 200, "all_triplets": 30, "two_concealed_triplets": 5},
        235,
        None,
        705,
    ),
    # freedom of count: 123s×3 reads as sequences, 120 + 5 + 5 + 40 = 170 beats 100 + 30 + 5 = 135
    (
        "three_identical_sequences",
        _h("111222333s789m5z", "5z"),
        {"three_identical_sequences": 120, "all_sequences": 5, "concealed_hand": 5, "mixed_lesser_terminals": 40},
        170,
        None,
        510,
    ),
    # 両般高 60 + 5 + 5 + 5 = 75 beats 七対子 30 + 5; discarder 75 + 2 × 50 = 175
    (
        "two_identical_sequences_twice",
        _h("223344m223344p5s", "5s"),
        {"two_identical_sequences_twice": 60, "all_sequences": 5, "concealed_hand": 5, "no_terminals": 5},
        75,
        None,
        225,
    ),
    # 四同順 480 is a limit pattern: 480 alone; discarder 480 + 2 × 455 = 1390
    (
        "four_identical_sequences",
        _h("222233334444m5p", "5p"),
        {"four_identical_sequences": 480},
        480,
        "limit_pattern",
        1440,
    ),
    # 30: discarder 30 + 2 × 5 = 40
    (
        "small_three_similar_triplets",
        _h("123m456p7s", "7s", melds="pon 777m, pon 777p"),
        {"small_three_similar_triplets": 30},
        30,
        None,
        90,
    ),
    # 120 + 5 = 125: discarder 125 + 2 × 100 = 325
    (
        "three_similar_triplets",
        _h("333s456m8p", "8p", melds="pon 333m, pon 333p"),
        {"three_similar_triplets": 120, "no_terminals": 5},
        125,
        None,
        375,
    ),
    # north seat: E, S are no value honors; 30 + 40 = 70
    (
        "small_three_winds",
        _h("33z456m78m", "9m", melds="pon 111z, pon 222z", seat_wind="north"),
        {"small_three_winds": 30, "mixed_one_suit": 40},
        70,
        None,
        210,
    ),
    # 120 + 40 = 160: discarder 160 + 2 × 135 = 430
    (
        "big_three_winds",
        _h("456m9m", "9m", melds="pon 111z, pon 222z, pon 333z", seat_wind="north"),
        {"big_three_winds": 120, "mixed_one_suit": 40},
        160,
        None,
        480,
    ),
    # 小四喜 320 is a limit pattern: 320 alone; discarder 320 + 2 × 295 = 910
    (
        "small_four_winds",
        _h("44z12p", "3p", melds="pon 111z, pon 222z, pon 333z", seat_wind="north"),
        {"small_four_winds": 320},
        320,
        "limit_pattern",
        960,
    ),
    # tsumo: 50 + 5 = 55 from each
    (
        "pure_lesser_terminals",
        _h("123m789m123p999s1p", "1p", "tsumo"),
        {"pure_lesser_terminals": 50, "concealed_hand": 5},
        55,
        None,
        165,
    ),
    (
        "pure_greater_terminals",
        _h("111m999m111p999p1s", "1s", "tsumo"),
        {"pure_greater_terminals": 400},
        400,
        "limit_pattern",
        1200,
    ),
    # one concealed triplet (the closed kan): 120; discarder 120 + 2 × 95 = 310
    (
        "three_kongs",
        _h("678p5z", "5z", melds="kan 2222m, ankan 3333p, kan 4444s"),
        {"three_kongs": 120},
        120,
        None,
        360,
    ),
    (
        "four_kongs",
        _h("7z", "7z", melds="kan 2222m, ankan 3333p, kan 4444s, kan 6666s"),
        {"four_kongs": 480},
        480,
        "limit_pattern",
        1440,
    ),
    # 15 + 10 = 25 = par: everybody pays 25
    (
        "robbing_kong",
        _h("234m567p34s678s55s", "2s", flags=["chankan"]),
        {"robbing_kong": 10, "all_sequences": 5, "concealed_hand": 5, "no_terminals": 5},
        25,
        None,
        75,
    ),
    # tsumo: 777z and the closed kan concealed: 20 + 10 + 5 + 10 = 45 from each
    (
        "win_on_kong",
        _h("456m22s77z", "7z", "tsumo", melds="kan 8888p, ankan 3333s", flags=["rinshan"]),
        {"two_kongs": 20, "value_honor": 10, "two_concealed_triplets": 5, "win_on_kong": 10},
        45,
        None,
        135,
    ),
    # WSOM-S1 + 10 = 80: discarder 80 + 2 × 55 = 190
    (
        "final_discard",
        _h("222s55s88s", "8s", melds="pon 111z, pon 333z", flags=["houtei"]),
        {"mixed_one_suit": 40, "all_triplets": 30, "final_discard": 10},
        80,
        None,
        240,
    ),
]


@pytest.mark.parametrize(
    ("data", "counted", "base", "limit", "total"), [c[1:] for c in PATTERN_CASES], ids=[c[0] for c in PATTERN_CASES]
)
def test_pattern_case(data: dict[str, Any], counted: dict[str, int], base: int, limit: str | None, total: int) -> None:
    s = score_hand(data)
    got: Counter[str] = Counter()
    for y in s.yaku:
        got[y.id] += y.value
    assert dict(got) == counted
    assert (s.extra["base"], s.limit, s.total) == (base, limit, total)
    assert sum(p.amount for p in s.payments) == total


# ---------------------------------------------------------------- explanation
S1 = next(v["input"] for v in VECTORS if v["id"] == "WSOM-S1")
W05 = next(v["input"] for v in VECTORS if v["id"] == "WSOM-05")
W13 = next(v["input"] for v in VECTORS if v["id"] == "WSOM-13")


def test_explanation_names_patterns_and_drops() -> None:
    s = score_hand(W05)
    lines = [f"{step.label}: {step.detail}" for step in s.steps]
    text = "\n".join(lines)
    assert "3.3.4 大四喜 Big four winds 400" in text
    dropped = {d["id"]: d["reason"] for d in s.extra["dropped"]}
    assert "same series 4.2" in dropped["three_concealed_triplets"]
    assert "4.2.3 四暗刻" in dropped["three_concealed_triplets"]
    assert "lower limit pattern" in dropped["all_honors"]
    assert "limit pattern" in dropped["all_triplets"]
    for d in s.extra["dropped"]:
        assert any(line.startswith(f"dropped: {d['series']} {d['name_ja']} {d['name']}") for line in lines)
    assert s.extra["points"] > s.extra["base"] == 400


def test_explanation_seed_note_drop() -> None:
    s = score_hand({"rules": "wsom", "hand": "19m19p19s1234567z", "win_tile": "1m", "win": "tsumo"})
    dropped = {d["id"]: d["reason"] for d in s.extra["dropped"]}
    assert "10.1 十三幺九 never combines with 8.1.3 混幺九" in dropped["mixed_greater_terminals"]
    assert "never combines with 1.2" in dropped["concealed_hand"]


def test_explanation_payment_lines() -> None:
    s = score_hand(S1)
    by_label = {step.label: step.detail for step in s.steps}
    assert by_label["payment"].endswith("70 + 2 × (70 − 25) = 160")
    assert by_label["total"] == "160 + 25 + 25 = 210"
    assert by_label["base"] == "40 + 30 = 70"


# ---------------------------------------------------------------- options
def test_pattern_values_override() -> None:
    hand = {"rules": "wsom", "hand": "123456789m1122m", "win_tile": "2m", "seat_wind": "south"}
    base = score_hand(hand).extra["base"]
    cheaper = score_hand(hand, options={"pattern_values": {"pure_one_suit": 80}}).extra["base"]
    assert base - cheaper == 10


@pytest.mark.parametrize(
    ("options", "field"),
    [
        ({"pattern_values": {"no_such_pattern": 5}}, "options.pattern_values.no_such_pattern"),
        ({"pattern_values": {"seven_pairs": 0}}, "options.pattern_values.seven_pairs"),
        ({"limit": 0}, "options.limit"),
        ({"par": -1}, "options.par"),
        ({"par": "25"}, "options.par"),
    ],
)
def test_bad_options(options: dict[str, Any], field: str) -> None:
    with pytest.raises(HandError) as err:
        score_hand(S1, options=options)
    assert err.value.code == "bad_option"
    assert err.value.field == field


def test_par_and_limit_options() -> None:
    s = score_hand(S1, options={"par": 10})
    assert sorted(p.amount for p in s.payments) == [10, 10, 70 + 2 * 60]
    capped = score_hand(S1, options={"limit": 50})
    assert (capped.extra["base"], capped.limit, capped.total) == (50, "mangan", 150)


def test_kongs_concealed_only() -> None:
    s = score_hand(W13, options={"kongs_concealed_only": True})
    assert {y.id for y in s.yaku} == {"one_kong", "value_honor"}
    assert s.extra["base"] == 15 and s.total == 45


def test_seven_pairs_option_message() -> None:
    w04 = next(v["input"] for v in VECTORS if v["id"] == "WSOM-04")
    with pytest.raises(HandError) as err:
        score_hand(w04, options={"seven_pairs_identical_pairs": False})
    assert "seven_pairs_identical_pairs" in err.value.message


# ---------------------------------------------------------------- warnings, flags, payments
def test_ignored_inputs_warn() -> None:
    w02 = next(v["input"] for v in VECTORS if v["id"] == "WSOM-02")
    s = score_hand({**w02, "dora_indicators": ["1s"], "honba": 3, "flags": ["riichi"]})
    text = " ".join(s.warnings)
    assert "dora_indicators ignored" in text and "honba ignored" in text and "no riichi" in text
    assert s.total == 45


def test_renhou_alone_warns_and_scores_nothing() -> None:
    w02 = next(v["input"] for v in VECTORS if v["id"] == "WSOM-02")
    s = score_hand({**w02, "flags": ["renhou"]})
    assert s.extra["base"] == 15
    assert any("dealer_first_discard_ron" in w for w in s.warnings)


def test_red_five_is_plain() -> None:
    plain = score_hand({**S1, "hand": "222s55s88s"})
    red = score_hand({**S1, "hand": "222s50s88s"})
    assert red.total == plain.total and red.warnings == ()


def test_dealer_tsumo_paid_by_three_non_dealers() -> None:
    s = score_hand({**S1, "win": "tsumo", "seat_wind": "east"})
    assert [(p.from_, p.amount) for p in s.payments] == [("non_dealer", s.extra["base"])] * 3


# ---------------------------------------------------------------- random hands (hypothesis)
PALETTES = {
    "all": list(range(34)),
    "one_suit_honors": [*range(9, 18), *range(27, 34)],
    "one_suit": list(range(18, 27)),
    "honors_terminals": sorted(YAOCHUU),
    "honors": list(range(27, 34)),
    "simples": [k for k in range(27) if k not in YAOCHUU],
}
WIND_NAMES = ("east", "south", "west", "north")


def _mpsz(kinds: list[int]) -> str:
    return format_tiles(sorted(kinds))


@st.composite
def standard_hands(draw: st.DrawFn) -> dict[str, Any]:
    """Four sets and a pair from one palette, some sets called, the winning tile among the rest."""
    palette = PALETTES[draw(st.sampled_from(sorted(PALETTES)))]
    left = [4] * 34
    concealed: list[int] = []
    melds: list[dict[str, Any]] = []
    for _ in range(4):
        options = [
            ("seq", k)
            for k in palette
            if k < 27 and k % 9 <= 6 and k + 2 in palette and all(left[k + i] for i in range(3))
        ]
        options += [("trip", k) for k in palette if left[k] >= 3]
        options += [("kan", k) for k in palette if left[k] == 4]
        if not options:
            options = [("trip", k) for k in range(34) if left[k] >= 3]
        shape, k = draw(st.sampled_from(options))
        tiles = [k, k + 1, k + 2] if shape == "seq" else [k] * (4 if shape == "kan" else 3)
        for t in tiles:
            left[t] -= 1
        if shape == "kan":
            melds.append({"type": "kan", "tiles": _mpsz(tiles), "open": draw(st.booleans())})
        elif draw(st.integers(0, 3)) == 0:
            melds.append({"type": "chi" if shape == "seq" else "pon", "tiles": _mpsz(tiles)})
        else:
            concealed += tiles
    pairs = [k for k in palette if left[k] >= 2] or [k for k in range(34) if left[k] >= 2]
    concealed += [draw(st.sampled_from(pairs))] * 2
    win = concealed.pop(draw(st.integers(0, len(concealed) - 1)))
    return _situation(draw, {"hand": _mpsz(concealed), "melds": melds, "win_tile": _mpsz([win])})


@st.composite
def special_hands(draw: st.DrawFn) -> dict[str, Any]:
    """Seven pairs (perhaps with four of a kind) or thirteen orphans."""
    if draw(st.booleans()):
        kinds = [*sorted(YAOCHUU), draw(st.sampled_from(sorted(YAOCHUU)))]
    else:
        palette = PALETTES[draw(st.sampled_from(sorted(PALETTES)))]
        distinct = draw(st.lists(st.sampled_from(palette), min_size=6, max_size=7, unique=True))
        pairs = distinct + [distinct[0]] * (7 - len(distinct))
        kinds = [k for k in pairs for _ in range(2)]
    win = kinds.pop(draw(st.integers(0, len(kinds) - 1)))
    return _situation(draw, {"hand": _mpsz(kinds), "melds": [], "win_tile": _mpsz([win])})


def _holds_another(hand: dict[str, Any]) -> bool:
    """The hand holds another tile of the winning tile's kind (so no kan of it was robbed)."""
    from paiscan.scoring.tiles import kind, parse_tiles

    win = kind(parse_tiles(hand["win_tile"])[0])
    held = [*parse_tiles(hand["hand"]), *(t for m in hand["melds"] for t in parse_tiles(m["tiles"]))]
    return any(kind(t) == win for t in held)


def _situation(draw: st.DrawFn, hand: dict[str, Any]) -> dict[str, Any]:
    """Win type, seat and only the flags that are legal for this hand."""
    tsumo = draw(st.booleans())
    seat = draw(st.sampled_from(WIND_NAMES))
    flags = []
    has_kan = any(m["type"] == "kan" for m in hand["melds"])
    chance = draw(st.sampled_from(["", "last", "kan", "first", "immunity"]))
    if chance == "last":
        flags.append("haitei" if tsumo else "houtei")
    elif chance == "kan" and tsumo and has_kan:
        flags.append("rinshan")
    elif chance == "kan" and not tsumo and not _holds_another(hand):  # the robbed kan held the other three
        flags.append("chankan")
    elif chance == "first" and not hand["melds"]:
        if tsumo:
            seat = "east"
            flags.append("tenhou")
        elif seat != "east":
            flags += ["renhou", "dealer_first_discard_ron"]
    elif chance == "immunity" and not tsumo:
        flags.append("ron_paid_as_tsumo")
    return {"rules": "wsom", **hand, "win": "tsumo" if tsumo else "ron", "seat_wind": seat, "flags": flags}


#: Patterns the seed says always come with others ("…が必ず複合する").
IMPLIED = {
    "four_concealed_triplets": {"concealed_hand": 1, "all_triplets": 1},
    "small_three_dragons": {"value_honor": 2},
    "big_three_dragons": {"value_honor": 3},
    "two_identical_sequences_twice": {"all_sequences": 1},
    "four_consecutive_triplets": {"all_triplets": 1},
}


def assert_well_formed(data: dict[str, Any]) -> None:
    s = score_hand(data)  # the generators only draw legal hands: an error is a failure
    ids = Counter(y.id for y in s.yaku)
    # no two different reported patterns share a series; only 3.1 翻牌 repeats (once per set)
    series = [series_key(y.series) for y in s.yaku if y.series]
    assert len(set(series)) == len({y.id for y in s.yaku if y.series}), [y.series for y in s.yaku]
    assert all(n == 1 for i, n in ids.items() if i != "value_honor"), ids
    # every drop by the series rule lost to a higher (or equal) pattern of its series
    for d in s.extra["dropped"]:
        assert d["reason"]
        if d["reason"].startswith("same series"):
            winner = [y for y in s.yaku if y.series and series_key(y.series) == series_key(d["series"])]
            assert winner or s.limit == "limit_pattern"
            assert all(y.value >= d["value"] for y in winner)
    base = s.extra["base"]
    if s.limit == "limit_pattern":
        assert len(s.yaku) == 1 and base == s.yaku[0].value >= 320
    else:
        assert base == min(s.extra["points"], 320) == min(sum(y.value for y in s.yaku), 320)
        assert (s.limit == "mangan") == (s.extra["points"] >= 320)
        for pid, needs in IMPLIED.items():
            if pid in ids:
                assert all(ids[n] >= c for n, c in needs.items()), (pid, ids)
    assert s.total == 3 * base == sum(p.amount for p in s.payments)
    assert len(s.payments) == 3
    if data["win"] != "tsumo" and "ron_paid_as_tsumo" not in data["flags"] and base > 25:
        assert sorted(p.amount for p in s.payments) == [25, 25, base + 2 * (base - 25)]
    else:
        assert {p.amount for p in s.payments} == {base}
    explained = " ".join(step.detail for step in s.steps)
    for y in s.yaku:
        assert f"{y.series or '—'} {y.name_ja} {y.name} {y.value}" in explained


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(standard_hands())
def test_random_standard_hands(data: dict[str, Any]) -> None:
    assert_well_formed(data)


@settings(max_examples=100, deadline=None)
@given(special_hands())
def test_random_special_hands(data: dict[str, Any]) -> None:
    assert_well_formed(data)


def test_generator_reaches_many_patterns() -> None:
    """The property tests are only as good as the hands they see: check the generator's reach."""
    seen: set[str] = set()

    @settings(max_examples=400, deadline=None, database=None, derandomize=True)
    @given(st.one_of(standard_hands(), special_hands()))
    def collect(data: dict[str, Any]) -> None:
        s = score_hand(data)
        seen.update(y.id for y in s.yaku)
        seen.update(d["id"] for d in s.extra["dropped"])

    collect()
    assert len(seen) >= 25, sorted(seen)
