"""Scoring throughput: the same seeded random hands scored by paiscan and by the ``mahjong`` library.

Both get their input already converted to their own types (paiscan: parsed ``Hand``; mahjong:
136-format tiles and a HandConfig), so the first ratio compares the scoring itself. The JSON path
is what ``paiscan score-hand --jsonl`` runs for each line (:func:`paiscan.service.cli.score_line`):
decode the JSON line, parse and validate the Hand, score it, write the Score's (or the error's) JSON.
The other rulesets' rates (parsed hands of their own) follow.

The first line says which scoring core ran: compiled (mypyc, what an install builds where a C
compiler is at hand) or plain Python (``PAISCAN_PURE=1``, or no compiled modules).

Rounds are interleaved (each round times every path once) and the best round of each is kept, so
a machine shared with other work slows every path alike.

    python benchmarks/bench_scoring.py [--n 3000] [--seed 7] [--rounds 5]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from mahjong_oracle import _CALC, to_mahjong

from paiscan.scoring import HandError, native, parse_hand, score
from paiscan.scoring.generate import random_hand
from paiscan.service.cli import score_line

OTHER_RULESETS = ("boo", "kansai_boo", "totenko_balance", "wsom", "jun")


def _score_all(hands: list[Any]) -> Callable[[], None]:
    def run() -> None:
        for h in hands:
            try:
                score(h)
            except HandError:
                pass

    return run


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=3000)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    dicts = [random_hand(rng) for _ in range(args.n)]
    hands = [parse_hand(d) for d in dicts]
    lines = [json.dumps(d) for d in dicts]
    converted = [to_mahjong(h) for h in hands]

    def run_json() -> None:
        for i, line in enumerate(lines, 1):
            score_line(line, i)

    def run_mahjong() -> None:
        for tiles, win, melds, dora, ura, config in converted:
            _CALC.estimate_hand_value(
                tiles, win, melds=melds, dora_indicators=dora, ura_dora_indicators=ura or None, config=config
            )

    paths: dict[str, Callable[[], None]] = {
        "paiscan": _score_all(hands),
        "paiscan_json_path": run_json,
        "mahjong": run_mahjong,
    }
    for rules in OTHER_RULESETS:
        rrng = random.Random(f"{args.seed}:{rules}")
        paths[rules] = _score_all([parse_hand(random_hand(rrng, rules)) for _ in range(args.n)])
    best = {name: float("inf") for name in paths}
    for fn in paths.values():
        fn()  # warm the per-suit and per-table caches
    for _ in range(args.rounds):
        for name, fn in paths.items():
            t0 = time.perf_counter()
            fn()
            best[name] = min(best[name], time.perf_counter() - t0)
    rate = {name: args.n / t for name, t in best.items()}
    print(f"{'scoring core':>18}: {native.CORE} ({native.REASON})")
    for name in ("paiscan", "paiscan_json_path", "mahjong"):
        print(f"{name:>18}: {rate[name]:9.0f} hands/s")
    print(f"{'ratio':>18}: {rate['paiscan'] / rate['mahjong']:9.1f}x  (paiscan / mahjong)")
    json_ratio = rate["paiscan_json_path"] / rate["mahjong"]
    print(f"{'ratio JSON path':>18}: {json_ratio:9.1f}x  (JSON in, JSON out / mahjong)")
    for rules in OTHER_RULESETS:
        print(f"{rules:>18}: {rate[rules]:9.0f} hands/s")


if __name__ == "__main__":
    main()
