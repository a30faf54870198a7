"""One random stream per optional scene feature of a render.

A render's main stream (``SeedSequence([seed, MAIN_STREAM])``) draws the hand's layout, camera,
light, table and photo effects. Each optional feature (a seat view, a rack, a heap, a small hand,
distractors, ivory faces, red fives without the art's dot) draws from its own stream instead, made
only when the feature's knob is on. So turning a feature off or on never shifts another draw: with
every such knob at 0 a seed renders exactly what it rendered before the features existed (the
held-out set the model cards were measured on stays the same set).
"""

from __future__ import annotations

import numpy as np

#: second word of the main stream's seed sequence
MAIN_STREAM = 0x5EED
#: third word of each feature's seed sequence (after the render's seed and ``MAIN_STREAM``)
FEATURE_STREAMS: dict[str, int] = {
    "seat": 0x5EA7,
    "rack": 0x4AC4,
    "heap": 0x4EA9,
    "small": 0x5A11,
    "clutter": 0xC1A7,
    "ivory": 0x1B04,
    "plain_red": 0x9ED5,
}


def main_rng(seed: int) -> np.random.Generator:
    """The render's main stream."""
    return np.random.default_rng(np.random.SeedSequence([seed, MAIN_STREAM]))


class FeatureStreams:
    """The feature streams of the render of ``seed``, each made on first use.

    >>> s = FeatureStreams(7)
    >>> float(s["heap"].random()) == float(FeatureStreams(7)["heap"].random())
    True
    >>> float(s["heap"].random()) != float(main_rng(7).random()), s.used
    (True, ('heap',))
    """

    def __init__(self, seed: int) -> None:
        self.seed = seed
        self._rngs: dict[str, np.random.Generator] = {}

    def __getitem__(self, feature: str) -> np.random.Generator:
        if feature not in FEATURE_STREAMS:
            raise KeyError(f"unknown scene feature {feature!r} (known: {', '.join(FEATURE_STREAMS)})")
        rng = self._rngs.get(feature)
        if rng is None:
            rng = np.random.default_rng(np.random.SeedSequence([self.seed, MAIN_STREAM, FEATURE_STREAMS[feature]]))
            self._rngs[feature] = rng
        return rng

    @property
    def used(self) -> tuple[str, ...]:
        """The features that drew (in first-use order)."""
        return tuple(self._rngs)
