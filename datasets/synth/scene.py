"""Where the tiles lie on the table (world millimetres; x right, y away from the player, z up)."""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from .config import SynthConfig
from .hands import discardable, remaining_pool
from .streams import FeatureStreams
from .tiles import FACE_DOWN, parse_tiles

RED_FIVES_FROM = 34  # contract ids 34..36 are the red fives


@dataclass(frozen=True)
class TileDims:
    """Physical size of the tiles of one set (millimetres)."""

    w: float = 26.0  # face width
    h: float = 35.0  # face height
    d: float = 19.0  # thickness
    face_frac: float = 0.62  # share of the thickness that is face (ivory) material
    radius: float = 2.6  # corner radius of the body outline
    bevel: float = 1.1  # rounding of the face and back edges


@dataclass
class TilePlace:
    """One tile on the table."""

    cls: int  # face class 0-36 (the hidden face for face-down tiles)
    x: float  # centre of the footprint
    y: float
    yaw: float  # radians about z; 0: glyph top points away (+y)
    pose: str = "flat"  # "flat" (lying), "standing" (upright, face towards -y) or "side" (on a long side)
    face_down: bool = False
    upside_down: bool = False
    sideways: bool = False
    z0: float = 0.0  # height of the footprint (stacking)
    group: str = "hand"  # hand | win | meld | dora | nuki | dead_wall | background | heap
    group_index: int = 0  # which meld / position in the group
    main: bool = True  # part of the hand the camera frames
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def label(self) -> int:
        return FACE_DOWN if self.face_down else self.cls


def random_dims(rng: np.random.Generator) -> TileDims:
    w = float(rng.uniform(23.5, 28.0))
    return TileDims(
        w=w,
        h=w * float(rng.uniform(1.3, 1.4)),
        d=w * float(rng.uniform(0.62, 0.82)),
        face_frac=float(rng.uniform(0.5, 0.72)),
        radius=w * float(rng.uniform(0.06, 0.14)),
        bevel=w * float(rng.uniform(0.03, 0.06)),
    )


@dataclass(frozen=True)
class SceneChoice:
    """What else one render shows besides the hand (each a :class:`SynthConfig` knob)."""

    seat: bool = False  # an automatic table seen from the seat: the row standing, a low camera
    rack: float = 0.0  # height (mm) of the rack the row stands on; 0: no rack
    heap: bool = False  # a heap of loose tiles by the hand
    small: bool = False  # the hand small in the frame
    clutter: int = 0  # distractors to place


def choose_scene(streams: FeatureStreams, config: SynthConfig) -> SceneChoice:
    """Draw one render's scene, each feature from its own stream and only when its knob is on (the
    main stream draws nothing here, so the knobs at 0 leave a seed's render as it was)."""
    seat = config.p_seat_view > 0 and streams["seat"].random() < config.p_seat_view
    rack = 0.0
    if config.p_rack > 0 and streams["rack"].random() < config.p_rack:
        rack = float(streams["rack"].uniform(7.0, 14.0))
    heap = config.p_heap > 0 and streams["heap"].random() < config.p_heap
    small = config.p_small > 0 and streams["small"].random() < config.p_small
    clutter = 0
    lo, hi = config.n_distractors
    if config.p_clutter > 0 and config.distractors and hi >= lo and streams["clutter"].random() < config.p_clutter:
        clutter = int(streams["clutter"].integers(lo, hi + 1))
    return SceneChoice(seat=bool(seat), rack=rack, heap=bool(heap), small=bool(small), clutter=clutter)


def footprint(t: TilePlace, dims: TileDims) -> tuple[float, float]:
    """(x extent, y extent) of a tile on the table, ignoring small twists."""
    if t.pose == "standing":
        a, b = dims.w, dims.d
    elif t.pose == "side":
        a, b = dims.h, dims.d
    else:
        a, b = dims.w, dims.h
    return (b, a) if t.sideways else (a, b)


