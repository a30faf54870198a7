"""What every ``paiscan`` command shares: JSON out, error objects, reading the input and ``--option`` pairs.

Imports nothing beyond the standard library and typer, so any command starts fast.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, NoReturn

import typer


def _emit(obj: Any) -> None:
    text = json.dumps(obj, ensure_ascii=False)
    try:
        sys.stdout.write(text + "\n")
    except UnicodeEncodeError:  # a lone surrogate echoed from the input: escaped, never a traceback
        sys.stdout.write(json.dumps(obj) + "\n")


def _parse_json(text: str, where: str = "") -> tuple[Any, dict[str, Any] | None]:
    """The JSON value of ``text``, or the ``bad_json`` error object saying why it is not one
    (``where``: "line 3: " for one line of a stream)."""

    def bad(message: str) -> tuple[Any, dict[str, Any]]:
        return None, {"error": {"code": "bad_json", "message": where + message, "field": None}}

    if text.startswith("\ufeff"):  # a byte-order mark some editors write: not part of the JSON
        text = text[1:]
    try:
        return json.loads(text), None
    except json.JSONDecodeError as exc:
        return bad(f"not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})")
    except RecursionError:
        return bad("the input is nested too deeply")
    except ValueError:  # Python refuses whole numbers of thousands of digits
        return bad("not valid JSON: a number has more digits than any field can hold")


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
        except (json.JSONDecodeError, RecursionError):
            value = raw
        except ValueError:
            _fail(
                "bad_option",
                f"--option {key.strip()}: a number of that many digits is no option value",
                f"options.{key.strip()}",
            )
        out[key.strip()] = value
    return out
