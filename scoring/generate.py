"""Seeded random winning hands, for differential tests, benchmarks and the photo renderer.

Hands are drawn from a physical tile set (four of each kind, red fives per the ruleset), so they
never hold five of a kind, and flags are only set where they are legal.

>>> import random
>>> h = random_hand(random.Random(1))
>>> from scoring import score_hand
>>> isinstance(h["hand"], str) and len(h["melds"]) <= 4
True
"""

from __future__ import annotations

import random
from typing import Any

from paiscan.scoring.tiles import RED_5M, WINDS, YAOCHUU, format_tiles, kind, parse_tiles

#: red fives per suit in each ruleset's default set (rules README §1.3)
RED_FIVES = {
    "riichi": (1, 1, 1),
    "boo": (1, 1, 1),
    "kansai_boo": (0, 2, 0),
    "totenko_balance": (2, 2, 2),
    "wsom": (0, 0, 0),
    "jun": (0, 0, 0),
}
THREE_PLAYER = {"totenko_balance"}


class _Pool:
    """The tiles still available: plain copies per kind and red fives per suit."""

    def __init__(self, rules: str) -> None:
        reds = RED_FIVES.get(rules, (1, 1, 1))
        self.plain = [4] * 34
        self.red = list(reds)
        for s in range(3):
            self.plain[s * 9 + 4] -= reds[s]
        if rules in THREE_PLAYER:
            for k in range(1, 8):
                self.plain[k] = 0
            self.red[0] = 0 if rules != "totenko_balance" else reds[0]

    def available(self, k: int) -> int:
        return self.plain[k] + (self.red[k // 9] if k < 27 and k % 9 == 4 else 0)

    def take(self, k: int, rng: random.Random, red_bias: float = 0.5) -> int:
        """Remove one tile of kind ``k``; returns its tile id (red five sometimes)."""
        if k < 27 and k % 9 == 4 and self.red[k // 9] and (not self.plain[k] or rng.random() < red_bias):
            self.red[k // 9] -= 1
            return RED_5M + k // 9
        assert self.plain[k] > 0
        self.plain[k] -= 1
        return k


def _draw_set(pool: _Pool, rng: random.Random, allowed: list[int], style: str) -> tuple[str, list[int]] | None:
    """Pick a set shape and kind that the pool can still supply (or None)."""
    for _ in range(30):
        shape = rng.random()
        if style == "honors" and shape < 0.5:
            k = rng.choice([k for k in allowed if k >= 27] or allowed)
            if pool.available(k) >= 3:
                return "triplet", [k] * 3
            continue
        if shape < 0.62:
            starts = [k for k in allowed if k < 27 and k % 9 <= 6 and k + 2 in allowed]
            if style == "simples":
                starts = [k for k in starts if k % 9 >= 1 and k % 9 <= 5]
            if not starts:
                continue
            k = rng.choice(starts)
            if all(pool.available(k + i) for i in range(3)):
                return "sequence", [k, k + 1, k + 2]
        else:
            choices = allowed if style != "simples" else [k for k in allowed if k not in YAOCHUU]
            k = rng.choice(choices)
            if pool.available(k) >= 3:
                return "triplet", [k] * 3
    return None


def random_hand(rng: random.Random, rules: str = "riichi") -> dict[str, Any]:
    """A random valid winning hand as the contract's Hand dict (flags only where legal)."""
    while True:
        hand = _try_hand(rng, rules)
        if hand is not None:
            return hand


def _try_hand(rng: random.Random, rules: str) -> dict[str, Any] | None:
    pool = _Pool(rules)
    three = rules in THREE_PLAYER
    allowed = [k for k in range(34) if pool.available(k)]
    if three:
        allowed = [k for k in allowed if k >= 9]  # manzu are set aside as gari, never in hand
    r = rng.random()
    concealed: list[int] = []
    melds: list[dict[str, Any]] = []
    kan_count = 0
    if r < 0.06:
        form = "chiitoitsu"
        kinds = rng.sample(allowed, 7)
        for k in kinds:
            if pool.available(k) < 2:
                return None
            concealed += [pool.take(k, rng), pool.take(k, rng)]
    elif r < 0.08:
        form = "kokushi"
        yao = sorted(YAOCHUU)
        if three:
            return None
        concealed = [pool.take(k, rng) for k in yao]
        concealed.append(pool.take(rng.choice(yao), rng))
    else:
        form = "standard"
        style = rng.choice(["any", "any", "simples", "honors"])
        n_melds = rng.choice([0, 0, 0, 1, 1, 2, 3, 4])
        sets = []
        for _ in range(4):
            drawn = _draw_set(pool, rng, allowed, style)
            if drawn is None:
                return None
            shape, kinds = drawn
            tiles = [pool.take(k, rng) for k in kinds]
            sets.append((shape, kinds, tiles))
        pair_choices = [k for k in allowed if pool.available(k) >= 2]
        if style == "simples":
            pair_choices = [k for k in pair_choices if k not in YAOCHUU] or pair_choices
        if not pair_choices:
            return None
        pk = rng.choice(pair_choices)
        concealed += [pool.take(pk, rng), pool.take(pk, rng)]
        meld_idx = set(rng.sample(range(4), n_melds))
        # a closed kan can be declared without opening the hand
        for i, (shape, kinds, tiles) in enumerate(sets):
            kan = shape == "triplet" and pool.available(kinds[0]) and rng.random() < 0.25
            if kan:
                tiles = [*tiles, pool.take(kinds[0], rng)]
                kan_count += 1
                if i in meld_idx:
                    kind_ = rng.choice(["open", "added"])
                    melds.append(
                        {
                            "type": "kan",
                            "tiles": format_tiles(tiles),
                            "open": True,
                            **({"added": True} if kind_ == "added" else {}),
                            "from": rng.choice(["left", "across", "right"]),
                        }
                    )
                else:
                    melds.append({"type": "kan", "tiles": format_tiles(tiles), "open": False})
            elif i in meld_idx:
                if shape == "sequence":
                    melds.append({"type": "chi", "tiles": format_tiles(tiles), "from": "left"})
                else:
                    melds.append(
                        {"type": "pon", "tiles": format_tiles(tiles), "from": rng.choice(["left", "across", "right"])}
                    )
            else:
                concealed += tiles
    rng.shuffle(concealed)
    win_tile = concealed.pop()
    is_open = any(m.get("open", True) for m in melds)
    tsumo = rng.random() < 0.45
    seats = WINDS[:3] if three else WINDS
    seat = rng.choice(seats)
    round_wind = "east" if three else rng.choice(["east", "east", "south", "south", "west", "north"])
    dealer = seat == "east"
    flags: list[str] = []
    if not is_open and rng.random() < 0.55:
        flags.append("double_riichi" if rng.random() < 0.07 else "riichi")
        if rng.random() < 0.2:
            flags.append("ippatsu")
    if tsumo and rng.random() < 0.06:
        flags.append("haitei")
    elif not tsumo and rng.random() < 0.06:
        flags.append("houtei")
    if tsumo and kan_count and "haitei" not in flags and rng.random() < 0.3:
        flags.append("rinshan")
    wk = kind(win_tile)
    win_kind_count = sum(1 for t in concealed if kind(t) == wk) + sum(
        1 for m in melds for t in parse_tiles(m["tiles"]) if kind(t) == wk
    )
    if not tsumo and "houtei" not in flags and win_kind_count == 0 and rng.random() < 0.1:
        flags.append("chankan")
    if not melds and not tsumo and not dealer and not flags and rng.random() < 0.03:
        flags.append("renhou")
    if not melds and tsumo and rng.random() < 0.08 and "ippatsu" not in flags:
        flags = [f for f in flags if f not in ("riichi", "double_riichi", "haitei")]
        flags.append("tenhou" if dealer else "chiihou")
    n_ind = rng.choice([0, 1, 1, 1, 2, 3])
    indicators = []
    for _ in range(n_ind):
        choices = [k for k in range(34) if pool.available(k)]
        indicators.append(pool.take(rng.choice(choices), rng))
    ura = []
    if flags and flags[0] in ("riichi", "double_riichi"):
        for _ in range(len(indicators)):
            choices = [k for k in range(34) if pool.available(k)]
            ura.append(pool.take(rng.choice(choices), rng))
    nuki: list[int] = []
    if three:
        for _ in range(rng.choice([0, 0, 1, 2, 3])):
            choices = [k for k in (0, 4, 8) if pool.available(k)]
            if choices:
                nuki.append(pool.take(rng.choice(choices), rng))
    out: dict[str, Any] = {
        "rules": rules,
        "hand": format_tiles(concealed),
        "melds": melds,
        "win_tile": format_tiles([win_tile]),
        "win": "tsumo" if tsumo else "ron",
        "seat_wind": seat,
        "round_wind": round_wind,
        "honba": rng.choice([0, 0, 0, 1, 2, 3, 5]),
        "dora_indicators": [format_tiles([t]) for t in indicators],
        "ura_indicators": [format_tiles([t]) for t in ura],
        "flags": flags,
    }
    if three:
        out["nuki"] = format_tiles(nuki)
    if form != "standard":
        out["melds"] = []
    return out
