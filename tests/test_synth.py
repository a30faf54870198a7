"""Tests of the synthetic photo engine (paiscan.datasets.synth)."""

from __future__ import annotations

import hashlib
import json
import math
import random
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from paiscan.datasets.synth import SynthConfig, render_sample, write_dataset
from paiscan.datasets.synth import art as synth_art
from paiscan.datasets.synth.hands import _private_random_hand, full_set, hand_tiles
from paiscan.datasets.synth.hands import random_hand as synth_random_hand
from paiscan.datasets.synth.scene import TileDims
from paiscan.datasets.synth.tiles import FACE_DOWN, kind_of, parse_tiles, to_mpsz
from paiscan.scoring.generate import random_hand as scoring_random_hand
from paiscan.scoring.registry import get_ruleset

BG = (255, 0, 255)  # magenta: no tile colour is this
PLAIN = SynthConfig(
    effects=False,
    background_color=BG,
    p_black_set=0.0,
    p_cut=0.0,
    instance_map=True,
    p_clutter=0.0,
    p_rack=0.0,
    p_seat_view=0.0,  # nothing but tiles: no rack, no distractor, no automatic table's centre
)


def expected_labels(structure: dict[str, Any], meta: dict[str, Any]) -> Counter[int]:
    """Class multiset a render must label: every tile of the Hand (closed kans show their two
    end tiles face-down) plus the background tiles listed in the meta."""
    ids = hand_tiles(structure)
    for m in structure.get("melds", []):
        if m.get("type") == "kan" and not m.get("open", True):
            kan = parse_tiles(m["tiles"])
            for t in (kan[0], kan[-1]):
                ids.remove(t)
                ids += [FACE_DOWN]
    ids += parse_tiles(meta["background"])
    return Counter(ids)


@pytest.mark.parametrize("rules", ["riichi", "totenko_balance", "kansai_boo", "wsom"])
def test_labels_match_structure(rules: str) -> None:
    for seed in range(6):
        s = render_sample(seed * 7 + 1, rules)
        got = Counter(s.classes) + Counter(s.meta["ignored_classes"])
        assert got == expected_labels(s.structure, s.meta), (rules, seed)
        assert len(s.boxes) == len(s.classes) == len(s.meta["boxes"]) == len(s.yolo_lines())
        h, w = s.image.shape[:2]
        assert (w, h) == (1280, 960)
        for line in s.yolo_lines():
            c, cx, cy, bw, bh = line.split()
            assert 0 <= int(c) <= 37
            assert all(0.0 <= float(v) <= 1.0 for v in (cx, cy, bw, bh))


def test_boxes_enclose_drawn_tiles() -> None:
    n_tight = 0
    for seed in (3, 11, 25, 40, 52, 67, 81, 99):  # until the tight-box check has run on 4 tiles
        if n_tight >= 4:
            break
        s = render_sample(seed, config=PLAIN)
        img, ids = s.image, s.instance_map
        assert ids is not None
        bg = np.all(img == np.array(BG, np.uint8), axis=2)
        covered = np.zeros(bg.shape, bool)
        for box, info in zip(s.boxes, s.meta["boxes"], strict=True):
            x0, y0, x1, y1 = box
            mask = ids == info["place"] + 1
            covered |= mask
            ys, xs = np.nonzero(mask)
            assert len(xs) > 20
            # the tile's pixels are inside its box ...
            assert xs.min() >= x0 - 1 and xs.max() <= x1 + 0.5
            assert ys.min() >= y0 - 1 and ys.max() <= y1 + 0.5
            # ... are drawn (not the table colour) ...
            assert (~bg[mask]).mean() > 0.97
            # ... and the box is tight around a tile that nothing else overlaps
            region = ids[max(int(y0) - 2, 0) : int(y1) + 3, max(int(x0) - 2, 0) : int(x1) + 3]
            alone = not np.isin(region, [0, info["place"] + 1], invert=True).any()
            if info["truncated"] == 0 and alone:
                n_tight += 1
                assert abs(xs.min() - x0) <= 1.5 and abs(xs.max() + 1 - x1) <= 1.5
                assert abs(ys.min() - y0) <= 1.5 and abs(ys.max() + 1 - y1) <= 1.5
        # nothing but tiles is drawn: outside every tile the table is untouched
        outside = ~cv2.dilate((ids > 0).astype(np.uint8), np.ones((3, 3), np.uint8)).astype(bool)
        assert bg[outside].mean() > 0.999
        # every labelled tile shows up somewhere
        assert covered.sum() > 0
    assert n_tight >= 4


