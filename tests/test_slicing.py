"""paiscan.vision.slicing and its place in the pipeline: tiles small in a large photo are searched for
window by window; boxes the classifier reads as no tile are dropped; the photo's time limit is kept."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np
import pytest

from paiscan.scoring.tiles import BACK, WHITE
from paiscan.vision.deadline import ReadingTooSlow, limit
from paiscan.vision.image import DecodedImage
from paiscan.vision.models import TileBox
from paiscan.vision.pipeline import TOO_SLOW_NOTE, PhotoReader, VisionSettings
from paiscan.vision.slicing import SliceSettings, busy_windows, grid_windows, search_small_tiles


@pytest.mark.parametrize(("w", "h"), [(1000, 750), (4032, 3024), (640, 640), (300, 5000)])
def test_the_grid_covers_the_image_with_overlapping_windows(w: int, h: int) -> None:
    windows = grid_windows(w, h, 416, 0.25, 40)
    assert len(windows) <= 40
    covered = np.zeros((h, w), bool)
    for x1, y1, x2, y2 in windows:
        assert 0 <= x1 < x2 <= w and 0 <= y1 < y2 <= h
        covered[y1:y2, x1:x2] = True
    assert covered.all()


class _SmallTileLocalizer:
    """Finds a tile only where it shows at least ``min_px`` wide in what it is given: the tiles lie at
    ``tiles`` in the photo's full resolution (``full`` wide), each with its ``confidences`` (0.9 unless
    given)."""

    size, conf, iou = 384, 0.45, 0.6

    def __init__(
        self,
        tiles: list[tuple[float, float, float, float]],
        full: int,
        min_px: float = 12.0,
        confidences: list[float] | None = None,
    ) -> None:
        self.tiles, self.full, self.min_px = tiles, full, min_px
        self.confidences = confidences or [0.9] * len(tiles)
        self.windows_seen = 0

    def _found(self, width: int, scale: float, x0: int = 0, y0: int = 0, w: int = 0, h: int = 0) -> list[TileBox]:
        out = []
        shown = self.size / max(w, h)  # the input's pixels per pixel of what it is given
        for (x1, y1, x2, y2), confidence in zip(self.tiles, self.confidences, strict=True):
            bx = (x1 * scale - x0, y1 * scale - y0, x2 * scale - x0, y2 * scale - y0)
            if bx[0] < 0 or bx[1] < 0 or bx[2] > w or bx[3] > h:
                continue
            if (bx[2] - bx[0]) * shown >= self.min_px:
                out.append(TileBox(bx, confidence, False))
        return out

    def __call__(self, bgr: np.ndarray, floor: float | None = None) -> list[TileBox]:
        h, w = bgr.shape[:2]
        return self._found(w, w / self.full, 0, 0, w, h)

    def in_windows(self, bgr: np.ndarray, windows: Any, floor: float | None = None) -> list[TileBox]:
        w = bgr.shape[1]
        out: list[TileBox] = []
        for xa, ya, xb, yb in windows:
            self.windows_seen += 1
            for t in self._found(w, w / self.full, xa, ya, xb - xa, yb - ya):
                b = t.box
                box = (b[0] + xa, b[1] + ya, b[2] + xa, b[3] + ya)
                if all(box != o.box for o in out):
                    out.append(TileBox(box, t.confidence, False))
        return out


def _photo(
    tiles: list[tuple[float, float, float, float]], full: int, shape: tuple[int, int], dim: bool = False
) -> np.ndarray:
    """A photo of ``shape`` (rows, columns) showing ``tiles`` (boxes in the original photo, ``full``
    pixels wide): light faces with a dark mark on a plain grey desk, so that what a stand-in
    localizer finds shows in the photo too (the search reads no plain window). ``dim``: the same at
    a sixth of the contrast (a photo taken in poor light)."""
    scale = shape[1] / full
    img = np.full((*shape, 3), 90, np.uint8)
    for x1, y1, x2, y2 in tiles:
        a, b, c, d = (round(v * scale) for v in (x1, y1, x2, y2))
        img[b : max(d, b + 1), a : max(c, a + 1)] = 220
        mx, my = (a + c) // 2, (b + d) // 2
        img[my - (d - b) // 4 : my + (d - b) // 4 + 1, mx - (c - a) // 6 : mx + (c - a) // 6 + 1] = 40
    return img if not dim else (80 + (img.astype(np.int16) - 90) // 6).astype(np.uint8)


def _hand_at(x0: float, y0: float, face: float) -> list[tuple[float, float, float, float]]:
    return [(x0 + i * face * 1.05, y0, x0 + i * face * 1.05 + face, y0 + face * 1.35) for i in range(14)]


def test_a_hand_small_in_a_large_photo_is_found_window_by_window() -> None:
    # a 12 MP photo decoded at 1000 px; the hand's faces 60 px wide in the original: 15 px decoded,
    # under 6 px in the localizer's whole-photo view
    tiles = _hand_at(1500.0, 1400.0, 60.0)
    loc = _SmallTileLocalizer(tiles, full=4000)
    decoded = DecodedImage(_photo(tiles, 4000, (750, 1000)), "array", (4000, 3000), 0.25)
    assert loc(decoded.bgr) == []
    got = search_small_tiles(loc, decoded, [], SliceSettings(), 40_000_000)  # type: ignore[arg-type]
    assert got is not None
    image, found = got
    assert image is decoded and len(found) == 14  # the decoded photo's windows were enough
    hand = [TileBox((10.0 * i, 0.0, 10.0 * i + 8, 11.0), 0.9, False) for i in range(14)]
    assert search_small_tiles(loc, decoded, hand, SliceSettings(), 40_000_000) is None  # a hand found: no search
    # a near object the first look found (a keyboard's key, 38 px in its view) neither stops the
    # search nor is found again by it: it is kept as it was, beside the small tiles
    near = [TileBox((10.0, 10.0, 110.0, 150.0), 0.9, False)]
    again = search_small_tiles(loc, decoded, near, SliceSettings(), 40_000_000)  # type: ignore[arg-type]
    assert again is not None and len(again[1]) == 15 and again[1][0].box == near[0].box
    assert search_small_tiles(loc, decoded, [], SliceSettings(below=0), 40_000_000) is None  # turned off


@pytest.mark.parametrize("dim", [False, True])
def test_the_search_reads_no_window_of_plain_desk(dim: bool) -> None:
    # a hand like the test's above in a corner of a plain desk: only the windows over it are read,
    # and it is found as when every window is read; in poor light (a sixth of the contrast) as well
    tiles = _hand_at(200.0, 200.0, 60.0)
    decoded = DecodedImage(_photo(tiles, 4000, (750, 1000), dim=dim), "array", (4000, 3000), 0.25)
    every = _SmallTileLocalizer(tiles, full=4000)
    ref = search_small_tiles(every, decoded, [], SliceSettings(busy_edges=0), 40_000_000)  # type: ignore[arg-type]
    assert every.windows_seen == len(grid_windows(1000, 750, 416, 0.25, 40))
    busy = _SmallTileLocalizer(tiles, full=4000)
    got = search_small_tiles(busy, decoded, [], SliceSettings(), 40_000_000)  # type: ignore[arg-type]
    assert ref is not None and got is not None and [t.box for t in got[1]] == [t.box for t in ref[1]]
    assert 0 < busy.windows_seen < every.windows_seen
    # a blank photo: no window is read
    blank = DecodedImage(np.full((750, 1000, 3), 90, np.uint8), "array", (4000, 3000), 0.25)
    none = _SmallTileLocalizer([], full=4000)
    assert search_small_tiles(none, blank, [], SliceSettings(), 40_000_000) is None  # type: ignore[arg-type]
    assert none.windows_seen == 0


def test_a_small_hand_the_first_look_takes_for_one_large_tile_is_found_inside_it() -> None:
    # a hand far away shows as one tile-like blob at the first look's 384 px: the windows' tiles
    # inside it are the answer, and the blob is no tile
    tiles = _hand_at(1500.0, 1400.0, 60.0)
    lone = (200.0, 2400.0, 260.0, 2481.0)  # a small box far from the hand, original pixels
    loc = _SmallTileLocalizer(tiles, full=4000)
    decoded = DecodedImage(_photo([*tiles, lone], 4000, (750, 1000)), "array", (4000, 3000), 0.25)
    blob = TileBox((370.0, 345.0, 600.0, 375.0), 0.6, False)  # around the whole hand, decoded pixels
    got = search_small_tiles(loc, decoded, [blob], SliceSettings(), 40_000_000)  # type: ignore[arg-type]
    assert got is not None and len(got[1]) == 14 and blob not in got[1]
    # a large tile holding a single small box (a pictogram taken for a tile) is a tile: kept
    loc = _SmallTileLocalizer([*tiles, lone], full=4000)
    near = TileBox((20.0, 570.0, 110.0, 660.0), 0.9, False)  # 34 px in the first look's view
    kept = search_small_tiles(loc, decoded, [near], SliceSettings(), 40_000_000)  # type: ignore[arg-type]
    assert kept is not None and near in kept[1] and len(kept[1]) == 15


class _HeapLocalizer(_SmallTileLocalizer):
    """A :class:`_SmallTileLocalizer` that, where it sees the tiles too small to find one by one,
    finds the whole heap they make as one tile-like box, as the real localizer does."""

    def _found(self, width: int, scale: float, x0: int = 0, y0: int = 0, w: int = 0, h: int = 0) -> list[TileBox]:
        tiles = super()._found(width, scale, x0, y0, w, h)
        xs = [v * scale for t in self.tiles for v in (t[0], t[2])]
        ys = [v * scale for t in self.tiles for v in (t[1], t[3])]
        heap = (min(xs) - x0, min(ys) - y0, max(xs) - x0, max(ys) - y0)
        if tiles or heap[0] < 0 or heap[1] < 0 or heap[2] > w or heap[3] > h:
            return tiles
        return [TileBox(heap, 0.7, False)]


class _PipsLocalizer(_SmallTileLocalizer):
    """A :class:`_SmallTileLocalizer` that finds a tile shown 100 px wide or more as the two halves of
    its face, as the real localizer may find a large face's pips."""

    def _found(self, width: int, scale: float, x0: int = 0, y0: int = 0, w: int = 0, h: int = 0) -> list[TileBox]:
        out = []
        for t in super()._found(width, scale, x0, y0, w, h):
            x1, y1, x2, y2 = t.box
            if (x2 - x1) * self.size / max(w, h) < 100:
                out.append(t)
                continue
            mid = (y1 + y2) / 2
            out += [TileBox((x1, y1, x2, mid - 1), 0.9, False), TileBox((x1, mid + 1, x2, y2), 0.9, False)]
        return out


