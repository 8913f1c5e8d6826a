"""The handoff routes of the agent API over HTTP: /api/v1/handoffs and /handoffs/resume."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from handoff.models import HandoffCapsule
from tests.api.helpers import assert_envelope

pytestmark = pytest.mark.django_db

CAPSULE = {
    "task_id": "github:ada/parser#12",
    "summary": "Lexer done; parser handles expressions, not statements yet.",
    "status": "in_progress",
    "decisions": ["Hand-written lexer, no generator"],
    "next_steps": ["Parse statements", "Add error recovery"],
    "artifacts": ["branch parser-statements", "src/parser.py"],
    "blockers": [],
}


def test_an_agent_hands_over_and_another_resumes_the_same_task(api, api_as):
    created = api.post("handoffs", CAPSULE)
    assert created.status_code == 201, created.content
    capsule = created.json()
    assert capsule["from_agent"] == "claude-code" and capsule["state"] == "open"

    resumed = api_as("codex").post("handoffs/resume", {"task_id": CAPSULE["task_id"]})

    assert resumed.status_code == 200
    body = resumed.json()["handoff"]
    assert body["id"] == capsule["id"] and body["next_steps"] == CAPSULE["next_steps"]
    assert body["resumed_by"] == "codex" and body["state"] == "resumed"


def test_resume_answers_null_for_a_task_without_a_live_capsule(api):
    api.post("handoffs", CAPSULE)
    other = api.post("handoffs/resume", {"task_id": "github:ada/parser#1"})
    assert other.status_code == 200 and other.json() == {"handoff": None}

    HandoffCapsule.objects.update(expires_at=timezone.now() - timedelta(seconds=1))
    assert api.post("handoffs/resume", {"task_id": CAPSULE["task_id"]}).json() == {"handoff": None}


def test_another_owners_capsule_is_not_resumed_over_http(api, api_as, other_owner):
    api_as("claude-code", user=other_owner).post("handoffs", CAPSULE)
    assert api.post("handoffs/resume", {"task_id": CAPSULE["task_id"]}).json() == {"handoff": None}


def test_a_token_without_the_handoff_scope_is_forbidden(api_as):
    client = api_as(scopes=["memories:read", "memories:write"])
    assert_envelope(client.post("handoffs", CAPSULE), 403, "FORBIDDEN")
    assert_envelope(client.post("handoffs/resume", {"task_id": "x"}), 403, "FORBIDDEN")
    assert not HandoffCapsule.objects.exists()


def test_no_token_is_unauthorized(api_as, client):
    from tests.api.helpers import ApiClient

    assert_envelope(ApiClient(client, None).post("handoffs", CAPSULE), 401, "UNAUTHORIZED")


@pytest.mark.parametrize(
    "change, status, code",
    [
        ({"from_agent": "someone-else"}, 400, "VALIDATION_ERROR"),
        ({"status": "finished"}, 400, "VALIDATION_ERROR"),
        ({"task_id": ""}, 400, "VALIDATION_ERROR"),
        ({"summary": "x" * 4001}, 400, "VALIDATION_ERROR"),
        ({"next_steps": "do it"}, 400, "VALIDATION_ERROR"),
        ({"expires_at": "2020-01-01T00:00:00Z"}, 400, "VALIDATION_ERROR"),
        ({"summary": "The deploy key is AKIAIOSFODNN7EXAMPLE"}, 422, "SECRET_REJECTED"),
    ],
)
def test_bad_input_gets_the_envelope_and_writes_nothing(api, change, status, code):
    assert_envelope(api.post("handoffs", {**CAPSULE, **change}), status, code)
    assert not HandoffCapsule.objects.exists()


def test_resume_refuses_unknown_fields(api):
    assert_envelope(api.post("handoffs/resume", {"task": "x"}), 400, "VALIDATION_ERROR")


def test_the_routes_are_in_the_openapi_document(api):
    paths = api.get("/api/v1/openapi.json").json()["paths"]
    assert "post" in paths["/api/v1/handoffs"] and "post" in paths["/api/v1/handoffs/resume"]
