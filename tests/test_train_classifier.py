"""datasets.train_classifier without torch: input sizes of the batches and augmented views."""

from __future__ import annotations

import random

import numpy as np
import pytest

from datasets.train_classifier import INPUT_SIZE, augment, model_input


@pytest.mark.parametrize("size", [INPUT_SIZE, (60, 80), (64, 88)])
def test_batches_and_views_take_the_requested_input_size(size: tuple[int, int]) -> None:
    crops = [np.random.default_rng(k).integers(0, 255, (130 + k, 97, 3), dtype=np.uint8) for k in range(3)]
    x = model_input(crops, size)
    assert x.shape == (3, 3, size[1], size[0]) and x.dtype == np.float32 and 0.0 <= x.min() <= x.max() <= 1.0
    rng = random.Random(0)
    for crop in crops:
        view, turn = augment(crop, rng, size)
        assert view.shape == (size[1], size[0], 3) and turn in (0.0, 90.0, -90.0, 180.0)



def test_sideways_crops_are_those_whose_face_lies_near_90_degrees() -> None:
    from datasets.train_classifier import sideways_crops

    img = np.zeros((4, 4, 3), np.uint8)
    crops = [(img, 1, a) for a in (85.0, 3.0, -100.0, 271.0, 125.0, float("nan"), 180.0)]
    assert [c[2] for c in sideways_crops(crops)] == [85.0, -100.0, 271.0]
    assert [c[2] for c in sideways_crops(crops, within_deg=40.0)] == [85.0, -100.0, 271.0, 125.0]
