"""The ``paiscan`` commands of games and stored sheets: ``game`` (replay a record) and ``sheets import``."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from paiscan.service.cli_common import _emit, _fail, _parse_json, _read_input


def _game_tables(out: dict[str, Any]) -> None:
    """The replay as rich tables: the hands with running scores, the standings, then every dispute."""
    from rich.console import Console
    from rich.table import Table

    console = Console()
    players = out["players"]
    table = Table("#", "deal", "result", *players, "", title=f"{out['rules']} game")
    for h in out["hands"]:
        who = h["winner"] or h["player"] or ""
        if h["result"] == "ron":
            what = f"{who} ron ← {h['discarder']}"
        elif h["result"] == "tsumo":
            what = f"{who} tsumo"
        elif h["result"] == "chombo":
            what = f"chombo {who}"
        else:
            what = "draw"
        cells = []
        for p in players:
            change = h["deltas"].get(p, 0)
            cells.append(f"{h['scores'][p]}" + (f" ({change:+})" if change else ""))
        mark = "[red]⚑[/red]" if h["disputes"] else ("[yellow]![/yellow]" if h["warnings"] else "")
        if h["status"] != "applied":
            what += f" [dim]({h['status']})[/dim]"
        if h["ends"]:
            what += f" [bold]→ end ({h['ends']})[/bold]"
        table.add_row(str(h["no"]), h["label"], what, *cells, mark)
    console.print(table)
    end = out["end"]
    console.print(
        f"end: after hand {end['after']}, {end['message']}"
        if end
        else "end: "
        + (
            "none (this ruleset has no fixed end)"
            if out["finished"]
            else "the sheet stops before the end of the game (provisional settlement)"
        )
    )
    st = Table("player", "final", "net", "rank", "result", title="settlement")
    for s in out["standings"]:
        st.add_row(s["player"], str(s["final"]), f"{s['net']:+}", str(s["rank"]), s["result"])
    console.print(st)
    for d in out["disputes"]:
        console.print(f"[red]⚑ {d['kind']}[/red] {d['message']}")
    for h in out["hands"]:
        for w in h["warnings"]:
            console.print(f"[yellow]! hand {h['no']}[/yellow] {w}")
    for w in out["warnings"]:
        console.print(f"[yellow]![/yellow] {w}")


def game_cmd(
    source: Annotated[str, typer.Argument(help="game record JSON file, or - for standard input")] = "-",
    as_json: Annotated[bool, typer.Option("--json", help="print the replay as JSON instead of tables")] = False,
    csv_out: Annotated[Path | None, typer.Option("--csv", help="also write a CSV for a club spreadsheet")] = None,
    prefer: Annotated[
        str | None,
        typer.Option("--prefer", help="points to apply when a hand has both: recomputed (default) or written"),
    ] = None,
    strict: Annotated[bool, typer.Option("--strict", help="exit 1 when any hand is disputed")] = False,
) -> None:
    """Replay a game record: deals, running scores, the end, the settlement and every disputed hand."""
    from paiscan.scoring import HandError
    from paiscan.scoring.game_record import parse_record, replay

    if prefer is not None and prefer not in ("recomputed", "written"):
        _fail("bad_option", f"--prefer must be recomputed or written, not {prefer!r}", "prefer")
    data, error = _parse_json(_read_input(source))
    if error:
        _emit(error)
        raise typer.Exit(2)
    try:
        result = replay(parse_record(data), prefer)
    except HandError as err:
        _emit(err.to_dict())
        raise typer.Exit(2) from None
    except RecursionError:
        _fail("bad_json", "the input is nested too deeply")
    except Exception as exc:  # never a traceback: a bug is reported as an error object
        _fail("replay_failed", f"this game record could not be replayed ({type(exc).__name__}: {exc})")
    if csv_out is not None:
        tmp = csv_out.with_name(f".{csv_out.name}.tmp")
        try:  # whole or not at all: a temporary file, renamed
            tmp.write_text(result.csv_text(), encoding="utf-8", errors="backslashreplace")
            tmp.replace(csv_out)
        except OSError as exc:
            _fail("unwritable_output", f"cannot write {csv_out}: {exc.strerror}", "csv")
        finally:
            tmp.unlink(missing_ok=True)
    out = result.to_dict()
    if as_json:
        _emit(out)
    else:
        _game_tables(out)
    if strict and out["disputes"]:
        raise typer.Exit(1)


sheets_app = typer.Typer(help="the stored game sheets (the database paiscan serve keeps)", no_args_is_help=True)


@sheets_app.command("import")
def sheets_import_cmd(
    folder: Annotated[Path, typer.Argument(help="a folder of game records (*.json) and CSV sheets (*.csv)")],
    data_dir: Annotated[
        Path | None,
        typer.Option("--data-dir", help="the database's folder (env PAISCAN_DATA_DIR; default per user)"),
    ] = None,
) -> None:
    """Store every record and CSV sheet of a folder, with a progress bar; then a summary of the flags. Exit 1
    when a file could not be stored (the others are)."""
    from tqdm import tqdm

    from paiscan.service.settings import ServiceSettings
    from paiscan.service.sheets import SheetStore, default_data_dir, import_file, importable

    if not folder.is_dir():
        _fail("unreadable_input", f"{folder} is not a folder", "FOLDER")
    target = data_dir or ServiceSettings().data_dir or default_data_dir()
    try:
        store = SheetStore(target)
        files = importable(folder)
    except (OSError, RuntimeError) as exc:
        _fail("store_unavailable", f"cannot open the sheets in {target}: {exc}", "data_dir")
    results = [import_file(store, p) for p in tqdm(files, desc="sheets", unit="file", disable=not sys.stderr.isatty())]
    flags: dict[str, int] = {}
    for r in results:
        for kind, n in (r.disputes or {}).items():
            flags[kind] = flags.get(kind, 0) + n
    failed = [r for r in results if r.error is not None]
    _emit(
        {
            "data_dir": str(target),
            "files": len(results),
            "stored": len(results) - len(failed),
            "hands": sum(len(r.sheet.record["hands"]) for r in results if r.sheet is not None),
            "flags": flags,
            "sheets": [
                {"file": r.path.name, "id": r.sheet.id, "flags": dict(r.disputes or {})}
                if r.sheet is not None
                else {"file": r.path.name, "error": dict(r.error or {})}
                for r in results
            ],
        }
    )
    if failed:
        raise typer.Exit(1)