def _heap_at(x0: float, y0: float, face: float) -> list[tuple[float, float, float, float]]:
    return [
        (x0 + i * face * 1.05, y0 + j * face * 1.4, x0 + i * face * 1.05 + face, y0 + j * face * 1.4 + face * 1.35)
        for i in range(4)
        for j in range(5)
    ]


def test_a_heap_the_search_sees_as_one_box_is_looked_into() -> None:
    # 20 tiles heaped 4 x 5, faces 40 px in a 4000 px photo: 10 px decoded, 9 px in the search's
    # windows, where the stand-in (like the localizer) finds only the heap as one box
    heap = _heap_at(2000.0, 1500.0, 40.0)
    apart = [(2000.0, 1500.0, 2060.0, 1581.0), (3000.0, 400.0, 3060.0, 481.0), (600.0, 2500.0, 660.0, 2581.0)]
    loc = _HeapLocalizer(heap, full=4000)
    decoded = DecodedImage(_photo([*heap, *apart], 4000, (750, 1000)), "array", (4000, 3000), 0.25)
    got = search_small_tiles(loc, decoded, [], SliceSettings(), 40_000_000)  # type: ignore[arg-type]
    assert got is not None and len(got[1]) == 20  # its tiles, the heap's box not among them
    assert all(b[2] - b[0] < 15 for b in (t.box for t in got[1]))
    off = search_small_tiles(loc, decoded, [], SliceSettings(blob_looks=0), 40_000_000)  # type: ignore[arg-type]
    assert off is None  # one box is less than the search takes for an answer
    # small tiles far apart, each looked into, each showing two boxes on its face at that size (pips):
    # fewer than a heap holds, so the search's answer stands
    plain = SliceSettings(blob_looks=0)
    levels = _SmallTileLocalizer(apart, full=4000)
    ref = search_small_tiles(levels, decoded, [], plain, 40_000_000)  # type: ignore[arg-type]
    looked = _PipsLocalizer(apart, full=4000)
    got = search_small_tiles(looked, decoded, [], replace(plain, blob_looks=4), 40_000_000)  # type: ignore[arg-type]
    assert ref is not None and got is not None and len(got[1]) == 3
    assert [t.box for t in got[1]] == [t.box for t in ref[1]]
    assert looked.windows_seen > levels.windows_seen  # they were looked into


