"""paiscan.datasets.train_classifier without torch: input sizes of the batches and augmented views."""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from paiscan.datasets.train_classifier import INPUT_SIZE, augment, model_input


@pytest.mark.parametrize("size", [INPUT_SIZE, (60, 80), (64, 88)])
def test_batches_and_views_take_the_requested_input_size(size: tuple[int, int]) -> None:
    crops = [np.random.default_rng(k).integers(0, 255, (130 + k, 97, 3), dtype=np.uint8) for k in range(3)]
    x = model_input(crops, size)
    assert x.shape == (3, 3, size[1], size[0]) and x.dtype == np.float32 and 0.0 <= x.min() <= x.max() <= 1.0
    rng = random.Random(0)
    for crop in crops:
        view, turn = augment(crop, rng, size)
        assert view.shape == (size[1], size[0], 3) and turn in (0.0, 90.0, -90.0, 180.0)


def test_sideways_crops_are_those_whose_face_lies_near_90_degrees() -> None:
    from paiscan.datasets.train_classifier import sideways_crops

    img = np.zeros((4, 4, 3), np.uint8)
    crops = [(img, 1, a) for a in (85.0, 3.0, -100.0, 271.0, 125.0, float("nan"), 180.0)]
    assert [c[2] for c in sideways_crops(crops)] == [85.0, -100.0, 271.0]
    assert [c[2] for c in sideways_crops(crops, within_deg=40.0)] == [85.0, -100.0, 271.0, 125.0]


def test_not_a_tile_crops_come_from_bare_table_and_the_real_racks_false_tiles(tmp_path: Path) -> None:
    from paiscan.datasets.realdata import iter_realdata
    from paiscan.datasets.synth import write_dataset
    from paiscan.datasets.train_classifier import collect_real_false_tiles, collect_table, table_boxes
    from paiscan.vision.models import NOT_A_TILE

    write_dataset(tmp_path, 2, seed=424243, rules="riichi", crops=False, workers=1, progress=False)
    table = collect_table([tmp_path], 3, seed=1)
    assert 0 < len(table) <= 6 and {c for _, c, _ in table} == {NOT_A_TILE}
    assert all(img.shape == (128, 96, 3) and np.isnan(a) for img, _, a in table)
    meta = json.loads(next((tmp_path / "meta").glob("*.json")).read_text())
    for x1, y1, x2, y2 in table_boxes(meta, random.Random(2), 5):  # clear of every tile, background ones too
        assert all(
            x2 <= b["box"][0] or x1 >= b["box"][2] or y2 <= b["box"][1] or y1 >= b["box"][3] for b in meta["boxes"]
        )
    if not any(True for _ in iter_realdata()):
        pytest.skip("no real-photo supplement here")
    false_tiles = collect_real_false_tiles("train")
    assert false_tiles and {c for _, c, _ in false_tiles} == {NOT_A_TILE}


def test_real_crops_leave_out_placeholder_labels_and_can_add_the_localizers_boxes() -> None:
    from paiscan.datasets.realdata import iter_realdata, read_yolo_labels
    from paiscan.datasets.train_classifier import collect_real

    items = list(iter_realdata())
    if not items:
        pytest.skip("no real-photo supplement here")
    plain = collect_real("train")
    # one crop per labelled face of the photos whose classes are real, none of the placeholder ones
    expected = 0
    for item in items:
        if item.split == "train" and item.classes_reliable:
            expected += sum(c < 34 for c, _ in read_yolo_labels(item.labels, 640, 640))
    assert 0.98 * expected <= len(plain) <= expected
    both = collect_real("train", runtime_boxes=True)
    added = Counter(c for _, c, _ in both) - Counter(c for _, c, _ in plain)
    # most labelled tiles are found by the localizer and cut again at its box, with their classes
    assert 0.8 * len(plain) <= len(both) - len(plain) <= len(plain)
    assert set(added) <= {c for _, c, _ in plain} and len(added) >= 30


def _redness(img: np.ndarray) -> float:
    """Mean of red less the larger of green and blue over a crop's inked (not light) pixels."""
    f = img.astype(float)
    ink = f.max(2) - f.min(2) > 40
    ink |= f.mean(2) < np.quantile(f.mean(2), 0.3)
    return float((f[..., 2] - np.maximum(f[..., 0], f[..., 1]))[ink].mean())


