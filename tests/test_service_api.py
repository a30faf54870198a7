"""The HTTP API with fake photo readers: every status the service answers, and its error shape."""

from __future__ import annotations

import base64
import io
import json
import threading
import time
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

from paiscan.scoring import score_hand
from paiscan.service.app import create_app, server_timing
from paiscan.service.demo import DEMO_HAND, DEMO_WIN, DemoReader, DemoResult, demo_photo
from paiscan.service.settings import ServiceSettings
from paiscan.vision.image import DecodedImage

SMALL = dict(max_upload_bytes=200_000, max_json_bytes=8_192)


def settings(**kw: Any) -> ServiceSettings:
    return ServiceSettings(_env_file=None, **{"workers": 1, "queue_size": 4, **kw})  # type: ignore[call-arg]


def jpeg(size: tuple[int, int] = (320, 200), **save: Any) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", size, (30, 110, 60)).save(buf, "JPEG", **save)
    return buf.getvalue()


def encode(img: Image.Image, fmt: str, **kw: Any) -> bytes:
    buf = io.BytesIO()
    img.save(buf, fmt, **kw)
    return buf.getvalue()


def assert_error(r: Any, status: int, code: str, field: str | None = "<any>") -> dict[str, Any]:
    assert r.status_code == status, r.text
    body = r.json()
    assert set(body["error"]) == {"code", "message", "field"}, body
    assert body["error"]["code"] == code, body
    assert isinstance(body["error"]["message"], str) and body["error"]["message"]
    if field != "<any>":
        assert body["error"]["field"] == field, body
    return body


@pytest.fixture()
def client() -> Iterator[TestClient]:
    with TestClient(create_app(settings(), reader=DemoReader())) as c:
        yield c


@pytest.fixture()
def small_client() -> Iterator[TestClient]:
    with TestClient(create_app(settings(**SMALL), reader=DemoReader())) as c:
        yield c


# ---------------------------------------------------------------------- health, rulesets, page
def test_health_ready_info(client: TestClient) -> None:
    assert client.get("/healthz").json() == {"status": "ok"}
    r = client.get("/readyz")
    assert r.status_code == 200 and r.json()["status"] == "ready" and r.json()["reader"] == "DemoReader"
    info = client.get("/v1/info").json()
    assert info["photo_reading"] is True and info["max_upload_bytes"] == 15_000_000


def test_rulesets(client: TestClient) -> None:
    rs = client.get("/v1/rulesets").json()["rulesets"]
    by_id = {r["id"]: r for r in rs}
    assert "riichi" in by_id
    riichi = by_id["riichi"]
    assert riichi["name"] and riichi["name_ja"] and riichi["players"] == 4
    names = {o["name"]: o for o in riichi["options"]}
    assert names["kiriage"]["type"] == "bool" and names["kiriage"]["default"] is False
    assert "riichi" in riichi["flags"]


def test_page_and_static_files_are_offline(client: TestClient) -> None:
    r = client.get("/")
    assert r.status_code == 200 and "text/html" in r.headers["content-type"]
    assert "default-src 'self'" in r.headers["content-security-policy"]
    assert 'capture="environment"' in r.text
    for name in ("app.js", "style.css"):
        assert client.get(f"/static/{name}").status_code == 200
    static = Path(__file__).resolve().parents[1] / "service" / "static"
    for f in static.iterdir():
        if f.suffix not in (".html", ".js", ".css", ".json", ".webmanifest", ".svg"):
            continue  # pictures (the page's icons) hold no address
        text = f.read_text(encoding="utf-8").replace('xmlns="http://www.w3.org/2000/svg"', "")  # a name, not a fetch
        assert "http://" not in text and "https://" not in text and "//cdn" not in text, f.name


def test_docs_and_openapi(client: TestClient) -> None:
    spec = client.get("/openapi.json").json()
    for path in ("/healthz", "/readyz", "/v1/rulesets", "/v1/score", "/v1/read", "/v1/photo-score"):
        assert path in spec["paths"], path
    docs = client.get("/docs")
    assert docs.status_code == 200
    try:
        import fastapi_offline  # noqa: F401
    except ImportError:
        return
    assert "cdn.jsdelivr" not in docs.text  # served from the package, works offline


