"""Train the tile-face classifier (a small CNN of our own) and export it to ONNX.

Data: renderer crops (``paiscan synth --crops``: ``DIR/crops/CLASSID/*.jpg``) plus face crops from
the real-photo supplement's training split. Two outputs: the class, and the angle the face's top
points to in the crop (:func:`paiscan.vision.models.face_angles`), learnt from the renders' face corners
(real crops carry no angle and teach the class only). Heavy augmentation: all four 90° turns (squeezed back
to the portrait input, as the runtime does with near-square boxes), 180° turns, blur, colour,
noise, JPEG and small perspective. Resumable: a checkpoint is written after every epoch.
Needs the ``train`` extra (torch).
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import cv2
import numpy as np

# the crop folders and the model's input (shared with quantize); some imported from here by
# tests/test_synth.py and benchmarks/eval_classifier.py
from paiscan.datasets.crops import (  # noqa: F401
    INPUT_SIZE,
    WHITE_BACK_MIN,
    all_red_face,
    crop_angles,
    distractor_boxes,
    model_input,
    read_crop_folder,
    synth_crop_entries,
    synth_crop_files,
    table_boxes,
    to_tensor_batch,
    with_all_red_five,
)
from paiscan.datasets.evaluate import iou
from paiscan.datasets.quantize import quantize_classifier
from paiscan.datasets.realdata import iter_realdata, photos_with_dropped_boxes, read_yolo_labels, source_kinds
from paiscan.scoring.tiles import RED_5M, RED_OF_FIVE
from paiscan.vision.models import MODELS_DIR, NOT_A_TILE, Localizer, cut_tile

#: the outputs: the classes (:data:`paiscan.datasets.crops.N_CLASSES`) and
#: :data:`paiscan.vision.models.NOT_A_TILE`, for crops that show no tile at all
N_OUTPUTS = NOT_A_TILE + 1
#: one training crop: image, class id, the face's angle in the crop in degrees (NaN: unknown)
Crop = tuple[np.ndarray, int, float]


@dataclass(frozen=True)
class ClassifierRecipe:
    """What a training run does (written into the model card)."""

    epochs: int = 12
    batch: int = 128
    lr: float = 3e-3
    seed: int = 0
    real_weight: int = 3  # each real training crop is seen this many times per epoch
    threads: int = 2
    samples_per_epoch: int = 16000  # a random subset per epoch keeps an epoch to minutes on a CPU
    init_checkpoint: str | None = None  # start from another run's weights (a fine-tuning stage)
    init_onnx: str | None = None  # start from a committed classifier.onnx (batch norms rebuilt)
    #: weight of the orientation loss (mean squared error of sin a, cos a, sin 2a, cos 2a) against
    #: the class loss
    orient_weight: float = 1.0
    #: each synthetic crop of a tile lying sideways in the photo (its face turned about 90° in the
    #: crop) is seen this many times per epoch: such tiles mark the calls, and a face read upright
    #: there breaks a meld
    sideways_weight: int = 1
    #: each synthetic crop of a manzu tile (1m-9m, red 5m) is seen this many times per epoch: the
    #: character numerals 一 二 三 五 on small or blurred tiles are most of the misread tiles of
    #: whole hands
    manzu_weight: int = 1
    #: each synthetic crop of a dora indicator or a gari (nuki) tile is seen this many times per
    #: epoch: such a tile lies among backs on the dead wall or alone, is misread about twice as
    #: often as a hand tile of its size, and any tile is a valid indicator, so no reading of the
    #: hand can catch the slip: most of the silently wrong hands were such misreads
    indicator_weight: int = 1
    #: each synthetic crop of a tile the photo's frame cuts (its render's box ``truncated`` by at
    #: least :data:`~paiscan.datasets.crops.CUT_TRUNCATED`; the hand's, the melds', the indicators',
    #: not the background's)
    #: is seen this many times per epoch: an indicator cut by the frame is read right 0.87 of the
    #: time against 0.996 in frame, and they are 2 % of the crops
    cut_weight: int = 1
    #: the network's input (width, height): it is fully convolutional up to a global pooling, so a
    #: stage may start from weights trained at another size
    input_size: tuple[int, int] = INPUT_SIZE
    #: crops of no tile (:data:`paiscan.vision.models.NOT_A_TILE`) cut from each render's table, where no
    #: tile lies, at a tile's size; the real training photos of a hand on a rack add the localizer's
    #: false tiles (felt, the rack's edge, floorboards). 0: none (the output stays unlearnt)
    not_a_tile_per_image: int = 0
    #: learn the not-a-tile output alone (its row of the class head), every other weight kept: the
    #: tiles read exactly as with the starting weights, and a crop of no tile comes out doubtful
    only_not_a_tile: bool = False
    #: learn the rows of the fives, the red fives and 6p alone (:data:`FIVE_ROWS`), every other weight
    #: kept: what is a red five is learnt again (with ``real_red_fives`` and renders of red fives
    #: without the art's dot) while every other class reads as with the starting weights
    only_five_rows: bool = False
    #: also cut each real training tile where the committed localizer boxes it (matched to its
    #: face-tight label at IoU 0.3): the runtime reads the localizer's box, which takes in more of
    #: the tile's body than the label, and on the rack photos one set's 2p read as 4p from it
    real_runtime_boxes: bool = False
    #: also cut each real training crop of a plain five once more with its face's ink turned the
    #: set's own red (:func:`all_red_face`) and labelled the red five: neither real set holds a red
    #: five, and the art's red fives carry a red dot that real ones lack
    real_red_fives: bool = False
    #: where to train: "cpu", or a CUDA device ("cuda", "cuda:0", "0") when a GPU is lent
    device: str = "cpu"
    #: processes making the augmented views (0: this process, as on a 2-core CPU; a GPU outruns
    #: one process's augmentation); the views are the same whatever the count
    workers: int = 0


def _load(path: Path) -> np.ndarray | None:
    img = cv2.imread(str(path), cv2.IMREAD_COLOR)
    return img


#: the renders' groups (``meta/*.json`` ``boxes[].group``) of the tiles that set dora: the face-up
#: indicators and the gari (nuki) tiles
INDICATOR_GROUPS = frozenset({"dora", "nuki"})


def collect_synth(dirs: Sequence[Path], size: tuple[int, int] = INPUT_SIZE, threads: int = 1) -> list[Crop]:
    """The crops of synth folders, kept at twice the input ``size`` (room for augmentation), read
    on ``threads`` threads (the same list whatever the count)."""
    return [crop for crop, _group in collect_synth_grouped(dirs, size, threads)]


#: the group of a crop in its render (``hand``, ``dora``, ...), with ``+cut`` where the frame cuts
#: its tile (:func:`synth_crop_entries`)
CUT_SUFFIX = "+cut"


def collect_synth_grouped(
    dirs: Sequence[Path],
    size: tuple[int, int] = INPUT_SIZE,
    threads: int = 1,
) -> list[tuple[Crop, str]]:
    """:func:`collect_synth` with each crop's group in its render (:func:`synth_crop_entries`),
    :data:`CUT_SUFFIX` added where the frame cuts its tile."""
    files = [entry for d in dirs for entry in synth_crop_entries(d)]

    def read(entry: tuple[Path, int, float, str, bool]) -> tuple[Crop, str] | None:
        img = _load(entry[0])
        if img is None or min(img.shape[:2]) < 6:
            return None
        crop = (cv2.resize(img, (size[0] * 2, size[1] * 2), interpolation=cv2.INTER_AREA), entry[1], entry[2])
        return crop, entry[3] + (CUT_SUFFIX if entry[4] else "")

    return [item for item in _map(read, files, threads) if item is not None]


def _map(fn: Any, items: Sequence[Any], threads: int) -> list[Any]:
    """``fn`` over ``items`` in order, on ``threads`` threads (OpenCV's decoding lets go of the GIL)."""
    if threads <= 1:
        return [fn(item) for item in items]
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(threads) as pool:
        return list(pool.map(fn, items, chunksize=64))


def _cut_for_training(img: np.ndarray, box: Sequence[float], size: tuple[int, int]) -> np.ndarray | None:
    """The tile cut from ``img`` as the runtime cuts it, kept at twice the input ``size`` (room for
    augmentation); ``None`` for a sliver under 6 px."""
    crop = cut_tile(img, box)
    if min(crop.shape[:2]) < 6:
        return None
    return cv2.resize(crop, (size[0] * 2, size[1] * 2), interpolation=cv2.INTER_AREA)


def collect_table(
    dirs: Sequence[Path], per_image: int, size: tuple[int, int] = INPUT_SIZE, seed: int = 0, threads: int = 1
) -> list[Crop]:
    """:data:`~paiscan.vision.models.NOT_A_TILE` crops: :func:`table_boxes` of each render in ``dirs``
    and its distractors (:func:`distractor_boxes`), cut as the runtime cuts a tile. The boxes are
    drawn in order, the renders read on ``threads`` threads (the same crops whatever the count)."""
    rng = random.Random(seed)
    jobs: list[tuple[Path, list[tuple[float, ...]]]] = []
    for d in dirs:
        for meta_path in sorted((d / "meta").glob("*.json")):
            img_path = d / "images" / f"{meta_path.stem}.jpg"
            if not img_path.is_file():
                continue
            meta = json.loads(meta_path.read_text())
            boxes = table_boxes(meta, rng, per_image) + distractor_boxes(meta, rng, per_image)
            if boxes:
                jobs.append((img_path, boxes))

    def cut(job: tuple[Path, list[tuple[float, ...]]]) -> list[Crop]:
        img = _load(job[0])
        if img is None:
            return []
        return [
            (crop, NOT_A_TILE, float("nan"))
            for box in job[1]
            if (crop := _cut_for_training(img, box, size)) is not None
        ]

    return [crop for crops in _map(cut, jobs, threads) for crop in crops]


def collect_real_false_tiles(split: str, size: tuple[int, int] = INPUT_SIZE, max_iou: float = 0.05) -> list[Crop]:
    """:data:`~paiscan.vision.models.NOT_A_TILE` crops from the real photos of a hand on a rack and
    the hard negatives (keyboards, trays, desks; one split): the committed localizer's boxes that
    overlap no labelled tile (IoU under ``max_iou``). Only those photos: in tray photos background
    tiles are often unlabelled, and the photos whose flower tiles were unlabelled
    (``dropped_boxes.csv``) are left out too."""
    kinds = source_kinds()
    dropped = photos_with_dropped_boxes()
    localizer = Localizer(MODELS_DIR / "localizer.onnx", conf=0.05)
    out: list[Crop] = []
    for item in iter_realdata():
        wanted = item.negative or (kinds.get(item.image.name) == "hand_photo" and item.image.name not in dropped)
        if item.split != split or not wanted:
            continue
        img = cv2.imread(str(item.image))
        if img is None:
            continue
        h, w = img.shape[:2]
        labels = [b for _, b in read_yolo_labels(item.labels, w, h)]
        out += [
            (crop, NOT_A_TILE, float("nan"))
            for t in localizer(img)
            if all(iou(t.box, b) < max_iou for b in labels)
            and (crop := _cut_for_training(img, t.box, size)) is not None
        ]
    return out


def collect_real(
    split: str, size: tuple[int, int] = INPUT_SIZE, runtime_boxes: bool = False, red_fives: bool = False
) -> list[Crop]:
    """Face crops of the real-photo supplement (one split), cut as the runtime cuts them; not from
    the photos whose classes are a placeholder (``LabelledImage.classes_reliable``). With
    ``runtime_boxes``, each labelled tile the committed localizer finds (at IoU 0.3 with the
    face-tight label) is cut a second time at the localizer's box, labelled with the label's class.
    With ``red_fives``, each plain five is cut once more turned all red (:func:`with_all_red_five`)
    and labelled its red five."""
    from paiscan.datasets.evaluate import LOOSE_IOU, match

    localizer = Localizer(MODELS_DIR / "localizer.onnx", conf=0.45) if runtime_boxes else None
    out: list[Crop] = []
    for item in iter_realdata():
        if item.split != split or not item.classes_reliable:
            continue
        img = cv2.imread(str(item.image))
        if img is None:
            continue
        h, w = img.shape[:2]
        labels = [(c, box) for c, box in read_yolo_labels(item.labels, w, h) if c < 34]
        out += [(crop, c, float("nan")) for c, box in labels if (crop := _cut_for_training(img, box, size)) is not None]
        if red_fives:
            out += [
                (crop, RED_OF_FIVE[c], float("nan"))
                for c, box in labels
                if c in RED_OF_FIVE and (crop := _cut_for_training(with_all_red_five(img, box), box, size)) is not None
            ]
        if localizer is not None:
            found = [t.box for t in localizer(img)]
            out += [
                (crop, labels[i][0], float("nan"))
                for i, j in match([b for _, b in labels], found, LOOSE_IOU)
                if (crop := _cut_for_training(img, found[j], size)) is not None
            ]
    return out


def augment(img: np.ndarray, rng: random.Random, size: tuple[int, int] = INPUT_SIZE) -> tuple[np.ndarray, float]:
    """One random view of a crop, at the model's input ``size`` (BGR uint8), and the degrees it was
    turned by (clockwise), which the face's angle turns by too."""
    h, w = img.shape[:2]
    r = rng.random()
    turn = 0.0
    if r < 0.25:
        img, turn = cv2.rotate(img, cv2.ROTATE_180), 180.0
    elif r < 0.35:
        turn = rng.choice([90.0, -90.0])
        img = cv2.rotate(img, cv2.ROTATE_90_CLOCKWISE if turn > 0 else cv2.ROTATE_90_COUNTERCLOCKWISE)
    h, w = img.shape[:2]
    # perspective / scale / shift jitter
    j = 0.08
    src = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    dst = src + np.array([[rng.uniform(-j, j) * w, rng.uniform(-j, j) * h] for _ in range(4)], np.float32)
    m = cv2.getPerspectiveTransform(src, dst)
    img = cv2.warpPerspective(img, m, (w, h), borderMode=cv2.BORDER_REPLICATE)
    img = cv2.resize(img, size, interpolation=cv2.INTER_AREA)
    f = img.astype(np.float32)
    # colour: white balance, brightness, contrast, a little desaturation
    f *= np.array([rng.uniform(0.85, 1.15) for _ in range(3)], np.float32)
    f = (f - 128) * rng.uniform(0.7, 1.3) + 128 + rng.uniform(-30, 30)
    if rng.random() < 0.2:
        g = f.mean(2, keepdims=True)
        f = g + (f - g) * rng.uniform(0.3, 1.0)
    if rng.random() < 0.3:
        k = rng.choice([3, 5])
        f = np.asarray(cv2.GaussianBlur(f, (k, k), 0), np.float32)
    if rng.random() < 0.4:
        f += np.random.default_rng(rng.getrandbits(32)).normal(0, rng.uniform(2, 10), f.shape).astype(np.float32)
    out = np.clip(f, 0, 255).astype(np.uint8)
    if rng.random() < 0.3:
        ok, enc = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, rng.randint(30, 90)])
        if ok:
            out = cv2.imdecode(enc, cv2.IMREAD_COLOR)
    return out, turn


