"""Fuzzing the agent API from its own OpenAPI schema, on a live server.

Schemathesis generates requests for every operation — valid ones and ones that bend every
field's type, bounds and format — and sends them over HTTP with a real token. Whatever it
sends, the answer must never be a 5xx, and every error must be the one envelope
`{"error": {"code", "message", "details"}}`. Bounded: a fixed number of examples per
operation, no shrinking, no example database.
"""

from __future__ import annotations

import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from schemathesis.checks import not_a_server_error

from tests.fuzz.helpers import assert_enveloped

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

EXAMPLES_PER_OPERATION = 30


def fuzz(schema_url: str, base_url: str, headers: dict, failures: list) -> dict[str, set[int]]:
    """Statuses seen per operation; failures collected, not raised, to report them all."""
    schema = schemathesis.openapi.from_url(schema_url)
    statuses: dict[str, set[int]] = {}
    for result in schema.get_all_operations():
        operation = result.ok()
        seen = statuses.setdefault(operation.label, set())

        @settings(
            max_examples=EXAMPLES_PER_OPERATION, deadline=None, database=None,
            phases=[Phase.explicit, Phase.generate], suppress_health_check=list(HealthCheck),
        )  # fmt: skip
        @given(case=operation.as_strategy())
        def run(case):
            response = case.call(base_url=base_url, headers=headers)
            seen.add(response.status_code)  # noqa: B023 - run within this iteration
            try:
                case.validate_response(response, checks=[not_a_server_error])
                assert_enveloped(response)
            except AssertionError as error:
                failures.append(
                    f"{case.method} {case.formatted_path}: {response.status_code} {error}"
                )
            except Exception as error:  # schemathesis raises its own failure group
                failures.append(
                    f"{case.method} {case.formatted_path}: {response.status_code} {error}"
                )

        run()
    return statuses


def test_the_agent_api_answers_every_generated_request_without_a_server_error(
    live_server, make_token, settings
):
    settings.CONTINUITY_RATE_LIMIT_PER_MINUTE = 0  # thousands of requests in a minute are the point
    _, raw = make_token("fuzzer")
    failures: list[str] = []

    statuses = fuzz(
        f"{live_server.url}/api/v1/openapi.json",
        live_server.url,
        {"Authorization": f"Bearer {raw}"},
        failures,
    )

    assert failures == [], "\n".join(failures[:20])
    assert len(statuses) >= 15  # every route of the schema was tried
    # The generated requests reached the handlers: most operations answered a success at
    # least once (the rest look up ids that random input never hits), and the token was
    # accepted throughout.
    succeeded = [
        label for label, seen in statuses.items() if any(200 <= code < 300 for code in seen)
    ]
    assert len(succeeded) >= len(statuses) // 2, statuses
    assert not [label for label, seen in statuses.items() if 401 in seen], statuses
