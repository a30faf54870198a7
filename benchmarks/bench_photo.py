"""File-to-result latency of the photo pipeline on a 12 MP JPEG, per onnxruntime thread count.

    python benchmarks/bench_photo.py [--runs 12] [--width 4000 --height 3000] [--models DIR]
"""

from __future__ import annotations

import argparse
import time
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

from datasets.synth import SynthConfig, render_sample
from vision.pipeline import PhotoReader, VisionSettings


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--runs", type=int, default=12)
    ap.add_argument("--width", type=int, default=4000)
    ap.add_argument("--height", type=int, default=3000)
    ap.add_argument("--models", type=Path, default=None, help="folder with localizer.onnx and classifier.onnx")
    args = ap.parse_args()
    paths = {} if args.models is None else {"localizer_path": args.models / "localizer.onnx",
                                            "classifier_path": args.models / "classifier.onnx"}
    sample = render_sample(3, "riichi", replace(SynthConfig(), width=args.width, height=args.height))
    _, enc = cv2.imencode(".jpg", sample.image, [cv2.IMWRITE_JPEG_QUALITY, 90])
    data = enc.tobytes()
    print(f"photo: {args.width}×{args.height} JPEG, {len(data) // 1024} KB")
    for threads in (1, 2):
        reader = PhotoReader.load(VisionSettings(threads=threads, **paths))
        reader.warm()
        totals, stages = [], []
        for _ in range(args.runs):
            t0 = time.perf_counter()
            result = reader.read(data)
            totals.append((time.perf_counter() - t0) * 1000)
            stages.append(result.timings_ms)
        per_stage = {k: round(float(np.median([s[k] for s in stages])), 1) for k in stages[0]}
        print(f"threads={threads}: p50 {np.percentile(totals, 50):.0f} ms, p95 {np.percentile(totals, 95):.0f} ms, "
              f"median per stage {per_stage}")


if __name__ == "__main__":
    main()
