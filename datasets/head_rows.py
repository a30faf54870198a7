"""Rows of an int8 classifier's class head taken from another stage: one output learnt apart, every
other weight kept byte for byte.

A stage that learns only some rows of the class head (``--only-not-a-tile``, ``--only-five-rows``)
leaves every other weight of its starting model as it was, so two such stages from one start can be
joined: the committed int8 file keeps its trunk, its other rows and its activation ranges, and the
chosen rows are quantized as the quantizer quantizes a row (per row, symmetric, to the largest
integer the file's rows use; the bias to the row's scale times the input's). The file then reads
every crop as the committed one does except in those outputs.

    python -m paiscan.datasets.head_rows BASE.onnx DONOR_fp32.onnx OUT.onnx --row 38
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

#: the class head's initializers in a float export (``train_classifier.export_onnx``) and in the
#: int8 file (onnxruntime's QDQ names)
HEAD_WEIGHT, HEAD_BIAS = "classify.weight", "classify.bias"
Q_WEIGHT, Q_WEIGHT_SCALE = "classify.weight_quantized", "classify.weight_scale"
Q_BIAS, Q_BIAS_SCALE = "classify.bias_quantized", "classify.bias_quantized_scale"


def float_head(donor: Path) -> tuple[np.ndarray, np.ndarray]:
    """The class head's weight ``[classes, features]`` and bias of a float classifier file."""
    import onnx
    from onnx import numpy_helper

    arrays = {t.name: numpy_helper.to_array(t) for t in onnx.load(str(donor)).graph.initializer}
    if HEAD_WEIGHT not in arrays or HEAD_BIAS not in arrays:
        raise ValueError(f"{donor} has no float class head ({HEAD_WEIGHT}, {HEAD_BIAS}): give a classifier_fp32.onnx")
    return arrays[HEAD_WEIGHT].astype(np.float32), arrays[HEAD_BIAS].astype(np.float32)


def graft_head_rows(base: Path, dst: Path, rows: Mapping[int, tuple[np.ndarray, float]]) -> Path:
    """Write ``base`` (an int8 QDQ classifier) to ``dst`` with each class-head row ``i`` of ``rows``
    replaced by its float (weights, bias), quantized as the file's rows are. Metadata kept."""
    import onnx
    from onnx import numpy_helper

    model = onnx.load(str(base))
    inits = {t.name: t for t in model.graph.initializer}
    missing = [n for n in (Q_WEIGHT, Q_WEIGHT_SCALE, Q_BIAS, Q_BIAS_SCALE) if n not in inits]
    if missing:
        raise ValueError(f"{base} is not an int8 classifier with a quantized class head (no {missing[0]})")
    q, w_scale, bq, b_scale = (
        numpy_helper.to_array(inits[n]).copy() for n in (Q_WEIGHT, Q_WEIGHT_SCALE, Q_BIAS, Q_BIAS_SCALE)
    )
    top = int(np.abs(q.astype(np.int32)).max())  # the largest integer a row reaches (7-bit weights: 64)
    input_scale = float(np.median(b_scale / w_scale))  # the bias's scale is the input's times the row's
    for i, (weights, bias) in rows.items():
        if not 0 <= i < q.shape[0] or weights.shape != q.shape[1:]:
            raise ValueError(f"row {i}: the head has {q.shape[0]} rows of {q.shape[1]} weights")
        w_scale[i] = max(float(np.abs(weights).max()), 1e-12) / top
        q[i] = np.clip(np.round(weights / w_scale[i]), -top, top).astype(q.dtype)
        b_scale[i] = input_scale * w_scale[i]
        bq[i] = np.round(bias / b_scale[i]).astype(bq.dtype)
    for name, array in ((Q_WEIGHT, q), (Q_WEIGHT_SCALE, w_scale), (Q_BIAS, bq), (Q_BIAS_SCALE, b_scale)):
        inits[name].CopyFrom(numpy_helper.from_array(array, name))
    onnx.save(model, str(dst))
    return dst


def main(argv: Sequence[str] | None = None) -> None:
    import argparse

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("base", type=Path, help="the int8 classifier whose other weights are kept")
    ap.add_argument("donor", type=Path, help="the float classifier (classifier_fp32.onnx) the rows come from")
    ap.add_argument("dst", type=Path)
    ap.add_argument("--row", type=int, action="append", required=True, help="an output's index (38: not a tile)")
    args = ap.parse_args(argv)
    weight, bias = float_head(args.donor)
    graft_head_rows(args.base, args.dst, {i: (weight[i], float(bias[i])) for i in args.row})
    print(f"wrote {args.dst}: rows {args.row} from {args.donor}")


if __name__ == "__main__":
    main()