def test_layout_follows_melds() -> None:
    found: Counter[str] = Counter()
    for seed in range(60):
        s = render_sample(seed, config=PLAIN)
        by_meld: dict[int, list[dict[str, Any]]] = {}
        for b in s.meta["boxes"]:
            if b["group"] == "meld":
                by_meld.setdefault(b["group_index"], []).append(b)
        for mi, meld in enumerate(s.structure.get("melds", [])):
            boxes = by_meld.get(mi, [])
            n_side = sum(b["rotated"] for b in boxes)
            n_down = sum(b["face_down"] for b in boxes)
            if meld["type"] == "kan" and not meld.get("open", True):
                assert (n_side, n_down, len(boxes)) == (0, 2, 4)
                found["closed"] += 1
            elif meld["type"] == "kan" and meld.get("added"):
                assert (n_side, n_down, len(boxes)) == (2, 0, 4)
                found["added"] += 1
            else:
                assert n_side == 1 and n_down == 0
                found[meld["type"]] += 1
        win = [b for b in s.meta["boxes"] if b["group"] == "win"]
        assert len(win) == 1 and win[0]["tile"] == s.structure["win_tile"]
        dora = sorted(b["tile"] for b in s.meta["boxes"] if b["group"] == "dora")
        assert dora == sorted(s.structure.get("dora_indicators", []))
    assert found["chi"] and found["pon"] and found["closed"]


def test_same_seed_same_bytes() -> None:
    a = render_sample(1234)
    b = render_sample(1234)
    assert np.array_equal(a.image, b.image)
    assert a.jpeg == b.jpeg
    assert a.yolo_lines() == b.yolo_lines()
    c = render_sample(1235)
    assert not np.array_equal(a.image, c.image) or a.image.shape != c.image.shape


def test_write_dataset_and_crops(tmp_path: Path) -> None:
    cfg = SynthConfig(
        tilt_deg=(0.0, 0.0), roll_deg=(0.0, 0.0), yaw_deg=(0.0, 0.0), p_standing=0.0, p_twist=0.0, p_cut=0.0
    )
    cfg = replace(
        cfg, p_heap=0.0, p_seat_view=0.0, p_rack=0.0
    )  # flat tiles alone: a heap's tile on its side is squarer
    write_dataset(tmp_path / "a", n=4, seed=5, crops=True, progress=False, config=cfg)
    out = tmp_path / "a"
    names = sorted(p.stem for p in (out / "images").glob("*.jpg"))
    assert len(names) == 4
    n_labels = 0
    for name in names:
        assert cv2.imread(str(out / "images" / f"{name}.jpg")) is not None
        lines = (out / "labels" / f"{name}.txt").read_text().splitlines()
        n_labels += len(lines)
        meta = json.loads((out / "meta" / f"{name}.json").read_text())
        assert len(meta["boxes"]) == len(lines)
        for b in meta["boxes"]:
            assert set(b) >= {"rotated", "upside_down", "corners", "face_down"}
            assert len(b["corners"]) == 4
        st = json.loads((out / "structures" / f"{name}.json").read_text())
        assert {"hand", "melds", "win_tile", "dora_indicators"} <= set(st)
    crops = sorted((out / "crops").glob("*/*.jpg"))
    assert len(crops) == n_labels
    n_rot = 0
    for p in crops:
        im = cv2.imread(str(p))
        assert im is not None
        h, w = im.shape[:2]
        # upright, sideways tiles included (a box near square, a sideways tile far off the axis
        # showing its side, is turned or not by the 1.15 rule of ``cut_window``: never clearly landscape)
        assert h > w or w < 1.3 * h, p
        assert int(p.parent.name) in range(38)
    metas = [json.loads(p.read_text()) for p in (out / "meta").glob("*.json")]
    n_rot = sum(b["rotated"] for m in metas for b in m["boxes"])
    assert n_rot > 0  # the check above covered turned crops


