"""Train the two-class tile localizer (face-up, face-down) with ultralytics YOLO and export ONNX.

The renderer's 38-class labels are mapped to two classes (37 → face-down, the rest face-up) in a
derived folder of symlinked images, so the renders are never copied. Training starts from the
``yolo11n.yaml`` architecture (no pretrained weights can be downloaded here). Resumable through
ultralytics' ``last.pt``. Needs the ``train`` extra.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from paiscan.datasets.quantize import mixed_calibration, quantize_localizer
from paiscan.datasets.realdata import split_of


@dataclass(frozen=True)
class LocalizerRecipe:
    """What a training run does (written into the model card)."""

    epochs: int = 30
    imgsz: int = 416
    batch: int = 16
    seed: int = 0
    workers: int = 2
    model: str = "yolo11n.yaml"
    patience: int = 100
    init_onnx: str | None = None  # start from a committed localizer.onnx (a fine-tuning stage)
    warmup_epochs: float = 3.0
    #: AdamW's initial learning rate (None: ultralytics' ``optimizer=auto``, which chose AdamW at
    #: 0.00167 for two classes): a fine-tuning stage may take smaller steps
    lr0: float | None = None
    #: where to train: "cpu", or a CUDA device ("0") when a GPU is lent
    device: str = "cpu"
    #: keep the decoded, resized renders in memory (a GPU outruns JPEG decoding)
    cache: bool = False
    #: a time budget in hours instead of a number of epochs (ultralytics fits its schedule to it)
    hours: float | None = None
    #: the share of renders (percent, by a hash of the name) validated each epoch
    val_percent: int = 8
    #: the last epochs trained without mosaic (a long run may take ultralytics' 10)
    close_mosaic: int = 3


def build_two_class(sources: Sequence[Path], work: Path, val_percent: int = 8) -> Path:
    """Symlink images and write 2-class labels under ``work``; returns the dataset yaml path. A
    folder given k times is trained on k times an epoch (validated on once)."""
    for split in ("train", "val"):
        for kind in ("images", "labels"):
            d = work / kind / split
            if d.exists():
                shutil.rmtree(d)
            d.mkdir(parents=True)
    n = 0
    seen: dict[Path, int] = {}
    for src in sources:
        copy = seen[src.resolve()] = seen.get(src.resolve(), -1) + 1
        for img in sorted((src / "images").glob("*.jpg")):
            lab = src / "labels" / f"{img.stem}.txt"
            if not lab.exists():
                continue
            split = "val" if split_of(img.name, val_percent) == "holdout" else "train"
            if copy and split == "val":  # validation counts each photo once
                continue
            name = f"{src.name}_{img.stem}" + (f"_{copy}" if copy else "")
            (work / "images" / split / f"{name}.jpg").symlink_to(img.resolve())
            lines = []
            for line in lab.read_text().splitlines():
                parts = line.split()
                if len(parts) >= 5:
                    lines.append(" ".join(["1" if int(parts[0]) == 37 else "0", *parts[1:5]]))
            (work / "labels" / split / f"{name}.txt").write_text("\n".join(lines) + ("\n" if lines else ""))
            n += 1
    if not n:
        raise SystemExit(f"no labelled images under {[str(s) for s in sources]} (make them with paiscan synth)")
    if not any((work / "images" / "val").iterdir()):
        raise SystemExit(f"none of the {n} images falls in the {val_percent} % validated (give more renders)")
    yaml_path = work / "data.yaml"
    yaml_path.write_text(
        f"path: {work.resolve()}\ntrain: images/train\nval: images/val\nnames:\n  0: tile\n  1: face_down\n"
    )
    return yaml_path


def _init_checkpoint(recipe: LocalizerRecipe, data: Path, out: Path, log: Any) -> Path:
    """An ultralytics checkpoint holding the weights of ``recipe.init_onnx`` (batch norms rebuilt)."""
    import cv2
    import numpy as np
    import torch
    from ultralytics.nn.tasks import DetectionModel

    from paiscan.datasets.onnx_init import load_fused_onnx
    from paiscan.vision.models import letterbox

    assert recipe.init_onnx is not None
    images = sorted((data.parent / "images" / "train").glob("*.jpg"))[:32]
    if not images:
        raise SystemExit(f"no training images under {data.parent} to calibrate {recipe.init_onnx}")
    calib = np.concatenate([letterbox(np.asarray(cv2.imread(str(p)), np.uint8), recipe.imgsz)[0] for p in images])
    net = DetectionModel(recipe.model, nc=2, verbose=False)
    n = load_fused_onnx(net, Path(recipe.init_onnx), torch.from_numpy(calib))
    path = out / "init_from_onnx.pt"
    torch.save({"model": net, "train_args": {}, "epoch": -1}, path)
    log(f"starting from {recipe.init_onnx} ({n} convolutions, batch norms rebuilt on {len(images)} renders)")
    return path


def train_localizer(
    sources: Sequence[Path],
    out: Path,
    recipe: LocalizerRecipe = LocalizerRecipe(),
    log: Any = print,
    export: bool = True,
) -> dict[str, Any]:
    """Train (or resume; a finished run is only validated), export ``out/localizer_fp32.onnx`` and
    its int8 copy ``out/localizer.onnx`` (the one that runs:
    :func:`paiscan.datasets.quantize.quantize_localizer`) unless ``export`` is off, return the validation
    metrics (of the float model)."""
    os.environ.setdefault("YOLO_OFFLINE", "1")
    from ultralytics import YOLO

    out = out.resolve()  # ultralytics puts relative projects under its own settings folder
    out.mkdir(parents=True, exist_ok=True)
    data = build_two_class(sources, out / "dataset", recipe.val_percent)
    last = out / "run" / "weights" / "last.pt"
    if last.exists() and _finished(last):
        log(f"{last} is a finished run: validating and exporting it")
    elif last.exists():
        log(f"resuming from {last}")
        model = YOLO(str(last))
        model.train(resume=True)
    else:
        model = YOLO(str(_init_checkpoint(recipe, data, out, log)) if recipe.init_onnx else recipe.model)
        model.train(
            data=str(data),
            epochs=recipe.epochs,
            imgsz=recipe.imgsz,
            batch=recipe.batch,
            device=recipe.device,
            workers=recipe.workers,
            seed=recipe.seed,
            project=str(out),
            name="run",
            exist_ok=True,
            plots=False,
            amp=False,
            pretrained=bool(recipe.init_onnx),
            patience=recipe.patience,
            verbose=False,
            fliplr=0.5,
            flipud=0.0,
            degrees=0.0,
            mosaic=1.0,
            close_mosaic=recipe.close_mosaic,
            warmup_epochs=recipe.warmup_epochs,
            cache="ram" if recipe.cache else False,
            **({"time": recipe.hours} if recipe.hours is not None else {}),
            **({"optimizer": "AdamW", "lr0": recipe.lr0} if recipe.lr0 is not None else {}),
        )
    best = out / "run" / "weights" / "best.pt"
    weights = best if best.exists() else last
    trained = YOLO(str(weights))
    metrics = trained.val(data=str(data), imgsz=recipe.imgsz, device=recipe.device, plots=False, verbose=False)
    result = {
        "map50": float(metrics.box.map50),
        "map50_95": float(metrics.box.map),
        "precision": float(metrics.box.mp),
        "recall": float(metrics.box.mr),
        "recipe": asdict(recipe),
    }
    (out / "metrics.json").write_text(json.dumps(result, indent=1))
    log(json.dumps(result))
    if export:
        export_localizer(weights, out, recipe.imgsz, sorted((data.parent / "images" / "train").glob("*.jpg")))
    return result


def _finished(checkpoint: Path) -> bool:
    """Whether an ultralytics checkpoint is a run's end (its optimizer stripped, epoch -1), which
    cannot be resumed: a run trained elsewhere (a lent GPU) and brought back to be exported."""
    import torch

    return int(torch.load(checkpoint, map_location="cpu", weights_only=False).get("epoch", 0)) == -1


def export_localizer(weights: Path, out: Path, imgsz: int, renders: Sequence[Path]) -> Path:
    """``out/localizer_fp32.onnx`` from an ultralytics checkpoint, and its int8 copy
    ``out/localizer.onnx`` (the one that runs), calibrated on ``renders``."""
    from ultralytics import YOLO

    onnx_path = Path(YOLO(str(weights)).export(format="onnx", imgsz=imgsz, opset=17, simplify=False, dynamic=False))
    fp32 = out / "localizer_fp32.onnx"
    shutil.copy(onnx_path, fp32)
    return quantize_localizer(fp32, out / "localizer.onnx", mixed_calibration(renders, imgsz))
