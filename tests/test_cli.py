"""``paiscan score-hand`` and ``paiscan rules`` as the contract describes them."""

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PIL import Image
from typer.testing import CliRunner

from paiscan.service.cli import app

RUNNER = CliRunner()
EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "hand.json"


def run(args: list[str], stdin: str | None = None) -> tuple[int, list[dict]]:
    result = RUNNER.invoke(app, args, input=stdin)
    lines = [json.loads(line) for line in result.stdout.splitlines() if line.strip().startswith(("{", "["))]
    return result.exit_code, lines


def test_bundled_example_scores() -> None:
    code, out = run(["score-hand", str(EXAMPLE)])
    assert code == 0 and out[0]["total"] == 8300 and out[0]["limit"] == "mangan"


def test_rules_and_option_override() -> None:
    code, out = run(["score-hand", str(EXAMPLE), "--option", "kiriage=true", "--option", "open_tanyao=false"])
    assert code == 0 and out[0]["total"] == 8300
    code, out = run(["score-hand", str(EXAMPLE), "--rules", "nope"])
    assert code == 2 and out[0]["error"]["code"] == "unknown_ruleset"


def test_invalid_hand_is_error_json_exit_2() -> None:
    code, out = run(["score-hand", "-"], stdin='{"hand": "123m", "win_tile": "1z"}')
    assert code == 2 and out[0]["error"] == {
        "code": "wrong_tile_count",
        "message": out[0]["error"]["message"],
        "field": "hand",
    }


def test_bad_json_and_bad_option_syntax() -> None:
    code, out = run(["score-hand", "-"], stdin="{not json")
    assert code == 2 and out[0]["error"]["code"] == "bad_json"
    code, out = run(["score-hand", str(EXAMPLE), "--option", "kiriage"])
    assert code == 2 and out[0]["error"]["code"] == "bad_option"
    code, out = run(["score-hand", "/no/such/file.json"])
    assert code == 2 and out[0]["error"]["code"] == "unreadable_input"


def test_jsonl_one_line_per_hand_in_order() -> None:
    hands = [
        json.dumps({"hand": "123m456p789s1122z", "win_tile": "2z", "win": "tsumo"}),
        "this is not json",
        "",
        json.dumps({"hand": "123m456p789s1122z", "win_tile": "2z", "flags": ["bogus"]}),
        json.dumps([1, 2]),
    ]
    code, out = run(["score-hand", "--jsonl", "-"], stdin="\n".join(hands) + "\n")
    assert code == 0
    assert [o.get("error", {}).get("code") for o in out] == [None, "bad_json", "unknown_flag", "bad_json"]
    assert out[0]["total"] == 2100


def test_rules_command_lists_options() -> None:
    result = RUNNER.invoke(app, ["rules", "riichi", "--json"])
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    names = {o["name"]: o for o in data["options"]}
    assert names["open_tanyao"]["default"] is True and names["open_tanyao"]["type"] == "bool"
    assert names["red_fives"]["default"] == {"m": 1, "p": 1, "s": 1}
    assert any(y["id"] == "pinfu" and y["open"] is None for y in data["yaku"])
    result = RUNNER.invoke(app, ["rules", "riichi"])
    assert result.exit_code == 0 and "open_tanyao" in result.stdout


def test_train_refuses_a_missing_init_file_and_an_unknown_model(tmp_path: Path) -> None:
    code, out = run(["train", "classifier", "--data", str(tmp_path), "--init", str(tmp_path / "none.onnx")])
    assert code == 2 and out[0]["error"]["field"] == "init" and "none.onnx" in out[0]["error"]["message"]
    code, out = run(["train", "detector", "--data", str(tmp_path)])
    assert code == 2 and out[0]["error"]["field"] == "model"
    for model in ("localizer", "classifier"):
        for lr in ("0", "-0.001"):
            code, out = run(["train", model, "--data", str(tmp_path), "--lr", lr])
            assert code == 2 and out[0]["error"]["field"] == "lr"
    for bad in ("60", "60x", "8x80", "60x800", "axb"):
        code, out = run(["train", "classifier", "--data", str(tmp_path), "--input", bad])
        assert code == 2 and out[0]["error"]["field"] == "input" and repr(bad) in out[0]["error"]["message"]


