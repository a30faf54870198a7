"""The metrics of ``paiscan eval`` on a rendered folder with a detector that knows the truth."""

import json
from pathlib import Path

import pytest

from paiscan.datasets.evaluate import (
    Prediction,
    RowAgreement,
    evaluate_folder,
    evaluate_folders,
    iou,
    machine,
    match,
    row_agreement,
    same_structure,
)
from paiscan.datasets.realdata import iter_realdata, photos_with_dropped_boxes, read_yolo_labels, source_kinds
from paiscan.datasets.synth import write_dataset


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("evalset")
    write_dataset(out, 4, seed=424242, rules="riichi", crops=False, workers=1, progress=False)
    return out


def truth_detector(
    folder: Path,
    drop: int = 0,
    wrong: int = 0,
    extra: int = 0,
    face_only: bool = False,
    outcome: tuple[bool, bool, bool] | None = None,
    offers_truth: bool = False,
):
    """``outcome``: (hand right, scoreable, asks) of a detector that reads hands; ``None``: one that
    reports the true hand and says nothing of how it would reach the user (a peer).
    ``offers_truth``: its questions offer the true hand as another reading."""

    def detect(data: bytes, rules: str) -> Prediction:
        import io

        from PIL import Image

        w, h = Image.open(io.BytesIO(data)).size
        name = next(p.stem for p in (folder / "images").iterdir() if p.read_bytes() == data)
        gt = read_yolo_labels(folder / "labels" / f"{name}.txt", w, h)
        boxes = list(gt[drop:])
        for k in range(min(wrong, len(boxes))):
            c, b = boxes[k]
            boxes[k] = ((c + 1) % 34, b)
        boxes += [(0, (1.0 + 3 * k, 1.0, 2.0 + 3 * k, 2.0)) for k in range(extra)]
        if face_only:  # the upper 40 % of each box, as a face-tight label of a tile seen at a slant
            boxes = [(c, (b[0], b[1], b[2], b[1] + 0.4 * (b[3] - b[1]))) for c, b in boxes]
        hand = json.loads((folder / "structures" / f"{name}.json").read_text())
        if outcome is None:
            return Prediction(boxes, hand)
        right, scoreable, asks = outcome
        true_hand = hand
        if not right:  # one more dora indicator than the photo shows
            hand = {**hand, "dora_indicators": [*hand.get("dora_indicators", []), "1z"]}
        return Prediction(boxes, hand, scoreable=scoreable, asks=asks, offered=(true_hand,) if offers_truth else ())

    return detect


def test_perfect_detector_scores_one(folder: Path) -> None:
    m = evaluate_folder(folder, truth_detector(folder))
    assert m["n_images"] == 4
    for key in (
        "tile_precision",
        "tile_recall",
        "localization_recall",
        "cls_accuracy",
        "cls_accuracy_iou30",
        "exact_image_rate",
        "exact_structure_rate",
    ):
        assert m[key] == 1.0, key
    assert m["latency_ms_p50"] >= 0 and m["latency_ms_p95"] >= m["latency_ms_p50"]


def test_mistakes_lower_the_right_metrics(folder: Path) -> None:
    m = evaluate_folder(folder, truth_detector(folder, drop=1, wrong=1, extra=2))
    assert m["tile_recall"] < 1 and m["tile_precision"] < 1 and m["cls_accuracy"] < 1
    assert m["localization_recall"] < 1 and m["exact_image_rate"] == 0.0


def test_loose_matching_counts_face_tight_boxes(folder: Path) -> None:
    m = evaluate_folder(folder, truth_detector(folder, face_only=True))
    assert m["localization_recall"] == 0.0  # IoU 0.4 < 0.5
    assert m["localization_recall_iou30"] > 0.9  # (a few collide with a stacked or touching neighbour)
    assert m["cls_accuracy"] == 0.0 and m["cls_accuracy_iou30"] > 0.9  # none matched at 0.5; read right at 0.3
    wrong = evaluate_folder(folder, truth_detector(folder, face_only=True, wrong=2))
    assert wrong["cls_accuracy_iou30"] < m["cls_accuracy_iou30"]
    assert evaluate_folder(folder, truth_detector(folder))["localization_recall_iou30"] == 1.0


