"""A token's last refusal, for the owner: a call refused for a reason only the owner can fix
is noted on the token (owner API, Tokens tab) whichever door it came through; an agent's own
mistakes are not."""

from __future__ import annotations

import pytest
from django.utils import timezone

from accounts.models import PersonalAccessToken
from tests.api.helpers import ApiClient
from tests.capture.helpers import items_of
from tests.mcp.helpers import error

BATCHES = "/api/v1/capture/batches"
BATCH = {"source": "claude_code", "thread_id": "sess-1", "items": items_of("claude_code")}


def refusal(client, owner, token) -> dict | None:
    client.force_login(owner)
    answer = client.get(f"/api/owner/tokens/{token.pk}/")
    assert answer.status_code == 200, answer.content
    return answer.json()["last_refusal"]


@pytest.mark.django_db
def test_a_hook_token_without_capture_write_is_noted_where_the_owner_sees_it(
    client, owner, make_token
):
    token, raw = make_token("claude-code", scopes=["memories:read", "memories:write"])
    assert refusal(client, owner, token) is None
    client.logout()
    refused = ApiClient(client, raw).post(BATCHES, BATCH)
    assert refused.status_code == 403
    noted = refusal(client, owner, token)
    assert noted["code"] == "FORBIDDEN"
    assert "capture:write" in noted["message"]
    assert noted["where"] == f"POST {BATCHES}"
    page = client.get("/tokens/").content.decode()
    assert "capture:write" in page and "Refused" in page


@pytest.mark.django_db
def test_a_revoked_token_still_in_use_is_noted_on_it(client, owner, make_token):
    token, raw = make_token("codex")
    PersonalAccessToken.objects.filter(pk=token.pk).update(revoked_at=timezone.now())
    assert ApiClient(client, raw).get("/api/v1/capabilities").status_code == 401
    noted = refusal(client, owner, token)
    assert noted["code"] == "UNAUTHORIZED" and "revoked" in noted["message"]


@pytest.mark.django_db
def test_an_agents_own_mistake_is_not_noted(client, owner, make_token):
    token, raw = make_token("claude-code", scopes=["capture:write"])
    bad = ApiClient(client, raw).post(BATCHES, {**BATCH, "source": "nobody"})
    assert bad.status_code == 400
    unknown = ApiClient(client, "cont_pat_" + "x" * 40).get("/api/v1/capabilities")
    assert unknown.status_code == 401
    assert refusal(client, owner, token) is None


@pytest.mark.django_db(transaction=True)
def test_a_refused_mcp_call_is_noted_with_its_tool(client, owner, make_token, mcp_as):
    token, raw = make_token("claude-code", scopes=["capture:write"])
    refused = error(mcp_as(raw=raw).call("memory_recall", {"query": "deploys"}))
    assert refused["code"] == "FORBIDDEN"
    noted = refusal(client, owner, token)
    assert (noted["code"], noted["where"]) == ("FORBIDDEN", "MCP memory_recall")


@pytest.mark.django_db
def test_the_same_refusal_again_is_not_written_again(client, owner, make_token):
    token, raw = make_token("claude-code", scopes=["memories:read"])
    agent = ApiClient(client, raw)
    assert agent.post(BATCHES, BATCH).status_code == 403
    first = PersonalAccessToken.objects.get(pk=token.pk).last_refusal_at
    assert agent.post(BATCHES, BATCH).status_code == 403
    assert PersonalAccessToken.objects.get(pk=token.pk).last_refusal_at == first
