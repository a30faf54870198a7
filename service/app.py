"""The HTTP service and the phone web page.

``create_app(settings, reader)`` builds the FastAPI application; ``app`` is the one uvicorn serves
(``uvicorn paiscan.service.app:app``) and :func:`serve` runs it for ``paiscan serve``.

Endpoints (the contract's HTTP API): ``GET /healthz``, ``GET /readyz``, ``GET /v1/rulesets``,
``POST /v1/score``, ``POST /v1/games``, ``POST /v1/read``, ``POST /v1/photo-score``; the page at ``/``; the OpenAPI
docs at ``/docs``. Every error is ``{"error": {"code", "message", "field"}}``; no request is
answered with a 5xx except 503 (busy, or the models are not available).
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
import time
from collections.abc import AsyncIterator, Callable, Collection
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Annotated, Any, Literal

from fastapi import FastAPI, File, Form, Request, UploadFile
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import ValidationError
from pydantic.json_schema import SkipJsonSchema
from starlette.types import ASGIApp, Receive, Scope, Send

from paiscan.scoring import HandError, check_context, context_fault, field_root, score_hand
from paiscan.scoring.game_record import replay_json
from paiscan.scoring.hand import HAND_FIELDS
from paiscan.scoring.registry import available, get_ruleset
from paiscan.service.api_models import (
    ErrorResponse,
    GameIn,
    GameOut,
    HandContext,
    HandIn,
    Health,
    Info,
    PhotoScoreOut,
    ReadOut,
    Ready,
    RulesetsOut,
    ScoreOut,
)
from paiscan.service.errors import (
    ApiError,
    BodyCap,
    BodyLimitMiddleware,
    BodyTimeoutMiddleware,
    GuardMiddleware,
    SafeJSONResponse,
    SecurityHeadersMiddleware,
    install_error_handlers,
    validation_error,
)
from paiscan.service.inference import Busy, ClientGone, InferencePool, Reader, ReaderUnavailable, load_reader
from paiscan.service.page_api import router as page_router
from paiscan.service.preview import make_preview
from paiscan.service.settings import ServiceSettings
from paiscan.service.sheets import default_data_dir
from paiscan.service.sheets_api import sheets_router
from paiscan.service.strictjson import StrictRoute, strict_loads
from paiscan.vision.deadline import Deadline, ReadingCancelled, ReadingStopped, ReadingTooSlow
from paiscan.vision.deadline import limit as deadline_limit
from paiscan.vision.image import ImageError, decode_image, sniff

log = logging.getLogger("paiscan.service")

STATIC_DIR = Path(__file__).parent / "static"
PHOTO_PATHS = frozenset({"/v1/read", "/v1/photo-score"})
#: room for the multipart framing and the small form fields beside the photo
MULTIPART_SLACK = 64 * 1024
TILE_FIELDS = ("hand", "melds", "win_tile", "dora_indicators", "nuki")
PreviewMode = Literal["annotated", "plain", "none"]
RulesField = Annotated[str, Form(description="ruleset id: its tile set and what it sets aside", max_length=64)]
PreviewField = Annotated[
    PreviewMode, Form(description="annotated: the photo with boxes drawn; plain: the photo only; none: no preview")
]
PhotoField = Annotated[
    UploadFile, File(description="the photo: JPEG, PNG, WebP or HEIC", json_schema_extra={"minLength": 1})
]
HandField = Annotated[
    str,
    Form(
        description='the rest of the Hand as JSON: {"rules", "win", "seat_wind", "round_wind", "honba", "flags", '
        '"options" …}; tile fields given here replace what the photo shows',
        max_length=64 * 1024,
    ),
]

ERRORS_PHOTO: dict[int | str, dict[str, Any]] = {
    413: {"model": ErrorResponse, "description": "the upload is larger than the limit"},
    415: {"model": ErrorResponse, "description": "not a JPEG, PNG, WebP or HEIC image"},
    422: {"model": ErrorResponse, "description": "damaged, truncated or too large image; bad field"},
    408: {"model": ErrorResponse, "description": "the request body stalled (request_timeout)"},
    503: {
        "model": ErrorResponse,
        "description": "busy or too_slow (see Retry-After), or the models are not available",
    },
}
ERRORS_JSON: dict[int | str, dict[str, Any]] = {
    408: {"model": ErrorResponse, "description": "the request body stalled (request_timeout)"},
    413: {"model": ErrorResponse, "description": "the body is larger than the limit"},
    503: {"model": ErrorResponse, "description": "busy (see Retry-After)"},
}
CSP = (
    "default-src 'self'; img-src 'self' data: blob:; style-src 'self'; script-src 'self'; "
    "connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'"
)


@dataclass
class ServiceState:
    """What the lifespan sets up and the endpoints use."""

    settings: ServiceSettings
    reader: Reader | None = None
    injected: bool = False
    ready: bool = False
    starting: bool = True
    unavailable: str | None = None
    pool: InferencePool | None = None
    reader_name: str = ""
    extra: dict[str, Any] = field(default_factory=dict)
    json_in_flight: int = 0

    def get_pool(self) -> InferencePool:
        if self.pool is None:
            self.pool = InferencePool(self.settings.workers, self.settings.queue_size)
        return self.pool

    def not_ready_error(self) -> ApiError:
        if self.unavailable is not None:
            return ApiError(503, "models_unavailable", self.unavailable)
        return ApiError(
            503,
            "models_unavailable",
            "the models are still loading; try again shortly",
            headers={"Retry-After": str(self.settings.retry_after_s)},
        )

    def busy_error(self, waited: bool = False) -> ApiError:
        pool = self.get_pool()
        message = (
            f"the photo waited over {self.settings.queue_wait_s:g} s for a worker; try again shortly"
            if waited
            else f"the server is reading {pool.in_flight} photos, its limit; try again shortly"
        )
        return ApiError(503, "busy", message, headers={"Retry-After": str(self.settings.retry_after_s)})

    def too_slow_error(self) -> ApiError:
        return ApiError(
            503,
            "too_slow",
            f"reading this photo took longer than the limit of {self.settings.read_timeout_s:g} s; try again when "
            "the server is less busy, or send a closer photo of the hand alone",
            "file",
            headers={"Retry-After": str(self.settings.retry_after_s)},
        )

    async def run_json_job(self, fn: Callable[..., dict[str, Any]], *args: Any) -> dict[str, Any]:
        """``fn(*args)`` off the event loop, at most ``json_jobs`` at once; more are answered 503 busy."""
        if self.json_in_flight >= self.settings.json_jobs:
            raise ApiError(
                503,
                "busy",
                f"the server is computing {self.json_in_flight} answers, its limit; try again shortly",
                headers={"Retry-After": str(self.settings.retry_after_s)},
            )
        self.json_in_flight += 1
        try:
            return await asyncio.to_thread(fn, *args)
        finally:
            self.json_in_flight -= 1


def server_timing(timings: dict[str, float]) -> str:
    """The ``Server-Timing`` header of per-stage milliseconds.

    >>> server_timing({"decode": 12.345, "total": 40})
    'decode;dur=12.3, total;dur=40.0'
    """
    return ", ".join(
        f"{name};dur={value:.1f}"
        for name, value in timings.items()
        if isinstance(value, int | float) and name.replace("_", "").isalnum()
    )


@cache
def rulesets_described() -> list[dict[str, Any]]:
    return [get_ruleset(rid).describe() for rid in available()]


def _check_rules(rules: str, field_name: str) -> None:
    try:
        get_ruleset(rules)
    except HandError as err:
        raise ApiError(422, err.code, err.message, field_name) from None


def _score(data: dict[str, Any], extra: dict[str, Any] | None = None, given: Collection[str] = ()) -> dict[str, Any]:
    """Score a contract Hand dict, every failure an ApiError 422. ``given``: the fields the user
    gave in photo-score's ``hand`` form field, whose errors are named ``hand.<field>``."""
    try:
        return score_hand(data).to_dict()
    except HandError as err:
        field = f"hand.{err.field}" if err.field and field_root(err.field) in given else err.field
        raise ApiError(422, err.code, err.message, field, extra=extra) from None
    except RecursionError:
        raise ApiError(422, "bad_json", "the input is nested too deeply", None, extra=extra) from None
    except Exception as exc:
        log.exception("scoring failed on %r", data)
        raise ApiError(
            422, "scoring_failed", f"this hand could not be scored ({type(exc).__name__})", None, extra=extra
        ) from exc


