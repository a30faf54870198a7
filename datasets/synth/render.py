"""The renderer: 3D tile bodies under a perspective camera, drawn with OpenCV.

Each tile is a rounded box (face layer + coloured back layer, bevelled edges). Its visible side
quads are filled with ``cv2.fillConvexPoly`` (Lambert + Blinn-Phong shading per quad), the face
texture is warped into a small region of interest with ``cv2.warpPerspective``, tiles are painted
far to near, and the table is a procedural surface warped by the table-plane homography with soft
shadows baked into a low-resolution light map.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from . import art, props, table
from .config import SynthConfig
from .effects import photo_effects
from .hands import random_hand
from .scene import TileDims, TilePlace, camera_config, choose_scene, layout_hand, random_dims, settle_side_tiles
from .streams import FeatureStreams, main_rng
from .tiles import CLASS_NAMES, FACE_DOWN, to_mpsz

SHIFT = 4  # sub-pixel bits for cv2 polygon drawing
_ONE = float(1 << SHIFT)
MIN_VISIBLE = 0.3  # tiles with less of their box inside the image go to the ignore list


@dataclass
class Sample:
    """One rendered photo with its ground truth."""

    image: np.ndarray
    """The photo, BGR uint8 (before JPEG compression)."""
    boxes: np.ndarray
    """(N, 4) float pixel boxes ``x0, y0, x1, y1`` of the labelled tiles."""
    classes: list[int]
    """Contract class id of each box (37 = face-down)."""
    meta: dict[str, Any]
    """Per-box details (rotation flags, projected face corners, groups), camera and style."""
    structure: dict[str, Any]
    """The contract Hand shown in the photo."""
    jpeg: bytes = b""
    """The photo encoded at ``meta['jpeg_quality']``."""
    ignore_boxes: np.ndarray = field(default_factory=lambda: np.zeros((0, 4)))
    """Tiles mostly outside the frame: neither labelled nor to be counted as errors."""
    instance_map: np.ndarray | None = None
    """With ``SynthConfig.instance_map``: uint16 map of which tile (``meta['boxes'][k]['place']``
    + 1) each pixel shows, 0 for the table."""

    def yolo_lines(self) -> list[str]:
        """Label lines ``class cx cy w h`` (normalised)."""
        h, w = self.image.shape[:2]
        return [_yolo(c, b, w, h) for c, b in zip(self.classes, self.boxes, strict=True)]

    def ignore_lines(self) -> list[str]:
        h, w = self.image.shape[:2]
        return [
            _yolo(int(c), b, w, h) for c, b in zip(self.meta.get("ignored_classes", []), self.ignore_boxes, strict=True)
        ]


def _yolo(cls: int, b: np.ndarray, w: int, h: int) -> str:
    x0, y0, x1, y1 = (float(v) for v in b)
    return f"{cls} {(x0 + x1) / 2 / w:.6f} {(y0 + y1) / 2 / h:.6f} {(x1 - x0) / w:.6f} {(y1 - y0) / h:.6f}"


# ----------------------------------------------------------------------------- geometry


def _rounded_rect(w: float, h: float, r: float, k: int = 3) -> np.ndarray:
    r = max(min(r, w / 2 - 1e-3, h / 2 - 1e-3), 1e-3)
    pts = []
    for cx, cy, a0 in (
        (w / 2 - r, h / 2 - r, 0.0),
        (-w / 2 + r, h / 2 - r, 90.0),
        (-w / 2 + r, -h / 2 + r, 180.0),
        (w / 2 - r, -h / 2 + r, 270.0),
    ):
        for i in range(k):
            a = math.radians(a0 + 90.0 * i / (k - 1))
            pts.append((cx + r * math.cos(a), cy + r * math.sin(a)))
    return np.array(pts)


def tile_rings(d: TileDims) -> np.ndarray:
    """(5, M, 3) local (u, v, n) rings: face cap, bevel, layer boundary, bevel, back cap."""
    b = d.bevel
    full = _rounded_rect(d.w, d.h, d.radius)
    inset = _rounded_rect(d.w - 2 * b, d.h - 2 * b, max(d.radius - b * 0.7, 0.3))
    ns = [0.0, -b, -d.d * d.face_frac, -d.d + b, -d.d]
    shapes = [inset, full, full, full, inset]
    return np.stack([np.column_stack([s, np.full(len(s), n)]) for s, n in zip(shapes, ns, strict=True)])


def tile_frame(t: TilePlace, d: TileDims) -> tuple[np.ndarray, np.ndarray]:
    """(origin of the face centre, 3x3 matrix with columns U, V, N) in world coordinates."""
    if t.pose == "standing":
        u, v, n = np.array([1.0, 0, 0]), np.array([0.0, 0, 1]), np.array([0.0, -1, 0])
        off = np.array([0.0, -d.d / 2, t.z0 + d.h / 2])
    elif t.pose == "side":  # on a long side: the glyph's axis along x, the face towards -y
        u, v, n = np.array([0.0, 0, -1]), np.array([1.0, 0, 0]), np.array([0.0, -1, 0])
        off = np.array([0.0, -d.d / 2, t.z0 + d.w / 2])
    elif t.face_down:
        u, v, n = np.array([-1.0, 0, 0]), np.array([0.0, 1, 0]), np.array([0.0, 0, -1])
        off = np.array([0.0, 0.0, t.z0])
    else:
        u, v, n = np.array([1.0, 0, 0]), np.array([0.0, 1, 0]), np.array([0.0, 0, 1])
        off = np.array([0.0, 0.0, t.z0 + d.d])
    if t.upside_down:
        u, v = -u, -v
    c, s = math.cos(t.yaw), math.sin(t.yaw)
    rz = np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])
    m = rz @ np.column_stack([u, v, n])
    origin = np.array([t.x, t.y, 0.0]) + rz @ off
    return origin, m


@dataclass
class Camera:
    """Pinhole camera: ``x_cam = R (X - C)``, pixel = ``K x_cam / z``."""

    k: np.ndarray
    r: np.ndarray
    c: np.ndarray

    def project(self, pts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        cam = (pts - self.c) @ self.r.T
        z = np.maximum(cam[..., 2], 1e-3)
        x = self.k[0, 0] * cam[..., 0] / z + self.k[0, 2]
        y = self.k[1, 1] * cam[..., 1] / z + self.k[1, 2]
        return np.stack([x, y], axis=-1), cam[..., 2]

    def table_homography(self) -> np.ndarray:
        """Homography from table-plane (x, y) millimetres to pixels."""
        t = -self.r @ self.c
        return self.k @ np.column_stack([self.r[:, 0], self.r[:, 1], t])


def _look(tilt: float, yaw: float, roll: float) -> np.ndarray:
    b = np.array([math.sin(yaw), -math.cos(yaw), 0.0])
    f = -(math.sin(tilt) * b + math.cos(tilt) * np.array([0.0, 0.0, 1.0]))
    r = np.array([math.cos(yaw), math.sin(yaw), 0.0])
    y = np.cross(f, r)
    r2 = r * math.cos(roll) + y * math.sin(roll)
    y2 = -r * math.sin(roll) + y * math.cos(roll)
    return np.stack([r2, y2, f])


def fit_camera(
    rng: np.random.Generator,
    config: SynthConfig,
    pts: np.ndarray,
    w: int,
    h: int,
    standing: bool,
    tile_mm: float,
    low: np.random.Generator | None = None,
) -> tuple[Camera, dict[str, Any]]:
    """A random camera that frames ``pts`` (world points of the hand); ``low`` (a seat view's own
    random stream) puts them in the frame's lower part, the table beyond above them."""
    lo, hi = config.tilt_deg
    if standing:  # the faces of upright tiles need an oblique view
        lo = max(lo, min(hi, 40.0))
    tilt = math.radians(rng.uniform(lo, hi))
    yaw = math.radians(rng.uniform(*config.yaw_deg))
    roll = math.radians(rng.uniform(*config.roll_deg))
    hfov = math.radians(rng.uniform(*config.hfov_deg))
    f = (w / 2) / math.tan(hfov / 2)
    k = np.array([[f, 0, w / 2], [0, f, h / 2], [0, 0, 1.0]])
    rot = _look(tilt, yaw, roll)
    mn, mx = pts.min(axis=0), pts.max(axis=0)
    target = np.array([(mn[0] + mx[0]) / 2, (mn[1] + mx[1]) / 2, 0.0])
    fill = rng.uniform(*config.fill)
    dist = 800.0
    cam = Camera(k, rot, target - dist * rot[2])
    for _ in range(4):
        cam = Camera(k, rot, target - dist * rot[2])
        uv, _z = cam.project(pts)
        ext = uv.max(axis=0) - uv.min(axis=0)
        s = max(ext[0] / (fill * w), ext[1] / (fill * h))
        dist *= s
    cam = Camera(k, rot, target - dist * rot[2])
    uv, _z = cam.project(pts)
    x0, y0 = uv.min(axis=0)
    x1, y1 = uv.max(axis=0)
    m = 0.02 * w
    cut = rng.random() < config.p_cut
    sx = _shift(rng, x0, x1, m, w - m)
    sy = _shift(rng, y0, y1, m, h - m)
    if low is not None and y1 - y0 < h - 2 * m:  # from the hand's bottom at the margin up to a third of the slack
        sy = (h - m - y1) - float(low.uniform(0.0, 0.33)) * ((h - m - y1) - (m - y0))
    tile_px = tile_mm * f / dist
    cut_side = ""
    if cut:
        frac = rng.uniform(0.15, 0.5) * tile_px
        cut_side = str(rng.choice(["left", "right", "top", "bottom"]))
        if cut_side == "left":
            sx = -x0 - frac
        elif cut_side == "right":
            sx = w - x1 + frac
        elif cut_side == "top":
            sy = -y0 - frac
        else:
            sy = h - y1 + frac
    k2 = k.copy()
    k2[0, 2] += sx
    k2[1, 2] += sy
    info = {
        "tilt_deg": math.degrees(tilt),
        "yaw_deg": math.degrees(yaw),
        "roll_deg": math.degrees(roll),
        "hfov_deg": math.degrees(hfov),
        "distance_mm": dist,
        "cut": cut_side,
    }
    return Camera(k2, rot, target - dist * rot[2]), info


