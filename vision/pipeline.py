"""From photo bytes to a read hand: decode → localize → classify → layout, with stage timings.

:class:`PhotoReader` holds one session per model, created once (the service creates it in its
lifespan and warms it); :meth:`PhotoReader.read` is a pure function of the image otherwise.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from contextlib import nullcontext
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from paiscan.scoring.engine import Ruleset
from paiscan.scoring.tiles import BACK, WHITE, kind
from paiscan.vision.deadline import ReadingTooSlow, check, soft_grace, soft_limit, spent
from paiscan.vision.detection import ROUND_FACES, Detection, iou
from paiscan.vision.image import DecodedImage, decode_image, redecode
from paiscan.vision.models import (
    MODELS_DIR,
    Classifier,
    Localizer,
    TileBox,
    Window,
    inside_frame,
    readable,
    scaled_tiles,
    settle_red_fives,
    whole_tile_box,
    zoom_windows,
)
from paiscan.vision.reading import Reading, read_hand, ruleset_of
from paiscan.vision.slicing import (
    GROUP_REACH,
    SliceSettings,
    anchored_blanks,
    beside_sure,
    busy_windows,
    centre_in,
    search_small_tiles,
    straddlers,
    tile_groups,
)

#: the roles of the hand row's tiles: those read again when no reading of the photo is valid
HAND_ROLES = frozenset({"hand", "win", "meld"})


class ModelsMissing(RuntimeError):
    """The ONNX files are not where the settings say."""


#: a box nearer the photo's frame than this share of its longer side (5 px at 1,280) may hold a tile
#: the frame cuts (``Detection.cut``): the localizer's box for one often stops a pixel or two short
FRAME_EDGE_SHARE = 0.004
#: the least enlargement (closer look's tile size over the search's) worth a focus window
FOCUS_GAIN = 1.25
#: the localizer's confidence (0..1) from which the search found a tile surely, for telling a group
#: found faintly (``VisionSettings.focus_faint_share``)
FAINT_GROUP_CONF = 0.7


def _topk(p: np.ndarray, k: int) -> tuple[tuple[int, float], ...]:
    """The ``k`` likeliest classes of probabilities ``p`` over 0, with theirs, best first."""
    order = np.argsort(-p)[:k]
    return tuple((int(c), float(p[c])) for c in order if p[c] > 0)


@dataclass(frozen=True)
class VisionSettings:
    """Where the models are and how to run them. The evidence behind each value is in
    ``docs/tuning.md``."""

    localizer_path: Path = MODELS_DIR / "localizer.onnx"
    classifier_path: Path = MODELS_DIR / "classifier.onnx"
    #: onnxruntime intra-op threads per session (1 gives more photos a second when several run at once)
    threads: int = 2
    #: the localizer's confidence threshold (0..1)
    localizer_conf: float = 0.45
    #: the localizer's non-maximum suppression: of two boxes overlapping more than this (IoU), the
    #: less confident goes
    localizer_iou: float = 0.6
    #: classifier alternatives kept per tile, for correction and arbitration
    topk: int = 5
    #: a five is read red when the red five holds at least this share (0..1) of the red and plain
    #: fives' probability, else plain, and as sure of its kind as the two together
    #: (:func:`paiscan.vision.models.settle_red_fives`): a plain five read as red is a han added
    #: silently; 0 keeps the classifier's reading
    red_five_share: float = 0.7
    #: large JPEGs are decoded by the codec at 1/2, 1/4 … down to about this long side (pixels)
    decode_max_side: int = 1000
    #: a photo decoded reduced whose tiles' median short side is under this many pixels is decoded
    #: again larger for the classifier's crops
    min_tile_px: int = 36
    #: when the tiles' median short side would be under this many pixels in the localizer's input,
    #: the localizer looks again through windows over the tiles that show a median tile
    #: ``zoom_target_px`` short (:func:`paiscan.vision.models.zoom_windows`); 0 turns it off
    zoom_min_px: float = 20.0
    zoom_target_px: float = 28.0
    zoom_max_windows: int = 8
    #: after the window search (:mod:`paiscan.vision.slicing`), its sure tiles' groups (a hand, its
    #: melds and indicators: :func:`paiscan.vision.slicing.tile_groups`) are looked at again through
    #: at most this many windows, at the full detail the classifier's decoding has, so that a median
    #: tile comes out ``focus_target_px`` short (as the zoom's ``zoom_target_px`` for a photo read
    #: whole): the search saw a far tile a dozen pixels short, where the localizer misses some. Only
    #: when that enlarges them 1.25 times or more; 0 turns it off
    focus_max_windows: int = 6
    focus_target_px: float = 28.0
    #: ... and a group fewer than ``focus_faint_share`` (0..1) of whose tiles the search found at
    #: ``FAINT_GROUP_CONF`` or more (a heap's tiles, turned and touching, seen about 22 px short) is
    #: shown ``focus_faint_target_px`` short instead; 0 shows every group ``focus_target_px`` short
    focus_faint_share: float = 0.35
    focus_faint_target_px: float = 36.0
    #: a photo whose first look finds fewer tiles than a hand holds is searched window by window,
    #: in more detail (:mod:`paiscan.vision.slicing`): tiles small in a large photo
    slicing: SliceSettings = field(default_factory=SliceSettings)
    #: a box the classifier reads as no tile at all with at least this probability (felt, a key of
    #: a keyboard, an LED digit, a die, a knob) is dropped, unless the photo's edge cuts it (part of
    #: a face, which the output learnt on whole objects takes for none); 1 keeps every box
    not_a_tile_drop: float = 0.5
    #: in a photo searched for small tiles, a box that two boxes at least as confident, side by
    #: side, cover this share (0..1) of is dropped (:func:`paiscan.vision.slicing.straddlers`): the
    #: localizer's box between two tiles of a tight row or grid, or over both; 0 keeps every box
    straddle_cover: float = 0.7
    #: a box the localizer is less sure of than ``faceless_box`` (0..1) whose face the classifier
    #: gives no class ``faceless_share`` (0..1) of its belief is dropped: a key, a letter, a knob
    #: (a tile the localizer doubts is still kept when its face reads surely); 0 keeps every box
    faceless_share: float = 0.5
    faceless_box: float = 0.7
    #: a box whose short side is under this, in the original photo's pixels, is dropped: too small
    #: to read (small tiles are searched for from a 24 px face up; letters and a pen's print are
    #: smaller); 0 keeps every box
    min_readable_px: float = 16.0
    #: a box read as the white dragon (a blank face) that the localizer is less sure of than this
    #: (0..1) is dropped: a blank face has no ink for the classifier to be sure of, and a key cap, a
    #: card or a die reads as one (a back is blank too, but backs stand in dead walls and closed kans
    #: where the localizer is often less sure, and the face-down recall fell); 0 keeps every box
    blank_box: float = 0.6
    #: in a photo whose tiles the window search found (:mod:`paiscan.vision.slicing`), a box whose
    #: best class has less than this probability (0..1) is kept only beside one read at least so
    #: (:func:`paiscan.vision.slicing.beside_sure`): looking closer all over a photo finds textures
    #: (keys, print, cloth) the localizer is sure of, while a small tile seen closer mostly reads
    #: surely, and a blurred one lies in a row with them; 0 keeps every box
    searched_face_share: float = 0.8
    #: ... and a box read as the white dragon is kept only in a group of boxes (chained by
    #: nearness) with a tile read so surely that is not a blank
    #: (:func:`paiscan.vision.slicing.anchored_blanks`): key caps read surely as the blank face in
    #: groups of their own
    searched_blanks_anchored: bool = True
    #: a photo none of whose boxes both models are sure of (the localizer at ``anchor_box`` or more
    #: and the best class at ``anchor_share`` or more, 0..1) shows no tile: a desk, a keyboard, a
    #: poster; its boxes are dropped. 0 turns it off
    anchor_share: float = 0.9
    anchor_box: float = 0.7
    #: a tile whose best class is less likely than this is read again from six more crops and the
    #: probabilities averaged
    recheck_below: float = 0.7
    #: ... at most this many tiles a photo, the least sure first
    recheck_limit: int = 12
    #: the dora indicators and gari read surely at first (at ``recheck_below`` or more) are read
    #: again as unsure tiles are, and the hand read again if a class changed: nothing in the hand can
    #: check them. At most this many a photo; 0 turns it off
    recheck_roles_limit: int = 8
    #: ... only those read under this probability
    recheck_roles_below: float = 0.95
    #: when no reading of the photo makes a valid hand, the tiles of its hand row read surely at
    #: first are read again from more crops (at most this many, the least sure first) and the hand
    #: read again; the new reading is kept when valid. 0 turns it off
    recheck_refused_limit: int = 20
    #: a tile the frame cuts on one side is read too from a crop of the size it would have whole
    #: (:meth:`paiscan.vision.models.Classifier.read_whole`), and the surer reading kept
    read_cut_whole: bool = True
    #: a face angle whose axis the classifier is less sure of than this (0..1) is not reported; the
    #: layout then judges the tile from its box
    min_axis_sure: float = 0.3
    #: ... and for the faces that look alike turned by 90° (:data:`ROUND_FACES`: the one of circles,
    #: the blank white dragon)
    min_axis_sure_round: float = 0.5
    #: a box the localizer found under ``localizer_conf``, down to this, lying where an added kan's
    #: missed fourth tile lies and read as the pon's kind with at least ``stacked_p``, is taken as
    #: that tile (:meth:`PhotoReader.find_stacked`); 0 turns it off
    stacked_floor: float = 0.3
    stacked_p: float = 0.8
    #: the most pixels a photo is decoded to (a decompression bomb's guard)
    max_pixels: int = 40_000_000
    #: seconds of a photo's reading after which its optional work stops (the search's further
    #: readings, last resorts, second looks, finer windows) and the reading answers what it has;
    #: 0 sets no such budget. The service's deadline (``PAISCAN_READ_TIMEOUT_S``) bounds it too
    read_budget_s: float = 1.0
    #: seconds the layout may go on reading the hand after it starts, though the photo's budget is
    #: spent (:func:`~paiscan.vision.deadline.soft_grace`): a search that took the budget leaves the
    #: layout its first readings, not only the likeliest one; 0 gives none
    layout_grace_s: float = 0.1

    def with_models(self, models_dir: Path | None) -> VisionSettings:
        """The same settings with both models read from ``models_dir`` (``None``: unchanged)."""
        if models_dir is None:
            return self
        return replace(
            self, localizer_path=models_dir / "localizer.onnx", classifier_path=models_dir / "classifier.onnx"
        )


@dataclass(frozen=True)
class PhotoResult:
    detections: tuple[Detection, ...]
    reading: Reading
    timings_ms: dict[str, float]
    image_size: tuple[int, int]
    scale: float = 1.0
    extra: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        inv = 1.0 / self.scale if self.scale else 1.0
        dets = []
        for d, role in zip(self.detections, self.reading.roles(), strict=True):
            x1, y1, x2, y2 = d.box
            dets.append({**replace(d, box=(x1 * inv, y1 * inv, x2 * inv, y2 * inv)).to_dict(), "role": role})
        out = self.reading.to_dict()
        out["detections"] = dets
        out["timings_ms"] = {k: round(v, 1) for k, v in self.timings_ms.items()}
        out["image"] = {"width": self.image_size[0], "height": self.image_size[1]}
        return out


#: said of a reading whose second looks (stacked tiles, indicators read again) the time limit cut short
TOO_SLOW_NOTE = "the photo took long to read: the second look at its unsure tiles was skipped (check them)"

#: said of a photo without colour: a red five then reads as a plain five, and loses its dora
GREY_NOTE = "the photo has no colour: red fives read as plain fives (check them)"

#: said of a photo whose search for small tiles stopped for want of time with part of it unread
SEARCH_CUT_NOTE = (
    "the photo's time ran out before all of it was searched for small tiles: far tiles may be "
    "missing (a photo from closer, or cropped to the hand, is searched whole)"
)


#: the hand row's tiles (concealed, winning tile, melds) under this many pixels across in the photo
#: are said to be small: the renders the models learn from show them 40 px or more (the smallest
#: median of 400 selection renders), and a photo shrunk to 15 % of its size misread them silently
SMALL_TILE_PX = 24
SMALL_NOTE = (
    "the hand's tiles are only about {px} px across in this photo: a photo from closer, or not "
    "made smaller, reads them surer"
)


def bare_pons(reading: Reading) -> list[tuple[int, int]]:
    """(called tile's detection, kind) of each pon of the best reading whose called tile carries no
    stacked tile: where an added kan's missed fourth tile may lie (see :meth:`PhotoReader.find_stacked`)."""
    best, hand_row = reading.best, reading.row
    if best is None or hand_row is None:
        return []
    carries = {t.det: t.stacked for t in hand_row.row.tiles}
    out = []
    for meld in best.structure.melds:
        if meld.kind != "call" or len(meld.dets) != 3 or meld.called is None:
            continue
        classes = [best.class_of(i) for i in meld.dets]
        kinds = {kind(c) for c in classes if c is not None and c != BACK}
        base = meld.dets[meld.called]
        if len(kinds) == 1 and None not in classes and base in carries and carries[base] is None:
            out.append((base, kinds.pop()))
    return out


def lies_beyond(base: Sequence[float], box: Sequence[float], direction: tuple[float, float]) -> bool:
    """Whether ``box`` lies where an added kan's stacked tile lies from its called tile ``base``:
    beside it away from the player (the row's ``direction`` turned a quarter left in the image),
    by more than 0.15 of the base's short side, within 0.6 of its long side along the row and 1.2
    from its centre. On the 4,600 selection and fresh renders such a box under the localizer's
    threshold lay by 5 of the 13 pons that were added kans with the stacked tile missed, and by 3
    of the 2,238 others.

    >>> lies_beyond((100, 100, 140, 130), (95, 75, 135, 105), (1.0, 0.0))  # a row left to right
    True
    >>> lies_beyond((100, 100, 140, 130), (95, 125, 135, 155), (1.0, 0.0))  # on the player's side
    False
    """
    d = np.array(direction, dtype=float)
    up = np.array([d[1], -d[0]])
    w, h = base[2] - base[0], base[3] - base[1]
    off = np.array([(box[0] + box[2] - base[0] - base[2]) / 2, (box[1] + box[3] - base[1] - base[3]) / 2])
    size, short = max(w, h), min(w, h)
    return bool(np.linalg.norm(off) <= 1.2 * size and off @ up > 0.15 * short and abs(off @ d) < 0.6 * size)


def small_tiles_px(dets: Sequence[Detection], roles: Sequence[str], scale: float) -> int | None:
    """The median short side in the photo's own pixels of the hand row's tiles, when it is under
    :data:`SMALL_TILE_PX`; else None (also with no hand row).

    >>> row = [Detection(1, 0.9, (0, 0, 10, 14)), Detection(2, 0.9, (10, 0, 20, 14))]
    >>> small_tiles_px(row, ["hand", "win"], 1.0), small_tiles_px(row, ["hand", "win"], 0.25)
    (10, None)
    """
    sides = [
        min(d.box[2] - d.box[0], d.box[3] - d.box[1]) / (scale or 1.0)
        for d, role in zip(dets, roles, strict=True)
        if role in ("hand", "win", "meld")
    ]
    if not sides:
        return None
    px = float(np.median(sides))
    return round(px) if px < SMALL_TILE_PX else None


class PhotoReader:
    def __init__(self, localizer: Localizer, classifier: Classifier, settings: VisionSettings) -> None:
        self.localizer = localizer
        self.classifier = classifier
        self.settings = settings

    @classmethod
    def load(cls, settings: VisionSettings | None = None) -> PhotoReader:
        settings = settings or VisionSettings()
        for p in (settings.localizer_path, settings.classifier_path):
            if not Path(p).is_file():
                raise ModelsMissing(f"model file {p} is missing")
        return cls(
            Localizer(Path(settings.localizer_path), settings.threads, settings.localizer_conf, settings.localizer_iou),
            Classifier(Path(settings.classifier_path), settings.threads),
            settings,
        )

    def warm(self) -> None:
        """Run each model once (and the window search's filter, OpenCV's morphology) so the first
        request does not pay for lazy initialisation."""
        img = np.full((480, 640, 3), 128, np.uint8)
        self.localizer(img)
        self.classifier(img, [(10.0, 10.0, 58.0, 74.0)])
        busy_windows(
            img, [(0, 0, 640, 480)], self.settings.slicing.busy_contrast, max(1, self.settings.slicing.busy_edges)
        )

    def decode(self, data: bytes) -> DecodedImage:
        return decode_image(data, self.settings.max_pixels, self.settings.decode_max_side)

    def detect(self, bgr: np.ndarray, timings: dict[str, float] | None = None) -> list[Detection]:
        """The tiles of an image already in memory (nothing to decode again larger)."""
        return self.detect_photo(DecodedImage(bgr, "array", (bgr.shape[1], bgr.shape[0]), 1.0), timings)[1]

    def detect_photo(
        self,
        decoded: DecodedImage,
        timings: dict[str, float] | None = None,
        faint: list[TileBox] | None = None,
        cut_short: list[bool] | None = None,
    ) -> tuple[DecodedImage, list[Detection]]:
        """Localize, decode again larger if the tiles are small (:meth:`sharpen`), classify; the
        photo as the detections' boxes refer to it, and the detections. ``faint``: a list to put
        the localizer's boxes under its threshold in (down to :attr:`VisionSettings.stacked_floor`;
        unclassified, in the same photo's pixels), for :meth:`find_stacked`. ``cut_short``: a list
        that gets ``True`` when the search for small tiles left part of the photo unread
        (:func:`~paiscan.vision.slicing.search_small_tiles`)."""
        floor = self.settings.stacked_floor if faint is not None and self.settings.stacked_floor > 0 else None
        t0 = time.perf_counter()
        tiles, weak = self._split(self.localizer(decoded.bgr, floor))
        sliced = search_small_tiles(
            self.localizer, decoded, tiles, self.settings.slicing, self.settings.max_pixels, floor, check, cut_short
        )
        if sliced is not None:
            decoded, found = sliced
            tiles, weak = self._split(found)
            if timings is not None:
                timings["slice"] = (time.perf_counter() - t0) * 1000
        check()
        t1 = time.perf_counter()
        before = decoded
        decoded, tiles = self.sharpen(decoded, tiles, timings)
        if decoded is not before:
            weak = scaled_tiles(weak, decoded.scale / before.scale)
        # after a window search its tiles may lie far apart (a hand and something else), and a
        # zoom over all of them would look from further away again: each group is looked at instead
        if sliced is None:
            closer = self.zoom(decoded.bgr, tiles, timings, floor)
        else:
            searched_px = self.localizer.size / self.settings.slicing.window_px * before.scale / decoded.scale
            closer = self.focus(decoded.bgr, tiles + weak, searched_px, timings, floor)
        if closer is not tiles:
            tiles, weak = self._split(closer)
        if faint is not None:
            faint.extend(weak)
        check()
        t2 = time.perf_counter()
        dets = self.classify_tiles(decoded.bgr, readable(tiles, self.settings.min_readable_px * decoded.scale))
        if sliced is not None and self.settings.searched_face_share > 0:
            dets = beside_sure(dets, self.settings.searched_face_share)
            if self.settings.searched_blanks_anchored:
                dets = anchored_blanks(dets, self.settings.searched_face_share)
        if sliced is not None and self.settings.straddle_cover > 0:
            across = straddlers(dets, self.settings.straddle_cover)
            dets = [d for i, d in enumerate(dets) if i not in across]
        if self.settings.anchor_share > 0 and not any(self._sure_tile(d) for d in dets):
            dets = []
        if timings is not None:
            timings["localize"] = (t1 - t0) * 1000
            timings["classify"] = (time.perf_counter() - t2) * 1000
        return decoded, dets

    def _sure_tile(self, d: Detection) -> bool:
        """Whether both models are sure of ``d`` (:attr:`VisionSettings.anchor_share`, ``anchor_box``)."""
        return d.share >= self.settings.anchor_share and d.confidence >= d.share * self.settings.anchor_box

    def _classify(
        self,
        bgr: np.ndarray,
        boxes: Sequence[Sequence[float]],
        recheck_below: float,
        recheck_limit: int,
        whole: Sequence[Sequence[float] | None] | None,
    ) -> tuple[np.ndarray, np.ndarray | None]:
        """The classifier's probabilities and face angles (:meth:`Classifier.classify`), each five's
        colour settled (:func:`~paiscan.vision.models.settle_red_fives`): every reading of a tile
        goes through here."""
        probs, angles = self.classifier.classify(bgr, boxes, recheck_below, recheck_limit, whole)
        settle_red_fives(probs, self.settings.red_five_share)
        return probs, angles

    def classify_tiles(self, bgr: np.ndarray, tiles: Sequence[TileBox]) -> list[Detection]:
        """The localizer's tiles as detections, classified (top-k, face angle). A classifier that
        reads backs too sees every tile and decides which are face down; with an older one the
        localizer's face-down tiles are backs unread."""
        read_all = self.classifier.has_back
        shown = [t for t in tiles if read_all or not t.face_down]
        boxes = [t.box for t in shown]
        probs, angles = self._classify(
            bgr, boxes, self.settings.recheck_below, self.settings.recheck_limit, self._whole_boxes(bgr, boxes)
        )
        dets: list[Detection] = []
        k = self.settings.topk
        drop_not_a_tile = getattr(self.classifier, "reads_not_a_tile", False) and self.settings.not_a_tile_drop < 1.0
        row_iter = iter(range(len(shown)))
        for t in tiles:
            x1, y1, x2, y2 = t.box
            rotated = (x2 - x1) > (y2 - y1) * 1.15
            cut = not inside_frame(t.box, bgr.shape, FRAME_EDGE_SHARE * max(bgr.shape[:2]))
            if t.face_down and not read_all:
                dets.append(Detection(BACK, t.confidence, t.box, rotated, ((BACK, t.confidence),), cut=cut))
                continue
            i = next(row_iter)
            p = probs[i]
            if drop_not_a_tile and not cut and 1.0 - float(p.sum()) >= self.settings.not_a_tile_drop:
                continue  # the classifier sees no tile there (felt, a key, an LED digit, a knob)
            topk = _topk(p, k)
            best = topk[0][0] if topk else int(np.argmax(p))
            if best != BACK and p[best] < self.settings.faceless_share and t.confidence < self.settings.faceless_box:
                continue  # neither model sees a tile's face there
            if best == WHITE and t.confidence < self.settings.blank_box:
                continue  # a blank face the localizer doubts: a key cap, a card, a die
            angle, sure = (None, 0.0)
            min_sure = self.settings.min_axis_sure_round if best in ROUND_FACES else self.settings.min_axis_sure
            if angles is not None and best != BACK and angles[i, 2] >= min_sure:
                angle, sure = float(angles[i, 0]), float(angles[i, 1])
            dets.append(Detection(best, float(p[best]) * t.confidence, t.box, rotated, topk, angle, sure, cut))
        return dets

    def _whole_boxes(
        self, bgr: np.ndarray, boxes: Sequence[Sequence[float]], which: Sequence[int] | None = None
    ) -> list[Sequence[float] | None] | None:
        """Per box of ``which`` (default: all), the box its tile would have whole where the frame
        cuts it (:func:`paiscan.vision.models.whole_tile_box`, its neighbours among ``boxes``), else
        ``None``; ``None`` in all when :attr:`VisionSettings.read_cut_whole` is off."""
        if not self.settings.read_cut_whole:
            return None
        size = (bgr.shape[1], bgr.shape[0])
        edge = FRAME_EDGE_SHARE * max(size)
        return [whole_tile_box(boxes, i, size, edge) for i in (range(len(boxes)) if which is None else which)]

    def _read_again(
        self, bgr: np.ndarray, dets: list[Detection], which: Sequence[int], new_best: bool = True
    ) -> list[Detection]:
        """``dets`` with the tiles ``which`` read again from more crops (each of them, see
        :meth:`Classifier.recheck`): a new list where a tile's reading changed (its best class,
        or with ``new_best`` false its alternatives' likelihoods too), else ``dets`` itself (the
        hand need not be read again). A tile keeps its box, face angle and the localizer's share of
        its confidence."""
        if not which:
            return dets
        probs, _ = self._classify(
            bgr,
            [dets[i].box for i in which],
            1.0 + 1e-6,
            len(which),
            self._whole_boxes(bgr, [d.box for d in dets], which),
        )
        out = list(dets)
        changed = False
        for i, p in zip(which, probs, strict=True):
            topk = _topk(p, self.settings.topk)
            if not topk or (topk[0][0] == dets[i].cls if new_best else topk == dets[i].topk):
                continue
            found = dets[i].confidence / dets[i].topk[0][1]  # the localizer's confidence
            out[i] = replace(dets[i], cls=topk[0][0], confidence=topk[0][1] * found, topk=topk)
            changed = True
        return out if changed else dets

    def reread_roles(self, bgr: np.ndarray, dets: list[Detection], reading: Reading) -> list[Detection]:
        """``dets`` with the dora indicators and gari of ``reading`` that were read surely (not yet
        read again, see :attr:`VisionSettings.recheck_roles_limit`) read again from more crops: a new
        list where one changed its best class, else ``dets`` itself (the hand need not be read again)."""
        s = self.settings
        sure = [
            i
            for i, role in enumerate(reading.roles())
            if role in ("dora", "nuki")
            and dets[i].cls != BACK
            and dets[i].topk
            and s.recheck_below <= dets[i].topk[0][1] < s.recheck_roles_below
        ]
        return self._read_again(bgr, dets, sure[: s.recheck_roles_limit])

    def read_refused_again(
        self,
        bgr: np.ndarray,
        dets: list[Detection],
        reading: Reading,
        rules: Ruleset | str = "riichi",
        context: dict[str, Any] | None = None,
    ) -> tuple[list[Detection], Reading]:
        """When ``reading`` is not valid, the detections and reading with the face-up tiles of its
        hand row read surely at first read again from more crops (the least sure first,
        :attr:`VisionSettings.recheck_refused_limit` at most), kept when the hand then reads valid;
        else both as they were. The tiles read under :attr:`VisionSettings.recheck_below` were read
        again already; one read surely and wrong (a chi's 6m read 0.91 as 3m) leaves no valid
        reading. What a valid reading then asks stays for the user to answer."""
        s = self.settings
        if reading.valid or s.recheck_refused_limit <= 0:
            return dets, reading
        roles = reading.roles()
        sure = sorted(
            (
                i
                for i, d in enumerate(dets)
                if d.cls != BACK and d.topk and roles[i] in HAND_ROLES and d.topk[0][1] >= s.recheck_below
            ),
            key=lambda i: dets[i].topk[0][1],
        )
        again = self._read_again(bgr, dets, sorted(sure[: s.recheck_refused_limit]), new_best=False)
        if again is dets:
            return dets, reading
        second = read_hand(again, rules=rules, context=context)
        return (again, second) if second.valid else (dets, reading)

    def read_roles_again(
        self,
        bgr: np.ndarray,
        dets: list[Detection],
        reading: Reading,
        rules: Ruleset | str = "riichi",
        context: dict[str, Any] | None = None,
    ) -> tuple[list[Detection], Reading]:
        """The detections and reading after :meth:`reread_roles`: the hand read again only where
        an indicator's or gari's class changed, else both as they were."""
        again = self.reread_roles(bgr, dets, reading)
        if again is dets:
            return dets, reading
        return again, read_hand(again, rules=rules, context=context)

    def find_stacked(
        self,
        bgr: np.ndarray,
        dets: list[Detection],
        reading: Reading,
        faint: Sequence[TileBox],
        rules: Ruleset | str = "riichi",
        context: dict[str, Any] | None = None,
    ) -> tuple[list[Detection], Reading]:
        """The detections and reading with a missed stacked tile found: for each pon of the best
        reading whose called tile carries none, the ``faint`` boxes (under the localizer's
        threshold, overlapping no detection) that lie beside the called tile away from the player
        (:func:`lies_beyond`, two at most) are classified, and the first read as the pon's kind
        with at least :attr:`VisionSettings.stacked_p` joins the detections (one a photo: two added
        kans both missing their stacked tile are rarer than a false one); the hand is read again and
        the new reading kept when it is valid and holds that tile in a meld. Else both as they were."""
        pons = bare_pons(reading)
        if not faint or not pons or reading.row is None or self.settings.stacked_floor <= 0:
            return dets, reading
        direction = reading.row.row.direction
        free = [t for t in faint if all(iou(t.box, d.box) < 0.5 for d in dets)]
        picks: list[tuple[TileBox, int]] = []
        for base, k in pons:
            picks += [(t, k) for t in free if lies_beyond(dets[base].box, t.box, direction)][:2]
        if not picks:
            return dets, reading
        found = self.classify_tiles(bgr, [t for t, _ in picks])
        added = [
            d
            for d, (_, k) in zip(found, picks, strict=True)
            if sum(p for c, p in d.topk if c != BACK and kind(c) == k) >= self.settings.stacked_p
        ]
        if not added:
            return dets, reading
        again = [*dets, *added[:1]]
        second = read_hand(again, rules=rules, context=context)
        taken = second.best is not None and any(d == len(dets) and role == "meld" for d, role in second.best.roles)
        return (again, second) if second.valid and taken else (dets, reading)

    def sharpen(
        self, decoded: DecodedImage, tiles: Sequence[TileBox], timings: dict[str, float] | None = None
    ) -> tuple[DecodedImage, list[TileBox]]:
        """The photo decoded again larger (and the tiles' boxes in it) when its tiles are smaller
        than :attr:`VisionSettings.min_tile_px`; else the same."""
        if not tiles or not decoded.source:
            return decoded, list(tiles)
        short = float(np.median([min(t.box[2] - t.box[0], t.box[3] - t.box[1]) for t in tiles]))
        if short >= self.settings.min_tile_px:
            return decoded, list(tiles)
        t0 = time.perf_counter()
        larger = redecode(decoded, self.settings.min_tile_px / max(short, 1.0), self.settings.max_pixels)
        if timings is not None:
            timings["redecode"] = (time.perf_counter() - t0) * 1000
        return larger, scaled_tiles(tiles, larger.scale / decoded.scale)

    def _split(self, found: list[TileBox]) -> tuple[list[TileBox], list[TileBox]]:
        """The localizer's boxes at its threshold or over, and those under it."""
        conf = self.localizer.conf
        return [t for t in found if t.confidence >= conf], [t for t in found if t.confidence < conf]

    def zoom(
        self, bgr: np.ndarray, tiles: list[TileBox], timings: dict[str, float] | None = None, floor: float | None = None
    ) -> list[TileBox]:
        """The tiles found again through closer windows when they are small in the localizer's
        input (:attr:`VisionSettings.zoom_min_px`); else ``tiles`` itself. Small tiles are where the
        localizer misses tiles, merges a stacked pair into one box or cuts a tile's box short.
        ``floor``: the windows' boxes are kept down to this confidence (see :meth:`Localizer.each`)."""
        s = self.settings
        if s.zoom_min_px <= 0:
            return tiles
        windows = zoom_windows(
            np.array([t.box for t in tiles], dtype=float).reshape(-1, 4),
            (bgr.shape[1], bgr.shape[0]),
            self.localizer.size,
            s.zoom_min_px,
            s.zoom_target_px,
            s.zoom_max_windows,
        )
        closer = self._look_closer(bgr, windows, "zoom", timings, floor)
        return tiles if closer is None else closer

    def _look_closer(
        self,
        bgr: np.ndarray,
        windows: list[Window],
        stage: str,
        timings: dict[str, float] | None,
        floor: float | None,
    ) -> list[TileBox] | None:
        """The tiles the localizer finds through ``windows`` (timed as ``stage``); ``None`` when there
        are no windows or it is sure of none of them."""
        if not windows:
            return None
        t0 = time.perf_counter()
        closer = self.localizer.in_windows(bgr, windows, floor=floor)
        if timings is not None:
            timings[stage] = (time.perf_counter() - t0) * 1000
        return closer if any(t.confidence >= self.localizer.conf for t in closer) else None

    def focus(
        self,
        bgr: np.ndarray,
        tiles: list[TileBox],
        searched_px: float,
        timings: dict[str, float] | None = None,
        floor: float | None = None,
    ) -> list[TileBox]:
        """The window search's ``tiles`` (sure and faint) with those in the windows over its groups
        of sure tiles found again, closer (:attr:`VisionSettings.focus_max_windows`); ``tiles``
        itself when no group is worth it or the closer look finds no sure tile. ``searched_px``: the
        localizer's input pixels a pixel of ``bgr`` had in the search."""
        s = self.settings
        if s.focus_max_windows <= 0 or spent():
            return tiles
        conf = self.localizer.conf
        windows: list[Window] = []
        for group in tile_groups(tiles, conf):
            if len(group) < s.slicing.min_small or len(windows) >= s.focus_max_windows:
                break
            faint = sum(tiles[i].confidence >= FAINT_GROUP_CONF for i in group) < s.focus_faint_share * len(group)
            more = zoom_windows(
                np.array([tiles[i].box for i in group], dtype=float),
                (bgr.shape[1], bgr.shape[0]),
                self.localizer.size,
                float("inf"),
                s.focus_faint_target_px if faint else s.focus_target_px,
                s.focus_max_windows - len(windows),
                margin=GROUP_REACH,  # (a tile the search missed at a row's end lies within reach)
            )
            # taken only when they show the group FOCUS_GAIN times as large as the search did: not a
            # group it saw near enough already, nor a large one whose windows grew to fit their count
            side = max((max(w[2] - w[0], w[3] - w[1]) for w in more), default=0)
            if more and self.localizer.size / side >= FOCUS_GAIN * searched_px:
                windows += more
        closer = self._look_closer(bgr, windows, "focus", timings, floor)
        if closer is None:
            return tiles

        return [t for t in tiles if not any(centre_in(t.box, w) for w in windows)] + closer

    def read(
        self, image: DecodedImage | bytes, rules: Ruleset | str = "riichi", context: dict[str, Any] | None = None
    ) -> PhotoResult:
        """Read the hand a photo shows under ``rules`` (a ruleset, or its id: looked up once here, an
        unknown id answered by :func:`read_hand` with an ``unknown_ruleset`` problem)."""
        with soft_limit(self.settings.read_budget_s) if self.settings.read_budget_s > 0 else nullcontext():
            return self._read(image, ruleset_of(rules), context)

    def _read(self, image: DecodedImage | bytes, rules: Ruleset | str, context: dict[str, Any] | None) -> PhotoResult:
        timings: dict[str, float] = {}
        t0 = time.perf_counter()
        decoded = self.decode(image) if isinstance(image, bytes | bytearray) else image
        timings["decode"] = (time.perf_counter() - t0) * 1000
        faint: list[TileBox] = []
        cut_short: list[bool] = []
        check()
        decoded, dets = self.detect_photo(decoded, timings, faint, cut_short)
        check()
        t1 = time.perf_counter()
        with soft_grace(self.settings.layout_grace_s):
            reading = read_hand(dets, rules=rules, context=context)
        timings["layout"] = (time.perf_counter() - t1) * 1000
        t2 = time.perf_counter()
        looks = (
            lambda d, r: self.find_stacked(decoded.bgr, d, r, faint, rules, context),
            lambda d, r: self.read_roles_again(decoded.bgr, d, r, rules, context),
            lambda d, r: self.read_refused_again(decoded.bgr, d, r, rules, context),
        )
        try:  # second looks: when time runs out, the reading so far is the answer
            for look in looks:
                check()
                if spent():
                    raise ReadingTooSlow("the time for the photo is spent")
                dets, reading = look(dets, reading)
        except ReadingTooSlow:
            reading = replace(reading, notes=(*reading.notes, TOO_SLOW_NOTE))
        timings["reread"] = (time.perf_counter() - t2) * 1000
        if cut_short:
            reading = replace(reading, notes=(*reading.notes, SEARCH_CUT_NOTE))
        if decoded.grey:
            reading = replace(reading, notes=(*reading.notes, GREY_NOTE))
        small = small_tiles_px(dets, reading.roles(), decoded.scale)
        if small is not None:
            reading = replace(reading, notes=(*reading.notes, SMALL_NOTE.format(px=small)))
        timings["total"] = (time.perf_counter() - t0) * 1000
        return PhotoResult(tuple(dets), reading, timings, decoded.original_size, decoded.scale)
