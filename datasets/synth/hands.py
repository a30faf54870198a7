"""Random winning hands in the contract Hand shape.

``random_hand`` prefers ``paiscan.scoring.generate.random_hand`` (the scoring package's generator) and
falls back to the small private generator below when that cannot be imported or fails.
The private generator draws physical tiles from a full set, so no kind ever appears more than
four times counting indicators, ``nuki`` and (via :func:`remaining_pool`) background tiles.
"""

from __future__ import annotations

import importlib
import random
from collections import Counter
from typing import Any

from paiscan.scoring.errors import HandError
from paiscan.scoring.registry import get_ruleset
from paiscan.vision.layout import set_aside_kinds

from .tiles import RED_IDS, kind_of, parse_tiles, sort_key, to_mpsz

RED_FIVES: dict[str, dict[int, int]] = {
    # rules -> {plain five kind id: number of red copies in the set}
    "riichi": {4: 1, 13: 1, 22: 1},
    "boo": {4: 1, 13: 1, 22: 1},
    "kansai_boo": {13: 2},
    "totenko_balance": {4: 2, 13: 2, 22: 2},
    "wsom": {},
    "jun": {},
}
_RED_OF_KIND = {v: k for k, v in RED_IDS.items()}
_WINDS = ["east", "south", "west", "north"]
THREE_PLAYER = {"totenko_balance"}


def full_set(rules: str) -> list[int]:
    """All physical tiles of the ruleset's set, as class ids (red fives as 34/35/36)."""
    reds = RED_FIVES.get(rules, RED_FIVES["riichi"])
    tiles: list[int] = []
    for kind in range(34):
        if rules in THREE_PLAYER and 1 <= kind <= 7:  # no 2m-8m
            continue
        n_red = min(reds.get(kind, 0), 4)
        if n_red:
            tiles += [_RED_OF_KIND[kind]] * n_red
        tiles += [kind] * (4 - n_red)
    return tiles


def hand_tiles(hand: dict[str, Any]) -> list[int]:
    """Every tile a Hand dict shows: concealed, melds, winning tile, dora indicators, nuki."""
    ids = parse_tiles(hand.get("hand", ""))
    for m in hand.get("melds", []):
        ids += parse_tiles(m["tiles"])
    if hand.get("win_tile"):
        ids += parse_tiles(hand["win_tile"])
    for d in hand.get("dora_indicators", []):
        ids += parse_tiles(d)
    ids += parse_tiles(hand.get("nuki", "") or "")
    return ids


def remaining_pool(hand: dict[str, Any], rules: str) -> list[int]:
    """The physical tiles of the set not shown by ``hand`` (for background tiles)."""
    left = Counter(full_set(rules))
    for t in hand_tiles(hand):
        if left[t] > 0:
            left[t] -= 1
        elif t in RED_IDS and left[RED_IDS[t]] > 0:  # more reds than the set: take a plain one
            left[RED_IDS[t]] -= 1
        elif left[_RED_OF_KIND.get(t, -1)] > 0:
            left[_RED_OF_KIND[t]] -= 1
    return sorted(left.elements())


def discardable(tiles: list[int], rules: str) -> list[int]:
    """``tiles`` less those someone's discards never hold: the kinds the ruleset sets aside when
    drawn (Totenko's manzu: every one is a gari, set aside by the player who draws it; spec §1),
    in order.

    >>> discardable([0, 4, 9, 34, 27], "totenko_balance"), discardable([0, 9], "riichi")
    ([9, 27], [0, 9])
    """
    aside = set_aside_kinds(rules)
    return [t for t in tiles if kind_of(t) not in aside]


class _Pool:
    def __init__(self, rules: str, rng: random.Random) -> None:
        self.rng = rng
        self.tiles = full_set(rules)

    def count(self, kind: int) -> int:
        return sum(1 for t in self.tiles if kind_of(t) == kind)

    def take(self, kind: int) -> int:
        idx = [i for i, t in enumerate(self.tiles) if kind_of(t) == kind]
        i = self.rng.choice(idx)
        return self.tiles.pop(i)

    def take_any(self, allowed: set[int] | None = None) -> int:
        idx = [i for i, t in enumerate(self.tiles) if allowed is None or kind_of(t) in allowed]
        i = self.rng.choice(idx)
        return self.tiles.pop(i)


