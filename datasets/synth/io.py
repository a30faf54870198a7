"""Writing datasets and preview contact sheets."""

from __future__ import annotations

import json
import math
import multiprocessing
import os
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from paiscan.vision.models import cut_tile

from .config import SynthConfig
from .render import Sample, render_sample

# distinct box colours per group (BGR)
_GROUP_COLORS = {
    "hand": (0, 200, 255),
    "win": (0, 0, 255),
    "meld": (255, 120, 0),
    "dora": (255, 0, 255),
    "nuki": (0, 255, 120),
    "dead_wall": (160, 160, 160),
    "background": (200, 255, 200),
}


def sample_seed(seed: int, index: int) -> int:
    """The render seed of image ``index`` of a dataset drawn with ``seed`` (stable, 63-bit)."""
    ss = np.random.SeedSequence([seed, index, 0xDA7A])
    return int(ss.generate_state(1, np.uint64)[0] >> np.uint64(1))


def crop_rng(render_seed: int) -> np.random.Generator:
    """The generator a render's crops draw their margins (then their JPEG qualities) from."""
    return np.random.default_rng(np.random.SeedSequence([render_seed, 0xC409]))


def crop_margins(
    boxes: Iterable[Sequence[float]],
    rng: np.random.Generator,
) -> list[tuple[int, tuple[float, float, float, float]]]:
    """(box index, margins) of each box big enough to crop (4 px a side), the margins a random
    2-12 % on each side, standing in for the localizer's imprecision."""
    out = []
    for i, box in enumerate(boxes):
        x0, y0, x1, y1 = (float(v) for v in box)
        if x1 - x0 < 4 or y1 - y0 < 4:
            continue
        m = rng.uniform(0.02, 0.12, 4)
        out.append((i, (float(m[0]), float(m[1]), float(m[2]), float(m[3]))))
    return out


def crop_tiles(sample: Sample, rng: np.random.Generator) -> list[tuple[int, np.ndarray]]:
    """Tile crops (class id, BGR image) cut from the photo exactly as the runtime cuts them
    (:func:`paiscan.vision.models.cut_tile`: the box, landscape turned clockwise), with the margins of
    :func:`crop_margins`."""
    out: list[tuple[int, np.ndarray]] = []
    for i, margins in crop_margins(sample.boxes, rng):
        x0, y0, x1, y1 = (float(v) for v in sample.boxes[i])
        crop = cut_tile(sample.image, (x0, y0, x1, y1), margins)
        if crop.size:
            out.append((sample.classes[i], np.ascontiguousarray(crop)))
    return out


def _write_one(args: tuple[Path, int, int, str, bool, SynthConfig | None]) -> int:
    out, index, seed, rules, crops, config = args
    s = sample_seed(seed, index)
    sample = render_sample(s, rules, config)
    name = f"{seed}_{index:06d}"
    (out / "images" / f"{name}.jpg").write_bytes(sample.jpeg)
    (out / "labels" / f"{name}.txt").write_text("".join(line + "\n" for line in sample.yolo_lines()))
    ign = sample.ignore_lines()
    if ign:
        (out / "ignore" / f"{name}.txt").write_text("".join(line + "\n" for line in ign))
    (out / "structures" / f"{name}.json").write_text(json.dumps(sample.structure, indent=1))
    (out / "meta" / f"{name}.json").write_text(json.dumps(_jsonable(sample.meta)))
    if crops:
        rng = crop_rng(s)
        for k, (cls, crop) in enumerate(crop_tiles(sample, rng)):
            q = int(rng.integers(70, 96))
            ok, enc = cv2.imencode(".jpg", crop, [cv2.IMWRITE_JPEG_QUALITY, q])
            if ok:
                (out / "crops" / str(cls) / f"{name}_{k}.jpg").write_bytes(enc.tobytes())
    return len(sample.classes)


def _jsonable(x: Any) -> Any:
    if isinstance(x, dict):
        return {k: _jsonable(v) for k, v in x.items()}
    if isinstance(x, list | tuple):
        return [_jsonable(v) for v in x]
    if isinstance(x, np.generic):
        return x.item()
    return x


def _init_worker() -> None:
    cv2.setNumThreads(1)


