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
``--red-fives`` also reads each holdout photo that shows a plain five with every plain five turned
all red (:func:`all_red_fives`; its label made the red five): neither set shows a red five, and
real red fives lack the red dot of the tile art the renders draw; ``red_fives_read_red`` is the
share of them read as the red five.

    python benchmarks/real_check.py [--models DIR] [--small 24,48,80] [--red-fives]

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
from paiscan.scoring.tiles import RED_OF_FIVE
from paiscan.vision.pipeline import PhotoReader, VisionSettings


def all_red_fives(
    img: np.ndarray, labels: Sequence[tuple[int, Box]], rng: random.Random
) -> tuple[np.ndarray, list[tuple[int, Box]]]:
    """``img`` with each labelled plain five's ink turned red (in HSV: pixels darker or more saturated
    than its face take a red hue, a random saturation and a lightness from their own darkness), and
    the labels with those fives made red fives. A different recolouring from the training's
    (``datasets/crops.py::all_red_face``), so the check does not grade its own copies."""
    out = img.copy()
    relabelled = []
    for c, box in labels:
        if c not in RED_OF_FIVE:
            relabelled.append((c, box))
            continue
        x1, y1, x2, y2 = (max(0, round(v)) for v in box)
        face = out[y1:y2, x1:x2]
        if face.size:
            hsv = cv2.cvtColor(face, cv2.COLOR_BGR2HSV).astype(np.float32)
            value, sat = hsv[..., 2], hsv[..., 1]
            body_value = np.quantile(value, 0.7)
            ink = ((body_value - value) > 45) | ((sat - np.median(sat[value >= body_value])) > 60)
            ink = cv2.dilate(ink.astype(np.uint8), np.ones((2, 2), np.uint8)).astype(bool)
            hsv[..., 0] = np.where(ink, rng.choice([0, 2, 4, 176, 178]), hsv[..., 0])
            hsv[..., 1] = np.where(ink, np.maximum(sat, rng.uniform(140, 220)), sat)
            hsv[..., 2] = np.where(ink, np.clip(value * 0.5 + rng.uniform(70, 110), 0, 255), value)
            out[y1:y2, x1:x2] = cv2.cvtColor(hsv.astype(np.uint8), cv2.COLOR_HSV2BGR)
        relabelled.append((RED_OF_FIVE[c], box))
    return out, relabelled


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
    reds = [i for i, (c, _) in enumerate(gt) if c in RED_OF_FIVE.values()]
    red_right = sum(gt[i][0] == dets[j].cls for i, j in pairs if i in reds)
    return {
        "labels": len(gt),
        "boxes": len(dets),
        "found": len(pairs),
        "right": right,
        "reds": len(reds),
        "reds_right": red_right,
        "ms": ms,
    }


def _figures(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    n_gt, n_box = sum(r["labels"] for r in rows), sum(r["boxes"] for r in rows)
    found, right = sum(r["found"] for r in rows), sum(r["right"] for r in rows)
    reds, reds_right = sum(r["reds"] for r in rows), sum(r["reds_right"] for r in rows)
    ms = [r["ms"] for r in rows]
    return {
        "photos": len(rows),
        "tiles": n_gt,
        "boxes": n_box,
        "precision": round(right / n_box, 4) if n_box else None,
        "recall": round(right / n_gt, 4) if n_gt else None,
        "found_at_all": round(found / n_gt, 4) if n_gt else None,
        "class_right_when_found": round(right / found, 4) if found else None,
        **({"red_fives": reds, "red_fives_read_red": round(reds_right / reds, 4)} if reds else {}),
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
    ap.add_argument("--red-fives", action="store_true", help="also read the photos with their fives turned all red")
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
    if args.red_fives:
        rows, red_rng = [], random.Random(5)
        for item in holdout:
            labels = read_yolo_labels(item.labels, 1, 1)
            if item.negative or not any(c in RED_OF_FIVE for c, _ in labels):
                continue
            img = cv2.imread(str(item.image))
            if img is None:
                continue
            h, w = img.shape[:2]
            shot, relabelled = all_red_fives(img, read_yolo_labels(item.labels, w, h), red_rng)
            rows.append(_tally(reader, shot, relabelled))
        out["fives_turned_red"] = _figures(rows)
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
