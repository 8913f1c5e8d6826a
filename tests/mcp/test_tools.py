"""The tool definitions agents read: names, descriptions that carry the calling policy, and
input schemas with enums and bounds. In process, no database."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import pytest

from continuity.mcp import build_server
from memories.models import Kind, MemoryType, ScopeType
from memories.retrieval import PURPOSES
from tests.mcp.helpers import TOOLS

PUBLISHED = Path(__file__).with_name("tools.json")
READ_ONLY = {
    "memory_bootstrap", "memory_recall", "memory_history", "memory_context", "memory_capabilities",
}  # fmt: skip


@pytest.fixture(scope="module")
def tools():
    listed = anyio.run(build_server().list_tools)
    return {tool.name: tool for tool in listed}


def properties(tool) -> dict:
    return tool.input_schema["properties"]


def enum_of(schema: dict) -> list[str]:
    for option in [schema, *schema.get("anyOf", [])]:
        if "enum" in option:
            return option["enum"]
    raise AssertionError(f"no enum in {schema}")


def bound(schema: dict, name: str):
    for option in [schema, *schema.get("anyOf", [])]:
        if name in option:
            return option[name]
    raise AssertionError(f"no {name} in {schema}")


def test_the_tool_names_are_the_public_contract(tools):
    assert set(tools) == TOOLS


def test_tools_list_is_the_published_contract_byte_for_byte(tools):
    """Names, titles, descriptions, input schemas (argument names, types, bounds, defaults)
    and hints as tools.json publishes them. A deliberate change updates the file with it."""
    published = json.loads(PUBLISHED.read_text(encoding="utf-8"))
    listed = {
        name: {
            "title": tool.title,
            "description": tool.description,
            "input_schema": tool.input_schema,
            "annotations": tool.annotations.model_dump(mode="json", exclude_none=True),
            "output_schema": tool.output_schema,
        }
        for name, tool in tools.items()
    }

    assert sorted(listed) == sorted(published)
    for name in published:
        assert set(listed[name]["input_schema"]["properties"]) == set(
            published[name]["input_schema"]["properties"]
        ), name
        assert listed[name] == published[name], name


@pytest.mark.parametrize("name", sorted(TOOLS))
def test_every_description_says_when_to_call_the_tool_and_when_not(tools, name):
    description = tools[name].description

    assert "Call it" in description
    assert "not" in description.lower()
    assert not description.startswith(" ")  # cleaned docstring, not raw indentation


def test_descriptions_carry_the_key_policies(tools):
    assert "ONCE at the start of a session" in tools["memory_bootstrap"].description
    assert "every turn" in tools["memory_bootstrap"].description
    assert "general knowledge" in tools["memory_recall"].description
    remember = tools["memory_remember"].description
    assert "secrets" in remember and "transient chatter" in remember
    assert "milestones" in tools["memory_checkpoint"].description
    assert "wrong or obsolete" in tools["memory_forget"].description


@pytest.mark.parametrize("name", sorted(TOOLS))
def test_read_only_tools_are_annotated_so_and_writers_are_not(tools, name):
    assert tools[name].annotations.read_only_hint is (name in READ_ONLY)


@pytest.mark.parametrize("name", sorted(TOOLS))
def test_no_tool_takes_an_identity_argument_or_unknown_ones(tools, name):
    schema = tools[name].input_schema

    assert not {"agent", "agent_name", "user", "owner", "token"} & set(properties(tools[name]))
    assert schema["additionalProperties"] is False
    for field, spec in properties(tools[name]).items():
        assert spec.get("description") or spec.get("$ref") or field == "memories", (name, field)


def test_argument_names_follow_design_section_5(tools):
    expected = {
        "memory_remember": {"content", "kind", "type", "scope_type", "scope_key", "key", "value",
                            "write_mode", "expected_version", "idempotency_key", "tags",
                            "retrieval_hints", "confidence", "confidence_basis", "trust",
                            "visibility"},
        "memory_recall": {"query", "alt_queries", "project_key", "task_id", "kinds", "limit", "cursor"},
        "memory_context": {"query", "alt_queries", "project_key", "task_id", "purpose",
                           "token_budget", "max_memories"},
        "memory_forget": {"id", "reason", "superseded_by"},
        "memory_link": {"from_id", "to_id", "uri", "relation"},
        "memory_history": {"id", "limit", "cursor"},
        "memory_checkpoint": {"summary", "memories", "project_key", "task_id"},
    }  # fmt: skip
    for name, arguments in expected.items():
        assert set(properties(tools[name])) == arguments, name
    assert "project_key" in properties(tools["memory_bootstrap"])
    assert tools["memory_remember"].input_schema["required"] == ["content", "kind"]


def test_enumerated_arguments_list_their_values(tools):
    remember = properties(tools["memory_remember"])
    assert enum_of(remember["kind"]) == Kind.values
    assert enum_of(remember["type"]) == MemoryType.values
    assert enum_of(remember["scope_type"]) == ScopeType.values
    assert enum_of(remember["write_mode"]) == ["replace", "merge"]
    # Agents never assert on the user's behalf, nor supersede by linking.
    assert enum_of(remember["confidence_basis"]) == ["agent_inferred", "source_supported"]
    assert enum_of(remember["trust"]) == ["inferred", "observed"]
    assert enum_of(remember["visibility"]) == ["shared", "private"]
    assert "supersedes" not in enum_of(properties(tools["memory_link"])["relation"])
    assert enum_of(properties(tools["memory_context"])["purpose"]) == list(PURPOSES)
    kinds = properties(tools["memory_recall"])["kinds"]
    assert enum_of(bound(kinds, "items")) == Kind.values


def test_numeric_and_length_arguments_are_bounded(tools):
    remember = properties(tools["memory_remember"])
    assert remember["content"]["maxLength"] == 4000
    assert (bound(remember["confidence"], "minimum"), bound(remember["confidence"], "maximum")) == (
        0,
        1,
    )
    assert bound(remember["tags"], "maxItems") == 20
    recall = properties(tools["memory_recall"])
    assert (recall["limit"]["minimum"], recall["limit"]["maximum"]) == (1, 100)
    assert recall["query"]["maxLength"] == 1000
    context = properties(tools["memory_context"])
    assert context["token_budget"]["minimum"] >= 1 and context["token_budget"]["maximum"] <= 32000
    assert properties(tools["memory_history"])["limit"]["maximum"] == 100
    assert bound(properties(tools["memory_checkpoint"])["memories"], "maxItems") == 20


def test_the_server_introduces_itself_with_calling_guidance():
    server = build_server()

    assert server.name == "continuity"
    assert "memory_bootstrap" in server.instructions and "never secrets" in server.instructions


# --- transport security settings --------------------------------------------------------------


def test_the_guard_alone_checks_host_and_origin_with_the_settings_lists(settings):
    from continuity.mcp.guard import HostOriginGuard
    from continuity.mcp.server import http_app, transport_security

    settings.CONTINUITY_MCP_ALLOWED_HOSTS = ["memory.example.com"]
    settings.CONTINUITY_MCP_ALLOWED_ORIGINS = ["https://memory.example.com"]

    assert not transport_security().enable_dns_rebinding_protection  # one check, not two
    guard = http_app()
    assert isinstance(guard, HostOriginGuard)
    assert guard.hosts == ["memory.example.com"]
    assert guard.origins == ["https://memory.example.com"]


def test_by_default_mcp_allows_localhost_and_its_hosts_over_http_and_https():
    from django.conf import settings

    hosts = settings.CONTINUITY_MCP_ALLOWED_HOSTS
    assert {"127.0.0.1", "localhost", "[::1]"} <= set(hosts)
    for host in hosts:
        assert f"http://{host}" in settings.CONTINUITY_MCP_ALLOWED_ORIGINS
        assert f"https://{host}" in settings.CONTINUITY_MCP_ALLOWED_ORIGINS
