"""The isolation matrix: two owners, tokens covering every scope (alone, and as the one
missing) with and without a project restriction, and every agent API route tried with each.

Every record that a token must never see carries a canary in its text: the other owner's
(`CANARY-OTHER-OWNER`), this owner's private memory (`CANARY-PRIVATE`, visible only with
private:read), a project outside the token's restriction (`CANARY-P2`) and another agent's
own memory (`CANARY-OTHER-AGENT`). A response body that contains a canary it must not
contain is a leak. Routes are refused with 403 exactly when the token lacks their scope
or names a project outside its restriction; the other owner's ids are 404, never 403, so
a token cannot even learn that they exist. A route missing from the table fails the test.
"""

from __future__ import annotations

import uuid

import pytest

from capture.models import CaptureBatch
from memories.models import Memory, MemoryLink
from tests.api.isolation import CAPTURE_ITEMS, P1, P2, forbidden_canaries, token_profiles

pytestmark = pytest.mark.django_db


def requests_for(world, number: int):
    """(label, method, path, payload, required scope or None, project it names or None,
    expect 404 whenever allowed)."""
    ids, unique = world["ids"], f"{number}-{uuid.uuid4().hex[:6]}"
    note = {"content": f"Deploys need a green build ({unique})", "kind": "fact"}
    return [
        ("capabilities", "get", "capabilities", None, None, None, False),
        ("remember", "post", "memories", {**note, "scope_type": "project", "scope_key": P1}, "memories:write", P1, False),
        ("remember other project", "post", "memories", {**note, "scope_type": "project", "scope_key": P2},
         "memories:write", P2, False),
        ("checkpoint", "post", "checkpoints", {"summary": f"Progress {unique}", "project_key": P1}, "memories:write", P1, False),
        ("forget other owner's", "post", f"memories/{ids['bob']}/forget", {"reason": "x"}, "memories:write", None, True),
        ("link to other owner's", "post", f"memories/{ids['global']}/links",
         {"to_id": ids["bob"], "relation": "related_to"}, "memories:write", None, True),
        ("get own", "get", f"memories/{ids['global']}", None, "memories:read", None, False),
        ("get other owner's", "get", f"memories/{ids['bob']}", None, "memories:read", None, True),
        ("get private", "get", f"memories/{ids['private']}", None, "memories:read", None, None),
        ("get other agent's", "get", f"memories/{ids['other_agent']}", None, "memories:read", None, True),
        ("history of other owner's", "get", f"memories/{ids['bob']}/history", None, "memories:read", None, True),
        ("recall", "get", "recall", {"query": "release notes"}, "memories:read", None, False),
        ("recall in a project", "get", "recall", {"query": "release notes", "project_key": P1}, "memories:read", P1, False),
        ("recall other project", "get", "recall", {"query": "release notes", "project_key": P2}, "memories:read", P2, False),
        ("recall by post", "post", "recall", {"query": "release notes CANARY"}, "memories:read", None, False),
        ("context", "post", "context", {"query": "release notes"}, "memories:read", None, False),
        ("bootstrap", "get", "bootstrap", {"project_key": P1}, "memories:read", P1, False),
        ("bootstrap other project", "get", "bootstrap", {"project_key": P2}, "memories:read", P2, False),
        ("query", "post", "query", {"query": "where do release notes go", "project_key": P1}, "memories:read", P1, False),
        ("handoff create", "post", "handoffs", {"task_id": f"T-{unique}", "summary": "half done"}, "handoff", None, False),
        ("handoff resume", "post", "handoffs/resume", {"task_id": "T-shared"}, "handoff", None, False),
        ("inject", "post", "inject", {"prompt": "where do release notes go", "project_key": P1}, "memories:read", P1, False),
        ("inject other project", "post", "inject", {"prompt": "release notes", "project_key": P2}, "memories:read", P2, False),
        ("capture", "post", "capture/batches", {"source": "generic", "thread_id": f"t-{unique}", "project_key": P1,
                                                "items": CAPTURE_ITEMS}, "capture:write", P1, False),
        ("capture status of other owner's", "get", f"capture/batches/{world['bob_batch']}", None, "capture:write", None, True),
        ("capture thread of other owner's", "get", "capture/threads/generic/bob-thread", None, "capture:write", None, True),
    ]  # fmt: skip