def write_dataset(
    out: Path,
    n: int,
    seed: int,
    rules: str = "riichi",
    crops: bool = False,
    workers: int = 1,
    progress: bool = True,
    config: SynthConfig | None = None,
) -> None:
    """Render ``n`` photos into ``out``: ``images/NAME.jpg``, ``labels/NAME.txt`` (YOLO, contract
    class order), ``structures/NAME.json`` (the Hand), ``meta/NAME.json`` (per-box rotation flags,
    face corners, camera), ``ignore/NAME.txt`` (tiles mostly outside the frame) and, with
    ``crops``, ``crops/CLASSID/NAME_k.jpg``. Same seed -> identical files, whatever ``workers``.
    """
    from tqdm import tqdm

    out = Path(out)
    for sub in ("images", "labels", "structures", "meta", "ignore"):
        (out / sub).mkdir(parents=True, exist_ok=True)
    if crops:
        for c in range(38):
            (out / "crops" / str(c)).mkdir(parents=True, exist_ok=True)
    jobs = [(out, i, seed, rules, crops, config) for i in range(n)]
    bar = tqdm(total=n, unit="img", disable=not progress, desc="synth")
    try:
        if workers <= 1:
            for job in jobs:
                _write_one(job)
                bar.update(1)
        else:
            # spawn, not fork: a forked child can deadlock in OpenCV's thread pool
            ctx = multiprocessing.get_context("spawn")
            with ProcessPoolExecutor(max_workers=workers, initializer=_init_worker, mp_context=ctx) as ex:
                for _ in ex.map(_write_one, jobs, chunksize=4):
                    bar.update(1)
    finally:
        bar.close()


def draw_boxes(sample: Sample, line_width: int | None = None) -> np.ndarray:
    """The photo with its boxes drawn (colour per group; a tick marks the glyph's top)."""
    im = sample.image.copy()
    lw = line_width or max(1, round(im.shape[1] / 900))
    for box, info in zip(sample.boxes, sample.meta["boxes"], strict=True):
        x0, y0, x1, y1 = (round(float(v)) for v in box)
        col = _GROUP_COLORS.get(info["group"], (255, 255, 255))
        cv2.rectangle(im, (x0, y0), (x1, y1), col, lw)
        c = np.array(info["corners"])
        top = (c[0] + c[1]) / 2
        cv2.line(
            im,
            (round(top[0]), round(top[1])),
            (round((c[0][0] + c[1][0] + c[2][0] + c[3][0]) / 4), round((c[0][1] + c[1][1] + c[2][1] + c[3][1]) / 4)),
            col,
            lw,
        )
    return im


def _samples(n: int, seed: int, rules: str, config: SynthConfig | None) -> Iterator[Sample]:
    for i in range(n):
        yield render_sample(sample_seed(seed, i), rules, config)


def preview(
    out_path: str | os.PathLike[str],
    n: int = 16,
    seed: int = 0,
    rules: str = "riichi",
    config: SynthConfig | None = None,
    cell_width: int = 480,
    boxes: bool = True,
) -> Path:
    """Write a contact sheet of ``n`` renders (boxes drawn) to ``out_path`` (JPEG or PNG)."""
    cells = []
    for sample in _samples(n, seed, rules, config):
        h, w = sample.image.shape[:2]
        im = draw_boxes(sample, max(1, round(0.8 * w / cell_width))) if boxes else sample.image
        ch = round(cell_width * 3 / 4)
        scale = min(cell_width / w, ch / h)
        small = cv2.resize(im, (max(1, round(w * scale)), max(1, round(h * scale))), interpolation=cv2.INTER_AREA)
        cell = np.full((ch, cell_width, 3), 30, np.uint8)
        y0, x0 = (ch - small.shape[0]) // 2, (cell_width - small.shape[1]) // 2
        cell[y0 : y0 + small.shape[0], x0 : x0 + small.shape[1]] = small
        cells.append(cell)
    cols = max(1, math.ceil(math.sqrt(len(cells))))
    rows = math.ceil(len(cells) / cols)
    blank = np.full_like(cells[0], 30)
    grid = [
        np.hstack(cells[r * cols : (r + 1) * cols] + [blank] * (cols - len(cells[r * cols : (r + 1) * cols])))
        for r in range(rows)
    ]
    sheet = np.vstack(grid)
    out = Path(out_path)
    out.parent.mkdir(parents=True, exist_ok=True)
    params = [cv2.IMWRITE_JPEG_QUALITY, 80] if out.suffix.lower() in (".jpg", ".jpeg") else []
    ok, enc = cv2.imencode(out.suffix or ".jpg", sheet, params)
    if not ok:  # pragma: no cover
        raise RuntimeError(f"cannot encode {out}")
    out.write_bytes(enc.tobytes())
    return out