def _shift(rng: np.random.Generator, a: float, b: float, lo: float, hi: float) -> float:
    smin, smax = lo - a, hi - b
    if smin > smax:
        return (smin + smax) / 2
    mid, half = (smin + smax) / 2, (smax - smin) / 2
    return mid + float(rng.uniform(-0.75, 0.75)) * half


# ----------------------------------------------------------------------------- drawing


@dataclass
class Lighting:
    l_dir: np.ndarray
    ambient: float
    diffuse: float
    color: np.ndarray  # per-channel light tint (BGR)
    spec: float  # specular strength (0-255 units)
    shininess: float
    sheen_sigma: float  # pixels


def _random_lighting(rng: np.random.Generator, diag: float, effects: bool) -> Lighting:
    az = rng.uniform(0, 2 * math.pi)
    el = math.radians(rng.uniform(35, 82))
    ldir = np.array([math.cos(el) * math.cos(az), math.cos(el) * math.sin(az), math.sin(el)])
    amb = rng.uniform(0.38, 0.62)
    dif = (rng.uniform(0.95, 1.12) - amb) / max(math.sin(el), 0.3)
    tint = 1.0 + rng.uniform(-0.05, 0.05, 3) if effects else np.ones(3)
    return Lighting(
        ldir,
        amb,
        dif,
        tint,
        rng.uniform(25, 110) if effects else 0.0,
        rng.uniform(12, 60),
        rng.uniform(0.1, 0.3) * diag,
    )


