"""Issue #54: the service under slow, abandoned, malformed and numerous requests (stub readers, no models)."""

from __future__ import annotations

import asyncio
import io
import json
import socket
import threading
import time
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PIL import Image
from test_service_upload_cap import asgi_post_scope

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

from paiscan.service.app import create_app
from paiscan.service.demo import DEMO_HAND, DEMO_WIN, DemoReader, DemoResult
from paiscan.service.server import uvicorn_config
from paiscan.service.settings import ServiceSettings
from paiscan.vision import deadline
from paiscan.vision.image import DecodedImage


def settings(**kw: Any) -> ServiceSettings:
    return ServiceSettings(_env_file=None, **{"workers": 1, "queue_size": 4, **kw})  # type: ignore[call-arg]


def jpeg(size: tuple[int, int] = (320, 200)) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", size, (30, 110, 60)).save(buf, "JPEG")
    return buf.getvalue()


def error_of(r: Any, status: int, code: str) -> dict[str, Any]:
    assert r.status_code == status, r.text
    err: dict[str, Any] = r.json()["error"]
    assert set(err) == {"code", "message", "field"} and err["code"] == code, err
    return err


class CheckingReader(DemoReader):
    """Works in small steps, calling the deadline's check() between them, as the pipeline's stages do."""

    def __init__(self, steps: int = 1000, step_s: float = 0.01) -> None:
        super().__init__()
        self.steps, self.step_s = steps, step_s
        self.stopped: list[tuple[str, float]] = []
        self.entered = threading.Event()

    def read(self, image: DecodedImage, rules: str = "riichi", context: dict[str, Any] | None = None) -> DemoResult:
        self.entered.set()
        try:
            for _ in range(self.steps):
                deadline.check()
                time.sleep(self.step_s)
        except deadline.ReadingStopped as exc:
            self.stopped.append((type(exc).__name__, time.monotonic()))
            raise
        return super().read(image, rules, context)


# ---------------------------------------------------------------------- the deadline
def test_a_slow_reading_is_stopped_at_its_deadline_and_answered_too_slow() -> None:
    reader = CheckingReader()
    with TestClient(create_app(settings(read_timeout_s=0.3, retry_after_s=3), reader=reader)) as c:
        t0 = time.monotonic()
        r = c.post("/v1/read", files={"file": ("a.jpg", jpeg())})
        took = time.monotonic() - t0
        err = error_of(r, 503, "too_slow")
        assert err["field"] == "file" and "0.3 s" in err["message"] and r.headers["retry-after"] == "3"
        assert took < 3 and reader.stopped[0][0] == "ReadingTooSlow"
        # the worker is free again: a quick reading passes
        reader.steps = 2
        assert c.post("/v1/read", files={"file": ("a.jpg", jpeg())}).status_code == 200


def test_a_reading_within_its_deadline_is_not_disturbed() -> None:
    with TestClient(create_app(settings(read_timeout_s=5), reader=CheckingReader(steps=5))) as c:
        assert c.post("/v1/read", files={"file": ("a.jpg", jpeg())}).status_code == 200


def _multipart(photo: bytes) -> bytes:
    return (
        b'--xyz\r\nContent-Disposition: form-data; name="file"; filename="a.jpg"\r\nContent-Type: image/jpeg\r\n\r\n'
        + photo
        + b"\r\n--xyz--\r\n"
    )


def _drive(app: Any, body: bytes, gone_after_s: float, stall: bool = False) -> list[dict[str, Any]]:
    """POST /v1/read to the ASGI app; the client hangs up ``gone_after_s`` after sending (or stalls
    mid-body when ``stall``). The messages the app sent."""
    messages: list[dict[str, Any]] = []
    sent = False

    async def receive() -> dict[str, Any]:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": stall}
        if stall:
            await asyncio.sleep(3600)
        if time.monotonic() >= gone_at:
            return {"type": "http.disconnect"}
        await asyncio.sleep(0.02)
        return {"type": "http.disconnect"} if time.monotonic() >= gone_at else {"type": "http.request", "body": b""}

    async def send(message: dict[str, Any]) -> None:
        messages.append(message)

    scope = asgi_post_scope("/v1/read", {"content-type": "multipart/form-data; boundary=xyz"})
    gone_at = time.monotonic() + gone_after_s
    asyncio.run(app(scope, receive, send))
    return messages


