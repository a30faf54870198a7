"""Every error the service answers has the contract's shape ``{"error": {"code", "message", "field"}}``.

:class:`ApiError` is raised by the endpoints; :func:`install_error_handlers` turns it, FastAPI's
own validation errors and Starlette's HTTP errors into that shape; :class:`GuardMiddleware` is the
last resort that keeps an unexpected exception from ever becoming a bare 500.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from fastapi import FastAPI, HTTPException, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from paiscan.scoring.game_record import json_error_message

log = logging.getLogger("paiscan.service")

#: Status of the last-resort answer to an unexpected exception. Not a 5xx: the service promises that
#: no request produces a server error; the answer says the request could not be processed and gives an
#: id to find the traceback in the log.
UNEXPECTED_STATUS = 422

_STATUS_CODES = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    406: "not_acceptable",
    409: "conflict",
    411: "length_required",
    413: "too_large",
    415: "unsupported_media_type",
    422: "unprocessable",
    429: "too_many_requests",
    503: "busy",
}


class SafeJSONResponse(JSONResponse):
    """JSON whose text is always valid UTF-8: a lone surrogate that slipped into a message is written
    as its escape instead of failing the answer (the inputs are refused before, see strictjson)."""

    def render(self, content: Any) -> bytes:
        text = json.dumps(content, ensure_ascii=False, allow_nan=False, indent=None, separators=(",", ":"))
        return text.encode("utf-8", "backslashreplace")


class ApiError(Exception):
    """An error answer: status, the contract's code/message/field, and optional headers and extra keys."""

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        field: str | None = None,
        *,
        headers: Mapping[str, str] | None = None,
        extra: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.field = field
        self.headers = dict(headers or {})
        self.extra = dict(extra or {})

    def body(self) -> dict[str, Any]:
        return {"error": {"code": self.code, "message": self.message, "field": self.field}, **self.extra}

    def response(self) -> JSONResponse:
        return SafeJSONResponse(self.body(), status_code=self.status, headers=self.headers)


class ApiHTTPError(HTTPException):
    """An :class:`ApiError` raised where FastAPI lets only an HTTPException through (parsing a body)."""

    def __init__(self, error: ApiError) -> None:
        super().__init__(error.status, error.message)
        self.error = error


def error_body(code: str, message: str, field: str | None = None) -> dict[str, Any]:
    return {"error": {"code": code, "message": message, "field": field}}


def field_path(loc: Sequence[Any]) -> str | None:
    """A pydantic location as the core names fields.

    >>> field_path(("body", "melds", 0, "tiles")), field_path(("body",)), field_path(("query", "x"))
    ('melds[0].tiles', None, 'x')

    A union's member (``dealer.bool``, ``ura_indicators.list[str]``) is pydantic's, not a field:

    >>> field_path(("body", "dealer", "bool")), field_path(("body", "ura_indicators", "list[str]", 0))
    ('dealer', 'ura_indicators[0]')
    """
    parts = list(loc)
    if parts and parts[0] in ("body", "query", "path", "header", "cookie", "form"):
        parts = parts[1:]
    out = ""
    for p in parts:
        if isinstance(p, str) and _union_member(p):
            continue
        if isinstance(p, int):
            out += f"[{p}]"
        else:
            out += ("." if out else "") + str(p)
    return out or None


#: the names pydantic gives a union's members in an error's location
_UNION_TAGS = frozenset(
    {
        "bool",
        "str",
        "int",
        "float",
        "list",
        "dict",
        "none",
        "literal",
        "function-after",
        "function-before",
        "function-plain",
        "function-wrap",
        "lax-or-strict",
        "tagged-union",
    }
)


def _union_member(part: str) -> bool:
    return part in _UNION_TAGS or "[" in part or part.startswith(("function-", "literal"))


