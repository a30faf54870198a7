"""``paiscan eval``: detection and structure metrics over a labelled image folder (contract).

A detector here is any callable from image bytes to a :class:`Prediction` (boxes with contract
class ids, and optionally the hand structure), so paiscan and a peer are measured the same way,
file to result.
"""

from __future__ import annotations

import json
import time
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


#: a second, looser matching: real labels that box only the tile's face (not its body) still count
LOOSE_IOU = 0.3


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


def evaluate_folder(
    data: Path, detector: Detector, limit: int | None = None, progress: bool = False, plain_reds: bool = False
) -> dict[str, Any]:
    """Metrics of the contract's ``paiscan eval``. ``plain_reds`` judges red fives as plain fives
    (for a 34-class peer that cannot tell them apart)."""
    images = sorted(p for p in (data / "images").iterdir() if p.suffix.lower() in (".jpg", ".jpeg", ".png", ".webp"))
    if limit:
        images = images[:limit]
    n_gt = n_pred = correct = localized = right_class = loose = loose_right = 0
    red_gt = red_ok = back_gt = back_ok = exact = 0
    structures = struct_ok = 0
    in_frame = in_frame_ok = 0
    outcomes: Counter[str] = Counter()
    latencies: list[float] = []
    it: Iterable[Path] = images
    if progress:
        from tqdm import tqdm

        it = tqdm(images, desc="eval", unit="img")
    for img_path in it:
        data_bytes = img_path.read_bytes()
        lab = data / "labels" / f"{img_path.stem}.txt"
        struct_path = data / "structures" / f"{img_path.stem}.json"
        truth = json.loads(struct_path.read_text()) if struct_path.exists() else None
        rules = truth.get("rules", "riichi") if truth else "riichi"
        t0 = time.perf_counter()
        pred = detector(data_bytes, rules)
        latencies.append((time.perf_counter() - t0) * 1000)
        from PIL import Image

        with Image.open(img_path) as im:
            w, h = im.size
        gt = read_yolo_labels(lab, w, h) if lab.exists() else []
        if plain_reds:
            gt = [(kind(c) if c != BACK else c, b) for c, b in gt]
        ign_path = data / "ignore" / f"{img_path.stem}.txt"
        ignore = [b for _, b in read_yolo_labels(ign_path, w, h)] if ign_path.exists() else []
        pboxes = list(pred.boxes)
        if plain_reds:
            pboxes = [(kind(c) if c != BACK else c, b) for c, b in pboxes]
        pairs = match([b for _, b in gt], [b for _, b in pboxes])
        loose_pairs = match([b for _, b in gt], [b for _, b in pboxes], LOOSE_IOU)
        loose += len(loose_pairs)
        loose_right += sum(gt[i][0] == pboxes[j][0] for i, j in loose_pairs)
        matched_p = {j for _, j in pairs}
        # unmatched predictions lying on an ignored tile count neither way
        extra = [
            j for j in range(len(pboxes)) if j not in matched_p and not any(iou(pboxes[j][1], g) >= 0.5 for g in ignore)
        ]
        img_correct = 0
        for i, j in pairs:
            gc, pc = gt[i][0], pboxes[j][0]
            ok = gc == pc
            localized += 1
            right_class += ok
            img_correct += ok
            if RED_5M <= gc <= RED_5S:
                red_ok += ok
            if gc == BACK:
                back_ok += ok
        red_gt += sum(1 for c, _ in gt if RED_5M <= c <= RED_5S)
        back_gt += sum(1 for c, _ in gt if c == BACK)
        n_gt += len(gt)
        n_pred += len(pairs) + len(extra)
        correct += img_correct
        exact += img_correct == len(gt) and not extra
        if truth is not None:
            structures += 1
            right = same_structure(truth, pred.hand)
            struct_ok += right
            meta_path = data / "meta" / f"{img_path.stem}.json"
            if meta_path.exists() and hand_in_frame(json.loads(meta_path.read_text()), truth):
                in_frame += 1
                in_frame_ok += right
            if pred.scoreable is not None:
                outcome = structure_outcome(right, pred.scoreable, pred.asks)
                outcomes[outcome] += 1
                outcomes["asked_unreachable"] += no_right_answer(truth, outcome, right, pred.offered)
    lat = np.array(latencies) if latencies else np.zeros(1)
    out: dict[str, Any] = {
        "n_images": len(images),
        "n_tiles": n_gt,
        "tile_precision": correct / n_pred if n_pred else 0.0,
        "tile_recall": correct / n_gt if n_gt else 0.0,
        "localization_recall": localized / n_gt if n_gt else 0.0,
        "localization_recall_iou30": loose / n_gt if n_gt else 0.0,
        "cls_accuracy": right_class / localized if localized else 0.0,
        # ... of the tiles matched at IoU 0.3: fairer where labels box the face only (real photos)
        "cls_accuracy_iou30": loose_right / loose if loose else 0.0,
        "red_five_recall": red_ok / red_gt if red_gt else None,
        "back_recall": back_ok / back_gt if back_gt else None,
        "exact_image_rate": exact / len(images) if images else 0.0,
        "latency_ms_p50": float(np.percentile(lat, 50)),
        "latency_ms_p95": float(np.percentile(lat, 95)),
    }
    if structures:
        out["exact_structure_rate"] = struct_ok / structures
        if in_frame:  # renders (with meta/) whose hand lies whole inside the photo
            out["n_structures_in_frame"] = in_frame
            out["exact_structure_rate_in_frame"] = in_frame_ok / in_frame
        if outcomes:  # the detector reads hands: how each reading would reach the user
            # asked_unreachable: asked, but no answer to the questions gives the right hand (a
            # question about the winning tile while an indicator is misread): wrong unless the
            # user corrects a tile unasked, so counted with the harm
            for name in ("silent_wrong", "asked", "asked_unreachable", "refused"):
                out[f"{name}_structure_rate"] = outcomes[name] / structures
    return {k: (round(v, 4) if isinstance(v, float) else v) for k, v in out.items()}


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
    "hand_in_frame",
    "kind",
    "no_right_answer",
    "paiscan_detector",
    "peer_detector",
    "same_structure",
    "structure_outcome",
]
