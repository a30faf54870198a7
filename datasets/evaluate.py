"""``paiscan eval``: detection and structure metrics over a labelled image folder (contract).

A detector here is any callable from image bytes to a :class:`Prediction` (boxes with contract
class ids, and optionally the hand structure), so paiscan and a peer are measured the same way,
file to result.
"""

from __future__ import annotations

import json
import time
import traceback
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from paiscan.datasets.realdata import read_yolo_labels
from paiscan.scoring.tiles import BACK, RED_5M, RED_5S, kind, parse_tiles
from paiscan.vision.detection import Box, iou


@dataclass(frozen=True)
class Prediction:
    boxes: Sequence[tuple[int, Box]]
    hand: dict[str, Any] | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    #: whether the reading may be scored as it stands (``None``: a detector that reads no hands)
    scoreable: bool | None = None
    #: whether the reading asks the user something (an ambiguity) before it is scored
    asks: bool = False
    #: the other readings its questions offer (hands, as ``hand``): answering them reaches one
    offered: Sequence[dict[str, Any]] = ()


Detector = Callable[[bytes, str], Prediction]


def machine(cpuinfo: Path = Path("/proc/cpuinfo")) -> dict[str, Any]:
    """What the figures were measured on: the CPU's name, whether it has VNNI (without it,
    onnxruntime's int8 kernels saturate on 8-bit weights: ``paiscan.datasets.quantize``), its core count
    and the onnxruntime version. Timings and int8 readings compare only between alike machines.

    >>> sorted(machine())
    ['cores', 'cpu', 'onnxruntime', 'vnni']
    """
    import os

    import onnxruntime

    lines = cpuinfo.read_text(errors="replace").splitlines() if cpuinfo.is_file() else []
    name = next((line.split(":", 1)[1].strip() for line in lines if line.startswith("model name")), None)
    flags = next((line.split(":", 1)[1].split() for line in lines if line.startswith("flags")), [])
    return {
        "cpu": name,
        "vnni": bool({"avx512_vnni", "avx_vnni"} & set(flags)) if flags else None,
        "cores": os.cpu_count(),
        "onnxruntime": onnxruntime.__version__,
    }


def match(gt: Sequence[Box], pred: Sequence[Box], threshold: float = 0.5) -> list[tuple[int, int]]:
    """Greedy one-to-one matching by IoU (highest first), pairs (gt index, pred index)."""
    cands = sorted(((iou(g, p), i, j) for i, g in enumerate(gt) for j, p in enumerate(pred)), reverse=True)
    used_g: set[int] = set()
    used_p: set[int] = set()
    out = []
    for v, i, j in cands:
        if v < threshold:
            break
        if i in used_g or j in used_p:
            continue
        used_g.add(i)
        used_p.add(j)
        out.append((i, j))
    return out


@dataclass(frozen=True)
class RowAgreement:
    """How the tiles a reading puts in the hand row (concealed, winning tile, melds) agree with a
    photo's labelled tiles, for real photos of a hand alone (a rack photo), which carry tile
    labels but no structure: every labelled tile and nothing else, and with the right classes."""

    exact: bool
    boxes: bool
    false_tiles: int
    missed: int


#: IoU for matching a real photo's face-tight labels (see ``paiscan eval``'s loose localization)
LOOSE_IOU = 0.3


def row_agreement(
    labels: Sequence[tuple[int, Box]], row: Sequence[tuple[int, Box]], threshold: float = LOOSE_IOU
) -> RowAgreement:
    """Compare the row's (class, box) tiles with the labelled ones.

    >>> row_agreement([(0, (0, 0, 10, 10)), (1, (12, 0, 22, 10))], [(0, (0, 0, 10, 10)), (2, (12, 0, 22, 10))])
    RowAgreement(exact=False, boxes=True, false_tiles=0, missed=0)
    """
    pairs = match([b for _, b in labels], [b for _, b in row], threshold)
    boxes = len(pairs) == len(labels) == len(row)
    exact = boxes and all(labels[i][0] == row[j][0] for i, j in pairs)
    return RowAgreement(exact, boxes, len(row) - len(pairs), len(labels) - len(pairs))


