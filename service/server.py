"""Running the service under uvicorn with limits on slow and numerous clients.

uvicorn bounds an idle keep-alive connection but not the time a client takes to send its request's
headers, and it counts connections only to answer them a plain-text 503. :class:`GuardedH11Protocol`
adds both: a connection that has not sent complete headers within ``header_timeout_s`` (from its
opening, or from the end of its previous answer) is closed, and one opened past
``max_connections`` is answered the contract's 503 JSON and closed. The request body's pace is the
application's (:class:`paiscan.service.errors.BodyTimeoutMiddleware`); a shutdown waits at most
``shutdown_timeout_s`` for requests in progress. Behind a reverse proxy these are the proxy's too
(docs/deployment.md).
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from paiscan.service.settings import ServiceSettings


def _busy_answer(retry_after_s: int) -> bytes:
    body = json.dumps(
        {"error": {"code": "busy", "message": "the server has as many connections as it takes", "field": None}}
    ).encode()
    head = (
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\n"
        f"content-length: {len(body)}\r\nretry-after: {retry_after_s}\r\nconnection: close\r\n\r\n"
    )
    return head.encode("ascii") + body


class GuardedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with a header timeout and a connection limit (set by :func:`protocol_for`)."""

    header_timeout_s: float = 10.0
    max_connections: int = 256
    retry_after_s: int = 2

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._header_timer: asyncio.TimerHandle | None = None
        if len(self.connections) > self.max_connections:
            transport.write(_busy_answer(self.retry_after_s))
            transport.close()
            return
        self._arm_header_timer()

    def _arm_header_timer(self) -> None:
        self._cancel_header_timer()
        self._header_timer = self.loop.call_later(self.header_timeout_s, self._header_timeout)

    def _cancel_header_timer(self) -> None:
        timer = getattr(self, "_header_timer", None)
        if timer is not None:
            timer.cancel()
            self._header_timer = None

    def _header_timeout(self) -> None:
        self._header_timer = None
        waiting = self.conn.their_state in (h11.IDLE, h11.DONE) and (self.cycle is None or self.cycle.response_complete)
        if waiting and not self.transport.is_closing():
            self.transport.close()

    def handle_events(self) -> None:
        super().handle_events()
        if self.conn.their_state not in (h11.IDLE,) and self.cycle is not None and not self.cycle.response_complete:
            self._cancel_header_timer()  # the headers are in: the body's pace is the application's

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing():
            self._arm_header_timer()  # the next request's headers, within the same time

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_header_timer()
        super().connection_lost(exc)


def protocol_for(settings: ServiceSettings) -> type[GuardedH11Protocol]:
    """A :class:`GuardedH11Protocol` subclass carrying these settings' limits."""
    return type(
        "PaiscanH11Protocol",
        (GuardedH11Protocol,),
        {
            "header_timeout_s": settings.header_timeout_s,
            "max_connections": settings.max_connections,
            "retry_after_s": settings.retry_after_s,
        },
    )


def uvicorn_config(app: Any, settings: ServiceSettings, host: str, port: int, **overrides: Any) -> Any:
    """The uvicorn configuration ``paiscan serve`` runs: its limits and no ``server`` banner."""
    import uvicorn

    kwargs: dict[str, Any] = {
        "host": host,
        "port": port,
        "log_level": "info",
        "http": protocol_for(settings),
        "timeout_keep_alive": settings.keep_alive_s,
        "timeout_graceful_shutdown": settings.shutdown_timeout_s,
        "server_header": False,
        "h11_max_incomplete_event_size": 16 * 1024,
        **overrides,
    }
    return uvicorn.Config(app, **kwargs)
