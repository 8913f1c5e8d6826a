"""POST /api/v1/inject: the door over the injection service."""

from __future__ import annotations

import pytest

from capture.markers import INJECTION_OPEN
from injection.models import InjectionReceipt
from tests.api.helpers import ApiClient
from tests.memories.helpers import remember

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def roomy_time_budget(settings):
    """A loaded test machine (or a cold semantic model) must not turn these into time-budget
    answers; the budget itself has its own tests with a tiny setting."""
    settings.CONTINUITY_INJECT_BUDGET_MS = 30_000


@pytest.fixture
def api(client, make_token) -> ApiClient:
    return ApiClient(client, make_token("claude-code", scopes=["memories:read"])[1])


def test_inject_returns_the_block_items_and_receipt(api, owner_actor):
    memory = remember(
        owner_actor,
        "The shop deploys with Kubernetes.",
        scope_type="project",
        scope_key="github:acme/shop",
    )

    response = api.post(
        "inject",
        {
            "prompt": "how does the shop deploy?",
            "workspace": "https://github.com/acme/shop.git",
            "agent": "codex",
        },
    )

    assert response.status_code == 200
    body = response.json()
    assert body["context"].startswith(INJECTION_OPEN) and body["project_key"] == "github:acme/shop"
    assert [item["id"] for item in body["items"]] == [memory.id]
    assert body["reason"] == "" and body["token_estimate"] > 0
    assert InjectionReceipt.objects.get(pk=body["receipt_id"]).agent_name == "codex"


def test_nothing_to_inject_is_an_empty_answer_with_a_reason(api):
    body = api.post("inject", {"prompt": "你好"}).json()

    assert body["context"] == "" and body["items"] == [] and body["reason"] == "no_match"


def test_over_the_time_budget_the_door_answers_200_empty(api, owner_actor, settings):
    remember(owner_actor, "The shop deploys with Kubernetes.")
    settings.CONTINUITY_INJECT_BUDGET_MS = 0.001

    response = api.post("inject", {"prompt": "shop deploys"})

    assert response.status_code == 200 and response.json()["reason"] == "time_budget"


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({}, 400, "VALIDATION_ERROR"),
        ({"prompt": "x", "unknown": 1}, 400, "VALIDATION_ERROR"),
        ({"prompt": ["x"]}, 400, "VALIDATION_ERROR"),
        ({"prompt": "x", "project_key": "bad\x01key"}, 400, "VALIDATION_ERROR"),
    ],
)
def test_bad_input_answers_in_the_envelope_and_writes_nothing(api, body, status, code):
    response = api.post("inject", body)

    assert response.status_code == status
    error = response.json()["error"]
    assert error["code"] == code and error["message"] and isinstance(error["details"], list)
    assert InjectionReceipt.objects.count() == 0


def test_a_restricted_token_is_forbidden_another_project(client, make_token):
    restricted = ApiClient(client, make_token("codex", allowed_projects=["github:acme/blog"])[1])

    response = restricted.post("inject", {"prompt": "x", "project_key": "github:acme/shop"})

    assert response.status_code == 403 and response.json()["error"]["code"] == "FORBIDDEN"


def test_a_token_without_read_scope_is_forbidden(client, make_token):
    writer = ApiClient(client, make_token("writer", scopes=["capture:write"])[1])

    response = writer.post("inject", {"prompt": "x"})

    assert response.status_code == 403 and response.json()["error"]["code"] == "FORBIDDEN"


def test_without_a_token_the_door_is_closed(client):
    response = ApiClient(client, None).post("inject", {"prompt": "x"})

    assert response.status_code == 401 and response.json()["error"]["code"] == "UNAUTHORIZED"
