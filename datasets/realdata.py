"""The real-photo supplement in ``../shared/realdata`` (CC BY 4.0, see its README).

Images are split by a hash of their name, never by chance, so the held-out real-photo check is the
same on every machine and is never trained on.
"""

from __future__ import annotations

import csv
import hashlib
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

ATTRIBUTION = (
    'Trained in part on "Chinese Mahjong Detection" (v4), Roboflow Universe workspace riichimahjongdetection, '
    "licensed CC BY 4.0 (https://creativecommons.org/licenses/by/4.0/), via github.com/alanchoi00/mahjong_detection; "
    "class ids remapped and some images and boxes removed."
)


def shared_dir() -> Path:
    env = os.environ.get("PAISCAN_SHARED")
    if env:
        return Path(env)
    root = Path(__file__).resolve().parents[1]
    for candidate in (root.parent / "shared", root / "shared", Path("/work/shared")):
        if candidate.is_dir():
            return candidate
    return root.parent / "shared"


def realdata_dir() -> Path:
    return shared_dir() / "realdata" / "chinese-mahjong-rf"


#: a set holds four tiles of a kind; a photo whose boxes all carry one class, more of them than
#: that, was labelled with a placeholder (seven tray photos, IMG_2778-2788, label every tile 1p)
MAX_OF_A_KIND = 4


@dataclass(frozen=True, slots=True)
class LabelledImage:
    image: Path
    labels: Path
    split: str  # "train" or "holdout"
    #: False when the labels' classes are a placeholder (:func:`placeholder_classes`): the boxes
    #: still show where the tiles are, but their classes must not train or judge a classifier
    classes_reliable: bool = True


def placeholder_classes(classes: Sequence[int]) -> bool:
    """Whether a photo's box classes are a placeholder rather than what each tile shows: every box
    the same class, and more boxes than a set has tiles of one kind.

    >>> placeholder_classes([9] * 14), placeholder_classes([9] * 4), placeholder_classes([31] * 6 + [0])
    (True, False, False)
    """
    return len(classes) > MAX_OF_A_KIND and len(set(classes)) == 1


def split_of(name: str, holdout_percent: int = 25) -> str:
    """A stable split from the file name (same answer everywhere).

    >>> split_of("IMG_1.jpg") in ("train", "holdout")
    True
    """
    h = int(hashlib.sha256(name.encode()).hexdigest()[:8], 16) % 100
    return "holdout" if h < holdout_percent else "train"


def iter_realdata(root: Path | None = None) -> Iterator[LabelledImage]:
    root = root or realdata_dir()
    images = root / "images"
    if not images.is_dir():
        return
    for img in sorted(images.iterdir()):
        if img.suffix.lower() not in (".jpg", ".jpeg", ".png"):
            continue
        lab = root / "labels" / (img.stem + ".txt")
        if lab.exists():
            classes = [int(float(parts[0])) for line in lab.read_text().splitlines() if len(parts := line.split()) >= 5]
            yield LabelledImage(img, lab, split_of(img.name), not placeholder_classes(classes))


def source_kinds(root: Path | None = None) -> dict[str, str]:
    """Image file name → its ``source_kind`` in the supplement's ``manifest.csv`` (``hand_photo``:
    a hand on a rack, ``phone_photo_IMG``: trays and tables); empty when there is no manifest."""
    path = (root or realdata_dir()) / "manifest.csv"
    if not path.is_file():
        return {}
    with path.open(newline="") as f:
        return {Path(row["file"]).name: row.get("source_kind", "") for row in csv.DictReader(f)}


def photos_with_dropped_boxes(root: Path | None = None) -> set[str]:
    """The image file names whose flower and season boxes were removed (``dropped_boxes.csv``):
    tiles in view without a label, so no clean negative."""
    path = (root or realdata_dir()) / "dropped_boxes.csv"
    if not path.is_file():
        return set()
    with path.open(newline="") as f:
        return {Path(row["file"]).name for row in csv.DictReader(f)}


def read_yolo_labels(path: Path, width: int, height: int) -> list[tuple[int, tuple[float, float, float, float]]]:
    """``class cx cy w h`` (normalised) lines → (class, x1 y1 x2 y2 pixels)."""
    out = []
    for line in path.read_text().splitlines():
        parts = line.split()
        if len(parts) < 5:
            continue
        c = int(float(parts[0]))
        cx, cy, w, h = (float(v) for v in parts[1:5])
        out.append((c, ((cx - w / 2) * width, (cy - h / 2) * height, (cx + w / 2) * width, (cy + h / 2) * height)))
    return out