def test_real_plain_fives_are_also_cut_turned_all_red(monkeypatch: pytest.MonkeyPatch) -> None:
    import paiscan.datasets.train_classifier as tc
    from paiscan.datasets.realdata import iter_realdata, read_yolo_labels

    fives = [
        item
        for item in iter_realdata()
        if item.split == "train"
        and item.classes_reliable
        and any(c in tc.RED_OF_FIVE for c, _ in read_yolo_labels(item.labels, 1, 1))
    ]
    if not fives:
        pytest.skip("no real-photo supplement here")
    chosen = fives[:: max(1, len(fives) // 6)][:6]
    monkeypatch.setattr(tc, "iter_realdata", lambda: iter(chosen))
    plain, with_red = tc.collect_real("train"), tc.collect_real("train", red_fives=True)
    expected = Counter(
        tc.RED_OF_FIVE[c] for item in chosen for c, _ in read_yolo_labels(item.labels, 1, 1) if c in tc.RED_OF_FIVE
    )
    assert Counter(c for _, c, _ in with_red) - Counter(c for _, c, _ in plain) == expected
    assert [c for _, c, _ in with_red if c < 34] == [c for _, c, _ in plain]  # the plain crops as they were
    # each plain five's crop and its red copy, in order: the copy's ink is redder
    originals = [img for img, c, _ in with_red if c in tc.RED_OF_FIVE]
    copies = [img for img, c, _ in with_red if c in expected]
    assert len(originals) == len(copies) == sum(expected.values())
    gains = [_redness(red) - _redness(orig) for orig, red in zip(originals, copies, strict=True)]
    assert min(gains) > 4 and float(np.mean(gains)) > 12


def test_crops_read_on_threads_are_the_ones_read_in_order(tmp_path: Path) -> None:
    from paiscan.datasets.synth import write_dataset
    from paiscan.datasets.train_classifier import collect_synth, collect_table

    write_dataset(tmp_path, 3, seed=424244, rules="riichi", crops=True, workers=1, progress=False)
    one, four = collect_synth([tmp_path]), collect_synth([tmp_path], threads=4)
    assert len(one) > 20 and [(c, repr(a)) for _, c, a in one] == [(c, repr(a)) for _, c, a in four]  # NaN too
    assert all(np.array_equal(x[0], y[0]) for x, y in zip(one, four, strict=True))
    table_one, table_four = collect_table([tmp_path], 3, seed=5), collect_table([tmp_path], 3, seed=5, threads=4)
    assert table_one and all(np.array_equal(x[0], y[0]) for x, y in zip(table_one, table_four, strict=True))
    assert len(table_one) == len(table_four)


def test_crops_know_their_group_in_the_render_and_indicators_can_weigh_more(tmp_path: Path) -> None:
    from paiscan.datasets.synth import write_dataset
    from paiscan.datasets.train_classifier import (
        CUT_SUFFIX,
        INDICATOR_GROUPS,
        ClassifierRecipe,
        collect_synth_grouped,
        synth_crop_entries,
        synth_crop_files,
        weighted_training_crops,
    )

    write_dataset(tmp_path, 4, seed=424245, rules="riichi", crops=True, workers=1, progress=False)
    entries = list(synth_crop_entries(tmp_path))
    assert [e[:2] for e in entries] == [f[:2] for f in synth_crop_files(tmp_path)]
    for f, cls, _angle, group, cut in entries:  # the group, class and cut are the render's box's
        name, _, k = f.stem.rpartition("_")
        box = json.loads((tmp_path / "meta" / f"{name}.json").read_text())["boxes"][int(k)]
        assert (box["group"], box["cls"], cut) == (group, cls, box["truncated"] >= 0.05)
    groups = Counter(g for *_, g, _cut in entries)
    assert groups["hand"] > 0 and groups["dora"] > 0  # every riichi render shows an indicator
    grouped = collect_synth_grouped([tmp_path])
    plain = weighted_training_crops(grouped, [], ClassifierRecipe())
    heavy = weighted_training_crops(grouped, [], ClassifierRecipe(indicator_weight=3))
    extra = Counter(c for _, c, _ in heavy) - Counter(c for _, c, _ in plain)
    n_ind = sum(g.removesuffix(CUT_SUFFIX) in INDICATOR_GROUPS for _, g in grouped)
    assert len(heavy) - len(plain) == 2 * n_ind and sum(extra.values()) == 2 * n_ind
    assert extra == Counter(
        {
            c: 2 * n
            for c, n in Counter(
                crop[1] for crop, g in grouped if g.removesuffix(CUT_SUFFIX) in INDICATOR_GROUPS
            ).items()
        }
    )


def test_crops_of_tiles_the_frame_cuts_can_weigh_more_but_not_the_background_s() -> None:
    # a tile the frame cuts is read far worse (an indicator 0.87 against 0.996 in frame) and such
    # crops are 2 % of the renders': they are seen cut_weight times an epoch; the background's cut
    # heaps, already half the cut crops, are not
    from paiscan.datasets.train_classifier import CUT_SUFFIX, ClassifierRecipe, weighted_training_crops

    img = np.zeros((4, 4, 3), np.uint8)
    grouped = [
        ((img, 1, 0.0), "hand"),
        ((img, 2, 0.0), "hand" + CUT_SUFFIX),
        ((img, 3, 0.0), "dora" + CUT_SUFFIX),
        ((img, 4, 0.0), "background" + CUT_SUFFIX),
        ((img, 5, 0.0), "dora"),
    ]
    plain = Counter(c for _, c, _ in weighted_training_crops(grouped, [], ClassifierRecipe()))
    assert plain == Counter({1: 1, 2: 1, 3: 1, 4: 1, 5: 1})
    heavy = Counter(
        c for _, c, _ in weighted_training_crops(grouped, [], ClassifierRecipe(cut_weight=3, indicator_weight=2))
    )
    assert heavy == Counter({1: 1, 2: 3, 3: 4, 4: 1, 5: 2})  # a cut indicator weighs as both


def _crops(n: int) -> list[tuple[np.ndarray, int, float]]:
    return [
        (
            np.random.default_rng(k).integers(0, 255, (128, 96, 3), dtype=np.uint8),
            k % 38,
            float("nan") if k % 3 == 0 else 30.0 * k,
        )
        for k in range(n)
    ]


def test_batches_made_here_draw_on_the_runs_generator_as_before() -> None:
    from paiscan.datasets.train_classifier import ClassifierRecipe, epoch_batches, orientation_target, to_tensor_batch

    crops, recipe = _crops(10), ClassifierRecipe(batch=4)
    order = [3, 1, 4, 0, 9, 2, 6, 5, 8, 7]
    batches = list(epoch_batches(crops, order, 2, recipe, 0, random.Random(7)))
    assert len(batches) == 2
    rng = random.Random(7)  # the loop this replaced: one augment call per crop, in order
    for s, (x, y, t) in enumerate(batches):
        idx = order[s * 4 : (s + 1) * 4]
        views = [augment(crops[i][0], rng) for i in idx]
        assert np.array_equal(x, to_tensor_batch([v for v, _ in views]))
        assert y.tolist() == [crops[i][1] for i in idx]
        expected = np.stack([orientation_target(crops[i][2] + turn) for i, (_, turn) in zip(idx, views, strict=True)])
        assert np.array_equal(np.isnan(t), np.isnan(expected)) and np.allclose(
            t[~np.isnan(t)], expected[~np.isnan(expected)]
        )


def test_batches_made_in_worker_processes_do_not_depend_on_how_many() -> None:
    pytest.importorskip("torch")
    from dataclasses import replace

    from paiscan.datasets.train_classifier import AugmentedViews, ClassifierRecipe, epoch_batches

    crops, recipe = _crops(12), ClassifierRecipe(batch=4, seed=3)
    order = list(range(12))[::-1]
    made = {w: list(epoch_batches(crops, order, 3, replace(recipe, workers=w), 2, random.Random(0))) for w in (1, 2)}
    for (x1, y1, t1), (x2, y2, t2) in zip(made[1], made[2], strict=True):
        assert (
            np.array_equal(x1, x2) and np.array_equal(y1, y2) and np.array_equal(np.nan_to_num(t1), np.nan_to_num(t2))
        )
    assert [y.tolist() for _, y, _ in made[1]] == [[crops[i][1] for i in order[s * 4 : (s + 1) * 4]] for s in range(3)]
    views = AugmentedViews(crops, recipe.input_size, 3)
    assert not np.array_equal(views[(2, 0)][0], views[(3, 0)][0])  # another epoch, another view


def test_a_bare_device_number_is_that_cuda_device() -> None:
    from paiscan.datasets.train_classifier import torch_device_name

    assert [torch_device_name(d) for d in ("0", "1", "cuda", "cuda:1", "cpu")] == [
        "cuda:0",
        "cuda:1",
        "cuda",
        "cuda:1",
        "cpu",
    ]
