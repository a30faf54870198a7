"""The committed ONNX weights (``localizer.onnx``, ``classifier.onnx``), shipped as package data.

:data:`MODELS_DIR` is the folder that holds them, in a checkout and in an installed wheel alike.
"""

from pathlib import Path

#: the folder of the shipped ONNX files
MODELS_DIR = Path(__file__).resolve().parent
