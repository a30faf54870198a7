"""Run a contract Hand through the PyPI ``mahjong`` library (the trusted riichi oracle).

Only the differential test and the benchmark use this; ``mahjong`` is a dev dependency.
"""

from __future__ import annotations

from typing import Any

from mahjong.constants import EAST, NORTH, SOUTH, WEST
from mahjong.hand_calculating.hand import HandCalculator
from mahjong.hand_calculating.hand_config import HandConfig, OptionalRules
from mahjong.meld import Meld as MjMeld

from paiscan.scoring.hand import Hand
from paiscan.scoring.tiles import RED_5M, RED_5S, kind

WIND_CONST = (EAST, SOUTH, WEST, NORTH)
#: mahjong's yaku class names → paiscan riichi ids
YAKU_IDS = {
    "Tsumo": "menzen_tsumo",
    "Riichi": "riichi",
    "DaburuRiichi": "double_riichi",
    "Ippatsu": "ippatsu",
    "Pinfu": "pinfu",
    "Tanyao": "tanyao",
    "Iipeiko": "iipeikou",
    "Haku": "yakuhai_haku",
    "Hatsu": "yakuhai_hatsu",
    "Chun": "yakuhai_chun",
    "Rinshan": "rinshan",
    "Chankan": "chankan",
    "Haitei": "haitei",
    "Houtei": "houtei",
    "Sanshoku": "sanshoku",
    "Ittsu": "ittsu",
    "Chantai": "chanta",
    "Chiitoitsu": "chiitoitsu",
    "Toitoi": "toitoi",
    "Sanankou": "sanankou",
    "SanshokuDoukou": "sanshoku_doukou",
    "SanKantsu": "sankantsu",
    "Shosangen": "shousangen",
    "Honroto": "honroutou",
    "Ryanpeikou": "ryanpeikou",
    "Junchan": "junchan",
    "Honitsu": "honitsu",
    "Chinitsu": "chinitsu",
    "KokushiMusou": "kokushi",
    "DaburuKokushiMusou": "kokushi_13",
    "Suuankou": "suuankou",
    "SuuankouTanki": "suuankou_tanki",
    "Daisangen": "daisangen",
    "Shousuushii": "shousuushii",
    "DaiSuushii": "daisuushii",
    "Tsuuiisou": "tsuuiisou",
    "Chinroutou": "chinroutou",
    "Ryuuiisou": "ryuuiisou",
    "ChuurenPoutou": "chuuren",
    "DaburuChuurenPoutou": "junsei_chuuren",
    "Suukantsu": "suukantsu",
    "Tenhou": "tenhou",
    "Chiihou": "chiihou",
    "Renhou": "renhou",
    "Dora": "dora",
    "AkaDora": "aka_dora",
    "UraDora": "ura_dora",
}
for _w in ("East", "South", "West", "North"):
    YAKU_IDS[f"SeatWind{_w}"] = "yakuhai_seat_wind"
    YAKU_IDS[f"RoundWind{_w}"] = "yakuhai_round_wind"

_RED_136 = {RED_5M: 16, RED_5M + 1: 52, RED_5S: 88}


class _Ids:
    """Hands out distinct 136-format ids: red fives get mahjong's red id, plain fives avoid it."""

    def __init__(self) -> None:
        self.used: set[int] = set()

    def get(self, tile: int) -> int:
        if tile in _RED_136:
            tid = _RED_136[tile]
        else:
            k = kind(tile)
            tid = next(k * 4 + i for i in range(4) if k * 4 + i not in self.used and k * 4 + i not in (16, 52, 88))
        self.used.add(tid)
        return tid


def to_mahjong(hand: Hand) -> tuple[list[int], int, list[MjMeld], list[int], list[int], HandConfig]:
    ids = _Ids()
    melds = []
    tiles136: list[int] = []
    for m in hand.melds:
        mt = [ids.get(t) for t in m.tiles]
        tiles136 += mt
        mtype = {"chi": MjMeld.CHI, "pon": MjMeld.PON}.get(m.type, MjMeld.SHOUMINKAN if m.added else MjMeld.KAN)
        melds.append(MjMeld(meld_type=mtype, tiles=mt, opened=m.open))
    concealed = [ids.get(t) for t in hand.concealed]
    win = ids.get(hand.win_tile)
    tiles136 += [*concealed, win]
    dora = [ids.get(t) for t in hand.dora_indicators]
    ura = [ids.get(t) for t in hand.ura_indicators]
    f = hand.flags
    config = HandConfig(
        is_tsumo=hand.tsumo,
        is_riichi="riichi" in f,
        is_daburu_riichi="double_riichi" in f,
        is_ippatsu="ippatsu" in f,
        is_rinshan="rinshan" in f,
        is_chankan="chankan" in f,
        is_haitei="haitei" in f,
        is_houtei="houtei" in f,
        is_tenhou="tenhou" in f,
        is_chiihou="chiihou" in f,
        is_renhou="renhou" in f,
        player_wind=WIND_CONST[hand.seat_wind],
        round_wind=WIND_CONST[hand.round_wind],
        tsumi_number=hand.honba,
        kyoutaku_number=hand.riichi_sticks,
        options=OptionalRules(has_open_tanyao=True, has_aka_dora=True, has_double_yakuman=True),
    )
    return tiles136, win, melds, dora, ura, config


_CALC = HandCalculator()


def oracle(hand: Hand) -> dict[str, Any]:
    """han, fu, yaku ids, total and payments as mahjong computes them (or its error)."""
    tiles, win, melds, dora, ura, config = to_mahjong(hand)
    res = _CALC.estimate_hand_value(
        tiles, win, melds=melds, dora_indicators=dora, ura_dora_indicators=ura or None, config=config
    )
    if res.error:
        return {"error": res.error}
    cost = res.cost
    assert cost is not None
    yaku = sorted(YAKU_IDS[type(y).__name__] for y in res.yaku)
    if not hand.tsumo:
        pays = [("discarder", cost["main"] + cost["main_bonus"])]
    elif hand.is_dealer:
        pays = [("non_dealer", cost["main"] + cost["main_bonus"])] * 3
    else:
        pays = [("dealer", cost["main"] + cost["main_bonus"])] + [
            ("non_dealer", cost["additional"] + cost["additional_bonus"])
        ] * 2
    return {
        "han": res.han,
        "fu": res.fu,
        "yaku": yaku,
        "total": cost["total"],
        "payments": sorted(pays),
        "yakuman": any(y.is_yakuman for y in res.yaku),
    }
