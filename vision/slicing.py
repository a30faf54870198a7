"""Tiles small in a large photo: the localizer looks again through a grid of windows, in more detail.

The localizer sees the whole photo at 384 px. A hand that spans a fifth of a 12 MP photo's width
then shows its tiles 3-6 px wide there, and the localizer finds none of them, so the closer looks
that start from the tiles it found (:func:`paiscan.vision.models.zoom_windows`) never start. When
the first look finds fewer tiles than a hand holds, the photo is searched window by window
(sliced inference): first in the decoded photo, then decoded again two and four times larger,
until a level finds a hand's worth. Each window is shown to the localizer at about its input size,
so a tile of ``min_face_px`` in the original photo comes out large enough to be found.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from paiscan.vision.deadline import spent
from paiscan.vision.image import DecodedImage, redecode
from paiscan.vision.models import Localizer, TileBox, Window


@dataclass(frozen=True)
class SliceSettings:
    """When and how finely a photo is searched window by window."""

    #: a photo whose first look finds fewer sure tiles than this (a winning hand shows 14) is searched
    #: window by window; 0 turns the search off
    below: int = 14
    #: a window's side, in pixels of the photo at the level searched (the localizer's input is 384)
    window_px: int = 416
    #: the windows' overlap, as a share of their side: a tile cut by one window's edge lies whole in
    #: its neighbour
    overlap: float = 0.25
    #: the levels searched, as factors of the first decoding's size (1: the decoded photo itself;
    #: 2 and 4: decoded again that much larger, up to the original size)
    levels: tuple[float, ...] = (1.0, 2.0, 4.0)
    #: at most this many windows a level (the windows grow to cover the photo with no more)
    max_windows: int = 40
    #: no search when the tiles the first look found are this large or larger (median short side,
    #: pixels of the localizer's input): the photo is near, its tiles are no small ones
    large_tile_px: float = 24.0


def grid_windows(width: int, height: int, side: int, overlap: float, max_windows: int) -> list[Window]:
    """Square windows covering a ``width`` x ``height`` image, ``side`` pixels (grown until at most
    ``max_windows`` cover it; never past the image), overlapping by ``overlap`` of their side.

    >>> grid_windows(1000, 750, 416, 0.25, 40)[:4]
    [(0, 0, 416, 416), (292, 0, 708, 416), (584, 0, 1000, 416), (0, 167, 416, 583)]
    >>> len(grid_windows(4000, 3000, 416, 0.25, 40)) <= 40
    True
    >>> grid_windows(300, 200, 416, 0.25, 40)
    [(0, 0, 300, 200)]
    """

    def counts(s: int) -> tuple[int, int]:
        step = max(1, round(s * (1 - overlap)))
        return (max(1, math.ceil((width - s) / step) + 1), max(1, math.ceil((height - s) / step) + 1))

    side = max(1, side)
    while math.prod(counts(side)) > max_windows:
        side = math.ceil(side * 1.15)
    if side >= width and side >= height:
        return [(0, 0, width, height)]
    nx, ny = counts(side)
    sw, sh = min(side, width), min(side, height)

    def starts(n: int, length: int, s: int) -> list[int]:
        if n == 1:
            return [0]
        return [round(k * (length - s) / (n - 1)) for k in range(n)]

    return [(x, y, x + sw, y + sh) for y in starts(ny, height, sh) for x in starts(nx, width, sw)]


def search_small_tiles(
    localizer: Localizer,
    decoded: DecodedImage,
    found: Sequence[TileBox],
    settings: SliceSettings,
    max_pixels: int,
    floor: float | None = None,
    check: Callable[[], None] | None = None,
) -> tuple[DecodedImage, list[TileBox]] | None:
    """The photo (as decoded for the level that found most) and the tiles found window by window,
    when a level finds more sure tiles than the first look's sure tiles ``found``; else ``None``.
    No search when the first look found a hand's worth (``settings.below``) or tiles already large.
    Levels go from coarse to fine and stop once one finds ``settings.below`` sure tiles. ``check``
    is called between levels (a deadline's check)."""
    if settings.below <= 0 or len(found) >= settings.below:
        return None
    if found:
        h, w = decoded.bgr.shape[:2]
        short = float(np.median([min(t.box[2] - t.box[0], t.box[3] - t.box[1]) for t in found]))
        if short * localizer.size / max(w, h) >= settings.large_tile_px:
            return None
    best: tuple[DecodedImage, list[TileBox]] | None = None
    best_sure = len(found)
    last_scale = 0.0
    for level in settings.levels:
        if check is not None:
            check()
        if best is not None and spent():
            break  # the time for the photo is spent: the coarser level's tiles are the answer
        image = decoded if level <= 1.0 else redecode(decoded, level, max_pixels)
        if image.scale <= last_scale:
            continue  # no larger decoding to be had
        last_scale = image.scale
        h, w = image.bgr.shape[:2]
        windows = grid_windows(w, h, settings.window_px, settings.overlap, settings.max_windows)
        tiles = localizer.in_windows(image.bgr, windows, floor=floor)
        sure = sum(t.confidence >= localizer.conf for t in tiles)
        if sure > best_sure:
            best, best_sure = (image, tiles), sure
        if best_sure >= settings.below:
            break
    return best