@pytest.mark.parametrize(
    ("outcome", "offers_truth", "rates"),
    [
        ((True, True, False), False, (0.0, 0.0, 0.0, 0.0)),
        ((False, True, False), False, (1.0, 0.0, 0.0, 0.0)),  # scored at once and wrong: the harm
        ((False, True, True), True, (0.0, 1.0, 0.0, 0.0)),  # wrong, but a question offers the right hand
        ((False, True, True), False, (0.0, 1.0, 1.0, 0.0)),  # ... asked, but no answer reaches the right hand
        ((True, True, True), False, (0.0, 1.0, 0.0, 0.0)),  # right, and a question asked anyway
        ((False, False, False), False, (0.0, 0.0, 0.0, 1.0)),  # refused: the problems are shown, nothing scored
    ],
)
def test_structure_outcomes_say_how_readings_reach_the_user(
    folder: Path, outcome: tuple[bool, bool, bool], offers_truth: bool, rates: tuple[float, float, float, float]
) -> None:
    m = evaluate_folder(folder, truth_detector(folder, outcome=outcome, offers_truth=offers_truth))
    assert m["exact_structure_rate"] == (1.0 if outcome[0] else 0.0)
    assert (
        m["silent_wrong_structure_rate"],
        m["asked_structure_rate"],
        m["asked_unreachable_structure_rate"],
        m["refused_structure_rate"],
    ) == rates


def test_a_detector_that_reads_no_hands_gets_no_outcome_rates(folder: Path) -> None:
    m = evaluate_folder(folder, truth_detector(folder))
    assert m["exact_structure_rate"] == 1.0 and "silent_wrong_structure_rate" not in m


def test_iou_and_matching() -> None:
    assert iou((0, 0, 10, 10), (0, 0, 10, 10)) == 1.0
    assert iou((0, 0, 10, 10), (20, 20, 30, 30)) == 0.0
    pairs = match([(0, 0, 10, 10), (20, 0, 30, 10)], [(21, 0, 31, 10), (0, 1, 10, 11)])
    assert sorted(pairs) == [(0, 1), (1, 0)]
    assert match([(0, 0, 10, 10)], [(5, 5, 15, 15)]) == []  # IoU 1/7 is below 0.5


def test_same_structure_compares_melds_and_reds() -> None:
    a = {"hand": "123m", "melds": [{"type": "pon", "tiles": "777p"}], "win_tile": "5p", "dora_indicators": ["1z"]}
    assert same_structure(a, {**a, "hand": "312m"})
    assert not same_structure(a, {**a, "win_tile": "0p"})
    assert not same_structure(a, {**a, "melds": [{"type": "kan", "tiles": "7777p", "open": False}]})
    assert not same_structure(a, None)


def test_row_agreement_counts_false_and_missed_tiles() -> None:
    labels = [(0, (0.0, 0.0, 10.0, 10.0)), (1, (12.0, 0.0, 22.0, 10.0)), (2, (24.0, 0.0, 34.0, 10.0))]
    assert row_agreement(labels, labels) == RowAgreement(True, True, 0, 0)
    felt = (36.0, 0.0, 46.0, 10.0)
    got = row_agreement(labels, [*labels[:2], (37, felt)])  # the last tile lost, felt read as a back
    assert got == RowAgreement(False, False, 1, 1)
    face_tight = [(c, (b[0], b[1], b[2], b[1] + 4.0)) for c, b in labels]  # 40 % of the box: IoU 0.4
    assert row_agreement(face_tight, labels).exact and not row_agreement(face_tight, labels, 0.5).boxes


def test_source_kinds_read_the_manifest(tmp_path: Path) -> None:
    assert source_kinds(tmp_path) == {}
    (tmp_path / "manifest.csv").write_text("file,source_kind\nimages/a.jpg,hand_photo\nimages/b.jpg,phone_photo_IMG\n")
    assert source_kinds(tmp_path) == {"a.jpg": "hand_photo", "b.jpg": "phone_photo_IMG"}


