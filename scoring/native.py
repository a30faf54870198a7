"""Whether the scoring core runs compiled (mypyc) or as plain Python, chosen once at import.

An install compiles the modules that scoring a hand runs where it can (``setup.py``) and writes
``_compiled.json`` beside them: each compiled module's import name and the SHA-256 of the source it
was compiled from. Compiled modules are loaded only while every one of those sources is unchanged:
in an editable checkout edited since its install they would run the old code, so the sources are
loaded instead (with a warning to reinstall). ``PAISCAN_PURE=1`` loads the sources on purpose; both
give the same Scores (``tests/test_native.py``).

This module must be imported before any compiled module (``paiscan.scoring`` imports it first).
"""

from __future__ import annotations

import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import sys
import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import ModuleType
from typing import NamedTuple

#: the environment variable that makes the scoring core plain Python ("1") whatever is installed
PURE_ENV = "PAISCAN_PURE"
#: the file beside the compiled modules naming them and their sources' digests (written by setup.py)
DIGEST_FILE = "_compiled.json"
_HERE = Path(__file__).resolve().parent
_PREFIX = "paiscan.scoring."


class _SourcesFirst(importlib.abc.MetaPathFinder):
    """Finds the named modules' .py sources ahead of the compiled extensions beside them."""

    def __init__(self, sources: dict[str, Path]) -> None:
        self.sources = sources

    def find_spec(
        self, fullname: str, path: Sequence[str] | None = None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        source = self.sources.get(fullname)
        if source is None:
            return None
        return importlib.util.spec_from_file_location(fullname, source)


class Choice(NamedTuple):
    """The core in use, why, and the modules to load from their sources."""

    core: str  # "compiled" or "plain"
    reason: str
    sources: dict[str, Path]


def _compiled_modules(here: Path) -> dict[str, Path]:
    """Every module under package folder ``here`` with an extension file beside its source → the source."""
    found: dict[str, Path] = {}
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        for ext in here.rglob("*" + suffix):
            source = ext.with_name(ext.name.removesuffix(suffix) + ".py")
            if source.is_file():
                found[_PREFIX + ".".join(source.relative_to(here).with_suffix("").parts)] = source
    return found


def choose(here: Path, environ: Mapping[str, str]) -> Choice:
    """Compiled modules in package folder ``here`` while its digest file matches every source;
    otherwise (or with ``PAISCAN_PURE=1`` in ``environ``) their sources, with a warning when a
    source has changed since it was compiled."""
    sources = _compiled_modules(here)
    if not sources:
        return Choice("plain", "no compiled modules are installed", {})
    if environ.get(PURE_ENV) == "1":
        return Choice("plain", f"{PURE_ENV}=1", sources)
    try:
        recorded: dict[str, str] = json.loads((here / DIGEST_FILE).read_text())["modules"]
    except (OSError, ValueError, KeyError, TypeError):
        recorded = {}
    changed = [
        name
        for name, source in sources.items()
        if hashlib.sha256(source.read_bytes()).hexdigest() != recorded.get(name)
    ]
    if changed:
        warnings.warn(
            f"paiscan: the compiled {', '.join(changed)} no longer match their sources; running the sources "
            "(reinstall, e.g. pip install -e ., to compile them again)",
            RuntimeWarning,
            stacklevel=2,
        )
        return Choice("plain", "the sources changed since they were compiled", sources)
    return Choice("compiled", "mypyc", {})


CORE, REASON, _SOURCES = choose(_HERE, os.environ)
if _SOURCES and not any(isinstance(f, _SourcesFirst) for f in sys.meta_path):
    sys.meta_path.insert(0, _SourcesFirst(_SOURCES))

__all__ = ["CORE", "DIGEST_FILE", "PURE_ENV", "REASON", "Choice", "choose"]
