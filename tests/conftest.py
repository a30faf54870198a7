"""Tests import helper modules from this folder (spec_vectors, mahjong_oracle)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
