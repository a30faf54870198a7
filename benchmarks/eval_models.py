"""Full evaluation of the committed models: two held-out synthetic sets and the real-photo holdout.

The synthetic sets are rendered with seed 990001, which no training run or choice uses (training
renders use seeds 1001-1136, the model cards list them; choices the selection and fresh renders,
seeds 990003-990019); the real-photo
holdout is the hash-chosen 25 % of ``../shared/realdata`` that the classifier never trains on
(``paiscan.datasets.realdata.split_of``). Prints one JSON object; its figures go into the model cards.

``synthetic_heldout`` renders the classic scenes (``SynthConfig.classic()``: no seat views, racks,
heaps, small hands, distractors or ivory faces), the very set the model cards' synthetic figures
were measured on, so they stay comparable; ``synthetic_heldout_world`` renders the same seeds with
the full scene variety (the default config, as training renders use), hard negatives included.

    python benchmarks/eval_models.py [--n 500] [--threads 2] [--models DIR]

The renders are 1280×960 by default; ``--size 4000 3000`` renders the same hands as a phone's
12 MP photo (the pipeline then decodes the JPEG reduced and again larger where the tiles are
small), and ``--fill 0.3 0.6`` has the hand span less of the frame (taken from further away;
the default range is 0.6–0.97).
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

from paiscan.datasets.evaluate import evaluate_folder, machine, paiscan_detector
from paiscan.datasets.realdata import iter_realdata
from paiscan.datasets.synth import SynthConfig, write_dataset
from paiscan.vision.pipeline import PhotoReader, VisionSettings

HELDOUT_SEED = 990001


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--n", type=int, default=500)
    ap.add_argument("--threads", type=int, default=VisionSettings.threads)
    ap.add_argument("--real-only", action="store_true")
    ap.add_argument("--models", type=Path, default=None, help="folder with localizer.onnx and classifier.onnx")
    ap.add_argument("--size", type=int, nargs=2, metavar=("W", "H"), default=None, help="render size in pixels")
    ap.add_argument(
        "--fill", type=float, nargs=2, metavar=("LO", "HI"), default=None, help="share of the frame the hand spans"
    )
    args = ap.parse_args()
    size, fill = (tuple(args.size) if args.size else None), (tuple(args.fill) if args.fill else None)
    configs = {
        "synthetic_heldout": SynthConfig.classic().framed(size, fill),
        "synthetic_heldout_world": SynthConfig().framed(size, fill),
    }
    reader = PhotoReader.load(VisionSettings(threads=args.threads).with_models(args.models))
    reader.warm()
    out: dict[str, object] = {"machine": machine()}
    with tempfile.TemporaryDirectory() as tmp:
        for name, config in configs.items():
            if args.real_only:
                break
            synth = Path(tmp) / name
            write_dataset(
                synth, args.n, HELDOUT_SEED, rules="riichi", crops=False, workers=1, progress=False, config=config
            )
            out[name] = evaluate_folder(synth, paiscan_detector(reader), progress=True)
        real = Path(tmp) / "real"
        (real / "images").mkdir(parents=True)
        (real / "labels").mkdir()
        placeholder = []
        for item in iter_realdata():
            if item.split == "holdout" and not item.classes_reliable:
                placeholder.append(item.image.name)
            elif item.split == "holdout":
                (real / "images" / item.image.name).symlink_to(item.image)
                (real / "labels" / item.labels.name).symlink_to(item.labels)
        metrics = evaluate_folder(real, paiscan_detector(reader), progress=True)
        metrics["left_out_placeholder_labels"] = placeholder
        metrics["note"] = (
            "real boxes are face-tight and background tiles are often unlabelled: precision is a "
            "lower bound; cls_accuracy on localized tiles is the meaningful figure. Photos whose "
            "every box carries one class (a placeholder) are left out"
        )
        out["real_holdout"] = metrics
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
