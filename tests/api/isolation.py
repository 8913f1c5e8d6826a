"""The isolation world both agent doors are tried against (tests/api/test_isolation_matrix.py
over HTTP, tests/mcp/test_isolation.py over MCP): two owners, tokens covering every scope
(alone, and as the one missing) with and without a project restriction, and a canary in
every record that some token must not see.

`world` is a fixture; the conftest of each directory that uses it imports it from here.
"""

from __future__ import annotations

import pytest

from capture.models import CaptureBatch, CaptureThread
from foundation.actors import Actor
from handoff.services import handoff_create
from memories.services import memory_remember

P1, P2 = "github:acme/api", "github:acme/secret"
SCOPES = ("memories:read", "memories:write", "capture:write", "handoff", "private:read")
CANARIES = ("CANARY-OTHER-OWNER", "CANARY-PRIVATE", "CANARY-P2", "CANARY-OTHER-AGENT")
CAPTURE_ITEMS = [{"role": "user", "text": "please remember the release notes go in CHANGELOG.md"}]


def token_profiles():
    """Each scope alone, all of them, and all but each one — so every scope is tried both
    as the only one and as the only one missing — each with and without a restriction."""
    combinations = [[scope] for scope in SCOPES] + [list(SCOPES)]
    combinations += [[scope for scope in SCOPES if scope != left_out] for left_out in SCOPES]
    for scopes in combinations:
        for restricted in (False, True):
            yield scopes, restricted


@pytest.fixture
def world(owner, other_owner, make_token):
    """Ada (the owner under test) and Bob (the other owner), with a canary in everything
    that some token must not see."""
    ada, bob = Actor.owner(owner), Actor.owner(other_owner)

    def write(actor, content, **fields):
        return memory_remember(actor=actor, content=content, kind="fact", **fields).id

    codex = Actor.agent(make_token("codex", user=owner)[0])
    ids = {
        "global": write(ada, "Release notes go in CHANGELOG.md, says ada"),
        "p1": write(
            ada,
            "Release notes for the api go in docs/releases.md",
            scope_type="project",
            scope_key=P1,
        ),
        "p2": write(
            ada, "CANARY-P2 release notes of the secret project", scope_type="project", scope_key=P2
        ),
        "private": write(
            ada, "CANARY-PRIVATE release notes draft lives in my notebook", visibility="private"
        ),
        "other_agent": write(
            codex, "CANARY-OTHER-AGENT release notes scratch", scope_type="agent", scope_key="codex"
        ),
        "bob": write(bob, "CANARY-OTHER-OWNER release notes go in NEWS.md"),
        "bob_p1": write(
            bob, "CANARY-OTHER-OWNER release notes for the api", scope_type="project", scope_key=P1
        ),
    }
    handoff_create(
        actor=ada, task_id="T-shared", summary="ada's capsule: release notes half written"
    )
    handoff_create(actor=bob, task_id="T-shared", summary="CANARY-OTHER-OWNER capsule of bob")
    bob_thread = CaptureThread.objects.create(
        owner=other_owner, source="generic", external_id="bob-thread"
    )
    bob_batch = CaptureBatch.objects.create(
        owner=other_owner, thread=bob_thread, items=CAPTURE_ITEMS, item_count=1
    )
    return {"ids": ids, "bob_batch": str(bob_batch.pk)}


def forbidden_canaries(scopes: list[str], restricted: bool) -> set[str]:
    canaries = {"CANARY-OTHER-OWNER", "CANARY-OTHER-AGENT"}
    if "private:read" not in scopes:
        canaries.add("CANARY-PRIVATE")
    if restricted:
        canaries.add("CANARY-P2")
    return canaries
