"""Tile face textures: the PNG exports of the Regular/Black art, pre-rasterised once per process,
plus procedural variation (stroke weight, hue shift, motif scale, CJK font re-draws).

Nothing here copies the art anywhere: it is read from the tiles folder and cached in memory.
"""

from __future__ import annotations

import functools
import glob
import zlib
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from .config import SynthConfig, resolve_tiles_dir

ART_NAMES: list[str] = (
    [f"Man{d}" for d in range(1, 10)]
    + [f"Pin{d}" for d in range(1, 10)]
    + [f"Sou{d}" for d in range(1, 10)]
    + ["Ton", "Nan", "Shaa", "Pei", "Haku", "Hatsu", "Chun"]
    + ["Man5-Dora", "Pin5-Dora", "Sou5-Dora"]
)
ART_SETS = ("Regular", "Black")
# face base colours (BGR) per art set
FACE_TONES: dict[str, list[tuple[int, int, int]]] = {
    "Regular": [(214, 234, 243), (232, 240, 244), (196, 226, 240), (222, 232, 230), (205, 228, 236)],
    "Black": [(34, 33, 36), (44, 42, 40), (28, 30, 38)],
}
# tile back colours (BGR): yellow, green, blue, orange, white, plus darker variants
BACK_COLORS: list[tuple[int, int, int]] = [
    (40, 185, 235), (30, 150, 215),  # yellow
    (70, 140, 40), (60, 110, 30), (110, 160, 60),  # green
    (170, 100, 30), (140, 70, 20), (200, 140, 60),  # blue
    (30, 120, 235), (20, 95, 215),  # orange
    (225, 232, 236), (205, 215, 222),  # white
    (50, 50, 190),  # red
]
_KAN = "一二三四五六七八九"
_HONOR = "東南西北白發中"
MIN_LEVEL_W = 24


@dataclass(frozen=True)
class ArtStyle:
    """One consistent look for all tiles of a render (quantised so textures can be cached)."""

    art_set: str = "Regular"
    tone: int = 0
    stroke: int = 0  # -1 thinner, 0, +1/+2 bolder (pixels at the largest texture level)
    hue: int = 0  # OpenCV hue units (2 degrees each)
    scale: float = 0.86  # motif size relative to the face
    font: str | None = None  # CJK font for characters and honors, None: the art
    tex_w: int = 256


def find_cjk_fonts() -> list[str]:
    """CJK font files installed on this machine that can draw the tile characters."""
    return list(_find_cjk_fonts())


@functools.lru_cache(maxsize=1)
def _find_cjk_fonts() -> tuple[str, ...]:
    from PIL import ImageFont

    pats = ["/usr/share/fonts/**/*CJK*.tt[cf]", "/usr/share/fonts/**/*CJK*.otf",
            "/usr/share/fonts/**/ipa*.ttf", "/usr/share/fonts/**/*wqy*.tt[cf]",
            "/usr/share/fonts/**/*Droid*Fallback*.ttf"]
    files = sorted({f for p in pats for f in glob.glob(p, recursive=True)})
    good: list[str] = []
    for f in files:
        try:
            font = ImageFont.truetype(f, 40)
            if all(font.getmask(ch).getbbox() for ch in "萬東發中九"):
                good.append(f)
        except Exception:
            continue
    # one font file per family keeps the choice compact; prefer regular/bold weights
    return tuple(good)


def random_style(rng: np.random.Generator, config: SynthConfig) -> ArtStyle:
    """Draw a quantised art style."""
    art_set = "Black" if rng.random() < config.p_black_set else "Regular"
    fonts = find_cjk_fonts()
    font = None
    if fonts and rng.random() < config.p_font_redraw:
        font = fonts[int(rng.integers(len(fonts)))]
    return ArtStyle(
        art_set=art_set,
        tone=int(rng.integers(len(FACE_TONES[art_set]))),
        stroke=int(rng.choice([-1, 0, 0, 1, 2])),
        hue=int(rng.choice([-6, -3, 0, 0, 3, 6])),
        scale=float(rng.choice([0.74, 0.8, 0.86, 0.92])),
        font=font,
        tex_w=config.texture_width,
    )


def tex_size(tex_w: int) -> tuple[int, int]:
    return tex_w, round(tex_w * 4 / 3)


@functools.lru_cache(maxsize=4)
def _load_set(tiles_dir: str, art_set: str, tex_w: int) -> dict[str, np.ndarray]:
    """Every PNG of one art set, as BGRA at the texture size (premultiplied-safe INTER_AREA)."""
    w, h = tex_size(tex_w)
    out: dict[str, np.ndarray] = {}
    folder = Path(tiles_dir) / "Export" / art_set
    for name in [*ART_NAMES, "Front"]:
        im = cv2.imread(str(folder / f"{name}.png"), cv2.IMREAD_UNCHANGED)
        if im is None:
            raise FileNotFoundError(folder / f"{name}.png")
        if im.ndim == 2:
            im = cv2.cvtColor(im, cv2.COLOR_GRAY2BGRA)
        elif im.shape[2] == 3:
            im = cv2.cvtColor(im, cv2.COLOR_BGR2BGRA)
        # premultiply before resampling so transparent pixels do not bleed colour
        a = im[..., 3:4].astype(np.float32) / 255.0
        pm = np.concatenate([im[..., :3].astype(np.float32) * a, a * 255.0], axis=2)
        pm = cv2.resize(pm, (w, h), interpolation=cv2.INTER_AREA)
        out[name] = pm  # float32 premultiplied BGRA
    return out


