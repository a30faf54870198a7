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


class _StubClassifier:
    """Reads each box by a table keyed on its left edge; records what it was asked to read."""

    def __init__(self, has_back: bool, read: dict[float, int]) -> None:
        self.has_back = has_back
        self.read = read
        self.asked: list[float] = []

    def classify(self, bgr: np.ndarray, boxes: list[tuple[float, ...]]) -> tuple[np.ndarray, np.ndarray]:
        self.asked += [b[0] for b in boxes]
        probs = np.full((len(boxes), 38), 0.01 / 37, np.float32)
        for i, b in enumerate(boxes):
            probs[i, self.read[b[0]]] = 0.99
        return probs, np.tile([[5.0, 0.9]], (len(boxes), 1))


def _reader(classifier: _StubClassifier) -> object:
    from vision.pipeline import PhotoReader, VisionSettings

    return PhotoReader(None, classifier, VisionSettings())  # type: ignore[arg-type]


def test_a_classifier_that_reads_backs_decides_which_tiles_are_face_down() -> None:
    from vision.models import TileBox

    tiles = [TileBox((0.0, 0, 40, 60), 0.9, False), TileBox((50.0, 0, 90, 60), 0.8, True)]
    stub = _StubClassifier(True, {0.0: 37, 50.0: 31})  # the localizer had them the other way round
    dets = _reader(stub).classify_tiles(np.zeros((80, 100, 3), np.uint8), tiles)  # type: ignore[attr-defined]
    assert stub.asked == [0.0, 50.0]
    assert [d.cls for d in dets] == [37, 31]
    assert dets[0].face_angle is None and dets[1].face_angle == 5.0
    assert dets[1].confidence == pytest.approx(0.99 * 0.8)


def test_an_older_classifier_leaves_face_down_tiles_to_the_localizer() -> None:
    from vision.models import TileBox

    tiles = [TileBox((0.0, 0, 40, 60), 0.9, False), TileBox((50.0, 0, 90, 60), 0.8, True)]
    stub = _StubClassifier(False, {0.0: 4})
    dets = _reader(stub).classify_tiles(np.zeros((80, 100, 3), np.uint8), tiles)  # type: ignore[attr-defined]
    assert stub.asked == [0.0]
    assert [d.cls for d in dets] == [4, 37]
    assert dets[1].confidence == 0.8 and dets[1].face_angle is None


def test_small_tiles_get_the_photo_decoded_again_larger_for_their_crops() -> None:
    import cv2

    from vision.image import decode_image
    from vision.models import TileBox
    from vision.pipeline import PhotoReader, VisionSettings

    rng = np.random.default_rng(0)
    data = cv2.imencode(".jpg", (rng.random((1200, 1600, 3)) * 255).astype(np.uint8))[1].tobytes()
    reader = PhotoReader(None, None, VisionSettings(min_tile_px=48))  # type: ignore[arg-type]
    small = decode_image(data, max_side=400)
    assert small.scale == 0.25
    big_tiles = [TileBox((10.0, 10.0, 60.0, 80.0), 0.9, False)]  # 50 px: big enough
    assert reader.sharpen(small, big_tiles)[0] is small
    timings: dict[str, float] = {}
    tiles = [TileBox((10.0, 10.0, 40.0, 52.0), 0.9, False), TileBox((50.0, 10.0, 92.0, 40.0), 0.8, True)]
    larger, moved = reader.sharpen(small, tiles, timings)  # 30 px short sides: 48/30 = 1.6× wanted → 1/2
    assert larger.scale == 0.5 and larger.bgr.shape[:2] == (600, 800) and "redecode" in timings
    assert [t.box for t in moved] == [(20.0, 20.0, 80.0, 104.0), (100.0, 20.0, 184.0, 80.0)]
    assert [(t.confidence, t.face_down) for t in moved] == [(0.9, False), (0.8, True)]
