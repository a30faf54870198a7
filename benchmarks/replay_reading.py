"""Re-read cached detections with the current reading code: how each labelled render reaches a user.

Reading-code changes (``vision/layout.py``, ``vision/reading.py``) are judged on thousands of
renders; running the models on each every time costs minutes, so the first run caches every
image's detections (the models' output, boxes in the decoded photo's pixels) in ``--cache``, and
later runs only read them again. Each render's outcome is counted as ``paiscan eval`` counts it
(``silent_right``, ``silent_wrong``, ``asked``, ``refused``; ``exact`` is the best reading right;
``asked_unreachable``, of the asked, those whose questions offer no right reading),
per folder and in all, and ``--save FILE`` / ``--against FILE`` list the renders whose outcome a
change moved.

    python benchmarks/replay_reading.py --data data/sel_990011 --data data/sel_990012 \
        --cache build/sel.pkl [--save build/before.json] [--against build/before.json] [--models DIR]

The cache is keyed by the image's path and size; delete it after a model changes. ``--stacked``
looks for added kans' missed stacked tiles (:meth:`paiscan.vision.pipeline.PhotoReader.find_stacked`; it
decodes and localizes again the images whose reading has a pon). ``--reread`` reads each hand
as the runtime does, its indicators and gari read again from more crops
(:meth:`paiscan.vision.pipeline.PhotoReader.read_roles_again`), and the hand row's tiles read surely of a
hand that reads valid no way (:meth:`paiscan.vision.pipeline.PhotoReader.read_refused_again`); it decodes
every image, so it is slower.
"""

from __future__ import annotations

import argparse
import json
import pickle
from collections import Counter
from pathlib import Path
from typing import Any

from paiscan.datasets.evaluate import no_right_answer, same_structure, structure_outcome
from paiscan.vision.detection import Detection
from paiscan.vision.models import TileBox
from paiscan.vision.pipeline import PhotoReader, VisionSettings, bare_pons
from paiscan.vision.reading import read_hand

OUTCOMES = ("silent_right", "silent_wrong", "asked", "refused")


def cache_key(img: Path) -> str:
    """An image's key in the cache: its path and size (a render written again differs)."""
    return f"{img}:{img.stat().st_size}"


def cached_detections(folders: list[Path], cache: Path, models: Path | None) -> dict[str, list[Detection]]:
    """Every image's detections, from ``cache`` where it holds them, else by the models (and cached)."""
    known: dict[str, list[Detection]] = pickle.loads(cache.read_bytes()) if cache.is_file() else {}
    todo = [img for d in folders for img in sorted((d / "images").iterdir()) if cache_key(img) not in known]
    if todo:
        from tqdm import tqdm

        reader = PhotoReader.load(VisionSettings().with_models(models))
        reader.warm()
        for img in tqdm(todo, desc="detect", unit="img"):
            _, dets = reader.detect_photo(reader.decode(img.read_bytes()))
            known[cache_key(img)] = dets
        cache.parent.mkdir(parents=True, exist_ok=True)
        tmp = cache.with_suffix(".tmp")
        tmp.write_bytes(pickle.dumps(known))
        tmp.replace(cache)
    return known


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, action="append", required=True, help="a synth folder (with structures/)")
    ap.add_argument("--cache", type=Path, required=True)
    ap.add_argument("--models", type=Path, default=None)
    ap.add_argument("--save", type=Path, default=None, help="write each render's outcome here")
    ap.add_argument("--against", type=Path, default=None, help="list the renders whose outcome differs from this")
    ap.add_argument("--reread", action="store_true", help="read indicators and gari again as the runtime does")
    ap.add_argument(
        "--stacked",
        action="store_true",
        help="look for added kans' missed stacked tiles as the runtime does (decodes the photos with pons)",
    )
    args = ap.parse_args()
    known = cached_detections(args.data, args.cache, args.models)
    reader = PhotoReader.load(VisionSettings().with_models(args.models)) if args.reread or args.stacked else None
    per: dict[str, str] = {}
    table: dict[str, Counter[str]] = {}
    for folder in args.data:
        counts: Counter[str] = Counter()
        for img in sorted((folder / "images").iterdir()):
            truth: dict[str, Any] = json.loads((folder / "structures" / f"{img.stem}.json").read_text())
            rules = truth.get("rules", "riichi")
            dets = known[cache_key(img)]
            reading = read_hand(dets, rules=rules)
            stacked = args.stacked and bool(bare_pons(reading))
            if reader is not None and (stacked or args.reread):
                decoded = reader.decode(img.read_bytes())  # once for both, as the runtime does
                if stacked:
                    faint: list[TileBox] = []
                    decoded, _ = reader.detect_photo(decoded, faint=faint)
                    dets, reading = reader.find_stacked(decoded.bgr, dets, reading, faint, rules)
                if args.reread:
                    dets, reading = reader.read_roles_again(decoded.bgr, dets, reading, rules)
                    _, reading = reader.read_refused_again(decoded.bgr, dets, reading, rules)
            right = same_structure(truth, reading.hand_dict())
            outcome = structure_outcome(right, reading.valid, bool(reading.ambiguities))
            counts[outcome] += 1
            counts["exact"] += right
            if no_right_answer(truth, outcome, right, reading.offered_hands()):
                outcome = "asked_unreachable"  # a subset of asked: no answer gives the right hand
                counts[outcome] += 1
            per[str(img)] = outcome
        table[folder.name] = counts
    table["all"] = sum(table.values(), Counter())
    for name, c in table.items():
        figures = "  ".join(f"{k} {c[k]}" for k in ("exact", *OUTCOMES, "asked_unreachable"))
        print(f"{name:>16}: {figures}  of {c.total() - c['exact'] - c['asked_unreachable']}")
    if args.save:
        args.save.write_text(json.dumps(per, indent=0))
    if args.against:
        before: dict[str, str] = json.loads(args.against.read_text())
        moved = Counter((before.get(k, "?"), v) for k, v in per.items() if before.get(k) != v)
        for (a, b), n in sorted(moved.items()):
            print(f"moved {a} -> {b}: {n}")
        for k, v in per.items():
            if before.get(k) != v:
                print(f"  {Path(k).name}: {before.get(k)} -> {v}")


if __name__ == "__main__":
    main()
