"""The shortcuts of the scoring speed work (#53) answer as the plain definitions do."""

from __future__ import annotations

import random
from itertools import product

import pytest

from paiscan.scoring import HandError, score_hand
from paiscan.scoring.decompose import _splits_of_codes, _suit_sets
from paiscan.scoring.tiles import parse_tiles


def _splits_by_product(codes: list[int]) -> list[tuple[object, ...]]:
    """The definition: the pair in each suit in turn, the product of the suits' splits."""
    active = [_suit_sets(s, code) for s, code in enumerate(codes) if code]
    if any(not no_pair and not with_pair for no_pair, with_pair in active):
        return []
    out: list[tuple[object, ...]] = []
    for pair_suit in range(len(active)):
        choices = [with_pair if i == pair_suit else no_pair for i, (no_pair, with_pair) in enumerate(active)]
        out.extend(sum(combo, ()) for combo in product(*choices))
    return out


def _random_codes(rng: random.Random) -> list[int]:
    codes = [0, 0, 0, 0]
    kinds = rng.choice([range(34), range(9), range(27, 34), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]])
    for _ in range(14):
        k = rng.choice(kinds)
        if (codes[k // 9] >> 4 * (k % 9)) & 15 < 4:
            codes[k // 9] += 16 ** (k % 9)
    return codes


def test_splits_grown_suit_by_suit_are_the_products_in_order() -> None:
    rng = random.Random(53)
    complete = several = 0
    for _ in range(20000):
        codes = _random_codes(rng)
        expected = _splits_by_product(codes)
        assert _splits_of_codes(codes) == expected, codes
        complete += len(expected) > 0
        several += len(expected) > 1
    assert complete > 200 and several > 20  # complete hands, some of several splits, were compared


def test_boo_options_checked_once_still_refuse_a_bad_one() -> None:
    hand = {"rules": "boo", "hand": "123m456p789s1122z", "win_tile": "2z", "win": "tsumo"}
    assert score_hand(hand).total > 0
    with pytest.raises(HandError) as err:
        score_hand({**hand, "options": {"red_fives": {"p": 5}}})
    assert (err.value.code, err.value.field) == ("bad_option", "options.red_fives.p")
    assert score_hand(hand).total > 0  # and the defaults still pass


def test_tile_runs_read_from_the_table_as_before() -> None:
    assert parse_tiles("123m406p55z") == parse_tiles("123m406p55z") == [0, 1, 2, 12, 35, 14, 31, 31]
    for text in ("123m8z", "123m?", "1x"):
        with pytest.raises(HandError):
            parse_tiles(text, allow_back=False)
    with pytest.raises(HandError) as err:
        parse_tiles("123m08z", "hand")
    assert err.value.code == "bad_tile" and "'0z'" in err.value.message
