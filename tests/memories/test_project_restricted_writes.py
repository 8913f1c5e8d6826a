"""A token restricted to projects writes only into those projects, never the global scope
that every project's recall reads."""

from __future__ import annotations

import pytest

from foundation.actors import Actor
from foundation.errors import ErrorCode
from memories.models import Memory
from memories.services import memory_checkpoint
from tests.api.helpers import ApiClient, assert_envelope
from tests.mcp.helpers import error, ok
from tests.memories.helpers import raises, remember

pytestmark = pytest.mark.django_db

WEB, API = "github:acme/web", "github:acme/api"


@pytest.fixture
def restricted(make_token) -> Actor:
    return Actor.agent(make_token("cursor", allowed_projects=[WEB])[0])


def test_a_project_restricted_token_cannot_write_a_global_memory(restricted):
    with raises(ErrorCode.FORBIDDEN):
        remember(restricted, "Tabs, not spaces, everywhere.")
    with raises(ErrorCode.FORBIDDEN):
        remember(restricted, "Tabs, not spaces, everywhere.", scope_type="global")
    with raises(ErrorCode.FORBIDDEN):
        memory_checkpoint(actor=restricted, summary="Worked on formatting.")
    assert not Memory.objects.exists()


def test_a_project_restricted_token_writes_into_its_project(restricted):
    receipt = remember(restricted, "Tabs in the web app.", scope_type="project", scope_key=WEB)
    assert Memory.objects.get(pk=receipt.id).scope_key == WEB
    with raises(ErrorCode.FORBIDDEN):
        remember(restricted, "Tabs in the API.", scope_type="project", scope_key=API)


def test_an_unrestricted_token_still_writes_global_memories(agent_actor):
    assert remember(agent_actor, "Tabs, not spaces, everywhere.").status == "active"


def test_over_http_a_restricted_global_write_is_forbidden_and_no_recall_sees_it(client, make_token):
    writer = ApiClient(client, make_token("cursor", allowed_projects=[WEB])[1])
    answer = writer.post("memories", {"content": "Tabs, not spaces, everywhere.", "kind": "fact"})
    assert_envelope(answer, 403, "FORBIDDEN")
    reader = ApiClient(client, make_token("codex")[1])
    recalled = reader.get("recall", {"query": "tabs spaces", "project_key": API}).json()
    assert recalled["memories"] == []


@pytest.mark.django_db(transaction=True)
def test_over_mcp_a_restricted_token_writes_its_project_but_not_global(mcp_as):
    mcp = mcp_as("cursor", allowed_projects=[WEB])
    glob, project = mcp.calls([
        ("memory_remember", {"content": "Tabs everywhere.", "kind": "fact"}),
        ("memory_remember", {"content": "Tabs in web.", "kind": "fact", "scope_type": "project",
                             "scope_key": WEB}),
    ])  # fmt: skip
    assert error(glob)["code"] == "FORBIDDEN"
    assert ok(project)["status"] == "active"