def _replay_game(record: dict[str, Any]) -> dict[str, Any]:
    """Replay a game record dict, every failure an ApiError 422 naming the field."""
    try:
        return replay_json(record)
    except HandError as err:
        raise ApiError(422, err.code, err.message, err.field) from None
    except RecursionError:
        raise ApiError(422, "bad_json", "the input is nested too deeply", None) from None
    except Exception as exc:
        log.exception("replaying a game record failed")
        raise ApiError(
            422, "replay_failed", f"this game record could not be replayed ({type(exc).__name__})", None
        ) from exc


def _image_error(exc: ImageError) -> ApiError:
    status = 415 if exc.code == "not_an_image" else 422
    return ApiError(status, exc.code, exc.message, "file")


class PrecheckMiddleware:
    """Answer a photo upload 503 before its body is read when it could not be served anyway."""

    def __init__(self, app: ASGIApp, state: ServiceState) -> None:
        self.app = app
        self.state = state

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope.get("method") == "POST" and scope.get("path") in PHOTO_PATHS:
            error = None
            if not self.state.ready:
                error = self.state.not_ready_error()
            elif self.state.get_pool().full():
                error = self.state.busy_error()
            if error is not None:
                await error.response()(scope, receive, send)
                return
        await self.app(scope, receive, send)


