"""Generated scripts of hostile writes through both agent doors prove three guarantees:

1. nothing private is observable to a token without `private:read`: every answer (status
   codes, ids, versions, receipts' duplicate_of / similar / contradictions, errors) equals
   the answer in a world where the private memory does not exist;
2. no agent changes what the owner confirmed or locked (content, value, version, status,
   supersedes, history, links);
3. nothing quarantined reaches an agent read path, whatever the writer did to it after.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings

from memories import poisoning
from tests.factories import AGENT_SCOPES, TokenFactory
from tests.mcp.helpers import InMemoryMCP
from tests.properties.doors import (
    POISON_MARK,
    POISONS,
    HttpDoor,
    McpDoor,
    World,
    normalised,
    run,
    scripts,
)


def properties(examples: int) -> settings:
    return settings(
        max_examples=examples, deadline=None, database=None, derandomize=True,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )  # fmt: skip


UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


@pytest.fixture(autouse=True)
def _poisons_are_flagged():
    # The screen is its own module's; these properties need it to flag every poison.
    assert all(poisoning.scan_text(poison) for poison in POISONS)


def _raw(world: World, agent_name: str) -> str:
    return TokenFactory(owner=world.user, agent_name=agent_name, scopes=AGENT_SCOPES).raw


def _check(make_door, script) -> None:
    private, twin = World(private=True), World(private=False)
    trusted_before = private.owner_trusted()
    seen = run(make_door(_raw(private, "claude-code")), private, script)
    unseen = run(make_door(_raw(twin, "claude-code")), twin, script)

    # 1. The writer cannot tell a world with the private memory from one without it.
    assert normalised(seen, private) == normalised(unseen, twin)
    # 2. What the owner trusts is as it was.
    assert private.owner_trusted() == trusted_before
    # 3. No agent reads quarantined text, nor anything of the private memory.
    memory_ids = sorted(set(UUID.findall(str(seen))) - {private.ids["P"]})
    for agent_name in ("claude-code", "codex"):
        text = make_door(_raw(private, agent_name)).reads(memory_ids)
        assert POISON_MARK not in text.lower()
        assert private.ids["P"] not in text and "loose-tile" not in text


@pytest.mark.django_db
@properties(30)
@given(script=scripts)
def test_the_agent_api_reveals_nothing_private_changes_nothing_trusted_serves_no_poison(
    client, script
):
    _check(lambda raw: HttpDoor(client, raw), script)


@pytest.mark.django_db(transaction=True)
@properties(15)
@given(script=scripts)
def test_the_mcp_tools_reveal_nothing_private_change_nothing_trusted_serve_no_poison(script):
    _check(lambda raw: McpDoor(InMemoryMCP(raw)), script)
