"""The agent API over a real socket: a live server driven with httpx, as an agent would."""

from __future__ import annotations

import httpx
import pytest

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def http(live_server, make_token):
    _, raw = make_token("claude-code")
    with httpx.Client(
        base_url=f"{live_server.url}/api/v1/",
        headers={"Authorization": f"Bearer {raw}"},
        timeout=10,
    ) as client:
        yield client


def test_an_agent_remembers_recalls_reads_and_forgets_over_http(http):
    created = http.post(
        "memories", json={"content": "Use uv to manage Python environments.", "kind": "preference"}
    )
    assert created.status_code == 201
    memory_id = created.json()["id"]

    again = http.post(
        "memories", json={"content": "Use uv to manage Python environments.", "kind": "preference"}
    )
    assert again.status_code == 200 and again.json()["duplicate_of"] == memory_id

    recalled = http.get(
        "recall", params=[("query", "python environments"), ("alt_queries", "venv tool")]
    )
    assert recalled.status_code == 200
    assert recalled.json()["memories"][0]["id"] == memory_id

    assert (
        http.get(f"memories/{memory_id}").json()["content"]
        == "Use uv to manage Python environments."
    )

    forgotten = http.post(f"memories/{memory_id}/forget", json={"reason": "switched tools"})
    assert forgotten.status_code == 200 and forgotten.json()["status"] == "archived"

    history = http.get(f"memories/{memory_id}/history").json()
    assert [event["event_type"] for event in history["events"]] == ["archived", "created"]
    assert history["events"][0]["reason"] == "switched tools"


def test_authentication_failures_carry_the_challenge_over_http(live_server):
    anonymous = httpx.get(f"{live_server.url}/api/v1/capabilities")
    wrong = httpx.get(
        f"{live_server.url}/api/v1/capabilities",
        headers={"Authorization": "Bearer cont_pat_" + "C" * 40},
    )

    assert (
        anonymous.status_code == 401
        and anonymous.headers["www-authenticate"] == 'Bearer realm="continuity"'
    )
    assert anonymous.json()["error"]["code"] == "UNAUTHORIZED"
    assert wrong.status_code == 401
    assert wrong.headers["www-authenticate"] == 'Bearer realm="continuity", error="invalid_token"'


def test_unknown_routes_wrong_methods_and_bad_json_answer_in_the_envelope_over_http(http):
    unknown = http.get("nothing/here")
    wrong_method = http.delete("memories")
    bad_json = http.post(
        "memories", content=b'{"content": ', headers={"Content-Type": "application/json"}
    )

    assert unknown.status_code == 404 and unknown.json()["error"]["code"] == "NOT_FOUND"
    assert (
        wrong_method.status_code == 405
        and wrong_method.json()["error"]["code"] == "METHOD_NOT_ALLOWED"
    )
    assert wrong_method.headers["allow"] == "POST"
    assert (
        bad_json.status_code == 400
        and bad_json.json()["error"]["message"] == "The request body is not valid JSON."
    )


def test_the_rate_limit_answers_429_with_retry_after_over_http(settings, http):
    settings.CONTINUITY_RATE_LIMIT_PER_MINUTE = 2
    assert [http.get("capabilities").status_code for _ in range(2)] == [200, 200]

    limited = http.get("capabilities")

    assert limited.status_code == 429
    assert 1 <= int(limited.headers["retry-after"]) <= 60
    assert limited.json()["error"]["code"] == "RATE_LIMITED"


def test_the_docs_page_and_its_assets_are_served_locally(live_server):
    page = httpx.get(f"{live_server.url}/api/v1/docs")
    schema = httpx.get(f"{live_server.url}/api/v1/openapi.json")
    bundle = httpx.get(f"{live_server.url}/static/ninja/swagger-ui-bundle.js")

    assert page.status_code == 200 and "/static/ninja/swagger-ui-bundle.js" in page.text
    assert schema.status_code == 200 and "/api/v1/recall" in schema.json()["paths"]
    assert bundle.status_code == 200 and len(bundle.content) > 100_000
