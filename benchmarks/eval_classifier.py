"""Accuracy of a classifier file alone on a folder of crops (faces; for a model that reads backs
also its back recall and the share of faces it reads as backs), its most common confusions and, for a
model with the orientation output, how far off the face's axis it reads (median and the share off
by more than 30°, from the renders' meta). ``--by-size``: the accuracy (backs included) with the
crops shrunk before the model's resize, as a photo decoded at reduced size gives them; it chose
``VisionSettings.min_tile_px``.

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

from paiscan.datasets.train_classifier import axis_errors, model_input, read_crop_folder
from paiscan.scoring.tiles import BACK, tile_name
from paiscan.vision.models import MODELS_DIR, NOT_A_TILE, Classifier


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--data", type=Path, required=True)
    ap.add_argument("--model", type=Path, default=MODELS_DIR / "classifier.onnx")
    ap.add_argument(
        "--by-size",
        action="store_true",
        help="also the accuracy with the crops shrunk (as a photo decoded at reduced size gives them)",
    )
    args = ap.parse_args()
    clf = Classifier(args.model)
    crops, truth, angles = read_crop_folder(args.data)
    runs = _run(clf, crops)
    logits = np.concatenate([r[0] for r in runs])
    pred = _contract_best(clf, logits)
    not_a_tile = (
        {"read_as_not_a_tile": round(float(np.mean(np.asarray(clf.classes)[logits.argmax(1)] == NOT_A_TILE)), 4)}
        if clf.reads_not_a_tile
        else {}
    )
    axis: dict[str, float] = {}
    known = ~np.isnan(np.array(angles))
    if clf.has_orientation and known.any():
        err = axis_errors(np.concatenate([r[1] for r in runs])[known], np.array(angles)[known])
        axis = {
            "axis_error_median_deg": round(float(np.median(err)), 2),
            "axis_error_over_30_share": round(float(np.mean(err > 30)), 4),
        }
    y = np.array(truth)
    faces, backs = y != BACK, y == BACK
    confusions = Counter((tile_name(int(a)), tile_name(int(b))) for a, b in zip(y, pred, strict=True) if a != b)
    back = (
        {
            "back_recall": round(float((pred[backs] == BACK).mean()), 4) if backs.any() else None,
            "faces_read_as_back": round(float((pred[faces] == BACK).mean()), 4),
        }
        if clf.has_back
        else {}
    )
    by_size = []
    for factor in SHRINK if args.by_size else ():
        small = [
            cv2.resize(
                c,
                (max(1, round(c.shape[1] * factor)), max(1, round(c.shape[0] * factor))),
                interpolation=cv2.INTER_AREA,
            )
            for c in crops
        ]
        p = _contract_best(clf, np.concatenate([r[0] for r in _run(clf, small)]))
        side = float(np.median([min(c.shape[:2]) for c in small]))
        by_size.append(
            {
                "factor": factor,
                "median_crop_short_side_px": side,
                "accuracy_with_backs": round(float((p == y).mean()), 4),
            }
        )
    print(
        json.dumps(
            {
                "model": str(args.model),
                "n_crops": int(faces.sum()),
                "accuracy": round(float((pred[faces] == y[faces]).mean()), 4),
                **back,
                **not_a_tile,
                **axis,
                "confusions": [[a, b, n] for (a, b), n in confusions.most_common(12)],
                **({"by_size": by_size} if by_size else {}),
            },
            indent=1,
        )
    )


#: the factors ``--by-size`` shrinks the crops by
SHRINK = (1.0, 0.75, 0.6, 0.5, 0.4, 0.3)


def _contract_best(clf: Classifier, logits: np.ndarray) -> np.ndarray:
    """Each crop's best contract id, as the runtime reads it (a model's NOT_A_TILE output only
    lowers the tile's confidence there)."""
    ids = np.asarray(clf.classes)
    contract = ids != NOT_A_TILE
    return ids[contract][logits[:, contract].argmax(1)]


def _run(clf: Classifier, crops: list[np.ndarray]) -> list[list[np.ndarray]]:
    x = model_input(crops, (clf.width, clf.height))
    return [clf.session.run(None, {clf.input_name: x[i : i + 256]}) for i in range(0, len(x), 256)]


if __name__ == "__main__":
    main()
