"""The services' remaining messages reach a Chinese page in Chinese: token errors and the
refusals kept on a token, inbox decisions, handoff filters, and the reasons compaction and
the relation judge record, as Activity shows them. The agent API answers the same refusal in
English whatever language the request asks for."""

from __future__ import annotations

from html import unescape

import pytest

from accounts.models import PersonalAccessToken
from capture.models import Candidate
from foundation.actors import Actor
from foundation.maintenance.runs import Deadline
from memories.compaction.duplicates import merge_exact_duplicates
from memories.models import Memory
from memories.services import memory_supersede
from tests.api.helpers import ApiClient
from tests.capture.helpers import items_of

from .conftest import DashboardClient, remember

pytestmark = pytest.mark.django_db

BATCHES = "/api/v1/capture/batches"
BATCH = {"source": "claude_code", "thread_id": "sess-1", "items": items_of("claude_code")}
TOKEN_FORM = {
    "name": "Laptop Claude", "agent_name": "claude-code", "expires_in_days": "30",
    "scopes": ["memories:read", "memories:write"],
}  # fmt: skip


@pytest.fixture
def zh(browser) -> DashboardClient:
    browser.post("/i18n/setlang/", {"language": "zh-hans", "next": "/"})
    return browser


def _candidate(owner, text="Use pnpm, never npm.") -> Candidate:
    return Candidate.objects.create(
        owner=owner, content=text, fingerprint="a" * 64, kind="preference", rule="prefer",
        confidence=0.8, agents=["claude-code"],
    )  # fmt: skip


def test_a_bad_token_form_is_refused_in_chinese(zh):
    response = zh.post("/tokens/", {**TOKEN_FORM, "agent_name": "has spaces"})
    html = response.content.decode()
    assert response.status_code == 400
    assert "智能体名称必须是 1 到 100 个字符" in html and "must be 1-100 characters" not in html
    response = zh.post("/tokens/", {**TOKEN_FORM, "expires_in_days": "0"})
    assert "有效天数必须在 1 到 3650 之间。" in response.content.decode()
    assert not PersonalAccessToken.objects.exists()


def test_a_refusal_kept_on_a_token_reads_in_chinese(zh, client, make_token):
    _, raw = make_token("claude-code", scopes=["memories:read", "memories:write"])
    assert ApiClient(client, raw).post(BATCHES, BATCH).status_code == 403
    html = unescape(zh.get("/tokens/").content.decode())
    assert "此令牌缺少 'capture:write' 权限范围。" in html
    assert "lacks the" not in html


def test_a_revoked_token_still_in_use_is_reported_in_chinese(zh, client, make_token):
    token, raw = make_token("codex")
    zh.post(f"/tokens/{token.pk}/revoke/")
    assert ApiClient(client, raw).get("/api/v1/capabilities").status_code == 401
    html = zh.get("/tokens/").content.decode()
    assert "仍有智能体在使用这个已撤销的令牌：请给它一个新令牌。" in html
    assert "still uses this revoked token" not in html


def test_the_agent_api_keeps_the_same_refusal_in_english(client, make_token):
    _, raw = make_token("claude-code", scopes=["memories:read", "memories:write"])
    response = client.post(
        BATCHES, BATCH, content_type="application/json",
        headers={"Authorization": f"Bearer {raw}", "Accept-Language": "zh-CN,zh;q=0.9"},
    )  # fmt: skip
    assert response.status_code == 403
    assert response.json()["error"]["message"] == "This token lacks the 'capture:write' scope."


def test_deciding_a_decided_candidate_is_refused_in_chinese(zh, owner):
    candidate = _candidate(owner)
    zh.post(f"/inbox/c/{candidate.pk}/reject/", htmx=True)
    response = zh.post(f"/inbox/c/{candidate.pk}/approve/", htmx=True)
    html = response.content.decode()
    assert response.status_code == 409
    assert "这条候选记忆已经处理过了（已拒绝）；请重新加载收件箱。" in html
    assert "already decided" not in html
    assert Candidate.objects.get(pk=candidate.pk).status == "rejected"


def test_reopening_a_pending_candidate_is_refused_in_chinese(zh, owner):
    candidate = _candidate(owner)
    response = zh.post(f"/inbox/c/{candidate.pk}/reopen/", htmx=True)
    html = response.content.decode()
    assert response.status_code == 409
    assert "只有已拒绝的候选记忆才能重新打开" in html and "Only a rejected candidate" not in html
    assert Candidate.objects.get(pk=candidate.pk).status == "pending"


def test_an_unknown_handoff_state_is_refused_in_chinese(zh):
    response = zh.get("/handoffs/", {"state": "bogus"})
    html = response.content.decode()
    assert response.status_code == 400
    assert "状态必须是以下之一：active, open, resumed, expired" in html
    assert "state must be one of" not in html


def test_compaction_reasons_read_in_chinese_in_activity(zh, owner):
    me = Actor.owner(owner)
    kept = remember(me, "Deploys go out on Tuesdays.")
    copy = remember(me, "Releases ship every Friday.")
    # An equal statement that slipped in under a stale fingerprint (an old import).
    Memory.objects.filter(pk=copy.pk).update(content=kept.content)
    assert merge_exact_duplicates(deadline=Deadline.after(30))["merged"] == 1
    html = zh.get("/activity/").content.decode()
    assert "压缩：与 " in html and " 完全重复" in html  # the survivor named by its words
    assert "压缩：完全重复" in html  # the survivor's own merge event
    assert "compaction: exact duplicate" not in html


def test_a_supersession_reason_reads_in_chinese_in_activity(zh, owner):
    me = Actor.owner(owner)
    old = remember(me, "The staging database is on port 5432.")
    new = remember(me, "Staging moved to a managed database.")
    memory_supersede(actor=me, memory_id=old.pk, superseded_by=new.pk)
    html = zh.get("/activity/").content.decode()
    assert "被一条更新的记忆取代" in html and "superseded by a newer memory" not in html
