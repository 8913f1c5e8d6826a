"""The dashboard's Inbox tab: pending candidates with evidence, approve (private or shared,
replacing, edited), reject, bulk, never-remember phrases; htmx answers with the card and
announces `counts-changed` (the tab bar re-fetches the counts), a plain form post redirects back; owner-only; CSRF enforced."""

from __future__ import annotations

import pytest

from capture.models import Candidate, NeverRememberPattern
from memories.models import Memory
from tests.dashboard.conftest import DashboardClient
from tests.htmx import counts_after
from tests.memories.helpers import remember

from .inbox_helpers import pending, propose

pytestmark = pytest.mark.django_db


@pytest.fixture
def browser(owner) -> DashboardClient:
    return DashboardClient(owner)


@pytest.fixture
def inbox(owner):
    propose(owner, "I prefer tabs over spaces.", agent="claude-code", external_id="sess-a")
    propose(owner, "我们决定用 Redis 做缓存。", agent="codex", external_id="sess-b")
    return {candidate.content: candidate for candidate in pending(owner)}


def count_of(html: str, name: str) -> str:
    return html.split(f'id="count-{name}"', 1)[1].split(">", 1)[1].split("<", 1)[0]


def test_the_inbox_lists_pending_candidates_newest_first_with_their_evidence(browser, inbox):
    response = browser.get("/inbox/")
    html = response.content.decode()
    assert response.status_code == 200
    assert html.index("我们决定用 Redis 做缓存") < html.index("I prefer tabs over spaces")
    assert (
        "<q>我们决定用 Redis 做缓存。</q>" in html
        and "codex" in html
        and "claude_code: sess-a" in html
    )
    assert count_of(html, "inbox") == "2"
    assert 'aria-current="page">Inbox' in html


def test_approve_over_htmx_swaps_the_card_and_announces_the_counts_changed(browser, inbox):
    candidate = inbox["I prefer tabs over spaces"]
    response = browser.post(f"/inbox/c/{candidate.pk}/approve/", htmx=True)
    html = response.content.decode()
    assert response.status_code == 200 and "<html" not in html
    assert f'id="c-{candidate.pk}"' in html and "status-approved" in html
    assert "count-inbox" not in html and counts_after(browser, response)["inbox"] == 1
    memory = Memory.objects.get(pk=Candidate.objects.get(pk=candidate.pk).memory_id)
    assert (memory.visibility, memory.trust, memory.origin) == ("private", "confirmed", "capture")


def test_approve_as_shared_without_javascript_redirects_back(browser, inbox):
    candidate = inbox["I prefer tabs over spaces"]
    response = browser.post(
        f"/inbox/c/{candidate.pk}/approve/", {"shared": "yes", "next": "/inbox/"}
    )
    assert response.status_code == 302 and response["Location"] == "/inbox/"
    assert Memory.objects.get(content="I prefer tabs over spaces").visibility == "shared"


def test_a_candidate_close_to_a_memory_shows_both_side_by_side_and_can_replace_it(
    browser, owner, owner_actor
):
    old = remember(owner_actor, "Never use tabs in Go files", kind="constraint").id
    propose(owner, "Always use tabs in Go files.")
    (candidate,) = pending(owner)
    html = browser.get("/inbox/").content.decode()
    card = html.split(f'id="c-{candidate.pk}"', 1)[1]
    assert (
        "Would replace" in card
        and "Never use tabs in Go files" in card
        and "Approve, replacing it" in card
    )
    browser.post(f"/inbox/c/{candidate.pk}/approve/", {"replace": "yes"}, htmx=True)
    assert Memory.objects.get(pk=old).status == "superseded"
    assert str(Memory.objects.get(content="Always use tabs in Go files").supersedes_id) == str(old)


def test_edit_then_approve_over_htmx_and_a_bad_edit_keeps_the_form_with_the_error(browser, inbox):
    candidate = inbox["我们决定用 Redis 做缓存"]
    form = browser.hx_get(f"/inbox/c/{candidate.pk}/", {"mode": "edit"}).content.decode()
    assert "<textarea" in form and "我们决定用 Redis 做缓存</textarea>" in form
    bad = {
        "edit": "yes",
        "content": "token = sk-abcdefghijklmnopqrstuvwxyz123456",
        "kind": "decision",
        "scope_type": "global",
    }
    html = browser.post(f"/inbox/c/{candidate.pk}/approve/", bad, htmx=True).content.decode()
    assert "<textarea" in html and 'role="alert"' in html and Memory.objects.count() == 0
    good = {
        "edit": "yes",
        "content": "缓存统一用 Redis 7",
        "kind": "constraint",
        "scope_type": "project",
        "scope_key": "github:ada/api",
    }
    html = browser.post(f"/inbox/c/{candidate.pk}/approve/", good, htmx=True).content.decode()
    assert "status-approved" in html
    memory = Memory.objects.get()
    assert (memory.content, memory.kind, memory.scope_key) == (
        "缓存统一用 Redis 7",
        "constraint",
        "github:ada/api",
    )