def sideways_crops(crops: Sequence[Crop], within_deg: float = 30.0) -> list[Crop]:
    """The crops whose face lies within ``within_deg`` of sideways (angle ±90°) in the crop.

    >>> img = np.zeros((2, 2, 3), np.uint8)
    >>> [c[2] for c in sideways_crops([(img, 1, 85.0), (img, 1, 3.0), (img, 1, -100.0), (img, 1, float("nan"))])]
    [85.0, -100.0]
    """
    return [c for c in crops if not np.isnan(c[2]) and abs(abs((c[2] + 180.0) % 360.0 - 180.0) - 90.0) <= within_deg]


def manzu_crops(crops: Sequence[Crop]) -> list[Crop]:
    """The crops of manzu tiles (contract ids 0-8 and the red 5m, 34).

    >>> img = np.zeros((2, 2, 3), np.uint8)
    >>> [c[1] for c in manzu_crops([(img, 0, 0.0), (img, 9, 0.0), (img, 34, 0.0), (img, 8, 0.0)])]
    [0, 34, 8]
    """
    return [c for c in crops if 0 <= c[1] <= 8 or c[1] == RED_5M]


def weighted_training_crops(
    synth: Sequence[tuple[Crop, str]], real: Sequence[Crop], recipe: ClassifierRecipe
) -> list[Crop]:
    """One epoch's pool: the synthetic crops (with their render groups) and the real ones, each
    repeated as the recipe weighs it. A crop in several weighted kinds (a sideways manzu
    indicator) is repeated for each.

    >>> img = np.zeros((2, 2, 3), np.uint8)
    >>> synth = [((img, 0, 90.0), "dora"), ((img, 9, 0.0), "hand"), ((img, 20, 0.0), "nuki+cut"),
    ...          ((img, 21, 0.0), "background+cut")]
    >>> recipe = ClassifierRecipe(real_weight=2, sideways_weight=2, indicator_weight=3, cut_weight=2)
    >>> pool = weighted_training_crops(synth, [(img, 5, float("nan"))], recipe)
    >>> sorted(c[1] for c in pool)
    [0, 0, 0, 0, 5, 5, 9, 20, 20, 20, 20, 21]
    """
    crops = [crop for crop, _group in synth]
    indicators = [crop for crop, group in synth if group.removesuffix(CUT_SUFFIX) in INDICATOR_GROUPS]
    cut = [crop for crop, group in synth if group.endswith(CUT_SUFFIX) and group != "background" + CUT_SUFFIX]
    return (
        crops
        + list(real) * recipe.real_weight
        + sideways_crops(crops) * (recipe.sideways_weight - 1)
        + manzu_crops(crops) * (recipe.manzu_weight - 1)
        + indicators * (recipe.indicator_weight - 1)
        + cut * (recipe.cut_weight - 1)
    )


