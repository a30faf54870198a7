"""Real rack photos through the whole pipeline: does the hand row hold exactly the labelled tiles?

The real-photo supplement has tile labels but no hand structures, so exact structure cannot be
measured on it. Its 37 ``hand_photo`` images show one hand on a rack and nothing else labelled,
so the tiles the reading puts in the hand row (concealed, winning tile, melds) should be exactly
the labelled ones: this catches false "tiles" on felt or the rack's edge joining the hand, tiles
left out, and wrong classes. Nor do these photos show a dora indicator, so every indicator read
is a false tile that would add dora to the score. Boxes are matched at IoU 0.3 (the labels are face-tight). The layout
is not trained; the classifier trains on crops of the ``train`` split, so both splits are shown.

    python benchmarks/real_hand_rows.py [--models DIR] [--verbose]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from paiscan.datasets.evaluate import row_agreement
from paiscan.datasets.realdata import iter_realdata, read_yolo_labels, source_kinds
from paiscan.vision.pipeline import PhotoReader, VisionSettings

ROW_ROLES = ("hand", "win", "meld")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--models", type=Path, default=None, help="folder with localizer.onnx and classifier.onnx")
    ap.add_argument("--verbose", action="store_true", help="one line per photo")
    args = ap.parse_args()
    reader = PhotoReader.load(VisionSettings().with_models(args.models))
    reader.warm()
    kinds = source_kinds()
    totals: dict[str, dict[str, int]] = {}
    for item in iter_realdata():
        if kinds.get(item.image.name) != "hand_photo":
            continue
        result = reader.read(item.image.read_bytes())
        out = result.to_dict()
        labels = read_yolo_labels(item.labels, out["image"]["width"], out["image"]["height"])
        row = [(d["class_id"], tuple(d["box"])) for d in out["detections"] if d["role"] in ROW_ROLES]
        agree = row_agreement(labels, row)
        readable = out["status"] in ("scored", "no_yaku")
        indicators = sum(d["role"] == "dora" for d in out["detections"])
        for split in (item.split, "all"):
            t = totals.setdefault(
                split,
                dict.fromkeys(
                    (
                        "photos",
                        "row_exact",
                        "row_boxes",
                        "readable",
                        "false_tiles",
                        "missed",
                        "labelled",
                        "photos_with_indicators",
                        "indicators",
                    ),
                    0,
                ),
            )
            t["photos"] += 1
            t["row_exact"] += agree.exact
            t["row_boxes"] += agree.boxes
            t["readable"] += readable
            t["false_tiles"] += agree.false_tiles
            t["missed"] += agree.missed
            t["labelled"] += len(labels)
            t["photos_with_indicators"] += indicators > 0
            t["indicators"] += indicators
        if args.verbose:
            print(
                f"{item.image.name[:40]:40} {item.split:7} exact={agree.exact!s:5} false={agree.false_tiles} "
                f"missed={agree.missed} indicators={indicators} status={out['status']}"
            )
    print(json.dumps(totals, indent=1))


if __name__ == "__main__":
    main()
