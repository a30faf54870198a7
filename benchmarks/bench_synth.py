"""Renders per second of the synthetic photo engine at 1280x960.

    python benchmarks/bench_synth.py [--n 200] [--workers 2] [--rules riichi]

Prints the single-process render rate (render + JPEG encode, after a warm-up that fills the
per-process texture and table caches), the same with the scene variety off (``SynthConfig.classic()``:
no seat views, racks, heaps, small hands, distractors or ivory faces; what that variety costs), and
the end-to-end ``write_dataset`` rate with ``--workers``.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from paiscan.datasets.synth import SynthConfig, render_sample, write_dataset

#: the renderer with its scene variety off
PLAIN_SCENES = SynthConfig.classic()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--rules", default="riichi")
    args = ap.parse_args()

    for i in range(60):  # warm-up: art, fonts, textures, every table pattern
        render_sample(10_000 + i, args.rules)
    for label, config in (("render_sample", None), ("  variety off", PLAIN_SCENES)):
        t = time.perf_counter()
        for i in range(args.n):
            render_sample(i, args.rules, config)
        dt = time.perf_counter() - t
        print(
            f"{label}: {args.n / dt:.1f} renders/s (single process, {dt / args.n * 1000:.1f} "
            f"ms/render, 1280x960, JPEG encoded)"
        )

    with tempfile.TemporaryDirectory() as tmp:
        t = time.perf_counter()
        write_dataset(Path(tmp), args.n, seed=1, rules=args.rules, workers=args.workers, progress=False)
        dt = time.perf_counter() - t
    print(
        f"write_dataset: {args.n / dt:.1f} renders/s ({args.workers} workers, files written, including worker start-up)"
    )


if __name__ == "__main__":
    main()
