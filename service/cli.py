"""The ``paiscan`` command line.

Commands that need only the scoring core import nothing else, so ``paiscan score-hand`` starts
fast and works without the vision stack.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="paiscan: score finished mahjong hands (riichi and five house rules).")


def _emit(obj: Any) -> None:
    sys.stdout.write(json.dumps(obj, ensure_ascii=False) + "\n")


def _fail(code: str, message: str, field: str | None = None, exit_code: int = 2) -> NoReturn:
    _emit({"error": {"code": code, "message": message, "field": field}})
    raise typer.Exit(exit_code)


def _read_input(source: str) -> str:
    try:
        if source == "-":
            return sys.stdin.read()
        return Path(source).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        _fail("unreadable_input", f"cannot read {source}: {exc}", "FILE")


def _parse_option_args(pairs: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for pair in pairs:
        if "=" not in pair:
            _fail("bad_option", f"--option needs key=value, not {pair!r}", "options")
        key, raw = pair.split("=", 1)
        try:
            value: Any = json.loads(raw)
        except json.JSONDecodeError:
            value = raw
        out[key.strip()] = value
    return out


def _score_one(data: Any, rules: str | None, options: dict[str, Any]) -> dict[str, Any]:
    from scoring import HandError, score_hand

    try:
        return score_hand(data, rules=rules, options=options).to_dict()
    except HandError as err:
        return err.to_dict()
    except RecursionError:
        return {"error": {"code": "bad_json", "message": "the input is nested too deeply", "field": None}}


@app.command("score-hand")
def score_hand_cmd(
    source: Annotated[str, typer.Argument(help="Hand JSON file, or - for standard input")] = "-",
    rules: Annotated[str | None, typer.Option("--rules", help="ruleset id (overrides the file)")] = None,
    option: Annotated[list[str] | None, typer.Option("--option", help="key=value (JSON value), repeatable")] = None,
    jsonl: Annotated[bool, typer.Option("--jsonl", help="one Hand per line in, one Score per line out")] = False,
) -> None:
    """Score a Hand (contract JSON) and print the Score as JSON."""
    options = _parse_option_args(option or [])
    text = _read_input(source)
    if jsonl:
        for lineno, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                data = json.loads(line)
            except json.JSONDecodeError as exc:
                _emit({"error": {"code": "bad_json", "message": f"line {lineno}: {exc.msg}", "field": None}})
                continue
            _emit(_score_one(data, rules, options))
        return
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        _fail("bad_json", f"not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})")
    result = _score_one(data, rules, options)
    _emit(result)
    if "error" in result:
        raise typer.Exit(2)


@app.command("rules")
def rules_cmd(
    ruleset: Annotated[str | None, typer.Argument(help="a ruleset id; all when omitted")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print JSON instead of a table")] = False,
) -> None:
    """List the rulesets, or one ruleset's options (type, default, meaning) and yaku."""
    from scoring import HandError
    from scoring.registry import available, get_ruleset

    try:
        ids = [ruleset] if ruleset else available()
        described = [get_ruleset(rid).describe() for rid in ids]
    except HandError as err:
        _emit(err.to_dict())
        raise typer.Exit(2) from None
    if as_json:
        _emit(described if ruleset is None else described[0])
        return
    from rich.console import Console
    from rich.table import Table

    console = Console()
    for d in described:
        console.print(f"[bold]{d['id']}[/bold]  {d['name']}  {d['name_ja']}  ({d['players']} players)")
        table = Table("option", "type", "default", "meaning")
        for o in d["options"]:
            default = json.dumps(o["default"], ensure_ascii=False)
            meaning = o["meaning"] + (f" [{', '.join(map(str, o['choices']))}]" if o.get("choices") else "")
            table.add_row(o["name"], o["type"], default, meaning)
        console.print(table)
        if ruleset:
            yt = Table("yaku", "name", "closed", "open", "unit")
            for y in d["yaku"]:
                yt.add_row(y["id"], f"{y['name_ja']} {y['name']}", str(y["closed"]),
                           "-" if y["open"] is None else str(y["open"]), y["unit"])
            console.print(yt)


@app.command("synth")
def synth_cmd(
    out: Annotated[Path | None, typer.Option("--out", help="output folder (images/, labels/, structures/ ...)")] = None,
    n: Annotated[int, typer.Option("--n", min=1, help="number of renders")] = 100,
    seed: Annotated[int, typer.Option("--seed", help="dataset seed (renders are identical per seed)")] = 0,
    rules: Annotated[str, typer.Option("--rules", help="ruleset whose tile set and conventions to follow")] = "riichi",
    crops: Annotated[bool, typer.Option("--crops", help="also write upright tile crops for the classifier")] = False,
    workers: Annotated[int, typer.Option("--workers", min=1, help="render processes")] = 1,
    preview_path: Annotated[Path | None, typer.Option("--preview", help="write a contact sheet with boxes")] = None,
) -> None:
    """Render synthetic photos of winning hands with exact labels."""
    from scoring import HandError
    from scoring.registry import RULESETS

    if rules not in RULESETS:
        err = HandError("unknown_ruleset", f"unknown ruleset {rules!r} (known: {', '.join(RULESETS)})", "rules")
        _emit(err.to_dict())
        raise typer.Exit(2)
    if out is None and preview_path is None:
        _fail("bad_field", "give --out DIR and/or --preview OUT.jpg", "out")
    from datasets.synth import preview, write_dataset

    if preview_path is not None:
        preview(preview_path, n=16, seed=seed, rules=rules)
        typer.echo(f"preview written to {preview_path}", err=True)
    if out is not None:
        write_dataset(out, n, seed, rules=rules, crops=crops, workers=workers, progress=True)


@app.command("train")
def train_cmd(
    model: Annotated[str, typer.Argument(help="localizer or classifier")],
    data: Annotated[list[Path], typer.Option("--data", help="paiscan synth output folder(s)")],
    out: Annotated[Path, typer.Option("--out", help="run folder (checkpoints, metrics, ONNX)")] = Path("runs/model"),
    epochs: Annotated[int | None, typer.Option("--epochs", help="epochs (default: the recipe's)")] = None,
    imgsz: Annotated[int | None, typer.Option("--imgsz", help="localizer input size")] = None,
    seed: Annotated[int, typer.Option("--seed")] = 0,
) -> None:
    """Train a model (needs the train extra). Resumes from the run folder's checkpoint."""
    from dataclasses import replace

    if model == "localizer":
        from datasets.train_localizer import LocalizerRecipe, train_localizer

        lrec = replace(LocalizerRecipe(), seed=seed)
        if epochs:
            lrec = replace(lrec, epochs=epochs)
        if imgsz:
            lrec = replace(lrec, imgsz=imgsz)
        train_localizer(data, out, lrec)
    elif model == "classifier":
        from datasets.train_classifier import ClassifierRecipe, train_classifier

        crec = replace(ClassifierRecipe(), seed=seed)
        if epochs:
            crec = replace(crec, epochs=epochs)
        train_classifier(data, out, crec)
    else:
        _fail("bad_field", f"model must be localizer or classifier, not {model!r}", "model")


def main() -> None:
    app()


if __name__ == "__main__":
    main()
