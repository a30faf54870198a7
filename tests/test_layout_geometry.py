"""The layout's array-at-once geometry (second boxes, clusters, tiles taken near a group, the line
search's band counts, lone tiles continuing a line) against the plain definitions, one pair or one
tile at a time, on generated boxes: a crowded photo's layout runs these over hundreds of boxes."""

from __future__ import annotations

import math
import random
from collections.abc import Callable

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from paiscan.vision.detection import Detection, shares_inside
from paiscan.vision.layout.geometry import (
    CLUSTER_UNITS,
    DUPLICATE_INSIDE,
    DUPLICATE_IOU,
    _clusters,
    _duplicates,
    _geo,
    _Line,
    _nearest,
    _share_inside,
    _take_near,
)
from paiscan.vision.layout.rows import _Along, _band_counts, _first_joining, _joins


@st.composite
def boxes(draw: st.DrawFn, most: int = 40) -> list[Detection]:
    """Tile-sized boxes on a small grid of corners, so that many touch, overlap or repeat."""
    n = draw(st.integers(0, most))
    cols, rows = draw(st.sampled_from([(6, 2), (30, 12)]))  # crowded or spread out
    out = []
    for i in range(n):
        x, y = draw(st.integers(0, cols)) * 10.0, draw(st.integers(0, rows)) * 12.0
        w, h = draw(st.sampled_from([20.0, 26.0, 30.0, 34.0])), draw(st.sampled_from([26.0, 30.0, 40.0]))
        conf = draw(st.integers(1, 99)) / 100.0
        out.append(Detection(i % 34, conf, (x, y, x + w, y + h), False, ((i % 34, 0.9),), 0.0, 0.9))
    return out


def duplicates_one_pair_at_a_time(dets: list[Detection]) -> set[int]:
    out: set[int] = set()
    order = sorted(range(len(dets)), key=lambda i: -dets[i].confidence)
    for k, i in enumerate(order):
        if i in out:
            continue
        ax1, ay1, ax2, ay2 = dets[i].box
        for j in order[k + 1 :]:
            bx1, by1, bx2, by2 = dets[j].box
            iw, ih = min(ax2, bx2) - max(ax1, bx1), min(ay2, by2) - max(ay1, by1)
            if iw <= 0 or ih <= 0:
                continue
            inter, a, b = iw * ih, (ax2 - ax1) * (ay2 - ay1), (bx2 - bx1) * (by2 - by1)
            if inter / (a + b - inter) >= DUPLICATE_IOU or inter / min(a, b) >= DUPLICATE_INSIDE:
                out.add(j)
    return out


@settings(max_examples=150, deadline=None)
@given(boxes())
def test_second_boxes_are_those_a_surer_kept_box_overlaps(dets: list[Detection]) -> None:
    assert _duplicates(dets) == duplicates_one_pair_at_a_time(dets)


def test_a_box_taken_for_a_second_box_takes_none() -> None:
    # each box overlaps the next by IoU 0.5; the first and the third only by 0.2
    dets = [Detection(0, c, (x, 0.0, x + 30.0, 40.0)) for c, x in ((0.9, 0.0), (0.8, 10.0), (0.7, 20.0))]
    assert _duplicates(dets) == duplicates_one_pair_at_a_time(dets) == {1}


@settings(max_examples=100, deadline=None)
@given(boxes(), st.data())
def test_shares_inside_are_each_pairs_share(dets: list[Detection], data: st.DataObject) -> None:
    of = data.draw(st.lists(st.integers(0, max(0, len(dets) - 1)), max_size=8)) if dets else []
    shares = shares_inside(dets, of)
    assert shares.shape == (len(dets), len(of))
    for j, a in enumerate(dets):
        for k, m in enumerate(of):
            assert shares[j, k] == _share_inside(a, dets[m])