def _recipe_of(monkeypatch: pytest.MonkeyPatch, module: Any, trainer: str) -> Callable[..., Any]:
    """``paiscan train`` run with ``module.trainer`` replaced: the recipe each command line made."""
    seen: list[Any] = []
    monkeypatch.setattr(module, trainer, lambda data, out, recipe: seen.append(recipe))

    def recipe(*args: str) -> Any:
        assert RUNNER.invoke(app, ["train", *args]).exit_code == 0
        return seen[-1]

    return recipe


def test_train_localizer_options_override_only_what_they_name(tmp_path: Path, monkeypatch) -> None:
    import paiscan.datasets.train_localizer as tl

    recipe = _recipe_of(monkeypatch, tl, "train_localizer")
    init = tmp_path / "stage.onnx"
    init.write_bytes(b"x")
    assert recipe("localizer", "--data", str(tmp_path)) == tl.LocalizerRecipe()
    assert recipe(
        "localizer",
        "--data",
        str(tmp_path),
        "--epochs",
        "2",
        "--imgsz",
        "384",
        "--init",
        str(init),
        "--lr",
        "0.0002",
        "--seed",
        "3",
    ) == tl.LocalizerRecipe(epochs=2, imgsz=384, seed=3, init_onnx=str(init), warmup_epochs=1.0, lr0=0.0002)
    assert recipe(
        "localizer",
        "--data",
        str(tmp_path),
        "--device",
        "0",
        "--batch",
        "64",
        "--workers",
        "14",
        "--hours",
        "0.1",
        "--cache",
    ) == tl.LocalizerRecipe(device="0", batch=64, workers=14, hours=0.1, cache=True)


def test_train_classifier_options_override_only_what_they_name(tmp_path: Path, monkeypatch) -> None:
    import paiscan.datasets.train_classifier as tc

    recipe = _recipe_of(monkeypatch, tc, "train_classifier")
    init = tmp_path / "stage.pt"
    init.write_bytes(b"x")
    assert recipe("classifier", "--data", str(tmp_path)) == tc.ClassifierRecipe()
    assert recipe(
        "classifier",
        "--data",
        str(tmp_path),
        "--epochs",
        "3",
        "--init",
        str(init),
        "--lr",
        "0.001",
        "--orient-weight",
        "2",
        "--input",
        "60x80",
        "--sideways-weight",
        "3",
        "--not-a-tile",
        "2",
        "--only-not-a-tile",
        "--seed",
        "5",
    ) == tc.ClassifierRecipe(
        epochs=3,
        lr=0.001,
        seed=5,
        init_checkpoint=str(init),
        orient_weight=2.0,
        sideways_weight=3,
        input_size=(60, 80),
        not_a_tile_per_image=2,
        only_not_a_tile=True,
    )
    onnx = tmp_path / "stage.onnx"
    onnx.write_bytes(b"x")
    assert recipe("classifier", "--data", str(tmp_path), "--init", str(onnx)) == tc.ClassifierRecipe(
        init_onnx=str(onnx)
    )
    assert recipe("classifier", "--data", str(tmp_path), "--real-runtime-boxes") == tc.ClassifierRecipe(
        real_runtime_boxes=True
    )
    assert recipe("classifier", "--data", str(tmp_path), "--device", "0", "--workers", "14") == tc.ClassifierRecipe(
        device="0", workers=14
    )
    assert recipe("classifier", "--data", str(tmp_path), "--manzu-weight", "2") == tc.ClassifierRecipe(manzu_weight=2)


def test_the_commands_and_the_service_default_to_the_readers_thread_count() -> None:
    from paiscan.service.cli import DEFAULT_THREADS
    from paiscan.service.settings import ServiceSettings
    from paiscan.vision.pipeline import VisionSettings

    assert DEFAULT_THREADS == VisionSettings.threads == ServiceSettings.model_fields["onnx_threads"].default


def test_synth_tilt_renders_steep_views_only(tmp_path: Path) -> None:
    code, _ = run(["synth", "--n", "3", "--seed", "7", "--tilt", "52", "58", "--out", str(tmp_path / "steep")])
    assert code == 0
    tilts = [json.loads(p.read_text())["camera"]["tilt_deg"] for p in sorted((tmp_path / "steep" / "meta").iterdir())]
    assert len(tilts) == 3 and all(52.0 <= t <= 58.0 for t in tilts)