def test_photos_with_dropped_boxes_read_the_supplements_list(tmp_path: Path) -> None:
    assert photos_with_dropped_boxes(tmp_path) == set()
    (tmp_path / "dropped_boxes.csv").write_text("file,dropped (source_class x count)\nimages/a.jpg,bf1x1;bs1x1\n")
    assert photos_with_dropped_boxes(tmp_path) == {"a.jpg"}


def test_placeholder_labelled_photos_are_marked(tmp_path: Path) -> None:
    (tmp_path / "images").mkdir()
    (tmp_path / "labels").mkdir()
    box = "0.5 0.5 0.1 0.1"
    photos = {"same.jpg": [9] * 14, "hand.jpg": [0, 1, 2, 9, 9, 9, 9], "four.jpg": [9] * 4}
    for name, classes in photos.items():
        (tmp_path / "images" / name).write_bytes(b"\xff\xd8\xff")
        (tmp_path / "labels" / name.replace(".jpg", ".txt")).write_text("".join(f"{c} {box}\n" for c in classes) + "\n")
    reliable = {item.image.name: item.classes_reliable for item in iter_realdata(tmp_path)}
    assert reliable == {"same.jpg": False, "hand.jpg": True, "four.jpg": True}


def test_the_supplements_placeholder_photos_are_the_all_1p_trays() -> None:
    items = list(iter_realdata())
    if not items:
        pytest.skip("no real-photo supplement here")
    marked = sorted(item.image.name[:8] for item in items if not item.classes_reliable)
    assert marked == ["IMG_2778", "IMG_2779", "IMG_2780", "IMG_2781", "IMG_2783", "IMG_2786", "IMG_2788"]


def test_the_machine_is_named_with_whether_its_cpu_has_vnni(tmp_path: Path) -> None:
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text(
        "processor\t: 0\nmodel name\t: AMD EPYC\nflags\t\t: fpu sse avx2 fma\n\n"
        "processor\t: 1\nmodel name\t: AMD EPYC\nflags\t\t: fpu sse avx2 fma\n"
    )
    assert machine(cpuinfo)["cpu"] == "AMD EPYC" and machine(cpuinfo)["vnni"] is False
    cpuinfo.write_text("model name\t: Intel Xeon\nflags\t\t: avx2 avx512f avx512_vnni\n")
    assert machine(cpuinfo)["vnni"] is True
    unknown = machine(tmp_path / "none")  # not Linux: nothing said rather than a guess
    assert unknown["cpu"] is None and unknown["vnni"] is None and unknown["cores"] >= 1


def test_exact_structure_is_also_given_on_the_renders_whose_hand_lies_whole_in_frame(
    folder: Path, tmp_path: Path
) -> None:
    import shutil

    copy = tmp_path / "set"
    shutil.copytree(folder, copy)
    names = sorted(p.stem for p in (copy / "images").iterdir())
    meta_path = copy / "meta" / f"{names[0]}.json"
    meta = json.loads(meta_path.read_text())
    for b in meta["boxes"]:
        b["truncated"] = 0.0 if b["group"] != "dora" else 0.25  # the frame cuts the indicator
    meta_path.write_text(json.dumps(meta))
    for other in names[1:]:  # ... and no other tile of a hand
        m = json.loads((copy / "meta" / f"{other}.json").read_text())
        m["boxes"] = [{**b, "truncated": 0.0} for b in m["boxes"]]
        (copy / "meta" / f"{other}.json").write_text(json.dumps(m))
    exact = truth_detector(copy)

    def wrong_on_the_cut_one(data: bytes, rules: str) -> Prediction:
        pred = exact(data, rules)
        if data == (copy / "images" / f"{names[0]}.jpg").read_bytes():
            return Prediction(pred.boxes, {**pred.hand, "dora_indicators": ["1z"]})
        return pred

    m = evaluate_folder(copy, wrong_on_the_cut_one)
    assert m["exact_structure_rate"] == 0.75
    assert m["n_structures_in_frame"] == 3 and m["exact_structure_rate_in_frame"] == 1.0
    shutil.rmtree(copy / "meta")  # a folder without records gives the whole figure alone
    assert "exact_structure_rate_in_frame" not in evaluate_folder(copy, wrong_on_the_cut_one)