def orientation_target(angle_deg: float) -> np.ndarray:
    """``sin a, cos a, sin 2a, cos 2a`` (NaN where the angle is unknown), the orientation output's target."""
    a = np.radians(angle_deg)
    return np.array([np.sin(a), np.cos(a), np.sin(2 * a), np.cos(2 * a)], np.float32)


def build_model() -> Any:
    """The classifier network: a small VGG-like trunk, a class head and an orientation head."""
    import torch.nn as nn

    def block(cin: int, cout: int, pool: bool = True) -> list[Any]:
        layers: list[Any] = [
            nn.Conv2d(cin, cout, 3, padding=1, bias=False),
            nn.BatchNorm2d(cout),
            nn.ReLU(inplace=True),
            nn.Conv2d(cout, cout, 3, padding=1, bias=False),
            nn.BatchNorm2d(cout),
            nn.ReLU(inplace=True),
        ]
        if pool:
            layers.append(nn.MaxPool2d(2))
        return layers

    class TileNet(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.features = nn.Sequential(
                *block(3, 24),
                *block(24, 48),
                *block(48, 96),
                *block(96, 160, pool=False),
                nn.AdaptiveAvgPool2d(1),
                nn.Flatten(),
                nn.Dropout(0.2),
            )
            self.classify = nn.Linear(160, N_OUTPUTS)
            self.orient = nn.Sequential(nn.Linear(160, 64), nn.ReLU(inplace=True), nn.Linear(64, 4))

        def forward(self, x: Any) -> tuple[Any, Any]:
            f = self.features(x)
            return self.classify(f), self.orient(f)

    return TileNet()


#: the class head's rows :attr:`ClassifierRecipe.only_five_rows` learns: 5m 5p 5s, their red fives,
#: and 6p, which an all-red 5p was read as
FIVE_ROWS: tuple[int, ...] = (*RED_OF_FIVE, *RED_OF_FIVE.values(), 14)


def _rows_only(model: Any, rows: Sequence[int]) -> list[Any]:
    """Freeze ``model`` but the class head, and let only its ``rows`` learn (the other rows'
    gradients are zeroed; with no weight decay, Adam leaves them as they are); the parameters to
    optimize."""
    import torch

    for p in model.parameters():
        p.requires_grad_(False)
    mask = torch.zeros(model.classify.out_features, 1)
    mask[list(rows)] = 1.0
    model.classify.weight.requires_grad_(True)
    model.classify.bias.requires_grad_(True)
    model.classify.weight.register_hook(lambda g: g * mask)
    model.classify.bias.register_hook(lambda g: g * mask[:, 0])
    return [model.classify.weight, model.classify.bias]


def load_single_head(model: Any, state: dict[str, Any]) -> None:
    """Load a state dict of the earlier one-output network (an ``nn.Sequential`` whose last layer
    was the class head): its trunk and class head; the orientation head keeps its initial weights."""
    n_trunk = len(model.features)
    mapped = {}
    for key, value in state.items():
        idx, _, rest = key.partition(".")
        if idx.isdigit() and int(idx) < n_trunk:
            mapped[f"features.{key}"] = value
        elif idx.isdigit():
            mapped[f"classify.{rest}"] = value
        else:
            mapped[key] = value
    if "classify.weight" in mapped:
        mapped.update(
            fit_class_head({k: v for k, v in mapped.items() if k.startswith("classify.")}, model.classify.out_features)
        )
    missing, unexpected = model.load_state_dict(mapped, strict=False)
    if unexpected or any(not k.startswith("orient.") for k in missing):
        raise ValueError(f"weights do not fit the network (missing {missing}, unexpected {unexpected})")


def fit_class_head(state: dict[str, Any], n_classes: int = N_OUTPUTS) -> dict[str, Any]:
    """``state`` (a :class:`TileNet` state dict) with its class head grown to ``n_classes`` rows
    (:func:`paiscan.datasets.onnx_init.grown_rows`): the grown network reads the old classes exactly as
    before and learns the new ones."""
    from paiscan.datasets.onnx_init import grown_rows

    w, b = grown_rows(state["classify.weight"], state["classify.bias"], n_classes)
    return {**state, "classify.weight": w, "classify.bias": b}


def load_weights(model: Any, state: dict[str, Any]) -> None:
    """Load a state dict of this network or of an earlier one: the one-output network
    (:func:`load_single_head`) or a class head without the back class (:func:`fit_class_head`)."""
    if not any(k.startswith("features.") for k in state):
        load_single_head(model, state)
        return
    model.load_state_dict(fit_class_head(state, model.classify.out_features))


def _accuracy(predict: Any, data: Sequence[Crop], size: tuple[int, int] = INPUT_SIZE) -> float:
    """Share of ``data`` whose label ``predict`` (input batch of ``size`` → class ids) gets right."""
    if not data:
        return float("nan")
    right = 0
    for i in range(0, len(data), 256):
        chunk = data[i : i + 256]
        pred = predict(model_input([c[0] for c in chunk], size))
        right += int(sum(int(p) == c[1] for p, c in zip(pred, chunk, strict=True)))
    return right / len(data)


def axis_error(predict: Any, data: Sequence[Crop], size: tuple[int, int] = INPUT_SIZE) -> float:
    """Median error (degrees, 0..90) of the face axis ``predict`` (input batch → orientation
    output) gives, over the crops with a known angle."""
    known = [c for c in data if not np.isnan(c[2])]
    if not known:
        return float("nan")
    errs: list[float] = []
    for i in range(0, len(known), 256):
        chunk = known[i : i + 256]
        errs += axis_errors(predict(model_input([c[0] for c in chunk], size)), [c[2] for c in chunk]).tolist()
    return float(np.median(errs))


def axis_errors(orientation: np.ndarray, truth_deg: Sequence[float]) -> np.ndarray:
    """How far (degrees, 0..90) the face axis of each orientation output ``[N, 4]`` is from the
    true face angle, up and down alike."""
    axis = np.degrees(np.arctan2(orientation[:, 2], orientation[:, 3])) / 2
    return np.abs(((axis - np.asarray(truth_deg, dtype=float) + 90) % 180) - 90)


def torch_device_name(device: str) -> str:
    """``device`` as torch names it: a bare number (as ultralytics and ``--device`` take it) is
    that CUDA device.

    >>> torch_device_name("0"), torch_device_name("cuda"), torch_device_name("cpu")
    ('cuda:0', 'cuda', 'cpu')
    """
    return f"cuda:{device}" if device.isdigit() else device


def _outputs(model: Any, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The model's two outputs for an input batch, on whatever device the model is."""
    import torch

    logits, orient = model(torch.from_numpy(x).to(next(model.parameters()).device))
    return logits.cpu().numpy(), orient.cpu().numpy()


def evaluate(model: Any, data: Sequence[Crop], size: tuple[int, int] = INPUT_SIZE) -> float:
    import torch

    model.eval()
    with torch.no_grad():
        return _accuracy(lambda x: _outputs(model, x)[0].argmax(1), data, size)


def evaluate_axis(model: Any, data: Sequence[Crop], size: tuple[int, int] = INPUT_SIZE) -> float:
    import torch

    model.eval()
    with torch.no_grad():
        return axis_error(lambda x: _outputs(model, x)[1], data, size)


#: one training batch: the input, the class ids, the orientation targets
Batch = tuple[np.ndarray, np.ndarray, np.ndarray]


def _batch(views: Sequence[tuple[np.ndarray, int, np.ndarray]]) -> Batch:
    return (
        to_tensor_batch([v[0] for v in views]),
        np.array([v[1] for v in views], np.int64),
        np.stack([v[2] for v in views]),
    )


def _view(crop: Crop, rng: random.Random, size: tuple[int, int]) -> tuple[np.ndarray, int, np.ndarray]:
    """One augmented view of a crop: the image, its class, its face's orientation target."""
    img, turn = augment(crop[0], rng, size)
    return img, crop[1], orientation_target(crop[2] + turn)


class AugmentedViews:
    """Training crops seen through :func:`augment` in a ``torch`` DataLoader's worker processes.

    Item ``(epoch, i)`` is crop ``i``'s view for that epoch, drawn from a generator seeded by the
    run's seed, the epoch and ``i``, so the views do not depend on which worker makes them."""

    def __init__(self, crops: Sequence[Crop], size: tuple[int, int], seed: int) -> None:
        self.crops, self.size, self.seed = crops, size, seed

    def __len__(self) -> int:
        return len(self.crops)

    def __getitem__(self, key: tuple[int, int]) -> tuple[np.ndarray, int, np.ndarray]:
        epoch, i = key
        return _view(self.crops[i], random.Random(f"{self.seed}:{epoch}:{i}"), self.size)


def epoch_batches(
    train: Sequence[Crop], order: Sequence[int], steps: int, recipe: ClassifierRecipe, epoch: int, rng: random.Random
) -> Iterator[Batch]:
    """An epoch's ``steps`` batches of ``order``: augmented here, drawing on ``rng`` (no workers),
    or in ``recipe.workers`` processes (:class:`AugmentedViews`)."""
    chosen = order[: steps * recipe.batch]
    if not recipe.workers:
        for s in range(steps):
            part = chosen[s * recipe.batch : (s + 1) * recipe.batch]
            yield _batch([_view(train[i], rng, recipe.input_size) for i in part])
        return
    from torch.utils.data import DataLoader

    loader: Any = DataLoader(
        cast(Any, AugmentedViews(train, recipe.input_size, recipe.seed)),
        batch_size=recipe.batch,
        sampler=[(epoch, i) for i in chosen],
        num_workers=recipe.workers,
        collate_fn=_batch,
        prefetch_factor=4,
    )
    yield from loader


def train_classifier(
    synth_dirs: Sequence[Path], out: Path, recipe: ClassifierRecipe = ClassifierRecipe(), log: Any = print
) -> dict[str, Any]:
    """Train, export ``out/classifier.onnx`` and return the metrics (also written to ``out/metrics.json``)."""
    import torch
    import torch.nn as nn

    torch.manual_seed(recipe.seed)
    torch.set_num_threads(recipe.threads)
    if recipe.workers:
        cv2.setNumThreads(0)  # OpenCV's own threads and forked DataLoader workers do not mix
    rng = random.Random(recipe.seed)
    out.mkdir(parents=True, exist_ok=True)
    size = recipe.input_size
    threads = max(1, recipe.workers)
    grouped = collect_synth_grouped(synth_dirs, size, threads)
    real_train = collect_real("train", size, recipe.real_runtime_boxes, recipe.real_red_fives)
    real_hold = collect_real("holdout", size)
    if not grouped:
        raise SystemExit(f"no crops found under {[str(d) for d in synth_dirs]} (make them with paiscan synth --crops)")
    rng.shuffle(grouped)
    n_val = max(1, len(grouped) // 20)
    val = [crop for crop, _group in grouped[:n_val]]
    train = weighted_training_crops(grouped[n_val:], real_train, recipe)
    if recipe.not_a_tile_per_image:
        table = collect_table(synth_dirs, recipe.not_a_tile_per_image, size, recipe.seed, threads)
        rng.shuffle(table)
        false_tiles = collect_real_false_tiles("train", size)
        n_table_val = max(1, len(table) // 20)
        val, train = val + table[:n_table_val], train + table[n_table_val:] + false_tiles * recipe.real_weight
        log(
            f"not-a-tile crops: {len(table)} from the renders' tables ({n_table_val} to val), "
            f"{len(false_tiles)} real false tiles x{recipe.real_weight}"
        )
    log(
        f"crops: {len(train)} train ({len(real_train)} real x{recipe.real_weight}), {len(val)} synthetic val, "
        f"{len(real_hold)} real holdout"
    )
    model = build_model()
    ckpt = out / "checkpoint.pt"
    start = 0
    if recipe.init_checkpoint and not ckpt.exists():
        load_weights(model, torch.load(recipe.init_checkpoint, map_location="cpu", weights_only=False)["model"])
        log(f"starting from the weights of {recipe.init_checkpoint}")
    if recipe.init_onnx and not ckpt.exists():
        from paiscan.datasets.onnx_init import load_fused_onnx

        calib = torch.from_numpy(model_input([c[0] for c in train[:256]], size))
        load_fused_onnx(model, Path(recipe.init_onnx), calib)
        log(
            f"starting from {recipe.init_onnx} (batch norms rebuilt on {len(calib)} crops); "
            f"synth-val {evaluate(model, val, size):.4f}"
        )
    # the optimizer after the starting weights: loading an ONNX file rebuilds the batch norms, which a
    # model frozen for the not-a-tile row alone would no longer let it do
    rows_only = (NOT_A_TILE,) if recipe.only_not_a_tile else FIVE_ROWS if recipe.only_five_rows else ()
    if rows_only:
        opt = torch.optim.AdamW(_rows_only(model, rows_only), lr=recipe.lr, weight_decay=0.0)
    else:
        opt = torch.optim.AdamW(model.parameters(), lr=recipe.lr, weight_decay=1e-4)
    steps_per_epoch = max(1, min(len(train), recipe.samples_per_epoch) // recipe.batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=recipe.lr, total_steps=recipe.epochs * steps_per_epoch)
    device = torch.device(torch_device_name(recipe.device))
    model.to(device)  # before the optimizer's state is loaded: it follows its parameters' device
    if ckpt.exists():
        state = torch.load(ckpt, map_location=device, weights_only=False)
        model.load_state_dict(state["model"])
        opt.load_state_dict(state["opt"])
        sched.load_state_dict(state["sched"])
        start = state["epoch"] + 1
        log(f"resuming after epoch {start}")
    loss_fn = nn.CrossEntropyLoss(label_smoothing=0.05)

    def orient_loss(pred: Any, target: Any) -> Any:
        known = ~torch.isnan(target[:, 0])
        if not bool(known.any()):
            return pred.sum() * 0.0
        return ((pred[known] - target[known]) ** 2).mean()

    for epoch in range(start, recipe.epochs):
        model.train(not rows_only)  # batch norms and dropout as they were, for some rows alone
        t0 = time.time()
        order = list(range(len(train)))
        rng.shuffle(order)
        total = 0.0
        for s, (xb, yb, tb) in enumerate(epoch_batches(train, order, steps_per_epoch, recipe, epoch, rng)):
            if s % 25 == 0:
                log(f"  step {s}/{steps_per_epoch}")
            x, y, t = (torch.from_numpy(a).to(device) for a in (xb, yb, tb))
            logits, orient = model(x)
            loss = loss_fn(logits, y) + recipe.orient_weight * orient_loss(orient, t)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += float(loss.detach())
        acc = evaluate(model, val, size)
        log(
            f"epoch {epoch + 1}/{recipe.epochs} loss {total / steps_per_epoch:.3f} synth-val {acc:.4f} "
            f"axis error {evaluate_axis(model, val, size):.1f}° ({time.time() - t0:.0f}s)"
        )
        torch.save(
            {"model": model.state_dict(), "opt": opt.state_dict(), "sched": sched.state_dict(), "epoch": epoch}, ckpt
        )
    metrics = finish(model.cpu(), out, val, real_hold, [crop[0] for crop, _group in grouped[n_val : n_val + 512]], size)
    metrics.update({"n_train": len(train), "n_val": len(val), "n_real_holdout": len(real_hold)})
    (out / "metrics.json").write_text(json.dumps(metrics, indent=1))
    log(json.dumps(metrics))
    return metrics


def finish(
    model: Any,
    out: Path,
    val: Sequence[Crop],
    real_hold: Sequence[Crop],
    calibration: Sequence[np.ndarray],
    size: tuple[int, int] = INPUT_SIZE,
) -> dict[str, Any]:
    """Export ``out/classifier_fp32.onnx``, quantize it to ``out/classifier.onnx`` (the one that
    runs) on ``calibration`` crops, and measure both."""
    fp32, int8 = out / "classifier_fp32.onnx", out / "classifier.onnx"
    export_onnx(model, fp32, size)
    quantize_classifier(fp32, int8, model_input(calibration, size))
    return {
        "synthetic_val_accuracy": evaluate(model, val, size),
        "real_holdout_accuracy_34": evaluate(model, real_hold, size),
        "int8_synthetic_val_accuracy": evaluate_onnx(int8, val),
        "int8_real_holdout_accuracy_34": evaluate_onnx(int8, real_hold),
        "synthetic_val_axis_error_deg": evaluate_axis(model, val, size),
        "int8_synthetic_val_axis_error_deg": axis_error_onnx(int8, val),
        "input_size": list(size),
    }


def onnx_input_size(session: Any) -> tuple[int, int]:
    """The (width, height) an exported classifier's ``images`` input takes."""
    shape = session.get_inputs()[0].shape
    return int(shape[3]), int(shape[2])


def evaluate_onnx(path: Path, data: Sequence[Crop]) -> float:
    """Accuracy of an exported model (float or int8) through onnxruntime, as the runtime runs it."""
    from paiscan.vision.models import make_session

    session = make_session(path)
    return _accuracy(lambda x: session.run(None, {"images": x})[0].argmax(1), data, onnx_input_size(session))


def axis_error_onnx(path: Path, data: Sequence[Crop]) -> float:
    """:func:`axis_error` of an exported model through onnxruntime."""
    from paiscan.vision.models import make_session

    session = make_session(path)
    return axis_error(lambda x: session.run(None, {"images": x})[1], data, onnx_input_size(session))


def export_onnx(model: Any, path: Path, size: tuple[int, int] = INPUT_SIZE) -> None:
    import onnx
    import torch

    model.eval()
    dummy = torch.zeros(1, 3, size[1], size[0])
    torch.onnx.export(
        model,
        (dummy,),
        str(path),
        input_names=["images"],
        output_names=["logits", "orientation"],
        dynamic_axes={"images": {0: "batch"}, "logits": {0: "batch"}, "orientation": {0: "batch"}},
        opset_version=17,
        dynamo=False,
    )
    m = onnx.load(str(path))
    meta = m.metadata_props.add()
    meta.key, meta.value = "classes", json.dumps(list(range(N_OUTPUTS)))
    onnx.save(m, str(path))
