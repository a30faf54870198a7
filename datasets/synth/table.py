"""Procedural table surfaces (felt, wood, cloth) and sensor noise, generated once per process.

Each surface is a seamless grey pattern; a render colourises it with a 256-entry colour ramp.
"""

from __future__ import annotations

import functools

import cv2
import numpy as np

PATTERN_SIZE = 512
KINDS = ("felt", "wood", "cloth", "mat")
# (dark, light) BGR ramps per kind
FELT_COLORS = [
    ((40, 90, 20), (70, 150, 45)),
    ((90, 50, 20), (160, 100, 50)),
    ((50, 50, 120), (80, 80, 180)),
    ((40, 40, 40), (85, 85, 85)),
    ((90, 80, 30), (150, 140, 70)),
    ((25, 70, 45), (55, 125, 85)),
]
WOOD_COLORS = [
    ((30, 60, 110), (80, 130, 190)),
    ((20, 40, 70), (60, 95, 140)),
    ((60, 110, 160), (130, 180, 220)),
    ((25, 35, 50), (55, 75, 100)),
]
CLOTH_COLORS = [
    ((150, 150, 150), (225, 225, 225)),
    ((70, 110, 150), (140, 180, 215)),
    ((120, 80, 60), (200, 160, 130)),
    ((60, 60, 150), (130, 130, 215)),
]
MAT_COLORS = [((140, 140, 140), (200, 200, 200)), ((40, 40, 40), (90, 90, 90)), ((150, 165, 170), (205, 215, 220))]
COLORS = {"felt": FELT_COLORS, "wood": WOOD_COLORS, "cloth": CLOTH_COLORS, "mat": MAT_COLORS}
N_VARIANTS = 2


def _periodic_blur(img: np.ndarray, sigma_y: float, aspect: float = 1.0) -> np.ndarray:
    """Gaussian blur that wraps around (the pattern stays seamless); x sigma = aspect * y."""
    sigma_x = sigma_y * aspect
    py, px = int(3 * sigma_y) + 1, int(3 * sigma_x) + 1
    reps = (1 + 2 * (py // img.shape[0] + 1), 1 + 2 * (px // img.shape[1] + 1))
    p = np.tile(img, reps)
    b = cv2.GaussianBlur(p, (0, 0), sigmaX=sigma_x, sigmaY=sigma_y)
    oy = (reps[0] // 2) * img.shape[0]
    ox = (reps[1] // 2) * img.shape[1]
    return b[oy : oy + img.shape[0], ox : ox + img.shape[1]]


def _norm(img: np.ndarray) -> np.ndarray:
    lo, hi = np.percentile(img, [1, 99])
    return np.clip((img - lo) / max(hi - lo, 1e-6), 0, 1).astype(np.float32)


@functools.lru_cache(maxsize=16)
def pattern(kind: str, variant: int) -> np.ndarray:
    """A seamless grey pattern (uint8, PATTERN_SIZE square) of one table kind."""
    n = PATTERN_SIZE
    rng = np.random.default_rng(1000 + 17 * KINDS.index(kind) + variant)
    yy, xx = np.mgrid[0:n, 0:n].astype(np.float32) / n
    if kind == "felt":
        fine = _periodic_blur(rng.normal(0, 1, (n, n)).astype(np.float32), 0.8)
        blot = _periodic_blur(rng.normal(0, 1, (n, n)).astype(np.float32), 24)
        g = 0.55 + 0.14 * _norm(fine) + 0.22 * (_norm(blot) - 0.5)
    elif kind == "wood":
        # long grain along x: anisotropic noise bends straight growth lines
        bend = _periodic_blur(rng.normal(0, 1, (n, n)).astype(np.float32), 12, 8.0)
        bend = (_norm(bend) - 0.5) * 2
        freq = int(rng.integers(10, 22))
        phase = freq * yy + 0.8 * bend
        saw = (phase - np.floor(phase)) ** float(rng.uniform(1.5, 3.0))  # late-wood bands
        fibre = _periodic_blur(rng.normal(0, 1, (n, n)).astype(np.float32), 0.6, 30.0)
        pores = _periodic_blur(rng.normal(0, 1, (n, n)).astype(np.float32), 0.5, 4.0)
        g = 0.55 * saw + 0.3 * _norm(fibre) + 0.15 * _norm(pores)
        g = 0.2 + 0.8 * _norm(g)
    elif kind == "cloth":
        period = int(rng.choice([4, 6, 8]))
        wx = 0.5 + 0.5 * np.sin(2 * np.pi * xx * n / period)
        wy = 0.5 + 0.5 * np.sin(2 * np.pi * yy * n / period)
        check = ((np.floor(xx * n / period) + np.floor(yy * n / period)) % 2).astype(np.float32)
        weave = check * wx + (1 - check) * wy
        mott = _periodic_blur(rng.normal(0, 1, (n, n)).astype(np.float32), 12)
        g = 0.4 + 0.35 * weave + 0.18 * (_norm(mott) - 0.5) + 0.05
    else:  # mat / laminate: smooth with faint speckle
        mott = _periodic_blur(rng.normal(0, 1, (n, n)).astype(np.float32), 40)
        speck = _periodic_blur(rng.normal(0, 1, (n, n)).astype(np.float32), 0.7)
        g = 0.5 + 0.2 * (_norm(mott) - 0.5) + 0.1 * (_norm(speck) - 0.5)
    return np.clip(g * 255, 0, 255).astype(np.uint8)


def color_ramp(dark: tuple[int, int, int], light: tuple[int, int, int], jitter: np.ndarray) -> np.ndarray:
    """A 256x1x3 LUT from ``dark`` to ``light`` (BGR), scaled per channel by ``jitter``."""
    t = np.linspace(0, 1, 256, dtype=np.float32)[:, None]
    lut = (np.array(dark, np.float32) * (1 - t) + np.array(light, np.float32) * t) * jitter
    return np.clip(lut, 0, 255).astype(np.uint8).reshape(256, 1, 3)


@functools.lru_cache(maxsize=1)
def noise_field(n: int = 1536) -> np.ndarray:
    """Sensor noise as uint8 centred on 128 (n x n x 3, std ~ 32), partly correlated across
    channels (luminance noise) and partly not (chroma noise)."""
    rng = np.random.default_rng(77)
    lum = rng.normal(0, 1, (n, n, 1)).astype(np.float32)
    chroma = rng.normal(0, 1, (n, n, 3)).astype(np.float32)
    f = 0.75 * lum + 0.55 * chroma
    return np.clip(128.0 + f * 32.0, 0, 255).astype(np.uint8)