def validation_error(errors: Sequence[Mapping[str, Any]], prefix: str | None = None) -> ApiError:
    """The first pydantic/FastAPI validation error as a 422 ApiError (the others under ``errors``)."""
    items: list[dict[str, str | None]] = []
    for err in errors:
        loc = tuple(err.get("loc") or ())
        name = field_path(loc)
        if prefix:
            name = f"{prefix}.{name}" if name else prefix
        etype = str(err.get("type", ""))
        whole_body = name is None or name == prefix
        if etype == "json_invalid":
            code = "bad_json"
            msg = f"not valid JSON: {(err.get('ctx') or {}).get('error', err.get('msg', ''))}"
            name = prefix
        elif etype == "missing" and whole_body:
            code, msg, name = "bad_json", "the body is empty: send a JSON object", prefix
        elif etype == "missing":
            code, msg = "bad_field", f"{name} is required"
        elif etype == "extra_forbidden":
            code, msg = "unknown_field", f"{name!r} is not a known field"
        elif whole_body and etype in ("model_type", "model_attributes_type", "dict_type"):
            code, msg = "bad_json", "the body must be a JSON object"
        elif "Expected UploadFile" in str(err.get("msg", "")):  # a text form field where a file belongs
            code, msg = "bad_field", f"{name}: send the photo as a file (a form part with a filename), not as text"
        else:
            code = "bad_field"
            msg = f"{name}: {err.get('msg', 'invalid value')}" if name else str(err.get("msg", "invalid value"))
        same = next((i for i in items if i["field"] == name and i["code"] == code == "bad_field"), None)
        if same is not None:  # the members of one union: either would do
            same["message"] = f"{same['message']}; or {err.get('msg', 'invalid value')}"
            continue
        items.append({"code": code, "message": msg, "field": name})
    if not items:
        items.append({"code": "bad_field", "message": "invalid request", "field": prefix})
    first = items[0]
    extra = {"errors": items} if len(items) > 1 else None
    return ApiError(422, str(first["code"]), str(first["message"]), first["field"], extra=extra)


def install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(ApiError)
    async def _api_error(request: Request, exc: ApiError) -> JSONResponse:
        return exc.response()

    @app.exception_handler(RequestValidationError)
    async def _validation(request: Request, exc: RequestValidationError) -> JSONResponse:
        errors = exc.errors()
        first = errors[0] if errors else {}
        loc = tuple(first.get("loc") or ())
        if first.get("type") == "json_invalid" and isinstance(exc.body, str) and loc and isinstance(loc[-1], int):
            # FastAPI parsed the body before any model saw it: say where it broke, as the CLI and sheets do
            broken = json.JSONDecodeError(str((first.get("ctx") or {}).get("error", "")), exc.body, loc[-1])
            return ApiError(422, "bad_json", json_error_message(broken), None).response()
        return validation_error(errors).response()

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        if isinstance(exc, ApiHTTPError):
            return exc.error.response()
        if exc.status_code == 400:
            # FastAPI's "There was an error parsing the body": JSON nested too deeply, broken multipart …
            is_json = "json" in request.headers.get("content-type", "")
            code, field = ("bad_json", None) if is_json else ("bad_body", "body")
            message = (
                f"the request body could not be parsed as {'JSON' if is_json else 'a form'} ({exc.detail})"
                if isinstance(exc.detail, str)
                else "the request body could not be parsed"
            )
            return SafeJSONResponse(error_body(code, message, field), status_code=422)
        code = _STATUS_CODES.get(exc.status_code, "http_error")
        message = exc.detail if isinstance(exc.detail, str) else json.dumps(exc.detail)
        status = exc.status_code if exc.status_code < 500 else UNEXPECTED_STATUS
        headers = dict(exc.headers or {})
        if status == 405:  # Starlette names the methods of the first route of the path only
            headers["Allow"] = ", ".join(_allowed_methods(request.app.routes, request.scope))
        return SafeJSONResponse(error_body(code, message), status_code=status, headers=headers)

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception) -> JSONResponse:  # pragma: no cover - see the guard
        return unexpected_response(exc)


def _allowed_methods(routes: Sequence[Any], scope: Scope) -> list[str]:
    """Every method some route takes at the scope's path."""
    from starlette.routing import Match

    methods: set[str] = set()
    for route in routes:
        route_methods = getattr(route, "methods", None)
        if route_methods and route.matches(scope)[0] != Match.NONE:
            methods |= set(route_methods)
    return sorted(methods)


def unexpected_response(exc: BaseException) -> JSONResponse:
    incident = uuid.uuid4().hex[:12]
    log.error("unexpected error %s: %r", incident, exc, exc_info=exc)
    return SafeJSONResponse(
        error_body(
            "internal_error",
            f"the request could not be processed (incident {incident}; the server log has the details)",
        ),
        status_code=UNEXPECTED_STATUS,
    )


