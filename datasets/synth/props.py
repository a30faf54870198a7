"""Things on the table that are not tiles (never labelled): hard negatives and a rack.

A prop is a few solids, each a convex prism (an outline in millimetres, extruded from ``z0`` to
``z1``) with a shaded colour and optionally a texture on its top (key letters, LED digits, card
faces, a phone's screen). Props are placed where their projection overlaps no tile, so every tile's
label stays exact; the photo's localizer must learn to leave them alone.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import cv2
import numpy as np

from .config import DISTRACTOR_KINDS, SynthConfig

if TYPE_CHECKING:
    from .scene import SceneChoice, TileDims, TilePlace
    from .streams import FeatureStreams

SHIFT = 4  # sub-pixel bits of cv2 polygon drawing
LED_RED = (40, 40, 255)  # BGR of a lit LED segment
_ONE = float(1 << SHIFT)
#: pixels kept clear between a prop's projection and any tile's box
CLEARANCE_PX = 3.0


@dataclass(frozen=True)
class Solid:
    """A convex prism: ``outline`` (M, 2) world x, y millimetres, from height ``z0`` to ``z1``."""

    outline: np.ndarray
    z0: float
    z1: float
    color: tuple[float, float, float]  # BGR of the top; the sides are a little darker
    texture: np.ndarray | None = None  # BGRA uint8 drawn over the top face's ``tex_quad``
    tex_quad: np.ndarray | None = None  # (4, 2) world x, y of the texture's corners (TL, TR, BR, BL)
    emissive: bool = False  # the texture glows (LED digits): not shaded by the light


@dataclass
class Prop:
    """One distractor (or the rack) in world millimetres."""

    kind: str
    solids: list[Solid] = field(default_factory=list)

    def points(self) -> np.ndarray:
        """Every corner of every solid, (N, 3)."""
        pts = []
        for s in self.solids:
            for z in (s.z0, s.z1):
                pts.append(np.column_stack([s.outline, np.full(len(s.outline), z)]))
        return np.concatenate(pts) if pts else np.zeros((0, 3))


def _fixed(p: np.ndarray) -> np.ndarray:
    return np.round(p * _ONE).astype(np.int32)


def _rect(cx: float, cy: float, w: float, h: float, yaw: float, r: float = 0.0, k: int = 3) -> np.ndarray:
    """A (rounded) rectangle's outline centred at (cx, cy), turned by ``yaw`` radians."""
    if r <= 0:
        pts = np.array([[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]])
    else:
        r = min(r, w / 2 - 1e-3, h / 2 - 1e-3)
        pts_l = []
        for qx, qy, a0 in ((w / 2 - r, -h / 2 + r, -90.0), (w / 2 - r, h / 2 - r, 0.0), (-w / 2 + r, h / 2 - r, 90.0)):
            pts_l += [
                (
                    qx + r * math.cos(math.radians(a0 + 90 * i / (k - 1))),
                    qy + r * math.sin(math.radians(a0 + 90 * i / (k - 1))),
                )
                for i in range(k)
            ]
        qx, qy = -w / 2 + r, -h / 2 + r
        pts_l += [
            (
                qx + r * math.cos(math.radians(180 + 90 * i / (k - 1))),
                qy + r * math.sin(math.radians(180 + 90 * i / (k - 1))),
            )
            for i in range(k)
        ]
        pts = np.array(pts_l)
    return _place(pts, cx, cy, yaw)


def _circle(cx: float, cy: float, radius: float, n: int = 20) -> np.ndarray:
    a = np.linspace(0, 2 * math.pi, n, endpoint=False)
    return np.column_stack([cx + radius * np.cos(a), cy + radius * np.sin(a)])


def _place(pts: np.ndarray, cx: float, cy: float, yaw: float) -> np.ndarray:
    c, s = math.cos(yaw), math.sin(yaw)
    return pts @ np.array([[c, s], [-s, c]]) + np.array([cx, cy])


def _quad(cx: float, cy: float, w: float, h: float, yaw: float) -> np.ndarray:
    """Texture corners TL, TR, BR, BL of a w x h rectangle (its top towards +y)."""
    return _place(np.array([[-w / 2, h / 2], [w / 2, h / 2], [w / 2, -h / 2], [-w / 2, -h / 2]]), cx, cy, yaw)


