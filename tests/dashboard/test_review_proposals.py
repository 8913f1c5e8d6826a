"""Answering compaction's proposals in Review and through the owner API: merge keeps one
near-duplicate and supersedes the other (never deletes), a stale memory is verified or
archived, a dismissed proposal is never made again. Proposals come from real compaction."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.utils import timezone

from foundation.actors import Actor
from foundation.maintenance.runs import Deadline
from memories.compaction import propose_near_duplicates, propose_stale
from memories.models import Memory, MemoryEvent, MemoryLink, ReviewProposal
from tests.htmx import counts_after

from .conftest import DashboardClient, remember

pytestmark = pytest.mark.django_db
PROJECT = {"scope_type": "project", "scope_key": "github:ada/api"}


@pytest.fixture
def near(owner, agent_actor):
    first = remember(Actor.owner(owner), "Use pnpm for this repo", **PROJECT)
    second = remember(
        agent_actor, "The api service has no lockfile", key="package-manager", **PROJECT
    )
    # Every write now answers a repeat with the memory it repeats, so near-duplicates come
    # from rows older than that (or imported): one is given the repeating text directly.
    Memory.objects.filter(pk=second.pk).update(content="use pnpm in this repo please")
    propose_near_duplicates(deadline=Deadline.after(60))
    proposal = ReviewProposal.objects.get(kind="near_duplicate")
    return proposal, Memory.objects.get(pk=first.pk), Memory.objects.get(pk=second.pk)


@pytest.fixture
def stale(agent_actor, settings):
    settings.CONTINUITY_STALE_AFTER_DAYS = 30
    memory = remember(agent_actor, "预发环境的主机是 stg-1。", kind="fact")
    Memory.objects.filter(pk=memory.pk).update(created_at=timezone.now() - timedelta(days=40))
    propose_stale(now=timezone.now())
    return ReviewProposal.objects.get(kind="stale"), Memory.objects.get(pk=memory.pk)


def test_review_shows_each_proposal_with_its_answers(browser, near, stale):
    html = browser.get("/review/").content.decode()
    assert f'id="p-{near[0].pk}"' in html and "Keep this one, merge the other into it" in html
    assert f'id="p-{stale[0].pk}"' in html and "Still true" in html and "预发环境" in html


def test_merging_over_htmx_keeps_the_chosen_memory_and_supersedes_the_other(browser, near):
    proposal, first, second = near
    response = browser.post(
        f"/review/proposals/{proposal.pk}/accept/", {"keep": str(first.pk)}, htmx=True
    )
    html = response.content.decode()
    assert response.status_code == 200 and "<html" not in html
    assert f'id="p-{proposal.pk}"' in html and "Merged" in html
    assert "count-review" not in html and counts_after(browser, response)["review"] == 0
    kept, merged = Memory.objects.get(pk=first.pk), Memory.objects.get(pk=second.pk)
    assert kept.status == "active" and merged.status == "superseded"
    assert kept.key == "package-manager"  # the merged memory's key now answers with the kept one
    assert MemoryLink.objects.filter(
        from_memory=merged, to_memory=kept, relation="duplicates"
    ).exists()
    assert MemoryEvent.objects.filter(memory_id=kept.pk, event_type="merged").exists()
    assert ReviewProposal.objects.get(pk=proposal.pk).status == "accepted"


def test_merging_without_a_choice_keeps_the_most_trusted(owner, near):
    from memories.services.proposals import proposal_accept

    proposal, first, second = near
    proposal_accept(actor=Actor.owner(owner), proposal_id=proposal.pk)
    assert Memory.objects.get(pk=first.pk).status == "active"  # the owner's own, confirmed
    assert Memory.objects.get(pk=second.pk).status == "superseded"


def test_keeping_a_memory_outside_the_proposal_is_refused_and_changes_nothing(browser, near, world):
    proposal, first, second = near
    html = browser.post(
        f"/review/proposals/{proposal.pk}/accept/", {"keep": str(world.editor.pk)}, htmx=True
    ).content.decode()
    assert "keep must be one of" in html
    assert {Memory.objects.get(pk=m.pk).status for m in (first, second)} == {"active"}
    assert ReviewProposal.objects.get(pk=proposal.pk).status == "pending"


def test_a_dismissed_pair_is_not_proposed_again(browser, near):
    proposal = near[0]
    response = browser.post(f"/review/proposals/{proposal.pk}/dismiss/", {}, htmx=True)
    assert "will not be proposed again" in response.content.decode()
    assert propose_near_duplicates(deadline=Deadline.after(60))["proposed"] == 0
    assert list(ReviewProposal.objects.values_list("status", flat=True)) == ["dismissed"]
    assert f'id="p-{proposal.pk}"' not in browser.get("/review/").content.decode()


def test_still_true_confirms_a_stale_memory_so_it_is_not_stale_any_more(browser, stale):
    proposal, memory = stale
    response = browser.post(f"/review/proposals/{proposal.pk}/accept/", {"resolution": "verify"})
    assert response.status_code == 302 and response["Location"] == "/review/"
    memory = Memory.objects.get(pk=memory.pk)
    assert memory.trust == "confirmed" and memory.verified_at > timezone.now() - timedelta(
        minutes=1
    )
    assert ReviewProposal.objects.get(pk=proposal.pk).detail["resolution"] == "verify"


def test_still_true_on_an_already_confirmed_memory_refreshes_when_it_was_verified(owner, settings):
    from memories.services.proposals import proposal_accept

    settings.CONTINUITY_STALE_AFTER_DAYS = 30
    me = Actor.owner(owner)
    memory = remember(me, "My shell is fish.")
    long_ago = timezone.now() - timedelta(days=40)
    Memory.objects.filter(pk=memory.pk).update(created_at=long_ago, verified_at=long_ago)
    propose_stale(now=timezone.now())
    proposal_accept(actor=me, proposal_id=ReviewProposal.objects.get().pk, resolution="verify")
    assert Memory.objects.get(pk=memory.pk).verified_at > long_ago + timedelta(days=39)
    assert MemoryEvent.objects.filter(memory_id=memory.pk, event_type="confirmed").count() == 1


def test_archive_retires_a_stale_memory_without_deleting_it(browser, stale):
    proposal, memory = stale
    html = browser.post(
        f"/review/proposals/{proposal.pk}/accept/", {"resolution": "archive"}, htmx=True
    ).content.decode()
    assert "Archived." in html and f'id="m-{memory.pk}"' in html
    assert Memory.objects.get(pk=memory.pk).status == "archived"


def test_a_stale_proposal_needs_a_resolution(browser, stale):
    proposal, memory = stale
    html = browser.post(
        f"/review/proposals/{proposal.pk}/accept/", {"resolution": "delete"}, htmx=True
    ).content.decode()
    assert "resolution must be verify" in html
    assert Memory.objects.get(pk=memory.pk).status == "active"


def test_answering_twice_is_a_conflict_shown_in_place(browser, stale):
    proposal = stale[0]
    browser.post(f"/review/proposals/{proposal.pk}/accept/", {"resolution": "archive"}, htmx=True)
    html = browser.post(f"/review/proposals/{proposal.pk}/dismiss/", htmx=True).content.decode()
    assert "already accepted" in html


def test_a_proposal_whose_memories_left_becomes_obsolete(browser, owner, near):
    from memories.services import memory_archive

    proposal, first, _ = near
    memory_archive(actor=Actor.owner(owner), memory_id=first.pk)
    html = browser.post(f"/review/proposals/{proposal.pk}/accept/", {}, htmx=True).content.decode()
    assert "no longer applies" in html
    assert ReviewProposal.objects.get(pk=proposal.pk).status == "obsolete"


def test_another_owners_proposal_is_404_and_untouched(other_owner, near):
    stranger = DashboardClient(other_owner)
    proposal = near[0]
    assert stranger.post(f"/review/proposals/{proposal.pk}/dismiss/", htmx=True).status_code == 404
    assert ReviewProposal.objects.get(pk=proposal.pk).status == "pending"


def test_an_unknown_answer_is_404(browser, near):
    assert browser.post(f"/review/proposals/{near[0].pk}/explode/").status_code == 404


def test_an_agent_cannot_answer_proposals(agent_actor, near):
    from foundation.errors import ServiceError
    from memories.services.proposals import proposal_dismiss

    with pytest.raises(ServiceError) as raised:
        proposal_dismiss(actor=agent_actor, proposal_id=near[0].pk)
    assert raised.value.code == "FORBIDDEN"


# --- the owner API ---------------------------------------------------------------------------


def api_post(client, path, body):
    return client.post(path, json.dumps(body), content_type="application/json",
                       headers={"X-CSRFToken": client.cookies["csrftoken"].value})  # fmt: skip


def test_the_owner_api_lists_pending_proposals_and_accepts_a_merge(browser, near):
    proposal, first, second = near
    listed = browser.get("/api/owner/proposals/").json()
    assert [item["id"] for item in listed["results"]] == [proposal.pk]
    response = api_post(
        browser, f"/api/owner/proposals/{proposal.pk}/accept/", {"keep": str(second.pk)}
    )
    assert response.status_code == 200 and response.json()["status"] == "accepted"
    assert response.json()["detail"]["kept"] == str(second.pk)
    assert Memory.objects.get(pk=first.pk).status == "superseded"
    assert (
        browser.get("/api/owner/proposals/", {"status": "accepted"}).json()["results"][0]["id"]
        == proposal.pk
    )


def test_the_owner_api_answers_bad_input_in_the_error_envelope(browser, stale):
    proposal = stale[0]
    response = api_post(
        browser, f"/api/owner/proposals/{proposal.pk}/accept/", {"resolution": "burn"}
    )
    assert response.status_code == 400 and response.json()["error"]["code"] == "VALIDATION_ERROR"
    response = api_post(
        browser,
        f"/api/owner/proposals/{proposal.pk}/accept/",
        {"resolution": "verify", "force": True},
    )
    assert (
        response.status_code == 400 and response.json()["error"]["details"][0]["field"] == "force"
    )
    assert (
        browser.get("/api/owner/proposals/", {"status": "maybe"}).json()["error"]["code"]
        == "VALIDATION_ERROR"
    )
    assert browser.get("/api/owner/proposals/999999/").json()["error"]["code"] == "NOT_FOUND"
    assert ReviewProposal.objects.get(pk=proposal.pk).status == "pending"


def test_the_owner_api_dismiss_is_idempotent(browser, stale):
    proposal = stale[0]
    for _ in range(2):
        response = api_post(browser, f"/api/owner/proposals/{proposal.pk}/dismiss/", {})
        assert response.status_code == 200 and response.json()["status"] == "dismissed"


def test_the_answers_read_in_chinese(browser, near, stale):
    browser.post("/i18n/setlang/", {"language": "zh-hans", "next": "/review/"})
    html = browser.get("/review/").content.decode()
    assert "保留这一条，把另一条合并进来" in html and "仍然成立" in html and "忽略" in html


def test_a_memory_verified_as_still_true_is_flagged_again_after_another_window(owner, stale):
    from memories.services.proposals import proposal_accept

    proposal, memory = stale
    proposal_accept(actor=Actor.owner(owner), proposal_id=proposal.pk, resolution="verify")
    assert propose_stale(now=timezone.now())["proposed"] == 0
    assert propose_stale(now=timezone.now() + timedelta(days=31))["proposed"] == 1
    assert ReviewProposal.objects.filter(status="pending", memory_ids=[str(memory.pk)]).count() == 1


def test_a_dismissed_stale_memory_is_never_flagged_again(owner, stale):
    from memories.services.proposals import proposal_dismiss

    proposal_dismiss(actor=Actor.owner(owner), proposal_id=stale[0].pk)
    assert propose_stale(now=timezone.now() + timedelta(days=400))["proposed"] == 0
