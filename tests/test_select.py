"""Selecting renders by the melds their hands show (``paiscan.datasets.select``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from paiscan.datasets.select import select


def _synth_folder(root: Path, melds_of: dict[str, list[dict[str, object]]]) -> Path:
    for sub in ("images", "labels", "meta", "structures"):
        (root / sub).mkdir(parents=True)
    for stem, melds in melds_of.items():
        (root / "images" / f"{stem}.jpg").write_bytes(b"jpeg " + stem.encode())
        (root / "labels" / f"{stem}.txt").write_text("0 0.5 0.5 0.1 0.1\n")
        (root / "meta" / f"{stem}.json").write_text("{}")
        (root / "structures" / f"{stem}.json").write_text(json.dumps({"hand": "11m", "melds": melds}))
    return root


def test_the_renders_with_an_added_kan_are_linked_not_copied(tmp_path: Path) -> None:
    data = _synth_folder(
        tmp_path / "synth",
        {
            "a": [{"type": "kan", "tiles": "5555p", "open": True, "added": True}],
            "b": [{"type": "kan", "tiles": "5555p", "open": False}, {"type": "pon", "tiles": "111z"}],
            "c": [],
        },
    )
    out = tmp_path / "sel"
    assert select(data, out, "added_kan") == 1
    assert sorted(p.name for p in (out / "images").iterdir()) == ["a.jpg"]
    assert (out / "images" / "a.jpg").is_symlink() and (out / "images" / "a.jpg").read_bytes() == b"jpeg a"
    assert sorted(p.name for p in (out / "labels").iterdir()) == ["a.txt"]
    assert select(data, out, "kan") == 2  # made anew: b joins, nothing left over
    assert sorted(p.name for p in (out / "structures").iterdir()) == ["a.json", "b.json"]
    assert select(data, out, "closed_kan") == 1


def test_an_unknown_meld_kind_or_a_folder_without_structures_is_refused(tmp_path: Path) -> None:
    data = _synth_folder(tmp_path / "synth", {"a": []})
    with pytest.raises(SystemExit, match="--meld"):
        select(data, tmp_path / "sel", "chankan")
    with pytest.raises(SystemExit, match="--data"):
        select(tmp_path / "nothing", tmp_path / "sel", "kan")