@pytest.mark.parametrize("tilt", [["50", "40"], ["-5", "10"], ["10", "89"]])
def test_synth_bad_tilt_is_refused_before_rendering(tmp_path: Path, tilt: list[str]) -> None:
    code, out = run(["synth", "--n", "1", "--tilt", *tilt, "--out", str(tmp_path / "x")])
    assert code == 2 and out[0]["error"]["field"] == "tilt" and "--tilt" in out[0]["error"]["message"]
    assert not (tmp_path / "x").exists()


def test_synth_size_and_fill_render_far_phone_photos(tmp_path: Path) -> None:
    base = ["synth", "--n", "2", "--seed", "7", "--size", "640", "480"]
    assert run([*base, "--fill", "0.9", "0.95", "--out", str(tmp_path / "near")])[0] == 0
    assert run([*base, "--fill", "0.3", "0.35", "--out", str(tmp_path / "far")])[0] == 0
    spans = {}
    for name in ("near", "far"):
        images = sorted((tmp_path / name / "images").iterdir())
        assert [Image.open(i).size for i in images] == [(640, 480)] * 2
        boxes = [
            [float(v) for v in line.split()[1:]]
            for lab in sorted((tmp_path / name / "labels").iterdir())
            for line in lab.read_text().splitlines()
        ]
        spans[name] = sum(b[2] * b[3] for b in boxes) / len(boxes)
    assert spans["far"] < spans["near"] / 3  # the same hands, each tile a smaller share of the frame


@pytest.mark.parametrize(
    ("flag", "values"),
    [
        ("size", ["100", "480"]),
        ("size", ["640", "9000"]),
        ("fill", ["0.6", "0.3"]),
        ("fill", ["0.05", "0.3"]),
        ("fill", ["0.5", "1.5"]),
    ],
)
def test_synth_bad_size_or_fill_is_refused_before_rendering(tmp_path: Path, flag: str, values: list[str]) -> None:
    code, out = run(["synth", "--n", "1", f"--{flag}", *values, "--out", str(tmp_path / "x")])
    assert code == 2 and out[0]["error"]["field"] == flag and f"--{flag}" in out[0]["error"]["message"]
    assert not (tmp_path / "x").exists()


@pytest.mark.parametrize(
    ("args", "code", "field"),
    [
        (["--seat-wind", "up"], "bad_field", "seat_wind"),
        (["--flag", "bogus"], "unknown_flag", "flags[0]"),
        (["--flag", "ippatsu"], "ippatsu_without_riichi", "flags"),
        (["--option", "nope=1"], "unknown_option", "options.nope"),
        (["--rules", "nope"], "unknown_ruleset", "rules"),
        (["--rules", "totenko_balance", "--seat-wind", "north"], "bad_field", "seat_wind"),
    ],
)
def test_score_checks_the_situation_before_the_photo(tmp_path: Path, args: list[str], code: str, field: str) -> None:
    """A situation no hand could have is named by its option, and no photo is opened for it (the
    photo here does not exist: reading it first would report that instead)."""
    code_, out = run(["score", str(tmp_path / "missing.jpg"), *args])
    assert code_ == 2
    assert (out[0]["error"]["code"], out[0]["error"]["field"]) == (code, field)
    assert "recognised" not in out[0]


@pytest.mark.parametrize(
    ("args", "code", "field"),
    [
        (["--rules", "nope"], "unknown_ruleset", "rules"),
        (["--annotate", "{tmp}/a.txt"], "bad_field", "annotate"),
        (["--annotate", "{tmp}/no/such/folder/a.jpg"], "bad_field", "annotate"),
    ],
)
def test_read_refuses_bad_options_before_reading(tmp_path: Path, args: list[str], code: str, field: str) -> None:
    """Refused before any photo is opened (the photo here does not exist), and nothing written."""
    code_, out = run(["read", str(tmp_path / "missing.jpg"), *(a.format(tmp=tmp_path) for a in args)])
    assert code_ == 2
    assert (out[0]["error"]["code"], out[0]["error"]["field"]) == (code, field)
    assert list(tmp_path.iterdir()) == []