def _font_motif(cls: int, font_path: str, w: int, h: int, black_set: bool) -> np.ndarray | None:
    """Premultiplied BGRA float32 motif re-drawn with a CJK font (characters and honors only)."""
    from PIL import Image, ImageDraw, ImageFont

    dark = (245, 245, 240) if black_set else (30, 28, 32)
    red = (200, 30, 35)
    green = (20, 125, 60)
    blue = (25, 40, 120) if not black_set else (235, 235, 235)
    img = Image.new("RGBA", (w, h), (0, 0, 0, 0))
    draw = ImageDraw.Draw(img)
    if cls < 9 or cls == 34:  # characters: numeral over 萬
        d = 5 if cls == 34 else cls + 1
        num_col = red if cls == 34 else dark
        f1 = ImageFont.truetype(font_path, int(w * 0.62))
        f2 = ImageFont.truetype(font_path, int(w * 0.66))
        draw.text((w / 2, h * 0.29), _KAN[d - 1], font=f1, fill=num_col, anchor="mm")
        draw.text((w / 2, h * 0.71), "萬", font=f2, fill=red, anchor="mm")
    elif 27 <= cls <= 33:
        ch = _HONOR[cls - 27]
        if ch == "白":
            return np.zeros((h, w, 4), np.float32)
        col = {"中": red, "發": green}.get(ch, blue if cls <= 30 else dark)
        f = ImageFont.truetype(font_path, int(w * 0.86))
        draw.text((w / 2, h / 2), ch, font=f, fill=col, anchor="mm")
    else:
        return None
    rgba = np.asarray(img).astype(np.float32)
    a = rgba[..., 3:4] / 255.0
    bgr = rgba[..., 2::-1] * a
    return np.concatenate([bgr, a * 255.0], axis=2)


def _art_name(cls: int) -> str:
    return ART_NAMES[cls]


@functools.lru_cache(maxsize=512)
def face_texture(style: ArtStyle, cls: int, level: int, tiles_dir: str) -> np.ndarray:
    """The face of tile class ``cls`` (0-36) in ``style`` at mip ``level`` (0 = largest), BGR."""
    if level > 0:
        base = face_texture(style, cls, 0, tiles_dir)
        w = max(MIN_LEVEL_W, style.tex_w >> level)
        return cv2.resize(base, tex_size(w), interpolation=cv2.INTER_AREA)
    w, h = tex_size(style.tex_w)
    arts = _load_set(tiles_dir, style.art_set, style.tex_w)
    black = style.art_set == "Black"
    motif = None
    if style.font is not None:
        motif = _font_motif(cls, style.font, w, h, black)
    if motif is None:
        motif = arts[_art_name(cls)].copy()
    # stroke weight: dilate/erode the alpha, colour from a normalised blur
    if style.stroke != 0:
        a = motif[..., 3]
        k = 2 * abs(style.stroke) + 1
        ker = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
        a2 = cv2.dilate(a, ker) if style.stroke > 0 else cv2.erode(a, ker)
        col = cv2.blur(motif[..., :3], (k + 2, k + 2))
        aw = cv2.blur(a, (k + 2, k + 2))[..., None]
        col = col / np.maximum(aw, 1e-3) * 255.0  # straight (un-premultiplied) colour
        col = np.where(a[..., None] > 8, motif[..., :3] / np.maximum(a[..., None], 1e-3) * 255.0,
                       col)
        motif = np.concatenate([col * (a2[..., None] / 255.0), a2[..., None]], axis=2)
    # hue shift of the motif colours
    a = np.clip(motif[..., 3:4], 0, 255)
    straight = np.clip(motif[..., :3] / np.maximum(a, 1e-3) * 255.0, 0, 255).astype(np.uint8)
    if style.hue != 0:
        hsv = cv2.cvtColor(straight, cv2.COLOR_BGR2HSV)
        hsv[..., 0] = ((hsv[..., 0].astype(np.int16) + style.hue) % 180).astype(np.uint8)
        straight = cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)
    # motif scale: shrink and centre on the face
    sw, sh = max(4, round(w * style.scale)), max(4, round(h * style.scale))
    small_c = cv2.resize(straight, (sw, sh), interpolation=cv2.INTER_AREA).astype(np.float32)
    small_a = cv2.resize(a, (sw, sh), interpolation=cv2.INTER_AREA)
    small_a = small_a.reshape(sh, sw, 1).astype(np.float32) / 255.0
    x0, y0 = (w - sw) // 2, (h - sh) // 2
    face = _face_base(style, w, h)
    roi = face[y0:y0 + sh, x0:x0 + sw]
    face[y0:y0 + sh, x0:x0 + sw] = roi * (1 - small_a) + small_c * small_a
    return np.clip(face, 0, 255).astype(np.uint8)


def _face_base(style: ArtStyle, w: int, h: int) -> np.ndarray:
    tone = np.array(FACE_TONES[style.art_set][style.tone], np.float32)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    r = ((xx / w - 0.5) ** 2 + (yy / h - 0.5) ** 2) ** 0.5
    shade = 1.0 - 0.06 * r  # slight darkening towards the rim
    rng = np.random.default_rng(zlib.crc32(f"{style.art_set}/{style.tone}/{w}".encode()))
    grain = cv2.GaussianBlur(rng.normal(0, 3.0, (h, w)).astype(np.float32), (0, 0), 1.5)
    return tone[None, None, :] * shade[..., None] + grain[..., None]


def texture_level(style: ArtStyle, face_px: float) -> int:
    """The mip level whose width is just above ``face_px``."""
    level = 0
    w = style.tex_w
    while w // 2 >= max(MIN_LEVEL_W, face_px * 1.1) and level < 4:
        w //= 2
        level += 1
    return level


def tiles_dir_str(config: SynthConfig) -> str:
    return str(resolve_tiles_dir(config))