def create_app(settings: ServiceSettings | None = None, reader: Reader | None = None) -> FastAPI:
    """The application. ``reader`` replaces the ONNX models (tests, demos); it is warmed at startup."""
    settings = settings or ServiceSettings()
    state = ServiceState(settings=settings, reader=reader, injected=reader is not None)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        state.starting, state.ready, state.unavailable = True, False, None
        state.pool = InferencePool(settings.workers, settings.queue_size)
        try:
            if state.reader is None or not state.injected:
                state.reader = await asyncio.to_thread(load_reader, settings)
            state.reader_name = type(state.reader).__name__
            t0 = time.perf_counter()
            await asyncio.to_thread(state.reader.warm)
            state.ready = True
            log.info("photo reader %s ready (warmed in %.0f ms)", state.reader_name, (time.perf_counter() - t0) * 1000)
        except ReaderUnavailable as exc:  # the detail (paths, the library's words) goes to the log only
            state.unavailable = exc.public
            log.warning("photo reading unavailable: %s", exc)
        except Exception:  # a model that fails to load must not stop scoring by JSON
            state.unavailable = "photo reading is not available: the photo reader failed to start"
            log.exception("photo reader failed to start")
        finally:
            state.starting = False
        try:
            yield
        finally:
            if state.pool is not None:
                state.pool.shutdown()
                state.pool = None
            state.ready = False
            if not state.injected:
                state.reader = None

    app = _fastapi_class()(
        title="paiscan",
        version="0.1.0",
        summary="Point a phone at a finished mahjong hand and get the score.",
        description="Score a Hand given as JSON, or read one from a photo. Every error is "
        '`{"error": {"code", "message", "field"}}`.',
        lifespan=lifespan,
        swagger_ui_parameters={"validatorUrl": None},
        redirect_slashes=False,  # a redirect would echo the Host header
        default_response_class=SafeJSONResponse,
    )
    app.router.route_class = StrictRoute  # JSON bodies: no duplicate keys, no lone surrogates
    app.state.service = state
    install_error_handlers(app)

    photo_cap = BodyCap(
        settings.max_upload_bytes + MULTIPART_SLACK,
        "file",
        f"the upload is larger than the limit of {_human_bytes(settings.max_upload_bytes)}",
    )
    json_cap = BodyCap(
        settings.max_json_bytes,
        "body",
        f"the request body is larger than the limit of {_human_bytes(settings.max_json_bytes)}",
    )

    def cap_for(scope: Scope) -> BodyCap:
        return photo_cap if scope.get("path") in PHOTO_PATHS else json_cap

    app.add_middleware(PrecheckMiddleware, state=state)
    app.add_middleware(BodyLimitMiddleware, cap_for=cap_for)
    app.add_middleware(BodyTimeoutMiddleware, pause_s=settings.body_timeout_s, total_s=settings.body_total_s)
    app.add_middleware(SecurityHeadersMiddleware, csp=CSP)
    app.add_middleware(GuardMiddleware)

    # ------------------------------------------------------------------ health
    @app.get("/healthz", response_model=Health, tags=["health"])
    async def healthz() -> dict[str, str]:
        """The process answers."""
        return {"status": "ok"}

    @app.get(
        "/readyz",
        response_model=Ready,
        tags=["health"],
        responses={503: {"model": ErrorResponse, "description": "the models are not loaded"}},
    )
    async def readyz() -> Any:
        """200 once the photo models are loaded and warmed; 503 (models_unavailable) otherwise."""
        if not state.ready:
            return state.not_ready_error().response()
        pool = state.get_pool()
        return {
            "status": "ready",
            "reader": state.reader_name,
            "workers": pool.workers,
            "queue_size": pool.queue_size,
            "in_flight": pool.in_flight,
        }

    @app.get("/v1/info", response_model=Info, tags=["health"])
    async def info() -> Any:
        """What the page needs to know: whether photos can be read, and the upload limits."""
        return {
            "version": app.version,
            "photo_reading": state.ready,
            "photo_reading_message": None if state.ready else (state.unavailable or "the models are loading"),
            "max_upload_bytes": settings.max_upload_bytes,
            "max_pixels": settings.max_pixels,
            "preview_max_side": settings.preview_max_side,
        }

    # ------------------------------------------------------------------ scoring
    @app.get("/v1/rulesets", response_model=RulesetsOut, tags=["scoring"])
    async def rulesets() -> Any:
        """The rulesets: ids, names, options (type, default, meaning, choices), presets, the flags each
        reads and its yaku table."""
        return JSONResponse({"rulesets": rulesets_described()})

    @app.post(
        "/v1/score",
        response_model=ScoreOut,
        tags=["scoring"],
        responses={**ERRORS_JSON, 422: {"model": ErrorResponse, "description": "an invalid hand"}},
    )
    async def score(hand: HandIn) -> Any:
        """Score a Hand (contract JSON); an invalid hand is 422 naming the field."""
        t0 = time.perf_counter()
        out = await state.run_json_job(_score, hand.to_contract())  # off the event loop, as a replay is
        timings = {"score": (time.perf_counter() - t0) * 1000}
        out["timings_ms"] = {k: round(v, 2) for k, v in timings.items()}
        return JSONResponse(out, headers={"Server-Timing": server_timing(timings)})

    # ------------------------------------------------------------------ game records
    @app.post(
        "/v1/games",
        response_model=GameOut,
        tags=["games"],
        responses={**ERRORS_JSON, 422: {"model": ErrorResponse, "description": "an invalid game record"}},
    )
    async def games(record: GameIn) -> Any:
        """Replay a game record (docs/game_records.md): each hand's deal, points and running scores, the
        end of the game, the settlement, and every hand where the sheet and the rules disagree. An invalid
        record is 422 naming the field (``hands[3].discarder``, ``hands[0].hand.win_tile`` …)."""
        t0 = time.perf_counter()
        out = await state.run_json_job(_replay_game, record)
        timings = {"replay": (time.perf_counter() - t0) * 1000}
        out["timings_ms"] = {k: round(v, 2) for k, v in timings.items()}
        return JSONResponse(out, headers={"Server-Timing": server_timing(timings)})

    # ------------------------------------------------------------------ photos
    def read_job(
        data: bytes,
        rules: str,
        context: dict[str, Any] | None,
        preview: PreviewMode,
        queued_at: float,
        cancel: threading.Event,
    ) -> dict[str, Any]:
        """Decode, read and draw one photo (runs in a worker thread) within ``read_timeout_s``."""
        with deadline_limit(deadline=Deadline(settings.read_timeout_s, cancelled=cancel)) as deadline:
            deadline.check()
            return read_within(data, rules, context, preview, queued_at)

    def read_within(
        data: bytes, rules: str, context: dict[str, Any] | None, preview: PreviewMode, queued_at: float
    ) -> dict[str, Any]:
        t0 = time.perf_counter()
        reader = state.reader
        if reader is None:
            raise state.not_ready_error()
        try:
            decoded = decode_image(data, settings.max_pixels, settings.decode_max_side)
        except (ImageError, ReadingStopped):
            raise
        except Exception as exc:  # a codec's own failure: the photo's error, never an internal one
            log.exception("decoding a photo failed")
            raise ApiError(
                422, "unreadable_image", f"the photo could not be decoded ({type(exc).__name__})", "file"
            ) from exc
        t1 = time.perf_counter()
        try:
            result = reader.read(decoded, rules=rules, context=context)
            out = result.to_dict()
        except (ImageError, ReadingStopped):
            raise
        except HandError as err:
            raise ApiError(422, err.code, err.message, err.field or "rules") from None
        except Exception as exc:
            log.exception("reading a photo failed")
            raise ApiError(
                422, "reading_failed", f"the photo could not be read ({type(exc).__name__})", "file"
            ) from exc
        t2 = time.perf_counter()
        reader_t = {k: float(v) for k, v in (out.get("timings_ms") or {}).items() if isinstance(v, int | float)}
        timings = {"queue": (t0 - queued_at) * 1000, "decode": (t1 - t0) * 1000}
        for stage in ("localize", "redecode", "zoom", "focus", "classify", "layout", "reread"):
            if stage in reader_t:
                timings[stage] = reader_t[stage]
        timings["read"] = (t2 - t1) * 1000
        if preview != "none":
            width, height = decoded.original_size
            image = out.get("image") or {}
            photo_size = (int(image.get("width") or width), int(image.get("height") or height))
            p = make_preview(
                decoded.bgr,
                photo_size,
                out.get("detections") if preview == "annotated" else None,
                settings.preview_max_side,
            )
            out["preview"] = p.data_uri
            out["preview_size"] = {"width": p.width, "height": p.height}
            timings["preview"] = (time.perf_counter() - t2) * 1000
        out["timings_ms"] = timings
        return out

    async def read_photo(
        request: Request, file: UploadFile, rules: str, context: dict[str, Any] | None, preview: PreviewMode
    ) -> dict[str, Any]:
        if not state.ready:
            raise state.not_ready_error()
        await _refuse_repeated_fields(request)
        data = await file.read()
        if not data:
            raise ApiError(415, "not_an_image", "the file is empty", "file")
        if len(data) > settings.max_upload_bytes:  # the stream's cap allows the form's own bytes besides
            raise ApiError(413, "too_large", photo_cap.message, "file")
        if sniff(data[:16]) is None:
            raise ApiError(415, "not_an_image", "the file is not a JPEG, PNG, WebP or HEIC image", "file")
        cancel = threading.Event()
        try:
            return await state.get_pool().run(
                read_job,
                data,
                rules,
                context,
                preview,
                time.perf_counter(),
                cancel,
                queue_wait_s=settings.queue_wait_s,
                gone=request.is_disconnected,
                on_gone=cancel.set,
            )
        except Busy as exc:
            raise state.busy_error(waited=exc.waited) from None
        except ImageError as exc:
            raise _image_error(exc) from None
        except ReadingTooSlow:
            raise state.too_slow_error() from None
        except (ClientGone, ReadingCancelled):  # nobody reads this answer: it is for the access log
            raise ApiError(408, "client_gone", "the client closed the connection before the answer") from None

    def finish(out: dict[str, Any], t0: float, timings: dict[str, float], status: int = 200) -> JSONResponse:
        timings["total"] = (time.perf_counter() - t0) * 1000
        rounded = {k: round(v, 1) for k, v in timings.items()}
        return JSONResponse(
            out | {"timings_ms": rounded}, status_code=status, headers={"Server-Timing": server_timing(timings)}
        )

    @app.post("/v1/read", response_model=ReadOut, tags=["photos"], responses=ERRORS_PHOTO)
    async def read(
        request: Request, file: PhotoField, rules: RulesField = "riichi", preview: PreviewField = "annotated"
    ) -> Any:
        """What a photo shows: detections, the hand, alternatives, ambiguities and a preview (≤ 1024 px)."""
        t0 = time.perf_counter()
        _check_rules(rules, "rules")
        out = await read_photo(request, file, rules, None, preview)
        return finish(out, t0, dict(out.pop("timings_ms")))

    @app.post("/v1/photo-score", response_model=PhotoScoreOut, tags=["photos"], responses=ERRORS_PHOTO)
    async def photo_score(
        request: Request,
        file: PhotoField,
        hand: HandField = "{}",
        preview: PreviewField = "annotated",
        rules: Annotated[
            str | SkipJsonSchema[None],
            Form(description="ruleset id, as /v1/read takes it (or hand.rules; both must agree)", max_length=64),
        ] = None,
    ) -> Any:
        """Read the photo and score it: the Score, with the recognised hand under ``recognised``."""
        t0 = time.perf_counter()
        context = _parse_context(hand)
        if rules is not None:
            _check_rules(rules, "rules")
            if context.setdefault("rules", rules) != rules:
                raise ApiError(
                    422, "bad_field", f"rules {rules!r} and hand.rules {context['rules']!r} differ: give one", "rules"
                )
        rules = str(context.get("rules", "riichi"))
        try:  # before the photo is read: a situation no hand could have (an unknown hand.rules too)
            check_context(context)
        except HandError as err:
            raise ApiError(422, err.code, err.message, f"hand.{err.field}" if err.field else "hand") from None
        situation = {k: v for k, v in context.items() if k not in TILE_FIELDS}
        recognised = await read_photo(request, file, rules, situation, preview)
        timings = dict(recognised.pop("timings_ms"))
        recognised["timings_ms"] = {k: round(v, 1) for k, v in timings.items()}
        read_hand = {k: v for k, v in (recognised.get("hand") or {}).items() if k in HAND_FIELDS}
        if recognised.get("problems") and read_hand:
            fault = await asyncio.to_thread(context_fault, read_hand, context)
            if fault is not None:  # the photo's best hand is whole; what the user gave rules it out
                raise ApiError(
                    422,
                    fault.code,
                    f"the photo's hand and hand.{fault.field} disagree: {fault.message}",
                    f"hand.{fault.field}",
                    extra={"recognised": recognised},
                )
        if recognised.get("problems") or not recognised.get("hand"):
            problems = recognised.get("problems") or []
            detail = "; ".join(str(p.get("message", p)) for p in problems if isinstance(p, dict))
            raise ApiError(
                422,
                "no_valid_reading",
                "the photo does not show a hand that can be scored" + (f": {detail}" if detail else ""),
                "file",
                extra={"recognised": recognised},
            )
        t1 = time.perf_counter()
        out = await asyncio.to_thread(_score, {**read_hand, **context}, {"recognised": recognised}, frozenset(context))
        timings["score"] = (time.perf_counter() - t1) * 1000
        out["recognised"] = recognised
        return finish(out, t0, timings)

    # ------------------------------------------------------------------ the page
    @app.get("/", include_in_schema=False)
    async def index() -> Response:
        return FileResponse(
            STATIC_DIR / "index.html", headers={"Cache-Control": "no-cache", "Content-Security-Policy": CSP}
        )

    app.include_router(page_router)  # the page's manifest, service worker and tile sets
    app.include_router(sheets_router(settings.data_dir or default_data_dir()))  # stored game sheets
    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")
    return app


