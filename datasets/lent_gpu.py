"""What the training stages on a lent GPU machine share: the fresh renders they make there, and
copying a run's results out while it trains.

A lent machine is held for minutes and starts bare: the renders are made there (the working tree
that travels is small), and a run's files are copied to the folder that comes back every few
seconds, so a run stopped at its limit still brings back what it had.
"""

from __future__ import annotations

import shutil
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from datasets.synth import write_dataset


@dataclass(frozen=True)
class Folder:
    """One folder of renders to make: ``n`` renders of ``rules`` from ``seed``."""

    rules: str
    n: int
    seed: int

    @property
    def name(self) -> str:
        return f"g_{self.rules}_{self.seed}"


def scaled(plan: Sequence[Folder], scale: float) -> list[Folder]:
    """``plan`` with every folder's count times ``scale`` (at least one render each): a dry run on a
    CPU renders a few of each.

    >>> [f.n for f in scaled([Folder("riichi", 3400, 1), Folder("jun", 450, 2)], 0.01)]
    [34, 4]
    """
    return [Folder(f.rules, max(1, round(f.n * scale)), f.seed) for f in plan]


def render(plan: Sequence[Folder], root: Path, workers: int, crops: bool = False) -> list[Path]:
    """Make each folder of ``plan`` under ``root`` (a folder already complete is kept), with the
    tiles' crops too for a classifier."""
    made = []
    for folder in plan:
        out = root / folder.name
        if len(list((out / "labels").glob("*.txt"))) < folder.n:
            write_dataset(out, folder.n, folder.seed, rules=folder.rules, crops=crops, workers=workers,
                          progress=False)
        made.append(out)
    return made


def copy_out(run: Path, dest: Path, names: Sequence[str]) -> None:
    """Copy the files ``names`` (paths under ``run``) into ``dest``, flat, each when it changed."""
    for rel in names:
        src = run / rel
        target = dest / Path(rel).name
        if src.exists() and (not target.exists() or src.stat().st_mtime > target.stat().st_mtime):
            tmp = target.with_suffix(target.suffix + ".part")
            shutil.copy2(src, tmp)
            tmp.replace(target)  # never a half-copied file left behind at the limit


@contextmanager
def copying(run: Path, dest: Path, names: Sequence[str], every_s: float) -> Iterator[None]:
    """:func:`copy_out` every ``every_s`` seconds while the block runs, and once more at its end,
    however it ends."""
    dest.mkdir(parents=True, exist_ok=True)
    done = threading.Event()

    def keep_copying() -> None:
        while not done.wait(every_s):
            copy_out(run, dest, names)

    copier = threading.Thread(target=keep_copying, daemon=True)
    copier.start()
    try:
        yield
    finally:
        done.set()
        copier.join()
        copy_out(run, dest, names)