def _tiles_key(value: Any) -> list[int]:
    if isinstance(value, list):
        tiles: list[int] = []
        for v in value:
            tiles += parse_tiles(v)
        return sorted(tiles)
    return sorted(parse_tiles(value or ""))


def same_structure(truth: dict[str, Any], read: dict[str, Any] | None) -> bool:
    """Hand, melds, winning tile, dora indicators and nuki all right (red fives distinguished)."""
    if not read:
        return False
    if _tiles_key(truth.get("hand", "")) != _tiles_key(read.get("hand", "")):
        return False
    if _tiles_key(truth.get("win_tile", "")) != _tiles_key(read.get("win_tile", "")):
        return False
    if _tiles_key(truth.get("dora_indicators", [])) != _tiles_key(read.get("dora_indicators", [])):
        return False
    if _tiles_key(truth.get("nuki", "")) != _tiles_key(read.get("nuki", "")):
        return False

    def melds(h: dict[str, Any]) -> Counter[tuple[str, tuple[int, ...], bool]]:
        return Counter(
            (m["type"], tuple(_tiles_key(m["tiles"])), bool(m.get("open", True))) for m in h.get("melds", [])
        )

    return melds(truth) == melds(read)


#: the groups of a render's tiles (``meta/``) that its hand structure shows
STRUCTURE_GROUPS = frozenset({"hand", "win", "meld", "dora", "nuki"})


def hand_in_frame(meta: dict[str, Any], truth: dict[str, Any]) -> bool:
    """Whether every tile ``truth`` shows lies whole inside the render (its ``meta/`` record):
    the renderer cuts some photos at the frame on purpose (``SynthConfig.p_cut``), and a tile cut
    by a third can lose what tells its face (a character's numeral), so that no reader could name
    it. ``paiscan eval`` gives exact structure on these renders apart, beside the whole figure.

    >>> truth = {"hand": "1m", "win_tile": "1m", "melds": [], "dora_indicators": ["2p"]}
    >>> boxes = [{"group": g, "truncated": t} for g, t in (("hand", 0.0), ("win", 0.0), ("dora", 0.2))]
    >>> hand_in_frame({"boxes": boxes}, truth), hand_in_frame({"boxes": boxes[:2]}, truth)
    (False, False)
    >>> hand_in_frame({"boxes": [*boxes[:2], {"group": "dora", "truncated": 0.0}]}, truth)
    True
    """
    from paiscan.datasets.synth.hands import hand_tiles

    shown = [b for b in meta.get("boxes", []) if b.get("group") in STRUCTURE_GROUPS]
    return len(shown) == len(hand_tiles(truth)) and all(not b.get("truncated") for b in shown)


#: an unmatched detection lying this share of its area or more inside an ignore box counts neither way
IGNORE_DETECTION_SHARE = 0.5
#: a label lying this share of its area or more inside an ignore box is not judged (not a miss either)
IGNORE_LABEL_SHARE = 0.8
#: photo file suffixes ``paiscan eval`` reads from ``images/``
IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".webp")
#: failures listed by name in the output (the count is always whole)
MAX_LISTED_FAILURES = 50


def inside_share(a: Box, b: Box) -> float:
    """The share of box ``a``'s area that lies inside box ``b``.

    >>> inside_share((0, 0, 10, 10), (5, 0, 20, 10)), inside_share((0, 0, 10, 10), (0, 0, 0, 0))
    (0.5, 0.0)
    """
    ix = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    area = (a[2] - a[0]) * (a[3] - a[1])
    return ix * iy / area if area > 0 else 0.0


