"""Shared fixtures: the owner, a second owner, agent tokens and actors, the MCP client.

The test database follows the environment: SQLite by default (a file, so threads and
subprocesses share it), PostgreSQL when DATABASE_URL points at one (the team profile).
"""

from __future__ import annotations

import os

import pytest
from hypothesis import settings as hypothesis_settings

from accounts.tokens import token_create
from foundation.actors import Actor
from tests.mcp.helpers import InMemoryMCP
from tests.workers.instance import instance  # noqa: F401 - a fixture for every directory

ALL_AGENT_SCOPES = ["memories:read", "memories:write", "capture:write", "handoff"]

# Property and fuzz tests draw the same examples on every run, so a suite run is
# reproducible and a red build always means a change did it. HYPOTHESIS_EXPLORE=1 draws
# fresh examples instead, to hunt for new failures.
hypothesis_settings.register_profile("repeatable", derandomize=True, database=None)
hypothesis_settings.register_profile("explore")
hypothesis_settings.load_profile(
    "explore" if os.environ.get("HYPOTHESIS_EXPLORE") else "repeatable"
)


def pytest_collection_modifyitems(config, items):
    """Tests marked `postgres` belong to the team run (DATABASE_URL=postgres://...) and
    tests marked `sqlite` to the lite run; each run leaves the other's out openly (reported
    as deselected) rather than skipping them."""
    other = "sqlite" if os.environ.get("DATABASE_URL", "").startswith("postgres") else "postgres"
    kept = [item for item in items if item.get_closest_marker(other) is None]
    if len(kept) != len(items):
        config.hook.pytest_deselected(items=[item for item in items if item not in kept])
        items[:] = kept


@pytest.fixture
def owner(django_user_model):
    return django_user_model.objects.create_user(username="ada", password="correct horse battery")


@pytest.fixture
def other_owner(django_user_model):
    return django_user_model.objects.create_user(username="grace", password="another long secret")


@pytest.fixture
def owner_actor(owner) -> Actor:
    return Actor.owner(owner)


@pytest.fixture
def make_token(owner):
    """Issue a token for `owner` (or another user): returns (token row, raw secret)."""

    def make(agent_name="claude-code", scopes=None, user=None, **extra):
        return token_create(
            actor=Actor.owner(user or owner),
            name=f"{agent_name} token",
            agent_name=agent_name,
            scopes=scopes or ALL_AGENT_SCOPES,
            expires_in_days=extra.pop("expires_in_days", 30),
            **extra,
        )

    return make


@pytest.fixture
def agent_actor(make_token) -> Actor:
    token, _ = make_token("claude-code")
    return Actor.agent(token)


@pytest.fixture
def other_agent_actor(make_token) -> Actor:
    token, _ = make_token("codex")
    return Actor.agent(token)


@pytest.fixture
def mcp_as(make_token):
    """`mcp_as(agent_name, scopes=..., allowed_projects=...)` or `mcp_as(raw=secret)`: the
    MCP SDK's client connected in memory to the server, acting with that token. Tool calls
    run in worker threads, so tests using it need `django_db(transaction=True)`."""

    def make(agent_name="claude-code", *, raw: str | None = None, **token_options) -> InMemoryMCP:
        if raw is None:
            _, raw = make_token(agent_name, **token_options)
        return InMemoryMCP(raw)

    return make