def test_write_dataset_deterministic_across_workers(tmp_path: Path) -> None:
    write_dataset(tmp_path / "a", n=3, seed=9, progress=False)
    write_dataset(tmp_path / "b", n=3, seed=9, progress=False, workers=2)
    for sub in ("images", "labels", "structures", "meta"):
        fa = sorted((tmp_path / "a" / sub).iterdir())
        fb = sorted((tmp_path / "b" / sub).iterdir())
        assert [p.name for p in fa] == [p.name for p in fb]
        for x, y in zip(fa, fb, strict=True):
            assert x.read_bytes() == y.read_bytes(), x


def test_works_without_cjk_fonts(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(synth_art, "find_cjk_fonts", lambda: [])
    s = render_sample(77, config=SynthConfig(p_font_redraw=1.0))
    assert s.meta["style"]["font"] is None
    assert len(s.classes) > 10


def test_resolution_option() -> None:
    s = render_sample(5, config=SynthConfig(megapixels=(1.0, 2.0)))
    h, w = s.image.shape[:2]
    assert 0.9e6 <= w * h <= 2.1e6


@pytest.mark.parametrize("rules", ["riichi", "totenko_balance", "kansai_boo", "wsom", "jun"])
def test_private_generator(rules: str) -> None:
    rng = random.Random(3)
    allowed = Counter(full_set(rules))
    for _ in range(40):
        hand = _private_random_hand(rng, rules)
        tiles = hand_tiles(hand)
        n_sets = len(hand["melds"]) * 3 + 1 + len(parse_tiles(hand["hand"]))
        kans = sum(1 for m in hand["melds"] if m["type"] == "kan")
        assert n_sets + kans == 14 + kans or n_sets == 14
        assert not (Counter(tiles) - allowed), hand  # never more than the set holds
        kinds = Counter(kind_of(t) for t in tiles)
        assert max(kinds.values()) <= 4
        if rules == "totenko_balance":
            assert all(kind_of(t) in (0, 4, 8) for t in parse_tiles(hand["nuki"]))
            in_hand = parse_tiles(hand["hand"] + hand["win_tile"]) + [
                t for m in hand["melds"] for t in parse_tiles(m["tiles"])
            ]
            assert all(kind_of(t) >= 9 for t in in_hand)
        if rules in ("wsom", "jun"):
            assert not {34, 35, 36} & set(tiles)


def test_mpsz_round_trip() -> None:
    ids = parse_tiles("123m406p55z?")
    assert ids == [0, 1, 2, 12, 35, 14, 31, 31, 37]
    assert to_mpsz(ids[:-1]) == "123m406p55z"


def test_tiles_dir_resolution(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from paiscan.datasets.synth.config import resolve_tiles_dir

    real = resolve_tiles_dir()
    assert (real / "Export" / "Regular" / "Man1.png").is_file()
    monkeypatch.setenv("PAISCAN_TILES_DIR", str(real))
    assert resolve_tiles_dir() == real
    monkeypatch.setenv("PAISCAN_TILES_DIR", str(tmp_path))  # not a tiles folder: fall back
    assert resolve_tiles_dir() == real
    assert resolve_tiles_dir(SynthConfig(tiles_dir=str(real))) == real


@pytest.mark.parametrize("tiles", ["0555m", "5055p", "5550s"])
def test_closed_kan_shows_its_red_five_face_up(tiles: str) -> None:
    from paiscan.datasets.synth.scene import _layout_meld, random_dims

    rng = np.random.default_rng(0)
    placed: list[Any] = []
    _layout_meld(
        {"type": "kan", "tiles": tiles, "open": False}, 0, 0.0, placed, rng, random_dims(rng), 1.57, lambda: 0.5
    )
    assert [t.face_down for t in placed] == [True, False, False, True]
    assert any(t.cls >= 34 and not t.face_down for t in placed)  # the red five is one of the two shown


def test_crop_angles_follow_the_crops_on_disk(tmp_path: Path) -> None:
    from paiscan.datasets.train_classifier import crop_angles

    write_dataset(tmp_path / "a", n=3, seed=11, crops=True, progress=False)
    out = tmp_path / "a"
    n_turned = 0
    for meta_path in (out / "meta").glob("*.json"):
        meta = json.loads(meta_path.read_text())
        angles = crop_angles(meta)
        boxes = [b for b in meta["boxes"] if b["box"][2] - b["box"][0] >= 4 and b["box"][3] - b["box"][1] >= 4]
        assert len(angles) == len(boxes)
        for k, (b, a) in enumerate(zip(boxes, angles, strict=True)):
            crop = out / "crops" / str(b["cls"]) / f"{meta_path.stem}_{k}.jpg"
            assert crop.is_file()  # crop k of the render is box k
            if b["face_down"]:
                assert np.isnan(a)
                continue
            turned = round(a - b["angle_deg"], 6)
            assert turned in (0.0, 90.0)
            n_turned += turned == 90.0
            # a landscape box is turned: its face's axis then lies along the crop's height
            x1, y1, x2, y2 = b["box"]
            if (x2 - x1) > 1.4 * (y2 - y1):
                assert turned == 90.0
    assert n_turned > 0


def test_renders_have_coloured_backs_and_old_white_backs_are_not_trained_on(tmp_path: Path) -> None:
    from paiscan.datasets.train_classifier import WHITE_BACK_MIN, synth_crop_files

    assert all(min(c) < WHITE_BACK_MIN for c in synth_art.BACK_COLORS)  # a white back is a face-down 白
    with_backs = replace(SynthConfig(), p_dead_wall=1.0)  # every render shows face-down tiles
    write_dataset(tmp_path / "a", n=2, seed=12, crops=True, progress=False, config=with_backs)
    out = tmp_path / "a"
    before = Counter((f.stem.rpartition("_")[0], c == 37) for f, c, _ in synth_crop_files(out))
    metas = sorted((out / "meta").glob("*.json"))
    assert all(before[(m.stem, True)] for m in metas)  # both renders have backs
    old = json.loads(metas[0].read_text())
    old["style"]["back_bgr"] = [225, 232, 236]  # as an earlier renderer drew some
    metas[0].write_text(json.dumps(old))
    after = Counter((f.stem.rpartition("_")[0], c == 37) for f, c, _ in synth_crop_files(out))
    assert after[(metas[0].stem, True)] == 0 and after[(metas[0].stem, False)] == before[(metas[0].stem, False)]
    assert after[(metas[1].stem, True)] == before[(metas[1].stem, True)]


def test_the_faces_the_reader_takes_for_alike_upside_down_are_those_of_the_art() -> None:
    """``paiscan.vision.layout.SAME_UPSIDE_DOWN`` is measured on the renderer's art: the faces within 20 of
    255 (mean, 60×80 px) of their own half-turn, against 23 or more for every other face."""
    from paiscan.vision.layout import SAME_UPSIDE_DOWN

    art = synth_art._load_set(synth_art.tiles_dir_str(SynthConfig()), "Regular", 60)
    diff = {}
    for cls, name in enumerate(synth_art.ART_NAMES):
        pm = art[name]
        face = pm[..., :3] + 255.0 * (1.0 - pm[..., 3:4] / 255.0)  # on white
        diff[cls] = float(np.abs(face - face[::-1, ::-1]).mean())
    alike = {c for c, d in diff.items() if d < 20}
    assert alike == SAME_UPSIDE_DOWN
    assert min(d for c, d in diff.items() if c not in alike) > 22


def test_fonts_in_the_folder_paiscan_fonts_dir_names_are_found(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import shutil

    from paiscan.datasets.synth.art import find_cjk_fonts

    monkeypatch.delenv("PAISCAN_FONTS_DIR", raising=False)
    installed = find_cjk_fonts()
    if not installed:
        pytest.skip("no CJK font installed here to copy")
    carried = tmp_path / "fonts" / ("carried_" + Path(installed[0]).name)
    carried.parent.mkdir()
    shutil.copy(installed[0], carried)
    assert str(carried) not in installed
    monkeypatch.setenv("PAISCAN_FONTS_DIR", str(tmp_path / "fonts"))
    assert str(carried) in find_cjk_fonts()


@pytest.mark.parametrize(
    ("rules", "most_without_kans"),
    [
        ("riichi", 2),
        ("totenko_balance", 2),
        ("boo", 1),
        ("kansai_boo", 1),
        ("wsom", 2),
        ("jun", 2),
    ],
)
def test_renders_show_the_indicators_the_rulesets_table_turns_up(rules: str, most_without_kans: int) -> None:
    """Boo turns up one indicator, kan or not; elsewhere the dora and ura ones, one more per kan.
    The cut keeps the rest of each hand (and so each seed's photo) as the generator drew it."""
    drawn = random.Random(8)
    shown = random.Random(8)
    cut = 0
    for _ in range(120):
        full = scoring_random_hand(drawn, rules)
        hand = synth_random_hand(shown, rules)
        kans = sum(1 for m in hand["melds"] if m["type"] == "kan")
        most = get_ruleset(rules).max_indicators(kans)
        assert most == (most_without_kans * (1 + kans) if most_without_kans == 2 else 1)
        assert hand["dora_indicators"] == full["dora_indicators"][:most]
        assert {k: v for k, v in hand.items() if k != "dora_indicators"} == {
            k: v for k, v in full.items() if k != "dora_indicators"
        }
        cut += len(full["dora_indicators"]) > most
    assert cut > 0  # the generator draws up to three indicators: some are cut


@pytest.mark.parametrize(("rules", "manzu_in_ponds"), [("totenko_balance", False), ("riichi", True)])
def test_someone_s_discards_hold_no_tile_the_rules_set_aside(rules: str, manzu_in_ponds: bool) -> None:
    """Totenko sets every manzu aside as a gari the moment it is drawn: no pond shows one (they
    confused the gari by a pond with the pond). Elsewhere manzu are discarded like any tile."""
    from dataclasses import replace

    from paiscan.datasets.synth.scene import TileDims, layout_hand

    cfg = replace(SynthConfig(), p_background=1.0)
    pond_kinds: Counter[int] = Counter()
    hand_rng = random.Random(3)
    for seed in range(40):
        hand = synth_random_hand(hand_rng, rules)
        for t in layout_hand(hand, np.random.default_rng(seed), cfg, TileDims(), rules):
            if t.group == "background":
                pond_kinds[kind_of(t.cls)] += 1
    assert sum(pond_kinds.values()) > 200
    assert any(pond_kinds[k] for k in range(9)) == manzu_in_ponds


def test_distractors_are_drawn_never_labelled_and_clear_of_every_tile() -> None:
    cfg = replace(PLAIN, p_clutter=1.0, n_distractors=(4, 6), p_heap=0.5, p_rack=0.3)
    kinds: Counter[str] = Counter()
    for seed in range(8):
        s = render_sample(seed, config=cfg)
        got = Counter(s.classes) + Counter(s.meta["ignored_classes"])
        assert got == expected_labels(s.structure, s.meta), seed  # no distractor is labelled
        assert s.instance_map is not None
        bg = np.all(s.image == np.array(BG, np.uint8), axis=2)
        props_mask = np.zeros(bg.shape, bool)
        for d in s.meta["distractors"]:
            kinds[d["kind"]] += 1
            x0, y0, x1, y1 = d["box"]
            for bx0, by0, bx1, by1 in [*s.boxes.tolist(), *s.ignore_boxes.tolist()]:  # clear of every tile
                assert x1 <= bx0 or bx1 <= x0 or y1 <= by0 or by1 <= y0, (seed, d)
            ys, xs = slice(max(int(y0), 0), max(int(y1) + 1, 0)), slice(max(int(x0), 0), max(int(x1) + 1, 0))
            props_mask[ys, xs] = True
            if props_mask[ys, xs].size:
                assert (~bg[ys, xs]).mean() > 0.05, (seed, d)  # it is drawn
        # drawn pixels lie on a tile, on a distractor, or on the rack under a standing row
        tiles = cv2.dilate((s.instance_map > 0).astype(np.uint8), np.ones((3, 3), np.uint8)).astype(bool)
        stray = ~bg & ~tiles & ~cv2.dilate(props_mask.astype(np.uint8), np.ones((5, 5), np.uint8)).astype(bool)
        if not s.meta["scene"]["rack"]:
            assert stray.mean() < 1e-4, seed
    assert len(kinds) >= 5, kinds


def test_heap_tiles_lie_face_up_face_down_and_on_a_side_and_an_edge_on_tile_is_ignored() -> None:
    cfg = replace(SynthConfig(), p_heap=1.0, p_clutter=0.0, p_cut=0.0)
    seen: Counter[str] = Counter()
    ignored = 0
    for seed in range(10):
        s = render_sample(seed, config=cfg)
        assert Counter(s.classes) + Counter(s.meta["ignored_classes"]) == expected_labels(s.structure, s.meta)
        for b in s.meta["boxes"]:
            if b["group"] == "heap":
                seen["side" if b["pose"] == "side" else "down" if b["face_down"] else "up"] += 1
                assert b["face_down"] == (b["cls"] == FACE_DOWN)
        ignored += len(s.meta["ignored_classes"])
    assert seen["up"] and seen["down"] and seen["side"], seen
    assert ignored > 0  # tiles on a side seen from above show their edge: neither right nor wrong


def test_seat_views_stand_the_row_before_a_low_camera_and_the_tables_centre() -> None:
    cfg = replace(SynthConfig(), p_seat_view=1.0, p_rack=0.5, p_clutter=0.0)
    centres = racks = 0
    for seed in range(6):
        s = render_sample(seed, config=cfg)
        row = [b for b in s.meta["boxes"] if b["group"] in ("hand", "win")]
        assert row and all(b["pose"] == "standing" for b in row)
        assert cfg.seat_tilt_deg[0] <= s.meta["camera"]["tilt_deg"] <= cfg.seat_tilt_deg[1]
        centres += any(d["kind"] == "centre_panel" for d in s.meta["distractors"])
        racks += s.meta["scene"]["rack"]
        assert Counter(s.classes) + Counter(s.meta["ignored_classes"]) == expected_labels(s.structure, s.meta)
    assert centres >= 4 and racks >= 1


def test_the_new_variety_is_off_when_its_knobs_are() -> None:
    off = SynthConfig.classic()
    assert not off.variety and SynthConfig().variety  # training renders include the variety by default
    for seed in range(5):
        s = render_sample(seed, config=off)
        assert "scene" not in s.meta and "distractors" not in s.meta  # a classic meta is as it was
        assert all(b["group"] != "heap" and b["pose"] != "side" for b in s.meta["boxes"])
    default = [render_sample(seed).meta for seed in range(30)]
    assert sum(bool(m["distractors"]) for m in default) >= 5
    assert sum(m["scene"]["heap"] for m in default) >= 1
    assert sum(m["scene"]["ivory"] for m in default) >= 1


CLASSIC_EXPECTED = Path(__file__).parent / "data" / "synth_classic.json"


def test_classic_renders_are_the_renders_from_before_the_scene_variety(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The held-out sets (seeds 990001, 990031) must stay the sets the model cards were measured on:
    a classic config writes the labels, structures and meta the renderer wrote before the scene
    variety existed (stored from that code; no CJK font, so the draws do not depend on the machine's
    fonts; images are left out, they vary with the OpenCV/libjpeg build)."""
    monkeypatch.setattr(synth_art, "find_cjk_fonts", lambda: [])
    renders = json.loads(CLASSIC_EXPECTED.read_text())["renders"]
    for rules, seed in sorted({(r["rules"], r["seed"]) for r in renders}):
        mine = [r for r in renders if (r["rules"], r["seed"]) == (rules, seed)]
        out = tmp_path / rules
        write_dataset(out, len(mine), seed, rules, progress=False, config=SynthConfig.classic())
        for r in mine:
            name = f"{seed}_{r['index']:06d}"
            ignore = out / "ignore" / f"{name}.txt"
            assert (out / "labels" / f"{name}.txt").read_text() == r["labels"], name
            assert (ignore.read_text() if ignore.exists() else "") == r["ignore"], name
            for part, folder in (("structure", "structures"), ("meta", "meta")):
                digest = hashlib.sha256((out / folder / f"{name}.json").read_bytes()).hexdigest()
                assert digest == r[f"{part}_sha256"], (name, part)


@pytest.mark.parametrize("knob", ["p_clutter", "p_heap", "p_ivory", "p_plain_red"])
def test_a_scene_feature_draws_from_its_own_stream(knob: str) -> None:
    """Turning one feature on changes what it adds and nothing else: the hand, camera, light and
    photo effects come from the main stream whatever the feature knobs say."""
    for seed in range(4):
        classic = render_sample(seed, config=SynthConfig.classic())
        on = render_sample(seed, config=SynthConfig.classic(**{knob: 1.0}))
        assert on.structure == classic.structure
        for key in ("camera", "post", "tile_mm", "jpeg_quality", "width", "height"):
            assert on.meta[key] == classic.meta[key], (knob, seed, key)
        assert on.meta["style"] == classic.meta["style"]
    assert "scene" in on.meta and on.meta["scene"]["heap"] == (knob == "p_heap")


def test_ivory_faces_come_with_their_knob_only() -> None:
    regular = {"p_black_set": 0.0}
    for seed in range(4):
        white = synth_art.random_style(np.random.default_rng(seed), SynthConfig.classic(**regular))
        ivory = synth_art.random_style(
            np.random.default_rng(seed), SynthConfig.classic(p_ivory=1.0, **regular), np.random.default_rng(99)
        )
        assert not white.ivory and ivory.ivory
        assert white.stroke == ivory.stroke and white.hue_deg == ivory.hue_deg  # the main draws unchanged
        assert ivory.face_bgr != white.face_bgr
    never = synth_art.random_style(np.random.default_rng(0), SynthConfig.classic(), np.random.default_rng(99))
    assert not never.ivory  # p_ivory 0 draws nothing ivory, even given the stream


def test_plain_red_fives_are_the_plain_fives_art_all_red_without_the_dot() -> None:
    """Most real sets' red fives have no dot: with ``plain_red`` a red five's motif has exactly its
    plain five's shapes, every inked pixel red; the art's own red five keeps its extra dot."""
    from paiscan.datasets.synth.config import resolve_tiles_dir

    tiles = str(resolve_tiles_dir())
    for red, plain in synth_art.RED_FIVES.items():
        painted = synth_art.motif_texture("Regular", None, red, 0, tiles, 192, True).astype(int)
        shapes = synth_art.motif_texture("Regular", None, plain, 0, tiles, 192).astype(int)
        dotted = synth_art.motif_texture("Regular", None, red, 0, tiles, 192).astype(int)
        assert np.abs(painted[..., 3] - shapes[..., 3]).max() <= 1  # the plain five's shapes
        inked = painted[..., 3] > 200
        b, g, r = painted[..., 0][inked], painted[..., 1][inked], painted[..., 2][inked]
        assert (r > g + 120).all() and (r > b + 120).all()  # all of it red
        assert (dotted[..., 3] > 200).sum() > inked.sum()  # the art's red five: the plain shapes and a dot
        assert (shapes[..., 2][inked] < shapes[..., 1][inked] + 60).any()  # the plain five is not all red


def test_red_fives_without_the_dot_come_with_their_knob_only() -> None:
    regular = {"p_black_set": 0.0}
    for seed in range(4):
        dotted = synth_art.random_style(np.random.default_rng(seed), SynthConfig.classic(**regular))
        plain = synth_art.random_style(
            np.random.default_rng(seed), SynthConfig.classic(p_plain_red=1.0, **regular), None, np.random.default_rng(9)
        )
        assert not dotted.plain_reds and plain.plain_reds
        assert plain.stroke == dotted.stroke and plain.face_bgr == dotted.face_bgr  # the main draws unchanged
    assert render_sample(3, config=SynthConfig.classic(p_plain_red=1.0)).meta["scene"]["plain_reds"]
    assert not render_sample(3, config=SynthConfig(p_plain_red=0.0)).meta["scene"]["plain_reds"]


def test_the_scene_mix_is_set_by_short_name_with_clear_errors(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from paiscan.datasets.synth.config import mixed
    from paiscan.service.cli import app

    assert mixed(SynthConfig(), {"seat": 1.0, "clutter": 0.0}).p_seat_view == 1.0
    with pytest.raises(ValueError, match="unknown scene knob 'chips'"):
        mixed(SynthConfig(), {"chips": 0.5})
    runner = CliRunner()
    bad = runner.invoke(app, ["synth", "--n", "1", "--out", str(tmp_path / "x"), "--mix", "heap=1.5"])
    assert bad.exit_code == 2 and json.loads(bad.stdout)["error"]["field"] == "mix"
    ok = runner.invoke(
        app, ["synth", "--n", "1", "--out", str(tmp_path / "y"), "--mix", "heap=1", "--mix", "clutter=1"]
    )
    assert ok.exit_code == 0
    meta = json.loads(next((tmp_path / "y" / "meta").glob("*.json")).read_text())
    assert meta["scene"]["heap"]


def test_no_heap_tile_lies_on_another_tile() -> None:
    from paiscan.datasets.synth.scene import SceneChoice, layout_hand
    from paiscan.datasets.synth.streams import FeatureStreams

    cfg = replace(SynthConfig(), p_background=1.0)
    hand_rng = random.Random(4)
    n_heap = 0
    with pytest.raises(ValueError, match="own random stream"):
        layout_hand(
            synth_random_hand(hand_rng, "riichi"),
            np.random.default_rng(0),
            cfg,
            TileDims(),
            "riichi",
            SceneChoice(heap=True),
        )
    for seed in range(30):
        dims = TileDims()
        tiles = layout_hand(
            synth_random_hand(hand_rng, "riichi"),
            np.random.default_rng(seed),
            cfg,
            dims,
            "riichi",
            SceneChoice(heap=True),
            FeatureStreams(seed),
        )
        reach = math.hypot(dims.w, dims.h) / 2
        for k, t in enumerate(tiles):
            if t.group != "heap":
                continue
            n_heap += 1
            for o in tiles[:k]:
                assert math.hypot(t.x - o.x, t.y - o.y) >= 2 * reach, (seed, t.group_index, o.group)
    assert n_heap > 100