class _FaintLocalizer(_SmallTileLocalizer):
    """A :class:`_SmallTileLocalizer` that finds a tile shown ``faint_px`` wide or more, but under
    ``min_px``, as a faint box (0.15), given when asked for boxes that faint (``floor``), as the real
    localizer sees a far hand's 11 px faces."""

    faint_px = 6.0

    def _found(self, width: int, scale: float, x0: int = 0, y0: int = 0, w: int = 0, h: int = 0) -> list[TileBox]:
        shown = self.size / max(w, h)
        out = []
        for x1, y1, x2, y2 in self.tiles:
            bx = (x1 * scale - x0, y1 * scale - y0, x2 * scale - x0, y2 * scale - y0)
            if bx[0] >= 0 and bx[1] >= 0 and bx[2] <= w and bx[3] <= h and (bx[2] - bx[0]) * shown >= self.faint_px:
                out.append(TileBox(bx, 0.9 if (bx[2] - bx[0]) * shown >= self.min_px else 0.15, False))
        return out

    def __call__(self, bgr: np.ndarray, floor: float | None = None) -> list[TileBox]:
        return [t for t in super().__call__(bgr) if t.confidence >= (floor or self.conf)]

    def in_windows(self, bgr: np.ndarray, windows: Any, floor: float | None = None) -> list[TileBox]:
        return [t for t in super().in_windows(bgr, windows) if t.confidence >= (floor or self.conf)]


def test_a_far_hand_the_finest_level_sees_only_faintly_is_looked_at_magnified() -> None:
    # faces 36 px in a 4000 px photo decoded at 1000 px: 8.3 px in the search's 416 px windows,
    # where the stand-in finds them only faintly; the faint boxes' window (the row and a tile's size
    # around it, 156 px) shows them 22 px wide
    hand = _hand_at(1500.0, 1400.0, 36.0)
    decoded = DecodedImage(_photo(hand, 4000, (750, 1000)), "array", (4000, 3000), 0.25)
    off = _FaintLocalizer(hand, full=4000)
    assert search_small_tiles(off, decoded, [], SliceSettings(faint_looks=0), 40_000_000) is None  # type: ignore[arg-type]
    loc = _FaintLocalizer(hand, full=4000)
    got = search_small_tiles(loc, decoded, [], SliceSettings(), 40_000_000)  # type: ignore[arg-type]
    assert got is not None and len(got[1]) == 14 and {t.confidence for t in got[1]} == {0.9}
    assert sorted(round(t.box[0] * 4) for t in got[1]) == [round(b[0]) for b in hand]
    assert loc.windows_seen == off.windows_seen + 1
    # two faint boxes are no group to look at (``faint_min``): nothing more is looked at
    pair = _FaintLocalizer(hand[:2], full=4000)
    assert search_small_tiles(pair, decoded, [], SliceSettings(), 40_000_000) is None  # type: ignore[arg-type]
    assert pair.windows_seen == off.windows_seen
    # boxes the localizer doubts though they are 37 px in the windows' view are no far tiles
    near = _FaintLocalizer(_hand_at(100.0, 100.0, 40.0), full=1000, min_px=60.0)
    whole = DecodedImage(_photo(near.tiles, 1000, (750, 1000)), "array", (1000, 750), 1.0)
    assert search_small_tiles(near, whole, [], SliceSettings(), 40_000_000) is None  # type: ignore[arg-type]
    assert near.windows_seen == len(busy_windows(whole.bgr, grid_windows(1000, 750, 416, 0.25, 40), 32, 50)) > 0
    assert search_small_tiles(near, whole, [], SliceSettings(faint_max_px=40.0), 40_000_000) is not None  # type: ignore[arg-type]


