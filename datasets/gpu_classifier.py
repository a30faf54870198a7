"""One classifier stage on a lent GPU machine, as one command: render fresh folders with their
tiles' crops on every core, measure how fast the views are made, and train as many epochs as fit
the time given.

The network is small, so on a GPU the augmentation (``ClassifierRecipe.workers`` processes) sets
the pace; the epochs are chosen from a probe of it, so the one-cycle schedule ends inside the
machine's lease. ``checkpoint.pt`` is copied out after each epoch, the exported files at the end.
A lent machine has no CJK fonts installed: carry them (``python -m paiscan.datasets.carry_fonts DIR``
cuts every font this machine renders with down to the tile characters, 40 KB in all; name DIR in
``PAISCAN_FONTS_DIR`` there), or the renders teach the tile art alone and the stage forgets the
font-drawn faces (it refuses to start without).

    python -m paiscan.datasets.gpu_classifier --out runs/gpu_cls --copy-to "$OUT" --init models/classifier.onnx \\
        --train-seconds 120 --device cuda
"""

from __future__ import annotations

import argparse
import math
import random
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import cv2

from paiscan.datasets.lent_gpu import Folder, add_plan_arguments, chosen_plan, copying, render
from paiscan.datasets.synth.art import FONTS_ENV, find_cjk_fonts
from paiscan.datasets.train_classifier import ClassifierRecipe, Crop, collect_synth, epoch_batches, train_classifier

#: the stage's renders (with crops): the rulesets in about the mix of the CPU stages, fresh seeds
PLAN: tuple[Folder, ...] = (
    Folder("riichi", 2200, 1070),
    Folder("kansai_boo", 350, 1071),
    Folder("totenko_balance", 350, 1072),
    Folder("boo", 350, 1073),
    Folder("wsom", 300, 1074),
    Folder("jun", 300, 1075),
)
#: the stage's recipe, but for the epochs, which the probe sets: stage 26's choices (orientation
#: weighted twice, sideways tiles three times, two bare-table crops a render, the real tiles cut at
#: the localizer's boxes too), a batch and rate for many more samples
RECIPE = ClassifierRecipe(
    batch=256,
    lr=1e-3,
    seed=27,
    orient_weight=2.0,
    sideways_weight=3,
    not_a_tile_per_image=2,
    real_runtime_boxes=True,
    samples_per_epoch=120_000,
)
#: the far renders' size and the hand's share of their frame (``--far``): tiles about as many pixels
#: high as the reader cuts from a 12 MP photo taken from further away, which it decodes at half size
FAR_SIZE, FAR_FILL = (2000, 1500), (0.3, 0.6)
#: seconds an epoch costs beside its views: the workers' start, validation, the checkpoint
EPOCH_OVERHEAD_S = 4.0
#: seconds between copies of the run's files to ``--copy-to``
COPY_EVERY_S = 10.0
#: the files of a run worth bringing back
BROUGHT_BACK = ("checkpoint.pt", "classifier.onnx", "classifier_fp32.onnx", "metrics.json")


def epochs_for(
    seconds: float, views_per_s: float, samples_per_epoch: int, overhead_s: float = EPOCH_OVERHEAD_S, most: int = 40
) -> int:
    """How many epochs of ``samples_per_epoch`` fit ``seconds`` at ``views_per_s``, each also paying
    ``overhead_s`` (at least one).

    >>> epochs_for(120, 25_000, 120_000)
    13
    >>> epochs_for(10, 1_000, 120_000)
    1
    """
    return max(1, min(most, math.floor(seconds / (samples_per_epoch / views_per_s + overhead_s))))


def views_per_second(crops: Sequence[Crop], recipe: ClassifierRecipe, batches: int = 150) -> float:
    """How fast ``recipe.workers`` processes make training views of ``crops``, timed from the
    workers' start (which the training pays each epoch too), over enough batches that the ones
    made ahead do not flatter it."""
    rng = random.Random(0)
    order = [rng.randrange(len(crops)) for _ in range(batches * recipe.batch)]
    t0 = time.time()
    n = sum(len(y) for _, y, _ in epoch_batches(crops, order, batches, recipe, 0, rng))
    return n / max(time.time() - t0, 1e-6)


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, required=True, help="run folder")
    ap.add_argument("--copy-to", type=Path, required=True, help="folder the results are copied to")
    ap.add_argument("--renders", type=Path, default=Path("data"), help="where the renders are made")
    ap.add_argument("--init", type=Path, help="start from this classifier ONNX file")
    ap.add_argument("--train-seconds", type=float, default=120.0)
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--workers", type=int, default=14)
    ap.add_argument("--samples", type=int, default=RECIPE.samples_per_epoch, help="samples an epoch")
    ap.add_argument(
        "--manzu-weight",
        type=int,
        default=RECIPE.manzu_weight,
        help="each manzu crop seen this many times an epoch (ClassifierRecipe.manzu_weight)",
    )
    ap.add_argument(
        "--far",
        type=int,
        default=0,
        help="also this many riichi renders from further away (FAR_SIZE, FAR_FILL), seeded one past "
        "the plan's last seed",
    )
    add_plan_arguments(ap)
    ap.add_argument(
        "--without-fonts",
        action="store_true",
        help="render without CJK fonts (the stage then forgets the font-drawn faces)",
    )
    args = ap.parse_args(argv)

    if not find_cjk_fonts() and not args.without_fonts:
        raise SystemExit(
            f"no CJK fonts here: renders without them teach only the tile art, and a stage trained on "
            f"them read font-drawn faces worse (crops 0.940 -> 0.883, tile art 0.952 -> 0.963). Carry "
            f"font files in a folder and name it in {FONTS_ENV}, or pass --without-fonts"
        )
    cv2.setNumThreads(0)  # OpenCV's own threads and forked DataLoader workers do not mix
    t0 = time.time()
    plan = chosen_plan(args, PLAN)
    if args.far:
        plan.append(Folder("riichi", args.far, max(f.seed for f in plan) + 1, size=FAR_SIZE, fill=FAR_FILL))
    folders = render(plan, args.renders, args.workers + 2, crops=True)
    print(f"rendered {len(folders)} folders in {time.time() - t0:.0f} s", flush=True)
    recipe = replace(
        RECIPE,
        device=args.device,
        workers=args.workers,
        samples_per_epoch=args.samples,
        manzu_weight=args.manzu_weight,
        init_onnx=str(args.init) if args.init else None,
    )
    rate = views_per_second(collect_synth(folders[-1:], recipe.input_size, max(1, recipe.workers)), recipe)
    recipe = replace(recipe, epochs=epochs_for(args.train_seconds, rate, recipe.samples_per_epoch))
    print(
        f"{rate:.0f} views/s: {recipe.epochs} epochs of {recipe.samples_per_epoch} ({time.time() - t0:.0f} s)",
        flush=True,
    )
    with copying(args.out, args.copy_to, BROUGHT_BACK, COPY_EVERY_S):
        train_classifier(folders, args.out, recipe, log=lambda m: print(m, flush=True))
    print(f"finished in {time.time() - t0:.0f} s", flush=True)


if __name__ == "__main__":
    main()
