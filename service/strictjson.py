"""Strict JSON at the API edge: a key given twice and a lone UTF-16 surrogate are refused, naming where.

Python's ``json`` keeps the last of two equal keys and accepts ``"\\ud800"``, a string that cannot
be written back as UTF-8; both would reach the core (or an error message echoing them) as if they
were meant. :class:`StrictRoute` makes FastAPI parse every JSON body with :func:`strict_loads`.

>>> strict_loads('{"a": 1, "b": [2, {"c": "x"}]}')
{'a': 1, 'b': [2, {'c': 'x'}]}
>>> strict_loads('{"a": 1, "a": 2}')
Traceback (most recent call last):
...
paiscan.service.errors.ApiError: the key 'a' is given twice in one object
>>> strict_loads('{"options": {"\\\\ud800": 1}}')
Traceback (most recent call last):
...
paiscan.service.errors.ApiError: a key in options holds a lone UTF-16 surrogate ('\\ud800'), which is not text
"""

from __future__ import annotations

import json
from collections.abc import Callable, Coroutine
from typing import Any

from fastapi import Request, Response
from fastapi.routing import APIRoute

from paiscan.service.errors import ApiError, ApiHTTPError


class DuplicateKey(ValueError):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise DuplicateKey(key)
        out[key] = value
    return out


def _is_text(s: str) -> bool:
    try:
        s.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _join(path: str, key: str | int) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else key


def check_text(value: Any, prefix: str = "") -> None:
    """Raise ApiError ``bad_unicode`` at the first key or string holding a lone surrogate."""
    stack: list[tuple[str, Any]] = [(prefix, value)]
    while stack:
        path, item = stack.pop()
        if isinstance(item, str):
            if not _is_text(item):
                where = path or "the body"
                message = f"{where} holds a lone UTF-16 surrogate, which is not text"
                raise ApiError(422, "bad_unicode", message, path or None)
        elif isinstance(item, dict):
            for key, sub in item.items():
                if not _is_text(key):
                    where = f"a key in {path}" if path else "a key"
                    raise ApiError(
                        422,
                        "bad_unicode",
                        f"{where} holds a lone UTF-16 surrogate ({key!a}), which is not text",
                        path or None,
                    )
                stack.append((_join(path, key), sub))
        elif isinstance(item, list):
            stack.extend((_join(path, i), sub) for i, sub in enumerate(item))


def strict_loads(text: str | bytes, prefix: str = "") -> Any:
    """``json.loads`` refusing duplicate keys (``duplicate_key``) and lone surrogates (``bad_unicode``).

    A syntax error is still :class:`json.JSONDecodeError` (the caller words it).
    """
    try:
        value = json.loads(text, object_pairs_hook=_no_duplicates)
    except DuplicateKey as dup:
        shown = dup.key if _is_text(dup.key) else ascii(dup.key)
        field = f"{prefix}.{shown}" if prefix else shown
        raise ApiError(422, "duplicate_key", f"the key {shown!r} is given twice in one object", field) from None
    check_text(value, prefix)
    return value


class StrictJSONRequest(Request):
    """A request whose JSON body is parsed by :func:`strict_loads`."""

    async def json(self) -> Any:
        if not hasattr(self, "_json"):
            body = await self.body()
            try:
                self._json = strict_loads(body)
            except ApiError as err:
                raise ApiHTTPError(err) from None
        return self._json


class StrictRoute(APIRoute):
    """An APIRoute whose JSON bodies are strict (``app.router.route_class = StrictRoute``)."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def strict_handler(request: Request) -> Response:
            return await handler(StrictJSONRequest(request.scope, request.receive))

        return strict_handler
