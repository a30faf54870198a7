"""One localizer stage on a lent GPU machine, as one command: render fresh training folders on
every core, train for a fixed time, and copy the weights out while it runs.

A lent machine is held for minutes and starts bare, so the renders are made there (the working
tree that travels is small) and training is bounded by time, not epochs: ultralytics fits its
learning-rate schedule to the time (``LocalizerRecipe.hours``). The run folder's ``best.pt``,
``last.pt`` and ``results.csv`` are copied to ``--copy-to`` every ``COPY_EVERY_S`` seconds, so a
run stopped at its limit still brings back its best epoch. Export and int8 quantization happen
afterwards on the CPU (``paiscan train localizer --out RUN`` on the finished run).

    python -m paiscan.datasets.gpu_localizer --out runs/gpu --copy-to "$OUT" --init models/localizer_fp32.onnx \\
        --real data/real_loc_train --hours 0.1 --device 0
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from pathlib import Path

from paiscan.datasets.lent_gpu import Folder, add_plan_arguments, chosen_plan, copying, counted, render
from paiscan.datasets.synth.art import FONTS_ENV, find_cjk_fonts
from paiscan.datasets.train_localizer import LocalizerRecipe, train_localizer

#: seconds between copies of the run's weights to ``--copy-to``
COPY_EVERY_S = 15.0
#: validated each epoch: a small share, or validation would take a third of a GPU epoch's time
VAL_PERCENT = 3
#: what the run's folder (and the metrics beside it) hold that is worth bringing back
BROUGHT_BACK = ("weights/best.pt", "weights/last.pt", "results.csv", "../metrics.json")


#: the stage's renders: the rulesets in about the mix of the CPU stages, seeds never used before
PLAN: tuple[Folder, ...] = (
    Folder("riichi", 3400, 1060),
    Folder("kansai_boo", 550, 1061),
    Folder("totenko_balance", 550, 1062),
    Folder("boo", 550, 1063),
    Folder("wsom", 450, 1064),
    Folder("jun", 450, 1065),
)

#: a stage that learns the world (``--plan world``): the renderer's scene variety (seat views,
#: racks, heaps, coloured backs, small hands, distractors) in every ruleset, with classic scenes
#: kept beside them so the classic hands are not forgotten
WORLD_PLAN: tuple[Folder, ...] = (
    Folder("riichi", 1600, 1400, classic=True),
    *counted(
        (("riichi", 2000), ("kansai_boo", 400), ("totenko_balance", 400), ("boo", 400), ("wsom", 300), ("jun", 300)),
        1401,
    ),
)
#: the plans ``--plan`` names
PLANS: dict[str, tuple[Folder, ...]] = {"17": PLAN, "world": WORLD_PLAN}


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, required=True, help="run folder")
    ap.add_argument("--copy-to", type=Path, required=True, help="folder the weights are copied to while it runs")
    ap.add_argument("--renders", type=Path, default=Path("data"), help="where the renders are made")
    ap.add_argument(
        "--real",
        type=Path,
        action="append",
        default=[],
        help="a real-photo training folder (paiscan.datasets.real_localizer); repeat to weight it",
    )
    ap.add_argument("--init", type=Path, help="start from this float localizer ONNX file")
    ap.add_argument("--hours", type=float, default=0.1)
    ap.add_argument("--lr", type=float, default=0.001)
    ap.add_argument("--device", default="0")
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--workers", type=int, default=14)
    ap.add_argument("--imgsz", type=int, default=384)
    ap.add_argument("--plan", choices=sorted(PLANS), default="17", help="which renders: stage 17's, or the world's")
    add_plan_arguments(ap)
    args = ap.parse_args(argv)

    if not find_cjk_fonts():
        print(f"note: no CJK fonts ({FONTS_ENV}): the renders draw the tile art alone", flush=True)
    t0 = time.time()
    folders = render(chosen_plan(args, PLANS[args.plan]), args.renders, args.workers + 2)
    print(f"rendered {len(folders)} folders in {time.time() - t0:.0f} s", flush=True)
    recipe = LocalizerRecipe(
        imgsz=args.imgsz,
        batch=args.batch,
        workers=args.workers,
        device=args.device,
        cache=True,
        hours=args.hours,
        lr0=args.lr,
        warmup_epochs=1.0,
        val_percent=VAL_PERCENT,
        close_mosaic=10,
        init_onnx=str(args.init) if args.init else None,
    )
    with copying(args.out.resolve() / "run", args.copy_to, BROUGHT_BACK, COPY_EVERY_S):
        train_localizer([*folders, *args.real], args.out, recipe, export=False)
    print(f"finished in {time.time() - t0:.0f} s", flush=True)


if __name__ == "__main__":
    main()
