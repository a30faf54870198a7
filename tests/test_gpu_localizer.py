"""The lent-GPU localizer stage (datasets/gpu_localizer.py): its renders, and what it brings back."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import paiscan.datasets.gpu_localizer as gl
import paiscan.datasets.lent_gpu as lent_gpu
from paiscan.datasets.lent_gpu import scaled


def test_the_plan_uses_fresh_seeds_and_every_ruleset_of_the_renderer() -> None:
    assert len({f.seed for f in gl.PLAN}) == len(gl.PLAN)
    assert {f.rules for f in gl.PLAN} == {"riichi", "kansai_boo", "totenko_balance", "boo", "wsom", "jun"}
    assert all(f.n >= 1 for f in scaled(gl.PLAN, 0.0001))


def test_the_weights_come_back_even_when_training_stops_with_an_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rendered: list[Any] = []
    monkeypatch.setattr(lent_gpu, "write_dataset", lambda out, n, seed, **kw: rendered.append((out.name, n, seed)))

    def train(sources: list[Path], out: Path, recipe: Any, export: bool) -> None:
        assert not export and recipe.device == "0" and recipe.cache and recipe.hours == 0.05
        assert [s.name for s in sources] == [f.name for f in gl.PLAN] + ["real", "real"]
        (out / "run" / "weights").mkdir(parents=True)
        (out / "run" / "weights" / "best.pt").write_bytes(b"w")
        raise RuntimeError("stopped")

    monkeypatch.setattr(gl, "train_localizer", train)
    with pytest.raises(RuntimeError):
        gl.main(
            [
                "--out",
                str(tmp_path / "run"),
                "--copy-to",
                str(tmp_path / "back"),
                "--renders",
                str(tmp_path),
                "--real",
                str(tmp_path / "real"),
                "--real",
                str(tmp_path / "real"),
                "--hours",
                "0.05",
                "--scale",
                "0.01",
            ]
        )
    assert [(name, seed) for name, _, seed in rendered] == [(f.name, f.seed) for f in gl.PLAN]
    assert [n for _, n, _ in rendered] == [f.n for f in scaled(gl.PLAN, 0.01)]
    assert (tmp_path / "back" / "best.pt").read_bytes() == b"w"


def test_with_a_first_seed_both_stages_render_the_same_shared_folders(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import paiscan.datasets.gpu_classifier as gc

    asked: list[list[str]] = []

    def render(plan: Any, root: Path, workers: int, crops: bool = False) -> list[Path]:
        asked.append([f.name for f in plan])
        raise RuntimeError("rendered")  # the plan is all this test needs

    for stage in (gc, gl):
        monkeypatch.setattr(stage, "render", render)
    monkeypatch.setattr(gc, "find_cjk_fonts", lambda: ["a CJK font"])
    for stage in (gc, gl):
        with pytest.raises(RuntimeError, match="rendered"):
            stage.main(["--out", str(tmp_path / "run"), "--copy-to", str(tmp_path / "back"), "--first-seed", "1080"])
    shared = [f.name for f in lent_gpu.shared_plan(1080)]
    assert asked == [shared, shared] and shared[0] == "g_riichi_1080"
    assert set(shared).isdisjoint(f.name for f in (*gl.PLAN, *gc.PLAN))  # never a seed the stages used before


def test_the_world_plan_keeps_classic_scenes_beside_the_worlds_variety() -> None:
    world = gl.PLANS["world"]
    earlier = {f.seed for f in (*gl.PLAN, *lent_gpu.shared_plan(1080))}
    assert {f.seed for f in world}.isdisjoint(earlier) and len({f.seed for f in world}) == len(world)
    assert {f.rules for f in world} == {"riichi", "kansai_boo", "totenko_balance", "boo", "wsom", "jun"}
    classic = [f for f in world if f.classic]
    assert classic and all(f.config is not None and not f.config.variety for f in classic)
    assert all(f.config is None for f in world if not f.classic)  # the default config: the world's variety
    assert len({f.name for f in world}) == len(world)


def test_the_plan_is_chosen_by_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[list[str]] = []

    def render(plan: Any, root: Path, workers: int, crops: bool = False) -> list[Path]:
        asked.append([f.name for f in plan])
        raise RuntimeError("rendered")

    monkeypatch.setattr(gl, "render", render)
    for plan in ("17", "world"):
        with pytest.raises(RuntimeError, match="rendered"):
            gl.main(["--out", str(tmp_path / "run"), "--copy-to", str(tmp_path / "back"), "--plan", plan])
    assert asked == [[f.name for f in gl.PLAN], [f.name for f in gl.WORLD_PLAN]]
    with pytest.raises(SystemExit):
        gl.main(["--out", str(tmp_path / "run"), "--copy-to", str(tmp_path / "back"), "--plan", "nope"])
