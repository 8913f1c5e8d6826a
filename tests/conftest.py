"""Shared fixtures (the owner, a second owner, agent tokens and actors, built with
tests/factories.py; the in-memory MCP client) and collection rules (the other profile's
tests and, without Chromium, the browser tests are deselected openly).

The test database follows the environment: SQLite by default (a file, so threads and
subprocesses share it), PostgreSQL when DATABASE_URL points at one (the team profile).
"""

from __future__ import annotations

import os

import pytest
from hypothesis import settings as hypothesis_settings

from foundation.actors import Actor
from tests.browser.chromium import browser_required, chromium_path, why_missing
from tests.factories import AGENT_SCOPES, TokenFactory, UserFactory
from tests.mcp.helpers import InMemoryMCP
from tests.workers.instance import instance  # noqa: F401 - a fixture for every directory

# Property and fuzz tests draw the same examples on every run, so a suite run is
# reproducible and a red build always means a change did it. HYPOTHESIS_EXPLORE=1 draws
# fresh examples instead, to hunt for new failures.
hypothesis_settings.register_profile("repeatable", derandomize=True, database=None)
hypothesis_settings.register_profile("explore")
hypothesis_settings.load_profile(
    "explore" if os.environ.get("HYPOTHESIS_EXPLORE") else "repeatable"
)


def pytest_collection_modifyitems(config, items):
    deselect_the_other_profile(config, items)
    browser_tests_last_or_deselected(config, items)


# Directories whose tests come out the same on both profiles: the agent clients and the
# client package talk HTTP or stdio to a hub, and what they do does not depend on the
# database or broker behind it. They are marked `once` like a single module would be.
ONCE_DIRECTORIES = ("agents", "client")


def deselect_the_other_profile(config, items):
    """Tests marked `postgres` belong to the team run (DATABASE_URL=postgres://...) and
    tests marked `sqlite` to the lite run; each run leaves the other's out openly (reported
    as deselected) rather than skipping them. Tests marked `once` are profile-independent:
    the lite run has them and the team run does not repeat them."""
    tests = config.rootpath / "tests"
    for item in items:
        if (
            item.path.is_relative_to(tests)
            and item.path.relative_to(tests).parts[0] in ONCE_DIRECTORIES
        ):
            item.add_marker(pytest.mark.once)
    team = os.environ.get("DATABASE_URL", "").startswith("postgres")
    other = ("sqlite", "once") if team else ("postgres",)
    kept = [item for item in items if not any(item.get_closest_marker(m) for m in other)]
    if len(kept) != len(items):
        config.hook.pytest_deselected(items=[item for item in items if item not in kept])
        items[:] = kept


# --- browser tests: run when Chromium is found, deselected openly when not ---------------

BROWSER_NOT_RUN = pytest.StashKey[str]()


def pytest_report_header(config):
    path = chromium_path()
    return f"chromium: {path}" if path else f"chromium: none ({why_missing()})"


def browser_tests_last_or_deselected(config, items):
    """Without Chromium the browser tests are deselected (an error when
    CONTINUITY_REQUIRE_BROWSER is set). With it they run last: a sync Playwright session
    leaves an event loop behind that would break the asyncio tests after it."""
    browser = [item for item in items if item.get_closest_marker("browser")]
    if not browser:
        return
    others = [item for item in items if item.get_closest_marker("browser") is None]
    if chromium_path() is None:
        if browser_required():
            raise pytest.UsageError(
                f"CONTINUITY_REQUIRE_BROWSER is set but {why_missing()}: "
                f"{len(browser)} browser tests cannot run"
            )
        config.hook.pytest_deselected(items=browser)
        config.stash[BROWSER_NOT_RUN] = f"{len(browser)} browser tests not run: {why_missing()}"
        items[:] = others
        return
    items[:] = others + browser


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    note = config.stash.get(BROWSER_NOT_RUN, None)
    if note:
        terminalreporter.write_line(note, yellow=True, bold=True)


# --- people and tokens --------------------------------------------------------------------


@pytest.fixture
def owner():
    return UserFactory(username="ada", password="correct horse battery")


@pytest.fixture
def other_owner():
    return UserFactory(username="grace", password="another long secret")


@pytest.fixture
def owner_actor(owner) -> Actor:
    return Actor.owner(owner)


@pytest.fixture
def make_token(owner):
    """Issue a token for `owner` (or another user): returns (token row, raw secret)."""

    def make(agent_name="claude-code", scopes=None, user=None, **extra):
        token = TokenFactory(
            owner=user or owner, agent_name=agent_name, scopes=scopes or AGENT_SCOPES, **extra
        )
        return token, token.raw

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
