"""Configuration of the synthetic photo engine."""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[2]
#: every kind of distractor (``props.DISTRACTOR_KINDS`` draws them; kept here so the config imports no OpenCV)
DISTRACTOR_KINDS: tuple[str, ...] = (
    "keyboard",
    "keycaps",
    "led_digits",
    "poker_chips",
    "cards",
    "phone",
    "dice",
    "centre_panel",
    "knob",
)


@dataclass(frozen=True)
class SynthConfig:
    """Every knob of :func:`paiscan.datasets.synth.render_sample`. Ranges are ``(low, high)``."""

    width: int = 1280
    """Output width in pixels (used when ``megapixels`` is None)."""
    height: int = 960
    """Output height in pixels (used when ``megapixels`` is None)."""
    megapixels: tuple[float, float] | None = None
    """If set, each render draws its resolution from this range of megapixels (e.g. (1, 12))
    and a random phone-like aspect ratio, landscape or portrait."""
    tiles_dir: str | None = None
    """Tile art folder (holding ``Export/Regular`` and ``Export/Black``); None: env var
    ``PAISCAN_TILES_DIR``, then ``../shared/tiles`` beside the repo, then /work/shared/tiles."""
    tilt_deg: tuple[float, float] = (0.0, 60.0)
    """Camera tilt from straight top-down."""
    roll_deg: tuple[float, float] = (-30.0, 30.0)
    """Camera roll about its optical axis."""
    yaw_deg: tuple[float, float] = (-20.0, 20.0)
    """Camera azimuth around the table normal (0: from the player's seat)."""
    hfov_deg: tuple[float, float] = (48.0, 72.0)
    """Horizontal field of view (phone main cameras are about 65-70 degrees)."""
    fill: tuple[float, float] = (0.6, 0.97)
    """Fraction of the frame (the limiting dimension) spanned by the hand."""
    p_standing: float = 0.2
    """Probability that the concealed row and winning tile stand upright facing the camera."""
    p_win_apart: float = 0.85
    """Probability that the winning tile is set a little apart from the concealed row."""
    p_tight: float = 0.3
    """Probability of a tightly packed render (tiles touching)."""
    p_upside_down: float = 0.03
    """Per hand tile probability of being upside-down."""
    p_twist: float = 0.25
    """Probability that a render has a few noticeably twisted tiles."""
    p_cut: float = 0.15
    """Probability that the hand is cut by the image border (edge tile partly outside)."""
    p_background: float = 0.45
    """Probability of an unrelated pond of discards in the background."""
    p_dead_wall: float = 0.3
    """Probability that the dora indicators sit in a row of face-down dead-wall tiles."""
    p_black_set: float = 0.15
    """Probability of the Black tile art (dark faces) instead of Regular."""
    p_font_redraw: float = 0.35
    """Probability that characters and honors are re-drawn with a CJK font (when one exists)."""
    p_seat_view: float = 0.1
    """Probability of an automatic table seen from the player's seat: the row standing upright
    facing a low camera (``seat_tilt_deg``), the table's centre panel beyond it."""
    seat_tilt_deg: tuple[float, float] = (55.0, 75.0)
    """Camera tilt of a seat view."""
    p_rack: float = 0.08
    """Probability that the concealed row stands on a rack (a render with a standing row)."""
    p_heap: float = 0.15
    """Probability of a heap of loose tiles by the hand: face up, face down and on their side
    (a tile showing only its edge goes to the ignore list)."""
    p_small: float = 0.15
    """Probability that the hand is small in the frame: ``small_fill`` instead of ``fill``."""
    small_fill: tuple[float, float] = (0.2, 0.45)
    """Share of the frame a small hand spans."""
    p_clutter: float = 0.4
    """Probability of distractors on the table (never labelled; placed clear of every tile)."""
    n_distractors: tuple[int, int] = (1, 5)
    """How many distractors a cluttered render tries to place (inclusive range)."""
    distractors: tuple[str, ...] = DISTRACTOR_KINDS
    """Which kinds of distractor to draw from (``paiscan.datasets.synth.props.DISTRACTOR_KINDS``)."""
    p_ivory: float = 0.3
    """Probability that a render of the Regular art has ivory faces (warm or aged) instead of one
    of the white tones."""
    p_plain_red: float = 0.5
    """Probability that a render's red fives are drawn as the plain fives' art with every motif
    red and without the art's red dot, as most real sets' red fives look; otherwise the art's own
    red fives (a red five with a dot)."""
    jpeg_quality: tuple[int, int] = (40, 95)
    """JPEG quality range of the written image."""
    effects: bool = True
    """Photo effects (textured table, shadows, sheen, blur, noise, white balance). False gives a
    plain flat table and clean pixels (for tests)."""
    background_color: tuple[int, int, int] | None = None
    """Force a flat table colour (BGR); implies no table texture."""
    instance_map: bool = False
    """Also return a per-pixel map of which tile is visible (for tests and occlusion stats)."""
    texture_width: int = 192
    """Width in pixels of the largest cached face texture (mip levels are derived from it)."""

    @classmethod
    def classic(cls, **changes: Any) -> SynthConfig:
        """The renderer as it was before the scene variety (:data:`VARIETY_KNOBS` all 0), with
        ``changes``: a seed renders exactly the photo it rendered then, so the held-out set
        (seed 990001) stays the set the model cards were measured on.

        >>> c = SynthConfig.classic(width=640)
        >>> c.width, c.p_clutter, c.variety, SynthConfig().variety
        (640, 0.0, False, True)
        """
        return cls(**{**dict.fromkeys(VARIETY_KNOBS, 0.0), **changes})

    @property
    def variety(self) -> bool:
        """Whether any of the scene variety (:data:`VARIETY_KNOBS`) is on."""
        return any(getattr(self, k) > 0 for k in VARIETY_KNOBS)

    def framed(
        self,
        size: tuple[int, int] | None = None,
        fill: tuple[float, float] | None = None,
        tilt: tuple[float, float] | None = None,
    ) -> SynthConfig:
        """The same config with the render's size, the hand's share of the frame and the camera's
        tilt replaced where given: a phone's 12 MP photo, or one taken from further away.

        >>> far = SynthConfig().framed(size=(4000, 3000), fill=(0.3, 0.6))
        >>> far.width, far.height, far.fill, far.tilt_deg == SynthConfig.tilt_deg
        (4000, 3000, (0.3, 0.6), True)
        """
        out = self
        if size is not None:
            out = replace(out, width=size[0], height=size[1])
        if fill is not None:
            out = replace(out, fill=fill)
        if tilt is not None:
            out = replace(out, tilt_deg=tilt)
        return out