def layout_hand(
    hand: dict[str, Any],
    rng: np.random.Generator,
    config: SynthConfig,
    dims: TileDims,
    rules: str,
    choice: SceneChoice | None = None,
    streams: FeatureStreams | None = None,
) -> list[TilePlace]:
    """Lay out a Hand dict as players show a win, plus optional background tiles and a heap (drawn
    from the heap's own stream in ``streams``)."""
    choice = choice or SceneChoice()
    if choice.heap and streams is None:
        raise ValueError("a heap draws from its own random stream: pass streams")
    tiles: list[TilePlace] = []
    tight = rng.random() < config.p_tight
    standing = rng.random() < config.p_standing or choice.seat or choice.rack > 0
    twisty = rng.random() < config.p_twist

    def gap() -> float:
        return float(rng.uniform(0.0, 0.25)) if tight else float(rng.uniform(0.3, 1.8))

    def jitter_yaw() -> float:
        return float(rng.normal(0, 0.25 if tight else 0.7)) * math.pi / 180

    side_rot = math.pi / 2 if rng.random() < 0.7 else -math.pi / 2
    pose = "standing" if standing else "flat"
    row_depth = dims.d if standing else dims.h
    x = 0.0
    concealed = parse_tiles(hand.get("hand", ""))
    if rng.random() < 0.1 and len(concealed) > 3:  # an unsorted hand
        i, j = sorted(rng.choice(len(concealed), 2, replace=False).tolist())
        concealed[i], concealed[j] = concealed[j], concealed[i]
    twist_idx = (
        set(rng.choice(max(len(concealed), 1), size=int(rng.integers(1, 4)), replace=True).tolist())
        if twisty
        else set()
    )
    for k, cls in enumerate(concealed):
        extra_gap = 0.0
        yaw = jitter_yaw()
        if k in twist_idx:
            ang = float(rng.uniform(3, 9)) * float(rng.choice([-1, 1]))
            yaw = ang * math.pi / 180
            extra_gap = abs(math.sin(yaw)) * row_depth * 0.6
        x += extra_gap
        tiles.append(
            TilePlace(
                cls,
                x + dims.w / 2,
                row_depth / 2,
                yaw,
                pose=pose,
                upside_down=bool(rng.random() < config.p_upside_down),
                z0=choice.rack if standing else 0.0,
                group="hand",
                group_index=k,
            )
        )
        x += dims.w + gap() + extra_gap
    # winning tile, a little apart (sometimes not)
    if hand.get("win_tile"):
        x += float(rng.uniform(4, 16)) if rng.random() < config.p_win_apart else 0.0
        cls = parse_tiles(hand["win_tile"])[0]
        yaw = jitter_yaw() + (float(rng.normal(0, 4)) * math.pi / 180 if twisty else 0.0)
        tiles.append(
            TilePlace(
                cls,
                x + dims.w / 2,
                row_depth / 2 + float(rng.uniform(-1, 1)),
                yaw,
                pose=pose,
                upside_down=bool(rng.random() < config.p_upside_down),
                z0=choice.rack if standing else 0.0,
                group="win",
            )
        )
        x += dims.w
    # called melds to the right (the first call ends up rightmost)
    melds = list(hand.get("melds", []))
    if melds:
        x += float(rng.uniform(10, 40))
    for mi in reversed(range(len(melds))):
        x = _layout_meld(melds[mi], mi, x, tiles, rng, dims, side_rot, gap)
        x += float(rng.uniform(3, 14)) if not tight else gap()
    row_end = x
    # dora indicators apart from the hand
    dora = [parse_tiles(d)[0] for d in hand.get("dora_indicators", [])]
    nuki = parse_tiles(hand.get("nuki", "") or "")
    pool = remaining_pool(hand, rules)
    rng_pool = [int(t) for t in rng.permutation(pool)] if pool else []
    above_y = dims.h + float(rng.uniform(25, 110))
    used_right = 0.0
    if dora:
        mode = rng.choice(["above", "above", "left", "right"])
        dead_wall = rng.random() < config.p_dead_wall
        n_slots = max(7, len(dora) + 3) if dead_wall else len(dora)
        first = 2 if dead_wall else 0
        length = n_slots * (dims.w + 0.5)
        if mode == "above":
            x0 = float(rng.uniform(-40, max(-39, 0.45 * row_end - length)))
            y0 = above_y
        elif mode == "left":
            x0 = -float(rng.uniform(30, 90)) - length
            y0 = float(rng.uniform(-10, 40))
        else:
            x0 = row_end + float(rng.uniform(20, 70))
            y0 = float(rng.uniform(-10, 40))
            used_right = x0 + length
        dx = 0.0
        for s in range(n_slots):
            j = s - first
            if 0 <= j < len(dora):
                tiles.append(
                    TilePlace(dora[j], x0 + dx + dims.w / 2, y0 + dims.h / 2, jitter_yaw(), group="dora", group_index=j)
                )
            elif rng_pool:
                tiles.append(
                    TilePlace(
                        rng_pool.pop(),
                        x0 + dx + dims.w / 2,
                        y0 + dims.h / 2,
                        jitter_yaw(),
                        face_down=True,
                        group="dead_wall",
                        group_index=s,
                    )
                )
            dx += dims.w + float(rng.uniform(0.1, 0.8))
    if nuki:
        x0 = max(0.6 * row_end, used_right + 30) if used_right else float(rng.uniform(0.6, 0.9)) * row_end
        y0 = above_y + float(rng.uniform(-10, 30)) if rng.random() < 0.7 else float(rng.uniform(-5, 20))
        if y0 < dims.h + 10:  # beside the row rather than over it
            x0 = max(row_end, used_right) + float(rng.uniform(25, 60))
        for j, cls in enumerate(nuki):
            tiles.append(
                TilePlace(
                    cls,
                    x0 + j * (dims.w + gap()) + dims.w / 2,
                    y0 + dims.h / 2,
                    jitter_yaw(),
                    group="nuki",
                    group_index=j,
                )
            )
    # an unrelated pond of discards further away
    if rng.random() < config.p_background and rng_pool:
        _layout_pond(tiles, discardable(rng_pool, rules), rng, dims, row_end)
    if choice.heap and rng_pool and streams is not None:
        _layout_heap(tiles, _unused(discardable(rng_pool, rules), tiles), streams["heap"], dims, row_end)
    return tiles


