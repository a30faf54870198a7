"""Synthetic detections for the layout and reading tests: lay tiles out as a player shows them.

``layout_boxes(spec)`` places tiles on a table in *row space* (units of one tile width, ``u``
along the row, ``v`` away from the player) and maps them to image pixels through a rotation, a
scale and an optional projective foreshortening, returning the axis-aligned boxes a detector
would give. Spec syntax (MPSZ with marks):

* whitespace separates groups (``gap`` tile widths apart); ``~1.5`` sets the next gap;
* ``'`` after a digit: that tile lies sideways (a call); ``"``: sideways with a second sideways
  copy stacked on it (an added kan); ``?``: a face-down tile.

``layout_boxes("123m456p789s11z 2z 5'55p")`` is a concealed row, the winning tile apart, a pon
called from the left.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import pytest

from paiscan.scoring.registry import available, get_ruleset
from paiscan.scoring.tiles import BACK, parse_tiles, tile_name
from paiscan.vision.detection import Detection
from paiscan.vision.layout import HandRow, analyse_layout

LONG = 4.0 / 3.0
INNER_GAP = 0.02


@dataclass(frozen=True)
class Placed:
    cls: int
    u: float  # centre, tile widths
    v: float
    along: float
    across: float
    upside_down: bool = False

    @property
    def sideways(self) -> bool:
        return self.along > self.across


def parse_spec(spec: str, gap: float = 0.5) -> list[tuple[float, list[tuple[int, str]]]]:
    """Groups as (gap before, [(tile, mark)]) with mark '' upright, "'" sideways, '"' stacked."""
    groups: list[tuple[float, list[tuple[int, str]]]] = []
    next_gap = gap
    for token in spec.split():
        if token.startswith("~"):
            next_gap = float(token[1:])
            continue
        tiles: list[tuple[int, str]] = []
        pending: list[tuple[str, str]] = []
        for ch in token:
            if ch.isdigit():
                pending.append((ch, ""))
            elif ch in "'\"":
                d, _ = pending[-1]
                pending[-1] = (d, ch)
            elif ch == "?":
                tiles.append((BACK, ""))
            else:
                for d, mark in pending:
                    tiles.append((parse_tiles(d + ch)[0], mark))
                pending = []
        assert not pending, f"digits without a suit in {token!r}"
        groups.append((next_gap, tiles))
        next_gap = gap
    return groups


def place(spec: str, gap: float = 0.5) -> list[Placed]:
    """Row tiles in spec order, each stacked tile right after its base."""
    out: list[Placed] = []
    cursor = 0.0
    for i, (g, tiles) in enumerate(parse_spec(spec, gap)):
        if i:
            cursor += g - INNER_GAP
        for t, mark in tiles:
            side = mark in "'\"" and mark != ""
            along, across = (LONG, 1.0) if side else (1.0, LONG)
            out.append(Placed(t, cursor + along / 2, across / 2, along, across))
            if mark == '"':
                out.append(Placed(t, cursor + along / 2, 1.0 + INNER_GAP + 0.5, along, across))
            cursor += along + INNER_GAP
    return out


def layout_boxes(
    spec: str,
    *,
    gap: float = 0.5,
    extras: Iterable[tuple[str, float, float]] = (),
    angle: float = 0.0,
    unit: float = 40.0,
    origin: tuple[float, float] = (100.0, 600.0),
    perspective: float = 0.0,
    depth: float = 0.0,
    conf: float = 0.97,
    jitter: float = 0.0,
    seed: int = 0,
    faces: bool = False,
    face_sure: float = 0.9,
) -> list[Detection]:
    """Detections of a laid-out hand.

    ``extras``: more tiles as (MPSZ tile, u, v) centres in tile widths (an indicator above the row:
    ``("3p", 2, 3)``; append ``'`` to lay it sideways, ``!`` to turn it upside down). ``angle``:
    degrees, counter-clockwise as seen in the image. ``perspective``: the far (right) end of the row
    is ``1/(1+perspective)`` the size of the near end. ``depth``: visible tile body added across the
    row (tile widths). ``faces``: give each face-up tile the classifier's face angle (the top of an
    upright tile points away from the player, a sideways tile's to the row's left end) with
    certainty ``face_sure``.
    """
    placed = place(spec, gap)
    for name, u, v in extras:
        side = "'" in name
        t = parse_tiles(name.rstrip("'!"))[0]
        along, across = (LONG, 1.0) if side else (1.0, LONG)
        placed.append(Placed(t, u, v, along, across, "!" in name))
    length = max((p.u + p.along / 2 for p in placed), default=1.0)
    rng = random.Random(seed)
    a = math.radians(angle)
    ca, sa = math.cos(a), math.sin(a)

    def to_image(u: float, v: float) -> tuple[float, float]:
        k = 1.0 + perspective * u / length
        x, y = u * unit / k, v * unit / k
        xr, yr = x * ca - y * sa, x * sa + y * ca
        return origin[0] + xr, origin[1] - yr

    dets: list[Detection] = []
    for p in placed:
        u0, u1 = p.u - p.along / 2, p.u + p.along / 2
        v0, v1 = p.v - p.across / 2, p.v + p.across / 2 + depth
        pts = [to_image(u, v) for u in (u0, u1) for v in (v0, v1)]
        xs, ys = [q[0] for q in pts], [q[1] for q in pts]
        box = [min(xs), min(ys), max(xs), max(ys)]
        if jitter:
            box = [b + rng.uniform(-jitter, jitter) * unit for b in box]
        w, h = box[2] - box[0], box[3] - box[1]
        face: float | None = None
        if faces and p.cls != BACK:  # 0 = up in the image, clockwise: an upright tile's top is -angle
            face = ((-angle - (90.0 if p.sideways else 0.0) + (180.0 if p.upside_down else 0.0)) + 180) % 360 - 180
        dets.append(
            Detection(
                p.cls,
                conf,
                (box[0], box[1], box[2], box[3]),
                w > h * 1.15,
                ((p.cls, conf),),
                face,
                face_sure if face is not None else 0.0,
            )
        )
    return dets


def with_topk(dets: Sequence[Detection], index: int, topk: Sequence[tuple[str, float]]) -> list[Detection]:
    """Replace one detection's class and top-k by ``[(name, p), ...]`` (the first is its class)."""
    ids = tuple((parse_tiles(n)[0], p) for n, p in topk)
    out = list(dets)
    out[index] = replace(out[index], cls=ids[0][0], confidence=ids[0][1], topk=ids)
    return out


