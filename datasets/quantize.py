"""Post-training int8 quantization of both models (onnxruntime's static QDQ quantization).

Measured on the 2-core CPU:

* classifier: the float model takes ~60 ms for a photo's 20 crops, the int8 one ~20 ms, with
  accuracy unchanged to the third decimal on held-out render crops;
* localizer: 27 ms float against 15 ms int8 at 384 px (onnxruntime 1.32, one thread; 15 and 10
  ms with two), its SiLU activations (``Sigmoid`` and ``Mul``) quantized too. The detection head's
  output convolutions and box decoding stay in float (:func:`float_head_nodes`): quantized too
  (13 ms) it read as many renders exactly but missed more tiles on the real rack photos.

Weights are quantized to 7 bits (``reduce_range``). onnxruntime multiplies uint8 activations by
int8 weights with an instruction that sums pairs of products into int16 on x86 CPUs without VNNI
(AVX2 alone: most AMD EPYC and Ryzen before Zen 4, Intel before Cascade Lake); with 8-bit weights
those sums saturate. On such a CPU (AMD EPYC, AVX2) the classifier's full-range int8 file read
0.942 of held-out crops against 0.971 for the same weights computed without the fused int8
kernels; at 7 bits it reads as its float original on every CPU.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np

#: the operators the localizer's int8 copy runs in int8 (every kind its graph has but the head's
#: reshaping, ``Softmax``, ``MatMul`` and arithmetic on coordinates)
LOCALIZER_INT8_OPS = ("Conv", "Mul", "Sigmoid", "Add", "Concat", "MaxPool", "Resize", "Split")


def _quantize(
    src: Path,
    dst: Path,
    calibration: np.ndarray,
    batch: int,
    op_types: Sequence[str] | None = None,
    exclude: Sequence[str] = (),
) -> Path:
    """``src`` quantized into ``dst`` (QDQ: per-channel int8 weights in 7 bits, uint8 activations,
    ranges from ``calibration``, a ``[N, 3, H, W]`` float batch of typical inputs); keeps the
    metadata."""
    import onnx
    from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static
    from onnxruntime.quantization.shape_inference import quant_pre_process

    name = onnx.load(str(src)).graph.input[0].name

    class _Reader(CalibrationDataReader):
        def __init__(self) -> None:
            self.batches: Iterator[dict[str, np.ndarray]] = iter(
                {name: np.ascontiguousarray(calibration[i : i + batch], dtype=np.float32)}
                for i in range(0, len(calibration), batch)
            )

        def get_next(self) -> dict[str, np.ndarray] | None:
            return next(self.batches, None)

    pre = dst.with_name(dst.stem + ".pre.onnx")
    try:
        quant_pre_process(str(src), str(pre))
        quantize_static(
            str(pre),
            str(dst),
            _Reader(),
            quant_format=QuantFormat.QDQ,
            per_channel=True,
            activation_type=QuantType.QUInt8,
            weight_type=QuantType.QInt8,
            reduce_range=True,
            op_types_to_quantize=list(op_types) if op_types else None,
            nodes_to_exclude=list(exclude),
        )
    finally:
        pre.unlink(missing_ok=True)
    meta = {p.key: p.value for p in onnx.load(str(src)).metadata_props}
    model = onnx.load(str(dst))
    meta.update({p.key: p.value for p in model.metadata_props})  # some versions carry it over: once each
    del model.metadata_props[:]
    for key, value in meta.items():
        prop = model.metadata_props.add()
        prop.key, prop.value = key, value
    onnx.save(model, str(dst))
    return dst


def dequantized(src: Path, dst: Path) -> Path:
    """Write a float copy of the QDQ file ``src`` to ``dst``: each quantized weight stored as the
    float it stands for, and each activation's quantize-dequantize pair made a ``Clip`` to the
    range it could hold (the quantizer folds a ``Relu`` into that range). It computes what ``src``
    computes but for the activations' rounding, so a committed int8 file whose float
    original is gone can be quantized again (:func:`requantize_classifier`). Keeps the metadata."""
    import onnx
    from onnx import numpy_helper

    model = onnx.load(str(src))
    graph = model.graph
    weights = {t.name: t for t in graph.initializer}
    quantizer = {n.output[0]: n for n in graph.node if n.op_type == "QuantizeLinear"}
    kept, floats = [], []
    for node in graph.node:
        q = node.input[0] if node.op_type == "DequantizeLinear" else ""
        if q in weights:
            axis = next((a.i for a in node.attribute if a.name == "axis"), 1)
            data = numpy_helper.to_array(weights[q]).astype(np.float32)
            scale = numpy_helper.to_array(weights[node.input[1]]).astype(np.float32)
            zero = (
                numpy_helper.to_array(weights[node.input[2]]).astype(np.float32)
                if len(node.input) > 2 and node.input[2]
                else np.zeros_like(scale)
            )
            shape = [1] * data.ndim
            if scale.ndim:
                shape[axis] = -1
            floats.append(numpy_helper.from_array((data - zero.reshape(shape)) * scale.reshape(shape), node.output[0]))
        elif q in quantizer:  # an activation's pair: the float it rounded, clipped to its range
            step = float(numpy_helper.to_array(weights[quantizer[q].input[1]]))
            zero_point = numpy_helper.to_array(weights[quantizer[q].input[2]])
            info = np.iinfo(zero_point.dtype)
            ends = [(float(v) - float(zero_point)) * step for v in (info.min, info.max)]
            bounds = [f"{node.output[0]}_min", f"{node.output[0]}_max"]
            floats += [numpy_helper.from_array(np.array(v, np.float32), n) for v, n in zip(ends, bounds, strict=True)]
            kept.append(onnx.helper.make_node("Clip", [quantizer[q].input[0], *bounds], [node.output[0]]))
        else:
            kept.append(node)
    used = {name for n in kept for name in n.input} | {o.name for o in graph.output}
    kept = [n for n in kept if n.op_type != "QuantizeLinear" or n.output[0] in used]
    used = {name for n in kept for name in n.input}
    del graph.node[:]
    graph.node.extend(kept)
    keep_weights = [t for t in graph.initializer if t.name in used]
    del graph.initializer[:]
    graph.initializer.extend([*keep_weights, *floats])
    del graph.value_info[:]
    onnx.save(model, str(dst))
    return dst


def requantize_classifier(src: Path, dst: Path, calibration: np.ndarray) -> Path:
    """Quantize the committed int8 classifier ``src`` again into ``dst`` (:func:`dequantized`, then
    :func:`quantize_classifier`): a file made with 8-bit weights becomes one that reads as it
    should on CPUs without VNNI too."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        return quantize_classifier(dequantized(src, Path(tmp) / "float.onnx"), dst, calibration)


