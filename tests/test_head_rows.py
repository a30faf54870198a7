"""Grafting class-head rows into the committed int8 classifier: the chosen output changes as the
donor's float row says, and every other output reads every crop exactly as before."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import numpy_helper

from paiscan.datasets.head_rows import Q_WEIGHT, float_head, graft_head_rows, main
from paiscan.vision.models import NOT_A_TILE, make_session

CLASSIFIER = Path(__file__).resolve().parents[1] / "models" / "classifier.onnx"


def _logits(path: Path, x: np.ndarray) -> np.ndarray:
    session = make_session(path)
    return np.asarray(session.run(["logits"], {"images": x})[0])


def _crops(n: int = 16) -> np.ndarray:
    shape = make_session(CLASSIFIER).get_inputs()[0].shape
    return np.random.default_rng(3).uniform(0.0, 1.0, (n, 3, int(shape[2]), int(shape[3]))).astype(np.float32)


def _head(path: Path) -> np.ndarray:
    inits = {t.name: numpy_helper.to_array(t) for t in onnx.load(str(path)).graph.initializer}
    return inits[Q_WEIGHT]


def test_a_grafted_row_changes_that_output_alone(tmp_path: Path) -> None:
    q = _head(CLASSIFIER)
    features = q.shape[1]
    row = np.linspace(-0.5, 0.5, features, dtype=np.float32)  # a row the committed file does not hold
    out = graft_head_rows(CLASSIFIER, tmp_path / "grafted.onnx", {NOT_A_TILE: (row, 0.25)})
    new = _head(out)
    assert np.array_equal(np.delete(new, NOT_A_TILE, axis=0), np.delete(q, NOT_A_TILE, axis=0))
    assert not np.array_equal(new[NOT_A_TILE], q[NOT_A_TILE])
    x = _crops()
    before, after = _logits(CLASSIFIER, x), _logits(out, x)
    others = [i for i in range(before.shape[1]) if i != NOT_A_TILE]
    assert np.array_equal(before[:, others], after[:, others])
    assert not np.allclose(before[:, NOT_A_TILE], after[:, NOT_A_TILE])


def test_grafting_the_files_own_row_back_changes_no_output(tmp_path: Path) -> None:
    from paiscan.datasets.quantize import dequantized

    floats = {
        t.name: numpy_helper.to_array(t)
        for t in onnx.load(str(dequantized(CLASSIFIER, tmp_path / "float.onnx"))).graph.initializer
    }
    weight, bias = floats["classify.weight_DequantizeLinear_Output"], floats["classify.bias"]
    out = graft_head_rows(
        CLASSIFIER, tmp_path / "same.onnx", {NOT_A_TILE: (weight[NOT_A_TILE], float(bias[NOT_A_TILE]))}
    )
    x = _crops()
    assert np.allclose(_logits(CLASSIFIER, x), _logits(out, x), atol=1e-5)


def test_bad_inputs_are_refused_with_the_reason(tmp_path: Path) -> None:
    q = _head(CLASSIFIER)
    with pytest.raises(ValueError, match="rows of"):
        graft_head_rows(CLASSIFIER, tmp_path / "x.onnx", {q.shape[0]: (np.zeros(q.shape[1], np.float32), 0.0)})
    with pytest.raises(ValueError, match="rows of"):
        graft_head_rows(CLASSIFIER, tmp_path / "x.onnx", {0: (np.zeros(q.shape[1] + 1, np.float32), 0.0)})
    with pytest.raises(ValueError, match="no float class head"):
        float_head(CLASSIFIER)  # an int8 file is no donor
    assert not (tmp_path / "x.onnx").exists()


def test_the_command_line_grafts_from_a_float_donor(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    q = _head(CLASSIFIER)
    donor = onnx.helper.make_model(
        onnx.helper.make_graph(
            [],
            "donor",
            [],
            [],
            initializer=[
                numpy_helper.from_array(np.full(q.shape, 0.01, np.float32), "classify.weight"),
                numpy_helper.from_array(np.zeros(q.shape[0], np.float32), "classify.bias"),
            ],
        )
    )
    onnx.save(donor, str(tmp_path / "donor.onnx"))
    main([str(CLASSIFIER), str(tmp_path / "donor.onnx"), str(tmp_path / "out.onnx"), "--row", str(NOT_A_TILE)])
    assert "rows [38]" in capsys.readouterr().out
    new = _head(tmp_path / "out.onnx")
    assert np.all(new[NOT_A_TILE] == new[NOT_A_TILE][0]) and new[NOT_A_TILE][0] != 0
