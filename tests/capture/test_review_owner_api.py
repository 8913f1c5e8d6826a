"""The inbox over the owner API: list with filters, retrieve with evidence, approve, reject,
bulk, never-remember CRUD, rejections and forgiving; bad input gets the envelope and
changes nothing; another owner's ids do not exist."""

from __future__ import annotations

import pytest

from capture.models import Candidate, NeverRememberPattern, RejectedFingerprint
from memories.models import Memory
from tests.memories.helpers import remember
from tests.owner_api.conftest import OwnerClient, error_of

from .inbox_helpers import pending, propose

pytestmark = pytest.mark.django_db


@pytest.fixture
def api(owner) -> OwnerClient:
    return OwnerClient(owner)


@pytest.fixture
def inbox(owner):
    propose(owner, "I prefer tabs over spaces.", agent="claude-code", external_id="a")
    propose(
        owner,
        "我们决定用 Redis 做缓存。",
        agent="codex",
        external_id="b",
        project_key="github:ada/api",
    )
    return {candidate.content: candidate for candidate in pending(owner)}


def test_the_list_is_newest_first_and_filters_by_status_agent_and_project(api, inbox):
    body = api.get("/candidates/").json()
    assert [item["content"] for item in body["results"]] == [
        "我们决定用 Redis 做缓存",
        "I prefer tabs over spaces",
    ]
    assert body["next_cursor"] is None
    assert [
        i["content"] for i in api.get("/candidates/", {"agent": "codex"}).json()["results"]
    ] == ["我们决定用 Redis 做缓存"]
    only = api.get("/candidates/", {"project": "github:ada/api"}).json()["results"]
    assert [(i["scope_type"], i["scope_key"]) for i in only] == [("project", "github:ada/api")]
    assert api.get("/candidates/", {"status": "approved"}).json()["results"] == []


def test_a_candidate_is_retrieved_with_its_evidence(api, inbox):
    candidate = inbox["I prefer tabs over spaces"]
    body = api.get(f"/candidates/{candidate.pk}/").json()
    assert body["status"] == "pending" and body["agents"] == ["claude-code"]
    assert body["evidence"][0]["sentence"] == "I prefer tabs over spaces."
    assert body["replaces_memory"] is None


def test_approve_over_http_creates_the_memory_and_shows_what_it_replaced(api, owner_actor, owner):
    old = remember(owner_actor, "Never use tabs in Go files", kind="constraint").id
    propose(owner, "Always use tabs in Go files.")
    (candidate,) = pending(owner)
    detail = api.get(f"/candidates/{candidate.pk}/").json()
    assert detail["replaces_memory"]["id"] == str(old)
    response = api.post(
        f"/candidates/{candidate.pk}/approve/", {"replace": True, "visibility": "shared"}
    )
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["status"] == "approved" and body["approved_visibility"] == "shared"
    memory = Memory.objects.get(pk=body["memory"])
    assert str(memory.supersedes_id) == str(old) and memory.visibility == "shared"
    error_of(api.post(f"/candidates/{candidate.pk}/reject/"), 409, "CONFLICT")


def test_approve_with_an_edit_over_http(api, inbox):
    candidate = inbox["我们决定用 Redis 做缓存"]
    body = api.post(
        f"/candidates/{candidate.pk}/approve/",
        {"content": "缓存统一用 Redis 7。", "kind": "constraint"},
    ).json()
    memory = Memory.objects.get(pk=body["memory"])
    assert (memory.content, memory.kind, memory.scope_key) == (
        "缓存统一用 Redis 7。",
        "constraint",
        "github:ada/api",
    )


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({"visibility": "public"}, 400, "VALIDATION_ERROR"),
        ({"replace": 3}, 400, "VALIDATION_ERROR"),
        ({"replace": True}, 400, "VALIDATION_ERROR"),
        ({"content": ""}, 400, "VALIDATION_ERROR"),
        ({"content": "api_key = sk-abcdefghijklmnopqrstuvwxyz123456"}, 422, "SECRET_REJECTED"),
        ({"colour": "blue"}, 400, "VALIDATION_ERROR"),
    ],
)
def test_bad_approvals_answer_in_the_envelope_and_change_nothing(api, inbox, body, status, code):
    candidate = inbox["I prefer tabs over spaces"]
    error_of(api.post(f"/candidates/{candidate.pk}/approve/", body), status, code)
    assert (
        Candidate.objects.get(pk=candidate.pk).status == "pending" and Memory.objects.count() == 0
    )


def test_reject_then_the_rejection_is_listed_and_can_be_forgiven(api, inbox, owner):
    candidate = inbox["I prefer tabs over spaces"]
    assert api.post(f"/candidates/{candidate.pk}/reject/").json()["status"] == "rejected"
    (rejection,) = api.get("/rejections/").json()["results"]
    assert rejection["content"] == "I prefer tabs over spaces"
    assert api.delete(f"/rejections/{rejection['id']}/").status_code == 204
    assert not RejectedFingerprint.objects.exists()
    error_of(api.delete(f"/rejections/{rejection['id']}/"), 404, "NOT_FOUND")


def test_bulk_over_http_is_all_or_nothing(api, inbox):
    ids = [str(candidate.pk) for candidate in inbox.values()]
    error_of(
        api.post(
            "/candidates/bulk/",
            {"action": "approve", "ids": [*ids, "0" * 8 + "-0000-0000-0000-" + "0" * 12]},
        ),
        404,
        "NOT_FOUND",
    )
    error_of(
        api.post("/candidates/bulk/", {"action": "approve", "ids": []}), 400, "VALIDATION_ERROR"
    )
    assert Memory.objects.count() == 0
    body = api.post("/candidates/bulk/", {"action": "reject", "ids": ids}).json()
    assert {item["status"] for item in body["results"]} == {"rejected"}


def test_never_remember_patterns_over_http(api, inbox, owner):
    response = api.post("/never-remember/", {"pattern": "Redis"})
    assert response.status_code == 201 and response.json()["expired_candidates"] == 1
    (row,) = api.get("/never-remember/").json()["results"]
    assert row["pattern"] == "Redis"
    error_of(api.post("/never-remember/", {"pattern": "  "}), 400, "VALIDATION_ERROR")
    assert api.delete(f"/never-remember/{row['id']}/").status_code == 204
    assert not NeverRememberPattern.objects.exists()


def test_another_owner_sees_none_of_it_and_agents_tokens_are_refused(
    inbox, other_owner, make_token
):
    candidate = inbox["I prefer tabs over spaces"]
    other = OwnerClient(other_owner)
    assert other.get("/candidates/").json()["results"] == []
    error_of(other.get(f"/candidates/{candidate.pk}/"), 404, "NOT_FOUND")
    error_of(other.post(f"/candidates/{candidate.pk}/approve/"), 404, "NOT_FOUND")
    error_of(OwnerClient().get("/candidates/"), 401, "UNAUTHORIZED")
    _, raw = make_token("claude-code")
    error_of(
        OwnerClient().get("/candidates/", HTTP_AUTHORIZATION=f"Bearer {raw}"), 401, "UNAUTHORIZED"
    )
    assert Candidate.objects.get(pk=candidate.pk).status == "pending"


def test_unknown_filters_and_bad_statuses_are_refused(api, inbox):
    error_of(api.get("/candidates/", {"colour": "red"}), 400, "VALIDATION_ERROR")
    error_of(api.get("/candidates/", {"status": "maybe"}), 400, "VALIDATION_ERROR")
    error_of(api.get("/candidates/not-a-uuid/"), 400, "VALIDATION_ERROR")