# ----------------------------------------------------------------------------- textures


def _bgra(img: np.ndarray) -> np.ndarray:
    return cv2.cvtColor(img, cv2.COLOR_BGR2BGRA)


@functools.lru_cache(maxsize=256)
def _key_texture(letter: str, dark: bool) -> np.ndarray:
    bg, fg = ((40, 40, 42), (235, 235, 235)) if dark else ((228, 228, 225), (40, 40, 40))
    im = np.full((64, 64, 3), bg, np.uint8)
    scale = 1.3 if len(letter) == 1 else 0.7
    (_tw, th), _ = cv2.getTextSize(letter, cv2.FONT_HERSHEY_SIMPLEX, scale, 2)
    cv2.putText(im, letter, (8, 10 + th), cv2.FONT_HERSHEY_SIMPLEX, scale, fg, 2, cv2.LINE_AA)
    return _bgra(im)


# which of the seven segments (a b c d e f g) each digit lights
_SEGMENTS = {
    "0": "abcdef",
    "1": "bc",
    "2": "abdeg",
    "3": "abcdg",
    "4": "bcfg",
    "5": "acdfg",
    "6": "acdefg",
    "7": "abc",
    "8": "abcdefg",
    "9": "abcdfg",
    "-": "g",
}


def led_texture(text: str) -> np.ndarray:
    """Red seven-segment digits glowing on a black window (BGRA uint8, 48 px a digit)."""
    return np.ascontiguousarray(np.hstack([_led_digit(ch) for ch in text]))


@functools.lru_cache(maxsize=16)
def _led_digit(ch: str) -> np.ndarray:
    dw, hh = 48, 96
    lit = np.zeros((hh, dw), np.float32)
    seg = {
        "a": ((12, 14), (36, 14)),
        "b": ((39, 17), (39, 44)),
        "c": ((39, 52), (39, 79)),
        "d": ((12, 82), (36, 82)),
        "e": ((9, 52), (9, 79)),
        "f": ((9, 17), (9, 44)),
        "g": ((12, 48), (36, 48)),
    }
    for name in _SEGMENTS.get(ch, ""):
        (x0, y0), (x1, y1) = seg[name]
        cv2.line(lit, (x0, y0), (x1, y1), 1.0, 6, cv2.LINE_AA)
    glow = cv2.GaussianBlur(lit, (0, 0), 5.0)
    col = np.array(LED_RED, np.float32)
    im = np.float32(12.0) + lit[..., None] * col + glow[..., None] * col * 0.6
    return cv2.cvtColor(np.clip(im, 0, 255).astype(np.uint8), cv2.COLOR_BGR2BGRA)


@functools.lru_cache(maxsize=32)
def _chip_texture(color: tuple[int, int, int]) -> np.ndarray:
    n = 96
    im = np.zeros((n, n, 4), np.uint8)
    c = n // 2
    cv2.circle(im, (c, c), c - 1, (*color, 255), -1, cv2.LINE_AA)
    for k in range(8):  # edge spots
        a0 = k * 45
        cv2.ellipse(im, (c, c), (c - 6, c - 6), 0, a0, a0 + 18, (245, 245, 245, 255), 8, cv2.LINE_AA)
    cv2.circle(im, (c, c), int(c * 0.55), (235, 235, 235, 255), 2, cv2.LINE_AA)
    return im


