"""The crop arithmetic shared by the runtime and the renderer's training crops."""

from __future__ import annotations

import numpy as np
import pytest

from vision.models import crop_tile, cut_tile, cut_window, face_angles


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


@pytest.mark.parametrize(("box", "turned"), [((10, 10, 40, 50), False), ((10, 10, 70, 40), True),
                                             ((10, 10, 40, 40), False)])
def test_cut_window_says_where_and_whether_cut_tile_turns(box: tuple[int, ...], turned: bool) -> None:
    img = _gradient(100, 120)
    xa, ya, xb, yb, t = cut_window(box, (0.06,) * 4, (120, 100))
    assert t is turned
    crop = cut_tile(img, box)
    assert crop.shape[:2] == ((xb - xa, yb - ya)[::-1] if not t else (xb - xa, yb - ya))


@pytest.mark.parametrize(("crop_deg", "turned", "image_deg"), [
    (0.0, False, 0.0), (180.0, False, 180.0), (90.0, False, 90.0), (-90.0, True, 180.0), (10.0, True, -80.0),
])
def test_face_angles_undo_the_turn_of_the_crop(crop_deg: float, turned: bool, image_deg: float) -> None:
    a = np.radians(crop_deg)
    out = face_angles(np.array([[np.sin(a), np.cos(a), np.sin(2 * a), np.cos(2 * a)]]), [turned])
    assert ((out[0, 0] - image_deg + 180) % 360) - 180 == pytest.approx(0.0, abs=1e-6)
    assert out[0, 1] == pytest.approx(1.0)


def test_face_angles_trust_the_axis_and_report_an_unsure_top() -> None:
    # a face that looks the same upside down: the axis is sure (up/down), the top is not
    out = face_angles(np.array([[0.05, -0.2, 0.0, 1.0]]), [False])
    assert abs(((out[0, 0] - 180.0 + 180) % 360) - 180) < 1e-6  # the weak vote says "down"
    assert out[0, 1] == pytest.approx(np.hypot(0.05, 0.2))
