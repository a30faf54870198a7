"""What the training stages on a lent GPU machine share: the fresh renders they make there, and
copying a run's results out while it trains.

A lent machine is held for minutes and starts bare: the renders are made there (the working tree
that travels is small), and a run's files are copied to the folder that comes back every few
seconds, so a run stopped at its limit still brings back what it had.
"""

from __future__ import annotations

import argparse
import shutil
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path

from paiscan.datasets.synth import SynthConfig, write_dataset


@dataclass(frozen=True)
class Folder:
    """One folder of renders to make: ``n`` renders of ``rules`` from ``seed``; with ``size`` and
    ``fill``, renders of that size in which the hand spans that share of the frame
    (:meth:`SynthConfig.framed`: photos from further away); ``classic``, the scenes without the
    world's variety (:meth:`SynthConfig.classic`: a stage that learns the world keeps these).

    >>> Folder("riichi", 10, 1106, size=(2000, 1500), fill=(0.3, 0.6)).name
    'gf_riichi_1106'
    >>> Folder("riichi", 10, 1400, classic=True).name, Folder("riichi", 10, 1400, classic=True).config.variety
    ('gc_riichi_1400', False)
    """

    rules: str
    n: int
    seed: int
    size: tuple[int, int] | None = None
    fill: tuple[float, float] | None = None
    classic: bool = False

    @property
    def name(self) -> str:
        kind = "gf" if self.size or self.fill else "gc" if self.classic else "g"
        return f"{kind}_{self.rules}_{self.seed}"

    @property
    def config(self) -> SynthConfig | None:
        """The render config this folder needs, or ``None`` for the default one."""
        if not (self.size or self.fill or self.classic):
            return None
        base = SynthConfig.classic() if self.classic else SynthConfig()
        return base.framed(size=self.size, fill=self.fill)


#: the rulesets' share of one lent-GPU session's renders when both stages run on them
#: (``shared_plan``): about the mix of the CPU stages
SHARED_COUNTS: tuple[tuple[str, int], ...] = (
    ("riichi", 2600),
    ("kansai_boo", 400),
    ("totenko_balance", 400),
    ("boo", 400),
    ("wsom", 300),
    ("jun", 300),
)


def counted(counts: Sequence[tuple[str, int]], first_seed: int) -> tuple[Folder, ...]:
    """A folder of ``n`` renders of each ``(rules, n)`` of ``counts``, seeded ``first_seed`` onwards.

    >>> [(f.name, f.n) for f in counted([("riichi", 10), ("jun", 2)], 1400)]
    [('g_riichi_1400', 10), ('g_jun_1401', 2)]
    """
    return tuple(Folder(rules, n, first_seed + i) for i, (rules, n) in enumerate(counts))


def shared_plan(first_seed: int) -> tuple[Folder, ...]:
    """The renders both stages of one lent session train on (made once, with crops, by the first
    stage; the second finds them complete), seeded ``first_seed`` onwards: one command trains the
    classifier and the localizer without rendering twice.

    >>> [(f.rules, f.seed) for f in shared_plan(1080)][:2]
    [('riichi', 1080), ('kansai_boo', 1081)]
    """
    return counted(SHARED_COUNTS, first_seed)


def scaled(plan: Sequence[Folder], scale: float) -> list[Folder]:
    """``plan`` with every folder's count times ``scale`` (at least one render each): a dry run on a
    CPU renders a few of each.

    >>> [f.n for f in scaled([Folder("riichi", 3400, 1), Folder("jun", 450, 2)], 0.01)]
    [34, 4]
    """
    return [replace(f, n=max(1, round(f.n * scale))) for f in plan]


def add_plan_arguments(ap: argparse.ArgumentParser) -> None:
    """The options both stages take for what they render: ``--first-seed`` and ``--scale``."""
    ap.add_argument(
        "--first-seed",
        type=int,
        default=None,
        help="render lent_gpu.shared_plan from this seed (shared by both stages of one command) "
        "instead of this stage's own plan",
    )
    ap.add_argument("--scale", type=float, default=1.0, help="times the plan's render counts (a dry run: 0.01)")


def chosen_plan(args: argparse.Namespace, own: Sequence[Folder]) -> list[Folder]:
    """What a stage renders, by :func:`add_plan_arguments`' options: its ``own`` plan or the
    shared one, scaled."""
    return scaled(own if args.first_seed is None else shared_plan(args.first_seed), args.scale)


def render(plan: Sequence[Folder], root: Path, workers: int, crops: bool = False) -> list[Path]:
    """Make each folder of ``plan`` under ``root`` (a folder already complete is kept), with the
    tiles' crops too for a classifier."""
    made = []
    for folder in plan:
        out = root / folder.name
        if len(list((out / "labels").glob("*.txt"))) < folder.n:
            write_dataset(
                out,
                folder.n,
                folder.seed,
                rules=folder.rules,
                crops=crops,
                workers=workers,
                progress=False,
                config=folder.config,
            )
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