def quantize_classifier(src: Path, dst: Path, calibration: np.ndarray, batch: int = 16) -> Path:
    """Write the int8 (QDQ: per-channel int8 weights in 7 bits, uint8 activations) copy of ``src`` to ``dst``;
    ``calibration`` is a ``[N, 3, H, W]`` float batch of typical crops. Keeps the model's metadata."""
    return _quantize(src, dst, calibration, batch)


def float_head_nodes(model_path: Path) -> list[str]:
    """The nodes of an ultralytics YOLO export's detection head (its last ``/model.N/`` module)
    that stay in float: its box decoding (everything but convolutions) and its output
    convolutions (those with no SiLU after them: the box distributions, the class logits and the
    DFL's), whose int8 rounding moved confidences across the threshold on real photos.

    >>> float_head_nodes(Path("/nonexistent.onnx"))
    Traceback (most recent call last):
    ...
    FileNotFoundError: /nonexistent.onnx
    """
    import onnx

    if not model_path.is_file():
        raise FileNotFoundError(str(model_path))
    nodes = onnx.load(str(model_path)).graph.node
    index = [int(m.group(1)) for n in nodes if (m := re.match(r"/model\.(\d+)/", n.name))]
    if not index:
        raise ValueError(f"{model_path} is not an ultralytics export (no /model.N/ node names)")
    head = f"/model.{max(index)}/"
    activated = {i for n in nodes if n.op_type == "Sigmoid" for i in n.input}
    return [
        n.name
        for n in nodes
        if n.name.startswith(head) and (n.op_type != "Conv" or not activated.intersection(n.output))
    ]


def quantize_localizer(src: Path, dst: Path, calibration: np.ndarray) -> Path:
    """Write the int8 copy of the float localizer ``src`` to ``dst``: every layer in int8 (see
    :data:`LOCALIZER_INT8_OPS`) but the head's outputs and box decoding (:func:`float_head_nodes`).
    ``calibration``: ``[N, 3, S, S]`` letterboxed photos, as :func:`paiscan.vision.models.letterbox` makes
    them (renders and real photos alike: the ranges must cover both)."""
    _quantize(src, dst, calibration, 1, op_types=LOCALIZER_INT8_OPS, exclude=float_head_nodes(src))
    return batch_dynamic(dst, dst)


