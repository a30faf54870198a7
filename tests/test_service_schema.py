"""Property-based API testing: schemathesis generates requests from the OpenAPI spec and checks that
none is answered with a server error and that every answer matches the spec.

Bounded to run in well under a minute; the demo reader stands in for the models.
"""

from __future__ import annotations

import json
import tempfile
import warnings
from pathlib import Path
from typing import Any

import pytest

schemathesis = pytest.importorskip("schemathesis", reason="schemathesis is not installed (dev extra)")

from hypothesis import HealthCheck, settings  # noqa: E402

from paiscan.service.app import create_app  # noqa: E402
from paiscan.service.demo import DemoReader  # noqa: E402
from paiscan.service.settings import ServiceSettings  # noqa: E402

DATA_DIR = tempfile.TemporaryDirectory(prefix="paiscan-schema-")  # the sheets it writes, never the user's own
app = create_app(
    ServiceSettings(_env_file=None, workers=2, queue_size=64, data_dir=Path(DATA_DIR.name)),  # type: ignore[call-arg]
    reader=DemoReader(),
)
#: a schema-violating request may be refused as too large (413) before it is read: that is a refusal too
CONFIG = schemathesis.config.SchemathesisConfig.from_dict(
    {
        "checks": {
            "negative_data_rejection": {
                "expected-statuses": [400, 401, 403, 404, 405, 406, 409, 413, 415, 422, 428, 429, "5xx"]
            }
        }
    }
)
schema = schemathesis.openapi.from_asgi("/openapi.json", app, config=CONFIG)
ROOT = Path(__file__).resolve().parents[1]
sheets = schema.include(path_regex="^/v1/sheets")


@schema.parametrize()
@settings(
    max_examples=30,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large],
)
def test_api_never_errors(case: Any) -> None:
    # A Hand can be well-typed and still not a winning hand: 422 for schema-valid input is right here.
    response = case.call_and_validate(excluded_checks=[schemathesis.checks.positive_data_acceptance])
    assert response.status_code < 500, response.text


def test_the_schema_says_what_the_service_takes() -> None:
    """A null where the service takes none, or an empty file, was documented and then refused."""
    forms = {k: v for k, v in app.openapi()["components"]["schemas"].items() if k.startswith("Body_")}
    assert forms
    for name, form in forms.items():
        props = form["properties"]
        assert props["file"]["minLength"] == 1, name
        for field, spec in props.items():
            assert "null" not in str(spec.get("anyOf", "")), (name, field)


@sheets.parametrize()
@settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large],
)
def test_the_sheets_answer_as_documented(case: Any) -> None:
    """Every /v1/sheets answer (its status, content type, headers and body) is one the OpenAPI documents:
    the If-Match, version and body errors included (``If-Match: null`` was an undocumented 400)."""
    response = case.call_and_validate(excluded_checks=[schemathesis.checks.positive_data_acceptance])
    assert response.status_code < 500, response.text


def test_the_sheets_errors_are_documented() -> None:
    """The answers the sheets tests exercise are in the OpenAPI of their routes, with the error body."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from fastapi.testclient import TestClient

    paths = app.openapi()["paths"]
    with TestClient(app) as client:
        record = json.loads((ROOT / "examples" / "game_boo.json").read_text(encoding="utf-8"))
        sheet = client.post("/v1/sheets", json=record).json()["id"]
        answers = [
            ("put", "/v1/sheets/{sheet_id}", client.put(f"/v1/sheets/{sheet}", json=record)),  # no If-Match
            (
                "put",
                "/v1/sheets/{sheet_id}",
                client.put(f"/v1/sheets/{sheet}", json=record, headers={"If-Match": "null"}),
            ),
            (
                "put",
                "/v1/sheets/{sheet_id}",
                client.put(f"/v1/sheets/{sheet}", json=record, headers={"If-Match": '"v9"'}),
            ),
            ("post", "/v1/sheets/{sheet_id}/hands", client.post(f"/v1/sheets/{sheet}/hands", json={"result": "dr"})),
            ("delete", "/v1/sheets/{sheet_id}", client.delete("/v1/sheets/ffff")),
            ("post", "/v1/sheets", client.post("/v1/sheets", content=b"a", headers={"content-type": "text/plain"})),
        ]
    assert [r.status_code for *_, r in answers] == [428, 400, 409, 422, 404, 415]
    for method, path, response in answers:
        documented = paths[path][method]["responses"][str(response.status_code)]
        ref = documented["content"]["application/json"]["schema"]["$ref"]
        assert ref.endswith("/ErrorResponse") and response.json()["error"]["code"], (method, path)
