"""The real photos' training split as a localizer training folder.

The supplement labels the tiles of interest (a hand, a tray), and often leaves tiles in the
background (ponds, walls) without a box. Trained on as they are, those tiles would be taught as
felt. So each training-split photo is read by the committed models, and a face-up tile they find
with no label, at least ``UNLABELLED_CONF`` sure (localizer and classifier both), is added as a
tile; less sure ones, and face-down ones (dark objects on the table read as backs), are left out.
The hard negatives (keyboards, trays, desks: no box) are written with no box, as backgrounds.

The label boxes are kept as they are. Some sets' boxes hold the face only, where the localizer
draws the whole tile, but replacing them by the models' boxes went wrong where the models' boxes
are wrong (half of a sideways tile; boxes reaching into the next tile on a stretched tray photo).

The photos are written decoded (EXIF applied) and shrunk to ``MAX_SIDE``, in the layout of a
``paiscan synth`` folder (``images/``, ``labels/`` with 38-class ids), which
``paiscan train localizer --data`` takes (give it twice or more to weight it). Holdout photos are
never written.

    python -m paiscan.datasets.real_localizer data/real_loc_train [--models DIR]
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import cv2

from paiscan.datasets.evaluate import Box, iou
from paiscan.datasets.realdata import iter_realdata, read_yolo_labels
from paiscan.scoring.tiles import BACK
from paiscan.vision.detection import Detection

if TYPE_CHECKING:
    from paiscan.vision.pipeline import PhotoReader

#: an unlabelled detection at least this sure (localizer and classifier both) is taken for a tile
UNLABELLED_CONF = 0.7
#: ... when it overlaps no label by more than this (IoU, or share of the label inside it)
OVERLAP = 0.1
#: the written photos' longest side (the localizer reads 384 px; mosaic crops need some more)
MAX_SIDE = 1280


def _held(label: Box, box: Box) -> float:
    """The share of ``label``'s area inside ``box``."""
    ix = max(0.0, min(label[2], box[2]) - max(label[0], box[0]))
    iy = max(0.0, min(label[3], box[3]) - max(label[1], box[1]))
    area = (label[2] - label[0]) * (label[3] - label[1])
    return ix * iy / area if area > 0 else 0.0


def with_unlabelled_tiles(
    labels: Sequence[tuple[int, Box]],
    detections: Sequence[Detection],
) -> list[tuple[int, Box]]:
    """``labels`` (class, box), and the sure face-up ``detections`` that overlap no label (a tile
    in the background that has no box); pixels.

    >>> labels = [(4, (10.0, 10.0, 30.0, 36.0))]
    >>> found = [Detection(4, 0.9, (8.0, 8.0, 32.0, 42.0)), Detection(9, 0.9, (60.0, 8.0, 84.0, 42.0)),
    ...          Detection(37, 0.9, (90.0, 8.0, 114.0, 42.0)), Detection(9, 0.5, (120.0, 8.0, 144.0, 42.0))]
    >>> with_unlabelled_tiles(labels, found)
    [(4, (10.0, 10.0, 30.0, 36.0)), (9, (60.0, 8.0, 84.0, 42.0))]
    """
    out = list(labels)
    for d in detections:
        sure = d.topk[0][1] if d.topk else d.confidence
        if d.cls == BACK or min(d.confidence, sure) < UNLABELLED_CONF:
            continue
        if any(iou(d.box, b) > OVERLAP or _held(b, d.box) > OVERLAP for _, b in out):
            continue
        out.append((d.cls, d.box))
    return out


def write_real_localizer_set(out: Path, reader: PhotoReader, root: Path | None = None) -> int:
    """Write the training split's photos under ``out``, with their labels and the unlabelled tiles
    ``reader`` is sure of (:func:`with_unlabelled_tiles`); the photo count."""
    (out / "images").mkdir(parents=True, exist_ok=True)
    (out / "labels").mkdir(parents=True, exist_ok=True)
    n = 0
    for item in iter_realdata(root):
        if item.split != "train":
            continue
        decoded, dets = reader.detect_photo(reader.decode(item.image.read_bytes()))
        h, w = decoded.bgr.shape[:2]
        labels = read_yolo_labels(item.labels, w, h)
        # a hard negative shows no tile: whatever the models find on it is exactly what to unlearn
        boxes = labels if item.negative else with_unlabelled_tiles(labels, dets)
        f = min(1.0, MAX_SIDE / max(w, h))
        img = (
            decoded.bgr
            if f == 1.0
            else cv2.resize(decoded.bgr, (round(w * f), round(h * f)), interpolation=cv2.INTER_AREA)
        )
        stem = item.image.stem
        if not cv2.imwrite(str(out / "images" / f"{stem}.jpg"), img, [cv2.IMWRITE_JPEG_QUALITY, 92]):
            raise OSError(f"could not write {out / 'images' / f'{stem}.jpg'}")
        lines = [
            f"{c} {(b[0] + b[2]) / 2 / w:.6f} {(b[1] + b[3]) / 2 / h:.6f} {(b[2] - b[0]) / w:.6f} "
            f"{(b[3] - b[1]) / h:.6f}"
            for c, b in boxes
        ]
        (out / "labels" / f"{stem}.txt").write_text("".join(line + "\n" for line in lines))
        n += 1
    return n


def main(argv: Sequence[str] | None = None) -> None:
    from paiscan.vision.pipeline import PhotoReader, VisionSettings

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--models", type=Path, default=None, help="models folder (default: the committed models)")
    args = ap.parse_args(argv)
    reader = PhotoReader.load(VisionSettings().with_models(args.models))
    reader.warm()
    n = write_real_localizer_set(args.out, reader)
    print(f"{n} photos written to {args.out}")


if __name__ == "__main__":
    main()
