"""The localizer's training folder (datasets/train_localizer.py::build_two_class)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any, ClassVar

import pytest

from paiscan.datasets.realdata import split_of
from paiscan.datasets.train_localizer import LocalizerRecipe, build_two_class, train_localizer


def _source(root: Path, names: list[str]) -> Path:
    (root / "images").mkdir(parents=True)
    (root / "labels").mkdir()
    for name in names:
        (root / "images" / f"{name}.jpg").write_bytes(b"jpeg")
        (root / "labels" / f"{name}.txt").write_text("5 0.5 0.5 0.1 0.1\n37 0.2 0.2 0.1 0.1\n")
    return root


def test_classes_become_face_up_and_face_down_and_a_folder_given_twice_trains_twice(tmp_path: Path) -> None:
    names = [f"r{k}" for k in range(40)]
    val = {n for n in names if split_of(f"{n}.jpg", 8) == "holdout"}
    assert val and len(val) < len(names)  # both splits are exercised
    src = _source(tmp_path / "src", names)
    other = _source(tmp_path / "other", ["o1"])
    yaml = build_two_class([src, other, src], tmp_path / "work")
    work = yaml.parent
    train = sorted(p.name for p in (work / "images" / "train").iterdir())
    valid = sorted(p.name for p in (work / "images" / "val").iterdir())
    n_train = len(names) - len(val)
    assert len([t for t in train if t.startswith("src_")]) == 2 * n_train
    assert len(valid) == len(val) + (1 if split_of("o1.jpg", 8) == "holdout" else 0)  # validated once
    assert not set(train) & set(valid)
    label = (work / "labels" / "train" / train[0].replace(".jpg", ".txt")).read_text().splitlines()
    assert [line.split()[0] for line in label] == ["0", "1"]
    assert (work / "images" / "train" / train[0]).resolve().parent in {src / "images", other / "images"}


class _FakeYOLO:
    """Stands in for ultralytics.YOLO: records what training was asked for, validates to fixed figures."""

    calls: ClassVar[list[tuple[str, dict[str, Any]]]] = []

    def __init__(self, weights: str) -> None:
        self.calls.append(("load", {"weights": weights}))

    def train(self, **kwargs: Any) -> None:
        self.calls.append(("train", kwargs))

    def val(self, **kwargs: Any) -> Any:
        self.calls.append(("val", kwargs))
        box = SimpleNamespace(map50=0.9, map=0.7, mp=0.95, mr=0.93)
        return SimpleNamespace(box=box)


def _fake_ultralytics(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, dict[str, Any]]]:
    _FakeYOLO.calls = []
    monkeypatch.setitem(sys.modules, "ultralytics", SimpleNamespace(YOLO=_FakeYOLO))
    return _FakeYOLO.calls


def test_a_gpu_recipe_reaches_the_trainer_and_export_can_wait(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _fake_ultralytics(monkeypatch)
    src = _source(tmp_path / "src", [f"r{k}" for k in range(40)])
    recipe = LocalizerRecipe(device="0", batch=64, workers=14, cache=True, hours=0.075, lr0=0.001)
    result = train_localizer([src], tmp_path / "run", recipe, log=lambda _: None, export=False)
    ((_, kwargs),) = [c for c in calls if c[0] == "train"]
    assert (kwargs["device"], kwargs["batch"], kwargs["workers"], kwargs["cache"], kwargs["time"]) == (
        "0",
        64,
        14,
        "ram",
        0.075,
    )
    assert kwargs["optimizer"] == "AdamW" and kwargs["lr0"] == 0.001
    assert [c[1]["device"] for c in calls if c[0] == "val"] == ["0"]
    assert json.loads((tmp_path / "run" / "metrics.json").read_text())["recall"] == result["recall"] == 0.93
    assert not (tmp_path / "run" / "localizer.onnx").exists()  # export was left for later

    calls.clear()
    cpu = LocalizerRecipe()
    train_localizer([src], tmp_path / "cpu", cpu, log=lambda _: None, export=False)
    ((_, kwargs),) = [c for c in calls if c[0] == "train"]
    assert kwargs["device"] == "cpu" and kwargs["cache"] is False and "time" not in kwargs


def test_a_finished_run_is_validated_not_trained_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import paiscan.datasets.train_localizer as tl

    calls = _fake_ultralytics(monkeypatch)
    src = _source(tmp_path / "src", [f"r{k}" for k in range(40)])
    weights = tmp_path / "run" / "run" / "weights"
    weights.mkdir(parents=True)
    (weights / "last.pt").write_bytes(b"x")
    (weights / "best.pt").write_bytes(b"x")
    for finished, expected in ((True, []), (False, [{"resume": True}])):
        calls.clear()
        monkeypatch.setattr(tl, "_finished", lambda _path, done=finished: done)
        train_localizer([src], tmp_path / "run", LocalizerRecipe(), log=lambda _: None, export=False)
        assert [c[1] for c in calls if c[0] == "train"] == expected
        assert [c[1]["weights"] for c in calls if c[0] == "load"][-1] == str(weights / "best.pt")


def test_too_few_renders_to_validate_is_a_clear_error(tmp_path: Path) -> None:
    train_only = [n for n in (f"r{k}" for k in range(40)) if split_of(f"{n}.jpg", 8) == "train"][:3]
    with pytest.raises(SystemExit, match="validated"):
        build_two_class([_source(tmp_path / "src", train_only)], tmp_path / "work")
