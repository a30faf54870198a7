"""The HTTP API's upload cap while the body is still streaming in: a 413 as soon as the cap is passed,
from the ASGI app fed chunk by chunk and from a real server over a socket."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from test_service_api import SMALL, TestClient, assert_error, create_app, settings

from paiscan.service.demo import DemoReader, demo_photo


@pytest.fixture()
def small_client() -> Iterator[TestClient]:
    with TestClient(create_app(settings(**SMALL), reader=DemoReader())) as c:
        yield c


BOUNDARY = "xyz"
MULTIPART_HEAD = (
    b'--xyz\r\nContent-Disposition: form-data; name="file"; filename="a.jpg"\r\n'
    b"Content-Type: image/jpeg\r\n\r\n\xff\xd8\xff"
)


def asgi_post_scope(path: str, headers: dict[str, str]) -> dict[str, Any]:
    """The ASGI scope of an HTTP POST to ``path`` with ``headers``, from a local client."""
    return {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "root_path": "",
        "query_string": b"",
        "headers": [(k.lower().encode(), v.encode()) for k, v in headers.items()],
        "client": ("127.0.0.1", 1),
        "server": ("127.0.0.1", 80),
    }


def asgi_post(app: Any, path: str, chunks: Iterator[bytes], headers: dict[str, str]) -> tuple[int, dict[str, Any], int]:
    """Drive the ASGI app directly, feeding the body chunk by chunk; the status, the JSON body and
    how many body bytes the app pulled."""
    import asyncio

    pulled = 0
    messages: list[dict[str, Any]] = []
    it = iter(chunks)

    async def receive() -> dict[str, Any]:
        nonlocal pulled
        chunk = next(it, None)
        if chunk is None:
            return {"type": "http.request", "body": b"", "more_body": False}
        pulled += len(chunk)
        return {"type": "http.request", "body": chunk, "more_body": True}

    async def send(message: dict[str, Any]) -> None:
        messages.append(message)

    asyncio.run(app(asgi_post_scope(path, headers), receive, send))
    start = next(m for m in messages if m["type"] == "http.response.start")
    body = b"".join(m.get("body", b"") for m in messages if m["type"] == "http.response.body")
    return start["status"], json.loads(body), pulled


def _stream(n: int, size: int) -> Iterator[bytes]:
    yield MULTIPART_HEAD
    for _ in range(n):
        yield b"\0" * size


def test_413_when_the_declared_length_is_too_large(small_client: TestClient) -> None:
    r = small_client.post(
        "/v1/read",
        content=b"x" * 10,
        headers={"content-length": "999999999", "content-type": "multipart/form-data; boundary=xyz"},
    )
    assert_error(r, 413, "too_large", "file")
    app = small_client.app
    status, body, pulled = asgi_post(
        app,
        "/v1/read",
        _stream(1000, 10_000),
        {"content-type": "multipart/form-data; boundary=xyz", "content-length": "10000000"},
    )
    assert status == 413 and body["error"]["code"] == "too_large" and pulled == 0  # refused before reading


@pytest.mark.parametrize("declared", [None, "1000"])
def test_413_as_soon_as_the_cap_is_passed(small_client: TestClient, declared: str | None) -> None:
    """No Content-Length (chunked), or one that lies: the bytes received are what count."""
    headers = {"content-type": "multipart/form-data; boundary=xyz"}
    if declared:
        headers["content-length"] = declared
    status, body, pulled = asgi_post(small_client.app, "/v1/read", _stream(1000, 10_000), headers)
    assert status == 413, body
    assert body["error"] == {"code": "too_large", "message": body["error"]["message"], "field": "file"}
    assert "200 kB" in body["error"]["message"]
    assert 200_000 < pulled <= 200_000 + 64 * 1024 + 20_000, pulled  # stopped right after the cap (+ form slack)


def test_413_from_a_real_server_while_the_client_is_still_sending() -> None:
    """Over a socket to uvicorn: the 413 arrives while the chunked upload is still going."""
    import select
    import socket

    import uvicorn

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    app = create_app(settings(**SMALL), reader=DemoReader())
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 20
        while not server.started and time.monotonic() < deadline:
            time.sleep(0.02)
        conn = socket.create_connection(("127.0.0.1", port), timeout=10)
        conn.sendall(
            b"POST /v1/read HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n"
            b"Content-Type: multipart/form-data; boundary=xyz\r\n\r\n"
        )
        sent = 0
        answer = b""
        chunk = b"\0" * 16_384
        payload = MULTIPART_HEAD + chunk
        while sent < 20_000_000:
            try:
                conn.sendall(b"%x\r\n%s\r\n" % (len(payload), payload))
            except OSError:
                break
            sent += len(payload)
            payload = chunk
            if select.select([conn], [], [], 0.002)[0]:
                break
        conn.settimeout(5)
        try:
            while b"\r\n\r\n" not in answer or not answer.rstrip().endswith(b"}"):
                data = conn.recv(65536)
                if not data:
                    break
                answer += data
        except OSError:
            pass
        conn.close()
        assert answer.startswith(b"HTTP/1.1 413"), answer[:200]
        assert b'"too_large"' in answer
        assert sent < 5_000_000, f"the server let {sent} bytes in before answering"
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()


def test_a_photo_under_the_cap_passes(small_client: TestClient) -> None:
    photo = demo_photo(300, 200)
    assert len(photo) < 200_000
    assert small_client.post("/v1/read", files={"file": ("a.jpg", photo)}).status_code == 200