def test_tiles_too_small_at_every_level_leave_the_first_look_as_it_was() -> None:
    loc = _SmallTileLocalizer(_hand_at(100.0, 100.0, 4.0), full=1000)
    decoded = DecodedImage(_photo(loc.tiles, 1000, (750, 1000)), "array", (1000, 750), 1.0)
    assert search_small_tiles(loc, decoded, [], SliceSettings(), 40_000_000) is None  # type: ignore[arg-type]
    assert loc.windows_seen > 0


def _row(cls: int, p: float) -> np.ndarray:
    """A classifier's probability row over the 38 classes: ``cls`` at ``p``; what the row leaves
    short of 1 is the share of no tile at all."""
    row = np.zeros(38, np.float32)
    row[cls] = p
    return row


SURE_5P = _row(13, 0.95)
#: every face about as likely, 5p the likeliest at 0.3: a face the classifier cannot name
NO_FACE = np.full(38, 0.7 / 33, np.float32)
NO_FACE[34:] = 0.0
NO_FACE[13] = 0.3


class _Classifier:
    """Reads each box as the row given for its left edge in ``rows``, every other box as 5p, surely."""

    def __init__(self, rows: dict[float, np.ndarray], has_back: bool = False, reads_not_a_tile: bool = False) -> None:
        self.rows, self.has_back, self.reads_not_a_tile = rows, has_back, reads_not_a_tile

    def classify(self, bgr: Any, boxes: Any, *args: Any, **kw: Any) -> tuple[np.ndarray, None]:
        return np.stack([self.rows.get(b[0], SURE_5P) for b in boxes]) if len(boxes) else np.zeros((0, 38)), None


def test_a_box_the_classifier_reads_as_no_tile_is_dropped() -> None:
    tiles = [TileBox((10.0 + 40 * i, 10.0, 45.0 + 40 * i, 60.0), 0.9, False) for i in range(4)]
    img = np.zeros((100, 200, 3), np.uint8)
    no_tile = _Classifier({50.0: _row(13, 0.05)}, reads_not_a_tile=True)  # the rest of the row: no tile
    reader = PhotoReader(None, no_tile, VisionSettings())  # type: ignore[arg-type]
    kept = reader.classify_tiles(img, tiles)
    assert [d.box[0] for d in kept] == [10.0, 90.0, 130.0]
    keep_all = PhotoReader(None, no_tile, VisionSettings(not_a_tile_drop=1.0))  # type: ignore[arg-type]
    assert len(keep_all.classify_tiles(img, tiles)) == 4


def test_a_tile_the_frame_cuts_is_not_dropped_as_no_tile() -> None:
    # the same row, its first tile's top cut by the photo's edge: what shows is part of a face,
    # which the no-tile output (learnt on whole objects) takes for no tile
    tiles = [TileBox((10.0 + 40 * i, 0.0 if i == 0 else 10.0, 45.0 + 40 * i, 60.0), 0.9, False) for i in range(4)]
    img = np.zeros((100, 200, 3), np.uint8)
    no_tile = _Classifier({10.0: _row(13, 0.05), 50.0: _row(13, 0.05)}, reads_not_a_tile=True)
    reader = PhotoReader(None, no_tile, VisionSettings(faceless_share=0.0))  # type: ignore[arg-type]
    kept = reader.classify_tiles(img, tiles)
    assert [(d.box[0], d.cut) for d in kept] == [(10.0, True), (90.0, False), (130.0, False)]


def test_a_box_neither_model_is_sure_of_is_dropped() -> None:
    # at 10 and 50 the classifier names no face; the localizer is unsure of 50 and 90 only
    tiles = [TileBox((10.0 + 40 * i, 10.0, 45.0 + 40 * i, 60.0), 0.9 if i in (0, 3) else 0.5, False) for i in range(4)]
    img = np.zeros((100, 200, 3), np.uint8)
    unsure = _Classifier({10.0: NO_FACE, 50.0: NO_FACE})
    reader = PhotoReader(None, unsure, VisionSettings())  # type: ignore[arg-type]
    assert [d.box[0] for d in reader.classify_tiles(img, tiles)] == [10.0, 90.0, 130.0]
    keep_all = PhotoReader(None, unsure, VisionSettings(faceless_share=0.0))  # type: ignore[arg-type]
    assert len(keep_all.classify_tiles(img, tiles)) == 4


def test_a_white_dragon_the_localizer_doubts_is_dropped_whatever_the_classifier_says() -> None:
    # the white dragon at 10 and the back at 50 read surely; the localizer doubts 10, 50 and 90
    tiles = [TileBox((10.0 + 40 * i, 10.0, 45.0 + 40 * i, 60.0), 0.5 if i < 3 else 0.9, False) for i in range(4)]
    img = np.zeros((100, 200, 3), np.uint8)
    # both read surely, as a key cap reads as a blank face
    blanks = _Classifier({10.0: _row(WHITE, 0.95), 50.0: _row(BACK, 0.95)}, has_back=True)
    reader = PhotoReader(None, blanks, VisionSettings())  # type: ignore[arg-type]
    # the back is kept: backs stand in dead walls and closed kans, where the localizer is less sure
    assert [(d.cls, d.box[0]) for d in reader.classify_tiles(img, tiles)] == [(BACK, 50.0), (13, 90.0), (13, 130.0)]
    sure = [replace(t, confidence=0.8) for t in tiles]  # a blank face the localizer is sure of is kept
    assert [d.cls for d in reader.classify_tiles(img, sure)] == [WHITE, BACK, 13, 13]
    keep_all = PhotoReader(None, blanks, VisionSettings(blank_box=0.0))  # type: ignore[arg-type]
    assert len(keep_all.classify_tiles(img, tiles)) == 4