def batch_dynamic(src: Path, dst: Path) -> Path:
    """Write ``src`` to ``dst`` with a symbolic batch dimension (``N``): the input's and outputs'
    first dimension, and each constant ``Reshape`` shape's leading 1 made 0 (copy the input's).
    An ultralytics export fixes the batch at 1; the runtime's zoom sends its windows through in
    one run (:meth:`paiscan.vision.models.Localizer.each`). The numbers computed are the same."""
    import onnx
    from onnx import numpy_helper

    model = onnx.load(str(src))
    constants = {t.name: t for t in model.graph.initializer}
    constants.update(
        {
            n.output[0]: a.t
            for n in model.graph.node
            if n.op_type == "Constant"
            for a in n.attribute
            if a.name == "value"
        }
    )
    for node in model.graph.node:
        if node.op_type == "Reshape" and (shape := constants.get(node.input[1])) is not None:
            value = numpy_helper.to_array(shape).copy()
            if value.size and value[0] == 1:
                value[0] = 0
                shape.CopyFrom(numpy_helper.from_array(value, shape.name))
    for tensor in (*model.graph.input, *model.graph.output):
        tensor.type.tensor_type.shape.dim[0].dim_param = "N"
    del model.graph.value_info[:]
    onnx.save(model, str(dst))
    return dst


def localizer_calibration(images: Sequence[Path], size: int, limit: int = 64) -> np.ndarray:
    """``[N, 3, size, size]``: up to ``limit`` of ``images``, spread evenly over the list, read and
    letterboxed as the runtime does."""
    import cv2

    from paiscan.vision.models import letterbox

    chosen = list(images)[:: max(1, len(images) // limit)][:limit] if images else []
    arrays = [letterbox(bgr, size)[0] for p in chosen if (bgr := cv2.imread(str(p))) is not None]
    if not arrays:
        raise ValueError("no readable calibration images")
    return np.concatenate(arrays)


def mixed_calibration(renders: Sequence[Path], size: int, n: int = 64) -> np.ndarray:
    """``n`` letterboxed calibration images: a quarter from the real photos' training split when
    the supplement is there, the rest from ``renders`` (the int8 ranges must cover both)."""
    from paiscan.datasets.realdata import iter_realdata

    real = sorted(item.image for item in iter_realdata() if item.split == "train")
    n_real = n // 4 if real else 0
    parts = [localizer_calibration(renders, size, n - n_real)] if renders else []
    if n_real:
        parts.append(localizer_calibration(real, size, n_real))
    if not parts:
        raise ValueError("no calibration images: no renders and no real photos")
    return np.concatenate(parts)


def classifier_calibration(folders: Sequence[Path], n: int = 512) -> np.ndarray:
    """``[n, 3, H, W]``: ``n`` crops of the ``paiscan synth --crops`` folders given, drawn by a
    seeded shuffle, as the classifier reads them (the training run calibrates on as many)."""
    import random

    from paiscan.datasets.crops import model_input, read_crop_folder

    crops = [crop for d in folders for crop in read_crop_folder(d)[0]]
    random.Random(0).shuffle(crops)
    return model_input(crops[:n])


def main(argv: Sequence[str] | None = None) -> None:
    """``python -m paiscan.datasets.quantize localizer|classifier SRC DST --data DIR...``: the int8 copy of
    a model. A localizer is calibrated on the images of the render folders given and the real
    photos' training split (:func:`mixed_calibration`), a classifier on their crops
    (:func:`classifier_calibration`); a classifier ``SRC`` that is already int8 is quantized again
    from its float copy (:func:`requantize_classifier`)."""
    import argparse

    import onnx

    from paiscan.vision.models import make_session

    ap = argparse.ArgumentParser(description=main.__doc__)
    ap.add_argument("model", choices=["localizer", "classifier"])
    ap.add_argument("src", type=Path)
    ap.add_argument("dst", type=Path)
    ap.add_argument(
        "--data", type=Path, action="append", default=[], help="a render folder (images/; crops/ for a classifier)"
    )
    ap.add_argument("--n", type=int, default=None, help="calibration inputs (localizer 64, classifier 512)")
    args = ap.parse_args(argv)
    if args.model == "classifier":
        if not args.data:
            raise SystemExit("give --data folders with crops/ (paiscan synth --crops): the int8 ranges are set on them")
        calibration = classifier_calibration(args.data, args.n or 512)
        qdq = any(n.op_type == "QuantizeLinear" for n in onnx.load(str(args.src)).graph.node)
        (requantize_classifier if qdq else quantize_classifier)(args.src, args.dst, calibration)
    else:
        size = int(make_session(args.src).get_inputs()[0].shape[2])
        renders = sorted(p for d in args.data for p in (d / "images").glob("*.jpg"))
        try:
            calibration = mixed_calibration(renders, size, args.n or 64)
        except ValueError as exc:
            raise SystemExit(f"{exc}: give --data folders with images/") from exc
        quantize_localizer(args.src, args.dst, calibration)
    print(f"wrote {args.dst} ({args.dst.stat().st_size / 1e6:.1f} MB)")


if __name__ == "__main__":
    main()
