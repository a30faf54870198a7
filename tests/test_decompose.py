from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paiscan.scoring.decompose import describe, interpretations, standard_splits, suit_splits
from paiscan.scoring.hand import parse_hand


def readings(hand: str, win: str, **extra: Any) -> list[str]:
    return sorted(describe(i) for i in interpretations(parse_hand({"hand": hand, "win_tile": win, **extra})))


@pytest.mark.parametrize(
    ("hand", "win", "expected"),
    [
        (
            "11122233m789p55s",
            "3m",
            ["standard 111m 222m 333m 789p 55s wait=shanpon", "standard 123m 123m 123m 789p 55s wait=penchan"],
        ),
        ("1133m4477p2299s5z", "5z", ["chiitoitsu 11m 33m 44p 77p 22s 99s 55z wait=tanki"]),
        ("19m19p19s1234567z", "1m", ["kokushi  wait=kokushi_13"]),
        ("19m19p19s1234566z", "7z", ["kokushi  wait=kokushi_single"]),
        ("123m456p789s1123z", "5z", []),
    ],
)
def test_readings(hand: str, win: str, expected: list[str]) -> None:
    got = readings(hand, win)
    assert got == sorted(expected)


def test_one_tile_in_two_sets_gives_two_waits() -> None:
    # 12345m + 3m: the 3 completes 123 (edge wait) or 345 (open wait): two interpretations
    got = readings("12345m123p789p11s", "3m")
    waits = {g.split("wait=")[1] for g in got}
    assert waits == {"ryanmen", "penchan"}


def test_seven_pairs_with_duplicates_only_when_allowed() -> None:
    h = parse_hand({"hand": "1111m4477p2299s5z", "win_tile": "5z"})
    assert interpretations(h) == []
    assert [i.form for i in interpretations(h, seven_pairs_duplicates=True)] == ["chiitoitsu"]


def test_melds_become_groups() -> None:
    h = parse_hand(
        {
            "hand": "123m456p789s1z",
            "win_tile": "1z",
            "win": "tsumo",
            "melds": [{"type": "kan", "tiles": "7777s", "open": False}],
        }
    )
    (interp,) = interpretations(h)
    kan = [g for g in interp.groups if g.meld]
    assert len(kan) == 1 and kan[0].concealed and not kan[0].called


def test_ron_triplet_not_concealed_tsumo_is() -> None:
    base = {"hand": "111m99p234567s11z", "win_tile": "9p"}
    ron = interpretations(parse_hand(base))[0]
    tsumo = interpretations(parse_hand({**base, "win": "tsumo"}))[0]
    g_ron = next(g for g in ron.groups if g.tile == 17)
    g_tsumo = next(g for g in tsumo.groups if g.tile == 17)
    assert not g_ron.concealed and g_tsumo.concealed


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 4), min_size=9, max_size=9))
def test_suit_splits_use_every_tile(counts: list[int]) -> None:
    no_pair, with_pair = suit_splits(tuple(counts))
    for splits, pair in ((no_pair, 0), (with_pair, 1)):
        for split in splits:
            used = [0] * 9
            pairs = 0
            for shape, off in split:
                if shape == 0:
                    for i in range(3):
                        used[off + i] += 1
                else:
                    used[off] += {1: 3, 2: 4, 3: 2}[shape]
                    pairs += shape == 3
            assert used == counts and pairs == pair


def test_standard_splits_need_one_pair() -> None:
    counts = [0] * 34
    for k in (0, 1, 2, 9, 10, 11, 18, 19, 20, 27, 27, 27, 28, 28):
        counts[k] += 1
    assert len(standard_splits(counts)) == 1
