"""The int8 copies of the models: which localizer nodes stay in float, and that the committed int8
localizer finds the tiles its float original finds."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import onnx
import pytest

from paiscan.datasets.quantize import (
    LOCALIZER_INT8_OPS,
    batch_dynamic,
    float_head_nodes,
    localizer_calibration,
    quantize_localizer,
)
from paiscan.datasets.synth import SynthConfig, render_sample
from paiscan.vision.models import Localizer, letterbox, make_session

ROOT = Path(__file__).resolve().parents[1]
FP32 = ROOT / "models" / "localizer_fp32.onnx"
INT8 = ROOT / "models" / "localizer.onnx"


def _iou(a: tuple[float, ...], b: tuple[float, ...]) -> float:
    ix = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = ix * iy
    return inter / ((a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter)


def test_head_outputs_and_box_decoding_stay_float() -> None:
    nodes = {n.name: n for n in onnx.load(str(FP32)).graph.node}
    kept = float_head_nodes(FP32)
    head = sorted({name.split("/")[1] for name in kept})
    assert len(head) == 1 and head[0].startswith("model.")  # one module: the detection head
    convs = sorted(name for name in kept if nodes[name].op_type == "Conv")
    # the box-distribution and class-logit outputs of the three scales, and the DFL's
    assert len(convs) == 7 and any("/dfl/" in name for name in convs)
    activated = {i for n in nodes.values() if n.op_type == "Sigmoid" for i in n.input}
    assert not any(activated.intersection(nodes[name].output) for name in convs)
    # everything else in the head that is not a convolution stays float too; the backbone does not
    assert {"Softmax", "Reshape"} <= {nodes[name].op_type for name in kept}
    assert all(name.startswith(f"/{head[0]}/") for name in kept)


def test_non_ultralytics_file_is_refused() -> None:
    other = ROOT / "models" / "classifier.onnx"
    with pytest.raises(ValueError, match="not an ultralytics export"):
        float_head_nodes(other)


def test_committed_int8_localizer_finds_what_the_float_one_finds() -> None:
    assert INT8.stat().st_size < FP32.stat().st_size / 2
    fp32, int8 = Localizer(FP32, conf=0.45), Localizer(INT8, conf=0.45)
    n_float = n_int8 = n_matched = 0
    for seed in range(990001, 990006):  # boxes near the threshold may fall either side on one photo
        image = render_sample(seed, "riichi", SynthConfig()).image
        a, b = fp32(image), int8(image)
        assert len(a) >= 14
        n_float, n_int8 = n_float + len(a), n_int8 + len(b)
        n_matched += sum(max((_iou(t.box, u.box) for u in b), default=0.0) >= 0.8 for t in a)
    assert n_matched >= 0.95 * n_float
    assert abs(n_float - n_int8) <= 0.05 * n_float
    quantized = {n.op_type for n in onnx.load(str(INT8)).graph.node}
    assert {"QuantizeLinear", "DequantizeLinear"} <= quantized


def test_quantize_localizer_writes_an_int8_copy_with_a_float_head(tmp_path: Path) -> None:
    images = []
    for seed in (11, 12):
        path = tmp_path / f"{seed}.jpg"
        cv2.imwrite(str(path), render_sample(seed, "riichi", SynthConfig()).image)
        images.append(path)
    calibration = localizer_calibration(images, 384)
    assert calibration.shape == (2, 3, 384, 384)
    out = quantize_localizer(FP32, tmp_path / "int8.onnx", calibration)
    graph = onnx.load(str(out)).graph
    assert not (tmp_path / "int8.pre.onnx").exists()
    dequantized = {n.output[0] for n in graph.node if n.op_type == "DequantizeLinear"}
    for node in graph.node:
        if node.name in float_head_nodes(FP32) and node.op_type == "Conv":
            assert node.input[1] not in dequantized  # float weights
    assert any(n.op_type == "DequantizeLinear" for n in graph.node)
    assert set(LOCALIZER_INT8_OPS) >= {"Conv", "Sigmoid", "Mul"}
    x = letterbox(render_sample(13, "riichi", SynthConfig()).image, 384)[0]
    ref = make_session(FP32).run(None, {"images": x})[0]
    got = make_session(out).run(None, {"images": x})[0]
    scores_ref, scores_got = ref[0, 4:].max(0), got[0, 4:].max(0)
    # the anchors the float model is sure of: the int8 copy is too
    sure = scores_ref > 0.6
    assert sure.sum() >= 10 and (scores_got[sure] > 0.4).mean() > 0.95
    assert not isinstance(make_session(out).get_inputs()[0].shape[0], int)  # takes a batch (batch_dynamic)


def test_a_batch_dynamic_copy_reads_a_batch_as_it_reads_each_image(tmp_path: Path) -> None:
    assert make_session(FP32).get_inputs()[0].shape[0] == 1  # as ultralytics exports it
    out = batch_dynamic(FP32, tmp_path / "batched.onnx")
    x = np.concatenate([letterbox(render_sample(seed, "riichi", SynthConfig()).image, 384)[0] for seed in (14, 15, 16)])
    fixed, batched = make_session(FP32), make_session(out)
    one_by_one = np.concatenate([fixed.run(None, {"images": x[i : i + 1]})[0] for i in range(3)])
    together = batched.run(None, {"images": x})[0]
    assert together.shape == one_by_one.shape and np.allclose(together, one_by_one, atol=1e-4)


def test_the_committed_localizer_finds_the_zoom_windows_tiles_in_one_run_as_one_by_one() -> None:
    loc = Localizer(INT8, threads=1)
    assert loc.batched
    images = [render_sample(seed, "riichi", SynthConfig()).image for seed in (17, 18)]
    together = loc.each(images)
    loc.batched = False
    assert together == loc.each(images) and all(together)


def test_idle_onnx_workers_sleep() -> None:
    opts = make_session(INT8, threads=2).get_session_options()
    assert opts.get_session_config_entry("session.intra_op.allow_spinning") == "0"
    assert opts.intra_op_num_threads == 2


def test_calibration_needs_readable_images(tmp_path: Path) -> None:
    (tmp_path / "x.jpg").write_bytes(b"not a jpeg")
    with pytest.raises(ValueError, match="no readable"):
        localizer_calibration([tmp_path / "x.jpg"], 384)
    with pytest.raises(ValueError, match="no readable"):
        localizer_calibration([], 384)


def test_mixed_calibration_takes_a_quarter_from_the_real_photos(tmp_path: Path) -> None:
    from paiscan.datasets.quantize import mixed_calibration
    from paiscan.datasets.realdata import iter_realdata

    renders = []
    for seed in (21, 22, 23):
        path = tmp_path / f"{seed}.jpg"
        cv2.imwrite(str(path), render_sample(seed, "riichi", SynthConfig()).image)
        renders.append(path)
    real = any(item.split == "train" for item in iter_realdata())
    got = mixed_calibration(renders, 384, n=8)
    # at most n - n // 4 renders (three here), and n // 4 real photos when the supplement is there
    assert got.shape == ((3 + 2) if real else 3, 3, 384, 384)
    assert got.dtype == np.float32 and got.min() >= 0.0 and got.max() <= 1.0


CLASSIFIER = ROOT / "models" / "classifier.onnx"


def _int8_weights(path: Path) -> list[np.ndarray]:
    """The int8 weights a QDQ file stores (biases are int32)."""
    from onnx import numpy_helper

    model = onnx.load(str(path))
    weights = {t.name: t for t in model.graph.initializer}
    return [
        numpy_helper.to_array(weights[n.input[0]])
        for n in model.graph.node
        if n.op_type == "DequantizeLinear"
        and n.input[0] in weights
        and weights[n.input[0]].data_type == onnx.TensorProto.INT8
    ]


def _seven_bit(path: Path) -> bool:
    """Every int8 weight of ``path`` within 7 bits (and there are some)."""
    weights = _int8_weights(path)
    return bool(weights) and all(int(np.abs(w.astype(np.int32)).max()) <= 64 for w in weights)


@pytest.mark.parametrize("path", [CLASSIFIER, INT8], ids=["classifier", "localizer"])
def test_the_committed_int8_files_hold_7_bit_weights(path: Path) -> None:
    # 8-bit weights saturate onnxruntime's int16 pair sums on x86 CPUs without VNNI (AVX2 alone)
    assert _seven_bit(path)


@pytest.fixture(scope="module")
def crops(tmp_path_factory: pytest.TempPathFactory) -> np.ndarray:
    """The classifier's inputs for the crops of six renders, rendered once for the tests below."""
    from paiscan.datasets.crops import model_input, read_crop_folder
    from paiscan.datasets.synth import write_dataset

    folder = tmp_path_factory.mktemp("crops")
    write_dataset(folder, 6, 990007, crops=True, progress=False)
    return model_input(read_crop_folder(folder)[0])