@dataclass
class _Tally:
    """Counts of one group of photos (a folder, a source kind, or all), summed photo by photo."""

    counts: Counter[str] = field(default_factory=Counter)
    latencies: list[float] = field(default_factory=list)

    def add(self, counts: Counter[str], latency_ms: float | None) -> None:
        self.counts.update(counts)
        if latency_ms is not None:
            self.latencies.append(latency_ms)


def _image_counts(
    gt: list[tuple[int, Box]],
    ignore: list[Box],
    pboxes: list[tuple[int, Box]],
) -> Counter[str]:
    """Tile counts of one photo: strict matching (IoU 0.5, the contract's figures) and loose
    matching (:data:`LOOSE_IOU`, fair to real labels that box only the tile's face)."""
    c: Counter[str] = Counter()
    gt = [(k, b) for k, b in gt if not any(inside_share(b, g) >= IGNORE_LABEL_SHARE for g in ignore)]

    def unmatched_extra(pairs: list[tuple[int, int]]) -> int:
        matched = {j for _, j in pairs}
        return sum(
            1
            for j, (_, b) in enumerate(pboxes)
            if j not in matched and not any(inside_share(b, g) >= IGNORE_DETECTION_SHARE for g in ignore)
        )

    pairs = match([b for _, b in gt], [b for _, b in pboxes])
    loose_pairs = match([b for _, b in gt], [b for _, b in pboxes], LOOSE_IOU)
    extra = unmatched_extra(pairs)
    right = sum(gt[i][0] == pboxes[j][0] for i, j in pairs)
    c["gt"] += len(gt)
    c["pred"] += len(pairs) + extra
    c["localized"] += len(pairs)
    c["correct"] += right
    c["loose"] += len(loose_pairs)
    c["loose_right"] += sum(gt[i][0] == pboxes[j][0] for i, j in loose_pairs)
    c["loose_pred"] += len(loose_pairs) + unmatched_extra(loose_pairs)
    c["red_gt"] += sum(1 for k, _ in gt if RED_5M <= k <= RED_5S)
    c["red_ok"] += sum(gt[i][0] == pboxes[j][0] for i, j in pairs if RED_5M <= gt[i][0] <= RED_5S)
    c["back_gt"] += sum(1 for k, _ in gt if k == BACK)
    c["back_ok"] += sum(gt[i][0] == pboxes[j][0] for i, j in pairs if gt[i][0] == BACK)
    c["exact"] += right == len(gt) and not extra
    return c


def _read_meta(path: Path) -> dict[str, Any]:
    """A render's ``meta/*.json``; ``{}`` where there is none or it cannot be read (a figure that
    needs it is then left out, the photo is still counted)."""
    try:
        meta = json.loads(path.read_text()) if path.exists() else {}
    except (OSError, ValueError):
        return {}
    return meta if isinstance(meta, dict) else {}


def _distractor_counts(
    distractors: Sequence[dict[str, Any]], labelled: Sequence[Box], pboxes: Sequence[Box]
) -> Counter[str]:
    """A render's distractors (``meta["distractors"]``: key caps, dice, chips, a knob...) and the
    boxes read on them: a box that matches no tile (IoU 0.3, ignore regions too) and whose centre
    lies on a distractor."""

    def on(box: Box, d: dict[str, Any]) -> bool:
        cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
        x1, y1, x2, y2 = d["box"]
        return x1 <= cx <= x2 and y1 <= cy <= y2

    false = [b for b in pboxes if not any(iou(b, g) >= LOOSE_IOU for g in labelled)]
    return Counter(
        {"distractors": len(distractors), "distractor_boxes": sum(any(on(b, d) for d in distractors) for b in false)}
    )


def _read_labels(path: Path, w: int, h: int) -> list[tuple[int, Box]]:
    try:
        return read_yolo_labels(path, w, h) if path.exists() else []
    except (ValueError, IndexError) as exc:
        raise ValueError(f"{path.parent.name}/{path.name}: a line is not 'class cx cy w h' ({exc})") from exc


