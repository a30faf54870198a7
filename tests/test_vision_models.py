"""The crop arithmetic shared by the runtime and the renderer's training crops."""

from __future__ import annotations

import numpy as np

from vision.models import crop_tile, cut_tile


def _gradient(h: int, w: int) -> np.ndarray:
    img = np.zeros((h, w, 3), np.uint8)
    img[:, :, 0] = np.arange(w, dtype=np.uint8)[None, :]  # blue grows to the right
    img[:, :, 1] = np.arange(h, dtype=np.uint8)[:, None]  # green grows downwards
    return img


def test_portrait_box_is_cut_as_it_is_with_margins() -> None:
    img = _gradient(200, 200)
    crop = cut_tile(img, (50, 40, 80, 80), (0.1, 0.0, 0.0, 0.25))
    assert crop.shape[:2] == (51, 34)  # 40 + 25 % below (+1 inclusive) × 30 + 10 % on the left (+1)
    assert crop[0, 0, 0] == 47 and crop[0, 0, 1] == 40


def test_landscape_box_is_turned_clockwise() -> None:
    img = _gradient(200, 200)
    crop = cut_tile(img, (20, 100, 100, 140), (0.0, 0.0, 0.0, 0.0))
    h, w = crop.shape[:2]
    assert h > w
    # clockwise: the box's left column becomes the crop's top row, its bottom row the left column
    assert crop[0, :, 0].max() == 20 and crop[-1, :, 0].min() == 100
    assert crop[:, 0, 1].min() == 140 and crop[:, -1, 1].max() == 100


def test_square_ish_box_is_not_turned() -> None:
    img = _gradient(100, 100)
    crop = cut_tile(img, (10, 10, 50, 45), (0.0, 0.0, 0.0, 0.0))
    assert crop[0, -1, 0] > crop[0, 0, 0]  # x still runs left to right


def test_margins_stop_at_the_image_border() -> None:
    img = _gradient(60, 60)
    crop = cut_tile(img, (0, 0, 30, 50), (0.5, 0.5, 0.0, 0.0))
    assert crop[0, 0, 0] == 0 and crop[0, 0, 1] == 0


def test_crop_tile_resizes_and_survives_an_empty_box() -> None:
    img = _gradient(100, 100)
    assert crop_tile(img, (10, 10, 40, 50), (48, 64)).shape == (64, 48, 3)
    assert crop_tile(img, (200, 200, 230, 240), (48, 64)).shape == (64, 48, 3)