def test_serve_refuses_a_port_out_of_range() -> None:
    result = RUNNER.invoke(app, ["serve", "--port", "99999"])
    assert result.exit_code == 2 and "--port" in result.output


def _hand_text(**changes: Any) -> str:
    return json.dumps({"hand": "234p567p223344s5s", "win_tile": "5s", **changes})


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
        ('{"honba": ' + "9" * 5000 + "}", "more digits"),
    ],
)
def test_score_hand_refuses_json_past_pythons_limits(text: str, says: str) -> None:
    code, out = run(["score-hand", "-"], stdin=text)
    assert code == 2 and out[0]["error"]["code"] == "bad_json" and says in out[0]["error"]["message"]


def test_score_hand_reads_past_a_byte_order_mark() -> None:
    code, out = run(["score-hand", "-"], stdin="\ufeff" + _hand_text())
    assert code == 0 and out[0]["total"] > 0


def test_score_hand_escapes_what_it_cannot_print(tmp_path: Path) -> None:
    """A lone surrogate echoed from a key: escaped JSON, not a UnicodeEncodeError."""
    bad = tmp_path / "h.json"
    bad.write_text('{"hand": "234p567p223344s5s", "win_tile": "5s", "\\ud800": 1}', encoding="utf-8")
    result = RUNNER.invoke(app, ["score-hand", str(bad)])
    assert result.exit_code == 2 and "unknown_field" in result.stdout


def test_a_failure_inside_scoring_is_one_error_line_and_the_stream_goes_on(monkeypatch: pytest.MonkeyPatch) -> None:
    from paiscan import scoring

    real = scoring.score_hand

    def flaky(data: Any, rules: Any = None, options: Any = None) -> Any:
        if data.get("honba") == 1:
            raise ZeroDivisionError("a bug")
        return real(data, rules=rules, options=options)

    monkeypatch.setattr(scoring, "score_hand", flaky)
    code, out = run(["score-hand", "--jsonl", "-"], stdin=f"{_hand_text(honba=1)}\n{_hand_text()}\n")
    assert (
        code == 0 and out[0]["error"]["code"] == "scoring_failed" and "ZeroDivisionError" in out[0]["error"]["message"]
    )
    assert out[1]["total"] > 0


def test_an_empty_ruleset_id_is_unknown() -> None:
    code, out = run(["rules", "", "--json"])
    assert code == 2 and out[0]["error"]["code"] == "unknown_ruleset"
    code, out = run(["score-hand", "-", "--rules", ""], stdin=_hand_text())
    assert code == 2 and out[0]["error"]["code"] == "unknown_ruleset"


# ---------------------------------------------------------------- score_line: orjson and json agree
_HAND = '"hand": "234m567p223344s5s", "win_tile": "5s", "seat_wind": "south", "flags": ["riichi"]'


@pytest.mark.parametrize(
    "line",
    [
        "{" + _HAND + "}",
        "{" + _HAND + ', "honba": 123456789012345678901234567890}',  # past 64 bits: orjson reads a float
        "{" + _HAND + ', "honba": 18446744073709551616}',
        "{" + _HAND + ', "honba": -9223372036854775809}',
        "{" + _HAND + ', "options": {"red_fives": {"m": 99999999999999999999}}}',
        "{" + _HAND + ', "honba": NaN}',
        "{" + _HAND + ', "honba": 1e400}',
        "{" + _HAND + ', "honba": 2, "honba": 1}',
        "{" + _HAND + ', "rules": "\\ud800"}',
        "\ufeff{" + _HAND + "}",
        "[" * 3000 + "]" * 3000,
        "{" + _HAND + ', "honba": -0}',
        "{" + _HAND + ', "honba": 1.0}',
    ],
)
def test_score_line_answers_as_json_reads_the_line(line: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from paiscan.service import cli

    assert cli._fast_loads is not None
    fast = cli.score_line(line, 1)
    monkeypatch.setattr(cli, "_fast_loads", None)
    assert fast == cli.score_line(line, 1)


def test_score_line_names_an_integer_past_64_bits_as_written() -> None:
    from paiscan.service.cli import score_line

    out = json.loads(score_line("{" + _HAND + ', "honba": 123456789012345678901234567890}', 1))
    assert out["error"]["field"] == "honba"
    assert "123456789012345678901234567890" in out["error"]["message"]