def _label_count(path: Path) -> int:
    """How many tiles a label file names, read without the photo's size (for a photo that failed)."""
    try:
        return sum(1 for line in path.read_text().splitlines() if len(line.split()) >= 5) if path.exists() else 0
    except (OSError, UnicodeDecodeError):
        return 0


def _one_photo(
    data: Path, img_path: Path, detector: Detector, plain_reds: bool
) -> tuple[Counter[str], float | None, str | None]:
    """(counts, latency in ms, error) of one photo. A photo that cannot be read (file, labels or
    detector) is a failure: its labelled tiles are missed, its structure is wrong, and it is named."""
    stem = img_path.stem
    struct_path = data / "structures" / f"{stem}.json"
    lab = data / "labels" / f"{stem}.txt"
    c: Counter[str] = Counter({"images": 1})
    truth: dict[str, Any] | None = None
    try:
        truth = json.loads(struct_path.read_text()) if struct_path.exists() else None
        rules = truth.get("rules", "riichi") if isinstance(truth, dict) else "riichi"
        data_bytes = img_path.read_bytes()
        t0 = time.perf_counter()
        pred = detector(data_bytes, rules)
        latency = (time.perf_counter() - t0) * 1000
        from PIL import Image

        with Image.open(img_path) as im:
            w, h = im.size
        gt = _read_labels(lab, w, h)
        ign = _read_labels(data / "ignore" / f"{stem}.txt", w, h)
    except Exception as exc:  # one photo never stops the run: it is counted and named
        c["failed"] += 1
        c["gt"] += _label_count(lab)
        c["structures"] += isinstance(truth, dict) or struct_path.exists()
        return c, None, _describe(exc)
    pboxes = list(pred.boxes)
    if plain_reds:
        gt = [(kind(k) if k != BACK else k, b) for k, b in gt]
        pboxes = [(kind(k) if k != BACK else k, b) for k, b in pboxes]
    c.update(_image_counts(gt, [b for _, b in ign], pboxes))
    meta = _read_meta(data / "meta" / f"{stem}.json")
    if meta.get("distractors"):
        c.update(_distractor_counts(meta["distractors"], [b for _, b in gt + ign], [b for _, b in pboxes]))
    if truth is not None:
        c["structures"] += 1
        right = same_structure(truth, pred.hand)
        c["struct_ok"] += right
        if meta and hand_in_frame(meta, truth):
            c["in_frame"] += 1
            c["in_frame_ok"] += right
        if pred.scoreable is not None:
            outcome = structure_outcome(right, pred.scoreable, pred.asks)
            c[f"outcome_{outcome}"] += 1
            c["outcome_asked_unreachable"] += no_right_answer(truth, outcome, right, pred.offered)
            c["outcomes"] += 1
    return c, latency, None


def _describe(exc: BaseException) -> str:
    """The error's type and message, and where it was raised (an ``AssertionError`` has no message).

    >>> try:
    ...     assert False
    ... except AssertionError as e:
    ...     _describe(e).startswith("AssertionError (at ")
    True
    """
    text = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    tb = traceback.extract_tb(exc.__traceback__)
    if tb and not str(exc):
        text += f" (at {Path(tb[-1].filename).name}:{tb[-1].lineno})"
    return text