def test_not_found_and_method_have_the_error_shape(client: TestClient) -> None:
    assert_error(client.get("/nope"), 404, "not_found")
    assert_error(client.get("/v1/score"), 405, "method_not_allowed")


# ---------------------------------------------------------------------- /v1/score
def test_score_matches_the_core(client: TestClient) -> None:
    hand = {
        "rules": "riichi",
        "hand": "123m456p789s1122z",
        "win_tile": "2z",
        "win": "tsumo",
        "flags": ["riichi"],
        "dora_indicators": ["1z"],
        "melds": [],
    }
    r = client.post("/v1/score", json=hand)
    assert r.status_code == 200, r.text
    body = r.json()
    expected = score_hand(hand).to_dict()
    assert {k: body[k] for k in expected} == json.loads(json.dumps(expected))
    assert "score" in body["timings_ms"]
    assert r.headers["server-timing"].startswith("score;dur=")


def test_score_with_melds_and_aliases(client: TestClient) -> None:
    hand = {"hand": "234m456s67p55s", "melds": [{"type": "pon", "tiles": "777z", "from": "across"}], "win_tile": "8p"}
    r = client.post("/v1/score", json=hand)
    assert r.status_code == 200, r.text
    assert r.json()["total"] == score_hand(hand).total


@pytest.mark.parametrize(
    ("body", "code", "field"),
    [
        ({"hand": "123m456p789s1122x", "win_tile": "2z"}, "bad_tile", "hand"),
        ({"hand": "123m456p789s112z", "win_tile": "2z"}, "wrong_tile_count", "hand"),
        ({"win_tile": "2z"}, "bad_field", "hand"),
        (
            {"hand": "123m456p789s1122z", "win_tile": "2z", "melds": [{"type": "pon", "tiles": 777}]},
            "bad_field",
            "melds[0].tiles",
        ),
        (
            {"hand": "123m456p789s1122z", "win_tile": "2z", "melds": [{"type": "pung", "tiles": "777p"}]},
            "bad_field",
            "melds[0].type",
        ),
        ({"hand": "123m456p789s1122z", "win_tile": "2z", "honba": "2"}, "bad_field", "honba"),
        ({"hand": "123m456p789s1122z", "win_tile": "2z", "honba": True}, "bad_field", "honba"),
        ({"hand": "123m456p789s1122z", "win_tile": "2z", "win": "rong"}, "bad_field", "win"),
        ({"hand": "123m456p789s1122z", "win_tile": "2z", "flags": ["richi"]}, "unknown_flag", "flags[0]"),
        ({"hand": "123m456p789s1122z", "win_tile": "2z", "colour": "red"}, "unknown_field", "colour"),
        ({"hand": "123m456p789s1122z", "win_tile": "2z", "rules": "nope"}, "unknown_ruleset", "rules"),
        ({"hand": "123m456p789s1122z", "win_tile": "2z", "options": {"nope": 1}}, "unknown_option", None),
        ([1, 2], "bad_json", None),
        ("a string", "bad_json", None),
    ],
)
def test_invalid_hand_is_422_naming_the_field(client: TestClient, body: Any, code: str, field: str | None) -> None:
    body_ = assert_error(client.post("/v1/score", json=body), 422, code)
    if field is not None:
        assert body_["error"]["field"] == field or str(body_["error"]["field"]).startswith(field), body_


def test_score_invalid_json(client: TestClient) -> None:
    r = client.post("/v1/score", content=b'{"hand": ', headers={"content-type": "application/json"})
    assert_error(r, 422, "bad_json")
    r = client.post("/v1/score", content=b"[" * 50_000, headers={"content-type": "application/json"})
    assert r.status_code in (413, 422)
    r = client.post("/v1/score", content=b"[" * 5_000 + b"]" * 5_000, headers={"content-type": "application/json"})
    assert r.status_code == 422 and "error" in r.json()


def test_score_body_cap(small_client: TestClient) -> None:
    big = {"hand": "123m456p789s1122z", "win_tile": "2z", "options": {"pad": "x" * 10_000}}
    assert_error(small_client.post("/v1/score", json=big), 413, "too_large", "body")


