"""What the lent-GPU stages share (datasets/lent_gpu.py): the renders' plan and copying results out."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

import paiscan.datasets.lent_gpu as lg


def test_a_scaled_plan_keeps_every_folder_and_its_seed() -> None:
    plan = [lg.Folder("riichi", 3400, 1060), lg.Folder("jun", 450, 1065)]
    assert [(f.rules, f.n, f.seed) for f in lg.scaled(plan, 0.01)] == [("riichi", 34, 1060), ("jun", 4, 1065)]
    assert [f.n for f in lg.scaled(plan, 0.0)] == [1, 1]
    assert plan[0].name == "g_riichi_1060"


def test_render_makes_only_the_folders_not_yet_complete(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[tuple[str, int, int, bool]] = []
    monkeypatch.setattr(
        lg,
        "write_dataset",
        lambda out, n, seed, rules, crops, workers, progress, config: made.append((out.name, n, seed, crops)),
    )
    done = tmp_path / "g_jun_2" / "labels"
    done.mkdir(parents=True)
    for k in range(3):
        (done / f"{k}.txt").write_text("")
    folders = lg.render([lg.Folder("riichi", 5, 1), lg.Folder("jun", 3, 2)], tmp_path, 4, crops=True)
    assert [f.name for f in folders] == ["g_riichi_1", "g_jun_2"] and made == [("g_riichi_1", 5, 1, True)]


def test_a_far_folder_renders_at_its_own_size_and_fill(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    configs: dict[str, object] = {}
    monkeypatch.setattr(
        lg,
        "write_dataset",
        lambda out, n, seed, rules, crops, workers, progress, config: configs.__setitem__(out.name, config),
    )
    far = lg.Folder("riichi", 2, 7, size=(2000, 1500), fill=(0.3, 0.6))
    assert lg.scaled([far], 0.01) == [lg.Folder("riichi", 1, 7, size=(2000, 1500), fill=(0.3, 0.6))]
    lg.render([far, lg.Folder("jun", 2, 8)], tmp_path, 1)
    near = configs["g_jun_8"]
    got = configs["gf_riichi_7"]
    assert near is None and isinstance(got, lg.SynthConfig)
    assert (got.width, got.height, got.fill) == (2000, 1500, (0.3, 0.6))


def test_copy_out_brings_back_only_what_changed_and_never_a_partial_file(tmp_path: Path) -> None:
    run, dest = tmp_path / "run", tmp_path / "out"
    (run / "weights").mkdir(parents=True)
    dest.mkdir()
    names = ("weights/best.pt", "results.csv", "../metrics.json", "weights/none.pt")
    (run / "weights" / "best.pt").write_bytes(b"epoch 1")
    (run / "results.csv").write_text("epoch\n1\n")
    (tmp_path / "metrics.json").write_text("{}")
    lg.copy_out(run, dest, names)
    assert sorted(p.name for p in dest.iterdir()) == ["best.pt", "metrics.json", "results.csv"]
    (dest / "best.pt").write_bytes(b"kept")  # newer than the run's: not copied over
    lg.copy_out(run, dest, names)
    assert (dest / "best.pt").read_bytes() == b"kept"
    (run / "weights" / "best.pt").write_bytes(b"epoch 2")
    later = (dest / "best.pt").stat().st_mtime + 5
    os.utime(run / "weights" / "best.pt", (later, later))
    lg.copy_out(run, dest, names)
    assert (dest / "best.pt").read_bytes() == b"epoch 2"
    assert not list(dest.glob("*.part"))


def test_copying_runs_while_the_block_does_and_once_more_when_it_fails(tmp_path: Path) -> None:
    run, dest = tmp_path / "run", tmp_path / "out"
    run.mkdir()
    with pytest.raises(RuntimeError), lg.copying(run, dest, ("a.pt", "b.pt"), every_s=0.01):
        (run / "a.pt").write_bytes(b"a")
        deadline = time.time() + 5
        while not (dest / "a.pt").exists() and time.time() < deadline:
            time.sleep(0.01)
        assert (dest / "a.pt").read_bytes() == b"a"  # copied while the block still ran
        (run / "b.pt").write_bytes(b"b")
        raise RuntimeError("stopped")
    assert (dest / "b.pt").read_bytes() == b"b"
