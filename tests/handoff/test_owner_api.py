"""The owner's handoff endpoints: list, read, expire; another owner's capsules do not exist."""

from __future__ import annotations

import pytest

from handoff.services import handoff_create, handoff_resume
from tests.owner_api.conftest import OwnerClient

pytestmark = pytest.mark.django_db


@pytest.fixture
def capsules(agent_actor, other_agent_actor):
    first = handoff_create(actor=agent_actor, task_id="T-1", summary="First")
    second = handoff_create(actor=agent_actor, task_id="T-2", summary="Second")
    handoff_resume(actor=other_agent_actor, task_id="T-1")
    return first, second


def test_the_owner_lists_filters_and_reads_capsules(owner, capsules):
    client = OwnerClient(owner)

    listed = client.get("/handoffs/").json()
    assert [item["task_id"] for item in listed["results"]] == ["T-2", "T-1"]
    resumed = client.get("/handoffs/", {"state": "resumed"}).json()["results"]
    assert [item["resumed_by"] for item in resumed] == ["codex"]
    assert client.get("/handoffs/", {"task_id": "T-2"}).json()["results"][0]["summary"] == "Second"
    assert client.get(f"/handoffs/{capsules[0].pk}/").json()["state"] == "resumed"


def test_the_owner_expires_a_capsule_and_agents_no_longer_resume_it(owner, capsules, agent_actor):
    response = OwnerClient(owner).post(f"/handoffs/{capsules[1].pk}/expire/")

    assert response.status_code == 200 and response.json()["state"] == "expired"
    assert handoff_resume(actor=agent_actor, task_id="T-2") is None


def test_another_owners_capsules_do_not_exist_for_them(other_owner, capsules):
    client = OwnerClient(other_owner)
    assert client.get("/handoffs/").json()["results"] == []
    assert client.get(f"/handoffs/{capsules[0].pk}/").status_code == 404
    assert client.post(f"/handoffs/{capsules[0].pk}/expire/").json()["error"]["code"] == "NOT_FOUND"


def test_bad_filters_and_missing_csrf_are_refused(owner, capsules):
    client = OwnerClient(owner)
    assert client.get("/handoffs/", {"state": "gone"}).json()["error"]["code"] == "VALIDATION_ERROR"
    assert client.get("/handoffs/", {"task": "T-1"}).json()["error"]["code"] == "VALIDATION_ERROR"
    no_csrf = OwnerClient(owner, csrf=False).post(f"/handoffs/{capsules[0].pk}/expire/")
    assert no_csrf.status_code == 403
    assert OwnerClient(None).get("/handoffs/").status_code == 401


def test_an_agent_token_is_refused(owner, capsules, make_token):
    _, raw = make_token("claude-code")
    response = OwnerClient(owner).get("/handoffs/", HTTP_AUTHORIZATION=f"Bearer {raw}")
    assert response.status_code == 401
