"""Property-based API testing: schemathesis generates requests from the OpenAPI spec and checks that
none is answered with a server error and that every answer matches the spec.

Bounded to run in well under a minute; the demo reader stands in for the models.
"""

from __future__ import annotations

from typing import Any

import pytest

schemathesis = pytest.importorskip("schemathesis", reason="schemathesis is not installed (dev extra)")

from hypothesis import HealthCheck, settings  # noqa: E402

from paiscan.service.app import create_app  # noqa: E402
from paiscan.service.demo import DemoReader  # noqa: E402
from paiscan.service.settings import ServiceSettings  # noqa: E402

app = create_app(ServiceSettings(_env_file=None, workers=2, queue_size=64), reader=DemoReader())  # type: ignore[call-arg]
schema = schemathesis.openapi.from_asgi("/openapi.json", app)


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