@functools.lru_cache(maxsize=64)
def _card_texture(rank: str, red: bool, back: int) -> np.ndarray:
    w, h = 126, 176
    if back >= 0:
        col = [(150, 60, 30), (40, 40, 170), (60, 110, 40)][back % 3]
        im = np.full((h, w, 3), 245, np.uint8)
        cv2.rectangle(im, (6, 6), (w - 7, h - 7), col, -1)
        for k in range(-h, w, 10):
            cv2.line(im, (k, 6), (k + h, h - 7), (235, 235, 235), 1, cv2.LINE_AA)
        return _bgra(im)
    im = np.full((h, w, 3), 246, np.uint8)
    ink = (40, 30, 200) if red else (30, 30, 30)
    cv2.putText(im, rank, (6, 28), cv2.FONT_HERSHEY_SIMPLEX, 0.9, ink, 2, cv2.LINE_AA)
    cv2.putText(im, rank, (w - 30, h - 10), cv2.FONT_HERSHEY_SIMPLEX, 0.9, ink, 2, cv2.LINE_AA)
    if red:
        pts = np.array([[w // 2, h // 2 - 26], [w // 2 + 20, h // 2], [w // 2, h // 2 + 26], [w // 2 - 20, h // 2]])
        cv2.fillConvexPoly(im, pts, ink, cv2.LINE_AA)
    else:
        cv2.circle(im, (w // 2 - 9, h // 2), 12, ink, -1, cv2.LINE_AA)
        cv2.circle(im, (w // 2 + 9, h // 2), 12, ink, -1, cv2.LINE_AA)
        cv2.circle(im, (w // 2, h // 2 - 14), 12, ink, -1, cv2.LINE_AA)
        cv2.line(im, (w // 2, h // 2), (w // 2, h // 2 + 24), ink, 5, cv2.LINE_AA)
    return _bgra(im)


@functools.lru_cache(maxsize=8)
def _die_texture(face: int) -> np.ndarray:
    n = 60
    im = np.full((n, n, 3), 238, np.uint8)
    spots = {
        1: [(0, 0)],
        2: [(-1, -1), (1, 1)],
        3: [(-1, -1), (0, 0), (1, 1)],
        4: [(-1, -1), (1, -1), (-1, 1), (1, 1)],
        5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)],
        6: [(-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)],
    }[face]
    for sx, sy in spots:
        r, col = (11, (30, 30, 200)) if face == 1 else (6, (25, 25, 25))
        cv2.circle(im, (n // 2 + sx * 16, n // 2 + sy * 16), r, col, -1, cv2.LINE_AA)
    return _bgra(im)


def _screen_texture(rng: np.random.Generator) -> np.ndarray:
    w, h = 72, 150
    im = np.full((h, w, 3), 18, np.uint8)
    if rng.random() < 0.6:  # a lit screen with app icons
        top = rng.uniform(60, 200, 3)
        for y in range(h):
            im[y] = np.clip(top * (0.6 + 0.4 * y / h), 0, 255)
        for r in range(5):
            for c in range(4):
                col = tuple(int(v) for v in rng.integers(40, 255, 3))
                cv2.rectangle(im, (6 + c * 17, 20 + r * 22), (18 + c * 17, 32 + r * 22), col, -1, cv2.LINE_AA)
    cv2.rectangle(im, (0, 0), (w - 1, h - 1), (8, 8, 8), 3)
    return _bgra(im)


# ----------------------------------------------------------------------------- builders


def _box(cx: float, cy: float, w: float, d: float, yaw: float, z0: float, z1: float, color: Any, **kw: Any) -> Solid:
    bgr = (float(color[0]), float(color[1]), float(color[2]))
    return Solid(_rect(cx, cy, w, d, yaw, r=min(w, d) * 0.08), z0, z1, bgr, **kw)


def _keyboard(rng: np.random.Generator, cx: float, cy: float, yaw: float) -> Prop:
    dark = bool(rng.random() < 0.6)
    base = (35, 35, 38) if dark else (205, 205, 200)
    rows, cols = int(rng.integers(2, 5)), int(rng.integers(4, 11))
    pitch = float(rng.uniform(17.5, 19.5))
    p = Prop("keyboard", [_box(cx, cy, cols * pitch + 14, rows * pitch + 14, yaw, 0.0, 9.0, base)])
    letters = "QWERTYUIOPASDFGHJKLZXCVBNM1234567890"
    c, s = math.cos(yaw), math.sin(yaw)
    for r in range(rows):
        for k in range(cols):
            lx, ly = (k - (cols - 1) / 2) * pitch, (r - (rows - 1) / 2) * pitch
            x, y = cx + lx * c - ly * s, cy + lx * s + ly * c
            ch = letters[int(rng.integers(len(letters)))]
            p.solids.append(
                _box(
                    x,
                    y,
                    pitch - 3,
                    pitch - 3,
                    yaw,
                    9.0,
                    16.0,
                    base,
                    texture=_key_texture(ch, dark),
                    tex_quad=_quad(x, y, pitch - 5, pitch - 5, yaw),
                )
            )
    return p


def _keycaps(rng: np.random.Generator, cx: float, cy: float, yaw: float) -> Prop:
    dark = bool(rng.random() < 0.5)
    col = (40, 40, 42) if dark else (226, 226, 222)
    p = Prop("keycaps")
    for _ in range(int(rng.integers(1, 5))):
        x, y, a = cx + float(rng.uniform(-40, 40)), cy + float(rng.uniform(-30, 30)), float(rng.uniform(0, math.pi))
        ch = "QWERTYASDFZXCV0123456789"[int(rng.integers(24))]
        p.solids.append(
            _box(x, y, 17, 17, a, 0.0, 9.0, col, texture=_key_texture(ch, dark), tex_quad=_quad(x, y, 14, 14, a))
        )
    return _apart(p)


def _led(rng: np.random.Generator, cx: float, cy: float, yaw: float) -> Prop:
    n = int(rng.integers(2, 6))
    text = "".join(str(int(v)) for v in rng.integers(0, 10, n))
    w, h = n * 14.0 + 8, 26.0
    return Prop(
        "led_digits",
        [
            _box(cx, cy, w + 10, h + 10, yaw, 0.0, 6.0, (30, 30, 32)),
            Solid(
                _rect(cx, cy, w, h, yaw),
                6.0,
                6.5,
                (15, 12, 15),
                texture=led_texture(text),
                tex_quad=_quad(cx, cy, w, h, yaw),
                emissive=True,
            ),
        ],
    )


def _chips(rng: np.random.Generator, cx: float, cy: float, yaw: float) -> Prop:
    colors = [(40, 40, 190), (170, 80, 30), (40, 130, 40), (30, 30, 30), (230, 230, 230), (30, 150, 220)]
    p = Prop("poker_chips")
    for k in range(int(rng.integers(1, 4))):
        x, y = cx + k * 44.0 + float(rng.uniform(-4, 4)), cy + float(rng.uniform(-8, 8))
        col = colors[int(rng.integers(len(colors)))]
        n = int(rng.integers(1, 9))
        for j in range(n):
            z = j * 3.3
            tex = _chip_texture(col) if j == n - 1 else None
            quad = _quad(x, y, 39, 39, 0.0) if tex is not None else None
            p.solids.append(
                Solid(_circle(x + float(rng.normal(0, 0.6)), y, 19.5), z, z + 3.3, col, texture=tex, tex_quad=quad)
            )
    return p


def _cards(rng: np.random.Generator, cx: float, cy: float, yaw: float) -> Prop:
    p = Prop("cards")
    for k in range(int(rng.integers(1, 4))):
        x, y, a = cx + k * float(rng.uniform(15, 70)), cy + float(rng.uniform(-10, 10)), yaw + float(rng.normal(0, 0.3))
        back = int(rng.integers(3)) if rng.random() < 0.3 else -1
        rank = "A23456789TJQK"[int(rng.integers(13))]
        tex = _card_texture(rank, bool(rng.random() < 0.5), back)
        z = k * 0.4
        p.solids.append(
            Solid(
                _rect(x, y, 63, 88, a, r=3), z, z + 0.4, (246, 246, 246), texture=tex, tex_quad=_quad(x, y, 63, 88, a)
            )
        )
    return p


def _phone(rng: np.random.Generator, cx: float, cy: float, yaw: float) -> Prop:
    body = (20, 20, 22) if rng.random() < 0.6 else (190, 195, 200)
    return Prop(
        "phone",
        [
            Solid(_rect(cx, cy, 72, 150, yaw, r=9, k=4), 0.0, 8.0, body),
            Solid(
                _rect(cx, cy, 66, 142, yaw, r=7, k=4),
                8.0,
                8.3,
                (18, 18, 18),
                texture=_screen_texture(rng),
                tex_quad=_quad(cx, cy, 66, 142, yaw),
                emissive=True,
            ),
        ],
    )


def _dice(rng: np.random.Generator, cx: float, cy: float, yaw: float) -> Prop:
    p = Prop("dice")
    for k in range(int(rng.integers(1, 4))):
        s = float(rng.uniform(11, 16))
        x, y, a = cx + k * 24.0, cy + float(rng.uniform(-6, 6)), float(rng.uniform(0, math.pi))
        tex = _die_texture(int(rng.integers(1, 7)))
        p.solids.append(
            Solid(
                _rect(x, y, s, s, a, r=s * 0.15),
                0.0,
                s,
                (236, 236, 236),
                texture=tex,
                tex_quad=_quad(x, y, s * 0.9, s * 0.9, a),
            )
        )
    return p


def _centre_panel(rng: np.random.Generator, cx: float, cy: float, yaw: float) -> Prop:
    """An automatic table's centre: a dark plate, a score display facing each seat, the dice dome."""
    size = float(rng.uniform(150, 220))
    plate = (45, 42, 40) if rng.random() < 0.7 else (120, 110, 100)
    p = Prop("centre_panel", [_box(cx, cy, size, size, yaw, 0.0, 4.0, plate)])
    for side in range(4):
        a = yaw + side * math.pi / 2
        x, y = _place(np.array([[0.0, -(size / 2 - 18)]]), cx, cy, a)[0]
        text = "".join(str(int(v)) for v in rng.integers(0, 10, 3)) + "00"
        w = len(text) * 9.0
        p.solids.append(
            Solid(
                _rect(x, y, w, 16, a, r=1),
                4.0,
                4.5,
                (12, 12, 14),
                texture=led_texture(text),
                tex_quad=_quad(x, y, w, 16, a),
                emissive=True,
            )
        )
    p.solids.append(Solid(_circle(cx, cy, size * 0.16, 24), 4.0, 10.0, (70, 62, 58)))
    return p


def _knob(rng: np.random.Generator, cx: float, cy: float, yaw: float) -> Prop:
    r = float(rng.uniform(12, 25))
    col = (30, 30, 32) if rng.random() < 0.7 else (180, 180, 185)
    mark = np.zeros((64, 64, 4), np.uint8)
    cv2.circle(mark, (32, 32), 31, (*col, 255), -1, cv2.LINE_AA)
    cv2.line(mark, (32, 32), (32, 6), (235, 235, 235, 255), 4, cv2.LINE_AA)
    return Prop(
        "knob",
        [
            Solid(
                _circle(cx, cy, r, 20),
                0.0,
                float(rng.uniform(12, 25)),
                col,
                texture=mark,
                tex_quad=_quad(cx, cy, 2 * r, 2 * r, yaw),
            )
        ],
    )


def _apart(p: Prop) -> Prop:
    """Drop solids of one prop that overlap an earlier one (loose keycaps, dice)."""
    kept: list[Solid] = []
    for s in p.solids:
        lo, hi = s.outline.min(axis=0), s.outline.max(axis=0)
        if all((hi < k.outline.min(axis=0)).any() or (lo > k.outline.max(axis=0)).any() for k in kept):
            kept.append(s)
    p.solids = kept
    return p


#: how each kind in ``DISTRACTOR_KINDS`` is built, from (rng, x mm, y mm, yaw radians)
BUILDERS: dict[str, Callable[[np.random.Generator, float, float, float], Prop]] = {
    "keyboard": _keyboard,
    "keycaps": _keycaps,
    "led_digits": _led,
    "poker_chips": _chips,
    "cards": _cards,
    "phone": _phone,
    "dice": _dice,
    "centre_panel": _centre_panel,
    "knob": _knob,
}


def rack(rng: np.random.Generator, x0: float, x1: float, y0: float, y1: float, height: float) -> Prop:
    """A tile rack under a standing row spanning ``x0..x1``, ``y0..y1`` (mm): a plate ``height`` tall
    with a low lip behind."""
    col = [(40, 70, 120), (30, 30, 30), (70, 110, 60), (150, 150, 150), (35, 45, 140)][int(rng.integers(5))]
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    lip = float(rng.uniform(5, 10))
    return Prop(
        "rack",
        [
            Solid(_rect(cx, cy, x1 - x0, y1 - y0, 0.0, r=3), 0.0, height, col),
            Solid(_rect(cx, y1 - 2.5, x1 - x0, 5.0, 0.0, r=1), height, height + lip, col),
        ],
    )


# ----------------------------------------------------------------------------- placing and drawing


def place_distractors(
    rng: np.random.Generator,
    kinds: Sequence[str],
    n: int,
    project: Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]],
    taken: list[tuple[float, float, float, float]],
    centre: tuple[float, float],
    spread: float,
    size: tuple[int, int],
    tries: int = 6,
) -> list[tuple[Prop, tuple[float, float, float, float]]]:
    """Up to ``n`` props (with their image boxes) around ``centre`` (mm) within ``spread`` mm, each
    partly in the frame and clear of every box in ``taken`` (the tiles', then the props' own)."""
    w, h = size
    out: list[tuple[Prop, tuple[float, float, float, float]]] = []
    taken = list(taken)
    for _ in range(n):
        kind = str(kinds[int(rng.integers(len(kinds)))])
        for _t in range(tries):
            ang = float(rng.uniform(0, 2 * math.pi))
            dist = float(rng.uniform(0.35, 1.0)) * spread
            cx, cy = centre[0] + dist * math.cos(ang), centre[1] + dist * math.sin(ang)
            prop = BUILDERS[kind](rng, cx, cy, float(rng.uniform(-math.pi, math.pi)))
            if not prop.solids:
                continue
            uv, z = project(prop.points())
            if (z <= 1.0).any():
                continue
            box = (float(uv[:, 0].min()), float(uv[:, 1].min()), float(uv[:, 0].max()), float(uv[:, 1].max()))
            if box[2] < 0 or box[3] < 0 or box[0] > w or box[1] > h or box[2] - box[0] > 2 * w:
                continue
            m = CLEARANCE_PX
            if any(box[0] < t[2] + m and t[0] - m < box[2] and box[1] < t[3] + m and t[1] - m < box[3] for t in taken):
                continue
            out.append((prop, box))
            taken.append(box)
            break
    return out


def draw_prop(img: np.ndarray, prop: Prop, cam: Any, light: Any) -> None:
    """Paint a prop's solids far to near: visible sides shaded, then the top and its texture."""
    depth = [float((np.append(s.outline.mean(axis=0), s.z1) - cam.c) @ cam.r[2]) for s in prop.solids]
    for k in sorted(range(len(prop.solids)), key=lambda i: -depth[i]):
        _draw_solid(img, prop.solids[k], cam, light)


def _shade(color: Sequence[float] | np.ndarray, normal: np.ndarray, light: Any) -> tuple[float, float, float]:
    lam = max(0.0, float(normal @ light.l_dir))
    c = np.clip(np.array(color) * light.color * (light.ambient + light.diffuse * lam), 0, 255)
    return (float(c[0]), float(c[1]), float(c[2]))


def _draw_solid(img: np.ndarray, s: Solid, cam: Any, light: Any) -> None:
    m = len(s.outline)
    bottom = np.column_stack([s.outline, np.full(m, s.z0)])
    top = np.column_stack([s.outline, np.full(m, s.z1)])
    ub, _ = cam.project(bottom)
    ut, _zt = cam.project(top)
    centre = np.append(s.outline.mean(axis=0), (s.z0 + s.z1) / 2)
    j2 = np.roll(np.arange(m), -1)
    mid = (bottom + bottom[j2] + top + top[j2]) / 4
    edge = bottom[j2] - bottom
    nrm = np.column_stack([edge[:, 1], -edge[:, 0], np.zeros(m)])
    nrm /= np.maximum(np.linalg.norm(nrm, axis=1, keepdims=True), 1e-9)
    nrm *= np.where(np.einsum("ij,ij->i", nrm, mid - centre) < 0, -1.0, 1.0)[:, None]
    visible = np.einsum("ij,ij->i", nrm, cam.c - mid) > 0
    lam = np.clip(nrm @ light.l_dir, 0.0, None)
    cols = np.clip(
        (np.array(s.color) * 0.82)[None, :] * light.color * (light.ambient + light.diffuse * lam)[:, None], 0, 255
    )
    quads = _fixed(np.stack([ub, ub[j2], ut[j2], ut], axis=1))
    for k in np.nonzero(visible)[0]:
        c = cols[k]
        cv2.fillConvexPoly(img, quads[k], (float(c[0]), float(c[1]), float(c[2])), cv2.LINE_AA, SHIFT)
    if cam.c[2] <= s.z1:
        return
    up = np.array([0.0, 0.0, 1.0])
    cv2.fillConvexPoly(img, _fixed(ut), _shade(s.color, up, light), cv2.LINE_AA, SHIFT)
    if s.texture is not None and s.tex_quad is not None:
        _draw_texture(img, s, cam, light, up)


def _draw_texture(img: np.ndarray, s: Solid, cam: Any, light: Any, up: np.ndarray) -> None:
    assert s.texture is not None and s.tex_quad is not None
    h_img, w_img = img.shape[:2]
    quad = np.column_stack([s.tex_quad, np.full(4, s.z1 + 0.01)])
    uv, _ = cam.project(quad)
    x0, y0 = max(math.floor(uv[:, 0].min()) - 1, 0), max(math.floor(uv[:, 1].min()) - 1, 0)
    x1, y1 = min(math.ceil(uv[:, 0].max()) + 2, w_img), min(math.ceil(uv[:, 1].max()) + 2, h_img)
    if x1 - x0 < 2 or y1 - y0 < 2:
        return
    th, tw = s.texture.shape[:2]
    src = np.array([[-0.5, -0.5], [tw - 0.5, -0.5], [tw - 0.5, th - 0.5], [-0.5, th - 0.5]], np.float32)
    mat = cv2.getPerspectiveTransform(src, (uv - np.array([x0, y0])).astype(np.float32))
    warped = cv2.warpPerspective(
        s.texture, mat, (x1 - x0, y1 - y0), flags=cv2.INTER_AREA if tw > 64 else cv2.INTER_LINEAR
    )
    a = warped[..., 3:4].astype(np.float32) * (1.0 / 255.0)
    rgb = warped[..., :3].astype(np.float32)
    if not s.emissive:
        lam = max(0.0, float(up @ light.l_dir))
        rgb *= light.color * (light.ambient + light.diffuse * lam)
    roi = img[y0:y1, x0:x1].astype(np.float32)
    img[y0:y1, x0:x1] = np.clip(roi + (rgb - roi) * a, 0, 255).astype(np.uint8)


def stage(
    streams: FeatureStreams,
    config: SynthConfig,
    choice: SceneChoice,
    places: list[TilePlace],
    dims: TileDims,
    project: Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]],
    uvs: list[np.ndarray],
    size: tuple[int, int],
) -> list[tuple[Prop, tuple[float, float, float, float]]]:
    """The rack under a standing row, then the distractors, each clear of every tile's box; each
    feature draws from its own stream in ``streams`` (the main stream draws nothing here)."""
    out: list[tuple[Prop, tuple[float, float, float, float]]] = []
    row = [t for t in places if t.group in ("hand", "win")]
    if choice.rack > 0 and row:
        xs = [t.x for t in row]
        x0, x1 = min(xs) - dims.w / 2 - 6, max(xs) + dims.w / 2 + 6
        holder = rack(streams["rack"], x0, x1, -8.0, dims.d + 8, choice.rack)
        out.append((holder, _bbox(project(holder.points())[0])))
    taken = [_bbox(u.reshape(-1, 2)) for u in uvs]
    taken += [b for _, b in out]
    xs, ys = [t.x for t in places], [t.y for t in places]
    centre = ((min(xs) + max(xs)) / 2, (min(ys) + max(ys)) / 2)
    reach = max(max(xs) - min(xs), max(ys) - min(ys)) / 2 + 120.0
    if choice.seat:  # the automatic table's centre beyond the row
        seat = streams["seat"]
        far = (centre[0], max(ys) + float(seat.uniform(220, 380)))
        out += place_distractors(seat, ["centre_panel"], 1, project, taken, far, 40.0, size)
        taken += [b for _, b in out[-1:]]
    if choice.clutter:
        kinds = config.distractors
        out += place_distractors(streams["clutter"], kinds, choice.clutter, project, taken, centre, reach, size)
    return out


def _bbox(uv: np.ndarray) -> tuple[float, float, float, float]:
    return float(uv[:, 0].min()), float(uv[:, 1].min()), float(uv[:, 0].max()), float(uv[:, 1].max())


assert set(BUILDERS) == set(DISTRACTOR_KINDS), "every distractor kind has a builder"