def test_boxes_too_small_to_read_are_dropped_by_their_size_in_the_original_photo() -> None:
    class Localizer:
        size, conf = 384, 0.45

        def __call__(self, bgr: Any, floor: float | None = None) -> list[TileBox]:
            # 30 and 12 px wide in the decoded photo: 60 and 24 px in the original
            return [TileBox((10.0, 10.0, 40.0, 50.0), 0.9, False), TileBox((60.0, 10.0, 72.0, 26.0), 0.9, False)]

    decoded = DecodedImage(np.zeros((300, 400, 3), np.uint8), "array", (800, 600), 0.5)
    settings = VisionSettings(slicing=SliceSettings(below=0), zoom_min_px=0)
    reader = PhotoReader(Localizer(), _Classifier({}), settings)  # type: ignore[arg-type]
    assert len(reader.detect_photo(decoded)[1]) == 2
    pickier = PhotoReader(Localizer(), _Classifier({}), replace(settings, min_readable_px=30.0))  # type: ignore[arg-type]
    assert [d.box[0] for d in pickier.detect_photo(decoded)[1]] == [10.0]


def _demo_reader() -> PhotoReader:
    from paiscan.scoring.tiles import parse_tiles
    from paiscan.service.demo import DemoResult

    def faces_and_boxes(bgr: Any) -> list[dict[str, Any]]:
        found: list[dict[str, Any]] = DemoResult(bgr.shape[1], bgr.shape[0], "riichi").to_dict()["detections"]
        return found

    class Localizer:
        size, conf = 384, 0.45

        def __call__(self, bgr: Any, floor: float | None = None) -> list[Any]:
            return [TileBox(tuple(d["box"]), 0.95, False) for d in faces_and_boxes(bgr)]

    class Classifier:
        has_back = False

        def classify(self, bgr: Any, boxes: Any, *args: Any, **kw: Any) -> tuple[Any, None]:
            p = np.full((len(boxes), 37), 0.001, np.float32)
            for i, d in enumerate(faces_and_boxes(bgr)[: len(boxes)]):
                p[i, parse_tiles(d["class"])[0]] = 0.95
            return p, None

    return PhotoReader(Localizer(), Classifier(), VisionSettings(slicing=SliceSettings(below=0)))  # type: ignore[arg-type]


def _demo_read() -> tuple[PhotoReader, bytes, Any]:
    """The stand-in reader, its demo photo and the photo's reading with no time limit."""
    from paiscan.service.demo import demo_photo

    reader = _demo_reader()
    photo = demo_photo(1600, 1000)
    return reader, photo, reader.read(photo)


