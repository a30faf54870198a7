"""Starting a training stage from a committed ONNX file (needs the train extra: skipped without it)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("onnx")

from paiscan.datasets.onnx_init import conv_bn_pairs, load_fused_onnx  # noqa: E402
from paiscan.datasets.train_classifier import build_model, export_onnx  # noqa: E402
from paiscan.vision.models import make_session, softmax  # noqa: E402


def _trained_like(seed: int) -> object:
    """A model whose batch norms are far from identity, as after training."""
    torch.manual_seed(seed)
    model = build_model()
    with torch.no_grad():
        for _, _, bn in conv_bn_pairs(model):
            if bn is not None:
                bn.weight.uniform_(0.5, 2.0)
                bn.bias.uniform_(-0.5, 0.5)
                bn.running_mean.uniform_(-0.3, 0.3)
                bn.running_var.uniform_(0.5, 2.0)
    return model


def test_roundtrip_reproduces_the_onnx_function(tmp_path: Path) -> None:
    path = tmp_path / "classifier.onnx"
    export_onnx(_trained_like(0), path)
    fresh = build_model()
    x = torch.rand(32, 3, 64, 48)
    assert load_fused_onnx(fresh, path, x) == 8
    fresh.eval()
    with torch.no_grad():
        ours = [t.numpy() for t in fresh(x[:5])]
    theirs = make_session(path).run(None, {"images": x[:5].numpy()})
    for a, b in zip(ours, theirs, strict=True):  # class logits and orientation
        assert np.abs(a - b).max() < 1e-3 * max(1.0, float(np.abs(b).max()))
    # the rebuilt batch norms hold the calibration batch's statistics, so train mode is close too
    fresh.train()
    for m in fresh.modules():
        if isinstance(m, torch.nn.Dropout):
            m.eval()  # dropout is noise by design; the claim is about batch norms
    with torch.no_grad():
        train_mode = fresh(x)[0].numpy()
    full = make_session(path).run(None, {"images": x.numpy()})[0]
    assert np.abs(train_mode - full).max() < 0.05 * max(1.0, float(np.abs(full).max()))


def test_shape_mismatch_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "classifier.onnx"
    export_onnx(_trained_like(1), path)
    other = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3, bias=False), torch.nn.BatchNorm2d(8))
    with pytest.raises(ValueError, match="shape"):
        load_fused_onnx(other, path, torch.rand(2, 3, 64, 48))


def test_int8_copy_agrees_and_can_seed_the_next_stage(tmp_path: Path) -> None:
    from paiscan.datasets.quantize import quantize_classifier

    fp32, int8 = tmp_path / "fp32.onnx", tmp_path / "int8.onnx"
    export_onnx(_trained_like(2), fp32)
    x = np.random.default_rng(0).random((64, 3, 64, 48), dtype=np.float32)
    quantize_classifier(fp32, int8, x)
    a = make_session(fp32).run(None, {"images": x})[0]
    b = make_session(int8).run(None, {"images": x})[0]
    assert np.abs(a - b).max() < 0.1 * max(1.0, float(np.abs(a).max()))
    assert (
        make_session(int8).get_modelmeta().custom_metadata_map["classes"]
        == make_session(fp32).get_modelmeta().custom_metadata_map["classes"]
    )
    assert not (tmp_path / "int8.pre.onnx").exists()
    # a QDQ file seeds a training stage: its weights are dequantized into the float model
    fresh = build_model()
    assert load_fused_onnx(fresh, int8, torch.from_numpy(x)) == 8
    fresh.eval()
    with torch.no_grad():
        again = fresh(torch.from_numpy(x[:8]))[0].numpy()
    assert np.abs(again - a[:8]).max() < 0.1 * max(1.0, float(np.abs(a).max()))


def _single_head(model: object) -> object:
    """The earlier classifier layout: one ``nn.Sequential``, the class head last, 37 faces and no
    back class."""
    head = torch.nn.Linear(160, 37)
    with torch.no_grad():
        head.weight.copy_(model.classify.weight[:37])  # type: ignore[attr-defined]
        head.bias.copy_(model.classify.bias[:37])  # type: ignore[attr-defined]
    return torch.nn.Sequential(*model.features, head)  # type: ignore[attr-defined]


def _reads_as_before(logits: np.ndarray, want: np.ndarray, tol: float) -> None:
    """The grown network's first 37 logits are the old ones; the new back and not-a-tile logits
    start as constants (zero weights), whatever the input."""
    assert logits.shape[1] == 39 and want.shape[1] == 37
    assert np.abs(logits[:, :37] - want).max() < tol
    assert np.ptp(logits[:, 37]) < tol and np.ptp(logits[:, 38]) < tol


def test_an_earlier_single_output_model_seeds_the_two_head_network(tmp_path: Path) -> None:
    from paiscan.datasets.train_classifier import load_single_head

    old = _single_head(_trained_like(3))
    x = torch.rand(16, 3, 64, 48)
    old.eval()
    with torch.no_grad():
        want = old(x).numpy()
    # from its checkpoint (a state dict of the Sequential) ...
    fresh = build_model()
    load_single_head(fresh, old.state_dict())
    fresh.eval()
    with torch.no_grad():
        _reads_as_before(fresh(x)[0].numpy(), want, 1e-5)
    # ... and from its ONNX file, whose class head is a Gemm node under another name
    path = tmp_path / "old.onnx"
    torch.onnx.export(
        old,
        (x[:1],),
        str(path),
        input_names=["images"],
        output_names=["logits"],
        dynamic_axes={"images": {0: "batch"}},
        opset_version=17,
        dynamo=False,
    )
    again = build_model()
    assert load_fused_onnx(again, path, x) == 8
    again.eval()
    with torch.no_grad():
        _reads_as_before(again(x)[0].numpy(), want, 1e-3 * max(1.0, float(np.abs(want).max())))
    with pytest.raises(ValueError, match="do not fit"):
        load_single_head(build_model(), {"zzz.weight": torch.zeros(1)})


def test_a_two_head_model_without_the_back_class_seeds_the_grown_network(tmp_path: Path) -> None:
    from paiscan.datasets.train_classifier import fit_class_head, load_weights

    model = _trained_like(4)
    old_state = model.state_dict()
    old_state = {
        **old_state,
        "classify.weight": old_state["classify.weight"][:37],
        "classify.bias": old_state["classify.bias"][:37],
    }
    assert fit_class_head(old_state)["classify.weight"].shape == (39, 160)
    fresh = build_model()
    load_weights(fresh, old_state)
    model.eval()
    fresh.eval()
    x = torch.rand(8, 3, 64, 48)
    with torch.no_grad():
        want = model(x)[0][:, :37].numpy()
        _reads_as_before(fresh(x)[0].numpy(), want, 1e-5)
        assert np.abs(fresh(x)[1].numpy() - model(x)[1].numpy()).max() < 1e-5  # orientation kept


def test_weights_of_one_input_size_start_a_stage_at_another(tmp_path: Path) -> None:
    """A 48x64 file loads into a network run at 60x80 (global pooling), which exports at 60x80 and
    runs through the runtime's Classifier at that size."""
    from paiscan.datasets.train_classifier import evaluate_onnx, model_input
    from paiscan.vision.models import Classifier

    small = tmp_path / "small.onnx"
    export_onnx(_trained_like(3), small)
    fresh = build_model()
    crops = [np.random.default_rng(k).integers(0, 255, (120, 90, 3), dtype=np.uint8) for k in range(8)]
    assert load_fused_onnx(fresh, small, torch.from_numpy(model_input(crops, (60, 80)))) == 8
    big = tmp_path / "big.onnx"
    export_onnx(fresh, big, (60, 80))
    clf = Classifier(big)
    assert (clf.width, clf.height) == (60, 80)
    img, box = np.full((300, 300, 3), 128, np.uint8), [(10.0, 10.0, 70.0, 90.0)]
    probs = clf(img, box)
    assert clf.reads_not_a_tile and clf.classes == list(range(39))
    # the contract ids' probabilities as the network gives them; the rest is NOT_A_TILE's share
    every = softmax(clf.session.run(None, {"images": clf.crops(img, box)})[0])
    assert probs.shape == (1, 38) and np.abs(probs[0] - every[0, :38]).max() < 1e-5
    fresh.eval()
    with torch.no_grad():
        ours = fresh(torch.from_numpy(model_input(crops, (60, 80))))[0].argmax(1).numpy()
    labelled = [(c, int(k), float("nan")) for c, k in zip(crops, ours, strict=True)]
    assert evaluate_onnx(big, labelled) == 1.0  # the file read at its own size agrees with the network