#: the knobs of the scene variety added after the model cards' held-out figures (each draws from its
#: own random stream, ``streams.FEATURE_STREAMS``; all 0 is :meth:`SynthConfig.classic`)
VARIETY_KNOBS: tuple[str, ...] = (
    "p_seat_view",
    "p_rack",
    "p_heap",
    "p_small",
    "p_clutter",
    "p_ivory",
    "p_plain_red",
)
#: ``paiscan synth --mix NAME=P``: the scene knobs a command line may set, by short name
MIX_KNOBS: dict[str, str] = {
    "seat": "p_seat_view",
    "rack": "p_rack",
    "heap": "p_heap",
    "small": "p_small",
    "clutter": "p_clutter",
    "ivory": "p_ivory",
    "plain_red": "p_plain_red",
    "standing": "p_standing",
    "pond": "p_background",
}


def mixed(config: SynthConfig, shares: dict[str, float]) -> SynthConfig:
    """``config`` with scene probabilities set by short name (:data:`MIX_KNOBS`).

    >>> mixed(SynthConfig(), {"heap": 1.0, "clutter": 0.0}).p_heap
    1.0
    """
    for name, p in shares.items():
        if name not in MIX_KNOBS:
            raise ValueError(f"unknown scene knob {name!r} (known: {', '.join(MIX_KNOBS)})")
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"{name}={p:g}: a probability is 0 to 1")
    values: dict[str, Any] = {MIX_KNOBS[k]: float(v) for k, v in shares.items()}
    return replace(config, **values)


def resolve_tiles_dir(config: SynthConfig | None = None) -> Path:
    """Where the tile art lives: the config, ``PAISCAN_TILES_DIR``, ``../shared/tiles``, or
    ``/work/shared/tiles``."""
    cands: list[Path] = []
    if config is not None and config.tiles_dir:
        cands.append(Path(config.tiles_dir))
    env = os.environ.get("PAISCAN_TILES_DIR")
    if env:
        cands.append(Path(env))
    cands += [REPO_ROOT.parent / "shared" / "tiles", Path("/work/shared/tiles")]
    for c in cands:
        if (c / "Export" / "Regular").is_dir():
            return c
    raise FileNotFoundError(
        "tile art not found; set PAISCAN_TILES_DIR to the riichi-mahjong-tiles folder "
        f"(tried: {', '.join(str(c) for c in cands)})"
    )
