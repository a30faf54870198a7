"""The committed ONNX models, end to end, on renders they never trained on (fast: a few dozen).

The floors below sit under the figures measured for these exact files (see the model cards), so
a broken export, a changed preprocessing or a worse model fails here; the full figures come from
``benchmarks/eval_models.py``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from datasets.evaluate import evaluate_folder, paiscan_detector, same_structure
from datasets.synth import write_dataset
from vision.pipeline import PhotoReader

ROOT = Path(__file__).resolve().parents[1]
HELDOUT_SEED = 990001  # never used by a training run


@pytest.fixture(scope="module")
def reader() -> PhotoReader:
    r = PhotoReader.load()
    r.warm()
    return r


@pytest.fixture(scope="module")
def heldout(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("heldout")
    write_dataset(out, 24, HELDOUT_SEED, rules="riichi", crops=False, workers=1, progress=False)
    return out


def test_models_are_small_enough() -> None:
    for name in ("localizer.onnx", "classifier.onnx"):
        assert (ROOT / "models" / name).stat().st_size <= 15 * 1024 * 1024
        assert (ROOT / "models" / name.replace(".onnx", ".md")).exists()


def test_heldout_metrics_above_floor(reader: PhotoReader, heldout: Path) -> None:
    m = evaluate_folder(heldout, paiscan_detector(reader))
    print(json.dumps(m))
    assert m["n_images"] == 24
    assert m["localization_recall"] >= 0.85
    assert m["cls_accuracy"] >= 0.80
    assert m["tile_precision"] >= 0.70


def test_bundled_example_reads_exactly(reader: PhotoReader) -> None:
    truth = json.loads((ROOT / "examples" / "photo.json").read_text())
    result = reader.read((ROOT / "examples" / "photo.jpg").read_bytes(), rules="riichi")
    assert same_structure(truth, result.reading.hand_dict())
    assert set(result.timings_ms) >= {"decode", "localize", "classify", "layout", "total"}


def test_reading_a_photo_never_imports_torch() -> None:
    code = ("import sys; from vision.pipeline import PhotoReader; r = PhotoReader.load(); "
            "r.read(open('examples/photo.jpg','rb').read()); print('torch' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