@pytest.mark.parametrize("which", ["not_a_tile", "fives"])
def test_learning_some_rows_alone_keeps_every_other_weight(which: str) -> None:
    from paiscan.datasets.train_classifier import FIVE_ROWS, _rows_only
    from paiscan.vision.models import NOT_A_TILE

    learnt = (NOT_A_TILE,) if which == "not_a_tile" else FIVE_ROWS
    model = _trained_like(5)
    before = {k: v.clone() for k, v in model.state_dict().items()}
    opt = torch.optim.AdamW(_rows_only(model, learnt), lr=1e-2, weight_decay=0.0)
    model.train(False)
    x = torch.rand(8, 3, 64, 48)
    y = torch.tensor([learnt[0]] * 3 + [learnt[-1]] * 2 + [3] * 3)
    for _ in range(3):
        loss = torch.nn.functional.cross_entropy(model(x)[0], y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    after = model.state_dict()
    changed = {k for k in before if not torch.equal(before[k], after[k])}
    assert changed == {"classify.weight", "classify.bias"}
    rows = [
        r
        for r in range(after["classify.weight"].shape[0])
        if not torch.equal(before["classify.weight"][r], after["classify.weight"][r])
    ]
    assert rows == sorted(learnt) and all(
        float(after["classify.bias"][r]) != float(before["classify.bias"][r]) for r in learnt
    )
    kept = [r for r in range(after["classify.bias"].shape[0]) if r not in learnt]
    assert torch.equal(before["classify.bias"][kept], after["classify.bias"][kept])