# ---------------------------------------------------------------------- /v1/read
def test_read_returns_the_reading_and_a_small_preview(client: TestClient) -> None:
    r = client.post(
        "/v1/read", files={"file": ("hand.jpg", demo_photo(3000, 2000), "image/jpeg")}, data={"rules": "riichi"}
    )
    assert r.status_code == 200, r.text
    body = r.json()
    assert len(body["detections"]) == 14
    assert body["hand"]["hand"] == DEMO_HAND and body["hand"]["win_tile"] == DEMO_WIN
    assert body["ambiguities"] and body["alternatives"] == [] and body["problems"] == []
    assert body["image"] == {"width": 3000, "height": 2000}
    assert body["preview"].startswith("data:image/jpeg;base64,")
    preview = Image.open(io.BytesIO(base64.b64decode(body["preview"].split(",", 1)[1])))
    assert preview.format == "JPEG" and max(preview.size) <= 1024 and preview.size == (1024, 683)
    assert body["preview_size"] == {"width": 1024, "height": 683}
    for stage in ("queue", "decode", "localize", "classify", "layout", "preview", "total"):
        assert stage in body["timings_ms"], stage
    timing = r.headers["server-timing"]
    assert "decode;dur=" in timing and "total;dur=" in timing


def test_read_preview_modes(client: TestClient) -> None:
    photo = demo_photo(400, 300)
    plain = client.post("/v1/read", files={"file": ("a.jpg", photo)}, data={"preview": "plain"}).json()
    drawn = client.post("/v1/read", files={"file": ("a.jpg", photo)}, data={"preview": "annotated"}).json()
    assert plain["preview"] != drawn["preview"]
    none = client.post("/v1/read", files={"file": ("a.jpg", photo)}, data={"preview": "none"}).json()
    assert "preview" not in none
    assert_error(
        client.post("/v1/read", files={"file": ("a.jpg", photo)}, data={"preview": "huge"}), 422, "bad_field", "preview"
    )


@pytest.mark.parametrize("fmt", ["PNG", "WEBP", "JPEG"])
def test_read_formats(client: TestClient, fmt: str) -> None:
    data = encode(Image.new("RGB", (300, 200), (200, 200, 200)), fmt)
    r = client.post("/v1/read", files={"file": ("x.bin", data, "application/octet-stream")})
    assert r.status_code == 200, r.text
    assert r.json()["image"] == {"width": 300, "height": 200}


def test_read_heic(client: TestClient) -> None:
    pillow_heif = pytest.importorskip("pillow_heif")
    try:
        heif = pillow_heif.from_pillow(Image.new("RGB", (256, 160), (90, 30, 30)))
        buf = io.BytesIO()
        heif.save(buf, quality=60)
    except Exception as exc:  # encoder not in this build
        pytest.skip(f"pillow-heif cannot encode HEIC here: {exc}")
    r = client.post("/v1/read", files={"file": ("IMG_0001.HEIC", buf.getvalue(), "image/heic")})
    assert r.status_code == 200, r.text
    assert r.json()["image"] == {"width": 256, "height": 160}


def test_read_applies_exif_orientation(client: TestClient) -> None:
    exif = Image.Exif()
    exif[0x0112] = 6
    r = client.post("/v1/read", files={"file": ("a.jpg", jpeg((400, 100), exif=exif))})
    assert r.status_code == 200 and r.json()["image"] == {"width": 100, "height": 400}


@pytest.mark.parametrize(
    ("data", "name"),
    [
        (b"GIF89a" + b"\0" * 100, "a.gif"),
        (b"%PDF-1.7 ...", "a.pdf"),
        (b"<svg xmlns='x'></svg>", "a.svg"),
        (b"", "empty.jpg"),
    ],
)
def test_not_an_image_is_415(client: TestClient, data: bytes, name: str) -> None:
    assert_error(client.post("/v1/read", files={"file": (name, data, "image/jpeg")}), 415, "not_an_image", "file")


def test_decompression_bomb_is_422(client: TestClient) -> None:
    bomb = encode(Image.new("1", (12_000, 12_000)), "PNG")  # 144 MP in a few kB
    assert len(bomb) < 100_000
    body = assert_error(client.post("/v1/read", files={"file": ("bomb.png", bomb)}), 422, "too_many_pixels", "file")
    assert "pixels" in body["error"]["message"]


