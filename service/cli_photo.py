"""The ``paiscan`` commands of photos and models: synth, train, eval, read and score.

The vision stack and ``paiscan.datasets`` (torch) are imported inside the commands that need them,
so ``paiscan read`` and ``paiscan score`` never import the datasets or torch.
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path
from typing import Annotated, Any

import typer

from paiscan.service.cli_common import _emit, _fail, _parse_option_args

#: the steepest camera ``paiscan synth --tilt`` renders: beyond it the tiles' faces are slivers
MAX_SYNTH_TILT_DEG = 75.0
#: bounds of ``paiscan synth --size``: the localizer's input at the low end, a 50 MP photo at the high
MIN_SYNTH_SIDE, MAX_SYNTH_SIDE = 320, 8192


def _score_one(data: Any, rules: str | None, options: dict[str, Any]) -> dict[str, Any]:
    from paiscan.scoring import HandError, score_hand

    try:
        return score_hand(data, rules=rules, options=options).to_dict()
    except HandError as err:
        return err.to_dict()
    except RecursionError:
        return {"error": {"code": "bad_json", "message": "the input is nested too deeply", "field": None}}
    except Exception as exc:  # never a traceback: a bug is reported as an error object, as the API does
        return {
            "error": {
                "code": "scoring_failed",
                "message": f"this hand could not be scored ({type(exc).__name__}: {exc})",
                "field": None,
            }
        }


def synth_cmd(
    out: Annotated[Path | None, typer.Option("--out", help="output folder (images/, labels/, structures/ ...)")] = None,
    n: Annotated[int, typer.Option("--n", min=1, help="number of renders")] = 100,
    seed: Annotated[int, typer.Option("--seed", help="dataset seed (renders are identical per seed)")] = 0,
    rules: Annotated[str, typer.Option("--rules", help="ruleset whose tile set and conventions to follow")] = "riichi",
    crops: Annotated[bool, typer.Option("--crops", help="also write upright tile crops for the classifier")] = False,
    workers: Annotated[int, typer.Option("--workers", min=1, help="render processes")] = 1,
    preview_path: Annotated[Path | None, typer.Option("--preview", help="write a contact sheet with boxes")] = None,
    tilt: Annotated[
        tuple[float, float] | None,
        typer.Option(
            "--tilt",
            help="camera tilt range in degrees from top-down, LOW HIGH (default 0 60): a set of steep, hard views",
        ),
    ] = None,
    size: Annotated[
        tuple[int, int] | None,
        typer.Option(
            "--size", help="render size in pixels, W H (default 1280 960); 4000 3000 is a phone's 12 MP photo"
        ),
    ] = None,
    fill: Annotated[
        tuple[float, float] | None,
        typer.Option(
            "--fill",
            help="share of the frame the hand spans, LOW HIGH (default 0.6 0.97); 0.3 0.6 is a photo "
            "taken from further away",
        ),
    ] = None,
    mix: Annotated[
        list[str] | None,
        typer.Option(
            "--mix",
            help="NAME=P, repeatable: the probability of a scene: seat (automatic table from the seat), rack, "
            "heap, small (hand small in the frame), clutter (unlabelled distractors), standing, pond",
        ),
    ] = None,
) -> None:
    """Render synthetic photos of winning hands with exact labels."""
    from paiscan.scoring import HandError
    from paiscan.scoring.registry import RULESETS

    if rules not in RULESETS:
        err = HandError("unknown_ruleset", f"unknown ruleset {rules!r} (known: {', '.join(RULESETS)})", "rules")
        _emit(err.to_dict())
        raise typer.Exit(2)
    if out is None and preview_path is None:
        _fail("bad_field", "give --out DIR and/or --preview OUT.jpg", "out")
    if tilt is not None and not 0.0 <= tilt[0] <= tilt[1] <= MAX_SYNTH_TILT_DEG:
        _fail(
            "bad_field",
            f"--tilt needs 0 <= LOW <= HIGH <= {MAX_SYNTH_TILT_DEG:g} degrees, got {tilt[0]:g} {tilt[1]:g}",
            "tilt",
        )
    if size is not None and not (min(size) >= MIN_SYNTH_SIDE and max(size) <= MAX_SYNTH_SIDE):
        _fail(
            "bad_field",
            f"--size needs W and H in {MIN_SYNTH_SIDE}..{MAX_SYNTH_SIDE} pixels, got {size[0]} {size[1]}",
            "size",
        )
    if fill is not None and not 0.1 <= fill[0] <= fill[1] <= 1.0:
        _fail("bad_field", f"--fill needs 0.1 <= LOW <= HIGH <= 1, got {fill[0]:g} {fill[1]:g}", "fill")
    from paiscan.datasets.synth import preview, write_dataset
    from paiscan.datasets.synth.config import SynthConfig, mixed

    config = SynthConfig().framed(size, fill, tilt)
    shares: dict[str, float] = {}
    for item in mix or []:
        name, _, value = item.partition("=")
        try:
            shares[name.strip()] = float(value)
        except ValueError:
            _fail("bad_field", f"--mix {item!r} is not NAME=P (e.g. heap=0.5)", "mix")
    try:
        config = mixed(config, shares)
    except ValueError as exc:
        _fail("bad_field", f"--mix: {exc}", "mix")
    if preview_path is not None:
        preview(preview_path, n=16, seed=seed, rules=rules, config=config)
        typer.echo(f"preview written to {preview_path}", err=True)
    if out is not None:
        write_dataset(out, n, seed, rules=rules, crops=crops, workers=workers, progress=True, config=config)


def train_cmd(
    model: Annotated[str, typer.Argument(help="localizer or classifier")],
    data: Annotated[list[Path], typer.Option("--data", help="paiscan synth output folder(s)")],
    out: Annotated[Path, typer.Option("--out", help="run folder (checkpoints, metrics, ONNX)")] = Path("runs/model"),
    epochs: Annotated[int | None, typer.Option("--epochs", help="epochs (default: the recipe's)")] = None,
    imgsz: Annotated[int | None, typer.Option("--imgsz", help="localizer input size")] = None,
    seed: Annotated[int, typer.Option("--seed")] = 0,
    init: Annotated[
        Path | None,
        typer.Option(
            "--init",
            help="start from this ONNX model's weights (a fine-tuning stage), e.g. models/classifier.onnx; "
            "for the classifier also a run's checkpoint.pt",
        ),
    ] = None,
    lr: Annotated[
        float | None,
        typer.Option("--lr", help="peak learning rate (classifier), AdamW's initial one (localizer); above 0"),
    ] = None,
    orient_weight: Annotated[
        float | None,
        typer.Option("--orient-weight", help="classifier: weight of the face-orientation loss against the class loss"),
    ] = None,
    input_size: Annotated[
        str | None,
        typer.Option("--input", help="classifier input WIDTHxHEIGHT (default 48x64); --init weights of any size load"),
    ] = None,
    sideways_weight: Annotated[
        int | None,
        typer.Option(
            "--sideways-weight", min=1, help="classifier: times per epoch each crop of a sideways tile is seen"
        ),
    ] = None,
    manzu_weight: Annotated[
        int | None,
        typer.Option("--manzu-weight", min=1, help="classifier: times per epoch each crop of a manzu tile is seen"),
    ] = None,
    indicator_weight: Annotated[
        int | None,
        typer.Option(
            "--indicator-weight",
            min=1,
            help="classifier: times per epoch each crop of a dora indicator or gari tile is seen",
        ),
    ] = None,
    cut_weight: Annotated[
        int | None,
        typer.Option(
            "--cut-weight",
            min=1,
            help="classifier: times per epoch each crop of a hand tile or indicator the frame cuts is seen",
        ),
    ] = None,
    not_a_tile: Annotated[
        int | None,
        typer.Option(
            "--not-a-tile",
            min=0,
            max=20,
            help="classifier: crops of bare table per render (and the real rack photos' "
            "false tiles) to learn 'not a tile'",
        ),
    ] = None,
    only_not_a_tile: Annotated[
        bool,
        typer.Option(
            "--only-not-a-tile", help="classifier: learn the not-a-tile output alone, every other weight kept"
        ),
    ] = False,
    real_runtime_boxes: Annotated[
        bool,
        typer.Option(
            "--real-runtime-boxes", help="classifier: also cut the real training tiles at the localizer's boxes"
        ),
    ] = False,
    only_five_rows: Annotated[
        bool,
        typer.Option(
            "--only-five-rows",
            help="classifier: learn the fives', red fives' and 6p's outputs alone, every other weight kept",
        ),
    ] = False,
    real_red_fives: Annotated[
        bool,
        typer.Option(
            "--real-red-fives", help="classifier: also cut the real training plain fives turned all red, as red fives"
        ),
    ] = False,
    device: Annotated[str | None, typer.Option("--device", help="cpu, or a CUDA device such as 0 (a lent GPU)")] = None,
    batch: Annotated[int | None, typer.Option("--batch", min=1, help="localizer: images a batch")] = None,
    workers: Annotated[
        int | None,
        typer.Option("--workers", min=0, help="data-loading processes (classifier: those making the augmented views)"),
    ] = None,
    hours: Annotated[
        float | None,
        typer.Option(
            "--hours", min=0.001, help="localizer: train this long, not --epochs (the schedule fits the time)"
        ),
    ] = None,
    cache: Annotated[
        bool, typer.Option("--cache", help="localizer: keep the decoded renders in memory (for a GPU)")
    ] = False,
) -> None:
    """Train a model (needs the train extra). Resumes from the run folder's checkpoint."""
    if init is not None and not init.is_file():
        _fail("bad_field", f"--init {init} is not a file", "init")
    if lr is not None and not lr > 0:
        _fail("bad_field", f"--lr {lr} is not a learning rate above 0", "lr")
    from dataclasses import replace

    if model == "localizer":
        from paiscan.datasets.train_localizer import LocalizerRecipe, train_localizer

        chosen: dict[str, Any] = {
            "epochs": epochs or None,
            "imgsz": imgsz or None,
            "lr0": lr,
            "device": device,
            "batch": batch,
            "workers": workers,
            "hours": hours,
            "cache": cache or None,
        }
        if init is not None:
            chosen.update(init_onnx=str(init), warmup_epochs=1.0)
        lrec = replace(LocalizerRecipe(), seed=seed, **{k: v for k, v in chosen.items() if v is not None})
        train_localizer(data, out, lrec)
    elif model == "classifier":
        from paiscan.datasets.train_classifier import ClassifierRecipe, train_classifier

        given: dict[str, Any] = {  # the options given on the command line override the recipe's defaults
            "epochs": epochs or None,
            "lr": lr,
            "orient_weight": orient_weight,
            "input_size": _input_size(input_size) if input_size is not None else None,
            "sideways_weight": sideways_weight,
            "manzu_weight": manzu_weight,
            "indicator_weight": indicator_weight,
            "cut_weight": cut_weight,
            "not_a_tile_per_image": not_a_tile,
            "only_not_a_tile": only_not_a_tile or None,
            "real_runtime_boxes": real_runtime_boxes or None,
            "real_red_fives": real_red_fives or None,
            "only_five_rows": only_five_rows or None,
            "device": device,
            "workers": workers,
        }
        if init is not None:
            given["init_checkpoint" if init.suffix == ".pt" else "init_onnx"] = str(init)
        crec = replace(ClassifierRecipe(), seed=seed, **{k: v for k, v in given.items() if v is not None})
        train_classifier(data, out, crec)
    else:
        _fail("bad_field", f"model must be localizer or classifier, not {model!r}", "model")


