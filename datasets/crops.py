"""The classifier's tile crops as ``paiscan synth --crops`` writes them, and as a model reads them;
and a real plain five turned all red (:func:`all_red_face`), a red five the real sets do not show.

Shared by training (:mod:`paiscan.datasets.train_classifier`), quantization's calibration
(:mod:`paiscan.datasets.quantize`) and the benchmarks, so that none of them imports another for it.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from paiscan.datasets.synth.io import crop_margins, crop_rng
from paiscan.scoring.tiles import BACK
from paiscan.vision.models import cut_window

#: the input (width, height) a recipe trains at unless it says otherwise; the runtime reads a
#: model's input size from its file
INPUT_SIZE = (48, 64)
#: the 37 faces (34 kinds + red 0m 0p 0s) and the back (contract id 37): the classifier reads each
#: localized tile at full resolution, so it, not the low-resolution localizer, has the last word on
#: face down (a white dragon or a far tile is easily taken for a back at the localizer's 384 px)
N_CLASSES = 38


def crop_angles(meta: dict[str, Any]) -> list[float]:
    """The angle of each face in the crops ``paiscan synth --crops`` cut from one render (crop
    ``k`` of the render is ``[k]``; NaN for face-down tiles): the face's angle in the photo, less
    90° where the crop was turned. The margins are drawn again from the render's seed exactly as
    :func:`paiscan.datasets.synth.io.crop_tiles` drew them."""
    size = (int(meta["width"]), int(meta["height"]))
    boxes = meta["boxes"]
    out: list[float] = []
    for i, margins in crop_margins([b["box"] for b in boxes], crop_rng(int(meta["seed"]))):
        b = boxes[i]
        turned = cut_window(b["box"], margins, size)[4]
        out.append(float("nan") if b.get("face_down") else float(b["angle_deg"]) + (90.0 if turned else 0.0))
    return out


#: a back this light (every BGR channel) is white: earlier renders drew some, now left out
WHITE_BACK_MIN = 150


def synth_crop_files(d: Path) -> Iterator[tuple[Path, int, float]]:
    """The tile crops of one ``paiscan synth --crops`` folder: (file, class id, the face's angle in
    the crop from :func:`crop_angles`, NaN without the render's meta). Face-down crops of renders
    with white backs (made before the renderer dropped them) are left out: such a back is a blank
    white dragon face down."""
    for f, c, a, _group, _cut in synth_crop_entries(d):
        yield f, c, a


#: a render's box whose tile the frame cuts by this share or more is a cut tile (``cut_weight``)
CUT_TRUNCATED = 0.05


def synth_crop_entries(d: Path) -> Iterator[tuple[Path, int, float, str, bool]]:
    """:func:`synth_crop_files` with each crop's group in its render (``hand``, ``dora``, ...;
    empty without the render's meta) and whether the frame cuts its tile (:data:`CUT_TRUNCATED`)."""
    crops = d / "crops"
    if not crops.is_dir():
        return
    angles: dict[str, list[float]] = {}
    groups: dict[str, list[str]] = {}
    cut: dict[str, list[bool]] = {}
    white: dict[str, bool] = {}
    for cls_dir in sorted(crops.iterdir()):
        if not cls_dir.name.isdigit() or int(cls_dir.name) >= N_CLASSES:
            continue
        for f in sorted(cls_dir.glob("*.jpg")):
            name, _, k = f.stem.rpartition("_")
            if name not in angles:
                meta_path = d / "meta" / f"{name}.json"
                meta = json.loads(meta_path.read_text()) if meta_path.is_file() else {}
                angles[name] = crop_angles(meta) if meta else []
                groups[name] = [str(b.get("group", "")) for b in meta.get("boxes", [])]
                cut[name] = [float(b.get("truncated", 0.0)) >= CUT_TRUNCATED for b in meta.get("boxes", [])]
                white[name] = min(meta.get("style", {}).get("back_bgr", [0])) >= WHITE_BACK_MIN
            if int(cls_dir.name) == BACK and white[name]:
                continue
            i = int(k)
            yield (
                f,
                int(cls_dir.name),
                angles[name][i] if i < len(angles[name]) else float("nan"),
                groups[name][i] if i < len(groups[name]) else "",
                i < len(cut[name]) and cut[name][i],
            )


def read_crop_folder(d: Path) -> tuple[list[np.ndarray], list[int], list[float]]:
    """The crops of one ``paiscan synth --crops`` folder as images, class ids and face angles (for
    the benchmarks); ``SystemExit`` naming the folder when it has none."""
    crops, truth, angles = [], [], []
    for f, c, a in synth_crop_files(d):
        img = cv2.imread(str(f))
        if img is not None:
            crops.append(img)
            truth.append(c)
            angles.append(a)
    if not crops:
        raise SystemExit(f"no crops under {d / 'crops'} (make them with paiscan synth --crops)")
    return crops, truth, angles


def to_tensor_batch(imgs: Sequence[np.ndarray]) -> np.ndarray:
    arr = np.stack(imgs)[:, :, :, ::-1].transpose(0, 3, 1, 2).astype(np.float32) / 255.0
    return np.ascontiguousarray(arr)


def model_input(images: Sequence[np.ndarray], size: tuple[int, int] = INPUT_SIZE) -> np.ndarray:
    """Crops (BGR, any size) as the input batch of a model taking ``size`` (width, height),
    resized as :func:`evaluate` and the runtime resize them."""
    return to_tensor_batch([cv2.resize(im, size, interpolation=cv2.INTER_AREA) for im in images])


# ------------------------------------------------------------------ where no tile is: not-a-tile crops
def table_boxes(meta: dict[str, Any], rng: random.Random, n: int, tries: int = 30) -> list[tuple[float, ...]]:
    """Up to ``n`` tile-sized boxes on a render's table clear of every tile (a tenth of a tile
    around each kept free too): the sizes of the render's own tiles, scaled 0.8-1.25, either way
    up.

    >>> meta = {"width": 400, "height": 300, "boxes": [{"box": [100, 100, 140, 150]}]}
    >>> boxes = table_boxes(meta, random.Random(0), 3)
    >>> len(boxes), all(b[2] <= 100 - 4 or b[0] >= 140 + 4 or b[3] <= 100 - 5 or b[1] >= 150 + 5 for b in boxes)
    (3, True)
    """
    tiles = [b["box"] for b in meta["boxes"]]
    if not tiles:
        return []
    w, h = float(meta["width"]), float(meta["height"])
    out: list[tuple[float, ...]] = []
    for _ in range(n * tries):
        if len(out) >= n:
            break
        x1, y1, x2, y2 = rng.choice(tiles)
        bw, bh = (x2 - x1) * rng.uniform(0.8, 1.25), (y2 - y1) * rng.uniform(0.8, 1.25)
        if rng.random() < 0.5:
            bw, bh = bh, bw
        if bw >= w or bh >= h:
            continue
        x, y = rng.uniform(0, w - bw), rng.uniform(0, h - bh)
        if any(
            x < t[2] + 0.1 * (t[2] - t[0])
            and x + bw > t[0] - 0.1 * (t[2] - t[0])
            and y < t[3] + 0.1 * (t[3] - t[1])
            and y + bh > t[1] - 0.1 * (t[3] - t[1])
            for t in tiles
        ):
            continue
        out.append((x, y, x + bw, y + bh))
    return out


def distractor_boxes(meta: dict[str, Any], rng: random.Random, n: int) -> list[tuple[float, ...]]:
    """Boxes on the render's distractors (``meta["distractors"]``: keyboards, key caps, LED digits,
    chips, cards, phones, dice; never tiles): a distractor about a tile's size or smaller whole, a
    larger one by up to ``n`` tile-sized boxes inside it (a key of a keyboard, a digit of a panel),
    where the localizer takes such things for tiles.

    >>> meta = {"boxes": [{"box": [0, 0, 40, 50]}], "distractors": [{"kind": "dice", "box": [100, 100, 130, 130]},
    ...         {"kind": "keyboard", "box": [200, 100, 600, 300]}]}
    >>> boxes = distractor_boxes(meta, random.Random(0), 3)
    >>> boxes[0], len(boxes), all(200 <= b[0] and b[2] <= 600 and 100 <= b[1] and b[3] <= 300 for b in boxes[1:])
    ((100.0, 100.0, 130.0, 130.0), 4, True)
    """
    tiles = [b["box"] for b in meta.get("boxes", [])]
    if not tiles:
        return []
    tw = sorted(b[2] - b[0] for b in tiles)[len(tiles) // 2]
    th = sorted(b[3] - b[1] for b in tiles)[len(tiles) // 2]
    out: list[tuple[float, ...]] = []
    for d in meta.get("distractors", []):
        x1, y1, x2, y2 = (float(v) for v in d["box"])
        if (x2 - x1) * (y2 - y1) <= 2.5 * tw * th:
            out.append((x1, y1, x2, y2))
            continue
        for _ in range(n):
            bw, bh = tw * rng.uniform(0.8, 1.25), th * rng.uniform(0.8, 1.25)
            if rng.random() < 0.5:
                bw, bh = bh, bw
            bw, bh = min(bw, x2 - x1), min(bh, y2 - y1)
            x, y = rng.uniform(x1, x2 - bw), rng.uniform(y1, y2 - bh)
            out.append((x, y, x + bw, y + bh))
    return out


# ------------------------------------------------------------------ red fives from plain ones
#: the red an all-red face takes where its plain five shows no red of its own (OpenCV 8-bit Lab)
FALLBACK_RED_LAB = (100.0, 178.0, 152.0)


def all_red_face(face: np.ndarray) -> np.ndarray:
    """A face-tight crop of a plain five (BGR) with its ink turned red, as the set's red five would
    look: each pixel moves from the face's colour towards red as far as it stands out from the face
    (:math:`\\Delta E` 12 to 32), keeping its relative darkness. The red is the set's own: the median
    of the face's red ink (the 5p's and 5s's centres, 萬), else :data:`FALLBACK_RED_LAB`.

    >>> face = np.full((40, 30, 3), 230, np.uint8); face[10:30, 10:20] = (20, 20, 20)
    >>> out = all_red_face(face)
    >>> bool(out[20, 15, 2] > out[20, 15, 1] + 40), bool(abs(int(out[2, 2, 2]) - 230) < 8)
    (True, True)
    """
    lab = cv2.cvtColor(face, cv2.COLOR_BGR2LAB).astype(np.float32)
    light = lab[..., 0]
    body = np.median(lab[light >= np.quantile(light, 0.6)], 0)
    diff = lab - body
    distance = np.linalg.norm(diff, axis=2)
    ink = distance > 22
    if not ink.any():
        return face.copy()
    da, db = diff[..., 1], diff[..., 2]
    red_ink = ink & (da > 8) & (da > np.abs(db) * 0.8)
    red = np.median(lab[red_ink], 0) if red_ink.sum() >= 8 else np.array(FALLBACK_RED_LAB, np.float32)
    target = np.empty_like(lab)
    target[..., 0] = red[0] + (light - light[ink].mean()) * 0.5
    target[..., 1], target[..., 2] = red[1], red[2]
    strength = np.clip((distance - 12.0) / 20.0, 0.0, 1.0)[..., None]
    out = lab * (1.0 - strength) + target * strength
    return cv2.cvtColor(np.clip(out, 0, 255).astype(np.uint8), cv2.COLOR_LAB2BGR)


def with_all_red_five(img: np.ndarray, box: Sequence[float]) -> np.ndarray:
    """``img`` with the face in ``box`` (face-tight, pixels) turned all red (:func:`all_red_face`)."""
    x1, y1, x2, y2 = (round(v) for v in box)
    x1, y1, x2, y2 = max(0, x1), max(0, y1), min(img.shape[1], x2), min(img.shape[0], y2)
    out = img.copy()
    if x2 - x1 >= 4 and y2 - y1 >= 4:
        out[y1:y2, x1:x2] = all_red_face(img[y1:y2, x1:x2])
    return out