class GuardMiddleware:
    """The outermost layer: an exception that escapes everything else still gets a JSON error answer."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def tracking_send(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, receive, tracking_send)
        except Exception as exc:
            if started:
                log.error("error after the response started: %r", exc, exc_info=exc)
                return
            response = unexpected_response(exc)
            await response(scope, receive, send)


class BodyLimitMiddleware:
    """Refuse a request body larger than its cap with 413 while it streams in.

    The cap is checked against Content-Length first (refused before reading anything) and then
    against the bytes actually received, so a missing or lying Content-Length changes nothing. Once
    the cap is passed the 413 is sent at once and whatever the application would have answered is
    dropped.
    """

    def __init__(self, app: ASGIApp, cap_for: Callable[[Scope], BodyCap | None]) -> None:
        self.app = app
        self.cap_for = cap_for

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.cap_for(scope)
        if limit is None:
            await self.app(scope, receive, send)
            return
        cap = limit.bytes
        declared = _content_length(scope)
        if declared is not None and declared > cap:
            await _too_large(limit)(scope, receive, send)
            return
        received = 0
        refused = False
        response_started = False

        async def limited_receive() -> Message:
            nonlocal received, refused
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > cap and not refused:
                    refused = True
                    if not response_started:
                        await _too_large(limit)(scope, receive, send)
                    raise BodyTooLarge(cap)
            return message

        async def guarded_send(message: Message) -> None:
            nonlocal response_started
            if refused:
                return
            if message["type"] == "http.response.start":
                response_started = True
            await send(message)

        try:
            await self.app(scope, limited_receive, guarded_send)
        except Exception:
            if not refused:
                raise


class BodyTooLarge(Exception):
    def __init__(self, cap: int) -> None:
        super().__init__(f"request body larger than {cap} bytes")


def _content_length(scope: Scope) -> int | None:
    for key, value in scope.get("headers", ()):
        if key == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


def _too_large(limit: BodyCap) -> JSONResponse:
    return SafeJSONResponse(
        error_body("too_large", limit.message, limit.field), status_code=413, headers={"Connection": "close"}
    )


@dataclass(frozen=True)
class BodyCap:
    """The most bytes a request body may have, and what a 413 says about it."""

    bytes: int
    field: str
    message: str


class BodyTimeoutMiddleware:
    """Answer 408 ``request_timeout`` (and close) when a request body stalls or takes too long.

    ``pause_s``: the longest wait for the body's next chunk; ``total_s``: the longest the whole body
    may take. A slow or stalled upload then holds a connection and a little memory for a bounded
    time, whatever server runs the application.
    """

    def __init__(self, app: ASGIApp, pause_s: float, total_s: float) -> None:
        self.app = app
        self.pause_s = pause_s
        self.total_s = total_s

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        start = time.monotonic()
        more = True
        timed_out = False
        response_started = False

        async def timed_receive() -> Message:
            nonlocal more, timed_out
            if not more:  # the body is in: what follows is the wait for a disconnect
                return await receive()
            wait = min(self.pause_s, self.total_s - (time.monotonic() - start))
            try:
                message = await asyncio.wait_for(receive(), timeout=max(wait, 0.001))
            except TimeoutError:
                timed_out = True
                if not response_started:
                    whole = time.monotonic() - start >= self.total_s - 0.001
                    why = f"took longer than {self.total_s:g} s" if whole else f"paused over {self.pause_s:g} s"
                    response = SafeJSONResponse(
                        error_body("request_timeout", f"the request body {why}: send it again", "body"),
                        status_code=408,
                        headers={"Connection": "close"},
                    )
                    await response(scope, receive, send)
                raise BodyTimedOut() from None
            if message["type"] != "http.request" or not message.get("more_body", False):
                more = False
            return message

        async def guarded_send(message: Message) -> None:
            nonlocal response_started
            if timed_out:
                return
            if message["type"] == "http.response.start":
                response_started = True
            await send(message)

        try:
            await self.app(scope, timed_receive, guarded_send)
        except Exception:
            if not timed_out:
                raise


class BodyTimedOut(Exception):
    """A request body stalled (already answered 408)."""


#: the paths of the phone page, which get its Content-Security-Policy
PAGE_PATHS = ("/", "/static/")


class SecurityHeadersMiddleware:
    """``X-Content-Type-Options: nosniff`` on every answer, and the page's Content-Security-Policy on
    every answer under the page's paths (``/``, ``/static/…``, an HTML file served directly too)."""

    def __init__(self, app: ASGIApp, csp: str) -> None:
        self.app = app
        self.csp = csp.encode("latin-1")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path = str(scope.get("path", ""))
        page = path == "/" or path.startswith(PAGE_PATHS[1]) or path.endswith((".html", ".htm"))

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [(k, v) for k, v in message.get("headers", []) if k.lower() != b"server"]
                headers.append((b"x-content-type-options", b"nosniff"))
                if page and not any(k.lower() == b"content-security-policy" for k, _ in headers):
                    headers.append((b"content-security-policy", self.csp))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_headers)
