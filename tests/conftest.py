"""Tests import helper modules from this folder (spec_vectors, mahjong_oracle)."""

import os
import sys
from pathlib import Path

from hypothesis import settings

sys.path.insert(0, str(Path(__file__).resolve().parent))

# CI runs the property tests on a fixed sequence of examples, so a run is reproducible; locally they
# explore new examples each run.
settings.register_profile("ci", derandomize=True, deadline=None)
if os.environ.get("CI"):
    settings.load_profile("ci")
