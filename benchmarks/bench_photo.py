"""File-to-result latency of the photo pipeline on 12 MP JPEGs, per onnxruntime thread count.

Several different renders (``--photos``), each read ``--runs`` times: one photo alone can be an
easy or a hard case for the layout search.

``--crowded K`` reads crowded photos instead: each frame is K×K real photos (``../shared/realdata``,
chosen at random) side by side, 50 to 200 tiles in many rows, as a tray, a table or a product grid
shows them. The slowest photo is what a user waits longest for, so the maximum is printed too.

    python benchmarks/bench_photo.py [--photos 6] [--runs 4] [--width 4000 --height 3000] [--models DIR]
        [--zoom-min-px 0] [--recheck-below 0] [--crowded 3]
"""

from __future__ import annotations

import argparse
import random
import time
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

from paiscan.datasets.evaluate import machine
from paiscan.datasets.realdata import iter_realdata
from paiscan.datasets.synth import SynthConfig, render_sample
from paiscan.vision.pipeline import PhotoReader, VisionSettings


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--photos", type=int, default=6)
    ap.add_argument("--runs", type=int, default=4)
    ap.add_argument("--width", type=int, default=4000)
    ap.add_argument("--height", type=int, default=3000)
    ap.add_argument("--models", type=Path, default=None, help="folder with localizer.onnx and classifier.onnx")
    ap.add_argument("--zoom-min-px", type=float, default=VisionSettings.zoom_min_px, help="0: no closer look")
    ap.add_argument("--recheck-below", type=float, default=VisionSettings.recheck_below, help="0: no second reading")
    ap.add_argument(
        "--recheck-limit",
        type=int,
        default=VisionSettings.recheck_limit,
        help="at most this many tiles a photo read again",
    )
    ap.add_argument("--crowded", type=int, default=0, metavar="K", help="K×K real photos a frame instead of renders")
    args = ap.parse_args()
    photos = []
    real = sorted(im.image for im in iter_realdata()) if args.crowded else []
    for seed in range(3, 3 + args.photos):
        if args.crowded:
            image = crowded_frame([cv2.imread(str(p)) for p in random.Random(seed).sample(real, args.crowded**2)], args)
        else:
            image = render_sample(seed, "riichi", replace(SynthConfig(), width=args.width, height=args.height)).image
        photos.append(cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 90])[1].tobytes())
    print(f"machine: {machine()}")
    print(
        f"{len(photos)} photos: {args.width}×{args.height} JPEG, "
        f"{sum(map(len, photos)) // len(photos) // 1024} KB on average"
    )
    for threads in (1, 2):
        settings = VisionSettings(
            threads=threads,
            zoom_min_px=args.zoom_min_px,
            recheck_below=args.recheck_below,
            recheck_limit=args.recheck_limit,
        )
        reader = PhotoReader.load(settings.with_models(args.models))
        reader.warm()
        totals, stages = [], []
        for data in photos:
            for _ in range(args.runs):
                t0 = time.perf_counter()
                result = reader.read(data)
                totals.append((time.perf_counter() - t0) * 1000)
                stages.append(result.timings_ms)
        # stages that run for some photos only (redecode, zoom): the median where they ran, and how often
        names = list(dict.fromkeys(k for s in stages for k in s))
        per_stage = {k: round(float(np.median([s[k] for s in stages if k in s])), 1) for k in names}
        ran = {k: f"{sum(k in s for s in stages)}/{len(stages)}" for k in names if not all(k in s for s in stages)}
        print(
            f"threads={threads}: p50 {np.percentile(totals, 50):.0f} ms, p95 {np.percentile(totals, 95):.0f} ms, "
            f"max {max(totals):.0f} ms, "
            f"median per stage {per_stage}" + (f", stages run only in {ran}" if ran else "")
        )


def crowded_frame(images: list[np.ndarray], args: argparse.Namespace) -> np.ndarray:
    """``images`` (K² of them) resized into a K×K grid filling a ``--width`` × ``--height`` frame."""
    k = args.crowded
    w, h = args.width // k, args.height // k
    cells = [cv2.resize(im, (w, h), interpolation=cv2.INTER_CUBIC) for im in images]
    return np.vstack([np.hstack(cells[r * k : (r + 1) * k]) for r in range(k)])


if __name__ == "__main__":
    main()
