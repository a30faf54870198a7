"""paiscan: read a photo of a finished mahjong hand and score it.

Subpackages: :mod:`paiscan.scoring` (pure-Python scoring core), :mod:`paiscan.vision` (ONNX inference
and the layout reader), :mod:`paiscan.service` (CLI, HTTP service, phone page),
:mod:`paiscan.datasets` (renderer, real-data loaders, training recipes, evaluation) and
:mod:`paiscan.models` (the committed ONNX weights).
"""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("paiscan")
except PackageNotFoundError:  # a checkout that was never installed
    __version__ = "0+unknown"