def test_the_reading_of_a_client_that_hung_up_is_cancelled() -> None:
    """The issue: slow uploads whose clients hung up after 0.3 s kept the server busy for 16 s."""
    reader = CheckingReader(steps=2000)  # 20 s of work unless stopped
    app = create_app(settings(read_timeout_s=60), reader=reader)
    with TestClient(app):
        t0 = time.monotonic()
        _drive(app, _multipart(jpeg()), gone_after_s=0.3)
        deadline_ = time.monotonic() + 5
        while not reader.stopped and time.monotonic() < deadline_:
            time.sleep(0.02)
        assert reader.stopped and reader.stopped[0][0] == "ReadingCancelled"
        assert reader.stopped[0][1] - t0 < 2.0, "the work went on after the client left"
        pool = app.state.service.get_pool()
        while pool.in_flight and time.monotonic() < deadline_:
            time.sleep(0.02)
        assert pool.in_flight == 0 and pool.stats.abandoned == 1


def test_a_photo_waits_for_a_worker_a_bounded_time() -> None:
    reader = CheckingReader(steps=300)  # holds the only worker for 3 s
    app = create_app(settings(workers=1, queue_size=4, queue_wait_s=0.3, read_timeout_s=60), reader=reader)
    with TestClient(app) as c:
        first: list[int] = []
        t = threading.Thread(
            target=lambda: first.append(c.post("/v1/read", files={"file": ("a.jpg", jpeg())}).status_code)
        )
        t.start()
        assert reader.entered.wait(10)
        t0 = time.monotonic()
        r = c.post("/v1/read", files={"file": ("b.jpg", jpeg())})
        err = error_of(r, 503, "busy")
        assert time.monotonic() - t0 < 2.0 and "waited" in err["message"] and "retry-after" in r.headers
        t.join(20)
        assert first == [200]


def test_a_stalled_body_is_answered_408() -> None:
    app = create_app(settings(body_timeout_s=0.3), reader=DemoReader())
    with TestClient(app):
        t0 = time.monotonic()
        messages = _drive(app, _multipart(jpeg())[:100], gone_after_s=60, stall=True)
        start = next(m for m in messages if m["type"] == "http.response.start")
        body = json.loads(b"".join(m.get("body", b"") for m in messages if m["type"] == "http.response.body"))
        assert start["status"] == 408 and body["error"]["code"] == "request_timeout"
        assert time.monotonic() - t0 < 3


# ---------------------------------------------------------------------- strict JSON, one part each
@pytest.fixture()
def client() -> Iterator[TestClient]:
    with TestClient(create_app(settings(), reader=DemoReader())) as c:
        yield c


GAME = {"rules": "boo", "players": ["Aki", "Ben", "Chie", "Dai"], "hands": [{"result": "draw"}]}
HAND = {"hand": DEMO_HAND, "win_tile": DEMO_WIN}


@pytest.mark.parametrize(
    ("path", "text", "field"),
    [
        ("/v1/score", json.dumps(HAND)[:-1] + ', "options": {"\\ud800": 1}}', "options"),
        ("/v1/score", json.dumps(HAND)[:-1] + ', "flags": ["\\udfff"]}', "flags[0]"),
        ("/v1/score", '{"\\ud800": 1}', None),
        ("/v1/games", json.dumps(GAME)[:-1] + ', "options": {"\\ud800": 1}}', "options"),
        ("/v1/games", json.dumps(GAME)[:-1] + ', "game_options": {"\\udbff": 1}}', "game_options"),
    ],
)
def test_a_lone_surrogate_is_bad_unicode(client: TestClient, path: str, text: str, field: str | None) -> None:
    r = client.post(path, content=text.encode(), headers={"content-type": "application/json"})
    err = error_of(r, 422, "bad_unicode")
    assert err["field"] == field and "surrogate" in err["message"]