def _private_random_hand(rng: random.Random, rules: str) -> dict[str, Any]:
    pool = _Pool(rules, rng)
    three = rules in THREE_PLAYER
    hand_kinds = [k for k in range(34) if not (three and k < 9)]
    seq_starts = [k for k in hand_kinds if k < 27 and k % 9 <= 6 and not (three and k < 9)]
    melds: list[dict[str, Any]] = []
    concealed: list[int] = []

    if rng.random() < 0.05:  # seven pairs
        kinds = rng.sample([k for k in hand_kinds if pool.count(k) >= 2], 7)
        for k in kinds:
            concealed += [pool.take(k), pool.take(k)]
    else:
        n_melds = rng.choices([0, 1, 2, 3, 4], weights=[35, 28, 20, 11, 6])[0]
        kinds_of_set: list[str] = []
        for i in range(4):
            if i < n_melds:
                kinds_of_set.append(
                    rng.choices(
                        ["chi", "pon", "kan_open", "kan_closed", "kan_added"],
                        weights=[40, 35, 8, 9, 8],
                    )[0]
                )
            else:
                kinds_of_set.append(rng.choice(["seq", "seq", "trip"]))
        for what in kinds_of_set:
            for _attempt in range(50):
                if what in ("seq", "chi"):
                    s = rng.choice(seq_starts)
                    if all(pool.count(s + j) >= 1 for j in range(3)):
                        tiles = [pool.take(s + j) for j in range(3)]
                        break
                else:
                    need = 3 if what in ("trip", "pon") else 4
                    k = rng.choice(hand_kinds)
                    if pool.count(k) >= need:
                        tiles = [pool.take(k) for _ in range(need)]
                        break
            else:  # pragma: no cover - practically unreachable
                raise RuntimeError("could not draw a set")
            if what in ("seq", "trip"):
                concealed += tiles
                continue
            tiles.sort(key=sort_key)
            meld: dict[str, Any] = {"tiles": to_mpsz(tiles)}
            if what == "chi":
                meld.update(type="chi", open=True, **{"from": "left"})
            elif what == "pon":
                meld.update(type="pon", open=True, **{"from": rng.choice(["left", "across", "right"])})
            elif what == "kan_open":
                meld.update(type="kan", open=True, added=False, **{"from": rng.choice(["left", "across", "right"])})
            elif what == "kan_added":
                meld.update(type="kan", open=True, added=True, **{"from": rng.choice(["left", "across", "right"])})
            else:
                meld.update(type="kan", open=False, added=False)
            melds.append(meld)
        pair_kinds = [k for k in hand_kinds if pool.count(k) >= 2]
        k = rng.choice(pair_kinds)
        concealed += [pool.take(k), pool.take(k)]

    win = concealed.pop(rng.randrange(len(concealed)))
    concealed.sort(key=sort_key)
    n_kans = sum(1 for m in melds if m["type"] == "kan")
    n_dora = 1 + n_kans if rng.random() < 0.7 else rng.choice([1, 1, 2])
    dora = [to_mpsz([pool.take_any()]) for _ in range(min(n_dora, 5))]
    nuki: list[int] = []
    if three:
        gari = set_aside_kinds(rules)  # the ruleset's own: Totenko's 1m 5m 9m
        n_nuki = rng.choices([0, 1, 2, 3, 4], weights=[25, 30, 25, 12, 8])[0]
        for _ in range(n_nuki):
            if any(kind_of(t) in gari for t in pool.tiles):
                nuki.append(pool.take_any(set(gari)))
        nuki.sort(key=sort_key)
    closed = all(not m.get("open", True) for m in melds)
    seat = rng.choice(_WINDS[:3] if three else _WINDS)
    return {
        "rules": rules,
        "options": {},
        "hand": to_mpsz(concealed),
        "melds": melds,
        "win_tile": to_mpsz([win]),
        "win": rng.choice(["ron", "tsumo"]),
        "seat_wind": seat,
        "round_wind": "east" if three else rng.choice(["east", "east", "south"]),
        "honba": rng.choice([0, 0, 0, 1, 2]),
        "dora_indicators": dora,
        "ura_indicators": [],
        "nuki": to_mpsz(nuki),
        "flags": ["riichi"] if closed and rng.random() < 0.4 else [],
    }


def random_hand(rng: random.Random, rules: str = "riichi") -> dict[str, Any]:
    """A random complete winning hand as a contract Hand dict.

    Uses ``paiscan.scoring.generate.random_hand`` when available, else the private generator.
    """
    try:
        mod = importlib.import_module("paiscan.scoring.generate")
        scoring_random_hand = getattr(mod, "random_hand", None)
    except Exception:
        scoring_random_hand = None
    if callable(scoring_random_hand):
        state = rng.getstate()
        try:
            hand = dict(scoring_random_hand(rng, rules))
            hand_tiles(hand)  # must parse
            return shown_indicators(hand)
        except Exception:
            rng.setstate(state)
    return shown_indicators(_private_random_hand(rng, rules))


def shown_indicators(hand: dict[str, Any]) -> dict[str, Any]:
    """The hand with no more dora indicators than its ruleset's table turns up (Boo: one, riichi:
    the dora and ura-dora ones, one more of each per kan), as players lay them out. The cut is made
    after the hand is drawn, so every other hand of a seed stays the same.

    >>> shown_indicators({"rules": "boo", "melds": [], "dora_indicators": ["1p", "2p"]})["dora_indicators"]
    ['1p']
    """
    try:
        ruleset = get_ruleset(str(hand.get("rules", "riichi")))
    except HandError:
        return hand
    kans = sum(1 for m in hand.get("melds", []) if m.get("type") == "kan")
    most = ruleset.max_indicators(kans)
    if len(hand.get("dora_indicators", [])) <= most:
        return hand
    return {**hand, "dora_indicators": list(hand["dora_indicators"][:most])}
