"""Tile face textures: the PNG exports of the Regular/Black art, pre-rasterised once per process,
plus procedural variation (stroke weight, hue shift, motif scale, CJK font re-draws).

Nothing here copies the art anywhere: it is read from the tiles folder and cached in memory.
"""

from __future__ import annotations

import functools
import glob
import os
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from paiscan.scoring.tiles import RED_OF_FIVE

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
    "Regular": [
        (214, 234, 243),
        (232, 240, 244),
        (196, 226, 240),
        (222, 232, 230),
        (205, 228, 236),
    ],
    "Black": [(34, 33, 36), (44, 42, 40), (28, 30, 38)],
}
#: ivory face colours (BGR) of the Regular art: warm, aged (``SynthConfig.p_ivory``)
IVORY_TONES: list[tuple[int, int, int]] = [(186, 220, 238), (176, 212, 232)]
# tile back colours (BGR): yellow, green, blue, orange, red, plus darker variants. No white: a
# white back is a blank white dragon face down (the players' own reason for coloured backs), and
# renders with white backs taught the classifier to guess between the two
BACK_COLORS: list[tuple[int, int, int]] = [
    (40, 185, 235),
    (30, 150, 215),  # yellow
    (70, 140, 40),
    (60, 110, 30),
    (110, 160, 60),  # green
    (170, 100, 30),
    (140, 70, 20),
    (200, 140, 60),  # blue
    (30, 120, 235),
    (20, 95, 215),  # orange
    (50, 50, 190),  # red
]
_KAN = "一二三四五六七八九"
_HONOR = "東南西北白發中"
#: every character the renderer draws with a font (:func:`_font_motif`'s numerals over 萬 and the
#: honours): all a font needs to hold here (``paiscan.datasets.carry_fonts`` cuts fonts down to these)
FONT_CHARACTERS = _KAN + "萬" + _HONOR
MIN_LEVEL_W = 24
#: a red five's class → its plain five's (contract ids: 0m 0p 0s → 5m 5p 5s)
RED_FIVES: dict[int, int] = {red: five for five, red in RED_OF_FIVE.items()}


@dataclass(frozen=True)
class ArtStyle:
    """One consistent look for all tiles of a render.

    Only ``art_set``, ``font`` and ``tex_w`` select cached textures; the other fields are applied
    while drawing (cheaply, on each tile's small image region).
    """

    art_set: str = "Regular"
    face_bgr: tuple[float, float, float] = (214.0, 234.0, 243.0)  # face base colour
    stroke: float = 0.0  # -1 thinner .. +1 bolder
    hue_deg: float = 0.0  # hue rotation of the motif colours
    saturation: float = 1.0  # motif saturation multiplier
    scale: float = 0.86  # motif size relative to the face
    font: str | None = None  # CJK font for characters and honors, None: the art
    tex_w: int = 192
    ivory: bool = False  # ``face_bgr`` is one of the ivory tones (``SynthConfig.p_ivory``)
    #: red fives drawn as the plain fives all in red, without the art's dot (``SynthConfig.p_plain_red``)
    plain_reds: bool = False


#: a folder of extra font files (a lent machine has no CJK fonts installed: they travel with the work)
FONTS_ENV = "PAISCAN_FONTS_DIR"


def find_cjk_fonts() -> list[str]:
    """CJK font files installed on this machine (or in the folder ``PAISCAN_FONTS_DIR`` names)
    that can draw the tile characters."""
    return list(_find_cjk_fonts(os.environ.get(FONTS_ENV, "")))


@functools.lru_cache(maxsize=4)
def _find_cjk_fonts(extra_dir: str) -> tuple[str, ...]:
    from PIL import ImageFont

    pats = [
        "/usr/share/fonts/**/*CJK*.tt[cf]",
        "/usr/share/fonts/**/*CJK*.otf",
        "/usr/share/fonts/**/ipa*.ttf",
        "/usr/share/fonts/**/*wqy*.tt[cf]",
        "/usr/share/fonts/**/*Droid*Fallback*.ttf",
    ]
    if extra_dir:
        pats += [f"{glob.escape(extra_dir)}/**/*.tt[cf]", f"{glob.escape(extra_dir)}/**/*.otf"]
    files = sorted({f for p in pats for f in glob.glob(p, recursive=True)})
    good: list[str] = []
    for f in files:
        if Path(f).name in ("ipagp.ttf", "ipamp.ttf"):  # proportional twins of ipag/ipam
            continue
        try:
            font = ImageFont.truetype(f, 40)
            if all(font.getmask(ch).getbbox() for ch in "萬東發中九"):
                good.append(f)
        except Exception:
            continue
    return tuple(good)