def clusters_pair_by_pair(dets: list[Detection], idx: list[int], unit: float) -> list[set[int]]:
    g = _geo(dets)
    groups: list[set[int]] = [{i} for i in idx]
    for a in idx:
        for b in idx:
            if math.dist(g.pts[a], g.pts[b]) <= CLUSTER_UNITS * unit:
                ga, gb = next(s for s in groups if a in s), next(s for s in groups if b in s)
                if ga is not gb:
                    groups.remove(gb)
                    ga |= gb
    return groups


@settings(max_examples=150, deadline=None)
@given(boxes(), st.sampled_from([8.0, 15.0, 25.0]), st.randoms(use_true_random=False))
def test_clusters_are_the_touching_groups_in_input_order(
    dets: list[Detection], unit: float, rnd: random.Random
) -> None:
    idx = list(range(len(dets)))
    rnd.shuffle(idx)
    got = _clusters(_geo(dets), idx, unit)
    assert sorted(map(sorted, got)) == sorted(map(sorted, clusters_pair_by_pair(dets, idx, unit)))
    firsts = [next(i for i in idx if i in grp) for grp in got]  # groups by their first tile, each in input order
    assert firsts == [grp[0] for grp in got] and sorted(firsts, key=idx.index) == firsts
    assert all(list(grp) == sorted(grp, key=idx.index) for grp in got)


def take_near_one_tile_at_a_time(
    dets: list[Detection],
    pool: list[int],
    into: list[int],
    reach: list[int],
    within: float,
    admits: Callable[[int], bool],
) -> None:
    g = _geo(dets)
    grew = bool(reach)
    while grew:
        grew = False
        for j in list(pool):
            if admits(j) and _nearest(g, reach, (j,)) <= within:
                into.append(j)
                pool.remove(j)
                if reach is not into:
                    reach.append(j)
                grew = True


@settings(max_examples=150, deadline=None)
@given(boxes(), st.integers(0, 4), st.sampled_from([20.0, 35.0, 60.0]), st.booleans(), st.integers(1, 4))
def test_tiles_are_taken_near_as_one_at_a_time(
    dets: list[Detection], seeds: int, within: float, same: bool, odd: int
) -> None:
    Take = Callable[[list[int], list[int], list[int], float, Callable[[int], bool]], None]

    def run(take_near: Take) -> tuple[list[int], list[int], list[int]]:
        pool = list(range(seeds, len(dets)))
        into = list(range(min(seeds, len(dets))))
        reach = into if same else list(into)
        take_near(pool, into, reach, within, lambda j: j % odd != 0)
        return pool, into, reach

    fast = run(lambda *a: _take_near(_geo(dets), *a))
    plain = run(lambda *a: take_near_one_tile_at_a_time(dets, *a))
    assert fast == plain


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 60), st.integers(1, 181), st.randoms(use_true_random=False))
def test_band_counts_are_the_tiles_within_each_band(n: int, n_angles: int, rnd: random.Random) -> None:
    rng = np.random.default_rng(rnd.randrange(1 << 30))
    v = rng.integers(0, 40, (n, n_angles)).astype(np.float32) * 0.5  # ties on the band's edge too
    size = rng.integers(2, 9, n).astype(np.float64)
    tol = (0.5 * np.maximum(size[:, None], size[None, :])).astype(np.float32)
    plain = (np.abs(v[:, None, :] - v[None, :, :]) <= tol[:, :, None]).sum(axis=0)
    assert np.array_equal(_band_counts(v, tol), plain)


@settings(max_examples=150, deadline=None)
@given(boxes(most=30), st.integers(3, 8), st.sampled_from([0.0, 0.05, 0.5]))
def test_the_first_lone_tile_joining_a_line_is_the_first_joins_says(
    dets: list[Detection], members: int, tilt: float
) -> None:
    if len(dets) <= members:
        return
    g = _geo(dets)
    d = np.array([math.cos(tilt), math.sin(tilt)])
    line = _Line(list(range(members)), d, g.pts[:members].mean(axis=0), {})
    rest = list(range(members, len(dets)))
    first = _first_joining(g, line, rest, _Along.of(g, line))
    one_by_one = [k for k in rest if _joins(g, line, [k])]
    assert first == (rest.index(one_by_one[0]) if one_by_one else None)
