"""The compiled scoring core (mypyc) and its plain sources: which one runs, and that both give the
same answers byte for byte."""

from __future__ import annotations

import hashlib
import importlib.machinery
import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from paiscan.scoring import native
from paiscan.scoring.generate import random_hand
from paiscan.service.cli import score_line

RULESETS = ("riichi", "boo", "kansai_boo", "totenko_balance", "wsom", "jun")
SUFFIX = importlib.machinery.EXTENSION_SUFFIXES[0]


def answers(n: int) -> str:
    """The SHA-256 of what ``score-hand --jsonl`` prints for ``n`` seeded hands of each ruleset,
    and of each Score's (or error's) dict: one digest of everything a user can read."""
    h = hashlib.sha256()
    for rules in RULESETS:
        rng = random.Random(f"native:{rules}")
        for i in range(n):
            data = random_hand(rng, rules)
            line = score_line(json.dumps(data), i)
            h.update(line.encode())
            h.update(json.dumps(json.loads(line), sort_keys=True).encode())
    return h.hexdigest()


@pytest.mark.skipif(native.CORE != "compiled", reason=f"the scoring core here is plain Python ({native.REASON})")
def test_compiled_and_plain_cores_write_the_same_scores() -> None:
    here = Path(__file__).resolve().parent
    code = f"import sys; sys.path.insert(0, {str(here)!r}); import test_native as t; print(t.answers(1500))"
    env = {**os.environ, native.PURE_ENV: "1"}
    plain = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert "plain" not in native.CORE
    assert plain.stdout.strip() == answers(1500)


@pytest.mark.skipif(native.CORE != "compiled", reason="the doctests ran with the rest: the core here is plain Python")
def test_the_compiled_modules_doctests_pass_on_their_sources() -> None:
    """pytest finds no doctest in a compiled module (its functions are not Python functions), so
    the scoring core's doctests run here on the sources."""
    root = Path(__file__).resolve().parents[1]
    env = {**os.environ, native.PURE_ENV: "1"}
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "paiscan/scoring"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stdout[-3000:]
    assert " passed" in run.stdout


def test_the_plain_subprocess_runs_the_sources() -> None:
    code = "import paiscan.scoring.yaku as y, paiscan.scoring.native as n; print(n.CORE, type(y.evaluate).__name__)"
    env = {**os.environ, native.PURE_ENV: "1"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
    assert out.split() == ["plain", "function"]


def _package(tmp_path: Path, source: str = "x = 1\n", compiled: bool = True) -> Path:
    """A package folder with one module, its extension file (empty) and the digest of its source."""
    (tmp_path / "mod.py").write_text(source)
    if compiled:
        (tmp_path / f"mod{SUFFIX}").write_bytes(b"")
    digest = hashlib.sha256(b"x = 1\n").hexdigest()
    (tmp_path / native.DIGEST_FILE).write_text(json.dumps({"modules": {"paiscan.scoring.mod": digest}}))
    return tmp_path


def test_compiled_modules_run_while_their_sources_are_the_ones_compiled(tmp_path: Path) -> None:
    assert native.choose(_package(tmp_path), {}) == ("compiled", "mypyc", {})


def test_an_edited_source_runs_instead_of_its_stale_compiled_module(tmp_path: Path) -> None:
    with pytest.warns(RuntimeWarning, match="compiled paiscan.scoring.mod no longer match"):
        choice = native.choose(_package(tmp_path, "x = 2\n"), {})
    assert choice.core == "plain"
    assert choice.sources == {"paiscan.scoring.mod": tmp_path / "mod.py"}


def test_paiscan_pure_runs_the_sources(tmp_path: Path) -> None:
    choice = native.choose(_package(tmp_path), {native.PURE_ENV: "1"})
    assert (choice.core, choice.reason) == ("plain", "PAISCAN_PURE=1")
    assert choice.sources == {"paiscan.scoring.mod": tmp_path / "mod.py"}


def test_without_compiled_modules_the_core_is_plain(tmp_path: Path) -> None:
    assert native.choose(_package(tmp_path, compiled=False), {}) == ("plain", "no compiled modules are installed", {})


def test_a_compiled_module_no_digest_names_is_not_trusted(tmp_path: Path) -> None:
    _package(tmp_path)
    (tmp_path / native.DIGEST_FILE).unlink()
    with pytest.warns(RuntimeWarning, match="compiled paiscan.scoring.mod no longer match"):
        assert native.choose(tmp_path, {}).core == "plain"