def _input_size(text: str) -> tuple[int, int]:
    """``WIDTHxHEIGHT`` as two ints, each 16 to 256 (else a ``bad_field`` error on ``input``)."""
    w, _, h = text.lower().partition("x")
    if not (w.isdigit() and h.isdigit() and 16 <= int(w) <= 256 and 16 <= int(h) <= 256):
        _fail("bad_field", f"--input {text!r} is not WIDTHxHEIGHT with each side 16 to 256 (e.g. 60x80)", "input")
    return int(w), int(h)


def _reader(models_dir: Path | None, threads: int) -> Any:
    from paiscan.vision.pipeline import ModelsMissing, PhotoReader, VisionSettings

    try:
        return PhotoReader.load(VisionSettings(threads=threads).with_models(models_dir))
    except ModelsMissing as exc:
        _fail("models_unavailable", str(exc), "models")


ModelsDir = Annotated[Path | None, typer.Option("--models", help="folder with localizer.onnx and classifier.onnx")]
Threads = Annotated[
    int,
    typer.Option(
        "--threads", min=1, help="onnxruntime threads per model (1: the most photos a second when several run at once)"
    ),
]
#: ``VisionSettings.threads``, written out so that commands needing only the scoring core import
#: no vision code (a test keeps the two equal)
DEFAULT_THREADS = 2


