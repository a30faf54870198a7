"""Two float ONNX files of one network, their weights averaged: a fine-tuned stage pulled part of the
way back towards the stage it started from.

A stage fine-tuned on new kinds of photo (seat views, heaps, hard negatives) learns them and forgets a
little of the old ones. Both files start from the same weights, so the straight line between them
stays a working network (weight-space ensembling, Wortsman et al. 2022, "Robust fine-tuning of
zero-shot models"), and a point on it can keep most of the new stage's gains at the old one's
accuracy on what it knew. The files must have the same graph: the same initializers, by name,
shape and type (two exports of one architecture, such as ``localizer_fp32.onnx`` files of two
stages). Integer initializers (shapes, axes) must be equal and are kept.

    python -m paiscan.datasets.weight_average NEW OLD --share 0.7 OUT
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np


def averaged(new: Any, old: Any, share: float) -> tuple[Any, int]:
    """``new`` (an ``onnx.ModelProto``, changed in place and returned) with every float initializer
    set to ``share`` of its own value plus ``1 - share`` of ``old``'s, and how many changed.

    Raises ``ValueError`` naming the initializer when the graphs differ."""
    from onnx import numpy_helper

    if not 0.0 <= share <= 1.0:
        raise ValueError(f"share {share:g}: the new file's share of the weights is 0 to 1")
    theirs = {t.name: numpy_helper.to_array(t) for t in old.graph.initializer}
    ours = [t.name for t in new.graph.initializer]
    if sorted(ours) != sorted(theirs):
        missing = sorted(set(ours) ^ set(theirs))[:3]
        raise ValueError(f"the two files have different initializers ({', '.join(missing)} ...): not one network")
    changed = 0
    for i, tensor in enumerate(new.graph.initializer):
        a, b = numpy_helper.to_array(tensor), theirs[tensor.name]
        if a.shape != b.shape or a.dtype != b.dtype:
            raise ValueError(f"initializer {tensor.name}: {a.dtype}{a.shape} against {b.dtype}{b.shape}")
        if a.dtype.kind != "f":
            if not np.array_equal(a, b):
                raise ValueError(f"initializer {tensor.name}: integer values differ (not one network)")
            continue
        if np.array_equal(a, b):
            continue
        mixed = (share * a + (1.0 - share) * b).astype(a.dtype)  # in the tensors' own precision
        new.graph.initializer[i].CopyFrom(numpy_helper.from_array(mixed, tensor.name))
        changed += 1
    return new, changed


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("new", type=Path, help="the fine-tuned float ONNX file")
    ap.add_argument("old", type=Path, help="the float ONNX file it started from")
    ap.add_argument("out", type=Path)
    ap.add_argument("--share", type=float, required=True, help="the new file's share of the weights, 0 to 1")
    args = ap.parse_args(argv)
    import onnx

    for path in (args.new, args.old):
        if not path.is_file():
            raise SystemExit(f"{path}: no such file")
    try:
        model, changed = averaged(onnx.load(str(args.new)), onnx.load(str(args.old)), args.share)
    except ValueError as e:
        raise SystemExit(str(e)) from None
    args.out.parent.mkdir(parents=True, exist_ok=True)
    tmp = args.out.with_suffix(args.out.suffix + ".part")
    onnx.save(model, str(tmp))
    tmp.replace(args.out)
    print(f"wrote {args.out}: {changed} weight tensors averaged, {args.share:g} of {args.new.name}")


if __name__ == "__main__":
    main()
