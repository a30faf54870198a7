"""Differential test: paiscan's riichi against the PyPI ``mahjong`` library on seeded random hands.

Compared per hand: han (yakuman as 13 per multiple, mahjong's convention), fu (not for yakuman,
where it does not count), the yaku set, the total and the payments; or the same error for a hand
without yaku. Deliberate differences are listed in the README; none is exercised here.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest

pytest.importorskip("mahjong")

from mahjong_oracle import oracle

from paiscan.scoring import HandError, parse_hand, score
from paiscan.scoring.generate import random_hand

N_HANDS = 5000


def paiscan_result(data: dict[str, Any]) -> dict[str, Any]:
    try:
        s = score(parse_hand(data))
    except HandError as e:
        return {"error": e.code}
    yakuman = int(s.extra.get("yakuman", 0))
    return {
        "han": 13 * yakuman if yakuman else s.han,
        "fu": s.fu,
        "yaku": sorted(y.id for y in s.yaku),
        "total": s.total,
        "payments": sorted((p.from_, p.amount) for p in s.payments),
        "yakuman": bool(yakuman),
    }


def test_differential_against_mahjong() -> None:
    rng = random.Random(20261123)
    mismatches: list[str] = []
    seen_yaku: Counter[str] = Counter()
    compared = no_yaku = 0
    for i in range(N_HANDS):
        data = random_hand(rng)
        mine = paiscan_result(data)
        ref = oracle(parse_hand(data))
        if "error" in ref or "error" in mine:
            if (ref.get("error"), mine.get("error")) != ("no_yaku", "no_yaku"):
                mismatches.append(f"#{i} {data}: mahjong {ref} / paiscan {mine}")
            no_yaku += 1
            continue
        compared += 1
        seen_yaku.update(mine["yaku"])
        keys = ["han", "yaku", "total", "payments"] + ([] if ref["yakuman"] else ["fu"])
        diff = {k: (ref[k], mine[k]) for k in keys if ref[k] != mine[k]}
        if diff:
            mismatches.append(f"#{i} {data}: {diff}")
    assert not mismatches, f"{len(mismatches)} mismatches, first: " + "\n".join(mismatches[:5])
    assert compared > 0.7 * N_HANDS and no_yaku > 0
    # the generator reaches every kind of hand the test claims to cover
    for yaku_id in (
        "riichi",
        "double_riichi",
        "ippatsu",
        "menzen_tsumo",
        "pinfu",
        "tanyao",
        "iipeikou",
        "chiitoitsu",
        "toitoi",
        "sanankou",
        "honitsu",
        "chinitsu",
        "kokushi",
        "rinshan",
        "haitei",
        "houtei",
        "chankan",
        "dora",
        "aka_dora",
        "ura_dora",
        "yakuhai_haku",
        "yakuhai_seat_wind",
        "yakuhai_round_wind",
        "sankantsu",
        "tenhou",
        "chiihou",
        "renhou",
    ):
        assert seen_yaku[yaku_id] > 0, f"no hand with {yaku_id} among {N_HANDS}"
