"""How the classifier's accuracy depends on the crop's size: held-out crops shrunk by a factor
before the model's resize, as a photo decoded at reduced size would give them. This chose
``VisionSettings.min_tile_px``, below which the reader decodes a photo again larger.

    python benchmarks/crop_size.py --data data/c_riichi_990002 [--model models/classifier.onnx]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import cv2
import numpy as np

from datasets.train_classifier import model_input, synth_crop_files
from vision.models import MODELS_DIR, Classifier


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--data", type=Path, required=True)
    ap.add_argument("--model", type=Path, default=MODELS_DIR / "classifier.onnx")
    args = ap.parse_args()
    clf = Classifier(args.model)
    crops, truth = [], []
    for f, c, _ in synth_crop_files(args.data):
        img = cv2.imread(str(f))
        if img is not None:
            crops.append(img)
            truth.append(c)
    if not crops:
        raise SystemExit(f"no crops under {args.data / 'crops'} (make them with paiscan synth --crops)")
    y = np.array(truth)
    rows = []
    for factor in (1.0, 0.75, 0.6, 0.5, 0.4, 0.3):
        small = [cv2.resize(c, (max(1, round(c.shape[1] * factor)), max(1, round(c.shape[0] * factor))),
                            interpolation=cv2.INTER_AREA) for c in crops]
        x = model_input(small)
        pred = np.asarray(clf.classes)[np.concatenate(
            [clf.session.run(None, {clf.input_name: x[i:i + 256]})[0].argmax(1) for i in range(0, len(x), 256)])]
        rows.append({"factor": factor, "median_short_side_px": float(np.median([min(s.shape[:2]) for s in small])),
                     "accuracy": round(float((pred == y).mean()), 4)})
    print(json.dumps({"model": str(args.model), "n_crops": len(y), "by_size": rows}, indent=1))


if __name__ == "__main__":
    main()