def _session(path: Path, fused: bool) -> object:
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.graph_optimization_level = (
        ort.GraphOptimizationLevel.ORT_ENABLE_ALL if fused else ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    )
    return ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])


def test_the_committed_classifier_reads_alike_with_and_without_the_fused_int8_kernels(crops: np.ndarray) -> None:
    # the fused kernels are what this CPU runs; unfused, the QDQ graph is computed in float
    x = crops
    fused, plain = (_session(CLASSIFIER, f).run(None, {"images": x})[0] for f in (True, False))  # type: ignore[attr-defined]
    assert len(x) >= 60 and (fused.argmax(1) == plain.argmax(1)).mean() >= 0.98


def test_a_float_copy_of_a_qdq_file_computes_what_it_computes_and_quantizes_again(
    tmp_path: Path, crops: np.ndarray
) -> None:
    from paiscan.datasets.quantize import dequantized, requantize_classifier

    x = crops
    copy = dequantized(CLASSIFIER, tmp_path / "float.onnx")
    ops = {n.op_type for n in onnx.load(str(copy)).graph.node}
    assert not ops & {"QuantizeLinear", "DequantizeLinear"} and "Clip" in ops  # each range kept
    plain = _session(CLASSIFIER, False).run(None, {"images": x})[0]  # type: ignore[attr-defined]
    floats = make_session(copy).run(None, {"images": x})[0]
    assert (plain.argmax(1) == floats.argmax(1)).mean() >= 0.98
    again = requantize_classifier(CLASSIFIER, tmp_path / "again.onnx", x[:32])
    assert _seven_bit(again)
    assert (make_session(again).run(None, {"images": x})[0].argmax(1) == floats.argmax(1)).mean() >= 0.95
    assert (
        make_session(again).get_modelmeta().custom_metadata_map["classes"]
        == make_session(CLASSIFIER).get_modelmeta().custom_metadata_map["classes"]
    )


def test_the_quantize_command_quantizes_an_int8_classifier_again(tmp_path: Path) -> None:
    from paiscan.datasets.quantize import main
    from paiscan.datasets.synth import write_dataset

    write_dataset(tmp_path / "r", 2, 1110, crops=True, progress=False)
    main(["classifier", str(CLASSIFIER), str(tmp_path / "again.onnx"), "--data", str(tmp_path / "r"), "--n", "24"])
    again = tmp_path / "again.onnx"
    assert _seven_bit(again)
    keys = [p.key for p in onnx.load(str(again)).metadata_props]
    assert len(keys) == len(set(keys)) and "classes" in keys  # each key once
    with pytest.raises(SystemExit, match="--data"):
        main(["classifier", str(CLASSIFIER), str(tmp_path / "none.onnx")])
    assert not (tmp_path / "none.onnx").exists()