def _copy(folder: Path, to: Path) -> Path:
    import shutil

    shutil.copytree(folder, to)
    return to


def test_a_photo_that_fails_to_read_is_counted_and_named_and_the_run_goes_on(folder: Path, tmp_path: Path) -> None:
    copy = _copy(folder, tmp_path / "set")
    names = sorted(p.name for p in (copy / "images").iterdir())
    n_tiles = sum(len((copy / "labels" / f"{Path(n).stem}.txt").read_text().splitlines()) for n in names)
    exact = truth_detector(copy)
    broken = names[1]
    (copy / "images" / broken).write_bytes(b"not a photo")

    def detector(data: bytes, rules: str) -> Prediction:
        if data == b"not a photo":
            raise ValueError("cannot decode the photo")
        return exact(data, rules)

    m = evaluate_folder(copy, detector)
    assert m["n_images"] == 4 and m["n_failed"] == 1
    assert m["failures"] == [{"source": "set", "image": broken, "error": "ValueError: cannot decode the photo"}]
    lost = len((copy / "labels" / f"{Path(broken).stem}.txt").read_text().splitlines())
    assert m["n_tiles"] == n_tiles and m["tile_recall"] == round((n_tiles - lost) / n_tiles, 4)
    assert m["tile_precision"] == 1.0 and m["exact_structure_rate"] == 0.75 and m["exact_image_rate"] == 0.75
    # a label file that is not YOLO text fails its photo alone, by name
    (copy / "labels" / f"{Path(names[2]).stem}.txt").write_text("1m 0.5 0.5 0.1 0.1\n")
    m = evaluate_folder(copy, detector)
    assert m["n_failed"] == 2 and m["failures"][1]["image"] == names[2]
    assert m["failures"][1]["error"].startswith("ValueError")


def test_detections_in_ignore_regions_count_neither_way(folder: Path, tmp_path: Path) -> None:
    copy = _copy(folder, tmp_path / "set")
    for f in (copy / "ignore").glob("*.txt"):
        f.unlink()
    first = sorted(p.stem for p in (copy / "images").iterdir())[0]
    lines = (copy / "labels" / f"{first}.txt").read_text().splitlines()
    # a region over the top-left corner (where the extra detections lie) and over the first label
    (copy / "ignore" / f"{first}.txt").write_text(f"0 0.01 0.01 0.02 0.02\n{lines[0]}\n")
    (copy / "labels" / f"{first}.txt").write_text("".join(line + "\n" for line in lines))
    n_labels = sum(
        len((copy / "labels" / f"{p.stem}.txt").read_text().splitlines()) for p in (copy / "images").iterdir()
    )
    base = evaluate_folder(copy, truth_detector(copy, extra=2))
    assert base["tile_precision"] < 1.0  # the extras on the other photos still count
    # the first label lies in a region: it is not judged, and missing it is no miss
    perfect = evaluate_folder(copy, truth_detector(copy))
    dropped = evaluate_folder(copy, truth_detector(copy, drop=1))
    others = [p.stem for p in (copy / "images").iterdir() if p.stem != first]
    assert perfect["n_tiles"] == dropped["n_tiles"] == n_labels - 1 and dropped["tile_precision"] == 1.0
    assert dropped["tile_recall"] == round((n_labels - 1 - len(others)) / (n_labels - 1), 4)
    # the first photo alone: its extras lie in the region
    only = tmp_path / "one"
    _copy(copy, only)
    for stem in others:
        (only / "images" / f"{stem}.jpg").unlink()
    m = evaluate_folder(only, truth_detector(only, extra=2))
    assert m["tile_precision"] == 1.0 and m["tile_recall"] == 1.0 and m["exact_image_rate"] == 1.0
    (only / "ignore" / f"{first}.txt").unlink()
    m = evaluate_folder(only, truth_detector(only, extra=2))
    assert m["tile_precision"] < 1.0 and m["exact_image_rate"] == 0.0


