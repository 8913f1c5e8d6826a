"""Undo a rejection in the inbox: the rejected card offers Undo, which reopens the candidate
through `candidate_reopen` (pending again, its fingerprint forgotten); anything but a
rejected candidate is refused and left as it is."""

from __future__ import annotations

import pytest

from capture.models import Candidate, RejectedFingerprint

pytestmark = pytest.mark.django_db


def _candidate(owner, text="Use pnpm, never npm.", fingerprint="a" * 64) -> Candidate:
    return Candidate.objects.create(
        owner=owner, content=text, fingerprint=fingerprint, kind="preference", rule="prefer",
        confidence=0.8, agents=["claude-code"],
    )  # fmt: skip


def test_a_rejected_candidate_offers_undo_which_reopens_it(browser, owner):
    candidate = _candidate(owner)
    html = browser.post(f"/inbox/c/{candidate.pk}/reject/", htmx=True).content.decode()
    assert f'hx-post="/inbox/c/{candidate.pk}/reopen/"' in html and ">Undo</button>" in html
    assert RejectedFingerprint.objects.filter(
        owner=owner, fingerprint=candidate.fingerprint
    ).exists()
    response = browser.post(f"/inbox/c/{candidate.pk}/reopen/", htmx=True)
    assert response.status_code == 200 and "counts-changed" in response.headers["HX-Trigger"]
    assert Candidate.objects.get(pk=candidate.pk).status == "pending"
    assert not RejectedFingerprint.objects.filter(owner=owner).exists()


def test_reopen_without_javascript_redirects_back_to_the_inbox(browser, owner):
    candidate = _candidate(owner)
    browser.post(f"/inbox/c/{candidate.pk}/reject/")
    response = browser.post(f"/inbox/c/{candidate.pk}/reopen/", {"next": "/inbox/"})
    assert response.status_code == 302 and response["Location"] == "/inbox/"
    assert Candidate.objects.get(pk=candidate.pk).status == "pending"


def test_reopening_twice_or_a_pending_one_is_refused_and_changes_nothing(browser, owner):
    candidate = _candidate(owner)
    response = browser.post(f"/inbox/c/{candidate.pk}/reopen/", htmx=True)
    assert response.status_code == 409 and "Only a rejected candidate" in response.content.decode()
    browser.post(f"/inbox/c/{candidate.pk}/reject/", htmx=True)
    browser.post(f"/inbox/c/{candidate.pk}/reopen/", htmx=True)
    assert browser.post(f"/inbox/c/{candidate.pk}/reopen/", htmx=True).status_code == 409
    assert Candidate.objects.get(pk=candidate.pk).status == "pending"


def test_reopen_is_refused_while_another_pending_candidate_says_the_same(browser, owner):
    first = _candidate(owner)
    browser.post(f"/inbox/c/{first.pk}/reject/", htmx=True)
    _candidate(owner, "Use pnpm, never npm!")  # the same fingerprint, proposed again
    response = browser.post(f"/inbox/c/{first.pk}/reopen/", htmx=True)
    assert response.status_code == 409 and "Another pending candidate" in response.content.decode()
    assert Candidate.objects.get(pk=first.pk).status == "rejected"
    assert RejectedFingerprint.objects.filter(owner=owner).exists()


def test_another_owners_candidate_cannot_be_reopened(browser, other_owner):
    foreign = _candidate(other_owner)
    Candidate.objects.filter(pk=foreign.pk).update(status="rejected")
    assert browser.post(f"/inbox/c/{foreign.pk}/reopen/", htmx=True).status_code == 404
    assert Candidate.objects.get(pk=foreign.pk).status == "rejected"
