"""Scoring throughput: the same seeded random hands scored by paiscan and by the ``mahjong`` library.

Both get their input already converted to their own types (paiscan: parsed ``Hand``; mahjong:
136-format tiles and a HandConfig), so the figures compare the scoring itself. paiscan's
JSON-to-Score rate (parsing included) is printed too.

    python benchmarks/bench_scoring.py [--n 3000] [--seed 7]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from mahjong_oracle import _CALC, to_mahjong

from paiscan.scoring import HandError, parse_hand, score, score_hand
from paiscan.scoring.generate import random_hand


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--n", type=int, default=3000)
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    dicts = [random_hand(rng) for _ in range(args.n)]
    hands = [parse_hand(d) for d in dicts]
    converted = [to_mahjong(h) for h in hands]

    def run_paiscan() -> None:
        for h in hands:
            try:
                score(h)
            except HandError:
                pass

    def run_paiscan_json() -> None:
        for d in dicts:
            try:
                score_hand(d)
            except HandError:
                pass

    def run_mahjong() -> None:
        for tiles, win, melds, dora, ura, config in converted:
            _CALC.estimate_hand_value(
                tiles, win, melds=melds, dora_indicators=dora, ura_dora_indicators=ura or None, config=config
            )

    results = {}
    for name, fn in (("paiscan", run_paiscan), ("paiscan_from_json", run_paiscan_json), ("mahjong", run_mahjong)):
        fn()  # warm caches
        best = float("inf")
        for _ in range(3):
            t0 = time.perf_counter()
            fn()
            best = min(best, time.perf_counter() - t0)
        results[name] = args.n / best
        print(f"{name:>18}: {results[name]:9.0f} hands/s")
    print(f"{'ratio':>18}: {results['paiscan'] / results['mahjong']:9.1f}x  (paiscan / mahjong)")
    print(f"{'ratio from JSON':>18}: {results['paiscan_from_json'] / results['mahjong']:9.1f}x")


if __name__ == "__main__":
    main()
