"""Fu (符) with a named part for every contribution (rules README §5).

The table is shared; what differs between rulesets (open pinfu ron, seven-pairs fu, a double
wind pair, tsumo fu on a pinfu hand) is a :class:`FuRules` value.

>>> from paiscan.scoring.hand import parse_hand
>>> from paiscan.scoring.decompose import interpretations
>>> from paiscan.scoring.yaku import Context, Facts
>>> h = parse_hand({"hand": "123m222p3357s777p", "win_tile": "6s", "seat_wind": "south"})
>>> ctx = Context.of(h, Facts.of(h), interpretations(h)[0], None)
>>> fu, parts = compute_fu(ctx, FuRules())
>>> fu, [(p.fu, p.reason) for p in parts]  # doctest: +NORMALIZE_WHITESPACE
(40, [(20, 'base'), (10, 'menzen_ron'), (2, 'wait_kanchan'),
      (4, 'concealed_triplet_simple'), (4, 'concealed_triplet_simple')])
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from paiscan.scoring.decompose import KAN, KANCHAN, PAIR, PENCHAN, SEQUENCE, TANKI, TRIPLET
from paiscan.scoring.score import FuPart, round_up
from paiscan.scoring.tiles import DRAGONS, YAOCHUU
from paiscan.scoring.yaku import Context

LABELS: Final = {
    "base": "副底 base",
    "menzen_ron": "門前加符 closed ron",
    "tsumo": "ツモ符 tsumo",
    "wait_kanchan": "嵌張 closed wait",
    "wait_penchan": "辺張 edge wait",
    "wait_tanki": "単騎 pair wait",
    "pair_dragon": "役牌の雀頭 dragon pair",
    "pair_seat_wind": "自風の雀頭 seat-wind pair",
    "pair_round_wind": "場風の雀頭 round-wind pair",
    "pair_double_wind": "連風牌の雀頭 double-wind pair",
    "open_pinfu": "喰い平和 open pinfu-shape ron",
    "chiitoitsu": "七対子 seven pairs (fixed)",
}
for _open, _oj in ((False, "暗"), (True, "明")):
    for _kan, _kj in ((False, "刻"), (True, "槓")):
        for _yao, _yj in ((False, "中張"), (True, "么九")):
            _id = f"{'open' if _open else 'concealed'}_{'kan' if _kan else 'triplet'}_{'yaochuu' if _yao else 'simple'}"
            LABELS[_id] = f"{_yj}{_oj}{_kj} {_id.replace('_', ' ')}"


@dataclass(frozen=True, slots=True)
class FuRules:
    """The ruleset-dependent choices of the fu count."""

    base: int = 20
    menzen_ron: int = 10
    tsumo: int = 2
    #: fu of a tsumo that completes a ryanmen wait (boo option: 4)
    tsumo_ryanmen: int | None = None
    #: a pinfu hand won by tsumo gets no tsumo fu (riichi: 20 fu pinfu tsumo)
    pinfu_tsumo_no_fu: bool = True
    #: an open hand with no fu at all won by ron is raised to this (riichi 30; boo 20)
    open_pinfu_ron: int = 30
    chiitoitsu: int = 25
    double_wind_pair: int = 4
    #: extra winds worth pair fu (beyond seat and round), e.g. north in three-player
    extra_value_winds: tuple[int, ...] = ()
    #: whether fu is rounded up to 10 (all rulesets here do)
    round_to: int = 10


def _set_fu(g_shape: int, tile: int, called: bool, concealed: bool) -> tuple[int, str]:
    yao = tile in YAOCHUU
    is_kan = g_shape == KAN
    exposed = called or not concealed
    fu = (4 if is_kan else 1) * (2 if exposed else 4) * (2 if yao else 1)
    reason = f"{'open' if exposed else 'concealed'}_{'kan' if is_kan else 'triplet'}_{'yaochuu' if yao else 'simple'}"
    return fu, reason


#: (shape, kind, exposed) → the fu part of that triplet or kan (parts are immutable, so shared)
_SET_PARTS: Final[dict[tuple[int, int, bool], FuPart]] = {}
for _shape in (TRIPLET, KAN):
    for _tile in range(34):
        for _exposed in (False, True):
            _fu, _reason = _set_fu(_shape, _tile, _exposed, True)
            _SET_PARTS[(_shape, _tile, _exposed)] = FuPart(_fu, _reason, LABELS[_reason])
_WAIT_PARTS: Final = {w: FuPart(2, f"wait_{w}", LABELS[f"wait_{w}"]) for w in (KANCHAN, PENCHAN, TANKI)}
#: (fu, reason) → its part, made on first use
_PARTS: Final[dict[tuple[int, str], FuPart]] = {}


def _part(fu: int, reason: str, label: str | None = None) -> FuPart:
    """The part of ``fu`` for ``reason`` (labelled from :data:`LABELS` unless given), shared."""
    part = _PARTS.get((fu, reason))
    if part is None:
        part = _PARTS[(fu, reason)] = FuPart(fu, reason, LABELS[reason] if label is None else label)
    return part


def pair_fu(ctx: Context, rules: FuRules) -> list[FuPart]:
    p = ctx.pair
    if p is None:
        return []
    seat, rnd = ctx.facts.seat_wind, ctx.facts.round_wind
    if p in DRAGONS:
        return [_part(2, "pair_dragon")]
    parts = []
    if p == seat and p == rnd:
        parts.append(_part(rules.double_wind_pair, "pair_double_wind"))
    elif p == seat:
        parts.append(_part(2, "pair_seat_wind"))
    elif p == rnd:
        parts.append(_part(2, "pair_round_wind"))
    if p in rules.extra_value_winds and p != seat and p != rnd:
        parts.append(_part(2, "pair_extra_wind", "役牌の雀頭 value-wind pair"))
    return parts


def compute_fu(
    ctx: Context, rules: FuRules, is_pinfu: bool = False, as_ron: bool | None = None
) -> tuple[int, list[FuPart]]:
    """Fu of one interpretation and its parts. ``as_ron`` overrides the win kind (a tsumo that a
    ruleset pays as ron takes ron fu)."""
    interp = ctx.interp
    if interp.form == "chiitoitsu":
        return rules.chiitoitsu, [_part(rules.chiitoitsu, "chiitoitsu")]
    if interp.form != "standard":
        return 0, []
    facts = ctx.facts
    ron = (not facts.tsumo) if as_ron is None else as_ron
    parts = [_part(rules.base, "base")]
    if ron and facts.closed and rules.menzen_ron:
        parts.append(_part(rules.menzen_ron, "menzen_ron"))
    wait = interp.wait
    wait_part = _WAIT_PARTS.get(wait)
    if wait_part is not None:
        parts.append(wait_part)
    if ctx.pair is not None:
        parts.extend(pair_fu(ctx, rules))
    for shape, tile, called, concealed, _ in interp.groups:
        if shape in (TRIPLET, KAN):
            parts.append(_SET_PARTS[(shape, tile, called or not concealed)])
    if not ron and not (is_pinfu and rules.pinfu_tsumo_no_fu):
        tsumo_fu = rules.tsumo
        if rules.tsumo_ryanmen is not None and wait == "ryanmen":
            tsumo_fu = rules.tsumo_ryanmen
        parts.append(_part(tsumo_fu, "tsumo"))
    total = 0
    for part in parts:
        total += part.fu
    if ron and not facts.closed and total == rules.base and rules.open_pinfu_ron != rules.base:
        extra = rules.open_pinfu_ron - total
        parts.append(_part(extra, "open_pinfu"))
        total += extra
    return round_up(total, rules.round_to), parts


def describe_fu(fu: int, parts: list[FuPart]) -> str:
    """``'20 base + 10 closed ron + 2 edge wait = 32 → 40 fu'``."""
    raw = 0
    pieces = []
    for p in parts:
        raw += p.fu
        pieces.append(f"{p.fu} {p.label or p.reason}")
    return f"{' + '.join(pieces)} = {raw}" + (f" → {fu} fu" if raw != fu else " fu")


__all__ = ["PAIR", "SEQUENCE", "FuRules", "compute_fu", "describe_fu"]