async def _refuse_repeated_fields(request: Request) -> None:
    """A form field given twice (two ``file`` parts …) is refused rather than one silently taken."""
    form = await request.form()  # parsed once: FastAPI has read it already
    for name in dict.fromkeys(form.keys()):
        if len(form.getlist(name)) > 1:
            raise ApiError(422, "duplicate_field", f"the form gives {name!r} more than once: send it once", name)


def _parse_context(text: str) -> dict[str, Any]:
    """The photo-score ``hand`` field: JSON of the Hand without its tiles."""
    try:
        raw = strict_loads(text, prefix="hand") if text.strip() else {}
    except (json.JSONDecodeError, RecursionError) as exc:
        raise ApiError(
            422, "bad_json", f"hand is not valid JSON: {getattr(exc, 'msg', 'too deeply nested')}", "hand"
        ) from None
    except ValueError:  # Python refuses whole numbers of thousands of digits
        raise ApiError(
            422, "bad_json", "hand is not valid JSON: a number has more digits than any field can hold", "hand"
        ) from None
    if not isinstance(raw, dict):
        raise ApiError(422, "bad_json", "hand must be a JSON object", "hand")
    try:
        model = HandContext.model_validate(raw)
    except ValidationError as exc:
        raise validation_error(exc.errors(), prefix="hand") from None
    return model.model_dump(exclude_unset=True, exclude_none=True, by_alias=True)


def _human_bytes(n: int) -> str:
    """
    >>> _human_bytes(15_000_000), _human_bytes(200_000), _human_bytes(262_144), _human_bytes(1500)
    ('15 MB', '200 kB', '262 kB', '1500 bytes')
    """
    if n >= 1_000_000:
        return f"{n / 1_000_000:.3g} MB"
    if n >= 10_000:
        return f"{n / 1000:.3g} kB"
    return f"{n} bytes"


def _fastapi_class() -> Callable[..., FastAPI]:
    """FastAPI, or fastapi-offline's wrapper when installed, so /docs loads no script from a CDN."""
    try:
        from fastapi_offline import FastAPIOffline
    except ImportError:
        return FastAPI
    return FastAPIOffline


app = create_app()


def serve(host: str = "127.0.0.1", port: int = 8000) -> None:
    """Run the service (``paiscan serve``); settings come from ``PAISCAN_*`` environment variables."""
    import uvicorn

    from paiscan.service.server import uvicorn_config

    uvicorn.Server(uvicorn_config(app, app.state.service.settings, host, port)).run()
