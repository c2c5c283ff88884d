"""The server against its own OpenAPI schema (schemathesis): requests generated from ``/openapi.json``,
valid and invalid, get no 5xx, and every answer fits the schema (status, content type, body) — an error
in the one JSON error shape. Bounded examples per operation, so it runs in the normal test suite."""

from __future__ import annotations

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import (
    content_type_conformance,
    not_a_server_error,
    response_schema_conformance,
    status_code_conformance,
)

from naval_tactics.catalogue import Catalogue
from naval_tactics.server import ServerSettings, create_app

pytestmark = pytest.mark.slow   # schemathesis generates hundreds of requests per ruleset

APP = create_app(ServerSettings(max_games=8, max_expert_ms=50), catalogue=Catalogue.load())
SCHEMA = schemathesis.openapi.from_asgi("/openapi.json", APP)
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]


@SCHEMA.parametrize()
@settings(max_examples=20, deadline=None, derandomize=True, database=None,
          suppress_health_check=list(HealthCheck))
def test_no_request_gets_a_5xx_or_an_answer_outside_the_schema(case: schemathesis.Case) -> None:
    case.call_and_validate(checks=CHECKS)
