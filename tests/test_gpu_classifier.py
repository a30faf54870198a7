"""The lent-GPU classifier stage (datasets/gpu_classifier.py): its epochs fit the time, its results come back."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

import paiscan.datasets.gpu_classifier as gc
from paiscan.datasets.train_classifier import ClassifierRecipe


def test_the_epochs_fit_the_time_given_and_pay_for_each_epochs_start() -> None:
    assert gc.epochs_for(120, 25_000, 120_000) == 13  # 4.8 s of views + 4 s besides, each
    assert gc.epochs_for(120, 25_000, 120_000, overhead_s=0.0) == 25
    assert gc.epochs_for(5, 1_000, 120_000) == 1  # never none
    assert gc.epochs_for(10_000, 1e6, 1_000) == 40  # and never past the cap


def test_the_pace_of_the_views_is_measured_on_the_crops_given() -> None:
    crops = [
        (np.random.default_rng(k).integers(0, 255, (128, 96, 3), dtype=np.uint8), k, float("nan")) for k in range(5)
    ]
    rate = gc.views_per_second(crops, ClassifierRecipe(batch=8), batches=3)
    assert 0 < rate < float("inf")


def test_the_results_come_back_even_when_training_stops_with_an_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rendered: list[Any] = []

    def render(plan: Any, root: Path, workers: int, crops: bool = False) -> list[Path]:
        rendered.append(([f.seed for f in plan], crops))
        return [root / f.name for f in plan]

    monkeypatch.setattr(gc, "render", render)
    monkeypatch.setattr(gc, "find_cjk_fonts", lambda: ["a CJK font"])  # whatever this machine has
    monkeypatch.setattr(gc, "collect_synth", lambda dirs, size, threads: [(np.zeros((4, 4, 3), np.uint8), 1, 0.0)])
    monkeypatch.setattr(gc, "views_per_second", lambda crops, recipe: 25_000.0)

    def train(dirs: list[Path], out: Path, recipe: ClassifierRecipe, log: Any) -> None:
        assert recipe.device == "cuda" and recipe.workers == 6 and recipe.epochs == 13
        assert recipe.init_onnx == "stage.onnx" and recipe.real_runtime_boxes and recipe.not_a_tile_per_image == 2
        out.mkdir(parents=True)
        (out / "checkpoint.pt").write_bytes(b"epoch 3")
        raise RuntimeError("stopped")

    monkeypatch.setattr(gc, "train_classifier", train)
    with pytest.raises(RuntimeError):
        gc.main(
            [
                "--out",
                str(tmp_path / "run"),
                "--copy-to",
                str(tmp_path / "back"),
                "--renders",
                str(tmp_path),
                "--init",
                "stage.onnx",
                "--workers",
                "6",
                "--train-seconds",
                "120",
            ]
        )
    assert rendered == [([f.seed for f in gc.PLAN], True)]
    assert (tmp_path / "back" / "checkpoint.pt").read_bytes() == b"epoch 3"
    assert not list((tmp_path / "back").glob("*.part"))


def test_the_plans_seeds_are_new_to_both_stages() -> None:
    from paiscan.datasets.gpu_localizer import PLAN as LOCALIZER_PLAN
    from paiscan.datasets.gpu_localizer import WORLD_PLAN

    seeds = [f.seed for f in (*gc.PLAN, *LOCALIZER_PLAN, *WORLD_PLAN)]
    assert len(set(seeds)) == len(seeds)  # no seed shared between the two stages


def test_without_cjk_fonts_the_stage_refuses_before_rendering(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(gc, "find_cjk_fonts", lambda: [])
    monkeypatch.setattr(gc, "render", lambda *a, **k: pytest.fail("rendered without fonts"))
    with pytest.raises(SystemExit, match="PAISCAN_FONTS_DIR"):
        gc.main(["--out", str(tmp_path / "run"), "--copy-to", str(tmp_path / "back")])


def test_far_renders_join_the_plan_and_the_manzu_weight_reaches_the_recipe(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    planned: list[Any] = []
    monkeypatch.setattr(
        gc, "render", lambda plan, root, workers, crops=False: planned.extend(plan) or [root / f.name for f in plan]
    )
    monkeypatch.setattr(gc, "find_cjk_fonts", lambda: ["a CJK font"])
    monkeypatch.setattr(gc, "collect_synth", lambda dirs, size, threads: [(np.zeros((4, 4, 3), np.uint8), 1, 0.0)])
    monkeypatch.setattr(gc, "views_per_second", lambda crops, recipe: 25_000.0)
    recipes: list[ClassifierRecipe] = []
    monkeypatch.setattr(gc, "train_classifier", lambda dirs, out, recipe, log: recipes.append(recipe))
    gc.main(
        [
            "--out",
            str(tmp_path / "run"),
            "--copy-to",
            str(tmp_path / "back"),
            "--renders",
            str(tmp_path),
            "--first-seed",
            "1100",
            "--far",
            "800",
            "--manzu-weight",
            "2",
        ]
    )
    far = planned[-1]
    assert [f.seed for f in planned] == list(range(1100, 1107))
    assert (far.rules, far.n, far.size, far.fill) == ("riichi", 800, gc.FAR_SIZE, gc.FAR_FILL)
    assert all(f.size is None for f in planned[:-1])
    assert recipes[0].manzu_weight == 2
