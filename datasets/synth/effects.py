"""A phone camera's look over a clean render (white balance, tone, blur, sensor noise)."""

from __future__ import annotations

import math
from typing import Any

import cv2
import numpy as np

from . import table


def photo_effects(img: np.ndarray, rng: np.random.Generator, res: float) -> tuple[np.ndarray, dict[str, Any]]:
    """A phone camera's look over a clean render: white balance and tone, lens and motion blur,
    sensor noise. ``res`` scales pixel sizes (1 at 1280x960)."""
    h, w = img.shape[:2]
    info: dict[str, Any] = {}
    # tone curve: white balance, exposure, gamma, contrast in one LUT
    temp = float(np.clip(rng.normal(0, 1), -2, 2))  # colour temperature (blue <-> amber)
    gains = rng.uniform(0.95, 1.05, 3) * np.array([1.0 + 0.05 * temp, 1.0, 1.0 - 0.05 * temp])
    gains *= rng.uniform(0.88, 1.12)
    gamma = rng.uniform(0.85, 1.18)
    x = np.arange(256, dtype=np.float64) / 255.0
    lut = np.stack([np.clip(x * g, 0, 1) ** gamma for g in gains], axis=1)
    black = rng.uniform(0, 0.04)
    lut = np.clip((lut * (1 - black) + black) * 255.0 + 0.5, 0, 255).astype(np.uint8)
    img = cv2.LUT(img, lut.reshape(256, 1, 3))
    info["wb_gains"] = [round(float(g), 3) for g in gains]
    # lens blur (always a little) and sometimes motion blur
    sigma = rng.uniform(0.35, 1.3) * res
    if rng.random() < 0.12:
        sigma *= rng.uniform(1.5, 2.5)
    img = cv2.GaussianBlur(img, (0, 0), sigma)
    info["blur_sigma"] = round(float(sigma), 3)
    if rng.random() < 0.25:
        length = max(2, round(rng.uniform(2, 8) * res))
        ang = rng.uniform(0, math.pi)
        ker = np.zeros((length * 2 + 1, length * 2 + 1), np.float32)
        c = length
        dx, dy = math.cos(ang) * length / 2, math.sin(ang) * length / 2
        cv2.line(ker, (round(c - dx), round(c - dy)), (round(c + dx), round(c + dy)), 1.0, 1, cv2.LINE_AA)
        ker /= ker.sum()
        img = cv2.filter2D(img, -1, ker)
        info["motion_blur_px"] = length
    # sensor noise
    std = rng.uniform(1.0, 7.0)
    field_ = table.noise_field()
    n = field_.shape[0]
    if h > n or w > n:
        reps = (math.ceil(h / n) + 1, math.ceil(w / n) + 1, 1)
        field_ = np.tile(field_, reps)
    oy = int(rng.integers(0, field_.shape[0] - h + 1))
    ox = int(rng.integers(0, field_.shape[1] - w + 1))
    a = std / 32.0
    img = cv2.addWeighted(img, 1.0, field_[oy : oy + h, ox : ox + w], a, -128.0 * a)
    info["noise_std"] = round(float(std), 2)
    return img, info
