"""Synthetic photo engine: realistic renders of winning mahjong hands with exact labels.

>>> from paiscan.datasets.synth import render_sample
>>> s = render_sample(3)
>>> s.image.shape[:2], len(s.classes) == len(s.boxes)
((960, 1280), True)
"""

from __future__ import annotations

from .config import SynthConfig, resolve_tiles_dir
from .io import crop_tiles, draw_boxes, preview, sample_seed, write_dataset
from .render import Sample, render_sample

__all__ = [
    "Sample",
    "SynthConfig",
    "crop_tiles",
    "draw_boxes",
    "preview",
    "render_sample",
    "resolve_tiles_dir",
    "sample_seed",
    "write_dataset",
]
