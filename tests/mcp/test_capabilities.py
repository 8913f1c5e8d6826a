"""One capabilities answer for both agent doors: GET /api/v1/capabilities and the
memory_capabilities tool return `continuity.capabilities.capabilities()` for the same token."""

from __future__ import annotations

from datetime import datetime

import pytest

from memories import contract
from tests.api.helpers import ApiClient
from tests.mcp.helpers import ok

pytestmark = pytest.mark.django_db(transaction=True)


def test_both_agent_doors_answer_capabilities_the_same(make_token, mcp_as, client, settings):
    settings.CONTINUITY_RATE_LIMIT_PER_MINUTE = 120
    token, raw = make_token("claude-code", allowed_projects=["github:acme/api"])

    over_mcp = ok(mcp_as(raw=raw).call("memory_capabilities"))
    response = ApiClient(client, raw).get("capabilities")

    assert response.status_code == 200
    assert response.json() == over_mcp
    assert datetime.fromisoformat(over_mcp["expires_at"]) == token.expires_at
    assert over_mcp["allowed_projects"] == ["github:acme/api"]
    limits = over_mcp["limits"]
    assert limits["rate_limit_per_minute"] == 120
    assert limits["max_content_chars"] == contract.MAX_CONTENT_CHARS
    assert limits["token_budget"]["context_default"] == contract.CONTEXT_DEFAULT_BUDGET
    assert limits["token_budget"]["bootstrap_default"] == contract.BOOTSTRAP_DEFAULT_BUDGET
    assert limits["checkpoint_max_memories"] == contract.CHECKPOINT_MAX_MEMORIES
