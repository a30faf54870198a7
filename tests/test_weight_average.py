"""Averaging two float ONNX files of one network (datasets/weight_average.py)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

from paiscan.datasets.weight_average import averaged, main  # noqa: E402


def _model(weight: np.ndarray, name: str = "w", shape: tuple[int, ...] = (2, 3)) -> onnx.ModelProto:
    """y = x + w, with an integer initializer beside it (a shape: never averaged)."""
    graph = helper.make_graph(
        [helper.make_node("Add", ["x", name], ["y"]), helper.make_node("Reshape", ["y", "shape"], ["z"])],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(weight.shape))],
        [helper.make_tensor_value_info("z", TensorProto.FLOAT, list(shape))],
        [numpy_helper.from_array(weight, name), numpy_helper.from_array(np.array(shape, np.int64), "shape")],
    )
    return helper.make_model(graph)


def _weights(model: onnx.ModelProto) -> dict[str, np.ndarray]:
    return {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}


def test_the_weights_are_the_shares_of_both_files() -> None:
    new, old = np.full((2, 3), 10.0, np.float32), np.zeros((2, 3), np.float32)
    model, changed = averaged(_model(new), _model(old), 0.7)
    assert changed == 1
    got = _weights(model)
    np.testing.assert_allclose(got["w"], np.full((2, 3), 7.0), rtol=1e-6)
    assert got["w"].dtype == np.float32 and got["shape"].tolist() == [2, 3]


def test_the_ends_of_the_line_are_the_files_themselves() -> None:
    rng = np.random.default_rng(0)
    new, old = rng.normal(size=(2, 3)).astype(np.float32), rng.normal(size=(2, 3)).astype(np.float32)
    np.testing.assert_array_equal(_weights(averaged(_model(new), _model(old), 1.0)[0])["w"], new)
    np.testing.assert_array_equal(_weights(averaged(_model(new), _model(old), 0.0)[0])["w"], old)


def test_two_different_networks_are_refused_by_name() -> None:
    w = np.ones((2, 3), np.float32)
    with pytest.raises(ValueError, match="different initializers"):
        averaged(_model(w, name="w"), _model(w, name="v"), 0.5)
    with pytest.raises(ValueError, match="initializer w"):
        averaged(_model(w), _model(np.ones((3, 2), np.float32), shape=(3, 2)), 0.5)
    with pytest.raises(ValueError, match="integer values differ"):
        averaged(_model(w), _model(w, shape=(3, 2)), 0.5)
    with pytest.raises(ValueError, match="0 to 1"):
        averaged(_model(w), _model(w), 1.5)


def test_the_command_writes_the_average_and_refuses_missing_files(tmp_path: Path) -> None:
    onnx.save(_model(np.full((2, 3), 4.0, np.float32)), str(tmp_path / "new.onnx"))
    onnx.save(_model(np.zeros((2, 3), np.float32)), str(tmp_path / "old.onnx"))
    main([str(tmp_path / "new.onnx"), str(tmp_path / "old.onnx"), str(tmp_path / "out.onnx"), "--share", "0.25"])
    np.testing.assert_allclose(_weights(onnx.load(str(tmp_path / "out.onnx")))["w"], 1.0)
    assert not list(tmp_path.glob("*.part"))
    with pytest.raises(SystemExit, match="no such file"):
        main([str(tmp_path / "gone.onnx"), str(tmp_path / "old.onnx"), str(tmp_path / "x.onnx"), "--share", "0.5"])
