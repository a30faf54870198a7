"""Every Score of N seeded random hands as JSON lines, to compare two versions of the scoring core
byte for byte (``cmp``): the hand, then what ``paiscan score-hand --jsonl`` prints for it (the
Score, or the error object).

    python benchmarks/score_digest.py --n 20000 --rules all > after.jsonl
    PYTHONPATH=/old/checkout python benchmarks/score_digest.py --prefix scoring --n 20000 > before.jsonl
    cmp before.jsonl after.jsonl

``--prefix`` is the import name of the scoring package (``paiscan.scoring``; an older checkout
imports as ``scoring``), so one script prices hands with either.
"""

from __future__ import annotations

import argparse
import importlib
import json
import random
import sys

RULESETS = ("riichi", "boo", "kansai_boo", "totenko_balance", "wsom", "jun")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--prefix", default="paiscan.scoring", help="import name of the scoring package")
    ap.add_argument("--n", type=int, default=20000, help="hands per ruleset")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--rules", default="all", help="a ruleset id, or all")
    args = ap.parse_args()
    core = importlib.import_module(args.prefix)
    generate = importlib.import_module(f"{args.prefix}.generate")
    out = sys.stdout
    for rules in RULESETS if args.rules == "all" else (args.rules,):
        rng = random.Random(f"{args.seed}:{rules}")
        for _ in range(args.n):
            data = generate.random_hand(rng, rules)
            try:
                result = core.score_hand(data).to_dict()
            except core.HandError as err:
                result = err.to_dict()
            out.write(json.dumps(data, ensure_ascii=False) + "\n")
            out.write(json.dumps(result, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