def test_figures_per_source_folder_and_kind(folder: Path, tmp_path: Path) -> None:
    a = _copy(folder, tmp_path / "riichi-set")
    b = tmp_path / "chinese-set"
    write_dataset(b, 3, seed=5150, rules="riichi", crops=False, workers=1, progress=False)
    names = sorted(p.name for p in (b / "images").iterdir())
    kinds = ["hand_photo", "phone_photo_IMG", "phone_photo_IMG"]
    (b / "manifest.csv").write_text(
        "file,source_kind\n" + "".join(f"images/{n},{k}\n" for n, k in zip(names, kinds, strict=True))
    )
    in_a, in_b = truth_detector(a), truth_detector(b, wrong=1)
    photos_a = {p.read_bytes() for p in (a / "images").iterdir()}

    def detector(data: bytes, rules: str) -> Prediction:  # right on set a, one tile a photo wrong on set b
        return in_a(data, rules) if data in photos_a else in_b(data, rules)

    m = evaluate_folders([a, a, b], detector)
    assert m["n_images"] == 7  # a folder given twice is read once
    assert set(m["sources"]) == {"riichi-set", "chinese-set", "chinese-set/hand_photo", "chinese-set/phone_photo_IMG"}
    assert [m["sources"][f"chinese-set/{k}"]["n_images"] for k in ("hand_photo", "phone_photo_IMG")] == [1, 2]
    for key in ("precision", "recall", "found_at_all", "class_right_when_found"):
        assert m["sources"]["riichi-set"][key] == 1.0
    chinese = m["sources"]["chinese-set"]
    assert chinese["found_at_all"] == 1.0 and chinese["class_right_when_found"] < m["class_right_when_found"] < 1.0
    assert chinese["n_tiles"] + m["sources"]["riichi-set"]["n_tiles"] == m["n_tiles"]
    single = evaluate_folder(a, detector)
    assert "sources" not in single and single["n_images"] == 4


def test_the_issues_figures_judge_face_tight_labels_at_iou_30(folder: Path) -> None:
    m = evaluate_folder(folder, truth_detector(folder, face_only=True, wrong=1))
    assert m["match_iou_loose"] == 0.3
    assert m["found_at_all"] == m["localization_recall_iou30"] > 0.9
    assert m["class_right_when_found"] == m["cls_accuracy_iou30"] < 1.0
    assert 0 < m["recall"] < m["found_at_all"] and 0 < m["precision"] < 1.0


def test_boxes_read_on_distractors_are_counted_per_distractor(folder: Path, tmp_path: Path) -> None:
    copy = _copy(folder, tmp_path / "set")
    metas = sorted((copy / "meta").glob("*.json"))
    for path in metas:
        path.write_text(json.dumps({**json.loads(path.read_text()), "distractors": []}))
    assert evaluate_folder(copy, truth_detector(copy, extra=2))["boxes_per_distractor"] is None  # none drawn
    for path in metas:  # a die over the top-left corner, where the extra boxes lie, and a phone elsewhere
        meta = json.loads(path.read_text())
        meta["distractors"] = [{"kind": "dice", "box": [0, 0, 20, 20]}, {"kind": "phone", "box": [300, 300, 400, 400]}]
        path.write_text(json.dumps(meta))
    assert evaluate_folder(copy, truth_detector(copy))["boxes_per_distractor"] == 0.0
    m = evaluate_folder(copy, truth_detector(copy, extra=2))
    assert m["boxes_per_distractor"] == 1.0  # two boxes a photo, on two distractors
    metas[0].write_text("{not json")  # a meta that cannot be read leaves that photo out of the figure only
    m = evaluate_folder(copy, truth_detector(copy, extra=2))
    assert m["n_failed"] == 0 and m["boxes_per_distractor"] == 1.0 and m["n_images"] == len(metas)
