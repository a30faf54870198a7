"""Build hook for an optional compiled build of the scoring core (mypyc); everything else is in pyproject.toml.

Off unless asked for, and plain Python whenever it cannot be made:

    PAISCAN_COMPILE=1 pip install --no-build-isolation .   # needs mypy (in [dev]) and a C compiler

A compiled build scores the same hands with the same answers (``benchmarks/score_digest.py``), about
1.7 times as fast. Without ``PAISCAN_COMPILE=1``, without mypy, without a working compiler, or for an
editable install or ``build_ext --inplace`` (compiled modules beside the .py files would shadow every
later edit of them), the package is built as plain Python.

To check a compiled build against plain Python from a checkout (its editable install stays plain):

    REPO=$PWD && PAISCAN_COMPILE=1 pip wheel --no-deps --no-build-isolation -w /tmp/whl .
    python -m venv --system-site-packages /tmp/cvenv && /tmp/cvenv/bin/pip install --no-deps /tmp/whl/paiscan-*.whl
    cd /tmp && /tmp/cvenv/bin/python $REPO/benchmarks/score_digest.py > compiled.jsonl
    python $REPO/benchmarks/score_digest.py > plain.jsonl && cmp plain.jsonl compiled.jsonl
    /tmp/cvenv/bin/python $REPO/benchmarks/bench_scoring.py
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

from setuptools import setup
from setuptools.command.build_ext import build_ext

#: the modules compiled: what scoring a hand runs (the rulesets other than riichi stay interpreted)
COMPILED = (
    "tiles",
    "errors",
    "hand",
    "decompose",
    "yaku",
    "fu",
    "options",
    "engine",
    "registry",
    "rulesets/riichi",
)


def _say(message: str) -> None:
    print(f"paiscan: {message}", file=sys.stderr)


def compiled_extensions() -> list[Any]:
    """The mypyc extensions when ``PAISCAN_COMPILE=1`` and mypy is at hand, else none."""
    if os.environ.get("PAISCAN_COMPILE") != "1":
        return []
    try:
        from mypyc.build import mypycify
    except ImportError:
        _say("PAISCAN_COMPILE=1 but mypy is not installed in the build environment: plain Python")
        return []
    # (through the paiscan/ links, so each module gets its import name, paiscan.scoring.*)
    paths = [f"paiscan/scoring/{name}.py" for name in COMPILED]
    try:
        return list(mypycify(paths, opt_level="3", group_name="paiscan.scoring"))
    except (Exception, SystemExit) as exc:  # mypyc refused the code: build the plain package
        _say(f"mypyc could not compile the scoring core ({exc!r}): plain Python")
        return []


class OptionalBuildExt(build_ext):
    """Builds the compiled modules where it can; otherwise leaves none behind (all or nothing)."""

    def run(self) -> None:
        if not self.extensions:
            return
        if self.inplace or getattr(self, "editable_mode", False):
            _say("no compiled modules for an editable or in-place build (they would shadow the .py files)")
            self.extensions = []
            return
        try:
            super().run()
        except Exception as exc:  # no compiler, or it failed: plain Python, nothing half built
            _say(f"the compiled build failed ({exc}): plain Python")
            for ext in self.extensions:
                Path(self.get_ext_fullpath(ext.name)).unlink(missing_ok=True)
            self.extensions = []


setup(ext_modules=compiled_extensions(), cmdclass={"build_ext": OptionalBuildExt})