def random_style(
    rng: np.random.Generator,
    config: SynthConfig,
    ivory_rng: np.random.Generator | None = None,
    plain_red_rng: np.random.Generator | None = None,
) -> ArtStyle:
    """Draw an art style for one render; ``ivory_rng`` (the ivory faces' own stream, drawn from
    only with ``config.p_ivory`` on and the Regular art) may swap the face tone for an ivory one,
    and ``plain_red_rng`` (drawn from only with ``config.p_plain_red`` on) may draw the red fives
    without the art's dot."""
    art_set = "Black" if rng.random() < config.p_black_set else "Regular"
    fonts = find_cjk_fonts()
    font = None
    if fonts and rng.random() < config.p_font_redraw:
        font = fonts[int(rng.integers(len(fonts)))]
    tones = FACE_TONES[art_set]
    base = tones[int(rng.integers(len(tones)))]
    ivory = False
    if ivory_rng is not None and art_set == "Regular" and ivory_rng.random() < config.p_ivory:
        ivory = True
        base = IVORY_TONES[int(ivory_rng.integers(len(IVORY_TONES)))]
    tone = np.array(base, np.float64)
    tone = np.clip(tone * rng.uniform(0.96, 1.03, 3), 0, 255)
    return ArtStyle(
        art_set=art_set,
        face_bgr=(float(tone[0]), float(tone[1]), float(tone[2])),
        stroke=float(rng.uniform(-0.8, 0.8)) if rng.random() < 0.7 else 0.0,
        hue_deg=float(rng.normal(0, 7)),
        saturation=float(rng.uniform(0.75, 1.15)),
        scale=float(rng.uniform(0.72, 0.9)),
        font=font,
        tex_w=config.texture_width,
        ivory=ivory,
        plain_reds=plain_red_rng is not None and bool(plain_red_rng.random() < config.p_plain_red),
    )


def tex_size(tex_w: int) -> tuple[int, int]:
    """(width, height) of a face texture ``tex_w`` wide (3:4 like the art)."""
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


#: the red of a red five drawn from its plain five's art (BGR; ``ArtStyle.plain_reds``)
PLAIN_RED_BGR = (40.0, 32.0, 196.0)


def plain_red_motif(plain: np.ndarray) -> np.ndarray:
    """A plain five's premultiplied BGRA motif with every stroke and pip in :data:`PLAIN_RED_BGR`
    (its shapes, alpha, kept): a red five as most real sets draw it, all red and without the red
    dot the art's red fives carry."""
    out = plain.astype(np.float32).copy()
    out[..., :3] = out[..., 3:4] / 255.0 * np.array(PLAIN_RED_BGR, np.float32)
    return out


@functools.lru_cache(maxsize=1024)
def motif_texture(
    art_set: str, font: str | None, cls: int, level: int, tiles_dir: str, tex_w: int, plain_red: bool = False
) -> np.ndarray:
    """The motif of class ``cls`` (0-36) as premultiplied BGRA uint8 covering the whole face
    rectangle, at mip ``level`` (0 = ``tex_w`` wide); with ``plain_red``, a red five (34-36) is
    its plain five's motif in red (:func:`plain_red_motif`)."""
    if level > 0:
        base = motif_texture(art_set, font, cls, 0, tiles_dir, tex_w, plain_red)
        w = max(MIN_LEVEL_W, tex_w >> level)
        return cv2.resize(base, tex_size(w), interpolation=cv2.INTER_AREA)
    if plain_red and cls in RED_FIVES:
        plain = motif_texture(art_set, font, RED_FIVES[cls], 0, tiles_dir, tex_w)
        return np.clip(plain_red_motif(plain) + 0.5, 0, 255).astype(np.uint8)
    w, h = tex_size(tex_w)
    motif = None
    if font is not None:
        motif = _font_motif(cls, font, w, h, art_set == "Black")
    if motif is None:
        motif = _load_set(tiles_dir, art_set, tex_w)[ART_NAMES[cls]]
    return np.clip(motif + 0.5, 0, 255).astype(np.uint8)


def hue_matrix(hue_deg: float, saturation: float) -> np.ndarray:
    """3x3 BGR colour matrix rotating hue about the grey axis and scaling saturation."""
    th = np.deg2rad(hue_deg)
    c, s = np.cos(th), np.sin(th)
    k = 1.0 / 3.0
    sq = np.sqrt(k)
    # rotation about (1,1,1)/sqrt(3) (Rodrigues), in RGB order
    rot = np.array(
        [
            [c + (1 - c) * k, k * (1 - c) - sq * s, k * (1 - c) + sq * s],
            [k * (1 - c) + sq * s, c + (1 - c) * k, k * (1 - c) - sq * s],
            [k * (1 - c) - sq * s, k * (1 - c) + sq * s, c + (1 - c) * k],
        ]
    )
    grey = np.full((3, 3), k)
    sat = grey + saturation * (np.eye(3) - grey)
    m_rgb = sat @ rot
    perm = np.array([[0, 0, 1], [0, 1, 0], [1, 0, 0]], np.float64)  # BGR <-> RGB
    return (perm @ m_rgb @ perm).astype(np.float32)


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
