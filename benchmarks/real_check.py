"""The real-photo check: the models on the held-out real photos of both sets, and on the same photos
shrunk into 12 MP frames.

The held-out photos are the real-photo supplement's holdout (``paiscan.datasets.realdata``: 25 % by a
hash of the source photo, so Roboflow's rotated copies of one photo stay on one side; never trained
on), hard negatives (keyboards, trays, desks: no tile) included. Tiles are counted right when a box
matches a label at IoU 0.3 (the labels box the face only, the localizer the whole tile) with the
label's class: precision over every box read (a box on a keyboard counts against it), recall over
every label. ``--small W,...`` also pastes each positive holdout photo, shrunk so that its tiles'
median face is W px across, into a 4032 x 3024 frame over a hard negative, and reads that: how a
phone photo taken from further away reads (the issue's "tiles small in the frame").

    python benchmarks/real_check.py [--models DIR] [--small 24,48,80]

Prints one JSON object (per set, per source; ``latency_ms`` of the photo reader's detection stages).
"""

from __future__ import annotations

import argparse
import json
import random
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from paiscan.datasets.evaluate import LOOSE_IOU, match
from paiscan.datasets.realdata import LabelledImage, iter_realdata, read_yolo_labels
from paiscan.vision.pipeline import PhotoReader, VisionSettings

#: the frame a shrunk photo is pasted into (a 12 MP phone photo), pixels
FRAME = (4032, 3024)

Box = tuple[float, float, float, float]


def _tally(reader: PhotoReader, image: np.ndarray | bytes, labels: Sequence[tuple[int, Box]]) -> dict[str, Any]:
    data = image if isinstance(image, bytes) else cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 90])[1]
    t0 = time.perf_counter()
    decoded, dets = reader.detect_photo(reader.decode(bytes(data)))
    ms = (time.perf_counter() - t0) * 1000
    scale = decoded.scale
    gt = [(c, (b[0] * scale, b[1] * scale, b[2] * scale, b[3] * scale)) for c, b in labels]
    pairs = match([b for _, b in gt], [d.box for d in dets], LOOSE_IOU)
    right = sum(gt[i][0] == dets[j].cls for i, j in pairs)
    return {"labels": len(gt), "boxes": len(dets), "found": len(pairs), "right": right, "ms": ms}


def _figures(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    n_gt, n_box = sum(r["labels"] for r in rows), sum(r["boxes"] for r in rows)
    found, right = sum(r["found"] for r in rows), sum(r["right"] for r in rows)
    ms = [r["ms"] for r in rows]
    return {
        "photos": len(rows),
        "tiles": n_gt,
        "boxes": n_box,
        "precision": round(right / n_box, 4) if n_box else None,
        "recall": round(right / n_gt, 4) if n_gt else None,
        "found_at_all": round(found / n_gt, 4) if n_gt else None,
        "class_right_when_found": round(right / found, 4) if found else None,
        "latency_ms": {"p50": round(float(np.median(ms)), 1), "max": round(max(ms), 1)} if ms else None,
    }


def shrunk_into_frame(
    item: LabelledImage, background: np.ndarray, face_px: float, rng: random.Random
) -> tuple[np.ndarray, list[tuple[int, Box]]] | None:
    """``item``'s photo shrunk so that its tiles' median face (short side) is ``face_px`` across,
    pasted at a random place of ``background`` (resized to :data:`FRAME`); with its labels there."""
    img = cv2.imread(str(item.image))
    if img is None:
        return None
    h, w = img.shape[:2]
    labels = read_yolo_labels(item.labels, w, h)
    if not labels:
        return None
    s = face_px / float(np.median([min(b[2] - b[0], b[3] - b[1]) for _, b in labels]))
    small = cv2.resize(img, (max(1, round(w * s)), max(1, round(h * s))), interpolation=cv2.INTER_AREA)
    frame = cv2.resize(background, FRAME, interpolation=cv2.INTER_CUBIC)
    sh, sw = small.shape[:2]
    if sw > FRAME[0] or sh > FRAME[1]:
        return None
    x0, y0 = rng.randint(0, FRAME[0] - sw), rng.randint(0, FRAME[1] - sh)
    frame[y0 : y0 + sh, x0 : x0 + sw] = small
    moved = [(c, (b[0] * s + x0, b[1] * s + y0, b[2] * s + x0, b[3] * s + y0)) for c, b in labels]
    return frame, moved


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--models", type=Path, default=None, help="folder with localizer.onnx and classifier.onnx")
    ap.add_argument("--small", default="", help="face sizes (px) to shrink the holdout photos to, e.g. 24,48,80")
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args(argv)
    reader = PhotoReader.load(VisionSettings(threads=args.threads).with_models(args.models))
    reader.warm()
    holdout = [item for item in iter_realdata() if item.split == "holdout" and item.classes_reliable]
    out: dict[str, Any] = {"match_iou": LOOSE_IOU, "sets": {}}
    by_set: dict[str, list[dict[str, Any]]] = {}
    for item in holdout:
        img = cv2.imread(str(item.image))
        if img is None:
            continue
        h, w = img.shape[:2]
        row = _tally(reader, item.image.read_bytes(), read_yolo_labels(item.labels, w, h))
        by_set.setdefault(item.source or "other", []).append(row)
        if item.negative:
            by_set.setdefault(f"{item.source or 'other'}/hard negatives", []).append(row)
    for name, rows in sorted(by_set.items()):
        out["sets"][name] = _figures(rows)
    out["all"] = _figures([r for name, rows in by_set.items() if "/" not in name for r in rows])
    if args.small:
        rng = random.Random(7)
        negatives = [cv2.imread(str(i.image)) for i in holdout if i.negative]
        negatives = [n for n in negatives if n is not None] or [np.full((480, 640, 3), 90, np.uint8)]
        out["small_in_12mp_frame"] = {}
        for face in (float(x) for x in args.small.split(",")):
            rows = []
            for item in holdout:
                if item.negative:
                    continue
                shot = shrunk_into_frame(item, rng.choice(negatives), face, rng)
                if shot is not None:
                    rows.append(_tally(reader, shot[0], shot[1]))
            out["small_in_12mp_frame"][f"face_{face:g}px"] = _figures(rows)
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
