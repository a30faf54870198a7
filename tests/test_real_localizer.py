"""The real photos as a localizer training folder (datasets/real_localizer.py)."""

from __future__ import annotations

import shutil
from pathlib import Path

import cv2
import pytest

from paiscan.datasets.real_localizer import UNLABELLED_CONF, with_unlabelled_tiles, write_real_localizer_set
from paiscan.datasets.realdata import read_yolo_labels, split_of
from paiscan.scoring.tiles import BACK
from paiscan.vision.detection import Detection
from paiscan.vision.pipeline import PhotoReader

ROOT = Path(__file__).resolve().parents[1]


def test_labels_are_kept_and_only_sure_face_up_tiles_apart_from_them_are_added() -> None:
    labels = [(4, (100.0, 100.0, 140.0, 160.0))]
    sure = max(UNLABELLED_CONF, 0.9)
    found = [
        Detection(4, sure, (95.0, 95.0, 145.0, 170.0), topk=((4, sure),)),  # the labelled tile, boxed larger
        Detection(9, sure, (200.0, 100.0, 240.0, 160.0), topk=((9, sure),)),  # a background tile
        Detection(BACK, sure, (300.0, 100.0, 340.0, 160.0), topk=((BACK, sure),)),  # a dark object
        Detection(9, sure, (400.0, 100.0, 440.0, 160.0), topk=((9, UNLABELLED_CONF / 2),)),  # unsure class
        Detection(9, UNLABELLED_CONF / 2, (500.0, 100.0, 540.0, 160.0), topk=((9, sure),)),  # unsure box
        Detection(9, sure, (90.0, 150.0, 150.0, 200.0), topk=((9, sure),)),  # holds part of the label
    ]
    assert with_unlabelled_tiles(labels, found) == [labels[0], (9, (200.0, 100.0, 240.0, 160.0))]


def _name_in(split: str, stem: str) -> str:
    return next(f"{stem}{k}.jpg" for k in range(100) if split_of(f"{stem}{k}.jpg") == split)


def test_the_training_split_is_written_with_its_labels_and_the_holdout_is_not(tmp_path: Path) -> None:
    root = tmp_path / "real"
    (root / "images").mkdir(parents=True)
    (root / "labels").mkdir()
    photo = ROOT / "examples" / "photo.jpg"
    label = "13 0.5 0.5 0.05 0.1\n"
    names = [_name_in("train", "a"), _name_in("holdout", "b")]
    for name in names:
        shutil.copy(photo, root / "images" / name)
        (root / "labels" / f"{Path(name).stem}.txt").write_text(label)
    out = tmp_path / "out"
    n = write_real_localizer_set(out, PhotoReader.load(), root)
    assert n == 1
    assert sorted(p.name for p in (out / "images").iterdir()) == [names[0]]
    img = cv2.imread(str(out / "images" / names[0]))
    h, w = img.shape[:2]
    assert max(h, w) <= 1280
    boxes = read_yolo_labels(out / "labels" / f"{Path(names[0]).stem}.txt", w, h)
    assert boxes[0][0] == 13 and boxes[0][1] == pytest.approx((0.475 * w, 0.45 * h, 0.525 * w, 0.55 * h), abs=1e-3)
    # the example's hand is found by the models and has no label here: its sure tiles are added
    assert len(boxes) > 5
    assert all(c != BACK for c, _ in boxes[1:])
