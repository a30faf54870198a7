"""The crop arithmetic shared by the runtime and the renderer's training crops."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from paiscan.vision.models import Letterbox, TileBox, crop_tile, cut_tile, cut_window, decode_yolo, face_angles


def _gradient(h: int, w: int) -> np.ndarray:
    img = np.zeros((h, w, 3), np.uint8)
    img[:, :, 0] = np.arange(w, dtype=np.uint8)[None, :]  # blue grows to the right
    img[:, :, 1] = np.arange(h, dtype=np.uint8)[:, None]  # green grows downwards
    return img


def test_a_box_found_in_the_letterboxs_padding_is_no_tile() -> None:
    # a 200 x 100 photo in a 64 px input: 16 px of padding above and below the photo
    lb = Letterbox(scale=0.32, pad_x=0.0, pad_y=16.0, size=64)
    # centre x, centre y, width, height, then the two class scores; one box per column
    boxes = np.array(
        [
            [20.0, 30.0, 6.0, 8.0, 0.9, 0.0],  # on the photo
            [40.0, 52.0, 6.0, 4.0, 0.8, 0.0],  # in the padding below it: empty once clipped
            [50.0, 47.0, 6.0, 4.0, 0.7, 0.0],
        ]
    )  # reaching into the padding: clipped, kept
    tiles = decode_yolo(boxes.T[None], lb, image_size=(200, 100))
    assert [round(t.confidence, 1) for t in tiles] == [0.9, 0.7]
    assert all(t.box[3] <= 100 and t.box[2] > t.box[0] and t.box[3] > t.box[1] for t in tiles)


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


@pytest.mark.parametrize(
    ("box", "turned"), [((10, 10, 40, 50), False), ((10, 10, 70, 40), True), ((10, 10, 40, 40), False)]
)
def test_cut_window_says_where_and_whether_cut_tile_turns(box: tuple[int, ...], turned: bool) -> None:
    img = _gradient(100, 120)
    xa, ya, xb, yb, t = cut_window(box, (0.06,) * 4, (120, 100))
    assert t is turned
    crop = cut_tile(img, box)
    assert crop.shape[:2] == ((xb - xa, yb - ya)[::-1] if not t else (xb - xa, yb - ya))


@pytest.mark.parametrize(
    ("crop_deg", "turned", "image_deg"),
    [
        (0.0, False, 0.0),
        (180.0, False, 180.0),
        (90.0, False, 90.0),
        (-90.0, True, 180.0),
        (10.0, True, -80.0),
    ],
)
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
    assert out[0, 2] == pytest.approx(1.0)


def test_face_angles_report_an_unsure_axis() -> None:
    # a face that looks the same turned by 90° (a blank white dragon): the doubled angle too
    # regresses towards zero
    out = face_angles(np.array([[0.1, 0.1, 0.15, -0.2]]), [False])
    assert out[0, 2] == pytest.approx(0.25)


class _StubClassifier:
    """Reads each box by a table keyed on its left edge; records what it was asked to read."""

    def __init__(self, has_back: bool, read: dict[float, int], axis_sure: float = 0.95) -> None:
        self.has_back = has_back
        self.read = read
        self.axis_sure = axis_sure
        self.asked: list[float] = []

    def classify(
        self,
        bgr: np.ndarray,
        boxes: list[tuple[float, ...]],
        recheck_below: float = 0.0,
        recheck_limit: int = 12,
        whole: Any = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        self.asked += [b[0] for b in boxes]
        self.whole = whole
        probs = np.full((len(boxes), 38), 0.01 / 37, np.float32)
        for i, b in enumerate(boxes):
            probs[i, self.read[b[0]]] = 0.99
        return probs, np.tile([[5.0, 0.9, self.axis_sure]], (len(boxes), 1))


def _reader(classifier: _StubClassifier) -> object:
    from paiscan.vision.pipeline import PhotoReader, VisionSettings

    return PhotoReader(None, classifier, VisionSettings())  # type: ignore[arg-type]


def test_a_classifier_that_reads_backs_decides_which_tiles_are_face_down() -> None:
    from paiscan.vision.models import TileBox

    tiles = [TileBox((0.0, 0, 40, 60), 0.9, False), TileBox((50.0, 0, 90, 60), 0.8, True)]
    stub = _StubClassifier(True, {0.0: 37, 50.0: 31})  # the localizer had them the other way round
    dets = _reader(stub).classify_tiles(np.zeros((80, 100, 3), np.uint8), tiles)  # type: ignore[attr-defined]
    assert stub.asked == [0.0, 50.0]
    assert [d.cls for d in dets] == [37, 31]
    assert dets[0].face_angle is None and dets[1].face_angle == 5.0
    assert dets[1].confidence == pytest.approx(0.99 * 0.8)


def test_a_face_whose_axis_the_classifier_cannot_tell_gets_no_angle() -> None:
    # a blank white dragon looks the same turned by 90°: its axis is a guess, so the layout must
    # judge the tile from its box rather than from that guess
    from paiscan.vision.models import TileBox

    tiles = [TileBox((0.0, 0, 40, 60), 0.9, False)]
    unsure = _reader(_StubClassifier(True, {0.0: 31}, axis_sure=0.2)).classify_tiles(  # type: ignore[attr-defined]
        np.zeros((80, 100, 3), np.uint8), tiles
    )
    sure = _reader(_StubClassifier(True, {0.0: 31}, axis_sure=0.9)).classify_tiles(  # type: ignore[attr-defined]
        np.zeros((80, 100, 3), np.uint8), tiles
    )
    assert unsure[0].cls == sure[0].cls == 31
    assert unsure[0].face_angle is None and sure[0].face_angle == 5.0


@pytest.mark.parametrize(("cls", "has_angle"), [(9, False), (31, False), (11, True)])
def test_a_round_faces_axis_needs_more_certainty(cls: int, has_angle: bool) -> None:
    # the one of circles (9) and the blank white dragon (31) look alike turned by 90°: an axis read
    # with 0.4 certainty is dropped for them, kept for a three of circles (11)
    from paiscan.vision.models import TileBox

    tiles = [TileBox((0.0, 0, 40, 60), 0.9, False)]
    dets = _reader(_StubClassifier(True, {0.0: cls}, axis_sure=0.4)).classify_tiles(  # type: ignore[attr-defined]
        np.zeros((80, 100, 3), np.uint8), tiles
    )
    assert dets[0].cls == cls and (dets[0].face_angle is not None) == has_angle


def test_an_older_classifier_leaves_face_down_tiles_to_the_localizer() -> None:
    from paiscan.vision.models import TileBox

    tiles = [TileBox((0.0, 0, 40, 60), 0.9, False), TileBox((50.0, 0, 90, 60), 0.8, True)]
    stub = _StubClassifier(False, {0.0: 4})
    dets = _reader(stub).classify_tiles(np.zeros((80, 100, 3), np.uint8), tiles)  # type: ignore[attr-defined]
    assert stub.asked == [0.0]
    assert [d.cls for d in dets] == [4, 37]
    assert dets[1].confidence == 0.8 and dets[1].face_angle is None


def test_small_tiles_get_the_photo_decoded_again_larger_for_their_crops() -> None:
    import cv2

    from paiscan.vision.image import decode_image
    from paiscan.vision.models import TileBox
    from paiscan.vision.pipeline import PhotoReader, VisionSettings

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


class _BlobLocalizer:
    """Stands in for the localizer: finds white rectangles, but only those at least ``min_px``
    short in its ``size``-pixel input, as a detector misses tiles too small in its input."""

    def __init__(self, size: int = 384, min_px: float = 0.0) -> None:
        self.size, self.min_px, self.iou, self.conf, self.calls = size, min_px, 0.6, 0.45, 0

    def __call__(self, bgr: np.ndarray, floor: float | None = None) -> list[TileBox]:
        import cv2

        self.calls += 1
        scale = self.size / max(bgr.shape[:2])
        n, _, stats, _ = cv2.connectedComponentsWithStats((bgr[:, :, 0] > 128).astype(np.uint8))
        return [
            TileBox((float(x), float(y), float(x + w), float(y + h)), 0.9, False)
            for x, y, w, h, _ in stats[1:n]
            if min(w, h) * scale >= self.min_px
        ]

    def each(self, images: list[np.ndarray], floor: float | None = None) -> list[list[TileBox]]:
        return [self(bgr) for bgr in images]

    def in_windows(
        self, bgr: np.ndarray, windows: list[tuple[int, int, int, int]], floor: float | None = None
    ) -> list[TileBox]:
        from paiscan.vision.models import Localizer

        return Localizer.in_windows(self, bgr, windows, floor=floor)  # type: ignore[arg-type]


def _tiles_image(boxes: list[tuple[int, int, int, int]], size: tuple[int, int] = (1280, 960)) -> np.ndarray:
    img = np.zeros((size[1], size[0], 3), np.uint8)
    for x1, y1, x2, y2 in boxes:
        img[y1:y2, x1:x2] = 255
    return img


@pytest.mark.parametrize(
    ("n", "w", "h", "x0", "y0", "dy"),
    [
        (14, 16, 22, 100, 500, 0),
        (20, 12, 16, 40, 100, 35),
        (9, 22, 30, 900, 700, -20),
        (30, 10, 14, 5, 5, 30),
    ],
)
def test_zoom_windows_show_every_tile_whole_in_one_window(n: int, w: int, h: int, x0: int, y0: int, dy: int) -> None:
    from paiscan.vision.models import zoom_windows

    boxes = np.array(
        [[x0 + i * (w + 4), y0 + (i * dy) // 4, x0 + i * (w + 4) + w, y0 + (i * dy) // 4 + h] for i in range(n)],
        dtype=float,
    )
    boxes = boxes[(boxes[:, 2] <= 1280) & (boxes[:, 3] <= 960)]
    windows = zoom_windows(boxes, (1280, 960), 384, 18.0, 28.0, max_windows=8)
    assert 1 <= len(windows) <= 8
    for b in boxes:
        assert any(xa <= b[0] and ya <= b[1] and b[2] <= xb and b[3] <= yb for xa, ya, xb, yb in windows)
    for xa, ya, xb, yb in windows:
        assert 0 <= xa < xb <= 1280 and 0 <= ya < yb <= 960
        assert 1280 / max(xb - xa, yb - ya) >= 1.25  # each window enlarges the tiles


def test_zoom_windows_keep_to_the_window_budget() -> None:
    from paiscan.vision.models import zoom_windows

    grid = np.array([[x, y, x + 10, y + 14] for x in range(0, 1270, 40) for y in range(0, 940, 60)], dtype=float)
    assert len(zoom_windows(grid, (1280, 960), 384, 18.0, 28.0, max_windows=4)) <= 4


def test_tiles_found_window_by_window_are_found_once_where_they_are() -> None:
    from paiscan.vision.models import zoom_windows

    truth = [(100 + 20 * i, 500, 116 + 20 * i, 522) for i in range(14)] + [(300, 420, 316, 442), (340, 430, 356, 452)]
    img = _tiles_image(truth)
    loc = _BlobLocalizer()
    windows = zoom_windows(np.array(truth, dtype=float), (1280, 960), 384, 18.0, 28.0)
    assert len(windows) > 1  # some tiles are cut by a window's edge, and must be seen whole in another
    found = loc.in_windows(img, windows)
    assert sorted(t.box for t in found) == sorted(tuple(float(v) for v in b) for b in truth)


def test_small_tiles_are_looked_for_again_closer() -> None:
    from paiscan.vision.pipeline import PhotoReader, VisionSettings

    # large tiles (30 px: 9 px in the 384 px input, seen) and small ones between them (20 px: 6 px,
    # missed) along a row
    big = [(100 + 60 * i, 500, 130 + 60 * i, 540) for i in range(8)]
    small = [(135 + 60 * i, 505, 155 + 60 * i, 532) for i in range(7)]
    img = _tiles_image(big + small)
    loc = _BlobLocalizer(min_px=8.0)
    first = loc(img)
    assert len(first) == len(big)
    timings: dict[str, float] = {}
    reader = PhotoReader(loc, None, VisionSettings())  # type: ignore[arg-type]
    closer = reader.zoom(img, first, timings)
    assert sorted(t.box for t in closer) == sorted(tuple(float(v) for v in b) for b in big + small)
    assert "zoom" in timings
    off = PhotoReader(loc, None, VisionSettings(zoom_min_px=0))  # type: ignore[arg-type]
    calls = loc.calls
    assert off.zoom(img, first) == first and loc.calls == calls


class _CountingSession:
    """Reads every crop it is shown as ``logits``; counts the crops."""

    def __init__(self, logits: np.ndarray) -> None:
        self.logits, self.shown = logits, 0

    def run(self, _: object, feeds: dict[str, np.ndarray]) -> list[np.ndarray]:
        self.shown += len(feeds["x"])
        return [np.tile(self.logits, (len(feeds["x"]), 1))]


def _classifier_over(session: _CountingSession) -> object:
    from paiscan.vision.models import Classifier

    clf = Classifier.__new__(Classifier)
    clf.session, clf.input_name, clf.batch, clf.width, clf.height = session, "x", 32, 24, 32
    clf.classes = list(range(38))
    return clf


def test_an_unsure_tile_is_read_again_from_more_crops_and_the_readings_averaged() -> None:
    from paiscan.vision.models import RECHECK_CROPS

    sure_three = np.full(38, -10.0, np.float32)
    sure_three[3] = 10.0  # every crop reads as class 3, surely
    session = _CountingSession(sure_three)
    clf: Any = _classifier_over(session)
    probs = np.zeros((2, 38), np.float32)
    probs[0, [7, 3]] = 0.5, 0.4  # unsure: 7 or 3
    probs[1, 7] = 0.95  # sure
    img = np.full((100, 100, 3), 128, np.uint8)
    boxes = [(10.0, 10.0, 34.0, 42.0), (50.0, 10.0, 74.0, 42.0)]
    assert clf.recheck(img, boxes, probs, below=0.7) == 1
    assert session.shown == len(RECHECK_CROPS)  # only the unsure tile, from each crop
    assert probs[0].argmax() == 3 and probs[0].sum() == pytest.approx(0.9 / 7 + 6 / 7, abs=1e-3)
    assert probs[1, 7] == pytest.approx(0.95)


def test_an_unsure_tile_with_a_known_angle_is_also_read_upright() -> None:
    from paiscan.vision.models import RECHECK_CROPS, UPRIGHT_SCALES

    sure_three = np.full(38, -10.0, np.float32)
    sure_three[3] = 10.0
    session = _CountingSession(sure_three)
    clf: Any = _classifier_over(session)
    probs = np.zeros((2, 38), np.float32)
    probs[0, [7, 3]] = 0.5, 0.4
    probs[1, 7] = 0.95
    img = np.full((100, 100, 3), 128, np.uint8)
    boxes = [(10.0, 10.0, 40.0, 40.0), (50.0, 10.0, 74.0, 42.0)]
    assert clf.recheck(img, boxes, probs, below=0.7, angles=[45.0, 0.0]) == 1
    assert session.shown == len(RECHECK_CROPS) + len(UPRIGHT_SCALES)
    boxed = (0.4 + len(RECHECK_CROPS)) / (1 + len(RECHECK_CROPS))  # class 3 over the box's crops
    assert probs[0, 3] == pytest.approx((boxed + 1.0) / 2, abs=1e-3)  # the upright readings count half
    assert probs[1, 7] == pytest.approx(0.95)


def test_a_tile_the_frame_cuts_is_not_read_upright() -> None:
    from paiscan.vision.models import RECHECK_CROPS

    session = _CountingSession(np.zeros(38, np.float32))
    clf: Any = _classifier_over(session)
    probs = np.zeros((1, 38), np.float32)
    probs[0, 3] = 0.4
    img = np.full((100, 100, 3), 128, np.uint8)
    assert clf.recheck(img, [(70.0, 10.0, 100.0, 40.0)], probs, below=0.7, angles=[45.0]) == 1
    assert session.shown == len(RECHECK_CROPS)  # the box's crops only


@pytest.mark.parametrize(("neighbours", "turned"), [(2, True), (3, False)])
def test_a_tile_in_a_heap_is_not_read_upright(neighbours: int, turned: bool) -> None:
    """In a row a tile touches two others; in a heap or a pond more, and a wider turned cut holds
    more of them."""
    from paiscan.vision.models import RECHECK_CROPS, UPRIGHT_SCALES

    session = _CountingSession(np.zeros(38, np.float32))
    clf: Any = _classifier_over(session)
    around = [(25.0, 40.0, 45.0, 60.0), (55.0, 40.0, 75.0, 60.0), (40.0, 25.0, 60.0, 45.0)][:neighbours]
    boxes = [(40.0, 40.0, 60.0, 60.0), *around]
    probs = np.zeros((len(boxes), 38), np.float32)
    probs[0, 3] = 0.4
    probs[1:, 3] = 0.99
    assert clf.recheck(np.full((100, 100, 3), 128, np.uint8), boxes, probs, below=0.7, angles=[45.0] * len(boxes)) == 1
    assert session.shown == len(RECHECK_CROPS) + (len(UPRIGHT_SCALES) if turned else 0)


@pytest.mark.parametrize("angle", [90.0, -90.0, 45.0, 180.0])
def test_upright_tile_turns_the_faces_top_up(angle: float) -> None:
    """A face whose top points at ``angle`` (a mark at its top end) comes out with the mark on top."""
    import cv2

    from paiscan.vision.models import upright_tile

    face = np.zeros((40, 30, 3), np.uint8)
    face[4:12, 8:22] = 255  # the mark at the top
    face[14:36, 12:18] = 90  # the rest of the face
    img = np.zeros((200, 200, 3), np.uint8)
    img[80:120, 85:115] = face
    turn = cv2.getRotationMatrix2D((100.0, 100.0), -angle, 1.0)  # clockwise by the angle
    img = cv2.warpAffine(img, turn, (200, 200))
    ys, xs = np.nonzero(img[:, :, 0])
    box = (float(xs.min()), float(ys.min()), float(xs.max() + 1), float(ys.max() + 1))
    out = upright_tile(img, box, angle, (30, 40), scale=1.0)[:, :, 0]
    rows = np.nonzero((out > 200).any(axis=1))[0]
    assert len(rows) and rows.max() < 20  # the mark in the upper half


def test_only_the_least_sure_tiles_are_read_again_up_to_the_limit() -> None:
    from paiscan.vision.models import RECHECK_CROPS

    session = _CountingSession(np.zeros(38, np.float32))  # flat readings
    clf: Any = _classifier_over(session)
    sure = np.array([0.6, 0.3, 0.5, 0.9, 0.4])
    probs = np.zeros((5, 38), np.float32)
    probs[:, 0] = sure
    boxes = [(10.0 * i, 0.0, 10.0 * i + 8, 12.0) for i in range(5)]
    assert clf.recheck(np.zeros((20, 60, 3), np.uint8), boxes, probs, below=0.7, limit=2) == 2
    assert session.shown == 2 * len(RECHECK_CROPS)
    changed = [i for i in range(5) if not np.isclose(probs[i, 0], sure[i])]
    assert changed == [1, 4]  # the two least sure (0.3, 0.4), averaged with flat readings


_ROW = [(10.0 + 40 * k, 100.0, 46.0 + 40 * k, 148.0) for k in range(4)]  # whole 36×48 tiles standing
_LYING = [(10.0 + 52 * k, 100.0, 58.0 + 52 * k, 136.0) for k in range(4)]  # whole 48×36 tiles lying


@pytest.mark.parametrize(
    ("row", "box", "whole"),
    [
        (_ROW, (170.0, 0.0, 206.0, 30.0), (170.0, -18.0, 206.0, 30.0)),  # its top cut: 48 tall again
        (_ROW, (170.0, 280.0, 206.0, 300.0), (170.0, 280.0, 206.0, 328.0)),  # its bottom cut
        (_ROW, (0.0, 100.0, 20.0, 148.0), (-16.0, 100.0, 20.0, 148.0)),  # its left side cut
        (_ROW, (380.0, 100.0, 400.0, 148.0), (380.0, 100.0, 416.0, 148.0)),  # its right side cut
        (_ROW, (170.0, 0.0, 206.0, 40.0), (170.0, -8.0, 206.0, 40.0)),  # longer than lying: stands
        (_LYING, (0.0, 100.0, 40.0, 136.0), (-8.0, 100.0, 40.0, 136.0)),  # lies as its neighbours lie
        (_LYING, (300.0, 0.0, 348.0, 20.0), (300.0, -16.0, 348.0, 20.0)),
        (_ROW, (0.0, 0.0, 30.0, 30.0), None),  # cut on two sides: its size is not known
        (_ROW, (170.0, 10.0, 206.0, 58.0), None),  # not cut
        (_ROW, (170.0, 0.0, 206.0, 60.0), None),  # at the frame, but as long as a whole tile
        ([], (170.0, 0.0, 206.0, 30.0), None),  # no whole tile beside it to size it by
    ],
)
def test_a_tile_the_frame_cuts_gets_the_box_it_would_have_whole(
    row: list[tuple[float, ...]], box: tuple[float, ...], whole: tuple[float, ...] | None
) -> None:
    from paiscan.vision.models import whole_tile_box

    found = whole_tile_box([*row, box], len(row), (400, 300), 2.0)
    assert found == (None if whole is None else pytest.approx(whole))


def test_a_whole_tile_is_cut_beyond_the_frame_with_the_edge_repeated() -> None:
    from paiscan.vision.models import cut_beyond

    img = np.zeros((100, 100, 3), np.uint8)
    img[:20, 40:70] = 200  # the visible bottom 20 px of a tile the top of the frame cuts
    img[15:20, 50:60] = 255  # a mark at its bottom
    crop = cut_beyond(img, (40.0, -20.0, 70.0, 20.0), margin=0.0)
    assert crop.shape[:2] == (41, 31)  # the whole tile's 40 px, not the 20 left
    assert (crop[:20, 1:30] == 200).all()  # beyond the frame: the edge's row repeated
    assert crop[36, 15].tolist() == [255, 255, 255]  # the mark stays at the bottom
    lying = cut_beyond(img, (-30.0, 40.0, 30.0, 70.0), margin=0.0)
    assert lying.shape[:2] == (61, 31)  # landscape, turned clockwise as cut_tile turns it


@pytest.mark.parametrize("whole_sure", [True, False])
def test_a_cut_tile_is_read_too_from_its_whole_size_and_the_surer_reading_kept(whole_sure: bool) -> None:
    logits = np.zeros(38, np.float32)  # unsure: every class alike
    if whole_sure:
        logits[3] = 20.0
    session = _CountingSession(logits)
    clf: Any = _classifier_over(session)
    probs = np.zeros((2, 38), np.float32)
    probs[0, [7, 3]] = 0.6, 0.3  # cut, read as 7
    probs[1, 7] = 0.6  # whole
    before = probs.copy()
    img = np.full((100, 100, 3), 128, np.uint8)
    assert clf.read_whole(img, [(10.0, -20.0, 34.0, 12.0), None], probs) == 1
    assert session.shown == 1  # the cut tile alone
    if whole_sure:
        assert probs[0].argmax() == 3 and probs[0, 3] == pytest.approx(1.0, abs=1e-3)
    else:
        assert probs[0].tolist() == before[0].tolist()
    assert probs[1].tolist() == before[1].tolist()
    assert clf.read_whole(img, [None, None], probs) == 0 and session.shown == 1


@pytest.mark.parametrize("on", [True, False])
def test_the_reader_gives_the_classifier_the_whole_boxes_of_the_tiles_the_frame_cuts(on: bool) -> None:
    from dataclasses import replace

    from paiscan.vision.models import TileBox
    from paiscan.vision.pipeline import PhotoReader, VisionSettings

    tiles = [TileBox(b, 0.9, False) for b in _ROW] + [TileBox((170.0, 0.0, 206.0, 30.0), 0.9, False)]
    stub = _StubClassifier(True, {b[0]: 5 for b in _ROW} | {170.0: 6})
    reader = PhotoReader(None, stub, replace(VisionSettings(), read_cut_whole=on))  # type: ignore[arg-type]
    dets = reader.classify_tiles(np.zeros((300, 400, 3), np.uint8), tiles)
    assert [d.cut for d in dets] == [False] * 4 + [True]
    if on:
        assert stub.whole[:4] == [None] * 4 and stub.whole[4] == pytest.approx((170.0, -18.0, 206.0, 30.0))
    else:
        assert stub.whole is None
    reader._read_again(np.zeros((300, 400, 3), np.uint8), dets, [0, 4])  # read again: sized by all the tiles
    assert stub.whole == ([None, pytest.approx((170.0, -18.0, 206.0, 30.0))] if on else None)


class _OneOutputSession(_CountingSession):
    def get_outputs(self) -> list[object]:
        return [object()]  # logits only: no orientation output


def test_the_share_a_classifier_gives_not_a_tile_leaves_the_tile_doubtful() -> None:
    from paiscan.vision.models import NOT_A_TILE

    felt = np.zeros(39, np.float32)
    felt[[NOT_A_TILE, 22]] = 4.0, 2.0  # mostly "no tile here", else 5s
    clf: Any = _classifier_over(_OneOutputSession(felt))
    clf.classes = list(range(39))
    assert clf.reads_not_a_tile
    probs, angles = clf.classify(np.zeros((40, 40, 3), np.uint8), [(5.0, 5.0, 29.0, 37.0)])
    assert probs.shape == (1, 38) and angles is None
    e = np.exp(felt - felt.max())
    assert int(probs[0].argmax()) == 22 and probs[0, 22] == pytest.approx(e[22] / e.sum())
    assert float(probs[0].sum()) == pytest.approx(1.0 - e[NOT_A_TILE] / e.sum())  # NOT_A_TILE's share left out


@pytest.mark.parametrize(("limit", "p", "again_as"), [(8, 0.92, 5), (0, 0.92, 5), (8, 0.97, 5), (8, 0.92, 6)])
def test_indicators_read_surely_are_read_again_and_the_hand_with_them(limit: int, p: float, again_as: int) -> None:
    # nothing in the hand checks an indicator, and the classifier is sometimes sure and wrong (a
    # 6m read 0.92 as 7m): the reading's indicators are read again from more crops; 0 turns it
    # off, and the surest (0.95 and over) are not read again
    from dataclasses import replace

    from test_layout_helpers import layout_boxes

    from paiscan.vision.pipeline import PhotoReader, VisionSettings
    from paiscan.vision.reading import read_hand

    dets = layout_boxes("123m456p789s1122z 2z", extras=[("7m", 3.0, 3.2)])
    dets = [replace(d, topk=((d.cls, p),)) for d in dets]
    reading = read_hand(dets)
    assert reading.to_dict()["hand"]["dora_indicators"] == ["7m"]
    stub = _StubClassifier(True, {dets[-1].box[0]: again_as})  # read again: a 6m (or the same 7m)
    reader = PhotoReader(None, stub, replace(VisionSettings(), recheck_roles_limit=limit))  # type: ignore[arg-type]
    again, reading_again = reader.read_roles_again(np.zeros((10, 10, 3), np.uint8), dets, reading)
    if limit and p < 0.95 and again_as == dets[-1].cls:  # read again, the same: the hand need not be read again
        assert stub.asked == [dets[-1].box[0]] and again is dets and reading_again is reading
    elif limit and p < 0.95:
        assert stub.asked == [dets[-1].box[0]]  # the indicator alone, not the hand's tiles
        assert again[:-1] == dets[:-1] and again[-1].cls == 5 and again[-1].topk[0] == (5, pytest.approx(0.99))
        assert reading_again.to_dict()["hand"]["dora_indicators"] == ["6m"]
    else:
        assert stub.asked == [] and again is dets and reading_again is reading


class _AgainClassifier(_StubClassifier):
    """Reads every box as its detection's class, read again surer (0.99), except those in
    ``again`` (left edge: the probabilities read); records what it was asked to read."""

    def __init__(self, dets: list[Any], again: dict[float, dict[int, float]]) -> None:
        super().__init__(True, {d.box[0]: d.cls for d in dets})
        self.again = again

    def classify(
        self,
        bgr: np.ndarray,
        boxes: list[tuple[float, ...]],
        recheck_below: float = 0.0,
        recheck_limit: int = 12,
        whole: Any = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        probs, angles = super().classify(bgr, boxes, recheck_below, recheck_limit, whole)
        for i, b in enumerate(boxes):
            if b[0] in self.again:
                probs[i] = 0.0
                for c, p in self.again[b[0]].items():
                    probs[i, c] = p
        return probs, angles


@pytest.mark.parametrize(
    ("limit", "again_as"), [(20, {0: 0.99}), (0, {0: 0.99}), (20, {1: 0.99}), (20, {1: 0.6, 0: 0.35})]
)
def test_a_hand_that_reads_valid_no_way_has_its_tiles_read_again(limit: int, again_as: dict[int, float]) -> None:
    # a chi's 1m read surely (0.9) as a 2m was never read again from more crops, and no reading
    # of the photo makes a winning hand: the hand row's tiles are all read again and the hand
    # read again, kept when it is valid; 0 turns it off. Read again still a 2m but unsure, a 1m
    # likely too, the hand is valid with the 1m
    from dataclasses import replace

    from test_layout_helpers import layout_boxes

    from paiscan.vision.pipeline import PhotoReader, VisionSettings
    from paiscan.vision.reading import read_hand

    dets = layout_boxes("456m456p78s11z 9s 1'23m", extras=[("7m", 3.0, 3.2)])
    called = next(i for i, d in enumerate(dets) if d.cls == 0 and d.rotated)
    dets = [
        replace(d, cls=1, topk=((1, 0.9),)) if i == called else replace(d, topk=((d.cls, 0.9),))
        for i, d in enumerate(dets)
    ]
    reading = read_hand(dets)
    assert not reading.valid
    stub = _AgainClassifier(dets, {dets[called].box[0]: again_as})
    reader = PhotoReader(None, stub, replace(VisionSettings(), recheck_refused_limit=limit))  # type: ignore[arg-type]
    again, second = reader.read_refused_again(np.zeros((10, 10, 3), np.uint8), dets, reading)
    if not limit:
        assert stub.asked == [] and again is dets and second is reading
        return
    indicator = dets[-1].box[0]
    assert sorted(stub.asked) == sorted(d.box[0] for d in dets[:-1])  # the hand row's, not the indicator
    assert indicator not in stub.asked
    chi = {"type": "chi", "tiles": "123m", "open": True, "added": False, "from": "left"}
    if 0 in again_as:
        assert second.valid and chi in second.hand_dict()["melds"]
        assert again[called].topk[:2] == tuple((c, pytest.approx(p)) for c, p in again_as.items())
    else:  # read again the same, surer: still no valid reading, both kept as they were
        assert again is dets and second is reading
    valid = read_hand(layout_boxes("456m456p78s11z 9s 1'23m"))
    assert valid.valid
    stub.asked.clear()
    assert reader.read_refused_again(np.zeros((10, 10, 3), np.uint8), list(valid.detections), valid)[1] is valid
    assert stub.asked == []  # a valid reading costs nothing


class _FixedLocalizer:
    """Finds the same boxes in any image, each with its confidence, down to ``floor`` when given."""

    def __init__(self, tiles: list[Any], conf: float = 0.45) -> None:
        self.tiles, self.conf, self.size = tiles, conf, 384

    def __call__(self, bgr: np.ndarray, floor: float | None = None) -> list[Any]:
        least = self.conf if floor is None else min(floor, self.conf)
        return [t for t in self.tiles if t.confidence >= least]


def _added_kan_hand(missed: bool = True) -> tuple[list[Any], Any]:
    """A hand with an added kan of 5p called from the left, and its stacked tile's detection
    (left out of the list when the localizer ``missed`` it)."""
    from test_layout_helpers import layout_boxes

    dets = layout_boxes('123m678p789s1z 1z 5"55p')
    stacked = dets[-3]  # spec order: the stacked copy right after its base
    assert stacked.cls == 13 and dets[-4].cls == 13
    return ([d for d in dets if d is not stacked] if missed else dets), stacked


def test_the_localizer_s_faint_boxes_are_kept_apart_from_the_tiles() -> None:
    from paiscan.vision.image import DecodedImage
    from paiscan.vision.models import TileBox
    from paiscan.vision.pipeline import PhotoReader, VisionSettings
    from paiscan.vision.slicing import SliceSettings

    sure, faint_box = TileBox((100.0, 100, 140, 156), 0.9, False), TileBox((200.0, 100, 240, 156), 0.35, False)
    reader = PhotoReader(
        _FixedLocalizer([sure, faint_box]),
        _StubClassifier(True, {100.0: 5}),  # type: ignore[arg-type]
        VisionSettings(zoom_min_px=0, slicing=SliceSettings(below=0)),
    )
    img = DecodedImage(np.zeros((300, 400, 3), np.uint8), "array", (400, 300), 1.0)
    faint: list[TileBox] = []
    _, dets = reader.detect_photo(img, faint=faint)
    assert [d.box for d in dets] == [sure.box] and faint == [faint_box]
    _, alone = reader.detect_photo(img)  # no list: the faint box is not even looked for
    assert [d.box for d in alone] == [sure.box]
    off = PhotoReader(
        reader.localizer,
        reader.classifier,
        VisionSettings(zoom_min_px=0, stacked_floor=0, slicing=SliceSettings(below=0)),
    )
    faint.clear()
    off.detect_photo(img, faint=faint)
    assert faint == []


@pytest.mark.parametrize(
    ("read_as", "where", "floor", "kan"),
    [
        (13, "beyond", 0.3, True),  # read as the pon's kind: the added kan it is
        (35, "beyond", 0.3, True),  # the red five of that kind too (the stacked tile may be the red one)
        (33, "beyond", 0.3, False),  # another kind: a pond's tile beyond the called one, say
        (37, "beyond", 0.3, False),  # a back
        (13, "near", 0.3, False),  # on the player's side of the row: not where a stacked tile lies
        (13, "beyond", 0.0, False),  # turned off
    ],
)
def test_a_stacked_tile_the_localizer_found_only_faintly_makes_the_pon_an_added_kan(
    read_as: int, where: str, floor: float, kan: bool
) -> None:
    from dataclasses import replace

    from paiscan.vision.models import TileBox
    from paiscan.vision.pipeline import PhotoReader, VisionSettings, bare_pons
    from paiscan.vision.reading import read_hand

    dets, stacked = _added_kan_hand()
    reading = read_hand(dets)
    assert [m["type"] for m in reading.to_dict()["hand"]["melds"]] == ["pon"]
    assert len(bare_pons(reading)) == 1
    x1, y1, x2, y2 = stacked.box
    if where == "near":  # mirrored across the called tile, towards the player
        base = dets[-3].box
        dy = (base[1] + base[3]) - (y1 + y2)
        y1, y2 = y1 + dy, y2 + dy
    faint = [TileBox((x1, y1, x2, y2), 0.4, False)]
    stub = _StubClassifier(True, {x1: read_as}, axis_sure=0.1)  # no face angle: judged by its box
    reader = PhotoReader(None, stub, replace(VisionSettings(), stacked_floor=floor))  # type: ignore[arg-type]
    again, second = reader.find_stacked(np.zeros((800, 1000, 3), np.uint8), dets, reading, faint)
    melds = second.to_dict()["hand"]["melds"]
    if kan:
        assert len(again) == len(dets) + 1 and again[-1].box == (x1, y1, x2, y2)
        assert [(m["type"], m["added"], m["from"]) for m in melds] == [("kan", True, "left")]
        assert bare_pons(second) == []
    else:
        assert again is dets and second is reading
        assert stub.asked in ([], [x1])  # looked at only where a stacked tile may lie


def test_no_faint_box_near_a_pon_leaves_the_reading_alone() -> None:
    from paiscan.vision.models import TileBox
    from paiscan.vision.pipeline import PhotoReader, VisionSettings
    from paiscan.vision.reading import read_hand

    dets, _ = _added_kan_hand()
    reading = read_hand(dets)
    stub = _StubClassifier(True, {})
    reader = PhotoReader(None, stub, VisionSettings())  # type: ignore[arg-type]
    far = [TileBox((0.0, 0.0, 30.0, 40.0), 0.4, False)]  # in a corner of the photo
    for faint in ([], far):
        again, second = reader.find_stacked(np.zeros((800, 1000, 3), np.uint8), dets, reading, faint)
        assert again is dets and second is reading
    assert stub.asked == []
    full, _ = _added_kan_hand(missed=False)  # the localizer found it: nothing to look for
    assert [m["type"] for m in read_hand(full).to_dict()["hand"]["melds"]] == ["kan"]