def _metrics(t: _Tally) -> dict[str, Any]:
    """The figures of one tally (ratios rounded to four places)."""
    c = t.counts

    def ratio(a: str, b: str) -> float:
        return c[a] / c[b] if c[b] else 0.0

    lat = np.array(t.latencies) if t.latencies else np.zeros(1)
    out: dict[str, Any] = {
        "n_images": c["images"],
        "n_failed": c["failed"],
        "n_tiles": c["gt"],
        "tile_precision": ratio("correct", "pred"),
        "tile_recall": ratio("correct", "gt"),
        "localization_recall": ratio("localized", "gt"),
        "localization_recall_iou30": ratio("loose", "gt"),
        "cls_accuracy": ratio("correct", "localized"),
        # ... of the tiles matched at IoU 0.3: fairer where labels box the face only (real photos)
        "cls_accuracy_iou30": ratio("loose_right", "loose"),
        # the table, all at IoU 0.3 (real labels box the face, detections the whole body):
        # right class among detections, right class among tiles, any class among tiles, and right
        # class among the tiles found
        "precision": ratio("loose_right", "loose_pred"),
        "recall": ratio("loose_right", "gt"),
        "found_at_all": ratio("loose", "gt"),
        "class_right_when_found": ratio("loose_right", "loose"),
        "red_five_recall": c["red_ok"] / c["red_gt"] if c["red_gt"] else None,
        "back_recall": c["back_ok"] / c["back_gt"] if c["back_gt"] else None,
        "exact_image_rate": ratio("exact", "images"),
        # renders with distractors: boxes read on them (no tile there) per distractor drawn
        "boxes_per_distractor": c["distractor_boxes"] / c["distractors"] if c["distractors"] else None,
        "latency_ms_p50": float(np.percentile(lat, 50)),
        "latency_ms_p95": float(np.percentile(lat, 95)),
    }
    if c["structures"]:
        out["exact_structure_rate"] = ratio("struct_ok", "structures")
        if c["in_frame"]:  # renders (with meta/) whose hand lies whole inside the photo
            out["n_structures_in_frame"] = c["in_frame"]
            out["exact_structure_rate_in_frame"] = ratio("in_frame_ok", "in_frame")
        if c["outcomes"]:  # the detector reads hands: how each reading would reach the user
            # asked_unreachable: asked, but no answer to the questions gives the right hand (a
            # question about the winning tile while an indicator is misread): wrong unless the
            # user corrects a tile unasked, so counted with the harm. A photo that failed to read
            # is in none of these (``n_failed``)
            for name in ("silent_wrong", "asked", "asked_unreachable", "refused"):
                out[f"{name}_structure_rate"] = ratio(f"outcome_{name}", "structures")
    return {k: (round(v, 4) if isinstance(v, float) else v) for k, v in out.items()}


def _source_names(folders: Sequence[Path]) -> list[str]:
    """A name per folder: its own name, or the path as given where two folders share a name."""
    names = [f.resolve().name or str(f) for f in folders]
    return [n if names.count(n) == 1 else str(f) for n, f in zip(names, folders, strict=True)]


