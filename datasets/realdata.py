"""The real-photo supplement in ``../shared/realdata`` (CC BY 4.0, see its README): two sets,
``chinese-mahjong-rf`` (Chinese / HK sets and tray photos) and ``riichi-mahjong-rf`` (one Japanese
riichi set, with hard negatives: keyboards, trays, desks, labelled with no box).

Photos are split by a hash of their source photo, never by chance, so the held-out real-photo check
is the same on every machine and is never trained on. ``riichi-mahjong-rf`` holds each photo about
three times (Roboflow's rotated copies): its ``manifest.csv`` names each image's ``source_photo``,
and the copies of one photo always land on the same side.
"""

from __future__ import annotations

import csv
import hashlib
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

#: the sets of the supplement, by folder name
REALDATA_SETS = ("chinese-mahjong-rf", "riichi-mahjong-rf")

#: the CC BY 4.0 attribution each set asks for in every model card of a model trained on it
ATTRIBUTIONS = {
    "chinese-mahjong-rf": (
        'Trained in part on "Chinese Mahjong Detection" (v4), Roboflow Universe workspace riichimahjongdetection, '
        "licensed CC BY 4.0 (https://creativecommons.org/licenses/by/4.0/), via "
        "github.com/alanchoi00/mahjong_detection; class ids remapped and some images and boxes removed."
    ),
    "riichi-mahjong-rf": (
        'Trained in part on "Riichi Mahjong" (v8), Roboflow Universe workspace hust-xq5rx, licensed CC BY 4.0 '
        "(https://creativecommons.org/licenses/by/4.0/), via github.com/DrCheeseFace/mahjonging; class ids remapped."
    ),
}
ATTRIBUTION = ATTRIBUTIONS["chinese-mahjong-rf"]


def shared_dir() -> Path:
    env = os.environ.get("PAISCAN_SHARED")
    if env:
        return Path(env)
    root = Path(__file__).resolve().parents[1]
    for candidate in (root.parent / "shared", root / "shared", Path("/work/shared")):
        if candidate.is_dir():
            return candidate
    return root.parent / "shared"


def realdata_dir(name: str = "chinese-mahjong-rf") -> Path:
    """The folder of one set of the supplement."""
    return shared_dir() / "realdata" / name


def realdata_dirs() -> list[Path]:
    """The folders of every set of the supplement present here."""
    return [d for name in REALDATA_SETS if (d := realdata_dir(name)).is_dir()]


def _folders(root: Path | None) -> list[Path]:
    """``root`` alone, or every set of the supplement when it is ``None``."""
    return [root] if root is not None else realdata_dirs()


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
    #: the set's folder name (``riichi-mahjong-rf``…); empty for a folder outside the supplement
    source: str = ""
    #: a hard negative: a photo with no tile in it (keyboards, trays, desks), labelled with no box
    negative: bool = False


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


def source_photos(root: Path) -> dict[str, str]:
    """Image file name → the photo it was made from (``manifest.csv``'s ``source_photo``); empty
    when the manifest has no such column (each image is then a photo of its own)."""
    path = root / "manifest.csv"
    if not path.is_file():
        return {}
    with path.open(newline="") as f:
        return {Path(row["file"]).name: row["source_photo"] for row in csv.DictReader(f) if row.get("source_photo")}


def iter_realdata(root: Path | None = None) -> Iterator[LabelledImage]:
    """Every labelled image of one set (``root``), or of every set of the supplement, with its
    split (by source photo: :func:`source_photos`)."""
    for folder in _folders(root):
        images = folder / "images"
        if not images.is_dir():
            continue
        sources = source_photos(folder)
        for img in sorted(images.iterdir()):
            if img.suffix.lower() not in (".jpg", ".jpeg", ".png"):
                continue
            lab = folder / "labels" / (img.stem + ".txt")
            if not lab.exists():
                continue
            classes = [int(float(parts[0])) for line in lab.read_text().splitlines() if len(parts := line.split()) >= 5]
            yield LabelledImage(
                img,
                lab,
                split_of(sources.get(img.name, img.name)),
                not placeholder_classes(classes),
                folder.name if folder.name in REALDATA_SETS else "",
                not classes,
            )


def source_kinds(root: Path | None = None) -> dict[str, str]:
    """Image file name → its ``source_kind`` in the supplement's ``manifest.csv`` (``hand_photo``:
    a hand on a rack, ``phone_photo_IMG``: trays and tables); empty when there is no manifest."""
    out: dict[str, str] = {}
    for folder in _folders(root):
        path = folder / "manifest.csv"
        if path.is_file():
            with path.open(newline="") as f:
                out.update({Path(row["file"]).name: row.get("source_kind", "") for row in csv.DictReader(f)})
    return out


def photos_with_dropped_boxes(root: Path | None = None) -> set[str]:
    """The image file names whose flower and season boxes were removed (``dropped_boxes.csv``):
    tiles in view without a label, so no clean negative."""
    out: set[str] = set()
    for folder in _folders(root):
        path = folder / "dropped_boxes.csv"
        if path.is_file():
            with path.open(newline="") as f:
                out |= {Path(row["file"]).name for row in csv.DictReader(f)}
    return out


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