def shuffled(dets: Sequence[Detection], seed: int = 1) -> list[Detection]:
    out = list(dets)
    random.Random(seed).shuffle(out)
    return out


def names(dets: Sequence[Detection], indices: Iterable[int | None]) -> list[str]:
    return [tile_name(dets[i].cls) if i is not None else "-" for i in indices]


def hand_row(dets: list[Detection], rules: str = "riichi") -> HandRow:
    lay = analyse_layout(dets, get_ruleset(rules))
    assert lay.hand is not None
    return lay.hand


def render_dets(tiles: Sequence[tuple[str, tuple[float, float, float, float], int]]) -> list[Detection]:
    """Detections from a render's (tile, box, face angle) list, all sure (the true boxes and faces)."""
    out = []
    for name, box, face in tiles:
        c = parse_tiles(name)[0]
        out.append(
            Detection(
                c,
                0.95,
                (float(box[0]), float(box[1]), float(box[2]), float(box[3])),
                False,
                ((c, 0.95),),
                None if c == 37 else float(face),
                0.9,
            )
        )
    return out


totenko = pytest.mark.skipif("totenko_balance" not in available(), reason="the totenko_balance ruleset is not built")


def as_read(table: Sequence[tuple[Any, ...]]) -> list[Detection]:
    """Detections from a table of the models' output (box, face angle, rotated, confidence, top-k
    classes as ``"name:p ..."``, face's top sure)."""
    out = []
    for x1, y1, x2, y2, face, rot, conf, topk, sure in table:
        classes = tuple(
            (37 if n == "?" else parse_tiles(n)[0], float(q)) for n, q in (part.split(":") for part in topk.split())
        )
        out.append(
            Detection(classes[0][0], conf, (float(x1), float(y1), float(x2), float(y2)), rot, classes, face, sure)
        )
    return out


# ---------------------------------------------------------------------------------- self-checks
def test_spec_marks_and_gaps() -> None:
    groups = parse_spec("12m ~2 3'45s ?77z?")
    assert [g for g, _ in groups] == [0.5, 2.0, 0.5]
    assert groups[1][1][0] == (20, "'")
    assert [t for t, _ in groups[2][1]] == [BACK, 33, 33, BACK]


@pytest.mark.parametrize("angle", [0.0, 30.0, 90.0])
def test_boxes_follow_the_rotation(angle: float) -> None:
    dets = layout_boxes("1'234m", angle=angle)
    (x0, y0), (x1, y1) = dets[1].centre, dets[3].centre
    assert math.degrees(math.atan2(-(y1 - y0), x1 - x0)) == pytest.approx(angle, abs=3)
    assert dets[0].rotated == (angle == 0.0)  # image-axis aspect, as a detector reports it


def test_stacked_tile_sits_on_its_base() -> None:
    dets = layout_boxes('2"22p')
    assert len(dets) == 4
    (bx, by), (sx, sy) = dets[0].centre, dets[1].centre
    assert bx == pytest.approx(sx) and sy < by - 30
