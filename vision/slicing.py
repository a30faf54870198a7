"""Tiles small in a large photo: the localizer looks again through a grid of windows, in more detail.

The localizer sees the whole photo at 384 px. A hand that spans a fifth of a 12 MP photo's width
then shows its tiles 3-6 px wide there, and the localizer finds none of them, so the closer looks
that start from the tiles it found (:func:`paiscan.vision.models.zoom_windows`) never start. When
the first look finds fewer tiles than a hand holds, the photo is searched window by window
(sliced inference): in the decoded photo, then decoded again twice as large, and the small tiles
of both levels together are the answer. Each window is shown to the localizer at about its input size,
so a tile of ``min_face_px`` in the original photo comes out large enough to be found.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import combinations

import cv2
import numpy as np

from paiscan.scoring.tiles import BACK, WHITE
from paiscan.vision.deadline import soft_left, soft_limit, spent
from paiscan.vision.detection import Detection, shares_inside
from paiscan.vision.image import DecodedImage, redecode
from paiscan.vision.models import Localizer, TileBox, Window, nms, scaled_tiles


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
    #: 2: decoded again twice as large, up to the original size); every level is read (within
    #: ``budget_s``) and their small tiles together are the answer: a coarse level's hand's worth
    #: may be a keyboard's keys, and a far hand's tiles show only at the finer level
    levels: tuple[float, ...] = (1.0, 2.0)
    #: at most this many windows a level (the windows grow to cover the photo with no more)
    max_windows: int = 40
    #: a tile this large or larger in the first look's view (short side, pixels of the localizer's
    #: input) is a near one: the first look's own are kept, the windows' are not taken from them
    large_tile_px: float = 24.0
    #: the search's answer is taken when it finds at least this many sure small tiles
    min_small: int = 3
    #: seconds the search may take (its windows stop then, and the levels read so far answer), so
    #: that the rest of the reading fits in the photo's budget (``VisionSettings.read_budget_s``)
    budget_s: float = 0.8
    #: after the levels, at most this many of their sure boxes that lie in no group of ``below`` tiles
    #: are looked at again, each through one window around it (:func:`inside_blobs`): a heap or a
    #: tray of small tiles shows at every level as one tile-like box; 0 turns this off
    blob_looks: int = 4
    #: a blob's window side, as a multiple of the blob's long side
    blob_window: float = 1.6
    #: after the levels (and the blobs), groups of ``faint_min`` or more of the finest level's faint
    #: boxes (the localizer at ``faint_floor`` or more, under its threshold; chained by nearness) are
    #: looked at again magnified, through windows of ``faint_window`` of that level's pixels (the
    #: localizer's input is 384), at most ``faint_looks`` windows, the likeliest groups first:
    #: faces about 24 px across in a 12 MP photo are about 11 px in the finest level's windows,
    #: where a hand shows as faint boxes; 0 turns this off
    faint_looks: int = 6
    faint_floor: float = 0.05
    faint_min: int = 3
    faint_window: int = 208
    #: ... only faint boxes whose short side is under this in the search windows' view (pixels of
    #: the localizer's input at ``window_px``) count: a box the localizer doubts at that size is
    #: no far tile (a backlit key's icon)
    faint_max_px: float = 24.0
    #: seconds of the photo's time (``VisionSettings.read_budget_s``) kept, per sure tile found so
    #: far, for what follows the search (classifying each tile, about 1 ms on two cores, and laying
    #: them out, about 1.5 ms up to the layout's 200): the search of a photo of hundreds of tiles
    #: stops early enough that they are read in time; 0 keeps nothing
    reserve_per_tile_s: float = 0.002
    #: a level's window is read only when at least ``busy_edges`` of its pixels lie on an edge: a 3x3
    #: neighbourhood spanning ``busy_contrast`` grey levels or more (less in a photo of little
    #: contrast: a quarter of its grey range, at least 8); a plain stretch of cloth, desk or wall
    #: holds no tile. A far tile's face, about 12 px across at the finest level, alone shows a few
    #: dozen such pixels; 0 reads every window
    busy_edges: int = 50
    busy_contrast: int = 32


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


def busy_windows(bgr: np.ndarray, windows: Sequence[Window], contrast: int, least: int) -> list[Window]:
    """The ``windows`` of ``bgr`` that hold at least ``least`` edge pixels, in their order: pixels
    whose 3x3 neighbourhood spans ``contrast`` grey levels or more, or a quarter of the image's grey
    range (0.1st to 99.9th percentile; at least 8 levels) where that is less, so that a dim photo's
    tiles count as a bright one's. All of them when ``least`` is 0.

    >>> desk = np.full((100, 200, 3), 90, np.uint8)
    >>> desk[40:60, 150:170] = 200  # one small light face in the right half
    >>> busy_windows(desk, [(0, 0, 100, 100), (100, 0, 200, 100)], 32, 50)
    [(100, 0, 200, 100)]
    """
    if least <= 0 or not windows:
        return list(windows)
    grey = cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY) if bgr.ndim == 3 else bgr
    sample = grey[::4, ::4]
    share = np.cumsum(np.bincount(sample.ravel(), minlength=256)) / sample.size
    low, high = np.searchsorted(share, (0.001, 0.999))  # the 0.1st and 99.9th percentiles
    edge = min(float(contrast), max(8.0, (int(high) - int(low)) / 4))
    on_edge = cv2.morphologyEx(grey, cv2.MORPH_GRADIENT, np.ones((3, 3), np.uint8)) >= edge
    return [(x1, y1, x2, y2) for x1, y1, x2, y2 in windows if np.count_nonzero(on_edge[y1:y2, x1:x2]) >= least]


def search_small_tiles(
    localizer: Localizer,
    decoded: DecodedImage,
    found: Sequence[TileBox],
    settings: SliceSettings,
    max_pixels: int,
    floor: float | None = None,
    check: Callable[[], None] | None = None,
    cut_short: list[bool] | None = None,
) -> tuple[DecodedImage, list[TileBox]] | None:
    """The photo (as decoded for the finest level read) and its tiles, when the levels of the
    window-by-window search find at least ``settings.min_small`` sure tiles small in the first
    look's view that the first look missed; else ``None``.

    The first look's sure tiles ``found`` that are large in its view (``settings.large_tile_px``)
    are kept as they are, and of a level's tiles only the small ones count: near objects (a
    keyboard's keys, the hand's own large tiles) neither stop the search nor come back from it as
    false small tiles. No search when the first look found a hand's worth (``settings.below``).
    Levels go from coarse to fine, each read whole unless the search's time (``settings.budget_s``)
    is spent, or what is left of the photo's is what reading the sure tiles found so far will take
    (``settings.reserve_per_tile_s`` a tile), and the answer is the finest level's photo with the
    small tiles of every level read (found twice: merged). ``check`` is called between levels (a
    deadline's check). Then, unless the time is up so, the levels' lone boxes are looked into
    (:func:`inside_blobs`): a heap's box is replaced by its tiles, which may make an answer where
    the levels had none. Where there is still none, the finest level's groups of faint boxes are
    looked at again, magnified (:func:`in_faint_groups`). ``cut_short``: a list that gets ``True``
    when the levels stopped for want of time with windows of the photo unread (the reading says so)."""
    if settings.below <= 0 or len(found) >= settings.below:
        return None
    h0, w0 = decoded.bgr.shape[:2]
    view = localizer.size / max(w0, h0)  # the first look's input pixels per decoded pixel

    def in_view(t: TileBox, scale: float) -> float:
        return min(t.box[2] - t.box[0], t.box[3] - t.box[1]) * view * decoded.scale / scale

    large = [t for t in found if in_view(t, decoded.scale) >= settings.large_tile_px]
    least = max(settings.min_small - 1, len(found) - len(large))
    photo_end = time.monotonic() + soft_left()  # (before the search's own budget is set)
    sure_large = sum(t.confidence >= localizer.conf for t in large)

    def stop(small: Sequence[TileBox]) -> bool:
        """Whether the search must stop: its time is spent, or what is left of the photo's is what
        reading the sure tiles found so far (the large ones and ``small``) will take."""
        tiles = sure_large + sum(t.confidence >= localizer.conf for t in small)
        return spent() or time.monotonic() + settings.reserve_per_tile_s * tiles >= photo_end

    with soft_limit(settings.budget_s):
        best, last, seen, faint, whole = _search(
            localizer, decoded, large, least, settings, max_pixels, floor, check, in_view, stop
        )
    if not whole and cut_short is not None:
        cut_short.append(True)
    if last is None:
        return best
    if settings.blob_looks > 0 and not stop(seen):
        blobs = inside_blobs(localizer, last, seen, settings, floor)
        answer = None if blobs is None else _answer(localizer, decoded, last, large, blobs, least)
        if blobs is not None and answer is not None:
            best, seen = answer, blobs
    if settings.faint_looks > 0 and faint and best is None and not stop(seen):
        more = [
            t
            for t in in_faint_groups(localizer, last, faint, seen, settings, floor)
            if in_view(t, last.scale) < settings.large_tile_px
        ]
        if more:
            best = _answer(localizer, decoded, last, large, _merged(localizer, seen + more), least)
    return best


def _answer(
    localizer: Localizer,
    decoded: DecodedImage,
    image: DecodedImage,
    large: Sequence[TileBox],
    small: Sequence[TileBox],
    least: int,
) -> tuple[DecodedImage, list[TileBox]] | None:
    """``image`` and its tiles: the first look's ``large`` ones (in ``decoded``'s pixels) that hold
    none of the ``small`` ones (in ``image``'s), and the small ones clear of those; ``None`` unless
    more than ``least`` of the small ones are sure."""
    kept = _not_holding_tiles(scaled_tiles(large, image.scale / decoded.scale), small, localizer.conf)
    clear = [t for t in small if not any(_overlaps(t.box, k.box) for k in kept)]
    return (image, kept + clear) if sum(t.confidence >= localizer.conf for t in clear) > least else None


def _search(
    localizer: Localizer,
    decoded: DecodedImage,
    large: Sequence[TileBox],
    least: int,
    settings: SliceSettings,
    max_pixels: int,
    floor: float | None,
    check: Callable[[], None] | None,
    in_view: Callable[[TileBox, float], float],
    stop: Callable[[Sequence[TileBox]], bool],
) -> tuple[tuple[DecodedImage, list[TileBox]] | None, DecodedImage | None, list[TileBox], list[TileBox], bool]:
    """:func:`search_small_tiles`' levels, from coarse to fine: the answer (:func:`_answer`, or
    ``None``), the last level's photo (``None`` when none was read), the small tiles of the
    levels read, in its pixels, the last level's faint boxes (``settings.faint_floor`` up to
    the localizer's threshold), and whether every level's windows were read. ``stop(small tiles
    found)`` says when no more windows are read."""
    best: tuple[DecodedImage, list[TileBox]] | None = None
    seen: list[TileBox] = []  # the small tiles of the levels read so far, in the last level's pixels
    last: DecodedImage | None = None
    faint: list[TileBox] = []
    whole = True
    low = floor if settings.faint_looks <= 0 else min(settings.faint_floor, floor or localizer.conf)
    for level in settings.levels:
        if check is not None:
            check()
        if stop(seen):
            whole = False
            break  # the search's time is spent: the levels read so far answer
        image = decoded if level <= 1.0 else redecode(decoded, level, max_pixels)
        if last is not None and image.scale <= last.scale:
            continue  # no larger decoding to be had
        h, w = image.bgr.shape[:2]
        windows = busy_windows(
            image.bgr,
            grid_windows(w, h, settings.window_px, settings.overlap, settings.max_windows),
            settings.busy_contrast,
            settings.busy_edges,
        )

        def small(tiles: Sequence[TileBox], scale: float = image.scale) -> list[TileBox]:
            return [t for t in tiles if in_view(t, scale) < settings.large_tile_px]

        def kept(tiles: Sequence[TileBox]) -> list[TileBox]:  # (the faint boxes are the faint look's alone)
            return [t for t in tiles if t.confidence >= (localizer.conf if floor is None else floor)]

        def level_stop(more: Sequence[TileBox], before: Sequence[TileBox] = seen) -> bool:
            # (a level finds again most of the tiles the one before found: the larger count stands for both)
            return stop(max(before, small(kept(more)), key=len))

        every, read = _in_windows(localizer, image.bgr, windows, low, level_stop)
        whole = whole and read
        now = small(kept(every))
        faint = [t for t in every if t.confidence < localizer.conf]
        seen = _merged(localizer, (scaled_tiles(seen, image.scale / last.scale) if last else []) + now)
        last = image
        best = _answer(localizer, decoded, image, large, seen, least) or best
    return best, last, seen, faint, whole


def inside_blobs(
    localizer: Localizer, image: DecodedImage, seen: Sequence[TileBox], settings: SliceSettings, floor: float | None
) -> list[TileBox] | None:
    """``seen`` (the search's small tiles, in ``image``'s pixels) with each of its blobs replaced by
    the tiles inside it; ``None`` when none is a blob.

    A heap or a tray of tiles far away shows at every level of the search as one tile-like box,
    its tiles too small to be found one by one. Such a box lies in no group of a hand's worth of
    tiles (``settings.below``; a far hand's tiles or a keyboard's keys do: :func:`tile_groups`), so
    the surest of those boxes (at most ``settings.blob_looks``) are looked at again, each through
    one window around it (``settings.blob_window`` times its long side), where the localizer sees
    its tiles at several times the size. A box holding ``settings.min_small`` or more of the
    windows' sure tiles (their centres) is a blob, and the tiles of its window are kept. A tile
    looked at so closely may show one or two boxes on its face (pips, a character's strokes): it
    stays a tile."""
    conf = localizer.conf
    lone = [i for group in tile_groups(seen, conf) if len(group) < settings.below for i in group]
    boxes = sorted((seen[i] for i in lone), key=lambda t: -t.confidence)[: settings.blob_looks]
    h, w = image.bgr.shape[:2]
    windows: list[Window] = []
    for box in boxes:
        x1, y1, x2, y2 = box.box
        half = settings.blob_window * max(x2 - x1, y2 - y1) / 2
        cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
        windows.append(
            (max(0, int(cx - half)), max(0, int(cy - half)), min(w, int(cx + half) + 1), min(h, int(cy + half) + 1))
        )
    looked = [(b, win) for b, win in zip(boxes, windows, strict=True) if win[2] - win[0] > 1 and win[3] - win[1] > 1]
    if not looked:
        return None
    found = localizer.in_windows(image.bgr, [win for _, win in looked], floor=floor)
    blobs: list[TileBox] = []
    inside: list[TileBox] = []
    sure = [t for t in found if t.confidence >= conf]
    for box, win in looked:
        if sum(centre_in(t.box, box.box) for t in sure) >= settings.min_small:
            blobs.append(box)
            inside += [t for t in found if centre_in(t.box, win) and t not in inside]
    if not blobs:
        return None
    return _merged(localizer, [t for t in seen if t not in blobs] + inside)


def in_faint_groups(
    localizer: Localizer,
    image: DecodedImage,
    faint: Sequence[TileBox],
    seen: Sequence[TileBox],
    settings: SliceSettings,
    floor: float | None,
) -> list[TileBox]:
    """The tiles found by looking again, magnified, at the groups of ``faint`` boxes (in
    ``image``'s pixels) small in the windows' view (``settings.faint_max_px``) that lie clear of
    the sure tiles ``seen``: groups of ``settings.faint_min`` or more (chained at
    :data:`GROUP_REACH`), the likeliest (the most summed confidence) first, each with a tile's size
    around it covered by windows of ``settings.faint_window`` pixels (overlapping by a quarter;
    larger where a group needs more than ``settings.faint_looks``), that many windows in all. A far
    hand's faces, about 11 px across in the finest level's windows, show there as faint boxes and,
    at twice the size, as tiles."""
    sure = [t for t in seen if t.confidence >= localizer.conf]
    view = localizer.size / settings.window_px
    clear = [
        t
        for t in faint
        if min(t.box[2] - t.box[0], t.box[3] - t.box[1]) * view < settings.faint_max_px
        and not any(_overlaps(t.box, k.box) for k in sure)
    ]
    if len(clear) < settings.faint_min:
        return []
    groups = [[clear[i] for i in group] for group in tile_groups(clear, 0.0) if len(group) >= settings.faint_min]
    likely = sorted(groups, key=lambda g: -sum(t.confidence for t in g))
    h, w = image.bgr.shape[:2]
    windows: list[Window] = []
    for group in likely:
        boxes = np.array([t.box for t in group])
        margin = float(np.max(boxes[:, 2:] - boxes[:, :2]))  # a tile's size around the group
        x1, y1 = max(0, int(boxes[:, 0].min() - margin)), max(0, int(boxes[:, 1].min() - margin))
        x2, y2 = min(w, int(boxes[:, 2].max() + margin) + 1), min(h, int(boxes[:, 3].max() + margin) + 1)
        cover = grid_windows(x2 - x1, y2 - y1, settings.faint_window, 0.25, settings.faint_looks)
        windows += [(x1 + a, y1 + b, x1 + c, y1 + d) for a, b, c, d in cover]
        if len(windows) >= settings.faint_looks:
            break
    windows = [win for win in windows[: settings.faint_looks] if win[2] - win[0] > 1 and win[3] - win[1] > 1]
    return localizer.in_windows(image.bgr, windows, floor=floor) if windows else []


def centre_in(box: Sequence[float], window: Sequence[float]) -> bool:
    """Whether ``box``'s centre lies in ``window`` (both x1, y1, x2, y2)."""
    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    return window[0] <= cx <= window[2] and window[1] <= cy <= window[3]


def _merged(localizer: Localizer, tiles: list[TileBox]) -> list[TileBox]:
    """``tiles`` with those found twice (by two levels) merged by non-maximum suppression, in their
    order (:func:`_in_windows` keeps the suppression's, surest first, for a level's batches)."""
    if len(tiles) < 2:
        return tiles
    keep = nms(np.array([t.box for t in tiles]), np.array([t.confidence for t in tiles]), localizer.iou)
    return [tiles[i] for i in sorted(keep)]


#: windows read between two looks at the time left (10-17 ms a window on two cores): the most a
#: search overruns its budget by
WINDOWS_PER_CHECK = 4


def _in_windows(
    localizer: Localizer,
    bgr: np.ndarray,
    windows: Sequence[Window],
    floor: float | None,
    stop: Callable[[Sequence[TileBox]], bool] = lambda found: spent(),
) -> tuple[list[TileBox], bool]:
    """The tiles the localizer finds window by window, a few windows at a time, and whether every
    window was read: once ``stop(tiles found so far)`` says so (by default: the time for the photo
    is spent, :func:`spent`) the windows left are not read, and the tiles found so far are the
    answer. Tiles found twice (by overlapping windows) are merged by non-maximum suppression."""
    found: list[TileBox] = []
    whole = True
    for k in range(0, len(windows), WINDOWS_PER_CHECK):
        if k and stop(found):
            whole = False
            break
        found += localizer.in_windows(bgr, windows[k : k + WINDOWS_PER_CHECK], floor=floor)
    if len(windows) <= WINDOWS_PER_CHECK or not found:
        return found, whole
    keep = nms(np.array([t.box for t in found]), np.array([t.confidence for t in found]), localizer.iou)
    return [found[i] for i in keep], whole


#: a first look's large box holding this many sure small tiles' centres is the blob a small hand
#: makes at the first look's scale, not a tile
HOLDING_TILES = 2


def _not_holding_tiles(large: Sequence[TileBox], small: Sequence[TileBox], conf: float) -> list[TileBox]:
    """The first look's large tiles less those that hold :data:`HOLDING_TILES` or more of the
    windows' sure ``small`` tiles (their centres): a hand far away looks like one tile at 384 px."""

    sure = [t for t in small if t.confidence >= conf]
    return [k for k in large if sum(centre_in(t.box, k.box) for t in sure) < HOLDING_TILES]


def _overlaps(a: Sequence[float], b: Sequence[float]) -> bool:
    """Whether boxes ``a`` and ``b`` (x1, y1, x2, y2) share any area."""
    return min(a[2], b[2]) > max(a[0], b[0]) and min(a[3], b[3]) > max(a[1], b[1])


#: an unsure tile lies beside a sure one when their centres are at most this many of the sure
#: one's long side apart (a row's neighbour is about one)
BESIDE = 1.5

#: the classes read surely that vouch for no neighbour: a blank face (the white dragon) and a
#: tile's back are what a key or any plain rectangle reads as
BLANK_FACES = frozenset({WHITE, BACK})


def beside_sure(dets: Sequence[Detection], least_share: float) -> list[Detection]:
    """The detections whose best class has ``least_share`` or more, and those read less surely that
    lie beside one of them (:data:`BESIDE`) not read as a blank (:data:`BLANK_FACES`): after a
    search all over a photo, an unsure box on its own is a texture (a key, print, cloth), an unsure
    one in a row of sure tiles a blurred tile."""

    sure = [d for d in dets if d.share >= least_share and d.cls not in BLANK_FACES]
    centres = np.array([[(d.box[0] + d.box[2]) / 2, (d.box[1] + d.box[3]) / 2] for d in sure]).reshape(-1, 2)
    reach = np.array([max(d.box[2] - d.box[0], d.box[3] - d.box[1]) * BESIDE for d in sure])

    def beside(d: Detection) -> bool:
        c = np.array([(d.box[0] + d.box[2]) / 2, (d.box[1] + d.box[3]) / 2])
        return bool(len(sure)) and bool((np.hypot(*(centres - c).T) <= reach).any())

    return [d for d in dets if d.share >= least_share or beside(d)]


def _chained(boxes: np.ndarray, reach: float) -> list[int]:
    """Per box (rows ``x1, y1, x2, y2``), a label shared by the boxes chained to it: two are linked
    when their centres are at most ``reach`` of the longer long side of the two apart."""
    parent = list(range(len(boxes)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    centres = (boxes[:, :2] + boxes[:, 2:]) / 2
    longs = np.maximum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1])
    for a in range(len(boxes)):
        near = np.hypot(*(centres[a + 1 :] - centres[a]).T) <= reach * np.maximum(longs[a + 1 :], longs[a])
        for b in np.nonzero(near)[0]:
            parent[root(a + 1 + int(b))] = root(a)
    return [root(i) for i in range(len(boxes))]


#: two sure tiles lie in one group when their centres are at most this many of the larger one's
#: long side apart (a hand row, its melds and indicators lie within one or two of each other)
GROUP_REACH = 3.0


def tile_groups(tiles: Sequence[TileBox], conf: float) -> list[list[int]]:
    """The indices of ``tiles`` sure at ``conf`` or more, grouped by nearness (:data:`GROUP_REACH`,
    chained), the largest group first.

    >>> row = [TileBox((10.0 * i, 0.0, 10.0 * i + 8, 12.0), 0.9, False) for i in range(4)]
    >>> far = [TileBox((500.0, 500.0, 508.0, 512.0), 0.9, False), TileBox((0.0, 40.0, 8.0, 52.0), 0.2, False)]
    >>> tile_groups(row + far, 0.5)
    [[0, 1, 2, 3], [4]]
    """
    sure = [i for i, t in enumerate(tiles) if t.confidence >= conf]
    labels = _chained(np.array([tiles[i].box for i in sure], dtype=float).reshape(-1, 4), GROUP_REACH)
    groups: dict[int, list[int]] = {}
    for i, label in zip(sure, labels, strict=True):
        groups.setdefault(label, []).append(i)
    return sorted(groups.values(), key=lambda g: (-len(g), g[0]))


def anchored_blanks(dets: Sequence[Detection], least_share: float) -> list[Detection]:
    """``dets`` less the white dragons that lie in no group with a tile read at ``least_share`` or
    more that is not a blank (:data:`BLANK_FACES`; groups chained at :data:`BESIDE`, over every
    box): after a search all over a photo, key caps read surely as the white dragon in groups of
    their own, while a hand's white dragons lie in a row with faces. Backs stay: a wall or another
    player's standing hand is backs alone, and a key read as a back adds no dora.

    >>> from paiscan.scoring.tiles import BACK, WHITE
    >>> def det(cls: int, x: float, share: float = 0.95) -> Detection:
    ...     return Detection(cls, share, (x, 0.0, x + 10.0, 14.0), False, ((cls, share),))
    >>> wall = [det(BACK, 0.0), det(BACK, 11.0), det(4, 22.0), det(BACK, 33.0), det(BACK, 44.0)]
    >>> keys = [det(WHITE, 300.0), det(WHITE, 312.0), det(BACK, 324.0)]
    >>> [d.box[0] for d in anchored_blanks(wall + keys, 0.8)]
    [0.0, 11.0, 22.0, 33.0, 44.0, 324.0]
    """
    if not any(d.cls == WHITE for d in dets):
        return list(dets)
    labels = _chained(np.array([d.box for d in dets], dtype=float).reshape(-1, 4), BESIDE)
    anchored = {labels[i] for i, d in enumerate(dets) if d.share >= least_share and d.cls not in BLANK_FACES}
    return [d for i, d in enumerate(dets) if d.cls != WHITE or labels[i] in anchored]


#: of a box between two tiles, each of the two covers at least this share (0..1)
STRADDLE_EACH = 0.2
#: two boxes that share more than this share (0..1) of the smaller are one tile seen twice, not two
#: neighbours
STRADDLE_APART = 0.2


def straddlers(dets: Sequence[Detection], cover: float) -> set[int]:
    """The indices of the boxes lying across two tiles: boxes of which two others, each at least as
    confident, cover ``cover`` (0..1) or more together, each of them :data:`STRADDLE_EACH` or more,
    and which barely overlap each other (:data:`STRADDLE_APART`). After a search all over a photo
    the localizer sees such a box between two neighbours of a tight row or grid, half of each, or
    over both. None when ``cover`` is 0.

    >>> row = [Detection(1, 0.9, (0.0, 0.0, 10.0, 14.0)), Detection(2, 0.8, (11.0, 0.0, 21.0, 14.0))]
    >>> between, past = Detection(1, 0.3, (5.0, 0.0, 15.0, 14.0)), Detection(1, 0.3, (18.0, 0.0, 28.0, 14.0))
    >>> straddlers([*row, between], 0.7), straddlers([*row, between], 0.0), straddlers([*row, past], 0.7)
    ({2}, set(), set())
    """
    if cover <= 0 or len(dets) < 3:
        return set()
    b = np.array([d.box for d in dets], dtype=float)
    conf = np.array([d.confidence for d in dets])
    inside = shares_inside(dets, range(len(dets)))  # [j, k]: the share of box j in box k
    # covering[j, k]: box k, at least as confident, covers enough of box j to be one of its two
    covering = (inside >= STRADDLE_EACH) & (conf[None, :] >= conf[:, None])
    np.fill_diagonal(covering, False)

    def covered(j: int, a: int, c: int) -> float:
        """The share of box ``j`` that boxes ``a`` and ``c`` cover (what both cover counted once)."""
        lo, hi = np.maximum(b[a, :2], b[c, :2]), np.minimum(b[a, 2:], b[c, 2:])
        side = np.clip(np.minimum(hi, b[j, 2:]) - np.maximum(lo, b[j, :2]), 0, None)
        return float(inside[j, a] + inside[j, c] - side[0] * side[1] / ((b[j, 2] - b[j, 0]) * (b[j, 3] - b[j, 1])))

    out: set[int] = set()
    for j in np.nonzero(covering.sum(axis=1) >= 2)[0].tolist():
        pairs = combinations(np.nonzero(covering[j])[0].tolist(), 2)
        apart = [(a, c) for a, c in pairs if max(inside[a, c], inside[c, a]) <= STRADDLE_APART]
        if any(covered(j, a, c) >= cover for a, c in apart):
            out.add(j)
    return out
