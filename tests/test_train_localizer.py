"""The localizer's training folder (datasets/train_localizer.py::build_two_class)."""

from __future__ import annotations

from pathlib import Path

from datasets.realdata import split_of
from datasets.train_localizer import build_two_class


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