def _fixed(p: np.ndarray) -> np.ndarray:
    return np.round(p * _ONE).astype(np.int32)


def _body_quads(
    worlds: np.ndarray, uvs: np.ndarray, cam: Camera, light: Lighting, mats: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Visibility, colours and fixed-point polygons of every side quad of every tile.

    ``worlds`` (T, 5, M, 3), ``uvs`` (T, 5, M, 2), ``mats`` (T, 4, 3) band base colours.
    Returns vis (T, 4, M) bool, colours (T, 4, M, 3) and polygons (T, 4, M, 4, 2) int32.
    """
    m = worlds.shape[2]
    j = np.arange(m)
    j2 = (j + 1) % m
    a, b = worlds[:, :-1], worlds[:, 1:]
    qa, qb, qc, qd = a[:, :, j], a[:, :, j2], b[:, :, j2], b[:, :, j]
    normals = np.cross(qb - qa, qc - qb)
    qcent = (qa + qb + qc + qd) * 0.25
    centroid = worlds.reshape(len(worlds), -1, 3).mean(axis=1)[:, None, None, :]
    out = np.einsum("tbmi,tbmi->tbm", normals, qcent - centroid)
    normals *= np.where(out < 0, -1.0, 1.0)[..., None]
    normals /= np.maximum(np.linalg.norm(normals, axis=-1), 1e-9)[..., None]
    to_cam = cam.c[None, None, None, :] - qcent
    vis = np.einsum("tbmi,tbmi->tbm", normals, to_cam) > 0
    view = to_cam / np.linalg.norm(to_cam, axis=-1, keepdims=True)
    half = light.l_dir[None, None, None, :] + view
    half /= np.linalg.norm(half, axis=-1, keepdims=True)
    lam = np.clip(normals @ light.l_dir, 0, None)
    spec = np.clip(np.einsum("tbmi,tbmi->tbm", normals, half), 0, None) ** light.shininess
    cols = (
        mats[:, :, None, :] * light.color * (light.ambient + light.diffuse * lam)[..., None]
        + (spec * light.spec * 0.6)[..., None]
    )
    ua, ub = uvs[:, :-1], uvs[:, 1:]
    polys = np.stack([ua[:, :, j], ua[:, :, j2], ub[:, :, j2], ub[:, :, j]], axis=3)
    return vis, np.clip(cols, 0, 255), _fixed(polys)


def _draw_tile(
    img: np.ndarray,
    t: TilePlace,
    uv: np.ndarray,
    origin: np.ndarray,
    frame: np.ndarray,
    cam: Camera,
    light: Lighting,
    style: art.ArtStyle,
    back_bgr: np.ndarray,
    dims: TileDims,
    tiles_dir: str,
    hue_m: np.ndarray,
    vis: np.ndarray,
    cols: np.ndarray,
    polys: np.ndarray,
    base_col: tuple,
) -> None:
    # silhouette first, in a mid body colour (hides seams between anti-aliased quads)
    hull = cv2.convexHull(_fixed(uv.reshape(-1, 2)))
    cv2.fillConvexPoly(img, hull, base_col, cv2.LINE_AA, SHIFT)
    bi, qi = np.nonzero(vis)
    cl = cols[bi, qi].tolist()
    for k in range(len(bi)):
        cv2.fillConvexPoly(img, polys[bi[k], qi[k]], cl[k], cv2.LINE_AA, SHIFT)
    # caps: the face (ring 0, normal N) and the back (ring 4, normal -N)
    nrm = frame[:, 2]
    if float(nrm @ (cam.c - origin)) > 0:
        _draw_face(img, t, uv[0], origin, frame, cam, light, style, dims, tiles_dir, hue_m)
    else:
        back_centre = origin - nrm * dims.d
        to_cam = cam.c - back_centre
        if float(-nrm @ to_cam) > 0:
            half = light.l_dir + to_cam / np.linalg.norm(to_cam)
            half /= np.linalg.norm(half)
            lam = max(0.0, float(-nrm @ light.l_dir))
            spec = max(0.0, float(-nrm @ half)) ** light.shininess * light.spec * 0.5
            col = back_bgr * light.color * (light.ambient + light.diffuse * lam) + spec
            cv2.fillConvexPoly(img, _fixed(uv[4]), _col(col), cv2.LINE_AA, SHIFT)


def _col(c: np.ndarray) -> tuple[float, float, float]:
    c = np.clip(c, 0, 255)
    return (float(c[0]), float(c[1]), float(c[2]))


def _draw_face(
    img: np.ndarray,
    t: TilePlace,
    cap_uv: np.ndarray,
    origin: np.ndarray,
    frame: np.ndarray,
    cam: Camera,
    light: Lighting,
    style: art.ArtStyle,
    dims: TileDims,
    tiles_dir: str,
    hue_m: np.ndarray,
) -> None:
    h_img, w_img = img.shape[:2]
    x0 = max(math.floor(cap_uv[:, 0].min()) - 1, 0)
    y0 = max(math.floor(cap_uv[:, 1].min()) - 1, 0)
    x1 = min(math.ceil(cap_uv[:, 0].max()) + 2, w_img)
    y1 = min(math.ceil(cap_uv[:, 1].max()) + 2, h_img)
    if x1 <= x0 or y1 <= y0:
        return
    rw, rh = x1 - x0, y1 - y0
    nrm = frame[:, 2]
    lam = max(0.0, float(nrm @ light.l_dir))
    shade = (light.color * (light.ambient + light.diffuse * lam)).astype(np.float32)
    face_col = np.array(style.face_bgr, np.float32) * shade
    # motif: texture canvas -> face rectangle scaled about the centre
    s = style.scale
    u = frame[:, 0] * (dims.w / 2 * s)
    v = frame[:, 1] * (dims.h / 2 * s)
    corners = np.stack([origin - u + v, origin + u + v, origin + u - v, origin - u - v])
    cuv, _z = cam.project(corners)
    face_px = max(float(np.linalg.norm(cuv[1] - cuv[0])), float(np.linalg.norm(cuv[2] - cuv[1])) * 0.75)
    level = art.texture_level(style, face_px)
    tex = art.motif_texture(style.art_set, style.font, t.cls, level, tiles_dir, style.tex_w, style.plain_reds)
    th, tw = tex.shape[:2]
    src = np.array([[-0.5, -0.5], [tw - 0.5, -0.5], [tw - 0.5, th - 0.5], [-0.5, th - 0.5]], np.float32)
    dst = (cuv - np.array([x0, y0])).astype(np.float32)
    m = cv2.getPerspectiveTransform(src, dst)
    pm = cv2.warpPerspective(
        tex, m, (rw, rh), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0, 0)
    )
    pmf: np.ndarray = pm.astype(np.float32) * (1.0 / 255.0)
    if style.stroke > 0.05:  # bolder: spread the alpha, colour follows the blurred motif
        sig = 0.3 + 0.45 * style.stroke * min(face_px / 60.0, 2.0)
        pmf = np.asarray(cv2.GaussianBlur(pmf, (0, 0), sig))
        a_b = pmf[..., 3]
        a2 = np.minimum(a_b * (1.0 + 2.2 * style.stroke), 1.0)
        rgb = pmf[..., :3] * (a2 / np.maximum(a_b, 1e-3))[..., None]
    elif style.stroke < -0.05:  # thinner: raise the alpha threshold
        cut = 0.45 * -style.stroke
        a_b = pmf[..., 3]
        a2 = np.clip((a_b - cut) * (1.0 / (1.0 - cut)), 0, 1)
        rgb = pmf[..., :3] * (a2 / np.maximum(a_b, 1e-3))[..., None]
    else:
        a2 = pmf[..., 3]
        rgb = pmf[..., :3]
    # premultiplied motif colour (hue matrix is linear) over the face colour, then light
    col: np.ndarray = np.asarray(cv2.transform(rgb, hue_m * shade[:, None] * 255.0), np.float32)
    col += (1.0 - a2)[..., None] * face_col
    if light.spec > 0:
        ps = _specular_point(origin, nrm, cam, light)
        if ps is not None:
            k = -0.5 / light.sheen_sigma**2
            gx = np.exp(((np.arange(x0, x1, dtype=np.float32) - ps[0]) ** 2) * k)
            gy = np.exp(((np.arange(y0, y1, dtype=np.float32) - ps[1]) ** 2) * k)
            col += (np.outer(gy, gx) * light.spec)[..., None]
    mask = np.zeros((rh, rw), np.uint8)
    cv2.fillConvexPoly(mask, _fixed(cap_uv - np.array([x0, y0])), 255, cv2.LINE_AA, SHIFT)
    mk = mask.astype(np.float32) * (1.0 / 255.0)
    roi = img[y0:y1, x0:x1]
    blended = roi + (col - roi) * mk[..., None]
    img[y0:y1, x0:x1] = np.clip(blended, 0, 255).astype(np.uint8)


def _specular_point(q: np.ndarray, n: np.ndarray, cam: Camera, light: Lighting) -> np.ndarray | None:
    ln = float(light.l_dir @ n)
    if ln <= 0.05:
        return None
    d_out = -light.l_dir + 2 * ln * n
    s = float((cam.c - q) @ n) / ln
    p = cam.c - s * d_out
    uv, z = cam.project(p[None, :])
    if z[0] <= 0:
        return None
    return uv[0]


# ----------------------------------------------------------------------------- background


def _background(
    rng: np.random.Generator,
    config: SynthConfig,
    cam: Camera,
    w: int,
    h: int,
    tile_px: float,
    worlds: list[np.ndarray],
    light: Lighting,
    focus: list[np.ndarray] | None = None,
) -> np.ndarray:
    """The table: a procedural surface in perspective, with a light fall-off, soft shadows cast by
    ``worlds`` and a depth of field around ``focus`` (default ``worlds``).

    Rendered at half resolution (it is smooth, and the photo is blurred later) and upscaled.
    """
    if not config.effects or config.background_color is not None:
        flat = config.background_color or (60, 110, 40)
        return np.full((h, w, 3), flat, np.uint8)
    ds = 2 if w * h > 400_000 else 1
    hw, hh = (w + ds - 1) // ds, (h + ds - 1) // ds
    scale = np.array([[1.0 / ds, 0, 0.5 / ds - 0.5], [0, 1.0 / ds, 0.5 / ds - 0.5], [0, 0, 1]])
    kind = str(rng.choice(table.KINDS, p=[0.35, 0.3, 0.2, 0.15]))
    variant = int(rng.integers(table.N_VARIANTS))
    pat = table.pattern(kind, variant)
    dark, light_c = table.COLORS[kind][int(rng.integers(len(table.COLORS[kind])))]
    lut = table.color_ramp(dark, light_c, rng.uniform(0.85, 1.15, 3))
    mm_per_texel = {
        "felt": rng.uniform(0.4, 0.9),
        "wood": rng.uniform(0.5, 1.2),
        "cloth": rng.uniform(0.3, 0.6),
        "mat": rng.uniform(1.0, 2.5),
    }[kind]
    # mip: keep texels at least ~1 px (of the half-resolution image) where the hand is
    px_per_texel = tile_px / 26.0 * mm_per_texel / ds
    while px_per_texel < 1.0 and pat.shape[0] > 64:
        pat = cv2.resize(pat, (pat.shape[1] // 2, pat.shape[0] // 2), interpolation=cv2.INTER_AREA)
        mm_per_texel *= 2
        px_per_texel *= 2
    ang = rng.uniform(0, 2 * math.pi) if kind != "wood" else rng.normal(0, 0.3) + rng.choice([0, math.pi / 2])
    c, s = math.cos(ang), math.sin(ang)
    off = rng.uniform(0, 1000, 2)
    a = np.array(
        [[c * mm_per_texel, -s * mm_per_texel, off[0]], [s * mm_per_texel, c * mm_per_texel, off[1]], [0, 0, 1.0]]
    )
    hom = scale @ cam.table_homography() @ a
    grey = cv2.warpPerspective(pat, hom, (hw, hh), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_WRAP)
    col = cv2.LUT(cv2.cvtColor(grey, cv2.COLOR_GRAY2BGR), lut)
    shade = _shade_map(rng, worlds, cam, light, tile_px, w, h)
    sh8 = cv2.resize(np.clip(shade * 200.0, 0, 255).astype(np.uint8), (hw, hh), interpolation=cv2.INTER_LINEAR)
    col = cv2.multiply(col, cv2.merge([sh8, sh8, sh8]), scale=1.0 / 200.0)
    col = _depth_of_field(rng, col, cam, scale, focus_mm=_focus_depth(cam, focus or worlds))
    if ds == 1:
        return col
    return cv2.resize(col, (w, h), interpolation=cv2.INTER_LINEAR)


def _focus_depth(cam: Camera, worlds: list[np.ndarray]) -> float:
    pts = np.concatenate([wd.reshape(-1, 3) for wd in worlds])
    return float(np.median((pts - cam.c) @ cam.r[2]))


def _depth_of_field(
    rng: np.random.Generator, col: np.ndarray, cam: Camera, scale: np.ndarray, focus_mm: float
) -> np.ndarray:
    """Blur the table where it is much nearer or farther than the hand (phone-camera depth of
    field; also hides texture aliasing towards the horizon)."""
    h, w = col.shape[:2]
    gw, gh = max(w // 8, 2), max(h // 8, 2)
    gx, gy = np.meshgrid((np.arange(gw) + 0.5) * w / gw - 0.5, (np.arange(gh) + 0.5) * h / gh - 0.5)
    hom = scale @ cam.table_homography()
    inv = np.linalg.inv(hom)
    pix = np.stack([gx, gy, np.ones_like(gx)], axis=-1) @ inv.T
    xy = pix[..., :2] / pix[..., 2:3]
    world = np.concatenate([xy, np.zeros_like(xy[..., :1])], axis=-1)
    depth = (world - cam.c) @ cam.r[2]
    depth = np.where(pix[..., 2] * np.sign(inv[2, 2]) > 0, depth, 1e9)  # beyond the horizon
    rel = np.abs(np.log(np.maximum(depth, 1.0) / focus_mm))
    amount = float(rng.uniform(0.8, 2.5))
    alpha = np.clip((rel - 0.15) * amount, 0, 1).astype(np.float32)
    if alpha.max() < 0.05:
        return col
    sigma = float(rng.uniform(1.5, 4.0)) * (w / 640.0)
    blurred = cv2.GaussianBlur(col, (0, 0), sigma)
    a = cv2.resize(alpha, (w, h), interpolation=cv2.INTER_LINEAR)
    a8 = np.clip(a * 255.0, 0, 255).astype(np.uint8)
    a3 = cv2.merge([a8, a8, a8])
    inv_a3 = cv2.bitwise_not(a3)
    return cv2.add(cv2.multiply(col, inv_a3, scale=1.0 / 255.0), cv2.multiply(blurred, a3, scale=1.0 / 255.0))


def _shade_map(
    rng: np.random.Generator, worlds: list[np.ndarray], cam: Camera, light: Lighting, tile_px: float, w: int, h: int
) -> np.ndarray:
    """Quarter-resolution multiplier: light fall-off times soft cast and contact shadows."""
    ds = 4
    lw, lh = (w + ds - 1) // ds, (h + ds - 1) // ds
    soft = np.zeros((lh, lw), np.uint8)
    contact = np.zeros((lh, lw), np.uint8)
    ld = light.l_dir
    for world in worlds:
        pts = world.reshape(-1, 3)
        proj = pts - ld[None, :] * (pts[:, 2:3] / ld[2])
        uv, _z = cam.project(np.concatenate([proj, pts * np.array([1.0, 1.0, 0.0])]))
        n = len(pts)
        cv2.fillConvexPoly(soft, cv2.convexHull(_fixed(uv / ds)), 255, cv2.LINE_AA, SHIFT)
        cv2.fillConvexPoly(contact, cv2.convexHull(_fixed(uv[n:] / ds)), 255, cv2.LINE_AA, SHIFT)
    sig = max(0.6, rng.uniform(0.04, 0.16) * tile_px / ds)
    softf = cv2.GaussianBlur(soft, (0, 0), sig).astype(np.float32) / 255.0
    contf = cv2.GaussianBlur(contact, (0, 0), max(0.5, 0.06 * tile_px / ds)).astype(np.float32) / 255.0
    strength = rng.uniform(0.3, 0.6) * light.diffuse / (light.diffuse + light.ambient)
    yy, xx = np.mgrid[0:lh, 0:lw].astype(np.float32)
    cx, cy = rng.uniform(0.2, 0.8) * lw, rng.uniform(0.2, 0.8) * lh
    r2 = ((xx - cx) ** 2 + (yy - cy) ** 2) / float(lw * lw + lh * lh)
    fall = 1.0 - rng.uniform(0.1, 0.6) * r2 + rng.uniform(-0.08, 0.08) * (xx / lw - 0.5)
    return fall * (1.0 - strength * softf) * (1.0 - 0.4 * contf)


# ----------------------------------------------------------------------------- main entry


def _resolution(rng: np.random.Generator, config: SynthConfig) -> tuple[int, int]:
    if config.megapixels is None:
        return config.width, config.height
    mp = rng.uniform(*config.megapixels) * 1e6
    aspect = float(rng.choice([4 / 3, 4 / 3, 16 / 9, 3 / 2, 1.0]))
    if rng.random() < 0.2:
        aspect = 1 / aspect
    w = round(math.sqrt(mp * aspect) / 8) * 8
    h = round(math.sqrt(mp / aspect) / 8) * 8
    return int(w), int(h)


def render_sample(seed: int, rules: str = "riichi", config: SynthConfig | None = None) -> Sample:
    """Render one photo of a random winning hand. Same seed (and config) -> identical output."""
    config = config or SynthConfig()
    tiles_dir = art.tiles_dir_str(config)
    rng = main_rng(seed)
    streams = FeatureStreams(seed)  # the scene variety's own draws (none with its knobs at 0)
    hand = random_hand(random.Random(seed), rules)
    w, h = _resolution(rng, config)
    res = math.sqrt(w * h / (1280 * 960))
    dims = random_dims(rng)
    style = art.random_style(
        rng,
        config,
        streams["ivory"] if config.p_ivory > 0 else None,
        streams["plain_red"] if config.p_plain_red > 0 else None,
    )
    back_bgr = np.array(art.BACK_COLORS[int(rng.integers(len(art.BACK_COLORS)))], np.float64)
    back_bgr = np.clip(back_bgr * rng.uniform(0.9, 1.1, 3), 0, 255)
    choice = choose_scene(streams, config)
    places = layout_hand(hand, rng, config, dims, rules, choice, streams)
    rings = tile_rings(dims)
    n_ring = rings.shape[1]
    frames = [tile_frame(t, dims) for t in places]
    worlds = [o[None, None, :] + rings @ m.T for o, m in frames]
    standing = any(t.pose == "standing" for t in places)
    main_pts = np.concatenate([wd.reshape(-1, 3) for wd, t in zip(worlds, places, strict=True) if t.main])
    seat_rng = streams["seat"] if choice.seat else None
    cam, cam_info = fit_camera(rng, camera_config(config, choice), main_pts, w, h, standing, dims.w, seat_rng)
    settle_side_tiles(places, frames, cam.c)
    uvs = []
    depths = []
    for wd in worlds:
        uv, z = cam.project(wd)
        uvs.append(uv)
        depths.append(float(z.mean()))
    tile_px = (
        float(
            np.median(
                [np.linalg.norm(uv[0, 0] - uv[0, n_ring // 2]) for uv, t in zip(uvs, places, strict=True) if t.main]
            )
        )
        * 0.75
    )
    light = _random_lighting(rng, math.hypot(w, h), config.effects)
    things = props.stage(streams, config, choice, places, dims, cam.project, uvs, (w, h))
    # the focus (and so the main stream's draws) ignores the heap and the props, which have their own streams
    focus = [wd for wd, t in zip(worlds, places, strict=True) if t.group != "heap"]
    img = _background(rng, config, cam, w, h, tile_px, worlds + [p.points() for p, _ in things], light, focus)
    for prop, _box in things:
        props.draw_prop(img, prop, cam, light)
    hue_m = art.hue_matrix(style.hue_deg, style.saturation)
    face_mat = np.array(style.face_bgr, np.float64)
    side_mat = face_mat * (0.93 if style.art_set == "Regular" else 1.0)
    mats = np.stack([side_mat, side_mat, back_bgr, back_bgr])
    vis, cols, polys = _body_quads(
        np.stack(worlds), np.stack(uvs), cam, light, np.broadcast_to(mats, (len(worlds), 4, 3))
    )
    base_col = _col((side_mat * 0.5 + back_bgr * 0.5) * light.ambient * 1.2)
    order = sorted(range(len(places)), key=lambda i: -depths[i])
    ids = np.zeros((h, w), np.uint16) if config.instance_map else None
    for i in order:
        uv = uvs[i]
        if uv[..., 0].max() < 0 or uv[..., 1].max() < 0 or uv[..., 0].min() > w or uv[..., 1].min() > h:
            continue
        o, m = frames[i]
        _draw_tile(
            img,
            places[i],
            uv,
            o,
            m,
            cam,
            light,
            style,
            back_bgr,
            dims,
            tiles_dir,
            hue_m,
            vis[i],
            cols[i],
            polys[i],
            base_col,
        )
        if ids is not None:
            cv2.fillConvexPoly(ids, cv2.convexHull(_fixed(uv.reshape(-1, 2))), i + 1, cv2.LINE_8, SHIFT)
    post_info: dict[str, Any] = {}
    if config.effects:
        img, post_info = photo_effects(img, rng, res)
    quality = int(rng.integers(config.jpeg_quality[0], config.jpeg_quality[1] + 1))
    ok, enc = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:  # pragma: no cover
        raise RuntimeError("JPEG encoding failed")
    sample = _assemble(
        img, enc.tobytes(), places, frames, uvs, cam, dims, hand, style, cam_info, post_info, quality, back_bgr, seed
    )
    sample.instance_map = ids
    if config.variety:  # a classic config's meta stays as it was
        sample.meta["scene"] = {
            "seat": choice.seat,
            "rack": choice.rack > 0,
            "heap": choice.heap,
            "small": choice.small,
            "ivory": style.ivory,
            "plain_reds": style.plain_reds,
        }
        sample.meta["distractors"] = [
            {"kind": p.kind, "box": [round(v, 2) for v in b]} for p, b in things if p.kind != "rack"
        ]
    return sample


def _assemble(
    img: np.ndarray,
    jpeg: bytes,
    places: list[TilePlace],
    frames: list[tuple[np.ndarray, np.ndarray]],
    uvs: list[np.ndarray],
    cam: Camera,
    dims: TileDims,
    hand: dict[str, Any],
    style: art.ArtStyle,
    cam_info: dict[str, Any],
    post_info: dict[str, Any],
    quality: int,
    back_bgr: np.ndarray,
    seed: int,
) -> Sample:
    h, w = img.shape[:2]
    boxes: list[list[float]] = []
    classes: list[int] = []
    ignored: list[list[float]] = []
    ignored_cls: list[int] = []
    per_box: list[dict[str, Any]] = []
    background: list[int] = []
    for place, (t, (o, m), uv) in enumerate(zip(places, frames, uvs, strict=True)):
        pts = uv.reshape(-1, 2) + 0.5  # pixel k covers [k, k+1) in label coordinates
        x0, y0 = pts.min(axis=0)
        x1, y1 = pts.max(axis=0)
        area = max((x1 - x0) * (y1 - y0), 1e-6)
        cx0, cy0, cx1, cy1 = max(x0, 0.0), max(y0, 0.0), min(x1, float(w)), min(y1, float(h))
        if cx1 <= cx0 or cy1 <= cy0:
            continue  # entirely outside the frame
        frac = (cx1 - cx0) * (cy1 - cy0) / area
        if t.group in ("background", "dead_wall", "heap"):
            background.append(t.label)
        box = [float(cx0), float(cy0), float(cx1), float(cy1)]
        if frac < MIN_VISIBLE or t.extra.get("edge_on"):
            ignored.append(box)
            ignored_cls.append(t.label)
            continue
        u, v, n = m[:, 0], m[:, 1], m[:, 2]
        cap = o if not t.face_down else o - n * dims.d
        sgn = 1.0 if not t.face_down else -1.0
        corners = np.stack(
            [
                cap - sgn * u * dims.w / 2 + v * dims.h / 2,
                cap + sgn * u * dims.w / 2 + v * dims.h / 2,
                cap + sgn * u * dims.w / 2 - v * dims.h / 2,
                cap - sgn * u * dims.w / 2 - v * dims.h / 2,
            ]
        )
        cuv, _z = cam.project(corners)
        cuv = cuv + 0.5
        up = (cuv[0] + cuv[1]) / 2 - (cuv[3] + cuv[2]) / 2
        angle = math.degrees(math.atan2(float(up[0]), float(-up[1])))  # 0 = up, clockwise +
        g = v if t.pose != "standing" else np.array([0.0, 0.0, 1.0]) * (-1 if t.upside_down else 1)
        rotated = t.pose != "standing" and abs(g[0]) > abs(g[1])
        upside = (g[2] < 0) if t.pose == "standing" else (not rotated and g[1] < 0)
        boxes.append(box)
        classes.append(t.label)
        per_box.append(
            {
                "cls": t.label,
                "tile": CLASS_NAMES[t.label],
                "place": place,
                "face": CLASS_NAMES[t.cls] if t.face_down else CLASS_NAMES[t.label],
                "box": [round(b, 2) for b in box],
                "group": t.group,
                "group_index": t.group_index,
                "rotated": bool(rotated),
                "upside_down": bool(upside),
                "face_down": t.face_down,
                "pose": t.pose,
                "angle_deg": round(angle, 2),
                "corners": [[round(float(a), 2) for a in c] for c in cuv],
                "truncated": round(1.0 - frac, 3),
                **t.extra,
            }
        )
    meta = {
        "seed": seed,
        "width": w,
        "height": h,
        "jpeg_quality": quality,
        "boxes": per_box,
        "background": to_mpsz(background),
        "ignored_classes": ignored_cls,
        "camera": {k: (round(v, 3) if isinstance(v, float) else v) for k, v in cam_info.items()},
        "style": {
            "art_set": style.art_set,
            "font": style.font,
            "scale": round(style.scale, 3),
            "stroke": round(style.stroke, 3),
            "hue_deg": round(style.hue_deg, 2),
            "back_bgr": [round(float(c)) for c in back_bgr],
        },
        "tile_mm": [round(dims.w, 2), round(dims.h, 2), round(dims.d, 2)],
        "post": post_info,
    }
    return Sample(
        image=img,
        boxes=np.array(boxes, np.float64).reshape(-1, 4),
        classes=classes,
        meta=meta,
        structure=hand,
        jpeg=jpeg,
        ignore_boxes=np.array(ignored, np.float64).reshape(-1, 4),
    )


__all__ = ["FACE_DOWN", "Camera", "Sample", "render_sample"]