def test_truncated_image_is_422(client: TestClient) -> None:
    data = demo_photo(800, 600)
    r = client.post("/v1/read", files={"file": ("cut.jpg", data[: len(data) // 2])})
    body = assert_error(r, 422, "unreadable_image", "file")
    assert "truncated" in body["error"]["message"] or "damaged" in body["error"]["message"]
    png = encode(Image.new("RGB", (300, 300), (1, 2, 3)), "PNG")
    assert_error(client.post("/v1/read", files={"file": ("cut.png", png[:60])}), 422, "unreadable_image", "file")


def test_unknown_ruleset_and_missing_file(client: TestClient) -> None:
    assert_error(
        client.post("/v1/read", files={"file": ("a.jpg", jpeg())}, data={"rules": "nope"}),
        422,
        "unknown_ruleset",
        "rules",
    )
    assert_error(client.post("/v1/read", data={"rules": "riichi"}), 422, "bad_field", "file")
    assert_error(
        client.post("/v1/read", content=b"not multipart", headers={"content-type": "text/plain"}),
        422,
        "bad_field",
        "file",
    )


# ---------------------------------------------------------------------- 503
class BlockingReader(DemoReader):
    def __init__(self) -> None:
        super().__init__()
        self.release = threading.Event()
        self.entered = threading.Event()

    def read(self, image: DecodedImage, rules: str = "riichi", context: dict[str, Any] | None = None) -> DemoResult:
        self.entered.set()
        self.release.wait(20)
        return super().read(image, rules, context)


def test_busy_is_503_with_retry_after() -> None:
    reader = BlockingReader()
    app = create_app(settings(workers=1, queue_size=1, retry_after_s=7), reader=reader)
    photo = jpeg()
    with TestClient(app) as c:
        results: list[int] = []
        t = threading.Thread(
            target=lambda: results.append(c.post("/v1/read", files={"file": ("a.jpg", photo)}).status_code)
        )
        t.start()
        assert reader.entered.wait(10)
        r = c.post("/v1/read", files={"file": ("b.jpg", photo)})
        body = assert_error(r, 503, "busy")
        assert r.headers["retry-after"] == "7"
        assert "limit" in body["error"]["message"]
        r2 = c.post("/v1/photo-score", files={"file": ("b.jpg", photo)}, data={"hand": "{}"})
        assert_error(r2, 503, "busy")
        assert c.get("/healthz").status_code == 200  # the event loop is free meanwhile
        assert c.post("/v1/score", json={"hand": DEMO_HAND, "win_tile": DEMO_WIN}).status_code == 200
        reader.release.set()
        t.join(20)
        assert results == [200]
        deadline = time.monotonic() + 5
        while app.state.service.get_pool().in_flight and time.monotonic() < deadline:
            time.sleep(0.01)
        assert c.post("/v1/read", files={"file": ("c.jpg", photo)}).status_code == 200


def test_busy_inside_the_endpoint_too() -> None:
    """The pool's own bound (not only the early check) answers 503."""
    from paiscan.service.inference import InferencePool

    reader = BlockingReader()
    app = create_app(settings(workers=1, queue_size=1), reader=reader)
    with TestClient(app) as c:
        state = app.state.service
        pool: InferencePool = state.get_pool()
        pool.full = lambda: False  # type: ignore[method-assign]  # let the request past the early check
        t = threading.Thread(target=lambda: c.post("/v1/read", files={"file": ("a.jpg", jpeg())}))
        t.start()
        assert reader.entered.wait(10)
        r = c.post("/v1/read", files={"file": ("b.jpg", jpeg())})
        assert_error(r, 503, "busy")
        assert "retry-after" in r.headers
        reader.release.set()
        t.join(20)


def test_models_unavailable_is_503_and_scoring_still_works(tmp_path: Path) -> None:
    app = create_app(settings(models_dir=tmp_path))
    with TestClient(app) as c:
        r = c.get("/readyz")
        body = assert_error(r, 503, "models_unavailable")
        assert "not available" in body["error"]["message"]
        assert "retry-after" not in r.headers
        assert_error(c.post("/v1/read", files={"file": ("a.jpg", jpeg())}), 503, "models_unavailable")
        assert_error(c.post("/v1/photo-score", files={"file": ("a.jpg", jpeg())}), 503, "models_unavailable")
        assert c.get("/v1/info").json()["photo_reading"] is False
        assert c.post("/v1/score", json={"hand": DEMO_HAND, "win_tile": DEMO_WIN}).status_code == 200
        assert c.get("/").status_code == 200


def test_reader_factory_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PAISCAN_READER", "paiscan.service.demo:DemoReader")
    monkeypatch.setenv("PAISCAN_MAX_UPLOAD_BYTES", "123456")
    monkeypatch.setenv("PAISCAN_WORKERS", "3")
    s = ServiceSettings()
    assert s.reader == "paiscan.service.demo:DemoReader" and s.max_upload_bytes == 123456 and s.workers == 3
    assert s.queue_size >= s.workers
    with TestClient(create_app(s)) as c:
        assert c.get("/readyz").status_code == 200
    monkeypatch.setenv("PAISCAN_READER", "no.such.module:Reader")
    with TestClient(create_app(ServiceSettings())) as c:
        assert_error(c.get("/readyz"), 503, "models_unavailable")


class BrokenWarmReader(DemoReader):
    def warm(self) -> None:
        raise RuntimeError("onnxruntime could not allocate")


def test_a_reader_that_fails_to_warm_is_unavailable_not_fatal() -> None:
    with TestClient(create_app(settings(), reader=BrokenWarmReader())) as c:
        body = assert_error(c.get("/readyz"), 503, "models_unavailable")
        assert "not available" in body["error"]["message"]
        assert "could not allocate" not in body["error"]["message"]  # the library's words stay in the log


# ---------------------------------------------------------------------- never a 500
class CrashingReader(DemoReader):
    def read(self, image: DecodedImage, rules: str = "riichi", context: dict[str, Any] | None = None) -> DemoResult:
        raise ZeroDivisionError("bug in the pipeline")


class UnserialisableReader(DemoReader):
    def read(self, image: DecodedImage, rules: str = "riichi", context: dict[str, Any] | None = None) -> Any:
        class Result:
            def to_dict(self) -> dict[str, Any]:
                return {"detections": [], "hand": None, "weird": {1, 2}}

        return Result()


def test_a_crashing_reader_is_not_a_500() -> None:
    with TestClient(create_app(settings(), reader=CrashingReader())) as c:
        assert_error(c.post("/v1/read", files={"file": ("a.jpg", jpeg())}), 422, "reading_failed", "file")


def test_the_last_resort_answers_json() -> None:
    with TestClient(create_app(settings(), reader=UnserialisableReader())) as c:
        r = c.post("/v1/read", files={"file": ("a.jpg", jpeg())})
        assert r.status_code < 500
        assert_error(r, 422, "internal_error", None)


# ---------------------------------------------------------------------- /v1/photo-score
def test_photo_score(client: TestClient) -> None:
    ctx = {"rules": "riichi", "win": "ron", "seat_wind": "south", "round_wind": "east", "honba": 1, "flags": ["riichi"]}
    r = client.post("/v1/photo-score", files={"file": ("a.jpg", demo_photo(800, 500))}, data={"hand": json.dumps(ctx)})
    assert r.status_code == 200, r.text
    body = r.json()
    expected = score_hand(
        {**ctx, "hand": DEMO_HAND, "win_tile": DEMO_WIN, "melds": [], "dora_indicators": [], "nuki": ""}
    )
    assert body["total"] == expected.total and body["han"] == expected.han
    assert "riichi" in [y["id"] for y in body["yaku"]]
    assert body["recognised"]["hand"]["hand"] == DEMO_HAND
    assert body["recognised"]["preview"].startswith("data:image/jpeg")
    assert "score" in body["timings_ms"] and "decode" in body["timings_ms"]
    assert "score;dur=" in r.headers["server-timing"]


def test_photo_score_tile_fields_in_hand_replace_the_photo(client: TestClient) -> None:
    ctx = {"dora_indicators": ["1s"]}  # the indicator lies outside the photo
    r = client.post("/v1/photo-score", files={"file": ("a.jpg", jpeg())}, data={"hand": json.dumps(ctx)})
    assert r.status_code == 200, r.text
    plain = client.post("/v1/photo-score", files={"file": ("a.jpg", jpeg())}).json()
    assert r.json()["total"] > plain["total"]


@pytest.mark.parametrize(
    ("hand", "code", "field"),
    [
        ("{", "bad_json", "hand"),
        ("[1]", "bad_json", "hand"),
        ('{"win": "rong"}', "bad_field", "hand.win"),
        ('{"honba": -1}', "bad_field", "hand.honba"),
        ('{"rules": "nope"}', "unknown_ruleset", "hand.rules"),
        ('{"flags": ["tenhou"]}', "tenhou_on_ron", "hand.flags"),
        ('{"flags": ["bogus"]}', "unknown_flag", "hand.flags[0]"),
        ('{"options": {"nope": 1}}', "unknown_option", "hand.options.nope"),
        ('{"rules": "totenko_balance", "seat_wind": "north"}', "bad_field", "hand.seat_wind"),
        ('{"rules": "jun", "dealer": "south"}', "bad_field", "hand.dealer"),
    ],
)
def test_photo_score_bad_context(client: TestClient, hand: str, code: str, field: str) -> None:
    """The situation is checked before the photo is read: its field is named, nothing recognised."""
    r = client.post("/v1/photo-score", files={"file": ("a.jpg", jpeg())}, data={"hand": hand})
    body = assert_error(r, 422, code)
    assert body["error"]["field"] == field, body
    assert "recognised" not in body


class NoHandReader(DemoReader):
    def read(self, image: DecodedImage, rules: str = "riichi", context: dict[str, Any] | None = None) -> Any:
        class Result:
            def to_dict(self) -> dict[str, Any]:
                return {
                    "detections": [],
                    "hand": None,
                    "alternatives": [],
                    "ambiguities": [],
                    "problems": [{"code": "no_tiles", "message": "no tiles were found"}],
                    "timings_ms": {},
                    "image": {"width": 320, "height": 200},
                }

        return Result()


def test_photo_score_without_a_reading(tmp_path: Path) -> None:
    with TestClient(create_app(settings(), reader=NoHandReader())) as c:
        r = c.post("/v1/photo-score", files={"file": ("a.jpg", jpeg())})
        body = assert_error(r, 422, "no_valid_reading", "file")
        assert "no tiles were found" in body["error"]["message"]
        assert body["recognised"]["problems"][0]["code"] == "no_tiles"
        read = c.post("/v1/read", files={"file": ("a.jpg", jpeg())})
        assert read.status_code == 200 and read.json()["hand"] is None


def test_server_timing_format() -> None:
    assert server_timing({"decode": 1.234, "bad name": 3, "total": 10}) == "decode;dur=1.2, total;dur=10.0"


def test_paiscan_serve_starts_the_service(tmp_path: Path) -> None:
    """``paiscan serve`` (the CLI calls paiscan.service.app.serve) answers on the port it was given."""
    import os
    import socket
    import subprocess
    import sys

    import httpx

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {**os.environ, "PAISCAN_READER": "paiscan.service.demo:DemoReader", "PAISCAN_WORKERS": "1"}
    code = f"from paiscan.service.app import serve; serve(host='127.0.0.1', port={port})"
    proc = subprocess.Popen([sys.executable, "-c", code], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                r = httpx.get(f"http://127.0.0.1:{port}/readyz", timeout=1)
                break
            except httpx.HTTPError:
                assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else ""
                assert time.monotonic() < deadline, "the server did not start"
                time.sleep(0.1)
        assert r.status_code == 200 and r.json()["reader"] == "DemoReader"
        page = httpx.get(f"http://127.0.0.1:{port}/", timeout=5)
        assert page.status_code == 200 and "paiscan" in page.text
    finally:
        proc.terminate()
        proc.wait(10)


# ---------------------------------------------------------------------- with the real pipeline
def _pipeline_reader() -> Any:
    """paiscan.vision.pipeline.PhotoReader with stand-in models that "see" the demo picture's tiles."""
    import numpy as np

    pipeline = pytest.importorskip("paiscan.vision.pipeline", reason="the photo pipeline is not importable")
    from paiscan.scoring.tiles import parse_tiles
    from paiscan.vision.models import TileBox

    def faces_and_boxes(bgr: Any) -> list[dict[str, Any]]:
        detections: list[dict[str, Any]] = DemoResult(bgr.shape[1], bgr.shape[0], "riichi").to_dict()["detections"]
        return detections

    class Localizer:
        size = 384  # the demo's tiles are large in this input: no second look through windows
        conf = 0.45

        def __call__(self, bgr: Any, floor: float | None = None) -> list[Any]:
            return [TileBox(tuple(d["box"]), 0.95, False) for d in faces_and_boxes(bgr)]

    class Classifier:
        has_back = False  # the localizer's face-down tiles stay backs

        def __call__(self, bgr: Any, boxes: Any) -> Any:
            p = np.full((len(boxes), 37), 0.001, np.float32)
            for i, d in enumerate(faces_and_boxes(bgr)[: len(boxes)]):
                p[i, parse_tiles(d["class"])[0]] = 0.95
            return p

        def classify(
            self, bgr: Any, boxes: Any, recheck_below: float = 0.0, recheck_limit: int = 12, whole: Any = None
        ) -> tuple[Any, None]:
            return self(bgr, boxes), None  # no orientation output: the layout judges by the boxes

    reader = pipeline.PhotoReader(Localizer(), Classifier(), pipeline.VisionSettings())
    reader.warm = lambda: None
    return reader


def test_with_the_real_reading_pipeline() -> None:
    with TestClient(create_app(settings(), reader=_pipeline_reader())) as c:
        r = c.post("/v1/read", files={"file": ("a.jpg", demo_photo(1600, 1000))})
        assert r.status_code == 200, r.text
        body = r.json()
        assert len(body["detections"]) == 14 and body["hand"]["hand"] == "234m456p2245678s"
        assert body["image"] == {"width": 1600, "height": 1000}
        for stage in ("decode", "localize", "classify", "layout", "preview", "total"):
            assert stage in body["timings_ms"]
        r = c.post(
            "/v1/photo-score",
            files={"file": ("a.jpg", demo_photo(1600, 1000))},
            data={"hand": json.dumps({"flags": ["riichi"], "win": "ron"})},
        )
        assert r.status_code == 200, r.text
        assert r.json()["total"] == score_hand({"hand": DEMO_HAND, "win_tile": DEMO_WIN, "flags": ["riichi"]}).total


def test_by_default_the_service_reads_a_photo_as_the_cli_does(monkeypatch: pytest.MonkeyPatch) -> None:
    # the service's settings repeat the reader's defaults (they load without the vision code): a
    # default changed on one side alone would make `paiscan serve` read photos unlike `paiscan read`
    import os

    from paiscan.service.inference import load_reader
    from paiscan.vision.pipeline import PhotoReader, VisionSettings

    seen: list[Any] = []
    monkeypatch.setattr(PhotoReader, "load", classmethod(lambda cls, s: seen.append(s) or "reader"))
    for name in [k for k in os.environ if k.startswith("PAISCAN_")]:
        monkeypatch.delenv(name)
    assert load_reader(settings()) == "reader"
    assert seen[0] == VisionSettings()


def test_the_reading_settings_reach_the_photo_reader(monkeypatch: pytest.MonkeyPatch) -> None:
    from paiscan.service.inference import load_reader
    from paiscan.vision.pipeline import PhotoReader

    seen: list[Any] = []
    monkeypatch.setattr(PhotoReader, "load", classmethod(lambda cls, s: seen.append(s) or "reader"))
    assert load_reader(settings(zoom_min_px=0, recheck_below=0.5, decode_max_side=800, red_five_share=0.9)) == "reader"
    assert (seen[0].zoom_min_px, seen[0].recheck_below, seen[0].decode_max_side) == (0.0, 0.5, 800)
    assert seen[0].red_five_share == 0.9
    with pytest.raises(ValueError, match="recheck_below"):
        settings(recheck_below=1.5)


HAND_OK: dict[str, Any] = {"rules": "riichi", "hand": "123m456p789s1122z", "win_tile": "2z", "win": "tsumo"}


@pytest.mark.parametrize(
    ("body", "code", "field"),
    [
        ({**HAND_OK, "dealer": 1}, "bad_field", "dealer"),  # pydantic says "dealer.bool"
        ({**HAND_OK, "ura_indicators": 5}, "bad_field", "ura_indicators"),
        (
            {**HAND_OK, "options": {"yaku_han": {"riichi": 20000}}, "rules": "boo"},
            "bad_option",
            "options.yaku_han.riichi",
        ),
    ],
)
def test_score_errors_name_the_field_as_the_contract_does(
    client: TestClient, body: dict[str, Any], code: str, field: str
) -> None:
    assert_error(client.post("/v1/score", json=body), 422, code, field)


def test_an_empty_body_is_said_to_be_empty(client: TestClient) -> None:
    r = client.post("/v1/score", content=b"", headers={"content-type": "application/json"})
    body = assert_error(r, 422, "bad_json", None)
    assert "empty" in body["error"]["message"]


def test_photo_score_takes_rules_as_read_does(client: TestClient) -> None:
    ctx = {"seat_wind": "south", "flags": ["riichi"]}
    r = client.post(
        "/v1/photo-score", files={"file": ("a.jpg", jpeg())}, data={"hand": json.dumps(ctx), "rules": "boo"}
    )
    assert r.status_code == 200 and r.json()["rules"] == "boo", r.text
    r = client.post(
        "/v1/photo-score",
        files={"file": ("a.jpg", jpeg())},
        data={"hand": json.dumps({**ctx, "rules": "riichi"}), "rules": "boo"},
    )
    assert_error(r, 422, "bad_field", "rules")
    r = client.post("/v1/photo-score", files={"file": ("a.jpg", jpeg())}, data={"rules": "nope"})
    assert_error(r, 422, "unknown_ruleset", "rules")
    r = client.post(
        "/v1/photo-score", files={"file": ("a.jpg", jpeg())}, data={"hand": '{"honba": ' + "9" * 5000 + "}"}
    )
    assert_error(r, 422, "bad_json", "hand")


def test_the_upload_cap_is_the_files_own_size(small_client: TestClient) -> None:
    """The stream's cap leaves room for the form's own bytes; the photo itself may not use it."""
    cap = 200_000
    over = jpeg() + b"\0" * (cap + 1 - len(jpeg()))  # a JPEG with trailing bytes, one over the cap
    assert_error(small_client.post("/v1/read", files={"file": ("a.jpg", over)}), 413, "too_large", "file")
    fits = jpeg() + b"\0" * (cap - len(jpeg()))
    assert small_client.post("/v1/read", files={"file": ("a.jpg", fits)}).status_code == 200


class OpenMeldReader(DemoReader):
    """Reads a complete hand with a chi, but says the photo has a problem (as the reader does when
    no reading scores, here because riichi was declared)."""

    def read(self, image: DecodedImage, rules: str = "riichi", context: dict[str, Any] | None = None) -> Any:
        class Result:
            def to_dict(self) -> dict[str, Any]:
                hand = {
                    "hand": "456p678s2245s",
                    "melds": [{"type": "chi", "tiles": "234m", "open": True}],
                    "win_tile": "6s",
                    "dora_indicators": [],
                    "nuki": "",
                }
                return {
                    "detections": [],
                    "hand": hand,
                    "alternatives": [],
                    "ambiguities": [],
                    "problems": [{"code": "no_valid_reading", "message": "no reading makes a winning hand"}],
                    "timings_ms": {},
                    "image": {"width": 320, "height": 200},
                }

        return Result()


def test_photo_score_blames_the_field_the_photo_contradicts() -> None:
    with TestClient(create_app(settings(), reader=OpenMeldReader())) as c:
        r = c.post("/v1/photo-score", files={"file": ("a.jpg", jpeg())}, data={"hand": '{"flags": ["riichi"]}'})
        body = assert_error(r, 422, "riichi_open_hand", "hand.flags")
        assert body["recognised"]["hand"]["melds"]
        r = c.post("/v1/photo-score", files={"file": ("a.jpg", jpeg())}, data={"hand": '{"seat_wind": "south"}'})
        assert_error(r, 422, "no_valid_reading", "file")  # nothing the user gave is at fault


def test_photo_score_names_tile_fields_the_user_gave(client: TestClient) -> None:
    r = client.post(
        "/v1/photo-score",
        files={"file": ("a.jpg", demo_photo(800, 500))},
        data={"hand": json.dumps({"dora_indicators": ["6s", "6s", "6s"]})},
    )
    assert_error(r, 422, "too_many_of_kind", "hand.dora_indicators")


def test_a_photo_sent_as_text_is_said_to_be_one(client: TestClient) -> None:
    body = assert_error(client.post("/v1/read", data={"file": "notafile"}), 422, "bad_field", "file")
    assert "as a file" in body["error"]["message"] and "UploadFile" not in body["error"]["message"]
