"""The ``paiscan`` command line: the typer app, the scoring commands (score-hand, rules) and serve.

Commands that need only the scoring core import nothing else, so ``paiscan score-hand`` starts
fast and works without the vision stack. The photo and model commands are in
:mod:`paiscan.service.cli_photo`, the game and sheets commands in :mod:`paiscan.service.cli_game`,
what they all share in :mod:`paiscan.service.cli_common`; all are registered on :data:`app` here.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from paiscan.service.cli_common import _emit, _parse_json, _parse_option_args, _read_input
from paiscan.service.cli_game import game_cmd, sheets_app
from paiscan.service.cli_game import sheets_import_cmd as sheets_import_cmd
from paiscan.service.cli_photo import DEFAULT_THREADS as DEFAULT_THREADS
from paiscan.service.cli_photo import MAX_SYNTH_SIDE as MAX_SYNTH_SIDE
from paiscan.service.cli_photo import MAX_SYNTH_TILT_DEG as MAX_SYNTH_TILT_DEG
from paiscan.service.cli_photo import MIN_SYNTH_SIDE as MIN_SYNTH_SIDE
from paiscan.service.cli_photo import ModelsDir as ModelsDir
from paiscan.service.cli_photo import Threads as Threads
from paiscan.service.cli_photo import eval_cmd, read_cmd, score_cmd, synth_cmd, train_cmd

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    help="paiscan: score finished mahjong hands (riichi and five house rules).",
)


_SCORING: list[Any] = []
#: orjson's decoder (several times as fast as json's), or None where it is not installed
_fast_loads: Any
try:
    from orjson import loads as _fast_loads
except ImportError:  # pragma: no cover (a dependency; json alone gives the same answers)
    _fast_loads = None
#: nineteen digits in a row: room for an integer past 64 bits, which orjson reads as a float
_LONG_DIGITS = re.compile(r"[0-9]{19}")


def _scoring() -> tuple[Any, Any]:
    """The scoring core's module and its JSON encoder, imported on the first hand (the CLI starts
    without them) and kept: an import statement per line of a stream costs microseconds."""
    if not _SCORING:
        from paiscan import scoring
        from paiscan.scoring.score import encode_json

        _SCORING.extend((scoring, encode_json))
    return _SCORING[0], _SCORING[1]


def _score_one_text(data: Any, rules: str | None, options: dict[str, Any]) -> tuple[str, bool]:
    """The Score of ``data`` (or the error object) as one line of JSON, and whether it is an error."""
    scoring, encode_json = _scoring()
    HandError = scoring.HandError
    try:
        return scoring.score_hand(data, rules=rules, options=options).to_json(), False
    except HandError as err:
        return err.to_json(), True
    except RecursionError:
        nested = {"code": "bad_json", "message": "the input is nested too deeply", "field": None}
        return encode_json({"error": nested}), True
    except Exception as exc:  # never a traceback: a bug is reported as an error object, as the API does
        error = {
            "code": "scoring_failed",
            "message": f"this hand could not be scored ({type(exc).__name__}: {exc})",
            "field": None,
        }
        return encode_json({"error": error}), True


def score_line(line: str, lineno: int, rules: str | None = None, options: dict[str, Any] | None = None) -> str:
    """What ``paiscan score-hand --jsonl`` prints for one line of its input (without the newline).

    The line is decoded with orjson, and read again with :mod:`json` (the reading every answer is
    defined by) wherever the two could differ: orjson refuses the line (bad JSON, NaN, a lone
    surrogate, a number past 64 bits), or the hand fails and the line holds an integer past 64 bits,
    which orjson reads as a float. Any other value is the same from both, and a float is never a
    valid Hand value, so a Score is never affected.
    """
    if _fast_loads is not None:
        try:
            data = _fast_loads(line)
        except ValueError:  # (orjson.JSONDecodeError)
            pass
        else:
            text, failed = _score_one_text(data, rules, options or {})
            if not (failed and _LONG_DIGITS.search(line)):
                return text
    try:  # any failure (a BOM, bad JSON) is read again below to say why
        data = json.loads(line)
    except (ValueError, RecursionError):
        data, error = _parse_json(line, f"line {lineno}: ")
        if error:
            return json.dumps(error, ensure_ascii=False)
    return _score_one_text(data, rules, options or {})[0]


def _emit_text(text: str) -> None:
    """Print one line of JSON written with ``ensure_ascii=False`` (as :func:`_emit` does)."""
    try:
        sys.stdout.write(text + "\n")
    except UnicodeEncodeError:  # a lone surrogate echoed from the input: escaped, never a traceback
        sys.stdout.write(json.dumps(json.loads(text)) + "\n")


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
            _emit_text(score_line(line, lineno, rules, options))
        return
    data, error = _parse_json(text)
    if error:
        _emit(error)
        raise typer.Exit(2)
    result, failed = _score_one_text(data, rules, options)
    _emit_text(result)
    if failed:
        raise typer.Exit(2)


def rules_cmd(
    ruleset: Annotated[str | None, typer.Argument(help="a ruleset id; all when omitted")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print JSON instead of a table")] = False,
) -> None:
    """List the rulesets, or one ruleset's options (type, default, meaning) and yaku."""
    from paiscan.scoring import HandError
    from paiscan.scoring.registry import available, get_ruleset

    try:
        ids = [ruleset] if ruleset is not None else available()
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
        if ruleset is not None:
            yt = Table("yaku", "name", "closed", "open", "unit")
            for y in d["yaku"]:
                yt.add_row(
                    y["id"],
                    f"{y['name_ja']} {y['name']}",
                    str(y["closed"]),
                    "-" if y["open"] is None else str(y["open"]),
                    y["unit"],
                )
            console.print(yt)


def serve_cmd(
    host: Annotated[str, typer.Option("--host")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", min=1, max=65535)] = 8000,
    data_dir: Annotated[
        Path | None,
        typer.Option("--data-dir", help="folder of the stored game sheets (env PAISCAN_DATA_DIR; default per user)"),
    ] = None,
    lan: Annotated[
        bool, typer.Option("--lan", help="listen on every interface and print the address (and a QR code) for phones")
    ] = False,
) -> None:
    """Start the HTTP service and the web page."""
    if lan:
        from paiscan.service.lan import announce

        host = "0.0.0.0" if host == "127.0.0.1" else host
        typer.echo(announce(port))
    if data_dir is not None:  # read by the app's settings, which are built on import
        import os

        os.environ["PAISCAN_DATA_DIR"] = str(data_dir)
    from paiscan.service.app import serve

    serve(host=host, port=port)


# the commands, in the order ``paiscan --help`` lists them
app.command("score-hand")(score_hand_cmd)
app.command("game")(game_cmd)
app.command("rules")(rules_cmd)
app.command("synth")(synth_cmd)
app.command("train")(train_cmd)
app.command("eval")(eval_cmd)
app.command("read")(read_cmd)
app.command("score")(score_cmd)
app.command("serve")(serve_cmd)
app.add_typer(sheets_app, name="sheets")


def main() -> None:
    app()


if __name__ == "__main__":
    main()
