"""Fixtures for the real-clients suite: `hub`, a running Continuity (tests/agents/hub.py)."""

from tests.agents.hub import hub  # noqa: F401 - the fixture for this directory