def eval_cmd(
    data: Annotated[
        list[Path],
        typer.Option(
            "--data",
            help="labelled folder: images/, labels/, [structures/, ignore/, manifest.csv]; give it again for "
            "more folders (figures per folder under sources)",
        ),
    ],
    peer: Annotated[str | None, typer.Option("--peer", help="also run a peer: mahjong-detector")] = None,
    limit: Annotated[int | None, typer.Option("--limit", min=1, help="only the first N images of each folder")] = None,
    models: ModelsDir = None,
    threads: Threads = DEFAULT_THREADS,
) -> None:
    """Tile and structure metrics of labelled folders, as one JSON object (a photo that fails to read
    is counted and named, never the end of the run)."""
    from paiscan.datasets.evaluate import evaluate_folders, paiscan_detector, peer_detector

    for folder in data:
        if not (folder / "images").is_dir():
            _fail("bad_field", f"{folder}/images is not a folder", "data")
    if peer is not None and peer != "mahjong-detector":
        _fail("bad_field", f"unknown peer {peer!r} (known: mahjong-detector)", "peer")
    reader = _reader(models, threads)
    reader.warm()
    result = evaluate_folders(data, paiscan_detector(reader), limit=limit, progress=sys.stderr.isatty())
    if peer is not None:
        try:
            detector = peer_detector()
        except ImportError:
            _fail("peer_unavailable", "pip install mahjong-detector (extra: peer) to compare with it", "peer")
        mine_plain = evaluate_folders(data, paiscan_detector(reader), limit=limit, plain_reds=True)
        result["peer"] = {"name": peer, **evaluate_folders(data, detector, limit=limit, plain_reds=True)}
        result["paiscan_reds_as_plain"] = mine_plain
    _emit(result)