def test_a_lone_surrogate_in_photo_score_hand_is_bad_unicode(client: TestClient) -> None:
    r = client.post("/v1/photo-score", files={"file": ("a.jpg", jpeg())}, data={"hand": '{"options": {"\\ud800": 1}}'})
    assert error_of(r, 422, "bad_unicode")["field"] == "hand.options"


def test_duplicate_keys_are_refused(client: TestClient) -> None:
    text = json.dumps(HAND)[:-1] + ', "win_tile": "1m"}'
    r = client.post("/v1/score", content=text.encode(), headers={"content-type": "application/json"})
    err = error_of(r, 422, "duplicate_key")
    assert err["field"] == "win_tile"
    r = client.post("/v1/photo-score", files={"file": ("a.jpg", jpeg())}, data={"hand": '{"win": "ron", "win": "x"}'})
    assert error_of(r, 422, "duplicate_key")["field"] == "hand.win"


def test_one_file_part_only(client: TestClient) -> None:
    files = [("file", ("a.jpg", jpeg(), "image/jpeg")), ("file", ("b.jpg", jpeg((64, 64)), "image/jpeg"))]
    assert error_of(client.post("/v1/read", files=files), 422, "duplicate_field")["field"] == "file"
    r = client.post("/v1/read", files={"file": ("a.jpg", jpeg())}, data={"rules": ["riichi", "boo"]})
    assert error_of(r, 422, "duplicate_field")["field"] == "rules"


def test_null_is_a_field_left_out_as_the_schema_says(client: TestClient) -> None:
    assert client.post("/v1/games", json={**GAME, "start": None, "abandoned": None}).status_code == 200
    with_null = client.post("/v1/score", json={**HAND, "dealer": None, "melds": [{"type": "pon", "tiles": "777z"}]})
    without = client.post("/v1/score", json={**HAND, "melds": [{"type": "pon", "tiles": "777z"}]})
    assert with_null.status_code == without.status_code and with_null.json()["error"] == without.json()["error"]
    r = client.post("/v1/score", json={"hand": DEMO_HAND + DEMO_WIN, "win_tile": None})
    assert r.status_code in (200, 422) and r.json().get("error", {}).get("code") != "internal_error"


# ---------------------------------------------------------------------- what answers show
def test_no_model_path_or_library_text_in_answers(tmp_path: Path) -> None:
    pytest.importorskip("paiscan.vision.pipeline")
    secret = tmp_path / "secret-models-dir"
    with TestClient(create_app(settings(models_dir=secret))) as c:
        answers = [c.get("/v1/info"), c.get("/readyz"), c.post("/v1/read", files={"file": ("a.jpg", jpeg())})]
    assert answers[0].json()["photo_reading"] is False
    for r in answers:
        assert str(secret) not in r.text and "secret-models-dir" not in r.text and ".onnx" not in r.text, r.text
    error_of(answers[1], 503, "models_unavailable")


def test_the_page_policy_on_every_page_path_and_no_host_echo(client: TestClient) -> None:
    for path in ("/", "/static/index.html", "/static/app.js"):
        r = client.get(path)
        assert r.status_code == 200 and "default-src 'self'" in r.headers["content-security-policy"], path
    assert client.get("/healthz").headers["x-content-type-options"] == "nosniff"
    r = client.get("/static", headers={"host": "evil.example"}, follow_redirects=False)
    assert r.status_code == 404 and "evil.example" not in r.text and "location" not in r.headers