ROUTES_IN_TABLE = {
    ("GET", "/api/v1/capabilities"), ("POST", "/api/v1/memories"), ("POST", "/api/v1/checkpoints"),
    ("POST", "/api/v1/memories/{id}/forget"), ("POST", "/api/v1/memories/{id}/links"),
    ("GET", "/api/v1/memories/{id}"), ("GET", "/api/v1/memories/{id}/history"), ("GET", "/api/v1/recall"),
    ("POST", "/api/v1/recall"), ("POST", "/api/v1/context"), ("GET", "/api/v1/bootstrap"),
    ("POST", "/api/v1/query"), ("POST", "/api/v1/handoffs"), ("POST", "/api/v1/handoffs/resume"),
    ("POST", "/api/v1/inject"), ("POST", "/api/v1/capture/batches"), ("GET", "/api/v1/capture/batches/{id}"),
    ("GET", "/api/v1/capture/threads/{source}/{thread_id}"),
}  # fmt: skip


def test_every_route_of_the_agent_api_is_in_the_matrix():
    from continuity.api import api

    routes = {
        (method.upper(), path) for path, operations in api.get_openapi_schema()["paths"].items()
        for method in operations
    }  # fmt: skip
    assert routes == ROUTES_IN_TABLE


def test_no_token_sees_or_touches_what_it_must_not(client, world, make_token, settings):
    settings.CONTINUITY_RATE_LIMIT_PER_MINUTE = 0
    problems, calls = [], 0
    bob_links = set(
        MemoryLink.objects.filter(
            owner=Memory.objects.get(pk=world["ids"]["bob"]).owner
        ).values_list("pk", "from_memory_id", "to_memory_id", "relation")
    )  # bob's own writes relate to each other; no token of ada's may add to them
    for number, (scopes, restricted) in enumerate(token_profiles()):
        options = {"allowed_projects": [P1]} if restricted else {}
        _, raw = make_token("claude-code", scopes=scopes, **options)
        headers = {"Authorization": f"Bearer {raw}"}
        leaks = forbidden_canaries(scopes, restricted)
        for label, method, path, payload, scope, project, not_found in requests_for(world, number):
            url = f"/api/v1/{path}"
            if method == "get":
                response = client.get(url, payload or {}, headers=headers)
            else:
                response = client.post(
                    url, payload or {}, content_type="application/json", headers=headers
                )
            calls += 1
            body = response.content.decode()
            who = f"{label} with {scopes}{' restricted to P1' if restricted else ''}"
            allowed = (scope is None or scope in scopes) and not (restricted and project == P2)
            if label == "get private":
                # A private memory is simply not there for a token without private:read.
                not_found = "private:read" not in scopes
            if not allowed:
                expected = {403}
            elif not_found:
                expected = {404}
            else:
                expected = set(range(200, 300))
            if response.status_code not in expected:
                problems.append(f"{who}: {response.status_code} {body[:200]}")
            for canary in leaks:
                if canary in body:
                    problems.append(f"{who}: leaked {canary}")

    assert calls == 22 * 26
    assert problems == [], "\n".join(problems[:30])
    # Nothing of the other owner's changed under any of those calls.
    bob_memory = Memory.objects.get(pk=world["ids"]["bob"])
    assert bob_memory.status == "active" and bob_memory.version == 1
    assert bob_links == set(
        MemoryLink.objects.filter(owner=bob_memory.owner).values_list(
            "pk", "from_memory_id", "to_memory_id", "relation"
        )
    )
    assert CaptureBatch.objects.filter(owner=bob_memory.owner).count() == 1
