"""Compaction's proposals in Review: paged like every other list (htmx loads the next page
in place), their total beside the heading and in the Review tab's number, and dismissed
in bulk through the one dismiss service."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from memories.compaction import propose_stale
from memories.models import ReviewProposal
from tests.htmx import counts_after

from .conftest import DashboardClient, imported

pytestmark = pytest.mark.django_db
COUNT = 13  # more than one page of Review's proposals (10)


@pytest.fixture
def stale(owner, settings):
    settings.CONTINUITY_STALE_AFTER_DAYS = 30
    imported(owner, COUNT, created_at=(timezone.now() - timedelta(days=40)).isoformat())
    propose_stale(now=timezone.now())
    proposals = list(ReviewProposal.objects.filter(kind="stale").order_by("-created_at", "-pk"))
    assert len(proposals) == COUNT
    return proposals


def review_badge(html: str) -> int:
    return int(html.split('id="count-review">')[1].split("<")[0])


def shown_proposals(html: str) -> int:
    return html.count('class="proposal" id="p-')


def test_review_shows_a_page_of_proposals_with_their_total_and_a_load_more(browser, stale):
    html = browser.get("/review/").content.decode()
    assert shown_proposals(html) == 10
    heading = html.split('id="proposals-title">')[1].split("</h2>")[0]
    assert f'<span class="count">{COUNT}</span>' in heading
    assert "fragment=proposals-page" in html and "Apply to all 13 matching" in html


def test_the_next_page_of_proposals_comes_as_a_fragment(browser, stale):
    html = browser.get("/review/").content.decode()
    link = html.split("fragment=proposals-page")[0].rsplit('hx-get="', 1)[1]
    cursor = link.split("cursor=")[1].split("&")[0]
    response = browser.hx_get("/review/", {"section": "proposals", "cursor": cursor,
                                           "fragment": "proposals-page"})  # fmt: skip
    more = response.content.decode()
    assert response.status_code == 200 and "<html" not in more and "<h2" not in more
    assert shown_proposals(more) == COUNT - 10
    ids = {p.pk for p in stale}
    seen = {int(part.split('"')[0]) for part in (html + more).split('class="proposal" id="p-')[1:]}
    assert seen == ids


def test_a_plain_next_page_link_still_works_without_javascript(browser, stale):
    html = browser.get("/review/").content.decode()
    href = html.split('class="more" href="?section=proposals&cursor=')[1].split('"')[0]
    page = browser.get(f"/review/?section=proposals&cursor={href}").content.decode()
    assert "<html" in page and shown_proposals(page) == COUNT - 10


def test_the_review_badge_counts_open_proposals(browser, stale):
    # Thirteen stale proposals, no inferences to confirm and no disputes.
    assert review_badge(browser.get("/").content.decode()) == COUNT


def test_dismissing_proposals_in_bulk_reports_each_and_lowers_the_badge(browser, stale, owner):
    ids = [p.pk for p in stale[:4]] + [999_999, "x"]
    response = browser.post(
        "/bulk/", {"list": "review-proposals", "action": "dismiss", "scope": "selected",
                   "ids": [str(i) for i in ids]}, htmx=True,
    )  # fmt: skip
    html = response.content.decode()
    assert response.status_code == 200
    assert "Dismissed: 4 done, 0 refused, 2 not found." in html
    assert "Imported observation number" in html  # each named by its memory, not its id
    assert counts_after(browser, response)["review"] == COUNT - 4
    statuses = ReviewProposal.objects.filter(pk__in=ids[:4]).values_list("status", flat=True)
    assert set(statuses) == {"dismissed"}


def test_an_answered_proposal_is_refused_by_the_service_in_a_bulk_dismiss(browser, stale):
    answered = stale[0]
    browser.post(f"/review/proposals/{answered.pk}/accept/", {"resolution": "verify"})
    response = browser.post(
        "/bulk/", {"list": "review-proposals", "action": "dismiss", "scope": "selected",
                   "ids": [str(answered.pk), str(stale[1].pk)], "next": "/review/"},
    )  # fmt: skip
    assert response.status_code == 302
    page = browser.get("/review/").content.decode()
    assert "Dismissed: 1 done, 1 refused, 0 not found." in page
    assert ReviewProposal.objects.get(pk=answered.pk).status == "accepted"


def test_all_matching_dismisses_every_open_proposal(browser, stale):
    response = browser.post(
        "/bulk/", {"list": "review-proposals", "action": "dismiss", "scope": "matching",
                   "filter": ""}, htmx=True,
    )  # fmt: skip
    assert f"Dismissed: {COUNT} done" in response.content.decode()
    assert not ReviewProposal.objects.filter(status="pending").exists()


def test_another_owners_proposal_is_not_found_and_left_alone(stale, other_owner):
    grace = DashboardClient(other_owner)
    response = grace.post(
        "/bulk/", {"list": "review-proposals", "action": "dismiss", "scope": "selected",
                   "ids": [str(stale[0].pk)]}, htmx=True,
    )  # fmt: skip
    assert "Dismissed: 0 done, 0 refused, 1 not found." in response.content.decode()
    assert ReviewProposal.objects.get(pk=stale[0].pk).status == "pending"
