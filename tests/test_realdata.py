"""paiscan.datasets.realdata: both sets of the supplement, split by source photo, hard negatives marked."""

from __future__ import annotations

from pathlib import Path

from paiscan.datasets.realdata import ATTRIBUTIONS, REALDATA_SETS, iter_realdata, source_photos, split_of


def _set(root: Path, rows: list[tuple[str, str, str]]) -> Path:
    """A set folder: (image name, its label text, its source photo) per image."""
    (root / "images").mkdir(parents=True)
    (root / "labels").mkdir()
    lines = ["file,label_file,source_photo"]
    for name, label, source in rows:
        (root / "images" / name).write_bytes(b"")
        (root / "labels" / (Path(name).stem + ".txt")).write_text(label)
        lines.append(f"images/{name},labels/{Path(name).stem}.txt,{source}")
    (root / "manifest.csv").write_text("\n".join(lines) + "\n")
    return root


def test_the_copies_of_one_photo_land_on_the_same_side(tmp_path: Path) -> None:
    sources = [f"photo{k}" for k in range(40)]
    rows = [(f"{s}.rf.{c}.jpg", "3 0.5 0.5 0.1 0.1\n", s) for s in sources for c in "abc"]
    root = _set(tmp_path / "riichi-mahjong-rf", rows)
    assert source_photos(root)["photo7.rf.b.jpg"] == "photo7"
    split: dict[str, set[str]] = {}
    for item in iter_realdata(root):
        split.setdefault(item.image.name.split(".rf.")[0], set()).add(item.split)
    assert all(len(sides) == 1 for sides in split.values())
    assert {s: next(iter(v)) for s, v in split.items()} == {s: split_of(s) for s in sources}
    assert {"train", "holdout"} <= {next(iter(v)) for v in split.values()}  # both sides used


def test_a_photo_without_a_source_column_is_its_own_photo_and_an_empty_label_is_a_negative(tmp_path: Path) -> None:
    root = tmp_path / "chinese-mahjong-rf"
    _set(root, [("a.jpg", "3 0.5 0.5 0.1 0.1\n", ""), ("keyboard.jpg", "", "")])
    items = {i.image.name: i for i in iter_realdata(root)}
    assert items["a.jpg"].split == split_of("a.jpg") and not items["a.jpg"].negative
    assert items["keyboard.jpg"].negative and items["keyboard.jpg"].source == "chinese-mahjong-rf"


def test_every_set_has_its_attribution() -> None:
    assert set(ATTRIBUTIONS) == set(REALDATA_SETS)
    assert all("CC BY 4.0" in text for text in ATTRIBUTIONS.values())
