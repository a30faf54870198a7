"""The stored game sheets over HTTP (``/v1/sheets``): create, list, read, replace, add a hand, delete.

Each answer with one sheet is ``{"id", "version", "record", "replay"}`` with the version as the ETag
(``"v3"``); a write that sends ``If-Match`` with an older ETag is 409 ``version_conflict`` and changes
nothing. ``PUT`` requires ``If-Match`` (428 without it): replacing a whole sheet blind would drop what
another tab added. Adding a hand checks ``If-Match`` when given; two tabs that each add a hand keep both.
A sheet is sent as a ``paiscan-game/1`` record (JSON) or as a CSV sheet (``text/csv``,
:mod:`paiscan.service.sheet_csv`). A bad record is 422 naming the field, and nothing is stored.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, Any

from fastapi import APIRouter, Header, Request, Response
from fastapi.responses import JSONResponse
from starlette.concurrency import run_in_threadpool

from paiscan.scoring.errors import HandError
from paiscan.scoring.game_record import load_json_text
from paiscan.service.api_models import ErrorResponse, SheetOut, SheetsOut, game_record_schema
from paiscan.service.errors import ApiError
from paiscan.service.sheet_csv import read_sheet_csv, sheet_line, write_sheet_csv
from paiscan.service.sheets import Sheet, SheetNotFound, SheetStore, VersionConflict
from paiscan.service.strictjson import strict_loads

_ETAG = re.compile(r'^\s*(?:W/)?"v(\d+)"\s*$')
#: a sheet id: what :class:`SheetStore` makes (hex), bounded so a path cannot be anything else
_ID = re.compile(r"^[0-9a-f]{1,64}$")


def _errors(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """The error answers of a route, documented with their body (``{"error": {"code", "message", "field"}}``)."""
    return {status: {"model": ErrorResponse, "description": ERROR_MEANINGS[status]} for status in statuses}


#: every error a sheets route answers, by status
ERROR_MEANINGS: dict[int, str] = {
    400: "If-Match is not an ETag of a sheet (bad_if_match)",
    404: "no such sheet (not_found)",
    408: "the request body stalled (request_timeout)",
    409: "the sheet changed since the If-Match version (version_conflict; ``version`` says the current one)",
    413: "the body is too large",
    415: "neither JSON nor text/csv (unsupported_media_type)",
    422: "an invalid record, naming the field; nothing is stored",
    428: "PUT without If-Match (precondition_required)",
    503: "the sheet database cannot be opened (store_unavailable)",
}
#: a body route's answers beyond its own: the body's limits and the store
BODY_ERRORS = (408, 413, 415, 422, 503)
IF_MATCH_DOC = 'the ETag of the version you read ("v3", W/"v3" or *); a write to a newer version is 409'
IfMatch = Annotated[str | None, Header(description=IF_MATCH_DOC)]
SHEET_BODY: dict[str, Any] = {
    "requestBody": {
        "required": True,
        "content": {
            "application/json": {"schema": game_record_schema()},
            "text/csv": {"schema": {"type": "string", "description": "a CSV sheet (docs/game_records.md)"}},
        },
    }
}
HAND_BODY: dict[str, Any] = {
    "requestBody": {
        "required": True,
        "content": {"application/json": {"schema": game_record_schema("hand_entry")}},
    }
}


def etag(sheet: Sheet) -> str:
    return f'"v{sheet.version}"'


def _expected(if_match: str | None) -> int | None:
    if if_match is None or if_match.strip() == "*":
        return None
    m = _ETAG.match(if_match)
    if m is None:
        raise ApiError(
            400, "bad_if_match", f'If-Match must be an ETag of this sheet ("v3"), not {if_match!r}', "If-Match"
        )
    return int(m.group(1))


def _answer(sheet: Sheet, status: int = 200) -> JSONResponse:
    body = {"id": sheet.id, "version": sheet.version, "record": sheet.record, "replay": sheet.replay().to_dict()}
    return JSONResponse(body, status_code=status, headers={"ETag": etag(sheet), "Cache-Control": "no-store"})


async def _body(request: Request) -> tuple[Any, str | None]:
    """The decoded record (a CSV sheet read into one) and the CSV text, if it was one."""
    ctype = (request.headers.get("content-type") or "application/json").split(";")[0].strip().lower()
    raw = await request.body()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ApiError(422, "bad_body", "the body is not UTF-8 text", "body") from None
    if ctype in ("text/csv", "application/csv"):
        return read_sheet_csv(text), text
    if ctype != "application/json" and not ctype.endswith("+json"):
        raise ApiError(
            415, "unsupported_media_type", f"send a game record as application/json or text/csv, not {ctype}", "body"
        )
    if not text.strip():
        raise ApiError(422, "bad_json", "the body is empty: send a JSON object", None)
    return load_json_text(text, strict_loads), None


def _hand_error(exc: HandError, csv_text: str | None = None) -> ApiError:
    message = exc.message
    line = sheet_line(csv_text, exc.field) if csv_text is not None else None
    if line is not None:
        message = f"{line} of the CSV: {message}"
    return ApiError(422, exc.code, message, exc.field)


def sheets_router(data_dir: Path) -> APIRouter:
    """The ``/v1/sheets`` routes over the database in ``data_dir`` (opened, and upgraded, lazily)."""
    router = APIRouter(prefix="/v1/sheets", tags=["sheets"])
    holder: dict[str, SheetStore] = {}

    def store() -> SheetStore:
        if "store" not in holder:
            try:
                holder["store"] = SheetStore(data_dir)
            except (OSError, RuntimeError) as exc:
                raise ApiError(503, "store_unavailable", f"the sheet database cannot be opened: {exc}", None) from None
        return holder["store"]

    async def call(fn: Any, *args: Any, csv_text: str | None = None) -> Sheet:
        try:
            return await run_in_threadpool(fn, *args)
        except HandError as exc:
            raise _hand_error(exc, csv_text) from None
        except SheetNotFound as exc:
            raise ApiError(404, "not_found", str(exc), "id") from None
        except VersionConflict as exc:
            raise ApiError(409, "version_conflict", str(exc), "If-Match", extra={"version": exc.current}) from None

    def check_id(sheet_id: str) -> None:
        if not _ID.match(sheet_id):
            raise ApiError(404, "not_found", f"no sheet {sheet_id[:80]!r}", "id")

    @router.post(
        "", status_code=201, response_model=SheetOut, responses=_errors(*BODY_ERRORS), openapi_extra=SHEET_BODY
    )
    async def create_sheet(request: Request) -> Response:
        """Store a sheet: a ``paiscan-game/1`` record (JSON) or a CSV sheet (``text/csv``)."""
        try:
            data, csv_text = await _body(request)
        except HandError as exc:
            raise _hand_error(exc) from None
        sheet = await call(store().create, data, csv_text=csv_text)
        response = _answer(sheet, 201)
        response.headers["Location"] = f"/v1/sheets/{sheet.id}"
        return response

    @router.get("", response_model=SheetsOut, responses=_errors(503))
    async def list_sheets() -> JSONResponse:
        """Every stored sheet: id, title, date, rules, players, hands, version, updated (newest first)."""
        return JSONResponse({"sheets": await run_in_threadpool(store().list)}, headers={"Cache-Control": "no-store"})

    @router.get("/{sheet_id}", response_model=SheetOut, responses=_errors(404, 503))
    async def get_sheet(sheet_id: str) -> Response:
        check_id(sheet_id)
        return _answer(await call(store().get, sheet_id))

    @router.get(
        "/{sheet_id}/csv",
        response_class=Response,
        responses={200: {"content": {"text/csv": {"schema": {"type": "string"}}}}, **_errors(404, 422, 503)},
    )
    async def get_sheet_csv(sheet_id: str, replayed: bool = False) -> Response:
        """The sheet as a CSV sheet (``POST`` it back as ``text/csv``); ``?replayed=true``: the replay's
        spreadsheet (each player's change and score, disputes, standings)."""
        check_id(sheet_id)
        sheet = await call(store().get, sheet_id)
        try:
            text = sheet.replay().csv_text() if replayed else write_sheet_csv(sheet.record)
        except HandError as exc:
            raise _hand_error(exc) from None
        name = f"sheet-{sheet.id}{'-replay' if replayed else ''}.csv"
        return Response(
            text,
            media_type="text/csv; charset=utf-8",
            headers={"Content-Disposition": f'attachment; filename="{name}"', "ETag": etag(sheet)},
        )

    @router.put(
        "/{sheet_id}",
        response_model=SheetOut,
        responses=_errors(400, 404, 409, 428, *BODY_ERRORS),
        openapi_extra=SHEET_BODY,
    )
    async def replace_sheet(sheet_id: str, request: Request, if_match: IfMatch = None) -> Response:
        """Replace a sheet's record; send ``If-Match`` with the ETag you read."""
        check_id(sheet_id)
        if if_match is None:
            raise ApiError(
                428,
                "precondition_required",
                "send If-Match with the sheet's ETag, so no other change is lost",
                "If-Match",
            )
        expected = _expected(if_match)
        try:
            data, csv_text = await _body(request)
        except HandError as exc:
            raise _hand_error(exc) from None
        return _answer(await call(store().replace, sheet_id, data, expected, csv_text=csv_text))

    @router.post(
        "/{sheet_id}/hands",
        response_model=SheetOut,
        responses=_errors(400, 404, 409, *BODY_ERRORS),
        openapi_extra=HAND_BODY,
    )
    async def add_hand(sheet_id: str, request: Request, if_match: IfMatch = None) -> Response:
        """Add one hand (a hand of the record, JSON) at the end of the sheet."""
        check_id(sheet_id)
        expected = _expected(if_match)
        try:
            text = (await request.body()).decode("utf-8", errors="replace")
            hand = load_json_text(text, strict_loads) if text.strip() else None
        except HandError as exc:
            raise _hand_error(exc) from None
        if not isinstance(hand, dict):
            raise ApiError(422, "bad_json", "send one hand of the record as a JSON object", None)
        return _answer(await call(store().append_hand, sheet_id, hand, expected))

    @router.delete("/{sheet_id}", status_code=204, responses=_errors(400, 404, 409, 503))
    async def delete_sheet(sheet_id: str, if_match: IfMatch = None) -> Response:
        check_id(sheet_id)
        expected = _expected(if_match)
        await call(store().delete, sheet_id, expected)
        return Response(status_code=204)

    return router