def _read_photo(path: Path, reader: Any, rules: str, context: dict[str, Any] | None) -> dict[str, Any]:
    from paiscan.vision.image import ImageError

    try:
        result = reader.read(path.read_bytes(), rules=rules, context=context)
    except OSError as exc:
        return {
            "error": {"code": "unreadable_image", "message": f"cannot read {path}: {exc.strerror}", "field": "PHOTO"}
        }
    except ImageError as exc:
        err = exc.to_dict()
        err["error"]["field"] = "PHOTO"
        return err
    except Exception as exc:  # never a traceback: a codec's or the reader's failure is an error object
        return {
            "error": {
                "code": "reading_failed",
                "message": f"the photo could not be read ({type(exc).__name__}: {exc})",
                "field": "PHOTO",
            }
        }
    out: dict[str, Any] = result.to_dict()
    out["photo"] = str(path)
    return out


def _annotate_target(photo: Path, annotate: Path) -> None:
    """Refuse an --annotate that cannot be written before any photo is read."""
    from paiscan.vision.annotate import wrong_ending

    if photo.is_dir():
        if annotate.exists() and not annotate.is_dir():
            _fail(
                "bad_field",
                f"{annotate} is a file: with a folder of photos, --annotate names a folder "
                "(one annotated JPEG per photo)",
                "annotate",
            )
        return
    wrong = wrong_ending(annotate)
    if wrong:
        _fail("bad_field", wrong, "annotate")
    if not annotate.parent.is_dir():
        _fail("bad_field", f"{annotate.parent} is not a folder", "annotate")


def _write_annotated(photo: Path, out: dict[str, Any], target: Path) -> None:
    from paiscan.vision.annotate import annotate_file
    from paiscan.vision.image import ImageError

    try:
        annotate_file(photo, out, target)
    except (OSError, ValueError, ImageError) as exc:
        _fail("unwritable_output", f"cannot write {target}: {getattr(exc, 'strerror', None) or exc}", "annotate")


