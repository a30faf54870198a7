"""Ruleset options: a frozen dataclass per ruleset, each field with a one-line meaning.

Fields are declared with :func:`opt`, which keeps the meaning and the allowed values beside the
default, so ``paiscan rules``, ``GET /v1/rulesets`` and validation all read one source.

>>> from dataclasses import dataclass
>>> @dataclass(frozen=True)
... class Demo:
...     kiriage: bool = opt(False, "round 4 han 30 fu up to mangan")
...     kazoe: str = opt("yakuman", "cap of 13+ han", choices=("yakuman", "sanbaiman"))
>>> parse_options(Demo, {"kiriage": True}).kiriage
True
>>> parse_options(Demo, {"kazoe": "x"})
Traceback (most recent call last):
...
paiscan.scoring.errors.HandError: option kazoe must be one of yakuman, sanbaiman, not 'x'
"""

from __future__ import annotations

import dataclasses
import types
from collections.abc import Mapping
from functools import cache
from typing import Any, Final, get_origin, get_type_hints

from paiscan.scoring.errors import HandError

#: no number-valued option may lie outside this (an amount, a count of points, a han value): past
#: it the prices grow into numbers of thousands of digits and a request stalls the service
OPTION_INT_RANGE: Final = (-(10**9), 10**9)


def opt(default: Any, doc: str, choices: tuple[Any, ...] | None = None, bounds: tuple[int, int] | None = None) -> Any:
    """Declare an option field with its default, meaning and (optionally) allowed values, or the
    range of a number (of each number, for an object of them)."""
    meta = {"doc": doc, "choices": choices, "bounds": bounds}
    if isinstance(default, dict | list):
        frozen = types.MappingProxyType(dict(default)) if isinstance(default, dict) else tuple(default)
        return dataclasses.field(default_factory=lambda: frozen, metadata=meta)
    return dataclasses.field(default=default, metadata=meta)


def field_default(f: dataclasses.Field[Any]) -> Any:
    """The default of an option field (mutable defaults live in a factory)."""
    if f.default_factory is not dataclasses.MISSING:
        return f.default_factory()
    return f.default


def _type_name(tp: Any) -> str:
    origin = get_origin(tp)
    if (origin is not None and origin in (dict, Mapping)) or tp in (dict, Mapping):
        return "object"
    if getattr(tp, "__name__", "") == "Mapping":
        return "object"
    return {bool: "bool", int: "int", str: "str", float: "float"}.get(tp, str(tp))


@cache
def _hints(cls: type) -> dict[str, Any]:
    return get_type_hints(cls)


@cache
def _defaults(cls: type) -> Any:
    return cls()


def option_schema(cls: type) -> list[dict[str, Any]]:
    """Name, type, default, meaning and allowed values of every option of ``cls``."""
    hints = _hints(cls)
    out = []
    for f in dataclasses.fields(cls):
        default = field_default(f)
        if isinstance(default, types.MappingProxyType):
            default = dict(default)
        entry: dict[str, Any] = {
            "name": f.name,
            "type": _type_name(hints[f.name]),
            "default": default,
            "meaning": f.metadata.get("doc", ""),
        }
        if f.metadata.get("choices"):
            entry["choices"] = list(f.metadata["choices"])
        if f.metadata.get("bounds"):
            entry["min"], entry["max"] = f.metadata["bounds"]
        out.append(entry)
    return out


def _in_range(name: str, value: Any, bounds: tuple[int, int] | None, field_name: str) -> None:
    lo, hi = bounds or OPTION_INT_RANGE
    if isinstance(value, int | float) and not isinstance(value, bool) and not lo <= value <= hi:
        raise HandError("bad_option", f"option {name} must be {lo}..{hi}, not {value}", field_name)


def _check_value(name: str, tp: Any, value: Any, default: Any, bounds: tuple[int, int] | None = None) -> Any:
    field_name = f"options.{name}"
    kind = _type_name(tp)
    if kind == "bool":
        if not isinstance(value, bool):
            raise HandError("bad_option", f"option {name} must be true or false, not {value!r}", field_name)
    elif kind == "int":
        if isinstance(value, bool) or not isinstance(value, int):
            raise HandError("bad_option", f"option {name} must be a whole number, not {value!r}", field_name)
    elif kind == "float":
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise HandError("bad_option", f"option {name} must be a number, not {value!r}", field_name)
    elif kind == "str":
        if not isinstance(value, str):
            raise HandError("bad_option", f"option {name} must be a string, not {value!r}", field_name)
    elif kind == "object":
        if not isinstance(value, Mapping):
            raise HandError("bad_option", f"option {name} must be an object, not {value!r}", field_name)
        merged = dict(default)
        for key, sub in value.items():
            if key not in merged:
                raise HandError(
                    "bad_option",
                    f"option {name} has no key {key!r} (keys: {', '.join(merged)})",
                    f"{field_name}.{key}",
                )
            if isinstance(sub, bool) or not isinstance(sub, type(merged[key])):
                raise HandError(
                    "bad_option", f"option {name}.{key} must be {type(merged[key]).__name__}", f"{field_name}.{key}"
                )
            _in_range(f"{name}.{key}", sub, bounds, f"{field_name}.{key}")
            merged[key] = sub
        return types.MappingProxyType(merged)
    _in_range(name, value, bounds, field_name)
    return value


def parse_options(
    cls: type, raw: Mapping[str, Any] | None, presets: Mapping[str, Mapping[str, Any]] | None = None
) -> Any:
    """Build the options dataclass from user input, rejecting unknown names and bad values.

    A ``"preset"`` key picks a named preset first; explicit options override it.
    """
    if not raw:
        return _defaults(cls)
    raw = dict(raw)
    values: dict[str, Any] = {}
    if "preset" in raw:
        name = raw.pop("preset")
        if not isinstance(name, str) or not presets or name not in presets:
            known = ", ".join(presets or {}) or "none"
            raise HandError("bad_option", f"unknown preset {name!r} (presets: {known})", "options.preset")
        values.update(presets[name])
    values.update(raw)
    hints = _hints(cls)
    fields = {f.name: f for f in dataclasses.fields(cls)}
    checked: dict[str, Any] = {}
    for name, value in values.items():
        if name not in fields:
            known = ", ".join(fields)
            raise HandError("unknown_option", f"unknown option {name!r} (options: {known})", f"options.{name}")
        f = fields[name]
        value = _check_value(name, hints[name], value, field_default(f), f.metadata.get("bounds"))
        choices = f.metadata.get("choices")
        if choices and value not in choices:
            allowed = ", ".join(str(c) for c in choices)
            raise HandError("bad_option", f"option {name} must be one of {allowed}, not {value!r}", f"options.{name}")
        checked[name] = value
    return cls(**checked)