def _unused(pool: list[int], tiles: list[TilePlace]) -> list[int]:
    """``pool`` less one of each tile the pond already shows, in order."""
    shown = Counter(t.cls for t in tiles if t.group == "background")
    out = []
    for t in pool:
        if shown[t]:
            shown[t] -= 1
        else:
            out.append(t)
    return out


def _layout_heap(
    tiles: list[TilePlace], pool: list[int], rng: np.random.Generator, dims: TileDims, row_end: float
) -> None:
    """Loose tiles pushed together (as after a hand): face up, face down and on a long side, at any
    angle, none lying on another tile (the heap's or the hand's, pond's and indicators')."""
    n = min(len(pool), int(rng.integers(5, 17)))
    max_y = max(t.y for t in tiles) + dims.h
    if rng.random() < 0.6:  # beyond the hand
        cx, cy = float(rng.uniform(0.1, 0.9)) * row_end, max_y + float(rng.uniform(60, 160))
    else:  # to its left
        cx, cy = -float(rng.uniform(90, 180)), float(rng.uniform(-40, 120))
    reach = math.hypot(dims.w, dims.h) / 2 + 0.5  # a tile's bounding circle, any yaw
    spread = reach * (1.2 + math.sqrt(n))
    placed: list[tuple[float, float]] = [(t.x, t.y) for t in tiles]  # no heap tile lies on another tile
    for k in range(n):
        for _ in range(20):
            x, y = cx + float(rng.uniform(-spread, spread)), cy + float(rng.uniform(-spread, spread) * 0.7)
            if all(math.hypot(x - px, y - py) >= 2 * reach for px, py in placed):
                break
        else:
            continue
        placed.append((x, y))
        pose = str(rng.choice(["flat", "down", "side"], p=[0.4, 0.35, 0.25]))
        tiles.append(
            TilePlace(
                pool[k],
                x,
                y,
                float(rng.uniform(-math.pi, math.pi)),
                pose="side" if pose == "side" else "flat",
                face_down=pose == "down",
                upside_down=pose == "side" and bool(rng.random() < 0.5),
                group="heap",
                group_index=k,
                main=False,
            )
        )