def test_game_replays_have_back_pressure(monkeypatch: pytest.MonkeyPatch) -> None:
    import paiscan.service.app as service_app

    release, entered = threading.Event(), threading.Event()
    real = service_app._replay_game

    def slow_replay(record: dict[str, Any]) -> dict[str, Any]:
        entered.set()
        release.wait(10)
        return real(record)

    monkeypatch.setattr(service_app, "_replay_game", slow_replay)
    with TestClient(create_app(settings(json_jobs=1, retry_after_s=4), reader=DemoReader())) as c:
        first: list[int] = []
        t = threading.Thread(target=lambda: first.append(c.post("/v1/games", json=GAME).status_code))
        t.start()
        assert entered.wait(10)
        r = c.post("/v1/games", json=GAME)
        error_of(r, 503, "busy")
        assert r.headers["retry-after"] == "4"
        release.set()
        t.join(10)
        assert first == [200]
        assert c.post("/v1/games", json=GAME).status_code == 200


# ---------------------------------------------------------------------- the server: slow and many clients
class Running:
    """``paiscan serve``'s uvicorn configuration on a free port, in a thread."""

    def __init__(self, **kw: Any) -> None:
        import uvicorn

        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        s = settings(**kw)
        self.server = uvicorn.Server(uvicorn_config(create_app(s, reader=DemoReader()), s, "127.0.0.1", self.port))
        self.server.config.log_level = "warning"
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.sock]}, daemon=True)

    def __enter__(self) -> Running:
        self.thread.start()
        deadline_ = time.monotonic() + 20
        while not self.server.started and time.monotonic() < deadline_:
            time.sleep(0.02)
        assert self.server.started
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(15)
        self.sock.close()

    def connect(self) -> socket.socket:
        return socket.create_connection(("127.0.0.1", self.port), timeout=10)


def _read_all(conn: socket.socket, limit_s: float) -> bytes:
    conn.settimeout(limit_s)
    out = b""
    try:
        while chunk := conn.recv(65536):
            out += chunk
    except TimeoutError:
        pass
    return out


def test_slow_headers_are_cut_off_and_no_server_banner() -> None:
    with Running(header_timeout_s=0.5) as srv:
        conn = srv.connect()
        conn.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")  # and never the blank line
        t0 = time.monotonic()
        assert _read_all(conn, 5) == b"" and time.monotonic() - t0 < 3  # closed by the server
        idle = srv.connect()  # a connection that sends nothing at all
        assert _read_all(idle, 5) == b"" and time.monotonic() - t0 < 4
        ok = srv.connect()
        ok.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        answer = _read_all(ok, 5)
        assert answer.startswith(b"HTTP/1.1 200") and b"\r\nserver:" not in answer.lower(), answer


def test_connections_past_the_limit_are_answered_busy() -> None:
    with Running(max_connections=2, header_timeout_s=30) as srv:
        held = [srv.connect(), srv.connect()]
        time.sleep(0.2)
        third = srv.connect()
        answer = _read_all(third, 5)
        assert answer.startswith(b"HTTP/1.1 503") and b'"busy"' in answer and b"retry-after" in answer.lower()
        for c in held:
            c.close()
        time.sleep(0.3)
        ok = srv.connect()
        ok.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        assert _read_all(ok, 5).startswith(b"HTTP/1.1 200")


def test_shutdown_waits_for_a_stalled_client_a_bounded_time() -> None:
    srv = Running(shutdown_timeout_s=1, body_timeout_s=60, body_total_s=120).__enter__()
    conn = srv.connect()
    conn.sendall(
        b"POST /v1/score HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"
    )
    time.sleep(0.3)
    t0 = time.monotonic()
    srv.server.should_exit = True
    srv.thread.join(15)
    assert not srv.thread.is_alive() and time.monotonic() - t0 < 6
    conn.close()
    srv.sock.close()