def read_cmd(
    photo: Annotated[Path, typer.Argument(help="a photo, or a folder of photos with --jsonl")],
    rules: Annotated[str, typer.Option("--rules", help="ruleset: tile set, what is set aside")] = "riichi",
    jsonl: Annotated[bool, typer.Option("--jsonl", help="read a folder, one JSON line per photo")] = False,
    annotate: Annotated[
        Path | None,
        typer.Option("--annotate", help="write the photo with boxes, structure (a folder, with a folder of photos)"),
    ] = None,
    models: ModelsDir = None,
    threads: Threads = DEFAULT_THREADS,
) -> None:
    """What a photo shows: detections and the hand structure, with ambiguities."""
    from paiscan.scoring import HandError
    from paiscan.scoring.registry import get_ruleset

    try:
        get_ruleset(rules)
    except HandError as err:
        _fail(err.code, err.message, "rules")
    if photo.is_dir() and not jsonl:
        _fail("bad_field", "PHOTO is a folder: add --jsonl to read every photo in it", "PHOTO")
    if annotate is not None:
        _annotate_target(photo, annotate)
    reader = _reader(models, threads)
    if photo.is_dir():
        from tqdm import tqdm

        files = sorted(p for p in photo.iterdir() if p.suffix.lower() in (".jpg", ".jpeg", ".png", ".webp", ".heic"))
        if annotate is not None:
            annotate.mkdir(parents=True, exist_ok=True)
        shared = {stem for stem, n in Counter(f.stem for f in files).items() if n > 1}
        for f in tqdm(files, desc="read", unit="photo", disable=not sys.stderr.isatty()):
            result = _read_photo(f, reader, rules, None)
            if annotate is not None and "error" not in result:  # a.jpg and a.png: a.jpg.jpg, a.png.jpg
                _write_annotated(f, result, annotate / f"{f.name if f.stem in shared else f.stem}.jpg")
            _emit(result)
        return
    out = _read_photo(photo, reader, rules, None)
    _emit(out)
    if "error" in out:
        raise typer.Exit(2)
    if annotate is not None:
        _write_annotated(photo, out, annotate)


def score_cmd(
    photo: Annotated[Path, typer.Argument(help="a photo of the winning hand")],
    rules: Annotated[str, typer.Option("--rules")] = "riichi",
    tsumo: Annotated[bool, typer.Option("--tsumo", help="won by tsumo (default ron)")] = False,
    seat_wind: Annotated[str, typer.Option("--seat-wind")] = "east",
    round_wind: Annotated[str, typer.Option("--round-wind")] = "east",
    honba: Annotated[int, typer.Option("--honba", min=0)] = 0,
    flag: Annotated[list[str] | None, typer.Option("--flag", help="riichi, ippatsu, haitei ... (repeatable)")] = None,
    option: Annotated[list[str] | None, typer.Option("--option", help="key=value (JSON value), repeatable")] = None,
    models: ModelsDir = None,
    threads: Threads = DEFAULT_THREADS,
) -> None:
    """Read a photo and print the Score, with the recognised hand under ``recognised``."""
    context: dict[str, Any] = {
        "win": "tsumo" if tsumo else "ron",
        "seat_wind": seat_wind,
        "round_wind": round_wind,
        "honba": honba,
        "flags": flag or [],
    }
    options = _parse_option_args(option or [])
    if options:
        context["options"] = options
    from paiscan.scoring import HandError, check_context

    try:  # the situation first: a bad --seat-wind is the option's error, not the photo's
        check_context({"rules": rules, **context})
    except HandError as err:
        _emit(err.to_dict())
        raise typer.Exit(2) from None
    reader = _reader(models, threads)
    out = _read_photo(photo, reader, rules, context)
    if "error" in out:
        _emit(out)
        raise typer.Exit(2)
    if out.get("problems") and out.get("hand"):
        from paiscan.scoring import context_fault
        from paiscan.scoring.hand import HAND_FIELDS

        read = {k: v for k, v in out["hand"].items() if k in HAND_FIELDS}
        fault = context_fault(read, {"rules": rules, **context})
        if fault is not None:  # the photo's best hand is whole; an option given rules it out
            _emit(
                {
                    "error": {
                        "code": fault.code,
                        "message": f"the photo's hand and {fault.field} disagree: {fault.message}",
                        "field": fault.field,
                    },
                    "recognised": out,
                }
            )
            raise typer.Exit(2)
    if out.get("problems") or not out.get("hand"):
        first = (out.get("problems") or [{}])[0]
        _emit(
            {
                "error": {
                    "code": first.get("code", "no_valid_reading"),
                    "message": first.get("message", "the photo does not show a hand that can be scored"),
                    "field": "PHOTO",
                },
                "recognised": out,
            }
        )
        raise typer.Exit(2)
    hand = {"rules": rules, **context, **out["hand"]}
    result = _score_one(hand, None, {})
    result["recognised"] = out
    _emit(result)
    if "error" in result:
        raise typer.Exit(2)