def test_a_spent_time_limit_stops_the_reading_and_a_late_one_keeps_the_reading_so_far(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    reader, photo, plain = _demo_read()
    assert TOO_SLOW_NOTE not in plain.reading.notes
    with limit(0.0), pytest.raises(ReadingTooSlow):
        reader.read(photo)

    def slow(*args: Any, **kw: Any) -> Any:
        raise ReadingTooSlow("spent")  # the limit runs out during the second looks

    monkeypatch.setattr(reader, "read_roles_again", slow)
    late = reader.read(photo)
    assert TOO_SLOW_NOTE in late.reading.notes
    assert late.reading.to_dict()["hand"] == plain.reading.to_dict()["hand"]


def test_a_spent_soft_budget_stops_the_optional_work_and_keeps_the_reading() -> None:
    from paiscan.vision.deadline import soft_limit, spent

    reader, photo, plain = _demo_read()
    assert not spent()  # the reading's budget ends with it
    with soft_limit(0.0):
        hurried = reader.read(photo)  # nothing raises: the second looks are skipped
    assert TOO_SLOW_NOTE in hurried.reading.notes
    assert hurried.reading.to_dict()["hand"] == plain.reading.to_dict()["hand"]
    unbounded = PhotoReader(reader.localizer, reader.classifier, replace(reader.settings, read_budget_s=0.0))
    assert TOO_SLOW_NOTE not in unbounded.read(photo).reading.notes


def test_the_layout_has_its_grace_though_the_stages_before_spent_the_photos_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from paiscan.vision import pipeline
    from paiscan.vision.deadline import soft_limit, spent

    reader, photo, plain = _demo_read()
    hurried: list[bool] = []
    original = pipeline.read_hand

    def read_hand(*args: Any, **kw: Any) -> Any:
        hurried.append(spent())  # whether the layout starts with no time for its optional work
        return original(*args, **kw)

    monkeypatch.setattr(pipeline, "read_hand", read_hand)
    with soft_limit(0.0):  # the photo's time spent before its layout
        graced = reader.read(photo)
        PhotoReader(reader.localizer, reader.classifier, replace(reader.settings, layout_grace_s=0.0)).read(photo)
    assert hurried == [False, True]
    assert graced.reading.to_dict()["hand"] == plain.reading.to_dict()["hand"]


def test_a_spent_time_budget_stops_the_windows_between_batches() -> None:
    from paiscan.vision.deadline import soft_limit
    from paiscan.vision.slicing import WINDOWS_PER_CHECK, _in_windows

    loc = _SmallTileLocalizer(_hand_at(100.0, 100.0, 40.0), full=4000)
    bgr = np.zeros((3000, 4000, 3), np.uint8)
    windows = grid_windows(4000, 3000, 416, 0.25, 40)
    assert len(windows) > WINDOWS_PER_CHECK
    _in_windows(loc, bgr, windows, None)  # type: ignore[arg-type]
    assert loc.windows_seen == len(windows)
    loc.windows_seen = 0
    with soft_limit(0.0):
        _in_windows(loc, bgr, windows, None)  # type: ignore[arg-type]
    assert loc.windows_seen == WINDOWS_PER_CHECK


def test_the_search_stops_at_its_own_time_budget() -> None:
    tiles = _hand_at(1500.0, 1400.0, 60.0)
    loc = _SmallTileLocalizer(tiles, full=4000)
    decoded = DecodedImage(_photo(tiles, 4000, (750, 1000)), "array", (4000, 3000), 0.25)
    none_left = SliceSettings(budget_s=0.0)
    cut: list[bool] = []
    assert search_small_tiles(loc, decoded, [], none_left, 40_000_000, cut_short=cut) is None  # type: ignore[arg-type]
    assert loc.windows_seen == 0 and cut == [True]  # the photo was not searched: said
    whole: list[bool] = []
    assert search_small_tiles(loc, decoded, [], SliceSettings(), 40_000_000, cut_short=whole) is not None  # type: ignore[arg-type]
    assert whole == []


def test_a_photo_whose_search_ran_out_of_time_says_so() -> None:
    import cv2

    from paiscan.vision.pipeline import SEARCH_CUT_NOTE

    hand = _hand_at(1500.0, 1400.0, 30.0)  # faces 30 px in a 12 MP photo: searched for
    data = cv2.imencode(".jpg", _photo(hand, 4000, (3000, 4000)))[1].tobytes()
    settings = VisionSettings(anchor_share=0.0)
    whole = PhotoReader(_SmallTileLocalizer(hand, full=4000), _Classifier({}), settings)  # type: ignore[arg-type]
    read = whole.read(data)
    assert len(read.detections) == 14 and SEARCH_CUT_NOTE not in read.reading.notes
    short = replace(settings, slicing=SliceSettings(budget_s=0.0))
    cut = PhotoReader(_SmallTileLocalizer(hand, full=4000), _Classifier({}), short).read(data)  # type: ignore[arg-type]
    assert cut.detections == () and SEARCH_CUT_NOTE in cut.reading.notes


def test_the_search_of_a_crowded_photo_leaves_time_to_read_what_it_found() -> None:
    from paiscan.vision.deadline import soft_limit
    from paiscan.vision.slicing import WINDOWS_PER_CHECK

    # ten rows of small tiles all over a 12 MP photo (a tray, a product grid)
    rows = [t for y in (300.0, 900.0, 1500.0, 2100.0, 2700.0) for x in (100.0, 2100.0) for t in _hand_at(x, y, 60.0)]
    decoded = DecodedImage(_photo(rows, 4000, (750, 1000)), "array", (4000, 3000), 0.25)
    windows = len(busy_windows(decoded.bgr, grid_windows(1000, 750, 416, 0.25, 40), 32, 50))
    assert windows > WINDOWS_PER_CHECK

    def search(settings: SliceSettings) -> tuple[int, int]:
        loc = _SmallTileLocalizer(rows, full=4000)
        got = search_small_tiles(loc, decoded, [], settings, 40_000_000)  # type: ignore[arg-type]
        assert got is not None
        return loc.windows_seen, len(got[1])

    # ten seconds per tile found: the photo's 30 s are less than its first windows' tiles take to
    # read, so the search stops after them and answers what they found
    costly = replace(SliceSettings(blob_looks=0), reserve_per_tile_s=10.0)
    with soft_limit(30.0):
        seen, found = search(costly)
    assert seen == WINDOWS_PER_CHECK and 3 <= found < len(rows)
    cut: list[bool] = []
    with soft_limit(30.0):
        one_level = replace(costly, levels=(1.0,))  # (the windows of the level read, not a level left)
        search_small_tiles(_SmallTileLocalizer(rows, full=4000), decoded, [], one_level, 40_000_000, cut_short=cut)  # type: ignore[arg-type]
    assert cut == [True]  # windows left unread: said
    with soft_limit(30.0):  # nothing kept: every window is read
        seen, found = search(replace(costly, reserve_per_tile_s=0.0))
    assert seen == windows and found == len(rows)
    seen, found = search(costly)  # no time limit for the photo: nothing to keep time for
    assert seen == windows and found == len(rows)


def test_a_far_hand_is_found_though_a_coarser_level_found_a_hands_worth_of_keys() -> None:
    import cv2

    from paiscan.vision.image import decode_image

    keys = [(100.0 + i * 70, 100.0, 160.0 + i * 70, 160.0) for i in range(14)]  # seen from level 1 on
    hand = _hand_at(300.0, 1000.0, 40.0)  # seen only decoded twice as large
    loc = _SmallTileLocalizer([*keys, *hand], full=2000)
    data = cv2.imencode(".jpg", _photo(loc.tiles, 2000, (1500, 2000)))[1].tobytes()
    decoded = decode_image(data, max_side=500)
    assert decoded.scale == 0.25 and loc(decoded.bgr) == []
    got = search_small_tiles(loc, decoded, [], SliceSettings(), 40_000_000)  # type: ignore[arg-type]
    assert got is not None
    image, found = got
    assert image.scale == 0.5  # the finer level's photo, with both levels' tiles in its pixels
    assert len(found) == 28
    tops = sorted({round(t.box[1]) for t in found})
    assert tops == [50, 500]


def test_a_photo_searched_window_by_window_keeps_an_unsure_tile_only_beside_a_sure_one() -> None:
    from paiscan.vision.detection import Detection
    from paiscan.vision.slicing import beside_sure

    def det(x: float, share: float) -> Detection:
        return Detection(13, share * 0.9, (x, 100.0, x + 30.0, 140.0), topk=((13, share),))

    row = [det(100.0 + 32 * i, 0.95) for i in range(5)]
    blurred = det(260.0, 0.4)  # the row's next tile, read unsurely
    apart = det(900.0, 0.6)  # a key far from any tile read surely
    kept = beside_sure([*row, blurred, apart], 0.8)
    assert blurred in kept and apart not in kept and all(d in kept for d in row)
    assert beside_sure([blurred, apart], 0.8) == []  # nothing read surely: nothing kept
    blank_key = Detection(31, 0.9, (900.0, 150.0, 930.0, 190.0), topk=((31, 0.99),))
    assert beside_sure([blank_key, apart], 0.8) == [blank_key]  # a sure blank vouches for no neighbour


def test_a_photo_with_no_box_both_models_are_sure_of_shows_no_tile() -> None:
    class Localizer:
        size, conf = 384, 0.45

        def __init__(self, confidence: float) -> None:
            self.confidence = confidence

        def __call__(self, bgr: Any, floor: float | None = None) -> list[TileBox]:
            return [TileBox((10.0 + 40 * i, 10.0, 45.0 + 40 * i, 60.0), self.confidence, False) for i in range(3)]

    decoded = DecodedImage(np.zeros((300, 400, 3), np.uint8), "array", (400, 300), 1.0)
    settings = VisionSettings(slicing=SliceSettings(below=0), zoom_min_px=0)
    # read surely (0.95) but found unsurely (0.6): keys of a keyboard, a poster's print
    unsure = PhotoReader(Localizer(0.6), _Classifier({}), settings)  # type: ignore[arg-type]
    assert unsure.detect_photo(decoded)[1] == []
    assert len(PhotoReader(Localizer(0.9), _Classifier({}), settings).detect_photo(decoded)[1]) == 3  # type: ignore[arg-type]
    off = replace(settings, anchor_share=0.0)
    assert len(PhotoReader(Localizer(0.6), _Classifier({}), off).detect_photo(decoded)[1]) == 3  # type: ignore[arg-type]


def test_after_a_search_a_box_across_two_tiles_is_dropped() -> None:
    import cv2

    # a far hand (faces 60 px in a 4000 px photo) that the search finds, with two boxes the
    # localizer is less sure of: one half over the fourth tile and half over the fifth, one over the
    # ninth and tenth (a tight row seen small), and one half past the end of the row (a tile could be
    # there, unseen)
    tiles = _hand_at(1500.0, 1400.0, 60.0)
    x1, y1, _, y2 = tiles[3]
    between = [(x1 + 30.0, y1, x1 + 90.0, y2), (tiles[8][0], y1, tiles[9][2], y2)]
    past = (tiles[13][0] + 30.0, y1, tiles[13][2] + 30.0, y2)
    loc = _SmallTileLocalizer([*tiles, *between, past], full=4000, confidences=[0.9] * 14 + [0.5, 0.6, 0.5])
    data = cv2.imencode(".jpg", _photo(tiles, 4000, (3000, 4000)))[1].tobytes()
    reader = PhotoReader(loc, _Classifier({}), VisionSettings())  # type: ignore[arg-type]
    timings: dict[str, float] = {}
    decoded, dets = reader.detect_photo(reader.decode(data), timings)
    assert "slice" in timings
    assert sorted(round(d.box[0] / decoded.scale) for d in dets) == sorted(round(b[0]) for b in [*tiles, past])
    off = PhotoReader(loc, _Classifier({}), VisionSettings(straddle_cover=0.0))  # type: ignore[arg-type]
    assert len(off.detect_photo(off.decode(data))[1]) == 17


def test_a_far_hand_the_search_found_in_part_is_looked_at_again_closer() -> None:
    import cv2

    # a hand 26 px wide a face in a 4000 px photo, every third tile 30 px: the search's finest
    # level (decoded at 2000 px, 416 px windows) shows them 12 and 13.8 px wide, and this localizer
    # needs 13; the focus windows show the hand at full detail, every tile about 28 px short
    wide = (0, 3, 6, 9, 12)
    hand = [(1500.0 + i * 32, 1400.0, 1500.0 + i * 32 + (30 if i in wide else 26), 1436.0) for i in range(14)]
    loc = _SmallTileLocalizer(hand, full=4000, min_px=13.0)
    data = cv2.imencode(".jpg", _photo(hand, 4000, (3000, 4000)))[1].tobytes()
    reader = PhotoReader(loc, _Classifier({}), VisionSettings(anchor_share=0.0))  # type: ignore[arg-type]
    timings: dict[str, float] = {}
    decoded, dets = reader.detect_photo(reader.decode(data), timings)
    assert len(dets) == 14 and "focus" in timings
    assert sorted(round(d.box[0] / decoded.scale) for d in dets) == [round(b[0]) for b in hand]
    # without the focus step only the wider tiles come back
    off = PhotoReader(loc, _Classifier({}), VisionSettings(anchor_share=0.0, focus_max_windows=0))  # type: ignore[arg-type]
    assert len(off.detect_photo(off.decode(data))[1]) == len(wide)


class _FaintBelowLocalizer(_SmallTileLocalizer):
    """Finds every tile shown ``min_px`` wide or more surely, and every third one shown half that
    wide or more with ``partial_conf`` (faintly, 0.5: what the localizer does with a heap's tiles,
    turned and touching)."""

    partial_conf = 0.5

    def _found(self, width: int, scale: float, x0: int = 0, y0: int = 0, w: int = 0, h: int = 0) -> list[TileBox]:
        out = []
        shown = self.size / max(w, h)
        for i, (x1, y1, x2, y2) in enumerate(self.tiles):
            bx = (x1 * scale - x0, y1 * scale - y0, x2 * scale - x0, y2 * scale - y0)
            if bx[0] < 0 or bx[1] < 0 or bx[2] > w or bx[3] > h:
                continue
            px = (bx[2] - bx[0]) * shown
            if px >= self.min_px:
                out.append(TileBox(bx, 0.9, False))
            elif px >= self.min_px / 2 and i % 3 == 0:
                out.append(TileBox(bx, self.partial_conf, False))
        return out


def test_a_group_the_search_found_only_faintly_is_looked_at_closer() -> None:
    import cv2

    # seven tiles of a heap, faces 48 px in a 4000 px photo: the search's finest level shows them
    # 22 px wide, where this localizer finds every third faintly; it finds them all surely from
    # 34 px. The closer look shows a group found faintly 36 px short (``focus_faint_target_px``),
    # one found surely 28 px (``focus_target_px``, as the zoom does a photo read whole)
    heap = [(1500.0 + i * 50, 1400.0, 1548.0 + i * 50, 1464.0) for i in range(7)]
    loc = _FaintBelowLocalizer(heap, full=4000, min_px=34.0)
    data = cv2.imencode(".jpg", _photo(heap, 4000, (3000, 4000)))[1].tobytes()
    reader = PhotoReader(loc, _Classifier({}), VisionSettings())  # type: ignore[arg-type]
    timings: dict[str, float] = {}
    decoded, dets = reader.detect_photo(reader.decode(data), timings)
    assert "focus" in timings
    assert sorted(round(d.box[0] / decoded.scale) for d in dets) == [round(b[0]) for b in heap]
    off = PhotoReader(loc, _Classifier({}), VisionSettings(focus_faint_share=0.0))  # type: ignore[arg-type]
    assert off.detect_photo(off.decode(data))[1] == []  # three faint tiles: none shown
    loc.partial_conf = 0.9  # the same three found surely: looked at 28 px short, no more found
    assert len(reader.detect_photo(reader.decode(data))[1]) == 3


def test_tiles_the_search_saw_near_enough_or_too_spread_for_the_windows_are_not_looked_at_again() -> None:
    from paiscan.vision.slicing import tile_groups

    loc = _SmallTileLocalizer([], full=4000)
    reader = PhotoReader(loc, _Classifier({}), VisionSettings())  # type: ignore[arg-type]
    img = np.zeros((3000, 4000, 3), np.uint8)
    row = [TileBox((1000.0 + 40 * i, 1000.0, 1036.0 + 40 * i, 1048.0), 0.9, False) for i in range(14)]
    # the search saw these 36 px tiles 33 px short (a pixel of the photo was 0.92 input pixels)
    assert reader.focus(img, row, searched_px=0.92) is row and loc.windows_seen == 0
    # 14 tiles scattered over the whole photo: six windows would show them no closer than the search
    spread = [TileBox((280.0 * i, 200.0 * i, 280.0 * i + 36, 200.0 * i + 48), 0.9, False) for i in range(14)]
    assert [len(g) for g in tile_groups(spread, 0.45)] == [1] * 14
    assert reader.focus(img, spread, searched_px=0.46) is spread and loc.windows_seen == 0


def test_after_a_search_a_white_dragon_is_kept_only_in_a_group_with_a_face_read_surely() -> None:
    from paiscan.vision.detection import Detection
    from paiscan.vision.slicing import anchored_blanks

    def det(cls: int, x: float, y: float = 0.0, share: float = 0.95) -> Detection:
        return Detection(cls, share, (x, y, x + 10.0, y + 14.0), False, ((cls, share),))

    # a hand row with a pair of white dragons at its end: kept through the chain of neighbours
    hand = [det(k, 11.0 * i) for i, k in enumerate([0, 1, 2, 9, 10, 11, 18, 19, 20, 27, 27, 27, WHITE, WHITE])]
    # key caps read surely as blanks beside one read unsurely as a face: that face vouches for none;
    # a back stays (a wall, another player's hand)
    keys = [det(WHITE, 400.0, 300.0), det(BACK, 412.0, 300.0), det(5, 424.0, 300.0, share=0.6)]
    kept = anchored_blanks(hand + keys, 0.8)
    assert kept == [*hand, keys[1], keys[2]]
    assert anchored_blanks(keys[:2], 0.8) == [keys[1]]
    assert anchored_blanks(hand[:5], 0.8) == hand[:5]
