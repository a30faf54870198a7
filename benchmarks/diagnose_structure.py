"""Where exact-structure reading fails: the layout alone, the classifier, or the localizer.

For each labelled render (a folder made by ``paiscan synth`` with ``meta/`` and ``structures/``)
the hand is read four ways, and the exact-structure rate of each is printed:

* ``oracle``: the true boxes, classes and face angles (the layout code's ceiling);
* ``oracle_boxes``: the true boxes, classified by the classifier (localizer errors removed);
* ``oracle_classes``: the localizer's boxes, each matched box given its true class (classifier
  errors removed);
* ``pipeline``: the models as shipped.

With ``--show N`` it also lists up to N images each that fail under ``oracle`` and under
``pipeline`` but not ``oracle_classes``, with the truth and the reading, for a look by eye.

``--oracle-only`` reads the true detections alone (no models: thousands of renders a minute), the
reading code's own ceiling, and lists every render it reads wrong: where a layout rule, not a
model, loses a hand (selection render 990012/797's line that could not rejoin the hand was found so).

    python benchmarks/diagnose_structure.py --data data/valsel [--data ...] [--limit 200] [--show 10] [--oracle-only]
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

from paiscan.datasets.evaluate import match, same_structure
from paiscan.scoring.tiles import BACK
from paiscan.vision.detection import Detection
from paiscan.vision.models import TileBox
from paiscan.vision.pipeline import PhotoReader, VisionSettings
from paiscan.vision.reading import Reading, read_hand


def _truth_dets(meta: dict[str, Any]) -> list[Detection]:
    out = []
    for b in meta["boxes"]:
        x1, y1, x2, y2 = b["box"]
        rotated = (x2 - x1) > (y2 - y1) * 1.15  # as the pipeline decides it
        angle = None if b.get("face_down") else float(b["angle_deg"])
        out.append(Detection(int(b["cls"]), 1.0, (x1, y1, x2, y2), rotated, ((int(b["cls"]), 1.0),), angle, 1.0))
    return out


def _short(hand: dict[str, Any] | None) -> str:
    if not hand:
        return "(none)"
    melds = " ".join(
        f"{m['type']}:{m['tiles']}{'' if m.get('open', True) else '(closed)'}" for m in hand.get("melds", [])
    )
    return (
        f"hand={hand.get('hand')} win={hand.get('win_tile')} melds=[{melds}] "
        f"dora={hand.get('dora_indicators')} nuki={hand.get('nuki', '')}"
    )


def _labels(img: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """A render's ``meta/`` and ``structures/`` files."""
    folder = img.parent.parent
    return (
        json.loads((folder / "meta" / f"{img.stem}.json").read_text()),
        json.loads((folder / "structures" / f"{img.stem}.json").read_text()),
    )


def _failure(name: str, truth: dict[str, Any], reading: Reading) -> str:
    """A render read wrong, for a look by eye: the truth, the reading, its problems and questions."""
    return (
        f"{name}\n  truth {_short(truth)}\n  read  {_short(reading.hand_dict())}\n"
        f"  problems {[p.code for p in reading.problems]} ambiguities {[a.kind for a in reading.ambiguities]}"
    )


def _oracle_only(folders: list[Path], limit: int | None) -> None:
    """Each render read from its true detections; the wrong ones listed, then the count."""
    right = n = 0
    for folder in folders:
        for img in sorted((folder / "images").iterdir())[:limit]:
            meta, truth = _labels(img)
            r = read_hand(_truth_dets(meta), rules=truth.get("rules", "riichi"))
            n += 1
            if same_structure(truth, r.hand_dict()):
                right += 1
                continue
            print(_failure(f"{folder.name}/{img.name}", truth, r))
    print(json.dumps({"n": n, "oracle_exact": right, "oracle": round(right / max(n, 1), 4)}))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--data", type=Path, action="append", required=True, help="a labelled render folder (repeatable)")
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument("--show", type=int, default=0)
    ap.add_argument("--models", type=Path, default=None)
    ap.add_argument("--oracle-only", action="store_true", help="the true detections alone, no models")
    args = ap.parse_args()
    if args.oracle_only:
        _oracle_only(args.data, args.limit)
        return
    reader = PhotoReader.load(VisionSettings().with_models(args.models))
    reader.warm()
    images = [img for folder in args.data for img in sorted((folder / "images").iterdir())[: args.limit]]
    ok: Counter[str] = Counter()
    shown: dict[str, list[str]] = {"oracle": [], "pipeline": []}
    problems: Counter[str] = Counter()
    for img in images:
        meta, truth = _labels(img)
        rules = truth.get("rules", "riichi")
        decoded = reader.decode(img.read_bytes())
        s = decoded.scale
        tdets = _truth_dets(meta)
        scaled = [replace(d, box=(d.box[0] * s, d.box[1] * s, d.box[2] * s, d.box[3] * s)) for d in tdets]
        # oracle: true boxes and classes
        r_oracle = read_hand(scaled, rules=rules)
        # oracle boxes, model classes
        boxed = reader.classify_tiles(decoded.bgr, [TileBox(d.box, 1.0, d.cls == BACK) for d in scaled])
        r_boxes = read_hand(boxed, rules=rules)
        # model boxes, true classes where matched
        pdets = reader.detect(decoded.bgr)
        pairs = match([d.box for d in scaled], [d.box for d in pdets])
        true_of = {j: scaled[i].cls for i, j in pairs}
        fixed = [
            replace(d, cls=true_of[j], confidence=1.0, topk=((true_of[j], 1.0),)) if j in true_of else d
            for j, d in enumerate(pdets)
        ]
        r_classes = read_hand(fixed, rules=rules)
        r_pipe = read_hand(pdets, rules=rules)
        res = {"oracle": r_oracle, "oracle_boxes": r_boxes, "oracle_classes": r_classes, "pipeline": r_pipe}
        good = {k: same_structure(truth, r.hand_dict()) for k, r in res.items()}
        for k, v in good.items():
            ok[k] += v
        if not good["oracle"]:
            problems["layout"] += 1
        elif not good["oracle_classes"]:
            problems["localizer"] += 1
        elif not good["pipeline"]:
            problems["classifier"] += 1
        for key, fail in (
            ("oracle", not good["oracle"]),
            ("pipeline", good["oracle"] and good["oracle_classes"] and not good["pipeline"]),
        ):
            if fail and len(shown[key]) < args.show:
                shown[key].append(_failure(img.name, truth, res[key]))
    n = len(images)
    print(
        json.dumps({"n": n, **{k: round(v / n, 3) for k, v in ok.items()}, "first_failure": dict(problems)}, indent=1)
    )
    for key, lines in shown.items():
        if lines:
            print(f"\n== failing under {key} ==")
            print("\n".join(lines))


if __name__ == "__main__":
    main()