def evaluate_folders(
    folders: Sequence[Path],
    detector: Detector,
    limit: int | None = None,
    progress: bool = False,
    plain_reds: bool = False,
) -> dict[str, Any]:
    """Metrics of the contract's ``paiscan eval`` over one or more labelled folders, pooled, and
    under ``sources`` per folder and per ``source_kind`` of a folder's ``manifest.csv`` (``NAME/KIND``)
    where there is more than one group. A folder given twice is read once. ``limit`` is per folder.
    ``plain_reds`` judges red fives as plain fives (for a 34-class peer that cannot tell them apart).
    A photo that fails to read counts (``n_failed``, its tiles missed) and is named under ``failures``."""
    from paiscan.datasets.realdata import source_kinds

    unique: list[Path] = []
    for f in folders:
        if all(f.resolve() != u.resolve() for u in unique):
            unique.append(Path(f))
    jobs: list[tuple[Path, Path, list[str]]] = []
    for data, name in zip(unique, _source_names(unique), strict=True):
        images = sorted(p for p in (data / "images").iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
        kinds = source_kinds(data)
        for p in images[:limit] if limit else images:
            kind_ = kinds.get(p.name, "")
            jobs.append((data, p, [name, f"{name}/{kind_}"] if kind_ else [name]))
    total = _Tally()
    groups: dict[str, _Tally] = {}
    failures: list[dict[str, str]] = []
    it: Iterable[tuple[Path, Path, list[str]]] = jobs
    if progress:
        from tqdm import tqdm

        it = tqdm(jobs, desc="eval", unit="img")
    for data, img_path, keys in it:
        counts, latency, error = _one_photo(data, img_path, detector, plain_reds)
        total.add(counts, latency)
        for key in keys:
            groups.setdefault(key, _Tally()).add(counts, latency)
        if error is not None:
            failures.append({"source": keys[0], "image": img_path.name, "error": error})
    out = _metrics(total)
    out["match_iou_loose"] = LOOSE_IOU
    if failures:
        out["failures"] = failures[:MAX_LISTED_FAILURES]
    if len(groups) > 1:
        out["sources"] = {k: _metrics(v) for k, v in groups.items()}
    return out


def evaluate_folder(
    data: Path, detector: Detector, limit: int | None = None, progress: bool = False, plain_reds: bool = False
) -> dict[str, Any]:
    """:func:`evaluate_folders` of one folder."""
    return evaluate_folders([data], detector, limit=limit, progress=progress, plain_reds=plain_reds)


def structure_outcome(right: bool, scoreable: bool, asks: bool) -> str:
    """How a reading reaches the user: ``refused`` (cannot be scored: the problems are shown),
    ``asked`` (scored once a question is answered), else ``silent_right`` or ``silent_wrong``
    (scored at once; the last is the harm a score must never do unseen).

    >>> [structure_outcome(False, True, asks) for asks in (False, True)], structure_outcome(True, False, False)
    (['silent_wrong', 'asked'], 'refused')
    """
    if not scoreable:
        return "refused"
    if asks:
        return "asked"
    return "silent_right" if right else "silent_wrong"


def no_right_answer(truth: dict[str, Any], outcome: str, right: bool, offered: Iterable[dict[str, Any]]) -> bool:
    """An ``asked`` reading, wrong, none of whose offered readings (the questions' answers) is the
    true hand: wrong however the user answers.

    >>> hand = {"hand": "123m", "win_tile": "5p"}
    >>> other = {**hand, "win_tile": "0p"}
    >>> no_right_answer(hand, "asked", False, [other]), no_right_answer(hand, "asked", False, [other, hand])
    (True, False)
    """
    return outcome == "asked" and not right and not any(same_structure(truth, o) for o in offered)


def paiscan_detector(reader: Any) -> Detector:
    def detect(data: bytes, rules: str) -> Prediction:
        result = reader.read(data, rules=rules)
        inv = 1.0 / result.scale if result.scale else 1.0
        boxes = [(d.cls, tuple(v * inv for v in d.box)) for d in result.detections]
        reading = result.reading
        return Prediction(
            boxes,
            reading.hand_dict(),
            scoreable=reading.valid,
            asks=bool(reading.ambiguities),
            offered=reading.offered_hands(),
        )

    return detect


#: mahjong-detector's 34 class names → contract ids (it has no red fives and no backs)
_PEER_NAMES = {"chun": 33, "haku": 31, "hatsu": 32, "nan": 28, "pe": 30, "sha": 29, "tou": 27}


def peer_detector() -> Detector:
    """The PyPI ``mahjong-detector`` (YOLOv8, 34 classes) run on the same bytes."""
    import io

    from mahjong_detector.predict import CLASS_NAMES, predict
    from mahjong_detector.preprocess import preprocess_image
    from PIL import Image, ImageOps

    ids = [_PEER_NAMES.get(n, parse_tiles(n)[0] if n[0].isdigit() else -1) for n in CLASS_NAMES]

    def detect(data: bytes, rules: str) -> Prediction:
        img = ImageOps.exif_transpose(Image.open(io.BytesIO(data)))
        pim, pad = preprocess_image(img)
        dets = predict(pim, pad)
        return Prediction([(ids[d.class_id], (float(d.x1), float(d.y1), float(d.x2), float(d.y2))) for d in dets])

    return detect


__all__ = [
    "Prediction",
    "evaluate_folder",
    "evaluate_folders",
    "hand_in_frame",
    "inside_share",
    "kind",
    "no_right_answer",
    "paiscan_detector",
    "peer_detector",
    "same_structure",
    "structure_outcome",
]
