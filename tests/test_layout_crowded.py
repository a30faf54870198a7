"""A photo with many lines long enough to be a hand (a tray, a table, a product grid): only the
likeliest few are read as the hand, and they are the very candidates the whole layout ranks first."""

from __future__ import annotations

from test_layout_helpers import layout_boxes, names, shuffled

from paiscan.vision.detection import Detection
from paiscan.vision.layout import analyse_layout, hand_prior
from paiscan.vision.reading import MAX_ROWS, read_hand

HAND = "123m456p789s1122z 2z"


def crowded_photo() -> tuple[list[Detection], list[Detection]]:
    """The hand near the camera (large tiles) below eight rows of fourteen smaller tiles."""
    hand = layout_boxes(HAND, origin=(100, 900), unit=50)
    rows = [
        layout_boxes("19m19p19s12345677z", origin=(60 + 520 * (k % 2), 80 + 90 * (k // 2)), unit=24 + k)
        for k in range(8)
    ]
    return hand, shuffled(hand + [d for r in rows for d in r])


def test_only_the_likeliest_lines_are_read_and_they_are_the_first_candidates() -> None:
    _, dets = crowded_photo()
    whole = analyse_layout(dets)
    assert len(whole.candidates) > MAX_ROWS
    capped = analyse_layout(dets, max_candidates=MAX_ROWS)
    assert [c.to_dict() for c in capped.candidates] == [c.to_dict() for c in whole.candidates[:MAX_ROWS]]
    assert [c.prior for c in whole.candidates] == sorted((c.prior for c in whole.candidates), reverse=True)


def test_the_hand_among_many_lines_is_the_nearest_and_reads_whole() -> None:
    hand, dets = crowded_photo()
    r = read_hand(dets)
    assert r.best is not None and r.best.valid
    assert sorted(names(dets, r.row.row.dets)) == sorted(names(hand, range(len(hand))))


def test_the_prior_favours_near_tiles_and_a_hands_count() -> None:
    assert hand_prior(40.0, 14) > hand_prior(30.0, 14)
    assert hand_prior(40.0, 14) > hand_prior(40.0, 10) == hand_prior(40.0, 24)
