"""Accuracy of a classifier file alone on a folder of crops (faces; for a model that reads backs
also its back recall and the share of faces it reads as backs), its most common confusions and, for a
model with the orientation output, how far off the face's axis it reads (median and the share off
by more than 30°, from the renders' meta).

The crops are ``paiscan synth --crops`` output (``DIR/crops/CLASSID/*.jpg``), cut as the runtime
cuts them; a seed no training run used makes a held-out set:

    paiscan synth --n 100 --seed 990002 --rules riichi --out data/c_riichi_990002 --crops
    python benchmarks/eval_classifier.py --data data/c_riichi_990002 [--model models/classifier.onnx]
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

import cv2
import numpy as np

from datasets.train_classifier import axis_errors, model_input, synth_crop_files
from scoring.tiles import BACK, tile_name
from vision.models import MODELS_DIR, Classifier


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--data", type=Path, required=True)
    ap.add_argument("--model", type=Path, default=MODELS_DIR / "classifier.onnx")
    args = ap.parse_args()
    clf = Classifier(args.model)
    crops, truth, angles = [], [], []
    for f, c, a in synth_crop_files(args.data):
        img = cv2.imread(str(f))
        if img is not None:
            crops.append(img)
            truth.append(c)
            angles.append(a)
    if not crops:
        raise SystemExit(f"no crops under {args.data / 'crops'} (make them with paiscan synth --crops)")
    x = model_input(crops)
    runs = [clf.session.run(None, {clf.input_name: x[i:i + 256]}) for i in range(0, len(x), 256)]
    pred = np.asarray(clf.classes)[np.concatenate([r[0].argmax(1) for r in runs])]
    axis: dict[str, float] = {}
    known = ~np.isnan(np.array(angles))
    if clf.has_orientation and known.any():
        err = axis_errors(np.concatenate([r[1] for r in runs])[known], np.array(angles)[known])
        axis = {"axis_error_median_deg": round(float(np.median(err)), 2),
                "axis_error_over_30_share": round(float(np.mean(err > 30)), 4)}
    y = np.array(truth)
    faces, backs = y != BACK, y == BACK
    confusions = Counter((tile_name(int(a)), tile_name(int(b))) for a, b in zip(y, pred, strict=True) if a != b)
    back = ({"back_recall": round(float((pred[backs] == BACK).mean()), 4) if backs.any() else None,
             "faces_read_as_back": round(float((pred[faces] == BACK).mean()), 4)} if clf.has_back else {})
    print(json.dumps({"model": str(args.model), "n_crops": int(faces.sum()),
                      "accuracy": round(float((pred[faces] == y[faces]).mean()), 4), **back, **axis,
                      "confusions": [[a, b, n] for (a, b), n in confusions.most_common(12)]}, indent=1))


if __name__ == "__main__":
    main()
