"""Build hook for the compiled scoring core (mypyc); everything else is in pyproject.toml.

Every install compiles what scoring a hand runs (``COMPILED``) when it can, and is plain Python
when it cannot: mypy (mypyc) comes with the build requirements, a C compiler must be at hand. A
build that fails leaves no compiled module behind (all or nothing). ``PAISCAN_COMPILE=0`` builds
plain Python on purpose.

The build writes ``_compiled.json`` beside the modules: each compiled module's name and the SHA-256
of the source it was compiled from. At import :mod:`paiscan.scoring.native` compares it with the
sources there and loads the sources instead when one differs (an editable checkout edited since
its install) or when ``PAISCAN_PURE=1``; both give the same Scores
(``tests/test_native.py``, ``benchmarks/score_digest.py``).
"""

from __future__ import annotations

import hashlib
import json
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


#: the file beside the compiled modules naming them and the digests of their sources
DIGEST_FILE = "_compiled.json"


def _say(message: str) -> None:
    print(f"paiscan: {message}", file=sys.stderr)


def compiled_extensions() -> list[Any]:
    """The mypyc extensions unless ``PAISCAN_COMPILE=0`` or mypy is missing, else none."""
    if os.environ.get("PAISCAN_COMPILE") == "0":
        return []
    try:
        from mypyc.build import mypycify
    except ImportError:
        _say("mypy is not installed in the build environment: the scoring core is plain Python")
        return []
    # (through the paiscan/ links, so each module gets its import name, paiscan.scoring.*)
    paths = [f"paiscan/scoring/{name}.py" for name in COMPILED]
    try:
        return list(mypycify(paths, opt_level="3", group_name="paiscan.scoring"))
    except (Exception, SystemExit) as exc:  # mypyc refused the code: build the plain package
        _say(f"mypyc could not compile the scoring core ({exc!r}): plain Python")
        return []


def source_digests() -> dict[str, str]:
    """Each compiled module's import name → the SHA-256 of its source."""
    return {
        "paiscan.scoring." + name.replace("/", "."): hashlib.sha256(Path(f"scoring/{name}.py").read_bytes()).hexdigest()
        for name in COMPILED
    }


class OptionalBuildExt(build_ext):
    """Builds the compiled modules where it can, and their digest file; otherwise leaves neither
    behind (all or nothing)."""

    def run(self) -> None:
        if not self.extensions:
            return
        digest = Path(self.get_ext_fullpath("paiscan.scoring.tiles")).parent / DIGEST_FILE
        try:
            super().run()
            digest.parent.mkdir(parents=True, exist_ok=True)
            digest.write_text(json.dumps({"modules": source_digests()}, indent=1) + "\n")
        except Exception as exc:  # no compiler, or it failed: plain Python, nothing half built
            _say(f"the compiled build failed ({exc}): plain Python")
            for ext in self.extensions:
                Path(self.get_ext_fullpath(ext.name)).unlink(missing_ok=True)
            digest.unlink(missing_ok=True)
            self.extensions = []


setup(ext_modules=compiled_extensions(), cmdclass={"build_ext": OptionalBuildExt})