def _layout_meld(
    meld: dict[str, Any],
    mi: int,
    x: float,
    tiles: list[TilePlace],
    rng: np.random.Generator,
    dims: TileDims,
    side_rot: float,
    gap: Any,
) -> float:
    ids = parse_tiles(meld["tiles"])
    mtype = meld.get("type", "pon")
    is_open = bool(meld.get("open", mtype != "kan"))
    added = bool(meld.get("added", False))
    frm = meld.get("from") or ("left" if mtype == "chi" else str(rng.choice(["left", "across", "right"])))
    face_down_idx: set[int] = set()
    stacked = False
    if mtype == "chi":
        c = int(rng.integers(len(ids)))
        ids = [ids[c]] + [t for i, t in enumerate(ids) if i != c]
        side = 0
    elif mtype == "kan" and not is_open:
        side = -1
        face_down_idx = {0, len(ids) - 1}
        # a red five is shown face up (a player turns down two plain fives, or the red one is lost)
        plain, red = [t for t in ids if t < RED_FIVES_FROM], [t for t in ids if t >= RED_FIVES_FROM]
        ids = plain[:1] + red + plain[1:]
    elif mtype == "kan" and added:
        stacked = True
        ids = ids[:4]
        side = {"left": 0, "across": 1, "right": 2}.get(frm, 0)
    else:
        n = len(ids)
        side = {"left": 0, "across": 1 if n == 3 else int(rng.choice([1, 2])), "right": n - 1}.get(frm, 0)
    n_show = 3 if stacked else len(ids)
    for k in range(n_show):
        cls = ids[k]
        sideways = k == side
        fx = dims.h if sideways else dims.w
        fy = dims.w if sideways else dims.h
        yaw = (side_rot if sideways else 0.0) + float(rng.normal(0, 0.6)) * math.pi / 180
        tiles.append(
            TilePlace(
                cls,
                x + fx / 2,
                fy / 2,
                yaw,
                sideways=sideways,
                face_down=k in face_down_idx,
                group="meld",
                group_index=mi,
                extra={"meld_type": mtype, "from": frm},
            )
        )
        if sideways and stacked:
            y2 = fy + float(rng.uniform(0.1, 0.8))
            tiles.append(
                TilePlace(
                    ids[3],
                    x + fx / 2 + float(rng.uniform(-0.8, 0.8)),
                    y2 + fy / 2,
                    yaw + float(rng.normal(0, 0.5)) * math.pi / 180,
                    sideways=True,
                    group="meld",
                    group_index=mi,
                    extra={"meld_type": mtype, "from": frm, "added_tile": True},
                )
            )
        x += fx + gap()
    return x


def _layout_pond(
    tiles: list[TilePlace], pool: list[int], rng: np.random.Generator, dims: TileDims, row_end: float
) -> None:
    max_y = max(t.y for t in tiles) + dims.h
    n = min(len(pool), int(rng.integers(4, 19)))
    orient = float(rng.choice([0.0, math.pi, math.pi, math.pi / 2, -math.pi / 2], p=[0.35, 0.35, 0.0, 0.15, 0.15]))
    x0 = float(rng.uniform(-0.1, 0.6)) * row_end
    y0 = max_y + float(rng.uniform(30, 140))
    riichi_at = int(rng.integers(n)) if rng.random() < 0.3 else -1
    sideways_pond = abs(math.sin(orient)) > 0.5
    step_x = dims.w + 0.6
    step_y = dims.h + 1.5
    for k in range(n):
        row, col = divmod(k, 6)
        if sideways_pond:
            cx, cy = x0 + row * step_y, y0 + col * step_x
        else:
            cx, cy = x0 + col * step_x, y0 + row * step_y
        yaw = orient + float(rng.normal(0, 2.5)) * math.pi / 180
        sideways = sideways_pond
        if k == riichi_at:
            yaw += math.pi / 2
            sideways = not sideways
        tiles.append(
            TilePlace(
                pool.pop(),
                cx + float(rng.normal(0, 1)),
                cy + float(rng.normal(0, 1)),
                yaw,
                sideways=sideways,
                group="background",
                group_index=k,
                main=False,
            )
        )


def camera_config(config: SynthConfig, choice: SceneChoice) -> SynthConfig:
    """The camera ranges of one scene: a small hand fills less, a seat view looks from low."""
    if choice.small:
        config = replace(config, fill=config.small_fill)
    if choice.seat:
        config = replace(config, tilt_deg=config.seat_tilt_deg, yaw_deg=(-8.0, 8.0), roll_deg=(-8.0, 8.0))
    return config


#: a tile on its side is labelled by the cap facing the camera when this cosine or more turns to
#: it; below, it shows mostly its edge and goes to the ignore list
SIDE_SHOWS_CAP = 0.45


def settle_side_tiles(
    places: list[TilePlace], frames: list[tuple[np.ndarray, np.ndarray]], camera_centre: np.ndarray
) -> None:
    """Label each tile on its side by what the camera sees: its face, its back (face-down), or
    mostly its edge (``extra['edge_on']``: ignored, neither right nor wrong)."""
    for t, (o, m) in zip(places, frames, strict=True):
        if t.pose != "side":
            continue
        to_cam = camera_centre - o
        cos = float(m[:, 2] @ to_cam) / max(float(np.linalg.norm(to_cam)), 1e-9)
        t.face_down = cos <= -SIDE_SHOWS_CAP
        if abs(cos) < SIDE_SHOWS_CAP:
            t.extra["edge_on"] = True