def test_edit_without_javascript_is_a_page_and_a_bad_edit_answers_400_with_the_form(browser, inbox):
    candidate = inbox["I prefer tabs over spaces"]
    page = browser.get(f"/inbox/c/{candidate.pk}/", {"mode": "edit"})
    assert page.status_code == 200 and b"<html" in page.content and b"<textarea" in page.content
    response = browser.post(
        f"/inbox/c/{candidate.pk}/approve/",
        {"edit": "yes", "content": "  ", "kind": "preference", "scope_type": "global"},
    )
    assert response.status_code == 400 and b"<textarea" in response.content
    assert Candidate.objects.get(pk=candidate.pk).status == "pending"


def test_reject_over_htmx_and_a_second_decision_shows_the_conflict(browser, inbox):
    candidate = inbox["I prefer tabs over spaces"]
    response = browser.post(f"/inbox/c/{candidate.pk}/reject/", htmx=True)
    assert "status-rejected" in response.content.decode()
    assert counts_after(browser, response)["inbox"] == 1
    second = browser.post(f"/inbox/c/{candidate.pk}/approve/", htmx=True)
    # The real status; htmx swaps it into the card all the same (base template config).
    assert second.status_code == 409 and "<html" not in second.content.decode()
    assert "already decided" in second.content.decode() and Memory.objects.count() == 0


def test_bulk_approve_with_htmx_refreshes_the_inbox_and_counts(browser, inbox):
    ids = [str(candidate.pk) for candidate in inbox.values()]
    response = browser.post(
        "/inbox/bulk/", {"action": "approve", "ids": ids, "shared": "yes"}, htmx=True
    )
    html = response.content.decode()
    assert "Approved 2 candidates." in html and "Nothing to review." in html
    assert counts_after(browser, response)["inbox"] == 0
    assert set(Memory.objects.values_list("visibility", flat=True)) == {"shared"}


def test_bulk_reject_without_javascript_and_a_bad_id_refuses_all(browser, inbox):
    ids = [str(candidate.pk) for candidate in inbox.values()]
    response = browser.post(
        "/inbox/bulk/", {"action": "reject", "ids": [*ids, "not-an-id"]}, follow=True
    )
    assert (
        "nothing was changed" in response.content.decode()
        and len(Candidate.objects.filter(status="pending")) == 2
    )
    response = browser.post("/inbox/bulk/", {"action": "reject", "ids": ids, "next": "/inbox/"})
    assert response.status_code == 302 and not Candidate.objects.filter(status="pending").exists()


def test_never_remember_phrases_are_added_and_removed_on_the_inbox_page(browser, inbox, owner):
    html = browser.post("/inbox/never/", {"pattern": "redis"}, htmx=True).content.decode()
    assert "1 pending candidate left the inbox." in html and "我们决定用 Redis 做缓存" not in html
    row = NeverRememberPattern.objects.get(owner=owner)
    assert f"/inbox/never/{row.pk}/delete/" in html
    response = browser.post(f"/inbox/never/{row.pk}/delete/", {"next": "/inbox/"})
    assert response.status_code == 302 and not NeverRememberPattern.objects.exists()
    html = browser.post("/inbox/never/", {"pattern": "   "}, htmx=True).content.decode()
    assert "pattern must be a non-empty phrase." in html


def test_another_owner_gets_404_and_anonymous_visitors_are_sent_to_sign_in(inbox, other_owner):
    candidate = inbox["I prefer tabs over spaces"]
    other = DashboardClient(other_owner)
    assert "I prefer tabs" not in other.get("/inbox/").content.decode()
    assert other.post(f"/inbox/c/{candidate.pk}/approve/").status_code == 404
    assert other.get(f"/inbox/c/{candidate.pk}/").status_code == 404
    response = DashboardClient().get("/inbox/")
    assert response.status_code == 302 and "/signin/" in response["Location"]
    assert Candidate.objects.get(pk=candidate.pk).status == "pending"


def test_a_post_without_the_csrf_token_is_refused(owner, inbox):
    from django.test import Client

    client = Client(enforce_csrf_checks=True)
    client.force_login(owner)
    candidate = inbox["I prefer tabs over spaces"]
    assert client.post(f"/inbox/c/{candidate.pk}/approve/").status_code == 403
    assert Candidate.objects.get(pk=candidate.pk).status == "pending"


def test_the_inbox_speaks_chinese(browser, inbox):
    html = browser.get("/inbox/", headers={"Accept-Language": "zh-hans"}).content.decode()
    assert "收件箱" in html and "永不记住" in html and "批准所选" in html and "与智能体共享" in html
